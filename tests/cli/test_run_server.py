"""`safehold run` planned by the warm hook server (`safehold.cli._run_client`).

- The client loads none of the engine: no pydantic, no config models, no planner.
- Differential: every case runs once in-process (`SAFEHOLD_HOOK_SERVER=0`) and once planned
  by a running server, in twin workspaces; exit code, stdout and stderr must be identical
  (the workspace's path aside), the after-run quarantine included.
- A server that answers garbage, or an argv that is not a sandbox's, is never obeyed: the
  command runs in-process instead, and what the reply asked for never runs.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from safehold.cli import _hook_client, _hook_server, _run_client
from safehold.cli._run_client import WarmPlan, decode_plan, encode_plan

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets")

_HEAVY = ("pydantic", "pydantic_core", "pathspec", "tomllib", "argparse", "dataclasses")
_SLOW_STDLIB = (
    "subprocess",
    "selectors",
    "json",
    "re",
    "enum",
    "signal",
    "threading",
    "queue",
    "contextlib",
    "collections",
    "logging",
    "typing",
)
"""What a fresh interpreter has not loaded and costs the warm client a good part of its
start: the client spawns bwrap with `os.posix_spawn`, polls with `select.poll`, reads bwrap's
status with `json`'s C scanner."""
_HEAVY_SAFEHOLD = (
    "safehold.policy.config",
    "safehold.config_discovery",
    "safehold.cli.run_cmd",
    "safehold.adapters.bwrap._plan",
    "safehold.adapters.bwrap._runner",
)


class Warm:
    """A hook server in its own runtime directory, for one HOME."""

    def __init__(self, runtime: Path, home: Path) -> None:
        self.runtime = runtime
        self.home = home

    def env(self, *, server: bool = True) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            HOME=str(self.home),
            XDG_RUNTIME_DIR=str(self.runtime),
            SAFEHOLD_HOOK_SERVER="1" if server else "0",
        )
        return env

    def run(self, *args: str, cwd: Path, server: bool = True) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "safehold.cli", "run", *args],
            capture_output=True,
            cwd=cwd,
            env=self.env(server=server),
            timeout=120,
            check=False,
        )

    def pids(self) -> list[int]:
        return [int(p.read_text().split()[0]) for p in self.runtime.glob("safehold/hook-*.lock")]


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Warm]:
    # Short: a Unix socket path must fit in about 100 bytes.
    runtime = Path(tempfile.mkdtemp(prefix="sh-", dir="/tmp"))
    server = Warm(runtime, tmp_path_factory.mktemp("home"))
    try:
        subprocess.run(
            [sys.executable, "-m", "safehold.cli", "hook", "warm"],
            env=server.env(),
            timeout=60,
            check=True,
        )
        deadline = time.monotonic() + 60
        while not list(runtime.glob("safehold/hook-*.sock")):
            assert time.monotonic() < deadline, "the hook server did not start"
            time.sleep(0.1)
        yield server
    finally:
        for pid in server.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        shutil.rmtree(runtime, ignore_errors=True)


def test_a_warm_run_loads_no_engine(warm: Warm, tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from safehold.cli import main\n"
        "code = main(['run', '--', 'bash', '-c', 'echo hi; exit 3'])\n"
        f"heavy = [m for m in sys.modules if m.split('.')[0] in {_HEAVY + _SLOW_STDLIB!r} "
        f"or m in {_HEAVY_SAFEHOLD!r}]\n"
        "print(code, sorted(heavy), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=warm.env(),
        timeout=120,
        check=False,
    )
    assert out.stdout == "hi\n"
    assert out.stderr == "3 []\n"


def _workspace(root: Path) -> Path:
    root.mkdir()
    (root / "notes.txt").write_text("not a program\n")
    (root / "bad.toml").write_text("[sandbox]\nmode = 'chroot'\n")
    (root / "nobwrap.toml").write_text(f'[sandbox]\nbwrap_path = "{root}/no-such-bwrap"\n')
    (root / "none.toml").write_text("[sandbox]\nmode = 'none'\n")
    return root


