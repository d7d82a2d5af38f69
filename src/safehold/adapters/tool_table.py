"""Tool tables: what a framework's tool names mean to the policy, as data.

An adapter receives a tool name and its arguments in the framework's own spelling (Claude
Code's `Bash {"command": ...}`, Gemini CLI's `run_shell_command {"command", "dir_path"}`).
A `ToolTable` maps each name to a `ToolSpec`: the ACP kind it has and which of its argument
keys hold paths, the shell command, the directory a command runs in, URLs and glob filters.
`ToolTable.to_call` turns one call into the `ToolCall` the engine judges.

A name the table does not know is judged as kind `other` (an unknown side: asked unless the
mode is auto) and logged once per name on the `safehold.adapters` logger, so a framework that
grows a new tool is noticed rather than silently trusted.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from safehold.policy.calls import ToolCall, ToolKind

__all__ = ["UNKNOWN_TOOL", "ToolSpec", "ToolTable"]

_LOG: Final = logging.getLogger("safehold.adapters")


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What one tool is: its ACP kind and the argument keys that carry what the policy checks.

    ``command_arg`` and ``cwd_arg`` name the keys holding the shell command and the directory
    it runs in; `ToolTable.to_call` copies them to the engine's ``command`` and ``cwd`` keys.
    ``path_args`` are checked as paths on top of the engine's common names. ``url_args``
    (URLs, and free text holding URLs: Gemini CLI's `web_fetch` prompt) go to the URL
    policy, ``glob_args`` (glob/include filters of search tools) to the denied paths.
    ``writes`` are files the tool changes though no argument names them (Gemini CLI's
    `save_memory` appends to `~/.gemini/GEMINI.md`): each is judged as a path argument.
    ``arguments`` lists every argument the tool's own declaration has (None: not listed);
    a call with any other argument asks (`argument-unknown`), whatever the mode.
    """

    kind: ToolKind
    path_args: tuple[str, ...] = ()
    command_arg: str | None = None
    cwd_arg: str | None = None
    url_args: tuple[str, ...] = ()
    glob_args: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    arguments: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ToolKind(self.kind))
        if isinstance(self.arguments, str):
            raise TypeError(f"ToolSpec.arguments must be a tuple of keys, not {self.arguments!r}")
        if self.arguments is not None:
            object.__setattr__(self, "arguments", tuple(self.arguments))
        for name in ("path_args", "url_args", "glob_args", "writes"):
            value = getattr(self, name)
            if isinstance(value, str):
                raise TypeError(
                    f"ToolSpec.{name} must be a tuple of keys, not the string {value!r}"
                )
            object.__setattr__(self, name, tuple(value))


UNKNOWN_TOOL: Final = ToolSpec(ToolKind.OTHER)
"""The spec of a tool no table names: kind `other`, so the engine treats its side as unknown."""


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not name or name == "*":
        raise ValueError(f"tool table key {name!r}: expected a tool name or a `prefix*` pattern")
    if "*" in name[:-1]:
        raise ValueError(f"tool table key `{name}`: `*` is only allowed at the end (`mcp__*`)")
    return name


@dataclass(frozen=True)
class ToolTable:
    """A framework's tool names → `ToolSpec`; keys ending in `*` match every name with that prefix.

    An exact name wins over a pattern; among patterns the longest prefix wins, so
    `{"mcp__*": other, "mcp__github__*": read}` reads GitHub's MCP tools as reads.
    """

    framework: str
    """The framework's name as a person knows it (`Claude Code`), used in log messages."""
    tools: Mapping[str, ToolSpec]
    default: ToolSpec = UNKNOWN_TOOL
    """The spec of a name that nothing matches."""
    _prefixes: tuple[tuple[str, ToolSpec], ...] = field(init=False, repr=False, compare=False)
    _warned: set[str] = field(init=False, repr=False, compare=False, default_factory=set)
    _lock: threading.Lock = field(
        init=False, repr=False, compare=False, default_factory=threading.Lock
    )

    def __post_init__(self) -> None:
        tools = {_check_name(k): v for k, v in self.tools.items()}
        for key, spec in tools.items():
            if not isinstance(spec, ToolSpec):
                raise TypeError(f"tool table key `{key}`: expected a ToolSpec, got {spec!r}")
        object.__setattr__(self, "tools", MappingProxyType(tools))
        prefixes = sorted(
            ((k[:-1], v) for k, v in tools.items() if k.endswith("*")),
            key=lambda kv: len(kv[0]),
            reverse=True,
        )
        object.__setattr__(self, "_prefixes", tuple(prefixes))

    def with_tools(self, tools: Mapping[str, ToolSpec]) -> ToolTable:
        """Return a table with these entries added or replaced (a user's own MCP tools)."""
        return ToolTable(self.framework, {**self.tools, **tools}, self.default)

    def names(self) -> Iterable[str]:
        """The exact names and patterns this table maps."""
        return self.tools.keys()

    def match(self, name: str) -> ToolSpec | None:
        """The spec for this tool name, or None when no entry or pattern matches."""
        spec = self.tools.get(name)
        if spec is not None and not name.endswith("*"):
            return spec
        for prefix, pattern_spec in self._prefixes:
            if name.startswith(prefix):
                return pattern_spec
        return None

    def lookup(self, name: str) -> ToolSpec:
        """The spec for this tool name; an unmapped name gets `default` and one warning."""
        spec = self.match(name)
        if spec is not None:
            return spec
        with self._lock:
            first = name not in self._warned
            if first and len(self._warned) < 1000:  # bounded: names come from the model
                self._warned.add(name)
        if first:
            _LOG.warning(
                "%s tool `%s` is not in safehold's tool table; judged as kind `%s`",
                self.framework,
                name[:200],
                self.default.kind.value,
            )
        return self.default

    def forget_warnings(self) -> None:
        """Warn again about names seen before (the hook server stands in for a process per call)."""
        with self._lock:
            self._warned.clear()

    def to_call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        tool_call_id: str | None = None,
    ) -> ToolCall:
        """The `ToolCall` the engine judges for one call of this framework's tool."""
        spec = self.lookup(name)
        args = dict(arguments)
        # The engine reads the command from `command` and the directory from `cwd`; a tool
        # that spells them otherwise has them copied there, so the analysis cannot miss them.
        for key, canonical in ((spec.command_arg, "command"), (spec.cwd_arg, "cwd")):
            if key is not None and key != canonical and key in arguments:
                args[canonical] = arguments[key]
        path_args = spec.path_args
        added: list[str] = [k for k in ("command", "cwd") if k not in arguments and k in args]
        for i, path in enumerate(spec.writes, start=1):
            key = f"(writes {i})"  # no tool's own key: `(` is not in any argument name
            args[key] = path
            path_args = (*path_args, key)
            added.append(key)
        known = None if spec.arguments is None else (*spec.arguments, *added)
        return ToolCall(
            name=name,
            arguments=args,
            kind=spec.kind,
            tool_call_id=tool_call_id,
            path_args=path_args,
            glob_args=spec.glob_args,
            url_args=spec.url_args,
            known_args=known,
        )
