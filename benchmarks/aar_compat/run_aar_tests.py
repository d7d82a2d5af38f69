"""Run Aar's own safety tests against safehold through `aar_safety_shim.py`; print the count.

Usage: python benchmarks/aar_compat/run_aar_tests.py AAR_CHECKOUT [--baseline] [-- PYTEST_ARGS]

AAR_CHECKOUT is a checkout of Aar (fischerf/aar; measured at the commit in `AAR_COMMIT`).
The tests are copied with the checkout into a temporary directory, where the shim replaces
`agent/safety/policy.py`, and `agent/safety/permissions.py` and
`agent/transports/acp_permissions.py` re-export it; `--baseline` runs Aar's own code
instead. The interpreter needs Python 3.12 or later (Aar's `requires-python`), safehold,
Aar's dependencies (pydantic, jsonschema, httpx, typer, rich, agent-client-protocol) and
pytest with pytest-asyncio, for example a venv of its own:
`python3.13 -m venv V && V/bin/pip install -e SAFEHOLD jsonschema httpx typer rich
agent-client-protocol pytest pytest-asyncio`. Not part of the test suite: it needs the Aar
checkout. A run takes about 3.5 minutes, nearly all of it waiting: three of Aar's sandbox
timeout tests (`sleep 60` with a 1 s timeout) wait for the `sleep` to end.

Measured at `AAR_COMMIT` with agent-client-protocol 0.12.1 on Python 3.13: 74/86 through
the shim, 84/86 with `--baseline` (one skipped in both). The 86 are the whole selection at
every Aar branch head. The differences that remain are named in docs/migrating.md ("Aar's
own tests").
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

AAR_COMMIT = "c641ac9c"  # develop, 2026-05-03 (0.3.3.dev0)
TESTS = ("tests/test_safety.py", "tests/test_acp.py::TestAcpApprovalBridge")
ALONE = "tests/test_safety.py::TestLinuxSandbox::test_make_landlock_preexec_does_not_raise_called_directly"
SHIM = Path(__file__).with_name("aar_safety_shim.py")
REEXPORT = "from agent.safety.policy import *  # noqa: F403 (safehold shim)\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("aar", type=Path, help="an Aar checkout")
    parser.add_argument("--baseline", action="store_true", help="Aar's own safety code")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="aar-compat-") as tmp:
        tree = Path(tmp) / "aar"
        shutil.copytree(args.aar, tree, ignore=shutil.ignore_patterns(".git", "__pycache__"))
        if not args.baseline:
            shutil.copy(SHIM, tree / "agent/safety/policy.py")
            (tree / "agent/safety/permissions.py").write_text(REEXPORT)
            (tree / "agent/transports/acp_permissions.py").write_text(REEXPORT)
        # Aar's Landlock test restricts the pytest process that runs it (research/aar.md §9.1):
        # it runs in a process of its own, after the others.
        runs = [[*TESTS, "--deselect", ALONE], [ALONE]]
        counts: dict[str, int] = {}
        for n, selection in enumerate(runs):
            run = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider",
                 "--basetemp", f"{tmp}/pytest-{n}", "-o", "asyncio_default_fixture_loop_scope=function",
                 *selection, *args.pytest_args],
                cwd=tree, capture_output=True, text=True, check=False,
            )  # fmt: skip
            lines = run.stdout.splitlines()
            print("\n".join(line for line in lines if line.startswith(("FAILED", "ERROR"))))
            summary = lines[-1] if lines else run.stderr[-2000:]
            for number, word in re.findall(r"(\d+) (passed|failed|errors?|skipped)", summary):
                counts[word] = counts.get(word, 0) + int(number)
    who = "Aar's own safety code" if args.baseline else "safehold through the shim"
    print(f"{who}: {counts.get('passed', 0)}/{sum(counts.values())} passed {counts}")
    return 0 if counts else 1


if __name__ == "__main__":
    raise SystemExit(main())
