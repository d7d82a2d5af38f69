"""Process lifetime around the caller: threads, Ctrl-C, and a killed parent leave nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

from safehold.adapters.bwrap import CommandResult, run_sandboxed_sync
from tests.adapters.bwrap.conftest import make_config, pids_with_marker


def _wait_gone(marker: str, seconds: float = 5.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while pids_with_marker(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return pids_with_marker(marker)


def _wait_started(ws: Path, marker: str, seconds: float = 10.0) -> None:
    # Wait for the command itself, not just bwrap: a caller killed while bwrap is still
    # setting up hits bwrap's own PDEATHSIG race (bubblewrap #633), documented in the docs.
    deadline = time.monotonic() + seconds
    while not ((ws / "started").exists() and pids_with_marker(marker)):
        assert time.monotonic() < deadline, "the sandboxed command never started"
        time.sleep(0.02)


def test_run_from_a_worker_thread_is_not_killed_early(ws: Path) -> None:
    # --die-with-parent follows the spawning thread: the spawning thread must outlive the
    # sandbox, which it does because it waits for the result.
    results: list[CommandResult] = []
    worker = threading.Thread(
        target=lambda: results.append(
            run_sandboxed_sync("sleep 0.6; echo survived", cwd=str(ws), config=make_config())
        )
    )
    worker.start()
    worker.join(30)
    assert results and results[0].stdout == b"survived\n" and results[0].exit_code == 0


def _child_script(ws: Path, marker: str) -> str:
    # The marker is spelled backwards in the script so that only the sandbox's processes,
    # not this Python child, carry it on their command line. Ctrl-C is what a person at a
    # terminal sends: the child takes it as Python does there, even when the test runs in a
    # background job, whose children inherit SIGINT ignored (bash without job control).
    return textwrap.dedent(
        f"""
        import signal
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from safehold import SafetyConfig
        from safehold.adapters.bwrap import run_sandboxed_sync
        marker = {marker[::-1]!r}[::-1]
        run_sandboxed_sync(f"touch started; sleep 300; : {{marker}}", cwd={str(ws)!r},
                           config=SafetyConfig(), timeout=0)
        """
    )


def test_ctrl_c_in_the_caller_kills_the_sandbox(ws: Path) -> None:
    marker = f"int{uuid.uuid4().hex}"
    child = subprocess.Popen(
        [sys.executable, "-c", _child_script(ws, marker)], stderr=subprocess.PIPE
    )
    try:
        _wait_started(ws, marker)
        assert child.pid not in pids_with_marker(marker)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=20)
        assert b"KeyboardInterrupt" in err
        assert _wait_gone(marker) == []
    finally:
        child.kill()
        child.wait()


def test_sigkill_of_the_caller_leaves_no_sandbox_behind(ws: Path) -> None:
    marker = f"kill{uuid.uuid4().hex}"
    child = subprocess.Popen([sys.executable, "-c", _child_script(ws, marker)])
    try:
        _wait_started(ws, marker)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        assert _wait_gone(marker) == []
    finally:
        child.kill()
        child.wait()
