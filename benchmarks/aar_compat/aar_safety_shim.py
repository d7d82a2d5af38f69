"""Aar's `agent.safety.policy`, `.permissions` and `acp_permissions` on safehold's public API."""

import os
from typing import Any

from pydantic import BaseModel, create_model

import safehold as sh
from safehold.adapters import aar

PolicyDecision = sh.Verdict
ApprovalResult, ApprovalCallback = aar.ApprovalResult, aar.AarApprovalCallback
make_acp_approval_callback = aar.make_aar_approval_callback
PathRule = create_model("PathRule", pattern=str, allow_read=(bool, True), allow_write=(bool, False))
CommandRule = create_model(
    "CommandRule", pattern=str, decision=(sh.Verdict, "deny"), is_regex=(bool, False)
)


class PolicyConfig(BaseModel):  # Aar's fields; the lists add to safehold's built-in ones
    read_only: bool = False
    require_approval_for_writes: bool = False
    require_approval_for_execute: bool = False
    path_rules: list[PathRule] = []
    denied_paths: list[str] = []
    allowed_paths: list[str] = []  # empty: everything that is not denied
    command_rules: list[CommandRule] = []
    denied_commands: list[str] = []
    sandbox_mode: str = "local"
    log_all_commands: bool = False


class SafetyPolicy:
    def __init__(self, config: PolicyConfig | None = None) -> None:
        c = self.config = config or PolicyConfig()
        rules = [(r.pattern, r.decision, "tokens" if r.decision == "allow" else  # text cannot allow
                  "regex" if r.is_regex else "substring") for r in c.command_rules]  # fmt: skip
        rules += [(text, "deny", "substring") for text in c.denied_commands]
        self.safehold = aar.safety_config_from_aar(c.model_dump(exclude={"path_rules", "command_rules", "denied_commands", "sandbox_mode"}) | {
            "sandbox": c.sandbox_mode, "outside_reads": "deny" if c.allowed_paths else "ask",
            "command_rules": [dict(zip(("pattern", "decision", "match"), r, strict=True)) for r in rules],
            "denied_paths": c.denied_paths + [r.pattern for r in c.path_rules if not r.allow_read],
            "write_denied_paths": [r.pattern for r in c.path_rules if not r.allow_write],
        }).config  # fmt: skip

    def check_tool(self, spec: Any, arguments: dict[str, Any]) -> sh.Verdict:
        call = aar.tool_call_from_aar(spec, type("Call", (), {"arguments": arguments}))
        return sh.evaluate(self.safehold, call, workspace=os.getcwd()).verdict

    @staticmethod
    def _normalize_path(path: str) -> str:
        return sh.compile_policy(sh.SafetyConfig(), os.getcwd()).canonicalize(path).canonical


class PermissionManager:  # after the policy said ASK: an "always" answer is an exact grant,
    def __init__(self, approval_callback: Any = None) -> None:  # auto_approve a tool-wide one
        self._callback = approval_callback
        self._scopes = [sh.SessionPolicies(sh.SafetyConfig(grant_scope=s)) for s in ("exact", "tool")]  # fmt: skip
        [policies.open("aar", os.getcwd()) for policies in self._scopes]

    def _key(self, scope: int, call: sh.ToolCall) -> Any:  # safehold's grant key, or None
        return sh.evaluate(self._scopes[scope].config("aar"), call, workspace=os.getcwd()).grant_key

    def auto_approve(self, tool_name: str) -> None:
        self._scopes[1].grant("aar", self._key(1, sh.ToolCall(tool_name)), sh.GrantEffect.ALLOW)

    def revoke(self, tool_name: str) -> None:
        self._scopes[1].revoke("aar", self._key(1, sh.ToolCall(tool_name)))

    def is_auto_approved(self, spec: Any, tc: Any) -> bool:
        call = aar.tool_call_from_aar(spec, tc)
        return any(p.grants("aar").get(self._key(i, call)) == "allow" for i, p in enumerate(self._scopes))  # fmt: skip

    async def request_approval(self, spec: Any, tc: Any) -> sh.Verdict:
        answer = self.is_auto_approved(spec, tc) or (
            self._callback and await self._callback(spec, tc)
        )
        if answer == "approved_always" and (key := self._key(0, aar.tool_call_from_aar(spec, tc))):
            self._scopes[0].grant("aar", key, sh.GrantEffect.ALLOW)
        return sh.Verdict.ALLOW if answer in (True, "approved", "approved_always") else sh.Verdict.DENY  # fmt: skip
