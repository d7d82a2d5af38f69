"""The fast start of `safehold run ...`: the warm hook server plans, this process runs bwrap.

Loading the config models, the policy and the mount planner costs several times Python's
own start, and `safehold run -- true` should cost little more than bwrap itself. So, like a
hook (`safehold.cli._hook_client`), `safehold run` first asks the per-user warm server
(`safehold.cli._hook_server`), which has all of that loaded and its caches warm:

1. The client sends its arguments, working directory and environment (the hook wire
   format, protocol `safehold-run/1`, no payload) and keeps the connection open.
2. The server parses them with the same parser and reads the same config in the caller's
   directory and environment (`run_cmd.setup`), plans the mounts, finds and self-tests bwrap
   (`_runner.prepare_run`), and answers `PL` with bwrap's argv in two halves, the
   environment, the seccomp program and the limits. It runs nothing. A usage or config
   error is answered `OK` with the exit code and the very output the in-process command
   prints.
3. The client puts its own pipes' numbers between the halves (`_process.fd_options`), spawns
   bwrap with the runner's own code (`_process.spawn_sandbox`, the pids cgroup of a root
   caller included), reads the outcome with the runner's own code (`_process.sandbox_result`),
   then sends `D` and the server runs the after-run check of that plan (protected paths the
   command created are moved aside) and answers its findings.

Whenever the server cannot plan it (none running: one is started in the background for the
next call; another safehold's server, or one with other credentials (`run_key`); code
changed on disk; `sandbox.mode = "none"`, which
runs in-process with its warning; any socket error; a reply that does not parse or does not
start with the sandbox's fixed flags), nothing the server said is used and the command runs
in-process exactly as before. So the server changes how fast a run starts, never how it is
confined. `SAFEHOLD_HOOK_SERVER=0` turns it off. A server that stops during the run (its
after-run answer missing) is reported as a failed after-run check, as in-process.

This module imports only the standard library and safehold's light modules (no pydantic,
no config models, no planner): `tests/cli/test_run_server.py` holds it to that.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: this module is on `safehold run`'s start-up path
if TYPE_CHECKING:
    import _socket
    from typing import Protocol

    class _Outcome(Protocol):
        """`CommandResult`, or this module's `RunResult`: what `report` reads."""

        @property
        def exit_code(self) -> int | None: ...
        @property
        def stdout(self) -> bytes: ...
        @property
        def stderr(self) -> bytes: ...
        @property
        def timed_out(self) -> bool: ...
        @property
        def truncated(self) -> bool: ...
        @property
        def sandboxed(self) -> bool: ...
        @property
        def findings(self) -> tuple[str, ...]: ...


__all__ = [
    "BASE_FLAGS",
    "RUN_PROTOCOL",
    "RunResult",
    "WarmPlan",
    "decode_plan",
    "encode_plan",
    "report",
    "run",
    "run_key",
]

RUN_PROTOCOL = b"safehold-run/1"
EXIT_TIMEOUT = 124
BASE_FLAGS = ("--die-with-parent", "--new-session", "--unshare-all", "--unshare-user")
"""What every bwrap argv starts with after the binary (`_argv._base`): a reply without them
is not used."""
_AFTER_TIMEOUT = 600.0  # the after-run check rereads the directories the command changed


def report(result: _Outcome, timeout: float | None) -> int:
    """Print what the command printed, then safehold's warnings; its exit code."""
    sys.stdout.buffer.write(result.stdout)
    sys.stdout.buffer.flush()
    sys.stderr.buffer.write(result.stderr)
    sys.stderr.buffer.flush()
    if not result.sandboxed:
        print("warning: the command ran WITHOUT a sandbox (sandbox.mode = none)", file=sys.stderr)
    if result.truncated:
        print("warning: output was truncated (sandbox.max_output_bytes)", file=sys.stderr)
    for finding in result.findings:
        print(f"warning: {finding}", file=sys.stderr)
    if result.timed_out or result.exit_code is None:
        limit = f" after {timeout:g} s" if timeout else ""
        print(f"error: the command timed out{limit} and was killed", file=sys.stderr)
        return EXIT_TIMEOUT
    return result.exit_code