_CASES = [
    ["--", "bash", "-c", "echo out; echo err >&2; exit 7"],
    ["--", "bash", "-c", "kill -TERM $$"],
    ["--", "no-such-program-here", "x"],
    ["--", "./notes.txt"],
    ["--timeout", "0.5", "--", "sleep", "30"],
    ["--timeout", "nan", "--", "true"],
    [],
    ["--cwd", "missing", "--", "true"],
    ["--bogus", "--", "true"],
    ["--help"],
    ["--config", "bad.toml", "--", "true"],
    ["--config", "nobwrap.toml", "--", "true"],
    ["--config", "none.toml", "--", "bash", "-c", "echo unconfined"],
    ["--", "bash", "-c", "mkdir -p .git/hooks .husky && echo x > .git/hooks/pre-commit"],
    ["--", "bash", "-c", "echo $HOME; env | sort; cat /proc/self/status | grep ^Seccomp"],
    ["--network", "--", "bash", "-c", "readlink /proc/self/ns/net"],
    ["--", "bash", "-c", "head -c 300000 /dev/zero | tr '\\0' x; exit 0"],
]


@pytest.mark.parametrize("args", _CASES, ids=[" ".join(c) or "(none)" for c in _CASES])
def test_warm_runs_answer_as_in_process(warm: Warm, tmp_path: Path, args: list[str]) -> None:
    alone_ws = _workspace(tmp_path / "a")
    warm_ws = _workspace(tmp_path / "b")
    alone = warm.run(*args, cwd=alone_ws, server=False)
    served = warm.run(*args, cwd=warm_ws, server=True)
    assert served.returncode == alone.returncode
    same = (
        served.stdout.replace(bytes(warm_ws), b"WS"),
        served.stderr.replace(bytes(warm_ws), b"WS"),
    )
    assert same == (
        alone.stdout.replace(bytes(alone_ws), b"WS"),
        alone.stderr.replace(bytes(alone_ws), b"WS"),
    )
    assert sorted(p.name for p in warm_ws.iterdir()) == sorted(p.name for p in alone_ws.iterdir())


def test_the_server_only_plans_runs_for_its_key_and_credentials() -> None:
    def fields(key: str, words: list[str]) -> list[bytes]:
        request = _hook_client._request(key, words, b"", _run_client.RUN_PROTOCOL)
        return request[4:].split(b"\0")

    mine = _run_client.run_key("k")
    assert _hook_server._answer_run(fields("k", ["run", "true"]), "k", {})[0][:2] == b"KY"
    other_groups = mine.replace(repr(sorted(os.getgroups())), repr([*os.getgroups(), 99999]))
    assert other_groups != mine
    assert _hook_server._answer_run(fields(other_groups, ["run", "true"]), "k", {})[0][:2] == b"KY"
    reply, pending, stop = _hook_server._answer_run(fields(mine, ["check", "ls"]), "k", {})
    assert (reply[:2], pending, stop) == (b"NO", None, False)
    # A run request on the hook protocol is refused too: that path runs hooks only.
    hook = _hook_client._request("k", ["run", "--", "true"], b"")
    assert _hook_server._answer(hook, "k", {}) == (b"NO", False)


class _Liar:
    """A server at the socket the client asks, answering every request with `reply`."""

    def __init__(self, path: str, reply: bytes) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(8)
        self.reply = reply
        self.asked = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn:
                self.asked += 1
                with contextlib.suppress(OSError):
                    # The whole request: a socket closed with unread data resets the peer.
                    size = int.from_bytes(conn.recv(4, socket.MSG_WAITALL), "big")
                    conn.recv(size, socket.MSG_WAITALL)
                    conn.sendall(self.reply)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self.thread.join(10)


