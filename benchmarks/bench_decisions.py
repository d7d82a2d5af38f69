"""File-tool decisions: median and p99 of `evaluate` (bar, SPEC §10 and issue 13: a workspace
read under 50 µs median).

Run: `python benchmarks/bench_decisions.py [--baseline SRC] [--rounds N] [--n N]`. Builds a
workspace in a temporary directory, then times each workload with the default config and
with 200 extra deny patterns. Prints figures; asserts nothing.

Timings on a shared machine are noisy, so every run prints, next to the workspace-read
median and its 50 µs bar, two baselines measured in the same process: a bare function call
and `evaluate` of a path refused before any filesystem access (a NUL byte), plus the load
average. "read, a new file each call" reads a different existing file every time, so none
of the remembered steps (docs/decisions.md, "Speed") help it.

`--baseline SRC` (the `src` directory of another checkout, e.g. `git archive 2ea5dc9 src |
tar -x -C /tmp/base`) measures it side by side: each round runs one child process per side,
alternating, and the table shows the median over rounds of each side's medians.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable

from _sides import alternate

from safehold import SafetyConfig, ToolCall, ToolKind, compile_policy, evaluate

N = 20_000
BAR_US = 50.0
READ = "read inside the workspace"

Row = tuple[str, str, float, float]  # (config, workload, median µs, p99 µs)


def _time_us(fn: Callable[[], object], n: int = N) -> tuple[float, float]:
    for _ in range(200):  # warm caches (the compiled policy, the dentry cache)
        fn()
    samples = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - t0) / 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99)]


def _workspace(root: str, files: int) -> str:
    ws = os.path.join(root, "home", "user", "projects", "app")
    os.makedirs(os.path.join(ws, "src", "pkg", "many"))
    for rel in ("src/pkg/module.py", ".env", "README.md"):
        with open(os.path.join(ws, rel), "w", encoding="utf-8") as f:
            f.write("x\n")
    for i in range(files):
        open(os.path.join(ws, "src", "pkg", "many", f"m{i}.py"), "w").close()
    return ws


def _many_patterns() -> list[str]:
    out: list[str] = []
    for i in range(50):
        out += [f"secret_{i}.txt", f"/data/area{i}/", f"*.ext{i}", f"{{workspace}}/gen{i}/"]
    return out


def _bare() -> None:
    return None


def measure(n: int = N) -> list[Row]:
    """(config, workload, median µs, p99 µs) for every workload, baselines first."""
    rows: list[Row] = []
    files = 5000  # more than any memo holds (the largest, grant keys, keeps 4096)
    with tempfile.TemporaryDirectory() as root:
        ws = _workspace(root, files)
        invalid = ToolCall("read_file", {"path": "a\x00b"}, ToolKind.READ)
        default = SafetyConfig()
        med, p99 = _time_us(_bare, n)
        rows.append(("baseline", "bare function call", med, p99))
        med, p99 = _time_us(lambda: evaluate(default, invalid, workspace=ws), n)
        rows.append(("baseline", "evaluate, path refused (NUL)", med, p99))
        workloads = {
            READ: ToolCall("read_file", {"path": "src/pkg/module.py"}, ToolKind.READ),
            "read of a denied file (.env)": ToolCall("read_file", {"path": ".env"}, ToolKind.READ),
            "write of a new file": ToolCall(
                "write_file", {"path": "src/pkg/new.py"}, ToolKind.EDIT
            ),
            "write of an existing file": ToolCall(
                "write_file", {"path": "README.md"}, ToolKind.EDIT
            ),
            "unknown tool": ToolCall("mcp_search", {"query": "x"}, ToolKind.OTHER),
        }
        configs = {
            "default config": default,
            "+200 deny patterns": SafetyConfig(denied_paths=_many_patterns()),
        }
        for label, config in configs.items():
            t0 = time.perf_counter()
            compile_policy(config, ws)
            compile_ms = (time.perf_counter() - t0) * 1000
            label = f"{label} ({len(config.denied_paths)} deny; compile {compile_ms:.1f} ms)"
            for name, call in workloads.items():
                med, p99 = _time_us(lambda c=call, cfg=config: evaluate(cfg, c, workspace=ws), n)
                rows.append((label, name, med, p99))
            fresh = itertools.cycle(
                [
                    ToolCall("read_file", {"path": f"src/pkg/many/m{i}.py"}, ToolKind.READ)
                    for i in range(files)
                ]
            )
            med, p99 = _time_us(lambda cfg=config, f=fresh: evaluate(cfg, next(f), workspace=ws), n)
            rows.append((label, "read, a new file each call", med, p99))
            policy = compile_policy(config, ws)
            med, p99 = _time_us(lambda p=policy: p.check_path("src/pkg/module.py", "read"), n)
            rows.append((label, "check_path alone (read)", med, p99))
    return rows


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def _headline(rows: list[Row]) -> str:
    by_name = {(cfg.split(" (")[0], name): med for cfg, name, med, _ in rows}
    read = by_name[("default config", READ)]
    return (
        f"workspace read (default config): median {read:.1f} us, bar {BAR_US:.0f} us "
        f"({'under' if read < BAR_US else 'OVER'}); baselines in this run: bare call "
        f"{by_name[('baseline', 'bare function call')]:.2f} us, evaluate of a refused path "
        f"{by_name[('baseline', 'evaluate, path refused (NUL)')]:.1f} us; "
        f"load average {_load()} on {os.cpu_count()} CPUs"
    )


def main() -> None:
    """Measure and print (side by side with `--baseline`)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", help="src directory of the checkout to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--n", type=int, default=N)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure(args.n)))
        return
    if not args.baseline:
        rows = measure(args.n)
        print(_headline(rows))
        config = None
        for cfg, name, med, p99 in rows:
            if cfg != config:
                print(f"== {cfg}")
                config = cfg
            print(f"   {name:32s} median {med:7.1f} us   p99 {p99:7.1f} us")
        return
    load_before = _load()
    this_runs, base_runs = alternate(__file__, args.baseline, args.rounds, args.n)
    sides = {"this": this_runs, "base": base_runs}
    print(f"medians over {args.rounds} alternating rounds; base = {args.baseline}")
    print(f"load average {load_before} before, {_load()} after, on {os.cpu_count()} CPUs")
    base_rows = {(r[0].split(" (")[0], r[1]): k for k, r in enumerate(sides["base"][0])}
    print(f"{'config':<20} {'workload':<32} {'this µs':>9} {'base µs':>9}")
    for k, (cfg, name, _, _) in enumerate(sides["this"][0]):
        this = statistics.median(run[k][2] for run in sides["this"])
        j = base_rows.get((cfg.split(" (")[0], name))
        base = "-" if j is None else f"{statistics.median(run[j][2] for run in sides['base']):.1f}"
        print(f"{cfg.split(' (')[0]:<20} {name:<32} {this:>9.1f} {base:>9}")
    k = next(
        i for i, r in enumerate(sides["this"][0]) if r[0].startswith("default") and r[1] == READ
    )
    read = statistics.median(run[k][2] for run in sides["this"])
    print(f"workspace read (this, default config): median {read:.1f} us, bar {BAR_US:.0f} us")


if __name__ == "__main__":
    main()