class RunResult:
    """`CommandResult`'s fields without the dataclass (whose import costs this path)."""

    __slots__ = (
        "duration",
        "exit_code",
        "findings",
        "sandboxed",
        "stderr",
        "stdout",
        "timed_out",
        "truncated",
    )

    def __init__(
        self,
        *,
        exit_code: int | None,
        stdout: bytes,
        stderr: bytes,
        timed_out: bool,
        truncated: bool,
        duration: float,
        sandboxed: bool,
        findings: tuple[str, ...] = (),
    ) -> None:
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr
        self.timed_out = timed_out
        self.truncated = truncated
        self.duration = duration
        self.sandboxed = sandboxed
        self.findings = findings


class WarmPlan:
    """A run planned by the server: bwrap's argv around the fd options, and its limits."""

    __slots__ = (
        "bwrap",
        "cap",
        "env",
        "head",
        "max_processes",
        "program",
        "report_timeout",
        "tail",
        "timeout",
    )

    def __init__(
        self,
        *,
        head: list[str],
        tail: list[str],
        env: dict[str, str],
        program: bytes,
        timeout: float | None,
        cap: int,
        max_processes: int,
        bwrap: str,
        report_timeout: float | None,
    ) -> None:
        self.head = head
        self.tail = tail
        self.env = env
        self.program = program
        self.timeout = timeout
        self.cap = cap
        self.max_processes = max_processes
        self.bwrap = bwrap
        self.report_timeout = report_timeout

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WarmPlan):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    __hash__ = None  # type: ignore[assignment]


def run_key(key: str) -> str:
    """The key a run request carries: the hook key and this process's uid, gids and groups.

    The server plans with its own credentials (which directories it can list, which read
    roots it can enter): it plans only for a caller whose credentials equal its own.
    """
    groups = sorted(os.getgroups())
    return f"{key}\n{(os.getuid(), os.geteuid(), os.getgid(), os.getegid(), groups)!r}"


