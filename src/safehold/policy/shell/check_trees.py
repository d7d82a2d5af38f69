"""Programs that read, change or delete whole trees, and the files `find` lists.

A walk below each root (bounded: `tree_scan`) finds the denied files, the links that lead
out and the protected entries a recursive reader, writer or deleter would reach; a tree
too large to walk asks. The host's pass only: the sandbox hides what it would find.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from safehold.policy import tree_scan
from safehold.policy.decision import Reason, Verdict
from safehold.policy.gitignore import ignore_filter, repository_root
from safehold.policy.paths import kernel_path
from safehold.policy.shell.analysis import ShellAnalysis, SimpleCommand
from safehold.policy.shell.check_paths import _absolute
from safehold.policy.shell.findings import _Findings, _place
from safehold.policy.shell.listings import SPLIT_CHARACTERS
from safehold.policy.shell.programs.find import find_roots_at
from safehold.policy.shell.programs.search import (
    search_operands,
)
from safehold.policy.shell.programs.table import (
    PERM_TREE,
    UNPACKS,
    RoleUse,
    is_remote,
)
from safehold.policy.shell.programs.trees import Walking, walking
from safehold.policy.shell.words import Word
from safehold.policy.tree_scan import TreeScan

if TYPE_CHECKING:
    from safehold.policy.paths import CompiledPolicy


def _check_trees(
    analysis: ShellAnalysis, policy: CompiledPolicy, found: _Findings, base: str
) -> None:
    """Ask when a program that reads a whole tree would read a denied file in it.

    Only without the sandbox, which masks such files by construction: `grep -r KEY .` on
    the host reads `./.env` although no word names it. A tree too large to look through
    asks too (`tree-unchecked`); a directory outside the roots already asks as a read.
    All the walks of one command share one budget of entries, and a directory is walked
    once however often it is named (`grep -r x . . . .`): the decision stays bounded.
    """
    budget = tree_scan.MAX_TREE_ENTRIES
    walked: set[tuple[str, bool, bool, bool, str | None]] = set()
    for cmd in analysis.commands:
        listing = found.listed.get(id(cmd))
        if listing is not None:
            budget = _check_listing(cmd, listing, policy, found, base, budget)
            continue
        walk = walking(cmd.words)
        if walk is None:
            continue
        dirs, uses, _modes = _place(cmd, base, policy, found)
        words = _tree_operands(cmd, walk, uses)
        default = not words and walk.cwd_default
        if default:
            words = [Word(".", True)]
        for word in words:
            if not word.static or (is_remote(word) and not walk.pathspecs):
                continue  # a computed word already asks without the sandbox
            text, spec = word.text, None
            if walk.pathspecs and _PATHSPEC_MARKS.intersection(text):
                text, spec = _pathspec_root(text), text
            for here, spelling in _placed_spellings(text, dirs):
                full = spelled = kernel_path(_absolute(policy, spelling))
                if (default or (spec or "").startswith(":")) and walk.repo_root:
                    full = repository_root(full) or full  # `git add -A`: the whole work tree
                if not os.path.isdir(full):
                    continue
                key = (full, walk.follows, walk.skips_hidden, walk.gitignore, spec)
                if key in walked:
                    continue
                walked.add(key)
                check = policy.check_path(full, "read")
                if check.verdict is not Verdict.ALLOW:
                    if full != spelled:
                        # The repository's top, which no word names: a workspace below it
                        # (`git add -A` in `repo/sub` stages `repo/.env`).
                        _top_outside(cmd, full, check.verdict, check.reasons, found)
                    continue  # outside the roots or denied: the read checks already said so
                skip = ignore_filter(full) if walk.gitignore else None
                if spec is not None and here is not None:
                    cwd = kernel_path(_absolute(policy, here))
                    skip = _pathspec_filter(spec, cwd, skip)
                scan = tree_scan.denied_below(
                    policy,
                    full,
                    follow_links=walk.follows,
                    skip_hidden=walk.skips_hidden,
                    skip=skip,
                    limit=max(budget, 0),
                    flag=tree_scan.link_objection(policy) if walk.follows else None,
                    names_only=walk.names_only,
                )
                budget -= scan.seen
                verb = "lists every name" if walk.names_only else "reads every file"
                _tree_reasons(cmd, word.text, full, scan, found, verb)
                _followed_out(cmd, word.text, full, scan, found)


# What makes a git pathspec select more than the path it spells: wildmatch's wildcards
# and escapes, and magic (`:/`, `:!x`, `:(glob)…`).
_PATHSPEC_MARKS = frozenset("*?[\\:")


def _pathspec_root(spec: str) -> str:
    """The directory below which a glob or magic pathspec selects files: the components
    before the first wildcard (`src/*.py` -> `src`), `.` for magic (`':/'` reaches the
    top of the work tree; the caller walks from there for `git add`)."""
    if spec.startswith(":"):
        return "."
    fixed: list[str] = []
    for part in spec.split("/"):
        if _PATHSPEC_MARKS.intersection(part):
            break
        fixed.append(part)
    root = "/".join(fixed)
    return root or ("/" if spec.startswith("/") else ".")


def _placed_spellings(text: str, dirs: list[str | None]) -> list[tuple[str | None, str]]:
    """`_spellings` of `text`, each with the directory it is relative to (None: absolute)."""
    if text.startswith(("/", "~")):
        return [(d, text) for d in dirs if d is not None] or [(None, text)]
    return [(d, posixpath.join(d, text)) for d in dirs if d is not None]


def _pathspec_filter(
    spec: str, cwd: str, skip: Callable[[str, bool], bool] | None
) -> Callable[[str, bool], bool] | None:
    """Leave out, besides what `skip` leaves out, the files a glob pathspec cannot select
    from `cwd`: git's wildcards match across `/` and leading dots, and a directory the
    pathspec matches brings in all below it, so a file counts when the pattern matches
    its path or a directory above it (without case: `--icase-pathspecs`). No filter for
    magic, classes or escapes, which `fnmatch` does not read as git does."""
    if spec.startswith(":") or "[" in spec or "\\" in spec:
        return skip
    pattern = spec.lower()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    rooted = pattern.startswith("/")

    def left_out(path: str, is_dir: bool) -> bool:
        if skip is not None and skip(path, is_dir):
            return True
        if is_dir:
            return posixpath.basename(path) == ".git"  # no pathspec reaches git's own files
        rel = path.lower() if rooted else posixpath.relpath(path, cwd).lower()
        parts = rel.split("/")
        return not any(
            fnmatch.fnmatchcase("/".join(parts[:k]), pattern) for k in range(1, len(parts) + 1)
        )

    return left_out


def _top_outside(
    cmd: SimpleCommand,
    top: str,
    verdict: Verdict,
    reasons: tuple[Reason, ...],
    found: _Findings,
) -> None:
    """A walk from the repository's top that the roots do not allow: the read reasons."""
    bucket = found.deny if verdict is Verdict.DENY else found.ask
    for reason in reasons:
        message = (
            f"`{cmd.program}` walks the whole work tree, from the repository's top "
            f"`{top}`: {reason.message}"
        )
        found.add(bucket, Reason(reason.code, reason.rule, message))


