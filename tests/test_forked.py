"""tests/_forked.py: a forked `safehold` run is the same as a fresh interpreter's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._forked import run_cli


def _fresh(
    args: list[str], *, input: bytes = b"", cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "safehold.cli", *args],
        input=input,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        # a relative path (the working directory), and the project's config file found there
        ["check", "--json", "--read", "src/app.py"],
        ["check", "--json", "--read", "~/.ssh/id_rsa"],  # HOME of the call, not the helper's
        ["check", "--read", "x", "--config", "missing.toml"],  # an error: stderr, exit 2
    ],
)
def test_same_exit_status_and_bytes_as_a_fresh_interpreter(tmp_path: Path, args: list[str]) -> None:
    project, home = tmp_path / "proj", tmp_path / "home"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("x\n")
    (project / ".safehold.toml").write_text('mode = "auto"\n')
    (home / ".ssh").mkdir(parents=True)
    env = {**os.environ, "HOME": str(home)}
    forked = run_cli(args, cwd=project, env=env)
    fresh = _fresh(args, cwd=project, env=env)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        fresh.returncode,
        fresh.stdout,
        fresh.stderr,
    )


def test_stdin_and_the_environment_are_the_calls(tmp_path: Path) -> None:
    payload = {
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "cwd": str(tmp_path),
        "tool_name": "Read",
        "tool_input": {"file_path": str(tmp_path / ".env")},
    }
    env = {**os.environ, "HOME": str(tmp_path)}
    data = json.dumps(payload).encode()
    forked = run_cli(["hook", "claude-code"], input=data, cwd=tmp_path, env=env)
    assert forked.returncode == 0, forked.stderr
    assert json.loads(forked.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    # The environment is replaced whole: a variable of this process is not the call's.
    env.pop("SAFEHOLD_HEADLESS", None)
    asked = run_cli(["hook", "claude-code", "--ask-as-deny"], input=b"{}", cwd=tmp_path, env=env)
    fresh = _fresh(["hook", "claude-code", "--ask-as-deny"], input=b"{}", cwd=tmp_path, env=env)
    assert (asked.returncode, asked.stdout, asked.stderr) == (
        fresh.returncode,
        fresh.stdout,
        fresh.stderr,
    )


def test_text_mode_decodes_like_subprocess(tmp_path: Path) -> None:
    done = run_cli(["--version"], cwd=tmp_path, text=True)
    assert done.returncode == 0 and done.stdout.startswith("safehold ")
