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


def test_acp_names_a_garbage_line_in_one_log_line() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "safehold.cli", "acp"],
        input=b"garbage{\n",
        capture_output=True,
        timeout=120,
        check=False,
    )
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "Traceback" not in err, err
    (line,) = [x for x in err.splitlines() if "JSON-RPC" in x]
    assert "JSONDecodeError" in line, err
