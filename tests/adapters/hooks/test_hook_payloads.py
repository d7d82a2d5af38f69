"""`safehold hook claude-code | gemini-cli` on recorded payloads of every tool type, as a subprocess."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from tests.adapters.hooks.conftest import PAYLOADS, Project

# payload file -> verdict with the default config (review mode).
CLAUDE_CODE = {
    "bash_ls": "ask",
    "bash_pytest": "ask",
    "bash_background": "ask",
    "bash_in_subdir": "ask",
    "bash_rm_home": "deny",
    "bash_curl_sh": "deny",
    "bash_cat_ssh_key": "deny",
    "read_source": "allow",
    "read_range": "allow",
    "read_env": "deny",
    "read_ssh_key": "deny",
    "write_new": "ask",
    "write_bashrc": "deny",
    "edit": "ask",
    "edit_git_hook": "ask",
    "multiedit": "ask",
    "notebookedit": "ask",
    "glob": "allow",
    "grep": "allow",
    "ls": "allow",
    "ls_etc": "ask",  # a read outside the roots asks (issue 13); it is no secret
    "webfetch": "ask",
    "websearch": "ask",
    "task": "allow",
    "todowrite": "allow",
    "mcp_tool": "ask",
    "plan_write": "deny",
    "plan_read": "allow",
    "accept_edits_edit": "ask",
    "unknown_tool": "ask",
}
GEMINI_CLI = {
    "shell_ls": "ask",
    "shell_tests": "ask",
    "shell_rm_root": "deny",
    "shell_outside_dir": "deny",
    "read_file": "allow",
    "read_file_legacy": "allow",
    "read_file_env": "deny",
    "write_file": "ask",
    "replace": "ask",
    "replace_gitconfig": "ask",
    "glob": "allow",
    "grep_search": "allow",
    "search_file_content": "allow",
    "read_many_files": "allow",
    "list_directory": "allow",
    "list_directory_home_ssh": "deny",
    "web_fetch": "ask",
    "google_web_search": "ask",
    "save_memory": "deny",  # writes ~/.gemini/GEMINI.md, outside the allowed paths
    "write_todos": "allow",
    "mcp_tool": "ask",
    "unknown_tool": "ask",
}


def test_every_recorded_payload_has_an_expectation() -> None:
    for flavour, table in (("claude-code", CLAUDE_CODE), ("gemini-cli", GEMINI_CLI)):
        assert {p.stem for p in (PAYLOADS / flavour).glob("*.json")} == set(table)


@pytest.mark.parametrize(("name", "verdict"), sorted(CLAUDE_CODE.items()))
def test_claude_code_payloads(project: Project, name: str, verdict: str) -> None:
    run = project.hook("claude-code", project.payload("claude-code", name))
    assert run.code == 0, run.stderr
    out = run.json()
    assert set(out) == {"hookSpecificOutput"}
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["permissionDecision"] == verdict, specific
    assert specific["permissionDecisionReason"].startswith("safehold ")


@pytest.mark.parametrize(("name", "verdict"), sorted(GEMINI_CLI.items()))
def test_gemini_cli_payloads(project: Project, name: str, verdict: str) -> None:
    run = project.hook("gemini-cli", project.payload("gemini-cli", name))
    assert run.code == 0, run.stderr
    out = run.json()
    assert out["decision"] == verdict, out
    if verdict == "allow":
        assert set(out) == {"decision"}
    else:
        # `reason` goes to the model, `systemMessage` to the person.
        assert out["reason"].startswith("safehold ") and out["systemMessage"] == out["reason"]


def _verdict(flavour: str, out: dict[str, Any]) -> str:
    """The decision a hook printed, in either flavour's output."""
    if flavour == "claude-code":
        return str(out["hookSpecificOutput"]["permissionDecision"])
    return str(out["decision"])


def _auto(project: Project) -> Path:
    config = project.root / "auto.toml"
    config.write_text("require_approval_for_writes = false\nrequire_approval_for_execute = false\n")
    return config


@pytest.mark.parametrize(
    ("flavour", "name", "verdict"),
    [
        ("claude-code", "bash_pytest", "allow"),
        ("claude-code", "write_new", "allow"),
        ("claude-code", "bash_rm_home", "deny"),
        ("claude-code", "edit_git_hook", "ask"),  # protected paths ask in every mode
        ("claude-code", "plan_write", "deny"),  # plan mode is read-only whatever the config
        ("gemini-cli", "shell_tests", "allow"),
        ("gemini-cli", "replace_gitconfig", "ask"),
        ("gemini-cli", "read_file_env", "deny"),
    ],
)
def test_auto_mode_config(project: Project, flavour: str, name: str, verdict: str) -> None:
    run = project.hook(flavour, project.payload(flavour, name), "--config", str(_auto(project)))
    assert run.code == 0, run.stderr
    got = _verdict(flavour, run.json())
    assert got == verdict