def _check_listing(
    cmd: SimpleCommand,
    listing: tuple[tuple[Word, ...], Literal["read", "write"], bool],
    policy: CompiledPolicy,
    found: _Findings,
    base: str,
    budget: int,
) -> int:
    """Judge every entry below the roots of a `find | xargs` consumer; the budget left.

    The consumer opens each name find prints, following links: an entry that is denied,
    a link its access to would not be allowed, any entry it changes without approval
    (for a writer), or a name plain `xargs` would split asks. As for `_check_trees`, a
    root outside the roots already asks as a read, and a tree too large asks.
    """
    roots, access, split = listing
    dirs = _place(cmd, base, policy, found)[0]

    def flag(entry: os.DirEntry[str]) -> str | None:
        if split and not SPLIT_CHARACTERS.isdisjoint(entry.name):
            return "plain `xargs` splits that name at a blank or reads quotes in it"
        if access == "write" or entry.is_symlink():
            check = policy.check_path(entry.path, access)
            if check.verdict is not Verdict.ALLOW:
                return "; ".join(r.message for r in check.reasons)
        return None

    seen: set[str] = set()
    for word in roots:
        # A root outside the roots or denied: the read checks already said so.
        scans, budget = _walk_named(word.text, dirs, policy, "read", seen, budget, flag)
        for full, scan in scans:
            verb = "reads" if access == "read" else "changes"
            _tree_reasons(cmd, word.text, full, scan, found, f"{verb} the files `find` lists")
            for path, why in scan.flagged:
                found.grantable = False
                found.add(
                    found.ask,
                    Reason(
                        "listing-entry",
                        cmd.program,
                        f"`{cmd.program}` {verb} the files `find` lists under `{word.text}`, "
                        f"including `{posixpath.relpath(path, full)}`: {why}",
                    ),
                )
    return budget


