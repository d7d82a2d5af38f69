"""Run shell commands inside a bubblewrap sandbox: `run_sandboxed` (async), `run_sandboxed_sync`.

See docs/sandbox.md for the profiles, what is blocked and why, and the fallback policy.

The names load on first use: the warm `safehold run` client imports this package's light
modules (`_process`, `_limits`, `_argv`, `_result`) without the planner and the config models.
"""

from __future__ import annotations

from safehold.errors import SandboxError, SandboxUnavailable

TYPE_CHECKING = False  # not typing's: the warm `safehold run` client imports this package
if TYPE_CHECKING:
    from typing import Any

    from safehold.adapters.bwrap._result import CommandResult
    from safehold.adapters.bwrap._runner import run_sandboxed, run_sandboxed_sync

__all__ = [
    "CommandResult",
    "SandboxError",
    "SandboxUnavailable",
    "run_sandboxed",
    "run_sandboxed_sync",
]


def __getattr__(name: str) -> Any:
    if name == "CommandResult":
        from safehold.adapters.bwrap._result import CommandResult

        return CommandResult
    if name in ("run_sandboxed", "run_sandboxed_sync"):
        from safehold.adapters.bwrap import _runner

        return getattr(_runner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
