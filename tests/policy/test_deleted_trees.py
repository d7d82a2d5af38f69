"""Deleting a directory deletes what is below it: on the host, a protected or denied entry
below a deleted directory asks, whether or not a word names it (`rm -rf .` removes `.git`).
With the sandbox, protected paths are mounted read-only, so nothing changes there."""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.policy.decision import Verdict

AUTO = SafetyConfig().with_mode("auto")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    root = tmp_path / "proj"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "a.py").write_text("x = 1\n")
    (root / "build" / "obj").mkdir(parents=True)
    (root / "build" / "obj" / "a.o").write_text("")
    return root


def _decide(ws: Path, command: str, runner: str) -> tuple[Verdict, set[str]]:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    decision = evaluate(AUTO, call, workspace=str(ws), runner=runner)  # type: ignore[arg-type]
    return decision.verdict, {r.code for r in decision.reasons}


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf .",
        "rm -r -f ./",
        "find . -delete",
        "find . -name '*.pyc' -delete",
        "cd src && rm -rf ..",
        "rsync -a --delete build/ .",
    ],
)
def test_a_delete_that_reaches_a_protected_entry_asks_on_the_host(ws: Path, command: str) -> None:
    verdict, codes = _decide(ws, command, "host")
    assert verdict is not Verdict.ALLOW, codes
    assert "tree-holds-protected" in codes or "path-outside-read" in codes, codes


@pytest.mark.parametrize("command", ["rm -rf build", "rm -r src/pkg", "find build -delete"])
def test_a_delete_of_a_plain_tree_stays_allowed(ws: Path, command: str) -> None:
    assert _decide(ws, command, "host") == (Verdict.ALLOW, {"allowed"})


def test_a_denied_file_below_asks_and_names_it(ws: Path) -> None:
    (ws / "build" / ".env").write_text("TOKEN=x")
    call = ToolCall("bash", {"command": "rm -rf build"}, ToolKind.EXECUTE)
    decision = evaluate(AUTO, call, workspace=str(ws))
    assert decision.verdict is Verdict.ASK
    assert any(r.code == "tree-holds-denied" and ".env" in r.message for r in decision.reasons)


def test_the_sandbox_keeps_protected_paths_by_construction(ws: Path) -> None:
    verdict, _ = _decide(ws, "rm -rf .", "sandbox")
    assert verdict is Verdict.ALLOW


def test_a_tree_too_large_to_look_through_asks(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from safehold.policy import tree_scan

    monkeypatch.setattr(tree_scan, "MAX_TREE_ENTRIES", 2)
    verdict, codes = _decide(ws, "rm -rf build src", "host")
    assert verdict is Verdict.ASK and "tree-unchecked" in codes, codes
