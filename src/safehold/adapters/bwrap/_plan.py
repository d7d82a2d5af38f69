"""Decide what one sandboxed run sees: the read view, and the masks and pins inside it.

The view is built, not subtracted (see docs/sandbox.md, "What the command sees"):

- the system directories of `SYSTEM_DIRS`, read-only (symlinked ones, `/bin -> usr/bin`,
  become the same symlink);
- HOME as an empty tmpfs, with the existing `sandbox.read_roots` bound in read-only;
- the workspace and the writable roots (workspace-write), or the workspace read-only;
- a private `/tmp`, a fresh `/dev` and `/proc`. Nothing else is mounted: other homes, `/root`,
  `/srv`, `/mnt`, `/media`, `/var`, `/run` do not exist inside.

Inside that view the policy's denied and protected patterns still apply. They are matched by
the policy's own `compile_policy`, so the sandbox masks exactly what the policy denies:

- the workspace, writable roots and read roots are walked whole (`_scan.Scanner`, which
  rereads only the directories that changed since the last run in this process);
- system directories get the absolute patterns only (`/etc/shadow`, anchored globs walk their
  literal prefix): floating ones such as `*.pem` would hide the public CA bundles TLS needs.

Every mount destination is the entry's realpath: bwrap follows symlinks in destinations, and a
symlink named like a secret must mask the file it points to.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from safehold._runtime_dir import hook_folder
from safehold.adapters.bwrap import _store
from safehold.adapters.bwrap._scan import (
    DirRecord,
    Matcher,
    Scanner,
    TreeResult,
    racy,
    tree_unchanged,
)
from safehold.errors import SandboxError
from safehold.policy.config import SafetyConfig
from safehold.policy.paths import CompiledPolicy, compile_policy

__all__ = [
    "SYSTEM_DIRS",
    "MountPlan",
    "Watch",
    "clear_plans",
    "home_dir",
    "plan_mounts",
    "scan_protected",
]

_GLOB: Final = re.compile(r"(?<!\\)[*?\[]")
_PRIVATE_TMP: Final = "/tmp"
_COLLAPSE_AT: Final = 3
"""Denied files in one read-root directory from which that directory is masked whole."""

SYSTEM_DIRS: Final = (
    "/usr",  # programs, libraries, /usr/local
    "/bin",  # usually a symlink to usr/bin (merged /usr)
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",  # configuration: passwd, hosts, ssl certificates (secrets masked)
    "/opt",  # vendor-installed software
    "/nix",  # the Nix store, where NixOS keeps every program
    "/sys",  # CPU and memory topology (nproc, OpenBLAS, libuv read it)
)
"""Host directories visible read-only to every command, when they exist."""


@dataclass(frozen=True, slots=True)
class Watch:
    """A protected path bwrap cannot pin: missing (`link` None) or a symlink (its target)."""

    path: str
    link: str | None


@dataclass(frozen=True, slots=True)
class MountPlan:
    """Canonical mount destinations for one run, each list in the order it must be emitted."""

    cwd: str
    writable: tuple[str, ...] = ()
    readonly_binds: tuple[str, ...] = ()
    pins: tuple[str, ...] = ()
    protected: tuple[str, ...] = ()
    masked_dirs: tuple[str, ...] = ()
    masked_files: tuple[str, ...] = ()
    watch: tuple[Watch, ...] = ()
    system: tuple[tuple[str, str | None], ...] = ()
    """(path, symlink target or None for a read-only bind), in order."""
    home: str | None = None
    """HOME, mounted as an empty tmpfs before the read roots are bound into it."""
    read_roots: tuple[str, ...] = ()
    """Read-only binds (realpaths) after the home tmpfs."""
    links: tuple[tuple[str, str], ...] = ()
    """Symlinks recreated inside: a read root configured through a symlink -> its realpath."""
    protected_seen: frozenset[str] = field(default_factory=frozenset)
    """Every protected path in the writable roots before the run (for the post-run check)."""


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _strictly_inside(path: str, root: str) -> bool:
    return path != root and _inside(path, root)


def _under(path: str, tops: set[str] | frozenset[str]) -> bool:
    """`_inside(path, t)` for some canonical `t` in `tops`: one set lookup per ancestor of
    `path` instead of one prefix test per top (plans hold hundreds of masks)."""
    while True:
        if path in tops:
            return True
        cut = path.rfind("/")
        if cut <= 0:
            return "/" in tops
        path = path[:cut]


def home_dir() -> str:
    """The home directory the policy expands `~` with, canonical."""
    return os.path.realpath(os.environ.get("HOME") or os.path.expanduser("~"))


def system_view() -> tuple[tuple[str, str | None], ...]:
    """The existing `SYSTEM_DIRS`: (path, None) to bind, or (path, target) for a symlink."""
    view: list[tuple[str, str | None]] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            view.append((path, os.readlink(path)))
        elif os.path.isdir(path):
            view.append((path, None))
    return tuple(view)


def _system_extras(system: tuple[tuple[str, str | None], ...]) -> tuple[str, ...]:
    """Files a system path links to outside the system view (systemd-resolved's resolv.conf)."""
    extras = []
    real = os.path.realpath("/etc/resolv.conf")
    shown = any(_inside(real, d) for d, t in system if t is None)
    if real != "/etc/resolv.conf" and os.path.isfile(real) and not shown:
        extras.append(real)
    return tuple(extras)


_Stamp = tuple[int, int, int, int, int, int] | None


def _lstat_stamp(path: str) -> _Stamp:
    """(mode, device, inode, links, mtime, ctime) of `path` itself, or None when it is gone."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_mode, st.st_dev, st.st_ino, st.st_nlink, st.st_mtime_ns, st.st_ctime_ns)


_PROBES: Final[dict[str, Callable[[str], object]]] = {
    "lstat": _lstat_stamp,
    "isdir": os.path.isdir,
    "exists": os.path.exists,
}


class _Deps:
    """What one plan read from the filesystem beyond its inputs, to tell when it is stale.

    Every tree the scan walked (with its records), and every other look at a path (a
    literal pattern's target, a symlink's resolution, a masked file's link count, a masked
    directory's content) with what it saw. The plan is reused only while every one of them
    sees the same again (`unchanged`). A racy stamp or an unreadable directory makes the
    plan not reusable at all.
    """

    def __init__(self) -> None:
        self.started = time.time_ns()
        self.trees: list[tuple[str, TreeResult]] = []
        self.probes: list[tuple[str, str, object]] = []
        self.links: list[tuple[str, str]] = []
        self.reusable = True

    def probe(self, kind: str, path: str) -> object:
        value = _PROBES[kind](path)
        self.probes.append((kind, path, value))
        if kind == "lstat" and value is not None:
            stamp: tuple[int, ...] = value  # type: ignore[assignment]
            if racy(stamp[4], stamp[5], self.started):
                self.reusable = False
        return value

    def resolve(self, path: str) -> str:
        real = _resolve(path)
        self.links.append((path, real))
        return real

    def tree(self, top: str, found: TreeResult) -> TreeResult:
        self.trees.append((top, found))
        if found.unreadable:
            self.reusable = False
        return found

    def unchanged(self) -> bool:
        """True only when every recorded look sees exactly what it saw."""
        return (
            all(tree_unchanged(top, found) for top, found in self.trees)
            and all(_resolve(path) == real for path, real in self.links)
            and all(_PROBES[kind](path) == value for kind, path, value in self.probes)
        )


class _Collector:
    def __init__(
        self,
        config: SafetyConfig,
        cwd: str,
        roots: tuple[str, ...],
        store: str | None = None,
        shown: tuple[str, ...] = (),
        policy: CompiledPolicy | None = None,
        limit: int | None = None,
    ):
        self.deps = _Deps()
        policy = compile_policy(config, cwd) if policy is None else policy
        self.denied = Matcher.of(policy.denied, policy.casefold)
        self.protected = Matcher.of(policy.protected, policy.casefold)
        limit = config.sandbox.scan_max_entries if limit is None else limit
        self.scanner = Scanner(self.denied, self.protected, limit, store)
        self.roots = roots
        self.link_targets = (cwd, *roots, *shown)
        """Where a denied symlink's target is masked: never a system directory (a planted
        `x.pem -> /usr/bin/bash` must not hide bash from every later run)."""
        self.masked: set[str] = set()
        self.unreadable: set[str] = set()
        """Directories the scan could not list: masked whole (their content is unknown)."""
        self.protect: set[str] = set()
        self.seen: set[str] = set()
        self.watch: dict[str, Watch] = {}
        self.dirs: list[tuple[str, DirRecord]] = []  # for hard links: rarely needed

    def in_root(self, path: str) -> bool:
        return any(_inside(path, r) for r in self.roots)

    def check(self, path: str, is_link: bool, *, protect: bool) -> bool:
        """Record masks/protection for one entry; return False when it must not be descended."""
        real = self.deps.resolve(path) if is_link else path
        # Like the policy, match the literal path and the resolved one (a symlink named
        # `notes.txt` that points at `~/.aws/credentials` is denied).
        if self.denied(path) or (is_link and self.denied(real)):
            if protect and self.protected(path):
                self.seen.add(path)  # denied and protected (`.npmrc`): quarantined if new
            if self.deps.probe("exists", real) and (
                not is_link or any(_inside(real, r) for r in self.link_targets)
            ):
                self.masked.add(real)
            return False
        if protect and self.protected(path):
            self.seen.add(path)
            if is_link:
                self.watch[path] = Watch(path, _readlink(path))
            if self.in_root(real) and self.deps.probe("exists", real):
                self.protect.add(real)
        return True

    def hits(self, top: str, depth: int = -1) -> TreeResult:
        """The scanner's result for the tree, recorded as a dependency of the plan."""
        return self.deps.tree(top, self.scanner.hits(top, depth))

    def tree(self, top: str, *, protect: bool, depth: int = -1) -> None:
        """Masks and protected paths in the whole tree below `top` (cached per directory)."""
        if not self.check(top, os.path.islink(top), protect=protect):
            return
        found = self.hits(top, depth)
        if top in found.unreadable:
            raise SandboxError(
                f"cannot list `{top}` (permission denied): the sandbox cannot tell which "
                "denied or protected paths it holds; make it readable or run elsewhere"
            )
        self.dirs.extend(found.dirs)
        self.masked.update(found.denied)
        self.masked.update(found.unreadable)
        self.unreadable.update(found.unreadable)
        if protect:
            self.seen.update(found.protected)
            self.protect.update(found.protected)
        for path in found.links:
            self.check(path, True, protect=protect)

    def literal(self, pattern: str, home: str) -> None:
        target = _literal_target(pattern, home)
        if target is None:
            return  # floating (`**/.env`): found by the walks
        path, depth = target
        if depth == 0:
            seen = self.deps.probe("lstat", path)
            if seen is None:
                return
            mode: int = seen[0]  # type: ignore[index]
            self.check(path, stat.S_ISLNK(mode), protect=False)
            return
        if path != "/" and self.deps.probe("isdir", path):
            found = self.hits(path, depth)
            self.masked.update(found.denied)
            self.masked.update(found.unreadable)
            self.unreadable.update(found.unreadable)
            for link in found.links:
                self.check(link, True, protect=False)


def _readlink(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def _resolve(path: str) -> str:
    """The symlink's realpath; when the host cannot resolve it (`-> /proc/1/root/x` as a
    user: EACCES), its target read lexically. Inside, it resolves in the sandbox's own view,
    where the masks sit at the same paths."""
    try:
        return os.path.realpath(path)
    except OSError:
        target = _readlink(path)
        if target is None:
            return path
        return os.path.normpath(os.path.join(os.path.dirname(path), target))


@functools.lru_cache(maxsize=1024)
def _literal_target(pattern: str, home: str) -> tuple[str, int] | None:
    """Where an absolute pattern points: (the path, 0), or (its literal prefix, walk depth).

    None for a floating pattern (the walks find those). Parsed once per pattern and home.
    """
    body = pattern.rstrip("/")
    if body.startswith("**/") and not _GLOB.search(body[3:]):
        # A floating multi-component secret such as `.config/gh/hosts.yml` sits deeper
        # in the home directory than a name walk finds: check its home location directly.
        body = home.rstrip("/") + "/" + body[3:]
    if not body.startswith("/"):
        return None
    parts = body.split("/")
    glob_at = next((i for i, part in enumerate(parts) if _GLOB.search(part)), None)
    if glob_at is None:
        return re.sub(r"\\(.)", r"\1", body), 0
    prefix = re.sub(r"\\(.)", r"\1", "/".join(parts[:glob_at]) or "/")
    rest = parts[glob_at:]
    return prefix, -1 if "**" in rest else len(rest)


def _multi_linked_secrets(col: _Collector, home: str) -> set[tuple[int, int]]:
    """(device, inode) of denied files with more than one name: masked names and home secrets.

    The home directory is not visible, but its well-known secret locations (`~/.ssh`,
    `~/.aws/credentials`: its entries and one level inside its dot-directories) are read
    for this: a second name of `~/.ssh/id_ed25519` inside the workspace must be masked too.
    """
    wanted: set[tuple[int, int]] = set()
    budget = [col.scanner.limit]
    deps = col.deps

    def note(top: str) -> None:
        # Recorded looks: a new link to a masked file (its link count and ctime change) or a
        # new file in a masked directory (its stamps change) makes a cached plan stale.
        stack = [top]
        while stack and budget[0] >= 0:
            path = stack.pop()
            seen = deps.probe("lstat", path)
            if seen is None:
                continue
            mode: int = seen[0]  # type: ignore[index]
            links: int = seen[3]  # type: ignore[index]
            if stat.S_ISREG(mode) and links > 1:
                wanted.add((seen[1], seen[2]))  # type: ignore[index]
            elif stat.S_ISDIR(mode):
                try:
                    with os.scandir(path) as it:
                        names = [e.name for e in it]
                except OSError:
                    continue
                budget[0] -= len(names)
                stack.extend(os.path.join(path, name) for name in names)

    for path in tuple(col.masked):
        note(path)
    if home != "/" and deps.probe("isdir", home):
        for directory, rec in col.hits(home, 1).dirs:
            for name in rec.denied:
                note(os.path.join(directory, name))
            for sub in rec.subdirs:
                if sub.startswith("."):
                    for inner, inner_rec in col.hits(os.path.join(directory, sub), 1).dirs:
                        for name in inner_rec.denied:
                            note(os.path.join(inner, name))
    return wanted


def _mask_hard_links(col: _Collector, home: str) -> None:
    """Mask every other name, in the visible trees, of a denied file that has hard links.

    Masks work on paths, and a hard link is the same file under a name no pattern denies
    (`notes.txt` for `server.pem`). Only when such a file exists are the visible trees'
    directories stat'ed (and that, too, is cached per directory).
    """
    wanted = _multi_linked_secrets(col, home)
    if not wanted:
        return
    for directory, rec in col.dirs:
        for name, dev, ino in col.scanner.multi_linked(directory, rec):
            if (dev, ino) in wanted:
                col.masked.add(os.path.join(directory, name))


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


def _read_roots(
    config: SafetyConfig, cwd: str, home: str
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The existing read roots as realpaths, and symlinks to recreate for the ones linked."""
    reals: list[str] = []
    links: list[tuple[str, str]] = []
    for raw in config.sandbox.read_roots:
        path = raw.replace("{workspace}", cwd)
        if path == "~" or path.startswith("~/"):
            path = home + path[1:]
        norm = os.path.normpath(path)
        if not os.path.exists(norm):
            continue  # a toolchain this machine does not have
        real = os.path.realpath(norm)
        if real == "/":
            raise SandboxError(f"read root `{raw}` resolves to `/`; list directories instead")
        reals.append(real)
        if real != norm:
            links.append((norm, real))
    return tuple(dict.fromkeys(reals)), tuple(dict.fromkeys(links))


@dataclass(frozen=True, slots=True)
class _Inputs:
    """Everything a plan is computed from that is cheap to recompute on every run.

    Resolved again for each run (realpaths, the roots, the system view, the store, the
    hook folder, the audit log, the caller's ids and environment): a plan is reused only
    for equal inputs, the same config and policy, and unchanged dependencies (`_Deps`).
    """

    cwd: str
    real_cwd: str
    home: str
    roots: tuple[str, ...]
    read_roots: tuple[tuple[str, bool], ...]
    """(realpath, is a directory)."""
    links: tuple[tuple[str, str], ...]
    system: tuple[tuple[str, str | None], ...]
    store_root: tuple[str, bool]
    store: str | None
    hooks: str | None
    audit: tuple[str, bool, bool] | None
    ids: tuple[int, ...]
    environ: tuple[tuple[bytes, bytes], ...]


def _inputs(config: SafetyConfig, cwd: str) -> _Inputs:
    home = home_dir()
    real_cwd = os.path.realpath(cwd)
    if not os.path.isdir(real_cwd):
        raise SandboxError(f"working directory `{cwd}` does not exist or is not a directory")
    roots: tuple[str, ...] = ()
    if config.sandbox.profile == "workspace-write":
        extra = (_canonical_root(r, real_cwd, home) for r in config.sandbox.writable_roots)
        roots = tuple(dict.fromkeys((real_cwd, *extra)))
        if "/" in roots:
            raise SandboxError("`/` can never be a writable root (the workspace or an extra root)")
    read_roots, links = _read_roots(config, real_cwd, home)
    # A read root this user cannot list is not shown: its content is unknown to the scan.
    read_roots = tuple(
        r for r in read_roots if not os.path.isdir(r) or os.access(r, os.R_OK | os.X_OK)
    )
    system = system_view()
    read_roots = (*read_roots, *_system_extras(system))
    # The scan cache on disk: created before any command could create it, and masked in
    # every run that would show it (a forged record could hide a secret; see `_store`).
    store_root, store = _store.prepare(home)
    hooks = hook_folder()
    audit = None
    if config.audit.path is not None:
        # Resolved as the sink opens it.
        log = os.path.realpath(os.path.expanduser(config.audit.path))
        audit = (log, os.path.isfile(log), os.path.lexists(log))
    return _Inputs(
        cwd=cwd,
        real_cwd=real_cwd,
        home=home,
        roots=roots,
        read_roots=tuple((r, os.path.isdir(r)) for r in read_roots),
        links=links,
        system=system,
        store_root=(store_root, os.path.isdir(store_root)),
        store=store,
        hooks=os.path.realpath(hooks) if os.path.isdir(hooks) else None,
        audit=audit,
        ids=(os.getuid(), os.geteuid(), os.getgid(), os.getegid(), *sorted(os.getgroups())),
        environ=tuple(sorted(os.environb.items())),  # all of it: nothing is assumed not to matter
    )


@dataclass(frozen=True, slots=True)
class _Cached:
    config: SafetyConfig
    policy: CompiledPolicy
    inputs: _Inputs
    deps: _Deps
    plan: MountPlan


_MAX_PLANS: Final = 8
_plans: list[_Cached] = []
_plans_lock = threading.Lock()


def clear_plans() -> None:
    """Forget every cached mount plan in this process."""
    with _plans_lock:
        _plans.clear()


def plan_mounts(config: SafetyConfig, cwd: str) -> MountPlan:
    """Expand the policy's path lists into the mounts of one run (see the module docstring).

    A plan is reused while its inputs are equal and nothing it read changed (`_Inputs`,
    `_Deps`; docs/sandbox.md, "What a run costs"); anything else plans again.
    """
    inputs = _inputs(config, cwd)
    policy = compile_policy(config, inputs.real_cwd)
    with _plans_lock:
        candidates = [
            c
            for c in _plans
            if c.policy is policy
            and c.inputs == inputs
            and (c.config is config or c.config == config)
        ]
    for cached in candidates:
        if cached.deps.unchanged():
            return cached.plan
    plan, deps = _plan(config, inputs, policy)
    if deps.reusable:
        with _plans_lock:
            _plans[:] = [c for c in _plans if c.inputs != inputs or c.config != config]
            _plans.append(_Cached(config, policy, inputs, deps, plan))
            del _plans[:-_MAX_PLANS]
    return plan


def _plan(config: SafetyConfig, inputs: _Inputs, policy: CompiledPolicy) -> tuple[MountPlan, _Deps]:
    """Plan from scratch (the per-directory scan cache still spares unchanged directories)."""
    home, real_cwd, roots = inputs.home, inputs.real_cwd, inputs.roots
    read_roots = tuple(r for r, _ in inputs.read_roots)
    col = _Collector(config, real_cwd, roots, inputs.store, read_roots, policy)
    store_root, store_shown = inputs.store_root
    if store_shown:
        col.masked.add(store_root)
    if inputs.hooks is not None:
        # The warm hook server decides outside any sandbox: its socket is never in view.
        col.masked.add(inputs.hooks)
    for top in dict.fromkeys((real_cwd, *roots)):
        col.tree(top, protect=top in roots)
    for top, is_dir in inputs.read_roots:
        if not any(_inside(top, r) for r in (real_cwd, *roots)):
            if is_dir:
                col.tree(top, protect=False)
            else:
                col.check(top, False, protect=False)
    for pattern in col.denied.patterns:
        col.literal(pattern, home)
    if inputs.audit is not None:
        # The record of what the agent was allowed to do: read-only to the agent (the gate
        # appends from outside the sandbox).
        log, is_file, exists = inputs.audit
        if col.in_root(log) and is_file:
            col.protect.add(log)
        elif col.in_root(log) and not exists:
            col.watch[log] = Watch(log, None)
    col.scanner.persist()
    _mask_hard_links(col, home)
    home_tmpfs = home if home != "/" and col.deps.probe("isdir", home) else None
    visible = (
        *(p for p, target in inputs.system if target is None),
        *read_roots,
        *roots,
        real_cwd,
    )
    plan = _finish(
        col, real_cwd, roots, visible, inputs.system, home_tmpfs, read_roots, inputs.links
    )
    return plan, col.deps


def _collapse(
    masked: set[str], read_roots: tuple[str, ...], writable: tuple[str, ...]
) -> list[str]:
    """Masks sorted shallowest first, with crowded read-root directories masked whole.

    bwrap's setup time grows with the square of the number of mounts (it rereads the mount
    table after each), and toolchains ship test fixtures by the dozen (`test/certdata/*.pem`
    in every Python). In a read root, never in the workspace or a writable root, a directory
    holding `_COLLAPSE_AT` or more denied files is hidden as a whole: more hidden, not less.
    """
    by_dir: dict[str, int] = {}
    reads, writes = set(read_roots), set(writable)
    for path in masked:
        parent = os.path.dirname(path)
        in_read = parent != "/" and _under(os.path.dirname(parent), reads)
        if in_read and not _under(parent, writes):
            by_dir[parent] = by_dir.get(parent, 0) + 1
    crowded = {d for d, n in by_dir.items() if n >= _COLLAPSE_AT}
    out = {os.path.dirname(p) if os.path.dirname(p) in crowded else p for p in masked}
    return sorted(out, key=lambda p: (p.count("/"), p))


def _finish(
    col: _Collector,
    cwd: str,
    roots: tuple[str, ...],
    visible: tuple[str, ...],
    system: tuple[tuple[str, str | None], ...],
    home: str | None,
    read_roots: tuple[str, ...],
    links: tuple[tuple[str, str], ...],
) -> MountPlan:
    views = set(visible)

    def shown(path: str) -> bool:
        # Only what is mounted needs a mask: the rest does not exist inside.
        return _under(path, views)

    masked = _collapse({m for m in col.masked if shown(m)}, read_roots, (*roots, cwd))
    mask_dirs: list[str] = []
    mask_files: list[str] = []
    dir_set: set[str] = set()
    for path in masked:
        if _under(path, dir_set):
            continue  # already hidden by a masked parent directory
        is_dir = path in col.unreadable or bool(col.deps.probe("isdir", path))
        (mask_dirs if is_dir else mask_files).append(path)
        if is_dir:
            dir_set.add(path)
    for path in (*roots, cwd, *read_roots):
        hit = next((d for d in mask_dirs if _inside(path, d)), None)
        if hit is not None:
            raise SandboxError(f"`{path}` is inside the denied path `{hit}`; it cannot be used")

    def hidden(path: str) -> bool:
        return _under(path, dir_set)

    protected: list[str] = []
    protected_set: set[str] = set()
    files = set(mask_files)
    for path in sorted(col.protect, key=lambda p: (p.count("/"), p)):
        if path in files:
            continue  # denied too (`.npmrc`): its mask is read-only already
        if shown(path) and not hidden(path) and not _under(path, protected_set):
            protected.append(path)
            protected_set.add(path)
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
    readonly = (cwd,) if cwd not in roots else ()
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
        system=system,
        home=home,
        read_roots=tuple(sorted(read_roots, key=lambda p: (p.count("/"), p))),
        links=links,
        protected_seen=frozenset(col.seen),
    )


def scan_protected(
    config: SafetyConfig, plan: MountPlan
) -> tuple[tuple[str, ...], tuple[str, ...], Callable[[str], bool]]:
    """Protected paths in the writable roots now that were not there when `plan` was made.

    Called after the run: only the directories the command changed are read again. Also
    returns the directories that cannot be listed now and were not masked during the run
    (the command made them so: what they hide is unknown), and the protected-pattern test,
    for naming what is moved aside.
    """
    if not plan.writable:
        return (), (), lambda _path: False
    # No entry budget here: it bounds the planning of a run, but a check that gave up would
    # leave what the command planted (`.git/hooks/pre-commit` beside a million files) in
    # place. Only the directories the command changed are read, so the command's own
    # output bounds the cost.
    col = _Collector(config, plan.cwd, plan.writable, limit=sys.maxsize)
    for top in plan.writable:
        col.tree(top, protect=True)
    new = sorted(p for p in col.seen if p not in plan.protected_seen and os.path.lexists(p))
    masked = plan.masked_dirs
    closed = sorted(p for p in col.unreadable if not any(_inside(p, m) for m in masked))
    # Report the outermost new path only (`.husky`, not also `.husky/_`).
    out: list[str] = []
    for path in new:
        if not any(_inside(path, p) for p in out):
            out.append(path)
    shut: list[str] = []
    for path in closed:
        if not any(_inside(path, p) for p in (*shut, *out)):
            shut.append(path)
    return tuple(out), tuple(shut), col.protected
