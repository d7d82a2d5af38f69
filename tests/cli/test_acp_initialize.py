"""`safehold acp` answers `initialize` before its heavy imports, and stays correct doing so.

The fast answer must be exactly what the agent answers through the SDK (checked per SDK
version in process), and a first message that is not a plain `initialize` must reach the
SDK byte for byte (checked over a real subprocess's stdio).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from typing import Any

import acp
import pytest
from acp.schema import ClientCapabilities, InitializeResponse

from safehold import __version__
from safehold.adapters.acp.agent import SafeholdAgent
from safehold.cli.acp_initialize import initialize_result

pytestmark = pytest.mark.acp

AGENT = [sys.executable, "-m", "safehold.cli", "acp"]


@pytest.mark.parametrize("version", [0, 1, 2, 99])
async def test_the_early_answer_is_what_the_sdk_path_answers(version: int) -> None:
    params = {"protocolVersion": version, "clientCapabilities": {}}
    early = InitializeResponse.model_validate(initialize_result(params, __version__))
    agent = SafeholdAgent()
    through_sdk = await agent.initialize(
        protocol_version=version, client_capabilities=ClientCapabilities()
    )
    assert early == through_sdk
    assert early.protocol_version == min(version, acp.PROTOCOL_VERSION)


def _talk(lines: list[bytes], replies: int) -> list[dict[str, Any]]:
    """Send `lines` in one write to a real `safehold acp`, read `replies` JSON lines back."""
    proc = subprocess.Popen(
        AGENT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b"".join(lines))
        proc.stdin.flush()
        out = [json.loads(proc.stdout.readline()) for _ in range(replies)]
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return out


def _msg(i: int, method: str, params: Any) -> bytes:
    body = {"jsonrpc": "2.0", "id": i, "method": method, "params": params}
    return json.dumps(body).encode() + b"\n"


def test_initialize_then_a_session_in_one_write(tmp_path: Any) -> None:
    init, new = _talk(
        [
            _msg(7, "initialize", {"protocolVersion": 1, "clientCapabilities": {}}),
            _msg("x", "session/new", {"cwd": str(tmp_path), "mcpServers": []}),
        ],
        2,
    )
    assert init["id"] == 7 and init["result"]["protocolVersion"] == 1
    assert init["result"]["agentCapabilities"]["loadSession"] is True
    assert new["id"] == "x" and new["result"]["modes"]["currentModeId"] == "review"


async def _sdk_reply(line: bytes) -> dict[str, Any]:
    """The SDK's own answer to `line` (in process, over a socketpair, no early reader)."""
    a, b = socket.socketpair()
    agent_reader, agent_writer = await asyncio.open_connection(sock=a)
    client_reader, client_writer = await asyncio.open_connection(sock=b)
    task = asyncio.create_task(
        acp.run_agent(SafeholdAgent(), agent_writer, agent_reader, use_unstable_protocol=True)
    )
    try:
        client_writer.write(line)
        await client_writer.drain()
        reply: dict[str, Any] = json.loads(await asyncio.wait_for(client_reader.readline(), 30))
        return reply
    finally:
        client_writer.close()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        agent_writer.close()


@pytest.mark.parametrize(
    "first",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1"}}\n',
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":true}}\n',
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":[1]}\n',
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,'
        b'"clientCapabilities":[]}}\n',
        b'{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"relative",'
        b'"mcpServers":[]}}\n',
    ],
)
async def test_anything_but_a_plain_initialize_is_left_to_the_sdk(first: bytes) -> None:
    # Whatever the SDK answers (an error, or a success it coerces), the subprocess with the
    # early reader answers the same: the early reader never answers these itself.
    expected = await _sdk_reply(first)
    got, init = await asyncio.to_thread(
        _talk, [first, _msg(2, "initialize", {"protocolVersion": 1})], 2
    )
    assert got == expected
    assert init["id"] == 2 and init["result"]["protocolVersion"] == 1  # still serving


def test_a_line_that_is_not_json_is_left_to_the_sdk() -> None:
    # The SDK skips it (and logs it); the next request is answered as usual.
    [init] = _talk([b"not json at all\n", _msg(2, "initialize", {"protocolVersion": 1})], 1)
    assert init["id"] == 2 and init["result"]["protocolVersion"] == 1


