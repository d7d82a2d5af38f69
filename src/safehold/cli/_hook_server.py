"""The warm side of `safehold hook ...`: one process per user that keeps the engine loaded.

`python -m safehold.cli._hook_server PATH` serves `PATH.sock` (the wire format is in
`safehold.cli._hook_client`). Each request runs the very command the hook process would
have run in-process (`safehold.cli.run_command`), inside the caller's working directory and
environment, with its stdin, and sends back its exit code, stdout and stderr. Requests are
served one at a time, so the process-wide state a request swaps in (environment, working
directory, standard streams) is never shared.

It stops after `IDLE_SECONDS` without a request, when its socket file is removed or
replaced, and when a safehold module it loaded changed on disk (that request is answered
`ST`, so the caller decides in-process and starts a fresh server). Only one server runs
per socket: it holds an exclusive lock on `PATH.lock` for its lifetime. SIGTERM stops it
cleanly: the socket and the lock file are removed (`safehold doctor --stop` sends it).

It runs only `hook <cli> ...` requests (any other command is answered `NO`). It also
*plans* `safehold run` (protocol `safehold-run/1`, `safehold.cli._run_client`): it reads the
config and plans the mounts in the caller's directory and environment and answers bwrap's
argv, which the caller runs itself; the server never runs the command, and runs the
after-run check of that plan when the caller asks. It serves only peers of the same user in
its own mount, user and pid namespaces: never a sandboxed command, even one that can see the
socket.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import selectors
import signal
import socket
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from safehold.cli._hook_client import MAX_PAYLOAD, PROTOCOL, plain_hook, server_key
from safehold.cli._run_client import RUN_PROTOCOL, WarmPlan, encode_plan, run_key

if TYPE_CHECKING:
    import argparse

    from safehold.adapters.bwrap._runner import PreparedRun

__all__ = ["IDLE_SECONDS", "serve"]

IDLE_SECONDS: Final = 30 * 60
_TICK: Final = 5.0  # how often an idle server looks at its socket file and the clock
_MAX_REQUEST: Final = MAX_PAYLOAD + (4 << 20)  # the payload plus arguments and environment


def _stamps() -> dict[str, tuple[int, int]]:
    """(mtime, size) of every safehold module loaded so far."""
    out = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if name.split(".")[0] == "safehold" and path:
            with contextlib.suppress(OSError):
                st = os.stat(path)
                out[path] = (st.st_mtime_ns, st.st_size)
    return out


def _changed(stamps: dict[str, tuple[int, int]]) -> bool:
    for path, stamp in stamps.items():
        try:
            st = os.stat(path)
        except OSError:
            return True
        if (st.st_mtime_ns, st.st_size) != stamp:
            return True
    return False


def _warm() -> None:
    """Load what a decision needs now, so that the first caller does not pay for it."""
    from safehold.adapters.hooks import claude_code, gemini_cli  # noqa: F401
    from safehold.cli import build_parser
    from safehold.config_discovery import discover_config
    from safehold.policy.engine import evaluate

    build_parser("hook")
    payload = {
        "hook_event_name": "PreToolUse",
        "cwd": "/",
        "tool_name": "Bash",
        "tool_input": {"command": "git status && ls -la src"},
    }
    hook_call = claude_code.parse(payload, env={})
    config, _ = discover_config(project="/nonexistent")
    evaluate(config, hook_call.call, workspace=hook_call.workspace, runner="host")


def _set_environ(env: dict[str, str]) -> None:
    for name in [n for n in os.environ if n not in env]:
        del os.environ[name]
    for name, value in env.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


@contextlib.contextmanager
def _as_caller(
    cwd: str, env: dict[str, str], payload: bytes, streams: tuple[str, ...]
) -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    """Run the body in the caller's directory and environment, with its stdin and encodings."""
    saved_env = dict(os.environ)
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    text_out = io.TextIOWrapper(out, encoding=streams[0], errors=streams[1])
    text_err = io.TextIOWrapper(err, encoding=streams[2], errors=streams[3])
    try:
        os.chdir(cwd)
        _set_environ(env)
        sys.stdin = io.TextIOWrapper(io.BytesIO(payload), encoding="utf-8")
        sys.stdout, sys.stderr = text_out, text_err
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        for text in (text_out, text_err):
            text.flush()
            text.detach()  # or collecting the wrapper would close the buffer
        _set_environ(saved_env)
        os.chdir("/")


