"""Gemini CLI's tools: names (and their legacy aliases), kinds and argument keys.

Argument names follow Gemini CLI's tool declarations (`file_path`, `dir_path`, `pattern`,
`include_pattern`, ...); older releases used `absolute_path`, `path`, `directory` and
`include`, which are listed too. MCP tools are named `mcp__<server>__<tool>` in hooks
(`mcp_<server>_<tool>` in policies).
"""

from __future__ import annotations

from typing import Final

from safehold.adapters.tool_table import ToolSpec, ToolTable
from safehold.policy.calls import ToolKind

__all__ = ["GEMINI_CLI_TOOLS"]

_K = ToolKind
_DIRS = ("dir_path", "path", "directory")
# `arguments`: each tool's declared parameters (current and legacy names); any other
# argument asks (`argument-unknown`). `file_filtering_options` holds the ignore switches.
_FILTERS = ("file_filtering_options", "respect_git_ignore", "respect_gemini_ignore")
_GREP = ToolSpec(
    _K.SEARCH,
    path_args=_DIRS,
    glob_args=("include_pattern", "include"),
    arguments=(
        "pattern",
        *_DIRS,
        "include_pattern",
        "include",
        "exclude_pattern",
        "names_only",
        "case_sensitive",
        "fixed_strings",
        "context",
        "after",
        "before",
        "no_ignore",
        "max_matches_per_file",
        "total_max_matches",
    ),
)
_EDITED = ("modified_by_user", "ai_proposed_content")

GEMINI_CLI_TOOLS: Final = ToolTable(
    "Gemini CLI",
    {
        # Shell: `command` runs as `bash -c`, in `dir_path` (older: `directory`).
        "run_shell_command": ToolSpec(
            _K.EXECUTE,
            path_args=("dir_path", "directory"),
            command_arg="command",
            cwd_arg="dir_path",
            arguments=("command", "description", "dir_path", "directory", "is_background"),
        ),
        "read_file": ToolSpec(
            _K.READ,
            path_args=("file_path", "absolute_path", "path"),
            arguments=("file_path", "absolute_path", "path", "offset", "limit"),
        ),
        "write_file": ToolSpec(
            _K.EDIT, path_args=("file_path",), arguments=("file_path", "content", *_EDITED)
        ),
        "replace": ToolSpec(
            _K.EDIT,
            path_args=("file_path",),
            arguments=(
                "file_path",
                "old_string",
                "new_string",
                "expected_replacements",
                "allow_multiple",
                "instruction",
                *_EDITED,
            ),
        ),
        "glob": ToolSpec(
            _K.SEARCH,
            path_args=_DIRS,
            glob_args=("pattern",),
            arguments=("pattern", *_DIRS, "case_sensitive", *_FILTERS),
        ),
        "grep_search": _GREP,
        "search_file_content": _GREP,  # the legacy name of grep_search
        # `include` (older: `paths`) holds files, directories and globs; `exclude` only narrows.
        "read_many_files": ToolSpec(
            _K.READ,
            path_args=("paths",),
            glob_args=("include", "paths"),
            arguments=("include", "exclude", "paths", "recursive", "useDefaultExcludes", *_FILTERS),
        ),
        "list_directory": ToolSpec(
            _K.READ, path_args=_DIRS, arguments=(*_DIRS, "ignore", *_FILTERS)
        ),
        # `prompt` is free text holding up to 20 URLs to fetch.
        "web_fetch": ToolSpec(_K.FETCH, url_args=("prompt",), arguments=("prompt",)),
        "google_web_search": ToolSpec(_K.FETCH, arguments=("query",)),
        # Appends a `fact` to ~/.gemini/GEMINI.md, which later sessions load as instructions.
        "save_memory": ToolSpec(_K.EDIT, writes=("~/.gemini/GEMINI.md",), arguments=("fact",)),
        "get_internal_docs": ToolSpec(_K.READ),
        "write_todos": ToolSpec(_K.THINK),
        "ask_user": ToolSpec(_K.THINK),
        "update_topic": ToolSpec(_K.THINK),
        "codebase_investigator": ToolSpec(_K.THINK),
        "cli_help": ToolSpec(_K.THINK),
        "tracker_create_task": ToolSpec(_K.THINK),
        "tracker_update_task": ToolSpec(_K.THINK),
        "tracker_get_task": ToolSpec(_K.THINK),
        "tracker_list_tasks": ToolSpec(_K.THINK),
        "tracker_add_dependency": ToolSpec(_K.THINK),
        "tracker_visualize": ToolSpec(_K.THINK),
        "enter_plan_mode": ToolSpec(_K.SWITCH_MODE),
        "exit_plan_mode": ToolSpec(_K.SWITCH_MODE),
        # Skills, project-discovered tools and MCP tools can do anything: unknown side.
        "activate_skill": ToolSpec(_K.OTHER),
        "discovered_tool_*": ToolSpec(_K.OTHER),
        "mcp_*": ToolSpec(_K.OTHER),
    },
)
"""Gemini CLI's built-in tools; MCP and discovered tools are kind `other`."""
