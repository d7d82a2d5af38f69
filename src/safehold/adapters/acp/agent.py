"""The reference ACP agent behind `safehold acp`: every prompt line is a shell command.

Each command becomes a `tool_call` (pending), goes through the policy (asking the person
with `session/request_permission` when the verdict is ASK), runs in the bubblewrap sandbox,
and ends as a `tool_call_update` (completed or failed, with the output or the reasons it was
denied). It uses only safehold's public API, so it doubles as an example of wiring
`AcpPolicyBridge` into an agent. It never writes to stdout (the protocol channel).
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from dataclasses import dataclass
from typing import Any

import acp
from acp import RequestError
from acp.schema import (
    AgentCapabilities,
    AgentMessageChunk,
    CloseSessionResponse,
    ContentToolCallContent,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    TextContentBlock,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
)
from acp.schema import SessionInfo as AcpSessionInfo

from safehold import (
    Gate,
    Mode,
    PolicyError,
    SafetyConfig,
    SandboxError,
    SessionPolicies,
    ToolCall,
    ToolKind,
)
from safehold.adapters.acp import AcpPolicyBridge, visible_text
from safehold.adapters.acp._agent_text import (
    command_lines,
    denial_text,
    output_text,
    raw_output,
    summary,
)
from safehold.adapters.acp.bridge import invalid_params
from safehold.adapters.acp.permission import PermissionOptions
from safehold.adapters.bwrap import run_sandboxed
from safehold.audit import sink_from_config
from safehold.policy.approval import GrantStore
from safehold.policy.grants import GRANT_REACHES
from safehold.policy.locations import call_locations
from safehold.session_store import SessionStateDir

__all__ = ["SafeholdAgent", "serve_stdio"]

log = logging.getLogger("safehold.acp.agent")

_HELP = (
    "Send shell commands, one per line. safehold checks each one against the policy, asks "
    "you when it must, and runs it in the sandbox."
)


@dataclass(slots=True)
class _Turn:
    """One prompt turn of a session: cancelled by `session/cancel`, one step at a time."""

    cancelled: bool = False
    step: asyncio.Future[None] | None = None


class SafeholdAgent:
    """An ACP agent that runs each prompt line as a gated, sandboxed shell command."""

    def __init__(
        self,
        config: SafetyConfig | None = None,
        *,
        policies: SessionPolicies | None = None,
        floor: Mode | None = None,
        state: SessionStateDir | None = None,
        grant_store: GrantStore | None = None,
        permission_options: PermissionOptions | None = None,
    ) -> None:
        if policies is None:
            observer = state.record if state is not None else None
            policies = SessionPolicies(config, floor=floor, observer=observer)
        self.policies = policies
        # The config's audit settings decide where every decision is recorded. Every
        # command this agent allows runs through `run_sandboxed`: it decides for the sandbox.
        audit = sink_from_config(self.policies.base.audit)
        # With a grant store, "always allow" is offered for the project and the user too.
        if permission_options is None:
            scopes = GRANT_REACHES if grant_store is not None else ("session",)
            permission_options = PermissionOptions(scopes=scopes)
        self.bridge = AcpPolicyBridge(
            self.policies,
            gate=Gate(self.policies, audit=audit, runner="sandbox", grant_store=grant_store),
            saved_state=state.load if state is not None else None,
            runner="sandbox",
            permission_options=permission_options,
        )
        self.conn: Any = None
        self._turns: dict[str, _Turn] = {}
        self._titles: dict[str, str] = {}
        self._calls = 0
        # Tool-call ids are unique across processes: a session saved with --state-dir and
        # continued by another process never holds two different `call-1`.
        self._call_prefix = uuid.uuid4().hex[:12]

    def on_connect(self, conn: Any) -> None:
        """Keep the connection to the client (for updates and permission requests)."""
        self.conn = conn

    # -- setup ---------------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        """Advertise load, and list / fork / resume / close where this SDK has them."""
        from safehold import __version__

        self.bridge.set_client_capabilities(client_capabilities)
        session_caps = _session_capabilities()
        return InitializeResponse(
            protocol_version=min(int(protocol_version), acp.PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True, session_capabilities=session_caps
            ),
            agent_info=Implementation(name="safehold", title="safehold", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        """No authentication: the agent runs as the local user."""
        return None

    # -- sessions ------------------------------------------------------------------------

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        """Open a session in `cwd` (its workspace) at the configured defaults."""
        _require_directory(cwd)
        session_id = uuid.uuid4().hex
        setup = self.bridge.new_session(session_id, cwd)
        return NewSessionResponse(
            session_id=session_id, modes=setup.modes, config_options=setup.config_options
        )

    def adopt_session(self, session_id: str, cwd: str) -> None:
        """Open a session whose `session/new` was answered before the SDK was up.

        `safehold acp`'s early reader made the id and answered with the modes and options
        of a new session at the base config (`safehold.adapters._acp_wire`).
        """
        self.bridge.new_session(session_id, cwd)

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> LoadSessionResponse:
        """Continue a session with its mode and grants (saved ones after a restart); else -32002."""
        _require_directory(cwd)
        setup = self.bridge.load_session(session_id, cwd)
        return LoadSessionResponse(modes=setup.modes, config_options=setup.config_options)

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """Every open session (optionally only those in `cwd`) with its working directory."""
        rows = [
            AcpSessionInfo(session_id=s.session_id, cwd=s.cwd, title=self._titles.get(s.session_id))
            for s in self.policies.sessions()
            if cwd is None or s.cwd == cwd
        ]
        return ListSessionsResponse(sessions=rows)

    async def fork_session(self, session_id: str, cwd: str, **kwargs: Any) -> ForkSessionResponse:
        """A new session that starts with the parent's mode, toggles and grants."""
        _require_directory(cwd)
        new_id = uuid.uuid4().hex
        setup = self.bridge.fork_session(session_id, new_id, cwd)
        if session_id in self._titles:
            self._titles[new_id] = self._titles[session_id]
        return ForkSessionResponse(
            session_id=new_id, modes=setup.modes, config_options=setup.config_options
        )

    async def resume_session(
        self, session_id: str, cwd: str, **kwargs: Any
    ) -> ResumeSessionResponse:
        """Continue a session as it is (or as saved before a restart); else -32002."""
        _require_directory(cwd)
        setup = self.bridge.resume_session(session_id, cwd)
        return ResumeSessionResponse(modes=setup.modes, config_options=setup.config_options)

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        """Stop the session's turn and forget everything about it."""
        self.bridge.close_session(session_id)  # unknown session: invalid params
        await self.cancel(session_id)
        self._titles.pop(session_id, None)
        return CloseSessionResponse()

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> Any:
        """`session/set_mode`: all three safety flags at once."""
        return await self.bridge.set_session_mode(self.conn, session_id, mode_id)

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> Any:
        """`session/set_config_option`: one flag (or the mode); returns every option."""
        return await self.bridge.set_config_option(self.conn, session_id, config_id, value)

    # -- prompt turns --------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        """Run the prompt's lines as commands, one after another, until done or cancelled."""
        if not isinstance(session_id, str) or not self.policies.is_open(session_id):
            raise _invalid_params(f"unknown session `{session_id}`", sessionId=session_id)
        if session_id in self._turns:
            # ACP allows one turn per session at a time; a second would race the first.
            raise RequestError(
                -32600, "Invalid request: a prompt is already running in this session", None
            )
        lines = command_lines(prompt)
        if not lines:
            await self._say(session_id, _HELP)
            return PromptResponse(stop_reason="end_turn")
        self._titles.setdefault(session_id, visible_text(lines[0]))
        turn = self._turns[session_id] = _Turn()
        outcomes: list[str] = []
        try:
            for line in lines:
                if turn.cancelled:
                    break
                self._calls += 1
                call_id = f"call-{self._call_prefix}-{self._calls}"
                step = asyncio.ensure_future(self._run_line(session_id, call_id, line, outcomes))
                turn.step = step
                try:
                    await step
                except asyncio.CancelledError:
                    task = asyncio.current_task()
                    if not turn.cancelled or (task is not None and task.cancelling()):
                        raise
                    outcomes.append("cancelled")
                    await self._finish(session_id, call_id, "failed", "cancelled by the client")
        finally:
            if self._turns.get(session_id) is turn:
                del self._turns[session_id]
        await self._say(session_id, summary(outcomes))
        return PromptResponse(stop_reason="cancelled" if turn.cancelled else "end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """`session/cancel`: stop the running command or permission wait of the session."""
        turn = self._turns.get(session_id) if isinstance(session_id, str) else None
        if turn is not None:
            turn.cancelled = True
            if turn.step is not None and not turn.step.done():
                turn.step.cancel()

    async def _run_line(
        self, session_id: str, call_id: str, line: str, outcomes: list[str]
    ) -> None:
        call = ToolCall(
            name="bash", arguments={"command": line}, kind=ToolKind.EXECUTE, tool_call_id=call_id
        )
        try:
            where = call_locations(call, self.policies.workspace(session_id))
        except PolicyError:
            where = ()
        await self._send(
            session_id,
            ToolCallStart(
                session_update="tool_call",
                tool_call_id=call_id,
                title=visible_text(line),
                kind="execute",
                status="pending",
                locations=[ToolCallLocation(path=p) for p in where] or None,
                raw_input={"command": line},
            ),
        )
        instance = self._instance(session_id)
        decision = await self.bridge.gate_tool_call(self.conn, session_id, call)
        log.info("session %s: %s -> %s", session_id, line, decision.verdict.value)
        if not decision.allowed:
            outcomes.append("denied")
            await self._finish(
                session_id,
                call_id,
                "failed",
                denial_text(decision),
                raw_output(decision),
            )
            return
        await self._send(
            session_id,
            ToolCallProgress(
                session_update="tool_call_update", tool_call_id=call_id, status="in_progress"
            ),
        )
        try:
            cwd = self.policies.workspace(session_id)
        except PolicyError:
            # Closed while the person was deciding: there is no workspace to run in.
            outcomes.append("denied")
            await self._finish(session_id, call_id, "failed", "not run: the session was closed")
            return
        config = self.policies.config(session_id)
        if self._instance(session_id) != instance:
            # Loaded again (maybe in another cwd) since the call was judged: the decision
            # was about the session as it was, so the command must not run in the new one.
            outcomes.append("denied")
            text = "not run: the session was loaded again while the command was being decided"
            await self._finish(session_id, call_id, "failed", text)
            return
        try:
            result = await run_sandboxed(line, cwd=cwd, config=config, decision=decision)
        except (SandboxError, ValueError, TypeError, OSError) as exc:
            # Fail closed: the command did not run, and never runs outside the sandbox.
            outcomes.append("sandbox error")
            text = f"not run: the sandbox could not run it: {exc}"
            raw = raw_output(decision, error=str(exc))
            await self._finish(session_id, call_id, "failed", text, raw)
            return
        ok = result.exit_code == 0
        outcomes.append("ran" if ok else "failed")
        await self._finish(
            session_id,
            call_id,
            "completed" if ok else "failed",
            output_text(result),
            raw_output(
                decision,
                exit_code=result.exit_code,
                timed_out=result.timed_out,
                truncated=result.truncated,
                sandboxed=result.sandboxed,
                findings=list(result.findings),
            ),
        )

    def _instance(self, session_id: str) -> int | None:
        try:
            return self.policies.generation(session_id)
        except PolicyError:
            return None

    # -- sending -------------------------------------------------------------------------

    async def _finish(
        self,
        session_id: str,
        call_id: str,
        status: str,
        text: str,
        raw_output: Any = None,
    ) -> None:
        await self._send(
            session_id,
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=call_id,
                status=status,  # type: ignore[arg-type]
                content=[
                    ContentToolCallContent(
                        type="content", content=TextContentBlock(type="text", text=text)
                    )
                ],
                raw_output=raw_output,
            ),
        )

    async def _say(self, session_id: str, text: str) -> None:
        await self._send(
            session_id,
            AgentMessageChunk(
                session_update="agent_message_chunk",
                content=TextContentBlock(type="text", text=text),
            ),
        )

    async def _send(self, session_id: str, update: Any) -> None:
        if self.conn is not None:
            await self.conn.session_update(session_id=session_id, update=update)


async def serve_stdio(agent: SafeholdAgent) -> None:
    """Serve `agent` over stdin/stdout until the client closes the connection."""
    runnable: Any = agent  # duck-typed: the SDK's Agent protocol differs by version
    await acp.run_agent(runnable, use_unstable_protocol=True)


def _session_capabilities() -> SessionCapabilities:
    # Each capability object exists only in the SDK versions that route its method.
    fields: dict[str, Any] = {}
    for name in ("list", "fork", "resume", "close"):
        cls = getattr(acp.schema, f"Session{name.capitalize()}Capabilities", None)
        if name in SessionCapabilities.model_fields and cls is not None:
            fields[name] = cls()
    return SessionCapabilities(**fields)


def _require_directory(cwd: object) -> None:
    if not isinstance(cwd, str) or not os.path.isabs(cwd) or not os.path.isdir(cwd):
        raise _invalid_params(f"cwd `{cwd}` must be an existing absolute directory", cwd=str(cwd))


_invalid_params = invalid_params
