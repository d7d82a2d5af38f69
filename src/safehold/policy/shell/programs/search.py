"""Search and text programs: which of their words are patterns or scripts, never paths.

`grep -rn ".env" src` searches `src` for the text `.env`; it does not read `.env`, and
`sed -i 's/\t/  /' f` edits `f` with a script that is no file name. For each program the
table says, as data, which options take a value, which option values are patterns or
globs on names (`-e PAT`, `--include=GLOB`, `find -name GLOB`), which take a file of
patterns or a script file (`-f FILE`: that one is a path), and whether the first operand
is the pattern or script (unless `-e`/`-f` gave one).

A program with a table (`programs.PROGRAMS`: grep, sed, awk, `git grep`) has its option
words read by that table's parser (`resolve_option`): unique prefixes of long options
(`grep --regex=. FILE` is `--regexp=.`), clusters, glued values. An option word the table
does not resolve gives no pattern operand: every operand is then checked as a path, so a
mistake makes a pattern look like a path (checked, perhaps asked) and never a path look
like a pattern. The other programs (rg's parser takes exact names only, find's tests) read
their words with the lists below, where only options known to take a value consume one.
"""

from __future__ import annotations

from dataclasses import dataclass

from safehold.policy.shell.programs.table import Program, resolve_option
from safehold.policy.shell.words import Word

__all__ = ["SEARCHES", "Search", "pattern_words", "script_words", "search_operands"]


@dataclass(frozen=True, slots=True)
class Search:
    """How one search program spells its patterns."""

    # Options whose value is a count, a type, a colour…: neither pattern nor path.
    values: frozenset[str] = frozenset()
    # Options whose value is the search pattern (then no operand is).
    patterns: frozenset[str] = frozenset()
    # Options whose value is a glob or regex on file names: not a path, not the pattern.
    globs: frozenset[str] = frozenset()
    # Options whose value is a file of patterns: a path (read), and no operand is the pattern.
    pattern_files: frozenset[str] = frozenset()
    # Options whose value is a file of name filters: a path, and not the pattern.
    filter_files: frozenset[str] = frozenset()
    # Options after which no operand is a pattern (`rg --files`, `ag -g PAT`).
    no_pattern_operand: frozenset[str] = frozenset()
    first_operand_is_pattern: bool = True
    # `find`'s tests come after the roots and take their value as the next word.
    tests_only: bool = False


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


_GREP = Search(
    values=_f("-A", "-B", "-C", "-m", "-d", "-D", "--after-context", "--before-context",
              "--context", "--max-count", "--directories", "--devices", "--label",
              "--binary-files", "--group-separator"),
    patterns=_f("-e", "--regexp"),
    globs=_f("--include", "--exclude", "--exclude-dir"),
    pattern_files=_f("-f", "--file"),
    filter_files=_f("--exclude-from"),
)  # fmt: skip
_RG = Search(
    values=_f("-A", "-B", "-C", "-m", "-t", "-T", "-j", "-M", "-E", "-r", "--after-context",
              "--before-context", "--context", "--max-count", "--type", "--type-not",
              "--threads", "--max-columns", "--encoding", "--replace", "--max-depth",
              "--max-filesize", "--sort", "--sortr", "--color", "--colors", "--type-add",
              "--context-separator", "--field-match-separator", "--path-separator"),
    patterns=_f("-e", "--regexp"),
    globs=_f("-g", "--glob", "--iglob"),
    pattern_files=_f("-f", "--file"),
    filter_files=_f("--ignore-file"),
    no_pattern_operand=_f("--files", "--type-list"),
)  # fmt: skip
# ag's -A/-B/-C take an optional value, glued only: they never consume the next word.
_AG = Search(
    values=_f("-m", "--max-count", "--depth", "--pager"),
    patterns=_f("-g"),  # searches file names for the pattern instead of contents
    globs=_f("-G", "--file-search-regex", "--ignore", "--ignore-dir"),
    filter_files=_f("-p", "--path-to-ignore"),
)  # fmt: skip
_FIND = Search(
    values=_f("-type", "-xtype", "-perm", "-user", "-group", "-uid", "-gid", "-size",
              "-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin", "-maxdepth",
              "-mindepth", "-printf", "-links", "-inum", "-used", "-fstype", "-newerXY"),
    globs=_f("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex",
             "-iregex", "-lname", "-ilname"),
    first_operand_is_pattern=False,
    tests_only=True,
)  # fmt: skip

# sed and awk: the first operand is the script (a program, not a file) unless `-e`/`-f`
# gave one. `-i` takes its backup suffix glued, so it never consumes a word.
_SED = Search(
    values=_f("-l", "--line-length"),
    patterns=_f("-e", "--expression"),
    pattern_files=_f("-f", "--file"),
)
_AWK = Search(
    values=_f("-v", "--assign"),
    patterns=_f("-e", "--source"),
    globs=_f("-F", "--field-separator"),
    pattern_files=_f("-f", "--file", "-E", "--exec"),
    filter_files=_f("-i", "--include", "-l", "--load"),
)  # fmt: skip

SEARCHES: dict[str, Search] = {
    "sed": _SED,
    "gsed": _SED,
    "awk": _AWK,
    "gawk": _AWK,
    "mawk": _AWK,
    "nawk": _AWK,
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "zgrep": _GREP,
    "rg": _RG,
    "ag": _AG,
    "find": _FIND,
    "git grep": _GREP,  # `git grep` takes grep's pattern options
}


def pattern_words(words: tuple[Word, ...]) -> frozenset[int]:
    """Indices of the words of a command that are search patterns, not paths."""
    return _search_words(words)[0]


