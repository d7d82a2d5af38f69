"""Files git tracks that the policy denies: printed by git from its own store.

A denied file that is committed (`.env` added with `git add -f`, a key checked in long
ago) is in the output of `git show`, `git log -p`, `git grep --cached`, `git archive
HEAD` and the rest of `programs.git.PRINTS_TRACKED`, read from git's object store: no
word names it, and the sandbox cannot mask what git keeps there. Both passes ask when the
repository a command runs in tracks a denied path (`git_index.tracked_paths`); an index
that cannot be read asks too.

The same index tells which protected paths a command that writes tracked files from
another version reaches (`git checkout REV -- .`, `git reset --hard REV`, `git switch
BRANCH`, `git stash pop`, `git pull`): git writes them from its store, whatever their
content there, where only `checkout REV -- .husky/pre-commit` named one. Without the
sandbox (which pins protected paths read-only) that asks (`_check_restored`).
"""

from __future__ import annotations

import os
import posixpath
from collections import OrderedDict
from typing import TYPE_CHECKING

from safehold.policy._memo import remember
from safehold.policy.decision import Reason
from safehold.policy.git_index import MAX_INDEX_ENTRIES, may_name_revision, tracked_paths
from safehold.policy.gitignore import repository_root
from safehold.policy.paths import kernel_path
from safehold.policy.shell.analysis import ShellAnalysis
from safehold.policy.shell.check_paths import _absolute
from safehold.policy.shell.findings import _Findings, _place
from safehold.policy.shell.programs import github_cli
from safehold.policy.shell.programs.git import (
    PRINTS_TRACKED,
    RESTORES_TRACKED,
    ROLES,
    Restores,
)
from safehold.policy.shell.programs.table import Program, resolve_option
from safehold.policy.shell.words import Word

if TYPE_CHECKING:
    from safehold.policy.paths import CompiledPolicy


def _check_tracked(
    analysis: ShellAnalysis, policy: CompiledPolicy, found: _Findings, base: str
) -> None:
    """Ask when a git command that prints tracked content runs in a repository that
    tracks a denied path."""
    for cmd in analysis.commands:
        if cmd.program != "git" or len(cmd.words) < 2 or cmd.words[1].text not in PRINTS_TRACKED:
            continue
        sub = cmd.words[1].text
        if sub == "stash" and (len(cmd.words) < 3 or cmd.words[2].text not in _STASH_PRINTS):
            continue  # `git stash`, `stash pop`: nothing printed but what changed
        for d in _place(cmd, base, policy, found)[0]:
            if d is None:
                continue  # a computed directory already asks
            top = repository_root(kernel_path(_absolute(policy, d)))
            if top is None:
                continue
            denied = _denied_tracked(top, policy)
            if denied is None:
                found.add(
                    found.ask,
                    Reason(
                        "tracked-unchecked",
                        f"git {sub}",
                        f"`git {sub}` prints the content of files git tracks, and the index "
                        f"of `{top}` cannot be read to check them",
                    ),
                )
            elif denied:
                shown = ", ".join(f"`{p}`" for p in denied[:3])
                more = f" and {len(denied) - 3} more" if len(denied) > 3 else ""
                found.add(
                    found.ask,
                    Reason(
                        "tracked-denied",
                        f"git {sub}",
                        f"`git {sub}` prints the content of files git tracks, and the "
                        f"repository tracks {shown}{more}, which the policy denies",
                    ),
                )
                found.grantable = False


def _denied_tracked(top: str, policy: CompiledPolicy) -> tuple[str, ...] | None:
    """The tracked paths of the repository at `top` that the policy denies as spelled
    (None: the index cannot be read). git keeps a file's content under its name, and a
    tracked link's content is the text of its target, so no link is resolved."""
    return _tracked_matching(top, policy, "denied")


def _guarded_tracked(top: str, policy: CompiledPolicy) -> tuple[str, ...] | None:
    """The tracked paths of the repository at `top` that writing as spelled needs approval
    for or is denied (None: the index cannot be read)."""
    return _tracked_matching(top, policy, "guarded")


