"""`safehold check`: the verdict and its reasons; exit 0 allow, 3 ask, 4 deny, 2 on any error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from safehold.cli import main


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(["check", *args])
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def check_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    code, out, err = check(capsys, "--json", *args)
    data = json.loads(out)
    assert isinstance(data, dict)
    assert code == {"allow": 0, "ask": 3, "deny": 4}[data["verdict"]], err
    return data


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("print()\n")
    return tmp_path


def test_read_inside_the_workspace_is_allowed(capsys: pytest.CaptureFixture[str], ws: Path) -> None:
    data = check_json(capsys, "--cwd", str(ws), "--read", "src/main.py")
    assert data["verdict"] == "allow"
    assert data["grant_key"] == f'path:["read_file", ["{ws}/src/main.py"]]'


def test_denied_read_names_the_pattern(capsys: pytest.CaptureFixture[str], ws: Path) -> None:
    data = check_json(capsys, "--cwd", str(ws), "--read", ".env")
    assert data["verdict"] == "deny"
    assert data["reasons"] == [
        {
            "code": "path-denied",
            "rule": ".env",
            "message": "argument `path`: path `.env` matches denied pattern `.env`",
        }
    ]


def test_write_asks_in_review_and_not_in_auto(capsys: pytest.CaptureFixture[str], ws: Path) -> None:
    assert check_json(capsys, "--cwd", str(ws), "--write", "src/x.py")["verdict"] == "ask"
    auto = check_json(capsys, "--cwd", str(ws), "--mode", "auto", "--write", "src/x.py")
    assert auto["verdict"] == "allow" and auto["mode"] == "auto"
    ro = check_json(capsys, "--cwd", str(ws), "--mode", "read-only", "--write", "src/x.py")
    assert ro["verdict"] == "deny"


def test_bash_is_an_execute_call(capsys: pytest.CaptureFixture[str], ws: Path) -> None:
    data = check_json(capsys, "--cwd", str(ws), "--bash", 'eval "$X"')
    assert data["verdict"] == "ask"
    assert data["tool"] == {"name": "bash", "kind": "execute"}
    denied = check_json(capsys, "--cwd", str(ws), "--mode", "read-only", "--bash", "ls")
    assert denied["verdict"] == "deny"


def test_tool_with_args_and_kind(capsys: pytest.CaptureFixture[str], ws: Path) -> None:
    args = json.dumps({"paths": ["src/main.py", "~/.ssh/id_rsa"]})
    data = check_json(capsys, "--cwd", str(ws), "--tool", "mcp", "--args", args, "--kind", "edit")
    assert data["verdict"] == "deny"
    unknown = check_json(capsys, "--cwd", str(ws), "--tool", "mcp", "--args", "{}")
    assert unknown["verdict"] == "ask"
    assert [r["code"] for r in unknown["reasons"]] == ["tool-needs-approval"]  # type: ignore[index,union-attr]


def test_config_file_is_used(capsys: pytest.CaptureFixture[str], ws: Path) -> None:
    cfg = ws / "policy.toml"
    cfg.write_text('denied_paths = ["*.py"]\nrequire_approval_for_writes = false\n')
    data = check_json(capsys, "--config", str(cfg), "--cwd", str(ws), "--read", "src/main.py")
    assert data["verdict"] == "deny"
    # The policy file protects itself.
    own = check_json(capsys, "--config", str(cfg), "--cwd", str(ws), "--write", "policy.toml")
    assert own["verdict"] == "ask"


def test_text_output_lists_verdict_and_reasons(
    capsys: pytest.CaptureFixture[str], ws: Path
) -> None:
    code, out, _ = check(capsys, "--cwd", str(ws), "--read", ".env")
    assert code == 4
    assert out.splitlines()[0] == "deny: `read_file` (read) in mode `review`"
    assert (
        "  - path-denied [.env]: argument `path`: path `.env` matches denied pattern `.env`" in out
    )


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--tool", "x", "--args", "{bad"], "`--args`: invalid JSON"),
        (["--tool", "x", "--args", "[1]"], "`--args`: expected a JSON object"),
        (["--tool", "x", "--kind", "nope"], "`--kind`: unknown kind `nope`"),
        (["--read", "a", "--args", "{}"], "`--args` and `--kind` go with `--tool NAME`"),
        (["--read", "a", "--cwd", "/nonexistent/dir"], "`--cwd`"),
        (["--read", "a", "--config", "/nonexistent.toml"], "does not exist"),
        (["--read", "a", "--mode", "yolo"], "invalid choice"),
        (["--read", "a", "--write", "b"], "not allowed with"),
        ([], "one of the arguments"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], needle: str
) -> None:
    code, out, err = check(capsys, *args)
    assert code == 2
    assert out == ""
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and needle in errors[0], err
    assert "Traceback" not in err


def test_the_installed_command_never_prints_a_traceback(tmp_path: Path) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "safehold.cli",
            "check",
            "--json",
            "--cwd",
            str(tmp_path),
            "--tool",
            "t",
            "--args",
            '{"path": "a\\u0000b"}',
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 4, run.stderr
    data = json.loads(run.stdout)
    assert data["verdict"] == "deny"
    assert [r["code"] for r in data["reasons"]] == ["path-invalid"]


def test_an_internal_error_exits_2_not_0(tmp_path: Path) -> None:
    """A crash inside the decision is one `error:` line and exit 2, never an allow's 0."""
    bad = tmp_path / "bad.toml"
    bad.write_text("read_only = 'yes'\n")
    for args in (["--config", str(bad)], ["--config", str(tmp_path)]):
        run = subprocess.run(
            [sys.executable, "-m", "safehold.cli", "check", "--read", "x", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 2, run
        assert run.stdout == ""
        assert run.stderr.startswith("error: ") and "Traceback" not in run.stderr


def test_verdicts_have_their_own_exit_codes(capsys: pytest.CaptureFixture[str], ws: Path) -> None:
    assert check(capsys, "--cwd", str(ws), "--read", "src/main.py")[0] == 0
    assert check(capsys, "--cwd", str(ws), "--write", "src/main.py")[0] == 3
    assert check(capsys, "--cwd", str(ws), "--read", ".env")[0] == 4
