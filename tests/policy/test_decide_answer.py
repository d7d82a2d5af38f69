"""`Gate.decide` / `Gate.answer`: approvals that arrive later, in another call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safehold import (
    ApprovalOutcome,
    ApprovalRequest,
    Decision,
    Gate,
    GrantEffect,
    Mode,
    PolicyError,
    Reason,
    SafetyConfig,
    SessionPolicies,
    ToolCall,
    ToolKind,
    Verdict,
)
from safehold.audit import MemorySink
from safehold.policy.pending import PendingAsks
from tests.strategies import examples

SID = "sess-1"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def policies(ws: Path) -> SessionPolicies:
    store = SessionPolicies(SafetyConfig())
    store.open(SID, str(ws))
    return store


def edit(ws: Path, name: str = "a.txt", call_id: str | None = "c1", text: str = "x") -> ToolCall:
    return ToolCall(
        "write_file", {"path": str(ws / name), "content": text}, ToolKind.EDIT, tool_call_id=call_id
    )


def codes(decision: Decision) -> list[str]:
    return [r.code for r in decision.reasons]


def test_decide_allow_and_deny_are_final_and_audited(policies: SessionPolicies, ws: Path) -> None:
    sink = MemorySink()
    gate = Gate(policies, audit=sink)
    read = ToolCall("read_file", {"path": str(ws / "a.txt")}, ToolKind.READ)
    secret = ToolCall("read_file", {"path": str(ws / ".env")}, ToolKind.READ)
    assert gate.decide(SID, read).verdict is Verdict.ALLOW
    assert gate.decide(SID, secret).verdict is Verdict.DENY
    assert [e["verdict"] for e in sink.entries] == ["allow", "deny"]
    # Nothing was asked, so there is nothing to answer: an "allow" cannot lift the deny.
    late = gate.answer(SID, secret, ApprovalOutcome.ALLOW_ALWAYS)
    assert late.verdict is Verdict.DENY
    assert codes(late)[0] == "answer-unknown"
    assert dict(policies.grants(SID)) == {}


def test_decide_ask_then_answer_allow_once(policies: SessionPolicies, ws: Path) -> None:
    sink = MemorySink()
    gate = Gate(policies, audit=sink)
    call = edit(ws)
    asked = gate.decide(SID, call)
    assert asked.verdict is Verdict.ASK
    final = gate.answer(SID, call, ApprovalOutcome.ALLOW_ONCE)
    assert final.verdict is Verdict.ALLOW
    assert codes(final)[0] == "approved-once"
    assert dict(policies.grants(SID)) == {}
    first, last = sink.entries
    assert (first["verdict"], first["asked"]) == ("ask", False)
    assert (last["verdict"], last["asked"], last["outcome"]) == ("allow", True, "allow_once")
    assert last["latency_ms"] is not None
    # Once allowed, the same call asks again next time: allow_once is not a grant.
    assert gate.decide(SID, call).verdict is Verdict.ASK


@pytest.mark.parametrize("outcome", list(ApprovalOutcome))
async def test_answer_records_what_check_records(ws: Path, outcome: ApprovalOutcome) -> None:
    def run_later() -> tuple[Decision, dict[str, GrantEffect], dict[str, Any]]:
        store = SessionPolicies(SafetyConfig())
        store.open(SID, str(ws))
        sink = MemorySink()
        gate = Gate(store, audit=sink)
        gate.decide(SID, edit(ws))
        decision = gate.answer(SID, edit(ws), outcome)
        return decision, dict(store.grants(SID)), sink.entries[-1]

    async def run_check() -> tuple[Decision, dict[str, GrantEffect], dict[str, Any]]:
        store = SessionPolicies(SafetyConfig())
        store.open(SID, str(ws))
        sink = MemorySink()

        async def person(request: ApprovalRequest) -> ApprovalOutcome:
            return outcome

        decision = await Gate(store, audit=sink).check(SID, edit(ws), person)
        return decision, dict(store.grants(SID)), sink.entries[-1]

    later, checked = run_later(), await run_check()
    assert later[0] == checked[0]
    assert later[1] == checked[1]
    volatile = {"time", "latency_ms"}
    assert {k: v for k, v in later[2].items() if k not in volatile} == {
        k: v for k, v in checked[2].items() if k not in volatile
    }


def test_allow_always_grants_and_reject_always_denies_next_time(
    policies: SessionPolicies, ws: Path
) -> None:
    gate = Gate(policies)
    a, b = edit(ws, "a.txt", "1"), edit(ws, "b.txt", "2")
    gate.decide(SID, a)
    gate.decide(SID, b)
    assert gate.answer(SID, a, ApprovalOutcome.ALLOW_ALWAYS).verdict is Verdict.ALLOW
    assert gate.answer(SID, b, ApprovalOutcome.REJECT_ALWAYS).verdict is Verdict.DENY
    assert gate.decide(SID, edit(ws, "a.txt", "3")).verdict is Verdict.ALLOW
    assert gate.decide(SID, edit(ws, "b.txt", "4")).verdict is Verdict.DENY
    assert sorted(policies.grants(SID).values()) == [GrantEffect.ALLOW, GrantEffect.REJECT]


def test_duplicate_answer_changes_nothing(policies: SessionPolicies, ws: Path) -> None:
    sink = MemorySink()
    gate = Gate(policies, audit=sink)
    call = edit(ws)
    gate.decide(SID, call)
    assert gate.answer(SID, call, ApprovalOutcome.REJECT_ONCE).verdict is Verdict.DENY
    again = gate.answer(SID, call, ApprovalOutcome.ALLOW_ALWAYS)
    assert again.verdict is Verdict.DENY
    assert codes(again) == ["answer-duplicate"]
    assert dict(policies.grants(SID)) == {}
    assert sink.entries[-1]["verdict"] == "deny"
    # Asking again opens a new question, which can be answered once more.
    assert gate.decide(SID, call).verdict is Verdict.ASK
    assert gate.answer(SID, call, ApprovalOutcome.ALLOW_ONCE).verdict is Verdict.ALLOW


def test_unknown_answers_change_nothing(policies: SessionPolicies, ws: Path) -> None:
    gate = Gate(policies)
    never = gate.answer(SID, edit(ws, call_id="never"), ApprovalOutcome.ALLOW_ALWAYS)
    assert never.verdict is Verdict.DENY and codes(never) == ["answer-unknown"]
    # An answer under the asked call's id but about other arguments is not its answer.
    gate.decide(SID, edit(ws, text="harmless"))
    swapped = gate.answer(SID, edit(ws, text="evil"), ApprovalOutcome.ALLOW_ALWAYS)
    assert swapped.verdict is Verdict.DENY and codes(swapped)[0] == "answer-unknown"
    # Another session, another question.
    policies.open("other", str(ws))
    gate.decide(SID, edit(ws, call_id="c9"))
    elsewhere = gate.answer("other", edit(ws, call_id="c9"), ApprovalOutcome.ALLOW_ONCE)
    assert elsewhere.verdict is Verdict.DENY
    assert dict(policies.grants(SID)) == {} and dict(policies.grants("other")) == {}


def test_an_answer_that_is_not_an_outcome_denies(policies: SessionPolicies, ws: Path) -> None:
    gate = Gate(policies)
    call = edit(ws)
    gate.decide(SID, call)
    bad: Any = "allow_always"
    decision = gate.answer(SID, call, bad)
    assert decision.verdict is Verdict.DENY
    assert codes(decision)[0] == "approval-unknown-outcome"
    assert dict(policies.grants(SID)) == {}


def test_calls_without_id_are_matched_by_content(policies: SessionPolicies, ws: Path) -> None:
    gate = Gate(policies)
    call = edit(ws, call_id=None)
    gate.decide(SID, call)
    other = edit(ws, call_id=None, text="other")
    assert gate.answer(SID, other, ApprovalOutcome.ALLOW_ONCE).verdict is Verdict.DENY
    assert gate.answer(SID, call, ApprovalOutcome.ALLOW_ONCE).verdict is Verdict.ALLOW


@pytest.mark.parametrize("change", ["close", "load", "reopen"])
def test_stale_answer_changes_nothing(policies: SessionPolicies, ws: Path, change: str) -> None:
    sink = MemorySink()
    gate = Gate(policies, audit=sink)
    call = edit(ws)
    gate.decide(SID, call)
    if change == "close":
        policies.close(SID)
    elif change == "load":
        policies.load(SID, str(ws))
    else:
        policies.close(SID)
        policies.open(SID, str(ws))
    decision = gate.answer(SID, call, ApprovalOutcome.ALLOW_ALWAYS)
    assert decision.verdict is Verdict.DENY
    expected = "session-closed" if change == "close" else "session-reloaded"
    assert codes(decision)[0] == expected
    assert dict(policies.grants(SID)) == {}
    assert sink.entries[-1]["verdict"] == "deny"
    if change != "close":
        assert gate.decide(SID, call).verdict is Verdict.ASK  # no grant leaked in


def test_policy_that_turned_to_deny_wins(policies: SessionPolicies, ws: Path) -> None:
    gate = Gate(policies)
    call = edit(ws)
    gate.decide(SID, call)
    policies.set_mode(SID, Mode.READ_ONLY)
    decision = gate.answer(SID, call, ApprovalOutcome.ALLOW_ONCE)
    assert decision.verdict is Verdict.DENY
    assert codes(decision)[0] == "policy-changed"


def test_decide_for_a_session_that_is_not_open(policies: SessionPolicies, ws: Path) -> None:
    gate = Gate(policies)
    call = edit(ws)
    decision = gate.decide("nope", call)
    assert decision.verdict is Verdict.DENY and codes(decision) == ["session-unknown"]
    assert gate.answer("nope", call, ApprovalOutcome.ALLOW_ONCE).verdict is Verdict.DENY


def test_audit_failure_denies_an_answered_allow(policies: SessionPolicies, ws: Path) -> None:
    class Broken:
        def __init__(self) -> None:
            self.calls = 0

        def record(self, entry: Any) -> None:
            self.calls += 1
            if self.calls > 1:
                raise OSError("disk full")

    gate = Gate(policies, audit=Broken())
    call = edit(ws)
    assert gate.decide(SID, call).verdict is Verdict.ASK
    decision = gate.answer(SID, call, ApprovalOutcome.ALLOW_ONCE)
    assert decision.verdict is Verdict.DENY and codes(decision)[0] == "audit-failed"


def test_pending_registry_is_bounded(ws: Path) -> None:
    pending = PendingAsks(limit=2)
    asked = Decision(Verdict.ASK)
    for i in range(3):
        pending.add(SID, edit(ws, call_id=str(i)), asked, 1)
    assert len(pending) == 2
    assert pending.take(SID, edit(ws, call_id="0")) == (None, False)  # forgotten
    found, _ = pending.take(SID, edit(ws, call_id="2"))
    assert found is not None and found.call.tool_call_id == "2"


outcomes = st.sampled_from([*ApprovalOutcome, "allow_once", None, True])
steps = st.lists(
    st.tuples(
        st.sampled_from(["decide", "answer", "answer", "close", "load"]),
        st.integers(0, 2),
        st.integers(0, 1),
        outcomes,
    ),
    max_size=25,
)


@settings(max_examples=examples(150), deadline=None)
@given(steps)
def test_only_a_first_allow_answer_to_an_open_question_allows(
    tmp_path_factory: pytest.TempPathFactory, program: list[tuple[str, int, int, Any]]
) -> None:
    """Model: an answer allows iff its call's question is open in the current session instance."""
    ws = tmp_path_factory.mktemp("ws")
    store = SessionPolicies(SafetyConfig())
    store.open(SID, str(ws))
    gate = Gate(store)
    open_questions: set[tuple[int, int]] = set()
    for op, n, text, outcome in program:
        call = edit(ws, f"f{n}.txt", call_id=f"id{n}", text=str(text))
        if op == "close":
            store.close(SID)
            open_questions.clear()
        elif op == "load":
            store.load(SID, str(ws))
            open_questions.clear()
        elif op == "decide":
            decision = gate.decide(SID, call)
            open_questions = {q for q in open_questions if q[0] != n}
            if decision.verdict is Verdict.ASK:
                open_questions.add((n, text))
        else:
            decision = gate.answer(SID, call, outcome)
            allows = (n, text) in open_questions and isinstance(outcome, ApprovalOutcome)
            allows = allows and outcome in (
                ApprovalOutcome.ALLOW_ONCE,
                ApprovalOutcome.ALLOW_ALWAYS,
            )
            open_questions = {q for q in open_questions if q[0] != n}
            assert decision.allowed is allows, (op, n, text, outcome, decision)


