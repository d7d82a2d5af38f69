"""Shell decisions counted in instructions, not seconds: cold decisions side by side.

Run: `python benchmarks/bench_instructions.py --baseline SRC [--rows git,npm,pipe,script,git-host,python-host]
[--modes auto,review] [--jobs 2]`. Needs valgrind (`valgrind --tool=callgrind`); without
it the script says so and exits 0.

`bench_shell.py` times decisions; on a shared machine its medians move by 10-50% between
runs, more than the differences it is asked to show. Callgrind counts the instructions a
process executes, which do not depend on what else the machine is doing: the same code,
inputs and hash seed (`PYTHONHASHSEED=0`) give the same count within a fraction of a
percent. For each row (`bench_shell.py`'s `git status`, `npm test`, the 5-part pipeline and
the 500-character script, each for safehold's sandboxed runner as there; `git-host` and
`python-host`, its `git status, host` and inline Python rows, for the host) and mode (auto,
review), a child process builds the workspace, makes ten cold decisions (as
`bench_shell.py`'s "cold": the text's analysis, the second parser's opinion and the parse
trees forgotten before each), then N more; the same child with N = 0 is counted too, and
the difference divided by N is one cold decision. Instructions are not time (a system call
counts as one instruction, memory stalls not at all), so this complements `bench_shell.py`,
it does not replace it. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from _sides import THIS_SRC

HERE = os.path.dirname(os.path.abspath(__file__))
# Decisions counted per row: enough that the set-up's own variation (a few thousand
# instructions) is small beside them.
COUNTS = {"git": 100, "npm": 100, "pipe": 10, "script": 3, "git-host": 100, "python-host": 20}
_REFS = re.compile(r"refs:\s*([\d,]+)")


def _child(row: str, mode: str, n: int) -> None:
    """Inside the counted process: set up, warm up, then `n` cold decisions."""
    sys.path.insert(0, HERE)
    import bench_shell as b

    from safehold import SafetyConfig, ToolCall, ToolKind, evaluate

    commands = {
        "git": "git status", "npm": "npm test", "pipe": b.PIPELINE, "script": b.SCRIPT,
        "git-host": "git status", "python-host": b.INLINE_PYTHON,
    }  # fmt: skip
    config = SafetyConfig().with_mode("auto") if mode == "auto" else SafetyConfig()
    runner = "host" if row.endswith("-host") else "sandbox"
    extra = {"runner": runner} if b._RUNNER else {}
    call = ToolCall("bash", {"command": commands[row]}, ToolKind.EXECUTE)
    with tempfile.TemporaryDirectory() as root:
        ws = b._workspace(root)
        for _ in range(10 + n):
            b._cold()
            evaluate(config, call, workspace=ws, **extra)  # type: ignore[arg-type]


def _count(src: str, row: str, mode: str, n: int) -> int:
    env = {**os.environ, "PYTHONPATH": src, "PYTHONHASHSEED": "0"}
    command = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
        sys.executable, os.path.abspath(__file__), "--child", row, mode, str(n),
    ]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found = _REFS.search(done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in callgrind's output for {row} {mode}")
    return int(found.group(1).replace(",", ""))


def _per_decision(src: str, row: str, mode: str) -> float:
    n = COUNTS[row]
    return (_count(src, row, mode, n) - _count(src, row, mode, 0)) / n


def main() -> None:
    """Count both sides and print them side by side."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", help="src directory of the checkout to compare with")
    parser.add_argument("--rows", default="git,npm,pipe,script,git-host,python-host")
    parser.add_argument("--modes", default="auto,review")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        row, mode, n = args.child
        _child(row, mode, int(n))
        return
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing counted")
        return
    rows = [r for r in args.rows.split(",") if r]
    modes = [m for m in args.modes.split(",") if m]
    unknown = [r for r in rows if r not in COUNTS] + [
        m for m in modes if m not in ("auto", "review")
    ]
    if unknown:
        parser.error(f"--rows/--modes: unknown {', '.join(unknown)}")
    sides = {"this": THIS_SRC, **({"base": args.baseline} if args.baseline else {})}
    jobs = [(side, src, row, mode) for row in rows for mode in modes for side, src in sides.items()]
    with ThreadPoolExecutor(max(args.jobs, 1)) as pool:
        counts = list(pool.map(lambda j: _per_decision(j[1], j[2], j[3]), jobs))
    got = {(side, row, mode): c for (side, _, row, mode), c in zip(jobs, counts, strict=True)}
    print(
        "instructions per cold decision (sandboxed runner; `-host` rows: the host's); "
        f"base = {args.baseline or '-'}"
    )
    print(f"{'row':<8} {'mode':<7} {'this':>12} {'base':>12}  ratio")
    for row in rows:
        for mode in modes:
            this = got[("this", row, mode)]
            base = got.get(("base", row, mode))
            ratio = f"{this / base:.2f}x" if base else "-"
            shown = f"{base:>12,.0f}" if base is not None else f"{'-':>12}"
            print(f"{row:<8} {mode:<7} {this:>12,.0f} {shown}  {ratio}")


if __name__ == "__main__":
    main()
