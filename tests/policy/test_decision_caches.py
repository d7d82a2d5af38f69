"""Remembered decision steps (issue 13's speed work): a cache never outlives what it read.

Every cache in the decision path holds a pure step only (matching canonical paths, reading
flat arguments, rule and class matching), so a decision must still follow a change of the
config, of the filesystem and of the call. A broken cache fails these tests.
"""

from __future__ import annotations

import os
from pathlib import Path

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import CommandRule, SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.engine import evaluate
from safehold.policy.paths import compile_policy

A, Q, D = Verdict.ALLOW, Verdict.ASK, Verdict.DENY


def _verdicts(config: SafetyConfig, call: ToolCall, ws: str, times: int = 3) -> set[Verdict]:
    return {evaluate(config, call, workspace=ws).verdict for _ in range(times)}


def test_cached_read_follows_the_config(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "plan.md").write_text("x")
    ws = str(tmp_path)
    call = ToolCall("read_file", {"path": "notes/plan.md"}, ToolKind.READ)
    default = SafetyConfig()
    assert _verdicts(default, call, ws) == {A}
    assert _verdicts(SafetyConfig(denied_paths=["notes/"]), call, ws) == {D}
    assert _verdicts(SafetyConfig(allowed_paths=["/nowhere"]), call, ws) == {Q}
    assert _verdicts(default, call, ws) == {A}  # the first config's memo is still right


def test_cached_read_follows_a_swapped_link(tmp_path: Path) -> None:
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "server.pem").write_text("k")
    (tmp_path / "doc.md").write_text("x")
    link = tmp_path / "link.md"
    link.symlink_to(tmp_path / "doc.md")
    ws, config = str(tmp_path), SafetyConfig()
    call = ToolCall("read_file", {"path": "link.md"}, ToolKind.READ)
    assert _verdicts(config, call, ws) == {A}
    link.unlink()
    link.symlink_to(tmp_path / "keys" / "server.pem")
    decision = evaluate(config, call, workspace=ws)
    assert decision.verdict is D
    assert [r.rule for r in decision.reasons] == ["*.pem"]


def test_cached_arguments_follow_the_filesystem(tmp_path: Path) -> None:
    # `id_rsa` under a name that says nothing is a path only once such an entry exists.
    ws, config = str(tmp_path), SafetyConfig()
    call = ToolCall("lookup", {"item": "id_rsa"}, ToolKind.READ)
    assert _verdicts(config, call, ws) == {A}
    (tmp_path / "id_rsa").write_text("k")
    assert _verdicts(config, call, ws) == {D}
    os.remove(tmp_path / "id_rsa")
    assert _verdicts(config, call, ws) == {A}


def test_cached_arguments_tell_equal_scalars_of_other_types_apart(tmp_path: Path) -> None:
    ws, config = str(tmp_path), SafetyConfig()
    messages = []
    for value in (1, True, 1.0, 1):
        call = ToolCall("t", {"item": value}, ToolKind.READ, path_args=("item",))
        decision = evaluate(config, call, workspace=ws)
        assert decision.verdict is D
        messages.append(decision.reasons[0].message)
    tails = [m.split(" but is ", 1)[-1] for m in messages]
    assert tails == ["a number (1)", "a boolean (true)", "a number (1.0)", "a number (1)"]


def test_cached_path_check_keeps_access_apart(tmp_path: Path) -> None:
    policy = compile_policy(SafetyConfig(), str(tmp_path))
    for _ in range(2):
        assert policy.check_path(".github/workflows/ci.yml", "read").verdict is A
        assert policy.check_path(".github/workflows/ci.yml", "write").verdict is Q
        assert policy.check_path(".github/workflows/ci.yml", "run").verdict is A


def test_cached_command_follows_the_config_and_the_filesystem(tmp_path: Path) -> None:
    ws = str(tmp_path)
    auto = SafetyConfig().with_mode("auto")
    npm = ToolCall("bash", {"command": "npm test"}, ToolKind.EXECUTE)
    assert _verdicts(auto, npm, ws) == {A}
    rule = CommandRule(pattern="npm test", decision=Verdict.DENY)
    assert _verdicts(auto.replace(command_rules=[rule]), npm, ws) == {D}
    assert _verdicts(auto, npm, ws) == {A}

    cat = ToolCall("bash", {"command": "cat notes"}, ToolKind.EXECUTE)
    assert _verdicts(auto, cat, ws) == {A}
    (tmp_path / "server.pem").write_text("k")
    (tmp_path / "notes").symlink_to(tmp_path / "server.pem")
    assert _verdicts(auto, cat, ws) == {D}
