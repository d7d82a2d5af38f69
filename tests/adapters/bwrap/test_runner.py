"""The runner's contract: exit codes, output capture and caps, timeouts, env, async, mode none."""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path

import pytest

from safehold.adapters.bwrap import run_sandboxed, run_sandboxed_sync
from safehold.policy.sandbox_config import DEFAULT_ENV_ALLOWLIST
from tests.adapters.bwrap.conftest import Runner, make_config, pids_with_marker


@pytest.mark.parametrize("code", [0, 1, 42, 255])
def test_exit_codes_come_back(run: Runner, code: int) -> None:
    result = run(f"exit {code}")
    assert result.exit_code == code
    assert result.sandboxed
    assert not result.timed_out


@pytest.mark.parametrize(("sig", "expected"), [(9, 137), (15, 143)])
def test_signal_death_is_128_plus_n(run: Runner, sig: int, expected: int) -> None:
    assert run(f"kill -{sig} $$").exit_code == expected


def test_stdout_and_stderr_are_separate_bytes(run: Runner) -> None:
    result = run("printf 'out\\377'; printf err >&2")
    assert result.stdout == b"out\xff"
    assert result.stderr == b"err"
    assert result.stdout_text == "out\ufffd"


def test_argv_form_is_not_shell_parsed(run: Runner) -> None:
    result = run(["/bin/echo", "a;b", "$HOME", "'q'"])
    assert result.stdout == b"a;b $HOME 'q'\n"


def test_missing_program_is_exit_127_not_a_sandbox_error(run: Runner) -> None:
    result = run(["definitely-not-a-program-xyz"])
    assert result.exit_code == 127
    assert b"definitely-not-a-program-xyz" in result.stderr


def test_stdin_is_dev_null(run: Runner) -> None:
    result = run("cat; echo rc=$?")
    assert result.stdout == b"rc=0\n"


def test_cwd_is_the_workspace(run: Runner, ws: Path) -> None:
    sub = ws / "sub dir"
    sub.mkdir()
    assert run("pwd", cwd=sub).stdout.decode().strip() == os.path.realpath(sub)


@pytest.mark.timeout(60)  # a deadlock fails as a hang, not as a slow measurement
def test_output_is_capped_while_draining(run: Runner) -> None:
    # 50 MB on each stream with a 1 MiB cap: no deadlock, both truncated, the command
    # still finishes normally (no SIGPIPE: it exits 0 after writing everything).
    result = run(
        "head -c 50000000 /dev/zero; head -c 50000000 /dev/zero >&2; echo done >&2; exit 7",
        max_output_bytes=1 << 20,
    )
    assert result.exit_code == 7
    assert result.truncated
    assert len(result.stdout) == 1 << 20
    assert len(result.stderr) == 1 << 20
    assert not result.timed_out  # the runner's own 20 s timeout did not have to end it


def test_concurrent_output_on_both_streams_does_not_deadlock(run: Runner) -> None:
    cmd = "head -c 5000000 /dev/zero >&2 & head -c 5000000 /dev/zero; wait"
    result = run(cmd, max_output_bytes=10_000_000)
    assert (len(result.stdout), len(result.stderr)) == (5_000_000, 5_000_000)
    assert not result.truncated


def test_timeout_kills_and_reports_none(run: Runner) -> None:
    result = run("echo started; sleep 30", timeout=0.5)
    assert result.timed_out
    assert result.exit_code is None
    assert result.stdout == b"started\n"


def test_infinite_output_with_timeout(run: Runner) -> None:
    result = run("yes", timeout=0.5, max_output_bytes=4096)
    assert result.timed_out and result.truncated
    assert len(result.stdout) == 4096


