"""`CommandResult`: what a sandboxed (or explicitly unsandboxed) command did."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CommandResult"]


@dataclass(frozen=True, slots=True)
class CommandResult:
    """Exit status and captured output of one command run by the sandbox runner.

    `stdout` and `stderr` are bytes (commands print arbitrary encodings); decode with
    `.stdout.decode("utf-8", "replace")` or use `stdout_text`.
    """

    exit_code: int | None
    """The command's exit status; 128+N when killed by signal N; None when it timed out."""
    stdout: bytes
    """Captured standard output, at most `max_output_bytes`."""
    stderr: bytes
    """Captured standard error, at most `max_output_bytes`."""
    timed_out: bool
    """The timeout expired and the whole sandbox was killed."""
    truncated: bool
    """stdout or stderr produced more than the cap; the rest was read and dropped."""
    duration: float
    """Wall-clock seconds from spawning to reaping."""
    sandboxed: bool
    """True when bwrap confined the command; False only with `sandbox.mode = "none"`."""
    findings: tuple[str, ...] = ()
    """Post-run audit: protected paths the sandbox could not pin that were created or replaced."""

    @property
    def stdout_text(self) -> str:
        """stdout decoded as UTF-8, invalid bytes replaced."""
        return self.stdout.decode("utf-8", "replace")

    @property
    def stderr_text(self) -> str:
        """stderr decoded as UTF-8, invalid bytes replaced."""
        return self.stderr.decode("utf-8", "replace")
