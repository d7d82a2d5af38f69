"""A client that restarts `safehold acp` between prompts (as acpx does) keeps the session's mode.

Each test spawns the agent as a real subprocess, drives it with the SDK's client over
stdio, lets it exit, spawns a new one and continues the session with `session/load` or
`session/resume` (issue 14: a read-only session came back in review and a write ran).
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from acp import RequestError

from tests.e2e.conftest import AGENT, Spawn
from tests.e2e.test_acp_agent import finished, prompt

pytestmark = [pytest.mark.acp, pytest.mark.sandbox]


async def _continue(conn: object, how: str, sid: str, cwd: Path) -> object:
    if how == "load":
        return await conn.load_session(session_id=sid, cwd=str(cwd), mcp_servers=[])  # type: ignore[attr-defined]
    return await conn.resume_session(session_id=sid, cwd=str(cwd))  # type: ignore[attr-defined]


@pytest.mark.parametrize("how", ["load", "resume"])
async def test_a_restarted_agent_continues_a_read_only_session(
    spawn_acp: Spawn, workspace: Path, tmp_path: Path, how: str
) -> None:
    state = tmp_path / "state"
    flags = ("--state-dir", str(state))
    async with spawn_acp(answer="allow_once", extra_args=flags) as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="read-only")
        await prompt(conn, sid, "touch first.txt")
        await finished(client)
    # The first process is gone; a new one continues the session.
    async with spawn_acp(answer="allow_once", extra_args=flags) as (conn, client):
        resp = await _continue(conn, how, sid, workspace)
        assert resp.modes.current_mode_id == "read-only"  # type: ignore[attr-defined]
        await prompt(conn, sid, "touch second.txt")
        [update] = await finished(client)
    assert update.status == "failed"
    assert "read-only" in update.raw_output["reasons"]
    assert not (workspace / "first.txt").exists()
    assert not (workspace / "second.txt").exists()
    assert client.permission_requests == []
    # The saved record is private to the user.
    [record] = [p for p in state.iterdir() if not p.name.startswith(".")]
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert stat.S_IMODE(state.stat().st_mode) == 0o700


async def test_always_grants_survive_a_restart(
    spawn_acp: Spawn, workspace: Path, tmp_path: Path
) -> None:
    flags = ("--state-dir", str(tmp_path / "state"))
    async with spawn_acp(answer="allow_always", extra_args=flags) as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await prompt(conn, sid, "mkdir -p out")
        await finished(client)
    async with spawn_acp(answer="reject_once", extra_args=flags) as (conn, client):
        await conn.load_session(session_id=sid, cwd=str(workspace), mcp_servers=[])
        await prompt(conn, sid, "mkdir -p out")
        [update] = await finished(client)
    assert client.permission_requests == []  # the grant answered, nobody was asked
    assert update.status == "completed"


@pytest.mark.parametrize("how", ["load", "resume"])
async def test_without_a_state_dir_an_unknown_session_is_not_found(
    spawn_acp: Spawn, workspace: Path, how: str
) -> None:
    async with spawn_acp() as (conn, _client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="read-only")
    async with spawn_acp() as (conn, client):
        with pytest.raises(RequestError) as err:
            await _continue(conn, how, sid, workspace)
        assert err.value.code == -32002
        # Clients such as Toad show `error.data.details` to the person.
        assert isinstance(err.value.data, dict)
        assert "no saved state" in err.value.data["details"]
        assert err.value.data["sessionId"] == sid
        with pytest.raises(RequestError):  # and no session was opened at the defaults
            await prompt(conn, sid, "touch x.txt")
    assert not (workspace / "x.txt").exists()
    assert client.permission_requests == []


async def test_a_closed_session_is_not_continued_after_a_restart(
    spawn_acp: Spawn, workspace: Path, tmp_path: Path
) -> None:
    flags = ("--state-dir", str(tmp_path / "state"))
    async with spawn_acp(extra_args=flags) as (conn, _client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.close_session(session_id=sid)
    async with spawn_acp(extra_args=flags) as (conn, _client):
        with pytest.raises(RequestError) as err:
            await conn.resume_session(session_id=sid, cwd=str(workspace))
    assert err.value.code == -32002


def test_a_state_dir_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    os.symlink(real, link)
    done = subprocess.run(
        [*AGENT, "--state-dir", str(link)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "symlink" in done.stderr and "Traceback" not in done.stderr


async def test_tool_call_ids_are_unique_across_processes(
    spawn_acp: Spawn, workspace: Path, tmp_path: Path
) -> None:
    # Two processes continue one saved session: each numbers its calls from 1, and the ids
    # must still differ, or the client would merge two calls' updates into one.
    flags = ("--state-dir", str(tmp_path / "state"))
    ids = []
    async with spawn_acp(answer="allow_once", extra_args=flags) as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await prompt(conn, sid, "ls")
        [update] = await finished(client)
        ids.append(update.tool_call_id)
    async with spawn_acp(answer="allow_once", extra_args=flags) as (conn, client):
        await conn.load_session(session_id=sid, cwd=str(workspace), mcp_servers=[])
        await prompt(conn, sid, "ls")
        [update] = await finished(client)
        ids.append(update.tool_call_id)
    assert ids[0] != ids[1], ids
