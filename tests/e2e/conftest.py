"""Spawn `safehold acp` as a real subprocess and drive it with the ACP SDK's own client."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import ClientCapabilities

from tests.adapters.acp.bridge_harness import RecordingClient

AGENT = [sys.executable, "-m", "safehold.cli", "acp"]

Spawn = Callable[..., AbstractAsyncContextManager[tuple[Any, RecordingClient]]]


def _pythonpath() -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return {"PYTHONPATH": path} if path else {}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The session's working directory (kept apart from config and log files)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def spawn_acp(tmp_path: Path) -> Spawn:
    """`async with spawn_acp(config={...}, answer=...) as (conn, client)`: an initialized agent."""

    @asynccontextmanager
    async def spawn(
        config: dict[str, Any] | None = None,
        *,
        answer: str | None = "allow_once",
        capabilities: ClientCapabilities | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> AsyncIterator[tuple[Any, RecordingClient]]:
        args = [*AGENT[1:], "--log-file", str(tmp_path / "agent.log"), "--log-level", "info"]
        if config is not None:
            path = tmp_path / "policy.json"
            path.write_text(json.dumps(config), encoding="utf-8")
            args += ["--config", str(path)]
        args += list(extra_args)
        client = RecordingClient(answer=answer, hold=None)
        async with acp.spawn_agent_process(
            client,
            AGENT[0],
            *args,
            # The SDK trims the child's environment: keep PYTHONPATH so the agent runs the
            # code under test (a worktree), not whatever copy is installed.
            env={"PYTHONUNBUFFERED": "1", **_pythonpath()},
            cwd=str(tmp_path),
            # A loaded machine can take longer than the SDK's 2 s to let the agent exit after
            # stdin closes; SDK 0.10 then races terminate() against the exit and raises.
            transport_kwargs={"stderr": asyncio.subprocess.DEVNULL, "shutdown_timeout": 30.0},
            use_unstable_protocol=True,
        ) as (conn, _process):
            await asyncio.wait_for(
                conn.initialize(
                    protocol_version=acp.PROTOCOL_VERSION,
                    client_capabilities=capabilities or ClientCapabilities(),
                ),
                timeout=30,
            )
            yield conn, client

    return spawn
