"""Build the bwrap argument list: fixed flags first, then mounts in the one safe order.

bwrap applies filesystem options in the order given and later mounts shadow earlier ones,
so the order is part of the security argument (see docs/sandbox.md, "flag table"):

1. `--die-with-parent --new-session --unshare-all --unshare-user --cap-drop ALL`
   [`--disable-userns`] [`--share-net`] `--clearenv --setenv ...`
2. the system view (`--ro-bind /usr /usr`, `--symlink usr/bin /bin`, ...; never `/`), then
   `--dev /dev`, `[--size N] --tmpfs /dev/shm`, `--remount-ro /dev` and `--proc /proc`, then
   `[--size N] --tmpfs /tmp`
3. HOME as a `[--size N] --tmpfs`, the read roots bound read-only into it (and symlinks for
   read roots configured through one), the read-only workspace (read-only profile)
4. writable roots, pins of their sub-directories, protected paths read-only (after the roots
   they sit in), then the deny masks last so nothing re-exposes them, then
   `--remount-ro /` (the skeleton tmpfs holding the mount points)
5. `--seccomp FD [--block-fd FD] --json-status-fd FD --chdir CWD -- COMMAND...`
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from safehold.adapters.bwrap._process import fd_options
from safehold.errors import SandboxError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from safehold.adapters.bwrap._locate import Bwrap
    from safehold.adapters.bwrap._plan import MountPlan

__all__ = ["MAX_ARGS", "SandboxSpec", "argv_parts", "build_argv"]

MAX_ARGS: Final = 8500
"""bwrap refuses more than 9000 arguments; keep a margin for the command itself."""


@dataclass(frozen=True, slots=True)
class SandboxSpec:
    """Everything the argument list depends on, besides the mounts."""

    network: bool
    env: Mapping[str, str]
    tmp_size_bytes: int
    seccomp_fd: int | None
    status_fd: int
    command: Sequence[str]
    block_fd: int | None = None
    """bwrap's child waits on this pipe after building the mounts, before it runs anything
    (the runner moves it into the run's pids cgroup meanwhile; `_limits.Cgroup`)."""


def _base(bwrap: Bwrap, spec: SandboxSpec) -> list[str]:
    argv = [
        bwrap.path,
        "--die-with-parent",  # the sandbox dies with the runner; teardown kills `cmd &` jobs
        "--new-session",  # setsid(): no controlling tty, no TIOCSTI into the user's shell
        "--unshare-all",  # pid, ipc, uts, net, cgroup namespaces
        "--unshare-user",  # required, not "-try": fail closed where userns is unavailable
        "--cap-drop",  # a root caller would otherwise keep every capability inside
        "ALL",
    ]
    if bwrap.has_disable_userns:
        argv.append("--disable-userns")  # no nested user namespaces (kernel attack surface)
    if spec.network:
        argv.append("--share-net")
    if bwrap.has_clearenv:
        argv.append("--clearenv")  # older bwrap: the runner passes the same clean env to Popen
        for name, value in spec.env.items():
            argv += ["--setenv", name, value]
    return argv


def _tmpfs(bwrap: Bwrap, spec: SandboxSpec, path: str) -> list[str]:
    size = ["--size", str(spec.tmp_size_bytes)] if bwrap.has_size else []
    return [*size, "--tmpfs", path]


def _mounts(bwrap: Bwrap, plan: MountPlan, spec: SandboxSpec) -> list[str]:
    argv: list[str] = []
    for path, target in plan.system:
        argv += ["--ro-bind", path, path] if target is None else ["--symlink", target, path]
    # bwrap's /dev is a tmpfs with no size and its /dev/shm a directory in it: /dev/shm gets
    # its own sized tmpfs and the rest of /dev is read-only (device nodes still work).
    argv += ["--dev", "/dev", *_tmpfs(bwrap, spec, "/dev/shm"), "--remount-ro", "/dev"]
    argv += ["--proc", "/proc", *_tmpfs(bwrap, spec, "/tmp")]
    if plan.home is not None:
        argv += _tmpfs(bwrap, spec, plan.home)
    for path in plan.read_roots:
        argv += ["--ro-bind", path, path]
    for link, target in plan.links:
        argv += ["--symlink", target, link]
    for path in plan.readonly_binds:
        argv += ["--ro-bind", path, path]
    for path in plan.writable:
        argv += ["--bind", path, path]
    for path in plan.pins:
        argv += ["--bind", path, path]
    for path in plan.protected:
        argv += ["--ro-bind", path, path]
    for path in plan.masked_dirs:
        if bwrap.has_clearenv:  # --perms arrived with --clearenv in 0.5
            argv += ["--perms", "0000"]
        argv += ["--tmpfs", path, "--remount-ro", path]
    for path in plan.masked_files:
        # Bind mounts are nodev, so reading this /dev/null fails with EACCES, as wanted.
        argv += ["--ro-bind", "/dev/null", path]
    # The skeleton bwrap built the mount points in (`/var/tmp` above a writable root) is a
    # tmpfs with no size bound: read-only, so nothing can be written outside the mounts.
    argv += ["--remount-ro", "/"]
    return argv


def argv_parts(bwrap: Bwrap, plan: MountPlan, spec: SandboxSpec) -> tuple[list[str], list[str]]:
    """The bwrap argv for `spec` before and after its fd options (`_process.fd_options`).

    Split so that a process other than the one that planned the run (the warm `safehold run`
    client) can put in the numbers of its own pipes. Raises `SandboxError` when the whole
    argv, with `spec`'s fds, is longer than bwrap takes.
    """
    head = _base(bwrap, spec) + _mounts(bwrap, plan, spec)
    tail = ["--chdir", plan.cwd, "--"]
    size = len(head) + len(fd_options(spec.seccomp_fd, spec.status_fd, spec.block_fd))
    size += len(tail)
    if size + len(spec.command) > MAX_ARGS:
        if len(spec.command) > MAX_ARGS // 2 or size <= MAX_ARGS // 2:
            raise SandboxError(
                f"the command has {len(spec.command)} arguments, more than fit in a sandboxed "
                f"run ({MAX_ARGS - size} here: bwrap takes at most {MAX_ARGS} with its "
                "own); split it into several commands (`xargs` inside the sandbox)"
            )
        raise SandboxError(
            f"too many denied and protected paths to mount ({size} bwrap arguments, "
            f"limit {MAX_ARGS}); narrow `denied_paths`/`protected_paths` or the working directory"
        )
    return head, tail + list(spec.command)


def build_argv(bwrap: Bwrap, plan: MountPlan, spec: SandboxSpec) -> list[str]:
    """Return the full bwrap argv for `spec` run with `plan`'s mounts."""
    head, tail = argv_parts(bwrap, plan, spec)
    return head + fd_options(spec.seccomp_fd, spec.status_fd, spec.block_fd) + tail
