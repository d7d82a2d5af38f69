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

It serves only `hook <cli> ...` requests (anything else is answered `NO`), and only peers of
the same user in its own mount, user and pid namespaces: never a sandboxed command, even
one that can see the socket.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import signal
import socket
import sys
import time
from collections.abc import Iterator
from typing import Final

from safehold.cli._hook_client import MAX_PAYLOAD, PROTOCOL, plain_hook, server_key

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


def _answer(data: bytes, key: str, stamps: dict[str, tuple[int, int]]) -> tuple[bytes, bool]:
    """The reply to one request, and whether the server must stop."""
    size = int.from_bytes(data[:4], "big")
    fields = data[4 : 4 + size].split(b"\0")
    payload = data[4 + size :]

    def dec(raw: bytes) -> str:
        return raw.decode("utf-8", "surrogateescape")

    if len(fields) < 8 or fields[0] != PROTOCOL or dec(fields[1]) != key:
        return b"KY", False
    seen = len(sys.modules)
    if _changed(stamps):
        return b"ST", True
    cwd = dec(fields[2])
    streams = (dec(fields[3]), dec(fields[4]), dec(fields[5]), dec(fields[6]))
    argc = int(fields[7])
    words = [dec(w) for w in fields[8 : 8 + argc]]
    if not plain_hook(words):
        return b"NO", False  # only `hook <cli> ...`: never `run`, `acp`, `config`...
    env = dict(dec(entry).partition("=")[::2] for entry in fields[8 + argc :] if b"=" in entry)
    try:
        reply = _run(words, cwd, env, payload, streams)
    except Exception:  # the caller then decides in-process, which reports the error itself
        return b"ER", False
    if len(sys.modules) != seen:  # the request imported more: watch those files too
        stamps.update({p: s for p, s in _stamps().items() if p not in stamps})
    return reply, False


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


def _receive(conn: socket.socket) -> bytes | None:
    chunks, total = [], 0
    while chunk := conn.recv(1 << 16):
        chunks.append(chunk)
        total += len(chunk)
        if total > _MAX_REQUEST:
            return None
    return b"".join(chunks)


def serve(path: str, *, idle: float = IDLE_SECONDS) -> int:
    """Serve `path.sock` until idle, replaced or stale; 0 also when another server has it."""
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
    listener.settimeout(_TICK)
    last = time.monotonic()
    held = True
    # SIGTERM (`safehold doctor --stop`, a logout) ends the loop through `finally`, so the
    # socket and the lock file go with the server.
    signal.signal(signal.SIGTERM, _terminate)
    try:
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                try:
                    replaced = os.stat(sock_path).st_ino != inode
                except OSError:
                    replaced = True
                if replaced or time.monotonic() - last > idle:
                    return 0
                continue
            last = time.monotonic()
            with conn:
                conn.settimeout(_TICK)
                stop = False
                try:
                    data = _receive(conn) if _peer_is_me(conn) else None
                    if data is not None:
                        reply, stop = _answer(data, key, stamps)
                        if stop:  # free the socket and the lock for the next server first
                            _close(listener, sock_path, inode)
                            fcntl.flock(lock, fcntl.LOCK_UN)
                            held = False
                        conn.sendall(reply)
                except Exception:  # a bad request, or a caller gone: it decides in-process
                    pass
                if stop:
                    return 0
    finally:
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
