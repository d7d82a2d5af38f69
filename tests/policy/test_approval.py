"""`Gate`: evaluate → ask → grant → final decision, and every fail-closed path."""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from safehold import (
    ApprovalOutcome,
    ApprovalRequest,
    Gate,
    GrantEffect,
    SafetyConfig,
    SessionPolicies,
    ToolCall,
    ToolKind,
    Verdict,
    gate,
)
from safehold.audit import MemorySink
from safehold.policy.engine import evaluate

SID = "sess-1"


class Person:
    """A scripted person: answers with `outcome` (after `delay`), counting the questions."""

    def __init__(self, outcome: Any = ApprovalOutcome.ALLOW_ONCE, delay: float = 0.0) -> None:
        self.outcome = outcome
        self.delay = delay
        self.asked: list[ApprovalRequest] = []
        self.release: asyncio.Event | None = None

    async def until_asked(self, n: int = 1) -> None:
        async def poll() -> None:
            while len(self.asked) < n:  # noqa: ASYNC110 (a count, not a flag)
                await asyncio.sleep(0)

        await asyncio.wait_for(poll(), 5)

    async def __call__(self, request: ApprovalRequest) -> Any:
        self.asked.append(request)
        if self.release is not None:
            await self.release.wait()
        if self.delay:
            await asyncio.sleep(self.delay)
        return self.outcome


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


@pytest.fixture
def policies(ws: Path) -> SessionPolicies:
    store = SessionPolicies(SafetyConfig())
    store.open(SID, str(ws))
    return store


def edit(ws: Path, name: str = "a.txt") -> ToolCall:
    return ToolCall("write_file", {"path": str(ws / name), "content": "x"}, ToolKind.EDIT)


def read(path: str) -> ToolCall:
    return ToolCall("read_file", {"path": path}, ToolKind.READ)


def codes(decision: Any) -> list[str]:
    return [r.code for r in decision.reasons]


# -- no question asked ------------------------------------------------------------------


async def test_allow_returns_without_asking(policies: SessionPolicies, ws: Path) -> None:
    person = Person(ApprovalOutcome.REJECT_ONCE)
    decision = await Gate(policies).check(SID, read(str(ws / "a.txt")), person)
    assert decision.verdict is Verdict.ALLOW
    assert person.asked == []


async def test_deny_returns_without_asking(policies: SessionPolicies) -> None:
    person = Person(ApprovalOutcome.ALLOW_ALWAYS)
    decision = await Gate(policies).check(SID, read("/etc/shadow"), person)
    assert decision.verdict is Verdict.DENY
    assert person.asked == []
    assert policies.grants(SID) == {}


# -- the four answers ---------------------------------------------------------------------


async def test_allow_once_allows_this_call_and_asks_again_next_time(
    policies: SessionPolicies, ws: Path
) -> None:
    person, g = Person(ApprovalOutcome.ALLOW_ONCE), Gate(policies)
    first = await g.check(SID, edit(ws), person)
    second = await g.check(SID, edit(ws), person)
    assert first.verdict is second.verdict is Verdict.ALLOW
    assert codes(first)[0] == "approved-once"
    assert "write-needs-approval" in codes(first)  # why it asked stays visible
    assert len(person.asked) == 2
    assert policies.grants(SID) == {}


async def test_allow_always_records_a_grant_and_is_not_asked_again(
    policies: SessionPolicies, ws: Path
) -> None:
    person, g = Person(ApprovalOutcome.ALLOW_ALWAYS), Gate(policies)
    first = await g.check(SID, edit(ws), person)
    second = await g.check(SID, edit(ws), person)
    other = await g.check(SID, edit(ws, "b.txt"), person)
    assert first.verdict is second.verdict is other.verdict is Verdict.ALLOW
    assert codes(first)[0] == "approved-always"
    assert len(person.asked) == 2  # the same call is not asked again; another path is
    assert dict(policies.grants(SID)) == {
        first.grant_key: GrantEffect.ALLOW,
        other.grant_key: GrantEffect.ALLOW,
    }


