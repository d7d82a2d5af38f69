"""Tool calls as the engine sees them: a name, arguments, an ACP kind and locations."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

__all__ = ["Side", "ToolCall", "ToolKind", "side_of"]


class ToolKind(StrEnum):
    """The ACP tool kinds."""

    READ = "read"
    EDIT = "edit"
    DELETE = "delete"
    MOVE = "move"
    SEARCH = "search"
    EXECUTE = "execute"
    THINK = "think"
    FETCH = "fetch"
    SWITCH_MODE = "switch_mode"
    OTHER = "other"


class Side(StrEnum):
    """What a tool call does to the world, derived from its kind."""

    READ = "read"
    WRITE = "write"
    EXECUTE = "execute"
    NETWORK = "network"
    UNKNOWN = "unknown"


_SIDES = {
    ToolKind.READ: Side.READ,
    ToolKind.SEARCH: Side.READ,
    ToolKind.THINK: Side.READ,
    ToolKind.EDIT: Side.WRITE,
    ToolKind.DELETE: Side.WRITE,
    ToolKind.MOVE: Side.WRITE,
    ToolKind.EXECUTE: Side.EXECUTE,
    ToolKind.FETCH: Side.NETWORK,
}


def side_of(kind: ToolKind) -> Side:
    """Return the side of a kind; other, switch_mode and anything unknown are UNKNOWN."""
    return _SIDES.get(kind, Side.UNKNOWN)


def _coerce_kind(kind: ToolKind | str | None) -> ToolKind:
    # An unrecognised kind string must not be trusted as anything but "other" (unknown side).
    if isinstance(kind, ToolKind):
        return kind
    try:
        return ToolKind(str(kind))
    except ValueError:
        return ToolKind.OTHER


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call an agent is about to make.

    ``path_args`` names extra arguments of this tool that hold paths, on top of the
    common names (``path``, ``file_path``, ``src``, ...). ``locations`` are ACP
    ``ToolCallLocation`` paths. ``glob_args`` name glob/include filters (matched against the
    denied paths) and ``url_args`` free text holding URLs (judged by the URL policy).
    ``known_args``, when given, lists every argument the tool documents (a tool table's
    entry): any other argument asks, since what the tool does with it is unknown.
    """

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    kind: ToolKind = ToolKind.OTHER
    tool_call_id: str | None = None
    locations: tuple[str, ...] = ()
    path_args: tuple[str, ...] = ()
    glob_args: tuple[str, ...] = ()
    url_args: tuple[str, ...] = ()
    known_args: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _coerce_kind(self.kind))
        # A read-only view: the decision must be about the arguments as they were.
        object.__setattr__(self, "arguments", MappingProxyType(dict(self.arguments)))
        object.__setattr__(self, "locations", tuple(self.locations))
        object.__setattr__(self, "path_args", tuple(self.path_args))
        object.__setattr__(self, "glob_args", tuple(self.glob_args))
        object.__setattr__(self, "url_args", tuple(self.url_args))
        if self.known_args is not None:
            object.__setattr__(self, "known_args", tuple(self.known_args))

    @property
    def side(self) -> Side:
        """The side derived from the declared kind (the engine also reads the arguments)."""
        return side_of(self.kind)
