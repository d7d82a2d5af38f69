"""`[[programs]]`: a program the user declares is understood without the sandbox."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from safehold.errors import ConfigError
from safehold.policy import program_config
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import evaluate
from safehold.policy.shell.programs import table

DECLARED = """
mode = "auto"
[[programs]]
name = "sqlcheck"
parser = "argparse"
operands = "read"
options = [{ name = "--config", value = "required", role = "read" }, { name = "--verbose" }]
"""


def _decide(config: SafetyConfig, command: str, ws: Path) -> Decision:
    call = ToolCall(kind=ToolKind.EXECUTE, name="Bash", arguments={"command": command})
    return evaluate(config, call, workspace=str(ws), runner="host")


@pytest.fixture
def config(tmp_path: Path) -> SafetyConfig:
    path = tmp_path / "safehold.toml"
    path.write_text(DECLARED)
    return SafetyConfig.load(path)


def test_a_declared_program_is_understood_with_its_prefixes(
    config: SafetyConfig, tmp_path: Path
) -> None:
    assert _decide(config, "sqlcheck --verb lint.sql", tmp_path).verdict is Verdict.ALLOW
    unknown = _decide(config, "sqlcheck --fix lint.sql", tmp_path)
    assert [r.rule for r in unknown.reasons] == ["sqlcheck --fix"]


def test_a_declared_programs_roles_are_judged(config: SafetyConfig, tmp_path: Path) -> None:
    decision = _decide(config, "sqlcheck --conf ~/.ssh/id_rsa x.sql", tmp_path)
    assert decision.verdict is Verdict.DENY


def test_undeclared_it_is_not_understood(tmp_path: Path) -> None:
    auto = SafetyConfig().with_mode("auto")
    assert _decide(auto, "sqlcheck lint.sql", tmp_path).verdict is Verdict.ASK


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[programs]]\nname = "rm"\n', "already known"),
        ('[[programs]]\nname = "x"\noptions = [{ name = "v" }]\n', "must start with"),
        ('[[programs]]\nname = "x"\noperands = "frob"\n', "operands"),
        ('[[programs]]\nname = "a/b"\n', "bare name"),
    ],
)
def test_bad_declarations_are_clear_errors(text: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "safehold.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        SafetyConfig.load(path)


def test_the_configs_vocabulary_is_the_tables() -> None:
    assert typing.get_args(program_config.Role) == table.ROLES
    assert typing.get_args(program_config.Parser) == table.PARSERS
