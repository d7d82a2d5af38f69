"""`AcpPolicyBridge.gate_tool_call`: the approval flow over a real ACP connection."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from safehold.adapters.acp.bridge import AcpPolicyBridge
from safehold.policy.approval import Gate
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.sessions import SessionPolicies
from tests.adapters.acp.bridge_harness import BridgeAgent, RecordingClient, connected

pytestmark = pytest.mark.acp


def edit(path: Path) -> ToolCall:
    return ToolCall(
        name="write_file",
        arguments={"path": str(path), "content": "x"},
        kind=ToolKind.EDIT,
        tool_call_id="call-1",
    )


def codes(decision: Any) -> list[str]:
    return [r.code for r in decision.reasons]


async def _session(conn: Any, tmp_path: Path) -> str:
    resp = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
    return str(resp.session_id)


def make(base: SafetyConfig | None = None) -> tuple[SessionPolicies, BridgeAgent]:
    policies = SessionPolicies(base)
    return policies, BridgeAgent(AcpPolicyBridge(policies))


@pytest.mark.parametrize(
    ("answer", "verdict", "code"),
    [
        ("allow_once", Verdict.ALLOW, "approved-once"),
        ("reject_once", Verdict.DENY, "rejected-once"),
        (None, Verdict.DENY, "approval-cancelled"),
    ],
)
async def test_ask_goes_to_the_client_and_its_answer_decides(
    tmp_path: Path, answer: str | None, verdict: Verdict, code: str
) -> None:
    _, agent = make()
    client = RecordingClient(answer=answer)
    async with connected(agent, client) as conn:
        sid = await _session(conn, tmp_path)
        decision = await agent.bridge.gate_tool_call(agent.conn, sid, edit(tmp_path / "a.txt"))
    assert decision.verdict is verdict
    assert codes(decision)[0] == code
    [(asked_sid, tool_call, options)] = client.permission_requests
    assert asked_sid == sid
    assert str(tmp_path / "a.txt") in tool_call.title
    assert {o.kind for o in options} == {
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    }


async def test_allow_always_is_not_asked_again_in_the_session_nor_its_fork(tmp_path: Path) -> None:
    policies, agent = make()
    client = RecordingClient(answer="allow_always")
    async with connected(agent, client) as conn:
        sid = await _session(conn, tmp_path)
        first = await agent.bridge.gate_tool_call(agent.conn, sid, edit(tmp_path / "a.txt"))
        again = await agent.bridge.gate_tool_call(agent.conn, sid, edit(tmp_path / "a.txt"))
        child = (await conn.fork_session(session_id=sid, cwd=str(tmp_path))).session_id
        in_fork = await agent.bridge.gate_tool_call(agent.conn, child, edit(tmp_path / "a.txt"))
        other = await _session(conn, tmp_path)
        elsewhere = await agent.bridge.gate_tool_call(agent.conn, other, edit(tmp_path / "a.txt"))
    assert [d.verdict for d in (first, again, in_fork, elsewhere)] == [Verdict.ALLOW] * 4
    # Asked for the first call and for the unrelated session only.
    assert [r[0] for r in client.permission_requests] == [sid, other]
    assert first.grant_key in policies.grants(sid)


async def test_timeout_denies_and_a_late_answer_changes_nothing(tmp_path: Path) -> None:
    policies, agent = make(SafetyConfig(acp_approval_timeout=0.2))
    hold = asyncio.Event()
    client = RecordingClient(answer="allow_always", hold=hold)
    async with connected(agent, client) as conn:
        sid = await _session(conn, tmp_path)
        decision = await agent.bridge.gate_tool_call(agent.conn, sid, edit(tmp_path / "a.txt"))
        hold.set()  # the person answers "always allow" too late
        await asyncio.sleep(0.05)
        assert dict(policies.grants(sid)) == {}
    assert decision.verdict is Verdict.DENY
    assert codes(decision)[0] == "approval-timed-out"


async def test_read_only_denies_without_asking_and_auto_allows_without_asking(
    tmp_path: Path,
) -> None:
    _, agent = make()
    client = RecordingClient()
    async with connected(agent, client) as conn:
        sid = await _session(conn, tmp_path)
        await conn.set_session_mode(session_id=sid, mode_id="read-only")
        denied = await agent.bridge.gate_tool_call(agent.conn, sid, edit(tmp_path / "a.txt"))
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        allowed = await agent.bridge.gate_tool_call(agent.conn, sid, edit(tmp_path / "a.txt"))
    assert denied.verdict is Verdict.DENY
    assert allowed.verdict is Verdict.ALLOW
    assert client.permission_requests == []


async def test_unknown_session_denies_without_asking(tmp_path: Path) -> None:
    _, agent = make()
    client = RecordingClient()
    async with connected(agent, client):
        decision = await agent.bridge.gate_tool_call(agent.conn, "nope", edit(tmp_path / "a.txt"))
    assert decision.verdict is Verdict.DENY
    assert codes(decision) == ["unknown-session"]
    assert client.permission_requests == []


async def test_denied_path_is_denied_even_in_auto_without_asking(tmp_path: Path) -> None:
    _, agent = make()
    client = RecordingClient()
    async with connected(agent, client) as conn:
        sid = await _session(conn, tmp_path)
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        decision = await agent.bridge.gate_tool_call(agent.conn, sid, edit(tmp_path / ".env"))
    assert decision.verdict is Verdict.DENY
    assert client.permission_requests == []


def test_a_gate_over_another_store_is_refused() -> None:
    with pytest.raises(ValueError, match="same SessionPolicies"):
        AcpPolicyBridge(SessionPolicies(), gate=Gate(SessionPolicies()))
