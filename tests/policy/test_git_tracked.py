"""A denied file git tracks: git prints it from its own store, in the sandbox too.

`git show`, `git log -p`, `git grep --cached` and kin print committed content from git's
object store, which no word names and no sandbox masks. When the repository's index lists
a denied path, both runners ask (`tracked-denied`). Real repositories made by real git,
real index files (versions 2, 3 and 4).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.policy.decision import Decision, Verdict
from safehold.policy.git_index import tracked_paths

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

AUTO = SafetyConfig().with_mode("auto")

PRINTERS = [
    "git show",
    "git show HEAD",
    "git log -p",
    "git whatchanged -p",
    "git grep TOKEN",
    "git grep --cached TOKEN",
    "git grep TOKEN HEAD",
    "git diff --cached",
    "git diff HEAD~0",
    "git archive HEAD",
    "git cat-file -p HEAD:src/app.py",
    "git format-patch -1 --stdout",
    "git stash show -p",
    "git -C . show HEAD",
]


def _git(ws: Path, *args: str) -> None:
    env = {
        **os.environ,
        "HOME": str(ws.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(["git", "-C", str(ws), *args], check=True, env=env, capture_output=True)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = tmp_path / "proj"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("print(1)\n")
    (ws / "README.md").write_text("# x\n")
    _git(ws, "init", "-q")
    _git(ws, "add", ".")
    _git(ws, "commit", "-qm", "first")
    return ws


def _decide(command: str, ws: Path, runner: str) -> Decision:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    return evaluate(AUTO, call, workspace=str(ws), runner=runner)  # type: ignore[arg-type]


def _codes(decision: Decision) -> set[str]:
    return {r.code for r in decision.reasons}


@pytest.mark.parametrize("runner", ["host", "sandbox"])
@pytest.mark.parametrize("command", PRINTERS)
def test_a_committed_denied_file_makes_gits_printers_ask(
    ws: Path, command: str, runner: str
) -> None:
    before = _decide(command, ws, runner)
    assert "tracked-denied" not in _codes(before), before
    (ws / ".env").write_text("TOKEN=secret\n")
    _git(ws, "add", "-f", ".env")
    _git(ws, "commit", "-qm", "oops")
    after = _decide(command, ws, runner)
    assert after.verdict is not Verdict.ALLOW, after
    assert "tracked-denied" in _codes(after) or after.verdict is Verdict.DENY, after
    assert after.grant_key is None or after.verdict is Verdict.DENY


@pytest.mark.parametrize("runner", ["host", "sandbox"])
def test_an_untracked_denied_file_does_not_make_git_show_ask(ws: Path, runner: str) -> None:
    (ws / ".env").write_text("TOKEN=secret\n")  # on disk, never added: not in git's store
    decision = _decide("git show HEAD", ws, runner)
    assert decision.verdict is Verdict.ALLOW, decision


def test_names_only_commands_stay_allowed(ws: Path) -> None:
    (ws / ".env").write_text("TOKEN=secret\n")
    _git(ws, "add", "-f", ".env")
    for command in ("git status", "git ls-files", "git branch", "git rev-parse HEAD"):
        assert "tracked-denied" not in _codes(_decide(command, ws, "host")), command


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_the_index_is_read_in_every_version(ws: Path, version: str) -> None:
    (ws / "deep" / "er").mkdir(parents=True)
    (ws / "deep" / "er" / "name with space.txt").write_text("x\n")
    (ws / "new.txt").write_text("x\n")
    _git(ws, "add", "deep")
    _git(ws, "add", "-N", "new.txt")  # intent to add: an entry with extended flags
    _git(ws, "update-index", "--index-version", version)
    expected = ["README.md", "deep/er/name with space.txt", "new.txt", "src/app.py"]
    assert sorted(tracked_paths(str(ws)) or ()) == expected


def test_an_unreadable_index_asks(ws: Path) -> None:
    (ws / ".git" / "index").write_bytes(b"DIRC\x00\x00\x00\x02\x00\x00\x00\x05garbage")
    decision = _decide("git show HEAD", ws, "host")
    assert "tracked-unchecked" in _codes(decision), decision
    assert tracked_paths(str(ws)) is None


def test_a_linked_worktree_reads_its_own_index(ws: Path, tmp_path: Path) -> None:
    (ws / ".env").write_text("TOKEN=secret\n")
    _git(ws, "add", "-f", ".env")
    _git(ws, "commit", "-qm", "oops")
    other = tmp_path / "wt"
    _git(ws, "worktree", "add", "-q", str(other))
    assert (other / ".git").is_file()
    assert ".env" in (tracked_paths(str(other)) or ())
    decision = _decide("git log -p", other, "sandbox")
    assert "tracked-denied" in _codes(decision), decision


def test_names_are_judged_as_spelled(ws: Path) -> None:
    """A tracked template (`.env.example`) is no secret; a tracked link's content is its
    target's text, so a link to a key is judged by its own name."""
    (ws / ".env.example").write_text("TOKEN=\n")
    os.symlink(ws.parent / "id_rsa", ws / "innocent")
    _git(ws, "add", ".env.example", "innocent")
    assert {".env.example", "innocent"} <= set(tracked_paths(str(ws)) or ())
    assert "tracked-denied" not in _codes(_decide("git show HEAD", ws, "host"))
    (ws / "config").mkdir()
    (ws / "config" / "id_rsa").write_text("key\n")
    _git(ws, "add", "-f", "config/id_rsa")
    decision = _decide("git show HEAD", ws, "host")
    assert "tracked-denied" in _codes(decision)
    assert any("config/id_rsa" in r.message for r in decision.reasons), decision
