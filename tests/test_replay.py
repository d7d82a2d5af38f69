"""`safehold replay`: calls recorded through a real hook call and a real ACP connection,
decided again under a changed policy; what changed, in which direction, and nothing touched.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from safehold import SafetyConfig
from safehold.adapters.acp.bridge import AcpPolicyBridge
from safehold.audit import JsonlFileSink
from safehold.policy.approval import Gate
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.sessions import SessionPolicies
from safehold.replay import log_files, read_records, replay
from tests.adapters.acp.bridge_harness import BridgeAgent, RecordingClient, connected

_BASE = """\
[audit]
path = "{log}"
"""
_TIGHTER = """\
[[command_rules]]
pattern = "terraform apply"
decision = "deny"
reason = "apply from CI"
"""
_LOOSER = """\
[[command_rules]]
pattern = "make"
decision = "allow"
"""


def _hook(config: Path, workspace: Path, command: str) -> dict[str, object]:
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "claude-1",
        "cwd": str(workspace),
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    done = subprocess.run(
        [sys.executable, "-m", "safehold", "hook", "claude-code", "--config", str(config)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, object] = json.loads(done.stdout)
    return out


def _safehold(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "safehold", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _state(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two logs: one written by `safehold hook claude-code`, one by an ACP agent's gate.

    Recorded once a module (a test process): the tests only read the logs, and each checks
    that a replay changes nothing in this tree.
    """
    tmp_path = tmp_path_factory.mktemp("recorded")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "Makefile").write_text("all:\n")
    logs = tmp_path / "logs"
    logs.mkdir()
    hook_config = tmp_path / "hook.toml"
    hook_config.write_text(_BASE.format(log=logs / "hook.jsonl"))
    for command in ("terraform apply", "make", "cat .env", "git status"):
        _hook(hook_config, ws, command)

    base = SafetyConfig.load(hook_config).replace(audit={})
    policies = SessionPolicies(base)
    sink = JsonlFileSink(logs / "acp.jsonl")
    agent = BridgeAgent(AcpPolicyBridge(policies, gate=Gate(policies, audit=sink)))

    async def through_acp() -> None:
        async with connected(agent, RecordingClient(answer="allow_once")) as conn:
            sid = str((await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id)
            for n, command in enumerate(("terraform apply -auto-approve", "ls")):
                call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE, f"c{n}")
                await agent.bridge.gate_tool_call(agent.conn, sid, call)
            edit = ToolCall("write_file", {"path": str(ws / "notes.txt")}, ToolKind.EDIT, "c9")
            await agent.bridge.gate_tool_call(agent.conn, sid, edit)

    asyncio.run(through_acp())
    sink.close()
    return {"ws": ws, "logs": logs, "tmp": tmp_path}


async def test_the_records_carry_what_a_replay_needs(recorded: dict[str, Path]) -> None:
    hook = [json.loads(line) for line in (recorded["logs"] / "hook.jsonl").read_text().splitlines()]
    acp = [json.loads(line) for line in (recorded["logs"] / "acp.jsonl").read_text().splitlines()]
    assert len(hook) == 4 and len(acp) == 3
    for record in hook + acp:
        assert record["workspace"] == str(recorded["ws"])
        assert record["cwd"] == str(recorded["ws"])
        assert record["mode"] == record["config_mode"] == "review"
        assert len(record["policy"]) == 16
    assert {r["runner"] for r in hook} == {"host"}  # a hook's command runs outside safehold
    # A person answered the ACP asks; the policy's own verdict is still the ask.
    assert [r["verdict"] for r in acp] == ["allow", "allow", "allow"]
    assert [r["policy_verdict"] for r in acp] == ["ask", "ask", "ask"]
    assert [r["policy_verdict"] for r in hook] == ["ask", "ask", "deny", "ask"]


async def test_the_same_policy_changes_nothing(recorded: dict[str, Path]) -> None:
    config = SafetyConfig()
    report = replay(read_records(log_files(recorded["logs"])), config)
    assert len(report.replayed) == 7 and not report.skipped
    assert [r.direction for r in report.replayed] == ["same"] * 7
    assert report.render().endswith("7 unchanged, 0 looser, 0 tighter, 0 skipped")


async def test_a_tightened_policy_shows_the_calls_it_now_denies(recorded: dict[str, Path]) -> None:
    tighter = recorded["tmp"] / "tighter.toml"
    tighter.write_text(_TIGHTER)
    before = _state(recorded["tmp"])
    done = _safehold("replay", str(recorded["logs"]), "--config", str(tighter))
    assert done.returncode == 0, done.stderr  # nothing got looser
    assert _state(recorded["tmp"]) == before  # ran nothing, wrote nothing
    out = done.stdout
    assert "looser:" not in out
    assert "tighter: 2 calls\n  ask → deny: command-denied [terraform apply] (2)\n" in out
    assert f"{recorded['logs'] / 'acp.jsonl'}:1  `bash` `terraform apply -auto-approve`" in out
    assert f"{recorded['logs'] / 'hook.jsonl'}:1  `Bash` `terraform apply`" in out
    assert out.rstrip().endswith("7 calls replayed (2 policies recorded), 5 unchanged, 0 looser, 2 tighter, 0 skipped")  # fmt: skip


