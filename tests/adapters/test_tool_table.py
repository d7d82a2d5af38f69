"""Tool tables: names to kinds, prefix patterns, argument keys, one warning per unmapped tool."""

from __future__ import annotations

import logging

import pytest

from safehold import SafetyConfig, ToolKind, Verdict, evaluate
from safehold.adapters.tables.claude_code import CLAUDE_CODE_TOOLS
from safehold.adapters.tables.gemini_cli import GEMINI_CLI_TOOLS
from safehold.adapters.tool_table import UNKNOWN_TOOL, ToolSpec, ToolTable


def test_exact_name_wins_then_longest_prefix() -> None:
    table = ToolTable(
        "T",
        {
            "mcp__*": ToolSpec(ToolKind.OTHER),
            "mcp__github__*": ToolSpec(ToolKind.READ),
            "mcp__github__push": ToolSpec(ToolKind.EDIT),
        },
    )
    assert table.lookup("mcp__github__get_issue").kind is ToolKind.READ
    assert table.lookup("mcp__github__push").kind is ToolKind.EDIT
    assert table.lookup("mcp__slack__post").kind is ToolKind.OTHER
    # A pattern key is not a tool name: `mcp__*` itself matches only through its prefix.
    assert table.match("mcp_") is None


def test_star_only_at_the_end_and_values_are_specs() -> None:
    with pytest.raises(ValueError, match="only allowed at the end"):
        ToolTable("T", {"mcp__*__read": ToolSpec(ToolKind.READ)})
    with pytest.raises(ValueError, match="tool name"):
        ToolTable("T", {"*": ToolSpec(ToolKind.READ)})
    with pytest.raises(TypeError, match="ToolSpec"):
        ToolTable("T", {"x": ToolKind.READ})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="tuple of keys"):
        ToolSpec(ToolKind.READ, path_args="file_path")  # type: ignore[arg-type]


def test_unmapped_tool_is_other_and_warned_once(caplog: pytest.LogCaptureFixture) -> None:
    table = ToolTable("Frame", {"Read": ToolSpec(ToolKind.READ)})
    with caplog.at_level(logging.WARNING, logger="safehold.adapters"):
        for _ in range(3):
            assert table.lookup("Teleport") is UNKNOWN_TOOL
        table.lookup("Read")
        table.lookup("Warp")
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2
    assert "Frame tool `Teleport` is not in safehold's tool table" in messages[0]
    assert "`Warp`" in messages[1]


def test_with_tools_extends_without_changing_the_original() -> None:
    table = CLAUDE_CODE_TOOLS.with_tools({"mcp__fs__read_text": ToolSpec(ToolKind.READ)})
    assert table.lookup("mcp__fs__read_text").kind is ToolKind.READ
    assert CLAUDE_CODE_TOOLS.lookup("mcp__fs__read_text").kind is ToolKind.OTHER
    assert table.lookup("Bash").kind is ToolKind.EXECUTE


def test_command_and_cwd_keys_are_copied_for_the_engine() -> None:
    call = GEMINI_CLI_TOOLS.to_call(
        "run_shell_command", {"command": "ls", "dir_path": "/w/sub"}, tool_call_id="t1"
    )
    assert call.kind is ToolKind.EXECUTE
    assert call.arguments["cwd"] == "/w/sub"
    assert call.arguments["dir_path"] == "/w/sub"
    assert call.tool_call_id == "t1"
    assert "dir_path" in call.path_args
    table = ToolTable("T", {"sh": ToolSpec(ToolKind.EXECUTE, command_arg="cmd")})
    call = table.to_call("sh", {"cmd": "rm -rf /", "command": "true"})
    # The framework runs `cmd`, so `cmd` is what the engine analyses.
    assert call.arguments["command"] == "rm -rf /"
    decision = evaluate(SafetyConfig().with_mode("auto"), call, workspace="/tmp")
    assert decision.verdict is Verdict.DENY