def search_operands(words: tuple[Word, ...]) -> tuple[int, ...]:
    """Indices of a search program's operands that are not its pattern: the files it reads."""
    patterns, operands = _search_words(words)
    return tuple(i for i in operands if i not in patterns)


def _search_words(words: tuple[Word, ...]) -> tuple[frozenset[int], tuple[int, ...]]:
    if not words or not words[0].static:
        return frozenset(), ()
    name = words[0].text.rsplit("/", 1)[-1]
    start = 1
    if name == "git":
        if len(words) < 2 or words[1].text != "grep":
            return frozenset(), ()
        name, start = "git grep", 2
    search = SEARCHES.get(name)
    if search is None:
        return frozenset(), ()
    return _read(search, words, start, _table(name))


# The table each search program's options are read with, when it has one (`zgrep` passes
# its options to grep).
_TABLE_NAMES = {"zgrep": "grep", "git grep": "git grep"}


def _table(name: str) -> Program | None:
    from safehold.policy.shell.programs import PROGRAMS  # the registry imports this module

    if name == "find":
        return None  # find's tests come after its roots: read with `tests_only` below
    name = _TABLE_NAMES.get(name, name)
    if name == "git grep":
        git = PROGRAMS.get("git")
        return git.subcommands.get("grep") if git is not None else None
    return PROGRAMS.get(name)


# One option word read: (words it takes, the index of a value that is no path or None,
# whether it gives the pattern, so that no operand is the pattern).
_Step = tuple[int, int | None, bool]


def _table_option(search: Search, table: Program | None, words: tuple[Word, ...], i: int) -> _Step:
    """The option word `words[i]` read by the program's own table (`resolve_option`)."""
    assert table is not None
    resolved = resolve_option(table, words[i].text)
    # An unresolved word: the parser's reading is not known, so no operand is the pattern.
    gives = resolved.unknown or any(f in search.no_pattern_operand for f, _ in resolved.flags)
    last = resolved.flags[-1] if resolved.flags else None
    glued = resolved.value is not None
    if last is None or not (glued or resolved.takes):
        return 1, None, gives
    _takes, role = _option(search, last[0])
    value_at = (i if glued else i + 1) if glued or i + 1 < len(words) else None
    return (
        1 if glued else 2,
        value_at if role in _NOT_PATHS else None,
        gives or (role in _GIVES_PATTERN),
    )


_SCRIPTED = frozenset({"sed", "gsed", "awk", "gawk", "mawk", "nawk"})


def script_words(words: tuple[Word, ...]) -> frozenset[int]:
    """Indices of the sed/awk script words: code, whose file names are checked as such."""
    if not words or words[0].text.rsplit("/", 1)[-1] not in _SCRIPTED:
        return frozenset()
    return pattern_words(words)


def _list_option(search: Search, table: Program | None, words: tuple[Word, ...], i: int) -> _Step:
    """The option word `words[i]` read with the `Search` lists alone."""
    t = words[i].text
    name, eq, _value = t.partition("=")
    takes, role = _option(search, name if t.startswith("--") or eq else t)
    gives = t in search.no_pattern_operand or name in search.no_pattern_operand
    if takes is None and not t.startswith("--"):
        # A short cluster: `-rn`, `-A3`, `-rne PAT`; the first letter that takes a
        # value takes the rest of the word, or the next word.
        for k in range(1, len(t)):
            letter = "-" + t[k]
            gives = gives or letter in search.no_pattern_operand
            ctakes, crole = _option(search, letter)
            if ctakes:
                glued = k + 1 < len(t)  # a glued value: its word counts as a whole
                at = (i if glued else i + 1) if glued or i + 1 < len(words) else None
                gives = gives or crole in _GIVES_PATTERN
                return 1 if glued else 2, at if crole in _NOT_PATHS else None, gives
        return 1, None, gives
    if takes:
        at = (i if eq else i + 1) if eq or i + 1 < len(words) else None
        return 1 if eq else 2, at if role in _NOT_PATHS else None, gives or role in _GIVES_PATTERN
    return 1, None, gives


def _read(
    search: Search, words: tuple[Word, ...], start: int, table: Program | None = None
) -> tuple[frozenset[int], tuple[int, ...]]:
    """The pattern words and the operands, each option word read by `table` when the
    program has one, else by the lists."""
    option = _table_option if table is not None else _list_option
    out: set[int] = set()
    pattern_given = False
    operands: list[int] = []
    i = start
    options_done = False
    while i < len(words):
        w = words[i]
        t = w.text
        if not w.static or options_done or not t.startswith("-") or t == "-":
            operands.append(i)
            i += 1
            continue
        if t == "--":
            options_done = True
            i += 1
            continue
        step, value_at, gives = option(search, table, words, i)
        if value_at is not None:
            out.add(value_at)
        pattern_given = pattern_given or gives
        i += step
    if search.first_operand_is_pattern and not pattern_given and operands:
        out.add(operands[0])
    # A computed word (`$x`, an unquoted glob) may become several words, the rest of them
    # files: only a static word is surely one pattern.
    return frozenset(i for i in out if words[i].static), tuple(operands)


_NOT_PATHS = frozenset({"pattern", "glob"})
_GIVES_PATTERN = frozenset({"pattern", "pattern-file"})


def _option(search: Search, name: str) -> tuple[bool | None, str]:
    """(takes a value, the value's kind) for a known option; (None, "") for an unknown one."""
    if name in search.patterns:
        return True, "pattern"
    if name in search.globs:
        return True, "glob"
    if name in search.pattern_files:
        return True, "pattern-file"
    if name in search.filter_files:
        return True, "filter-file"
    if name in search.values:
        return True, "value"
    return None, ""
