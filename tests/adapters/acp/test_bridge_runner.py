"""`AcpPolicyBridge` judges for the host unless told the sandbox runs the command.

Over a real ACP connection: an agent that gates with the bridge and runs the command
itself must see `python3 -c 'import os'` asked about in auto mode; told `runner="sandbox"`
(as `safehold acp` is), the bridge allows it without a question, as a confined ALLOW.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold.adapters.acp._compat import text_block
from safehold.adapters.acp.agent import SafeholdAgent
from safehold.adapters.acp.bridge import AcpPolicyBridge
from safehold.policy.approval import Gate
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.sessions import SessionPolicies
from tests.adapters.acp.bridge_harness import BridgeAgent, RecordingClient, connected

pytestmark = pytest.mark.acp

INLINE = "python3 -c 'import os'"


async def _prompt(agent: BridgeAgent, client: RecordingClient, cwd: Path) -> None:
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(cwd), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block(INLINE)])


async def test_the_bridge_asks_for_the_host_by_default(tmp_path: Path) -> None:
    policies = SessionPolicies(SafetyConfig().with_mode("auto"))
    agent = BridgeAgent(AcpPolicyBridge(policies))
    client = RecordingClient(answer="reject_once")
    await _prompt(agent, client, tmp_path)
    [(_sid, tool_call, _options)] = client.permission_requests
    assert tool_call.title == INLINE
    [decision] = agent.decisions
    assert decision.verdict is Verdict.DENY and not decision.confined
    assert [r.code for r in decision.reasons][:1] == ["rejected-once"]


async def test_the_bridge_told_the_sandbox_runs_it_allows_without_asking(tmp_path: Path) -> None:
    policies = SessionPolicies(SafetyConfig().with_mode("auto"))
    agent = BridgeAgent(AcpPolicyBridge(policies, runner="sandbox"))
    client = RecordingClient(answer="reject_once")
    await _prompt(agent, client, tmp_path)
    assert client.permission_requests == []
    [decision] = agent.decisions
    assert decision.verdict is Verdict.ALLOW and decision.confined
    assert "allowed-in-sandbox" in [r.code for r in decision.reasons]


def test_a_bridge_and_its_gate_must_name_the_same_runner() -> None:
    policies = SessionPolicies(SafetyConfig())
    with pytest.raises(ValueError, match="AcpPolicyBridge: runner='host'"):
        AcpPolicyBridge(policies, gate=Gate(policies, runner="sandbox"))
    bridge = AcpPolicyBridge(policies, gate=Gate(policies, runner="sandbox"), runner="sandbox")
    assert bridge.gate.runner == "sandbox"
    assert AcpPolicyBridge(policies).gate.runner == "host"


def test_safehold_acp_declares_the_sandbox() -> None:
    """`safehold acp` runs every command it allows with `run_sandboxed`."""
    agent = SafeholdAgent(SafetyConfig())
    assert agent.bridge.gate.runner == "sandbox"
