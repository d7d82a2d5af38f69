"""Spawn one process, drain its output under a cap, and kill its whole tree on timeout.

One `selectors` loop reads stdout, stderr, bwrap's JSON status pipe and a cancel pipe, so a
full pipe never blocks the child while the runner waits on another. Past the cap the bytes are
still read and dropped: the command behaves the same whether or not anyone is listening (no
SIGPIPE, no blocked writes).

Killing a sandbox: SIGKILL to the sandbox's pid 1 (host pid from the status pipe, verified to
be bwrap's child through a pidfd) and to bwrap. (A command run without a sandbox starts in
its own session, and the kill reaches its whole process group.) When a pid namespace's init
dies the kernel kills every process in it — forks ignoring SIGTERM, `setsid` daemons and
`nohup` jobs included — and `--die-with-parent` covers the rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence

from safehold.adapters.bwrap._limits import Cgroup, SandboxGone, process_watchdog

TYPE_CHECKING = False  # not typing's: the warm `safehold run` client imports this module
if TYPE_CHECKING:
    from typing import Any, Final, TypeVar

    R = TypeVar("R")

__all__ = [
    "RawOutcome",
    "exit_code_of",
    "fd_options",
    "sandbox_result",
    "spawn_and_collect",
    "spawn_sandbox",
]

_CHUNK: Final = 65536
_WATCH_EVERY: Final = 0.2
"""Seconds between two looks of the watchdog (a resource-limit check)."""
_DRAIN_GRACE: Final = 5.0
"""Seconds to wait for the pipes to close after a kill before giving up on them."""


class RawOutcome:
    """What happened to one process, before interpretation.

    A plain class, not a dataclass: the warm `safehold run` client loads this module, and
    `dataclasses` (with `inspect`) would cost it a good part of Python's own start.
    """

    __slots__ = (
        "cancelled",
        "refused",
        "returncode",
        "status",
        "stderr",
        "stdout",
        "stopped",
        "timed_out",
        "truncated",
    )

    def __init__(
        self,
        *,
        returncode: int,
        stdout: bytes,
        stderr: bytes,
        truncated: bool,
        timed_out: bool,
        cancelled: bool,
        status: dict[str, Any] | None = None,
        stopped: str | None = None,
        refused: str | None = None,
    ) -> None:
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.truncated = truncated
        self.timed_out = timed_out
        self.cancelled = cancelled
        self.status: dict[str, Any] = {} if status is None else status
        self.stopped = stopped
        """The watchdog's message when it stopped the process (a resource limit was hit)."""
        self.refused = refused
        """Why the sandbox was killed before it ran anything (it could not be admitted)."""


