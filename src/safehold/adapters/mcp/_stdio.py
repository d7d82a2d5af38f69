"""Run an MCP server as a child process and relay it to this process's stdin/stdout."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence

from safehold.adapters.mcp._kinds import McpSettings
from safehold.adapters.mcp._proxy import McpProxy
from safehold.errors import SafeholdError
from safehold.policy.approval import AuditSink, Gate
from safehold.policy.config import SafetyConfig
from safehold.policy.sessions import SessionPolicies

__all__ = ["serve_stdio"]

_LIMIT = 64 * 1024 * 1024  # one MCP message (a file's contents, say) may be large
_GRACE = 5.0  # seconds a server has to exit after the client leaves


async def serve_stdio(
    command: Sequence[str],
    config: SafetyConfig,
    *,
    cwd: str,
    settings: McpSettings | None = None,
    audit: AuditSink | None = None,
    session_id: str = "mcp-proxy",
) -> int:
    """Start `command`, relay stdin/stdout through the gate, and return the server's exit code."""
    if not command:
        raise SafeholdError("mcp-proxy needs the server command after `--`")
    policies = SessionPolicies(config)
    policies.open(session_id, cwd)
    # The server runs its tools' commands itself, outside safehold's sandbox.
    proxy = McpProxy(Gate(policies, audit=audit, runner="host"), session_id, settings=settings)
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=None,  # the server's log lines go where ours go
            cwd=cwd,
            limit=_LIMIT,
        )
    except OSError as exc:
        raise SafeholdError(
            f"cannot start the MCP server `{command[0]}`: {exc.strerror or exc}"
        ) from None
    assert process.stdin is not None and process.stdout is not None
    loop = asyncio.get_running_loop()
    client_in = asyncio.StreamReader(limit=_LIMIT)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(client_in), os.fdopen(os.dup(0), "rb", 0)
    )
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(os.dup(1), "wb", 0)
    )
    client_out = asyncio.StreamWriter(transport, protocol, None, loop)
    server_in = process.stdin

    def client_left() -> None:
        # The server's stdin closes; one that does not exit by itself is stopped.
        server_in.close()
        loop.call_later(_GRACE, _stop, process)

    try:
        await proxy.run(client_in, client_out, server_in, process.stdout, close_server=client_left)
        return await process.wait()
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 5)
            except TimeoutError:
                process.kill()
        sys.stdout.flush()


def _stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.terminate()
