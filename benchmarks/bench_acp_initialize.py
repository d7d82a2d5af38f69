"""`safehold acp` start-up: time until `initialize` and `session/new` are answered (medians, max).

Usage: python benchmarks/bench_acp_initialize.py [--runs N] [--baseline SRC]

Each run starts a fresh process, as acpx does for most commands. Rows, measured
interleaved in the same run so machine load hits them alike:

- ``python -c pass``: the interpreter's own start and exit (the floor);
- ``import acp.schema``: the ACP SDK's pydantic models alone (the SDK's import floor);
- ``import SDK + agent``: `python -c "import safehold.adapters.acp.agent"`, what answering
  through the SDK would cost before the first byte (the ACP SDK's schema and the engine);
- ``safehold acp initialize``: spawn `python -m safehold.cli acp`, write one `initialize`
  line, read the answer (the early reader answers while the rest imports);
- ``session/new, remembered``: the same process's answer to the `session/new` sent right
  after, when an earlier start with the same config left its answer in the cache
  (`safehold.cli._acp_session_cache`; every start after the first);
- ``session/new, cold cache``: the same with an empty cache (a fresh `XDG_CACHE_HOME`), so
  the answer waits for the config to load (the first start, and how it was before);
- ``... session/new, through the SDK``: the same with `SAFEHOLD_ACP_EARLY_SESSION=0`, i.e.
  when the agent is fully up (how every session started before issue 29).

Each run's cache lives in a temporary directory (nothing is left in the real home).
With ``--baseline SRC`` (the ``src`` directory of another checkout, e.g. from
``git archive``), a last row times that code's ``session/new`` the same way (its modules
first on ``PYTHONPATH``), interleaved with the others: today's figure side by side.
The promises: `initialize` within 300 ms (issue 14) and session ready (spawn to the
`session/new` reply) within 300 ms (issue 29) on the development machine; nothing here
asserts them.
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

INIT = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n'


def _exit_time(code: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return (time.perf_counter() - t0) * 1000


def _acp_times(
    cwd: str, cache: str, *, early: bool = True, src: str | None = None
) -> tuple[float, float]:
    new = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "session/new",
            "params": {"cwd": cwd, "mcpServers": []},
        }
    ).encode()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "safehold.cli", "acp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={
            **os.environ,
            "SAFEHOLD_ACP_EARLY_SESSION": "1" if early else "0",
            "XDG_CACHE_HOME": cache,
            **({"PYTHONPATH": src} if src else {}),
        },
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(INIT + new + b"\n")
    proc.stdin.flush()
    first = proc.stdout.readline()
    t1 = time.perf_counter()
    second = proc.stdout.readline()
    t2 = time.perf_counter()
    proc.stdin.close()
    proc.wait(timeout=60)
    if b'"result"' not in first or b'"sessionId"' not in second:
        raise SystemExit(f"unexpected answers: {first!r} {second!r}")
    return (t1 - t0) * 1000, (t2 - t0) * 1000


def main(runs: int, baseline: str | None = None) -> None:
    rows: dict[str, list[float]] = {
        "python -c pass": [],
        "import acp.schema": [],
        "import SDK + agent": [],
        "safehold acp initialize": [],
        "session/new, remembered": [],
        "session/new, cold cache": [],
        "... session/new, through the SDK": [],
    }
    if baseline:
        rows["baseline session/new (early)"] = []
    with tempfile.TemporaryDirectory() as ws, tempfile.TemporaryDirectory() as cache:
        _acp_times(ws, cache)  # warm the page cache and .pyc files, and fill the cache
        if baseline:
            _acp_times(ws, os.path.join(cache, "base"), src=baseline)
        for n in range(runs):
            rows["python -c pass"].append(_exit_time("pass"))
            rows["import acp.schema"].append(_exit_time("import acp.schema"))
            rows["import SDK + agent"].append(_exit_time("import safehold.adapters.acp.agent"))
            init, new = _acp_times(ws, cache)
            rows["safehold acp initialize"].append(init)
            rows["session/new, remembered"].append(new)
            cold = os.path.join(cache, f"cold-{n}")
            rows["session/new, cold cache"].append(_acp_times(ws, cold)[1])
            rows["... session/new, through the SDK"].append(_acp_times(ws, cold, early=False)[1])
            if baseline:
                base = os.path.join(cache, f"base-{n}")
                rows["baseline session/new (early)"].append(_acp_times(ws, base, src=baseline)[1])
    print(
        f"{'':34} {'median ms':>10} {'max ms':>10}   ({runs} runs, load {os.getloadavg()[0]:.1f})"
    )
    for name, values in rows.items():
        print(f"{name:34} {statistics.median(values):10.1f} {max(values):10.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", metavar="SRC", help="another checkout's src directory")
    options = parser.parse_args()
    main(options.runs, options.baseline)
