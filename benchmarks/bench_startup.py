"""Start-up cost of a fresh process, side by side with a bare `python -c pass`. Asserts nothing.

Usage: python benchmarks/bench_startup.py [--runs N]

A coding-agent hook (`safehold hook claude-code`) is a new Python process per tool call, so
what it costs is the interpreter's start plus whatever one decision needs. Rows, each a
fresh process, interleaved round by round so machine load hits every row alike:

- ``bare``: `python -c pass`, the baseline;
- ``import``: `python -c "import safehold"` (bar: within 6x bare, issue 17);
- ``api``: `from safehold import SafetyConfig, evaluate` (what a library user loads);
- ``hook-bash``: the `safehold hook claude-code` console script deciding a `Bash` call read
  from stdin, config discovery included, answered by the warm hook server (bar: within 8x
  bare, issue 15);
- ``hook-bash-m``: the same as `python -m safehold hook claude-code`;
- ``hook-read``: the console script on a `Read` call;
- ``hook-cold``: `python -m safehold hook claude-code` on the `Bash` call with
  `SAFEHOLD_HOOK_SERVER=0`, deciding in-process: what the first call of a session pays
  (it also starts the server), and every call with the server off.

The server runs under a throw-away `XDG_RUNTIME_DIR`; the first (warm-up) hook call starts
it, and the script stops it at the end (its pid is in the `.lock` file next to the socket).
Medians and maxima in milliseconds, and each median as a multiple of bare's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def _payload(project: str, tool: str, tool_input: dict[str, object]) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": "/dev/null",
            "cwd": project,
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": "toolu_bench",
        }
    ).encode()


def _stop_servers(runtime: str) -> None:
    for lock in Path(runtime, "safehold").glob("hook-*.lock"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            os.kill(int(lock.read_text().split()[0]), signal.SIGTERM)


def _wait_for_server(runtime: str, argv: list[str], stdin: bytes, env: dict[str, str]) -> None:
    """Call the hook until a server has answered (its socket exists and a call was fast)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        subprocess.run(argv, input=stdin, capture_output=True, env=env, check=True)
        if list(Path(runtime, "safehold").glob("hook-*.sock")):
            subprocess.run(argv, input=stdin, capture_output=True, env=env, check=True)
            return
        time.sleep(0.2)
    print("note: the hook server did not start; hook rows decide in-process")


def main(runs: int) -> None:
    project = tempfile.mkdtemp(prefix="safehold-bench-")
    Path(project, "app.py").write_text("print('hi')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    env.pop("SAFEHOLD_CONFIG", None)
    env.pop("SAFEHOLD_HOOK_SERVER", None)
    # An installed package has its .pyc files (pip compiles them); let the warm-up run write
    # them for the source tree too, or every row would pay for compiling safehold's modules.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="safehold-bench-xdg-")
    runtime = env["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="sh-run-", dir="/tmp")
    cold_env = {**env, "SAFEHOLD_HOOK_SERVER": "0"}
    script = shutil.which("safehold", path=str(Path(sys.executable).parent))
    hook_m = [sys.executable, "-m", "safehold", "hook", "claude-code"]
    hook = [script, "hook", "claude-code"] if script else hook_m
    bash = _payload(project, "Bash", {"command": "git status && ls -la src", "description": "x"})
    read = _payload(project, "Read", {"file_path": f"{project}/app.py"})
    rows: dict[str, tuple[list[str], bytes, dict[str, str]]] = {
        "bare": ([sys.executable, "-c", "pass"], b"", env),
        "import": ([sys.executable, "-c", "import safehold"], b"", env),
        "api": ([sys.executable, "-c", "from safehold import SafetyConfig, evaluate"], b"", env),
        "hook-bash": (hook, bash, env),
        "hook-bash-m": (hook_m, bash, env),
        "hook-read": (hook, read, env),
        "hook-cold": (hook_m, bash, cold_env),
    }
    times: dict[str, list[float]] = {name: [] for name in rows}
    try:
        for argv, stdin, row_env in rows.values():  # warm the file cache and .pyc files once
            subprocess.run(
                argv, input=stdin, capture_output=True, env=row_env, check=True, cwd=project
            )
        _wait_for_server(runtime, hook, bash, env)
        for _ in range(runs):
            for name, (argv, stdin, row_env) in rows.items():
                t0 = time.perf_counter()
                done = subprocess.run(
                    argv, input=stdin, capture_output=True, env=row_env, check=True, cwd=project
                )
                times[name].append((time.perf_counter() - t0) * 1e3)
                if stdin and b"permissionDecision" not in done.stdout:
                    raise SystemExit(f"{name}: no decision: {done.stdout!r} {done.stderr!r}")
    finally:
        _stop_servers(runtime)
        shutil.rmtree(runtime, ignore_errors=True)
    bare = statistics.median(times["bare"])
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"python {sys.version.split()[0]}, {runs} runs per row, interleaved; load {load}")
    print(f"hook rows run {'the console script ' + str(script) if script else 'python -m'}")
    print(f"{'row':<12} {'median ms':>10} {'max ms':>9} {'x bare':>7}")
    for name, ms in times.items():
        median = statistics.median(ms)
        print(f"{name:<12} {median:10.1f} {max(ms):9.1f} {median / bare:7.2f}")
    print()
    for name, what, bar in (
        ("import", "import safehold", 6),
        ("hook-bash", "hook Bash decision, console script", 8),
        ("hook-bash-m", "hook Bash decision, python -m safehold", 8),
    ):
        ratio = statistics.median(times[name]) / bare
        verdict = "within" if ratio <= bar else "OVER"
        print(f"{what}: {ratio:.2f}x bare ({verdict} the {bar}x bar)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    main(parser.parse_args().runs)
