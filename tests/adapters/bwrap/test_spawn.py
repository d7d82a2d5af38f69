"""How bwrap is started (`_process`): what the child gets, and bwrap's status lines.

The runner and the warm `safehold run` client start bwrap with `os.posix_spawn`, not
`subprocess` (its import costs a fresh process more than bwrap): these tests hold that spawn
to `subprocess.Popen(close_fds=True, stdin=DEVNULL)`'s contract, with the real bwrap.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from safehold.adapters.bwrap._process import _json_line
from tests.adapters.bwrap.conftest import Runner, make_config


def _fds(listing: bytes) -> list[int]:
    return sorted(int(name) for name in listing.split())


def test_only_the_standard_streams_reach_the_command(run: Runner) -> None:
    # bwrap hands every fd it inherits on to the command: an inheritable fd of the caller
    # (a shell's, a build tool's jobserver) must not reach it.
    read, write = os.pipe()
    os.set_inheritable(read, True)
    os.set_inheritable(write, True)
    try:
        result = run(["ls", "/proc/self/fd"])
        stdin = run(["readlink", "/proc/self/fd/0"])
    finally:
        os.close(read)
        os.close(write)
    assert result.exit_code == 0, result.stderr
    assert _fds(result.stdout) == [0, 1, 2, 3]  # 3: the directory `ls` is listing
    assert stdin.stdout == b"/dev/null\n"


def test_runs_in_parallel_threads_get_none_of_each_others_pipes(run: Runner) -> None:
    # Each run's seccomp, status and block pipes reach its own bwrap only: the spawn never
    # makes this process's fds inheritable, even for a moment.
    listings: list[list[int]] = []

    def worker() -> None:
        for _ in range(3):
            listings.append(_fds(run(["ls", "/proc/self/fd"]).stdout))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert listings == [[0, 1, 2, 3]] * 12


def test_a_caller_without_standard_streams_still_runs_sandboxed(ws: Path) -> None:
    # With fds 0-2 closed, new pipes get those numbers; the child's standard streams must
    # not be put over the seccomp or status pipe (bwrap would then refuse to start).
    script = textwrap.dedent(
        f"""
        import os, sys
        from tests.adapters.bwrap.conftest import make_config
        from safehold.adapters.bwrap import run_sandboxed_sync
        err = os.dup(2)
        for fd in (0, 1, 2):
            os.close(fd)
        result = run_sandboxed_sync(
            ["bash", "-c", "echo out; echo err >&2; exit 5"], cwd={str(ws)!r}, config=make_config()
        )
        os.write(err, repr((result.exit_code, result.stdout, result.stderr)).encode())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        cwd=Path(__file__).parents[3],
        timeout=60,
        check=False,
    )
    assert done.stderr.decode() == repr((5, b"out\n", b"err\n"))


def test_the_command_gets_sigpipe_back(run: Runner) -> None:
    # Python ignores SIGPIPE; a child must get the default back (`yes | head` ends).
    result = run(["bash", "-c", "grep SigIgn /proc/self/status"])
    ignored = int(result.stdout.split()[1], 16)
    assert not ignored & (1 << (13 - 1)), result.stdout  # SIGPIPE
    assert not ignored & (1 << (25 - 1)), result.stdout  # SIGXFSZ


def test_a_missing_sandbox_binary_is_an_error_not_a_run(ws: Path) -> None:
    config = make_config(bwrap_path=str(ws / "no-such-bwrap"))
    from safehold.adapters.bwrap import run_sandboxed_sync
    from safehold.errors import SafeholdError

    try:
        run_sandboxed_sync(["true"], cwd=str(ws), config=config)
    except SafeholdError:
        return
    raise AssertionError("ran without the configured bwrap")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)


@given(
    value=_JSON,
    pad=st.tuples(st.sampled_from(["", " ", "\t", "\r", " \n "]), st.sampled_from(["", " ", "x"])),
    cut=st.integers(min_value=0, max_value=80),
)
def test_a_status_line_reads_as_json_loads_reads_it(
    value: object, pad: tuple[str, str], cut: int
) -> None:
    # bwrap writes its status in pieces: whole lines, lines cut short, and anything else.
    text = pad[0] + json.dumps(value) + pad[1]
    for line in (text, text[:cut]):
        try:
            expected = json.loads(line)
        except ValueError:
            expected = None
        assert repr(_json_line(line)) == repr(expected)


@given(st.text(max_size=40))
def test_any_text_reads_as_json_loads_reads_it(text: str) -> None:
    try:
        expected = json.loads(text)
    except ValueError:
        expected = None
    assert repr(_json_line(text)) == repr(expected)
