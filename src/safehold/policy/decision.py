"""Verdicts, reasons and decisions: every verdict carries the rules that produced it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Decision", "Reason", "Verdict", "strictest"]


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
    """Why a verdict was reached: a kebab-case code, the rule that fired, and a message."""

    code: str
    rule: str
    message: str

    def to_dict(self) -> dict[str, str]:
        """Return the reason as a JSON-ready dict."""
        return {"code": self.code, "rule": self.rule, "message": self.message}


_LEAD = {Verdict.ALLOW: "Allowed", Verdict.ASK: "Needs approval", Verdict.DENY: "Denied"}
_NO_REASON = {
    Verdict.ALLOW: "nothing in the policy objects",
    Verdict.ASK: "no reason was given",
    Verdict.DENY: "no reason was given",
}


@dataclass(frozen=True, slots=True)
class Decision:
    """The verdict for one tool call, the reasons for it, and the key an "always" would record.

    `confined` is True only for an ALLOW that holds because safehold's sandbox confines the
    command (decided with `runner="sandbox"`; the host decision is stricter, and a reason
    `allowed-in-sandbox` says how). Run such a command only with `run_sandboxed`.
    """

    verdict: Verdict
    reasons: tuple[Reason, ...] = ()
    grant_key: str | None = None
    confined: bool = False

    @property
    def allowed(self) -> bool:
        """True only for ALLOW."""
        return self.verdict is Verdict.ALLOW

    def explain(self) -> str:
        """One sentence for a person: what was decided and every reason why, in words."""
        messages = list(dict.fromkeys(r.message.strip().rstrip(".") for r in self.reasons))
        because = "; ".join(m for m in messages if m) or _NO_REASON[self.verdict]
        return f"{_LEAD[self.verdict]}: {because}."

    def to_dict(self) -> dict[str, object]:
        """Return the decision as a JSON-ready dict."""
        return {
            "verdict": self.verdict.value,
            "reasons": [r.to_dict() for r in self.reasons],
            "grant_key": self.grant_key,
            "confined": self.confined,
        }
