"""What the reference agent writes into tool calls: prompt lines in, output and denials out."""

from __future__ import annotations

from typing import Any

from safehold import Decision
from safehold.adapters.bwrap import CommandResult

__all__ = ["command_lines", "denial_text", "output_text", "raw_output", "summary"]


def command_lines(prompt: list[Any]) -> list[str]:
    """The prompt's commands: non-empty text lines that are not `#` comments."""
    lines: list[str] = []
    for block in prompt:
        text = getattr(block, "text", None)
        if getattr(block, "type", None) != "text" or not isinstance(text, str):
            continue
        for raw in text.splitlines():
            line = raw.strip()
            if line and not line.startswith("#"):
                lines.append(line)
    return lines


def denial_text(decision: Decision) -> str:
    """A denial with every reason, as the person sees it in the tool call."""
    word = "denied" if decision.verdict.value == "deny" else "not allowed"
    reasons = "\n".join(f"- {r.message} ({r.code})" for r in decision.reasons)
    return f"{word} by safehold:\n{reasons}" if reasons else f"{word} by safehold"


def raw_output(decision: Decision, **extra: Any) -> dict[str, Any]:
    """A tool call's compact `rawOutput`: the verdict and reason codes, then `extra`.

    Clients print rawOutput as is (acpx shows it before every result), so the messages
    stay in the content and the full decision in the audit log.
    """
    return {
        "verdict": decision.verdict.value,
        "reasons": [r.code for r in decision.reasons],
        **extra,
    }


def output_text(result: CommandResult) -> str:
    """The command's output in a code fence, then its exit status."""
    parts = []
    if result.stdout:
        parts.append(result.stdout_text.rstrip("\n"))
    if result.stderr:
        parts.append(result.stderr_text.rstrip("\n"))
    body = "\n".join(parts)
    fence = "`" * max(3, _longest_backtick_run(body) + 1)
    status = (
        "timed out (the sandbox was killed)"
        if result.timed_out
        else f"exit code {result.exit_code}"
    )
    if result.truncated:
        status += "; output truncated"
    # What the sandbox could not prevent (a protected path created, a symlink swapped) is
    # for the person to review, so it goes where they look, not only into the log.
    status += "".join(f"\nsandbox audit: {finding}" for finding in result.findings)
    return f"{fence}\n{body}\n{fence}\n{status}" if body else status


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return longest


def summary(outcomes: list[str]) -> str:
    """One closing line counting what happened to the turn's commands."""
    if not outcomes:
        return "Nothing ran."
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o] = counts.get(o, 0) + 1
    parts = ", ".join(f"{n} {what}" for what, n in counts.items())
    noun = "command" if len(outcomes) == 1 else "commands"
    return f"{len(outcomes)} {noun}: {parts}."