@pytest.mark.parametrize(
    ("table", "name", "kind"),
    [
        (CLAUDE_CODE_TOOLS, "Bash", ToolKind.EXECUTE),
        (CLAUDE_CODE_TOOLS, "Read", ToolKind.READ),
        (CLAUDE_CODE_TOOLS, "Write", ToolKind.EDIT),
        (CLAUDE_CODE_TOOLS, "Edit", ToolKind.EDIT),
        (CLAUDE_CODE_TOOLS, "MultiEdit", ToolKind.EDIT),
        (CLAUDE_CODE_TOOLS, "NotebookEdit", ToolKind.EDIT),
        (CLAUDE_CODE_TOOLS, "Glob", ToolKind.SEARCH),
        (CLAUDE_CODE_TOOLS, "Grep", ToolKind.SEARCH),
        (CLAUDE_CODE_TOOLS, "LS", ToolKind.READ),
        (CLAUDE_CODE_TOOLS, "WebFetch", ToolKind.FETCH),
        (CLAUDE_CODE_TOOLS, "WebSearch", ToolKind.FETCH),
        (CLAUDE_CODE_TOOLS, "Task", ToolKind.THINK),
        (CLAUDE_CODE_TOOLS, "TodoWrite", ToolKind.THINK),
        (CLAUDE_CODE_TOOLS, "mcp__github__create_issue", ToolKind.OTHER),
        (GEMINI_CLI_TOOLS, "run_shell_command", ToolKind.EXECUTE),
        (GEMINI_CLI_TOOLS, "read_file", ToolKind.READ),
        (GEMINI_CLI_TOOLS, "write_file", ToolKind.EDIT),
        (GEMINI_CLI_TOOLS, "replace", ToolKind.EDIT),
        (GEMINI_CLI_TOOLS, "glob", ToolKind.SEARCH),
        (GEMINI_CLI_TOOLS, "search_file_content", ToolKind.SEARCH),
        (GEMINI_CLI_TOOLS, "grep_search", ToolKind.SEARCH),
        (GEMINI_CLI_TOOLS, "read_many_files", ToolKind.READ),
        (GEMINI_CLI_TOOLS, "list_directory", ToolKind.READ),
        (GEMINI_CLI_TOOLS, "web_fetch", ToolKind.FETCH),
        (GEMINI_CLI_TOOLS, "google_web_search", ToolKind.FETCH),
        (GEMINI_CLI_TOOLS, "save_memory", ToolKind.EDIT),
        (GEMINI_CLI_TOOLS, "mcp__docs__search", ToolKind.OTHER),
    ],
)
def test_framework_tables(table: ToolTable, name: str, kind: ToolKind) -> None:
    assert table.match(name) is not None
    assert table.lookup(name).kind is kind


def test_declared_path_keys_reach_the_engine(tmp_path: object) -> None:
    config = SafetyConfig().with_mode("auto")
    for table, name, args in [
        (CLAUDE_CODE_TOOLS, "NotebookEdit", {"notebook_path": "/home/u/.ssh/id_rsa"}),
        (GEMINI_CLI_TOOLS, "read_file", {"absolute_path": "/home/u/.aws/credentials"}),
    ]:
        decision = evaluate(config, table.to_call(name, args), workspace=str(tmp_path))
        assert decision.verdict is Verdict.DENY, (name, decision)


def test_declared_url_and_glob_keys_reach_the_engine(tmp_path: object) -> None:
    # Gemini CLI's web_fetch carries its URLs inside a free-text `prompt`; only the table
    # says so. A table whose keys stopped at `to_call` would let this fetch through.
    config = SafetyConfig().with_mode("auto")
    prompt = "summarise http://169.254.169.254/latest/meta-data/iam please"
    call = GEMINI_CLI_TOOLS.to_call("web_fetch", {"prompt": prompt})
    assert call.url_args == ("prompt",)
    decision = evaluate(config, call, workspace=str(tmp_path))
    assert decision.verdict is Verdict.DENY
    assert "url-denied" in {r.code for r in decision.reasons}
    many = GEMINI_CLI_TOOLS.to_call("read_many_files", {"paths": ["src/**/*.py", "**/.env"]})
    assert set(many.glob_args) == {"include", "paths"}
    assert evaluate(config, many, workspace=str(tmp_path)).verdict is Verdict.DENY