# -- SessionPolicies.ensure and Decision.explain ------------------------------------------


def test_ensure_opens_once_and_keeps_state(ws: Path) -> None:
    store = SessionPolicies(SafetyConfig())
    assert store.ensure("s", str(ws)) is store.base
    store.set_mode("s", Mode.READ_ONLY)
    store.grant("s", 'tool:"x"', GrantEffect.ALLOW)
    assert store.ensure("s", str(ws)).read_only
    assert dict(store.grants("s")) == {'tool:"x"': GrantEffect.ALLOW}
    with pytest.raises(PolicyError, match="workspace"):
        store.ensure("s", str(ws / "elsewhere"))


def test_explain_is_one_sentence_with_every_reason(policies: SessionPolicies, ws: Path) -> None:
    gate = Gate(policies)
    secret = gate.decide(SID, ToolCall("read_file", {"path": str(ws / ".env")}, ToolKind.READ))
    text = secret.explain()
    assert text.startswith("Denied: ") and text.endswith(".") and ".env" in text
    assert gate.decide(SID, edit(ws)).explain().startswith("Needs approval: ")
    both = Decision(Verdict.DENY, (Reason("a", "r", "first."), Reason("b", "r", "second")))
    assert both.explain() == "Denied: first; second."
    assert Decision(Verdict.ALLOW).explain() == "Allowed: nothing in the policy objects."
    assert "\n" not in both.explain()
