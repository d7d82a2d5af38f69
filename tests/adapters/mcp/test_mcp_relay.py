"""`McpProxy` in-process: the relay's edge cases, with scripted peers on in-memory streams."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safehold import Gate, SafetyConfig, SessionPolicies, ToolCall, Verdict, evaluate
from safehold.adapters.mcp import McpProxy, McpSettings
from tests.strategies import examples

SID = "mcp"


class Sink:
    """A stream writer that keeps every line written to it."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.event = asyncio.Event()
        self.on_line: Any = None

    def write(self, data: bytes) -> None:
        for raw in data.splitlines():
            self.lines.append(json.loads(raw))
            if self.on_line is not None:
                self.on_line(self.lines[-1])
        self.event.set()

    async def drain(self) -> None:
        return None

    async def wait_for(self, predicate: Any) -> dict[str, Any]:
        async def poll() -> dict[str, Any]:
            while True:
                for line in self.lines:
                    if predicate(line):
                        return line
                self.event.clear()
                await self.event.wait()

        return await asyncio.wait_for(poll(), 10)


@dataclass
class Wire:
    client_in: asyncio.StreamReader
    server_out: asyncio.StreamReader
    to_client: Sink = field(default_factory=Sink)
    to_server: Sink = field(default_factory=Sink)

    def client_says(self, message: Any) -> None:
        raw = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.client_in.feed_data(raw + b"\n")

    def server_says(self, message: Any) -> None:
        self.server_out.feed_data(json.dumps(message).encode() + b"\n")


@asynccontextmanager
async def relay(ws: Path, *, elicitation: bool = False) -> AsyncIterator[Wire]:
    policies = SessionPolicies(SafetyConfig())
    policies.open(SID, str(ws))
    tools = {"read_file": "read", "write_file": "edit"}
    proxy = McpProxy(Gate(policies), SID, settings=McpSettings.from_section({"tools": tools}))
    wire = Wire(asyncio.StreamReader(), asyncio.StreamReader())

    def server(message: dict[str, Any]) -> None:
        # The scripted server answers the proxy's own tools/list (it lists no annotations).
        if message.get("method") == "tools/list":
            wire.server_says({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}})

    wire.to_server.on_line = server
    task = asyncio.ensure_future(
        proxy.run(wire.client_in, wire.to_client, wire.to_server, wire.server_out)
    )
    capabilities = {"elicitation": {}} if elicitation else {}
    wire.client_says(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"capabilities": capabilities},
        }
    )
    try:
        yield wire
    finally:
        wire.server_out.feed_eof()
        await asyncio.wait_for(task, 10)


def call(request_id: Any, name: str, path: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": {"path": path}},
    }


