"""Drop-in pieces for agents built like Aar: its callback form, option ids and config section.

Aar's approval callback is `async (tool_spec, tool_call) -> "approved" | "approved_always" |
"denied"`, its ACP clients answer with the option ids `allow_once` / `allow_always` /
`deny`, and its safety settings are a section of the agent's own config. This module
translates each to safehold without changing the agent's call sites:

- `make_aar_approval_callback`: ask over ACP and answer in Aar's three values (the
  decision is optional: without one the request says the agent asks);
- `from_aar_callback`: wrap an existing Aar-style callback as a safehold `ApprovalCallback`
  (for `Gate.check`);
- `AAR_PERMISSION_OPTIONS`: offer Aar's option ids;
- `safety_config_from_aar`: read an Aar-style `safety` section into a `SafetyConfig`,
  reporting every key it could not map instead of dropping it.

Objects from the agent are read by attribute (duck typing): `spec.name`,
`spec.side_effects` (values or enums named read / write / execute / network / external /
none), `call.tool_name`, `call.arguments`, `call.tool_call_id`.

Aar's executor runs the commands itself, so a `Gate` for it judges for the host (the
default `runner`); `sandbox.mode` only says how safehold's own runner would confine them.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Protocol

from pydantic import ValidationError

from safehold.adapters.acp.permission import (
    AGENT_ASKS_CODE,
    PermissionOptions,
    make_acp_approval_callback,
)
from safehold.errors import ConfigError, value_kind
from safehold.policy.approval import (
    ApprovalAnswer,
    ApprovalCallback,
    ApprovalOutcome,
    ApprovalRequest,
)
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig, format_validation_error
from safehold.policy.decision import Decision, Reason, Verdict

__all__ = [
    "AAR_PERMISSION_OPTIONS",
    "AarApprovalCallback",
    "AarConfig",
    "ApprovalResult",
    "from_aar_callback",
    "make_aar_approval_callback",
    "safety_config_from_aar",
    "tool_call_from_aar",
]


class ApprovalResult(StrEnum):
    """Aar's three approval answers."""

    APPROVED = "approved"
    APPROVED_ALWAYS = "approved_always"
    DENIED = "denied"


class AarApprovalCallback(Protocol):
    """`await callback(spec, call)` (or with a safehold `Decision` third) → `ApprovalResult`."""

    def __call__(
        self, spec: Any, call: Any, decision: Decision | None = None, /
    ) -> Awaitable[ApprovalResult]:
        """Ask about one tool call."""
        ...


AAR_PERMISSION_OPTIONS: Final = PermissionOptions(
    ids={
        ApprovalOutcome.ALLOW_ONCE: "allow_once",
        ApprovalOutcome.ALLOW_ALWAYS: "allow_always",
        ApprovalOutcome.REJECT_ONCE: "deny",
        ApprovalOutcome.REJECT_ALWAYS: "reject_always",
    },
    aliases={"reject_once": "deny"},
)
"""Aar's option ids (`allow_once`, `allow_always`, `deny`) plus `reject_always`."""

_RESULT_OF: Final = {
    ApprovalOutcome.ALLOW_ONCE: ApprovalResult.APPROVED,
    ApprovalOutcome.ALLOW_ALWAYS: ApprovalResult.APPROVED_ALWAYS,
}
_OUTCOME_OF: Final = {
    ApprovalResult.APPROVED: ApprovalOutcome.ALLOW_ONCE,
    ApprovalResult.APPROVED_ALWAYS: ApprovalOutcome.ALLOW_ALWAYS,
    ApprovalResult.DENIED: ApprovalOutcome.REJECT_ONCE,
}

# Side effect → tool kind, strictest first (a tool that reads and executes is execute).
# `none` and `external` are deliberately `other` (an unknown side: asked in review and
# read-only, allowed in auto): Aar's `ToolSpec.side_effects` defaults to `[NONE]`, so
# `none` is also what every undeclared tool says, and nothing tells a pure tool from one
# whose author declared nothing. A tool known to be pure is declared `read` in the shim.
_KIND_OF_EFFECT: Final = (
    ("execute", ToolKind.EXECUTE),
    ("write", ToolKind.EDIT),
    ("network", ToolKind.FETCH),
    ("read", ToolKind.READ),
    ("external", ToolKind.OTHER),
    ("none", ToolKind.OTHER),
)

# Without safehold's decision the agent's own policy asked: the dialog says so, and says
# that the agent, not safehold, decides what an "always" answer covers.
_AGENT_ASKS: Final = Decision(
    Verdict.ASK, (Reason(AGENT_ASKS_CODE, "agent", "the agent's own policy asks before this call"),)
)


