"""`safehold mcp-proxy [--config F] [--cwd DIR] -- CMD [ARG...]`: gate an MCP server's tools."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from typing import Any

_LEVELS = ("debug", "info", "warning", "error")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `mcp-proxy` subcommand."""
    p = sub.add_parser(
        "mcp-proxy",
        help="run an MCP server behind safehold: every tools/call is decided first",
        description=(
            "Start the MCP server CMD and relay its stdio. Every tools/call is decided by "
            "the policy: allowed calls are forwarded, refused ones come back as tool errors "
            "with the reasons, and calls that need approval are asked through MCP "
            "elicitation. Logs go to stderr, never stdout."
        ),
    )
    p.add_argument(
        "--config",
        metavar="F",
        help="policy file (.toml or .json), with per-tool kinds in its [mcp.tools] table",
    )
    p.add_argument(
        "--cwd", metavar="DIR", help="the session's workspace; default: the current directory"
    )
    p.add_argument("--log-level", choices=_LEVELS, default="warning", help="default: warning")
    p.add_argument("server", nargs=argparse.REMAINDER, metavar="-- CMD [ARG...]")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Serve until the client or the server leaves; exit with the server's code."""
    from safehold.adapters.mcp import McpSettings, serve_stdio
    from safehold.audit import sink_from_config
    from safehold.errors import ConfigError
    from safehold.policy.config import SafetyConfig

    command = list(args.server)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        raise ConfigError("mcp-proxy needs the server command: safehold mcp-proxy -- CMD [ARG...]")
    sections: dict[str, Any] = {}
    if args.config is None:
        config = SafetyConfig()
    else:
        config, sections = SafetyConfig.load_sections(args.config, ("mcp",))
    settings = McpSettings.from_section(sections.get("mcp"), args.config or "config")
    if args.cwd is not None:
        cwd = os.path.abspath(args.cwd)
    elif settings.cwd is not None and args.config is not None:
        base = os.path.dirname(os.path.abspath(args.config))
        cwd = os.path.normpath(os.path.join(base, os.path.expanduser(settings.cwd)))
    else:
        cwd = os.getcwd()
    if not os.path.isdir(cwd):
        raise ConfigError(f"the workspace `{cwd}` is not a directory (--cwd, or cwd in [mcp])")
    logging.basicConfig(
        stream=sys.stderr,
        level=args.log_level.upper(),
        format="safehold: %(levelname)s %(message)s",
    )
    audit = sink_from_config(config.audit)
    return asyncio.run(serve_stdio(command, config, cwd=cwd, settings=settings, audit=audit))
