"""Claude Code's session directory in a hook payload: a relative path and a path-less search
are judged where Claude Code resolves them, and the payload's own `cwd` is no unknown
argument of the tool. A `cwd` with a control character is refused, naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold.adapters.hooks import claude_code
from safehold.adapters.hooks._payload import HookInputError
from safehold.policy._arguments import CALL_CWD
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.engine import evaluate
from safehold.policy.modes import Mode

AUTO = SafetyConfig().with_mode(Mode.AUTO)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print(1)\n")
    return root


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway HOME holding an SSH key."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("k\n")
    monkeypatch.setenv("HOME", str(home))
    return home


def _decide(ws: Path, cwd: Path, tool: str, tool_input: dict[str, object]) -> Verdict:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "cwd": str(cwd),
    }
    hook = claude_code.parse(payload, env={claude_code.PROJECT_VAR: str(ws)})
    return evaluate(AUTO, hook.call, workspace=hook.workspace).verdict


def test_a_relative_write_lands_in_the_session_directory(ws: Path) -> None:
    hooks = ws / ".git" / "hooks"
    assert _decide(ws, hooks, "Write", {"file_path": "pre-commit", "content": "x"}) is Verdict.ASK
    assert _decide(ws, ws / "src", "Write", {"file_path": "b.py", "content": "x"}) is Verdict.ALLOW


def test_the_session_directory_is_no_argument_of_the_tool(ws: Path) -> None:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": "app.py"},
        "cwd": str(ws / "src"),
    }
    call = claude_code.parse(payload, env={claude_code.PROJECT_VAR: str(ws)}).call
    assert call.arguments[CALL_CWD] == str(ws / "src")
    assert call.known_args is not None and CALL_CWD in call.known_args
    decision = evaluate(AUTO, call, workspace=str(ws))
    assert decision.verdict is Verdict.ALLOW, decision


def test_a_search_without_a_path_searches_the_session_directory(ws: Path, home: Path) -> None:
    assert _decide(ws, home / ".ssh", "Grep", {"pattern": "PRIVATE"}) is Verdict.DENY
    assert _decide(ws, home / ".ssh", "Glob", {"pattern": "id_*"}) is Verdict.DENY
    assert _decide(ws, ws / "src", "Grep", {"pattern": "print"}) is Verdict.ALLOW


def test_a_cwd_with_a_control_character_names_the_field(ws: Path) -> None:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": "x"},
        "cwd": f"{ws}\x00/src",
    }
    with pytest.raises(HookInputError, match=r"`cwd` .* control character"):
        claude_code.parse(payload, env={})


def test_a_cwd_the_model_spells_does_not_move_the_shell(ws: Path, home: Path) -> None:
    # Bash takes no `cwd`: the command runs where the session is, whatever the model says.
    keys = home / ".ssh"
    assert _decide(ws, keys, "Bash", {"command": "cat id_ed25519", "cwd": "."}) is Verdict.DENY
    assert _decide(ws, keys, "Bash", {"command": "cat id_ed25519", "cwd": str(ws)}) is (
        Verdict.DENY
    )
    # Where the session is the project, the model's value still asks as an unknown argument.
    assert _decide(ws, ws / "src", "Bash", {"command": "cat app.py", "cwd": "."}) is Verdict.ASK
    assert _decide(ws, ws / "src", "Bash", {"command": "cat app.py"}) is Verdict.ALLOW
