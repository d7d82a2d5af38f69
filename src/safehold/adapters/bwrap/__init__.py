"""Run shell commands inside a bubblewrap sandbox: `run_sandboxed` (async), `run_sandboxed_sync`.

See docs/sandbox.md for the profiles, what is blocked and why, and the fallback policy.
"""

from safehold.adapters.bwrap._result import CommandResult
from safehold.adapters.bwrap._runner import run_sandboxed, run_sandboxed_sync
from safehold.errors import SandboxError, SandboxUnavailable

__all__ = [
    "CommandResult",
    "SandboxError",
    "SandboxUnavailable",
    "run_sandboxed",
    "run_sandboxed_sync",
]
