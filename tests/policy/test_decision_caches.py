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


def test_roles_remembered_by_value_hold_the_commands_own_words(tmp_path: Path) -> None:
    # The checks match a role to its word by identity (`u.word is w`): a command seen in an
    # earlier text has equal words but new objects, so the remembered roles must be handed
    # back holding this command's words, not the earlier command's.
    from safehold.policy.shell.analysis import analyze
    from safehold.policy.shell.findings import _command_dirs

    policy = compile_policy(SafetyConfig(), str(tmp_path))
    first = analyze("sort -o out.txt in.txt").commands[0]
    again = analyze("true; sort -o out.txt in.txt").commands[1]
    assert first.words == again.words and first.words[1] is not again.words[1]
    for cmd in (first, again):
        dirs, uses, _modes = _command_dirs(cmd, str(tmp_path), policy)
        assert dirs == [str(tmp_path)]
        assert {u.role for u in uses} == {"write", "read"}
        assert all(any(u.word is w for w in cmd.words) for u in uses)


def test_the_host_view_told_on_demand_is_the_host_assessment(tmp_path: Path) -> None:
    # A sandboxed pass leaves the host's assessment for later (`host_view`); when it tells
    # one, it is the assessment a pass for the host makes.
    from safehold.policy.shell.assess import assess_command

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x")
    ws = str(tmp_path)
    sandboxed = SafetyConfig().with_mode("auto")
    host = sandboxed.without_sandbox()
    told = 0
    commands = (
        "git status",
        "npm test",
        "cat src/app.py | sort",
        "frobnicate src",
        "ls ~",
        # Computed words: the host's view adds `computed-path` (`_check_computed`).
        'rm -rf "$D"',
        "wc --files0-from=names.lst",
        "git add --pathspec-from-file=names.lst",
        'cat "$HOME/notes" "$X"',
        # Loops and listings: both passes expand them, so one pass tells the host's view,
        # tree walks, too-long loops and loop values under `/tmp` included.
        'for f in src/*.py; do wc -l "$f"; done',
        'for f in .env src/app.py; do grep -n x "$f"; done',
        "find . -name '*.py' -exec grep -l x {} +",
        "find src -name '*.py' | xargs wc -l",
        "for f in " + " ".join(f"f{i}" for i in range(70)) + '; do cat "$f"; done',
        'for f in /tmp/a /tmp/b; do rm -f "$f"; done',
    )
    for command in commands:
        on_sandbox = assess_command(command, config=sandboxed, policy=compile_policy(sandboxed, ws))
        view = on_sandbox.host_view()
        on_host = assess_command(command, config=host, policy=compile_policy(host, ws))
        if view is not None:
            told += 1
            assert (view.verdict, view.reasons, view.grant_key) == (
                on_host.verdict,
                on_host.reasons,
                on_host.grant_key,
            )
    assert told >= 12


def test_checks_made_once_per_decision_keep_the_private_tmp_apart(tmp_path: Path) -> None:
    # A sandboxed decision judges the command twice, for the sandbox and for the host, and a
    # check whose inputs are equal in both is made once (`paths.looked_checks`). A `/tmp/…`
    # path is the sandbox's private scratch but the host's real /tmp: that check must be made
    # again for the host, or the host would inherit the sandbox's silence.
    (tmp_path / "in.txt").write_text("x")
    ws = str(tmp_path)
    auto = SafetyConfig().with_mode("auto")
    for command in (
        "cat /tmp/notes.txt",
        "sort -o /tmp/out.txt in.txt",
        "cat in.txt > /tmp/copy.txt && wc -l in.txt",
        "cd /tmp && cat notes.txt",
    ):
        call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
        host = evaluate(auto, call, workspace=ws)
        sandboxed = evaluate(auto, call, workspace=ws, runner="sandbox")
        assert host.verdict is not A, command
        assert sandboxed.verdict is A and sandboxed.confined, command
        told = next(r.message for r in sandboxed.reasons if r.code == "allowed-in-sandbox")
        for reason in host.reasons:
            assert reason.message in told, (command, reason)


def test_checks_made_once_per_decision_equal_checks_made_afresh(tmp_path: Path) -> None:
    # The host's half of a sandboxed decision, with checks shared between the two passes,
    # is the decision a host-only call makes (every check made afresh).
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x")
    (tmp_path / ".env").write_text("K=v")
    ws = str(tmp_path)
    auto = SafetyConfig().with_mode("auto")
    for command in (
        'for f in src/*.py; do python3 -m py_compile "$f"; done; git status --short',
        "grep -rn TODO src | wc -l; cat .env; ls -la ~",
        "find . -name '*.pyc' -exec rm {} + ; echo \"at $(date +%s)\" > stamp.txt",
        "cp src/app.py ~/.bashrc; frobnicate --flag src",
    ):
        call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
        host = evaluate(auto, call, workspace=ws)
        sandboxed = evaluate(auto, call, workspace=ws, runner="sandbox")
        if sandboxed.confined:
            told = next(r.message for r in sandboxed.reasons if r.code == "allowed-in-sandbox")
            assert host.verdict is not A and all(r.message in told for r in host.reasons)
        elif sandboxed.verdict is A:
            assert host.verdict is A, command
        else:  # a host decision is never looser than the sandbox's
            assert host.verdict is not A, command
