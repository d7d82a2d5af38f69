"""Spawn one process, drain its output under a cap, and kill its whole tree on timeout.

One `poll` loop reads stdout, stderr, bwrap's JSON status pipe and a cancel pipe, so a full
pipe never blocks the child while the runner waits on another. Past the cap the bytes are
still read and dropped: the command behaves the same whether or not anyone is listening (no
SIGPIPE, no blocked writes).

Killing a sandbox: SIGKILL to the sandbox's pid 1 (host pid from the status pipe, verified to
be bwrap's child through a pidfd, then waited for) and to bwrap; before bwrap has reported
that pid, bwrap is stopped and each of its children killed. (A command run without a sandbox starts in
its own session, and the kill reaches its whole process group.) When a pid namespace's init
dies the kernel kills every process in it — forks ignoring SIGTERM, `setsid` daemons and
`nohup` jobs included — and `--die-with-parent` covers the rest.

Start-up cost: the warm `safehold run` client (`safehold.cli._run_client`) imports this module
in a fresh interpreter, so it imports only modules the interpreter has loaded anyway, plus
`select`. bwrap is started with `os.posix_spawn` (not `subprocess`), the loop is
`select.poll` (not `selectors`), and bwrap's status lines are read with the C scanner `json`
itself uses (not `json`, whose regexes load `re`). Together those imports cost a fresh
process more than bwrap itself. The spawn keeps `subprocess.Popen`'s contract: stdin from
/dev/null, only the passed fds (and 0-2) reach the child (`close_fds`: bwrap hands every
inherited fd on to the command), SIGPIPE and SIGXFSZ back to their defaults. A process with
a working directory of its own (`sandbox.mode = "none"`) is started by `subprocess`.
"""

from __future__ import annotations

import os
import select
import time

from safehold.adapters.bwrap._limits import Cgroup, SandboxGone, process_watchdog

TYPE_CHECKING = False  # not typing's: the warm `safehold run` client imports this module
if TYPE_CHECKING:
    import signal as _signal
    import subprocess
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, Final, TypeVar

    R = TypeVar("R")
else:
    import _signal  # what `signal` wraps, without building its enums

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
_KILL_WAIT: Final = 5.0  # seconds a killed sandbox's pid 1 is given to exit
"""Seconds to wait for the pipes to close after a kill before giving up on them."""
_RESTORED: Final = tuple(
    getattr(_signal, name) for name in ("SIGPIPE", "SIGXFZ", "SIGXFSZ") if hasattr(_signal, name)
)
"""Signals Python ignores and a child gets back at their default (`Popen`'s `restore_signals`)."""
_READ: Final = select.POLLIN | select.POLLPRI


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