def _plan(head: list[str], tail: list[str]) -> WarmPlan:
    return WarmPlan(
        head=head,
        tail=tail,
        env={"PATH": "/usr/bin:/bin"},
        program=b"\0" * 8,
        timeout=None,
        cap=1 << 20,
        max_processes=64,
        bwrap=head[0],
        report_timeout=None,
    )


def _framed(status: bytes, body: bytes) -> bytes:
    return status + len(body).to_bytes(4, "big") + body


@pytest.mark.parametrize(
    "kind", ["not-a-sandbox", "garbage", "cut-short", "unknown-status", "no-after-run"]
)
def test_a_server_that_answers_garbage_is_never_obeyed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    runtime = Path(tempfile.mkdtemp(prefix="sh-", dir="/tmp"))
    home = tmp_path / "home"
    home.mkdir()
    ws = tmp_path / "ws"
    ws.mkdir()
    marker = tmp_path / "obeyed"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    path = _hook_client.socket_path(_hook_client.server_key())
    assert path is not None
    plain = _plan(["/bin/sh", "-c", f"touch {marker}; exit 9"], ["--chdir", "/", "--", "x"])
    replies = {
        # A well-formed plan whose argv is not bwrap with the sandbox's fixed flags.
        "not-a-sandbox": _framed(b"PL", encode_plan(plain)),
        "garbage": _framed(b"PL", b"\xff\0\x01garbage\0\0"),
        "cut-short": _framed(b"PL", encode_plan(plain))[:20],
        "unknown-status": _framed(b"ZZ", b"exit 0"),
        # A real sandbox argv, but the server never answers the after-run check.
        "no-after-run": b"",
    }
    liar = None if kind == "no-after-run" else _Liar(path + ".sock", replies[kind])
    try:
        if liar is None:
            out = _without_after_run(path, ws, runtime, home)
        else:
            out = subprocess.run(
                [sys.executable, "-m", "safehold.cli", "run", "--", "bash", "-c", "exit 5"],
                capture_output=True,
                text=True,
                cwd=ws,
                env={**os.environ, "SAFEHOLD_HOOK_SERVER": "1"},
                timeout=120,
                check=False,
            )
            assert liar.asked == 1
            assert (out.returncode, out.stdout, out.stderr) == (5, "", "")
        assert not marker.exists()
    finally:
        if liar is not None:
            liar.close()
        shutil.rmtree(runtime, ignore_errors=True)
    if liar is None:
        assert out.returncode == 5
        assert "after-run check of the writable roots failed" in out.stderr


