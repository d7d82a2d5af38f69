"""A permission reply is read by its shape, strictly: only an exact offered allow option allows.

The SDK's connection hands back its own `RequestPermissionResponse`; another connection layer
(or Aar's test double) may hand back the JSON object or an object of its own. safehold reads
the SDK's `AllowedOutcome`/`DeniedOutcome` by type, a mapping only with exactly the
protocol's fields, and an option id only as an exact `str` among the offered ids. The
`MagicMock`s below are the replies under test (the shape Aar's own tests build), not stand-ins
for a part of safehold.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any
from unittest.mock import MagicMock

import pytest
from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse
from hypothesis import given
from hypothesis import strategies as st

from safehold.adapters.aar import AAR_PERMISSION_OPTIONS, ApprovalResult, make_aar_approval_callback
from safehold.adapters.acp import OPTION_IDS, make_acp_approval_callback
from safehold.adapters.acp.permission import (
    DEFAULT_OPTIONS,
    PermissionOptions,
    answer_of_response,
)
from safehold.policy.approval import ApprovalOutcome

from .conftest import PermissionClient, TestAgent, acp_pair, answer_cancelled, answer_with
from .test_permission import request

pytestmark = pytest.mark.acp

ALLOWING = {ApprovalOutcome.ALLOW_ONCE, ApprovalOutcome.ALLOW_ALWAYS}
OFFERED = {oid: outcome for outcome, oid in OPTION_IDS.items()}


def aar_reply(option_id: Any = None, *, set_id: bool = True) -> MagicMock:
    """Aar's `_allowed_response`: a MagicMock whose `.outcome` is a spec'd AllowedOutcome."""
    reply = MagicMock()
    reply.outcome = MagicMock(spec=AllowedOutcome)
    if set_id:
        reply.outcome.option_id = option_id
    return reply


class Sneaky(str):
    """A str subclass that claims to equal anything."""

    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        return True


class Raising:
    @property
    def outcome(self) -> Any:
        raise RuntimeError("reply cannot be read")


# -- a real connection whose layer hands back the JSON object the client sent ------------


class JsonReplies:
    """An agent-side connection that returns the reply as the JSON object on the wire.

    It forwards to the SDK's real connection, then hands back the `result` the client sent
    (read off the client side of the socket), as a JSON-RPC layer other than the SDK's would.
    """

    def __init__(self, pair: Any) -> None:
        self.pair = pair

    async def request_permission(self, **kwargs: Any) -> Any:
        await self.pair.agent_conn.request_permission(**kwargs)
        sent = [m for d, m in self.pair.wire if "result" in m and "outcome" in (m["result"] or {})]
        return sent[-1]["result"]


async def ask_json(handler: Any, options: PermissionOptions = DEFAULT_OPTIONS) -> Any:
    client = PermissionClient(handler)
    async with acp_pair(TestAgent(), client) as pair:
        callback = make_acp_approval_callback(JsonReplies(pair), "sess-1", 5, options=options)
        return await callback(request()), pair


@pytest.mark.parametrize("outcome", list(OPTION_IDS))
async def test_the_wire_json_of_each_offered_option_maps_to_its_outcome(
    outcome: ApprovalOutcome,
) -> None:
    got, pair = await ask_json(answer_with(OPTION_IDS[outcome]))
    assert got is outcome
    [reply] = [m["result"] for _, m in pair.wire if "result" in m and "outcome" in m["result"]]
    assert reply["outcome"]["optionId"] == OPTION_IDS[outcome]  # it was the JSON form


async def test_the_wire_json_of_cancelled_is_cancelled() -> None:
    got, _ = await ask_json(answer_cancelled())
    assert got is ApprovalOutcome.CANCELLED


@pytest.mark.parametrize(
    "result",
    [
        {"outcome": {"outcome": "selected", "optionId": "allow-once", "scope": "user"}},
        {"outcome": {"outcome": "selected", "optionId": "allow_once"}},
        {"outcome": {"outcome": "selected", "option_id": "allow-once"}},
        {"outcome": {"outcome": "selected", "optionId": "allow-once"}, "grant": "always"},
        {"outcome": {"outcome": "selected", "optionId": "allow-once", "_meta": "x"}},
    ],
)
async def test_wire_json_that_is_not_exactly_the_protocols_fails(result: Any) -> None:
    async def handler(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        return result

    got, _ = await ask_json(handler)
    assert got is ApprovalOutcome.FAILED


async def test_the_wire_json_with_meta_is_read() -> None:
    async def handler(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        return {"outcome": {"outcome": "selected", "optionId": "allow-always", "_meta": {}}}

    got, _ = await ask_json(handler)
    assert got is ApprovalOutcome.ALLOW_ALWAYS


# -- Aar's own reply shape, through Aar's callback ---------------------------------------


class Conn:
    """The agent-side connection as Aar's tests give it: `request_permission` returns `reply`."""

    def __init__(self, reply: Any) -> None:
        self.reply = reply
        self.calls = 0

    async def request_permission(self, **kwargs: Any) -> Any:
        self.calls += 1
        return self.reply