class _Scan:
    """What `json.JSONDecoder` hands its C scanner: the defaults of `json.loads`."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


_scanner: list[Callable[[str, int], tuple[Any, int]]] = []


def _json_line(text: str) -> object:
    """`json.loads(text)`, or None where that raises, without importing `json` (whose
    regexes load `re`): the same C scanner, the same whitespace skipped around the value.

    The scanner reports an error through `json.decoder`, which is not loaded here: any
    error it raises means the line is not one JSON value (bwrap writes its status in
    pieces, so a line is often cut short).
    """
    if not _scanner:
        try:
            from _json import make_scanner
        except ImportError:  # an interpreter without the C accelerator
            import json

            _scanner.append(json.JSONDecoder().raw_decode)
        else:
            _scanner.append(make_scanner(_Scan))  # type: ignore[arg-type]
    blank = " \t\n\r"  # what `json.loads` skips around the value
    try:
        value, end = _scanner[0](text, len(text) - len(text.lstrip(blank)))
    except Exception:  # StopIteration, ValueError, RecursionError, SystemError
        return None
    return None if text[end:].strip(blank) else value


def _parse_status(raw: bytes) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for line in raw.decode("utf-8", "replace").splitlines():
        item = _json_line(line)
        if isinstance(item, dict):
            merged.update(item)
    return merged


def _lift(fd: int) -> int:
    """`fd`, or a copy of it numbered above 2 (then `fd` is closed).

    A caller started with stdin, stdout or stderr closed gets those numbers from `os.pipe`:
    the child's standard streams would be put over them.
    """
    held: list[int] = []
    try:
        while fd < 3:
            held.append(fd)
            fd = os.dup(fd)
    finally:
        for low in held:
            if low != fd:
                os.close(low)
    return fd


def _pipe() -> tuple[int, int]:
    """`os.pipe()` with both ends numbered above 2 (close-on-exec, as every new fd)."""
    read, write = os.pipe()
    try:
        read = _lift(read)
    except BaseException:
        os.close(write)
        raise
    try:
        return read, _lift(write)
    except BaseException:
        os.close(read)
        raise


def _close_quietly(fd: int) -> None:
    try:  # noqa: SIM105 (contextlib costs the warm client's start)
        os.close(fd)
    except OSError:
        pass


class _Child:
    """A started process: `subprocess.Popen`'s `pid`, `poll`, `wait` and `kill`, nothing else."""

    __slots__ = ("pid", "popen", "returncode")

    def __init__(self, pid: int, popen: subprocess.Popen[bytes] | None = None) -> None:
        self.pid = pid
        self.popen = popen
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit code (negative: the signal that killed it) once it exited, reaped here."""
        if self.returncode is None:
            if self.popen is not None:
                self.returncode = self.popen.poll()
                return self.returncode
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored): as Popen does
                self.returncode = 0
            else:
                if pid == self.pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float) -> int | None:
        """The exit code, waiting at most `timeout` seconds for it (None: still running)."""
        if self.popen is not None:
            import subprocess  # loaded already: it started this process

            try:
                self.returncode = self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                return None
            return self.returncode
        if self.poll() is not None:
            return self.returncode  # reaped: its pid may be another process's by now
        deadline = time.monotonic() + timeout
        try:
            pidfd = os.pidfd_open(self.pid)  # not reaped yet: still this process
        except OSError:  # no pidfds here: poll as Popen.wait does
            delay = 0.0005
            while self.poll() is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                delay = min(delay * 2, left, 0.05)
                time.sleep(delay)
            return self.returncode
        try:
            ready = select.poll()
            ready.register(pidfd, _READ)
            if not ready.poll(_ms(max(deadline - time.monotonic(), 0.0))):
                return self.poll()
        finally:
            os.close(pidfd)
        while self.poll() is None:  # it exited: reaped at once
            time.sleep(0.0005)
        return self.returncode

    def kill(self) -> None:
        """SIGKILL it unless it is reaped already (its pid may be another process's)."""
        if self.poll() is None:
            try:  # noqa: SIM105 (contextlib costs the warm client's start)
                os.kill(self.pid, _signal.SIGKILL)
            except OSError:
                pass


def _inherited(keep: Sequence[int]) -> list[int] | None:
    """This process's inheritable fds above 2 other than `keep` (None: /proc cannot tell)."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return None
    out = []
    for name in names:
        fd = int(name)
        if fd < 3 or fd in keep:
            continue
        try:
            if os.get_inheritable(fd):
                out.append(fd)
        except OSError:  # the listing's own fd, closed since
            continue
    return out


def _spawn(
    argv: list[str],
    *,
    env: dict[str, str],
    keep: tuple[int, ...],
    stdout: int,
    stderr: int,
    new_session: bool,
    cwd: str | None,
) -> _Child:
    """Start `argv` with stdin from /dev/null, `stdout` and `stderr`, and only `keep`
    (numbered above 2, as the caller's) besides: `subprocess.Popen(close_fds=True,
    pass_fds=keep, restore_signals=True)` without `subprocess`'s import."""
    inherited = None if cwd is not None or "/" not in argv[0] else _inherited(keep)
    if inherited is None:  # a working directory of its own, a PATH search, or no /proc
        import subprocess

        popen = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            env=env,
            pass_fds=keep,
            close_fds=True,  # bwrap hands every inherited fd on to the command
            start_new_session=new_session,
            cwd=cwd,
        )
        return _Child(popen.pid, popen)
    actions: list[tuple[Any, ...]] = [(os.POSIX_SPAWN_CLOSE, fd) for fd in inherited]
    actions += [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_DUP2, stdout, 1),
        (os.POSIX_SPAWN_DUP2, stderr, 2),
    ]
    if keep:
        # dup2 clears close-on-exec on its copy: through a spare number and back, every
        # kept fd reaches bwrap under its own number (the one its argv names), and this
        # process's fds stay close-on-exec (a run in another thread inherits none of them).
        # The spare is the lowest number none of these use: what the child had there was
        # close-on-exec (the inheritable ones are closed above), so nothing is lost.
        used = {stdout, stderr, *keep}
        spare = next(fd for fd in range(3, 4 + len(used)) if fd not in used)
        for fd in keep:
            actions += [(os.POSIX_SPAWN_DUP2, fd, spare), (os.POSIX_SPAWN_DUP2, spare, fd)]
        actions.append((os.POSIX_SPAWN_CLOSE, spare))
    pid = os.posix_spawn(
        argv[0], argv, env, file_actions=actions, setsid=new_session, setsigdef=_RESTORED
    )
    return _Child(pid)


def _start(
    argv: Sequence[str],
    env: Mapping[str, str],
    keep: tuple[int, ...],
    new_session: bool,
    cwd: str | None,
) -> tuple[_Child, int, int]:
    """The started process and the read ends of its stdout and stderr pipes."""
    if any(fd < 3 for fd in keep):
        raise ValueError(f"fds to pass must be numbered above 2, got {keep!r}")
    out_r, out_w = _pipe()
    try:
        err_r, err_w = _pipe()
    except BaseException:
        os.close(out_r)
        os.close(out_w)
        raise
    try:
        child = _spawn(
            list(argv),
            env=dict(env),
            keep=keep,
            stdout=out_w,
            stderr=err_w,
            new_session=new_session,
            cwd=cwd,
        )
    except BaseException:
        os.close(out_r)
        os.close(err_r)
        raise
    finally:
        os.close(out_w)
        os.close(err_w)
    return child, out_r, err_r


def _ms(seconds: float | None) -> int | None:
    """`poll`'s timeout: milliseconds, rounded up (never a busy loop just short of a deadline)."""
    return None if seconds is None else int(-(-seconds * 1000 // 1))


def _children(pid: int) -> list[int]:
    """The children of `pid` (`/proc/PID/task/TID/children`), or none when it is gone."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                found += [int(word) for word in fh.read().split()]
        except (OSError, ValueError):
            continue
    return found


def _kill_child(pid: object, parent: int) -> None:
    """SIGKILL the sandbox's pid 1, but only while it is still bwrap's child (no pid reuse)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 1:
        return
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as fh:
            ppid = next((int(ln.split()[1]) for ln in fh if ln.startswith("PPid:")), -1)
        if ppid == parent:
            _signal.pidfd_send_signal(pidfd, _signal.SIGKILL)
            # Its pid namespace dies with it: the kernel kills the rest and pid 1 exits only
            # once they have. Wait for that exit (readable pidfd), bounded, so nothing of the
            # sandbox is still there when the run returns (bwrap's own exit may come first).
            waiter = select.poll()
            waiter.register(pidfd, select.POLLIN)
            waiter.poll(int(_KILL_WAIT * 1000))
    except (OSError, ValueError):
        pass
    finally:
        os.close(pidfd)


def _kill_tree(proc: _Child, status: bytes, group: bool) -> None:
    _kill_child(_parse_status(status).get("child-pid"), proc.pid)
    # bwrap may not have reported its child yet (a run stopped right after it started), and
    # that child's `--die-with-parent` can miss bwrap's death: it then lives on, reparented.
    # Stop bwrap (a stopped process forks no more), then kill every child it has; only
    # while it is not reaped (its pid may be another process's then).
    if proc.poll() is None:
        try:  # noqa: SIM105 (contextlib costs the warm client's start)
            os.kill(proc.pid, _signal.SIGSTOP)
        except OSError:
            pass
        for child in _children(proc.pid):
            _kill_child(child, proc.pid)
    if group:  # only a process started in its own session: then pgid == pid
        try:  # noqa: SIM105 (contextlib costs the warm client's start)
            os.killpg(proc.pid, _signal.SIGKILL)
        except OSError:
            pass
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

    Takes ownership of `pass_fds` (numbered above 2): they are closed in this process once
    the child has them (the status pipe only reaches EOF when no copy of its write end is
    left open here); no other fd of this process reaches the child.
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
        proc, out_fd, err_fd = _start(argv, env, tuple(pass_fds), new_session, cwd)
    except BaseException:
        if release_fd is not None:
            os.close(release_fd)
        raise
    finally:
        for fd in pass_fds:
            _close_quietly(fd)
    out, err = _Capped(cap), _Capped(cap)
    status = bytearray()
    timed_out = cancelled = killed = False
    stopped: str | None = None
    refused: str | None = None
    next_watch = time.monotonic() + _WATCH_EVERY
    deadline = None if timeout is None else time.monotonic() + timeout
    poller = select.poll()
    pending = release_fd  # the sandbox waits until this is written to (or closed)
    try:
        sinks: dict[int, _Capped | bytearray] = {out_fd: out, err_fd: err}
        if status_fd is not None:
            sinks[status_fd] = status
        for fd in sinks:
            os.set_blocking(fd, False)
            poller.register(fd, _READ)
        if cancel_fd is not None:
            poller.register(cancel_fd, _READ)
        open_fds = set(sinks)
        while open_fds:
            wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            if watchdog is not None and not killed:
                wait = min(wait, _WATCH_EVERY) if wait is not None else _WATCH_EVERY
            events = poller.poll(_ms(wait))
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
            for fd, _ in events:
                if fd == cancel_fd:
                    poller.unregister(fd)
                    if not killed:
                        cancelled = killed = True
                        _kill_tree(proc, bytes(status), new_session)
                        deadline = time.monotonic() + _DRAIN_GRACE
                    continue
                if fd not in open_fds:
                    continue
                try:
                    chunk = os.read(fd, _CHUNK)
                except BlockingIOError:
                    continue
                if not chunk:
                    poller.unregister(fd)
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
                proc, poller, deadline, cancel_fd, bytes(status), new_session
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
        returncode = _reap(proc, bytes(status), new_session)
        os.close(out_fd)
        os.close(err_fd)
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
    seccomp_r, seccomp_w = _pipe()
    try:
        # The program is a few hundred bytes: it fits in the pipe buffer before bwrap starts.
        os.write(seccomp_w, program)
    except BaseException:
        os.close(seccomp_r)
        raise
    finally:
        os.close(seccomp_w)
    fds: list[int] = []
    try:
        fds += _pipe()  # status
        if cgroup is not None:
            fds += _pipe()  # --block-fd: the sandbox waits until it is in its cgroup
    except BaseException:
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


def _admit(admit: Callable[[int, int], None], child: int, proc: _Child, release: int) -> str | None:
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
    try:  # noqa: SIM105 (contextlib costs the warm client's start)
        os.write(release, b"x")
    except OSError:  # bwrap is gone already: its own error tells why
        pass
    return None


def _wait_exit(
    proc: _Child,
    poller: select.poll,
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
        poller.register(pidfd, _READ)
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                _kill_tree(proc, status, group)
                return True, False
            for fd, _ in poller.poll(_ms(left)):
                if fd == pidfd:
                    return False, False
                if fd == cancel_fd:
                    _kill_tree(proc, status, group)
                    return False, True
    finally:
        poller.unregister(pidfd)
        os.close(pidfd)


def _reap(proc: _Child, status: bytes, group: bool) -> int:
    code = proc.wait(_DRAIN_GRACE)
    if code is None:
        _kill_tree(proc, status, group)
        while code is None:
            code = proc.wait(_DRAIN_GRACE)
    return code


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
