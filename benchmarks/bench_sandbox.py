"""Sandbox cost: overhead against bare bwrap, and cost against the workspace's size.

Usage: python benchmarks/bench_sandbox.py [--runs N] [--network] [--big] [--no-home] [--part1]

Every part prints the load average: figures on a loaded machine are several times slower.

Part 1 runs `true` interleaved (so load drift hits all alike; in a new order each round) through a plain subprocess,
through bare bwrap with the runner's exact argv (same flags, mounts, seccomp program, status
pipe and limit prefix, built once), through the runner, and `safehold run -- true` from a
shell (a fresh interpreter) twice: in-process (`SAFEHOLD_HOOK_SERVER=0`: the interpreter
loads the config models, plans and probes bwrap itself) and planned by the warm hook
server (started for this, in a throwaway runtime directory: the client loads only a few
C modules beyond what the interpreter loads anyway, then spawns bwrap with
`os.posix_spawn`), with the median and the maximum of each. Python's own start (`python -c pass`, with `-S`, `-I`, both) bounds what any
`safehold run` can cost. The runner's extra
is its own Python (revalidating the cached mount plan, the IO loop, the post-run
protected-path check) and, for a root caller, the per-run pids cgroup (bwrap's child is
moved in while it waits on `--block-fd`; the move waits for an RCU grace period, overlapped
with bwrap's setup); it is also shown without that cgroup. Bars: runner ≤ 1.5 × bare bwrap
(medians); `safehold run -- true` (warm) ≤ 100 ms; runner overhead over plain < 25 ms (SPEC §10).
A calibration loop row shows how fast the machine was. With `PYTHONDONTWRITEBYTECODE` set
and no `.pyc` files next to safehold's sources, every fresh interpreter compiles them
first: the bench says so (run `python -m compileall src` once).

Part 2 builds workspaces of 0, 10k and 100k files (500k with `--big`, about a minute to
build) and times `run_sandboxed_sync("true")` in each, with HOME a throwaway empty directory:

- cold: no scan cache in the process nor on disk (the first run on a machine);
- new process: the in-process caches emptied, the store on disk kept (each `safehold run`);
- later: the same process again, median and max, interleaved with bare bwrap (that
  workspace's own argv) and across the workspaces.

Bars: a later run ≤ 1.5 × bare bwrap in every workspace (100k files included); the first
run in 100k files ≤ 1 s.

Part 3 (skip with `--no-home`) does the same in an empty workspace with this machine's real
HOME, whose read roots (`~/.pyenv`, `~/.rustup`, ...) are then walked; the store goes to a
throwaway `XDG_STATE_HOME`, never the user's.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable

from safehold import SafetyConfig, SandboxConfig
from safehold.adapters.bwrap import _runner, _store, run_sandboxed_sync
from safehold.adapters.bwrap._argv import SandboxSpec, build_argv
from safehold.adapters.bwrap._limits import limit_prefix
from safehold.adapters.bwrap._locate import find_bwrap, read_version
from safehold.adapters.bwrap._plan import _read_roots, clear_plans, home_dir, plan_mounts
from safehold.adapters.bwrap._scan import clear_cache
from safehold.adapters.bwrap._seccomp import build_filter, native_arch

BAR_MS = 25.0
BAR_RATIO = 1.5
BAR_CLI_MS = 100.0
BAR_FIRST_100K_S = 1.0
FILES_PER_DIR = 20


def timings_ms(
    fns: list[Callable[[], object]], runs: int, warmup: int = 3
) -> list[tuple[float, float]]:
    """(median, max) wall-clock ms of each callable, calls interleaved so load drift hits all
    alike, in a new order each round: a sandbox's teardown (namespaces are freed after it
    exits) slows whatever runs next, and a fixed order would always hand that to the same row.
    """
    for fn in fns:
        for _ in range(warmup):
            fn()
    times: list[list[float]] = [[] for _ in fns]
    order = list(range(len(fns)))
    shuffle = random.Random(25).shuffle
    for _ in range(runs):
        shuffle(order)
        for i in order:
            start = time.perf_counter()
            fns[i]()
            times[i].append((time.perf_counter() - start) * 1000)
    return [(statistics.median(t), max(t)) for t in times]


def bare_bwrap(config: SafetyConfig, workspace: str) -> Callable[[], object]:
    """A callable running the runner's own argv for `true` directly with subprocess.run."""
    bwrap = read_version(find_bwrap(config.sandbox.bwrap_path, cwd=workspace))
    plan = plan_mounts(config, workspace)
    program = build_filter(native_arch())
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
    """`files` empty files, FILES_PER_DIR per directory, two levels deep (node_modules-like)."""
    for i in range(0, files, FILES_PER_DIR):
        directory = os.path.join(root, f"pkg{i // 2000}", f"mod{i}")
        os.makedirs(directory, exist_ok=True)
        for j in range(min(FILES_PER_DIR, files - i)):
            os.close(os.open(os.path.join(directory, f"f{j}.js"), os.O_CREAT | os.O_WRONLY))


