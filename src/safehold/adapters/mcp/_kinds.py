"""MCP tool annotations → ACP kinds, and the proxy's `[mcp]` config table.

Annotations are hints a server gives about its own tools (`readOnlyHint`, `destructiveHint`,
`openWorldHint`). Only hints the server states explicitly count: a tool without any is
unmapped (kind `other`, asked unless the mode is auto, and logged once). A config entry for a
tool always wins over its annotations, since a server's hints are its own claims.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from safehold.adapters.tool_table import ToolSpec, ToolTable
from safehold.errors import ConfigError
from safehold.policy.calls import ToolKind
from safehold.policy.config import validation_message

__all__ = ["McpSettings", "McpToolEntry", "kind_from_annotations", "mcp_tool_table"]

FRAMEWORK = "MCP server"
_BRANCH_TAGS = frozenset({"str-enum[ToolKind]", "McpToolEntry"})

# First matching row wins. `destructiveHint` only means something when `readOnlyHint` is not
# true (the MCP spec says so), hence the read-only rows first; a read-only tool that reaches
# the open world (a web search) still sends data out, so it is a fetch. A destructive tool
# is an edit, not a delete: the spec's "destructive updates" are overwrites as much as
# deletions (the reference filesystem server's `write_file` says `destructiveHint: true`),
# and both kinds are the write side, so the verdict is the same and the words are right.
_RULES: tuple[tuple[Mapping[str, bool], ToolKind], ...] = (
    ({"readOnlyHint": True, "openWorldHint": True}, ToolKind.FETCH),
    ({"readOnlyHint": True}, ToolKind.READ),
    ({"destructiveHint": True}, ToolKind.EDIT),
    ({"openWorldHint": True}, ToolKind.FETCH),
    ({"destructiveHint": False}, ToolKind.EDIT),
    ({"readOnlyHint": False}, ToolKind.EDIT),
)


# Words of a tool's name that say it changes something (`write_file`, `createNote`,
# `run_query`): a read-only hint on such a tool is a claim its own name contradicts, so the
# hint is not trusted and the tool stays unmapped (kind `other`, its paths judged as writes).
_CHANGE_WORDS = frozenset(
    {
        "write",
        "edit",
        "create",
        "delete",
        "remove",
        "move",
        "rename",
        "update",
        "put",
        "set",
        "append",
        "save",
        "upload",
        "patch",
        "insert",
        "replace",
        "modify",
        "exec",
        "execute",
        "run",
        "kill",
        "drop",
        "commit",
        "push",
        "apply",
        "install",
        "chmod",
        "chown",
        "mkdir",
        "truncate",
        "overwrite",
        "post",
        "send",
    }
)


def _name_words(name: str) -> list[str]:
    """`write_file` → `write`, `file`; `createNote` → `create`, `note` (lower case)."""
    words: list[str] = []
    current = ""
    for ch in name[:256]:
        if not ch.isalnum():
            words.append(current)
            current = ""
        elif ch.isupper() and current and not current[-1].isupper():
            words.append(current)
            current = ch
        else:
            current += ch
    words.append(current)
    return [w.lower() for w in words if w]


def _says_change(name: str) -> bool:
    return any(word in _CHANGE_WORDS for word in _name_words(name))


def kind_from_annotations(annotations: object) -> ToolKind | None:
    """The kind a tool's explicit annotation hints give it, or None when it states none."""
    if not isinstance(annotations, Mapping):
        return None
    for hints, kind in _RULES:
        # `is` on purpose: only a JSON true/false counts, not "yes" or 1.
        if all(annotations.get(name) is value for name, value in hints.items()):
            return kind
    return None


class McpToolEntry(BaseModel):
    """A tool's entry in `[mcp.tools]`: its kind and which arguments hold paths or a command."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ToolKind
    path_args: tuple[str, ...] = ()
    command_arg: str | None = None
    cwd_arg: str | None = None

    def spec(self) -> ToolSpec:
        """The tool-table spec of this entry."""
        return ToolSpec(
            self.kind, path_args=self.path_args, command_arg=self.command_arg, cwd_arg=self.cwd_arg
        )


class McpSettings(BaseModel):
    """The `[mcp]` table of a safehold config file: per-tool kinds that override annotations.

    ``tools = { search = "read", run = { kind = "execute", command_arg = "cmd" } }``; a key
    ending in ``*`` covers every tool with that prefix.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    tools: dict[str, ToolKind | McpToolEntry] = {}
    cwd: str | None = None
    """The session's workspace when `--cwd` is not given (relative to the config file)."""

    @classmethod
    def from_section(cls, section: object, source: str = "config") -> McpSettings:
        """Validate the `[mcp]` table read from a config file; errors are `ConfigError`."""
        try:
            return cls.model_validate(section if section is not None else {})
        except ValidationError as exc:
            # The first error of the first branch: a tool's entry is a kind name or a table,
            # and pydantic's branch tags (`str-enum[ToolKind]`) are not the file's words.
            errors = exc.errors(include_url=False)
            # An entry written as a table is judged as a table, not as a kind name.
            tables = [
                e
                for e in errors
                if not ("str-enum[ToolKind]" in e["loc"] and isinstance(e["input"], Mapping))
            ]
            first = (tables or errors)[0]
            where = ".".join(str(x) for x in first["loc"] if str(x) not in _BRANCH_TAGS)
            message = validation_message(first, setting="an `[mcp]`")
            raise ConfigError(f"{source}: `mcp.{where}`: {message}") from None

    def specs(self) -> dict[str, ToolSpec]:
        """The configured tools as tool-table specs."""
        return {
            name: entry.spec() if isinstance(entry, McpToolEntry) else ToolSpec(entry)
            for name, entry in self.tools.items()
        }


def mcp_tool_table(tools: Mapping[str, Any], settings: McpSettings | None = None) -> ToolTable:
    """A tool table for one server: kinds from the listed tools' annotations, then the config's.

    `tools` maps each listed tool name to its `annotations` object (or None).
    """
    specs: dict[str, ToolSpec] = {}
    for name, hints in tools.items():
        kind = kind_from_annotations(hints)
        if kind in (ToolKind.READ, ToolKind.FETCH) and isinstance(name, str) and _says_change(name):
            kind = None  # `write_file` saying `readOnlyHint: true`: its name says otherwise
        if kind is not None and isinstance(name, str) and name and "*" not in name:
            specs[name] = ToolSpec(kind)
    if settings is not None:
        specs.update(settings.specs())
    return ToolTable(FRAMEWORK, specs)
