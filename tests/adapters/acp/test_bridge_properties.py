"""Properties of `AcpPolicyBridge` over arbitrary sequences of editor requests.

The requests go straight to the bridge (no client: `conn=None` sends no notifications), so
hypothesis can try thousands of sequences; the wire is covered by `test_bridge.py`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from acp import RequestError
from hypothesis import given
from hypothesis import strategies as st

from safehold.adapters.acp.bridge import AcpPolicyBridge, AgentOption
from safehold.policy.config import SafetyConfig
from safehold.policy.modes import Flags, Mode, derive_mode, flags_meet_floor, option_values_for
from safehold.policy.sessions import SessionPolicies

CONFIG_IDS = ["mode", "auto_approve_writes", "auto_approve_execute", "read_only", "model", "x"]
VALUES: Any = st.one_of(
    st.booleans(),
    st.sampled_from(["true", "false", "auto", "review", "read-only", "small", "large", "", "yes"]),
    st.integers(),
    st.none(),
)
REQUEST = st.one_of(
    st.tuples(st.just("mode"), st.sampled_from(["s1", "s2", "ghost"]), VALUES),
    st.tuples(
        st.just("option"),
        st.sampled_from(["s1", "s2", "ghost"]),
        st.tuples(st.sampled_from(CONFIG_IDS), VALUES),
    ),
)
MODEL = AgentOption(id="model", name="Model", default="small", choices=["small", "large"])


def wire(flags: Flags, boolean: bool) -> dict[str, Any]:
    values: dict[str, Any] = dict(option_values_for(flags))
    if not boolean:
        values = {k: str(v).lower() for k, v in values.items()}
    return {"mode": derive_mode(flags).value, **values}


Step = tuple[bool, dict[str, Flags], dict[str, tuple[dict[str, Any], str]]]


def play(requests: list[Any], *, floor: Mode | None, boolean: bool) -> list[Step]:
    """Apply each request; record (refused?, every session's flags, what the bridge reports)."""
    base = SafetyConfig(read_only=floor is Mode.READ_ONLY)
    policies = SessionPolicies(base, floor=floor)
    bridge = AcpPolicyBridge(policies, options=[MODEL], boolean_options=boolean)
    bridge.new_session("s1", "/w1")
    bridge.new_session("s2", "/w2")
    out = []

    async def run() -> None:
        for kind, sid, arg in requests:
            try:
                if kind == "mode":
                    await bridge.set_session_mode(None, sid, arg)
                else:
                    config_id, value = arg
                    await bridge.set_config_option(None, sid, config_id, value)
                refused = False
            except RequestError as exc:
                assert exc.code == -32602
                refused = True
            flags = {s: policies.config(s).flags for s in ("s1", "s2")}
            reported = {
                s: (
                    {o.id: o.current_value for o in bridge.config_options(s)},
                    bridge.modes(s).current_mode_id,
                )
                for s in ("s1", "s2")
            }
            out.append((refused, flags, reported))

    asyncio.run(run())
    return out


@given(st.lists(REQUEST, max_size=12), st.booleans())
def test_reported_options_always_mirror_the_session_flags(
    requests: list[Any], boolean: bool
) -> None:
    for _, flags, reported in play(requests, floor=None, boolean=boolean):
        for sid in ("s1", "s2"):
            options, mode = reported[sid]
            model = options.pop("model")
            assert options == wire(flags[sid], boolean)
            assert model in ("small", "large")
            assert mode == derive_mode(flags[sid]).value


@given(st.lists(REQUEST, max_size=12), st.booleans())
def test_refused_requests_change_nothing(requests: list[Any], boolean: bool) -> None:
    base = Flags(False, True, True)
    before = {"s1": base, "s2": base}
    for refused, flags, _ in play(requests, floor=None, boolean=boolean):
        if refused:
            assert flags == before
        before = flags


@given(st.lists(REQUEST, max_size=12), st.sampled_from([Mode.REVIEW, Mode.READ_ONLY]))
def test_no_request_sequence_loosens_a_session_past_the_floor(
    requests: list[Any], floor: Mode
) -> None:
    for _, flags, _ in play(requests, floor=floor, boolean=False):
        assert all(flags_meet_floor(f, floor) for f in flags.values())


@given(st.lists(REQUEST, max_size=12))
def test_a_request_for_one_session_never_changes_another(requests: list[Any]) -> None:
    base = Flags(False, True, True)
    before = {"s1": base, "s2": base}
    for (_, sid, _), (_, flags, _) in zip(
        requests, play(requests, floor=None, boolean=True), strict=True
    ):
        for other in ("s1", "s2"):
            if other != sid:
                assert flags[other] == before[other]
        before = flags
