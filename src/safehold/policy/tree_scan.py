"""Find denied files below a directory, in bounded time: what a recursive reader would read.

A command that walks a tree (`grep -r KEY .`, `tar czf - src`) reads every file below its
directory, named or not. The sandbox masks denied files by construction; a command that
runs without it gets this check instead. The walk reads directory entries only (no file
contents), does not follow links the program would not follow, stops at the first few
denied entries, and gives up after `MAX_TREE_ENTRIES` entries: past that, it cannot say,
and the caller asks.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from safehold.policy.decision import Verdict

if TYPE_CHECKING:
    from safehold.policy.paths import CompiledPolicy

__all__ = ["MAX_TREE_ENTRIES", "TreeScan", "denied_below", "link_objection", "write_objection"]

# About 5 µs an entry: the bound keeps a decision under a tenth of a second.
MAX_TREE_ENTRIES = 20_000
_ENOUGH = 3  # denied entries to name before stopping


@dataclass(frozen=True, slots=True)
class TreeScan:
    """Denied entries found below a directory, as (path, rule); `complete` is False when the
    walk stopped at `limit` entries before seeing everything; `seen`: entries looked at."""

    denied: tuple[tuple[str, str], ...]
    complete: bool
    limit: int
    seen: int = 0
    # Entries the caller's `flag` objected to, as (path, why).
    flagged: tuple[tuple[str, str], ...] = ()


def denied_below(
    policy: CompiledPolicy,
    root: str,
    *,
    follow_links: bool,
    skip_hidden: bool,
    skip: Callable[[str, bool], bool] | None = None,
    limit: int | None = None,
    flag: Callable[[os.DirEntry[str]], str | None] | None = None,
    names_only: bool = False,
) -> TreeScan:
    """The denied files and directories below the directory `root` (an absolute path).

    `follow_links`: the program reads through symbolic links inside the tree (`grep -R`,
    `cp -rL`); then each link is judged where it points, and a linked directory is walked.
    `skip_hidden`: the program leaves out names starting with `.` (`rg` without `--hidden`).
    `skip(path, is_dir)`: other entries it leaves out, with what is below them (ignored by
    `.gitignore`, for `git add` and `rg`).
    `flag(entry)`: why the caller objects to an entry that is not denied (a name `xargs`
    splits, a link leading out), or None; a flagged entry is reported and not walked.
    `names_only`: the program lists names and reads no file (`find -L`, `du -L`), so a real
    entry with a denied name is no finding; a link is still judged where it points.
    """
    limit = MAX_TREE_ENTRIES if limit is None else limit
    found: list[tuple[str, str]] = []
    flagged: list[tuple[str, str]] = []
    seen = 0
    try:
        stack = [os.path.realpath(root)]
    except (OSError, ValueError):
        return TreeScan((), False, limit, seen)
    visited = set(stack)
    denied = policy.denied
    while stack:
        directory = stack.pop()
        try:
            entries = os.scandir(directory)
        except (OSError, ValueError):
            continue  # a directory nobody can list: the program cannot read below it either
        # A pattern can match an entry only through a component of its directory or its
        # own name: the directory's components are looked at once, not once an entry.
        held = denied.may_hold(_form(policy, directory).split("/"))
        with entries:
            for entry in entries:
                seen += 1
                if seen > limit:
                    return TreeScan(tuple(found), False, limit, seen, tuple(flagged))
                if skip_hidden and entry.name.startswith("."):
                    continue
                path = entry.path
                if skip is not None:
                    try:
                        entry_is_dir = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        entry_is_dir = False
                    if skip(path, entry_is_dir):
                        continue
                form = _form(policy, path)
                maybe = held or denied.may_hold((form.rpartition("/")[2],))
                rule = None
                if names_only:
                    pass  # a name listed is no file read; links are judged below
                elif maybe or denied.may_match_rest(form):
                    rule = _denied_rule(policy, path, form)
                if rule is not None:
                    found.append((path, rule))
                    if len(found) + len(flagged) >= _ENOUGH:
                        return TreeScan(tuple(found), True, limit, seen, tuple(flagged))
                    continue  # a denied directory is reported, not walked
                why = flag(entry) if flag is not None else None
                if why is not None:
                    flagged.append((path, why))
                    if len(found) + len(flagged) >= _ENOUGH:
                        return TreeScan(tuple(found), True, limit, seen, tuple(flagged))
                    continue
                try:
                    is_link = entry.is_symlink()
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_link:
                    if not follow_links:
                        continue
                    rule = _denied_rule(policy, path, None)
                    if rule is not None:
                        found.append((path, rule))
                        if len(found) + len(flagged) >= _ENOUGH:
                            return TreeScan(tuple(found), True, limit, seen, tuple(flagged))
                        continue
                    target = os.path.realpath(path)
                    if os.path.isdir(target) and target not in visited:
                        visited.add(target)
                        stack.append(target)
                elif is_dir:
                    stack.append(path)
    return TreeScan(tuple(found), True, limit, seen, tuple(flagged))


def write_objection(policy: CompiledPolicy) -> Callable[[os.DirEntry[str]], str | None]:
    """A `flag` for `denied_below`: why writing or deleting an entry needs approval (a
    protected path, one outside the roots), or None when the policy allows it."""

    def flag(entry: os.DirEntry[str]) -> str | None:
        check = policy.check_path(entry.path, "write")
        if check.verdict is Verdict.ALLOW:
            return None
        return "; ".join(r.message for r in check.reasons) or "it needs approval"

    return flag


def link_objection(policy: CompiledPolicy) -> Callable[[os.DirEntry[str]], str | None]:
    """A `flag` for `denied_below` with `follow_links`: why following a link met in the tree
    needs approval (it leads out of the roots), or None for any other entry."""

    def flag(entry: os.DirEntry[str]) -> str | None:
        try:
            if not entry.is_symlink():
                return None
        except OSError:
            return None
        check = policy.check_path(entry.path, "read")
        if check.verdict is Verdict.ALLOW or any(r.code == "path-denied" for r in check.reasons):
            return None  # a denied target is reported as denied by the walk itself
        return "; ".join(r.message for r in check.reasons) or "it needs approval"

    return flag


def _form(policy: CompiledPolicy, path: str) -> str:
    """The path as the compiled patterns see it: NFC, and case-folded where names fold."""
    form = path if path.isascii() else unicodedata.normalize("NFC", path)
    return form.casefold() if policy.casefold else form


def _denied_rule(policy: CompiledPolicy, path: str, form: str | None) -> str | None:
    """The denied pattern an entry matches, or None.

    `form`: the path's matching form when the path is already canonical (a real entry
    reached without links): the compiled patterns are tried on it first, and only a hit
    pays for the full check (which resolves links and knows the exceptions, like
    `.env.example`). None: a link, judged where it points.
    """
    if form is not None and not policy.denied.match((form,)):
        return None
    for reason in policy.check_denied(path):
        if reason.code == "path-denied":
            return reason.rule
    return None
