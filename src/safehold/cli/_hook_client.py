"""The fast start of `safehold hook ...`: hand the payload to a warm decision server.

A hook is a new process per tool call, and loading the policy engine (pydantic, the config
models, the shell analysis) costs many times Python's own start. So the hook process first
tries a per-user server (`safehold.cli._hook_server`) that has everything loaded: it sends
its arguments, working directory, environment and stdin over a Unix socket and prints what
the server answers, exactly what `safehold hook` would have printed in-process.

Whenever that does not work (no server yet, a server of another safehold, a timeout, any
socket error), the payload goes back on `sys.stdin` and the hook decides in-process as
before; a missing server is started in the background for the next call. So the server
only changes how fast an answer comes, never which answer. `SAFEHOLD_HOOK_SERVER=0` turns
it off.

This module imports only what the interpreter has loaded anyway, plus `_socket` and `zlib`.

Wire format (version `safehold-hook/1`), one request per connection:
request = 4-byte big-endian header length, header, payload (the rest, until EOF); the
header is NUL-separated fields: protocol, key, cwd, stdout encoding, stdout errors, stderr
encoding, stderr errors, argument count, arguments, then `NAME=value` environment entries.
reply = status (2 bytes): `OK` then exit code (1 byte), 4-byte stdout length, stdout,
stderr (the rest); `KY` (a server for another key), `ST` (the server's code changed on
disk; it has stopped), `ER` (it could not run the hook) or `NO` (not a hook request: refused).
"""

from __future__ import annotations

import io
import os
import stat
import sys

TYPE_CHECKING = False  # not typing's: this module is on the hook's start-up path
if TYPE_CHECKING:
    import _socket

__all__ = [
    "MAX_PAYLOAD",
    "PROTOCOL",
    "SERVER_VAR",
    "connect",
    "enabled",
    "plain_hook",
    "run",
    "server_key",
    "socket_path",
    "start_server",
    "warm",
]

MAX_PAYLOAD = 16 * 1024 * 1024
"""Largest payload read from stdin; a larger one is refused (exit 2), not cut short."""

PROTOCOL = b"safehold-hook/1"
SERVER_VAR = "SAFEHOLD_HOOK_SERVER"
"""Set to `0` (or `off`, `no`, `false`) to always decide in-process."""

_FLAVOURS = ("claude-code", "gemini-cli")
_TIMEOUT = 30.0  # a decision takes milliseconds; Claude Code's own hook timeout is 60 s
_RESTART_AFTER = 10.0  # seconds: a server that failed to start is not started at every call


def server_key() -> str:
    """What a server must share with this process to answer for it.

    The interpreter, the safehold package it loads, its version and the user's home (paths
    under `~` are compiled once per home); the rest of the environment travels with each
    request.
    """
    import safehold

    where = os.path.dirname(os.path.abspath(safehold.__file__ or ""))
    home = os.environ.get("HOME", "")
    return repr((sys.executable, where, safehold.__version__, home, os.getuid()))


def socket_path(key: str) -> str | None:
    """The server's socket for `key`, in a directory only this user can enter, or None."""
    import zlib

    from safehold._runtime_dir import hook_folder

    uid = os.getuid()
    folder = hook_folder()
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        st = os.lstat(folder)
    except OSError:
        return None
    # Anybody who can write here could answer for safehold: the folder must be ours alone.
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or st.st_mode & 0o077:
        return None
    path = os.path.join(folder, f"hook-{zlib.crc32(key.encode('utf-8', 'surrogateescape')):08x}")
    return path if len(path.encode()) < 100 else None  # a socket's path fits in 108 bytes


def enabled() -> bool:
    value = os.environ.get(SERVER_VAR, "").strip().lower()
    return value not in ("0", "off", "no", "false") and hasattr(os, "getuid")


def plain_hook(words: list[str]) -> bool:
    """`hook <cli> [--config F | --config=F] [--ask-as-deny | --interactive]`: what the
    server path handles."""
    if len(words) < 2 or words[0] != "hook" or words[1] not in _FLAVOURS:
        return False
    rest = words[2:]
    while rest:
        word = rest.pop(0)
        if word == "--config" and rest and not rest[0].startswith("-"):
            rest.pop(0)
        elif not (word in ("--ask-as-deny", "--interactive") or word.startswith("--config=")):
            return False
    return True


