"""Turn the policy's path patterns into concrete mounts for one sandboxed run.

bwrap mounts paths, not patterns, so the denied and protected patterns of `SafetyConfig` are
expanded at run time. They are compiled and matched by the policy's own `compile_policy`, so
the sandbox masks exactly what the policy denies (gitignore syntax on absolute paths,
`{workspace}` and `~` expanded, relative patterns floating at any depth):

- literal absolute patterns are checked directly (`/etc/shadow`);
- anchored glob patterns walk their literal prefix directory (`/etc/ssh/ssh_host_*_key`);
- every pattern is matched against a bounded walk of the workspace and the writable roots, and
  against the home directory's well-known secret locations (its entries, and one level inside
  its dot-directories).

Every mount destination is the entry's realpath: bwrap follows symlinks in destinations, and a
symlink named like a secret must mask the file it points to. A walk that exceeds
`sandbox.scan_max_entries` is an error, never a silently partial mask list.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Generator
from dataclasses import dataclass
from typing import Final

from safehold.errors import SandboxError
from safehold.policy._patterns import PatternSet
from safehold.policy.config import SafetyConfig
from safehold.policy.paths import compile_policy

__all__ = ["MountPlan", "Watch", "plan_mounts"]

_GLOB: Final = re.compile(r"(?<!\\)[*?\[]")
_PRIVATE_TMP: Final = "/tmp"


@dataclass(frozen=True, slots=True)
class Watch:
    """A protected path bwrap cannot pin: missing (`link` None) or a symlink (its target)."""

    path: str
    link: str | None


@dataclass(frozen=True, slots=True)
class MountPlan:
    """Canonical mount destinations for one run, each list in the order it must be emitted."""

    cwd: str
    writable: tuple[str, ...]
    readonly_binds: tuple[str, ...]
    pins: tuple[str, ...]
    protected: tuple[str, ...]
    masked_dirs: tuple[str, ...]
    masked_files: tuple[str, ...]
    watch: tuple[Watch, ...]


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _strictly_inside(path: str, root: str) -> bool:
    return path != root and _inside(path, root)


class _Matcher:
    """One of the policy's compiled pattern sets, matched exactly as the policy matches."""

    def __init__(self, patterns: PatternSet, casefold: bool) -> None:
        self.patterns = tuple(e.expanded for e in patterns.entries)
        self._set = patterns
        self._casefold = casefold

    def __call__(self, path: str) -> bool:
        # PatternSet.match tries `path` and `path/`, so directory patterns cover the directory.
        form = unicodedata.normalize("NFC", path)
        return bool(self._set.match((form.casefold() if self._casefold else form,)))


class _Budget:
    def __init__(self, limit: int) -> None:
        self.left = limit
        self.limit = limit

    def spend(self, where: str) -> None:
        self.left -= 1
        if self.left < 0:
            raise SandboxError(
                f"too many files to scan for denied and protected paths under `{where}` "
                f"(more than {self.limit}); raise `sandbox.scan_max_entries` or run in a "
                "smaller working directory"
            )


def _entries(top: str, depth: int, budget: _Budget) -> Generator[tuple[str, bool], bool, None]:
    """Yield (path, is_symlink) below `top`, at most `depth` levels (-1: unbounded).

    Send False back to skip descending into the directory just yielded.
    """
    stack = [(top, 1)]
    while stack:
        directory, level = stack.pop()
        try:
            with os.scandir(directory) as it:
                found = list(it)
        except OSError:
            continue
        for entry in found:
            budget.spend(top)
            try:
                is_link = entry.is_symlink()
                is_dir = not is_link and entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            descend = yield entry.path, is_link
            if is_dir and descend is not False and (depth < 0 or level < depth):
                stack.append((entry.path, level + 1))