def tool_call_from_aar(spec: Any, call: Any) -> ToolCall:
    """The safehold `ToolCall` for an Aar-style tool spec and call (kind from side effects)."""
    name = str(getattr(spec, "name", None) or getattr(call, "tool_name", None) or "tool")
    effects = {_effect_name(e) for e in getattr(spec, "side_effects", None) or ()}
    kind = next((k for effect, k in _KIND_OF_EFFECT if effect in effects), ToolKind.OTHER)
    arguments = getattr(call, "arguments", None)
    call_id = getattr(call, "tool_call_id", None)
    return ToolCall(
        name=name,
        arguments=dict(arguments) if isinstance(arguments, Mapping) else {},
        kind=kind,
        tool_call_id=call_id if isinstance(call_id, str) and call_id else None,
    )


def _effect_name(effect: object) -> str:
    value = getattr(effect, "value", effect)
    return str(value).lower()


def make_aar_approval_callback(
    conn: Any,
    session_id: str,
    timeout: float = 0.0,
    *,
    workspace: str | None = None,
    options: PermissionOptions = AAR_PERMISSION_OPTIONS,
) -> AarApprovalCallback:
    """Aar's callback form over ACP: `await cb(spec, call[, decision])` → `ApprovalResult`.

    Arguments as for `make_acp_approval_callback` (the timeout is validated here). Every
    answer that is not an allow (reject, cancelled, timeout, failure, unknown id) is
    `DENIED`. With safehold's `decision` (which `from_aar_callback` passes on) the person
    reads safehold's reasons and what an "always" answer covers; without one, that the
    agent's own policy asks and decides what "always" covers.
    """
    ask = make_acp_approval_callback(
        conn, session_id, timeout, workspace=workspace, options=options
    )

    async def callback(spec: Any, call: Any, decision: Decision | None = None, /) -> ApprovalResult:
        request = ApprovalRequest(
            session_id, tool_call_from_aar(spec, call), decision or _AGENT_ASKS
        )
        outcome = await ask(request)
        if isinstance(outcome, ApprovalAnswer):
            outcome = outcome.outcome  # Aar has no scopes; its options offer none
        return _RESULT_OF.get(outcome, ApprovalResult.DENIED)

    return callback


@dataclass(frozen=True, slots=True)
class AarToolSpec:
    """What an Aar-style callback reads of a tool spec, built from a safehold call."""

    name: str
    side_effects: tuple[str, ...]
    description: str = ""


@dataclass(frozen=True, slots=True)
class AarToolCall:
    """What an Aar-style callback reads of a tool call, built from a safehold call."""

    tool_name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    tool_call_id: str = ""


_EFFECTS_OF_KIND: Final = {
    ToolKind.EXECUTE: ("execute",),
    ToolKind.EDIT: ("write",),
    ToolKind.DELETE: ("write",),
    ToolKind.MOVE: ("write",),
    ToolKind.FETCH: ("network",),
    ToolKind.READ: ("read",),
    ToolKind.SEARCH: ("read",),
}


def from_aar_callback(
    callback: Callable[..., Awaitable[Any]],
) -> ApprovalCallback:
    """Wrap an Aar-style `(spec, call) → approved | approved_always | denied` callback.

    The result is a safehold `ApprovalCallback` for `Gate.check`. `approved_always`
    becomes allow_always (recorded as safehold's narrow grant, not Aar's whole-tool one);
    any other value, or an exception, is a refusal (fail closed). A callback that takes a
    third argument (as `make_aar_approval_callback`'s does) gets safehold's `Decision`, so
    its dialog shows safehold's reasons and the grant an "always" answer records.
    """
    with_decision = _takes_three(callback)

    async def ask(request: ApprovalRequest) -> ApprovalOutcome:
        call = request.call
        spec = AarToolSpec(call.name, _EFFECTS_OF_KIND.get(call.kind, ("external",)))
        aar_call = AarToolCall(call.name, dict(call.arguments), call.tool_call_id or "")
        if with_decision:
            answer = await callback(spec, aar_call, request.decision)
        else:
            answer = await callback(spec, aar_call)
        value = getattr(answer, "value", answer)
        try:
            return _OUTCOME_OF[ApprovalResult(value)]
        except ValueError:
            return ApprovalOutcome.FAILED

    return ask


def _takes_three(callback: Callable[..., Any]) -> bool:
    """True when `callback(spec, call, decision)` binds (a third positional parameter)."""
    try:
        inspect.signature(callback).bind(None, None, None)
    except (TypeError, ValueError):  # two parameters only, or no signature to read
        return False
    return True


