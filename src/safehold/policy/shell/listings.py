"""`find ROOTS… | xargs PROG …` and `find ROOTS… -exec PROG … {} +`: names below the roots.

Without the sandbox, the words `xargs` reads from its standard input are computed paths,
which ask. When the one command feeding it is a `find` that can print nothing but the
names it finds, those words are known to be paths below find's roots (spelled from them:
`find src` prints `src/a.py`), and the consumer is judged as if it named the roots, with
the whole tree below each one read, written or deleted (`check_trees._check_listing`). The
same holds for each whole `{}` word of `find ROOTS … -exec PROG … {} +` (or `;`), where
only links followed (`-L`, `-H`, `-follow`) and `-files0-from` matter: find hands the
command the names it finds whatever it prints.

This module only recognises the shape, as data and pure functions; anything it does not
recognise exactly is left as it is (the stdin words stay computed, and ask). Recognised:

- the producer is one simple command `find`, no wrapper, no assignment, every word
  static, every primary in find's table, no action that prints anything but the names
  found (`-printf`, `-ls`, `-fprint*`, `-exec*`, `-ok*`, `-delete` are out), no option
  that follows links out of the tree (`-L`, `-H`, `-follow`), no `-files0-from`, and no
  redirection but of its standard error to a file (`2>/dev/null`; `2>&1` would feed its
  error messages to xargs);
- the consumer is the whole next stage of the same pipeline: `xargs` with only the
  options in `XARGS_OPTIONS` (no `-I`/`-i` replacement, `-d`, `-a`, `-E`, `-p`, `-o`),
  whose standard input is not redirected, running one program in the same directories;
- names are split as find wrote them: `-print0` with `xargs -0`, or newline-separated
  names with plain xargs, which splits at blanks and reads quotes and backslashes. The
  second only holds when no name in the tree holds such a character (checked by the tree
  walk: `split_names`).
"""

from __future__ import annotations

from dataclasses import dataclass

from safehold.policy.shell.analysis import ShellAnalysis, SimpleCommand
from safehold.policy.shell.programs.find import FIND, find_roots_at
from safehold.policy.shell.programs.options import WrapperOptions, read_options
from safehold.policy.shell.programs.runners import STDIN_WORDS
from safehold.policy.shell.programs.step import program_name
from safehold.policy.shell.words import Word

__all__ = ["LISTED_ROLES", "SPLIT_CHARACTERS", "XARGS_OPTIONS", "Listing", "listed", "listings"]

# xargs options that change neither where its words come from nor how they are split nor
# the command's standard input (GNU findutils 4.9 `xargs --help`): `-0`/`--null` is
# checked against find's `-print0`; `-n`, `-L`, `-s`, `-x` cut the words into several
# runs; `-P` runs them in parallel; `-r` skips an empty run; `-t` prints each command.
XARGS_OPTIONS = WrapperOptions(
    with_arg=frozenset({"-n", "-L", "-P", "-s", "--max-args", "--max-procs", "--max-chars"}),
    flags=frozenset({"-0", "-r", "-t", "-x", "--null", "--no-run-if-empty", "--verbose"})
    | frozenset({"--exit"}),
    # `--max-lines[=N]`: a value only glued on (as `programs.runners.XARGS_OPTIONS`).
    optional=frozenset({"--max-lines"}),
)
_NULL = frozenset({"--null"})
# find(1) global options that make it follow links (its names then lead out of the tree).
_FOLLOWS = frozenset({"-L", "-H", "-follow"})
# find(1) ACTIONS that print something other than the names found, write files, run
# commands or delete; `-files0-from`, whose roots come from a file; and the options that
# print help or a version on standard output (and `-D`: `-D help` does).
_OTHER_OUTPUT = frozenset(
    {
        "-printf", "-fprint", "-fprint0", "-fprintf", "-fls", "-ls", "-exec", "-execdir",
        "-ok", "-okdir", "-delete", "-files0-from", "-help", "--help", "-version",
        "--version", "-D",
    }
)  # fmt: skip
# find(1) actions that run a command; with `exec_ok` they print nothing themselves.
_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# The word `find -exec` fills in with each name found (`runners._find`).
_FOUND = Word("{}", False, False)
# find(1) OPERATORS, written as words of their own.
_OPERATORS = frozenset({"(", ")", "!", ","})
# find(1): global options allowed before the roots (`-D help` prints on standard output).
_LEADING = frozenset({"-P", "-O0", "-O1", "-O2", "-O3"})
LISTED_ROLES = frozenset({"read", "write", "delete", "perm"})
"""Roles the consumer's table may give the appended names for the listing to be judged:
files it reads or changes. Any other role (a pattern, a URL, code) keeps them computed."""
SPLIT_CHARACTERS = frozenset(" \t\n'\"\\\v\f\r")
"""Characters of a name that plain xargs splits at or reads as quoting (xargs(1): blanks,
newlines, quotes, backslash; and the other white space, in case a locale counts it)."""