def load() -> str:
    """The 1-minute load average and the core count, for reading the figures."""
    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"


def drop_store() -> None:
    """Empty the scan and plan caches in this process and on disk: a cold first run."""
    clear_cache()
    clear_plans()
    _store.wait()
    shutil.rmtree(os.path.join(_store.store_root(home_dir()), "scan"), ignore_errors=True)


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call takes."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _without_cgroup(config: SafetyConfig, workspace: str) -> Callable[[], object]:
    """The runner as a non-root caller runs it: the process limit by RLIMIT_NPROC only."""

    def once() -> object:
        names = vars(_runner)  # open_cgroup is the runner's import, not its API
        saved = names["open_cgroup"]
        names["open_cgroup"] = lambda _n: None
        try:
            return run_sandboxed_sync(["true"], cwd=workspace, config=config)
        finally:
            names["open_cgroup"] = saved

    return once


def _calibration() -> None:
    # A fixed amount of pure-Python work: its row shows how fast the machine was during the
    # run (a shared machine changes speed by several times), so runs can be compared.
    total = 0
    for i in range(100_000):
        total += i * i


def _cli(workspace: str, *, warm: bool) -> Callable[[], object]:
    """`safehold run -- true` from a shell: a fresh interpreter, as a user types it;
    planned by the warm hook server or (`warm=False`) wholly in-process."""
    cli = os.path.join(os.path.dirname(sys.executable), "safehold")
    argv = [cli] if os.path.exists(cli) else [sys.executable, "-m", "safehold"]
    env = {**os.environ, "SAFEHOLD_HOOK_SERVER": "1" if warm else "0"}
    return lambda: subprocess.run(
        [*argv, "run", "--", "true"], cwd=workspace, env=env, check=True, capture_output=True
    )


def _python(*flags: str, code: str = "pass") -> Callable[[], object]:
    """A fresh interpreter that does nothing: the floor of any `safehold run`."""
    return lambda: subprocess.run([sys.executable, *flags, "-c", code], check=True)


_SPAWN_FLOOR = "import _socket, select, zlib, _json, _queue"
"""What the warm client imports beyond the interpreter's own start (and safehold's modules):
with bare bwrap, the floor of a warm run. (The client used to import
`subprocess, selectors, json`: that alone cost more than bwrap.)"""


def start_server(runtime: str) -> None:
    """A warm hook server for this HOME in `runtime` (`safehold hook warm`), once listening."""
    os.environ["XDG_RUNTIME_DIR"] = runtime
    env = {**os.environ, "SAFEHOLD_HOOK_SERVER": "1"}
    subprocess.run([sys.executable, "-m", "safehold.cli", "hook", "warm"], env=env, check=True)
    deadline = time.monotonic() + 120
    folder = os.path.join(runtime, "safehold")
    while not any(n.endswith(".sock") for n in os.listdir(folder) if os.path.isdir(folder)):
        if time.monotonic() > deadline:
            raise SystemExit("the warm hook server did not start")
        time.sleep(0.1)


def stop_server(runtime: str) -> None:
    """SIGTERM the server `start_server` started (its pid is in the lock file)."""
    folder = os.path.join(runtime, "safehold")
    for name in os.listdir(folder) if os.path.isdir(folder) else ():
        if name.endswith(".lock"):
            with (
                open(os.path.join(folder, name), encoding="ascii") as fh,
                contextlib.suppress(ValueError, OSError),
            ):
                os.kill(int(fh.read().split()[0]), signal.SIGTERM)


