"""Who runs the command: every decide-only entry point judges for the host unless told.

`python3 -c 'import os'` is inline code no analysis reads: auto mode allows it only when
safehold's sandbox runs it. Built with the defaults, `evaluate`, `Gate` and `SyncGate`
must ask; told `runner="sandbox"`, they allow, and the ALLOW says it is a confined one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold import (
    ApprovalOutcome,
    Decision,
    Gate,
    SafetyConfig,
    SessionPolicies,
    SyncGate,
    ToolCall,
    ToolKind,
    Verdict,
)
from safehold.audit import MemorySink
from safehold.policy.engine import evaluate

INLINE = ToolCall("bash", {"command": "python3 -c 'import os'"}, ToolKind.EXECUTE)
AUTO = SafetyConfig().with_mode("auto")
SID = "s1"


def codes(decision: Decision) -> list[str]:
    return [r.code for r in decision.reasons]


def test_evaluate_judges_for_the_host_by_default(tmp_path: Path) -> None:
    assert AUTO.sandbox.mode == "bwrap"  # the config names a sandbox; nobody promised it
    host = evaluate(AUTO, INLINE, workspace=str(tmp_path))
    assert host.verdict is Verdict.ASK
    assert not host.confined
    assert evaluate(AUTO, INLINE, workspace=str(tmp_path), runner="host") == host


def test_a_sandbox_allow_that_the_host_would_not_give_is_confined(tmp_path: Path) -> None:
    decision = evaluate(AUTO, INLINE, workspace=str(tmp_path), runner="sandbox")
    assert decision.verdict is Verdict.ALLOW
    assert decision.confined
    [why] = [r for r in decision.reasons if r.code == "allowed-in-sandbox"]
    assert "need approval" in why.message and "inline" in why.message
    assert decision.to_dict()["confined"] is True
    assert "sandbox confines" in decision.explain()


@pytest.mark.parametrize(
    "call",
    [
        ToolCall("bash", {"command": "ls -la"}, ToolKind.EXECUTE),
        ToolCall("read_file", {"path": "notes.txt"}, ToolKind.READ),
    ],
)
def test_an_allow_the_host_gives_too_is_a_plain_allow(tmp_path: Path, call: ToolCall) -> None:
    decision = evaluate(AUTO, call, workspace=str(tmp_path), runner="sandbox")
    assert decision.verdict is Verdict.ALLOW
    assert not decision.confined
    assert "allowed-in-sandbox" not in codes(decision)
    assert decision == evaluate(AUTO, call, workspace=str(tmp_path))


def test_without_a_sandbox_the_sandbox_runner_confines_nothing(tmp_path: Path) -> None:
    bare = AUTO.without_sandbox()
    decision = evaluate(bare, INLINE, workspace=str(tmp_path), runner="sandbox")
    assert decision.verdict is Verdict.ASK and not decision.confined


def test_a_write_to_the_private_tmp_is_confined_and_denied_on_the_host(tmp_path: Path) -> None:
    call = ToolCall("bash", {"command": "echo hi > /tmp/x"}, ToolKind.EXECUTE)
    workspace = str(tmp_path / "ws")
    host = evaluate(AUTO, call, workspace=workspace)
    assert host.verdict is Verdict.DENY
    decision = evaluate(AUTO, call, workspace=workspace, runner="sandbox")
    assert decision.verdict is Verdict.ALLOW and decision.confined
    [why] = [r for r in decision.reasons if r.code == "allowed-in-sandbox"]
    assert "would be denied" in why.message


@pytest.mark.parametrize("runner", ["", "Sandbox", "bwrap", None, 1])
def test_an_unknown_runner_is_denied(tmp_path: Path, runner: object) -> None:
    decision = evaluate(AUTO, INLINE, workspace=str(tmp_path), runner=runner)  # type: ignore[arg-type]
    assert decision.verdict is Verdict.DENY
    assert codes(decision) == ["runner-invalid"]


def _policies(tmp_path: Path) -> SessionPolicies:
    policies = SessionPolicies(AUTO)
    policies.open(SID, str(tmp_path))
    return policies


def test_gate_judges_for_the_host_by_default_and_audits_the_runner(tmp_path: Path) -> None:
    sink = MemorySink()
    gate = Gate(_policies(tmp_path), audit=sink)
    assert gate.runner == "host"
    assert gate.decide(SID, INLINE).verdict is Verdict.ASK
    [entry] = sink.entries
    assert entry["runner"] == "host" and entry["confined"] is False


def test_gate_for_the_sandbox_allows_and_audits_the_confined_allow(tmp_path: Path) -> None:
    sink = MemorySink()
    gate = Gate(_policies(tmp_path), audit=sink, runner="sandbox")
    decision = gate.decide(SID, INLINE)
    assert decision.verdict is Verdict.ALLOW and decision.confined
    [entry] = sink.entries
    assert entry["runner"] == "sandbox" and entry["confined"] is True
    assert "allowed-in-sandbox" in [r["code"] for r in entry["reasons"]]


async def test_gate_check_asks_the_person_only_for_the_host(tmp_path: Path) -> None:
    asked: list[str] = []

    async def person(request: object) -> ApprovalOutcome:
        asked.append("asked")
        return ApprovalOutcome.REJECT_ONCE

    policies = _policies(tmp_path)
    host = await Gate(policies).check(SID, INLINE, person)
    assert host.verdict is Verdict.DENY and asked == ["asked"]
    sandbox = await Gate(policies, runner="sandbox").check(SID, INLINE, person)
    assert sandbox.verdict is Verdict.ALLOW and asked == ["asked"]


def test_with_runner_keeps_the_sessions_and_the_audit_sink(tmp_path: Path) -> None:
    sink = MemorySink()
    host = Gate(_policies(tmp_path), audit=sink)
    assert host.with_runner("host") is host
    sandbox = host.with_runner("sandbox")
    assert sandbox.runner == "sandbox" and sandbox.policies is host.policies
    assert sandbox.decide(SID, INLINE).confined
    assert [e["runner"] for e in sink.entries] == ["sandbox"]


def test_sync_gate_judges_for_the_host_unless_told(tmp_path: Path) -> None:
    policies = _policies(tmp_path)
    with SyncGate(policies) as host:
        assert host.runner == "host"
        assert host.check(SID, INLINE, lambda _r: ApprovalOutcome.REJECT_ONCE).verdict is (
            Verdict.DENY
        )
        assert host.decide(SID, INLINE).verdict is Verdict.ASK
    with SyncGate(policies, runner="sandbox") as sandbox:
        decision = sandbox.check(SID, INLINE, None)
        assert decision.verdict is Verdict.ALLOW and decision.confined


def test_a_gate_and_a_runner_that_disagree_are_refused(tmp_path: Path) -> None:
    sandbox_gate = Gate(_policies(tmp_path), runner="sandbox")
    with pytest.raises(ValueError, match="runner='host' but the gate decides for runner='sandbox'"):
        SyncGate(sandbox_gate)
    assert SyncGate(sandbox_gate, runner="sandbox").gate is sandbox_gate
    with pytest.raises(ValueError, match="runner must be 'host' or 'sandbox'"):
        Gate(_policies(tmp_path), runner="bwrap")  # type: ignore[arg-type]
