"""What a person reads about safehold's modes and toggles in an ACP client (no SDK import).

Shared by the SDK views (`acp._options`) and the early `session/new` answer (`_acp_wire`), which
must not import the ACP SDK.
"""

from __future__ import annotations

from typing import Final

from safehold.policy.modes import Mode

TRUE: Final = "true"
FALSE: Final = "false"

MODE_TEXT: Final = {
    Mode.AUTO: (
        "Auto",
        "Edits and commands run without asking; denied paths, protected paths and deny "
        "rules still apply",
    ),
    Mode.REVIEW: ("Review", "Ask before edits and before running commands"),
    Mode.READ_ONLY: ("Read-only", "Only reads: every edit and command is denied"),
}

FLAG_TEXT: Final = {
    "auto_approve_writes": (
        "Auto-approve edits",
        "Edit, delete and move tools run without asking (protected paths still ask)",
    ),
    "auto_approve_execute": (
        "Auto-approve commands",
        "Shell commands run in the sandbox without asking (opaque commands still ask)",
    ),
    "read_only": ("Read-only", "Deny every edit and command"),
}
