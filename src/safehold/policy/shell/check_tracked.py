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

import posixpath
from collections import OrderedDict
from typing import TYPE_CHECKING

from safehold.policy._memo import remember
from safehold.policy.decision import Reason
from safehold.policy.git_index import MAX_INDEX_ENTRIES, tracked_paths
from safehold.policy.gitignore import repository_root
from safehold.policy.paths import kernel_path
from safehold.policy.shell.analysis import ShellAnalysis
from safehold.policy.shell.check_paths import _absolute
from safehold.policy.shell.findings import _Findings, _place
from safehold.policy.shell.programs.git import PRINTS_TRACKED
from safehold.policy.shell.restores import restore_of, restored_scope, within

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
                _unchecked(found, f"git {sub}", "prints the content of files git tracks", top)
            elif denied:
                found.add(
                    found.ask,
                    Reason(
                        "tracked-denied",
                        f"git {sub}",
                        f"`git {sub}` prints the content of files git tracks, and the "
                        f"repository tracks {_first_three(denied)}, which the policy denies",
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
        if restore_of(cmd) is None:
            continue
        for d in _place(cmd, base, policy, found)[0]:
            if d is None:
                continue  # a computed directory already asks
            restored = restored_scope(cmd, kernel_path(_absolute(policy, d)))
            if restored is None:
                continue  # no repository, or HEAD or the index: committed or staged
            sub, top, scope = restored
            guarded = _guarded_tracked(top, policy)
            if guarded is None:
                what = "writes tracked files from another version"
                _unchecked(found, f"{cmd.program} {sub}", what, top)
                continue
            hit = tuple(p for p in guarded if within(p, scope))
            if hit:
                found.add(
                    found.ask,
                    Reason(
                        "tracked-protected",
                        f"{cmd.program} {sub}",
                        f"`{cmd.program} {sub}` writes tracked files from another version, "
                        f"among them {_first_three(hit)}, which writing needs approval for",
                    ),
                )


def _unchecked(found: _Findings, command: str, does: str, top: str) -> None:
    """Ask: `command` does something with tracked files, and the index cannot be read."""
    message = f"`{command}` {does}, and the index of `{top}` cannot be read to check them"
    found.add(found.ask, Reason("tracked-unchecked", command, message))


def _first_three(paths: tuple[str, ...]) -> str:
    """The first three paths, quoted, and how many more."""
    more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
    return ", ".join(f"`{p}`" for p in paths[:3]) + more
