"""Closed world (issue 22): who asks `not-understood`, and who does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import Runner, evaluate

AUTO = SafetyConfig().with_mode("auto")


def _decide(config: SafetyConfig, command: str, ws: Path, runner: Runner) -> Decision:
    call = ToolCall(kind=ToolKind.EXECUTE, name="Bash", arguments={"command": command})
    return evaluate(config, call, workspace=str(ws), runner=runner)


def test_an_unknown_program_asks_on_the_host_naming_it_and_how_to_teach_it(
    tmp_path: Path,
) -> None:
    decision = _decide(AUTO, "pypy3 -c 'print(1)'", tmp_path, "host")
    assert decision.verdict is Verdict.ASK
    [reason] = [r for r in decision.reasons if r.code == "not-understood"]
    assert reason.rule == "pypy3" and "Adding a program" in reason.message


def test_an_unknown_option_is_named(tmp_path: Path) -> None:
    decision = _decide(AUTO, "rm --frobnicate x", tmp_path, "host")
    assert [r.rule for r in decision.reasons if r.code == "not-understood"] == ["rm --frobnicate"]


def test_the_sandbox_confines_what_is_not_understood(tmp_path: Path) -> None:
    assert _decide(AUTO, "pypy3 -c 'print(1)'", tmp_path, "sandbox").verdict is Verdict.ALLOW


def test_what_is_understood_is_still_judged_in_the_sandbox(tmp_path: Path) -> None:
    # `--outp` is a unique prefix of sort's `--output`: the write is seen and judged.
    decision = _decide(AUTO, "sort --outp=/etc/passwd x", tmp_path, "sandbox")
    assert decision.verdict is not Verdict.ALLOW


def test_review_mode_does_not_change(tmp_path: Path) -> None:
    review = SafetyConfig().with_mode("review")
    decision = _decide(review, "pypy3 -c 'print(1)'", tmp_path, "host")
    assert decision.verdict is Verdict.ASK
    assert "not-understood" not in {r.code for r in decision.reasons}


def test_python_dash_m_runs_the_module_as_a_program(tmp_path: Path) -> None:
    decision = _decide(AUTO, "python3 -u -m timeit pass", tmp_path, "host")
    assert "python3 -m timeit" in [r.rule for r in decision.reasons if r.code == "not-understood"]
    assert _decide(AUTO, "python3 -u script.py --anything", tmp_path, "host").verdict is (
        Verdict.ALLOW
    )


def test_a_glob_over_the_workspace_is_expanded_and_judged_on_the_host(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("")
    (tmp_path / "src" / ".env").write_text("TOKEN=x\n")
    # `sort` has a table: its glob operand is the only computed word.
    assert _decide(AUTO, "sort src/*.py", tmp_path, "host").verdict is Verdict.ALLOW
    for command in ("sort src/.*", "sort ../*.py", "sort $D/*.py", "cd .. && sort *.py"):
        assert _decide(AUTO, command, tmp_path, "host").verdict is not Verdict.ALLOW, command


@pytest.mark.parametrize(
    "command",
    ["find . -name '*.py' -exec ls -l {} \\;", "find src -type f -exec grep -n x {} + -print"],
)
def test_the_words_of_find_exec_are_the_commands_not_finds(tmp_path: Path, command: str) -> None:
    # `-exec CMD ARG… ;` (or `… {} +`): `-l` and `-n` belong to ls and grep, which the
    # step judges; read as primaries of find they would be unknown and ask.
    assert _decide(AUTO, command, tmp_path, "host").verdict is Verdict.ALLOW


def test_a_primary_after_the_exec_command_is_still_finds(tmp_path: Path) -> None:
    decision = _decide(AUTO, "find . -exec ls -l {} \\; -frobnicate", tmp_path, "host")
    assert decision.verdict is Verdict.ASK
    assert "find -frobnicate" in [r.rule for r in decision.reasons]


def test_an_allow_rule_is_the_users_word_in_auto_as_in_review(tmp_path: Path) -> None:
    # Found by the mode-monotonicity property: with `make *` allowed, review mode allowed
    # `make test` while auto asked not-understood. Auto is never stricter than review.
    # (make has a complete table since; `ninja`, which has none, stands in for it.)
    rule = {"pattern": "ninja *", "decision": "allow"}
    for mode in ("review", "auto"):
        config = SafetyConfig(command_rules=(rule,)).with_mode(mode)  # type: ignore[arg-type]
        assert _decide(config, "ninja test", tmp_path, "host").verdict is Verdict.ALLOW, mode
    # Without the rule, auto on the host asks: ninja has no table.
    assert _decide(AUTO, "ninja test", tmp_path, "host").verdict is Verdict.ASK


def test_a_glob_through_a_link_out_of_the_workspace_reads_there(tmp_path: Path) -> None:
    # A cloned repository may hold a link out of it (`docs -> ~`); bash expands `docs/*`
    # to the files where the link points, which are outside the roots.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("x")
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("x")
    (ws / "docs").symlink_to(outside)
    for command in ("head docs/*", "wc -l */*", 'for f in docs/*; do cat "$f"; done'):
        decision = _decide(AUTO, command, ws, "host")
        assert decision.verdict is Verdict.ASK, (command, decision)
        assert "path-outside-read" in {r.code for r in decision.reasons}, command
    assert _decide(AUTO, "wc -l src/*.py", ws, "host").verdict is Verdict.ALLOW


def test_a_popd_returns_to_any_directory_the_stack_held(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "notes.txt").write_text("x")
    command = f"pushd .. && pushd {ws} && popd && cat notes.txt"
    decision = _decide(AUTO, command, ws, "host")
    assert decision.verdict is Verdict.ASK, decision
    assert "path-outside-read" in {r.code for r in decision.reasons}
