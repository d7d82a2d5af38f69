"""End to end: `safehold acp` offers scoped "always allow" options; a project grant made in one
agent process holds in the next one, until `safehold grants revoke` removes it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import AllowedOutcome, ClientCapabilities, RequestPermissionResponse

from tests.adapters.acp.bridge_harness import RecordingClient
from tests.e2e.conftest import AGENT, _pythonpath
from tests.e2e.test_acp_agent import finished, prompt

pytestmark = [pytest.mark.acp, pytest.mark.sandbox]


@dataclass
class ById(RecordingClient):
    """Answers every permission request with one option id."""

    option_id: str = "allow-once"

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append((session_id, tool_call, options))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.option_id)
        )


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {
        "PYTHONUNBUFFERED": "1",
        "HOME": str(home),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        **_pythonpath(),
    }


def safehold(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "safehold", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


@asynccontextmanager
async def agent(
    tmp_path: Path, env: dict[str, str], client: ById, *extra: str
) -> AsyncIterator[Any]:
    args = [*AGENT[1:], "--log-file", str(tmp_path / "agent.log"), *extra]
    async with acp.spawn_agent_process(
        client,
        AGENT[0],
        *args,
        env=env,
        cwd=str(tmp_path),
        transport_kwargs={"stderr": asyncio.subprocess.DEVNULL, "shutdown_timeout": 30.0},
        use_unstable_protocol=True,
    ) as (conn, _process):
        await asyncio.wait_for(
            conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
            ),
            timeout=30,
        )
        yield conn


async def test_a_project_grant_outlives_the_agent_until_revoked(
    tmp_path: Path, env: dict[str, str]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    first = ById(option_id="allow-always-project")
    async with agent(tmp_path, env, first) as conn:
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        await prompt(conn, sid, "mkdir -p out")
        (done,) = await finished(first)
    assert done.status == "completed" and (ws / "out").is_dir()
    (_, _, options) = first.permission_requests[0]
    assert [o.option_id for o in options] == [
        "allow-once",
        "allow-always",
        "allow-always-project",
        "allow-always-user",
        "reject-once",
        "reject-always",
    ]

    listed = await asyncio.to_thread(safehold, env, "grants", "list", "--json", "--cwd", str(ws))
    (row,) = json.loads(listed.stdout)
    assert (row["scope"], row["effect"], row["what"]) == ("project", "allow", "mkdir -p out")

    second = ById(option_id="reject-once")  # would deny if asked
    async with agent(tmp_path, env, second) as conn:
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        await prompt(conn, sid, "mkdir -p out")
        (done,) = await finished(second)
    assert done.status == "completed" and second.permission_requests == []

    revoked = await asyncio.to_thread(
        safehold, env, "grants", "revoke", row["id"], "--cwd", str(ws)
    )
    assert revoked.returncode == 0, revoked.stderr
    third = ById(option_id="reject-once")
    async with agent(tmp_path, env, third) as conn:
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        await prompt(conn, sid, "mkdir -p out")
        (done,) = await finished(third)
    assert done.status == "failed" and len(third.permission_requests) == 1


async def test_grant_scopes_session_offers_only_the_four(
    tmp_path: Path, env: dict[str, str]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    client = ById(option_id="allow-always-user")  # not offered: denied
    async with agent(tmp_path, env, client, "--grant-scopes", "session") as conn:
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        await prompt(conn, sid, "mkdir -p out")
        (done,) = await finished(client)
    assert done.status == "failed" and not (ws / "out").exists()
    (_, _, options) = client.permission_requests[0]
    assert [o.option_id for o in options] == [
        "allow-once",
        "allow-always",
        "reject-once",
        "reject-always",
    ]
    assert not (tmp_path / "state" / "safehold" / "grants").exists()
