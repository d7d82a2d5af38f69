"""Escape suite, isolation: network, unix sockets, TIOCSTI, /proc, process teardown.

Each test observes the effect from the host: the listener saw (or did not see) a
connection, the host's /proc has no survivor, and so on.
"""

from __future__ import annotations

import os
import pty
import socket
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.adapters.bwrap.conftest import Runner, pids_with_marker


class Listener:
    """A host TCP listener on 127.0.0.1 that records whether anyone connected."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(5)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.sendall(b"HELLO-FROM-HOST\n")
            conn.close()

    def close(self) -> None:
        self._stop = True
        self._thread.join()
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    try:
        yield server
    finally:
        server.close()


def _python(code: str) -> list[str]:
    # The base interpreter, not the venv's: CI keeps its venv under /tmp, which the sandbox
    # replaces by a private tmpfs. The scripts only need the standard library (-I).
    return [os.path.realpath(sys.executable), "-I", "-c", textwrap.dedent(code)]


def test_network_off_cannot_reach_a_host_loopback_listener(run: Runner, listener: Listener) -> None:
    result = run(f"exec 3<>/dev/tcp/127.0.0.1/{listener.port} && cat <&3")
    assert result.exit_code != 0
    assert b"HELLO-FROM-HOST" not in result.stdout
    time.sleep(0.3)
    assert listener.accepted == 0


def test_network_on_reaches_the_host_listener(run: Runner, listener: Listener) -> None:
    result = run(f"exec 3<>/dev/tcp/127.0.0.1/{listener.port} && head -1 <&3", network=True)
    assert result.stdout == b"HELLO-FROM-HOST\n"
    assert listener.accepted == 1


def test_af_unix_socket_creation_is_eperm_but_socketpair_works(run: Runner) -> None:
    code = """
        import errno, socket
        a, b = socket.socketpair()
        a.sendall(b"pair-ok"); print(b.recv(10).decode())
        try:
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        except OSError as e:
            print("unix", errno.errorcode[e.errno])
        try:
            socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        except OSError as e:
            print("inet", errno.errorcode[e.errno])
    """
    # AF_INET too: without the network there is nothing to reach, so it is refused.
    assert run(_python(code)).stdout.split() == [b"pair-ok", b"unix", b"EPERM", b"inet", b"EPERM"]


def test_host_unix_socket_is_unreachable(run: Runner) -> None:
    path = Path("/var/tmp") / f"safehold-{uuid.uuid4().hex[:8]}.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    server.settimeout(0.5)
    try:
        code = f"""
            import socket
            try:
                s = socket.socket(socket.AF_UNIX); s.connect({str(path)!r}); print("CONNECTED")
            except OSError as e:
                print("blocked", e.errno)
        """
        assert run(_python(code)).stdout.startswith(b"blocked")
        with pytest.raises(TimeoutError):
            server.accept()
    finally:
        server.close()
        path.unlink()


def test_unix_sockets_allowed_when_configured(run: Runner) -> None:
    code = "import socket; socket.socket(socket.AF_UNIX).close(); print('ok')"
    assert run(_python(code), allow_unix_sockets=True).stdout == b"ok\n"


TIOCSTI = 0x5412  # pinned here, not imported: the filter's constant must equal the kernel's
TIOCLINUX = 0x541C
TIOCSCTTY = 0x540E


def test_tiocsti_and_tioclinux_are_eperm_even_with_high_bits_on_a_real_pty(run: Runner) -> None:
    # On a pty slave (a fresh devpts inside the sandbox) the filter must answer EPERM,
    # including for TIOCSTI | 1 << 32 (CVE-2019-10063).
    code = f"""
        import errno, fcntl, os
        master, slave = os.openpty()
        for req in ({TIOCSTI}, {TIOCSTI} | (1 << 32), {TIOCLINUX}):
            try:
                fcntl.ioctl(slave, req, b"x")
                print("ALLOWED")
            except OSError as e:
                print(errno.errorcode[e.errno])
    """
    assert run(_python(code)).stdout.split() == [b"EPERM", b"EPERM", b"EPERM"]


def test_tiocsti_on_the_controlling_terminal_is_eperm(run: Runner) -> None:
    # The kernel itself refuses TIOCSTI on a terminal that is not the caller's controlling
    # one, so only a controlling terminal tests the filter: a child makes a fresh pty its
    # controlling terminal (setsid + TIOCSCTTY) and pushes a byte into it. Without the
    # filter the byte goes through (or EIO where `dev.tty.legacy_tiocsti` is 0): not EPERM.
    code = f"""
        import errno, fcntl, os
        master, slave = os.openpty()
        pid = os.fork()
        if pid == 0:
            os.setsid()
            fcntl.ioctl(slave, {TIOCSCTTY}, 0)
            out = []
            for req in ({TIOCSTI}, {TIOCSTI} | (1 << 32)):
                try:
                    fcntl.ioctl(slave, req, b"x")
                    out.append("ALLOWED")
                except OSError as e:
                    out.append(errno.errorcode[e.errno])
            os.write(1, (" ".join(out) + "\\n").encode())
            os._exit(0)
        os.waitpid(pid, 0)
    """
    result = run(_python(code))
    assert result.stdout.split() == [b"EPERM", b"EPERM"], result.stderr


def _with_controlling_tty(script: str) -> bytes:
    """Run a Python script in a child whose controlling terminal is a fresh pty; its output."""
    pid, master = pty.fork()  # the child is a session leader with the pty as its terminal
    if pid == 0:  # pragma: no cover - the child execs at once
        os.execv(sys.executable, [sys.executable, "-c", textwrap.dedent(script)])
    out = b""
    try:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child side closed
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
        os.waitpid(pid, 0)
    return out


def test_no_controlling_tty(ws: Path) -> None:
    # The runner's argv run directly, without the runner's own setsid, from a process that
    # HAS a controlling terminal: only bwrap's --new-session keeps /dev/tty from the command.
    script = f"""
        import os, subprocess
        from safehold.adapters.bwrap._argv import SandboxSpec, build_argv
        from safehold.adapters.bwrap._locate import find_bwrap, read_version
        from safehold.adapters.bwrap._plan import plan_mounts
        from tests.adapters.bwrap.conftest import make_config
        print("tty:", os.ttyname(0), flush=True)
        config = make_config()
        bwrap = read_version(find_bwrap(None, cwd={str(ws)!r}))
        status_r, status_w = os.pipe()
        spec = SandboxSpec(False, {{"PATH": "/usr/bin:/bin"}}, 1 << 20, None, status_w,
                           ["/bin/bash", "-c", "echo x > /dev/tty && echo OPENED"])
        argv = build_argv(bwrap, plan_mounts(config, {str(ws)!r}), spec)
        subprocess.run(argv, pass_fds=(status_w,), stdin=subprocess.DEVNULL, check=False)
        print("done", flush=True)
    """
    out = _with_controlling_tty(script)
    assert b"tty: /dev/pts/" in out  # the precondition: the caller has a terminal
    assert out.rstrip().endswith(b"done"), out
    assert b"OPENED" not in out
    assert b"x\r\n" not in out  # nothing reached the caller's terminal


def test_proc_shows_only_the_sandbox_processes(run: Runner) -> None:
    result = run("for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done")
    lines = [ln for ln in result.stdout.decode().splitlines() if ln.strip()]
    assert 1 <= len(lines) <= 5
    assert not any(" -m pytest" in ln for ln in lines)  # this very test process
    assert all(ln.split()[0] in ("bwrap", "/bin/bash", "tr") or "bwrap" in ln for ln in lines)


def test_nested_user_namespace_is_refused(run: Runner) -> None:
    result = run("unshare -U true && echo NESTED")
    assert b"NESTED" not in result.stdout


def test_timeout_leaves_no_process_behind(run: Runner) -> None:
    marker = f"mk{uuid.uuid4().hex}"
    script = (
        f"for i in 1 2 3; do (trap '' TERM; exec -a {marker}-stubborn sleep 300) & done; "
        f"setsid -f bash -c 'exec -a {marker}-daemon sleep 300'; "
        f"nohup bash -c 'while :; do sleep 1; done # {marker}-nohup' >/dev/null 2>&1 & "
        "sleep 300"
    )
    result = run(script, timeout=1.0)
    assert result.timed_out and result.exit_code is None
    deadline = time.monotonic() + 5
    while pids_with_marker(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pids_with_marker(marker) == []


@pytest.mark.timeout(120)  # waiting for `sleep 300` instead of returning fails as a hang
def test_background_job_is_torn_down_when_the_command_exits(run: Runner) -> None:
    marker = f"bg{uuid.uuid4().hex}"
    result = run(f"bash -c 'exec -a {marker} sleep 300' & echo started", timeout=0)
    assert result.stdout == b"started\n"
    assert not result.timed_out
    deadline = time.monotonic() + 5
    while pids_with_marker(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pids_with_marker(marker) == []


def test_closed_output_does_not_end_the_wait_early(run: Runner) -> None:
    result = run("exec >&- 2>&-; sleep 0.3; exit 4")
    assert result.exit_code == 4


def test_dev_is_fresh_with_an_empty_shm_and_no_disks(run: Runner) -> None:
    assert run("ls /dev | grep -cE '^(sd|vd|nvme|dm-)'").stdout.strip() == b"0"
    result = run("ls /dev/shm | wc -l")
    assert result.stdout.strip() == b"0"
