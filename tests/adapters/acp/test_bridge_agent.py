"""The reference agent (`SafeholdAgent`) in process: the bridge as an agent really wires it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from acp import RequestError
from acp.schema import TextContentBlock

from safehold import SafetyConfig
from safehold.adapters.acp.agent import SafeholdAgent
from tests.adapters.acp.bridge_harness import RecordingClient, connected, eventually

pytestmark = [pytest.mark.acp, pytest.mark.sandbox]


def text(t: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=t)]


async def test_a_second_prompt_while_one_runs_is_refused(tmp_path: Path) -> None:
    client = RecordingClient(answer="allow_once", hold=asyncio.Event())
    async with connected(SafeholdAgent(), client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        first = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=text("touch a.txt")))
        await eventually(lambda: client.permission_requests, "the first prompt asks")
        with pytest.raises(RequestError) as err:
            await conn.prompt(session_id=sid, prompt=text("touch b.txt"))
        assert client.hold is not None
        client.hold.set()
        resp = await asyncio.wait_for(first, 30)
    assert err.value.code == -32600
    assert resp.stop_reason == "end_turn"
    assert (tmp_path / "a.txt").exists()
    assert not (tmp_path / "b.txt").exists()


async def test_comments_and_blank_lines_are_not_commands(tmp_path: Path) -> None:
    client = RecordingClient()
    async with connected(SafeholdAgent(SafetyConfig(read_only=True)), client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=text("# a comment\n\n   \nls"))
        await eventually(lambda: client.of_kind("agent_message_chunk"), "summary")
    assert [u.title for u in client.of_kind("tool_call")] == ["ls"]


async def test_an_empty_prompt_gets_help_not_tool_calls(tmp_path: Path) -> None:
    client = RecordingClient()
    async with connected(SafeholdAgent(), client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        resp = await conn.prompt(session_id=sid, prompt=text("\n# nothing\n"))
        await eventually(lambda: client.of_kind("agent_message_chunk"), "help")
    assert resp.stop_reason == "end_turn"
    assert client.of_kind("tool_call") == []
    assert "one per line" in client.of_kind("agent_message_chunk")[0].content.text


async def test_closing_a_session_mid_question_runs_nothing(tmp_path: Path) -> None:
    client = RecordingClient(answer="allow_always", hold=asyncio.Event())
    agent = SafeholdAgent()
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=text("touch a.txt")))
        await eventually(lambda: client.permission_requests, "asked")
        await conn.close_session(session_id=sid)
        assert client.hold is not None
        client.hold.set()  # the person says "always allow" after the session is gone
        resp = await asyncio.wait_for(turn, 30)
    assert resp.stop_reason == "cancelled"
    assert not (tmp_path / "a.txt").exists()
    assert not agent.policies.is_open(sid)
    assert dict(agent.policies.grants(sid)) == {}


async def test_tool_call_titles_make_control_characters_visible(tmp_path: Path) -> None:
    # An escape sequence or a bidi override in a prompt line must not let the card's
    # title show something other than the command that is gated.
    client = RecordingClient()
    async with connected(SafeholdAgent(SafetyConfig(read_only=True)), client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=text("rm -rf x\x1b[2K\u202els"))
        await eventually(lambda: client.of_kind("agent_message_chunk"), "summary")
    titles = [u.title for u in client.of_kind("tool_call")]
    assert titles == ["rm -rf x\\x1b[2K\\u202els"]
