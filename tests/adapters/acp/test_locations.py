"""Tool calls as ACP means them: absolute `locations`, compact `rawOutput`, honest wording.

Over the SDK's real connection (socketpair): the bridge asks the client, and what the
client receives is checked.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safehold.adapters.acp.bridge import AcpPolicyBridge
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.locations import call_locations
from safehold.policy.sessions import SessionPolicies
from tests.adapters.acp.bridge_harness import BridgeAgent, RecordingClient, connected
from tests.strategies import examples

pytestmark = pytest.mark.acp


async def _asked(tmp_path: Path, call: ToolCall, answer: str = "reject_once") -> tuple[Any, Any]:
    agent = BridgeAgent(AcpPolicyBridge(SessionPolicies()))
    client = RecordingClient(answer=answer)
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        decision = await agent.bridge.gate_tool_call(agent.conn, sid, call)
    [(_sid, tool_call, _options)] = client.permission_requests
    return tool_call, decision


async def test_a_shell_command_carries_absolute_locations(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    call = ToolCall(
        "bash",
        {"command": "cd sub && cat ../notes.txt ~/x > out.log; cp notes.txt /tmp/copy"},
        ToolKind.EXECUTE,
        tool_call_id="c1",
    )
    tool_call, _ = await _asked(tmp_path, call)
    paths = [loc.path for loc in tool_call.locations]
    home = os.environ["HOME"]
    for expected in (
        f"{tmp_path}/notes.txt",  # `../notes.txt` after `cd sub`
        f"{home}/x",
        f"{tmp_path}/sub/out.log",
        f"{tmp_path}/out.log",  # the engine checks both readings of a relative redirect
        "/tmp/copy",
    ):
        assert expected in paths, (expected, paths)
    assert all(p.startswith("/") and "/../" not in p for p in paths)


async def test_an_edit_with_a_relative_path_gets_an_absolute_location(tmp_path: Path) -> None:
    call = ToolCall("write_file", {"path": "src/app.py", "content": "x"}, ToolKind.EDIT)
    tool_call, _ = await _asked(tmp_path, call)
    assert [loc.path for loc in tool_call.locations] == [f"{tmp_path}/src/app.py"]
    assert tool_call.title == "write_file src/app.py"  # the title shows what the agent sent


async def test_a_refusal_never_claims_a_person_answered(tmp_path: Path) -> None:
    call = ToolCall("bash", {"command": "touch x"}, ToolKind.EXECUTE)
    for answer in ("reject_once", "reject_always", "allow_once"):
        _, decision = await _asked(tmp_path, call, answer)
        text = " ".join(r.message for r in decision.reasons)
        assert "person" not in text, text


def test_without_a_workspace_relative_paths_are_left_out() -> None:
    call = ToolCall("bash", {"command": "cat ./a /etc/hosts"}, ToolKind.EXECUTE)
    assert call_locations(call, None) == ("/etc/hosts",)
    assert call_locations(call, "/ws") == ("/ws/a", "/etc/hosts")


def test_words_that_are_not_paths_are_not_locations() -> None:
    call = ToolCall("bash", {"command": "echo hello https://example.com/x"}, ToolKind.EXECUTE)
    assert call_locations(call, "/nonexistent-ws") == ()


@settings(max_examples=examples(200), deadline=None)
@given(st.text(max_size=200))
def test_locations_are_absolute_and_never_raise(command: str) -> None:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    paths = call_locations(call, "/ws", home="/home/u")
    assert len(paths) == len(set(paths)) <= 64
    assert all(p.startswith("/") for p in paths)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("touch x.txt", ["/nonexistent-ws/x.txt"]),
        ("mkdir build", ["/nonexistent-ws/build"]),
        ("touch server.pem", ["/nonexistent-ws/server.pem"]),  # denied for that very path
        ("rm -f old.log", ["/nonexistent-ws/old.log"]),
        ("cd sub && touch y", ["/nonexistent-ws/y", "/nonexistent-ws/sub/y"]),  # either base
    ],
)
def test_a_path_the_engine_judges_is_a_location_whether_or_not_it_exists(
    command: str, expected: list[str]
) -> None:
    # A bare word with a file role (touch's, mkdir's, rm's operands) is a path although
    # nothing of that name exists yet: the person sees where the write lands.
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    assert list(call_locations(call, "/nonexistent-ws")) == expected