@dataclass(frozen=True, slots=True)
class Listing:
    """One command whose words `slots` are names find finds below `roots`.

    `consumer`: the command's index in the analysis; `producer`: the `find` feeding its
    xargs (None: the command is find's own `-exec`); `split_names`: xargs splits the names
    at blanks (no `-0`).
    """

    consumer: int
    producer: int | None
    roots: tuple[str, ...]
    split_names: bool
    slots: tuple[int, ...]


def listings(analysis: ShellAnalysis) -> tuple[Listing, ...]:
    """Every command of the analysis whose computed words are names a `find` finds."""
    out: list[Listing] = []
    commands = analysis.commands
    piped_errors = any(
        "|&" in argv for argv in analysis.grant_argvs if argv[:1] == ("<operators>",)
    )  # `|&` pipes standard error too; the stages do not say which did
    for i, cmd in enumerate(commands):
        if not cmd.wrapper_words:
            continue  # both shapes run the command under `find -exec` or `xargs`
        found = _exec_listing(i, cmd)
        if found is None and not piped_errors:
            found = _xargs_listing(i, cmd, commands)
        if found is not None:
            out.append(found)
    return tuple(out)


def _xargs_listing(
    i: int, cmd: SimpleCommand, commands: tuple[SimpleCommand, ...]
) -> Listing | None:
    null = _xargs_null(cmd)
    if null is None or not cmd.pipes or cmd.pipes[-1][1] < 1:
        return None
    pid, stage = cmd.pipes[-1]
    before = (*cmd.pipes[:-1], (pid, stage - 1))
    same = [k for k, c in enumerate(commands) if c.pipes == cmd.pipes]
    feeding = [k for k, c in enumerate(commands) if c.pipes == before]
    if same != [i] or len(feeding) != 1:
        return None
    producer = commands[feeding[0]]
    if producer.dirs != cmd.dirs or None in cmd.dirs:
        return None
    found = _find_roots(producer.words, exec_ok=False)
    if found is None or producer.wrapper_words or producer.assignments:
        return None
    for fd, op in producer.stdio:
        if fd != "2" or op not in (">", ">>"):
            return None  # only standard error may go elsewhere, and only to a file
    roots, print0 = found
    if print0 != null:
        return None
    if not null and any(not SPLIT_CHARACTERS.isdisjoint(r) for r in roots):
        return None  # `find "my dir"` prints `my dir/a`, which xargs splits
    return Listing(i, feeding[0], roots, not null, (len(cmd.words) - 1,))


def _exec_listing(i: int, cmd: SimpleCommand) -> Listing | None:
    """`find ROOTS … -exec PROG … {} +` (or `;`): each whole `{}` word is a name found."""
    if len(cmd.wrapper_words) != 2 or cmd.assignments or not cmd.words or None in cmd.dirs:
        return None
    whole, head = cmd.wrapper_words
    if not head or head[-1].text != "-exec" or whole[: len(head)] != head:
        return None
    found = _find_roots(whole, exec_ok=True)
    if found is None or not cmd.words[0].static:
        return None
    slots = tuple(k for k, w in enumerate(cmd.words) if not w.static)
    if not slots or any(cmd.words[k] != _FOUND for k in slots):
        return None  # `{}` inside a longer word, or another computed word
    return Listing(i, None, found[0], False, slots)


