"""`safehold hook install | uninstall`: into a throwaway HOME, as a person would run it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from safehold.cli.hook_install import CLIS, installed_hooks
from tests._forked import run_cli


def safehold(home: Path, cwd: Path, *words: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_CONFIG")}
    env["HOME"] = str(home)
    return run_cli(words, text=True, cwd=cwd, env=env)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def commands(settings: Path, event: str) -> list[str]:
    data = json.loads(settings.read_text())
    return [h["command"] for g in data["hooks"][event] for h in g["hooks"]]


def test_claude_code_install_merges_and_self_tests(home: Path, tmp_path: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"type": "command", "command": "my-linter"}
    settings.write_text(
        json.dumps(
            {"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [mine]}]}}
        )
    )
    done = safehold(home, tmp_path, "hook", "install", "claude-code")
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(settings.read_text())
    assert data["model"] == "opus"  # the rest of the file is kept
    groups = data["hooks"]["PreToolUse"]
    assert groups[1] == {"matcher": "Bash", "hooks": [mine]}
    ours = groups[0]
    assert ours["matcher"] == "*" and ours["hooks"][0]["timeout"] == 30
    command = ours["hooks"][0]["command"]
    first = command.split(" ")[0]
    assert os.path.isabs(first) and command.endswith(" hook claude-code || exit 2"), command
    # The self-test ran that command on both reads and showed both verdicts.
    assert "harmless read (notes.txt): allow" in done.stdout, done.stdout
    assert "secret read (.env): deny: safehold denied:" in done.stdout, done.stdout
    assert "self-test passed" in done.stdout
    # Again: still one safehold entry.
    again = safehold(home, tmp_path, "hook", "install", "claude-code", "--ask-as-deny")
    assert again.returncode == 0, again.stderr
    found = commands(settings, "PreToolUse")
    assert found == [command.replace(" || exit 2", " --ask-as-deny || exit 2"), "my-linter"]
    assert installed_hooks("claude-code", home=home, cwd=tmp_path)[0][:2] == ("user", settings)
    # Uninstall leaves exactly what was there before.
    gone = safehold(home, tmp_path, "hook", "uninstall", "claude-code")
    assert gone.returncode == 0, gone.stderr
    assert json.loads(settings.read_text()) == {
        "model": "opus",
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [mine]}]},
    }
    assert installed_hooks("claude-code", home=home, cwd=tmp_path) == []


def test_claude_code_project_scope_and_dry_run(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    dry = safehold(home, project, "hook", "install", "claude-code", "--project", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"would write {project}/.claude/settings.json" in dry.stdout
    assert not (project / ".claude").exists()
    done = safehold(home, project, "hook", "install", "claude-code", "--project")
    assert done.returncode == 0, done.stderr
    assert len(commands(project / ".claude" / "settings.json", "PreToolUse")) == 1
    assert not (home / ".claude").exists()


def test_gemini_cli_install_user_scope_and_refuses_project(home: Path, tmp_path: Path) -> None:
    refused = safehold(home, tmp_path, "hook", "install", "gemini-cli", "--project")
    assert refused.returncode == 2
    assert "does not trust" in refused.stderr and not (tmp_path / ".gemini").exists()
    done = safehold(home, tmp_path, "hook", "install", "gemini-cli")
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((home / ".gemini" / "settings.json").read_text())
    (group,) = data["hooks"]["BeforeTool"]
    (hook,) = group["hooks"]
    assert group["matcher"] == ".*" and hook["name"] == "safehold"
    assert hook["timeout"] == 30000  # milliseconds in Gemini CLI
    assert hook["command"].endswith(" hook gemini-cli || exit 2")
    assert "harmless read (notes.txt): allow" in done.stdout, done.stdout
    assert "secret read (.env): deny: safehold denied:" in done.stdout, done.stdout
    gone = safehold(home, tmp_path, "hook", "uninstall", "gemini-cli")
    assert (
        gone.returncode == 0 and json.loads((home / ".gemini" / "settings.json").read_text()) == {}
    )


def test_a_self_test_that_lets_env_through_fails(home: Path, tmp_path: Path) -> None:
    # A user config that allows `.env` reads: the install is written, but the test says so.
    config = tmp_path / "loose.toml"
    config.write_text("replace_default_denied_paths = true\ndenied_paths = []\n")
    done = safehold(home, tmp_path, "hook", "install", "claude-code", "--config", str(config))
    assert done.returncode == 1, done.stdout
    assert "secret read (.env): allow" in done.stdout and "self-test failed" in done.stderr


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"hooks": []}'])
def test_a_settings_file_that_is_not_understood_is_left_alone(
    home: Path, tmp_path: Path, text: str
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(text)
    done = safehold(home, tmp_path, "hook", "install", "claude-code")
    assert done.returncode == 2 and done.stderr.startswith("error: "), done.stderr
    assert "Traceback" not in done.stderr
    assert settings.read_text() == text


def test_every_cli_has_both_scopes_described() -> None:
    assert set(CLIS) == {"claude-code", "gemini-cli"}
    assert CLIS["claude-code"].project_scope and not CLIS["gemini-cli"].project_scope


def test_install_interactive_and_the_two_answers_exclude_each_other(
    home: Path, tmp_path: Path
) -> None:
    done = safehold(home, tmp_path, "hook", "install", "gemini-cli", "--interactive")
    assert done.returncode == 0, done.stdout + done.stderr
    found = commands(home / ".gemini" / "settings.json", "BeforeTool")
    assert len(found) == 1 and found[0].endswith(" hook gemini-cli --interactive || exit 2")
    both = safehold(
        home, tmp_path, "hook", "install", "gemini-cli", "--interactive", "--ask-as-deny"
    )
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    assert "Traceback" not in both.stderr


@pytest.mark.parametrize("cli", sorted(CLIS))
def test_install_adds_one_session_start_warm_up_and_uninstall_removes_it(
    home: Path, tmp_path: Path, cli: str
) -> None:
    target = CLIS[cli]
    settings = target.settings("user", home=home, cwd=tmp_path)
    settings.parent.mkdir()
    theirs = {"hooks": [{"type": "command", "command": "echo hello"}]}
    original = {"hooks": {"SessionStart": [theirs]}}
    settings.write_text(json.dumps(original))
    for _ in range(2):  # installing twice leaves one warm-up
        done = safehold(home, tmp_path, "hook", "install", cli)
        assert done.returncode == 0, done.stdout + done.stderr
    groups = json.loads(settings.read_text())["hooks"]["SessionStart"]
    assert groups[1] == theirs and len(groups) == 2
    (warm,) = groups[0]["hooks"]
    assert "matcher" not in groups[0]  # every kind of session start
    assert warm["command"].endswith(" hook warm || true")
    assert os.path.isabs(warm["command"].split(" ")[0])
    assert (warm.get("name") == "safehold-warm") is target.named
    assert "warm-up: " in done.stdout
    gone = safehold(home, tmp_path, "hook", "uninstall", cli)
    assert gone.returncode == 0, gone.stderr
    assert json.loads(settings.read_text()) == original
