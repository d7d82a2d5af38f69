"""Tool-call arguments: a URL under any key, by-value paths on the tool's side, no silent caps.

Real temporary workspaces; every call is judged by `evaluate` in auto mode.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.policy.decision import Decision, Verdict

AUTO = SafetyConfig().with_mode("auto")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    workspace = tmp_path / "proj"
    (workspace / ".git").mkdir(parents=True)
    (workspace / "README.md").write_text("x")
    return workspace


def _decide(name: str, args: dict[str, object], kind: ToolKind, ws: Path) -> Decision:
    return evaluate(AUTO, ToolCall(name, args, kind), workspace=str(ws), runner="sandbox")


def _codes(decision: Decision) -> set[str]:
    return {r.code for r in decision.reasons}


@pytest.mark.parametrize("key", ["source", "path", "file", "target", "name"])
def test_a_url_under_a_path_named_key_is_judged_as_a_url(key: str, ws: Path) -> None:
    args = {key: "http://169.254.169.254/latest/meta-data/"}
    decision = _decide("fetch_doc", args, ToolKind.READ, ws)
    assert decision.verdict is Verdict.DENY, decision.reasons


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        ({"name": ".git"}, ToolKind.DELETE),
        ({"key": ".git/config", "content": "x"}, ToolKind.EDIT),
        ({"old": "README.md", "new": ".git/hooks/pre-commit"}, ToolKind.MOVE),
        ({"base": ".git/hooks"}, ToolKind.DELETE),
    ],
)
def test_a_path_by_value_in_a_write_tool_is_judged_as_a_write(
    args: dict[str, object], kind: ToolKind, ws: Path
) -> None:
    decision = _decide("do_it", args, kind, ws)
    assert decision.verdict is not Verdict.ALLOW, decision.reasons
    assert "path-protected" in _codes(decision)


def test_a_path_by_value_in_a_read_tool_stays_a_read(ws: Path) -> None:
    decision = _decide("look", {"name": ".git/config"}, ToolKind.READ, ws)
    assert decision.verdict is Verdict.ALLOW, decision.reasons


def test_urls_past_the_bound_ask_instead_of_passing_unread(ws: Path) -> None:
    urls = " ".join(f"https://example.com/{i}" for i in range(100))
    few = _decide("fetch", {"url": urls + " http://169.254.169.254/"}, ToolKind.FETCH, ws)
    assert few.verdict is not Verdict.ALLOW
    many = " ".join(f"https://example.com/{i}" for i in range(101)) + " http://169.254.169.254/"
    decision = _decide("fetch", {"url": many}, ToolKind.FETCH, ws)
    assert decision.verdict is not Verdict.ALLOW, decision.reasons
    assert "arguments-too-large" in _codes(decision)


def test_a_denied_path_past_64_kib_of_text_is_still_seen(ws: Path, tmp_path: Path) -> None:
    (tmp_path / ".ssh").mkdir()
    text = "x " * (40 * 1024) + " ~/.ssh/id_rsa"
    decision = _decide("tool", {"notes_blob": text}, ToolKind.OTHER, ws)
    assert decision.verdict is Verdict.DENY, decision.reasons


def test_too_many_paths_in_text_ask(ws: Path) -> None:
    text = " ".join(f"/opt/x{i}" for i in range(1100))
    decision = _decide("tool", {"notes_blob": text}, ToolKind.OTHER, ws)
    assert "arguments-too-large" in _codes(decision), decision.reasons


@pytest.mark.parametrize("key", ["save_to", "downloadTo", "export_to", "write-to", "savePath"])
@pytest.mark.parametrize("kind", [ToolKind.FETCH, ToolKind.OTHER, ToolKind.READ])
def test_a_name_a_tool_saves_under_is_a_written_path_whatever_the_kind(
    key: str, kind: ToolKind, ws: Path
) -> None:
    args = {"url": "https://example.org/x", key: ".git/hooks/pre-commit"}
    decision = _decide("grab", args, kind, ws)
    assert decision.verdict is not Verdict.ALLOW, decision.reasons
    assert "path-protected" in _codes(decision)


def test_a_message_tools_recipient_is_no_path(ws: Path) -> None:
    # Under a path name `id_rsa` is a denied file; `to` names a recipient as often.
    decision = _decide("send", {"to": "id_rsa", "body": "hi"}, ToolKind.OTHER, ws)
    assert decision.verdict is Verdict.ALLOW, decision.reasons
    saved = _decide("send", {"save_to": "id_rsa", "body": "hi"}, ToolKind.OTHER, ws)
    assert saved.verdict is Verdict.DENY, saved.reasons


@pytest.mark.parametrize("spelled", ["$PWD/../outside/notes.txt", "${PWD}/../outside/notes.txt"])
def test_pwd_spelled_in_a_path_is_where_the_tool_runs(spelled: str, ws: Path) -> None:
    decision = _decide("Read", {"file_path": spelled}, ToolKind.READ, ws)
    assert decision.verdict is not Verdict.ALLOW, decision.reasons
    assert "path-outside-read" in _codes(decision)
    inside = _decide("Read", {"file_path": "$PWD/README.md"}, ToolKind.READ, ws)
    assert inside.verdict is Verdict.ALLOW, inside.reasons


@pytest.mark.parametrize(
    ("kind", "arguments"),
    [
        (ToolKind.OTHER, {"a": "README.md", "b": ".git/hooks/pre-commit"}),
        (ToolKind.FETCH, {"url": "https://example.com/x", "save": ".git/hooks/pre-commit"}),
    ],
)
def test_a_protected_path_by_value_in_a_tool_that_may_write_asks(
    ws: Path, kind: ToolKind, arguments: dict[str, object]
) -> None:
    # A tool of unknown side or a fetch may save where a value names: as under a path name.
    decision = evaluate(AUTO, ToolCall("mcp_tool", arguments, kind), workspace=str(ws))
    assert decision.verdict is Verdict.ASK, decision
    assert "path-protected" in {r.code for r in decision.reasons}
    benign = {k: "README.md" if ".git" in str(v) else v for k, v in arguments.items()}
    assert evaluate(AUTO, ToolCall("mcp_tool", benign, kind), workspace=str(ws)).verdict is (
        Verdict.ALLOW
    )