def listed(cmd: SimpleCommand, listing: Listing) -> tuple[SimpleCommand, tuple[Word, ...]]:
    """`cmd` with each slot replaced by the roots (new words), and those words."""
    words = tuple(Word(r, True) for r in listing.roots)
    new_words: list[Word] = []
    for k, w in enumerate(cmd.words):
        new_words.extend(words if k in listing.slots else (w,))
    new = SimpleCommand(
        argv=tuple(w.text for w in new_words),
        wrappers=cmd.wrappers,
        assignments=cmd.assignments,
        dynamic=frozenset(k for k, w in enumerate(new_words) if not w.static),
        stdin_fed=cmd.stdin_fed,
        pipes=cmd.pipes,
        words=tuple(new_words),
        wrapper_words=cmd.wrapper_words,
        dirs=cmd.dirs,
        stdio=cmd.stdio,
    )
    return new, words


def _xargs_null(cmd: SimpleCommand) -> bool | None:
    """Whether the consumer is `xargs [-0] PROG …` as recognised here (None: it is not)."""
    if len(cmd.wrapper_words) != 1 or cmd.assignments or len(cmd.words) < 2:
        return None
    layer = cmd.wrapper_words[0]
    if not layer or program_name(layer[0]) != "xargs" or not all(w.static for w in layer):
        return None
    if cmd.words[-1] != STDIN_WORDS or STDIN_WORDS in cmd.words[:-1]:
        return None
    if not cmd.words[0].static or any(fd == "0" or (not fd and "<" in op) for fd, op in cmd.stdio):
        return None  # its standard input is not the pipe
    end, bad, given = read_options(layer, 1, XARGS_OPTIONS)
    if bad is not None or layer[end:] != cmd.words[:-1]:
        return None
    return any(option == "-0" or option in _NULL for option, _value in given)


def _find_roots(words: tuple[Word, ...], *, exec_ok: bool) -> tuple[tuple[str, ...], bool] | None:
    """find's roots and whether it prints with `-print0`, when every word is understood
    and, unless `exec_ok`, it prints only names (`exec_ok`: the names it hands `-exec` are
    what counts, whatever it prints)."""
    if not words or program_name(words[0]) != "find" or not all(w.static for w in words):
        return None
    i = find_roots_at(words)
    if any(w.text not in _LEADING and w.text != "--" for w in words[1:i]):
        return None  # `-H`, `-L` (links followed), `-D LIST` (debug output)
    roots: list[str] = []
    while i < len(words) and not _expression_start(words[i].text):
        roots.append(words[i].text)
        i += 1
    print0 = plain = False
    while i < len(words):
        text = words[i].text
        i += 1
        if text in _OPERATORS:
            continue
        opt = FIND.options.get(text)
        if opt is None or text in _FOLLOWS or text in _LEADING or text == "-files0-from":
            return None
        if text in _OTHER_OUTPUT and not (exec_ok and text in _RUNS):
            return None
        if text in _RUNS:
            while i < len(words) and words[i].text not in (";", "+"):
                i += 1  # the command's words, to its terminator (find(1), ACTIONS)
            if i >= len(words):
                return None
            i += 1
            continue
        if opt.takes:
            if i >= len(words):
                return None
            i += 1
        print0 = print0 or text == "-print0"
        plain = plain or text == "-print"
    if print0 and plain:
        return None  # names split two ways
    return tuple(roots) or (".",), print0


def _expression_start(text: str) -> bool:
    """find(1): the roots end at the first word starting with `-`, or `(`, `!`."""
    return text.startswith("-") or text in ("(", "!")