class Spec:
    name, side_effects = "bash", ["execute"]


class Call:
    tool_name, arguments, tool_call_id = "bash", {"command": "ls"}, "tc-1"


@pytest.mark.parametrize(
    ("option_id", "result"),
    [
        ("allow_once", ApprovalResult.APPROVED),
        ("allow_always", ApprovalResult.APPROVED_ALWAYS),
        ("deny", ApprovalResult.DENIED),
        ("reject_once", ApprovalResult.DENIED),  # an alias of `deny`
        ("reject_always", ApprovalResult.DENIED),
        ("allow-once", ApprovalResult.DENIED),  # safehold's default id, not offered here
        ("totally_unknown", ApprovalResult.DENIED),
    ],
)
async def test_aars_reply_double_is_read_by_its_option_id(
    option_id: str, result: ApprovalResult
) -> None:
    conn = Conn(aar_reply(option_id))
    callback = make_aar_approval_callback(conn, "sess-1")
    assert await callback(Spec(), Call()) is result
    assert conn.calls == 1


# -- malformed shapes fail closed, with a reason in the log -----------------------------


def _spec_mock(**fields: Any) -> MagicMock:
    outcome = MagicMock(spec=AllowedOutcome)
    for name, value in fields.items():
        setattr(outcome, name, value)
    return outcome


MALFORMED = {
    "auto-attribute outcome": MagicMock(),
    "option id never set": aar_reply(set_id=False),
    "option id a mock": aar_reply(MagicMock()),
    "option id an int": aar_reply(1),
    "option id None": aar_reply(None),
    "option id bytes": aar_reply(b"allow-once"),
    "option id a str subclass": aar_reply(Sneaky("anything")),
    "outcome says cancelled": SimpleNamespace(
        outcome=_spec_mock(outcome="cancelled", option_id="allow-once")
    ),
    "outcome a plain object": SimpleNamespace(
        outcome=SimpleNamespace(outcome="selected", option_id="allow-once")
    ),
    "outcome a spec'd dict": SimpleNamespace(outcome=MagicMock(spec=dict)),
    "outcome missing optionId": {"outcome": {"outcome": "selected"}},
    "outcome with an extra field": {
        "outcome": {"outcome": "selected", "optionId": "allow-once", "scope": "user"}
    },
    "reply with an extra field": {
        "outcome": {"outcome": "selected", "optionId": "allow-once"},
        "allow": True,
    },
    "outcome missing discriminator": {"outcome": {"optionId": "allow-once"}},
    "discriminator in capitals": {"outcome": {"outcome": "Selected", "optionId": "allow-once"}},
    "discriminator a str subclass": {"outcome": {"outcome": Sneaky("x"), "optionId": "allow-once"}},
    "optionId a list": {"outcome": {"outcome": "selected", "optionId": ["allow-once"]}},
    "cancelled with an option": {"outcome": {"outcome": "cancelled", "optionId": "allow-once"}},
    "reply without outcome": {"_meta": {}},
    "reply is the outcome": {"outcome": "selected", "optionId": "allow-once"},
    "SDK outcome as the reply": AllowedOutcome(outcome="selected", option_id="allow-once"),
    "outcome property raises": Raising(),
    "SDK model with a non-str id": RequestPermissionResponse.model_construct(
        outcome=AllowedOutcome.model_construct(outcome="selected", option_id=7)
    ),
}