class _Capped:
    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.dropped = False

    def add(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if len(chunk) > room:
            self.dropped = True
            chunk = chunk[: max(room, 0)]
        self.data += chunk


def _parse_status(raw: bytes) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            merged.update(item)
    return merged


def _kill_child(pid: object, parent: int) -> None:
    """SIGKILL the sandbox's pid 1, but only while it is still bwrap's child (no pid reuse)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 1:
        return
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
            ppid = next((int(ln.split()[1]) for ln in fh if ln.startswith("PPid:")), -1)
        if ppid == parent:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except (OSError, ValueError):
        pass
    finally:
        os.close(pidfd)


def _kill_tree(proc: subprocess.Popen[bytes], status: bytes, group: bool) -> None:
    _kill_child(_parse_status(status).get("child-pid"), proc.pid)
    if group:  # only a process started in its own session: then pgid == pid
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()


def spawn_and_collect(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    pass_fds: Sequence[int],
    status_fd: int | None,
    timeout: float | None,
    cap: int,
    cancel_fd: int | None = None,
    cwd: str | None = None,
    watchdog: Callable[[Mapping[str, Any]], str | None] | None = None,
    admit: Callable[[int, int], None] | None = None,
    release_fd: int | None = None,
    new_session: bool = True,
) -> RawOutcome:
    """Run `argv` with stdin from /dev/null, collecting capped output; kill on timeout/cancel.

    Takes ownership of `pass_fds`: they are closed in this process once the child has them
    (the status pipe only reaches EOF when no copy of its write end is left open here).
    `watchdog`, when given, is called every `_WATCH_EVERY` seconds with bwrap's status so far
    (`child-pid`: the sandbox's init); a message back kills the
    process tree and is reported as `stopped`.

    `new_session`: start the process in its own session, so a kill reaches its whole process
    group (a command run without a sandbox). bwrap needs none of that (a sandbox dies with
    its pid 1, and bwrap forks nothing else), and starts measurably faster without it.

    `admit` and `release_fd` (owned: closed here) go together: once bwrap reports its
    child's pid, `admit(pid, bwrap_pid)` runs (it moves the child into a cgroup) and only
    then is a byte written to `release_fd`, the write end of bwrap's `--block-fd` pipe. When
    `admit` fails, the sandbox is killed before it is released, and that is `stopped`.
    """
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env),
            pass_fds=tuple(pass_fds),
            close_fds=True,  # bwrap hands every inherited fd on to the command
            start_new_session=new_session,
            cwd=cwd,
        )
    except BaseException:
        if release_fd is not None:
            os.close(release_fd)
        raise
    finally:
        for fd in pass_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
    assert proc.stdout is not None and proc.stderr is not None
    out, err = _Capped(cap), _Capped(cap)
    status = bytearray()
    timed_out = cancelled = killed = False
    stopped: str | None = None
    refused: str | None = None
    next_watch = time.monotonic() + _WATCH_EVERY
    deadline = None if timeout is None else time.monotonic() + timeout
    sel = selectors.DefaultSelector()
    pending = release_fd  # the sandbox waits until this is written to (or closed)
    try:
        sinks: dict[int, _Capped | bytearray] = {
            proc.stdout.fileno(): out,
            proc.stderr.fileno(): err,
        }
        if status_fd is not None:
            sinks[status_fd] = status
        for fd in sinks:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        if cancel_fd is not None:
            sel.register(cancel_fd, selectors.EVENT_READ)
        open_fds = set(sinks)
        while open_fds:
            wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            if watchdog is not None and not killed:
                wait = min(wait, _WATCH_EVERY) if wait is not None else _WATCH_EVERY
            events = sel.select(wait)
            if watchdog is not None and not killed and time.monotonic() >= next_watch:
                next_watch = time.monotonic() + _WATCH_EVERY
                stopped = watchdog(_parse_status(bytes(status)))
                if stopped is not None:
                    killed = True
                    _kill_tree(proc, bytes(status), new_session)
                    deadline = time.monotonic() + _DRAIN_GRACE
                    continue
            if not events and deadline is not None and time.monotonic() >= deadline:
                if killed:
                    break  # the pipes stayed open past the grace period: stop reading
                timed_out = killed = True
                _kill_tree(proc, bytes(status), new_session)
                deadline = time.monotonic() + _DRAIN_GRACE
                continue
            for key, _ in events:
                fd = key.fd
                if fd == cancel_fd:
                    sel.unregister(fd)
                    if not killed:
                        cancelled = killed = True
                        _kill_tree(proc, bytes(status), new_session)
                        deadline = time.monotonic() + _DRAIN_GRACE
                    continue
                try:
                    chunk = os.read(fd, _CHUNK)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(fd)
                    open_fds.discard(fd)
                    continue
                sink = sinks[fd]
                if isinstance(sink, _Capped):
                    sink.add(chunk)
                elif len(sink) < _CHUNK:
                    sink += chunk
                    if pending is not None and admit is not None and not killed:
                        child = _parse_status(bytes(sink)).get("child-pid")
                        if isinstance(child, int) and not isinstance(child, bool):
                            refused = _admit(admit, child, proc, pending)
                            if refused is not None:
                                killed = True
                                _kill_tree(proc, bytes(status), new_session)
                                deadline = time.monotonic() + _DRAIN_GRACE
                            os.close(pending)
                            pending = None
        if not killed and proc.poll() is None:
            # The pipes closed but the process may live on (`exec >&- 2>&-; sleep 99`): wait
            # for its pidfd (readable at exit), the cancel pipe or the deadline.
            timed_out, cancelled = _wait_exit(
                proc, sel, deadline, cancel_fd, bytes(status), new_session
            )
    except BaseException:
        # KeyboardInterrupt or any bug: never leave a sandbox running behind us.
        _kill_tree(proc, bytes(status), new_session)
        raise
    finally:
        if pending is not None:
            # Never admitted (bwrap failed, or the run was stopped first): a sandbox still
            # waiting is killed before its pipe closes, so it never runs outside the cgroup.
            if proc.poll() is None:
                _kill_tree(proc, bytes(status), new_session)
            os.close(pending)
        sel.close()
        returncode = _reap(proc, bytes(status), new_session)
        proc.stdout.close()
        proc.stderr.close()
    return RawOutcome(
        returncode=returncode,
        stdout=bytes(out.data),
        stderr=bytes(err.data),
        truncated=out.dropped or err.dropped,
        timed_out=timed_out,
        cancelled=cancelled,
        status=_parse_status(bytes(status)),
        stopped=stopped,
        refused=refused,
    )


def spawn_sandbox(
    build: Callable[[int, int, int | None], list[str]],
    *,
    program: bytes,
    env: Mapping[str, str],
    timeout: float | None,
    cap: int,
    cancel_fd: int | None,
    max_processes: int,
    cgroup: Cgroup | None,
) -> RawOutcome:
    """Run bwrap: `build(seccomp_fd, status_fd, block_fd)` is its argv for those fds.

    The seccomp `program` goes through a pipe, bwrap reports on a status pipe, and with a
    `cgroup` (root callers) the sandbox waits on `--block-fd` until its pid 1 is moved in.
    Shared by the runner and the warm `safehold run` client (`safehold.cli._run_client`),
    which gets the argv's parts from the hook server.
    """
    seccomp_r, seccomp_w = os.pipe()
    try:
        # The program is a few hundred bytes: it fits in the pipe buffer before bwrap starts.
        os.write(seccomp_w, program)
    finally:
        os.close(seccomp_w)
    fds: list[int] = []
    try:
        fds += os.pipe()  # status
        if cgroup is not None:
            fds += os.pipe()  # --block-fd: the sandbox waits until it is in its cgroup
    except OSError:
        for fd in (seccomp_r, *fds):
            os.close(fd)
        raise
    status_r, status_w = fds[0], fds[1]
    block_r: int | None = fds[2] if cgroup is not None else None
    block_w: int | None = fds[3] if cgroup is not None else None
    passed = (seccomp_r, status_w) if block_r is None else (seccomp_r, status_w, block_r)
    try:
        try:
            full = build(seccomp_r, status_w, block_r)
        except BaseException:
            for fd in (*passed, *(() if block_w is None else (block_w,))):
                os.close(fd)
            raise
        # spawn_and_collect owns and closes the passed fds and the block pipe's write end.
        return spawn_and_collect(
            full,
            env=env,
            pass_fds=passed,
            status_fd=status_r,
            timeout=timeout,
            cap=cap,
            cancel_fd=cancel_fd,
            watchdog=(
                process_watchdog(max_processes)
                if cgroup is None
                else lambda _status: cgroup.limit_hit()
            ),
            admit=None if cgroup is None else cgroup.admit,
            release_fd=block_w,
            new_session=False,  # bwrap's own --new-session isolates the command
        )
    finally:
        os.close(status_r)


def _admit(
    admit: Callable[[int, int], None], child: int, proc: subprocess.Popen[bytes], release: int
) -> str | None:
    """Admit the sandbox's pid 1, then release it; the reason to stop it when admitting fails
    (it is then still waiting: the caller kills it before closing `release`). A child that
    is gone already is no refusal: bwrap's own error (its stderr, no exit code) tells why."""
    try:
        admit(child, proc.pid)
    except OSError as exc:
        return f"could not put the sandbox in its pids cgroup ({exc}); nothing was run"
    except SandboxGone:
        _kill_tree(proc, b"", False)  # nothing can run in it: make sure of that before the close
        return None
    with contextlib.suppress(OSError):  # bwrap is gone already: its own error tells why
        os.write(release, b"x")
    return None


def _wait_exit(
    proc: subprocess.Popen[bytes],
    sel: selectors.BaseSelector,
    deadline: float | None,
    cancel_fd: int | None,
    status: bytes,
    group: bool,
) -> tuple[bool, bool]:
    """Wait for the process to exit; return (timed_out, cancelled), killing it for either."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except OSError:  # already reaped
        return False, False
    try:
        sel.register(pidfd, selectors.EVENT_READ)
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                _kill_tree(proc, status, group)
                return True, False
            for key, _ in sel.select(left):
                if key.fd == pidfd:
                    return False, False
                if key.fd == cancel_fd:
                    _kill_tree(proc, status, group)
                    return False, True
    finally:
        sel.unregister(pidfd)
        os.close(pidfd)


def _reap(proc: subprocess.Popen[bytes], status: bytes, group: bool) -> int:
    try:
        return proc.wait(timeout=_DRAIN_GRACE)
    except subprocess.TimeoutExpired:
        _kill_tree(proc, status, group)
        return proc.wait()


def fd_options(seccomp_fd: int | None, status_fd: int, block_fd: int | None) -> list[str]:
    """bwrap's options naming the run's pipes, between `_argv.argv_parts`' two halves."""
    argv = [] if seccomp_fd is None else ["--seccomp", str(seccomp_fd)]
    if block_fd is not None:
        argv += ["--block-fd", str(block_fd)]
    return [*argv, "--json-status-fd", str(status_fd)]


def exit_code_of(raw: RawOutcome) -> int | None:
    """The command's exit status from bwrap's status (or the process's), None when killed
    for a timeout or a cancellation."""
    if raw.timed_out or raw.cancelled:
        return None
    code = raw.status.get("exit-code")
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    return 128 - raw.returncode if raw.returncode < 0 else raw.returncode


def sandbox_result(
    raw: RawOutcome,
    *,
    bwrap: str,
    duration: float,
    cap: int,
    after: Callable[[], tuple[str, ...]],
    make: Callable[..., R],
) -> R:
    """Read one bwrap run: `make(...)` with `CommandResult`'s fields, or the `SandboxError`
    of a sandbox that never ran.

    `after` is the after-run check, called only when the command ran. Shared by the runner
    (`make` is `CommandResult`) and the warm `safehold run` client (a light class of the same
    fields; its `after` asks the server that planned the run).
    """
    from safehold.errors import SandboxError

    if raw.refused is not None:
        raise SandboxError(raw.refused)
    if raw.stopped is not None:
        import logging

        logging.getLogger("safehold.sandbox").warning("%s", raw.stopped.strip())
        raw.stderr = (raw.stderr + b"\n" + raw.stopped.encode())[-cap:]
        raw.status = {"exit-code": 128 + 9}  # stopped by SIGKILL, whatever the shell said
    ran = "exit-code" in raw.status
    if not ran and not raw.timed_out and not raw.cancelled:
        text = raw.stderr.decode("utf-8", "replace")
        if "bwrap: execvp" in text:
            # The sandbox started but the program cannot be run: report it like a shell
            # (127 not found, 126 not executable).
            return make(
                exit_code=127 if "No such file" in text else 126,
                stdout=b"",
                stderr=raw.stderr,
                timed_out=False,
                truncated=False,
                duration=duration,
                sandboxed=True,
            )
        from safehold.adapters.bwrap._locate import classify_start_failure

        raise classify_start_failure(raw.stderr, bwrap)
    return make(
        exit_code=exit_code_of(raw),
        stdout=raw.stdout,
        stderr=raw.stderr,
        timed_out=raw.timed_out,
        truncated=raw.truncated,
        duration=duration,
        sandboxed=True,
        findings=after(),
    )
