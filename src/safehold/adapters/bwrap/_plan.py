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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from safehold._runtime_dir import hook_folder
from safehold.adapters.bwrap import _store
from safehold.adapters.bwrap._scan import DirRecord, Matcher, Scanner
from safehold.errors import SandboxError
from safehold.policy.config import SafetyConfig
from safehold.policy.paths import compile_policy

__all__ = ["SYSTEM_DIRS", "MountPlan", "Watch", "home_dir", "plan_mounts", "scan_protected"]

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


class _Collector:
    def __init__(
        self,
        config: SafetyConfig,
        cwd: str,
        roots: tuple[str, ...],
        store: str | None = None,
        shown: tuple[str, ...] = (),
    ):
        policy = compile_policy(config, cwd)
        self.denied = Matcher.of(policy.denied, policy.casefold)
        self.protected = Matcher.of(policy.protected, policy.casefold)
        limit = config.sandbox.scan_max_entries
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
        real = _resolve(path) if is_link else path
        # Like the policy, match the literal path and the resolved one (a symlink named
        # `notes.txt` that points at `~/.aws/credentials` is denied).
        if self.denied(path) or (is_link and self.denied(real)):
            if os.path.exists(real) and (
                not is_link or any(_inside(real, r) for r in self.link_targets)
            ):
                self.masked.add(real)
            return False
        if protect and self.protected(path):
            self.seen.add(path)
            if is_link:
                self.watch[path] = Watch(path, _readlink(path))
            if self.in_root(real) and os.path.exists(real):
                self.protect.add(real)
        return True

    def tree(self, top: str, *, protect: bool, depth: int = -1) -> None:
        """Masks and protected paths in the whole tree below `top` (cached per directory)."""
        if not self.check(top, os.path.islink(top), protect=protect):
            return
        found = self.scanner.hits(top, depth)
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
            try:
                st = os.lstat(path)
            except OSError:
                return
            self.check(path, stat.S_ISLNK(st.st_mode), protect=False)
            return
        if path != "/" and os.path.isdir(path):
            found = self.scanner.hits(path, depth)
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

    def note(path: str) -> None:
        try:
            st = os.lstat(path)
        except OSError:
            return
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            wanted.add((st.st_dev, st.st_ino))
        elif stat.S_ISDIR(st.st_mode):
            for dirpath, _dirs, files in os.walk(path):
                budget[0] -= len(files) + len(_dirs)
                if budget[0] < 0:
                    return
                for name in files:
                    note(os.path.join(dirpath, name))

    for path in tuple(col.masked):
        note(path)
    if home != "/" and os.path.isdir(home):
        for directory, rec in col.scanner.tree(home, 1):
            for name in rec.denied:
                note(os.path.join(directory, name))
            for sub in rec.subdirs:
                if sub.startswith("."):
                    for inner, inner_rec in col.scanner.tree(os.path.join(directory, sub), 1):
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


def plan_mounts(config: SafetyConfig, cwd: str) -> MountPlan:
    """Expand the policy's path lists into the mounts of one run (see the module docstring)."""
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
    col = _Collector(config, real_cwd, roots, store, read_roots)
    if os.path.isdir(store_root):
        col.masked.add(store_root)
    hooks = hook_folder()
    if os.path.isdir(hooks):
        # The warm hook server decides outside any sandbox: its socket is never in view.
        col.masked.add(os.path.realpath(hooks))
    for top in dict.fromkeys((real_cwd, *roots)):
        col.tree(top, protect=top in roots)
    for top in read_roots:
        if not any(_inside(top, r) for r in (real_cwd, *roots)):
            if os.path.isdir(top):
                col.tree(top, protect=False)
            else:
                col.check(top, False, protect=False)
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
    col.scanner.persist()
    _mask_hard_links(col, home)
    home_tmpfs = home if home != "/" and os.path.isdir(home) else None
    visible = (
        *(p for p, target in system if target is None),
        *read_roots,
        *roots,
        real_cwd,
    )
    return _finish(col, real_cwd, roots, visible, system, home_tmpfs, read_roots, links)


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
        is_dir = path in col.unreadable or os.path.isdir(path)
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
    for path in sorted(col.protect, key=lambda p: (p.count("/"), p)):
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
    col = _Collector(config, plan.cwd, plan.writable)
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
