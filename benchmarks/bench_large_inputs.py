"""The slowest decisions: 1 MiB inputs of the shapes that once took seconds (issue 23).

Run: `python benchmarks/bench_large_inputs.py [--baseline SRC] [--rounds N] [--n N]`.
Each shape is one tool call about 1 MiB long (a Write whose content is `--- ` and blanks,
many patch header lines, a heredoc, a command of blanks, many URLs, …), decided by
`evaluate` in auto mode, for the host (`runner="host"`, the default) and for safehold's
sandbox. Prints the median and the maximum wall time of `--n` decisions per row (analyses
cached per text are cleared before each, so every decision is a first sight), and the
verdict. With `--baseline SRC` (a `src` of another checkout, which need not know about
runners), the same rows are timed by that tree in alternating child processes, side by
side. Asserts nothing.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import tempfile
import time
from typing import Any

from _sides import alternate

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate

MIB = 1 << 20


def _shapes() -> dict[str, ToolCall]:
    line = "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-x\n+y\n"
    body = "print('hello')\n" * (MIB // 15)
    urls = " ".join(f"https://example{i}.com/p" for i in range(MIB // 26))
    return {
        "write: '--- ' + blanks": ToolCall(
            "write_file", {"path": "notes.txt", "content": "--- " + " " * MIB}, ToolKind.EDIT
        ),
        "edit: patch key, blanks": ToolCall(
            "apply_patch", {"patch": "--- " + " " * MIB + "x"}, ToolKind.EDIT
        ),
        "write: many '--- ' headers": ToolCall(
            "write_file",
            {"path": "fix.diff", "content": line * (MIB // len(line))},
            ToolKind.EDIT,
        ),
        "write: blanks in text": ToolCall(
            "write_file",
            {"path": "notes.txt", "content": ("a " + " " * 200) * (MIB // 202)},
            ToolKind.EDIT,
        ),
        "write: many URLs": ToolCall(
            "write_file", {"path": "links.txt", "content": urls}, ToolKind.EDIT
        ),
        "bash: quoted heredoc": ToolCall(
            "bash", {"command": f"cat > gen.py <<'EOF'\n{body}EOF"}, ToolKind.EXECUTE
        ),
        "bash: heredoc to python": ToolCall(
            "bash", {"command": f"python3 - <<'EOF'\n{body}EOF"}, ToolKind.EXECUTE
        ),
        "bash: blanks then ls": ToolCall("bash", {"command": " " * MIB + "ls"}, ToolKind.EXECUTE),
    }


def _clear() -> None:
    # Forget per-text analyses so each decision reads its input afresh (as in bench_shell).
    try:
        from safehold.policy.shell.analysis import _analyze_text
        from safehold.policy.shell.crosscheck import disagreement

        _analyze_text.cache_clear()
        disagreement.cache_clear()
    except ImportError:
        pass
    try:
        from safehold.policy.shell.python_code import read_python

        read_python.cache_clear()
    except ImportError:
        pass


def measure(n: int) -> list[list[Any]]:
    """[shape, runner, median ms, max ms, verdict] per row."""
    config = SafetyConfig().with_mode("auto")
    runners = "runner" in inspect.signature(evaluate).parameters
    rows: list[list[Any]] = []
    with tempfile.TemporaryDirectory() as root:
        ws = os.path.join(root, "proj")
        os.makedirs(os.path.join(ws, "src"))
        for name, call in _shapes().items():
            for runner in ("host", "sandbox"):
                kwargs: dict[str, Any] = {"runner": runner} if runners else {}
                if not runners and runner == "host":
                    config_for = config.replace(sandbox={"mode": "none"})
                else:
                    config_for = config
                times = []
                verdict = ""
                for _ in range(n):
                    _clear()
                    t0 = time.perf_counter()
                    decision = evaluate(config_for, call, workspace=ws, **kwargs)
                    times.append((time.perf_counter() - t0) * 1000)
                    verdict = decision.verdict.value
                rows.append([name, runner, statistics.median(times), max(times), verdict])
    return rows


def main() -> None:
    """Measure and print (side by side with `--baseline`)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", help="src directory of the checkout to compare with")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure(args.n)))
        return
    if not args.baseline:
        print(f"{'shape':<28} {'runner':<8} {'median ms':>10} {'max ms':>10}  verdict")
        for name, runner, med, mx, verdict in measure(args.n):
            print(f"{name:<28} {runner:<8} {med:>10.1f} {mx:>10.1f}  {verdict}")
        return
    this_runs, base_runs = alternate(__file__, args.baseline, args.rounds, args.n)
    print(f"{args.rounds} alternating rounds of {args.n}; base = {args.baseline}")
    print(
        f"{'shape':<28} {'runner':<8} {'this med':>9} {'this max':>9} "
        f"{'base med':>9} {'base max':>9}  verdict (this/base)"
    )
    for k, (name, runner, _, _, verdict) in enumerate(this_runs[0]):
        this_med = statistics.median(run[k][2] for run in this_runs)
        this_max = max(run[k][3] for run in this_runs)
        base_med = statistics.median(run[k][2] for run in base_runs)
        base_max = max(run[k][3] for run in base_runs)
        print(
            f"{name:<28} {runner:<8} {this_med:>9.1f} {this_max:>9.1f} "
            f"{base_med:>9.1f} {base_max:>9.1f}  {verdict}/{base_runs[0][k][4]}"
        )


if __name__ == "__main__":
    main()