def _followed_out(
    cmd: SimpleCommand, operand: str, root: str, scan: TreeScan, found: _Findings
) -> None:
    """Ask for each link a walk that follows links meets leading out of the roots or to a
    denied place (`find -L .` with `./k` a link to `~/.ssh` lists the keys' names)."""
    for path, why in scan.flagged:
        inside = posixpath.relpath(path, root)
        found.add(
            found.ask,
            Reason(
                "path-outside-read",
                cmd.program,
                f"`{cmd.program}` follows links under `{operand}`, and `{inside}` leads out: {why}",
            ),
        )


def _find_operands(words: tuple[Word, ...], start: int) -> list[Word]:
    """find(1)'s starting points: after its global options (`-H`, `-L`, `-P`, `-D LIST`,
    `-O LEVEL`, `--`: `find_roots_at`), up to the first word of the expression (`-…`, `(`,
    `!`)."""
    out: list[Word] = []
    for word in words[find_roots_at(words, start) :]:
        if word.text.startswith(("-", "(", "!", ")", ",")):
            break
        out.append(word)
    return out


def _tree_operands(cmd: SimpleCommand, walk: Walking, uses: list[RoleUse]) -> list[Word]:
    """The words naming the directories a tree-walking command reads."""
    if walk.operands == "find":
        return _find_operands(cmd.words, walk.start)
    if walk.operands == "roles":
        return [u.word for u in uses if u.role in ("read", "upload") and not u.option]
    if walk.operands == "search":
        return [cmd.words[i] for i in search_operands(cmd.words)]
    out: list[Word] = []
    options_done = False
    for word in cmd.words[walk.start :]:
        if not options_done and word.text == "--":
            options_done = True
        elif options_done or not word.text.startswith("-"):
            out.append(word)
    return out


def _check_deleted_trees(
    analysis: ShellAnalysis, policy: CompiledPolicy, found: _Findings, base: str
) -> None:
    """Ask when deleting a directory would remove a protected or denied entry below it.

    Only without the sandbox, which mounts protected paths read-only by construction:
    `rm -rf .` or `find . -delete` on the host removes `./.git` although no word names it.
    Every entry below each directory a command deletes (`rm -r`, `find -delete`, `rsync
    --delete`, `git rm -r`), unpacks into, or changes the permissions of recursively (`chmod
    -R`: `table.PERM_TREE`) is judged as a write: a protected or denied one asks, and a tree
    too large to look through asks (`tree-unchecked`). The walks of one command share one
    budget of entries, and a directory is walked once however often it is named.
    """
    budget = tree_scan.MAX_TREE_ENTRIES
    walked: set[str] = set()

    flag = tree_scan.write_objection(policy)

    for cmd in analysis.commands:
        dirs, uses, modes = _place(cmd, base, policy, found)
        unpacks = UNPACKS in modes
        perm_tree = PERM_TREE in modes
        for use in uses:
            deletes = use.role == "delete"
            changes = perm_tree and use.role == "perm"
            if not (deletes or changes or (unpacks and use.role == "write")):
                continue
            if not use.word.static:
                continue  # a computed word already asks without the sandbox
            # The directory itself, when it asks or is denied, already said so. An archive
            # unpacked into a directory may write any name below it (`.git/hooks/…`), and
            # `chmod -R` changes the mode of every entry below (a hook made executable).
            # `git rm '*'` removes every tracked file its pathspec matches, below any folder.
            kind: _Change = "delete" if deletes else "perm" if changes else "unpack"
            text = use.word.text
            spec = deletes and cmd.program == "git" and _PATHSPEC_MARKS.intersection(text)
            if spec and text.startswith(":"):
                # Magic (`':/'`, `':!x'`) may reach the whole work tree: walked from its top.
                tops = _tops(dirs, policy)
                for top in tops:
                    check = policy.check_path(top, "write")
                    if check.verdict is not Verdict.ALLOW:
                        _top_outside(cmd, top, check.verdict, check.reasons, found)
                for top in tops:
                    scans, budget = _walk_named(top, dirs, policy, "write", walked, budget, flag)
                    _deleted_reasons(cmd, text, scans, found, kind)
                continue
            scans, budget = _walk_named(
                text, dirs, policy, "write", walked, budget, flag, pathspec=bool(spec)
            )
            _deleted_reasons(cmd, text, scans, found, kind)


