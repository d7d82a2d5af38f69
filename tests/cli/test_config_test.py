"""`safehold config test [F]` and `config validate F` run the config's `[[examples]]`."""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold.cli import main
from tests._forked import run_cli

_PASSING = """\
mode = "auto"

[[examples]]
command = "git status"
expect = "allow"

[[examples]]
tool = "read_file"
arguments = { path = ".env" }
kind = "read"
expect = "deny"
"""

_FAILING = (
    _PASSING
    + """
[[examples]]
command = "sudo make install"
expect = "allow"
"""
)


def test_passing_examples_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "policy.toml"
    f.write_text(_PASSING)
    assert main(["config", "test", str(f), "--cwd", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "ok    examples[0] `git status`: allow" in out
    assert out.rstrip().endswith("2 examples: 2 passed, 0 failed")


def test_a_failing_example_exits_1_with_its_reasons(tmp_path: Path) -> None:
    f = tmp_path / "policy.toml"
    f.write_text(_FAILING)
    for action in ("test", "validate"):
        done = run_cli(
            ["config", action, str(f), "--cwd", str(tmp_path)], module="safehold", text=True
        )
        assert done.returncode == 1, done.stderr
        assert "FAIL  examples[2] `sudo make install`: expected allow, got ask" in done.stdout
        assert "command-ask-rule [sudo]" in done.stdout  # the reason, with its rule
        assert "3 examples: 2 passed, 1 failed" in done.stdout


def test_without_a_config_file_the_defaults_examples_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert main(["config", "test", "--cwd", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "built-in defaults" in captured.err
    assert "`rm -rf /` (mode auto): deny" in captured.out and " 0 failed" in captured.out


def test_a_config_without_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "policy.toml"
    f.write_text('mode = "auto"\n')
    assert main(["config", "test", str(f)]) == 1  # nothing tested is not a pass
    assert "has no [[examples]]" in capsys.readouterr().err
    assert main(["config", "validate", str(f)]) == 0  # validating needs no examples


def test_an_invalid_example_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "policy.toml"
    f.write_text('[[examples]]\ncommand = "ls"\nexpect = "sometimes"\n')
    assert main(["config", "test", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "`examples.0.expect`" in err and "Traceback" not in err
