"""Policy tests in the config (`[[examples]]`): read from real files, decided by the engine."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from safehold import ConfigError, SafetyConfig
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.engine import evaluate
from safehold.policy.examples import DEFAULT_EXAMPLES, PolicyExample, run_examples

_FILE = """\
mode = "auto"

[[command_rules]]
pattern = "terraform apply"
decision = "deny"

[[examples]]
command = "terraform apply"
expect = "deny"

[[examples]]
command = "git status"
expect = "allow"

[[examples]]
command = "git status"
mode = "review"
expect = "ask"

[[examples]]
tool = "read_file"
arguments = { path = "keys/app.pem" }
kind = "read"
expect = "deny"

[[examples]]
tool = "write_file"
arguments = { path = "notes.txt" }
kind = "edit"
cwd = "sub"
expect = "allow"
"""


@pytest.mark.parametrize("example", DEFAULT_EXAMPLES, ids=lambda e: e.describe())
def test_the_defaults_keep_their_own_examples(example: PolicyExample, tmp_path: Path) -> None:
    (result,) = run_examples(SafetyConfig(), workspace=str(tmp_path), examples=[example])
    assert result.passed, result.render()


def test_examples_from_a_file_are_decided_in_their_mode_and_workspace(tmp_path: Path) -> None:
    f = tmp_path / "policy.toml"
    f.write_text(_FILE)
    config = SafetyConfig.load(f)
    results = run_examples(config, workspace=str(tmp_path))
    assert [r.passed for r in results] == [True] * 5, [r.render() for r in results]
    assert results[4].workspace == str(tmp_path / "sub")
    # The rule the first example names is the one that decided it.
    assert any(r.rule == "terraform apply" for r in results[0].decision.reasons)


def test_a_failing_example_shows_the_reasons_of_the_decision(tmp_path: Path) -> None:
    f = tmp_path / "policy.toml"
    f.write_text(_FILE.replace('mode = "auto"\n', 'mode = "review"\n', 1))
    results = run_examples(SafetyConfig.load(f), workspace=str(tmp_path))
    failed = [r for r in results if not r.passed]
    assert [r.index for r in failed] == [1, 4]  # review asks where auto allowed
    text = failed[0].render()
    assert text.startswith("FAIL  examples[1] `git status`: expected allow, got ask")
    assert "execute-needs-approval [require_approval_for_execute]" in text


def test_examples_never_change_a_decision(tmp_path: Path) -> None:
    plain = SafetyConfig(mode="auto")  # type: ignore[call-arg]
    example = {"command": "curl https://example.com", "expect": "deny"}
    tested = SafetyConfig.model_validate({"mode": "auto", "examples": [example]})
    call = ToolCall("bash", {"command": "curl https://example.com"}, ToolKind.EXECUTE)
    ws = str(tmp_path)
    assert evaluate(tested, call, workspace=ws) == evaluate(plain, call, workspace=ws)


@pytest.mark.parametrize(
    ("entry", "needle"),
    [
        ('command = "ls"\ntool = "read_file"\nexpect = "allow"', "not both or neither"),
        ('expect = "allow"', "not both or neither"),
        ('command = "ls"\nkind = "read"\nexpect = "allow"', "go with `tool`"),
        ('command = "ls"\nexpect = "maybe"', "`examples.0.expect`"),
        ('command = "ls"', "`examples.0.expect`: Field required"),
        ('command = "ls"\nmode = "yolo"\nexpect = "allow"', "`examples.0.mode`"),
        ('command = "ls"\nexpected = "allow"', "`examples.0.expected`: unknown field"),
    ],
)
def test_a_malformed_example_is_a_config_error(tmp_path: Path, entry: str, needle: str) -> None:
    f = tmp_path / "policy.toml"
    f.write_text(f"[[examples]]\n{entry}\n")
    with pytest.raises(ConfigError, match=re.escape(needle)):
        SafetyConfig.load(f)
