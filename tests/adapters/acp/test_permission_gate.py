"""The whole round trip over a real ACP connection: prompt → Gate → request_permission → decision."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import acp
import pytest

from safehold import (
    Decision,
    Gate,
    GrantEffect,
    SafetyConfig,
    SessionPolicies,
    ToolCall,
    ToolKind,
    Verdict,
)
from safehold.adapters.acp import make_acp_approval_callback
from safehold.adapters.acp._compat import selected_response, text_block
from safehold.policy.engine import evaluate

from .conftest import (
    AcpPair,
    NoPermissionClient,
    PermissionClient,
    TestAgent,
    acp_pair,
    answer_cancelled,
    answer_with,
)

pytestmark = pytest.mark.acp


class GatedAgent(TestAgent):
    """Each prompt line is a tool call (`edit PATH`, `read PATH` or a shell command) gated by safehold."""

    __test__ = False

    def __init__(self, workspace: Path, timeout: float = 5.0) -> None:
        super().__init__()
        self.policies = SessionPolicies(SafetyConfig())
        self.gate = Gate(self.policies)
        self.workspace = workspace
        self.timeout = timeout
        self.decisions: list[Decision] = []
        self.cancelled_checks = 0
        self.on_prompt = self.run_prompt

    async def new_session(self, cwd: str, mcp_servers: list[Any], **kwargs: Any) -> Any:
        response = await super().new_session(cwd=cwd, mcp_servers=mcp_servers)
        self.policies.open(response.session_id, str(self.workspace))
        return response

    def call_for(self, line: str) -> ToolCall:
        verb, _, rest = line.partition(" ")
        if verb == "edit":
            return ToolCall("write_file", {"path": str(self.workspace / rest)}, ToolKind.EDIT)
        return ToolCall("bash", {"command": line}, ToolKind.EXECUTE)

    async def run_prompt(self, session_id: str, prompt: list[Any]) -> None:
        callback = make_acp_approval_callback(self.conn, session_id, timeout=self.timeout)
        for block in prompt:
            try:
                decision = await self.gate.check(session_id, self.call_for(block.text), callback)
            except asyncio.CancelledError:
                self.cancelled_checks += 1
                raise
            self.decisions.append(decision)


async def start_session(pair: AcpPair) -> str:
    await pair.client_conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
    response = await pair.client_conn.new_session(cwd="/", mcp_servers=[])
    return str(response.session_id)


async def prompt(pair: AcpPair, session_id: str, *lines: str) -> Any:
    return await asyncio.wait_for(
        pair.client_conn.prompt(session_id=session_id, prompt=[text_block(x) for x in lines]), 10
    )


async def run(
    tmp_path: Path, client: Any, *lines: str, wait: float = 5.0
) -> tuple[GatedAgent, Any]:
    agent = GatedAgent(tmp_path, wait)
    async with acp_pair(agent, client) as pair:
        sid = await start_session(pair)
        await prompt(pair, sid, *lines)
    return agent, client


def verdicts(agent: GatedAgent) -> list[Verdict]:
    return [d.verdict for d in agent.decisions]


async def test_allow_once(tmp_path: Path) -> None:
    agent, client = await run(
        tmp_path, PermissionClient(answer_with("allow-once")), "edit a", "edit a"
    )
    assert verdicts(agent) == [Verdict.ALLOW, Verdict.ALLOW]
    assert len(client.requests) == 2


async def test_allow_always_is_not_asked_again_but_another_path_is(tmp_path: Path) -> None:
    client = PermissionClient(answer_with("allow-always"))
    agent = GatedAgent(tmp_path)
    async with acp_pair(agent, client) as pair:
        sid = await start_session(pair)
        await prompt(pair, sid, "edit a")
        await prompt(pair, sid, "edit a")  # a later prompt: the grant lasts the session
        await prompt(pair, sid, "edit b")
    assert verdicts(agent) == [Verdict.ALLOW] * 3
    asked = [tc.title for _, tc, _ in client.requests]
    assert asked == [f"write_file {tmp_path / 'a'}", f"write_file {tmp_path / 'b'}"]
    assert set(agent.policies.grants(sid).values()) == {GrantEffect.ALLOW}


async def test_allow_always_for_a_command_covers_only_that_command(tmp_path: Path) -> None:
    probe = evaluate(
        SafetyConfig(),
        ToolCall("bash", {"command": "make test"}, ToolKind.EXECUTE),
        workspace=str(tmp_path),
    )
    # Without a command grant key "always" could only cover the whole execute tool: fail.
    assert probe.grant_key is not None, "`make test` must have a command grant key"
    client = PermissionClient(answer_with("allow-always"))
    agent, _ = await run(tmp_path, client, "make test", "make test", "make test && make lint")
    assert verdicts(agent) == [Verdict.ALLOW] * 3
    assert [tc.title for _, tc, _ in client.requests] == ["make test", "make test && make lint"]


async def test_reject_once(tmp_path: Path) -> None:
    agent, client = await run(
        tmp_path, PermissionClient(answer_with("reject-once")), "edit a", "edit a"
    )
    assert verdicts(agent) == [Verdict.DENY, Verdict.DENY]
    assert len(client.requests) == 2
    assert agent.decisions[0].reasons[0].code == "rejected-once"


async def test_reject_always_is_remembered(tmp_path: Path) -> None:
    agent, client = await run(
        tmp_path, PermissionClient(answer_with("reject-always")), "edit a", "edit a"
    )
    assert verdicts(agent) == [Verdict.DENY, Verdict.DENY]
    assert len(client.requests) == 1


@pytest.mark.parametrize(
    ("client_factory", "code"),
    [
        (lambda: PermissionClient(answer_cancelled()), "approval-cancelled"),
        (lambda: PermissionClient(answer_with("sudo")), "approval-failed"),
        (lambda: PermissionClient(answer_with("allow_once")), "approval-failed"),
        (lambda: NoPermissionClient(), "approval-failed"),
    ],
    ids=["cancelled", "unoffered-id", "kind-not-id", "no-handler"],
)
async def test_non_answers_deny(tmp_path: Path, client_factory: Any, code: str) -> None:
    agent, _ = await run(tmp_path, client_factory(), "edit a")
    [decision] = agent.decisions
    assert decision.verdict is Verdict.DENY
    assert decision.reasons[0].code == code


async def test_malformed_reply_denies(tmp_path: Path) -> None:
    async def handler(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        return {"outcome": {"outcome": "approved", "optionId": "allow-once"}}

    agent, _ = await run(tmp_path, PermissionClient(handler), "edit a")
    assert verdicts(agent) == [Verdict.DENY]


async def test_client_handler_that_raises_denies(tmp_path: Path) -> None:
    async def handler(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        raise RuntimeError("permission UI crashed")

    agent, _ = await run(tmp_path, PermissionClient(handler), "edit a")
    assert verdicts(agent) == [Verdict.DENY]
    assert agent.decisions[0].reasons[0].code == "approval-failed"


async def test_connection_closing_mid_request_denies(tmp_path: Path) -> None:
    holder: dict[str, AcpPair] = {}

    async def handler(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        holder["pair"].close_client_transport()
        await asyncio.Event().wait()

    policies = SessionPolicies(SafetyConfig())
    policies.open("s", str(tmp_path))
    async with acp_pair(TestAgent(), PermissionClient(handler)) as pair:
        holder["pair"] = pair
        callback = make_acp_approval_callback(pair.agent_conn, "s", timeout=10)
        call = ToolCall("write_file", {"path": str(tmp_path / "a")}, ToolKind.EDIT)
        decision = await asyncio.wait_for(Gate(policies).check("s", call, callback), 5)
    assert decision.verdict is Verdict.DENY
    assert decision.reasons[0].code == "approval-failed"


async def test_never_answering_times_out_and_the_late_allow_always_records_nothing(
    tmp_path: Path,
) -> None:
    release = asyncio.Event()

    async def handler(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        await release.wait()
        return selected_response("allow-always")

    agent = GatedAgent(tmp_path, timeout=0.2)
    async with acp_pair(agent, PermissionClient(handler)) as pair:
        sid = await start_session(pair)
        await prompt(pair, sid, "edit a")
        release.set()
        await asyncio.sleep(0.05)
        grants = dict(agent.policies.grants(sid))
    assert verdicts(agent) == [Verdict.DENY]
    assert agent.decisions[0].reasons[0].code == "approval-timed-out"
    assert grants == {}


async def test_conn_none_denies(tmp_path: Path) -> None:
    policies = SessionPolicies(SafetyConfig())
    policies.open("s", str(tmp_path))
    call = ToolCall("write_file", {"path": str(tmp_path / "a")}, ToolKind.EDIT)
    decision = await Gate(policies).check("s", call, make_acp_approval_callback(None, "s"))
    assert decision.verdict is Verdict.DENY
    assert decision.reasons[0].code == "approval-failed"


async def test_a_cancelled_prompt_propagates_the_cancellation(tmp_path: Path) -> None:
    client = PermissionClient()

    async def cancel_the_turn(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        await client.conn.cancel(session_id=session_id)  # the person pressed Stop
        await asyncio.Event().wait()

    client.handler = cancel_the_turn
    agent = GatedAgent(tmp_path)
    async with acp_pair(agent, client) as pair:
        sid = await start_session(pair)
        response = await prompt(pair, sid, "edit a")
        grants = dict(agent.policies.grants(sid))
    assert response.stop_reason == "cancelled"
    assert agent.cancelled_checks == 1
    assert agent.decisions == []
    assert grants == {}
