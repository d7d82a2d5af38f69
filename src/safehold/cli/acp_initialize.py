"""Answer ACP `initialize` while the agent is still importing (fast start for `safehold acp`).

Clients such as acpx start a new agent for most commands, and importing the ACP SDK and
the engine takes most of a second. The answer to `initialize` does not depend on either:
it says which protocol version and capabilities the agent has, which are fixed. So the
CLI takes the protocol's copy of stdout first, and a thread reads the first JSON-RPC
message while the main thread imports and builds the agent:

- a well-formed `initialize` request is answered at once with `initialize_result` (a test
  checks it equals what `SafeholdAgent.initialize` returns through the SDK, per version);
  its params are handed to the agent later, so it still learns the client's capabilities;
- anything else (another method, a batch, bad JSON, a line over `MAX_FIRST_LINE` bytes,
  odd params) is not answered here: every byte read is handed to the SDK unchanged, which
  answers it as it always would.

This module imports only the standard library's light parts (no asyncio, no SDK, no policy).
"""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
from typing import Any, Final

__all__ = [
    "MAX_FIRST_LINE",
    "PROTOCOL_VERSION",
    "EarlyInitialize",
    "FirstMessage",
    "initialize_result",
    "start",
    "started",
]

PROTOCOL_VERSION: Final = 1
"""The ACP protocol version the agent speaks (every supported SDK has 1)."""

MAX_FIRST_LINE: Final = 1024 * 1024
"""Past this many bytes without a newline the first message is left to the SDK."""

_SESSION_CAPABILITIES: Final = ("list", "fork", "resume", "close")


def initialize_result(params: dict[str, Any], version: str) -> dict[str, Any]:
    """The `initialize` result of `safehold acp`, as JSON (camelCase wire names)."""
    return {
        "protocolVersion": min(int(params["protocolVersion"]), PROTOCOL_VERSION),
        "agentCapabilities": {
            "loadSession": True,
            "sessionCapabilities": {name: {} for name in _SESSION_CAPABILITIES},
        },
        "agentInfo": {"name": "safehold", "title": "safehold", "version": version},
        "authMethods": [],
    }


class FirstMessage:
    """What the reader thread saw: the bytes it took, and whether it answered them."""

    # A plain class, not a dataclass: `dataclasses` imports `inspect`, a fifth of this
    # module's import time, and this module exists to be fast.
    __slots__ = ("answered", "data", "eof", "params")

    def __init__(self) -> None:
        self.data = b""
        self.eof = False
        self.answered = False
        self.params: dict[str, Any] = {}

    @property
    def unread(self) -> bytes:
        """The bytes the SDK must still read (after the answered line, or all of them)."""
        if not self.answered:
            return self.data
        return self.data[self.data.index(b"\n") + 1 :]


class EarlyInitialize:
    """Owns the protocol's stdout descriptor and the thread that answers `initialize`."""

    def __init__(self, protocol_fd: int, stdin_fd: int, version: str) -> None:
        self.protocol_fd = protocol_fd
        self._stdin_fd = stdin_fd
        self._version = version
        self._result = FirstMessage()
        self._thread = threading.Thread(target=self._run, name="safehold-acp-init", daemon=True)
        self._thread.start()

    def finish(self) -> FirstMessage:
        """Wait for the reader thread (it stops after one line or at EOF) and return what it saw."""
        self._thread.join()
        return self._result

    def _run(self) -> None:
        out = self._result
        buf = bytearray()
        try:
            while b"\n" not in buf and len(buf) <= MAX_FIRST_LINE:
                chunk = os.read(self._stdin_fd, 65536)
                if not chunk:
                    out.eof = True
                    break
                buf += chunk
        except OSError:
            out.eof = True
        out.data = bytes(buf)
        if b"\n" not in buf:
            return
        reply = self._answer(bytes(buf[: buf.index(b"\n")]))
        if reply is None:
            return
        try:
            _write_all(self.protocol_fd, reply)
        except OSError:
            out.eof = True  # the client is gone; the SDK sees EOF next
            return
        out.answered = True

    def _answer(self, line: bytes) -> bytes | None:
        try:
            message = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            return None
        if not isinstance(message, dict) or set(message) - {"jsonrpc", "id", "method", "params"}:
            return None
        params = message.get("params")
        request_id = message.get("id")
        if (
            message.get("jsonrpc") != "2.0"
            or message.get("method") != "initialize"
            or not isinstance(params, dict)
            or isinstance(request_id, bool)
            or not isinstance(request_id, int | str)
        ):
            return None
        version = params.get("protocolVersion")
        if isinstance(version, bool) or not isinstance(version, int):
            return None
        for key in ("clientCapabilities", "clientInfo"):
            if params.get(key) is not None and not isinstance(params[key], dict):
                return None
        self._result.params = params
        result = initialize_result(params, self._version)
        body = {"jsonrpc": "2.0", "id": request_id, "result": result}
        return json.dumps(body, separators=(",", ":")).encode("utf-8") + b"\n"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


_STARTED: EarlyInitialize | None = None


def start(version: str) -> EarlyInitialize | None:
    """Take stdout for the protocol and start answering `initialize`; None if stdout is no pipe.

    fd 1 is then pointed at stderr, so a stray print cannot corrupt the JSON-RPC stream.
    """
    global _STARTED
    if _STARTED is not None:
        return _STARTED
    try:
        mode = os.fstat(1).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            return None
        sys.stdout.flush()
        protocol_fd = os.dup(1)
        os.set_inheritable(protocol_fd, False)
        os.dup2(2, 1)
    except (OSError, ValueError):
        return None
    sys.stdout = sys.stderr
    _STARTED = EarlyInitialize(protocol_fd, 0, version)
    return _STARTED


def started() -> EarlyInitialize | None:
    """The running early reader, if `start` launched one."""
    return _STARTED
