"""Gemini CLI's `BeforeTool` command hook: payload in, `decision` out.

Input (stdin): `session_id`, `transcript_path`, `cwd`, `hook_event_name` (`BeforeTool`),
`timestamp`, `tool_name`, `tool_input`, and `mcp_context` for MCP tools. The workspace is
`$GEMINI_PROJECT_DIR` when set, else `cwd`.
Output (stdout): `{"decision": "allow" | "ask" | "deny", "reason": ..., "systemMessage": ...}`.
`deny` blocks the tool and sends `reason` to the model; `ask` makes Gemini CLI show its own
confirmation prompt even when its policy would have allowed the call.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Final

from safehold.adapters.hooks._payload import (
    HookCall,
    read_payload,
    reason_text,
)
from safehold.adapters.tables.gemini_cli import GEMINI_CLI_TOOLS
from safehold.adapters.tool_table import ToolTable
from safehold.policy.decision import Decision, Verdict

__all__ = ["EVENT", "PROJECT_VAR", "parse", "render"]

EVENT: Final = "BeforeTool"
PROJECT_VAR: Final = "GEMINI_PROJECT_DIR"


def parse(
    payload: object,
    *,
    env: Mapping[str, str] | None = None,
    table: ToolTable = GEMINI_CLI_TOOLS,
) -> HookCall:
    """The tool call a `BeforeTool` payload describes; `HookInputError` when it is malformed."""
    env = os.environ if env is None else env
    common = read_payload(
        payload, event=EVENT, command="gemini-cli", project_var=PROJECT_VAR, env=env
    )
    return HookCall(
        table.to_call(common.tool_name, common.tool_input),
        common.workspace,
        session_id=common.session_id,
    )


def render(
    decision: Decision, *, no_person: str | None = None, ask_as_deny: bool = False
) -> dict[str, Any]:
    """The hook's stdout for a decision: an ASK becomes a deny when no one can answer
    (`no_person` says why; `ask_as_deny` is `no_person="--ask-as-deny"`)."""
    if ask_as_deny and no_person is None:
        no_person = "--ask-as-deny"
    verdict = decision.verdict
    if verdict is Verdict.ASK and no_person:
        verdict = Verdict.DENY
    text = reason_text(decision, unanswered=no_person)
    out: dict[str, Any] = {"decision": verdict.value}
    if verdict is not Verdict.ALLOW:
        out["reason"] = text
        out["systemMessage"] = text
    return out