def overhead(config: SafetyConfig, runs: int) -> None:
    """Part 1: plain vs bare bwrap vs runner vs the CLI, on an empty workspace."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as workspace:
        rows = timings_ms(
            [
                _calibration,
                lambda: subprocess.run(["true"], check=True),
                bare_bwrap(config, workspace),
                lambda: run_sandboxed_sync(["true"], cwd=workspace, config=config),
                lambda: run_sandboxed_sync("true", cwd=workspace, config=config),
                _without_cgroup(config, workspace),
                _cli(workspace, warm=False),
                _cli(workspace, warm=True),
                _python(),
                _python("-S"),
                _python("-I"),
                _python("-I", "-S"),
                _python(code=_SPAWN_FLOOR),
            ],
            runs,
        )
    calibration, plain, bare, runner, shell, no_cgroup, cli, warm, *pythons = rows
    net = "on" if config.sandbox.network else "off"
    print(f"part 1: {runs} interleaved runs, empty workspace, network {net} ({load()})")
    print(f"  {'':44} {'median':>8} {'max':>8}")
    for name, (median, worst) in (
        ("calibration (100k-step loop)", calibration),
        ("plain subprocess `true`", plain),
        ("bare bwrap, same argv", bare),
        ("runner run_sandboxed_sync(argv)", runner),
        ("runner, `/bin/bash -c true`", shell),
        ("runner without the pids cgroup", no_cgroup),
        ("`safehold run -- true`, in-process", cli),
        ("`safehold run -- true`, warm server", warm),
        ("python -c pass", pythons[0]),
        ("python -S -c pass", pythons[1]),
        ("python -I -c pass", pythons[2]),
        ("python -I -S -c pass", pythons[3]),
        (f"python -c '{_SPAWN_FLOOR}'", pythons[4]),
    ):
        print(f"  {name:44} {median:8.2f} {worst:8.2f} ms")
    ratio = runner[0] / bare[0]
    verdict = "PASS" if ratio <= BAR_RATIO else "FAIL"
    print(f"  runner / bare bwrap (medians)      {ratio:8.2f} x   (bar {BAR_RATIO} x: {verdict})")
    if os.geteuid() == 0:
        ratio = no_cgroup[0] / bare[0]
        verdict = "PASS" if ratio <= BAR_RATIO else "FAIL"
        print(
            f"  same, without the root-only cgroup {ratio:8.2f} x   (bar {BAR_RATIO} x: {verdict})"
        )
    verdict = "PASS" if warm[0] <= BAR_CLI_MS else "FAIL"
    print(
        f"  `safehold run -- true`, warm       {warm[0]:8.2f} ms  (bar {BAR_CLI_MS:.0f} ms: "
        f"{verdict}; in-process {cli[0]:.2f} ms; bare bwrap {bare[0]:.2f} ms; "
        f"python -c pass {pythons[0][0]:.2f} ms)"
    )
    floor = pythons[4][0] + bare[0]
    print(
        f"  warm run over python -c pass + bare bwrap {warm[0] - pythons[0][0] - bare[0]:8.2f} ms; "
        f"over the spawn floor (`{_SPAWN_FLOOR}` + bare bwrap, {floor:.2f} ms) "
        f"{warm[0] - floor:.2f} ms"
    )
    over = runner[0] - plain[0]
    verdict = "PASS" if over < BAR_MS else "FAIL"
    print(f"  runner overhead over plain         {over:8.2f} ms  (bar {BAR_MS} ms: {verdict})")


def cold_and_warm(
    config: SafetyConfig, spaces: list[str], runs: int
) -> list[tuple[float, float, float, tuple[float, float], tuple[float, float]]]:
    """Per workspace: cold first run, first run of a new process, peak MB, later runs of the
    runner and of bare bwrap in that workspace (median, max ms).

    Cold: no cache in the process or on disk. New process: the in-process caches emptied,
    the store on disk kept (what each `safehold run` is). Later: the same process again,
    interleaved with bare bwrap and across workspaces so load drift hits all alike.
    """
    rows = []
    for ws in spaces:

        def once(ws: str = ws) -> object:
            return run_sandboxed_sync(["true"], cwd=ws, config=config)

        drop_store()
        cold = timed(once)
        _store.wait()
        clear_cache()
        clear_plans()
        fresh = timed(once)
        drop_store()  # again, traced (tracing slows it): the cold scan's peak memory
        tracemalloc.start()
        once()
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        _store.wait()
        rows.append((cold, fresh, peak))
    time.sleep(0.2)  # past the racy window of the store just written

    def runner(ws: str) -> Callable[[], object]:
        return lambda: run_sandboxed_sync(["true"], cwd=ws, config=config)

    fns: list[Callable[[], object]] = []
    for ws in spaces:
        fns.append(runner(ws))
        fns.append(bare_bwrap(config, ws))
    timings = timings_ms(fns, runs, warmup=2)
    return [
        (cold, fresh, peak, timings[2 * i], timings[2 * i + 1])
        for i, (cold, fresh, peak) in enumerate(rows)
    ]


def by_size(config: SafetyConfig, sizes: list[int], runs: int) -> None:
    """Part 2: cold, new-process and later runs against the workspace's size, side by side."""
    base = tempfile.mkdtemp(dir="/var/tmp", prefix="safehold-bench-")
    try:
        spaces = []
        for size in sizes:
            ws = os.path.join(base, f"ws{size}")
            os.makedirs(ws)
            start = time.perf_counter()
            build_tree(ws, size)
            if size:
                print(f"  (built {size} files in {time.perf_counter() - start:.1f} s)")
            spaces.append(ws)
        time.sleep(0.2)  # past the racy window of the newest directories
        print(f"part 2: workspace size ({load()})")
        rows = cold_and_warm(config, spaces, runs)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"  later: {runs} runs in the same process, interleaved with bare bwrap; {load()}")
    print(
        f"  {'files':>8}  {'cold first':>10}  {'new process':>11}  {'runner med/max':>16}  "
        f"{'bare med/max':>14}  {'ratio':>6}  {'peak MB':>7}"
    )
    for size, (cold, fresh, peak, runner, bare) in zip(sizes, rows, strict=True):
        print(
            f"  {size:8d}  {cold * 1000:7.0f} ms  {fresh * 1000:8.0f} ms  "
            f"{runner[0]:6.1f}/{runner[1]:6.1f} ms  {bare[0]:5.1f}/{bare[1]:5.1f} ms  "
            f"{runner[0] / bare[0]:5.2f}x  {peak:7.1f}"
        )
    for size, (cold, fresh, _, runner, bare) in zip(sizes, rows, strict=True):
        ratio = runner[0] / bare[0]
        verdict = "PASS" if ratio <= BAR_RATIO else "FAIL"
        print(f"  {size} files: runner / bare bwrap {ratio:5.2f} x  (bar {BAR_RATIO} x: {verdict})")
        if size == 100_000:
            for name, value in (("cold first run 100k", cold), ("new-process run 100k", fresh)):
                verdict = "PASS" if value <= BAR_FIRST_100K_S else "FAIL"
                print(f"  {name:<26}  {value:6.2f} s  (bar {BAR_FIRST_100K_S} s: {verdict})")


