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


@pytest.mark.parametrize(
    "target",
    ["~/.local/state/safehold/grants/user.json", "~/.config/safehold/config.toml"],
)
def test_safeholds_own_state_and_config_are_protected_even_where_writes_are_allowed(
    target: str, ws: Path
) -> None:
    """A config that lets the agent write in the home directory still asks before it writes
    safehold's grants file or user config: an agent there would approve itself."""
    home = str(ws.parent)
    roomy = AUTO.replace(allowed_paths=[str(ws), home])
    for runner in ("host", "sandbox"):
        edit = ToolCall("write_file", {"path": target, "content": "{}"}, ToolKind.EDIT)
        decision = evaluate(roomy, edit, workspace=str(ws), runner=runner)
        assert decision.verdict is Verdict.ASK, decision.reasons
        assert "path-protected" in {r.code for r in decision.reasons}
        shell = ToolCall("bash", {"command": f"echo '{{}}' > {target}"}, ToolKind.EXECUTE)
        assert evaluate(roomy, shell, workspace=str(ws), runner=runner).verdict is not (
            Verdict.ALLOW
        )
    neighbour = ToolCall("write_file", {"path": "~/notes.txt", "content": "x"}, ToolKind.EDIT)
    assert evaluate(roomy, neighbour, workspace=str(ws)).verdict is Verdict.ALLOW