def _enc(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _dec(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _number(value: float | None) -> bytes:
    return b"" if value is None else repr(float(value)).encode()


def encode_plan(plan: WarmPlan) -> bytes:
    """The `PL` reply's body: NUL-separated fields (argv and environment hold no NUL)."""
    fields = [
        str(len(plan.head)).encode(),
        *(_enc(a) for a in plan.head),
        str(len(plan.tail)).encode(),
        *(_enc(a) for a in plan.tail),
        str(len(plan.env)).encode(),
        *(_enc(f"{k}={v}") for k, v in plan.env.items()),
        plan.program.hex().encode(),
        _number(plan.timeout),
        str(plan.cap).encode(),
        str(plan.max_processes).encode(),
        _enc(plan.bwrap),
        _number(plan.report_timeout),
    ]
    return b"\0".join(fields)


def _seconds(raw: bytes) -> float | None:
    if not raw:
        return None
    value = float(raw)
    if not 0 < value < float("inf"):
        raise ValueError("not a positive number of seconds")
    return value


def _positive(raw: bytes) -> int:
    value = int(raw)
    if value <= 0:
        raise ValueError("not positive")
    return value


def decode_plan(body: bytes) -> WarmPlan | None:
    """The plan in a `PL` reply, or None when it does not parse or is not a sandbox's."""
    try:
        fields = body.split(b"\0")
        at = 0

        def take_list() -> list[str]:
            nonlocal at
            count = int(fields[at])
            if count < 0 or at + 1 + count > len(fields):
                raise ValueError("a list longer than the reply")
            out = [_dec(f) for f in fields[at + 1 : at + 1 + count]]
            at += 1 + count
            return out

        head = take_list()
        tail = take_list()
        entries = take_list()
        if len(fields) - at != 6:
            raise ValueError("wrong number of fields")
        env = {}
        for entry in entries:
            name, eq, value = entry.partition("=")
            if not name or not eq:
                raise ValueError("an environment entry without a name")
            env[name] = value
        program = bytes.fromhex(_dec(fields[at]))
        plan = WarmPlan(
            head=head,
            tail=tail,
            env=env,
            program=program,
            timeout=_seconds(fields[at + 1]),
            cap=_positive(fields[at + 2]),
            max_processes=_positive(fields[at + 3]),
            bwrap=_dec(fields[at + 4]),
            report_timeout=_seconds(fields[at + 5]),
        )
    except (ValueError, IndexError, UnicodeError):
        return None
    sandboxed = (
        os.path.isabs(plan.bwrap)
        and head[:1] == [plan.bwrap]
        and tuple(head[1 : 1 + len(BASE_FLAGS)]) == BASE_FLAGS
        and len(tail) > 3
        and tail[0] == "--chdir"
        and tail[2] == "--"
        and bool(program)
        and len(program) % 8 == 0  # whole `struct sock_filter` instructions
    )
    return plan if sandboxed else None


def _recv_exactly(conn: _socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = conn.recv(min(left, 1 << 16))
        if not chunk:
            raise OSError("the server closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_reply(conn: _socket.socket) -> tuple[bytes, bytes]:
    """One framed reply: status (2 bytes), 4-byte big-endian length, body."""
    head = _recv_exactly(conn, 6)
    return head[:2], _recv_exactly(conn, int.from_bytes(head[2:], "big"))


def _write(stream: object, data: bytes) -> None:
    from safehold.cli._hook_client import _write as write

    write(stream, data)


def run(words: list[str]) -> int | None:
    """`safehold run ...` planned by the warm server; None means "run it in-process"."""
    try:
        return _served(words)
    except KeyboardInterrupt:  # while the server plans: as an interrupted in-process run
        print("error: interrupted", file=sys.stderr)
        return 130


def _served(words: list[str]) -> int | None:
    from safehold.cli import _hook_client as client

    if not client.enabled():
        return None
    key = client.server_key()
    path = client.socket_path(key)
    if path is None:
        return None
    try:
        request = client._request(run_key(key), words, b"", RUN_PROTOCOL)
    except (OSError, UnicodeError):  # no working directory, say
        return None
    try:
        conn = client.connect(path + ".sock")
    except (FileNotFoundError, ConnectionRefusedError):
        client.start_server(path)
        return None
    except OSError:
        return None
    try:
        try:
            conn.sendall(request)
        except OSError:
            return None
        # While the server plans, load what spawning needs (most of this process's start).
        from safehold.adapters.bwrap import _limits, _process  # noqa: F401
        from safehold.cli import guarded  # noqa: F401

        try:
            status, body = read_reply(conn)
        except OSError:
            return None
        if status == b"OK" and len(body) >= 5:
            size = int.from_bytes(body[1:5], "big")
            _write(sys.stdout, body[5 : 5 + size])
            _write(sys.stderr, body[5 + size :])
            return body[0]
        if status == b"ST":
            client.start_server(path)  # the old server stopped before it answered
        plan = decode_plan(body) if status == b"PL" else None
        if plan is None:
            return None
        return _run(conn, plan)
    finally:
        conn.close()


def _run(conn: _socket.socket, plan: WarmPlan) -> int:
    """Spawn the planned sandbox here, with the runner's code; report as `safehold run`."""
    import time

    from safehold.adapters.bwrap._limits import open_cgroup
    from safehold.adapters.bwrap._process import fd_options, sandbox_result, spawn_sandbox
    from safehold.cli import guarded

    def build(seccomp_fd: int, status_fd: int, block_fd: int | None) -> list[str]:
        return [*plan.head, *fd_options(seccomp_fd, status_fd, block_fd), *plan.tail]

    def execute() -> int:
        cgroup = open_cgroup(plan.max_processes)
        started = time.monotonic()
        try:
            raw = spawn_sandbox(
                build,
                program=plan.program,
                env=plan.env,
                timeout=plan.timeout,
                cap=plan.cap,
                cancel_fd=None,
                max_processes=plan.max_processes,
                cgroup=cgroup,
            )
            result = sandbox_result(
                raw,
                bwrap=plan.bwrap,
                duration=time.monotonic() - started,
                cap=plan.cap,
                after=lambda: _after_run(conn),
                make=RunResult,
            )
        finally:
            if cgroup is not None:
                cgroup.close()  # after the after-run check: the sandbox is gone by then
        return report(result, plan.report_timeout)

    return guarded(execute)


def _after_run(conn: _socket.socket) -> tuple[str, ...]:
    """The server's after-run check of this run: its findings (what it logged goes to
    stderr first, as in-process). Without an answer, that failure is the finding."""
    try:
        conn.settimeout(_AFTER_TIMEOUT)
        conn.sendall(b"D")
        status, body = read_reply(conn)
        if status != b"AR" or len(body) < 4:
            raise OSError(f"an answer that is not an after-run report ({status!r})")
        size = int.from_bytes(body[:4], "big")
        logged, found = body[4 : 4 + size], body[4 + size :]
    except OSError as exc:
        return (
            f"the after-run check of the writable roots failed (the warm server did not "
            f"answer: {exc}); protected paths the command created may remain: review the "
            "workspace",
        )
    _write(sys.stderr, logged)
    return tuple(_dec(f) for f in found.split(b"\0")) if found else ()
