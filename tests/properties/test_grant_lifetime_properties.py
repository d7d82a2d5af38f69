"""Properties of grants with a scope and a lifetime, named like theorems.

- `an_expired_grant_never_lifts_an_ask`: for any call the policy asks about, an allow
  grant under its key that expired at `now` (or earlier) leaves the decision exactly as it
  was without grants; one that has not expired may lift it, never more than that.
- `an_expired_or_revoked_grant_never_lifts_an_ask_through_the_gate`: a person answers
  "always allow" in a random scope (session, project, user; with or without an expiry)
  through a `Gate` with real grants files; once the clock passes the expiry, or the grant is
  revoked (`SessionPolicies.revoke`, `GrantFiles.remove`), the same call asks again.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from safehold import (
    ApprovalAnswer,
    ApprovalOutcome,
    ApprovalRequest,
    Gate,
    Grant,
    GrantEffect,
    SessionPolicies,
    ToolCall,
    Verdict,
)
from safehold.grant_store import GrantFiles, grant_id
from safehold.policy.engine import evaluate
from safehold.policy.grants import GRANT_REACHES, active_grants
from tests.strategies import likely_configs, likely_tool_calls, make_tree, runner_for

NOW = 1_800_000_000.0
_stores = itertools.count()


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> str:
    return make_tree(str(tmp_path_factory.mktemp("grant-tree")))


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("grant-state")


ages = st.floats(min_value=0, max_value=10 * 365 * 86400, allow_nan=False)


@given(
    config=likely_configs(),
    call=likely_tool_calls(),
    scope=st.sampled_from(GRANT_REACHES),
    age=ages,
    now=st.one_of(st.just(NOW), st.sampled_from([math.nan, math.inf, -math.inf])),
)
def test_an_expired_grant_never_lifts_an_ask(
    tree: str, config: object, call: ToolCall, scope: str, age: float, now: float
) -> None:
    runner = runner_for(config)  # type: ignore[arg-type]
    plain = evaluate(config, call, workspace=tree, runner=runner)  # type: ignore[arg-type]
    assume(plain.grant_key is not None)
    key = plain.grant_key
    assert key is not None
    expires = (NOW if math.isnan(now) or math.isinf(now) else now) - age
    expired = Grant(key, GrantEffect.ALLOW, scope, expires_at=expires)  # type: ignore[arg-type]
    grants = active_grants([expired], now=now)
    after = evaluate(config, call, workspace=tree, grants=grants, runner=runner)  # type: ignore[arg-type]
    assert (after.verdict, after.reasons) == (plain.verdict, plain.reasons)
    # A live grant (expiring a second later) lifts at most what a grant may lift.
    live = Grant(key, GrantEffect.ALLOW, scope, expires_at=NOW + 1)  # type: ignore[arg-type]
    lifted = evaluate(
        config,  # type: ignore[arg-type]
        call,
        workspace=tree,
        grants=active_grants([live], now=NOW),
        runner=runner,
    )
    if plain.verdict is not Verdict.ASK:
        assert lifted.verdict is plain.verdict
    elif plain.step == "hard-ask":
        assert lifted.verdict is Verdict.ASK


@given(
    config=likely_configs(),
    call=likely_tool_calls(),
    scope=st.sampled_from(GRANT_REACHES),
    end=st.one_of(
        st.tuples(st.just("expire"), st.floats(min_value=1, max_value=30 * 86400)),
        st.tuples(st.just("revoke"), st.none() | st.floats(min_value=1, max_value=30 * 86400)),
    ),
)
async def test_an_expired_or_revoked_grant_never_lifts_an_ask_through_the_gate(
    tree: str,
    state: Path,
    config: object,
    call: ToolCall,
    scope: str,
    end: tuple[str, float | None],
) -> None:
    ending, ttl = end
    now = [NOW]
    store = GrantFiles(state / f"store-{next(_stores)}")  # a fresh store per example
    policies = SessionPolicies(config)  # type: ignore[arg-type]
    gate = Gate(policies, runner=runner_for(config), grant_store=store, clock=lambda: now[0])  # type: ignore[arg-type]
    policies.open("s", tree)
    first = gate.decide("s", call)
    assume(first.verdict is Verdict.ASK and first.grant_key is not None)

    async def always(request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer(ApprovalOutcome.ALLOW_ALWAYS, scope, ttl)  # type: ignore[arg-type]

    answered = await gate.check("s", call, always)
    assert answered.verdict is Verdict.ALLOW
    if ending == "expire":
        assert ttl is not None
        now[0] += ttl
    elif scope == "session":
        assert policies.revoke("s", first.grant_key)
    else:
        (held,) = store.load(scope, tree)  # type: ignore[arg-type]
        assert store.remove(scope, tree, ids=frozenset({grant_id(held)})) == (held,)  # type: ignore[arg-type]
    again = gate.decide("s", call)
    assert again.verdict is Verdict.ASK
    assert again.step == first.step and again.reasons == first.reasons
