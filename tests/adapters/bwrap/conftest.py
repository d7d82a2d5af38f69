"""Fixtures for the sandbox suite: a real workspace tree and a real bwrap (never skipped).

If bwrap cannot run here these tests fail: CI must prove the sandbox, not skip it.
"""

from __future__ import annotations

import os
import shutil
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from safehold import SafetyConfig, SandboxConfig
from safehold.adapters.bwrap import CommandResult, run_sandboxed_sync
from safehold.adapters.bwrap._plan import MountPlan, plan_mounts
from safehold.policy.sandbox_config import DEFAULT_READ_ROOTS

Runner = Callable[..., CommandResult]


@pytest.fixture(autouse=True)
def throwaway_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every sandbox test runs with HOME set to an empty temporary directory.

    Probes never read the real home: the read roots (`~/.cache`, `~/.pyenv`, ...) are the
    throwaway HOME's, so a test sees only what it planted there. Subprocesses inherit it.
    """
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def outside() -> Iterator[Path]:
    """A host directory outside every writable root and outside /tmp (the sandbox's is private)."""
    path = Path("/var/tmp") / f"safehold-escape-{uuid.uuid4().hex}"
    path.mkdir()
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace directory (under /tmp, which the sandbox replaces by a private tmpfs)."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text("hello\n")
    return root


PYTHON_ROOT = os.path.realpath(sys.base_prefix)
"""The interpreter running the tests (its scripts run inside the sandbox with `-I`)."""


def make_config(**sandbox: Any) -> SafetyConfig:
    """A default SafetyConfig with sandbox settings overridden.

    The test interpreter's prefix joins the default read roots: it may live in the real
    home (pyenv), which the throwaway HOME no longer shows.
    """
    sandbox.setdefault("read_roots", (*DEFAULT_READ_ROOTS, PYTHON_ROOT))
    return SafetyConfig(sandbox=SandboxConfig(**sandbox))


@pytest.fixture
def run(ws: Path) -> Runner:
    """Run a command in the sandbox with `ws` as the workspace; kwargs go to SandboxConfig."""

    def _run(
        command: str | list[str],
        *,
        cwd: Path | None = None,
        config: SafetyConfig | None = None,
        timeout: float | None = 20.0,
        max_output_bytes: int | None = None,
        env: dict[str, str] | None = None,
        **sandbox: Any,
    ) -> CommandResult:
        cfg = config if config is not None else make_config(**sandbox)
        return run_sandboxed_sync(
            command,
            cwd=os.fspath(cwd or ws),
            config=cfg,
            timeout=timeout,
            max_output_bytes=max_output_bytes,
            env=env,
        )

    return _run


def pids_with_marker(marker: str) -> list[int]:
    """Host pids whose command line contains `marker` (scans /proc, not the sandbox's)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as fh:
                cmdline = fh.read()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(name))
    return found


def plan_with_home(config: SafetyConfig, workspace: Path, home: Path) -> MountPlan:
    """The mount plan with `HOME` set to `home` (the policy expands `~` from `HOME`)."""
    old = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        return plan_mounts(config, str(workspace))
    finally:
        if old is None:
            del os.environ["HOME"]
        else:
            os.environ["HOME"] = old
