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
    "value_kind",
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


def value_kind(value: object) -> str:
    """What a value read from JSON or TOML is, in the file's words (`null`, `a list`), never
    Python's (`NoneType`, `tuple`): for messages about a payload, an argument or a config."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    from collections.abc import Mapping  # not at the top: the warm `safehold run` client

    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, bytes | bytearray):
        return "bytes"
    return f"a {type(value).__name__}"  # a TOML date or time, or a caller's own object
