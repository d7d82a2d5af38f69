"""Issue 10: the call's `cwd`, `sandbox.mode = "none"`, and the program table as data.

Most classes are categories in tests/corpus/commands.toml; these need a `cwd` argument, a
config other than the default, or a look at the table itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import evaluate
from safehold.policy.sandbox_config import SandboxConfig
from safehold.policy.shell import analyze
from safehold.policy.shell.programs import PROGRAMS, STEPS
from safehold.policy.shell.programs.table import ROLES, roles_of
from tests.strategies import allowed_but_for_vocabulary, runner_for

AUTO = SafetyConfig().with_mode("auto")
UNSANDBOXED = SafetyConfig(sandbox=SandboxConfig(mode="none")).with_mode("auto")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("k")
    work = home / "proj"
    (work / "src" / "deep").mkdir(parents=True)
    (work / "src" / "main.py").write_text("x")
    (work / ".env").write_text("T=1")
    monkeypatch.setenv("HOME", str(home))
    return work


def run(ws: Path, command: str, config: SafetyConfig = AUTO, **extra: object) -> Decision:
    call = ToolCall("bash", {"command": command, **extra}, ToolKind.EXECUTE)
    return evaluate(config, call, workspace=str(ws), runner=runner_for(config))


def codes(d: Decision) -> set[str]:
    return {r.code for r in d.reasons}


@pytest.mark.parametrize(
    ("command", "cwd", "verdict"),
    [
        ("rm -rf ../..", "src", Verdict.DENY),  # src/../.. is the home directory
        ("rm -rf ..", "src", Verdict.ALLOW),  # the workspace itself, from src
        ("cat ../.ssh/id_rsa", ".", Verdict.DENY),
        ("cat ../../.ssh/id_rsa", "src", Verdict.DENY),
        ("cat .ssh/id_rsa", "~", Verdict.DENY),
        ("cd deep && rm -rf ../../..", "src", Verdict.DENY),
        ("rm -rf build", "src", Verdict.ALLOW),
        ("cat main.py", "src", Verdict.ALLOW),
    ],
)
def test_the_calls_cwd_is_the_base_of_relative_paths(
    ws: Path, command: str, cwd: str, verdict: Verdict
) -> None:
    decision = run(ws, command, cwd=cwd)
    assert decision.verdict is verdict, decision.reasons


def test_a_cwd_that_is_not_a_path_is_denied(ws: Path) -> None:
    assert run(ws, "ls", cwd=3).verdict is Verdict.DENY


@pytest.mark.parametrize(
    "command",
    [
        "base64 $(printf '\\056env')",
        'cat "$F"',
        'rm -f "$TARGET"',
        'cp src/main.py "$OUT"',
        "patch -p1 < fix.diff",
        "mytool $(cat list.txt)",
    ],
)
def test_unsandboxed_auto_mode_asks_for_paths_computed_at_run_time(ws: Path, command: str) -> None:
    # With the sandbox, a computed path is confined to what the sandbox shows; without it
    # nothing is, so what the analysis cannot see asks.
    unsandboxed = run(ws, command, UNSANDBOXED)
    assert unsandboxed.verdict is Verdict.ASK, unsandboxed.reasons
    assert "computed-path" in codes(unsandboxed)


@pytest.mark.parametrize("command", ["echo $(date +%s)", "cat src/main.py", "rm -rf build"])
def test_unsandboxed_auto_mode_still_runs_what_it_can_see(ws: Path, command: str) -> None:
    assert allowed_but_for_vocabulary(run(ws, command, UNSANDBOXED))


def test_sandboxed_auto_mode_lets_the_sandbox_confine_computed_paths(ws: Path) -> None:
    assert run(ws, 'rm -f "$TARGET"').verdict is Verdict.ALLOW


@pytest.mark.parametrize(
    "command",
    [
        "kill -9 -0001",
        "kill -KILL -1",
        "kill -s 9 -- -1",
        "kill -SIGKILL -01",
        "busybox kill -9 -1",
        "/bin/kill -TERM -1",
        "env kill -- -1",
    ],
)
def test_kill_minus_one_is_denied_in_every_spelling(ws: Path, command: str) -> None:
    decision = run(ws, command)
    assert decision.verdict is Verdict.DENY and "kill-all" in codes(decision), decision.reasons


def test_kill_with_signal_one_of_a_pid_is_not_kill_all(ws: Path) -> None:
    # `kill -1 PID` sends SIGHUP to PID: the -1 is the signal, not a process group.
    assert "kill-all" not in codes(run(ws, "kill -9 1234"))


def test_every_program_in_the_table_names_only_known_roles() -> None:
    for name, program in PROGRAMS.items():
        stack = [program]
        while stack:
            p = stack.pop()
            for role in (p.operands, p.first, p.last, *(o.role for o in p.options.values())):
                assert role is None or role in ROLES, (name, role)
            stack.extend(p.modes.values())
            stack.extend(p.subcommands.values())


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cp a b dest", [("read", "a"), ("read", "b"), ("write", "dest")]),
        ("cp -t dest a b", [("write", "dest"), ("read", "a"), ("read", "b")]),
        ("mv -f a b", [("delete", "a"), ("write", "b")]),
        ("rm -rf -- -x y", [("delete", "-x"), ("delete", "y")]),
        ("chmod -R 755 a", [("perm", "a")]),
        ("chmod -x a", [("perm", "a")]),
        ("dd if=a of=b bs=1", [("read", "a"), ("write", "b")]),
        ("sed -n -e p -i a", [("write", "a")]),
        ("sed p a", [("read", "a")]),
        ("tar czf out.tgz src", [("write", "out.tgz"), ("read", "src")]),
        ("tar -xf in.tgz", [("read", "in.tgz"), ("write", ".")]),
        ("curl -o out https://h", [("write", "out"), ("network", "https://h")]),
        ("git push https://h/r main", [("send", "https://h/r")]),
        ("rsync -a --delete src/ host:/dst", [("upload", "src/"), ("send", "host:/dst")]),
        ("find /x -name '*.py' -delete", [("delete", "/x")]),
    ],
)
def test_the_table_gives_each_word_its_role(command: str, expected: list[tuple[str, str]]) -> None:
    cmd = analyze(command).commands[-1]
    program = PROGRAMS[cmd.program]
    uses = roles_of(program, cmd.words)[0]
    assert [(u.role, u.word.text) for u in uses] == expected


def test_a_program_has_one_meaning_per_table() -> None:
    # Adding a program is adding a table entry; the walker looks names up, never branches.
    assert "curl" in PROGRAMS and "bash" in STEPS and "sudo" in STEPS
