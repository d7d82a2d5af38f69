"""MCP annotations → kinds, the `[mcp]` config table, and the `mcp-proxy` command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from safehold import ToolKind
from safehold.adapters.mcp import McpSettings, kind_from_annotations, mcp_tool_table
from safehold.cli import main
from safehold.errors import ConfigError


@pytest.mark.parametrize(
    ("hints", "kind"),
    [
        ({"readOnlyHint": True}, ToolKind.READ),
        ({"readOnlyHint": True, "openWorldHint": True}, ToolKind.FETCH),
        ({"readOnlyHint": True, "destructiveHint": True}, ToolKind.READ),
        ({"destructiveHint": True}, ToolKind.EDIT),
        ({"readOnlyHint": False, "destructiveHint": True, "openWorldHint": True}, ToolKind.EDIT),
        ({"openWorldHint": True}, ToolKind.FETCH),
        ({"destructiveHint": False}, ToolKind.EDIT),
        ({"readOnlyHint": False}, ToolKind.EDIT),
        ({"readOnlyHint": "yes"}, None),  # only JSON booleans count
        ({"readOnlyHint": 1}, None),
        ({"title": "x"}, None),
        ({}, None),
        (None, None),
        ("readOnlyHint", None),
    ],
)
def test_kind_from_annotations(hints: object, kind: ToolKind | None) -> None:
    assert kind_from_annotations(hints) is kind


def test_the_reference_servers_write_file_is_an_edit_with_a_writes_verdict(
    tmp_path: Path,
) -> None:
    """Not "kind `delete`": `write_file` overwrites. The verdict is a write's, as before."""
    from safehold import SafetyConfig, evaluate
    from safehold.policy.calls import ToolCall

    # @modelcontextprotocol/server-filesystem's `write_file` annotations.
    hints = {"readOnlyHint": False, "idempotentHint": True, "destructiveHint": True}
    call = mcp_tool_table({"write_file": hints}).to_call(
        "write_file", {"path": str(tmp_path / "notes.txt"), "content": "x"}
    )
    assert call.kind is ToolKind.EDIT
    config = SafetyConfig()
    decision = evaluate(config, call, workspace=str(tmp_path))
    assert "delete" not in str(decision.reasons)
    as_delete = ToolCall(call.name, call.arguments, kind=ToolKind.DELETE)
    assert decision.verdict is evaluate(config, as_delete, workspace=str(tmp_path)).verdict


def test_config_wins_over_annotations_and_unmapped_tools_warn_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = McpSettings.from_section(
        {"tools": {"rm": "read", "gh_*": {"kind": "fetch", "path_args": ["file"]}}}
    )
    table = mcp_tool_table(
        {"rm": {"readOnlyHint": False}, "ls": {"readOnlyHint": True}, "odd": None}, settings
    )
    assert table.lookup("rm").kind is ToolKind.READ
    assert table.lookup("ls").kind is ToolKind.READ
    assert table.lookup("gh_issue").kind is ToolKind.FETCH
    assert table.lookup("gh_issue").path_args == ("file",)
    with caplog.at_level("WARNING", logger="safehold.adapters"):
        assert table.lookup("odd").kind is ToolKind.OTHER
        assert table.lookup("odd").kind is ToolKind.OTHER
    assert [r.getMessage() for r in caplog.records].count(
        "MCP server tool `odd` is not in safehold's tool table; judged as kind `other`"
    ) == 1


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"tools": {"x": "reed"}}, "`mcp.tools.x`: expected `read`, `edit`, "),
        ({"tool": {}}, "`mcp.tool`: unknown field (not an `[mcp]` setting"),
        (
            {"tools": {"x": {"kind": "read", "pathargs": []}}},
            "`mcp.tools.x.pathargs`: unknown field",
        ),
        (
            {"tools": {"x": {"kind": "read", "path_args": "p"}}},
            '`mcp.tools.x.path_args`: expected a list (`[...]`), got a string "p"',
        ),
        ({"tools": 3}, "`mcp.tools`: expected a table"),
    ],
)
def test_bad_mcp_section_is_a_config_error(section: object, message: str) -> None:
    """One message naming the entry in the file's words: no pydantic branch tags."""
    with pytest.raises(ConfigError) as info:
        McpSettings.from_section(section, "f.toml")
    text = str(info.value)
    assert text.startswith("f.toml: ") and message in text, text
    assert "str-enum" not in text and "McpToolEntry" not in text and "Input should" not in text


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp-proxy"]) == 2
    assert capsys.readouterr().err.startswith("error: mcp-proxy needs the server command")
    bad = tmp_path / "c.toml"
    bad.write_text('[mcp.tools]\nx = "reed"\n')
    assert main(["mcp-proxy", "--config", str(bad), "--", "true"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "mcp.tools.x" in err and "Traceback" not in err
    assert main(["mcp-proxy", "--cwd", str(tmp_path / "nope"), "--", "true"]) == 2
    assert "not a directory" in capsys.readouterr().err
    named = tmp_path / "named.toml"
    named.write_text('[mcp]\ncwd = "missing-dir"\n')
    assert main(["mcp-proxy", "--config", str(named), "--", "true"]) == 2
    assert f"`{tmp_path / 'missing-dir'}` is not a directory" in capsys.readouterr().err
    assert main(["mcp-proxy", "--", str(tmp_path / "no-such-server")]) == 1
    assert "cannot start the MCP server" in capsys.readouterr().err


def test_importing_safehold_imports_no_framework() -> None:
    code = (
        "import sys, safehold, safehold.adapters, safehold.cli; safehold.cli.build_parser();"
        "bad = [m for m in ('pydantic_ai', 'agents', 'mcp', 'openai') if m in sys.modules];"
        "print(bad); raise SystemExit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
