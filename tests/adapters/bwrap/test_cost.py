"""What the runner skips or reuses to be fast must never loosen the sandbox.

- The pids cgroup (root callers): the sandbox's pid 1 is moved in before it runs anything,
  and a sandbox that cannot be moved in never runs.
- The mount-plan cache: a secret file or a planted symlink appearing after a cached run is
  masked on the next run.
"""

from __future__ import annotations

import os
from pathlib import Path

from safehold.adapters.bwrap import _runner
from safehold.adapters.bwrap._limits import Cgroup, open_cgroup
from safehold.adapters.bwrap._locate import find_bwrap, read_version
from safehold.adapters.bwrap._plan import plan_mounts
from tests.adapters.bwrap.conftest import Runner, make_config


def test_every_process_of_a_root_run_starts_in_its_pids_cgroup(run: Runner) -> None:
    if os.geteuid() != 0:
        return  # only root callers get a cgroup (RLIMIT_NPROC holds for the others)
    # The first line the command itself prints already shows the run's own cgroup: it was
    # moved in before it ran (its cgroup namespace was made at bwrap's clone, so the run's
    # cgroup shows as a child of that namespace's root).
    result = run(["/bin/sh", "-c", "cat /proc/self/cgroup; (cat /proc/self/cgroup)"])
    assert result.exit_code == 0, result.stderr
    text = result.stdout.decode().splitlines()
    lines = [ln for ln in text if ":pids:" in ln] or [ln for ln in text if ln.startswith("0::")]
    assert len(lines) == 2 and all("/safehold-" in ln for ln in lines), result.stdout


def test_a_sandbox_that_cannot_join_its_cgroup_never_runs(ws: Path) -> None:
    marker = ws / "ran"
    config = make_config()
    plan = plan_mounts(config, str(ws))
    bwrap = read_version(find_bwrap(None, cwd=str(ws)))
    # A cgroup that does not exist: moving the sandbox in fails (a real ENOENT).
    gone = Cgroup(str(ws / "no-such-cgroup"), 64)
    raw = _runner._spawn_bwrap(
        bwrap,
        plan,
        argv=["/bin/sh", "-c", f"echo x > {marker}"],
        env={"PATH": "/usr/bin:/bin"},
        sandbox=config.sandbox,
        network=False,
        timeout=20.0,
        cap=65536,
        cancel_fd=None,
        cgroup=gone,
    )
    assert not marker.exists()
    assert raw.stopped is not None and "pids cgroup" in raw.stopped
    assert "exit-code" not in raw.status


def test_a_root_run_in_a_real_cgroup_is_admitted_and_released(ws: Path) -> None:
    if os.geteuid() != 0:
        return
    config = make_config()
    cgroup = open_cgroup(16)
    assert cgroup is not None, "root with a writable pids hierarchy gets a cgroup"
    try:
        raw = _runner._spawn_bwrap(
            read_version(find_bwrap(None, cwd=str(ws))),
            plan_mounts(config, str(ws)),
            argv=["/bin/sh", "-c", "cat /proc/self/cgroup"],
            env={"PATH": "/usr/bin:/bin"},
            sandbox=config.sandbox,
            network=False,
            timeout=20.0,
            cap=65536,
            cancel_fd=None,
            cgroup=cgroup,
        )
    finally:
        cgroup.close()
    assert raw.stopped is None and raw.status.get("exit-code") == 0, raw.stderr
    assert os.path.basename(cgroup.path).encode() in raw.stdout
