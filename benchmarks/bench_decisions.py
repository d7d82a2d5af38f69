"""File-tool decisions: median and p99 of `evaluate` (bar, SPEC §10: median well under 50 µs).

Run: `python benchmarks/bench_decisions.py`. Builds a workspace in a temporary directory,
then times each workload with the default config and with 200 extra deny patterns.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable

from safehold import SafetyConfig, ToolCall, ToolKind, compile_policy, evaluate

N = 20_000


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


def _workspace(root: str) -> str:
    ws = os.path.join(root, "home", "user", "projects", "app")
    os.makedirs(os.path.join(ws, "src", "pkg"))
    for rel in ("src/pkg/module.py", ".env", "README.md"):
        with open(os.path.join(ws, rel), "w", encoding="utf-8") as f:
            f.write("x\n")
    return ws


def _many_patterns() -> list[str]:
    out: list[str] = []
    for i in range(50):
        out += [f"secret_{i}.txt", f"/data/area{i}/", f"*.ext{i}", f"{{workspace}}/gen{i}/"]
    return out


def main() -> None:
    """Measure and print."""
    with tempfile.TemporaryDirectory() as root:
        ws = _workspace(root)
        workloads = {
            "read inside the workspace": ToolCall(
                "read_file", {"path": "src/pkg/module.py"}, ToolKind.READ
            ),
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
            "default config": SafetyConfig(),
            "+200 deny patterns": SafetyConfig(denied_paths=_many_patterns()),
        }
        for label, config in configs.items():
            t0 = time.perf_counter()
            compile_policy(config, ws)
            compile_ms = (time.perf_counter() - t0) * 1000
            print(
                f"== {label} ({len(config.denied_paths)} deny patterns; "
                f"first compile {compile_ms:.1f} ms)"
            )
            for name, call in workloads.items():
                med, p99 = _time_us(lambda c=call, cfg=config: evaluate(cfg, c, workspace=ws))
                print(f"   {name:32s} median {med:6.1f} us   p99 {p99:6.1f} us")
            policy = compile_policy(config, ws)
            med, p99 = _time_us(lambda p=policy: p.check_path("src/pkg/module.py", "read"))
            print(f"   {'check_path alone (read)':32s} median {med:6.1f} us   p99 {p99:6.1f} us")


if __name__ == "__main__":
    main()
