"""What the runner skips or reuses to be fast must never loosen the sandbox.

- The pids cgroup (root callers): the sandbox's pid 1 is moved in before it runs anything,
  and a sandbox that cannot be moved in never runs.
- The mount-plan cache: a secret file or a planted symlink appearing after a cached run is
  masked on the next run.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from safehold import SafetyConfig
from safehold.adapters.bwrap import _runner, _store
from safehold.adapters.bwrap._limits import Cgroup, open_cgroup
from safehold.adapters.bwrap._locate import find_bwrap, read_version
from safehold.adapters.bwrap._plan import MountPlan, plan_mounts
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
    assert raw.refused is not None and "pids cgroup" in raw.refused
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
    assert raw.refused is None and raw.status.get("exit-code") == 0, raw.stderr
    assert os.path.basename(cgroup.path).encode() in raw.stdout


def _settled() -> None:
    # Stamps written within a clock tick of a read are never trusted (`_scan.racy`): wait
    # that out, so the next plan is cached and the test proves the cache, not a rescan.
    time.sleep(0.1)


def _cached_plan(config: SafetyConfig, ws: Path) -> MountPlan:
    """Plan until the plan is reused (the second call returns the very same object)."""
    plan_mounts(config, str(ws))  # creates the scan store: too new to trust at once
    _store.wait()  # its write (in the background) changes the store: a plan reads that
    _settled()
    first = plan_mounts(config, str(ws))
    again = plan_mounts(config, str(ws))
    assert again is first, "an unchanged workspace reuses its plan"
    return again


def test_a_secret_file_created_after_a_cached_run_is_masked_next_run(run: Runner, ws: Path) -> None:
    config = make_config()
    (ws / "app" / "conf").mkdir(parents=True)
    assert run("cat README.md", config=config).exit_code == 0
    cached = _cached_plan(config, ws)
    secret = ws / "app" / "conf" / ".env"
    secret.write_text("API_KEY=hunter2\n")
    # At once (within the racy window) and later (stamps settled): masked both times.
    result = run("cat app/conf/.env", config=config)
    assert b"hunter2" not in result.stdout and result.exit_code != 0
    assert plan_mounts(config, str(ws)) is not cached
    _settled()
    result = run("cat app/conf/.env", config=config)
    assert b"hunter2" not in result.stdout and result.exit_code != 0


def test_a_symlink_planted_after_a_cached_run_masks_its_target_next_run(
    run: Runner, ws: Path
) -> None:
    config = make_config()
    (ws / "data").mkdir()
    (ws / "data" / "plain.txt").write_text("PRIVATE KEY MATERIAL\n")
    assert b"PRIVATE" in run("cat data/plain.txt", config=config).stdout
    _cached_plan(config, ws)
    # A symlink named like a secret masks the file it points to (`*.pem` is denied).
    (ws / "server.pem").symlink_to(ws / "data" / "plain.txt")
    result = run("cat data/plain.txt", config=config)
    assert b"PRIVATE" not in result.stdout and result.exit_code != 0


def test_a_link_retargeted_outside_every_scanned_tree_is_resolved_again(
    run: Runner, ws: Path, outside: Path
) -> None:
    # `ws/server.pem -> OUTSIDE/ptr/key` and `OUTSIDE/ptr -> ws/a`: moving `ptr` to `ws/b`
    # changes no directory the scan lists, yet the link now means `ws/b/key`.
    config = make_config()
    for name in ("a", "b"):
        (ws / name).mkdir()
        (ws / name / "key").write_text(f"KEY-{name}\n")
    (outside / "ptr").symlink_to(ws / "a")
    (ws / "server.pem").symlink_to(outside / "ptr" / "key")
    assert b"KEY-b" in run("cat b/key", config=config).stdout
    _cached_plan(config, ws)
    (outside / "ptr").unlink()
    (outside / "ptr").symlink_to(ws / "b")
    result = run("cat b/key", config=config)
    assert b"KEY-b" not in result.stdout and result.exit_code != 0


def test_a_new_hard_link_to_a_masked_file_is_masked_next_run(run: Runner, ws: Path) -> None:
    config = make_config()
    (ws / "notes").mkdir()
    (ws / "id_ed25519").write_text("OPENSSH PRIVATE\n")
    assert run("cat README.md", config=config).exit_code == 0
    _cached_plan(config, ws)
    os.link(ws / "id_ed25519", ws / "notes" / "todo.txt")
    result = run("cat notes/todo.txt", config=config)
    assert b"OPENSSH" not in result.stdout and result.exit_code != 0


def test_another_config_or_environment_never_reuses_a_plan(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = make_config()
    cached = _cached_plan(config, ws)
    (ws / "notes.txt").write_text("x\n")
    _settled()
    stricter = config.replace(denied_paths=(*config.denied_paths, "**/notes.txt"))
    assert str(ws / "notes.txt") in plan_mounts(stricter, str(ws)).masked_files
    cached = _cached_plan(config, ws)
    monkeypatch.setenv("SAFEHOLD_TEST_VARIABLE", "1")
    assert plan_mounts(config, str(ws)) is not cached
