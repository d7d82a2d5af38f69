"""`AcpPolicyBridge`: cost of the mode/option surface, in process. Prints medians; asserts nothing.

Usage: python benchmarks/bench_acp_bridge.py [--runs N]

- ``build``: `bridge.config_options(sid)` (the complete option list a response carries);
- ``set_option``: a client's `session/set_config_option` round trip over a real SDK
  connection (socketpair), including the `config_option_update` the agent sends;
- ``set_mode``: the same for `session/set_mode` (two notifications);
- ``gate_allow``: `bridge.gate_tool_call` of an edit that auto mode allows (no dialog).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.adapters.acp.bridge_harness import BridgeAgent, RecordingClient, connected

from safehold import SessionPolicies, ToolCall, ToolKind
from safehold.adapters.acp import AcpPolicyBridge


async def _timed(runs: int, step: Callable[[int], Awaitable[Any]]) -> list[float]:
    out = []
    for i in range(runs):
        t0 = time.perf_counter()
        await step(i)
        out.append((time.perf_counter() - t0) * 1e6)
    return out


def _report(name: str, micros: list[float]) -> None:
    micros.sort()
    p99 = micros[min(len(micros) - 1, int(len(micros) * 0.99))]
    print(f"{name:<12} median {statistics.median(micros):9.1f} us   p99 {p99:9.1f} us")


async def main(runs: int) -> None:
    logging.getLogger().setLevel(logging.CRITICAL)
    policies = SessionPolicies()
    bridge = AcpPolicyBridge(policies)
    agent = BridgeAgent(bridge)
    client = RecordingClient()
    with tempfile.TemporaryDirectory() as ws:
        async with connected(agent, client) as conn:
            sid = (await conn.new_session(cwd=ws, mcp_servers=[])).session_id

            async def build(_: int) -> None:
                bridge.config_options(sid)

            async def set_option(i: int) -> None:
                value = "true" if i % 2 else "false"
                await conn.set_config_option(session_id=sid, config_id="read_only", value=value)

            async def set_mode(i: int) -> None:
                await conn.set_session_mode(session_id=sid, mode_id=("auto", "review")[i % 2])

            _report("build", await _timed(runs, build))
            _report("set_option", await _timed(runs, set_option))
            _report("set_mode", await _timed(runs, set_mode))
            await conn.set_session_mode(session_id=sid, mode_id="auto")
            call = ToolCall(
                name="write_file", arguments={"path": f"{ws}/a.txt"}, kind=ToolKind.EDIT
            )

            async def gate_allow(_: int) -> None:
                await bridge.gate_tool_call(agent.conn, sid, call)

            _report("gate_allow", await _timed(runs, gate_allow))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    asyncio.run(main(parser.parse_args().runs))