# -- config ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AarConfig:
    """An Aar-style section read into safehold: the config, and what did not carry over."""

    config: SafetyConfig
    unknown: tuple[str, ...] = ()
    """Keys that are neither Aar's nor safehold's (typos, other programs' settings)."""
    notes: tuple[str, ...] = ()
    """How a key was read where the meaning differs (sandbox modes, replaced lists)."""


_SANDBOX_MODES: Final = {
    "local": ("none", 'Aar\'s `local` sandbox has no isolation: sandbox.mode = "none"'),
    "linux": ("bwrap", "Aar's `linux` (Landlock) sandbox runs in bubblewrap instead"),
    "auto": ("bwrap", "Aar's `auto` sandbox runs in bubblewrap (Linux)"),
    "windows": ("bwrap", "Aar's `windows` sandbox is not available: bubblewrap is required"),
    "wsl": (
        "none",
        "Aar's `wsl` sandbox runs as root in a WSL distro that sees the host's drives: "
        'no confinement, sandbox.mode = "none"',
    ),
}
_AAR_ONLY: Final = frozenset({"sandbox", "log_all_commands", "denied_paths", "allowed_paths"})


def safety_config_from_aar(
    section: Mapping[str, Any], *, base: Mapping[str, Any] | None = None
) -> AarConfig:
    """Read an Aar-style `safety` section (or a safehold one, or a mix) into a `SafetyConfig`.

    Aar's keys are translated (`<cwd>` becomes `{workspace}`, `**/name` becomes a floating
    `name`, `dir/**` becomes `dir/`, sandbox modes map as `AarConfig.notes` says);
    safehold's own keys pass through; anything else is listed in `unknown`, never
    silently dropped. `base` holds safehold settings applied first. Invalid values raise
    `ConfigError` naming the field.
    """
    if not isinstance(section, Mapping):
        raise ConfigError(f"the safety section must be a table/object, got {value_kind(section)}")
    data: dict[str, Any] = dict(base or {})
    unknown: list[str] = []
    notes: list[str] = []
    fields = SafetyConfig.model_fields
    for key, value in section.items():
        if key == "sandbox":
            data["sandbox"] = _sandbox(value, data.get("sandbox"), notes, unknown)
        elif key == "log_all_commands":
            if value is True:
                audit = dict(data.get("audit") or {})
                audit.setdefault("logger", "safehold.audit")
                data["audit"] = audit
                notes.append("log_all_commands: every decision goes to the `safehold.audit` logger")
        elif key in ("denied_paths", "allowed_paths"):
            data[key] = _patterns(key, value)
            if key == "denied_paths":
                notes.append(
                    "denied_paths extends safehold's built-in list (Aar replaced its own); "
                    "set replace_default_denied_paths = true to replace it"
                )
        elif key in fields:
            data[key] = value
        else:
            unknown.append(str(key))
    try:
        config = SafetyConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc)) from None
    return AarConfig(config, tuple(unknown), tuple(notes))


def _sandbox(value: Any, current: Any, notes: list[str], unknown: list[str]) -> Any:
    if isinstance(value, str):
        value = {"mode": value}
    if not isinstance(value, Mapping):
        return value  # SafetyConfig reports the type error
    mode = value.get("mode", "local")
    out = dict(current or {})
    if mode in _SANDBOX_MODES:
        out["mode"], note = _SANDBOX_MODES[mode]
        notes.append(f"sandbox.mode `{mode}`: {note}")
    elif isinstance(mode, str) and mode in ("bwrap", "none"):
        out["mode"] = mode
    else:
        raise ConfigError(
            f"`sandbox.mode`: unknown sandbox mode {mode!r} "
            f"(Aar: {', '.join(_SANDBOX_MODES)}; safehold: bwrap, none)"
        )
    for key in value:
        if key == "mode":
            continue
        if key in _SANDBOX_MODES:
            notes.append(f"sandbox.{key}: Aar's per-backend settings are not used by safehold")
        else:
            unknown.append(f"sandbox.{key}")
    return out


def _patterns(key: str, value: Any) -> Any:
    if not isinstance(value, list | tuple):
        return value  # SafetyConfig reports the type error
    return [_pattern(p) if isinstance(p, str) else p for p in value]


def _pattern(pattern: str) -> str:
    """An Aar fnmatch pattern as a safehold (gitignore) pattern."""
    p = pattern.replace("\\", "/").replace("<cwd>", "{workspace}")
    while p.startswith("**/"):
        p = p[3:]  # `**/.env`: a name anywhere, which a slash-less gitignore pattern is
    if p.endswith("/**"):
        p = p[:-2]  # `dir/**`: the directory and everything below it
    if p == "{workspace}/":
        p = "{workspace}"
    return p or pattern
