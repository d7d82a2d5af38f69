"""The warm hook server answers exactly what the in-process hook answers, and audits as it.

Differential: every recorded payload and every malformed input goes through `safehold hook`
twice, once with `SAFEHOLD_HOOK_SERVER=0` (in-process) and once answered by a running
server; exit code, stdout and stderr must be byte-identical.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from safehold.cli import _hook_client, _hook_server
from tests.adapters.hooks.conftest import PAYLOADS, HookRun, Project
from tests.adapters.hooks.test_hook_failures import CASES, _good

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets")


class Server:
    """A hook server in its own runtime directory, started by the first hook call."""

    def __init__(self, project: Project, runtime: Path) -> None:
        self.project = project
        self.runtime = runtime

    def env(self, **extra: str) -> dict[str, str]:
        return self.project.env(
            SAFEHOLD_HOOK_SERVER="1", XDG_RUNTIME_DIR=str(self.runtime), **extra
        )

    def start(self) -> None:
        payload = self.project.payload("claude-code", "read_source")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.project.hook("claude-code", payload, env=self.env()).code == 0
            if list(self.runtime.glob("safehold/hook-*.sock")):
                return
            time.sleep(0.2)
        raise AssertionError("the hook server did not start")

    def pids(self) -> list[int]:
        return [int(p.read_text().split()[0]) for p in self.runtime.glob("safehold/hook-*.lock")]

    def stop(self) -> None:
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)


@pytest.fixture
def server(project: Project) -> Iterator[Server]:
    # Short: a Unix socket path must fit in about 100 bytes.
    runtime = Path(tempfile.mkdtemp(prefix="sh-", dir="/tmp"))
    running = Server(project, runtime)
    try:
        running.start()
        yield running
    finally:
        running.stop()
        shutil.rmtree(runtime, ignore_errors=True)


def _both(project: Project, server: Server, flavour: str, stdin: str) -> tuple[HookRun, HookRun]:
    alone = project.hook(flavour, stdin, env=project.env(SAFEHOLD_HOOK_SERVER="0"))
    served = project.hook(flavour, stdin, env=server.env())
    return alone, served


def test_every_recorded_payload_gets_the_in_process_answer(
    project: Project, server: Server
) -> None:
    for flavour in ("claude-code", "gemini-cli"):
        for path in sorted((PAYLOADS / flavour).glob("*.json")):
            alone, served = _both(project, server, flavour, project.payload(flavour, path.stem))
            assert served == alone, (flavour, path.stem)
    assert len(server.pids()) == 1


def test_every_malformed_input_blocks_as_in_process(project: Project, server: Server) -> None:
    # One CLI is enough: the transport does not read the payload, and each in-process run
    # costs a second on a loaded machine.
    for label, make, _ in CASES:
        alone, served = _both(project, server, "claude-code", make(_good(project, "claude-code")))
        assert served == alone, label
        assert served.code == 2


def test_the_callers_environment_and_directory_decide(project: Project, server: Server) -> None:
    # A relative --config resolves against the caller's directory, $SAFEHOLD_CONFIG and
    # $CLAUDE_PROJECT_DIR are the caller's: the server has none of them itself.
    (project.root / "strict.toml").write_text('mode = "read-only"\n')
    payload = project.payload("claude-code", "read_source")
    for args, extra in (
        (("--config", "strict.toml"), {}),
        ((), {"SAFEHOLD_CONFIG": str(project.root / "strict.toml")}),
        ((), {"CLAUDE_PROJECT_DIR": str(project.home)}),
    ):
        alone = project.hook("claude-code", payload, *args, env=project.env(**extra))
        served = project.hook("claude-code", payload, *args, env=server.env(**extra))
        assert served == alone, (args, extra)
    missing = project.hook("claude-code", payload, "--config", "nope.toml", env=server.env())
    assert missing.code == 2 and "nope.toml" in missing.stderr


def test_a_hook_answered_by_the_server_loads_no_engine(project: Project, server: Server) -> None:
    probe = (
        "import json, sys\nfrom safehold.cli import main\ncode = main(['hook', 'claude-code'])\n"
        "sys.stdout.flush()\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe],
        input=project.payload("claude-code", "bash_ls").encode(),
        capture_output=True,
        cwd=project.root,
        env=server.env(),
        timeout=120,
        check=True,
    )
    assert json.loads(run.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"
    loaded = set(json.loads(run.stderr.splitlines()[-1]))
    assert not {"pydantic", "argparse", "safehold.policy.engine"} & loaded


@pytest.mark.parametrize("served", [False, True], ids=["in-process", "server"])
def test_a_hook_writes_the_audit_record_the_config_asks_for(
    project: Project, server: Server, served: bool
) -> None:
    log = project.root.parent / "audit.jsonl"
    # The person's own file: a project file that sets `[audit]` would need their trust.
    own = project.root.parent / "mine.toml"
    own.write_text(f'[audit]\npath = "{log}"\n')
    env = {**(server.env() if served else project.env()), "SAFEHOLD_CONFIG": str(own)}
    for name in ("bash_ls", "bash_rm_home"):
        run = project.hook("claude-code", project.payload("claude-code", name), env=env)
        assert run.code == 0, run.stderr
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["tool"], r["verdict"]) for r in records] == [("Bash", "ask"), ("Bash", "deny")]
    session = json.loads(project.payload("claude-code", "bash_ls"))["session_id"]
    assert {r["session"] for r in records} == {session}
    assert oct(log.stat().st_mode & 0o777) == "0o600"


def test_an_audit_log_that_cannot_be_opened_blocks(project: Project) -> None:
    own = project.root.parent / "mine.toml"
    own.write_text(f'[audit]\npath = "{project.root}"\n')
    env = {**project.env(), "SAFEHOLD_CONFIG": str(own)}
    run = project.hook("claude-code", project.payload("claude-code", "read_source"), env=env)
    assert run.code == 2 and "audit.path" in run.stderr


def test_an_unknown_tool_is_named_at_every_call(project: Project, server: Server) -> None:
    payload = project.payload("claude-code", "unknown_tool")
    runs = [project.hook("claude-code", payload, env=server.env()) for _ in range(2)]
    assert runs[0] == runs[1]
    assert "`FutureTool` is not in safehold's tool table" in runs[1].stderr


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


def test_one_server_per_socket_and_garbage_does_not_stop_it(
    project: Project, server: Server
) -> None:
    (pid,) = server.pids()
    (sock,) = server.runtime.glob("safehold/hook-*.sock")
    second = subprocess.run(
        [sys.executable, "-m", "safehold.cli._hook_server", str(sock)[: -len(".sock")]],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert second.returncode == 0 and server.pids() == [pid]
    for garbage in (b"", b"\xff" * 10, b"\0\0\0\x05hello"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(str(sock))
            conn.sendall(garbage)
            conn.shutdown(socket.SHUT_WR)
            conn.recv(100)
    alone, served = _both(project, server, "claude-code", project.payload("claude-code", "bash_ls"))
    assert served == alone and _alive(pid)


def test_a_server_whose_socket_is_removed_stops(server: Server) -> None:
    (pid,) = server.pids()
    (sock,) = server.runtime.glob("safehold/hook-*.sock")
    sock.unlink()
    assert _wait_gone(pid, 30)


def _request(key: str) -> bytes:
    return _hook_client._request(key, ["hook", "claude-code"], b"{}")


def test_a_request_for_another_key_is_refused() -> None:
    assert _hook_server._answer(_request("other"), "mine", {}) == (b"KY", False)


def test_a_server_whose_code_changed_stops(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("x = 1\n")
    st = module.stat()
    stamps = {str(module): (st.st_mtime_ns, st.st_size)}
    module.write_text("x = 22\n")
    assert _hook_server._answer(_request("k"), "k", stamps) == (b"ST", True)


def test_only_plain_hook_commands_take_the_server_path() -> None:
    plain = _hook_client.plain_hook
    assert plain(["hook", "claude-code"])
    assert plain(["hook", "gemini-cli", "--config", "c.toml", "--ask-as-deny"])
    assert plain(["hook", "claude-code", "--config=c.toml"])
    assert not plain(["hook", "claude-code", "--help"])
    assert not plain(["hook", "cursor"])
    assert not plain(["hook", "claude-code", "--config"])
    assert not plain(["check", "ls"])


def test_doctor_shows_the_server_and_stop_ends_it_cleanly(project: Project, server: Server) -> None:
    (pid,) = server.pids()
    (sock,) = server.runtime.glob("safehold/hook-*.sock")

    def doctor(*words: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "safehold.cli", "doctor", *words],
            capture_output=True,
            text=True,
            cwd=project.root,
            env=server.env(),
            timeout=120,
            check=False,
        )
        return done.stdout

    assert f"hook server: running, pid {pid}, {sock}" in doctor()
    assert f"hook server: stopped pid {pid}" in doctor("--stop")
    assert _wait_gone(pid, 30)
    # SIGTERM took the socket and the lock file with it.
    assert list(server.runtime.glob("safehold/hook-*")) == []
    assert f"hook server: not running ({sock})" in doctor()


def test_the_server_answers_for_the_callers_terminal(project: Project, server: Server) -> None:
    """The server has no terminal: what counts is the hook process's (headless or not)."""
    from tests.adapters.hooks.test_headless import ASKS, _run, _verdict

    probe = (
        "import json, sys\nfrom safehold.cli import main\ncode = main(['hook', 'gemini-cli'])\n"
        "sys.stdout.flush()\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    )
    env = server.env()
    del env["SAFEHOLD_HEADLESS"]  # tests/conftest.py pins it; here the hook looks
    for terminal, expected in ((True, "ask"), (False, "deny")):
        done = _run(
            project,
            [sys.executable, "-c", probe],
            env=env,
            terminal=terminal,
            stdin=project.payload("gemini-cli", ASKS["gemini-cli"]),
        )
        assert done.returncode == 0, done.stderr
        assert _verdict("gemini-cli", json.loads(done.stdout))[0] == expected
        loaded = set(json.loads(done.stderr.splitlines()[-1]))
        assert "safehold.policy.engine" not in loaded  # the server answered


def test_warm_starts_the_server_and_says_nothing(project: Project) -> None:
    """`hook warm` (a CLI's SessionStart hook): exit 0, no output, a server comes up."""
    runtime = Path(tempfile.mkdtemp(prefix="sh-", dir="/tmp"))
    warm = Server(project, runtime)
    try:
        off = subprocess.run(
            [sys.executable, "-m", "safehold.cli", "hook", "warm"],
            capture_output=True,
            env={**warm.env(), "SAFEHOLD_HOOK_SERVER": "0"},
            timeout=60,
            check=False,
        )
        assert (off.returncode, off.stdout, off.stderr) == (0, b"", b"")
        assert not list(runtime.glob("safehold/hook-*"))  # turned off: nothing started
        on = subprocess.run(
            [sys.executable, "-m", "safehold.cli", "hook", "warm"],
            capture_output=True,
            env=warm.env(),
            timeout=60,
            check=False,
        )
        assert (on.returncode, on.stdout, on.stderr) == (0, b"", b"")
        deadline = time.monotonic() + 60
        while not list(runtime.glob("safehold/hook-*.sock")) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert list(runtime.glob("safehold/hook-*.sock")), "hook warm started no server"
        # The next hook call is answered by it: the engine is not loaded in the caller.
        probe = (
            "import json, sys\nfrom safehold.cli import main\ncode = main(['hook', 'claude-code'])"
            "\nsys.stdout.flush()\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
        )
        run = subprocess.run(
            [sys.executable, "-c", probe],
            input=project.payload("claude-code", "read_source").encode(),
            capture_output=True,
            cwd=project.root,
            env=warm.env(),
            timeout=120,
            check=True,
        )
        assert "safehold.policy.engine" not in json.loads(run.stderr.splitlines()[-1])
    finally:
        warm.stop()
        shutil.rmtree(runtime, ignore_errors=True)
