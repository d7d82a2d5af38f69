"""A stdio MCP proxy that gates every `tools/call` before the server sees it.

The proxy relays newline-delimited JSON-RPC between an MCP client (on its stdin/stdout) and
the server it started, byte for byte, with these exceptions:

- `tools/call` requests are decided by the `Gate` first. ALLOW forwards the request
  unchanged; DENY answers the client with a tool error carrying the reasons, and the
  server never hears of the call; ASK sends the client an `elicitation/create` request
  (accept → allowed once; decline, cancel, an error, no elicitation support or the time-out
  → denied).
- `tools/list` answers pass through unchanged, and their annotations feed the tool table
  (kinds); a tool called before it was listed makes the proxy list the tools itself.
- `server/discover` (the 2026 per-request era's probe) is answered "method not found", so
  clients fall back to the `initialize` handshake, the era in which a server (the proxy) may
  send the client an elicitation request.
- A line that is not JSON is answered with a parse error and not forwarded: what cannot be
  read cannot be gated.

The proxy imports no MCP SDK: it speaks the wire format, so it works with any client and
server that use stdio.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import logging
from collections.abc import Mapping
from typing import Any, Protocol

from safehold.adapters.mcp._kinds import McpSettings, mcp_tool_table
from safehold.adapters.tool_table import ToolTable
from safehold.errors import value_kind
from safehold.policy.approval import ApprovalOutcome, ApprovalRequest, Gate
from safehold.policy.decision import Decision

__all__ = ["McpProxy"]

_LOG = logging.getLogger("safehold.adapters.mcp")

_ELICIT_ANSWERS = {
    "accept": ApprovalOutcome.ALLOW_ONCE,
    "decline": ApprovalOutcome.REJECT_ONCE,
    "cancel": ApprovalOutcome.CANCELLED,
}
_METHOD_NOT_FOUND = -32601
_PARSE_ERROR = -32700
_INVALID_REQUEST = -32600
_ID_PREFIX = "safehold-proxy-"


class _Writer(Protocol):
    def write(self, data: bytes) -> object: ...

    async def drain(self) -> None: ...


class _Line:
    """One writer shared by concurrent tasks: a message is always written whole."""

    def __init__(self, writer: _Writer) -> None:
        self._writer = writer
        self._lock = asyncio.Lock()
        self.closed = False

    async def send(self, message: Mapping[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        await self.send_raw(data.encode() + b"\n")

    async def send_raw(self, line: bytes) -> None:
        if self.closed:
            return
        async with self._lock:
            try:
                self._writer.write(line if line.endswith(b"\n") else line + b"\n")
                await self._writer.drain()
            except (ConnectionError, RuntimeError, OSError):
                self.closed = True


class McpProxy:
    """Relays one MCP connection, gating tool calls for one safehold session.

    `settings` holds per-tool kinds that override the server's annotations; `timeout` (seconds,
    0 = wait indefinitely) bounds the wait for the person's answer to an elicitation; by
    default the session config's `acp_approval_timeout` applies.
    """

    def __init__(
        self,
        gate: Gate,
        session_id: str,
        *,
        settings: McpSettings | None = None,
        timeout: float | None = None,
    ) -> None:
        self._gate = gate
        self._session_id = session_id
        self._settings = settings or McpSettings()
        self._timeout = timeout
        self._table: ToolTable = mcp_tool_table({}, self._settings)
        self._listed: dict[str, Any] = {}  # tool name → annotations, from tools/list answers
        self._list_stale = True
        self._elicitation = False
        self._ids = itertools.count(1)
        self._list_requests: set[Any] = set()  # ids of the client's tools/list requests
        self._waiting_client: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._waiting_server: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._gating: dict[str, asyncio.Task[None]] = {}
        self._client: _Line | None = None
        self._server: _Line | None = None

    @property
    def table(self) -> ToolTable:
        """The tool table in force: the server's annotations overridden by the config."""
        return self._table

    async def run(
        self,
        client_in: asyncio.StreamReader,
        client_out: _Writer,
        server_in: _Writer,
        server_out: asyncio.StreamReader,
        *,
        close_server: Any = None,
    ) -> None:
        """Relay until the server's output ends (or the client's input ends and the server's
        output then ends). `close_server`, when given, is called when the client leaves."""
        self._client, self._server = _Line(client_out), _Line(server_in)
        from_server = asyncio.ensure_future(self._pump_server(server_out))
        from_client = asyncio.ensure_future(self._pump_client(client_in, close_server))
        try:
            await from_server
        finally:
            from_client.cancel()
            for task in list(self._gating.values()):
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await from_client
            for future in [*self._waiting_client.values(), *self._waiting_server.values()]:
                future.cancel()

    # -- client → server -----------------------------------------------------------------

    async def _pump_client(self, reader: asyncio.StreamReader, close_server: Any) -> None:
        assert self._server is not None
        async for line in _lines(reader):
            await self._from_client(line)
        # The client left: tell the server (its stdin closes) and let it finish.
        if close_server is not None:
            close_server()

    async def _from_client(self, line: bytes) -> None:
        assert self._server is not None and self._client is not None
        if not line.strip():
            return
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            await self._client.send(_error(None, _PARSE_ERROR, "safehold: not valid JSON"))
            return
        if isinstance(message, list):
            # A JSON-RPC batch (protocol 2025-03-26): each element is handled on its own, so
            # no tool call inside a batch slips past the gate.
            for element in message:
                await self._from_client_message(element, None)
            return
        await self._from_client_message(message, line)

    async def _from_client_message(self, message: Any, line: bytes | None) -> None:
        assert self._server is not None and self._client is not None
        if not isinstance(message, dict):
            await self._client.send(
                _error(None, _INVALID_REQUEST, "safehold: not a JSON-RPC object")
            )
            return
        method = message.get("method")
        has_id = "id" in message
        if method is None and has_id:  # a response to a request the server or we sent
            waiter = self._waiting_client.pop(_key(message["id"]), None)
            if waiter is not None:
                if not waiter.done():
                    waiter.set_result(message)
                return
        elif has_id and method == "server/discover":
            await self._client.send(
                _error(
                    message["id"],
                    _METHOD_NOT_FOUND,
                    "safehold mcp-proxy speaks the initialize handshake; use it",
                )
            )
            return
        elif has_id and method == "initialize":
            self._elicitation = _supports_elicitation(message.get("params"))
        elif has_id and method == "tools/list":
            self._list_requests.add(_key(message["id"]))
        elif has_id and method == "tools/call":
            key = _key(message["id"])
            gating = asyncio.ensure_future(self._gate_call(message, line))
            self._gating[key] = gating
            gating.add_done_callback(functools.partial(self._forget, key))
            return
        elif method == "notifications/cancelled":
            params = message.get("params")
            target = params.get("requestId") if isinstance(params, dict) else None
            task = self._gating.get(_key(target))
            if task is not None:
                task.cancel()  # still being decided: it never reaches the server
                return
        await self._forward(message, line)

    def _forget(self, key: str, task: asyncio.Task[None]) -> None:
        if self._gating.get(key) is task:
            del self._gating[key]
        if not task.cancelled() and task.exception() is not None:
            _LOG.error("gating a tool call failed: %r", task.exception())

    async def _forward(self, message: Mapping[str, Any], line: bytes | None) -> None:
        assert self._server is not None
        if line is not None:
            await self._server.send_raw(line)
        else:
            await self._server.send(message)

    # -- gating --------------------------------------------------------------------------

    async def _gate_call(self, message: dict[str, Any], line: bytes | None) -> None:
        assert self._client is not None
        request_id = message["id"]
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        arguments = params.get("arguments") if isinstance(params, dict) else None
        problem = _call_problem(params, name, arguments)
        if problem is not None:
            await self._client.send(_error(request_id, _INVALID_REQUEST, problem))
            return
        assert isinstance(name, str)
        if self._table.match(name) is None and self._list_stale:
            await self._list_tools(params.get("_meta") if isinstance(params, dict) else None)
        call = self._table.to_call(name, arguments or {}, tool_call_id=str(request_id))
        callback = self._elicit if self._elicitation else None
        decision = await self._gate.check(self._session_id, call, callback, timeout=self._timeout)
        if decision.allowed:
            await self._forward(message, line)
        else:
            await self._client.send(_refusal(request_id, name, decision))

    async def _elicit(self, request: ApprovalRequest) -> ApprovalOutcome:
        assert self._client is not None
        call = request.call
        arguments = json.dumps(dict(call.arguments), ensure_ascii=False, indent=1, default=str)
        params = {
            "message": (
                f"safehold: allow the MCP tool `{call.name}` (kind {call.kind.value}) to run "
                f"once?\n{request.decision.explain()}\nArguments:\n{arguments}"
            ),
            "requestedSchema": {"type": "object", "properties": {}},
        }
        reply = await self._request(
            self._client, self._waiting_client, "elicitation/create", params
        )
        result = reply.get("result")
        if not isinstance(result, dict):
            return ApprovalOutcome.FAILED  # an error answer or a malformed one
        return _ELICIT_ANSWERS.get(result.get("action"), ApprovalOutcome.FAILED)  # type: ignore[arg-type]

    async def _request(
        self,
        line: _Line,
        waiting: dict[str, asyncio.Future[dict[str, Any]]],
        method: str,
        params: Mapping[str, Any],
    ) -> dict[str, Any]:
        request_id = f"{_ID_PREFIX}{next(self._ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        waiting[_key(request_id)] = future
        try:
            await line.send(
                {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
            )
            return await future
        except asyncio.CancelledError:
            # Timed out or the call was cancelled: withdraw the question on the wire.
            waiting.pop(_key(request_id), None)
            cancel = {"requestId": request_id, "reason": "safehold: no longer waiting"}
            with contextlib.suppress(Exception):
                await line.send(
                    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}
                )
            raise
        finally:
            waiting.pop(_key(request_id), None)

    async def _list_tools(self, meta: object) -> None:
        """List the server's tools ourselves (a call arrived before the client listed them)."""
        assert self._server is not None
        tools: dict[str, Any] = {}
        cursor: Any = None
        for _ in range(100):  # bounded: a server paging forever is not waited on
            params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
            if isinstance(meta, dict):
                params["_meta"] = {k: v for k, v in meta.items() if k != "progressToken"}
            try:
                reply = await asyncio.wait_for(
                    self._request(self._server, self._waiting_server, "tools/list", params), 10
                )
            except TimeoutError:
                break
            result = reply.get("result")
            if not isinstance(result, dict):
                break
            tools.update(_annotations(result))
            cursor = result.get("nextCursor")
            if not cursor:
                break
        # Listed once per change: a server that does not answer is not asked again for every
        # call (its unknown tools are judged as kind `other`) until it says the list changed.
        self._listed.update(tools)
        self._rebuild(stale=False)

    def _rebuild(self, *, stale: bool) -> None:
        self._table = mcp_tool_table(self._listed, self._settings)
        self._list_stale = stale

    # -- server → client -----------------------------------------------------------------

    async def _pump_server(self, reader: asyncio.StreamReader) -> None:
        assert self._client is not None
        async for line in _lines(reader):
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):
                message = None
            if isinstance(message, dict):
                if "method" not in message and "id" in message:
                    key = _key(message["id"])
                    waiter = self._waiting_server.pop(key, None)
                    if waiter is not None:
                        if not waiter.done():
                            waiter.set_result(message)
                        continue
                    if key in self._list_requests:
                        self._list_requests.discard(key)
                        result = message.get("result")
                        if isinstance(result, dict):
                            self._listed.update(_annotations(result))
                            self._rebuild(stale=False)
                elif message.get("method") == "notifications/tools/list_changed":
                    self._list_stale = True
            await self._client.send_raw(line)