def _run(
    words: list[str], cwd: str, env: dict[str, str], payload: bytes, streams: tuple[str, ...]
) -> bytes:
    from safehold.adapters.tables.claude_code import CLAUDE_CODE_TOOLS
    from safehold.adapters.tables.gemini_cli import GEMINI_CLI_TOOLS
    from safehold.cli import run_command

    for table in (CLAUDE_CODE_TOOLS, GEMINI_CLI_TOOLS):
        table.forget_warnings()  # an unknown tool is named on stderr at every call, as in-process
    with _as_caller(cwd, env, payload, streams) as (out, err):
        try:
            code = run_command(words)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        except KeyboardInterrupt:
            code = 130
    stdout = out.getvalue()
    return b"OK" + bytes([code & 0xFF]) + len(stdout).to_bytes(4, "big") + stdout + err.getvalue()


def _dec(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _request_of(
    fields: list[bytes],
) -> tuple[str, tuple[str, str, str, str], list[str], dict[str, str]]:
    """The caller's directory, stream encodings, words and environment from a header."""
    cwd = _dec(fields[2])
    streams = (_dec(fields[3]), _dec(fields[4]), _dec(fields[5]), _dec(fields[6]))
    argc = int(fields[7])
    words = [_dec(w) for w in fields[8 : 8 + argc]]
    env = dict(_dec(entry).partition("=")[::2] for entry in fields[8 + argc :] if b"=" in entry)
    return cwd, streams, words, env


def _answer(data: bytes, key: str, stamps: dict[str, tuple[int, int]]) -> tuple[bytes, bool]:
    """The reply to one request, and whether the server must stop."""
    size = int.from_bytes(data[:4], "big")
    fields = data[4 : 4 + size].split(b"\0")
    payload = data[4 + size :]
    if len(fields) < 8 or fields[0] != PROTOCOL or _dec(fields[1]) != key:
        return b"KY", False
    seen = len(sys.modules)
    if _changed(stamps):
        return b"ST", True
    cwd, streams, words, env = _request_of(fields)
    if not plain_hook(words):
        return b"NO", False  # only `hook <cli> ...`: never `run`, `acp`, `config`...
    try:
        reply = _run(words, cwd, env, payload, streams)
    except Exception:  # the caller then decides in-process, which reports the error itself
        return b"ER", False
    if len(sys.modules) != seen:  # the request imported more: watch those files too
        stamps.update({p: s for p, s in _stamps().items() if p not in stamps})
    return reply, False


def _framed(status: bytes, body: bytes = b"") -> bytes:
    return status + len(body).to_bytes(4, "big") + body


@dataclass(frozen=True, slots=True)
class _Pending:
    """A run planned for a client that is running it: its after-run check is still due."""

    prepared: PreparedRun
    cwd: str
    env: dict[str, str]
    streams: tuple[str, str, str, str]


def _answer_run(
    fields: list[bytes], key: str, stamps: dict[str, tuple[int, int]]
) -> tuple[bytes, _Pending | None, bool]:
    """The reply to a `safehold run` request (`_run_client`), the run now pending (its
    after-run check due), and whether the server must stop.

    It only plans: nothing the client asks is run here. `FB` (run it in-process) for what
    the warm path does not cover: `sandbox.mode = "none"`, output while planning.
    """
    if len(fields) < 8 or _dec(fields[1]) != run_key(key):
        return _framed(b"KY"), None, False
    seen = len(sys.modules)
    if _changed(stamps):
        return _framed(b"ST"), None, True
    cwd, streams, words, env = _request_of(fields)
    if words[:1] != ["run"]:
        return _framed(b"NO"), None, False
    try:
        reply, pending = _plan_run(words, cwd, env, streams)
    except Exception:  # the caller then runs in-process, which reports the error itself
        return _framed(b"ER"), None, False
    if len(sys.modules) != seen:
        stamps.update({p: s for p, s in _stamps().items() if p not in stamps})
    return reply, pending, False


def _plan_run(
    words: list[str], cwd: str, env: dict[str, str], streams: tuple[str, str, str, str]
) -> tuple[bytes, _Pending | None]:
    from safehold.adapters.bwrap._runner import prepare_run
    from safehold.cli import run_cmd, run_command

    held: list[tuple[PreparedRun | None, float | None]] = []

    def plan(args: argparse.Namespace) -> int:
        ready = run_cmd.setup(args)
        if isinstance(ready, int):
            return ready  # a usage error, already printed
        prepared = prepare_run(
            ready.command, cwd=ready.cwd, config=ready.config, timeout=ready.timeout
        )
        held.append((prepared, ready.timeout))
        return 0

    with _as_caller(cwd, env, b"", streams) as (out, err):
        try:
            code = run_command(words, handler=plan)
        except SystemExit as exc:  # argparse's usage errors and --help
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    stdout, stderr = out.getvalue(), err.getvalue()
    if not held:  # it ends here, as in-process: a usage or config error, or --help
        body = bytes([code & 0xFF]) + len(stdout).to_bytes(4, "big") + stdout + stderr
        return _framed(b"OK", body), None
    prepared, timeout = held[0]
    if prepared is None or stdout or stderr:
        return _framed(b"FB"), None
    plan_ = WarmPlan(
        head=prepared.head,
        tail=prepared.tail,
        env=prepared.env,
        program=prepared.program,
        timeout=prepared.timeout,
        cap=prepared.cap,
        max_processes=prepared.max_processes,
        bwrap=prepared.bwrap,
        report_timeout=timeout,
    )
    return _framed(b"PL", encode_plan(plan_)), _Pending(prepared, cwd, env, streams)


def _after_run(pending: _Pending) -> bytes:
    """The `AR` reply: what the check logged, then its findings (it never raises)."""
    try:
        with _as_caller(pending.cwd, pending.env, b"", pending.streams) as (_out, err):
            findings = pending.prepared.after_run()
        logged = err.getvalue()
    except Exception as exc:  # the caller's directory is gone, say
        logged = b""
        findings = (
            f"the after-run check of the writable roots failed ({type(exc).__name__}: {exc}); "
            "protected paths the command created may remain: review the workspace",
        )
    body = b"\0".join(f.encode("utf-8", "surrogateescape") for f in findings)
    return _framed(b"AR", len(logged).to_bytes(4, "big") + logged + body)


_SO_PEERPIDFD: Final = 77
"""linux/socket.h (Linux 6.5): a pidfd of the peer, which cannot name a reused pid."""
_NAMESPACES: Final = ("mnt", "user", "pid")


def _namespaces(pid: int | str) -> tuple[tuple[int, int], ...]:
    return tuple(
        (st.st_dev, st.st_ino) for st in (os.stat(f"/proc/{pid}/ns/{ns}") for ns in _NAMESPACES)
    )


def _pidfd_pid(pidfd: int) -> int | None:
    with open(f"/proc/self/fdinfo/{pidfd}", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("Pid:"):
                return int(line.split()[1])
    return None


def _peer_is_me(conn: socket.socket) -> bool:
    """The peer runs as this user, in this server's mount, user and pid namespaces.

    A process inside a sandbox (its own namespaces) is refused even when the socket is in
    its view: the server decides outside any sandbox. Anything unreadable refuses.
    """
    if not hasattr(socket, "SO_PEERCRED"):
        return True  # the socket's folder is private (mode 0700) on every platform
    try:
        cred = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
        if int.from_bytes(cred[4:8], sys.byteorder) != os.getuid():
            return False
        pidfd: int | None = None
        with contextlib.suppress(OSError):
            pidfd = conn.getsockopt(socket.SOL_SOCKET, _SO_PEERPIDFD)
        try:
            pid = int.from_bytes(cred[0:4], sys.byteorder) if pidfd is None else _pidfd_pid(pidfd)
            if pid is None or pid <= 0 or _namespaces(pid) != _namespaces("self"):
                return False
            if pidfd is not None:
                signal.pidfd_send_signal(pidfd, 0)  # still that process: its pid not reused
        finally:
            if pidfd is not None:
                os.close(pidfd)
    except (OSError, ValueError):
        return False
    return True


def _recv_upto(conn: socket.socket, size: int) -> bytes:
    """`size` bytes, or fewer when the caller ends its request before."""
    chunks, left = [], size
    while left:
        chunk = conn.recv(min(left, 1 << 16))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _receive(conn: socket.socket) -> tuple[bytes, bool] | None:
    """One request, and whether it is a `run` (whose client keeps the connection open:
    its header alone is read); None for one too long.

    Anything else is read to its end (a hook request: header, then its payload until EOF),
    and what does not parse is answered by `_answer` like any foreign request.
    """
    data = _recv_upto(conn, 4)
    if len(data) == 4 and int.from_bytes(data, "big") <= _MAX_REQUEST:
        header = _recv_upto(conn, int.from_bytes(data, "big"))
        data += header
        if header.split(b"\0", 1)[0] == RUN_PROTOCOL:
            return data, True
    chunks, total = [data], len(data)
    while chunk := conn.recv(1 << 16):
        chunks.append(chunk)
        total += len(chunk)
        if total > _MAX_REQUEST:
            return None
    return b"".join(chunks), False


def _serve_one(
    conn: socket.socket, key: str, stamps: dict[str, tuple[int, int]]
) -> tuple[_Pending | None, bool]:
    """Answer one new connection; the run it leaves pending, and whether to stop."""
    conn.settimeout(_TICK)
    if not _peer_is_me(conn):
        return None, False
    received = _receive(conn)
    if received is None:
        return None, False
    data, is_run = received
    if not is_run:
        reply, stop = _answer(data, key, stamps)
        conn.sendall(reply)
        return None, stop
    fields = data[4:].split(b"\0")
    reply, pending, stop = _answer_run(fields, key, stamps)
    conn.sendall(reply)
    return pending, stop


def _finish(conn: socket.socket, pending: _Pending) -> None:
    """The client of a pending run wrote: `D` asks for the after-run check. Anything else,
    or nothing (it is gone), ends the run without one, as an interrupted run in-process."""
    conn.settimeout(_TICK)
    if conn.recv(1) == b"D":
        conn.sendall(_after_run(pending))


def serve(path: str, *, idle: float = IDLE_SECONDS) -> int:
    """Serve `path.sock` until idle, replaced or stale; 0 also when another server has it.

    A run's client keeps its connection while its command runs: those connections wait in
    the same loop (the server neither idles out nor stops while one is pending, and answers
    other requests meanwhile).
    """
    lock = open(path + ".lock", "a+")  # noqa: SIM115 (held for the process's lifetime)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another server is starting or running
    lock.truncate(0)
    lock.write(f"{os.getpid()}\n")
    lock.flush()
    key = server_key()
    sock_path = path + ".sock"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(sock_path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        listener.bind(sock_path)
    finally:
        os.umask(old_umask)
    inode = os.stat(sock_path).st_ino
    listener.listen(64)  # callers wait in the backlog while the engine loads
    os.chdir("/")
    with contextlib.suppress(Exception):  # a broken config, say: each request reports it
        _warm()
    stamps = _stamps()
    last = time.monotonic()
    held = listening = True
    pending: dict[socket.socket, _Pending] = {}
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    # SIGTERM (`safehold doctor --stop`, a logout) ends the loop through `finally`, so the
    # socket and the lock file go with the server.
    signal.signal(signal.SIGTERM, _terminate)
    try:
        while listening or pending:
            events = sel.select(_TICK)
            if not events:
                if not listening:
                    continue
                try:
                    replaced = os.stat(sock_path).st_ino != inode
                except OSError:
                    replaced = True
                if replaced or (not pending and time.monotonic() - last > idle):
                    if not pending:
                        return 0
                    sel.unregister(listener)
                    _close(listener, sock_path, inode)
                    listening = False
                continue
            last = time.monotonic()
            for item, _ in events:
                sock = item.fileobj
                assert isinstance(sock, socket.socket)
                if sock is listener:
                    if not listening:
                        continue
                    try:
                        conn, _ = listener.accept()
                    except OSError:
                        continue
                    run: _Pending | None = None
                    stop = False
                    try:
                        run, stop = _serve_one(conn, key, stamps)
                    except Exception:  # a bad request, or a caller gone: it runs in-process
                        run = None
                    if run is not None:
                        pending[conn] = run
                        sel.register(conn, selectors.EVENT_READ)
                    else:
                        conn.close()
                    if stop:  # free the socket and the lock for the next server
                        sel.unregister(listener)
                        _close(listener, sock_path, inode)
                        fcntl.flock(lock, fcntl.LOCK_UN)
                        held = listening = False
                else:
                    sel.unregister(sock)
                    done = pending.pop(sock)
                    with contextlib.suppress(Exception), sock:
                        _finish(sock, done)
        return 0
    finally:
        for conn in pending:
            conn.close()
        sel.close()
        if listening:
            _close(listener, sock_path, inode)
        if held:
            with contextlib.suppress(OSError):
                os.unlink(path + ".lock")


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _close(listener: socket.socket, sock_path: str, inode: int) -> None:
    """Stop listening, and remove the socket file if it is still ours."""
    with contextlib.suppress(OSError):
        if os.stat(sock_path).st_ino == inode:
            os.unlink(sock_path)
    listener.close()


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1]))
