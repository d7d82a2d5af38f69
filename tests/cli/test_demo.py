"""`safehold demo`: every decision path shows up in the transcript and goes as expected."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from safehold import SandboxConfig
from safehold.cli.demo_cmd import play

pytestmark = [pytest.mark.acp, pytest.mark.sandbox]

SCENES = [
    ("1. allowed by a rule", "✓ allowed without asking"),
    ("2. ask → allow once", "✓ allowed after asking; notes.txt exists"),
    ("3. ask → allow always", "✓ allowed after asking; build exists"),
    ("4. the same command again: not asked", "✓ allowed without asking"),
    ("5. ask → reject", "✓ denied after asking; notes.txt is still there"),
    ("6. a secret read is denied", "✓ denied without asking"),
    ("7. read-only mode denies a write", "✓ denied without asking"),
    ("8. a config-option toggle", "✓ allowed without asking; auto.txt exists"),
    ("9. a permission timeout", "✓ denied after asking"),
]


def scenes_of(transcript: str) -> dict[str, str]:
    """Scene heading → the scene's text (up to the next heading)."""
    parts = re.split(r"\n(?=\d\. )", transcript)
    return {p.splitlines()[0]: p for p in parts[1:]}


def test_demo_cli_plays_every_scene_as_expected() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "safehold.cli", "demo"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
    scenes = scenes_of(done.stdout)
    assert len(scenes) == len(SCENES)
    for (heading, verdict), (actual_heading, text) in zip(SCENES, scenes.items(), strict=True):
        assert actual_heading.startswith(heading)
        assert verdict in text, text
        assert "✗" not in text
    assert done.stdout.rstrip().endswith("every decision path went as expected")


async def test_each_scene_shows_what_the_editor_and_agent_exchanged() -> None:
    lines: list[str] = []
    assert await play(lines.append) == 0
    scenes = scenes_of("\n".join(lines))
    texts = list(scenes.values())
    # The person is asked exactly in the ask scenes and the timeout scene.
    asked = [("? permission for" in t) for t in texts]
    assert asked == [False, True, True, False, True, False, False, False, True]
    assert "editor ← Always allow" in texts[2]
    assert "editor ← Reject" in texts[4]
    assert "path-denied" in texts[5] and "`.env`" in texts[5]
    assert "current_mode_update: mode is now `read-only`" in texts[6]
    assert "(read-only)" in texts[6]
    assert "auto_approve_execute=true" in texts[7]
    assert "(approval-timed-out)" in texts[8]
    assert "README.md" in texts[0]  # the allowed `ls -a` really ran and printed


async def test_without_a_sandbox_nothing_runs_and_decisions_still_hold() -> None:
    lines: list[str] = []
    code = await play(lines.append, sandbox=SandboxConfig(bwrap_path="/nonexistent/bwrap"))
    transcript = "\n".join(lines)
    assert code == 0
    assert "not run: the sandbox could not run it" in transcript
    assert "(but not run: no sandbox)" in transcript
    assert "exists" not in transcript  # no command created anything
    assert "never ran unsandboxed" in transcript
