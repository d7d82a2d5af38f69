"""Sandbox cost: overhead against bare bwrap, and cost against the workspace's size.

Usage: python benchmarks/bench_sandbox.py [--runs N] [--network] [--big] [--real-home]

Part 1 runs `true` interleaved (so load drift hits all alike) through a plain subprocess,
through bare bwrap with the runner's exact argv (same flags, mounts, seccomp program, status
pipe and limit prefix, built once), and through the runner. The runner's extra is its own
Python (revalidating the scan cache, the IO loop, the post-run protected-path check) and,
for a root caller, the per-run pids cgroup (moving the spawning thread in and out of a
cgroup waits for the kernel's RCU grace periods); it is also shown without that cgroup.
Bars: runner ≤ 1.5 × bare bwrap; runner overhead over plain < 25 ms (SPEC §10).

Part 2 builds workspaces of 0, 10k and 100k files (500k with `--big`; building it takes a
while) and times `run_sandboxed_sync("true")` in each: the first run with the scan cache
emptied, then the median of later runs. Bars: a later run in 100k files within 1.5 × of the
empty workspace's; the first run in 100k files ≤ 1 s.

HOME is a throwaway empty directory unless `--real-home` (then this machine's read roots,
`~/.pyenv` and the like, are walked too, and the first runs include that walk).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
import tracemalloc
from collections.abc import Callable

from safehold import SafetyConfig, SandboxConfig
from safehold.adapters.bwrap import _runner, run_sandboxed_sync
from safehold.adapters.bwrap._argv import SandboxSpec, build_argv
from safehold.adapters.bwrap._limits import limit_prefix
from safehold.adapters.bwrap._locate import find_bwrap, read_version
from safehold.adapters.bwrap._plan import plan_mounts
from safehold.adapters.bwrap._scan import clear_cache
from safehold.adapters.bwrap._seccomp import build_filter, native_arch

BAR_MS = 25.0
BAR_RATIO = 1.5
BAR_FIRST_100K_S = 1.0
FILES_PER_DIR = 20


def medians_ms(fns: list[Callable[[], object]], runs: int, warmup: int = 3) -> list[float]:
    """Median wall-clock ms of each callable, calls interleaved so load drift hits all alike."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            times[i].append((time.perf_counter() - start) * 1000)
    return [statistics.median(t) for t in times]


def bare_bwrap(config: SafetyConfig, workspace: str) -> Callable[[], object]:
    """A callable running the runner's own argv for `true` directly with subprocess.run."""
    bwrap = read_version(find_bwrap(config.sandbox.bwrap_path, cwd=workspace))
    plan = plan_mounts(config, workspace)
    program = build_filter(native_arch(), block_unix_sockets=True)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}
    sandbox = config.sandbox
    command = [*limit_prefix("/bin/bash", sandbox.max_processes, sandbox.max_memory_mb), "true"]

    def once() -> object:
        seccomp_r, seccomp_w = os.pipe()
        os.write(seccomp_w, program)
        os.close(seccomp_w)
        status_r, status_w = os.pipe()
        spec = SandboxSpec(
            network=sandbox.network,
            env=env,
            tmp_size_bytes=sandbox.tmp_size_mb << 20,
            seccomp_fd=seccomp_r,
            status_fd=status_w,
            command=command,
        )
        try:
            return subprocess.run(
                build_argv(bwrap, plan, spec),
                env=env,
                pass_fds=(seccomp_r, status_w),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                check=True,
            )
        finally:
            for fd in (seccomp_r, status_w, status_r):
                os.close(fd)

    return once


def build_tree(root: str, files: int) -> None:
    """`files` small files, FILES_PER_DIR per directory, two levels deep (node_modules-like)."""
    for i in range(0, files, FILES_PER_DIR):
        directory = os.path.join(root, f"pkg{i // 2000}", f"mod{i}")
        os.makedirs(directory, exist_ok=True)
        for j in range(min(FILES_PER_DIR, files - i)):
            with open(os.path.join(directory, f"f{j}.js"), "w") as fh:
                fh.write("x")


def _without_cgroup(config: SafetyConfig, workspace: str) -> Callable[[], object]:
    """The runner as a non-root caller runs it: the process limit by RLIMIT_NPROC only."""

    def once() -> object:
        saved = _runner.open_cgroup
        _runner.open_cgroup = lambda _n: None
        try:
            return run_sandboxed_sync(["true"], cwd=workspace, config=config)
        finally:
            _runner.open_cgroup = saved

    return once