async def test_reject_once_denies_and_asks_again(policies: SessionPolicies, ws: Path) -> None:
    person, g = Person(ApprovalOutcome.REJECT_ONCE), Gate(policies)
    first = await g.check(SID, edit(ws), person)
    await g.check(SID, edit(ws), person)
    assert first.verdict is Verdict.DENY
    assert codes(first)[0] == "rejected-once"
    assert len(person.asked) == 2
    assert policies.grants(SID) == {}


async def test_reject_always_records_a_reject_grant_and_denies_without_asking(
    policies: SessionPolicies, ws: Path
) -> None:
    person, g = Person(ApprovalOutcome.REJECT_ALWAYS), Gate(policies)
    first = await g.check(SID, edit(ws), person)
    person.outcome = ApprovalOutcome.ALLOW_ONCE  # a later "yes" must not be reached
    second = await g.check(SID, edit(ws), person)
    assert first.verdict is second.verdict is Verdict.DENY
    assert codes(first)[0] == "rejected-always"
    assert len(person.asked) == 1
    assert dict(policies.grants(SID)) == {first.grant_key: GrantEffect.REJECT}


async def test_always_answer_without_a_grant_key_records_nothing(policies: SessionPolicies) -> None:
    call = ToolCall("bash", {"command": 'eval "$CMD"'}, ToolKind.EXECUTE)
    before = evaluate(policies.config(SID), call, workspace=policies.workspace(SID))
    assert before.verdict is Verdict.ASK and before.grant_key is None
    decision = await Gate(policies).check(SID, call, Person(ApprovalOutcome.ALLOW_ALWAYS))
    assert decision.verdict is Verdict.ALLOW
    assert "no grant recorded" in decision.reasons[0].message
    assert policies.grants(SID) == {}


# -- fail closed --------------------------------------------------------------------------


async def test_no_callback_denies(policies: SessionPolicies, ws: Path) -> None:
    decision = await Gate(policies).check(SID, edit(ws), None)
    assert decision.verdict is Verdict.DENY
    assert codes(decision)[0] == "approval-unavailable"


@pytest.mark.parametrize(
    ("outcome", "code"),
    [
        (ApprovalOutcome.CANCELLED, "approval-cancelled"),
        (ApprovalOutcome.TIMED_OUT, "approval-timed-out"),
        (ApprovalOutcome.FAILED, "approval-failed"),
    ],
)
async def test_non_answers_deny_each_with_its_reason(
    policies: SessionPolicies, ws: Path, outcome: ApprovalOutcome, code: str
) -> None:
    decision = await Gate(policies).check(SID, edit(ws), Person(outcome))
    assert decision.verdict is Verdict.DENY
    assert codes(decision)[0] == code
    assert policies.grants(SID) == {}


@pytest.mark.parametrize(
    "weird", ["allow_once", "allow_always", None, True, 1, Verdict.ALLOW, object()]
)
async def test_an_answer_that_is_not_an_outcome_denies(
    policies: SessionPolicies, ws: Path, weird: Any
) -> None:
    decision = await Gate(policies).check(SID, edit(ws), Person(weird))
    assert decision.verdict is Verdict.DENY
    assert codes(decision)[0] == "approval-unknown-outcome"


async def test_callback_exception_denies_with_its_message(
    policies: SessionPolicies, ws: Path
) -> None:
    async def broken(request: ApprovalRequest) -> ApprovalOutcome:
        raise RuntimeError("UI crashed")

    decision = await Gate(policies).check(SID, edit(ws), broken)
    assert decision.verdict is Verdict.DENY
    assert codes(decision)[0] == "approval-error"
    assert "UI crashed" in decision.reasons[0].message


async def test_callback_that_is_not_async_denies(policies: SessionPolicies, ws: Path) -> None:
    def sync(request: ApprovalRequest) -> ApprovalOutcome:
        return ApprovalOutcome.ALLOW_ONCE

    decision = await Gate(policies).check(SID, edit(ws), sync)  # type: ignore[arg-type]
    assert decision.verdict is Verdict.DENY
    assert codes(decision)[0] == "approval-error"


