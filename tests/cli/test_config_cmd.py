"""`safehold config validate | schema | show`: one error line, exit 2, never a traceback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests._forked import run_cli


def safehold(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, text=True, timeout=60)


def test_validate_ok(tmp_path: Path) -> None:
    f = tmp_path / "ok.toml"
    f.write_text("read_only = true\n")
    out = safehold("config", "validate", str(f))
    assert out.returncode == 0, out.stderr
    assert "valid" in out.stdout and "read-only" in out.stdout


def test_validate_accepts_the_mcp_table_mcp_proxy_reads(tmp_path: Path) -> None:
    f = tmp_path / "proxy.toml"
    f.write_text('read_only = true\n[mcp]\nserver = ["npx", "server"]\n')
    out = safehold("config", "validate", str(f))
    assert out.returncode == 0, out.stderr
    f.write_text("[mcpp]\nserver = 1\n")  # a misspelt table is still an error
    assert safehold("config", "validate", str(f)).returncode == 2


@pytest.mark.parametrize(
    ("name", "text", "needle"),
    [
        ("typo.toml", "denied_path = ['x']\n", "`denied_path`: unknown field"),
        ("type.toml", "read_only = 'yes'\n", "`read_only`: expected true or false"),
        (
            "nan.toml",
            "acp_approval_timeout = nan\n",
            "`acp_approval_timeout`: timeout must be finite",
        ),
        ("neg.json", '{"acp_approval_timeout": -1}', "must be >= 0"),
        ("mode.toml", "[sandbox]\nmode = 'linux'\n", "`sandbox.mode`"),
        ("neg.toml", "denied_paths = ['!keep.pem']\n", "negation"),
        ("syntax.toml", "read_only = \n", "invalid TOML"),
    ],
)
def test_validate_bad_files_give_one_line_and_exit_2(
    tmp_path: Path, name: str, text: str, needle: str
) -> None:
    f = tmp_path / name
    f.write_text(text)
    out = safehold("config", "validate", str(f))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("error: ") and needle in lines[0]
    assert "Traceback" not in out.stderr


def test_validate_missing_file(tmp_path: Path) -> None:
    out = safehold("config", "validate", str(tmp_path / "missing.toml"))
    assert out.returncode == 2
    assert out.stderr.startswith("error: ") and "no such file" in out.stderr


def test_schema_is_json() -> None:
    out = safehold("config", "schema")
    assert out.returncode == 0
    schema = json.loads(out.stdout)
    assert "denied_paths" in schema["properties"]


def test_issue_17_schema_lists_mode_which_config_files_accept(tmp_path: Path) -> None:
    schema = json.loads(safehold("config", "schema").stdout)
    assert schema["properties"]["mode"]["enum"] == ["auto", "review", "read-only"]
    config = tmp_path / "safehold.toml"
    config.write_text('mode = "auto"\n', encoding="utf-8")
    assert safehold("config", "validate", str(config)).returncode == 0


def test_show_defaults_and_file(tmp_path: Path) -> None:
    out = safehold("config", "show")
    data = json.loads(out.stdout)
    assert data["mode"] == "review" and ".ssh/" in data["denied_paths"]
    f = tmp_path / "auto.toml"
    f.write_text("require_approval_for_writes = false\nrequire_approval_for_execute = false\n")
    data = json.loads(safehold("config", "show", str(f)).stdout)
    assert data["mode"] == "auto"


def test_usage_errors_are_one_error_line() -> None:
    out = safehold("config", "frobnicate")
    assert out.returncode == 2
    assert out.stderr.startswith("error: ") and "Traceback" not in out.stderr
