"""Shell decisions: median and p99 per execute decision (bar, SPEC §10: typical under 200 µs).

Run: `python benchmarks/bench_shell.py [--baseline SRC] [--rounds N]`. Builds a workspace in a temporary directory and
times `evaluate` on an execute call for each workload, in review mode (the default: the
second parser never runs, a person sees the command) and in auto mode (every command that
would run unattended is also read by bashlex). Analyses and second opinions are cached per
command text: "cold" clears them (and the recent parse trees) before each call (a command text seen for the
first time; memos of its words, rules and path checks may still hold from earlier
commands), "first" clears every per-command memo too (nothing of it seen before), "warm"
clears nothing (an agent repeating `git status`). Also times `analyze` alone, cold, and
the inline Python reader (`read_python`) alone on the snippet, cold.
The rows take turns in ten batches, so a slow spell of a shared machine lands on every row
alike; the first row times a fixed pure-Python loop, to show how fast the machine was.
Prints figures; asserts nothing.

`--baseline SRC` (a `src` directory of another checkout, e.g. `git archive REV src | tar x`)
measures it side by side: each round runs one child process per side, alternating, and the
table shows the median over rounds of each side's medians, so load on a shared machine
hits both columns alike.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable

from _sides import alternate

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.policy._arguments import _MEMO as _ARGUMENTS
from safehold.policy.grants import _path_key
from safehold.policy.paths import compile_policy
from safehold.policy.shell import assess as _assess_module
from safehold.policy.shell import locations as _locations_module
from safehold.policy.shell import wrappers as _wrappers_module
from safehold.policy.shell.analysis import _analyze_text, analyze
from safehold.policy.shell.crosscheck import disagreement
from safehold.policy.shell.programs import trees as _trees_module
from safehold.policy.shell.programs.classes import _class_reasons_memo, _spellings_memo
from safehold.policy.shell.rules import compile_rules

try:  # where they live since `assess` was split (a `--baseline` may have them in `assess`)
    from safehold.policy.shell import findings as _findings_module
    from safehold.policy.shell.check_rules import _home_spelled_memo
    from safehold.policy.shell.findings import _DIRS
except ImportError:  # pragma: no cover - only under an older baseline
    _findings_module = _assess_module  # type: ignore[assignment]
    from safehold.policy.shell.assess import (  # type: ignore[attr-defined,no-redef]
        _DIRS,
        _home_spelled_memo,
    )

try:  # where they live since `assess` was split (a `--baseline` may lack them)
    from safehold.policy.shell import check_paths as _check_paths_module
    from safehold.policy.shell import check_rules as _check_rules_module
except ImportError:  # pragma: no cover - only under an older baseline
    _check_paths_module = _check_rules_module = None  # type: ignore[assignment]
from safehold.policy.shell.programs import command_strings as _command_strings_module

try:  # absent from a `--baseline` checkout before the closed world
    from safehold.policy.shell import effects as _effects_module
except ImportError:  # pragma: no cover - only under an older baseline
    _effects_module = None  # type: ignore[assignment]

try:  # absent from a `--baseline` checkout before trees were remembered
    from safehold.policy.shell.parse import forget_trees
except ImportError:  # pragma: no cover - only under an older baseline
    forget_trees = None  # type: ignore[assignment]

try:  # absent from a `--baseline` checkout before the Python reader
    from safehold.policy.shell.python_code import read_python
except ImportError:  # pragma: no cover - only under an older baseline
    read_python = None  # type: ignore[assignment]

# Per-command memos by value (words, directories, grant keys): "first" clears them too.
_VALUE_MEMOS = (
    (_findings_module, "_DIRS_BY_VALUE"),
    (_assess_module, "_grant_key_memo"),
    (_effects_module, "_host_effects_memo"),
    (_locations_module, "_resolve_dir"),
    (_trees_module, "_walking"),
    (_wrappers_module, "_EXEC_VALUES"),
    (_check_rules_module, "_RULES_BY_VALUE"),
    (_check_paths_module, "_path_candidates"),
    (_command_strings_module, "_command_string_step_of"),
)

# A baseline from before the runner takes no `runner=` (it judged as the config's sandbox).
_RUNNER = "runner" in inspect.signature(evaluate).parameters

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

# A typical agent snippet (under 500 characters), judged on the host, where the Python
# reader decides it (docs/shell.md, "Inline Python").
INLINE_PYTHON = """python3 - <<'PY'
import json, re
from pathlib import Path
text = Path('src/app.py').read_text()
names = sorted(set(re.findall(r'def (\\w+)', text)))
with open('package.json') as f:
    pkg = json.load(f)