def overhead(config: SafetyConfig, runs: int) -> None:
    """Part 1: plain vs bare bwrap vs runner, on an empty workspace."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as workspace:
        plain, bare, runner, shell, no_cgroup = medians_ms(
            [
                lambda: subprocess.run(["true"], check=True),
                bare_bwrap(config, workspace),
                lambda: run_sandboxed_sync(["true"], cwd=workspace, config=config),
                lambda: run_sandboxed_sync("true", cwd=workspace, config=config),
                _without_cgroup(config, workspace),
            ],
            runs,
        )
    net = "on" if config.sandbox.network else "off"
    ratio = runner / bare
    print(f"part 1: median of {runs} interleaved runs, empty workspace, network {net}")
    print(f"  plain subprocess `true`          {plain:8.2f} ms")
    print(f"  bare bwrap, same argv            {bare:8.2f} ms")
    print(f"  runner run_sandboxed_sync(argv)  {runner:8.2f} ms")
    print(f"  runner, `/bin/bash -c true`      {shell:8.2f} ms")
    print(f"  runner without the pids cgroup   {no_cgroup:8.2f} ms  (as a non-root caller runs)")
    verdict = "PASS" if ratio <= BAR_RATIO else "FAIL"
    print(f"  runner / bare bwrap              {ratio:8.2f} x   (bar {BAR_RATIO} x: {verdict})")
    if os.geteuid() == 0:
        ratio = no_cgroup / bare
        verdict = "PASS" if ratio <= BAR_RATIO else "FAIL"
        print(
            f"  same, without the root-only cgroup {ratio:6.2f} x   (bar {BAR_RATIO} x: {verdict})"
        )
    over = runner - plain
    verdict = "PASS" if over < BAR_MS else "FAIL"
    print(f"  runner overhead over plain       {over:8.2f} ms  (bar {BAR_MS} ms: {verdict})")


def by_size(config: SafetyConfig, sizes: list[int], runs: int) -> None:
    """Part 2: first and later runs against the workspace's size, side by side."""
    rows: list[tuple[int, float, float, float]] = []
    base = tempfile.mkdtemp(dir="/var/tmp", prefix="safehold-bench-")
    try:
        spaces = []
        for size in sizes:
            ws = os.path.join(base, f"ws{size}")
            os.makedirs(ws)
            build_tree(ws, size)
            spaces.append(ws)
        time.sleep(0.2)  # past the racy window of the newest directories
        for size, ws in zip(sizes, spaces, strict=True):
            clear_cache()
            start = time.perf_counter()
            run_sandboxed_sync(["true"], cwd=ws, config=config)
            first = time.perf_counter() - start
            clear_cache()  # again, traced (tracing slows it): the scan's peak memory
            tracemalloc.start()
            run_sandboxed_sync(["true"], cwd=ws, config=config)
            peak = tracemalloc.get_traced_memory()[1] / 1e6
            tracemalloc.stop()
            rows.append((size, first, 0.0, peak))
        # Later runs, interleaved across sizes so load drift hits all alike.
        later = medians_ms(
            [(lambda ws=ws: run_sandboxed_sync(["true"], cwd=ws, config=config)) for ws in spaces],
            runs,
            warmup=1,
        )
        rows = [(s, f, later[i], p) for i, (s, f, _, p) in enumerate(rows)]
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"part 2: workspace size (first run: cache emptied; later: median of {runs})")
    print(f"  {'files':>8}  {'first run':>10}  {'later run':>10}  {'peak MB, first':>14}")
    for size, first, again, peak in rows:
        print(f"  {size:8d}  {first * 1000:8.1f} ms  {again:7.2f} ms  {peak:14.1f}")
    empty = rows[0][2]
    for size, first, again, _ in rows:
        if size == 100_000:
            ratio = again / empty
            verdict = "PASS" if ratio <= BAR_RATIO else "FAIL"
            print(f"  later run 100k / empty      {ratio:6.2f} x  (bar {BAR_RATIO} x: {verdict})")
            verdict = "PASS" if first <= BAR_FIRST_100K_S else "FAIL"
            print(
                f"  first run 100k              {first:6.2f} s  (bar {BAR_FIRST_100K_S} s: {verdict})"
            )


def main() -> None:
    """Run both parts and print the figures with their bars."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--network", action="store_true", help="measure with network on")
    parser.add_argument("--big", action="store_true", help="add the 500k-file workspace")
    parser.add_argument("--real-home", action="store_true", help="keep this machine's HOME")
    args = parser.parse_args()
    home = None
    if not args.real_home:
        home = tempfile.mkdtemp(dir="/var/tmp", prefix="safehold-bench-home-")
        os.environ["HOME"] = home
    try:
        config = SafetyConfig(sandbox=SandboxConfig(network=args.network))
        overhead(config, args.runs)
        sizes = [0, 10_000, 100_000] + ([500_000] if args.big else [])
        by_size(config, sizes, max(5, args.runs // 3))
    finally:
        if home is not None:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
