"""MCP: a stdio proxy that gates every tool call of an MCP server (`safehold mcp-proxy`).

See docs/mcp.md. The proxy speaks the MCP wire format itself; the `mcp` SDK (the
`safehold[mcp]` extra) is only needed to write clients and servers around it.
"""

from safehold.adapters.mcp._kinds import (
    McpSettings,
    McpToolEntry,
    kind_from_annotations,
    mcp_tool_table,
)
from safehold.adapters.mcp._proxy import McpProxy
from safehold.adapters.mcp._stdio import serve_stdio

__all__ = [
    "McpProxy",
    "McpSettings",
    "McpToolEntry",
    "kind_from_annotations",
    "mcp_tool_table",
    "serve_stdio",
]
