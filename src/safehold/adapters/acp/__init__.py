"""ACP (Agent Client Protocol) adapter: approvals over `session/request_permission`, and the bridge.

Supported SDK: `agent-client-protocol>=0.10.0,<2`.
"""

from safehold.adapters.acp._options import build_config_options, build_mode_state
from safehold.adapters.acp.bridge import AcpPolicyBridge, AgentOption, SessionSetup
from safehold.adapters.acp.permission import (
    OPTION_IDS,
    PermissionOptions,
    make_acp_approval_callback,
    visible_text,
)

__all__ = [
    "OPTION_IDS",
    "AcpPolicyBridge",
    "AgentOption",
    "PermissionOptions",
    "SessionSetup",
    "build_config_options",
    "build_mode_state",
    "make_acp_approval_callback",
    "visible_text",
]
