"""End to end: `safehold acp` in a subprocess, driven by the ACP SDK's real client over stdio.

Each test checks what a person in an editor would see (notifications, tool-call statuses,
permission requests, JSON-RPC errors) and what really happened on disk.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import acp
import pytest
from acp import RequestError
from acp.schema import TextContentBlock

from tests.adapters.acp.bridge_harness import current_values, eventually
from tests.e2e.conftest import AGENT, Spawn

pytestmark = [pytest.mark.acp, pytest.mark.sandbox]

TIMEOUT = 30  # seconds; generous bound against a hung agent, never a timing assertion


async def prompt(conn: Any, session_id: str, text: str) -> Any:
    block = TextContentBlock(type="text", text=text)
    return await asyncio.wait_for(
        conn.prompt(session_id=session_id, prompt=[block]), timeout=TIMEOUT
    )


async def finished(client: Any, count: int = 1) -> list[Any]:
    """The final tool_call_update of each command, once `count` of them arrived."""

    def done() -> list[Any]:
        return [
            u for u in client.of_kind("tool_call_update") if u.status in ("completed", "failed")
        ]

    await eventually(lambda: len(done()) >= count, f"{count} finished tool calls")
    return done()


def reason_codes(update: Any) -> list[str]:
    return list(update.raw_output["reasons"])


async def test_lifecycle_new_list_fork_close_load_resume(spawn_acp: Spawn, workspace: Path) -> None:
    other = workspace / "sub"
    other.mkdir()
    async with spawn_acp() as (conn, _client):
        caps = (await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)).agent_capabilities
        assert caps.load_session is True
        sc = caps.session_capabilities
        for name in ("list", "fork", "resume", "close"):
            if name in type(sc).model_fields:
                assert getattr(sc, name) is not None, name
        a = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        b = (await conn.new_session(cwd=str(other), mcp_servers=[])).session_id
        listed = {s.session_id: s.cwd for s in (await conn.list_sessions()).sessions}
        assert listed == {a: str(workspace), b: str(other)}
        only_b = (await conn.list_sessions(cwd=str(other))).sessions
        assert [s.session_id for s in only_b] == [b]

        child = (await conn.fork_session(session_id=a, cwd=str(workspace))).session_id
        assert child not in (a, b)
        await conn.close_session(session_id=b)
        listed = {s.session_id for s in (await conn.list_sessions()).sessions}
        assert listed == {a, child}

        with pytest.raises(RequestError) as gone:  # closed: nothing to continue
            await conn.load_session(session_id=b, cwd=str(other), mcp_servers=[])
        assert gone.value.code == -32002
        loaded = await conn.load_session(session_id=a, cwd=str(other), mcp_servers=[])
        assert loaded.modes.current_mode_id == "review"
        resumed = await conn.resume_session(session_id=a, cwd=str(workspace))
        assert resumed.modes.current_mode_id == "review"
        assert {s.session_id for s in (await conn.list_sessions()).sessions} == {a, child}


@pytest.mark.parametrize(
    ("mode", "answer", "asked", "created"),
    [
        ("auto", "reject_once", False, True),
        ("review", "allow_once", True, True),
        ("review", "reject_once", True, False),
        ("read-only", "allow_once", False, False),
    ],
)
async def test_each_mode_decides_whether_a_write_command_runs(
    spawn_acp: Spawn, workspace: Path, mode: str, answer: str, asked: bool, created: bool
) -> None:
    async with spawn_acp(answer=answer) as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id=mode)
        resp = await prompt(conn, sid, "touch made.txt")
        [update] = await finished(client)
    assert resp.stop_reason == "end_turn"
    assert (workspace / "made.txt").exists() is created
    assert bool(client.permission_requests) is asked
    assert update.status == ("completed" if created else "failed")
    [start] = client.of_kind("tool_call")
    assert (start.title, start.kind, start.status) == ("touch made.txt", "execute", "pending")
    if asked:
        [(_, tool_call, _options)] = client.permission_requests
        assert tool_call.tool_call_id == start.tool_call_id
    if mode == "read-only":
        assert "read-only" in reason_codes(update)


async def test_command_output_and_exit_code_come_back(spawn_acp: Spawn, workspace: Path) -> None:
    async with spawn_acp() as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        await prompt(conn, sid, "echo hello-from-the-sandbox\nfalse")
        ok, bad = await finished(client, 2)
    assert ok.status == "completed"
    assert "hello-from-the-sandbox" in ok.content[0].content.text
    assert ok.raw_output["exit_code"] == 0 and ok.raw_output["sandboxed"] is True
    assert bad.status == "failed" and bad.raw_output["exit_code"] == 1


async def test_mode_and_option_changes_notify_the_client(spawn_acp: Spawn, workspace: Path) -> None:
    async with spawn_acp() as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        resp = await conn.set_config_option(session_id=sid, config_id="read_only", value="true")
        await eventually(lambda: len(client.of_kind("config_option_update")) == 2, "updates")
    assert [u.current_mode_id for u in client.of_kind("current_mode_update")] == [
        "auto",
        "read-only",
    ]
    first, second = client.of_kind("config_option_update")
    assert current_values(first.config_options)["auto_approve_writes"] == "true"
    assert current_values(second.config_options) == current_values(resp.config_options)
    assert current_values(resp.config_options) == {
        "mode": "read-only",
        "auto_approve_writes": "false",
        "auto_approve_execute": "false",
        "read_only": "true",
    }


async def test_fork_inherits_the_mode_and_load_keeps_it(spawn_acp: Spawn, workspace: Path) -> None:
    async with spawn_acp(answer="allow_once") as (conn, client):
        parent = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=parent, mode_id="read-only")
        fork = await conn.fork_session(session_id=parent, cwd=str(workspace))
        assert fork.modes.current_mode_id == "read-only"
        await prompt(conn, fork.session_id, "touch from-fork.txt")
        await finished(client)
        assert not (workspace / "from-fork.txt").exists()
        assert client.permission_requests == []  # read-only denies without asking

        loaded = await conn.load_session(session_id=parent, cwd=str(workspace), mcp_servers=[])
        assert loaded.modes.current_mode_id == "read-only"
        await prompt(conn, parent, "touch after-load.txt")
        await finished(client, 2)
    assert not (workspace / "after-load.txt").exists()  # still read-only after the load
    assert client.permission_requests == []


async def test_allow_always_is_remembered_for_the_session(
    spawn_acp: Spawn, workspace: Path
) -> None:
    async with spawn_acp(answer="allow_always") as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await prompt(conn, sid, "mkdir -p out")
        client.answer = "reject_once"  # would deny if asked again
        await prompt(conn, sid, "mkdir -p out")
        first, second = await finished(client, 2)
    assert len(client.permission_requests) == 1
    assert first.status == second.status == "completed"


@pytest.mark.parametrize(
    ("method", "args", "words"),
    [
        ("set_session_mode", {"mode_id": "yolo"}, "unknown mode `yolo`"),
        ("set_config_option", {"config_id": "nope", "value": "true"}, "unknown config option"),
        ("set_config_option", {"config_id": "read_only", "value": "maybe"}, "`read_only` takes"),
        ("set_config_option", {"config_id": "mode", "value": "root"}, "unknown mode `root`"),
    ],
)
async def test_bad_mode_or_option_is_invalid_params(
    spawn_acp: Spawn, workspace: Path, method: str, args: dict[str, Any], words: str
) -> None:
    async with spawn_acp() as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        with pytest.raises(RequestError) as err:
            await getattr(conn, method)(session_id=sid, **args)
        assert err.value.code == -32602
        assert words in str(err.value)
        # Nothing changed, and the agent keeps serving.
        again = await conn.resume_session(session_id=sid, cwd=str(workspace))
    assert current_values(again.config_options)["mode"] == "review"
    assert client.of_kind("config_option_update") == []


@pytest.mark.parametrize("method", ["set_session_mode", "set_config_option", "prompt", "close"])
async def test_unknown_session_is_invalid_params(
    spawn_acp: Spawn, workspace: Path, method: str
) -> None:
    async with spawn_acp() as (conn, _client):
        calls = {
            "set_session_mode": lambda: conn.set_session_mode(session_id="ghost", mode_id="auto"),
            "set_config_option": lambda: conn.set_config_option(
                session_id="ghost", config_id="read_only", value="false"
            ),
            "prompt": lambda: prompt(conn, "ghost", "touch x"),
            "close": lambda: conn.close_session(session_id="ghost"),
        }
        with pytest.raises(RequestError) as err:
            await calls[method]()
    assert err.value.code == -32602
    assert "ghost" in str(err.value)
    assert not (workspace / "x").exists()


async def test_missing_cwd_is_invalid_params(spawn_acp: Spawn, workspace: Path) -> None:
    async with spawn_acp() as (conn, _client):
        with pytest.raises(RequestError) as err:
            await conn.new_session(cwd=str(workspace / "does-not-exist"), mcp_servers=[])
    assert err.value.code == -32602


async def test_unanswered_permission_times_out_and_denies(
    spawn_acp: Spawn, workspace: Path
) -> None:
    async with spawn_acp({"acp_approval_timeout": 0.3}, answer="allow_once") as (conn, client):
        client.hold = asyncio.Event()  # the person never answers (until after the timeout)
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        resp = await prompt(conn, sid, "touch late.txt")
        [update] = await finished(client)
        client.hold.set()
    assert resp.stop_reason == "end_turn"
    assert update.status == "failed"
    assert reason_codes(update)[0] == "approval-timed-out"
    assert not (workspace / "late.txt").exists()


async def test_cancel_during_a_permission_wait_ends_the_turn(
    spawn_acp: Spawn, workspace: Path
) -> None:
    async with spawn_acp(answer="allow_once") as (conn, client):
        client.hold = asyncio.Event()
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(prompt(conn, sid, "touch one.txt\ntouch two.txt"))
        await eventually(lambda: client.permission_requests, "permission request")
        await conn.cancel(session_id=sid)
        resp = await asyncio.wait_for(turn, TIMEOUT)
        client.hold.set()
    assert resp.stop_reason == "cancelled"
    assert not (workspace / "one.txt").exists()
    assert not (workspace / "two.txt").exists()
    assert len(client.of_kind("tool_call")) == 1  # the second line never started


async def test_cancel_stops_a_running_command(spawn_acp: Spawn, workspace: Path) -> None:
    async with spawn_acp() as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        turn = asyncio.ensure_future(prompt(conn, sid, "sleep 120\ntouch after.txt"))
        await eventually(
            lambda: any(u.status == "in_progress" for u in client.of_kind("tool_call_update")),
            "the command is running",
        )
        await conn.cancel(session_id=sid)
        resp = await asyncio.wait_for(turn, TIMEOUT)
        [update] = await finished(client)
    assert resp.stop_reason == "cancelled"
    assert update.status == "failed"
    assert "cancelled" in update.content[0].content.text
    assert not (workspace / "after.txt").exists()


async def test_floor_flag_refuses_auto(spawn_acp: Spawn, workspace: Path) -> None:
    async with spawn_acp(extra_args=("--floor", "review")) as (conn, _client):
        resp = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert [m.id for m in resp.modes.available_modes] == ["review", "read-only"]
        with pytest.raises(RequestError) as err:
            await conn.set_session_mode(session_id=resp.session_id, mode_id="auto")
    assert err.value.code == -32602
    assert "floor" in str(err.value)


async def test_logs_go_to_the_log_file_not_stdout(
    spawn_acp: Spawn, workspace: Path, tmp_path: Path
) -> None:
    async with spawn_acp() as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        await prompt(conn, sid, "echo logged")
        await finished(client)
    # The protocol worked (stdout stayed clean) and the decision was logged to the file.
    assert "echo logged -> allow" in (tmp_path / "agent.log").read_text(encoding="utf-8")


async def test_every_decision_lands_in_the_audit_log(
    spawn_acp: Spawn, workspace: Path, tmp_path: Path
) -> None:
    audit = tmp_path / "audit.jsonl"
    async with spawn_acp({"audit": {"path": str(audit)}}, answer="reject_once") as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await prompt(conn, sid, "touch asked.txt\ncat .env")
        await finished(client, 2)
    records = [json.loads(line) for line in audit.read_text(encoding="utf-8").splitlines()]
    assert [(r["session"], r["verdict"], r["asked"]) for r in records] == [
        (sid, "deny", True),
        (sid, "deny", False),
    ]
    assert records[0]["outcome"] == "reject_once"
    assert records[1]["reasons"][0]["code"] == "path-denied"


async def test_without_a_working_sandbox_nothing_runs(spawn_acp: Spawn, workspace: Path) -> None:
    config = {"sandbox": {"bwrap_path": "/nonexistent/bwrap"}}
    async with spawn_acp(config) as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        await prompt(conn, sid, "touch never.txt")
        [update] = await finished(client)
    assert update.status == "failed"
    assert "sandbox could not run it" in update.content[0].content.text
    assert update.raw_output["verdict"] == "allow"  # allowed, yet not run
    assert not (workspace / "never.txt").exists()


def test_unwritable_audit_path_is_one_error_line(tmp_path: Path) -> None:
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"audit": {"path": "/proc/nope/audit.jsonl"}}), encoding="utf-8")
    done = subprocess.run(
        [*AGENT, "--config", str(config)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: audit.path")
    assert "Traceback" not in done.stderr


def test_bad_config_file_is_one_error_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("read_only = 'yes'\n", encoding="utf-8")
    done = subprocess.run(
        [*AGENT, "--config", str(bad)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("error: ")
    assert "read_only" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("stdin", ["empty pipe", "/dev/null"])
def test_closed_stdin_ends_the_agent_cleanly(stdin: str) -> None:
    source: Any = {"empty pipe": None, "/dev/null": subprocess.DEVNULL}[stdin]
    done = subprocess.run(
        [*AGENT],
        input="" if source is None else None,
        stdin=source,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout == ""
    assert "Traceback" not in done.stderr


def test_stdout_to_a_file_is_refused_with_one_error_line(tmp_path: Path) -> None:
    with (tmp_path / "out.json").open("wb") as out:
        done = subprocess.run(
            [*AGENT],
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=subprocess.PIPE,
            timeout=TIMEOUT,
            check=False,
        )
    assert done.returncode == 1
    assert done.stderr.decode().startswith("error: `safehold acp` speaks ACP on stdout")
    assert (tmp_path / "out.json").read_bytes() == b""


def test_agent_module_is_the_cli_entry() -> None:
    assert AGENT[0] == sys.executable


async def test_tool_calls_carry_absolute_locations_and_a_compact_raw_output(
    spawn_acp: Spawn, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("hi\n")
    async with spawn_acp(answer="reject_once") as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await prompt(conn, sid, "cat ./notes.txt > copy.txt")
        [update] = await finished(client)
    [start] = client.of_kind("tool_call")
    paths = [loc.path for loc in start.locations]
    assert f"{workspace}/notes.txt" in paths and f"{workspace}/copy.txt" in paths
    [(_, asked, _)] = client.permission_requests
    assert {loc.path for loc in asked.locations} >= {f"{workspace}/notes.txt"}
    # rawOutput: the verdict and reason codes only (acpx prints it before every result).
    assert set(update.raw_output) == {"verdict", "reasons"}
    assert update.raw_output["verdict"] == "deny"
    assert "rejected-once" in update.raw_output["reasons"]
    assert all(isinstance(c, str) for c in update.raw_output["reasons"])
    text = update.content[0].content.text
    assert "person" not in text


async def test_run_prefix_and_fenced_blocks_are_commands_and_prose_is_not(
    spawn_acp: Spawn, workspace: Path
) -> None:
    async with spawn_acp() as (conn, client):
        sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        text = (
            "Please make two files:\nrun: touch one.txt\n```sh\ntouch two.txt\n```\ntouch never.txt"
        )
        await prompt(conn, sid, text)
        await finished(client, 2)
    titles = [u.title for u in client.of_kind("tool_call")]
    assert titles == ["touch one.txt", "touch two.txt"]
    assert (workspace / "one.txt").exists() and (workspace / "two.txt").exists()
    assert not (workspace / "never.txt").exists()
