"""Step 3 of the evaluation order: what the command of an execute call amounts to.

This is the conservative assessment used until shell analysis lands: no command is
understood, so every well-formed command is *opaque* (ASK, no grant key) and anything that
is not a command at all is DENY. It never says ALLOW and never skips approval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Reason, Verdict

if TYPE_CHECKING:
    from safehold.policy.paths import CompiledPolicy

__all__ = ["CommandAssessment", "assess_command"]


@dataclass(frozen=True, slots=True)
class CommandAssessment:
    """Step 3's verdict on a command; ALLOW means "no objection", not "run it"."""

    verdict: Verdict
    reasons: tuple[Reason, ...]
    grant_key: str | None
    skip_approval: bool


def _describe(command: object) -> str | None:
    """The command as one line of text, or None when it is not a command."""
    if isinstance(command, str):
        return command if command.strip() else None
    if (
        isinstance(command, Sequence)
        and not isinstance(command, bytes | bytearray)
        and command
        and all(isinstance(a, str) for a in command)
        and command[0]
    ):
        return " ".join(str(a) for a in command)
    return None


def assess_command(
    command: object, *, config: SafetyConfig, policy: CompiledPolicy
) -> CommandAssessment:
    """Assess an execute call's command: opaque (ASK) if it is one, DENY if it is not."""
    text = _describe(command)
    if text is None:
        return CommandAssessment(
            Verdict.DENY,
            (
                Reason(
                    "command-invalid",
                    "command",
                    "the execute call has no command to run (expected a non-empty string "
                    f"or a list of strings, got {type(command).__name__})",
                ),
            ),
            None,
            False,
        )
    return CommandAssessment(
        Verdict.ASK,
        (
            Reason(
                "command-opaque",
                "shell-analysis",
                f"command `{text}` is not analysed, so it cannot be known to be safe",
            ),
        ),
        None,
        False,
    )
