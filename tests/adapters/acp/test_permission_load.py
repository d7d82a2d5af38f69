"""Load: 1,000 concurrent permission requests over 100 sessions on one real ACP connection.

The client answers each request at random after a random delay; every final decision must
match the answer given to *that* request (none lost, none crossed), and every "always"
grant must land in its own session and nowhere else.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from safehold import Gate, GrantEffect, SafetyConfig, SessionPolicies, ToolCall, ToolKind, Verdict
from safehold.adapters.acp import make_acp_approval_callback
from safehold.adapters.acp._compat import cancelled_response, selected_response

from .conftest import PermissionClient, TestAgent, acp_pair

pytestmark = pytest.mark.acp

SESSIONS = 100
REQUESTS = 1000
ANSWERS = ("allow-once", "allow-always", "reject-once", "reject-always", "cancelled")
EXPECTED = {
    "allow-once": (Verdict.ALLOW, "approved-once"),
    "allow-always": (Verdict.ALLOW, "approved-always"),
    "reject-once": (Verdict.DENY, "rejected-once"),
    "reject-always": (Verdict.DENY, "rejected-always"),
    "cancelled": (Verdict.DENY, "approval-cancelled"),
}


async def test_thousand_concurrent_requests_are_neither_lost_nor_crossed(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    given: dict[str, tuple[str, str]] = {}  # tool_call_id -> (session, answer)

    async def person(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        choice = rng.choice(ANSWERS)
        given[tool_call.tool_call_id] = (session_id, choice)
        await asyncio.sleep(rng.random() * 0.02)
        return cancelled_response() if choice == "cancelled" else selected_response(choice)

    policies = SessionPolicies(SafetyConfig())
    sessions = [f"sess-{i:03d}" for i in range(SESSIONS)]
    for sid in sessions:
        (tmp_path / sid).mkdir()
        policies.open(sid, str(tmp_path / sid))
    gate = Gate(policies)

    async with acp_pair(TestAgent(), PermissionClient(person)) as pair:
        callbacks = {
            sid: make_acp_approval_callback(pair.agent_conn, sid, timeout=30) for sid in sessions
        }
        calls = []
        for n in range(REQUESTS):
            sid = sessions[n % SESSIONS]
            path = tmp_path / sid / f"file-{n}.txt"
            calls.append(
                (sid, ToolCall("write_file", {"path": str(path)}, ToolKind.EDIT, f"call-{n}"))
            )
        decisions = await asyncio.wait_for(
            asyncio.gather(*(gate.check(sid, call, callbacks[sid]) for sid, call in calls)), 60
        )

    assert len(given) == REQUESTS  # every request reached the person exactly once
    expected_grants: dict[str, dict[str, GrantEffect]] = {sid: {} for sid in sessions}
    for (sid, call), decision in zip(calls, decisions, strict=True):
        asked_in, answer = given[call.tool_call_id or ""]
        assert asked_in == sid
        verdict, code = EXPECTED[answer]
        assert (decision.verdict, decision.reasons[0].code) == (verdict, code), call.tool_call_id
        assert decision.grant_key is not None and call.arguments["path"] in decision.grant_key
        if answer == "allow-always":
            expected_grants[sid][decision.grant_key] = GrantEffect.ALLOW
        elif answer == "reject-always":
            expected_grants[sid][decision.grant_key] = GrantEffect.REJECT
    for sid in sessions:
        assert dict(policies.grants(sid)) == expected_grants[sid]
    assert sum(map(len, expected_grants.values())) > 0


async def test_identical_concurrent_asks_share_one_dialog_per_session(tmp_path: Path) -> None:
    rng = random.Random(7)
    given: dict[str, str] = {}

    async def person(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        assert session_id not in given, "a second dialog for the same session and key"
        given[session_id] = choice = rng.choice(ANSWERS)
        await asyncio.sleep(rng.random() * 0.02)
        return cancelled_response() if choice == "cancelled" else selected_response(choice)

    policies = SessionPolicies(SafetyConfig())
    sessions = [f"sess-{i:03d}" for i in range(SESSIONS)]
    for sid in sessions:
        policies.open(sid, str(tmp_path))
    gate = Gate(policies)
    call = ToolCall("write_file", {"path": str(tmp_path / "same.txt")}, ToolKind.EDIT)
    async with acp_pair(TestAgent(), PermissionClient(person)) as pair:
        callbacks = {sid: make_acp_approval_callback(pair.agent_conn, sid) for sid in sessions}
        jobs = [(sid, gate.check(sid, call, callbacks[sid])) for sid in sessions for _ in range(10)]
        decisions = await asyncio.wait_for(asyncio.gather(*(job for _, job in jobs)), 60)
    assert len(given) == SESSIONS
    for (sid, _), decision in zip(jobs, decisions, strict=True):
        assert (decision.verdict, decision.reasons[0].code) == EXPECTED[given[sid]]
