"""`python -m safehold.cli ARGS` for tests, in a new process forked from a preloaded one.

A `safehold` process spends most of its start importing (pydantic, the config models, the
shell analysis: about 0.7 s of CPU), and the hook and CLI tests start hundreds of them. Here
each test process keeps one helper process that has imported the CLI's modules and nothing
else (it has read no config, compiled no policy and decided nothing), and every call forks a
child of it. The child is a real, separate process with the caller's arguments, working
directory, environment (replaced whole) and standard streams (real files on fds 0, 1 and 2),
and runs `safehold.cli` as `__main__`, exactly as `python -m safehold.cli` would; its exit
status comes back like `subprocess.run`'s (a negative number for a signal).

What it does not redo is the interpreter's start: `PYTHON*` variables of the call's
environment, and the import of the modules themselves. Tests of those (`python -m safehold`,
the console script, import cost, the hook's fast path without the engine) start a fresh
interpreter instead (`fresh=True` where a helper offers it).

The helper's own `HOME` is a directory that does not exist, so a module that read `HOME` while
importing would make every test that relies on the caller's home fail, not pass by accident.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import locale
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["run_cli"]

# Modules every `safehold` subcommand the tests start loads; importing one that pulls in an
# optional extra that is not installed is skipped.
_PRELOAD = (
    "safehold.cli",
    "safehold.cli._hook_client",
    "safehold.cli._headless",
    "safehold.cli._run_client",
    "safehold.cli.hook_cmd",
    "safehold.cli.check_cmd",
    "safehold.cli.config_cmd",
    "safehold.cli.grants_cmd",
    "safehold.cli.doctor_cmd",
    "safehold.cli.run_cmd",
    "safehold.cli.replay_cmd",
    "safehold.config_discovery",
    "safehold.policy.engine",
    "safehold.policy.shell.analysis",
)

_HELPER = r"""
import importlib, io, json, os, runpy, sys, traceback
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except ImportError:
        pass

def read_exactly(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            return None
        data += chunk
    return data

def child(request):
    for fd, path, flags in (
        (0, request["stdin"], os.O_RDONLY),
        (1, request["stdout"], os.O_WRONLY | os.O_TRUNC),
        (2, request["stderr"], os.O_WRONLY | os.O_TRUNC),
    ):
        opened = os.open(path, flags)
        os.dup2(opened, fd)
        os.close(opened)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = [sys.argv[0], *request["argv"]]
    code = 0
    try:
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            code = code or 120
    os._exit(code & 0xFF)

while True:
    header = read_exactly(8)
    if header is None:
        break
    request = json.loads(read_exactly(int(header)))
    pid = os.fork()
    if pid == 0:
        try:
            child(request)
        finally:
            os._exit(70)
    os.write(1, b"%d\n" % pid)
    _, status = os.waitpid(pid, 0)
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    os.write(1, b"%d\n" % code)
"""


class _Helper:
    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SAFEHOLD_")}
        env["HOME"] = os.path.join(tempfile.gettempdir(), "safehold-forked-helper-no-home")
        self.owner = os.getpid()  # a forked test process starts its own helper
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _HELPER, json.dumps(_PRELOAD)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd="/",
        )
        self.lock = threading.Lock()

    def call(self, request: dict[str, object], timeout: float) -> int:
        """The child's exit status; TimeoutExpired (the child killed) after `timeout`."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        body = json.dumps(request).encode()
        self.proc.stdin.write(b"%08d" % len(body) + body)
        self.proc.stdin.flush()
        child = int(self.proc.stdout.readline())
        expired = threading.Event()

        def kill() -> None:
            expired.set()
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, 9)

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            line = self.proc.stdout.readline()
        finally:
            timer.cancel()
        if not line:
            raise RuntimeError("the forked safehold helper stopped")
        if expired.is_set():
            raise subprocess.TimeoutExpired(["safehold", *map(str, request["argv"])], timeout)  # type: ignore[call-overload]
        return int(line)

    def close(self) -> None:
        if self.proc.poll() is None and self.owner == os.getpid():
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


_helper: _Helper | None = None
_helper_lock = threading.Lock()


def _get() -> _Helper:
    global _helper
    with _helper_lock:
        if _helper is None or _helper.proc.poll() is not None or _helper.owner != os.getpid():
            _helper = _Helper()
            atexit.register(_helper.close)
        return _helper


def run_cli(
    args: Sequence[str],
    *,
    input: bytes | str = b"",
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
    text: bool = False,
    module: str = "safehold.cli",
) -> subprocess.CompletedProcess[Any]:
    """`subprocess.run([sys.executable, "-m", module, *args], capture_output=True, ...)`,
    forked from the preloaded helper: the same exit status and the same bytes on stdout and
    stderr (with `text`, decoded with universal newlines, as `subprocess.run` does). `cwd`
    and `env` default to this process's."""
    helper = _get()
    data = input.encode() if isinstance(input, str) else input
    with tempfile.TemporaryDirectory(prefix="safehold-forked-") as folder:
        paths = {name: os.path.join(folder, name) for name in ("stdin", "stdout", "stderr")}
        for name, path in paths.items():
            with open(path, "wb") as f:
                if name == "stdin":
                    f.write(data)
        request: dict[str, object] = {
            "argv": list(args),
            "module": module,
            "cwd": os.fspath(cwd) if cwd is not None else os.getcwd(),
            "env": dict(os.environ if env is None else env),
            **paths,
        }
        with helper.lock:
            code = helper.call(request, timeout)
        with open(paths["stdout"], "rb") as f:
            stdout = f.read()
        with open(paths["stderr"], "rb") as f:
            stderr = f.read()
    argv = [sys.executable, "-m", module, *args]
    if text:
        return subprocess.CompletedProcess(argv, code, _text(stdout), _text(stderr))
    return subprocess.CompletedProcess(argv, code, stdout, stderr)


def _text(data: bytes) -> str:
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")
