"""Properties of the approval flow, named like theorems.

- `outcome_mapping_is_total_and_fail_closed`: any reply maps to an outcome without raising,
  and only the two offered allow ids map to an allow outcome.
- `only_the_policy_or_a_person_allows`: the gate allows only when `evaluate` allowed, or it
  asked and the answer was allow_once / allow_always.
- `deny_trumps_grant`: an allow grant never turns a policy DENY into anything else, and
  nobody is asked.
- `identical_asks_share_one_dialog`: n concurrent identical ASKs make one callback call.
- `redaction_is_idempotent`, `redaction_keeps_text_without_secrets`,
  `secrets_never_survive_redaction`.
- `ApprovalRules` (stateful): open/fork/close/revoke/ask against a shadow model of grants;
  the invariant `no_grant_crosses_sessions`.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule

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
)
from safehold.adapters.acp._compat import cancelled_response, selected_response
from safehold.adapters.acp.permission import OPTION_IDS, outcome_of_response
from safehold.policy.engine import evaluate
from safehold.policy.redact import REDACTED, redact_text
from tests.strategies import configs, tool_calls

# In the run's private folder, beside its HOME (tests/conftest.py removes it when the run
# ends): nothing is left in /tmp.
WORKSPACE = tempfile.mkdtemp(prefix="approval-props-", dir=os.path.dirname(os.environ["HOME"]))
ALLOWING = {ApprovalOutcome.ALLOW_ONCE, ApprovalOutcome.ALLOW_ALWAYS}

answers = st.one_of(
    st.sampled_from(list(ApprovalOutcome)),
    st.sampled_from([o.value for o in ApprovalOutcome]),  # plain strings are not outcomes
    st.none(),
    st.booleans(),
    st.integers(),
)


@given(st.one_of(st.text(), st.sampled_from(list(OPTION_IDS.values()))))
def test_outcome_mapping_is_total_and_fail_closed(option_id: str) -> None:
    outcome = outcome_of_response(selected_response(option_id))
    offered = {v: k for k, v in OPTION_IDS.items()}
    assert outcome is offered.get(option_id, ApprovalOutcome.FAILED)
    assert (outcome in ALLOWING) == (option_id in {"allow-once", "allow-always"})


@given(st.one_of(st.none(), st.integers(), st.text(), st.dictionaries(st.text(), st.text())))
def test_outcome_mapping_of_non_responses_fails(reply: Any) -> None:
    assert outcome_of_response(reply) is ApprovalOutcome.FAILED
    assert outcome_of_response(cancelled_response()) is ApprovalOutcome.CANCELLED


def _store(config: SafetyConfig) -> SessionPolicies:
    policies = SessionPolicies(config)
    policies.open("s", WORKSPACE)
    return policies


def _answer(value: Any) -> Any:
    asked: list[ApprovalRequest] = []

    async def callback(request: ApprovalRequest) -> Any:
        asked.append(request)
        return value

    callback.asked = asked  # type: ignore[attr-defined]
    return callback


@given(configs(), tool_calls(), answers)
def test_only_the_policy_or_a_person_allows(
    config: SafetyConfig, call: ToolCall, answer: Any
) -> None:
    policies = _store(config)
    before = evaluate(config, call, workspace=WORKSPACE)
    callback = _answer(answer)
    decision = asyncio.run(Gate(policies).check("s", call, callback))
    if before.verdict is Verdict.DENY:
        assert decision.verdict is Verdict.DENY
    if decision.verdict is Verdict.ALLOW:
        assert before.verdict is Verdict.ALLOW or (
            before.verdict is Verdict.ASK and answer in ALLOWING and type(answer) is ApprovalOutcome
        )
    assert bool(callback.asked) == (before.verdict is Verdict.ASK)


@given(configs(), tool_calls(), st.sampled_from(list(ApprovalOutcome)))
def test_deny_trumps_grant(config: SafetyConfig, call: ToolCall, answer: ApprovalOutcome) -> None:
    before = evaluate(config, call, workspace=WORKSPACE)
    if before.verdict is not Verdict.DENY or before.grant_key is None:
        return
    policies = _store(config)
    policies.grant("s", before.grant_key, GrantEffect.ALLOW)
    callback = _answer(answer)
    decision = asyncio.run(Gate(policies).check("s", call, callback))
    assert decision.verdict is Verdict.DENY
    assert callback.asked == []


@given(st.integers(min_value=1, max_value=30), st.sampled_from(list(ApprovalOutcome)))
def test_identical_asks_share_one_dialog(waiters: int, answer: ApprovalOutcome) -> None:
    policies = _store(SafetyConfig())
    call = ToolCall("write_file", {"path": f"{WORKSPACE}/f.txt"}, ToolKind.EDIT)
    callback = _answer(answer)

    async def run() -> list[Any]:
        g = Gate(policies)
        return await asyncio.gather(*(g.check("s", call, callback) for _ in range(waiters)))

    decisions = asyncio.run(run())
    assert len(callback.asked) == 1
    assert len({d for d in decisions}) == 1


@given(st.text())
def test_redaction_is_idempotent(text: str) -> None:
    once = redact_text(text)
    assert redact_text(once) == once


SAFE = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789 /.", max_size=200)


@given(SAFE)
def test_redaction_keeps_text_without_secrets(text: str) -> None:
    assert redact_text(text) == text


secrets = st.one_of(
    st.from_regex(r"ghp_[A-Za-z0-9]{36}", fullmatch=True),
    st.from_regex(r"sk-ant-[A-Za-z0-9]{32}", fullmatch=True),
    st.from_regex(r"AKIA[0-9A-Z]{16}", fullmatch=True),
    st.from_regex(r"xoxb-[0-9]{10}-[A-Za-z0-9]{16}", fullmatch=True),
)


@given(SAFE, secrets, SAFE)
def test_secrets_never_survive_redaction(before: str, secret: str, after: str) -> None:
    out = redact_text(f"{before} {secret} {after}")
    assert secret not in out
    assert out == f"{before} {REDACTED} {after}"


@given(SAFE, st.sampled_from(["API_KEY", "password", "GITHUB_TOKEN", "client_secret"]), SAFE)
def test_assigned_secrets_never_survive_redaction(before: str, name: str, after: str) -> None:
    value = "Zq9vXw3"
    out = redact_text(f"{before} {name}={value} {after}")
    assert value not in out
    assert out == f"{before} {name}={REDACTED} {after}"


# -- a stateful machine: the gate's grants against a shadow model ------------------------

FILES = ["a.txt", "b.txt", ".git/config"]  # .git/config is protected: grants never lift it


class ApprovalRules(RuleBasedStateMachine):
    """Verbs on sessions and answers; the shadow model is each session's grants by file."""

    sessions = Bundle("sessions")

    def __init__(self) -> None:
        super().__init__()
        self.policies = SessionPolicies(SafetyConfig())
        self.gate = Gate(self.policies)
        self.model: dict[str, dict[str, GrantEffect]] = {}
        self.keys: dict[str, str] = {}
        self.counter = 0

    def _new_id(self) -> str:
        self.counter += 1
        return f"s{self.counter}"

    @rule(target=sessions)
    def open(self) -> str:
        sid = self._new_id()
        self.policies.open(sid, WORKSPACE)
        self.model[sid] = {}
        return sid

    @rule(target=sessions, src=sessions)
    def fork(self, src: str) -> str:
        sid = self._new_id()
        if src not in self.model:
            return sid
        self.policies.fork(src, sid)
        self.model[sid] = dict(self.model[src])
        return sid

    @rule(sid=consumes(sessions))
    def close(self, sid: str) -> None:
        self.policies.close(sid)
        self.model.pop(sid, None)

    @rule(sid=sessions, name=st.sampled_from(FILES))
    def revoke(self, sid: str, name: str) -> None:
        if sid in self.model and name in self.model[sid]:
            assert self.policies.revoke(sid, self.keys[name])
            del self.model[sid][name]

    @rule(sid=sessions, name=st.sampled_from(FILES), answer=st.sampled_from(list(ApprovalOutcome)))
    def ask(self, sid: str, name: str, answer: ApprovalOutcome) -> None:
        call = ToolCall("write_file", {"path": f"{WORKSPACE}/{name}"}, ToolKind.EDIT)
        callback = _answer(answer)
        decision = asyncio.run(self.gate.check(sid, call, callback))
        if decision.grant_key is not None:
            self.keys[name] = decision.grant_key
        if sid not in self.model:
            assert decision.verdict is Verdict.DENY and callback.asked == []
            return
        grant = self.model[sid].get(name)
        if grant is GrantEffect.REJECT:
            assert decision.verdict is Verdict.DENY and callback.asked == []
        elif grant is GrantEffect.ALLOW and name != ".git/config":
            assert decision.verdict is Verdict.ALLOW and callback.asked == []
        else:
            assert len(callback.asked) == 1
            assert decision.allowed == (answer in ALLOWING)
            if answer is ApprovalOutcome.ALLOW_ALWAYS:
                self.model[sid][name] = GrantEffect.ALLOW
            elif answer is ApprovalOutcome.REJECT_ALWAYS:
                self.model[sid][name] = GrantEffect.REJECT

    @invariant()
    def no_grant_crosses_sessions(self) -> None:
        for sid, grants in self.model.items():
            expected = {self.keys[name]: effect for name, effect in grants.items()}
            assert dict(self.policies.grants(sid)) == expected


ApprovalRules.TestCase.settings = settings(stateful_step_count=25)
TestApprovals = ApprovalRules.TestCase
