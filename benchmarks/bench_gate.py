"""The approval layer's cost: `Gate.decide`, `Gate.decide` + `answer`, `SyncGate.check`.

Each is printed next to its baseline, `evaluate` on the same call, measured in the same run.
Run: `python benchmarks/bench_gate.py`. Prints figures; asserts nothing.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable

from safehold import (
    ApprovalOutcome,
    Gate,
    SafetyConfig,
    SessionPolicies,
    SyncGate,
    ToolCall,
    ToolKind,
    evaluate,
)
from safehold.audit import MemorySink


def _stats_us(fn: Callable[[int], object], n: int) -> tuple[float, float, float]:
    samples = []
    for i in range(n):
        t0 = time.perf_counter_ns()
        fn(i)
        samples.append((time.perf_counter_ns() - t0) / 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99)], samples[-1]


def main() -> None:
    """Measure and print."""
    ws = tempfile.mkdtemp()
    config = SafetyConfig()
    policies = SessionPolicies(config)
    policies.open("s", ws)
    gate = Gate(policies, audit=MemorySink())
    sync = SyncGate(Gate(policies))
    read = ToolCall("read_file", {"path": f"{ws}/a.py"}, ToolKind.READ)

    def edit(i: int) -> ToolCall:
        return ToolCall("write_file", {"path": f"{ws}/a.py"}, ToolKind.EDIT, tool_call_id=str(i))

    rows = [
        ("evaluate(read)            [baseline]", lambda i: evaluate(config, read, workspace=ws)),
        ("Gate.decide(read) + audit", lambda i: gate.decide("s", read)),
        ("SyncGate.check(read)", lambda i: sync.check("s", read, None)),
        ("evaluate(edit)            [baseline]", lambda i: evaluate(config, edit(i), workspace=ws)),
        (
            "Gate.decide(edit) + answer",
            lambda i: (
                gate.answer("s", edit(i), ApprovalOutcome.ALLOW_ONCE)
                if gate.decide("s", edit(i))
                else None
            ),
        ),
    ]
    for name, fn in rows:
        n = 2_000 if "Sync" in name else 10_000
        med, p99, worst = _stats_us(fn, n)
        print(f"{name:40s} median {med:8.2f} us  p99 {p99:8.2f} us  max {worst:9.2f} us")
    sync.close()


if __name__ == "__main__":
    main()
