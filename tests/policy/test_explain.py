"""`Decision.explain(steps=True)`, `Decision.trace()` and provenance: which step, rule and file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from safehold import SafetyConfig
from safehold.cli import main
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.decision import STEPS, Decision, Reason, Verdict
from safehold.policy.engine import evaluate
from safehold.policy.examples import DEFAULT_EXAMPLES
from safehold.policy.grants import GrantEffect
from safehold.policy.provenance import Provenance, annotate

_FILE = """\
mode = "auto"
denied_paths = ["*.secret"]

[[command_rules]]
pattern = "terraform apply"
decision = "deny"
reason = "apply from CI"
"""


def bash(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command}, ToolKind.EXECUTE)


@pytest.fixture
def loaded(tmp_path: Path) -> tuple[SafetyConfig, Provenance, str]:
    f = tmp_path / "team.toml"
    f.write_text(_FILE)
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "db.secret").write_text("x")
    config = SafetyConfig.load(f)
    return config, Provenance.of(config, f"{f} (named by --config)"), str(tmp_path / "ws")


def test_each_rule_names_its_list_and_the_file_or_default_it_came_from(
    loaded: tuple[SafetyConfig, Provenance, str],
) -> None:
    config, prov, ws = loaded
    layer = prov.settings["read_only"]
    cases = {
        "terraform apply": ("deny", "terraform apply", f"command_rules, {layer}"),
        "cat db.secret": ("deny", "*.secret", f"denied_paths, {layer}"),
        "cat .env": ("deny", ".env", "denied_paths, built-in"),
        "sudo ls": ("ask", "sudo", "command_rules, built-in"),
        "git status": ("allow", "require_approval_for_execute", layer),  # `mode` set it
    }
    for command, (step, rule, source) in cases.items():
        decision = annotate(evaluate(config, bash(command), workspace=ws), prov)
        assert decision.step == step, command
        assert (rule, source) in [(r.rule, r.source) for r in decision.reasons], (
            command,
            decision.reasons,
        )
        text = decision.explain(steps=True)
        assert f"decided by {STEPS[step]}" in text and f"rule `{rule}` (from {source})" in text


def test_a_setting_left_at_its_default_says_so(tmp_path: Path) -> None:
    decision = annotate(
        evaluate(SafetyConfig(), bash("ls"), workspace=str(tmp_path)),
        Provenance.of(SafetyConfig(), "defaults"),
    )
    assert decision.step == "ask"
    assert [(r.rule, r.source) for r in decision.reasons] == [
        ("require_approval_for_execute", "built-in default")
    ]


def test_a_role_from_a_program_table_names_the_entry(tmp_path: Path) -> None:
    decision = evaluate(SafetyConfig(mode="auto"), bash("rm -rf /"), workspace=str(tmp_path))  # type: ignore[call-arg]
    annotated = annotate(decision, Provenance.of(SafetyConfig(), "defaults"))
    sources = {r.rule: r.source for r in annotated.reasons}
    assert sources["rm delete"] is not None and sources["rm delete"].startswith("program table: rm")
    assert sources["rm -r /"] == "command_rules, built-in"


def test_a_grant_is_named_as_the_step_and_the_source(tmp_path: Path) -> None:
    config = SafetyConfig()
    first = evaluate(config, bash("make"), workspace=str(tmp_path))
    assert first.verdict is Verdict.ASK and first.grant_key is not None
    grants = {first.grant_key: GrantEffect.ALLOW}
    granted = annotate(
        evaluate(config, bash("make"), workspace=str(tmp_path), grants=grants),
        Provenance.of(config, "defaults"),
    )
    assert granted.step == "grant-allow" and granted.verdict is Verdict.ALLOW
    assert granted.reasons[0].source is not None and "grant" in granted.reasons[0].source
    grants = {first.grant_key: GrantEffect.REJECT}
    rejected = evaluate(config, bash("make"), workspace=str(tmp_path), grants=grants)
    assert rejected.step == "grant-reject" and rejected.verdict is Verdict.DENY


def test_a_grant_does_not_lift_a_hard_ask_and_the_step_says_so(tmp_path: Path) -> None:
    config = SafetyConfig(mode="auto")  # type: ignore[call-arg]
    call = ToolCall("write_file", {"path": ".git/config"}, ToolKind.EDIT)
    first = evaluate(config, call, workspace=str(tmp_path))
    assert first.grant_key is not None
    again = evaluate(
        config, call, workspace=str(tmp_path), grants={first.grant_key: GrantEffect.ALLOW}
    )
    assert again.verdict is Verdict.ASK and again.step == "hard-ask"


def test_every_decision_of_the_engine_names_a_step(tmp_path: Path) -> None:
    config = SafetyConfig()
    for example in DEFAULT_EXAMPLES:
        decision = evaluate(config.with_mode(example.mode or "review"), example.call(), workspace=str(tmp_path))  # fmt: skip
        assert decision.step in STEPS, example.describe()
        # The step agrees with the verdict.
        allowed = decision.step in ("allow", "grant-allow")
        assert allowed == (decision.verdict is Verdict.ALLOW)
    broken = evaluate(config, bash("ls"), workspace="relative")
    assert broken.verdict is Verdict.DENY and broken.step == "deny"


def test_annotating_changes_no_verdict_code_or_rule(
    loaded: tuple[SafetyConfig, Provenance, str],
) -> None:
    config, prov, ws = loaded
    for command in ("terraform apply", "cat .env", "python -c 'print(1)'", "curl http://10.0.0.1"):
        plain = evaluate(config, bash(command), workspace=ws)
        annotated = annotate(plain, prov)
        assert annotated.verdict is plain.verdict and annotated.step == plain.step
        assert [(r.code, r.rule, r.message) for r in annotated.reasons] == [
            (r.code, r.rule, r.message) for r in plain.reasons
        ]
        assert all(r.source for r in annotated.reasons)
        assert all(r.source is None for r in plain.reasons)  # the engine leaves it to annotate


def test_the_one_line_forms() -> None:
    d = Decision(
        Verdict.DENY,
        (Reason("path-denied", ".env", "matches `.env`", "denied_paths, built-in"),),
        step="deny",
    )
    assert d.trace() == "step 1 (deny); rules: `.env` (denied_paths, built-in)"
    assert d.explain() == "Denied: matches `.env`."  # unchanged: one sentence
    assert "\n" not in d.trace()
    assert d.to_dict()["step"] == "deny"
    assert d.to_dict()["reasons"] == [
        {
            "code": "path-denied",
            "rule": ".env",
            "message": "matches `.env`",
            "source": "denied_paths, built-in",
        }
    ]
    assert "step" not in Decision(Verdict.ALLOW).to_dict()


def test_check_explain_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "team.toml"
    f.write_text(_FILE)
    code = main(["check", "--config", str(f), "--cwd", str(tmp_path), "--explain", "--bash", "terraform apply"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 4
    assert f"config: {f} (named by --config)" in out
    assert "decided by step 1: a deny wins" in out
    assert f"rule `terraform apply` (from command_rules, {f} (named by --config))" in out
    code = main(["check", "--config", str(f), "--cwd", str(tmp_path), "--explain", "--json", "--mode", "review", "--bash", "ls"])  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert code == 3 and data["step"] == "ask"
    assert data["reasons"] == [
        {
            "code": "execute-needs-approval",
            "rule": "require_approval_for_execute",
            "message": "`bash` runs a command and commands need approval in this mode",
            "source": "--mode review",
        }
    ]


def test_a_hook_deny_carries_the_one_line_trace(tmp_path: Path) -> None:
    f = tmp_path / "team.toml"
    f.write_text(_FILE)
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": str(tmp_path),
        "tool_name": "Bash",
        "tool_input": {"command": "terraform apply"},
    }
    done = subprocess.run(
        [sys.executable, "-m", "safehold", "hook", "claude-code", "--config", str(f)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    why = json.loads(done.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert why.startswith("safehold denied: `terraform apply` matches deny rule")
    assert why.endswith(f"[step 1 (deny); rules: `terraform apply` (command_rules, {f} (named by --config))]")  # fmt: skip


def test_the_hook_names_a_default_setting_as_built_in(tmp_path: Path) -> None:
    # The hook judges `config.without_sandbox()`, a copy in which every field counts as set;
    # the sources are those of the file as loaded.
    f = tmp_path / "team.toml"
    f.write_text('denied_paths = ["*.secret"]\n')
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s1",
        "cwd": str(tmp_path),
        "tool_name": "Bash",
        "tool_input": {"command": "make"},
    }
    done = subprocess.run(
        [sys.executable, "-m", "safehold", "hook", "claude-code", "--config", str(f)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    why = json.loads(done.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert why.endswith("rules: `require_approval_for_execute` (built-in default)]"), why
