"""`safehold mcp-proxy`: a real MCP client talks to a real MCP server through the proxy."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.adapters._frameworks import need

need("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp import types as mt  # noqa: E402

SERVER = Path(__file__).with_name("files_server.py")
SRC = Path(__file__).resolve().parents[3] / "src"


def _env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, "HOME": os.environ.get("HOME", "/tmp")}


def direct(log: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[str(SERVER), str(log)], env=_env())


def proxied(log: Path, ws: Path, config: Path | None = None) -> StdioServerParameters:
    args = ["-m", "safehold.cli", "mcp-proxy", "--cwd", str(ws)]
    if config is not None:
        args += ["--config", str(config)]
    args += ["--", sys.executable, str(SERVER), str(log)]
    return StdioServerParameters(command=sys.executable, args=args, env=_env())


class Person:
    """An elicitation callback that answers with `action` and keeps the messages it saw."""

    def __init__(self, action: str = "accept") -> None:
        self.action = action
        self.messages: list[str] = []

    async def __call__(self, context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        self.messages.append(params.message)
        return mt.ElicitResult(action=self.action)  # type: ignore[arg-type]


def calls(log: Path) -> list[dict[str, str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def text(result: mt.CallToolResult) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("hello")
    (root / ".env").write_text("API_KEY=sk-live-secret")
    return root


async def test_tools_are_listed_unchanged(tmp_path: Path, ws: Path) -> None:
    async with Client(direct(tmp_path / "a.log")) as client:
        expected = await client.list_tools()
    async with Client(proxied(tmp_path / "b.log", ws)) as client:
        got = await client.list_tools()
    assert [t.model_dump() for t in got.tools] == [t.model_dump() for t in expected.tools]
    assert {t.name for t in got.tools} == {"read_file", "write_file", "echo", "shell"}


async def test_read_in_workspace_runs_and_secret_read_is_refused(tmp_path: Path, ws: Path) -> None:
    log = tmp_path / "calls.log"
    person = Person("accept")
    async with Client(proxied(log, ws), elicitation_callback=person) as client:
        ok = await client.call_tool("read_file", {"path": str(ws / "notes.txt")})
        assert not ok.is_error and text(ok) == "hello"
        refused = await client.call_tool("read_file", {"path": str(ws / ".env")})
    assert refused.is_error
    assert "safehold refused" in text(refused) and ".env" in text(refused)
    assert "sk-live-secret" not in text(refused)
    assert person.messages == []  # a deny is not a question
    assert calls(log) == [{"tool": "read_file", "path": str(ws / "notes.txt")}]


async def test_asked_write_runs_only_after_the_client_accepts(tmp_path: Path, ws: Path) -> None:
    log = tmp_path / "calls.log"
    target = ws / "out.txt"
    person = Person("accept")
    async with Client(proxied(log, ws), elicitation_callback=person) as client:
        result = await client.call_tool("write_file", {"path": str(target), "content": "yes"})
    assert not result.is_error, text(result)
    assert target.read_text() == "yes"
    assert len(person.messages) == 1
    assert "write_file" in person.messages[0] and str(target) in person.messages[0]
    assert calls(log) == [{"tool": "write_file", "path": str(target)}]


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_declined_call_never_reaches_the_server(
    tmp_path: Path, ws: Path, action: str
) -> None:
    log = tmp_path / "calls.log"
    target = ws / "out.txt"
    person = Person(action)
    async with Client(proxied(log, ws), elicitation_callback=person) as client:
        result = await client.call_tool("write_file", {"path": str(target), "content": "no"})
        # The connection still works afterwards.
        ok = await client.call_tool("read_file", {"path": str(ws / "notes.txt")})
    assert result.is_error and "safehold refused" in text(result)
    assert not ok.is_error
    assert not target.exists()
    assert [c["tool"] for c in calls(log)] == ["read_file"]
    assert len(person.messages) == 1


async def test_without_elicitation_support_an_ask_is_refused(tmp_path: Path, ws: Path) -> None:
    log = tmp_path / "calls.log"
    target = ws / "out.txt"
    async with Client(proxied(log, ws)) as client:
        result = await client.call_tool("write_file", {"path": str(target), "content": "no"})
    assert result.is_error and "no approval callback" in text(result)
    assert not target.exists() and calls(log) == []


async def test_unannotated_tool_asks_and_config_kinds_override(tmp_path: Path, ws: Path) -> None:
    log = tmp_path / "calls.log"
    person = Person("decline")
    async with Client(proxied(log, ws), elicitation_callback=person) as client:
        asked = await client.call_tool("echo", {"text": "hi"})
    assert asked.is_error and len(person.messages) == 1 and calls(log) == []
    config = tmp_path / "safehold.toml"
    config.write_text('[mcp.tools]\necho = "read"\nwrite_file = { kind = "read" }\n')
    person = Person("decline")
    async with Client(proxied(log, ws, config), elicitation_callback=person) as client:
        said = await client.call_tool("echo", {"text": "hi"})
    assert not said.is_error and text(said) == "hi"
    assert person.messages == [] and calls(log) == [{"tool": "echo", "text": "hi"}]


async def test_an_unanswered_question_times_out_and_denies(tmp_path: Path, ws: Path) -> None:
    log = tmp_path / "calls.log"
    target = ws / "out.txt"
    config = tmp_path / "safehold.toml"
    config.write_text("acp_approval_timeout = 0.5\n")

    async def never(context: Any, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        await asyncio.sleep(60)
        return mt.ElicitResult(action="accept")

    async with Client(proxied(log, ws, config), elicitation_callback=never) as client:
        result = await client.call_tool("write_file", {"path": str(target), "content": "late"})
    assert result.is_error and "no answer arrived" in text(result)
    assert not target.exists() and calls(log) == []


async def test_a_servers_commands_are_judged_unsandboxed(tmp_path: Path, ws: Path) -> None:
    """The server runs its tools' commands on the host, not in safehold's sandbox.

    In auto mode with the default `sandbox.mode = "bwrap"`, inline code would be left to the
    sandbox; through the proxy it asks, and a declined call never reaches the server.
    """
    log = tmp_path / "calls.log"
    config = tmp_path / "safehold.toml"
    config.write_text(
        'mode = "auto"\n[mcp.tools]\nshell = { kind = "execute", command_arg = "command" }\n'
    )
    person = Person("decline")
    async with Client(proxied(log, ws, config), elicitation_callback=person) as client:
        inline = await client.call_tool("shell", {"command": "python3 -c 'import socket'"})
        tests = await client.call_tool("shell", {"command": "npm test"})
    assert inline.is_error and len(person.messages) == 1
    assert not tests.is_error
    assert calls(log) == [{"tool": "shell", "command": "npm test"}]
