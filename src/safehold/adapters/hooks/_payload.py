"""What both hook payloads share: a JSON object with a tool name, its input and a directory."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from safehold.errors import SafeholdError, value_kind
from safehold.policy.calls import ToolCall
from safehold.policy.decision import Decision, Verdict

__all__ = [
    "HookCall",
    "HookInputError",
    "Payload",
    "field",
    "read_payload",
    "reason_text",
    "text_field",
    "workspace_of",
]


class HookInputError(SafeholdError):
    """The hook payload is not what the CLI documents; the call is blocked (exit 2)."""

    exit_code = 2


@dataclass(frozen=True, slots=True)
class HookCall:
    """One tool call read from a hook payload, with what the decision needs besides it."""

    call: ToolCall
    workspace: str
    """The project directory: the allowed root and the base of discovery for `.safehold.toml`."""
    read_only: bool = False
    """The CLI's session is in a read-only mode (Claude Code's plan mode)."""
    no_person: str | None = None
    """Why the payload says no person answers a prompt (Claude Code's `dontAsk` mode)."""
    session_id: str | None = None


@dataclass(frozen=True, slots=True)
class Payload:
    """The fields every hook payload has, checked: the tool, its input and where it runs."""

    tool_name: str
    tool_input: Mapping[str, Any]
    cwd: str | None
    workspace: str
    session_id: str | None


def read_payload(
    payload: object, *, event: str, command: str, project_var: str, env: Mapping[str, str]
) -> Payload:
    """Check a hook payload's common fields; `HookInputError` names the one that is wrong.

    `event` is the hook event the CLI sends (`PreToolUse`, `BeforeTool`), `command` the
    `safehold hook …` subcommand for the message, `project_var` the CLI's project variable.
    """
    if not isinstance(payload, Mapping):
        raise HookInputError(f"hook payload: expected a JSON object, got {value_kind(payload)}")
    sent = text_field(payload, "hook_event_name", required=False)
    if sent is not None and sent != event:
        raise HookInputError(
            f"hook payload: event `{sent}`; `safehold hook {command}` handles `{event}` only"
        )
    name = text_field(payload, "tool_name")
    assert name is not None
    arguments = field(payload, "tool_input")
    if not isinstance(arguments, Mapping):
        raise HookInputError(
            f"hook payload: `tool_input` must be an object, got {value_kind(arguments)}"
        )
    cwd = text_field(payload, "cwd", required=False)
    workspace = workspace_of(env.get(project_var) or None, cwd, project_var)
    session = payload.get("session_id")
    return Payload(name, arguments, cwd, workspace, session if isinstance(session, str) else None)


def field(payload: Mapping[str, Any], key: str) -> Any:
    """A required field of the payload."""
    if key not in payload:
        raise HookInputError(f"hook payload: missing field `{key}`")
    return payload[key]


def text_field(payload: Mapping[str, Any], key: str, *, required: bool = True) -> str | None:
    """A string field; required ones must be non-empty."""
    if key not in payload and not required:
        return None
    value = field(payload, key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise HookInputError(f"hook payload: `{key}` must be a non-empty string, got {value!r:.80}")
    return value


def workspace_of(project_dir: str | None, cwd: str | None, project_var: str) -> str:
    """The project directory: the CLI's project variable when set, else the payload's `cwd`."""
    chosen, what = (project_dir, f"${project_var}") if project_dir else (cwd, "`cwd`")
    if not chosen:
        raise HookInputError(f"hook payload: no `cwd`, and ${project_var} is not set")
    if not chosen.isprintable():
        raise HookInputError(f"hook payload: {what} {chosen!r:.200} holds a control character")
    if not os.path.isabs(chosen):
        raise HookInputError(f"hook payload: {what} `{chosen}` is not an absolute path")
    if not os.path.isdir(chosen):
        raise HookInputError(f"hook payload: {what} `{chosen}` is not a directory")
    return os.path.normpath(chosen)


def reason_text(decision: Decision, *, unanswered: str | None = None) -> str:
    """The decision in one line for the person and the model: verdict, every reason, and for
    an ask or a deny the rules behind it and where they came from (`Decision.trace`).

    `unanswered`: why no person can answer an ASK, which is then sent as a deny
    (`safehold would ask: …`).
    """
    messages = "; ".join(r.message for r in decision.reasons) or "no rule objected"
    verb = {Verdict.ALLOW: "allowed", Verdict.ASK: "asks", Verdict.DENY: "denied"}
    trace = decision.trace() if not decision.allowed else ""
    tail = f" [{trace}]" if trace else ""
    if unanswered and decision.verdict is Verdict.ASK:
        why = f"denied: no person can answer here ({unanswered})"
        return f"safehold would ask: {messages} ({why})" + tail
    return f"safehold {verb[decision.verdict]}: {messages}" + tail
