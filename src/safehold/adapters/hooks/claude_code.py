"""Claude Code's `PreToolUse` command hook: payload in, `permissionDecision` out.

Input (stdin): `session_id`, `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`
(`PreToolUse`), `tool_name`, `tool_input`, `tool_use_id`. The workspace is
`$CLAUDE_PROJECT_DIR` when set, else `cwd`; `permission_mode: "plan"` is judged read-only, and `"dontAsk"` as a run no person answers.
Output (stdout): `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
"permissionDecision": "allow" | "ask" | "deny", "permissionDecisionReason": ...}}`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any, Final

from safehold.adapters.hooks._payload import (
    HookCall,
    read_payload,
    reason_text,
    text_field,
)
from safehold.adapters.tables.claude_code import CLAUDE_CODE_TOOLS
from safehold.adapters.tool_table import ToolTable
from safehold.policy._arguments import CALL_CWD
from safehold.policy.calls import ToolKind
from safehold.policy.decision import Decision, Verdict

__all__ = ["EVENT", "PROJECT_VAR", "parse", "render"]

EVENT: Final = "PreToolUse"
PROJECT_VAR: Final = "CLAUDE_PROJECT_DIR"
SPELLED_CWD: Final = "cwd (as the model spelled it)"
"""Where a Bash call's own `cwd` argument goes when the payload says the session is
elsewhere: the shell runs in the payload's directory, and the model's value, which no
Bash call takes, stays an argument the table does not list (`argument-unknown`)."""
_READ_ONLY_MODES: Final = frozenset({"plan"})
_NO_PROMPT_MODES: Final = frozenset({"dontAsk"})
"""Claude Code's docs (permission modes): `dontAsk` denies every tool not pre-approved
instead of prompting, so no person sees an ask."""


def parse(
    payload: object,
    *,
    env: Mapping[str, str] | None = None,
    table: ToolTable = CLAUDE_CODE_TOOLS,
) -> HookCall:
    """The tool call a `PreToolUse` payload describes; `HookInputError` when it is malformed."""
    env = os.environ if env is None else env
    common = read_payload(
        payload, event=EVENT, command="claude-code", project_var=PROJECT_VAR, env=env
    )
    assert isinstance(payload, Mapping)  # read_payload checked it
    name, arguments, cwd, workspace = (
        common.tool_name,
        common.tool_input,
        common.cwd,
        common.workspace,
    )
    mode = text_field(payload, "permission_mode", required=False)
    tool_use_id = payload.get("tool_use_id")
    call = table.to_call(
        name, arguments, tool_call_id=tool_use_id if isinstance(tool_use_id, str) else None
    )
    moved = bool(cwd) and os.path.normpath(str(cwd)) != workspace
    if moved and call.kind is not ToolKind.EXECUTE:
        # Claude Code's file tools resolve a relative `file_path` from the session's
        # directory, and Glob and Grep search there when given no `path`: after a `cd
        # .git/hooks`, `Write {"file_path": "pre-commit"}` writes the hook. (The payload's
        # value wins over any the model spelled so.)
        here = table.to_call(name, {**arguments, CALL_CWD: cwd}, tool_call_id=call.tool_call_id)
        known = None if here.known_args is None else (*here.known_args, CALL_CWD)
        call = dataclasses.replace(here, known_args=known)
    if call.kind is ToolKind.EXECUTE and cwd and os.path.normpath(cwd) != workspace:
        # The shell runs where the session `cd`-ed to, not necessarily the project root.
        # (`cwd` comes from the payload, not the model: it is no unknown argument.) A `cwd`
        # the model spelled does not move the shell (Bash takes none): the payload's wins,
        # and the model's stays an argument the tool's table does not list, which asks.
        spelled = {SPELLED_CWD: arguments["cwd"]} if "cwd" in arguments else {}
        shell_arguments = {**arguments, **spelled, "cwd": cwd}
        shell = table.to_call(name, shell_arguments, tool_call_id=call.tool_call_id)
        known = None if shell.known_args is None else (*shell.known_args, "cwd")
        call = dataclasses.replace(shell, known_args=known)
    return HookCall(
        call,
        workspace,
        read_only=mode in _READ_ONLY_MODES,
        session_id=common.session_id,
        no_person=f"permission mode {mode}" if mode in _NO_PROMPT_MODES else None,
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
    return {
        "hookSpecificOutput": {
            "hookEventName": EVENT,
            "permissionDecision": verdict.value,
            "permissionDecisionReason": reason_text(decision, unanswered=no_person),
        }
    }
