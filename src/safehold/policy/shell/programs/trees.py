"""Programs that read whole directory trees: every file below a directory they are given.

`grep -r KEY .` reads `./.env` although no word of it names that file. In safehold's
sandbox the file is masked; without the sandbox (`sandbox.mode = "none"`, a hook whose
agent runs the command on the host) the assessment looks below each such directory for
denied files (`shell/trees.py`). This table says, as data, when a program walks a tree
(always, or after `-r`), whether it follows symbolic links inside the tree, whether it
skips hidden files, which of its words are the directories, and whether it walks `.` when
given none. To teach it a program, add a line here.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from safehold.policy.shell.programs import PROGRAMS
from safehold.policy.shell.programs.table import Program, option_values, resolve_option
from safehold.policy.shell.words import Word

__all__ = ["TREE_WALKS", "TreeWalk", "Walking", "walking"]


@dataclass(frozen=True, slots=True)
class TreeWalk:
    """When and how one program reads the files below a directory operand."""

    # Walks every directory operand without being asked (`rg`, `tar c`).
    always: bool = False
    # Options, and letters of a short option cluster, that make it walk (`-r`, `-rn`).
    options: frozenset[str] = frozenset()
    letters: str = ""
    # Options whose value says whether it walks, and the value that makes it walk: read
    # with the program's table (`grep -d recurse`, `-drecurse`, `--dir=recurse`). The
    # value may be abbreviated (gnulib argmatch takes a unique prefix: `grep -d rec`); a
    # computed value may be that one.
    walk_values: Mapping[str, str] = field(default_factory=dict)
    # Options and letters that make it follow symbolic links met inside the tree.
    follow_options: frozenset[str] = frozenset()
    follow_letters: str = ""
    # It follows links inside the tree whenever it walks (`scp -r`, `zip -r`).
    follows: bool = False
    # Given no directory operand, it walks `.` (`grep -r KEY`, `rg KEY`).
    cwd_default: bool = False
    # It leaves out hidden files unless an option below brings them in (`rg`, `ag`).
    skips_hidden: bool = False
    hidden_options: frozenset[str] = frozenset()
    # The first word may be an option cluster without its dash (`tar czhf out.tgz dir`).
    bundled_first: bool = False
    # Where the directories are: "roles", the operands the program table reads or uploads
    # (`cp -r SRC DST`, `tar czf OUT DIR`); "search", the operands that are not the
    # pattern (`grep -r PAT DIR`); "plain", every operand (`git add DIR`).
    operands: Literal["roles", "search", "plain", "find"] = "search"
    # Options after which no directory means the whole work tree (`git add -A`): from the
    # repository's top when `repo_root`, else `.`.
    tree_options: frozenset[str] = frozenset()
    repo_root: bool = False
    # It leaves out what the repository's `.gitignore` ignores, unless an option below
    # makes it read everything (`git add`, `rg`).
    gitignore: bool = False
    no_ignore_options: frozenset[str] = frozenset()
    # It lists names and reads no file (`find`, `du`, `ls -R`, `tree`): only the links it
    # follows matter, and only when it follows them (`find -L` lists `~/.ssh` through a
    # link to it).
    names_only: bool = False
    # Its operands are git pathspecs, not only directories: a glob (`'*'`, `'?env'`, which
    # match across `/` and leading dots) or a magic one (`':/'`, `':!src'`) selects files
    # below the directory it names before its first wildcard (`git add '*'` stages `.env`).
    pathspecs: bool = False


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


# GNU grep 3.8 (`grep --help`): `-r`, `-R`, and `-d ACTION`/`--directories=ACTION` with
# ACTION `recurse` (checked: `grep -d rec` recurses, `-d r` is ambiguous).
_GREP = TreeWalk(
    options=_f("--recursive", "--dereference-recursive"),
    walk_values={"-d": "recurse", "--directories": "recurse"},
    letters="rR",
    follow_options=_f("--dereference-recursive"),
    follow_letters="R",
    cwd_default=True,
)
_TAR = TreeWalk(
    always=True,
    follow_options=_f("--dereference"),
    follow_letters="h",
    bundled_first=True,
    operands="roles",
)
TREE_WALKS: dict[str, TreeWalk] = {
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": TreeWalk(
        always=True,
        follow_options=_f("--follow"),
        follow_letters="L",
        cwd_default=True,
        skips_hidden=True,
        hidden_options=_f("--hidden", "-.", "-uu", "-uuu", "--unrestricted"),
        gitignore=True,
        no_ignore_options=_f("--no-ignore", "--no-ignore-vcs", "-u", "-uu", "-uuu"),
    ),
    "ag": TreeWalk(
        always=True,
        follow_options=_f("--follow"),
        follow_letters="f",
        cwd_default=True,
        skips_hidden=True,
        hidden_options=_f("--hidden", "-u", "--unrestricted", "-a", "--all-types"),
    ),
    "ack": TreeWalk(always=True, follow_options=_f("--follow"), cwd_default=True),
    # `git add DIR` stages every file below DIR that `.gitignore` does not ignore, and
    # `git add -A` the whole work tree: what a later push sends.
    "git add": TreeWalk(
        always=True,
        operands="plain",
        tree_options=_f("-A", "--all", "--no-ignore-removal"),
        repo_root=True,
        gitignore=True,
        no_ignore_options=_f("-f", "--force"),
        pathspecs=True,
    ),
    "tar": _TAR,
    "bsdtar": _TAR,
    "zip": TreeWalk(
        options=_f("--recurse-paths", "--recurse-patterns"),
        letters="rR",
        follows=True,
        operands="roles",
    ),
    # gzip(1), zstd(1) `-r`: every file below a directory operand is read and replaced,
    # or written beside (their tables judge the operand itself); `gzip -f` follows links.
    **dict.fromkeys(
        ("gzip", "gunzip", "zcat"),
        TreeWalk(
            options=_f("--recursive"),
            letters="r",
            follow_options=_f("--force"),
            follow_letters="f",
            operands="plain",
        ),
    ),
    **dict.fromkeys(
        ("zstd", "unzstd", "zstdcat"), TreeWalk(letters="r", follows=True, operands="plain")
    ),
    "cp": TreeWalk(
        options=_f("--recursive", "--archive"),
        letters="rRa",
        follow_options=_f("--dereference"),
        follow_letters="L",
        operands="roles",
    ),
    "rsync": TreeWalk(
        options=_f("--recursive", "--archive"),
        letters="ra",
        follow_options=_f("--copy-links"),
        follow_letters="L",
        operands="roles",
    ),
    "scp": TreeWalk(letters="r", follows=True, operands="roles"),
    # GNU diff(1): `-r` compares (and prints) every file below both directories; links
    # are followed unless `--no-dereference`.
    "diff": TreeWalk(options=_f("--recursive"), letters="r", follows=True, operands="plain"),
    # git-grep(1): `--no-index` searches the directory as plain files (ignored ones too
    # unless `--exclude-standard`), `--untracked` adds untracked files (not ignored ones
    # unless `--no-exclude-standard`); tracked files alone are git's index, not the tree.
    "git grep": TreeWalk(
        options=_f("--no-index", "--untracked"),
        cwd_default=True,
        gitignore=True,
        no_ignore_options=_f("--no-index", "--no-exclude-standard"),
        pathspecs=True,
    ),
    # Name listers that follow links met inside the tree when asked: find(1) `-L`,
    # `-follow`; du(1) `-L`; ls(1) `-R` with `-L`; tree(1) `-l`.
    "find": TreeWalk(
        always=True,
        follow_options=_f("-L", "-follow"),
        cwd_default=True,
        operands="find",
        names_only=True,
    ),
    "du": TreeWalk(
        always=True,
        follow_options=_f("--dereference"),
        follow_letters="L",
        cwd_default=True,
        operands="plain",
        names_only=True,
    ),
    "ls": TreeWalk(
        options=_f("--recursive"),
        letters="R",
        follow_options=_f("--dereference"),
        follow_letters="L",
        cwd_default=True,
        operands="plain",
        names_only=True,
    ),
    "tree": TreeWalk(
        always=True,
        follow_letters="l",
        cwd_default=True,
        operands="plain",
        names_only=True,
    ),
}


@dataclass(frozen=True, slots=True)
class Walking:
    """How one command walks its directories: where they are (`start`: the index of the
    first word after the program, or its subcommand), and what it leaves out."""

    follows: bool
    skips_hidden: bool
    cwd_default: bool
    operands: Literal["roles", "search", "plain", "find"]
    start: int
    gitignore: bool
    repo_root: bool
    names_only: bool = False
    pathspecs: bool = False


def _table(name: str) -> Program | None:
    """The program table `name` (`git add`: git's subcommand) reads its options with."""
    program, _, sub = name.partition(" ")
    table = PROGRAMS.get(program)
    if table is not None and sub:
        return table.subcommands.get(sub)
    return table


def _walks_by_value(table: Program, walk: TreeWalk, words: tuple[Word, ...]) -> bool:
    """Whether a `walk_values` option is given the value that makes the program walk (or a
    prefix of it, or a computed one): `words` from the program (or its subcommand) on."""
    for option, value in option_values(table, words, walk.walk_values):
        action = walk.walk_values[option]
        if not value.static or (value.text and action.startswith(value.text)):
            return True
    return False


def walking(words: tuple[Word, ...]) -> Walking | None:
    """How the command walks directory trees, or None when it reads no tree."""
    return _walking(words)


@functools.lru_cache(maxsize=4096)
def _walking(words: tuple[Word, ...]) -> Walking | None:
    # Remembered by value (the words' texts and flags; the tables are fixed): the checks
    # of one decision ask it for the same command several times.
    if not words or not words[0].static:
        return None
    name, start = words[0].text.rsplit("/", 1)[-1], 1
    if name == "git" and len(words) > 1 and words[1].static:
        name, start = f"git {words[1].text}", 2  # the git step already dropped `-C`, `-c`
    walk = TREE_WALKS.get(name)
    if walk is None:
        return None
    table = _table(name)
    recursive, follows, hidden = walk.always, walk.follows, not walk.skips_hidden
    if table is not None and walk.walk_values:
        recursive = recursive or _walks_by_value(table, walk, words[start - 1 :])
    whole, ignores = walk.cwd_default, walk.gitignore
    for k, word in enumerate(words[start:], start=start):
        text = word.text
        if text == "--":
            break
        # The name as spelled, and the option it abbreviates for the program's parser
        # (`tar --deref` is `--dereference`): either one counts.
        names = {text.partition("=")[0] if text.startswith("--") else text}
        if table is not None and text.startswith("--"):
            resolved = resolve_option(table, text)
            names.update(flag for flag, _ in resolved.flags)
        recursive = recursive or bool(names & walk.options) or text in walk.options
        follows = follows or bool(names & walk.follow_options)
        hidden = hidden or bool(names & walk.hidden_options)
        whole = whole or bool(names & walk.tree_options)
        ignores = ignores and not names & walk.no_ignore_options
        # A short cluster (`-rn`), or tar's first word without its dash (`czhf`).
        cluster = text[1:] if text[:1] == "-" and text[1:2] != "-" else ""
        if k == start and walk.bundled_first and text[:1] != "-":
            cluster = text
        if cluster:
            recursive = recursive or any(c in walk.letters for c in cluster)
            follows = follows or any(c in walk.follow_letters for c in cluster)
            whole = whole or any(f"-{c}" in walk.tree_options for c in cluster)
            ignores = ignores and not any(f"-{c}" in walk.no_ignore_options for c in cluster)
    if not recursive or (walk.names_only and not follows):
        return None
    return Walking(
        follows,
        not hidden,
        whole,
        walk.operands,
        start,
        ignores,
        walk.repo_root,
        walk.names_only,
        walk.pathspecs,
    )