class _Collector:
    def __init__(self, config: SafetyConfig, cwd: str, roots: tuple[str, ...]):
        policy = compile_policy(config, cwd)
        self.denied = _Matcher(policy.denied, policy.casefold)
        self.protected = _Matcher(policy.protected, policy.casefold)
        self.roots = roots
        self.budget = _Budget(config.sandbox.scan_max_entries)
        self.masked: set[str] = set()
        self.protect: set[str] = set()
        self.watch: dict[str, Watch] = {}

    def in_root(self, path: str) -> bool:
        return any(_inside(path, r) for r in self.roots)

    def check(self, path: str, is_link: bool, *, protect: bool) -> bool:
        """Record masks/protection for one entry; return False when it must not be descended."""
        real = os.path.realpath(path) if is_link else path
        # Like the policy, match the literal path and the resolved one (a symlink named
        # `notes.txt` that points at `~/.aws/credentials` is denied).
        if self.denied(path) or (is_link and self.denied(real)):
            if os.path.exists(real):
                self.masked.add(real)
            return False
        if protect and self.protected(path):
            if is_link:
                self.watch[path] = Watch(path, os.readlink(path))
            if self.in_root(real) and os.path.exists(real):
                self.protect.add(real)
        return True

    def walk(self, top: str, depth: int, *, protect: bool) -> None:
        gen = _entries(top, depth, self.budget)
        try:
            item = next(gen)
            while True:
                path, is_link = item
                item = gen.send(self.check(path, is_link, protect=protect))
        except StopIteration:
            pass

    def literal(self, pattern: str, home: str) -> None:
        body = pattern.rstrip("/")
        if body.startswith("**/") and not _GLOB.search(body[3:]):
            # A floating multi-component secret such as `.config/gh/hosts.yml` sits deeper
            # in the home directory than its walk goes: check its home location directly.
            body = home.rstrip("/") + "/" + body[3:]
        if not body.startswith("/"):
            return  # floating (`**/.env`): found by the walks
        path = body
        parts = path.split("/")
        glob_at = next((i for i, part in enumerate(parts) if _GLOB.search(part)), None)
        if glob_at is None:
            plain = re.sub(r"\\(.)", r"\1", path)
            try:
                st = os.lstat(plain)
            except OSError:
                return
            self.check(plain, stat.S_ISLNK(st.st_mode), protect=False)
            return
        prefix = re.sub(r"\\(.)", r"\1", "/".join(parts[:glob_at]) or "/")
        rest = parts[glob_at:]
        depth = -1 if "**" in rest else len(rest)
        if os.path.isdir(prefix) and prefix != "/":
            self.walk(prefix, depth, protect=False)


def _mask_hard_links(col: _Collector, tops: tuple[tuple[str, int], ...], limit: int) -> None:
    """Mask every other name, in the walked trees, of a denied file that has hard links.

    Masks work on paths, and a hard link is the same file under a name no pattern denies
    (`notes.txt` for `server.pem`), so a denied file with more than one link has each of its
    names masked. Only when one exists is the workspace walked again (with its own budget).
    """
    budget = _Budget(limit)
    wanted: set[tuple[int, int]] = set()

    def note(path: str) -> None:
        try:
            st = os.lstat(path)
        except OSError:
            return
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            wanted.add((st.st_dev, st.st_ino))

    for path in tuple(col.masked):
        if os.path.isdir(path) and not os.path.islink(path):
            for inner, is_link in _entries(path, -1, budget):
                if not is_link:
                    note(inner)
        else:
            note(path)
    if not wanted:
        return
    for top, depth in tops:
        for path, is_link in _entries(top, depth, budget):
            if is_link or path in col.masked:
                continue
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) in wanted:
                col.masked.add(path)


def _canonical_root(raw: str, cwd: str, home: str) -> str:
    path = raw.replace("{workspace}", cwd)
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    if not os.path.isabs(path):
        raise SandboxError(f"writable root `{raw}` must be an absolute path")
    norm = os.path.normpath(path)
    if not os.path.isdir(norm):
        raise SandboxError(f"writable root `{raw}` does not exist or is not a directory")
    real = os.path.realpath(norm)
    if real != norm:
        # A root that became a symlink (e.g. swapped by an earlier command) would widen
        # access to wherever it points: refuse rather than follow.
        raise SandboxError(
            f"writable root `{raw}` is a symlink (or under one) to `{real}`; "
            "configure the real path"
        )
    return real


