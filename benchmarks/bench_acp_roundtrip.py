"""ACP permission round trip in one process: median and p99, client answering at once.

Usage: python benchmarks/bench_acp_roundtrip.py [--runs N]

Three layers over one real SDK connection (agent and client joined by a socketpair):

- ``sdk``: a bare ``conn.request_permission(...)`` with a prebuilt tool call (the SDK's own
  JSON-RPC round trip, the floor nothing can beat);
- ``callback``: ``make_acp_approval_callback`` (builds the ToolCallUpdate, maps the reply);
- ``gate``: ``Gate.check`` of an edit that asks (evaluate → dialog → callback → decision).

The bar (SPEC §10): a permission round trip adds under 2 ms beyond the client's own time;
the client here answers at once, so the ``gate`` median is that figure. Prints; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

import acp
from acp.schema import AgentCapabilities, Implementation, InitializeResponse

from safehold import Decision, Gate, SafetyConfig, SessionPolicies, ToolCall, ToolKind, Verdict
from safehold.adapters.acp import make_acp_approval_callback
from safehold.adapters.acp._compat import SDK_VERSION, selected_response
from safehold.adapters.acp.permission import build_permission_tool_call, permission_options
from safehold.policy.approval import ApprovalRequest

BAR_MS = 2.0


class _Agent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.connected = asyncio.Event()

    def on_connect(self, conn: Any) -> None:
        self.conn = conn
        self.connected.set()

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="bench", version="0"),
        )


class _Client:
    def on_connect(self, conn: Any) -> None:
        pass

    async def request_permission(
        self, session_id: str, tool_call: Any, options: Any, **kw: Any
    ) -> Any:
        return selected_response("allow-once")

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        pass


async def _measure(fn: Callable[[], Awaitable[Any]], runs: int) -> list[float]:
    for _ in range(min(200, runs)):  # warm up
        await fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def _report(name: str, samples: list[float]) -> float:
    median = statistics.median(samples)
    p99 = statistics.quantiles(samples, n=100)[98]
    print(f"{name:<10} median {median:7.3f} ms   p99 {p99:7.3f} ms   (n={len(samples)})")
    return median


async def main(runs: int) -> None:
    logging.getLogger().setLevel(logging.CRITICAL)
    a, b = socket.socketpair()
    agent_reader, agent_writer = await asyncio.open_connection(sock=a)
    client_reader, client_writer = await asyncio.open_connection(sock=b)
    agent = _Agent()
    agent_task = asyncio.create_task(acp.run_agent(agent, agent_writer, agent_reader))
    client_conn = acp.connect_to_agent(_Client(), client_writer, client_reader)
    await asyncio.wait_for(agent.connected.wait(), 5)

    workspace = tempfile.mkdtemp(prefix="safehold-bench-")
    policies = SessionPolicies(SafetyConfig())
    policies.open("s", workspace)
    gate = Gate(policies)
    call = ToolCall("write_file", {"path": f"{workspace}/a.txt"}, ToolKind.EDIT, "call-1")
    decision = Decision(Verdict.ASK)
    request = ApprovalRequest("s", call, decision)
    tool_call = build_permission_tool_call(request)
    options = permission_options()
    callback = make_acp_approval_callback(agent.conn, "s", timeout=30)

    async def sdk() -> None:
        await agent.conn.request_permission(session_id="s", tool_call=tool_call, options=options)

    async def via_callback() -> None:
        await callback(request)

    async def via_gate() -> None:
        result = await gate.check("s", call, callback)
        assert result.allowed

    print(f"agent-client-protocol {SDK_VERSION}")
    base = _report("sdk", await _measure(sdk, runs))
    cb = _report("callback", await _measure(via_callback, runs))
    full = _report("gate", await _measure(via_gate, runs))
    print(
        f"safehold overhead over the bare SDK round trip: callback {cb - base:+.3f} ms, "
        f"gate {full - base:+.3f} ms"
    )
    verdict = "meets" if full < BAR_MS else "MISSES"
    print(f"gate round trip median {full:.3f} ms {verdict} the {BAR_MS} ms bar")

    await client_conn.close()
    agent_task.cancel()
    await asyncio.gather(agent_task, return_exceptions=True)
    for w in (client_writer, agent_writer):
        w.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3000)
    asyncio.run(main(parser.parse_args().runs))