def real_home(config: SafetyConfig, home: str, runs: int) -> None:
    """Part 3: an empty workspace with this machine's HOME, whose read roots are walked."""
    roots, _ = _read_roots(config, "/", home)
    entries = 0
    for root in roots:
        for _dirpath, dirs, files in os.walk(root):
            entries += len(dirs) + len(files)
    saved = os.environ["HOME"], os.environ.get("XDG_STATE_HOME")
    state = tempfile.mkdtemp(dir="/var/tmp", prefix="safehold-bench-state-")
    os.environ["HOME"], os.environ["XDG_STATE_HOME"] = home, state  # never the user's store
    try:
        with tempfile.TemporaryDirectory(dir="/var/tmp") as ws:
            print(f"part 3: this machine's read roots, {entries} entries ({load()})")
            ((cold, fresh, _peak, (median, worst), _bare),) = cold_and_warm(config, [ws], runs)
    finally:
        os.environ["HOME"] = saved[0]
        if saved[1] is None:
            del os.environ["XDG_STATE_HOME"]
        else:
            os.environ["XDG_STATE_HOME"] = saved[1]
        shutil.rmtree(state, ignore_errors=True)
    print(f"  read roots: {' '.join(roots)}")
    print(
        f"  cold first {cold * 1000:.0f} ms, new process {fresh * 1000:.0f} ms, "
        f"later median {median * 1000:.1f} ms (max {worst * 1000:.1f} ms)"
    )


def main() -> None:
    """Run the parts and print the figures with their bars."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--network", action="store_true", help="measure with network on")
    parser.add_argument("--big", action="store_true", help="add the 500k-file workspace")
    parser.add_argument("--no-home", action="store_true", help="skip part 3 (real read roots)")
    parser.add_argument("--part1", action="store_true", help="only part 1 (overhead)")
    args = parser.parse_args()
    real = home_dir()
    home = tempfile.mkdtemp(dir="/var/tmp", prefix="safehold-bench-home-")
    runtime = tempfile.mkdtemp(prefix="sh-bench-")  # short: a socket path fits 108 bytes
    os.environ["HOME"] = home
    os.environ.pop("XDG_STATE_HOME", None)
    try:
        config = SafetyConfig(sandbox=SandboxConfig(network=args.network))
        print(load())
        if sys.flags.dont_write_bytecode:
            print(
                "note: PYTHONDONTWRITEBYTECODE is set: a fresh interpreter compiles every "
                "module that has no .pyc (run `python -m compileall src` once)"
            )
        start_server(runtime)
        try:
            overhead(config, args.runs)
        finally:
            stop_server(runtime)
        if args.part1:
            return
        sizes = [0, 10_000, 100_000] + ([500_000] if args.big else [])
        by_size(config, sizes, args.runs)
        if not args.no_home:
            real_home(config, real, max(5, args.runs // 3))
        print(load())
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)


if __name__ == "__main__":
    main()