def _deleted_reasons(
    cmd: SimpleCommand,
    operand: str,
    scans: list[tuple[str, TreeScan]],
    found: _Findings,
    kind: _Change,
) -> None:
    """The asks of the walks below what a command deletes, unpacks into or changes the
    permissions of (`kind`)."""
    verb, what = _CHANGE_WORDS[kind]
    for full, scan in scans:
        _tree_reasons(cmd, operand, full, scan, found, verb)
        for path, why in scan.flagged:
            found.grantable = False
            inside = posixpath.relpath(path, full)
            found.add(
                found.ask,
                Reason(
                    "tree-holds-protected",
                    cmd.program,
                    f"`{cmd.program}` {what.format(operand)}, including "
                    f"`{inside}`: {why}; without the sandbox nothing keeps it",
                ),
            )


_Change = Literal["delete", "unpack", "perm"]
_CHANGE_WORDS: dict[str, tuple[str, str]] = {
    "delete": ("deletes everything", "deletes `{}` and everything below it"),
    "unpack": (
        "unpacks members of any name",
        "unpacks an archive into `{}`, whose members may be named anything below it",
    ),
    "perm": (
        "changes the permissions of everything",
        "changes the permissions of `{}` and everything below it",
    ),
}


def _tops(dirs: list[str | None], policy: CompiledPolicy) -> list[str]:
    """The work trees' tops of the directories a command runs in (each, when none)."""
    out: list[str] = []
    for d in dirs:
        if d is not None:
            here = kernel_path(_absolute(policy, d))
            out.append(repository_root(here) or here)
    return list(dict.fromkeys(out))


def _walk_named(
    text: str,
    dirs: list[str | None],
    policy: CompiledPolicy,
    access: Literal["read", "write"],
    walked: set[str],
    budget: int,
    flag: Callable[[os.DirEntry[str]], str | None],
    *,
    pathspec: bool = False,
) -> tuple[list[tuple[str, TreeScan]], int]:
    """Walk each directory the word `text` names (once per command: `walked`) whose own
    `access` the policy allows; the scans and the budget of entries left. `pathspec`: the
    word is a git pathspec with wildcards or magic, which selects files below the folder
    before its first wildcard (`_pathspec_root`)."""
    scans: list[tuple[str, TreeScan]] = []
    spec = text if pathspec else None
    for here, spelling in _placed_spellings(_pathspec_root(text) if spec else text, dirs):
        full = kernel_path(_absolute(policy, spelling))
        key = f"{full}\0{spec}" if spec else full
        if key in walked or not os.path.isdir(full):
            continue
        walked.add(key)
        if policy.check_path(full, access).verdict is not Verdict.ALLOW:
            continue
        skip = None
        if spec is not None and here is not None:
            skip = _pathspec_filter(spec, kernel_path(_absolute(policy, here)), None)
        scan = tree_scan.denied_below(
            policy,
            full,
            follow_links=False,
            skip_hidden=False,
            skip=skip,
            limit=max(budget, 0),
            flag=flag,
        )
        budget -= scan.seen
        scans.append((full, scan))
    return scans, budget


def _tree_reasons(
    cmd: SimpleCommand,
    operand: str,
    root: str,
    scan: TreeScan,
    found: _Findings,
    verb: str = "reads every file",
) -> None:
    program = cmd.program
    for path, rule in scan.denied:
        inside = posixpath.relpath(path, root)
        found.add(
            found.ask,
            Reason(
                "tree-holds-denied",
                rule,
                f"`{program}` {verb} under `{operand}`, including `{inside}` "
                f"(denied by `{rule}`); without the sandbox nothing hides it",
            ),
        )
    if not scan.complete:
        found.add(
            found.ask,
            Reason(
                "tree-unchecked",
                program,
                f"`{program}` {verb} under `{operand}`: more entries than the "
                f"{tree_scan.MAX_TREE_ENTRIES} one command's walks may look through for "
                "denied files without the sandbox",
            ),
        )
