"""Shared test setup: hypothesis profiles, and a private home for the whole run.

Profiles (`dev`, `ci`, `deep`, `fuzz`) are registered once; pick one with
`HYPOTHESIS_PROFILE=deep python -m pytest` (CI sets `ci`). A test that needs more or fewer
examples than the profile's scales it with `examples(n)`, never a fixed `max_examples`, so
a deeper profile raises every test.

Every test process (each xdist worker too) runs with its own empty `HOME`, with
`XDG_CONFIG_HOME`, `XDG_STATE_HOME`, `XDG_CACHE_HOME` and `XDG_DATA_HOME` unset (so they
follow `HOME`, also for a test that points `HOME` elsewhere) and `XDG_RUNTIME_DIR` a private
folder: nothing a test does reaches the person's real files, and nothing outside the run
leaks in. The folder is removed when the process ends.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("deep", max_examples=2000, deadline=None)
settings.register_profile(
    "fuzz", max_examples=20000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

# -- bytecode -------------------------------------------------------------------------------

# An environment that sets PYTHONDONTWRITEBYTECODE (CI containers often do) makes every
# interpreter the tests start (the CLI, hooks, ACP agents, the docs' blocks: several hundred)
# compile safehold's modules from source again, about a fifth of a `safehold hook` call.
# The suite writes bytecode as Python does by default, into the checkout's and the venv's
# `__pycache__` folders: the first process compiles a module and the rest load it. (Set here,
# before xdist starts its workers, so they and every subprocess inherit it.)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# -- a private home -------------------------------------------------------------------------

_ISOLATED = tempfile.mkdtemp(prefix="safehold-tests-")


def _isolate() -> None:
    home = os.path.join(_ISOLATED, "home")
    runtime = os.path.join(_ISOLATED, "runtime")
    os.mkdir(home, 0o700)
    os.mkdir(runtime, 0o700)
    os.environ["HOME"] = home
    os.environ["XDG_RUNTIME_DIR"] = runtime
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        os.environ.pop(name, None)
    # Config discovery must not pick up the developer's own config (the tests' subprocesses
    # inherit this too).
    for name in ("SAFEHOLD_CONFIG", "SAFEHOLD_MANAGED_CONFIG"):
        os.environ.pop(name, None)
    # A hook call would start a per-user hook server that outlives the test; only the hook
    # server tests turn it on, each with its own runtime directory, and stop it themselves.
    os.environ["SAFEHOLD_HOOK_SERVER"] = "0"
    # A hook answers an ask deny when it sees no person (no terminal, `claude -p`...): the
    # verdicts a test expects must not depend on how the suite was started. The tests of
    # that detection (tests/adapters/hooks/test_headless.py) set or drop it themselves.
    os.environ["SAFEHOLD_HEADLESS"] = "0"


_isolate()


_BASETEMP: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    # pytest keeps each run's `tmp_path` folders under /tmp/pytest-of-USER (the last three
    # runs): they go in a folder of the run's own instead, removed when the run ends, so the
    # suite leaves nothing in /tmp. xdist gives each worker a folder below the controller's
    # basetemp (`popen-gwN`), so the controller's folder holds all. Its name is short: a
    # unix socket's path must fit in 108 bytes, and the hook server tests put one there.
    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        _BASETEMP.append(tempfile.mkdtemp(prefix="pt-"))
        config.option.basetemp = _BASETEMP[0]


def pytest_unconfigure() -> None:
    shutil.rmtree(_ISOLATED, ignore_errors=True)
    for folder in _BASETEMP:
        shutil.rmtree(folder, ignore_errors=True)


# -- slow end-to-end tests ------------------------------------------------------------------

_SLOW_LIST = Path(__file__).parent / "slow_tests.txt"


def _slow_ids() -> frozenset[str]:
    lines = _SLOW_LIST.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark `slow` every test under tests/e2e/ and every test or file `slow_tests.txt` names."""
    slow = _slow_ids()
    for item in items:
        whole_file = item.nodeid.split("::", 1)[0]
        if item.nodeid in slow or whole_file in slow or item.nodeid.startswith("tests/e2e/"):
            item.add_marker(pytest.mark.slow)
