"""Claude Agent SDK adapter: safehold as a `PreToolUse` hook and as the `can_use_tool` callback.

`ClaudeAgentPolicy` judges every tool call Claude makes with the Claude Code tool table and a
`Gate`, so grants and the audit log work as in any other agent:

- ALLOW → the tool runs; DENY → it does not, and Claude reads the reasons;
- ASK → the `ApprovalCallback` the agent supplies answers; without one, the call is denied.

The hook matcher it builds sets the SDK's `on_failure="block"`, so a hook that fails blocks
the call instead of counting as "no decision". Install with `pip install 'safehold[claude]'`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Final, Literal

from claude_agent_sdk import (
    ClaudeAgentOptions,
    HookContext,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from claude_agent_sdk.types import (
    HookInput,
    HookJSONOutput,
    PermissionResult,
    PreToolUseHookSpecificOutput,
)

from safehold.adapters.hooks._payload import reason_text
from safehold.adapters.tables.claude_code import CLAUDE_CODE_TOOLS
from safehold.adapters.tool_table import ToolTable
from safehold.policy.approval import ApprovalCallback, AuditSink, Gate
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Verdict
from safehold.policy.modes import Mode
from safehold.policy.sessions import SessionPolicies

__all__ = ["ClaudeAgentPolicy"]

_PLAN: Final = "plan"


class ClaudeAgentPolicy:
    """One agent session's policy for the Claude Agent SDK: hook, `can_use_tool` and options.

    ``cwd`` is the workspace (the allowed root); pass the same directory as the SDK's
    `cwd`. Calls made in Claude Code's `plan` permission mode are judged read-only. Claude
    Code, not safehold, runs the commands, so they are judged with `sandbox.mode = "none"`.
    """

    def __init__(
        self,
        config: SafetyConfig | None = None,
        *,
        cwd: str | os.PathLike[str],
        approval: ApprovalCallback | None = None,
        audit: AuditSink | None = None,
        session_id: str = "claude-agent-sdk",
        table: ToolTable = CLAUDE_CODE_TOOLS,
    ) -> None:
        workspace = os.path.abspath(os.fspath(cwd))
        if not os.path.isdir(workspace):
            raise ValueError(f"cwd `{workspace}` is not a directory")
        self._workspace = workspace
        self._approval = approval
        self._table = table
        self._session = session_id
        self._plan_session = f"{session_id}#plan"
        self._policies = SessionPolicies(config or SafetyConfig())
        self._policies.open(self._session, workspace)
        self._policies.open(self._plan_session, workspace)
        self._policies.set_mode(self._plan_session, Mode.READ_ONLY)
        # Claude Code runs the commands itself, outside safehold's sandbox: judge them so.
        self._gate = Gate(self._policies, audit=audit, runner="host")

    @property
    def workspace(self) -> str:
        """The directory calls are judged against."""
        return self._workspace

    @property
    def policies(self) -> SessionPolicies:
        """The session store (its grants, its mode) behind this policy."""
        return self._policies

    @property
    def session_id(self) -> str:
        """The safehold session the calls are judged in."""
        return self._session

    async def decide(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        *,
        tool_use_id: str | None = None,
        plan: bool = False,
    ) -> Decision:
        """Judge one call, asking the approval callback on ASK (no callback: deny)."""
        call = self._table.to_call(tool_name, tool_input, tool_call_id=tool_use_id)
        session = self._plan_session if plan else self._session
        return await self._gate.check(session, call, self._approval)

    async def can_use_tool(
        self, tool_name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        """The SDK's `can_use_tool` callback: allow or deny with safehold's reasons."""
        try:
            decision = await self.decide(tool_name, tool_input, tool_use_id=context.tool_use_id)
        except Exception as exc:  # fail closed
            return PermissionResultDeny(message=f"safehold failed: {type(exc).__name__}: {exc}")
        if decision.verdict is Verdict.ALLOW:
            return PermissionResultAllow()
        return PermissionResultDeny(message=reason_text(decision))

    async def pre_tool_use(
        self, hook_input: HookInput, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        """The `PreToolUse` hook callback: `permissionDecision` allow or deny, never a bare ask."""
        data: Mapping[str, Any] = hook_input
        name = data.get("tool_name")
        arguments = data.get("tool_input")
        decision: Literal["allow", "deny"]
        if data.get("hook_event_name") != "PreToolUse" or not isinstance(name, str):
            decision = "deny"
            reason = "safehold: not a PreToolUse call with a tool name"
        elif not isinstance(arguments, Mapping):
            decision = "deny"
            reason = "safehold: `tool_input` is not an object"
        else:
            verdict = await self.decide(
                name,
                arguments,
                tool_use_id=tool_use_id,
                plan=data.get("permission_mode") == _PLAN,
            )
            decision = "allow" if verdict.verdict is Verdict.ALLOW else "deny"
            reason = reason_text(verdict)
        specific: PreToolUseHookSpecificOutput = {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
        return {"hookSpecificOutput": specific}

    def hooks(self, *, timeout: float | None = None) -> dict[str, list[HookMatcher]]:
        """`ClaudeAgentOptions.hooks` entries: one `PreToolUse` matcher for every tool, fail closed."""
        matcher = HookMatcher(
            matcher=None, hooks=[self.pre_tool_use], timeout=timeout, on_failure="block"
        )
        return {"PreToolUse": [matcher]}

    def options(self, **kwargs: Any) -> ClaudeAgentOptions:
        """`ClaudeAgentOptions` with safehold's hook, `can_use_tool` and `cwd` set.

        Other options pass through; hooks given in ``hooks=`` are kept, safehold's first.
        """
        hooks: dict[Any, list[HookMatcher]] = {
            k: list(v) for k, v in (kwargs.pop("hooks", None) or {}).items()
        }
        for event, matchers in self.hooks().items():
            hooks[event] = [*matchers, *hooks.get(event, [])]
        kwargs.setdefault("cwd", self._workspace)
        return ClaudeAgentOptions(hooks=hooks, can_use_tool=self.can_use_tool, **kwargs)
