"""Sandbox overhead: median wall time of `true` via plain subprocess, bare bwrap, and the runner.

Usage: python benchmarks/bench_sandbox.py [--runs N] [--network]

"bare bwrap" runs the exact argv the runner builds (same flags, mounts, seccomp program and
status pipe) through `subprocess.run`, so the gap between it and the runner is the runner's
own Python cost (finding masks, building the argv, the IO loop). The bar (SPEC §10): the
runner's median overhead over a plain subprocess stays under 25 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable

from safehold import SafetyConfig, SandboxConfig
from safehold.adapters.bwrap import run_sandboxed_sync
from safehold.adapters.bwrap._argv import SandboxSpec, build_argv
from safehold.adapters.bwrap._locate import find_bwrap, read_version
from safehold.adapters.bwrap._plan import plan_mounts
from safehold.adapters.bwrap._seccomp import build_filter, native_arch

BAR_MS = 25.0


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

    def once() -> object:
        seccomp_r, seccomp_w = os.pipe()
        os.write(seccomp_w, program)
        os.close(seccomp_w)
        status_r, status_w = os.pipe()
        spec = SandboxSpec(
            network=config.sandbox.network,
            env=env,
            tmp_size_bytes=config.sandbox.tmp_size_mb << 20,
            seccomp_fd=seccomp_r,
            status_fd=status_w,
            command=["true"],
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


def main() -> None:
    """Measure and print the three medians and the runner's overhead."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--network", action="store_true", help="measure with network on")
    args = parser.parse_args()
    config = SafetyConfig(sandbox=SandboxConfig(network=args.network))
    with tempfile.TemporaryDirectory(dir="/var/tmp") as workspace:
        plain, bare, runner, shell = medians_ms(
            [
                lambda: subprocess.run(["true"], check=True),
                bare_bwrap(config, workspace),
                lambda: run_sandboxed_sync(["true"], cwd=workspace, config=config),
                lambda: run_sandboxed_sync("true", cwd=workspace, config=config),
            ],
            args.runs,
        )
    overhead = runner - plain
    net = "on" if args.network else "off"
    print(f"median of {args.runs} runs, network {net}:")
    print(f"  plain subprocess `true`          {plain:7.2f} ms")
    print(f"  bare bwrap, same flags           {bare:7.2f} ms")
    print(f"  runner run_sandboxed_sync(argv)  {runner:7.2f} ms")
    print(f"  runner, `/bin/bash -c true`      {shell:7.2f} ms")
    verdict = "PASS" if overhead < BAR_MS else "FAIL"
    print(f"  runner overhead over plain       {overhead:7.2f} ms  (bar {BAR_MS} ms: {verdict})")


if __name__ == "__main__":
    main()
