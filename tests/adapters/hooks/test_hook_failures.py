"""Every way a hook call can fail blocks the tool call: one `error:` line and exit 2."""

from __future__ import annotations

import json

import pytest

from tests.adapters.hooks.conftest import Project


def _good(project: Project, flavour: str) -> dict[str, object]:
    name = "read_source" if flavour == "claude-code" else "read_file"
    data = json.loads(project.payload(flavour, name))
    assert isinstance(data, dict)
    return data


def _without(data: dict[str, object], key: str) -> str:
    return json.dumps({k: v for k, v in data.items() if k != key})


def _with(data: dict[str, object], **changes: object) -> str:
    return json.dumps({**data, **changes})


CASES = [
    ("empty", lambda d: "", "empty stdin"),
    ("blank", lambda d: " \n\t\n", "empty stdin"),
    ("not json", lambda d: "tool_name=Bash", "invalid JSON"),
    ("truncated", lambda d: json.dumps(d)[:-5], "invalid JSON"),
    ("array", lambda d: "[]", "expected a JSON object, got a list"),
    ("string", lambda d: '"Bash"', "expected a JSON object, got a string"),
    ("null", lambda d: "null", "expected a JSON object, got null"),  # not `NoneType`
    ("no tool_name", lambda d: _without(d, "tool_name"), "missing field `tool_name`"),
    ("empty tool_name", lambda d: _with(d, tool_name=""), "`tool_name` must be"),
    ("numeric tool_name", lambda d: _with(d, tool_name=7), "`tool_name` must be"),
    ("no tool_input", lambda d: _without(d, "tool_input"), "missing field `tool_input`"),
    ("string tool_input", lambda d: _with(d, tool_input="ls"), "`tool_input` must be an object"),
    (
        "null tool_input",
        lambda d: _with(d, tool_input=None),
        "`tool_input` must be an object, got null",
    ),
    ("other event", lambda d: _with(d, hook_event_name="PostToolUse"), "event `PostToolUse`"),
    ("relative cwd", lambda d: _with(d, cwd="demo"), "not an absolute path"),
    ("missing cwd dir", lambda d: _with(d, cwd="/nonexistent/dir"), "not a directory"),
    ("no cwd", lambda d: _without(d, "cwd"), "no `cwd`"),
    ("deep nesting", lambda d: "[" * 100_000 + "]" * 100_000, "JSON"),
]


@pytest.mark.parametrize("flavour", ["claude-code", "gemini-cli"])
@pytest.mark.parametrize(("label", "make", "needle"), CASES, ids=[c[0] for c in CASES])
def test_malformed_payload_exits_2(
    project: Project, flavour: str, label: str, make: object, needle: str
) -> None:
    stdin = make(_good(project, flavour))  # type: ignore[operator]
    if label == "other event" and flavour == "gemini-cli":
        stdin = stdin.replace("PostToolUse", "AfterTool")
        needle = "event `AfterTool`"
    run = project.hook(flavour, stdin)
    assert run.code == 2, run
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: safehold hook {flavour}: "), lines
    assert needle in lines[0]


def test_invalid_utf8_exits_2(project: Project) -> None:
    run = project.hook("claude-code", b'{"tool_name": "\xff\xfe"}')
    assert run.code == 2 and run.stdout == "" and run.stderr.startswith("error: ")


@pytest.mark.parametrize("flavour", ["claude-code", "gemini-cli"])
def test_config_failures_exit_2(project: Project, flavour: str) -> None:
    payload = json.dumps(_good(project, flavour))
    bad = project.root / "bad.toml"
    bad.write_text("denied_path = ['x']\n")  # a typo of denied_paths
    run = project.hook(flavour, payload, "--config", str(bad))
    assert run.code == 2 and "`denied_path`: unknown field" in run.stderr
    run = project.hook(flavour, payload, "--config", str(project.root / "missing.toml"))
    assert run.code == 2 and "does not exist" in run.stderr
    run = project.hook(flavour, payload, env=project.env(SAFEHOLD_CONFIG="/nonexistent.toml"))
    assert run.code == 2 and "$SAFEHOLD_CONFIG" in run.stderr
    # A broken project file blocks: it never falls back to a looser config.
    (project.root / ".safehold.toml").write_text("read_only = 'yes'\n")
    run = project.hook(flavour, payload)
    assert run.code == 2 and ".safehold.toml" in run.stderr and run.stdout == ""
    (project.root / ".safehold.toml").unlink()
    user = project.home / ".config" / "safehold"
    user.mkdir(parents=True)
    (user / "config.toml").write_text("[sandbox]\nmode = 'nope'\n")
    run = project.hook(flavour, payload)
    assert run.code == 2 and "config.toml" in run.stderr


def test_unknown_flavour_and_options_exit_2(project: Project) -> None:
    run = project.hook("codex", "{}")
    assert run.code == 2 and run.stderr.startswith("error: ")
    run = project.hook("claude-code", "{}", "--mode", "auto")
    assert run.code == 2 and run.stderr.startswith("error: ")
