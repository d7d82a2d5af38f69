"""A real ACP agent↔client pair in one process, joined by a socketpair (SDK 0.10.0 … 1.x).

`acp_pair(agent, client)` runs `acp.run_agent` on one end and `acp.connect_to_agent` on the
other (writer before reader, the SDK's argument order), waits for the agent's `on_connect`,
and yields an `AcpPair` with both connections and every raw JSON-RPC message the client
side saw. `TestAgent` and `PermissionClient` are small but real SDK implementations; pass
your own agent/client objects to reuse the wiring.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import acp
import pytest
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    RequestPermissionResponse,
)

from safehold.adapters.acp._compat import cancelled_response, selected_response

PermissionHandler = Callable[[str, Any, list[Any]], Awaitable[Any]]


class TestAgent:
    """A minimal ACP agent: keeps its connection; `prompt` runs `on_prompt` if one is set."""

    __test__ = False  # not a pytest test class

    def __init__(self) -> None:
        self.conn: Any = None
        self.connected = asyncio.Event()
        self.on_prompt: Callable[[str, list[Any]], Awaitable[None]] | None = None
        self.prompt_tasks: dict[str, asyncio.Task[Any]] = {}
        self.cancelled: list[str] = []
        self._next = 0

    def on_connect(self, conn: Any) -> None:
        self.conn = conn
        self.connected.set()

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="safehold-test-agent", version="0"),
        )

    async def new_session(
        self, cwd: str, mcp_servers: list[Any], **kwargs: Any
    ) -> NewSessionResponse:
        self._next += 1
        return NewSessionResponse(session_id=f"sess-{self._next}")

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        task = asyncio.current_task()
        assert task is not None
        self.prompt_tasks[session_id] = task
        try:
            if self.on_prompt is not None:
                await self.on_prompt(session_id, prompt)
        except asyncio.CancelledError:
            return PromptResponse(stop_reason="cancelled")
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancelled.append(session_id)
        task = self.prompt_tasks.get(session_id)
        if task is not None:
            task.cancel()


class PermissionClient:
    """An ACP client whose `request_permission` runs `handler` (default: allow once)."""

    def __init__(self, handler: PermissionHandler | None = None) -> None:
        self.handler = handler
        self.requests: list[tuple[str, Any, list[Any]]] = []
        self.updates: list[Any] = []
        self.conn: Any = None

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        self.requests.append((session_id, tool_call, options))
        if self.handler is None:
            return selected_response("allow-once")
        return await self.handler(session_id, tool_call, options)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)


class NoPermissionClient:
    """An ACP client that does not implement `request_permission` at all."""

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        pass


def answer_with(option_id: str) -> PermissionHandler:
    """A handler that selects `option_id` at once."""

    async def handler(
        session_id: str, tool_call: Any, options: list[Any]
    ) -> RequestPermissionResponse:
        return selected_response(option_id)

    return handler


def answer_cancelled() -> PermissionHandler:
    """A handler that answers `cancelled`."""

    async def handler(
        session_id: str, tool_call: Any, options: list[Any]
    ) -> RequestPermissionResponse:
        return cancelled_response()

    return handler


@dataclass
class AcpPair:
    """Both ends of one in-process ACP connection."""

    agent: Any
    client: Any
    agent_conn: Any
    client_conn: Any
    agent_task: asyncio.Task[Any]
    client_writer: asyncio.StreamWriter
    agent_writer: asyncio.StreamWriter
    wire: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def close_client_transport(self) -> None:
        """Cut the client's side of the socket, as a crashed editor would."""
        self.client_writer.close()

    def wire_methods(self) -> list[str]:
        """The JSON-RPC methods seen on the wire (client side), in order."""
        return [m["method"] for _, m in self.wire if "method" in m]


@contextlib.asynccontextmanager
async def acp_pair(agent: Any, client: Any) -> AsyncIterator[AcpPair]:
    """Run `agent` and `client` over a socketpair; tear both down on exit."""
    a, b = socket.socketpair()
    # The SDK's stdio default (50 MB): asyncio's 64 KiB would cut off long commands.
    limit = 50 * 1024 * 1024
    agent_reader, agent_writer = await asyncio.open_connection(sock=a, limit=limit)
    client_reader, client_writer = await asyncio.open_connection(sock=b, limit=limit)
    wire: list[tuple[str, dict[str, Any]]] = []

    def observe(event: Any) -> None:
        direction = getattr(event.direction, "value", str(event.direction))
        wire.append((direction, event.message))

    # Writer first, reader second: the SDK's (confusingly named) argument order.
    agent_task = asyncio.create_task(acp.run_agent(agent, agent_writer, agent_reader))
    client_conn = acp.connect_to_agent(client, client_writer, client_reader, observers=[observe])
    connected = getattr(agent, "connected", None)
    if isinstance(connected, asyncio.Event):
        await asyncio.wait_for(connected.wait(), 5)
    pair = AcpPair(
        agent=agent,
        client=client,
        agent_conn=getattr(agent, "conn", None),
        client_conn=client_conn,
        agent_task=agent_task,
        client_writer=client_writer,
        agent_writer=agent_writer,
        wire=wire,
    )
    try:
        yield pair
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client_conn.close(), 2)
        agent_task.cancel()
        await asyncio.gather(agent_task, return_exceptions=True)
        for writer in (client_writer, agent_writer):
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


@pytest.fixture(autouse=True)
def _quiet_sdk_logs(caplog: pytest.LogCaptureFixture) -> None:
    # The SDK logs handler exceptions at ERROR; several tests provoke them on purpose.
    caplog.set_level(logging.CRITICAL, logger="root")
