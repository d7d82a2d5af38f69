"""The managed policy: files may only tighten it; a broken one denies everything; the view."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from safehold import ConfigError
from safehold.cli import main
from safehold.config_discovery import discover_config

_MANAGED = """\
denied_paths = ["**/*.secret"]

[network]
allowed_domains = ["pypi.org", "github.com"]

[[command_rules]]
pattern = "terraform apply"
decision = "deny"
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "xdg" / "safehold").mkdir(parents=True)
    (tmp_path / "proj").mkdir()
    (tmp_path / "managed.toml").write_text(_MANAGED)
    return {
        "SAFEHOLD_MANAGED_CONFIG": str(tmp_path / "managed.toml"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "HOME": str(tmp_path / "home"),
    }


def _user(env: dict[str, str]) -> Path:
    return Path(env["XDG_CONFIG_HOME"]) / "safehold" / "config.toml"


def test_without_other_files_the_managed_policy_applies(env: dict[str, str]) -> None:
    config, source = discover_config(project=Path(env["HOME"]).parent / "proj", env=env)
    assert source.origin == "managed" and source.path == Path(env["SAFEHOLD_MANAGED_CONFIG"])
    assert "**/*.secret" in config.denied_paths
    assert config.network.allowed_domains == ("pypi.org", "github.com")


def test_a_user_file_is_layered_on_it_and_may_tighten(env: dict[str, str]) -> None:
    _user(env).write_text('protected_paths = ["deploy/**"]\n[network]\nallowed_domains = ["pypi.org"]\n')  # fmt: skip
    config, source = discover_config(env=env)
    assert source.origin == "user"
    assert "**/*.secret" in config.denied_paths and "deploy/**" in config.protected_paths
    assert any(r.pattern == "terraform apply" for r in config.command_rules)  # kept
    assert config.network.allowed_domains == ("pypi.org",)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('mode = "auto"\n', "require_approval_for_execute"),
        ("[network]\nallowed_domains = []\n", "network"),  # every domain again
        ('[network]\nallowed_domains = ["evil.example"]\n', "network"),
        ("replace_default_command_rules = true\ncommand_rules = []\n", None),  # cannot drop
        ('[sandbox]\nmode = "none"\n', "sandbox"),
    ],
)
def test_a_file_that_loosens_it_is_refused_even_when_trusted(
    env: dict[str, str], text: str, field: str | None
) -> None:
    from safehold.project_trust import trust

    project = Path(env["HOME"]).parent / "proj"
    for where in (_user(env), project / ".safehold.toml"):
        where.write_text(text)
        if where.name == ".safehold.toml":
            trust(where, env)
        if field is None:  # the managed rules are kept whatever the file says
            config, _ = discover_config(project=project, env=env)
            assert any(r.pattern == "terraform apply" for r in config.command_rules)
            continue
        with pytest.raises(ConfigError, match=rf"less strict than the managed policy .*`{field}`"):
            discover_config(project=project, env=env)
        where.unlink()


@pytest.mark.parametrize("breakage", ["invalid", "unknown-field", "directory", "missing"], ids=str)
def test_a_broken_managed_policy_denies_everything_never_the_defaults(
    env: dict[str, str], breakage: str
) -> None:
    managed = Path(env["SAFEHOLD_MANAGED_CONFIG"])
    managed.unlink()
    if breakage == "invalid":
        managed.write_text("denied_paths = [\n")
    elif breakage == "unknown-field":
        managed.write_text("denied_path = ['x']\n")
    elif breakage == "directory":
        managed.mkdir()  # present, but cannot be read as a file
    with pytest.raises(ConfigError, match="managed"):
        discover_config(env=env)
    _user(env).write_text('mode = "review"\n')  # a valid user file does not help
    with pytest.raises(ConfigError, match="managed"):
        discover_config(env=env)


def test_a_broken_managed_policy_blocks_the_hook_and_check(
    env: dict[str, str], tmp_path: Path
) -> None:
    Path(env["SAFEHOLD_MANAGED_CONFIG"]).write_text("mode = 'yolo'\n")
    full = {"PATH": "/usr/bin:/bin", "SAFEHOLD_HOOK_SERVER": "0", **env}
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": str(tmp_path / "proj"),
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    hook = subprocess.run(
        [sys.executable, "-m", "safehold", "hook", "claude-code"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=full,
        timeout=60,
        check=False,
    )
    assert hook.returncode == 2 and hook.stdout == ""  # exit 2 blocks the call
    assert "managed policy" in hook.stderr and "never falls back" in hook.stderr
    check = subprocess.run(
        [
            sys.executable,
            "-m",
            "safehold",
            "check",
            "--bash",
            "ls",
            "--cwd",
            str(tmp_path / "proj"),
        ],
        capture_output=True,
        text=True,
        env=full,
        timeout=60,
        check=False,
    )
    assert check.returncode == 2 and "managed policy" in check.stderr


def test_show_effective_names_the_layer_of_each_entry(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    _user(env).write_text('protected_paths = ["deploy/**"]\n[network]\nallowed_domains = ["pypi.org"]\n')  # fmt: skip
    assert main(["config", "show", "--effective", "--cwd", str(Path(env["HOME"]).parent / "proj")]) == 0  # fmt: skip
    out = capsys.readouterr().out
    managed = f"{env['SAFEHOLD_MANAGED_CONFIG']} (managed policy)"
    user = f"{_user(env)} (user file)"
    assert out.startswith(f"# effective policy: {user} on {managed}\n")
    assert f'  "**/*.secret",  # {managed}\n' in out
    assert f'  "deploy/**",  # {user}\n' in out
    assert '  ".env",  # built-in\n' in out
    assert f'  {{ pattern = "terraform apply", decision = "deny", match = "tokens" }},  # {managed}\n' in out  # fmt: skip
    assert f'allowed_domains = [\n  "pypi.org",  # {managed}\n]' in out  # the user kept one of them
    assert 'mode = "review"  # built-in default\n' in out
