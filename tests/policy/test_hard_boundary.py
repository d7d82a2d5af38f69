"""`outside_reads = "deny"` (a hard read boundary) and `write_denied_paths` (writes denied,
reads judged as usual), through `evaluate` on real trees, and their strictness rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import evaluate
from safehold.policy.strictness import loosened_fields


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    ws = home / "proj"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("x = 1\n")
    (ws / "vendor").mkdir()
    (ws / "vendor" / "lib.py").write_text("y = 2\n")
    (home / "notes.txt").write_text("private\n")
    monkeypatch.setenv("HOME", str(home))
    return ws


def read(config: SafetyConfig, ws: Path, path: str) -> Decision:
    call = ToolCall("read_file", {"path": path}, ToolKind.READ)
    return evaluate(config, call, workspace=str(ws))


def write(config: SafetyConfig, ws: Path, path: str) -> Decision:
    call = ToolCall("write_file", {"path": path, "content": "z"}, ToolKind.EDIT)
    return evaluate(config, call, workspace=str(ws))


def shell(config: SafetyConfig, ws: Path, command: str) -> Decision:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    return evaluate(config, call, workspace=str(ws), runner="host")


def codes(d: Decision) -> set[str]:
    return {r.code for r in d.reasons}


def test_outside_reads_ask_by_default_and_deny_when_set(tree: Path) -> None:
    soft = SafetyConfig().with_mode("auto")
    hard = SafetyConfig(outside_reads="deny").with_mode("auto")
    assert read(soft, tree, "~/notes.txt").verdict is Verdict.ASK
    denied = read(hard, tree, "~/notes.txt")
    assert denied.verdict is Verdict.DENY
    assert "path-outside-read" in codes(denied)
    assert "outside_reads = deny" in " ".join(r.message for r in denied.reasons)


def test_a_hard_boundary_still_reads_the_workspace_and_the_read_only_roots(tree: Path) -> None:
    hard = SafetyConfig(outside_reads="deny").with_mode("auto")
    assert read(hard, tree, "src/app.py").verdict is Verdict.ALLOW
    assert read(hard, tree, "/usr/include").verdict is Verdict.ALLOW  # a built-in read-only root


def test_a_hard_boundary_denies_commands_that_read_outside(tree: Path) -> None:
    soft = SafetyConfig().with_mode("auto")
    hard = SafetyConfig(outside_reads="deny").with_mode("auto")
    assert shell(soft, tree, "cat ~/notes.txt").verdict is Verdict.ASK
    assert shell(hard, tree, "cat ~/notes.txt").verdict is Verdict.DENY
    assert shell(hard, tree, "cat src/app.py").verdict is Verdict.ALLOW


@pytest.mark.parametrize(
    "command", ["ls", "ls -la", "find -name x", "grep -r x", "git status", "pwd", "ls ."]
)
def test_a_workspace_outside_the_roots_is_read_by_commands_that_run_in_it(
    tree: Path, command: str
) -> None:
    # Roots that leave the workspace out (Aar's `allowed_paths = ["/safe/**"]`): a command
    # that reads the directory it runs in without naming it reads outside. "deny" is never
    # looser than "ask" here (before, the hard boundary allowed what the soft one asked).
    roots = {"allowed_paths": (str(tree / "src"),)}
    soft = SafetyConfig(**roots).with_mode("auto")  # type: ignore[arg-type]
    hard = SafetyConfig(outside_reads="deny", **roots).with_mode("auto")  # type: ignore[arg-type]
    assert shell(soft, tree, command).verdict is Verdict.ASK
    denied = shell(hard, tree, command)
    assert denied.verdict is Verdict.DENY
    assert "path-outside-read" in codes(denied)
    assert shell(hard, tree, "echo hi").verdict is Verdict.ALLOW  # reads no directory


def test_write_denied_paths_deny_writes_and_leave_reads_alone(tree: Path) -> None:
    config = SafetyConfig(write_denied_paths=("{workspace}/vendor/**",)).with_mode("auto")
    assert read(config, tree, "vendor/lib.py").verdict is Verdict.ALLOW
    denied = write(config, tree, "vendor/lib.py")
    assert denied.verdict is Verdict.DENY
    assert "path-write-denied" in codes(denied)
    assert write(config, tree, "src/app.py").verdict is Verdict.ALLOW
    # A command that writes there is denied; one that reads there is not.
    assert shell(config, tree, "cp src/app.py vendor/lib.py").verdict is Verdict.DENY
    assert shell(config, tree, "cat vendor/lib.py").verdict is Verdict.ALLOW


def test_write_denied_paths_hold_in_every_mode(tree: Path) -> None:
    for mode in ("auto", "review"):
        config = SafetyConfig(write_denied_paths=("{workspace}/vendor",)).with_mode(mode)
        assert write(config, tree, "vendor/new.py").verdict is Verdict.DENY


def test_invalid_values_are_named_in_one_line() -> None:
    with pytest.raises(ValueError, match="outside_reads"):
        SafetyConfig(outside_reads="maybe")  # type: ignore[arg-type]


def test_strictness_deny_is_tighter_than_ask_and_the_write_denied_list_only_grows() -> None:
    hard = SafetyConfig(outside_reads="deny", write_denied_paths=("{workspace}/vendor",))
    assert loosened_fields(hard, SafetyConfig()) == []
    assert "outside_reads" in loosened_fields(SafetyConfig(), hard)
    assert "write_denied_paths" in loosened_fields(SafetyConfig(outside_reads="deny"), hard)


@given(
    extra=st.lists(st.sampled_from(["{workspace}/a", "{workspace}/b/**", "~/c"]), max_size=3),
    boundary=st.sampled_from(["ask", "deny"]),
)
def test_adding_write_denied_entries_or_a_hard_boundary_never_loosens(
    extra: list[str], boundary: str
) -> None:
    base = SafetyConfig(write_denied_paths=("{workspace}/vendor",))
    tighter = SafetyConfig(
        write_denied_paths=("{workspace}/vendor", *extra),
        outside_reads=boundary,  # type: ignore[arg-type]
    )
    assert loosened_fields(tighter, base) == []
