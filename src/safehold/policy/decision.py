"""Verdicts, reasons and decisions: every verdict carries the rules that produced it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["STEPS", "Decision", "Reason", "Verdict", "strictest"]


class Verdict(StrEnum):
    """The answer to a tool call. Strictness: DENY > ASK > ALLOW."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"

    @property
    def strictness(self) -> int:
        """0 for allow, 1 for ask, 2 for deny."""
        return _STRICTNESS[self]


_STRICTNESS = {Verdict.ALLOW: 0, Verdict.ASK: 1, Verdict.DENY: 2}


def strictest(*verdicts: Verdict) -> Verdict:
    """Return the strictest of the verdicts (ALLOW for none)."""
    return max(verdicts, key=_STRICTNESS.__getitem__, default=Verdict.ALLOW)


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a verdict was reached: a kebab-case code, the rule that fired, and a message.

    `source` is where the rule came from (`denied_paths, built-in`, `command_rules,
    /p/.safehold.toml (project file)`, `program table: rm`), filled in after the decision by
    `safehold.policy.provenance.annotate`; the engine leaves it None.
    """

    code: str
    rule: str
    message: str
    source: str | None = None

    def to_dict(self) -> dict[str, str]:
        """Return the reason as a JSON-ready dict (`source` only when known)."""
        out = {"code": self.code, "rule": self.rule, "message": self.message}
        if self.source is not None:
            out["source"] = self.source
        return out


_LEAD = {Verdict.ALLOW: "Allowed", Verdict.ASK: "Needs approval", Verdict.DENY: "Denied"}
_NO_REASON = {
    Verdict.ALLOW: "nothing in the policy objects",
    Verdict.ASK: "no reason was given",
    Verdict.DENY: "no reason was given",
}


# The precedence steps of `evaluate` (engine.py's docstring) that can decide a call.
STEPS: dict[str, str] = {
    "deny": "step 1: a deny wins, and no grant lifts it",
    "hard-ask": "step 2: an ask that no grant lifts (a protected path, read-only, an `env`, a "
    "scan that stopped early)",
    "grant-reject": "step 4: an earlier \u201calways reject\u201d answer",
    "grant-allow": "step 4: an earlier \u201calways allow\u201d answer lifted the remaining asks",
    "ask": "step 5: command analysis, a path or host outside the policy, or an approval flag asks",
    "allow": "step 6: nothing in the policy objects",
    "error": "step 7: the decision could not be made, so it is denied",
}


@dataclass(frozen=True, slots=True)
class Decision:
    """The verdict for one tool call, the reasons for it, and the key an "always" would record.

    `confined` is True only for an ALLOW that holds because safehold's sandbox confines the
    command (decided with `runner="sandbox"`; the host decision is stricter, and a reason
    `allowed-in-sandbox` says how). Run such a command only with `run_sandboxed`.
    `step` names the precedence step of `evaluate` that decided (a key of `STEPS`), or None
    where the decision was made elsewhere (a person's answer, an adapter).
    """

    verdict: Verdict
    reasons: tuple[Reason, ...] = ()
    grant_key: str | None = None
    confined: bool = False
    step: str | None = None

    @property
    def allowed(self) -> bool:
        """True only for ALLOW."""
        return self.verdict is Verdict.ALLOW

    def explain(self, *, steps: bool = False) -> str:
        """What was decided and every reason why, for a person.

        One sentence by default (what hooks and adapters show). With `steps=True`, one line
        per step that contributed: the precedence step that decided, then each reason with
        its code, the rule (list entry, pattern or setting) and, when known, where that rule
        came from; then the grant key an "always" answer would record.
        """
        messages = list(dict.fromkeys(r.message.strip().rstrip(".") for r in self.reasons))
        because = "; ".join(m for m in messages if m) or _NO_REASON[self.verdict]
        sentence = f"{_LEAD[self.verdict]}: {because}."
        if not steps:
            return sentence
        lines = [f"{self.verdict.value}"]
        if self.step is not None:
            lines.append(f"  decided by {STEPS.get(self.step, self.step)}")
        for r in self.reasons:
            origin = f" (from {r.source})" if r.source is not None else ""
            lines.append(f"  - {r.code}: rule `{r.rule}`{origin}")
            lines.append(f"      {r.message}")
        if self.grant_key is not None:
            lines.append(f"  an \u201calways\u201d answer would record: {self.grant_key}")
        return "\n".join(lines)

    def trace(self) -> str:
        """`explain(steps=True)` in one line: the deciding step and each rule with its source.

        `step 1 (deny); rules: `.env` (denied_paths, built-in), `rm delete` (program table: rm)`.
        """
        rules = [
            f"`{r.rule}`" + (f" ({r.source})" if r.source is not None else "") for r in self.reasons
        ]
        head = []
        if self.step is not None and self.step in STEPS:
            head.append(f"{STEPS[self.step].split(':')[0]} ({self.step})")
        tail = [f"rules: {', '.join(dict.fromkeys(rules))}"] if rules else []
        return "; ".join(head + tail)

    def to_dict(self) -> dict[str, object]:
        """Return the decision as a JSON-ready dict (`step` only when known)."""
        out: dict[str, object] = {
            "verdict": self.verdict.value,
            "reasons": [r.to_dict() for r in self.reasons],
            "grant_key": self.grant_key,
            "confined": self.confined,
        }
        if self.step is not None:
            out["step"] = self.step
        return out
