"""Resource limits for one sandboxed command: memory per process, and a process count.

- Memory: `RLIMIT_DATA` (heap and private writable mappings, not address-space reservations,
  so Go and Java runtimes still start) is set inside the sandbox, on every process.
- Processes: `RLIMIT_NPROC`, also set *inside* the sandbox, after bwrap created the user
  namespace. Set there, the kernel counts only the processes of that namespace (ucounts,
  Linux >= 5.14); set on bwrap itself it would count every process the user has on the host.
  The kernel never applies `RLIMIT_NPROC` to uid 0, so for a root caller the runner puts the
  sandbox in a fresh `pids` cgroup instead (v1 or v2, when the hierarchy is writable), and
  stops the sandbox as soon as a fork is refused there: a fork bomb ends at once with a
  message instead of churning at the limit until the timeout. Without that cgroup (every
  non-root caller), `process_watchdog` counts the sandbox's processes from the host and
  stops a sandbox that stays at the limit.
"""

from __future__ import annotations

import _thread
import atexit
import errno
import os
import time

TYPE_CHECKING = False  # not typing's: the warm `safehold run` client imports this module
if TYPE_CHECKING:
    import _queue
    from collections.abc import Callable, Mapping
    from typing import Final

__all__ = [
    "Cgroup",
    "SandboxGone",
    "limit_message",
    "limit_prefix",
    "open_cgroup",
    "process_watchdog",
]


def _warn(message: str, *args: object) -> None:
    # logging is imported only to warn: the warm `safehold run` client never loads it else.
    import logging

    logging.getLogger("safehold.sandbox").warning(message, *args)


_V1_ROOT: Final = "/sys/fs/cgroup/pids"
_V2_ROOT: Final = "/sys/fs/cgroup"


def limit_message(max_processes: int) -> str:
    """What the command's stderr gets when the sandbox is stopped at its process limit."""
    return (
        f"safehold: the command reached sandbox.max_processes ({max_processes} processes "
        "and threads); the sandbox was stopped\n"
    )


def process_watchdog(max_processes: int) -> Callable[[Mapping[str, object]], str | None]:
    """Stop a sandbox that stays at its process limit (callers without a pids cgroup).

    `RLIMIT_NPROC` already refuses the forks, but a fork bomb would churn at the limit until
    the timeout. Every poll lists the sandbox's own `/proc` from the host (through its init's
    `/proc/PID/root`, readable by the caller, who owns the user namespace): as many entries
    as processes, never the host's. At the limit on two polls in a row, the sandbox is
    stopped: a build that touches the limit for a moment (its fork failed) is left alone.
    """
    streak = [0]

    def check(status: Mapping[str, object]) -> str | None:
        pid = status.get("child-pid")
        if not isinstance(pid, int):
            return None
        try:
            count = sum(1 for name in os.listdir(f"/proc/{pid}/root/proc") if name.isdigit())
        except OSError:
            return None
        streak[0] = streak[0] + 1 if count >= max_processes else 0
        return limit_message(max_processes) if streak[0] >= 2 else None

    return check


def limit_prefix(shell: str, max_processes: int, max_memory_mb: int) -> list[str]:
    """argv that sets the limits inside the sandbox and then execs the command appended to it."""
    # `ulimit` with neither -S nor -H sets both. Failing to *raise* a limit (the hard limit
    # is already lower) leaves the lower one: stricter, so it is ignored.
    # A command that is not there gets the shell's own words for it, not "exec: not found"
    # from an internal script; `$0` names safehold in anything else the shell says.
    # The main stack is not data memory (RLIMIT_DATA leaves out VM_STACK), and its hard
    # limit is usually unlimited: `ulimit -s unlimited` and deep recursion grew it past any
    # `max_memory_mb`. Its hard limit is lowered to the same bound; the soft one (glibc's
    # default thread stack size) is left alone unless it is above that.
    kib = max_memory_mb * 1024
    script = (
        f"ulimit -d {kib} 2>/dev/null; "
        f"ulimit -Hs {kib} 2>/dev/null || {{ ulimit -Ss {kib} && ulimit -Hs {kib}; }} "
        "2>/dev/null; "
        f"ulimit -u {max_processes} 2>/dev/null; "
        'if ! type -P -- "$1" >/dev/null; then '
        'if [ -e "$1" ] && [ "${1#*/}" != "$1" ]; then '
        "printf '%s: not an executable file\\n' \"$1\" >&2; exit 126; fi; "
        "printf '%s: command not found\\n' \"$1\" >&2; exit 127; fi; "
        'exec "$@"'
    )
    return [shell, "-c", script, "safehold"]


class SandboxGone(Exception):
    """bwrap's child exited before it could be admitted (its setup failed): nothing ran."""