def test_parent_secret_is_absent_and_allowlist_present(
    run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAFEHOLD_TEST_SECRET", "sk-live-123")
    monkeypatch.setenv("LANG", "C.UTF-8")
    result = run("env", env={"EXTRA_VAR": "given"})
    lines = set(result.stdout.decode().splitlines())
    assert not any("sk-live-123" in line for line in lines)
    assert "LANG=C.UTF-8" in lines
    assert "EXTRA_VAR=given" in lines
    assert "TMPDIR=/tmp" in lines


_HOST_SECRETS = {
    "SSH_AUTH_SOCK": "/run/user/1000/ssh-agent.sock",
    "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-value",
    "AWS_SESSION_TOKEN": "aws-session-value",
    "GITHUB_TOKEN": "ghp_example",
    "LD_PRELOAD": "/tmp/evil.so",
    "PYTHONPATH": "/tmp/evil",
}


def test_the_environment_is_exactly_the_allow_list_plus_the_documented_defaults(
    run: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not "one named secret is absent": every name inside is accounted for, so passing
    # SSH_AUTH_SOCK, every AWS_* or the whole environment through is caught.
    for name, value in _HOST_SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("TERM", "xterm-test")
    monkeypatch.delenv("TZ", raising=False)
    result = run(["/usr/bin/env", "-0"], env={"EXTRA_VAR": "given"})
    inside = dict(e.partition("=")[::2] for e in result.stdout.decode().split("\0") if e)
    allowed = {n for n in DEFAULT_ENV_ALLOWLIST if n in os.environ}
    # docs/sandbox.md: PATH and LANG get defaults, TMPDIR is the private /tmp, `env=` adds;
    # the limits shell (`bash -c ... exec "$@"`) exports PWD and SHLVL as any bash does.
    documented = {"PATH", "LANG", "TMPDIR", "EXTRA_VAR"}
    shell = {"PWD", "SHLVL"}
    assert set(inside) == allowed | documented | shell
    assert inside["TERM"] == "xterm-test" and inside["TMPDIR"] == "/tmp"
    assert inside["EXTRA_VAR"] == "given"
    for value in _HOST_SECRETS.values():
        assert value not in result.stdout.decode()


def test_bad_arguments_raise_value_errors(ws: Path) -> None:
    cfg = make_config()
    with pytest.raises(ValueError, match="command"):
        run_sandboxed_sync("", cwd=str(ws), config=cfg)
    with pytest.raises(ValueError, match="timeout"):
        run_sandboxed_sync("true", cwd=str(ws), config=cfg, timeout=-1)
    with pytest.raises(ValueError, match="max_output_bytes"):
        run_sandboxed_sync("true", cwd=str(ws), config=cfg, max_output_bytes=0)
    with pytest.raises(TypeError, match="command"):
        run_sandboxed_sync(42, cwd=str(ws), config=cfg)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="env"):
        run_sandboxed_sync("true", cwd=str(ws), config=cfg, env={"A=B": "x"})


async def test_async_runner_returns_the_same_result(ws: Path) -> None:
    result = await run_sandboxed("echo async; exit 3", cwd=str(ws), config=make_config())
    assert (result.exit_code, result.stdout, result.sandboxed) == (3, b"async\n", True)


async def test_async_runs_concurrently(ws: Path) -> None:
    cfg = make_config()
    results = await asyncio.gather(
        *(run_sandboxed(f"sleep 0.2; echo {i}", cwd=str(ws), config=cfg) for i in range(4))
    )
    assert [r.stdout for r in results] == [f"{i}\n".encode() for i in range(4)]


async def _cancel_once_seen(ws: Path, marker: str, *, polls: int, pause: float) -> bool:
    """Start `sleep 60` in the sandbox, cancel the task as soon as a process with `marker`
    shows up (or after `polls` looks), and wait for the cancellation; whether it was seen."""
    task = asyncio.create_task(
        run_sandboxed(f"sleep 60; : {marker}", cwd=str(ws), config=make_config(), timeout=0)
    )
    seen = False
    for _ in range(polls):
        await asyncio.sleep(pause)
        if pids_with_marker(marker):
            seen = True
            break
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return seen


async def test_cancelling_the_task_kills_the_sandbox(ws: Path) -> None:
    marker = f"cancel-{uuid.uuid4().hex}"
    seen = await _cancel_once_seen(ws, marker, polls=200, pause=0.02)
    assert seen, "the sandboxed command never started"
    assert pids_with_marker(marker) == []


async def test_cancelling_right_after_the_start_leaves_no_process(ws: Path) -> None:
    """Cancelled as soon as bwrap shows up, before it reports its child's pid: bwrap's child
    (the sandbox's pid 1) used to live on, reparented, when its `--die-with-parent` missed
    bwrap's death (seen under load: 2 runs in 10). The runner stops bwrap and kills its
    children, and waits for the sandbox's pid 1 to exit."""
    for _ in range(5):
        marker = f"early-{uuid.uuid4().hex}"
        await _cancel_once_seen(ws, marker, polls=500, pause=0.002)
        assert pids_with_marker(marker) == []


def test_mode_none_runs_unsandboxed_and_says_so(
    run: Runner, ws: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (ws / "out.txt").write_text("x")
    with caplog.at_level("WARNING", logger="safehold.sandbox"):
        result = run("cat /proc/self/status | grep ^Seccomp:; pwd", mode="none")
    assert not result.sandboxed
    assert result.stdout.split()[1] == b"0"  # no seccomp filter: really unsandboxed
    assert result.stdout.split()[2] == os.fsencode(os.path.realpath(ws))
    assert "WITHOUT a sandbox" in caplog.text


def test_non_executable_program_is_exit_126(run: Runner, ws: Path) -> None:
    (ws / "script.sh").write_text("#!/bin/sh\necho hi\n")
    assert run([str(ws / "script.sh")]).exit_code == 126


@pytest.mark.timeout(60)  # waiting out the `sleep 30` would still pass; a hang fails
def test_mode_none_times_out_a_command_that_closed_its_output(run: Runner) -> None:
    result = run("exec >&- 2>&-; sleep 300", mode="none", timeout=0.3)
    assert result.timed_out and result.exit_code is None
    assert run("exec >&- 2>&-; sleep 0.2; exit 5", mode="none").exit_code == 5
