"""What the reference agent writes into tool calls: prompt lines in, output and denials out."""

from __future__ import annotations

from typing import Any

from safehold import Decision
from safehold.adapters.bwrap import CommandResult

__all__ = ["command_lines", "denial_text", "output_text", "raw_output", "summary"]


def command_lines(prompt: list[Any]) -> list[str]:
    """The prompt's commands, one per line.

    Three ways to write them (clients such as Toad run a bare `cat x` in their own shell,
    so the prefixed and fenced forms keep commands away from it):

    - `run: CMD` on a line of its own;
    - the lines of a fenced code block (```` ``` ```` or `~~~`, any info string);
    - otherwise, when the prompt has neither, every line.

    When a prompt has `run:` lines or fences, its other lines are prose and never run.
    Blank lines and `#` comments are skipped everywhere.
    """
    text_lines: list[str] = []
    for block in prompt:
        text = getattr(block, "text", None)
        if getattr(block, "type", None) == "text" and isinstance(text, str):
            text_lines.extend(text.splitlines())
    marked: list[str] = []
    plain: list[str] = []
    fence: str | None = None
    explicit = False
    for raw in text_lines:
        line = raw.strip()
        if fence is not None:
            if line.startswith(fence) and not line[len(fence) :].strip(fence[0]).strip():
                fence = None
            elif _is_command(line):
                marked.append(line)
            continue
        opening = _fence_of(line)
        if opening is not None:
            fence, explicit = opening, True
            continue
        if line[:4].lower() == "run:":
            explicit = True
            command = line[4:].strip()
            if _is_command(command):
                marked.append(command)
        elif _is_command(line):
            plain.append(line)
    return marked if explicit else plain


def _fence_of(line: str) -> str | None:
    # CommonMark: three or more backticks or tildes open a fence, an info string may follow.
    for ch in "`~":
        if line.startswith(ch * 3):
            run = len(line) - len(line.lstrip(ch))
            if ch == "`" and "`" in line[run:]:
                return None  # ```foo``` inline code is not a fence
            return ch * run
    return None


def _is_command(line: str) -> bool:
    return bool(line) and not line.startswith("#")


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
