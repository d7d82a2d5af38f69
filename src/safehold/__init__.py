"""safehold: a safety and permission policy engine for AI agents.

An agent asks before it reads, writes, executes or calls an unknown tool; safehold
answers allow / ask / deny with reasons, asks the person over ACP when it must, and runs
shell commands inside a bubblewrap sandbox.
"""

from safehold.errors import (
    ConfigError,
    PolicyError,
    SafeholdError,
    SandboxError,
    SandboxUnavailable,
    UnknownSessionError,
)
from safehold.policy.approval import (
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
from safehold.policy.grants import GrantEffect
from safehold.policy.modes import Mode
from safehold.policy.paths import CompiledPolicy, PathCheck, compile_policy
from safehold.policy.sandbox_config import SandboxConfig
from safehold.policy.sessions import SessionInfo, SessionPolicies
from safehold.policy.shell import ShellAnalysis, SimpleCommand
from safehold.policy.shell.assess import CommandAssessment, assess_command
from safehold.policy.sync_gate import SyncApprovalCallback, SyncGate
from safehold.policy.timeouts import validate_timeout

__version__ = "0.1.0"

__all__ = [
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
