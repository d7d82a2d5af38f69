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

After an answered `initialize`, a `session/new` that comes next is answered here too, once
the main thread has loaded the config and offered the answer (`offer_sessions`; the result
is built without the SDK by `safehold.adapters._acp_wire`): the session id is made here and
the agent opens that session (`FirstMessage.session`) before the SDK reads another byte.
When an earlier start with the same inputs left its answer in the cache
(`safehold.cli._acp_session_cache`), that answer is offered before the config loads
(`offer_sessions`); the loaded config's answer then confirms it (`confirm_sessions`):
one not yet sent is replaced, and one sent that differs makes the agent stop.
Only a plain request is taken (an existing absolute `cwd`, a list of MCP servers, and a
client that advertised no session capabilities); anything else goes to the SDK.
`SAFEHOLD_ACP_EARLY_SESSION=0` turns this off.

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
    __slots__ = ("answered", "data", "eof", "params", "session", "taken")

    def __init__(self) -> None:
        self.data = b""
        self.eof = False
        self.answered = False
        self.params: dict[str, Any] = {}
        self.session: tuple[str, str] | None = None  # (session id, cwd) answered here
        self.taken = 0  # bytes of `data` answered here (whole lines)

    @property
    def unread(self) -> bytes:
        """The bytes the SDK must still read (after the answered lines, or all of them)."""
        return self.data[self.taken :]


class EarlyInitialize:
    """Owns the protocol's stdout descriptor and the thread that answers `initialize`."""

    def __init__(self, protocol_fd: int, stdin_fd: int, version: str) -> None:
        self.protocol_fd = protocol_fd
        self._stdin_fd = stdin_fd
        self._version = version
        self._result = FirstMessage()
        self._sessions: dict[str, Any] | None = None
        self._offered = threading.Event()
        self._lock = threading.Lock()
        self._sent: dict[str, Any] | None = None  # the setup an early answer carried
        self._thread = threading.Thread(target=self._run, name="safehold-acp-init", daemon=True)
        self._thread.start()

    def offer_sessions(self, setup: dict[str, Any] | None) -> None:
        """Let the reader answer a `session/new` after `initialize` with `setup` (None: never).

        `setup` is the result's `modes` and `configOptions`; the reader adds the id. One
        remembered from an earlier start is offered before the config has loaded, and
        `confirm_sessions` must then follow with the loaded config's answer.
        """
        with self._lock:
            if not self._offered.is_set():
                self._sessions = setup
                self._offered.set()

    def confirm_sessions(self, setup: dict[str, Any] | None) -> bool:
        """The loaded config's answer (None: no early answer): False when a different one went out.

        A remembered answer not yet sent is replaced by `setup`; one already sent must be
        equal to it, else the client holds a session described by another config.
        """
        with self._lock:
            if self._sent is not None:
                return setup is not None and self._sent == setup
            self._sessions = setup
            self._offered.set()
            return True

    def finish(self) -> FirstMessage:
        """Wait for the reader thread (it stops after its lines or at EOF); what it saw."""
        self.offer_sessions(None)  # never leave the reader waiting for a builder
        self._thread.join()
        return self._result

    def _run(self) -> None:
        out = self._result
        buf = bytearray()
        if not self._read_line(buf, 0):
            return
        line = bytes(buf[: buf.index(b"\n")])
        if not self._send(self._answer(line)):
            return
        out.answered = True
        out.taken = len(line) + 1
        if os.environ.get("SAFEHOLD_ACP_EARLY_SESSION", "1") == "0" or _has_session_caps(
            out.params
        ):
            return
        if not self._read_line(buf, out.taken):
            return
        second = bytes(buf[out.taken : buf.index(b"\n", out.taken)])
        request = _session_new(second)
        if request is None:
            return
        import uuid

        self._offered.wait()
        with self._lock:
            fields = self._sessions
            if fields is None:
                return
            self._sent = fields  # before it goes out: `confirm_sessions` judges what was sent
        request_id, cwd = request
        session_id = uuid.uuid4().hex
        result = {"sessionId": session_id, **fields}
        body = {"jsonrpc": "2.0", "id": request_id, "result": result}
        if self._send(json.dumps(body, separators=(",", ":")).encode("utf-8") + b"\n"):
            out.session = (session_id, cwd)
            out.taken += len(second) + 1

    def _read_line(self, buf: bytearray, start: int) -> bool:
        """Read until `buf` holds a newline at or after `start`; False at EOF or past the cap."""
        out = self._result
        try:
            while b"\n" not in buf[start:] and len(buf) - start <= MAX_FIRST_LINE:
                chunk = os.read(self._stdin_fd, 65536)
                if not chunk:
                    out.eof = True
                    break
                buf += chunk
        except OSError:
            out.eof = True
        out.data = bytes(buf)
        return b"\n" in buf[start:]

    def _send(self, reply: bytes | None) -> bool:
        if reply is None:
            return False
        try:
            _write_all(self.protocol_fd, reply)
        except OSError:
            self._result.eof = True  # the client is gone; the SDK sees EOF next
            return False
        return True

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


def _has_session_caps(params: dict[str, Any]) -> bool:
    # A client that advertised session capabilities (boolean config options, ...) gets the
    # SDK's answer: how each SDK version reads them is the SDK's business.
    caps = params.get("clientCapabilities")
    return isinstance(caps, dict) and caps.get("session") is not None


def _session_new(line: bytes) -> tuple[int | str, str] | None:
    """(id, cwd) of a plain `session/new` request, or None to leave the line to the SDK."""
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(message, dict) or set(message) != {"jsonrpc", "id", "method", "params"}:
        return None
    params = message["params"]
    request_id = message["id"]
    if (
        message["jsonrpc"] != "2.0"
        or message["method"] != "session/new"
        or not isinstance(params, dict)
        or set(params) != {"cwd", "mcpServers"}
        or params["mcpServers"] != []
        or isinstance(request_id, bool)
        or not isinstance(request_id, int | str)
    ):
        return None
    cwd = params["cwd"]
    if not isinstance(cwd, str) or not cwd.startswith("/") or any(ord(c) < 0x20 for c in cwd):
        return None
    try:
        if not os.path.isdir(cwd):
            return None
    except (OSError, ValueError):
        return None
    return request_id, cwd


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