async def test_what_cannot_be_read_is_not_forwarded(tmp_path: Path) -> None:
    async with relay(tmp_path) as wire:
        wire.client_says(b'{"jsonrpc":"2.0","id":1,"method":"tools/call"')  # cut short
        reply = await wire.to_client.wait_for(lambda m: "error" in m)
        assert reply["error"]["code"] == -32700
        wire.client_says({"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {}})
        reply = await wire.to_client.wait_for(lambda m: m.get("id") == 2)
        assert reply["error"]["code"] == -32601
    assert [m.get("method") for m in wire.to_server.lines] == ["initialize"]


async def test_batches_are_gated_element_by_element(tmp_path: Path) -> None:
    async with relay(tmp_path) as wire:
        wire.client_says(
            [
                call(1, "read_file", str(tmp_path / ".env")),
                call(2, "read_file", str(tmp_path / "ok.txt")),
                {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}},
            ]
        )
        refused = await wire.to_client.wait_for(lambda m: m.get("id") == 1)
        await wire.to_server.wait_for(lambda m: m.get("id") == 2)
        assert refused["result"]["isError"] is True
    forwarded = [m.get("id") for m in wire.to_server.lines if m.get("method") == "tools/call"]
    assert forwarded == [2]


async def test_a_cancelled_question_never_reaches_the_server(tmp_path: Path) -> None:
    async with relay(tmp_path, elicitation=True) as wire:
        wire.client_says(call(7, "write_file", str(tmp_path / "a.txt")))
        question = await wire.to_client.wait_for(lambda m: m.get("method") == "elicitation/create")
        wire.client_says(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
        )
        withdrawn = await wire.to_client.wait_for(
            lambda m: m.get("method") == "notifications/cancelled"
        )
        assert withdrawn["params"]["requestId"] == question["id"]
        # A late "accept" for the withdrawn question changes nothing.
        wire.client_says({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept"}})
        wire.client_says(call(8, "read_file", str(tmp_path / "b.txt")))
        await wire.to_server.wait_for(lambda m: m.get("id") == 8)
    assert [m.get("id") for m in wire.to_server.lines if m.get("method") == "tools/call"] == [8]
    assert not any(m.get("id") == 7 for m in wire.to_client.lines)


async def test_malformed_elicitation_answers_deny(tmp_path: Path) -> None:
    answers = [
        {"error": {"code": -1, "message": "no"}},
        {"result": {"action": "yes"}},
        {"result": "accept"},
    ]
    async with relay(tmp_path, elicitation=True) as wire:
        for i, answer in enumerate(answers):
            wire.client_says(call(10 + i, "write_file", str(tmp_path / f"{i}.txt")))
            question = await wire.to_client.wait_for(
                lambda m, n=i: (
                    m.get("method") == "elicitation/create"
                    and str(n) + ".txt" in m["params"]["message"]
                )
            )
            wire.client_says({"jsonrpc": "2.0", "id": question["id"], **answer})
            reply = await wire.to_client.wait_for(lambda m, n=i: m.get("id") == 10 + n)
            assert reply["result"]["isError"] is True
    assert not any(m.get("method") == "tools/call" for m in wire.to_server.lines)


async def test_other_traffic_passes_both_ways(tmp_path: Path) -> None:
    async with relay(tmp_path) as wire:
        wire.server_says({"jsonrpc": "2.0", "id": "s1", "method": "roots/list"})
        await wire.to_client.wait_for(lambda m: m.get("id") == "s1")
        wire.client_says({"jsonrpc": "2.0", "id": "s1", "result": {"roots": []}})
        await wire.to_server.wait_for(lambda m: m.get("id") == "s1" and "result" in m)


names = st.sampled_from(["read_file", "write_file", "mystery"])
paths = st.sampled_from([".env", "ok.txt", "../outside.txt", "id_rsa", "sub/x.py", "/etc/shadow"])


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.tuples(names, paths), min_size=1, max_size=6))
def test_only_allowed_calls_reach_the_server(tmp_path: Path, calls: list[tuple[str, str]]) -> None:
    """Without elicitation, exactly the calls `evaluate` allows are forwarded."""
    kinds = {"read_file": "read", "write_file": "edit"}

    async def scenario() -> list[int]:
        async with relay(tmp_path) as wire:
            for i, (name, path) in enumerate(calls):
                wire.client_says(call(i, name, str(tmp_path / path)))
            for i in range(len(calls)):
                await asyncio.wait_for(_answered(wire, i), 10)
        return [m["id"] for m in wire.to_server.lines if m.get("method") == "tools/call"]

    forwarded = asyncio.run(scenario())
    expected = [
        i
        for i, (name, path) in enumerate(calls)
        if evaluate(
            SafetyConfig(),
            ToolCall(name, {"path": str(tmp_path / path)}, kinds.get(name, "other")),
            workspace=str(tmp_path),
        ).verdict
        is Verdict.ALLOW
    ]
    assert sorted(forwarded) == expected


async def _answered(wire: Wire, request_id: int) -> None:
    seen = wire.to_client.lines, wire.to_server.lines
    while not any(m.get("id") == request_id for lines in seen for m in lines):  # noqa: ASYNC110 (either side)
        await asyncio.sleep(0.005)
