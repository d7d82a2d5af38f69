"""Which tracked files a git command writes from a version other than HEAD or the index.

`git checkout REV -- .`, `git switch BRANCH`, `git reset --hard REV`, `git stash pop`,
`git pull`, `gh pr checkout N` write tracked files from git's store, whatever content that
version holds for each (a protected `.husky/pre-commit`, a symbolic link where a file was).
How each subcommand tells the version is data (`programs.git.RESTORES_TRACKED`); this module
reads a command's words with it: the repository, and the paths the command reaches there.
Used by `check_tracked` (protected files) and `flows` (paths through what such a command
writes, later in the same line). Reads only the repository's refs (`git_index`).
"""

from __future__ import annotations

import os
import posixpath

from safehold.policy.git_index import may_name_revision
from safehold.policy.gitignore import repository_root
from safehold.policy.shell.analysis import SimpleCommand
from safehold.policy.shell.programs import github_cli
from safehold.policy.shell.programs.git import RESTORES_TRACKED, ROLES, Restores
from safehold.policy.shell.programs.table import Program, resolve_option
from safehold.policy.shell.words import Word

__all__ = ["restore_of", "restored_scope", "within"]

# The programs whose subcommands write tracked files from git's store, by subcommand.
_RESTORERS = {"git": RESTORES_TRACKED, "gh": github_cli.RESTORES_TRACKED}
# HEAD by its other names (gitrevisions(7)): restoring from it is restoring the commit.
_HEAD = frozenset({"HEAD", "@"})
_GLOB = frozenset("*?[")


def restore_of(cmd: SimpleCommand) -> tuple[str, Restores, int] | None:
    """(subcommand, how it tells the version, the index of its first own word) when `cmd`
    is a subcommand that writes tracked files from git's store, else None."""
    forms = _RESTORERS.get(cmd.program)
    if forms is None or len(cmd.words) < 2:
        return None
    # The subcommand of two words (`stash pop`, `pr checkout`), else of one.
    sub, at = " ".join(w.text for w in cmd.words[1:3]), 3
    form = forms.get(sub)
    if form is None:
        sub, at = cmd.words[1].text, 2
        form = forms.get(sub)
    return None if form is None else (sub, form, at)


def restored_scope(cmd: SimpleCommand, where: str) -> tuple[str, str, tuple[str, ...]] | None:
    """(subcommand, the repository's top, the paths reached relative to it, `""` for all)
    for `cmd` run in the absolute directory `where`; None when it is no such command, runs
    in no repository, or writes from HEAD or the index only."""
    found = restore_of(cmd)
    if found is None:
        return None
    sub, form, at = found
    top = repository_root(where)
    if top is None:
        return None
    program = _table(sub) if cmd.program == "git" else None
    scope = _restored_scope(form, program, cmd.words[at:], top, where)
    return None if scope is None else (sub, top, scope)


def _table(sub: str) -> Program | None:
    """The subcommand's option table (`stash pop`: stash's `pop`), or None."""
    first, _, second = sub.partition(" ")
    program = ROLES.subcommands.get(first)
    if program is not None and second:
        program = program.subcommands.get(second)
    return program


def _restored_scope(
    form: Restores, program: Program | None, words: tuple[Word, ...], top: str, where: str
) -> tuple[str, ...] | None:
    """The paths (relative to `top`, `""` for all) a restore writes from another version,
    or None when it writes from HEAD or the index only. A word not read for certain (an
    unknown option, a computed word, a glob or magic pathspec) reaches every path."""
    if form.other:
        return ("",)
    options: set[str] = set()
    source: Word | None = None
    operands: list[Word] = []
    dashes = -1  # the operand count before `--`
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if dashes < 0 and w.static and w.text == "--":
            dashes = len(operands)
            continue
        if dashes >= 0 or not w.static or not w.text.startswith("-") or w.text == "-":
            operands.append(w)
            continue
        read = resolve_option(program, w.text) if program is not None else None
        if read is None or read.unknown:
            return ("",)
        value: Word | None = Word(read.value, True) if read.value is not None else None
        if read.takes:
            value = words[i] if i < len(words) else Word("", True)
            i += 1
        for name, _ in read.flags:
            options.add(name)
            if name in form.source:
                source = value
    if options & form.whole:
        return ("",)
    if form.source:
        if source is None or (source.static and source.text in _HEAD):
            return None
        return _pathspecs(operands, where, top)
    if form.revisions:
        return ("",) if operands else None
    # first_revision: `checkout [-b NEW] [REV] [--] [PATHS]`, `reset [REV] [--] [PATHS]`.
    if options & form.new_branch:
        return ("",) if operands else None
    revision: Word | None = None
    if dashes > 0:
        revision, paths = operands[0], operands[1:]
    elif dashes == 0 or not operands:
        return None  # `checkout -- PATHS`, `reset --hard`: HEAD or the index
    elif _is_path(operands[0], top, where):
        return None  # `checkout FILE`: from the index
    else:
        revision, paths = operands[0], operands[1:]
    if revision.static and revision.text in _HEAD:
        return None
    return _pathspecs(paths, where, top) if paths else ("",)


def _is_path(word: Word, top: str, where: str) -> bool:
    """`checkout WORD` without `--`: git reads WORD as a path when it names an existing
    file and no revision (both, or neither, is an error: nothing is written)."""
    if not word.static or may_name_revision(top, word.text):
        return False
    return os.path.lexists(posixpath.join(where, word.text))


def _pathspecs(words: list[Word] | tuple[Word, ...], where: str, top: str) -> tuple[str, ...]:
    """Pathspecs as paths relative to `top`; a computed word, a glob (git's match `/`
    too) or magic (`:/`, `:(glob)`) reaches every path. One outside `top` is an error."""
    out: list[str] = []
    for w in words:
        text = w.text
        if not w.static or text.startswith(":") or any(ch in _GLOB for ch in text):
            return ("",)
        full = posixpath.normpath(posixpath.join(where, text))
        if full == top:
            return ("",)
        if full.startswith(top.rstrip("/") + "/"):
            out.append(full[len(top.rstrip("/")) + 1 :])
    return tuple(out)


def within(path: str, scope: tuple[str, ...]) -> bool:
    """Whether the tracked `path` is one of `scope` or below one (any case: git's
    `--icase-pathspecs` and `core.ignorecase` match regardless of it)."""
    low = path.casefold()
    for s in scope:
        if not s:
            return True
        s = s.casefold()
        if low == s or low.startswith(s + "/"):
            return True
    return False