def _call_problem(params: object, name: object, arguments: object) -> str | None:
    """What is wrong with a `tools/call` request's params, naming the field; None if nothing."""
    if not isinstance(params, dict):
        return f"safehold: tools/call `params` must be an object, got {value_kind(params)}"
    if not isinstance(name, str) or not name:
        return f"safehold: tools/call `params.name` must be a non-empty string, got {name!r:.80}"
    if not isinstance(arguments, dict | None):
        kind = value_kind(arguments)
        return f"safehold: tools/call `params.arguments` must be an object, got {kind}"
    return None


async def _lines(reader: asyncio.StreamReader) -> Any:
    while True:
        try:
            line = await reader.readline()
        except (asyncio.LimitOverrunError, ValueError):
            _LOG.error("an MCP message exceeded the proxy's line limit; connection closed")
            return
        if not line:
            return
        yield line


def _key(request_id: object) -> str:
    # JSON-RPC ids are strings or numbers; 1 and "1" are different ids.
    return json.dumps(request_id)


def _supports_elicitation(params: object) -> bool:
    capabilities = params.get("capabilities") if isinstance(params, dict) else None
    elicitation = capabilities.get("elicitation") if isinstance(capabilities, dict) else None
    if not isinstance(elicitation, dict):
        return False
    # {} is form support (2025-06-18); later revisions name the modes.
    return not elicitation or "form" in elicitation


def _annotations(result: Mapping[str, Any]) -> dict[str, Any]:
    tools = result.get("tools")
    if not isinstance(tools, list):
        return {}
    return {
        tool["name"]: tool.get("annotations")
        for tool in tools
        if isinstance(tool, dict) and isinstance(tool.get("name"), str)
    }


def _error(request_id: object, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _refusal(request_id: object, name: str, decision: Decision) -> dict[str, Any]:
    text = f"safehold refused the tool call `{name}`. {decision.explain()}"
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {
            "content": [{"type": "text", "text": text}],
            "isError": True,
            "_meta": {"safehold/decision": decision.to_dict()},
        },
    }