def test_client_capabilities_reach_the_agent(tmp_path: Any) -> None:
    if not hasattr(acp.schema, "ClientSessionCapabilities"):
        pytest.skip("this ACP SDK has no boolean config-option capability")
    caps = {"session": {"configOptions": {"boolean": {}}}}
    _init, new = _talk(
        [
            _msg(1, "initialize", {"protocolVersion": 1, "clientCapabilities": caps}),
            _msg(2, "session/new", {"cwd": str(tmp_path), "mcpServers": []}),
        ],
        2,
    )
    kinds = {o["id"]: o["type"] for o in new["result"]["configOptions"]}
    assert kinds["read_only"] == "boolean"  # the client said it can show toggles


def test_stdout_that_is_not_a_pipe_is_still_refused(tmp_path: Any) -> None:
    with open(tmp_path / "out.txt", "wb") as out:
        done = subprocess.run(
            AGENT, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE, timeout=60
        )
    assert done.returncode != 0
    assert b"pipe or socket" in done.stderr and b"Traceback" not in done.stderr


def _session_replies(
    cwd: str, *, early: bool, extra_args: tuple[str, ...] = (), caps: dict[str, Any] | None = None
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """initialize, session/new, then session/set_mode on that session, over a real process."""
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "SAFEHOLD_ACP_EARLY_SESSION": "1" if early else "0",
    }
    proc = subprocess.Popen(
        [*AGENT, *extra_args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        init = {"protocolVersion": 1, "clientCapabilities": caps or {}}
        proc.stdin.write(_msg(0, "initialize", init))
        proc.stdin.flush()
        first = json.loads(proc.stdout.readline())
        proc.stdin.write(_msg(1, "session/new", {"cwd": cwd, "mcpServers": []}))
        proc.stdin.flush()
        new = json.loads(proc.stdout.readline())
        sid = new["result"]["sessionId"]
        proc.stdin.write(_msg(2, "session/set_mode", {"sessionId": sid, "modeId": "read-only"}))
        proc.stdin.flush()
        for _ in range(10):  # the mode and option updates come first
            mode = json.loads(proc.stdout.readline())
            if mode.get("id") == 2:
                break
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return first, new, mode


@pytest.mark.parametrize(
    ("config", "floor"),
    [("", ""), ('mode = "auto"\n', ""), ("", "review"), ('mode = "read-only"\n', "review")],
    ids=["defaults", "auto", "floor", "read-only"],
)
def test_the_early_session_answer_is_what_the_sdk_path_answers(
    tmp_path: Any, config: str, floor: str
) -> None:
    # Two real agents, one answering `session/new` early and one through the SDK: the
    # results are equal but for the fresh session id, and the early session is open in the
    # agent (a later request on it works).
    extra_args: tuple[str, ...] = ("--floor", floor) if floor else ()
    if config:
        (tmp_path / "policy.toml").write_text(config)
        extra_args += ("--config", str(tmp_path / "policy.toml"))
    _, fast, fast_mode = _session_replies(str(tmp_path), early=True, extra_args=extra_args)
    _, slow, slow_mode = _session_replies(str(tmp_path), early=False, extra_args=extra_args)
    assert "result" in fast and "result" in slow, (fast, slow)
    fast_id = fast["result"].pop("sessionId")
    slow["result"].pop("sessionId")
    assert len(fast_id) == 32 and int(fast_id, 16) >= 0
    assert fast["result"] == slow["result"]
    assert fast_mode == slow_mode
    assert "error" not in fast_mode, fast_mode


def test_a_client_with_session_capabilities_gets_the_sdk_answer(tmp_path: Any) -> None:
    caps = {"session": {"configOptions": {"boolean": {}}}}
    _, fast, _ = _session_replies(str(tmp_path), early=True, caps=caps)
    _, slow, _ = _session_replies(str(tmp_path), early=False, caps=caps)
    fast["result"].pop("sessionId")
    slow["result"].pop("sessionId")
    assert fast["result"] == slow["result"]


def test_a_session_new_for_a_missing_directory_is_left_to_the_sdk(tmp_path: Any) -> None:
    missing = str(tmp_path / "nope")
    _init, new = _talk(
        [
            _msg(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {}}),
            _msg(2, "session/new", {"cwd": missing, "mcpServers": []}),
        ],
        2,
    )
    assert new["id"] == 2 and new["error"]["code"] == -32602
    assert "details" in new["error"]["data"]
