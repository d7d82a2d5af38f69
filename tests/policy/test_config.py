"""SafetyConfig: defaults, validation errors that name the field, extension, loading."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from safehold import CommandRule, ConfigError, SafetyConfig, SandboxConfig, Verdict
from safehold.policy.config import DEFAULT_DENIED_PATHS, DEFAULT_PROTECTED_PATHS


def test_defaults_are_review_mode_with_workspace_allowed() -> None:
    config = SafetyConfig()
    assert config.mode == "review"
    assert config.allowed_paths == ("{workspace}",)
    assert config.acp_approval_timeout == 0.0
    assert config.denied_paths == DEFAULT_DENIED_PATHS
    assert config.protected_paths == DEFAULT_PROTECTED_PATHS


@pytest.mark.parametrize(
    "secret",
    [
        ".ssh/",
        "*.pem",
        "*.key",
        ".env",
        ".netrc",
        ".npmrc",
        ".pypirc",
        "/etc/shadow",
        "/etc/sudoers",
        ".aws/",
        ".gnupg/",
    ],
)
def test_builtin_denied_list_covers_common_secrets(secret: str) -> None:
    assert secret in SafetyConfig().denied_paths


@pytest.mark.parametrize(
    "protected", [".git", ".bashrc", ".zshrc", ".vscode/", ".idea/", ".mcp.json"]
)
def test_builtin_protected_list_covers_repo_and_shell_config(protected: str) -> None:
    assert protected in SafetyConfig().protected_paths


def test_config_is_frozen() -> None:
    config = SafetyConfig()
    with pytest.raises(ValidationError):
        config.read_only = True  # type: ignore[misc]


def test_user_lists_extend_the_builtin_lists() -> None:
    config = SafetyConfig(denied_paths=["secret.txt"], protected_paths=["Makefile"])
    assert config.denied_paths[: len(DEFAULT_DENIED_PATHS)] == DEFAULT_DENIED_PATHS
    assert config.denied_paths[-1] == "secret.txt"
    assert "Makefile" in config.protected_paths
    assert ".git" in config.protected_paths


def test_replacing_the_builtin_lists_needs_the_explicit_opt_out() -> None:
    config = SafetyConfig(
        denied_paths=["x"],
        replace_default_denied_paths=True,
        protected_paths=["y"],
        replace_default_protected_paths=True,
    )
    assert config.denied_paths == ("x",)
    assert config.protected_paths == ("y",)


def test_extension_is_stable_under_revalidation() -> None:
    config = SafetyConfig(
        denied_paths=["x"], command_rules=[{"pattern": "make", "decision": "allow"}]
    )
    again = SafetyConfig.model_validate(config.model_dump())
    assert again == config
    assert config.with_mode("auto").with_mode("review") == config


def _field_error(**kwargs: Any) -> tuple[str, str]:
    with pytest.raises(ValidationError) as info:
        SafetyConfig(**kwargs)
    err = info.value.errors()[0]
    return ".".join(str(x) for x in err["loc"]), str(err["msg"])


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"denied_path": ["x"]}, "denied_path"),
        ({"read_only": "yes"}, "read_only"),
        ({"read_only": 1}, "read_only"),
        ({"require_approval_for_writes": "false"}, "require_approval_for_writes"),
        ({"acp_approval_timeout": float("nan")}, "acp_approval_timeout"),
        ({"acp_approval_timeout": math.inf}, "acp_approval_timeout"),
        ({"acp_approval_timeout": -1}, "acp_approval_timeout"),
        ({"acp_approval_timeout": True}, "acp_approval_timeout"),
        ({"acp_approval_timeout": "30"}, "acp_approval_timeout"),
        ({"sandbox": {"mode": "linx"}}, "sandbox.mode"),
        ({"sandbox": {"profile": "rw"}}, "sandbox.profile"),
        ({"sandbox": {"network": "on"}}, "sandbox.network"),
        ({"sandbox": {"timeout": 0}}, "sandbox.timeout"),
        ({"sandbox": {"mode": "bwrap", "extra": 1}}, "sandbox.extra"),
        ({"audit": {"file": "x"}}, "audit.file"),
        ({"command_rules": [{"pattern": "rm", "decision": "maybe"}]}, "command_rules"),
        ({"command_rules": [{"pattern": "  ", "decision": "deny"}]}, "command_rules"),
        ({"denied_paths": "x"}, "denied_paths"),
    ],
)
def test_bad_values_name_the_field(kwargs: dict[str, Any], field: str) -> None:
    loc, _ = _field_error(**kwargs)
    assert loc.startswith(field)


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("!secret.txt", "negation"),
        ("", "empty"),
        ("   ", "empty"),
        ("#comment", "comment"),
        ("a[b", "unbalanced"),
        ("x/../y", r"\.\."),
        ("bad\x00name", "control"),
        ("tab\tname", "control"),
        ("trailing ", "trailing whitespace"),
        ("\\", "malformed"),
    ],
)
def test_malformed_path_patterns_are_rejected_not_dropped(pattern: str, why: str) -> None:
    for field in ("denied_paths", "allowed_paths", "protected_paths"):
        with pytest.raises(ValidationError, match=why):
            SafetyConfig(**{field: [pattern]})


def test_timeouts_accept_finite_non_negative_numbers() -> None:
    assert SafetyConfig(acp_approval_timeout=0).acp_approval_timeout == 0.0
    assert SafetyConfig(acp_approval_timeout=0.5).acp_approval_timeout == 0.5
    assert SafetyConfig(acp_approval_timeout=30).acp_approval_timeout == 30.0


def test_command_rule_pattern_whitespace_is_normalised() -> None:
    rule = CommandRule(pattern="  git   status ", decision=Verdict.ALLOW)
    assert rule.pattern == "git status"


def test_sandbox_defaults() -> None:
    sandbox = SandboxConfig()
    assert sandbox.mode == "bwrap"
    assert sandbox.profile == "workspace-write"
    assert sandbox.network is False


def test_replace_revalidates() -> None:
    with pytest.raises(ValidationError):
        SafetyConfig().replace(acp_approval_timeout=-3)
    with pytest.raises(ValidationError):
        SafetyConfig().replace(denied_paths=["!x"])


def test_json_schema_documents_every_field() -> None:
    schema = SafetyConfig.model_json_schema()
    assert set(SafetyConfig.model_fields) <= set(schema["properties"])
    assert schema["additionalProperties"] is False


# -- files ---------------------------------------------------------------------------------


def test_load_toml(tmp_path: Path) -> None:
    f = tmp_path / "safehold.toml"
    f.write_text(
        'read_only = true\nacp_approval_timeout = 30.0\ndenied_paths = ["notes/private/"]\n'
        '[sandbox]\nnetwork = true\n[[command_rules]]\npattern = "git status"\ndecision = "allow"\n'
    )
    config = SafetyConfig.load(f)
    assert config.read_only and config.mode == "read-only"
    assert config.acp_approval_timeout == 30.0
    assert "notes/private/" in config.denied_paths and ".ssh/" in config.denied_paths
    assert config.sandbox.network is True
    assert CommandRule(pattern="git status", decision=Verdict.ALLOW) in config.command_rules


def test_load_json(tmp_path: Path) -> None:
    f = tmp_path / "policy.json"
    f.write_text(json.dumps({"require_approval_for_writes": False, "sandbox": {"mode": "none"}}))
    config = SafetyConfig.load(f)
    assert config.require_approval_for_writes is False
    assert config.sandbox.mode == "none"


def test_loaded_file_protects_itself(tmp_path: Path) -> None:
    f = tmp_path / "my[policy].toml"
    f.write_text("read_only = false\n")
    config = SafetyConfig.load(f)
    assert any("policy" in p and p.startswith("/") for p in config.protected_paths)


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "a.toml",
            'read_only = "yes"\n',
            r'a\.toml: line 1: `read_only`: expected true or false, got a string "yes"$',
        ),
        ("b.toml", "\n\ndenied_path = []\n", r"line 3: `denied_path`: unknown field"),
        ("c.toml", "read_only = \n", r"c\.toml: invalid TOML: .*line 1"),
        ("d.json", '{"read_only": true,\n "x": }', r"d\.json: line 2, column \d+: invalid JSON"),
        (
            "e.json",
            '{"acp_approval_timeout": NaN}',
            r"e\.json: invalid JSON: `NaN` is not a valid number",
        ),
        (
            "f.toml",
            '[sandbox]\nmode = "linx"\n',
            r'line 2: `sandbox\.mode`: expected `bwrap` or `none`, got a string "linx"$',
        ),
        # A TOML list is a list, not "a valid tuple"; a JSON null is null, not NoneType.
        (
            "i.toml",
            'denied_paths = ".env"\n',
            r'line 1: `denied_paths`: expected a list \(`\[\.\.\.\]`\), got a string "\.env"$',
        ),
        ("j.json", '{"readonly_paths": null}', r"`readonly_paths`: expected a list .*, got null$"),
        ("k.toml", "sandbox = 3\n", r"`sandbox`: expected a table .*, got a number 3$"),
        (
            "l.toml",
            "[sandbox]\nmax_processes = 1.5\n",
            r"expected a whole number, got a number 1\.5$",
        ),
        (
            "m.toml",
            'acp_approval_timeout = "30"\n',
            r"`acp_approval_timeout`: timeout must be a number of seconds, got a string '30'$",
        ),
        ("g.json", "[1, 2]", r"top level must be a table"),
        ("h.yaml", "read_only: true", r"unknown config format `\.yaml`"),
    ],
)
def test_load_errors_are_one_line_naming_file_line_and_field(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(ConfigError, match=expected) as info:
        SafetyConfig.load(f)
    assert "\n" not in str(info.value)


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        SafetyConfig.load(tmp_path / "nope.toml")


def test_list_errors_name_the_field_not_the_merged_index(tmp_path: Path) -> None:
    # The built-in entries are merged in front, so the user's first entry is not index 0.
    f = tmp_path / "p.toml"
    f.write_text('denied_paths = ["!keep.pem"]\n')
    with pytest.raises(ConfigError) as info:
        SafetyConfig.load(f)
    assert "`denied_paths`: path pattern `!keep.pem` is a negation" in str(info.value)
