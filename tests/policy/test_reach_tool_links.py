"""Tool calls whose paths land somewhere else than they read: filters that match through a
link out of the workspace, relative paths below a tool's own base directory (`cwd`,
`dir_path`), and a tool's own `follow: true`.

Real temporary workspaces; every call is judged by `evaluate` in auto mode, for the host.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.adapters.tables.claude_code import CLAUDE_CODE_TOOLS
from safehold.adapters.tables.gemini_cli import GEMINI_CLI_TOOLS
from safehold.policy.decision import Decision, Verdict

AUTO = SafetyConfig().with_mode("auto")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("k")
    monkeypatch.setenv("HOME", str(home))
    shared = tmp_path / "shared"
    (shared / "sub").mkdir(parents=True)
    (shared / "sub" / "data.txt").write_text("x")
    workspace = tmp_path / "proj"
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("print(1)")
    (workspace / "lib").mkdir()
    (workspace / "lib" / "vendor").symlink_to(shared / "sub")
    (workspace / "keys").symlink_to(home / ".ssh")
    return workspace


def _decide(call: ToolCall, ws: Path) -> Decision:
    return evaluate(AUTO, call, workspace=str(ws), runner="host")


@pytest.mark.parametrize(
    ("table", "name", "args"),
    [
        # A wildcard component matches the link; the glob library walks through it.
        ("claude", "Glob", {"pattern": "lib/*/data.txt"}),
        ("claude", "Glob", {"pattern": "l*/v*/*"}),
        ("claude", "Glob", {"pattern": "*/data.txt", "path": "{ws}/lib"}),
        ("claude", "Glob", {"pattern": "k*/id_rsa"}),
        # Below `dir/**`, or a directory read_many_files reads as `dir/**`, node-glob
        # follows a link met on the way.
        ("gemini", "read_many_files", {"paths": ["lib/**"]}),
        ("gemini", "read_many_files", {"paths": ["lib"]}),
        ("gemini", "glob", {"pattern": "**/*.txt", "dir_path": "lib"}),
        ("gemini", "read_many_files", {"include": ["lib/*/data.txt"]}),
    ],
)
def test_a_filter_that_matches_through_a_link_out_asks(
    table: str, name: str, args: dict[str, object], ws: Path
) -> None:
    tools = {"claude": CLAUDE_CODE_TOOLS, "gemini": GEMINI_CLI_TOOLS}[table]
    filled = {k: v.replace("{ws}", str(ws)) if isinstance(v, str) else v for k, v in args.items()}
    decision = _decide(tools.to_call(name, filled), ws)
    assert decision.verdict is not Verdict.ALLOW, decision


@pytest.mark.parametrize(
    ("table", "name", "args"),
    [
        ("claude", "Glob", {"pattern": "*.py", "path": "{ws}/src"}),
        ("claude", "Glob", {"pattern": "src/**/*.py"}),
        # A search tool only lists the last component's matches: a link there is a name.
        ("claude", "Glob", {"pattern": "*"}),
        ("claude", "Glob", {"pattern": "lib/*"}),
        ("gemini", "read_many_files", {"paths": ["src/*.py"]}),
        ("gemini", "read_many_files", {"paths": ["src"]}),
        ("gemini", "glob", {"pattern": "*.py", "dir_path": "src"}),
    ],
)
def test_filters_inside_the_workspace_stay_allowed(
    table: str, name: str, args: dict[str, object], ws: Path
) -> None:
    tools = {"claude": CLAUDE_CODE_TOOLS, "gemini": GEMINI_CLI_TOOLS}[table]
    filled = {k: v.replace("{ws}", str(ws)) if isinstance(v, str) else v for k, v in args.items()}
    decision = _decide(tools.to_call(name, filled), ws)
    assert decision.verdict is Verdict.ALLOW, decision


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        ({"path": "vendor/data.txt", "cwd": "lib"}, ToolKind.READ),
        ({"path": "vendor/data.txt", "root": "lib"}, ToolKind.READ),
        ({"file": "data.txt", "workdir": "lib/vendor"}, ToolKind.READ),
        ({"x": "vendor/data.txt", "cwd": "lib"}, ToolKind.READ),
        ({"path": "vendor/new.txt", "cwd": "{ws}/lib"}, ToolKind.EDIT),
        ({"path": "hooks/pre-commit", "cwd": ".git"}, ToolKind.EDIT),
    ],
)
def test_a_relative_path_is_judged_below_the_tools_base_directory(
    args: dict[str, object], kind: ToolKind, ws: Path
) -> None:
    filled = {k: v.replace("{ws}", str(ws)) if isinstance(v, str) else v for k, v in args.items()}
    decision = _decide(ToolCall("files", filled, kind), ws)
    assert decision.verdict is not Verdict.ALLOW, decision


def test_a_relative_path_below_a_base_inside_is_allowed(ws: Path) -> None:
    call = ToolCall("files", {"path": "app.py", "cwd": "src"}, ToolKind.READ)
    assert _decide(call, ws).verdict is Verdict.ALLOW


@pytest.mark.parametrize("flag", ["follow", "followSymlinks", "follow_links", "dereference"])
def test_a_tools_own_follow_flag_judges_the_links_below(flag: str, ws: Path) -> None:
    call = ToolCall("list_tree", {"path": str(ws), flag: True}, ToolKind.SEARCH)
    decision = _decide(call, ws)
    assert decision.verdict is Verdict.ASK, decision
    assert "path-outside-read" in {r.code for r in decision.reasons}
    unfollowed = ToolCall("list_tree", {"path": str(ws), flag: False}, ToolKind.SEARCH)
    assert _decide(unfollowed, ws).verdict is Verdict.ALLOW
    inside = ToolCall("list_tree", {"path": str(ws / "src"), flag: True}, ToolKind.SEARCH)
    assert _decide(inside, ws).verdict is Verdict.ALLOW


def test_a_search_tool_reads_the_denied_files_below_its_directory(ws: Path) -> None:
    (ws / "conf").mkdir()
    (ws / "conf" / "prod.pem").write_text("k")
    grep = CLAUDE_CODE_TOOLS.to_call("Grep", {"pattern": "KEY", "path": str(ws)})
    decision = _decide(grep, ws)
    assert decision.verdict is Verdict.ASK, decision
    assert "tree-holds-denied" in {r.code for r in decision.reasons}
    # No path: it searches the workspace.
    assert _decide(CLAUDE_CODE_TOOLS.to_call("Grep", {"pattern": "KEY"}), ws).verdict is Verdict.ASK
    # A filter narrows what it reads, and is judged itself; src holds no denied file.
    narrowed = CLAUDE_CODE_TOOLS.to_call("Grep", {"pattern": "KEY", "glob": "*.py"})
    assert _decide(narrowed, ws).verdict is Verdict.ALLOW
    src = CLAUDE_CODE_TOOLS.to_call("Grep", {"pattern": "KEY", "path": str(ws / "src")})
    assert _decide(src, ws).verdict is Verdict.ALLOW
    # A reader of a directory reads it whole.
    many = GEMINI_CLI_TOOLS.to_call("read_many_files", {"paths": ["conf"]})
    assert _decide(many, ws).verdict is not Verdict.ALLOW