async def test_a_loosened_policy_fails_unless_allowed(recorded: dict[str, Path]) -> None:
    looser = recorded["tmp"] / "looser.toml"
    looser.write_text(_LOOSER)
    done = _safehold("replay", str(recorded["logs"] / "hook.jsonl"), "--config", str(looser))
    assert done.returncode == 1, done.stderr
    assert "looser: 1 call\n  ask → allow: execute-needs-approval [require_approval_for_execute] no longer applies (1)" in done.stdout  # fmt: skip
    assert "hook.jsonl:2  `Bash` `make`" in done.stdout
    allowed = _safehold("replay", str(recorded["logs"]), "--config", str(looser), "--allow-looser")
    assert allowed.returncode == 0 and "looser: 1 call" in allowed.stdout


async def test_a_switched_session_mode_is_replayed_in_that_mode(tmp_path: Path) -> None:
    # A record whose session was switched to auto is decided in auto again; one that kept the
    # config's mode is decided in the new config's own mode.
    base = {"tool": "bash", "kind": "execute", "arguments": {"command": "ls"}, "reasons": []}
    records = [
        (
            "a:1",
            {
                **base,
                "workspace": str(tmp_path),
                "mode": "auto",
                "config_mode": "review",
                "policy_verdict": "allow",
            },
        ),
        (
            "a:2",
            {
                **base,
                "workspace": str(tmp_path),
                "mode": "review",
                "config_mode": "review",
                "policy_verdict": "ask",
            },
        ),
    ]
    report = replay(records, SafetyConfig(mode="auto"))  # type: ignore[call-arg]
    assert [(r.before.value, r.after.verdict.value) for r in report.replayed] == [
        ("allow", "allow"),
        ("ask", "allow"),
    ]


def test_unreadable_records_are_skipped_and_named(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    good = {"tool": "bash", "kind": "execute", "arguments": {"command": "ls"}, "workspace": str(tmp_path), "verdict": "ask", "reasons": []}  # fmt: skip
    log.write_text("not json\n" + json.dumps({"tool": "x"}) + "\n\n" + json.dumps(good) + "\n")
    report = replay(read_records(log_files(log)), SafetyConfig())
    assert [w for w, _ in report.skipped] == [f"{log}:1", f"{log}:2"]
    assert len(report.replayed) == 1 and report.replayed[0].direction == "same"
    done = _safehold("replay", str(tmp_path / "missing.jsonl"))
    assert done.returncode == 2 and done.stderr.startswith("error: ")
    assert "Traceback" not in done.stderr
    assert not os.path.exists(tmp_path / "missing.jsonl")


async def test_json_output_is_one_object_with_the_changes(recorded: dict[str, Path]) -> None:
    # `--json` says the same as the text, for a machine: summary, each moved call, exit code.
    tighter = recorded["tmp"] / "tighter.toml"
    tighter.write_text(_TIGHTER)
    done = _safehold("replay", str(recorded["logs"]), "--config", str(tighter), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["summary"] == {
        "replayed": 7,
        "unchanged": 5,
        "looser": 0,
        "tighter": 2,
        "skipped": 0,
        "policies": report["summary"]["policies"],
    }
    assert len(report["summary"]["policies"]) == 2
    changes = report["changes"]
    assert {(c["direction"], c["before"], c["after"]) for c in changes} == {
        ("tighter", "ask", "deny")
    }
    assert sorted(c["arguments"]["command"] for c in changes) == [
        "terraform apply",
        "terraform apply -auto-approve",
    ]
    first = changes[0]
    assert first["group"] == "ask → deny: command-denied [terraform apply]"
    assert first["after_reasons"][0]["code"] == "command-denied"
    assert first["after_reasons"][0]["message"]  # the words a person reads
    assert first["step"] == "deny" and first["tool"] in {"Bash", "bash"}
    assert first["where"].endswith((":1",))

    looser = recorded["tmp"] / "looser.toml"
    looser.write_text(_LOOSER)
    done = _safehold("replay", str(recorded["logs"] / "hook.jsonl"), "--config", str(looser), "--json")  # fmt: skip
    assert done.returncode == 1  # looser still fails the run in JSON mode
    report = json.loads(done.stdout)
    assert report["summary"]["looser"] == 1
    (change,) = report["changes"]
    assert change["direction"] == "looser" and change["arguments"] == {"command": "make"}
    assert change["before_reasons"] == [
        {"code": "execute-needs-approval", "rule": "require_approval_for_execute"}
    ]


def test_json_output_lists_skipped_records(tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    log.write_text('{"tool": "bash"}\nnot json\n')
    done = _safehold("replay", str(log), "--json", "--cwd", str(tmp_path))
    assert done.returncode == 2  # nothing could be replayed: an error, after the report
    report = json.loads(done.stdout)
    assert [s["where"] for s in report["skipped"]] == [f"{log}:1", f"{log}:2"]
    assert report["summary"]["replayed"] == 0
    assert done.stderr.strip().splitlines()[-1].startswith("error: ")