@pytest.mark.parametrize("reply", list(MALFORMED.values()), ids=list(MALFORMED))
def test_malformed_shapes_fail_closed_with_a_reason(
    reply: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="safehold.adapters.acp"):
        answer = answer_of_response(reply, "tc-1", AAR_PERMISSION_OPTIONS)
        assert answer_of_response(reply, "tc-1") == answer
    assert answer.outcome is ApprovalOutcome.FAILED
    assert "permission for tc-1 refused" in caplog.text


@pytest.mark.parametrize(
    ("reply", "outcome"),
    [
        (aar_reply("allow-once"), ApprovalOutcome.ALLOW_ONCE),
        (SimpleNamespace(outcome=DeniedOutcome(outcome="cancelled")), ApprovalOutcome.CANCELLED),
        (SimpleNamespace(outcome=MagicMock(spec=DeniedOutcome)), ApprovalOutcome.CANCELLED),
        ({"outcome": {"outcome": "cancelled"}}, ApprovalOutcome.CANCELLED),
        ({"outcome": {"outcome": "cancelled", "_meta": None}}, ApprovalOutcome.CANCELLED),
        (
            {"outcome": AllowedOutcome(outcome="selected", option_id="reject-always")},
            ApprovalOutcome.REJECT_ALWAYS,
        ),
        (
            SimpleNamespace(outcome={"outcome": "selected", "optionId": "allow-always"}),
            ApprovalOutcome.ALLOW_ALWAYS,
        ),
    ],
)
def test_exact_shapes_are_read(reply: Any, outcome: ApprovalOutcome) -> None:
    assert answer_of_response(reply).outcome is outcome


# -- the property: nothing but an exact offered allow option allows ----------------------

NEAR_IDS = ["allow_once", "Allow-once", "allow-once ", "allow_always", "allow", "yes", ""]
ALLOW_IDS = ["allow-once", "allow-always", "allow_once", "allow_always"]  # both option sets
option_ids = st.one_of(
    st.sampled_from(ALLOW_IDS),  # often an allow id: the other parts of a shape must refuse
    st.sampled_from(ALLOW_IDS),
    st.sampled_from([*OPTION_IDS.values(), *AAR_PERMISSION_OPTIONS.ids.values(), *NEAR_IDS]),
    st.text(max_size=12),
    st.sampled_from(["allow-once", "allow_once"]).map(Sneaky),
    st.none(),
    st.integers(),
    st.binary(max_size=12),
    st.builds(MagicMock),
)
metas = st.sampled_from([None, {}, {"k": 1}])
extra_keys = st.text(max_size=8).filter(lambda k: k not in {"outcome", "optionId", "_meta"})


