"""Errors raised by safehold.

The tree::

    SafeholdError                 base of everything safehold raises on purpose
    ├── ConfigError               a config file could not be read or is invalid (exit 2)
    ├── PolicyError               a session change is refused (unknown session, floor)
    │   └── UnknownSessionError   the session id was never opened, or was closed
    └── SandboxError              the sandbox could not run a command (exit 125)
        └── SandboxUnavailable    bwrap is missing or cannot create namespaces

Decision functions never raise for bad *input*: a path or command that cannot be
understood becomes a DENY or ASK with a reason. These errors are for wiring mistakes
and for components that cannot do their job.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "PolicyError",
    "SafeholdError",
    "SandboxError",
    "SandboxUnavailable",
    "UnknownSessionError",
]


class SafeholdError(Exception):
    """Base class of every error safehold raises on purpose."""

    exit_code: int = 1


class ConfigError(SafeholdError):
    """A configuration file could not be read or does not validate."""

    exit_code = 2


class PolicyError(SafeholdError):
    """A session change was refused (unknown session, or more permissive than the floor)."""

    exit_code = 2


class UnknownSessionError(PolicyError):
    """The session id was never opened, or has been closed."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"unknown session `{session_id}`: open it first (session/new or load)")
        self.session_id = session_id


class SandboxError(SafeholdError):
    """The sandbox could not run the command (as opposed to the command failing)."""

    exit_code = 125


class SandboxUnavailable(SandboxError):
    """bubblewrap is missing or cannot create namespaces on this host."""
