"""Structural rules: the policy core does no process/network I/O and never imports adapters."""

from __future__ import annotations

import ast
from pathlib import Path

import safehold

POLICY = Path(safehold.__file__).parent / "policy"
FORBIDDEN = (
    "subprocess",
    "socket",
    "asyncio.subprocess",
    "safehold.adapters",
    "acp",
    "http",
    "urllib",
    "multiprocessing",
    "ctypes",
)


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative imports stay inside policy/ unless they climb out
                module = ("." * node.level) + module
            names.add(module)
    return names


def test_policy_package_imports_no_io_or_adapters() -> None:
    offenders = {}
    for path in sorted(POLICY.rglob("*.py")):
        bad = {
            name
            for name in _imports(path)
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)
            or name.startswith("..")
        }
        if bad:
            offenders[path.name] = sorted(bad)
    assert offenders == {}


def test_policy_calls_no_process_functions() -> None:
    for path in sorted(POLICY.rglob("*.py")):
        text = path.read_text()
        for call in ("os.system(", "os.popen(", "os.exec", "os.fork(", "os.spawn"):
            assert call not in text, f"{path.name} calls {call}"
