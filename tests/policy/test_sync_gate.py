"""`SyncGate`: the approval flow from plain threads, with the async gate's semantics."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from safehold import (
    ApprovalOutcome,
    ApprovalRequest,
    Gate,
    SafetyConfig,
    SessionPolicies,
    SyncGate,
    ToolCall,
    ToolKind,
    Verdict,
)
from safehold.audit import MemorySink

SID = "s"


@pytest.fixture
def sync_gate(tmp_path: Path) -> Any:
    store = SessionPolicies(SafetyConfig())
    store.open(SID, str(tmp_path))
    with SyncGate(store, audit=MemorySink()) as g:
        yield g


def edit(ws: Path, text: str = "x") -> ToolCall:
    return ToolCall("write_file", {"path": str(ws / "a.txt"), "content": text}, ToolKind.EDIT)


def test_allow_and_deny_need_no_person(sync_gate: SyncGate, tmp_path: Path) -> None:
    def never(request: ApprovalRequest) -> ApprovalOutcome:
        raise AssertionError("asked")

    read = ToolCall("read_file", {"path": str(tmp_path / "a")}, ToolKind.READ)
    secret = ToolCall("read_file", {"path": str(tmp_path / "id_rsa")}, ToolKind.READ)
    assert sync_gate.check(SID, read, never).verdict is Verdict.ALLOW
    assert sync_gate.check(SID, secret, never).verdict is Verdict.DENY


def test_ask_through_a_plain_function(sync_gate: SyncGate, tmp_path: Path) -> None:
    seen: list[ApprovalRequest] = []

    def person(request: ApprovalRequest) -> ApprovalOutcome:
        seen.append(request)
        return ApprovalOutcome.ALLOW_ALWAYS

    assert sync_gate.check(SID, edit(tmp_path), person).verdict is Verdict.ALLOW
    assert len(seen) == 1 and seen[0].decision.verdict is Verdict.ASK
    assert sync_gate.check(SID, edit(tmp_path, "y"), person).verdict is Verdict.ALLOW
    assert len(seen) == 1  # the grant answered the second time


@pytest.mark.parametrize(
    ("ask", "code"),
    [
        (None, "approval-unavailable"),
        (lambda r: (_ for _ in ()).throw(RuntimeError("boom")), "approval-error"),
        (lambda r: "allow_once", "approval-unknown-outcome"),
    ],
)
def test_failures_deny(sync_gate: SyncGate, tmp_path: Path, ask: Any, code: str) -> None:
    decision = sync_gate.check(SID, edit(tmp_path), ask)
    assert decision.verdict is Verdict.DENY
    assert decision.reasons[0].code == code


def test_timeout_denies_and_the_late_answer_changes_nothing(
    sync_gate: SyncGate, tmp_path: Path
) -> None:
    release = threading.Event()
    answered = threading.Event()

    def slow(request: ApprovalRequest) -> ApprovalOutcome:
        release.wait(10)
        answered.set()
        return ApprovalOutcome.ALLOW_ALWAYS

    decision = sync_gate.check(SID, edit(tmp_path), slow, timeout=0.05)
    assert decision.verdict is Verdict.DENY
    assert decision.reasons[0].code == "approval-timed-out"
    release.set()
    assert answered.wait(10)
    assert dict(sync_gate.policies.grants(SID)) == {}
    with pytest.raises(ValueError):
        sync_gate.check(SID, edit(tmp_path), slow, timeout=-1)


def test_threads_asking_the_same_thing_share_one_question(
    sync_gate: SyncGate, tmp_path: Path
) -> None:
    asked = threading.Event()
    release = threading.Event()
    count = 0

    def person(request: ApprovalRequest) -> ApprovalOutcome:
        nonlocal count
        count += 1
        asked.set()
        release.wait(10)
        return ApprovalOutcome.ALLOW_ONCE

    results: list[Verdict] = []

    def worker() -> None:
        results.append(sync_gate.check(SID, edit(tmp_path), person).verdict)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    assert asked.wait(10)
    # Let the person answer only once every thread waits on the one open question.
    for _ in range(1000):
        dialogs = list(sync_gate.gate._dialogs.values())
        if dialogs and dialogs[0].waiters == 4:
            break
        threading.Event().wait(0.01)
    release.set()
    for t in threads:
        t.join(10)
    assert results == [Verdict.ALLOW] * 4
    assert count == 1


def test_decide_and_answer_delegate(tmp_path: Path) -> None:
    store = SessionPolicies(SafetyConfig())
    store.open(SID, str(tmp_path))
    gate = Gate(store)
    sync = SyncGate(gate)
    assert sync.gate is gate
    call = edit(tmp_path)
    assert sync.decide(SID, call).verdict is Verdict.ASK
    assert sync.answer(SID, call, ApprovalOutcome.ALLOW_ONCE).verdict is Verdict.ALLOW
    with pytest.raises(TypeError):
        SyncGate(gate, audit=MemorySink())
