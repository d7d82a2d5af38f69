"""A thin ACP agent over `AcpPolicyBridge`, a recording client, and socketpair wiring.

The agent does nothing of its own: each session method hands straight to the bridge, so
the tests exercise the bridge through the SDK's real JSON-RPC connection (0.10.0 through
the newest: keyword calls only, explicit discriminators, no `acp.helpers`).
"""

from __future__ import annotations

import asyncio
import itertools
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import acp
from acp.schema import (
    AgentCapabilities,
    AllowedOutcome,
    ClientCapabilities,
    CloseSessionResponse,
    DeniedOutcome,
    ForkSessionResponse,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestPermissionResponse,
    ResumeSessionResponse,
)

from safehold.adapters.acp.bridge import AcpPolicyBridge
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.decision import Decision

HAS_BOOLEAN_CAPABILITY = hasattr(acp.schema, "ClientSessionCapabilities")


def boolean_capabilities() -> ClientCapabilities:
    """Client capabilities advertising boolean config options (ACP SDK 0.11+)."""
    from acp.schema import (
        BooleanConfigOptionCapabilities,
        ClientSessionCapabilities,
        SessionConfigOptionsCapabilities,
    )

    return ClientCapabilities(
        session=ClientSessionCapabilities(
            config_options=SessionConfigOptionsCapabilities(
                boolean=BooleanConfigOptionCapabilities()
            )
        )
    )


class BridgeAgent:
    """Every session method delegates to the bridge; `prompt` gates one command per line."""

    def __init__(self, bridge: AcpPolicyBridge) -> None:
        self.bridge = bridge
        self.conn: Any = None
        self.decisions: list[Decision] = []
        self._ids = itertools.count(1)

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, **kwargs: Any
    ) -> InitializeResponse:
        self.bridge.set_client_capabilities(client_capabilities)
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(load_session=True),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        sid = f"sess-{next(self._ids)}"
        s = self.bridge.new_session(sid, cwd)
        return NewSessionResponse(session_id=sid, modes=s.modes, config_options=s.config_options)

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> LoadSessionResponse:
        s = self.bridge.load_session(session_id, cwd)
        return LoadSessionResponse(modes=s.modes, config_options=s.config_options)

    async def fork_session(self, session_id: str, cwd: str, **kwargs: Any) -> ForkSessionResponse:
        sid = f"sess-{next(self._ids)}"
        s = self.bridge.fork_session(session_id, sid, cwd)
        return ForkSessionResponse(session_id=sid, modes=s.modes, config_options=s.config_options)

    async def resume_session(
        self, session_id: str, cwd: str, **kwargs: Any
    ) -> ResumeSessionResponse:
        s = self.bridge.resume_session(session_id, cwd)
        return ResumeSessionResponse(modes=s.modes, config_options=s.config_options)

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        self.bridge.close_session(session_id)
        return CloseSessionResponse()

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> Any:
        return await self.bridge.set_session_mode(self.conn, session_id, mode_id)

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> Any:
        return await self.bridge.set_config_option(self.conn, session_id, config_id, value)

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        for block in prompt:
            for line in getattr(block, "text", "").splitlines():
                call = ToolCall(
                    name="bash",
                    arguments={"command": line},
                    kind=ToolKind.EXECUTE,
                    tool_call_id=f"call-{len(self.decisions)}",
                )
                self.decisions.append(await self.bridge.gate_tool_call(self.conn, session_id, call))
        return PromptResponse(stop_reason="end_turn")


@dataclass
class RecordingClient:
    """Records every session/update; answers permission requests with `answer` (an option kind)."""

    answer: str | None = "allow_once"
    updates: list[tuple[str, Any]] = field(default_factory=list)
    permission_requests: list[Any] = field(default_factory=list)
    hold: asyncio.Event | None = None

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append((session_id, tool_call, options))
        if self.hold is not None:
            await self.hold.wait()
        if self.answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        chosen = next(o for o in options if o.kind == self.answer)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen.option_id)
        )

    def of_kind(self, kind: str) -> list[Any]:
        """Every recorded update whose `session_update` is `kind`, in arrival order."""
        return [u for _, u in self.updates if u.session_update == kind]


@asynccontextmanager
async def connected(
    agent: Any, client: Any, *, capabilities: ClientCapabilities | None = None
) -> AsyncIterator[Any]:
    """An initialized client connection to `agent`, over a socketpair in this process."""
    a, b = socket.socketpair()
    agent_reader, agent_writer = await asyncio.open_connection(sock=a)
    client_reader, client_writer = await asyncio.open_connection(sock=b)
    task = asyncio.create_task(
        acp.run_agent(agent, agent_writer, agent_reader, use_unstable_protocol=True)
    )
    conn = acp.connect_to_agent(client, client_writer, client_reader, use_unstable_protocol=True)
    try:
        await conn.initialize(
            protocol_version=acp.PROTOCOL_VERSION,
            client_capabilities=capabilities or ClientCapabilities(),
        )
        yield conn
    finally:
        await conn.close()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        for w in (client_writer, agent_writer):
            w.close()


async def eventually(check: Callable[[], bool], what: str) -> None:
    """Wait (bounded) until `check()` holds: notifications are handled in their own tasks."""
    for _ in range(2000):  # about 10 s: a bound against hangs, not a timing assertion
        if check():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"never happened: {what}")


def options_by_id(options: list[Any]) -> dict[str, Any]:
    """The option list keyed by id."""
    return {o.id: o for o in options}


def current_values(options: list[Any]) -> dict[str, Any]:
    """`{option id: current value}` for a list of config options."""
    return {o.id: o.current_value for o in options}