@st.composite
def outcomes(draw: st.DrawFn) -> tuple[Any, bool]:
    """(an outcome, whether it is exactly an allow-shaped outcome for its option id)."""
    oid = draw(option_ids)
    exact_id = type(oid) is str
    form = draw(st.integers(0, 10))
    if form == 0:
        return AllowedOutcome.model_construct(outcome="selected", option_id=oid), exact_id
    if form == 1:
        return _spec_mock(option_id=oid), exact_id
    if form == 2:
        value = {"outcome": "selected", "optionId": oid}
        if draw(st.booleans()):
            value["_meta"] = draw(metas)
        return value, exact_id
    if form == 3:
        return {"outcome": "selected", "optionId": oid, draw(extra_keys): draw(option_ids)}, False
    if form == 4:
        return {"outcome": "selected", draw(st.sampled_from(["option_id", "id"])): oid}, False
    if form == 5:
        kind = draw(st.one_of(st.text(max_size=10), st.none(), st.just(Sneaky("selected"))))
        return {"outcome": kind, "optionId": oid}, type(kind) is str and kind == "selected"
    if form == 6:
        return _spec_mock(), False
    if form == 7:
        return draw(
            st.sampled_from([DeniedOutcome(outcome="cancelled"), {"outcome": "cancelled"}])
        ), False
    if form == 8:
        return SimpleNamespace(outcome="selected", option_id=oid), False
    if form == 9:
        return {"outcome": "selected", "optionId": oid, "_meta": draw(st.text(max_size=4))}, False
    return MagicMock(), False


@st.composite
def replies(draw: st.DrawFn) -> tuple[Any, Any, bool]:
    """(a reply, its outcome's option id or None, whether its envelope is exact)."""
    outcome, exact = draw(outcomes())
    oid = (
        outcome.get("optionId")
        if isinstance(outcome, dict)
        else getattr(outcome, "option_id", None)
    )
    form = draw(st.integers(0, 6))
    if form == 0:
        return RequestPermissionResponse.model_construct(outcome=outcome), oid, exact
    if form == 1:
        reply = {"outcome": outcome}
        if draw(st.booleans()):
            reply["_meta"] = draw(metas)
        return reply, oid, exact
    if form == 2:
        mock = MagicMock()
        mock.outcome = outcome
        return mock, oid, exact
    if form == 3:
        return SimpleNamespace(outcome=outcome), oid, exact
    if form == 4:
        return {"outcome": outcome, draw(extra_keys): 1}, oid, False
    if form == 5:
        return MagicMock(), oid, False  # its `outcome` is a made-up attribute
    return outcome, oid, False  # the outcome alone is not a reply


@given(replies(), st.sampled_from([DEFAULT_OPTIONS, AAR_PERMISSION_OPTIONS]))
def test_no_reply_but_an_exact_offered_allow_option_allows(
    built: tuple[Any, Any, bool], options: PermissionOptions
) -> None:
    reply, oid, exact = built
    allow_ids = {
        options.ids[ApprovalOutcome.ALLOW_ONCE]: ApprovalOutcome.ALLOW_ONCE,
        options.ids[ApprovalOutcome.ALLOW_ALWAYS]: ApprovalOutcome.ALLOW_ALWAYS,
    }
    answer = answer_of_response(reply, options=options)
    should_allow = exact and type(oid) is str and oid in allow_ids
    assert (answer.outcome in ALLOWING) == should_allow
    if should_allow:
        assert answer.outcome is allow_ids[oid]


json_keys = st.sampled_from(["outcome", "optionId", "option_id", "_meta", "selected"])
json_leaves = st.one_of(
    st.sampled_from(["selected", "cancelled", "allow-once", "allow-always", "reject-once"]),
    st.text(max_size=6),
    st.integers(),
    st.none(),
)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(json_keys, inner, max_size=4)
    ),
    max_leaves=12,
)


def _is_exact_allow_json(reply: Any) -> bool:
    """The protocol's JSON for selecting an offered allow option, and nothing else."""
    if not isinstance(reply, dict) or set(reply) - {"_meta"} != {"outcome"}:
        return False
    outcome = reply["outcome"]
    return (
        isinstance(outcome, dict)
        and set(outcome) - {"_meta"} == {"outcome", "optionId"}
        and outcome["outcome"] == "selected"
        and outcome["optionId"] in ("allow-once", "allow-always")
        and all(isinstance(d.get("_meta"), dict | None) for d in (reply, outcome))
    )


@given(json_values)
def test_json_allows_only_in_the_protocols_exact_form(reply: Any) -> None:
    answer = answer_of_response(reply)
    assert (answer.outcome in ALLOWING) == _is_exact_allow_json(reply)