async def test_timeout_denies(policies: SessionPolicies, ws: Path) -> None:
    person = Person(ApprovalOutcome.ALLOW_ALWAYS, delay=30)
    decision = await Gate(policies).check(SID, edit(ws), person, timeout=0.05)
    assert decision.verdict is Verdict.DENY
    assert codes(decision)[0] == "approval-timed-out"
    assert policies.grants(SID) == {}


async def test_timeout_defaults_to_the_session_config(ws: Path) -> None:
    store = SessionPolicies(SafetyConfig(acp_approval_timeout=0.05))
    store.open(SID, str(ws))
    decision = await Gate(store).check(SID, edit(ws), Person(delay=30))
    assert codes(decision)[0] == "approval-timed-out"


@pytest.mark.parametrize("bad", [-1, math.nan, math.inf, True, "30", []])
async def test_bad_timeout_raises_before_deciding(
    policies: SessionPolicies, ws: Path, bad: Any
) -> None:
    person = Person()
    with pytest.raises(ValueError, match="timeout"):
        await Gate(policies).check(SID, edit(ws), person, timeout=bad)
    assert person.asked == []


async def test_cancellation_propagates_and_records_nothing(
    policies: SessionPolicies, ws: Path
) -> None:
    person = Person(ApprovalOutcome.ALLOW_ALWAYS)
    person.release = asyncio.Event()
    task = asyncio.create_task(Gate(policies).check(SID, edit(ws), person))
    await person.until_asked()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert policies.grants(SID) == {}


async def test_unknown_session_denies(policies: SessionPolicies, ws: Path) -> None:
    person = Person()
    decision = await Gate(policies).check("nope", edit(ws), person)
    assert decision.verdict is Verdict.DENY
    assert codes(decision) == ["session-unknown"]
    assert person.asked == []


async def test_not_a_tool_call_denies(policies: SessionPolicies) -> None:
    decision = await Gate(policies).check(SID, {"name": "x"}, Person())  # type: ignore[arg-type]
    assert decision.verdict is Verdict.DENY
    assert codes(decision) == ["bad-call"]


async def test_session_closed_while_deciding_denies_and_records_nothing(
    policies: SessionPolicies, ws: Path
) -> None:
    async def close_then_allow(request: ApprovalRequest) -> ApprovalOutcome:
        policies.close(SID)
        return ApprovalOutcome.ALLOW_ALWAYS

    decision = await Gate(policies).check(SID, edit(ws), close_then_allow)
    assert decision.verdict is Verdict.DENY
    assert codes(decision)[0] == "session-closed"


async def test_policy_turning_to_deny_while_deciding_wins(
    policies: SessionPolicies, ws: Path
) -> None:
    async def switch_then_allow(request: ApprovalRequest) -> ApprovalOutcome:
        policies.set_mode(SID, "read-only")
        return ApprovalOutcome.ALLOW_ONCE

    decision = await Gate(policies).check(SID, edit(ws), switch_then_allow)
    assert decision.verdict is Verdict.DENY
    assert codes(decision)[0] == "policy-changed"


# -- grants never lift a DENY nor a protected-path ASK -----------------------------------


async def test_allow_grant_never_lifts_a_deny(policies: SessionPolicies) -> None:
    call = read("/etc/shadow")
    key = evaluate(policies.config(SID), call, workspace=policies.workspace(SID)).grant_key
    assert key is not None
    policies.grant(SID, key, GrantEffect.ALLOW)
    person = Person()
    decision = await Gate(policies).check(SID, call, person)
    assert decision.verdict is Verdict.DENY
    assert person.asked == []


async def test_allow_always_on_a_protected_path_allows_once_and_asks_again(
    policies: SessionPolicies, ws: Path
) -> None:
    person, g = Person(ApprovalOutcome.ALLOW_ALWAYS), Gate(policies)
    call = edit(ws, ".git/config")
    first = await g.check(SID, call, person)
    second = await g.check(SID, call, person)
    assert first.verdict is second.verdict is Verdict.ALLOW
    assert "path-protected" in codes(first)
    assert len(person.asked) == 2  # the grant exists but does not lift the protected ASK


