"""Step 4 of the shell pipeline: one judge decides each effect against the policy.

`judge` takes the effects of a command (`effects.Effect`) and says, for each, what it
asks or denies. Without the sandbox (`sandbox.mode = "none"`) in auto mode, a part not
understood asks (`not-understood`): nothing confines what it may do; so does a package
manager that downloads packages and runs their code (`downloaded-code`, rule 3), and so does
a command that shows secret environment variables (`environment-secrets`), and so does a
command whose table says it acts where the analysis cannot look (`unseen`: `docker exec`,
`kubectl apply`; the code is the table's). With the
sandbox on both are confined and ask nothing; everything understood is still judged in full.
"""

from __future__ import annotations

from collections.abc import Iterable

from safehold.policy.decision import Reason, Verdict
from safehold.policy.shell.effects import ENVIRONMENT, Effect
from safehold.policy.shell.roles import Finding

__all__ = ["DECLARE_HINT", "judge"]

DECLARE_HINT = (
    "to run it unasked, declare the program in a `[[programs]]` table of the config "
    '(docs/configuration.md), add it to the program tables (docs/shell.md, "Adding a '
    'program"), or run commands in the sandbox'
)


def judge(effects: Iterable[Effect], *, unconfined: bool) -> list[Finding]:
    """The findings on `effects`: what each asks or denies (empty: no objection)."""
    out: list[Finding] = []
    for effect in effects:
        if effect.kind == "not-understood" and unconfined:
            out.append(Finding(Verdict.ASK, _not_understood(effect)))
        elif effect.kind == "run" and effect.target == "downloaded packages" and unconfined:
            out.append(Finding(Verdict.ASK, _downloaded(effect)))
        elif effect.kind == "read" and effect.target == ENVIRONMENT and unconfined:
            out.append(Finding(Verdict.ASK, _environment(effect)))
        elif effect.kind == "unseen" and unconfined:
            out.append(Finding(Verdict.ASK, _unseen(effect)))
    return out


def _unseen(effect: Effect) -> Reason:
    """A command the tables understand that acts out of the analysis's sight (a table's
    `HostAsk`: `docker exec`, `kubectl apply`): a person decides."""
    return Reason(
        effect.target,
        effect.program,
        f"{effect.provenance}, and no sandbox stands in between (sandbox.mode is none)",
    )


def _environment(effect: Effect) -> Reason:
    """On the host the command has the agent's environment: its keys and tokens."""
    return Reason(
        "environment-secrets",
        effect.program,
        f"{effect.provenance}: on the host the command sees the agent's environment, with "
        "its keys and tokens, and what it prints reaches the model (safehold's sandbox "
        "passes only `sandbox.env_allowlist`)",
    )


def _downloaded(effect: Effect) -> Reason:
    """Security-model rule 3: downloaded code never runs unasked where nothing confines it."""
    return Reason(
        "downloaded-code",
        effect.program,
        f"{effect.provenance}, and no sandbox confines it (sandbox.mode is none)",
    )


def _not_understood(effect: Effect) -> Reason:
    """The reason names the program, and the word not understood when it is an option."""
    rule = (
        effect.program if effect.target == effect.program else f"{effect.program} {effect.target}"
    )
    return Reason(
        "not-understood",
        rule[:80],
        f"{effect.provenance}, so what it does is not known and no sandbox confines it "
        f"(sandbox.mode is none); {DECLARE_HINT}",
    )
