"""Escape suite, isolation: network, unix sockets, TIOCSTI, /proc, process teardown.

Each test observes the effect from the host: the listener saw (or did not see) a
connection, the host's /proc has no survivor, and so on.
"""

from __future__ import annotations

import os
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
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close(); print("inet-ok")
    """
    assert run(_python(code)).stdout.split() == [b"pair-ok", b"unix", b"EPERM", b"inet-ok"]


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


def test_tiocsti_and_tioclinux_are_eperm_even_with_high_bits_on_a_real_pty(run: Runner) -> None:
    # On a pty slave (a fresh devpts inside the sandbox) TIOCSTI would succeed unfiltered;
    # the filter must answer EPERM, including for TIOCSTI | 1 << 32 (CVE-2019-10063).
    code = """
        import errno, fcntl, os, termios
        master, slave = os.openpty()
        for req in (termios.TIOCSTI, termios.TIOCSTI | (1 << 32), 0x541C):
            try:
                fcntl.ioctl(slave, req, b"x")
                print("ALLOWED")
            except OSError as e:
                print(errno.errorcode[e.errno])
    """
    assert run(_python(code)).stdout.split() == [b"EPERM", b"EPERM", b"EPERM"]


def test_no_controlling_tty(run: Runner) -> None:
    result = run("echo x > /dev/tty && echo OPENED")
    assert b"OPENED" not in result.stdout


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


def test_background_job_is_torn_down_when_the_command_exits(run: Runner) -> None:
    marker = f"bg{uuid.uuid4().hex}"
    started = time.monotonic()
    result = run(f"bash -c 'exec -a {marker} sleep 300' & echo started")
    assert result.stdout == b"started\n"
    assert time.monotonic() - started < 10
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
