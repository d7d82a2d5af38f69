"""The complete agent in docs/acp-agent.md runs as written, over a real ACP connection."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from safehold import SafetyConfig
from safehold.adapters.acp._compat import text_block

from .conftest import PermissionClient, acp_pair, answer_with

pytestmark = pytest.mark.acp

DOC = Path(__file__).parents[3] / "docs" / "acp-agent.md"


def load_example() -> dict[str, Any]:
    text = DOC.read_text()
    section = text.split("## A complete minimal agent", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None
    namespace: dict[str, Any] = {"__name__": "my_agent"}
    exec(compile(code.group(1), str(DOC), "exec"), namespace)
    return namespace


def messages(client: PermissionClient) -> list[str]:
    return [
        u.content.text
        for u in client.updates
        if getattr(u, "session_update", "") == "agent_message_chunk"
    ]


async def run_example(tmp_path: Path, client: PermissionClient, *lines: str) -> Any:
    agent_cls = load_example()["GatedAgent"]
    agent = agent_cls(SafetyConfig(acp_approval_timeout=5))
    async with acp_pair(agent, client) as pair:
        conn = pair.client_conn
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        response = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[text_block(x) for x in lines]), 30
        )
        await asyncio.sleep(0.05)  # SDK < 0.12.1 may deliver the last updates after prompt()
    return agent, response


async def test_example_runs_an_allowed_command_and_refuses_a_rejected_one(tmp_path: Path) -> None:
    answers = iter(["allow-once", "reject-once"])

    async def person(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        return await answer_with(next(answers))(session_id, tool_call, options)

    client = PermissionClient(person)
    _, response = await run_example(tmp_path, client, "echo hello-from-sandbox", "touch x")
    assert response.stop_reason == "end_turn"
    [ran, refused] = messages(client)
    assert "hello-from-sandbox" in ran or ran.startswith("sandbox error")
    assert refused.startswith("not run:")
    assert [tc.title for _, tc, _ in client.requests] == ["echo hello-from-sandbox", "touch x"]
    assert not (tmp_path / "x").exists()


async def test_example_denies_without_asking_what_the_policy_denies(tmp_path: Path) -> None:
    client = PermissionClient(answer_with("allow-always"))
    _, response = await run_example(tmp_path, client, "rm -rf /")
    assert response.stop_reason == "end_turn"
    assert messages(client)[0].startswith("not run:")
    assert "deny rule" in messages(client)[0]
    assert client.requests == []  # the policy decided; the person was not asked


async def test_example_stops_the_turn_on_cancel(tmp_path: Path) -> None:
    client = PermissionClient()

    async def stop(session_id: str, tool_call: Any, options: list[Any]) -> Any:
        await client.conn.cancel(session_id=session_id)
        await asyncio.Event().wait()

    client.handler = stop
    _, response = await run_example(tmp_path, client, "echo never")
    assert response.stop_reason == "cancelled"
