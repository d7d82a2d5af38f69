"""The complete examples in the adapter docs run as written (offline, no API key)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.adapters._frameworks import need

DOCS = Path(__file__).resolve().parents[3] / "docs"
SRC = Path(__file__).resolve().parents[3] / "src"
BLOCK = re.compile(r"^```python\n# file: (\S+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize(
    ("page", "framework"),
    [("mcp.md", "mcp"), ("pydantic-ai.md", "pydantic_ai"), ("openai-agents.md", "agents")],
)
def test_complete_example_runs(tmp_path: Path, page: str, framework: str) -> None:
    need(framework)
    files = BLOCK.findall((DOCS / page).read_text())
    assert files, f"{page} has no complete example"
    for name, code in files:
        (tmp_path / name).write_text(f"# file: {name}\n{code}")
    # TMPDIR: the example's `tempfile.mkdtemp()` workspace goes in tmp_path, removed with the
    # run's other folders, not in /tmp.
    scratch = tmp_path / ".tmp"
    scratch.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
        "TMPDIR": str(scratch),
    }
    done = subprocess.run(
        [sys.executable, files[-1][0]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    print(done.stdout)
