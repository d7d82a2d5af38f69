"""Shell decisions: median and p99 per execute decision (bar, SPEC §10: typical under 200 µs).

Run: `python benchmarks/bench_shell.py`. Builds a workspace in a temporary directory and
times `evaluate` on an execute call for each workload, in review mode (the default: the
second parser never runs, a person sees the command) and in auto mode (every command that
would run unattended is also read by bashlex). Analyses and second opinions are cached per
command text: "cold" clears both caches before each call (a command seen for the first
time), "warm" does not (an agent repeating `git status`). Also times `analyze` alone, cold.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.policy.shell.analysis import _analyze_text, analyze
from safehold.policy.shell.crosscheck import disagreement

N = 5_000

PIPELINE = "cat src/app.py | grep -v '^#' | sort | uniq -c | head -n 20"
SCRIPT = (
    'set -e; for f in src/*.py; do python3 -m py_compile "$f" || echo "bad $f"; done; '
    "git status --short && git diff --stat HEAD~1 -- src | tail -n 5; "
    "if test -d build; then rm -rf build; fi; mkdir -p build/out && cp README.md build/out/; "
    "npm run lint -- --max-warnings=0 2>&1 | tee build/lint.log; "
    "find . -name '*.pyc' -exec rm {} + ; echo \"done at $(date +%s)\" > build/stamp.txt; "
    "grep -rn TODO src | wc -l; ls -la build/out; du -sh build; "
    "test -f package.json && npm test -- --coverage 2>&1 | tail -n 20"
)


def _time_us(
    fn: Callable[[], object], n: int = N, before: Callable[[], object] | None = None
) -> tuple[float, float]:
    for _ in range(100):
        fn()
    samples = []
    for _ in range(n):
        if before is not None:
            before()
        t0 = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - t0) / 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99)]


def _workspace(root: str) -> str:
    ws = os.path.join(root, "proj")
    os.makedirs(os.path.join(ws, "src"))
    for rel in ("src/app.py", "README.md", "package.json"):
        with open(os.path.join(ws, rel), "w", encoding="utf-8") as f:
            f.write("x\n")
    return ws


def _cold() -> None:
    # Forget earlier analyses of the same text: the first time a command is seen.
    _analyze_text.cache_clear()
    disagreement.cache_clear()


def main() -> None:
    """Measure and print."""
    workloads = {
        "git status": "git status",
        "npm test": "npm test",
        "5-part pipeline": PIPELINE,
        f"{len(SCRIPT)}-char script": SCRIPT,
    }
    review = SafetyConfig()
    auto = review.with_mode("auto")
    with tempfile.TemporaryDirectory() as root:
        ws = _workspace(root)
        print(f"{'workload':<22} {'mode':<12} {'median µs':>10} {'p99 µs':>10}  verdict")
        for name, command in workloads.items():
            call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
            med, p99 = _time_us(lambda c=command: analyze(c), before=_analyze_text.cache_clear)
            print(f"{name:<22} {'analyze':<12} {med:>10.1f} {p99:>10.1f}")
            for mode, config, before in (
                ("review, cold", review, _cold),
                ("auto, cold", auto, _cold),
                ("review, warm", review, None),
                ("auto, warm", auto, None),
            ):
                verdict = evaluate(config, call, workspace=ws).verdict.value
                n = N if before is None else N // 5
                med, p99 = _time_us(
                    lambda c=config, k=call: evaluate(c, k, workspace=ws), n=n, before=before
                )
                print(f"{name:<22} {mode:<12} {med:>10.1f} {p99:>10.1f}  {verdict}")


if __name__ == "__main__":
    main()
