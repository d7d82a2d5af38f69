"""A hook that sees no person answers an ask deny (`safehold would ask: …`): never a hang.

Real processes: a hook with no controlling terminal (a new session), one with a pseudo
terminal as its controlling terminal, and stand-ins for the CLIs (a script named `claude` or
`gemini` that runs the hook as its child, as the CLIs do) with and without their headless
switch. The unit tests read a fake `/proc` tree.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shlex
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from safehold.cli import _headless
from tests.adapters.hooks.conftest import HookRun, Project

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc, ptys")

ASKS = {"claude-code": "write_new", "gemini-cli": "write_file"}


def _verdict(flavour: str, out: dict[str, object]) -> tuple[str, str]:
    if flavour == "claude-code":
        specific = out["hookSpecificOutput"]
        assert isinstance(specific, dict)
        return specific["permissionDecision"], specific["permissionDecisionReason"]
    return str(out["decision"]), str(out.get("reason", ""))


def _env(project: Project, **extra: str) -> dict[str, str]:
    env = project.env(**extra)
    env.pop("SAFEHOLD_HEADLESS", None)  # tests/conftest.py pins it; here the hook looks
    env.pop(_headless.SEEN_VAR, None)
    env.update(extra)
    return env


def _run(
    project: Project,
    argv: list[str],
    *,
    env: dict[str, str],
    terminal: bool,
    stdin: str | None = None,
    cli_piped: bool = False,
) -> subprocess.CompletedProcess[bytes]:
    """Run `argv` with a controlling terminal (a pty) or none (a new session)."""
    if not terminal:
        return subprocess.run(
            argv,
            input=stdin.encode() if stdin is not None else None,
            capture_output=True,
            cwd=project.root,
            env=env,
            timeout=120,
            start_new_session=True,
            check=False,
        )
    leader, follower = pty.openpty()

    def take_terminal() -> None:
        os.setsid()
        fcntl.ioctl(follower, termios.TIOCSCTTY, 0)

    try:
        tty_io = subprocess.PIPE if cli_piped or stdin is not None else follower
        return subprocess.run(
            argv,
            input=stdin.encode() if stdin is not None else None,
            stdin=None if stdin is not None else tty_io,
            stdout=subprocess.PIPE if stdin is not None or cli_piped else follower,
            stderr=subprocess.PIPE,
            cwd=project.root,
            env=env,
            timeout=120,
            preexec_fn=take_terminal,  # the child takes the pty as its terminal, then execs
            pass_fds=(follower,),
            check=False,
        )
    finally:
        os.close(follower)
        os.close(leader)


def _hook(
    project: Project, flavour: str, *args: str, terminal: bool, env: dict[str, str] | None = None
) -> HookRun:
    done = _run(
        project,
        [sys.executable, "-m", "safehold.cli", "hook", flavour, *args],
        env=_env(project) if env is None else env,
        terminal=terminal,
        stdin=project.payload(flavour, ASKS[flavour]),
    )
    return HookRun(done.returncode, done.stdout.decode(), done.stderr.decode())


def _fake_cli(project: Project, flavour: str, tmp_path: Path) -> tuple[Path, Path, Path]:
    """A script named like the CLI that runs the hook as its child (payload and answer in files)."""
    name = {"claude-code": "claude", "gemini-cli": "gemini"}[flavour]
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    script = bindir / name
    payload, answer = tmp_path / f"{name}-payload.json", tmp_path / f"{name}-answer.json"
    payload.write_text(project.payload(flavour, ASKS[flavour]))
    # As the CLIs do, the hook runs through a shell of its own; the redirections are that
    # shell's (a shell applies them to itself while it starts a command).
    inner = shlex.join([sys.executable, "-m", "safehold.cli", "hook", flavour])
    inner += f" <{shlex.quote(str(payload))} >{shlex.quote(str(answer))}"
    script.write_text(
        "#!/bin/sh\n"
        f"/bin/sh -c {shlex.quote(inner)}\n"
        "status=$?\n"  # not the last command: this shell stays the hook's grandparent
        "exit $status\n"
    )
    script.chmod(0o755)
    return script, payload, answer


def test_no_terminal_answers_an_ask_deny(project: Project) -> None:
    for flavour in ("claude-code", "gemini-cli"):
        run = _hook(project, flavour, terminal=False)
        assert run.code == 0, run.stderr
        verdict, reason = _verdict(flavour, run.json())
        assert verdict == "deny"
        assert reason.startswith("safehold would ask: ")
        assert "no person can answer here (no terminal)" in reason


def test_a_terminal_keeps_the_ask(project: Project) -> None:
    run = _hook(project, "gemini-cli", terminal=True)
    assert run.code == 0, run.stderr
    assert _verdict("gemini-cli", run.json())[0] == "ask"


def test_the_users_word_wins_over_what_the_hook_sees(project: Project) -> None:
    # No terminal, but a person answers in the IDE: the flag or the variable keeps the ask.
    run = _hook(project, "claude-code", "--interactive", terminal=False)
    assert _verdict("claude-code", run.json())[0] == "ask"
    env = _env(project, SAFEHOLD_HEADLESS="0")
    assert (
        _verdict("claude-code", _hook(project, "claude-code", terminal=False, env=env).json())[0]
        == "ask"
    )
    # A terminal, but the user says nobody is there.
    env = _env(project, SAFEHOLD_HEADLESS="1")
    verdict, reason = _verdict(
        "gemini-cli", _hook(project, "gemini-cli", terminal=True, env=env).json()
    )
    assert verdict == "deny" and "($SAFEHOLD_HEADLESS)" in reason
    # What the hook process records for the server is not the user's to set.
    env = _env(project, **{_headless.SEEN_VAR: ""})
    run = _hook(project, "gemini-cli", terminal=False, env=env)
    assert _verdict("gemini-cli", run.json())[0] == "deny"


def test_a_bad_headless_value_blocks_with_one_line(project: Project) -> None:
    run = _hook(project, "gemini-cli", terminal=True, env=_env(project, SAFEHOLD_HEADLESS="maybe"))
    assert run.code == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert "$SAFEHOLD_HEADLESS is 'maybe'; expected 1" in run.stderr


def test_claude_code_dont_ask_mode_is_headless(project: Project) -> None:
    payload = json.loads(project.payload("claude-code", ASKS["claude-code"]))
    payload["permission_mode"] = "dontAsk"
    done = _run(
        project,
        [sys.executable, "-m", "safehold.cli", "hook", "claude-code"],
        env=_env(project),
        terminal=True,
        stdin=json.dumps(payload),
    )
    verdict, reason = _verdict("claude-code", json.loads(done.stdout))
    assert verdict == "deny" and "(permission mode dontAsk)" in reason


@pytest.mark.parametrize(
    ("flavour", "args", "piped", "expected"),
    [
        ("gemini-cli", ["-p", "fix it", "--approval-mode", "yolo"], False, "`gemini -p` runs"),
        ("gemini-cli", ["--prompt=fix it"], False, "`gemini --prompt` runs"),
        ("gemini-cli", [], True, "`gemini` runs with its input or output piped"),
        ("gemini-cli", [], False, None),
        ("claude-code", ["--print", "fix it"], False, "`claude --print` runs"),
        ("claude-code", ["--model", "opus"], False, None),
    ],
)
def test_the_clis_headless_switch_under_a_terminal(
    project: Project,
    tmp_path: Path,
    flavour: str,
    args: list[str],
    piped: bool,
    expected: str | None,
) -> None:
    """`gemini -p` run from a terminal still has the terminal: the switch says headless."""
    script, _, answer = _fake_cli(project, flavour, tmp_path)
    done = _run(project, [str(script), *args], env=_env(project), terminal=True, cli_piped=piped)
    assert done.returncode == 0, done.stderr
    verdict, reason = _verdict(flavour, json.loads(answer.read_text()))
    if expected is None:
        assert verdict == "ask", reason
    else:
        assert verdict == "deny" and expected in reason, reason


# -- the process tree, read from a fake /proc ------------------------------------------------


def _proc(tmp_path: Path, tree: dict[int, tuple[int, list[str]]]) -> Path:
    proc = tmp_path / "proc"
    for pid, (ppid, argv) in tree.items():
        (proc / str(pid) / "fd").mkdir(parents=True)
        name = os.path.basename(argv[0]) if argv else "?"
        (proc / str(pid) / "stat").write_text(f"{pid} ({name}) S {ppid} 1 1 0 -1\n")
        (proc / str(pid) / "cmdline").write_bytes(b"".join(w.encode() + b"\0" for w in argv))
        for fd in (0, 1):
            (proc / str(pid) / "fd" / str(fd)).symlink_to("/dev/pts/3")
    return proc


def test_the_nearest_cli_process_decides(tmp_path: Path) -> None:
    tree = {
        40: (1, ["gemini", "-p", "outer"]),  # an outer headless gemini does not count...
        50: (40, ["node", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js", "-m", "x"]),
        60: (50, ["/bin/sh", "-c", "safehold hook gemini-cli"]),
        70: (60, ["python3", "-m", "safehold", "hook", "gemini-cli"]),
    }
    proc = _proc(tmp_path, tree)
    # ...the one that runs the hook is interactive ("": found, no headless switch).
    assert _headless._cli_headless("gemini-cli", str(proc), 70) == ""
    # The prompt after `--` is an argument, not the switch.
    (proc / "50" / "cmdline").write_bytes(b"node\0/usr/bin/gemini\0--\0-p\0")
    assert _headless._cli_headless("gemini-cli", str(proc), 70) == ""
    (proc / "50" / "cmdline").write_bytes(b"node\0/usr/bin/gemini\0-p\0hi\0")
    assert _headless._cli_headless("gemini-cli", str(proc), 70) == "`gemini -p` runs headless"
    # The other CLI's names are not this one's.
    assert _headless._cli_headless("claude-code", str(proc), 70) is None


def test_a_process_name_with_spaces_and_parentheses(tmp_path: Path) -> None:
    proc = _proc(tmp_path, {5: (1, ["claude", "-p", "x"]), 9: (5, ["sh"])})
    (proc / "9" / "stat").write_text("9 (a) b (c) S 5 1 1 0 -1\n")
    assert _headless._cli_headless("claude-code", str(proc), 9) == "`claude -p` runs headless"


def test_detect_without_a_terminal_or_parents(tmp_path: Path) -> None:
    proc = tmp_path / "empty"
    proc.mkdir()
    missing = str(tmp_path / "no-tty")
    assert _headless.detect("gemini-cli", tty=missing, proc=str(proc), pid=1234) == "no terminal"
    assert _headless.detect("gemini-cli", tty=os.devnull, proc=str(proc), pid=1234) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1", True), ("YES", True), ("on", True), ("0", False), ("off", False), ("", None)],
)
def test_user_choice(value: str, expected: bool | None) -> None:
    assert _headless.user_choice({"SAFEHOLD_HEADLESS": value}) is expected
    assert _headless.user_choice({}) is None


def test_user_choice_refuses_other_words() -> None:
    with pytest.raises(ValueError, match=r"\$SAFEHOLD_HEADLESS is 'maybe'"):
        _headless.user_choice({"SAFEHOLD_HEADLESS": "maybe"})


def test_an_interactive_cli_without_a_terminal_keeps_the_ask(tmp_path: Path) -> None:
    """An IDE extension or a desktop app runs `claude` with no terminal: Claude Code shows
    its own prompt, so an ask stays an ask; with no CLI process found, no terminal is
    headless; and `claude -p` is headless with or without one."""
    no_tty = str(tmp_path / "no-tty")
    tree = {
        50: (1, ["node", "/opt/ext/@anthropic-ai/claude-code/cli.js", "--output-format", "x"]),
        60: (50, ["/bin/sh", "-c", "safehold hook claude-code"]),
        70: (60, ["python3", "-m", "safehold", "hook", "claude-code"]),
    }
    proc = _proc(tmp_path, tree)
    assert _headless.detect("claude-code", tty=no_tty, proc=str(proc), pid=70) is None
    assert _headless.detect("gemini-cli", tty=no_tty, proc=str(proc), pid=70) == "no terminal"
    (proc / "50" / "cmdline").write_bytes(b"claude\0-p\0hi\0")
    assert _headless.detect("claude-code", tty=no_tty, proc=str(proc), pid=70) == (
        "`claude -p` runs headless"
    )