def _request(key: str, words: list[str], payload: bytes, protocol: bytes = PROTOCOL) -> bytes:
    def enc(text: str) -> bytes:
        return text.encode("utf-8", "surrogateescape")

    out, err = sys.stdout, sys.stderr
    fields = [
        protocol,
        enc(key),
        enc(os.getcwd()),
        enc(getattr(out, "encoding", None) or "utf-8"),
        enc(getattr(out, "errors", None) or "strict"),
        enc(getattr(err, "encoding", None) or "utf-8"),
        enc(getattr(err, "errors", None) or "backslashreplace"),
        str(len(words)).encode(),
        *(enc(w) for w in words),
        *(k + b"=" + v for k, v in os.environb.items()),
    ]
    header = b"\0".join(fields)
    return len(header).to_bytes(4, "big") + header + payload


def connect(path: str) -> _socket.socket:
    """A connection to the server's socket, checked to be this user's (`OSError` if not)."""
    # `_socket`, not `socket`: building socket's enums would cost this call a third of
    # Python's own start.
    import _socket

    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(_TIMEOUT)
        conn.connect(path)
        if hasattr(_socket, "SO_PEERCRED"):
            # The folder is ours alone; checking the peer too costs nothing.
            cred = conn.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
            if int.from_bytes(cred[4:8], sys.byteorder) != os.getuid():
                raise OSError("the hook server runs as another user")
    except BaseException:
        conn.close()
        raise
    return conn


def _ask_server(path: str, request: bytes) -> tuple[bytes, bytes]:
    """Send one request; the reply's status and body (`OSError` when there is no answer)."""
    import _socket

    conn = connect(path)
    try:
        conn.sendall(request)
        conn.shutdown(_socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(1 << 16):
            chunks.append(chunk)
    finally:
        conn.close()
    reply = b"".join(chunks)
    return reply[:2], reply[2:]


def start_server(path: str) -> None:
    """Start a server for the next call, detached: this call never waits for it."""
    import subprocess
    import time

    try:
        if time.time() - os.stat(path + ".lock").st_mtime < _RESTART_AFTER:
            return  # one started a moment ago and has no socket: starting, or it failed
    except OSError:
        pass
    try:  # noqa: SIM105 (contextlib is not loaded yet, and this path is about start-up time)
        subprocess.Popen(
            [sys.executable, "-P", "-m", "safehold.cli._hook_server", path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            start_new_session=True,
        )
    except OSError:
        pass


def _write(stream: object, data: bytes) -> None:
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    elif data:
        stream.write(data.decode("utf-8", "replace"))  # type: ignore[attr-defined]


def warm() -> int:
    """`safehold hook warm`: start the server in the background unless its socket is there.

    A CLI runs it as a session starts (`SessionStart`), so that the session's first tool
    call is answered warm. It prints nothing (Claude Code would add stdout to the model's
    context), waits for nothing and always exits 0: a session never waits on it.
    """
    if not enabled():
        return 0
    path = socket_path(server_key())
    if path is not None and not os.path.exists(path + ".sock"):
        start_server(path)  # one server per socket: a second one started exits at once
    return 0


def run(words: list[str]) -> int | None:
    """Answer the hook through the server; None means "decide in-process" (stdin is kept)."""
    if not enabled() or not plain_hook(words):
        return None
    payload = sys.stdin.buffer.read(MAX_PAYLOAD + 1)
    # Whatever happens below, an in-process decision must still see the whole payload.
    sys.stdin = io.TextIOWrapper(io.BytesIO(payload), encoding="utf-8")
    if len(payload) > MAX_PAYLOAD:
        return None  # let the in-process hook refuse it, with its own message
    key = server_key()
    path = socket_path(key)
    if path is None:
        return None
    try:
        request = _request(key, words, payload)
    except (OSError, UnicodeError):  # no working directory, say
        return None
    try:
        status, body = _ask_server(path + ".sock", request)
    except (FileNotFoundError, ConnectionRefusedError):
        start_server(path)
        return None
    except OSError:
        return None
    if status == b"ST":
        start_server(path)  # the old server stopped before it answered
    if status != b"OK" or len(body) < 5:
        return None
    code = body[0]
    size = int.from_bytes(body[1:5], "big")
    _write(sys.stdout, body[5 : 5 + size])
    _write(sys.stderr, body[5 + size :])
    return code
