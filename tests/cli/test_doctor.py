"""`safehold doctor`: each kind of finding, in a throwaway HOME."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._forked import run_cli


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    (tmp_path / "proj").mkdir()
    return tmp_path / "home"


def doctor(home: Path, cwd: Path, *words: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("XDG_CONFIG")}
    full.update(HOME=str(home), **env)
    return run_cli(["doctor", *words], text=True, cwd=cwd, env=full)


def test_defaults_no_hooks_and_a_working_sandbox(home: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    done = doctor(home, proj)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "in force: the built-in defaults (no config file found)" in out
    assert f"project candidate {proj}/.safehold.toml: not there" in out
    assert f"user candidate {home}/.config/safehold/config.toml: not there" in out
    assert "Claude Code: not installed" in out and "Gemini CLI: not installed" in out
    assert "bubblewrap: works" in out


def test_the_file_in_force_and_the_ones_it_shadows(home: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    user = home / ".config" / "safehold" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("read_only = true\n")
    (proj / ".safehold.json").write_text('{"read_only": true}')
    out = doctor(home, proj).stdout
    assert f"in force: {proj}/.safehold.json (project file)" in out
    assert f"project candidate {proj}/.safehold.json: used" in out
    assert f"user candidate {user}: not read: a file before it is used" in out
    named = doctor(home, proj, "--config", str(user)).stdout
    assert f"in force: {user} (named by --config)" in named
    assert f"project candidate {proj}/.safehold.json: not read: --config names the file" in named


def test_an_unusable_candidate_is_an_error(home: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    os.mkfifo(proj / ".safehold.toml")
    done = doctor(home, proj)
    assert done.returncode == 1
    assert "the project config file is not a regular file" in done.stdout
    assert f"project candidate {proj}/.safehold.toml: unusable" in done.stdout


def test_a_file_in_force_that_does_not_load_is_not_called_used(home: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / ".safehold.toml").write_text('read_only = "yes"\n')
    done = doctor(home, proj)
    assert done.returncode == 1
    assert "error: " in done.stdout and "`read_only`" in done.stdout
    assert f"project candidate {proj}/.safehold.toml: chosen, but it does not load" in done.stdout


def test_installed_hooks_are_found_where_they_are(home: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_CONFIG")}
    env["HOME"] = str(home)
    subprocess.run(
        [sys.executable, "-m", "safehold.cli", "hook", "install", "claude-code", "--project"],
        cwd=proj,
        env=env,
        capture_output=True,
        timeout=120,
        check=True,
    )
    out = doctor(home, proj).stdout
    assert f"Claude Code: installed in {proj}/.claude/settings.json (project): " in out
    assert "Gemini CLI: not installed" in out


def test_a_sandbox_that_cannot_run_is_reported(home: Path, tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[sandbox]\nbwrap_path = "/nonexistent/bwrap"\n')
    done = doctor(home, tmp_path / "proj", "--config", str(config))
    assert done.returncode == 1 and "bubblewrap: does not work here" in done.stdout
