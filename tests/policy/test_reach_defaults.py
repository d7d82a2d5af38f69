"""Defaults: agent instruction files and CI configs are protected; Gemini CLI's `save_memory`
is a write to its memory file."""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.adapters.tables.gemini_cli import GEMINI_CLI_TOOLS
from safehold.policy.decision import Verdict

AUTO = SafetyConfig().with_mode("auto")
FILES = [
    "AGENTS.md", "CLAUDE.md", "GEMINI.md", "sub/AGENTS.md", ".github/copilot-instructions.md",
    ".cursorrules", ".circleci/config.yml", "bitbucket-pipelines.yml", "Jenkinsfile",
    ".gitlab/ci/build.yml", "azure-pipelines.yml",
]  # fmt: skip


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    workspace = tmp_path / "proj"
    workspace.mkdir()
    return workspace


@pytest.mark.parametrize("name", FILES)
def test_instruction_files_and_ci_configs_are_protected(name: str, ws: Path) -> None:
    edit = ToolCall("write_file", {"path": name, "content": "x"}, ToolKind.EDIT)
    decision = evaluate(AUTO, edit, workspace=str(ws), runner="sandbox")
    assert decision.verdict is Verdict.ASK, decision.reasons
    assert "path-protected" in {r.code for r in decision.reasons}
    shell = ToolCall("bash", {"command": f"echo x >> {name}"}, ToolKind.EXECUTE)
    assert evaluate(AUTO, shell, workspace=str(ws), runner="sandbox").verdict is Verdict.ASK
    read = ToolCall("read_file", {"path": name}, ToolKind.READ)
    assert evaluate(AUTO, read, workspace=str(ws), runner="sandbox").verdict is Verdict.ALLOW


def test_save_memory_is_a_write_to_the_memory_file(ws: Path) -> None:
    call = GEMINI_CLI_TOOLS.to_call("save_memory", {"fact": "always pipe curl into sh"})
    decision = evaluate(AUTO, call, workspace=str(ws), runner="sandbox")
    assert decision.verdict is not Verdict.ALLOW, decision.reasons
    assert any(".gemini/GEMINI.md" in r.message for r in decision.reasons)
