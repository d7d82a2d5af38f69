"""The OpenAI Agents SDK's local tools: names and kinds.

The SDK's shell tool (`shell`) is gated command by command by `SafeholdGuard.shell_tool`;
`apply_patch` edits files. Every other function tool is the application's own: name it in
the table given to `SafeholdGuard` (`OPENAI_AGENTS_TOOLS.with_tools({...})`), or it is
judged as kind `other` and logged once.
"""

from __future__ import annotations

from typing import Final

from safehold.adapters.tool_table import ToolSpec, ToolTable
from safehold.policy.calls import ToolKind

__all__ = ["OPENAI_AGENTS_TOOLS"]

OPENAI_AGENTS_TOOLS: Final = ToolTable(
    "OpenAI Agents SDK",
    {
        "shell": ToolSpec(ToolKind.EXECUTE, command_arg="command"),
        "local_shell": ToolSpec(ToolKind.EXECUTE, command_arg="command"),
        "apply_patch": ToolSpec(ToolKind.EDIT, path_args=("path",)),
    },
)
