"""A tiny MCP server (the real `mcp` SDK, stdio) for the proxy tests.

Usage: python files_server.py CALL_LOG. Every tool appends its name and arguments to
CALL_LOG before it runs, so a test can see on disk what reached the server.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp.server import MCPServer
from mcp.types import ToolAnnotations

LOG = Path(sys.argv[1])
server = MCPServer("files")


def _log(tool: str, **arguments: str) -> None:
    with LOG.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"tool": tool, **arguments}) + "\n")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def read_file(path: str) -> str:
    """Return a file's text."""
    _log("read_file", path=path)
    return Path(path).read_text(encoding="utf-8")


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def write_file(path: str, content: str) -> str:
    """Write a file."""
    _log("write_file", path=path)
    Path(path).write_text(content, encoding="utf-8")
    return "written"


@server.tool()
def echo(text: str) -> str:
    """Say it back (no annotations: the proxy does not know what it does)."""
    _log("echo", text=text)
    return text


@server.tool()
def shell(command: str) -> str:
    """Stand in for a shell server's tool: logs the command it would run on the host."""
    _log("shell", command=command)
    return "ran"


if __name__ == "__main__":
    server.run()