def test_ask_as_deny(project: Project) -> None:
    for flavour, name in (("claude-code", "write_new"), ("gemini-cli", "write_file")):
        run = project.hook(flavour, project.payload(flavour, name), "--ask-as-deny")
        got = _verdict(flavour, run.json())
        assert got == "deny"
        # The reason says what happened: an ask nobody could answer, not "safehold asks".
        out = run.json()
        reason = (
            out["hookSpecificOutput"]["permissionDecisionReason"]
            if flavour == "claude-code"
            else out["reason"]
        )
        assert reason.startswith("safehold would ask: ") and "no person can answer" in reason
        # A real deny keeps its own words.
        denied = "bash_rm_home" if flavour == "claude-code" else "read_file_env"
        plain = project.hook(flavour, project.payload(flavour, denied), "--ask-as-deny").json()
        assert "safehold denied: " in str(plain)


def test_project_dir_variable_is_the_workspace(project: Project) -> None:
    """`$CLAUDE_PROJECT_DIR` wins over the payload's cwd: a read there is inside the root."""
    other = project.root.parent / "other"
    (other / "src").mkdir(parents=True)
    payload = project.payload("claude-code", "read_source").replace(
        f'"cwd": "{project.root}"', f'"cwd": "{other}"'
    )
    run = project.hook("claude-code", payload, env=project.env())
    assert run.json()["hookSpecificOutput"]["permissionDecision"] == "ask"  # outside: asks
    run = project.hook(
        "claude-code", payload, env=project.env(CLAUDE_PROJECT_DIR=str(project.root))
    )
    assert run.json()["hookSpecificOutput"]["permissionDecision"] == "allow"
    gemini = project.payload("gemini-cli", "read_file").replace(
        f'"cwd": "{project.root}"', f'"cwd": "{other}"'
    )
    run = project.hook("gemini-cli", gemini, env=project.env(GEMINI_PROJECT_DIR=str(project.root)))
    assert run.json()["decision"] == "allow"


def test_config_is_discovered_in_the_project(project: Project) -> None:
    """`<project>/.safehold.toml` is used without `--config`; `$SAFEHOLD_CONFIG` wins over it."""
    (project.root / ".safehold.toml").write_text("read_only = true\n")
    payload = (
        project.payload("claude-code", "read_source")
        .replace("/src/app.py", "/src/new.py")
        .replace('"Read"', '"Write"')
        .replace('"file_path"', '"content": "x", "file_path"')
    )
    run = project.hook("claude-code", payload)
    assert run.json()["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "read-only" in run.json()["hookSpecificOutput"]["permissionDecisionReason"]
    run = project.hook("claude-code", payload, env=project.env(SAFEHOLD_CONFIG=str(_auto(project))))
    assert run.json()["hookSpecificOutput"]["permissionDecision"] == "allow"


@pytest.mark.parametrize(
    ("flavour", "command", "verdict"),
    [
        ("claude-code", "python3 -c 'import glob; print(glob.glob(\"/srv/*\"))'", "ask"),
        ("claude-code", 'node -e \'require("fs").readdirSync("/")\'', "ask"),
        ("claude-code", "echo done > /tmp/status.txt", "deny"),  # the host's /tmp
        ("gemini-cli", "python3 -c 'import socket'", "ask"),
    ],
)
def test_hooks_judge_commands_as_unsandboxed(
    project: Project, flavour: str, command: str, verdict: str
) -> None:
    """The agent runs the command on the host, so auto mode does not leave it to a sandbox.

    With the default `sandbox.mode = "bwrap"`, `evaluate` allows inline code and writes to the
    private `/tmp` in auto mode, because safehold's sandbox would confine them; a hook's
    command never runs there, so the same call asks.
    """
    auto = SafetyConfig().with_mode("auto")
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    sandboxed = evaluate(auto, call, workspace=str(project.root), runner="sandbox")
    assert sandboxed.verdict.value == "allow"  # what the sandbox would have confined
    name = "bash_pytest" if flavour == "claude-code" else "shell_tests"
    data = json.loads(project.payload(flavour, name))
    data["tool_input"]["command"] = command
    payload = json.dumps(data)
    run = project.hook(flavour, payload, "--config", str(_auto(project)))
    assert run.code == 0, run.stderr
    got = _verdict(flavour, run.json())
    assert got == verdict
