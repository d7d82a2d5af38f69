"""Start-up cost of a fresh process, side by side with a bare `python -c pass`. Asserts nothing.

Usage: python benchmarks/bench_startup.py [--runs N]

A coding-agent hook (`safehold hook claude-code`) is a new Python process per tool call, so
what it costs is the interpreter's start plus the imports one decision needs. Rows, each a
fresh process, interleaved round by round so machine load hits every row alike:

- ``bare``: `python -c pass`, the baseline;
- ``import``: `python -c "import safehold"` (targets: within 6x bare);
- ``api``: `from safehold import SafetyConfig, evaluate` (what a library user loads);
- ``hook-bash``: `python -m safehold.cli hook claude-code` deciding a `Bash` call read from
  stdin, config discovery included (target: within 8x bare);
- ``hook-read``: the same for a `Read` call.

Medians and maxima in milliseconds, and each median as a multiple of bare's.
"""

from __future__ import annotations

import argparse
import json
import os
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


def main(runs: int) -> None:
    project = tempfile.mkdtemp(prefix="safehold-bench-")
    Path(project, "app.py").write_text("print('hi')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    env.pop("SAFEHOLD_CONFIG", None)
    # An installed package has its .pyc files (pip compiles them); let the warm-up run write
    # them for the source tree too, or every row would pay for compiling safehold's modules.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="safehold-bench-xdg-")
    hook = [sys.executable, "-m", "safehold.cli", "hook", "claude-code"]
    rows: dict[str, tuple[list[str], bytes]] = {
        "bare": ([sys.executable, "-c", "pass"], b""),
        "import": ([sys.executable, "-c", "import safehold"], b""),
        "api": ([sys.executable, "-c", "from safehold import SafetyConfig, evaluate"], b""),
        "hook-bash": (
            hook,
            _payload(project, "Bash", {"command": "git status && ls -la src", "description": "x"}),
        ),
        "hook-read": (hook, _payload(project, "Read", {"file_path": f"{project}/app.py"})),
    }
    times: dict[str, list[float]] = {name: [] for name in rows}
    for argv, stdin in rows.values():  # warm the file cache and .pyc files once
        subprocess.run(argv, input=stdin, capture_output=True, env=env, check=True, cwd=project)
    for _ in range(runs):
        for name, (argv, stdin) in rows.items():
            t0 = time.perf_counter()
            subprocess.run(argv, input=stdin, capture_output=True, env=env, check=True, cwd=project)
            times[name].append((time.perf_counter() - t0) * 1e3)
    bare = statistics.median(times["bare"])
    print(f"python {sys.version.split()[0]}, {runs} runs per row, interleaved")
    print(f"{'row':<10} {'median ms':>10} {'max ms':>9} {'x bare':>7}")
    for name, ms in times.items():
        median = statistics.median(ms)
        print(f"{name:<10} {median:10.1f} {max(ms):9.1f} {median / bare:7.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    main(parser.parse_args().runs)