async def test_grants_stay_in_their_session(policies: SessionPolicies, ws: Path) -> None:
    policies.open("sess-2", str(ws))
    person, g = Person(ApprovalOutcome.ALLOW_ALWAYS), Gate(policies)
    await g.check(SID, edit(ws), person)
    await g.check("sess-2", edit(ws), person)
    assert len(person.asked) == 2
    policies.fork(SID, "sess-3")
    await g.check("sess-3", edit(ws), person)  # copied on fork: not asked
    assert len(person.asked) == 2


# -- shared dialogs -----------------------------------------------------------------------


async def test_concurrent_identical_asks_share_one_dialog(
    policies: SessionPolicies, ws: Path
) -> None:
    person, g = Person(ApprovalOutcome.REJECT_ONCE), Gate(policies)
    person.release = asyncio.Event()
    tasks = [asyncio.create_task(g.check(SID, edit(ws), person)) for _ in range(10)]
    await person.until_asked()
    await asyncio.sleep(0.01)
    person.release.set()
    decisions = await asyncio.gather(*tasks)
    assert len(person.asked) == 1
    assert {d.verdict for d in decisions} == {Verdict.DENY}
    assert all(codes(d)[0] == "rejected-once" for d in decisions)


async def test_different_keys_or_sessions_get_their_own_dialogs(
    policies: SessionPolicies, ws: Path
) -> None:
    policies.open("sess-2", str(ws))
    person, g = Person(ApprovalOutcome.ALLOW_ONCE), Gate(policies)
    person.release = asyncio.Event()
    calls = [(SID, edit(ws)), (SID, edit(ws, "b.txt")), ("sess-2", edit(ws))]
    tasks = [asyncio.create_task(g.check(s, c, person)) for s, c in calls]
    await person.until_asked(3)
    person.release.set()
    assert all(d.allowed for d in await asyncio.gather(*tasks))
    assert len(person.asked) == 3


async def test_a_cancelled_waiter_does_not_cancel_the_dialog_for_the_others(
    policies: SessionPolicies, ws: Path
) -> None:
    person, g = Person(ApprovalOutcome.ALLOW_ONCE), Gate(policies)
    person.release = asyncio.Event()
    first = asyncio.create_task(g.check(SID, edit(ws), person))
    await person.until_asked()
    second = asyncio.create_task(g.check(SID, edit(ws), person))
    await asyncio.sleep(0.01)
    first.cancel()  # the one who opened the dialog leaves
    with pytest.raises(asyncio.CancelledError):
        await first
    person.release.set()
    decision = await second
    assert decision.verdict is Verdict.ALLOW
    assert len(person.asked) == 1


async def test_the_dialog_is_cancelled_when_its_last_waiter_leaves(
    policies: SessionPolicies, ws: Path
) -> None:
    cancelled = asyncio.Event()

    async def waits_forever(request: ApprovalRequest) -> ApprovalOutcome:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return ApprovalOutcome.ALLOW_ONCE

    g = Gate(policies)
    asked = asyncio.Event()

    async def asks_and_waits(request: ApprovalRequest) -> ApprovalOutcome:
        asked.set()
        return await waits_forever(request)

    tasks = [asyncio.create_task(g.check(SID, edit(ws), asks_and_waits)) for _ in range(3)]
    await asyncio.wait_for(asked.wait(), 10)  # a hang guard, not a measurement
    await _settle()  # every waiter has joined the one dialog
    # Two of three waiters leave, one at a time: the dialog keeps running for the last one.
    for leaving in tasks[:2]:
        leaving.cancel()
        with pytest.raises(asyncio.CancelledError):
            await leaving
        await _settle()
        assert not cancelled.is_set(), "a waiter left and the dialog was cancelled for all"
    assert not tasks[2].done()
    # The last waiter leaves: now, and only now, the dialog itself is cancelled.
    tasks[2].cancel()
    with pytest.raises(asyncio.CancelledError):
        await tasks[2]
    await asyncio.wait_for(cancelled.wait(), 10)


async def _settle() -> None:
    """Let every ready task run (a cancellation lands within a few loop iterations)."""
    for _ in range(20):
        await asyncio.sleep(0)


