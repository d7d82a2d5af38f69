"""Claude Code's tools (also the Claude Agent SDK's): names, kinds and argument keys.

Arguments are those of Claude Code's `PreToolUse` hook input (`tool_input`); file tools
receive absolute paths. MCP tools are named `mcp__<server>__<tool>`.
"""

from __future__ import annotations

from typing import Final

from safehold.adapters.tool_table import ToolSpec, ToolTable
from safehold.policy.calls import ToolKind

__all__ = ["CLAUDE_CODE_TOOLS"]

_K = ToolKind

CLAUDE_CODE_TOOLS: Final = ToolTable(
    "Claude Code",
    {
        # Shell: `command`, `description`, `timeout`, `run_in_background`.
        "Bash": ToolSpec(
            _K.EXECUTE,
            command_arg="command",
            arguments=(
                "command",
                "description",
                "timeout",
                "run_in_background",
                "dangerouslyDisableSandbox",
            ),
        ),
        # Output of / stopping a background shell the agent started (`bash_id`, `shell_id`).
        "BashOutput": ToolSpec(_K.READ),
        "TaskOutput": ToolSpec(_K.READ),
        "KillShell": ToolSpec(_K.OTHER),
        "KillBash": ToolSpec(_K.OTHER),
        # Files: `file_path` (+ `offset`/`limit`, `content`, `old_string`/`new_string`, `edits`).
        # `arguments` are the tool's input schema: any other argument asks (`argument-unknown`).
        "Read": ToolSpec(
            _K.READ, path_args=("file_path",), arguments=("file_path", "offset", "limit", "pages")
        ),
        "Write": ToolSpec(_K.EDIT, path_args=("file_path",), arguments=("file_path", "content")),
        "Edit": ToolSpec(
            _K.EDIT,
            path_args=("file_path",),
            arguments=("file_path", "old_string", "new_string", "replace_all"),
        ),
        "MultiEdit": ToolSpec(_K.EDIT, path_args=("file_path",), arguments=("file_path", "edits")),
        "NotebookEdit": ToolSpec(
            _K.EDIT,
            path_args=("notebook_path",),
            arguments=("notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"),
        ),
        "NotebookRead": ToolSpec(
            _K.READ, path_args=("notebook_path",), arguments=("notebook_path", "cell_id")
        ),
        # Search: Glob `pattern` is a glob under `path`; Grep `pattern` is a regex, `glob` a filter.
        "Glob": ToolSpec(
            _K.SEARCH, path_args=("path",), glob_args=("pattern",), arguments=("pattern", "path")
        ),
        "Grep": ToolSpec(
            _K.SEARCH,
            path_args=("path",),
            glob_args=("glob",),
            arguments=(
                "pattern",
                "path",
                "glob",
                "type",
                "output_mode",
                "-A",
                "-B",
                "-C",
                "-n",
                "-i",
                "multiline",
                "head_limit",
                "offset",
            ),
        ),
        "LS": ToolSpec(_K.READ, path_args=("path",), arguments=("path", "ignore")),
        # Network: WebFetch `url` + `prompt`; WebSearch `query` (+ domain filters).
        "WebFetch": ToolSpec(_K.FETCH, url_args=("url",), arguments=("url", "prompt")),
        "WebSearch": ToolSpec(_K.FETCH, arguments=("query", "allowed_domains", "blocked_domains")),
        # Bookkeeping and sub-agents: a sub-agent's own tool calls pass the hook one by one.
        "Task": ToolSpec(_K.THINK),
        "Agent": ToolSpec(_K.THINK),
        "TodoWrite": ToolSpec(_K.THINK),
        "TodoRead": ToolSpec(_K.THINK),
        "AskUserQuestion": ToolSpec(_K.THINK),
        "ExitPlanMode": ToolSpec(_K.SWITCH_MODE),
        "EnterPlanMode": ToolSpec(_K.SWITCH_MODE),
        # Custom commands, skills and MCP tools can do anything: unknown side.
        "SlashCommand": ToolSpec(_K.OTHER),
        "Skill": ToolSpec(_K.OTHER),
        "ListMcpResourcesTool": ToolSpec(_K.OTHER),
        "ReadMcpResourceTool": ToolSpec(_K.OTHER),
        "mcp__*": ToolSpec(_K.OTHER),
    },
)
"""Claude Code's built-in tools; `mcp__*` tools are kind `other` unless a user table says more."""