def _without_after_run(
    path: str, ws: Path, runtime: Path, home: Path
) -> subprocess.CompletedProcess[str]:
    """A real server's plan, relayed by a server that hangs up instead of the after-run."""
    env = {**os.environ, "SAFEHOLD_HOOK_SERVER": "1"}
    real = subprocess.Popen(
        [sys.executable, "-m", "safehold.cli._hook_server", path + "-real"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(path + "-real.sock"):
            assert time.monotonic() < deadline and real.poll() is None, "no server"
            time.sleep(0.1)
        relay = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        relay.bind(path + ".sock")
        relay.listen(1)
        client = subprocess.Popen(
            [sys.executable, "-m", "safehold.cli", "run", "--", "bash", "-c", "exit 5"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ws,
            env=env,
        )
        conn, _ = relay.accept()
        with conn, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as upstream:
            upstream.connect(path + "-real.sock")
            size = int.from_bytes(conn.recv(4, socket.MSG_WAITALL), "big")
            upstream.sendall(size.to_bytes(4, "big") + conn.recv(size, socket.MSG_WAITALL))
            head = upstream.recv(6, socket.MSG_WAITALL)
            body = upstream.recv(int.from_bytes(head[2:], "big"), socket.MSG_WAITALL)
            assert head[:2] == b"PL", head + body
            conn.sendall(head + body)
            assert conn.recv(1) == b"D"  # the client ran it and asks for the check
        relay.close()
        stdout, stderr = client.communicate(timeout=120)
        return subprocess.CompletedProcess(client.args, client.returncode, stdout, stderr)
    finally:
        real.send_signal(signal.SIGTERM)
        real.wait(30)


_text = st.text(st.characters(min_codepoint=1, max_codepoint=0xD7FF))  # no NUL, no surrogates


@given(
    head=st.lists(_text, max_size=5),
    tail=st.lists(_text, max_size=5),
    env=st.dictionaries(_text.filter(lambda k: k != "" and "=" not in k), _text, max_size=4),
    program=st.binary(max_size=64).map(lambda b: b[: len(b) // 8 * 8]),
    timeout=st.none() | st.floats(min_value=0.001, max_value=1e6),
    cap=st.integers(1, 1 << 40),
    max_processes=st.integers(1, 1 << 20),
)
def test_a_plan_round_trips_or_is_refused(
    head: list[str],
    tail: list[str],
    env: dict[str, str],
    program: bytes,
    timeout: float | None,
    cap: int,
    max_processes: int,
) -> None:
    bwrap = "/usr/bin/bwrap"
    full_head = [bwrap, *_run_client.BASE_FLAGS, *head]
    full_tail = ["--chdir", "/w", "--", "cmd", *tail]
    plan = WarmPlan(
        head=full_head,
        tail=full_tail,
        env=env,
        program=program,
        timeout=timeout,
        cap=cap,
        max_processes=max_processes,
        bwrap=bwrap,
        report_timeout=timeout,
    )
    decoded = decode_plan(encode_plan(plan))
    assert decoded == (plan if program else None)  # no seccomp program: refused


@given(st.binary(max_size=300))
def test_no_reply_makes_the_client_run_something_unsandboxed(body: bytes) -> None:
    plan = decode_plan(body)
    assert plan is None or (
        plan.head[0] == plan.bwrap and tuple(plan.head[1:5]) == _run_client.BASE_FLAGS
    )


def _running(seconds: str) -> bool:
    """Whether a `sleep SECONDS` process runs (the sandboxed one: its argv, NUL-separated)."""
    wanted = b"sleep\0" + seconds.encode() + b"\0"
    for pid in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if pid.isdigit() and Path(f"/proc/{pid}/cmdline").read_bytes().endswith(wanted):
                return True
    return False


def _sigint_as_at_a_terminal() -> None:
    # CI runs the slow tests as a background job of a non-interactive shell: they start with
    # SIGINT ignored, a child inherits that, and Python installs no KeyboardInterrupt handler
    # for an ignored SIGINT. The child gets the disposition Ctrl-C at a terminal would find.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("server", [False, True], ids=["in-process", "warm"])
def test_ctrl_c_kills_the_sandbox_and_exits_130(warm: Warm, tmp_path: Path, server: bool) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    marker = f"{600 + time.time_ns() % 1000}.{os.getpid()}"  # sleep's seconds: unique here
    script = f"touch started; sleep {marker}; touch finished"
    proc = subprocess.Popen(
        [sys.executable, "-m", "safehold.cli", "run", "--", "bash", "-c", script],
        cwd=ws,
        env=warm.env(server=server),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_sigint_as_at_a_terminal,
    )
    try:
        deadline = time.monotonic() + 60
        while not ((ws / "started").exists() and _running(marker)):  # bash forks sleep after
            assert time.monotonic() < deadline and proc.poll() is None, "the command never ran"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (proc.returncode, stdout, stderr) == (130, b"", b"error: interrupted\n")
    deadline = time.monotonic() + 30
    while _running(marker):  # the sandbox dies with its runner: its pid 1 and the rest
        assert time.monotonic() < deadline, "the sandboxed command outlived its runner"
        time.sleep(0.05)
    assert not (ws / "finished").exists()
