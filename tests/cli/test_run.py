"""`safehold run`: exit codes pass through, sandbox errors are one line and exit 125."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from safehold.cli import main
from tests._forked import run_cli


@pytest.fixture(autouse=True)
def throwaway_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sandbox's read roots come from HOME: an empty one, never the real home."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real `safehold` entry point in a new process (forked: tests/_forked.py)."""
    return run_cli(args, text=True, cwd=cwd, timeout=60)


@pytest.mark.parametrize("code", [0, 1, 42, 255])
def test_exit_code_is_the_commands(tmp_path: Path, code: int) -> None:
    out = cli("run", "--cwd", str(tmp_path), "--", "bash", "-c", f"echo hi; exit {code}")
    assert out.returncode == code
    assert out.stdout == "hi\n"


def test_runs_sandboxed_in_the_given_cwd(tmp_path: Path) -> None:
    out = cli(
        "run", "--cwd", str(tmp_path), "--", "bash", "-c", "pwd; grep ^Seccomp: /proc/self/status"
    )
    assert out.stdout.split()[0] == str(tmp_path.resolve())
    assert out.stdout.split()[-1] == "2"


def test_writes_outside_the_workspace_fail(tmp_path: Path) -> None:
    victim = Path("/var/tmp") / f"safehold-cli-{uuid.uuid4().hex}"
    victim.write_text("original")
    try:
        out = cli("run", "--cwd", str(tmp_path), "--", "bash", "-c", f"echo x > {victim}")
        assert out.returncode == 1
        assert victim.read_text() == "original"
    finally:
        victim.unlink()


def test_timeout_exits_124_with_one_error_line(tmp_path: Path) -> None:
    out = cli("run", "--cwd", str(tmp_path), "--timeout", "0.3", "--", "sleep", "30")
    assert out.returncode == 124
    assert out.stderr.startswith("error: ") and "timed out" in out.stderr


def test_network_flag_shares_the_network(tmp_path: Path) -> None:
    # With --network the sandbox is in the caller's network namespace (the same inode, even
    # when the caller's own namespace has only a loopback, as in CI's no-network run);
    # without it, in a new one whose only interface is the loopback.
    script = "readlink /proc/self/ns/net; tail -n +3 /proc/net/dev | cut -d: -f1"
    here = os.readlink("/proc/self/ns/net")
    off = cli("run", "--cwd", str(tmp_path), "--", "bash", "-c", script)
    on = cli("run", "--cwd", str(tmp_path), "--network", "--", "bash", "-c", script)
    off_ns, *off_ifaces = off.stdout.split()
    on_ns, *_ = on.stdout.split()
    assert off_ns != here and off_ifaces == ["lo"]
    assert on_ns == here


def test_sandbox_error_is_one_line_and_exit_125(tmp_path: Path) -> None:
    config = tmp_path / "cfg.toml"
    config.write_text(f'[sandbox]\nbwrap_path = "{tmp_path}/no-such-bwrap"\n')
    out = cli("run", "--config", str(config), "--cwd", str(tmp_path), "--", "true")
    assert out.returncode == 125
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ")
    assert "Traceback" not in out.stderr


def test_config_error_is_exit_2(tmp_path: Path) -> None:
    config = tmp_path / "cfg.toml"
    config.write_text("[sandbox]\nmode = 'chroot'\n")
    out = cli("run", "--config", str(config), "--", "true")
    assert out.returncode == 2
    assert "sandbox.mode" in out.stderr


def test_mode_none_warns_loudly(tmp_path: Path) -> None:
    config = tmp_path / "cfg.toml"
    config.write_text("[sandbox]\nmode = 'none'\n")
    out = cli("run", "--config", str(config), "--cwd", str(tmp_path), "--", "true")
    assert out.returncode == 0
    assert "WITHOUT a sandbox" in out.stderr


def test_usage_errors_are_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--cwd", str(tmp_path)]) == 2
    assert "no command given" in capsys.readouterr().err
    assert main(["run", "--cwd", str(tmp_path / "missing"), "--", "true"]) == 2
    assert "--cwd" in capsys.readouterr().err
    assert main(["run", "--timeout", "nan", "--", "true"]) == 2
    assert "--timeout" in capsys.readouterr().err


def test_a_missing_command_is_named_in_the_shells_words(tmp_path: Path) -> None:
    """Not `safehold-limits: line 1: exec: …`: the words of the internal limits script."""
    out = cli("run", "--cwd", str(tmp_path), "--", "no-such-program-here", "x")
    assert out.returncode == 127
    assert out.stderr == "no-such-program-here: command not found\n"
    (tmp_path / "notes.txt").write_text("not a program\n")
    out = cli("run", "--cwd", str(tmp_path), "--", "./notes.txt")
    assert out.returncode == 126
    assert out.stderr == "./notes.txt: not an executable file\n"
