"""Redaction on long runs: growth with input size, next to a linear baseline.

A backtracking pattern shows as time growing 4x (or worse) when the input doubles; a linear
one about 2x, like the baseline (`str.lower` plus one `re` scan for a fixed word). The
issue-5 inputs are long runs of what the patterns look for (`passwordpassword...`,
`x://a:x://a:...`).

Run: `python benchmarks/bench_redact.py`. Prints medians and growth ratios; asserts nothing.
"""

from __future__ import annotations

import re
import statistics
import time

from safehold.policy.redact import redact_text

UNITS = {"password": "password", "dashes": "-", "a=b ": "a=b ", "x://a:": "x://a:", "A": "A"}
SIZES = (25_000, 50_000, 100_000, 200_000)
_WORD = re.compile(r"\bsecret\b")


def _baseline(text: str) -> object:
    return _WORD.search(text.lower())


def _median_ms(fn: object, text: str, n: int = 7) -> float:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn(text)  # type: ignore[operator]
        samples.append((time.perf_counter_ns() - t0) / 1e6)
    return statistics.median(samples)


def main() -> None:
    """Measure and print."""
    print(
        f"{'input':>10} {'chars':>8} {'redact ms':>10} {'x prev':>7} {'base ms':>9} {'x prev':>7}"
    )
    for label, unit in UNITS.items():
        prev: tuple[float, float] | None = None
        for size in SIZES:
            text = (unit * (size // len(unit) + 1))[:size]
            ours, base = _median_ms(redact_text, text), _median_ms(_baseline, text)
            growth = (f"{ours / prev[0]:7.1f}", f"{base / prev[1]:7.1f}") if prev else ("", "")
            print(f"{label:>10} {size:>8} {ours:>10.2f} {growth[0]:>7} {base:>9.2f} {growth[1]:>7}")
            prev = (ours, base)


if __name__ == "__main__":
    main()
