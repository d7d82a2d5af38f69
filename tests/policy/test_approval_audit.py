"""What the `Gate` writes to its audit sink: one record per decision, secrets redacted."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from safehold import (
    ApprovalOutcome,
    ApprovalRequest,
    AuditConfig,
    Gate,
    SafetyConfig,
    SessionPolicies,
    ToolCall,
    ToolKind,
    Verdict,
)
from safehold.audit import JsonlFileSink, MemorySink

SID = "sess-1"
SECRET = "sk-ant-REALSECRETabcdefghijklmnop"


def answer(outcome: Any, delay: float = 0.0) -> Any:
    async def callback(request: ApprovalRequest) -> Any:
        await asyncio.sleep(delay)
        return outcome

    return callback


def store(ws: Path, **config: Any) -> SessionPolicies:
    policies = SessionPolicies(SafetyConfig(**config))
    policies.open(SID, str(ws))
    return policies


def edit(ws: Path) -> ToolCall:
    return ToolCall("write_file", {"path": str(ws / "a.txt"), "content": "x"}, ToolKind.EDIT, "c1")


class SteppedClock:
    """A monotonic clock that moves only when the test says so (no timing in tests)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


async def test_one_record_per_decision_with_every_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The person takes exactly 1.5 s on the stepped clock: the record's latency is that wait,
    # measured from the question to the answer.
    from safehold.policy import approval as approval_mod

    clock = SteppedClock()
    monkeypatch.setattr(approval_mod, "time", clock)

    async def person_takes_1500_ms(request: ApprovalRequest) -> ApprovalOutcome:
        clock.now += 1.5
        return ApprovalOutcome.ALLOW_ONCE

    sink = MemorySink()
    g = Gate(store(tmp_path), audit=sink)
    await g.check(SID, ToolCall("read_file", {"path": str(tmp_path / "a")}, ToolKind.READ), None)
    await g.check(SID, ToolCall("read_file", {"path": "/etc/shadow"}, ToolKind.READ), None)
    await g.check(SID, edit(tmp_path), person_takes_1500_ms)
    await g.check(SID, edit(tmp_path), None)
    allow, deny, asked, unavailable = sink.entries
    assert (allow["verdict"], allow["asked"], allow["outcome"]) == ("allow", False, None)
    assert (deny["verdict"], deny["asked"]) == ("deny", False)
    assert (asked["verdict"], asked["asked"], asked["outcome"]) == ("allow", True, "allow_once")
    assert asked["latency_ms"] == pytest.approx(1500)
    assert allow["latency_ms"] is None and deny["latency_ms"] is None
    assert asked["reasons"][0]["code"] == "approved-once"
    assert asked["tool"] == "write_file" and asked["kind"] == "edit"
    assert asked["tool_call_id"] == "c1" and asked["session"] == SID
    assert asked["arguments"] == {"path": str(tmp_path / "a.txt"), "content": "x"}
    assert asked["grant_key"] is not None and asked["time"].endswith("Z")
    assert unavailable["verdict"] == "deny"
    assert unavailable["reasons"][0]["code"] == "approval-unavailable"
    assert unavailable["latency_ms"] is None


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [
        (ApprovalOutcome.TIMED_OUT, "timed_out"),
        (ApprovalOutcome.CANCELLED, "cancelled"),
        (ApprovalOutcome.REJECT_ALWAYS, "reject_always"),
    ],
)
async def test_denials_record_the_answer_given(
    tmp_path: Path, outcome: ApprovalOutcome, expected: str
) -> None:
    sink = MemorySink()
    await Gate(store(tmp_path), audit=sink).check(SID, edit(tmp_path), answer(outcome))
    [entry] = sink.entries
    assert (entry["verdict"], entry["outcome"]) == ("deny", expected)


async def test_secrets_are_redacted_but_the_command_is_kept_whole(tmp_path: Path) -> None:
    sink = MemorySink()
    command = f"ANTHROPIC_API_KEY={SECRET} python train.py --epochs 3 && " + "x" * 5000
    call = ToolCall("bash", {"command": command, "env": {"TOKEN": "t0p"}}, ToolKind.EXECUTE)
    await Gate(store(tmp_path), audit=sink).check(SID, call, answer(ApprovalOutcome.ALLOW_ONCE))
    [entry] = sink.entries
    text = json.dumps(entry)
    assert SECRET not in text and "t0p" not in text
    logged = entry["arguments"]["command"]
    assert logged == command.replace(SECRET, "[REDACTED]")
    assert logged.endswith("x" * 5000)  # never truncated
    assert entry["redacted"] is True


async def test_redaction_can_be_turned_off(tmp_path: Path) -> None:
    sink = MemorySink()
    call = ToolCall("bash", {"command": f"echo {SECRET}"}, ToolKind.EXECUTE)
    policies = store(tmp_path, audit=AuditConfig(redact=False))
    await Gate(policies, audit=sink).check(SID, call, answer(ApprovalOutcome.REJECT_ONCE))
    assert sink.entries[0]["arguments"]["command"] == f"echo {SECRET}"
    assert sink.entries[0]["redacted"] is False


class BrokenSink:
    def record(self, entry: Mapping[str, Any]) -> None:
        raise OSError("disk full")


async def test_an_allow_that_cannot_be_audited_is_denied(tmp_path: Path) -> None:
    g = Gate(store(tmp_path), audit=BrokenSink())
    read = ToolCall("read_file", {"path": str(tmp_path / "a")}, ToolKind.READ)
    assert (await g.check(SID, read, None)).verdict is Verdict.DENY
    asked = await g.check(SID, edit(tmp_path), answer(ApprovalOutcome.ALLOW_ONCE))
    assert asked.verdict is Verdict.DENY
    assert asked.reasons[0].code == "audit-failed"
    assert "disk full" in asked.reasons[0].message


async def test_a_deny_stays_a_deny_when_the_sink_fails(tmp_path: Path) -> None:
    g = Gate(store(tmp_path), audit=BrokenSink())
    d = await g.check(SID, ToolCall("read_file", {"path": "/etc/shadow"}, ToolKind.READ), None)
    assert d.verdict is Verdict.DENY
    assert d.reasons[0].code != "audit-failed"


async def test_a_cancelled_wait_is_recorded(tmp_path: Path) -> None:
    sink = MemorySink()
    g = Gate(store(tmp_path), audit=sink)
    task = asyncio.create_task(g.check(SID, edit(tmp_path), answer(ApprovalOutcome.ALLOW_ONCE, 30)))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    [entry] = sink.entries
    assert entry["verdict"] == "deny"
    assert entry["reasons"][0]["code"] == "task-cancelled"


async def test_jsonl_file_gets_one_parseable_line_per_decision(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    policies = store(tmp_path)
    with JsonlFileSink(log) as sink:
        g = Gate(policies, audit=sink)
        call = ToolCall("bash", {"command": "printf 'a\\nb'\n echo done"}, ToolKind.EXECUTE)
        await asyncio.gather(
            *(g.check(SID, call, answer(ApprovalOutcome.REJECT_ONCE)) for _ in range(20))
        )
    lines = log.read_text().splitlines()
    assert len(lines) == 20
    entries = [json.loads(line) for line in lines]
    assert {e["arguments"]["command"] for e in entries} == {"printf 'a\\nb'\n echo done"}
