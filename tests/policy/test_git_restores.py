"""git writing tracked protected files from another version, on the host.

`git checkout HEAD~3 -- .husky/pre-commit` names a protected path and asks; `git checkout
HEAD~3 -- .`, `git reset --hard REV`, `git switch BRANCH`, `git stash pop` and `git pull`
write the same file from git's store without naming it. Without the sandbox (which pins
protected paths read-only) they ask (`tracked-protected`) when the repository's index
tracks a protected path the words reach. Restores from HEAD or the index stay allowed.
Real repositories made by real git.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.policy.decision import Decision, Verdict
from safehold.policy.git_index import may_name_revision

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

AUTO = SafetyConfig().with_mode("auto")

# Each writes `.husky/pre-commit` (tracked, protected) from a version other than HEAD or
# the index.
FROM_ANOTHER_VERSION = [
    "git checkout HEAD~1 -- .",
    "git checkout HEAD~1 .",
    "git checkout HEAD~1 -- '*'",
    "git checkout HEAD~1 -- ':/'",
    "git checkout HEAD~1 -- .HUSKY",
    "git checkout old",
    "git checkout -f old",
    "git checkout -b other old",
    "git checkout -",
    "git switch old",
    "git switch -c other old",
    "git switch --orphan other",
    "git restore --source=HEAD~1 .",
    "git restore --sou=HEAD~1 .",
    "git restore -s HEAD~1 -- .husky",
    "git restore --staged --source old .",
    "git reset --hard HEAD~1",
    "git reset --hard old",
    "git reset --keep old",
    "git reset HEAD~1",
    "git reset --soft old",
    "git reset old -- .",
    "git stash pop",
    "git stash apply",
    "git pull",
    "cd src && git checkout HEAD~1 -- ..",
    "git -C . checkout HEAD~1 -- .",
    "gh pr checkout 7",
]

# From HEAD or the index, or paths holding no protected file: unchanged.
STILL_ALLOWED = [
    "git checkout -- .",
    "git checkout .",
    "git checkout src/app.py",
    "git checkout HEAD -- .",
    "git checkout @ .",
    "git checkout HEAD~1 -- src",
    "git checkout HEAD~1 -- src/app.py",
    "git checkout -b feature",
    "git switch -c feature",
    "git restore .",
    "git restore --staged .",
    "git restore -s HEAD~1 src",
    "git reset --hard",
    "git reset --hard HEAD",
    "git reset -- .",
    "git reset old -- src",
    "git stash",
    "git stash list",
    "git status",
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
    (ws / ".husky").mkdir()
    (ws / "src" / "app.py").write_text("print(1)\n")
    (ws / ".husky" / "pre-commit").write_text("npm test\n")
    _git(ws, "init", "-q", "-b", "main")
    _git(ws, "add", ".")
    _git(ws, "commit", "-qm", "first")
    _git(ws, "branch", "old")
    _git(ws, "commit", "-q", "--allow-empty", "-m", "second")
    return ws


def _decide(command: str, ws: Path, runner: str) -> Decision:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    return evaluate(AUTO, call, workspace=str(ws), runner=runner)  # type: ignore[arg-type]


def _codes(decision: Decision) -> set[str]:
    return {r.code for r in decision.reasons}


@pytest.mark.parametrize("command", FROM_ANOTHER_VERSION)
def test_writing_a_tracked_protected_file_from_another_version_asks_on_the_host(
    ws: Path, command: str
) -> None:
    host = _decide(command, ws, "host")
    assert host.verdict is Verdict.ASK, (command, host.reasons)
    assert "tracked-protected" in _codes(host), (command, host.reasons)
    reason = next(r for r in host.reasons if r.code == "tracked-protected")
    assert "`.husky/pre-commit`" in reason.message
    # The sandbox pins protected paths read-only: the host is never looser than it.
    sandbox = _decide(command, ws, "sandbox")
    assert "tracked-protected" not in _codes(sandbox)
    order = [Verdict.ALLOW, Verdict.ASK, Verdict.DENY]
    assert order.index(host.verdict) >= order.index(sandbox.verdict)


@pytest.mark.parametrize("command", STILL_ALLOWED)
def test_restores_from_head_or_the_index_stay_allowed(ws: Path, command: str) -> None:
    host = _decide(command, ws, "host")
    assert host.verdict is Verdict.ALLOW, (command, host.reasons)


def test_a_repository_tracking_no_protected_path_is_not_asked(ws: Path) -> None:
    _git(ws, "rm", "-rq", "--cached", ".husky")
    for command in ("git checkout old", "git reset --hard HEAD~1", "git pull"):
        assert _decide(command, ws, "host").verdict is Verdict.ALLOW, command


def test_a_branch_named_like_a_directory_is_read_as_the_branch(ws: Path) -> None:
    # `git checkout src` switches to the branch `src` when one exists (git refuses when
    # both exist, so nothing is written then either way); without one it restores the
    # directory from the index.
    assert _decide("git checkout src", ws, "host").verdict is Verdict.ALLOW
    _git(ws, "branch", "src", "old")
    assert "tracked-protected" in _codes(_decide("git checkout src", ws, "host"))


def test_packed_refs_and_tags_count_as_revisions(ws: Path) -> None:
    _git(ws, "tag", "v1", "old")
    _git(ws, "pack-refs", "--all")
    assert not (ws / ".git" / "refs" / "tags" / "v1").exists()
    assert may_name_revision(str(ws), "v1")
    assert may_name_revision(str(ws), "old")
    assert not may_name_revision(str(ws), "src")


def test_an_unreadable_index_asks(ws: Path) -> None:
    (ws / ".git" / "index").write_bytes(b"not an index")
    host = _decide("git checkout old", ws, "host")
    assert "tracked-unchecked" in _codes(host)
    assert _decide("git status", ws, "host").verdict is Verdict.ALLOW


def test_a_linked_worktree_reads_refs_from_the_common_directory(ws: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    _git(ws, "worktree", "add", "-q", str(linked), "old")
    assert may_name_revision(str(linked), "main")
    host = _decide("git checkout main", linked, "host")
    assert "tracked-protected" in _codes(host)


def test_stash_only_prints_with_show_or_list(tmp_path: Path) -> None:
    ws = tmp_path / "p"
    ws.mkdir()
    (ws / ".env").write_text("TOKEN=1\n")
    (ws / "a.txt").write_text("a\n")
    _git(ws, "init", "-q")
    _git(ws, "add", "-f", ".env", "a.txt")
    _git(ws, "commit", "-qm", "x")
    assert "tracked-denied" in _codes(_decide("git stash show -p", ws, "host"))
    assert "tracked-denied" in _codes(_decide("git stash list -p", ws, "sandbox"))
    assert _decide("git stash", ws, "host").verdict is Verdict.ALLOW


_NAME = st.text(alphabet="abc./-~^@:*?[ 0123456789", min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(word=_NAME)
def test_a_word_is_a_revision_or_a_path_never_neither_unchecked(word: str) -> None:
    # A word git could read as a revision is never read as a path: revision syntax and
    # object names always count; a word no ref may be named is never a ref.
    top = "/nonexistent-safehold-repo"
    result = may_name_revision(top, word)
    if any(ch in word for ch in "~^@:") or ".." in word or word == "-":
        assert result
    if word.startswith(".") and ".." not in word and not any(ch in word for ch in "~^@:"):
        assert not result or all(ch in "0123456789abcdef" for ch in word)


def test_a_link_another_version_holds_is_not_read_in_the_same_line(
    ws: Path, tmp_path: Path
) -> None:
    # Branch `evil` holds `notes.md` as a link to a secret outside the workspace. Checked
    # out in the same line, `cat notes.md` reads through it before anything has looked.
    secret = tmp_path / "secret.txt"
    secret.write_text("TOKEN\n")
    _git(ws, "checkout", "-q", "-b", "evil")
    (ws / "notes.md").symlink_to(secret)
    _git(ws, "add", "notes.md")
    _git(ws, "commit", "-qm", "link")
    _git(ws, "checkout", "-q", "main")
    assert not (ws / "notes.md").exists()
    for command in (
        "git checkout evil && cat notes.md",
        "git switch evil; cat notes.md",
        "git reset --hard evil && cat notes.md",
        "git checkout evil -- . && cat notes.md",
        "git checkout evil -- notes.md && cat notes.md",
        "git pull && cat notes.md",
        "git worktree add w evil && cat w/notes.md",
    ):
        host = _decide(command, ws, "host")
        assert host.verdict is Verdict.ASK, (command, host.reasons)
        assert "through-cloned-link" in _codes(host), (command, host.reasons)
        # The sandbox confines the read: the same line runs there.
        assert "through-cloned-link" not in _codes(_decide(command, ws, "sandbox"))
    for command in (
        "git checkout -- . && cat src/app.py",
        "git checkout -b feat && cat src/app.py",
        "git checkout evil -- src && cat README.md",
        "git fetch && git status",
    ):
        assert _decide(command, ws, "host").verdict is Verdict.ALLOW, command
