"""Session store: memory for 10,000 sessions (bar: < 50 MB) and per-operation medians.

Run: `python benchmarks/bench_sessions.py`. Prints figures; asserts nothing.
"""

from __future__ import annotations

import statistics
import time
import tracemalloc

from safehold import GrantEffect, SafetyConfig, SessionPolicies


def _median_us(fn: object, n: int = 20_000) -> tuple[float, float]:
    samples = []
    for i in range(n):
        t0 = time.perf_counter_ns()
        fn(i)  # type: ignore[operator]
        samples.append((time.perf_counter_ns() - t0) / 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99)]


def main() -> None:
    """Measure and print."""
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    store = SessionPolicies(SafetyConfig())
    for i in range(10_000):
        sid = f"session-{i:05d}"
        store.open(sid, f"/home/user/projects/p{i % 50}")
        if i % 2:
            store.set_mode(sid, "auto")
        store.grant(sid, f'cmd:[["git", "status", "{i}"]]', GrantEffect.ALLOW)
    after = tracemalloc.take_snapshot()
    used = sum(s.size_diff for s in after.compare_to(before, "filename"))
    tracemalloc.stop()
    print(f"10,000 sessions (each with a mode change and a grant): {used / 1e6:.1f} MB")

    modes = ["auto", "review", "read-only"]
    med, p99 = _median_us(lambda i: store.set_mode(f"session-{i % 10_000:05d}", modes[i % 3]))
    print(f"set_mode:            median {med:.2f} us  p99 {p99:.2f} us")
    med, p99 = _median_us(lambda i: store.config(f"session-{i % 10_000:05d}"))
    print(f"config(session):     median {med:.2f} us  p99 {p99:.2f} us")
    med, p99 = _median_us(lambda i: store.fork("session-00001", f"fork-{i}"), n=5_000)
    print(f"fork:                median {med:.2f} us  p99 {p99:.2f} us")


if __name__ == "__main__":
    main()