async def test_a_finished_dialog_is_never_joined(policies: SessionPolicies, ws: Path) -> None:
    person, g = Person(ApprovalOutcome.ALLOW_ONCE), Gate(policies)
    await g.check(SID, edit(ws), person)
    person.outcome = ApprovalOutcome.REJECT_ONCE
    later = await g.check(SID, edit(ws), person)
    assert later.verdict is Verdict.DENY  # asked anew, not handed the earlier "once"
    assert len(person.asked) == 2


# -- one-shot form and audit --------------------------------------------------------------


async def test_gate_function_is_the_one_shot_form(policies: SessionPolicies, ws: Path) -> None:
    sink = MemorySink()
    decision = await gate(policies, SID, edit(ws), Person(ApprovalOutcome.ALLOW_ALWAYS), audit=sink)
    assert decision.allowed
    assert [e["outcome"] for e in sink.entries] == ["allow_always"]


def test_gate_needs_a_session_store() -> None:
    with pytest.raises(TypeError, match="SessionPolicies"):
        Gate(SafetyConfig())  # type: ignore[arg-type]


Answer = Callable[[ApprovalRequest], Awaitable[Any]]


def test_one_gate_serves_event_loops_in_several_threads(
    policies: SessionPolicies, ws: Path
) -> None:
    g = Gate(policies)
    results: list[Verdict] = []

    def worker(n: int) -> None:
        async def run() -> list[Any]:
            person = Person(ApprovalOutcome.ALLOW_ALWAYS)
            calls = [edit(ws, f"t{n}-{i}.txt") for i in range(25)] + [edit(ws, "shared.txt")] * 5
            return await asyncio.gather(*(g.check(SID, c, person) for c in calls))

        results.extend(d.verdict for d in asyncio.run(run()))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [Verdict.ALLOW] * 120
    assert len(policies.grants(SID)) == 4 * 25 + 1


async def test_a_revoked_grant_asks_again(policies: SessionPolicies, ws: Path) -> None:
    person, g = Person(ApprovalOutcome.ALLOW_ALWAYS), Gate(policies)
    first = await g.check(SID, edit(ws), person)
    assert first.grant_key is not None
    assert policies.revoke(SID, first.grant_key)
    await g.check(SID, edit(ws), person)
    assert len(person.asked) == 2


async def test_load_wipes_grants(policies: SessionPolicies, ws: Path) -> None:
    person, g = Person(ApprovalOutcome.REJECT_ALWAYS), Gate(policies)
    await g.check(SID, edit(ws), person)
    policies.load(SID, str(ws))
    person.outcome = ApprovalOutcome.ALLOW_ONCE
    assert (await g.check(SID, edit(ws), person)).allowed
    assert len(person.asked) == 2


@pytest.mark.parametrize(
    ("outcome", "questions", "verdicts"),
    [
        (ApprovalOutcome.ALLOW_ONCE, 2, [Verdict.ALLOW, Verdict.ALLOW]),
        (ApprovalOutcome.ALLOW_ALWAYS, 1, [Verdict.ALLOW, Verdict.ALLOW]),
        (ApprovalOutcome.REJECT_ONCE, 1, [Verdict.DENY, Verdict.DENY]),
    ],
)
async def test_allow_once_is_never_handed_to_a_different_call_with_the_same_key(
    policies: SessionPolicies,
    ws: Path,
    outcome: ApprovalOutcome,
    questions: int,
    verdicts: list[Verdict],
) -> None:
    # Same tool and path (so the same grant key), different content: the person saw only
    # the first one, so an allow_once answer must not run the second.
    person, g = Person(outcome), Gate(policies)
    person.release = asyncio.Event()
    benign = ToolCall("write_file", {"path": str(ws / "a.txt"), "content": "ok"}, ToolKind.EDIT)
    other = ToolCall("write_file", {"path": str(ws / "a.txt"), "content": "evil"}, ToolKind.EDIT)
    tasks = [asyncio.create_task(g.check(SID, c, person)) for c in (benign, other)]
    await person.until_asked()
    await asyncio.sleep(0.01)
    person.release.set()
    decisions = await asyncio.gather(*tasks)
    assert [d.verdict for d in decisions] == verdicts
    assert len(person.asked) == questions
    assert [r.call.arguments["content"] for r in person.asked] == ["ok", "evil"][:questions]
