"""Run every tests/corpus/tool-calls/*.toml case through its real entry point, in auto mode.

Each `[[group]]` is one class of non-shell tool call (a patch naming a file in git's quoted
spelling, a search told to read hidden files, a URL a browser parser reads differently).
Each `[[group.case]]` is one call, read by the entry point it names:

- `via = "claude-code"` / `"gemini-cli"`: a hook payload (`tool_name`, `tool_input`, `cwd`)
  read by `safehold.adapters.hooks.<cli>.parse`, with `project` as the CLI's project
  variable when given;
- `via = "mcp"`: an MCP `tools/call` read by the proxy's tool table (`annotations` are the
  server's `tools/list` hints);
- `via = "call"` (the default): a `ToolCall(tool, arguments, kind)` given to `evaluate`.

`verdict` is the expected verdict for the host runner; `code`, when given, must be among
the reason codes. `{ws}`, `{home}` and `{out}` stand for the workspace, the home directory
and a directory outside both. The tree is the same for every case (see `tree`).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from safehold.adapters.hooks import claude_code, gemini_cli
from safehold.adapters.mcp._kinds import mcp_tool_table
from safehold.policy.calls import ToolCall
from safehold.policy.config import SafetyConfig
from safehold.policy.engine import evaluate
from safehold.policy.modes import Mode

CORPUS_DIR = Path(__file__).parent.parent / "corpus" / "tool-calls"
AUTO = SafetyConfig().with_mode(Mode.AUTO)


def _cases() -> Iterator[Any]:
    for corpus in sorted(CORPUS_DIR.glob("*.toml")):
        for group in tomllib.loads(corpus.read_text(encoding="utf-8"))["group"]:
            for i, case in enumerate(group["case"]):
                yield pytest.param(case, id=f"{corpus.stem}:{group['name']}:{i}")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A workspace with a secret, git's own files, a gitignored key and links out of it."""
    top = tmp_path_factory.mktemp("toolcalls")
    home, ws, out = top / "home", top / "ws", top / "outside"
    for folder in (home / ".ssh", ws / "src", ws / ".git" / "hooks", ws / "secrets", out):
        folder.mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("key\n")
    (ws / "src" / "app.py").write_text("print(1)\n")
    (ws / ".env").write_text("TOKEN=1\n")
    (ws / ".git" / "config").write_text("[core]\n")
    (ws / ".gitignore").write_text("secrets/\n")
    (ws / "secrets" / "prod.pem").write_text("key\n")
    (out / "notes.txt").write_text("x\n")
    (ws / "keys").symlink_to(home / ".ssh")
    (ws / "settings.txt").symlink_to(ws / ".env")
    (ws / "outlink").symlink_to(out)
    return {"{ws}": str(ws), "{home}": str(home), "{out}": str(out)}


def _fill(value: Any, places: dict[str, str]) -> Any:
    if isinstance(value, str):
        for mark, path in places.items():
            value = value.replace(mark, path)
        return value
    if isinstance(value, list):
        return [_fill(v, places) for v in value]
    if isinstance(value, dict):
        return {_fill(k, places): _fill(v, places) for k, v in value.items()}
    return value


def _call(case: dict[str, Any], ws: str) -> tuple[ToolCall, str]:
    via = case.get("via", "call")
    if via in ("claude-code", "gemini-cli"):
        flavour, event, var = {
            "claude-code": (claude_code, "PreToolUse", claude_code.PROJECT_VAR),
            "gemini-cli": (gemini_cli, "BeforeTool", gemini_cli.PROJECT_VAR),
        }[via]
        payload = {
            "hook_event_name": event,
            "tool_name": case["tool"],
            "tool_input": case["arguments"],
            "cwd": case.get("cwd", ws),
        }
        env = {var: case["project"]} if "project" in case else {}
        hook = flavour.parse(payload, env=env)
        return hook.call, hook.workspace
    if via == "mcp":
        table = mcp_tool_table({case["tool"]: case.get("annotations")})
        return table.to_call(case["tool"], case["arguments"]), ws
    assert via == "call", via
    return ToolCall(case["tool"], case["arguments"], case.get("kind", "other")), ws


@pytest.mark.parametrize("case", list(_cases()))
def test_tool_call_corpus(
    case: dict[str, Any], tree: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", tree["{home}"])
    case = _fill(case, tree)
    call, workspace = _call(case, tree["{ws}"])
    decision = evaluate(AUTO, call, workspace=workspace, runner="host")
    codes = {r.code for r in decision.reasons}
    assert decision.verdict.value == case["verdict"], (case, decision)
    if "code" in case:
        assert case["code"] in codes, (case, decision)


def test_the_corpus_covers_every_entry_point() -> None:
    vias = {p.values[0].get("via", "call") for p in _cases()}  # type: ignore[union-attr]
    assert vias == {"call", "claude-code", "gemini-cli", "mcp"}
    assert os.path.isdir(CORPUS_DIR)