print(json.dumps({'functions': names, 'name': pkg.get('name')}, indent=2))
for i, line in enumerate(text.splitlines()[:40], 1):
    if 'TODO' in line:
        print(f'{i}: {line.strip()}')
PY"""
INLINE_CODE = INLINE_PYTHON.split("\n", 1)[1].rsplit("\n", 1)[0]


def _calibration() -> None:
    # A fixed amount of pure-Python work: its row shows how fast the machine was during
    # the run (shared machines change speed by up to 2x), so runs can be compared.
    total = 0
    for i in range(1000):
        total += i * i


def _interleaved(
    rows: list[tuple[Callable[[], object], Callable[[], object] | None, int]], rounds: int = 10
) -> list[tuple[float, float]]:
    """(median, p99) µs per row; rows take turns in `rounds` batches.

    Interleaving spreads a slow spell of the machine over every row alike, instead of
    landing on whichever row happened to be running.
    """
    samples: list[list[float]] = [[] for _ in rows]
    for fn, _before, _n in rows:
        for _ in range(20):
            fn()
    for _ in range(rounds):
        for k, (fn, before, n) in enumerate(rows):
            out = samples[k]
            for _ in range(max(n // rounds, 1)):
                if before is not None:
                    before()
                t0 = time.perf_counter_ns()
                fn()
                out.append((time.perf_counter_ns() - t0) / 1000)
    result = []
    for out in samples:
        out.sort()
        result.append((statistics.median(out), out[int(len(out) * 0.99)]))
    return result


def _workspace(root: str) -> str:
    ws = os.path.join(root, "proj")
    os.makedirs(os.path.join(ws, "src"))
    for rel in ("src/app.py", "README.md", "package.json"):
        with open(os.path.join(ws, rel), "w", encoding="utf-8") as f:
            f.write("x\n")
    return ws


def _forget_analyses() -> None:
    # `analyze` alone, cold: the text's analysis and its parse tree are forgotten.
    _analyze_text.cache_clear()
    if forget_trees is not None:
        forget_trees()


def _cold() -> None:
    # Forget earlier analyses of the same text: the first time a command is seen.
    _analyze_text.cache_clear()
    disagreement.cache_clear()
    if read_python is not None:
        read_python.cache_clear()
    if forget_trees is not None:  # the parse trees of recent texts, per thread
        forget_trees()


def _first_sight(config: SafetyConfig, workspace: str) -> Callable[[], None]:
    """Forget every per-command memo too (words, rules, classes, directories, path checks):
    a command none of whose words was seen before. Compiled configs are kept."""
    policy = compile_policy(config, workspace)
    rules = compile_rules(config.command_rules)

    def clear() -> None:
        _cold()
        for memo in (_home_spelled_memo, _spellings_memo, _class_reasons_memo, _path_key):
            memo.cache_clear()
        _DIRS.clear()
        for holder, name in _VALUE_MEMOS:  # memos by value a baseline may not have
            memo = getattr(holder, name, None)
            if memo is not None:
                getattr(memo, "cache_clear", getattr(memo, "clear", lambda: None))()
        _ARGUMENTS.clear()
        rules._memo.cache_clear()
        policy._memo.judge.cache_clear()
        policy._memo.denied.cache_clear()

    return clear


def measure(n: int = N) -> list[tuple[str, str, float, float, str]]:
    """(workload, mode, median µs, p99 µs, verdict) for every workload and mode."""
    # The usual rows decide for the sandbox (like for like with a baseline from before the
    # runner existed, which took the config's bwrap at its word); host rows say so.
    workloads = {
        "git status": ("git status", "sandbox"),
        "git status, host": ("git status", "host"),
        "npm test": ("npm test", "sandbox"),
        "5-part pipeline": (PIPELINE, "sandbox"),
        f"{len(SCRIPT)}-char script": (SCRIPT, "sandbox"),
        f"{len(INLINE_PYTHON)}-char python, host": (INLINE_PYTHON, "host"),
    }
    review = SafetyConfig()
    auto = review.with_mode("auto")
    labels: list[tuple[str, str, str]] = [("calibration", "1000-step loop", "")]
    rows: list[tuple[Callable[[], object], Callable[[], object] | None, int]] = [
        (_calibration, None, n)
    ]
    with tempfile.TemporaryDirectory() as root:
        ws = _workspace(root)
        for name, (command, runner) in workloads.items():
            call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
            labels.append((name, "analyze", ""))
            rows.append((lambda c=command: analyze(c), _forget_analyses, n))
            if command == INLINE_PYTHON and read_python is not None:  # baselines may lack it
                # The Python reader alone, cold: `ast.parse` and the walk of the tree.
                labels.append((name, "read_python", ""))
                rows.append((lambda: read_python(INLINE_CODE), read_python.cache_clear, n))
            for mode, config, before in (
                ("review, first", review, _first_sight(review, ws)),
                ("auto, first", auto, _first_sight(auto, ws)),
                ("review, cold", review, _cold),
                ("auto, cold", auto, _cold),
                ("review, warm", review, None),
                ("auto, warm", auto, None),
            ):
                extra = {"runner": runner} if _RUNNER else {}
                verdict = evaluate(config, call, workspace=ws, **extra).verdict.value  # type: ignore[arg-type]
                labels.append((name, mode, verdict))
                k = n if before is None else max(n // 5, 1)
                rows.append(
                    (
                        lambda c=config, k=call, e=extra: evaluate(c, k, workspace=ws, **e),  # type: ignore[arg-type]
                        before,
                        k,
                    )
                )
        timed = _interleaved(rows)
    return [(a, b, med, p99, v) for (a, b, v), (med, p99) in zip(labels, timed, strict=True)]


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
        print(f"{'workload':<22} {'mode':<12} {'median µs':>10} {'p99 µs':>10}  verdict")
        for name, mode, med, p99, verdict in measure(args.n):
            print(f"{name:<22} {mode:<12} {med:>10.1f} {p99:>10.1f}  {verdict}")
        return
    this_runs, base_runs = alternate(__file__, args.baseline, args.rounds, args.n)
    sides = {"this": this_runs, "base": base_runs}
    print(f"medians over {args.rounds} alternating rounds; base = {args.baseline}")
    print(f"{'workload':<22} {'mode':<12} {'this µs':>9} {'base µs':>9}  verdict (this/base)")
    # Rows are matched by (workload, mode): a baseline may lack a row (an older checkout has
    # no Python reader), which then shows `-`.
    by_label = {
        side: [{(r[0], r[1]): r for r in run} for run in runs] for side, runs in sides.items()
    }
    for name, mode, _, _, verdict in sides["this"][0]:
        this = statistics.median(run[(name, mode)][2] for run in by_label["this"])
        if (name, mode) not in by_label["base"][0]:
            print(f"{name:<22} {mode:<12} {this:>9.1f} {'-':>9}  {verdict}/-")
            continue
        base = statistics.median(run[(name, mode)][2] for run in by_label["base"])
        base_verdict = by_label["base"][0][(name, mode)][4]
        ratio = f"{this / base:.2f}x" if base else "-"
        print(f"{name:<22} {mode:<12} {this:>9.1f} {base:>9.1f}  {verdict}/{base_verdict}  {ratio}")


if __name__ == "__main__":
    main()
