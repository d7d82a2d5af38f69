"""`python -m safehold` is the `safehold` command, and the CLI loads only the command it runs."""

from __future__ import annotations

import json
import subprocess
import sys

import safehold


def test_python_m_safehold_is_the_command() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "safehold", "--version"], capture_output=True, text=True, timeout=60
    )
    assert (run.returncode, run.stdout.strip()) == (0, f"safehold {safehold.__version__}")


def test_importing_the_cli_loads_no_parser() -> None:
    code = "import json, sys, safehold.cli; print(json.dumps(sorted(sys.modules)))"
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(json.loads(run.stdout))
    assert not {"argparse", "typing", "safehold.errors"} & loaded
