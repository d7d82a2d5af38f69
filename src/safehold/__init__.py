"""safehold: a safety and permission policy engine for AI agents.

An agent asks before it reads, writes, executes or calls an unknown tool; safehold
answers allow / ask / deny with reasons, asks the person over ACP when it must, and runs
shell commands inside a bubblewrap sandbox.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: a hook call should not import typing
if TYPE_CHECKING:
    from typing import Any

    from safehold.errors import (
        ConfigError,
        PolicyError,
        SafeholdError,
        SandboxError,
        SandboxUnavailable,
        UnknownSessionError,
    )
    from safehold.policy.approval import (
        ApprovalAnswer,
        ApprovalCallback,
        ApprovalOutcome,
        ApprovalRequest,
        AuditSink,
        FileDiff,
        Gate,
        gate,
    )
    from safehold.policy.calls import Side, ToolCall, ToolKind
    from safehold.policy.config import AuditConfig, CommandRule, SafetyConfig
    from safehold.policy.decision import Decision, Reason, Verdict
    from safehold.policy.engine import evaluate
    from safehold.policy.grants import Grant, GrantEffect
    from safehold.policy.modes import Mode
    from safehold.policy.paths import CompiledPolicy, PathCheck, compile_policy
    from safehold.policy.sandbox_config import SandboxConfig
    from safehold.policy.sessions import SessionInfo, SessionPolicies
    from safehold.policy.shell import ShellAnalysis, SimpleCommand
    from safehold.policy.shell.assess import CommandAssessment, assess_command
    from safehold.policy.sync_gate import SyncApprovalCallback, SyncGate
    from safehold.policy.timeouts import validate_timeout

__version__ = "0.2.0"

# Names are imported on first use (PEP 562): `import safehold` stays cheap for a hook process
# that decides one call, and never loads the shell parsers, asyncio or an adapter it does
# not need.
_EXPORTS: dict[str, str] = {
    "ApprovalAnswer": "safehold.policy.approval",
    "ApprovalCallback": "safehold.policy.approval",
    "ApprovalOutcome": "safehold.policy.approval",
    "ApprovalRequest": "safehold.policy.approval",
    "AuditConfig": "safehold.policy.config",
    "AuditSink": "safehold.policy.approval",
    "CommandAssessment": "safehold.policy.shell.assess",
    "CommandRule": "safehold.policy.config",
    "CompiledPolicy": "safehold.policy.paths",
    "ConfigError": "safehold.errors",
    "Decision": "safehold.policy.decision",
    "FileDiff": "safehold.policy.approval",
    "Gate": "safehold.policy.approval",
    "Grant": "safehold.policy.grants",
    "GrantEffect": "safehold.policy.grants",
    "Mode": "safehold.policy.modes",
    "PathCheck": "safehold.policy.paths",
    "PolicyError": "safehold.errors",
    "Reason": "safehold.policy.decision",
    "SafeholdError": "safehold.errors",
    "SafetyConfig": "safehold.policy.config",
    "SandboxConfig": "safehold.policy.sandbox_config",
    "SandboxError": "safehold.errors",
    "SandboxUnavailable": "safehold.errors",
    "SessionInfo": "safehold.policy.sessions",
    "SessionPolicies": "safehold.policy.sessions",
    "ShellAnalysis": "safehold.policy.shell",
    "Side": "safehold.policy.calls",
    "SimpleCommand": "safehold.policy.shell",
    "SyncApprovalCallback": "safehold.policy.sync_gate",
    "SyncGate": "safehold.policy.sync_gate",
    "ToolCall": "safehold.policy.calls",
    "ToolKind": "safehold.policy.calls",
    "UnknownSessionError": "safehold.errors",
    "Verdict": "safehold.policy.decision",
    "assess_command": "safehold.policy.shell.assess",
    "compile_policy": "safehold.policy.paths",
    "evaluate": "safehold.policy.engine",
    "gate": "safehold.policy.approval",
    "validate_timeout": "safehold.policy.timeouts",
}


__all__ = [
    "ApprovalAnswer",
    "ApprovalCallback",
    "ApprovalOutcome",
    "ApprovalRequest",
    "AuditConfig",
    "AuditSink",
    "CommandAssessment",
    "CommandRule",
    "CompiledPolicy",
    "ConfigError",
    "Decision",
    "FileDiff",
    "Gate",
    "Grant",
    "GrantEffect",
    "Mode",
    "PathCheck",
    "PolicyError",
    "Reason",
    "SafeholdError",
    "SafetyConfig",
    "SandboxConfig",
    "SandboxError",
    "SandboxUnavailable",
    "SessionInfo",
    "SessionPolicies",
    "ShellAnalysis",
    "Side",
    "SimpleCommand",
    "SyncApprovalCallback",
    "SyncGate",
    "ToolCall",
    "ToolKind",
    "UnknownSessionError",
    "Verdict",
    "assess_command",
    "compile_policy",
    "evaluate",
    "gate",
    "validate_timeout",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'safehold' has no attribute {name!r}")
    import importlib  # here: `import safehold` is on every hook's and `run`'s start-up path

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