def plan_mounts(config: SafetyConfig, cwd: str) -> MountPlan:
    """Expand the policy's path lists into the mounts of one run (see the module docstring)."""
    # The same home the policy expands `~` with.
    home = os.path.realpath(os.environ.get("HOME") or os.path.expanduser("~"))
    real_cwd = os.path.realpath(cwd)
    if not os.path.isdir(real_cwd):
        raise SandboxError(f"working directory `{cwd}` does not exist or is not a directory")
    roots: tuple[str, ...] = ()
    if config.sandbox.profile == "workspace-write":
        extra = (_canonical_root(r, real_cwd, home) for r in config.sandbox.writable_roots)
        roots = tuple(dict.fromkeys((real_cwd, *extra)))
        if "/" in roots:
            raise SandboxError("`/` can never be a writable root (the workspace or an extra root)")
    col = _Collector(config, real_cwd, roots)
    for top in dict.fromkeys((real_cwd, *roots)):
        col.check(top, False, protect=top in roots)
        col.walk(top, -1, protect=True)
    if home != "/" and os.path.isdir(home):
        col.walk(home, 1, protect=False)
        for name in sorted(os.listdir(home)):
            sub = os.path.join(home, name)
            dot_dir = name.startswith(".") and os.path.isdir(sub) and not os.path.islink(sub)
            if dot_dir and not any(_inside(sub, m) for m in col.masked):
                col.walk(sub, 1, protect=False)
    for pattern in col.denied.patterns:
        col.literal(pattern, home)
    if config.audit.path is not None:
        # The record of what the agent was allowed to do: read-only to the agent (the gate
        # appends from outside the sandbox). Resolved as the sink opens it.
        log = os.path.realpath(os.path.expanduser(config.audit.path))
        if col.in_root(log) and os.path.isfile(log):
            col.protect.add(log)
        elif col.in_root(log) and not os.path.lexists(log):
            col.watch[log] = Watch(log, None)
    tops = [(top, -1) for top in dict.fromkeys((real_cwd, *roots))]
    if home != "/" and os.path.isdir(home):
        tops.append((home, 1))  # `~/backup` sharing `~/.ssh/id_ed25519`'s inode
    _mask_hard_links(col, tuple(tops), col.budget.limit)
    for root in roots:
        for pattern in col.protected.patterns:
            name = pattern.removeprefix("**/").rstrip("/")
            if name and not name.startswith("/") and not _GLOB.search(name):
                # Multi-component names too: `.github/workflows` is as missing when only
                # `.github` exists, and a workflow planted there runs in CI.
                candidate = os.path.join(root, re.sub(r"\\(.)", r"\1", name))
                if not os.path.lexists(candidate):
                    col.watch[candidate] = Watch(candidate, None)
    return _finish(col, real_cwd, roots)


def _finish(col: _Collector, cwd: str, roots: tuple[str, ...]) -> MountPlan:
    visible = (*roots, cwd)

    def shown(path: str) -> bool:
        # The private /tmp hides host paths under it unless a bind re-exposes them.
        return not _inside(path, _PRIVATE_TMP) or any(_inside(path, v) for v in visible)

    masked = sorted((m for m in col.masked if shown(m)), key=lambda p: (p.count("/"), p))
    mask_dirs: list[str] = []
    mask_files: list[str] = []
    for path in masked:
        if any(_inside(path, d) for d in mask_dirs):
            continue  # already hidden by a masked parent directory
        (mask_dirs if os.path.isdir(path) else mask_files).append(path)
    for path in visible:
        hit = next((d for d in mask_dirs if _inside(path, d)), None)
        if hit is not None:
            raise SandboxError(f"`{path}` is inside the denied path `{hit}`; it cannot be used")

    def hidden(path: str) -> bool:
        return any(_inside(path, d) for d in mask_dirs)

    protected: list[str] = []
    for path in sorted(col.protect, key=lambda p: (p.count("/"), p)):
        if shown(path) and not hidden(path) and not any(_inside(path, p) for p in protected):
            protected.append(path)
    # Pin every directory between a writable root and a protected or masked path: a mount
    # point cannot be renamed (EBUSY), so `mv .git x && mkdir .git/hooks` style swaps of an
    # ancestor fail instead of carrying the read-only mount away.
    pins: set[str] = set()
    for path in (*protected, *mask_dirs, *mask_files):
        for root in roots:
            if _strictly_inside(path, root):
                parent = os.path.dirname(path)
                while _strictly_inside(parent, root):
                    pins.add(parent)
                    parent = os.path.dirname(parent)
    pinned = sorted((p for p in pins if not hidden(p)), key=lambda p: (p.count("/"), p))
    readonly = (cwd,) if cwd not in roots and _inside(cwd, _PRIVATE_TMP) else ()
    watch = tuple(w for _, w in sorted(col.watch.items()) if not hidden(w.path))
    return MountPlan(
        cwd=cwd,
        writable=tuple(sorted(roots, key=lambda p: (p.count("/"), p))),
        readonly_binds=readonly,
        pins=tuple(pinned),
        protected=tuple(protected),
        masked_dirs=tuple(mask_dirs),
        masked_files=tuple(mask_files),
        watch=watch,
    )