class Cgroup:
    """A fresh pids cgroup for one run (root callers only).

    The sandbox's pid 1 is moved in after bwrap cloned it and before it runs anything:
    bwrap is started with `--block-fd`, so its child builds the mounts and then waits on
    that pipe; the runner reads the child's pid from bwrap's status pipe, moves it into the
    cgroup (`admit`) and only then releases it. Every process of the command descends from
    that child, so all of them start inside. Moving a process waits for the kernel's RCU
    grace period (several ms): done this way it overlaps bwrap's own setup instead of
    delaying the fork, and the runner's threads never change cgroup.
    """

    __slots__ = ("max_processes", "path")

    def __init__(self, path: str, max_processes: int) -> None:
        self.path = path
        self.max_processes = max_processes

    def admit(self, pid: int, parent: int) -> None:
        """Move `pid` (bwrap's child, checked: never a recycled pid) into the cgroup.

        Raises `SandboxGone` when that child has exited already (bwrap failed to set up),
        `OSError` when it cannot be moved: the caller then kills the sandbox before release.
        """
        try:
            with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as fh:
                ppid = next((ln.split()[1] for ln in fh if ln.startswith("PPid:")), "")
        except FileNotFoundError:
            raise SandboxGone(pid) from None
        if ppid != str(parent):
            raise SandboxGone(pid)  # exited, and its pid taken by another process
        try:
            _write(os.path.join(self.path, "cgroup.procs"), str(pid))
        except ProcessLookupError:  # ESRCH: it exited meanwhile
            raise SandboxGone(pid) from None

    def limit_hit(self) -> str | None:
        """A message once a fork was refused at the limit, else None."""
        try:
            with open(os.path.join(self.path, "pids.events"), encoding="utf-8") as fh:
                for line in fh:
                    name, _, count = line.partition(" ")
                    if name == "max" and count.strip() not in ("", "0"):
                        return limit_message(self.max_processes)
        except OSError:
            return None
        return None

    def close(self) -> None:
        """Remove the cgroup, or leave that to a later sweep while it still has members.

        The pid namespace's processes are still being torn down for a moment after bwrap
        exits, and a cgroup with members cannot be removed (EBUSY). Waiting for that would
        add to every run, so such a cgroup is swept at the next run and at exit instead.
        """
        if not _remove(self.path):
            with _pending_lock:
                _pending.append(self.path)


_pending: list[str] = []
_pending_lock = _thread.allocate_lock()  # `threading` costs the warm client's start


def _remove(path: str) -> bool:
    """rmdir the cgroup; False while it still has members."""
    try:
        os.rmdir(path)
    except FileNotFoundError:
        return True
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            return False
        _warn("could not remove the cgroup %s: %s", path, exc)
    return True


def _sweep(wait: float = 0.0) -> None:
    """Remove the cgroups left by earlier runs (at most `wait` seconds of retrying)."""
    deadline = time.monotonic() + wait
    while True:
        with _pending_lock:
            _pending[:] = [p for p in _pending if not _remove(p)]
            if not _pending or time.monotonic() >= deadline:
                return
        time.sleep(0.001)  # a sandbox's processes are gone a few ms after bwrap exits


atexit.register(_sweep, 2.0)


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _own(controller: str, v2: bool) -> str | None:
    try:
        with open("/proc/self/cgroup", encoding="utf-8", errors="surrogateescape") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if (v2 and controllers == "") or (not v2 and controller in controllers.split(",")):
            return path
    return None


def _make(parent: str, max_processes: int) -> Cgroup | None:
    path = os.path.join(parent, f"safehold-{os.urandom(6).hex()}")
    try:
        os.mkdir(path)
    except OSError:
        return None
    try:
        with open(os.path.join(path, "pids.max"), "w", encoding="utf-8") as fh:
            fh.write(str(max_processes))
    except OSError:
        try:  # noqa: SIM105 (contextlib costs the warm client's start)
            os.rmdir(path)
        except OSError:
            pass
        return None
    _prime(parent)
    return Cgroup(path, max_processes)


_primer: list[_queue.SimpleQueue[str]] = []


def _prime(own: str) -> None:
    """Have a helper thread write this process into the cgroup it is in already (a no-op).

    A move takes the kernel's cgroup-threadgroup lock for writing, which first waits for an
    RCU grace period unless one passed just before. Asked for when the run's cgroup is made,
    that wait runs while the runner plans and bwrap sets up, so the real move (`admit`)
    finds it mostly done. One long-lived thread (starting a thread per run costs more than
    it saves under load); nothing depends on it: errors are ignored. A thread of `_thread`
    (never waited for at exit, as a daemon thread) and a `_queue.SimpleQueue`: `threading`
    and `queue` would cost the warm `safehold run` client's start more than the wait saves.
    """
    import _queue

    with _pending_lock:
        if not _primer:
            _primer.append(_queue.SimpleQueue())
            _thread.start_new_thread(_primer_loop, (_primer[0],))
        _primer[0].put(own)


def _primer_loop(jobs: _queue.SimpleQueue[str]) -> None:
    while True:
        own = jobs.get()
        try:  # noqa: SIM105 (contextlib costs the warm client's start)
            _write(os.path.join(own, "cgroup.procs"), str(os.getpid()))
        except OSError:
            pass


_warned: list[bool] = []


def open_cgroup(max_processes: int) -> Cgroup | None:
    """A pids cgroup limiting the run, when the caller is root (else `RLIMIT_NPROC` works)."""
    if os.geteuid() != 0:
        return None
    if _pending:
        _sweep()
    own = _own("pids", v2=False)
    if own is not None and os.path.isdir(_V1_ROOT):
        group = _make(os.path.normpath(_V1_ROOT + "/" + own), max_processes)
        if group is not None:
            return group
    own = _own("", v2=True)
    controllers = os.path.join(_V2_ROOT, "cgroup.controllers")
    if own is not None and os.path.isfile(controllers):
        try:
            with open(controllers, encoding="utf-8") as fh:
                listed = "pids" in fh.read().split()
        except OSError:
            listed = False
        if listed:
            group = _make(os.path.normpath(_V2_ROOT + "/" + own), max_processes)
            if group is not None:
                return group
    if not _warned:
        _warned.append(True)
        _warn(
            "sandbox.max_processes is not enforced: the caller is root (the kernel exempts "
            "uid 0 from RLIMIT_NPROC) and no writable pids cgroup was found"
        )
    return None