def _tracked_matching(top: str, policy: CompiledPolicy, kind: str) -> tuple[str, ...] | None:
    """The tracked paths of `top` that `policy.denies_as_spelled` ("denied") or
    `policy.guards_as_spelled` ("guarded") holds true.

    Each path's answer is remembered per repository, policy and kind: git rewrites its
    index often (`git status` refreshes it), its paths rarely change.
    """
    tracked = tracked_paths(top)
    if tracked is None:
        return None
    key = (top, policy.lists_key, kind)
    known = _KNOWN.get(key)
    if known is None or known[0] is not policy:
        known = (policy, {})
        remember(_KNOWN, key, known, 16)
    answers = known[1]
    if len(answers) > 2 * MAX_INDEX_ENTRIES:
        answers.clear()  # names that came and went: start over, bounded
    test = policy.denies_as_spelled if kind == "denied" else policy.guards_as_spelled
    out: list[str] = []
    for p in tracked:
        hit = answers.get(p)
        if hit is None:
            hit = answers[p] = test(posixpath.join(top, p))
        if hit:
            out.append(p)
    return tuple(out)


_KNOWN: OrderedDict[tuple[str, int, str], tuple[CompiledPolicy, dict[str, bool]]] = OrderedDict()


# The stash subcommands that print a stash's content (git-stash(1): `show [-p]`, and
# `list`, which takes git-log's options, `-p` among them).
_STASH_PRINTS = frozenset({"show", "list"})
# The programs whose subcommands write tracked files from git's store, by subcommand.
_RESTORERS = {"git": RESTORES_TRACKED, "gh": github_cli.RESTORES_TRACKED}
# HEAD by its other names (gitrevisions(7)): restoring from it is restoring the commit.
_HEAD = frozenset({"HEAD", "@"})
_GLOB = frozenset("*?[")


def _check_restored(
    analysis: ShellAnalysis, policy: CompiledPolicy, found: _Findings, base: str
) -> None:
    """Without the sandbox, ask when a git command writes tracked files from a version
    other than HEAD or the index (`programs.git.RESTORES_TRACKED`) and the paths its words
    reach hold a tracked path the policy protects: git writes whatever that version holds
    there. Restores from HEAD or the index (`checkout -- .`, `reset --hard`, `stash`) write
    what was committed or staged; the commands that move HEAD or the index to another
    version (`reset REV`, `restore --staged --source REV`) ask here themselves."""
    for cmd in analysis.commands:
        forms = _RESTORERS.get(cmd.program)
        if forms is None or len(cmd.words) < 2:
            continue
        # The subcommand of two words (`stash pop`, `pr checkout`), else of one.
        sub, at = " ".join(w.text for w in cmd.words[1:3]), 3
        form = forms.get(sub)
        if form is None:
            sub, at = cmd.words[1].text, 2
            form = forms.get(sub)
        if form is None:
            continue
        program = _table(sub) if cmd.program == "git" else None
        for d in _place(cmd, base, policy, found)[0]:
            if d is None:
                continue  # a computed directory already asks
            where = kernel_path(_absolute(policy, d))
            top = repository_root(where)
            if top is None:
                continue
            scope = _restored_scope(form, program, cmd.words[at:], top, where)
            if scope is None:
                continue  # HEAD or the index: what was committed or staged
            guarded = _guarded_tracked(top, policy)
            if guarded is None:
                found.add(
                    found.ask,
                    Reason(
                        "tracked-unchecked",
                        f"{cmd.program} {sub}",
                        f"`{cmd.program} {sub}` writes tracked files from another version, and the "
                        f"index of `{top}` cannot be read to check them",
                    ),
                )
                continue
            hit = [p for p in guarded if _within(p, scope)]
            if hit:
                shown = ", ".join(f"`{p}`" for p in hit[:3])
                more = f" and {len(hit) - 3} more" if len(hit) > 3 else ""
                found.add(
                    found.ask,
                    Reason(
                        "tracked-protected",
                        f"{cmd.program} {sub}",
                        f"`{cmd.program} {sub}` writes tracked files from another version, "
                        "among them "
                        f"{shown}{more}, which writing needs approval for",
                    ),
                )


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


def _within(path: str, scope: tuple[str, ...]) -> bool:
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
