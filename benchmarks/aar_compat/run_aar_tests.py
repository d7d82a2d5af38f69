"""Run Aar's own safety tests against safehold through `aar_safety_shim.py`; print the count.

Usage: python benchmarks/aar_compat/run_aar_tests.py AAR_CHECKOUT [--baseline]
       [--selection safety|dependents] [-- PYTEST_ARGS]
       python benchmarks/aar_compat/run_aar_tests.py AAR_CHECKOUT --find-dependents

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

Two selections:

- `safety` (the default): `tests/test_safety.py` and `tests/test_acp.py::TestAcpApprovalBridge`,
  86 tests (26 of them test Aar's sandboxes, which the shim does not replace).
- `dependents`: the tests listed in `aar_dependents.txt`, every Aar test whose outcome
  depends on the three replaced modules, 100 at `AAR_COMMIT`. `--find-dependents` measures
  it: it runs Aar's whole suite twice, once as it is and once with every function and
  method of the three modules raising (`STUBS`: all but the constructors of `SafetyPolicy`
  and `PermissionManager`, which Aar's `ToolExecutor` calls for every agent), and lists the
  tests that pass only in the first run. The whole suite needs Aar's full dependencies (its
  `requirements.txt`: textual, the provider SDKs, mcp); both selections need only the
  list above.

Measured at `AAR_COMMIT` with agent-client-protocol 0.12.1 on Python 3.13: `safety` 74/86
through the shim, 84/86 with `--baseline` (one skipped in both; the 86 are the whole
selection at every Aar branch head); `dependents` 77/100 through the shim, 100/100 with
`--baseline`. The differences that remain are named in docs/migrating.md ("Aar's own
tests").
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
DEPENDENTS = Path(__file__).with_name("aar_dependents.txt")
REEXPORT = "from agent.safety.policy import *  # noqa: F403 (safehold shim)\n"
RAISE = (
    '\n\ndef _stub(*args, **kwargs):\n    raise RuntimeError("aar_compat stub")\n\n\n'
    'async def _astub(*args, **kwargs):\n    raise RuntimeError("aar_compat stub")\n\n\n'
)
# What --find-dependents appends to each module: everything but the two constructors raises.
STUBS = {
    "agent/safety/policy.py": RAISE + (
        "SafetyPolicy.check_tool = SafetyPolicy._check_path = SafetyPolicy._check_command = _stub\n"
        "SafetyPolicy._normalize_path = staticmethod(_stub)\n"
        "_redact_secrets = _collapse_posix_path = _collapse_windows_path = _stub\n"
    ),
    "agent/safety/permissions.py": RAISE + (
        "PermissionManager.auto_approve = PermissionManager.auto_approve_pattern = _stub\n"
        "PermissionManager.revoke = PermissionManager.is_auto_approved = _stub\n"
        "PermissionManager.request_approval = _astub\n"
    ),
    "agent/transports/acp_permissions.py": RAISE + "make_acp_approval_callback = _stub\n",
}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("aar", type=Path, help="an Aar checkout")
    parser.add_argument("--baseline", action="store_true", help="Aar's own safety code")
    parser.add_argument("--selection", choices=("safety", "dependents"), default="safety")
    parser.add_argument("--find-dependents", action="store_true", help=f"rewrite {DEPENDENTS.name}")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args()
    if args.find_dependents:
        return find_dependents(args.aar)
    with tempfile.TemporaryDirectory(prefix="aar-compat-") as tmp:
        tree = copy(args.aar, Path(tmp) / "aar")
        if not args.baseline:
            shutil.copy(SHIM, tree / "agent/safety/policy.py")
            (tree / "agent/safety/permissions.py").write_text(REEXPORT)
            (tree / "agent/transports/acp_permissions.py").write_text(REEXPORT)
        # Aar's Landlock test restricts the pytest process that runs it (research/aar.md §9.1):
        # it runs in a process of its own, after the others.
        runs = [[*TESTS, "--deselect", ALONE], [ALONE]]
        if args.selection == "dependents":
            runs = [dependents()]
        counts: dict[str, int] = {}
        for n, selection in enumerate(runs):
            run = pytest(tree, [*selection, *args.pytest_args], f"{tmp}/pytest-{n}")
            lines = run.stdout.splitlines()
            print("\n".join(line for line in lines if line.startswith(("FAILED", "ERROR"))))
            summary = lines[-1] if lines else run.stderr[-2000:]
            for number, word in re.findall(r"(\d+) (passed|failed|errors?|skipped)", summary):
                counts[word] = counts.get(word, 0) + int(number)
    who = "Aar's own safety code" if args.baseline else "safehold through the shim"
    print(f"{who}: {counts.get('passed', 0)}/{sum(counts.values())} passed {counts}")
    return 0 if counts else 1


def copy(aar: Path, tree: Path) -> Path:
    shutil.copytree(aar, tree, ignore=shutil.ignore_patterns(".git", "__pycache__"))
    return tree


def pytest(tree: Path, selection: list[str], basetemp: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider",
         "--basetemp", basetemp, "-o", "asyncio_default_fixture_loop_scope=function",
         *selection],
        cwd=tree, capture_output=True, text=True, check=False,
    )  # fmt: skip


def dependents() -> list[str]:
    lines = DEPENDENTS.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def find_dependents(aar: Path) -> int:
    """Aar's whole suite as it is and with the replaced modules raising: the tests that differ."""
    failed: list[set[str]] = []
    with tempfile.TemporaryDirectory(prefix="aar-compat-") as tmp:
        for n, stub in enumerate((False, True)):
            tree = copy(aar, Path(tmp) / f"aar-{n}")
            for module, text in STUBS.items() if stub else ():
                with (tree / module).open("a", encoding="utf-8") as file:
                    file.write(text)
            run = pytest(tree, ["tests", "--deselect", ALONE], f"{tmp}/pytest-{n}")
            print(run.stdout.splitlines()[-1] if run.stdout else run.stderr[-2000:])
            found = re.findall(r"^(?:FAILED|ERROR) (tests/\S+)", run.stdout, re.M)
            failed.append(set(found))
    tests = sorted(failed[1] - failed[0])
    header = (
        f"# Aar's tests that fail only when the replaced modules raise (Aar {AAR_COMMIT});\n"
        "# written by run_aar_tests.py --find-dependents: one pytest node id a line.\n"
    )
    DEPENDENTS.write_text(header + "".join(f"{test}\n" for test in tests), encoding="utf-8")
    print(f"{len(tests)} tests depend on the replaced modules: {DEPENDENTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
