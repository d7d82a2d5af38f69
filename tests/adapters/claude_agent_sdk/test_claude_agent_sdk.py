"""claude-agent-sdk's real client against a fake `claude` process: no network, no API key.

`FakeClaudeCLI` is a `Transport` that speaks the CLI side of the SDK's control protocol: it
answers `initialize`, and for each prompt plays a script of tool calls the way Claude Code
does, through the registered `PreToolUse` hook callback or the `can_use_tool` callback, and
"runs" a tool only when the answer lets it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.adapters._frameworks import need

need("claude_agent_sdk")

from claude_agent_sdk import ClaudeSDKClient, HookMatcher, ResultMessage  # noqa: E402
from claude_agent_sdk._internal.transport import Transport  # noqa: E402

from safehold import ApprovalOutcome, ApprovalRequest, SafetyConfig  # noqa: E402
from safehold.adapters.claude_agent_sdk import ClaudeAgentPolicy  # noqa: E402
from safehold.audit import MemorySink  # noqa: E402


@dataclass
class Step:
    tool: str
    input: dict[str, Any]
    via: str = "hook"  # or "can_use_tool"
    permission_mode: str = "default"


@dataclass
class FakeClaudeCLI(Transport):
    cwd: Path
    script: list[Step]
    ran: list[str] = field(default_factory=list)
    refusals: dict[str, str] = field(default_factory=dict)
    initialize: dict[str, Any] = field(default_factory=dict)
    _out: asyncio.Queue[dict[str, Any] | None] = field(default_factory=asyncio.Queue)
    _pending: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=itertools.count)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def connect(self) -> None:
        pass

    def is_ready(self) -> bool:
        return True

    async def end_input(self) -> None:
        pass

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        self._out.put_nowait(None)

    async def read_messages(self) -> AsyncIterator[dict[str, Any]]:  # type: ignore[override]
        while (message := await self._out.get()) is not None:
            yield message

    async def write(self, data: str) -> None:
        for line in data.splitlines():
            message = json.loads(line)
            kind = message.get("type")
            if kind == "control_request" and message["request"]["subtype"] == "initialize":
                self.initialize = message["request"]
                self._out.put_nowait(
                    {
                        "type": "control_response",
                        "response": {
                            "subtype": "success",
                            "request_id": message["request_id"],
                            "response": {"commands": [], "hook_on_failure_supported": True},
                        },
                    }
                )
            elif kind == "control_response":
                response = message["response"]
                self._pending.pop(response["request_id"]).set_result(response)
            elif kind == "user":
                self._tasks.append(asyncio.create_task(self._play()))

    async def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        request_id = f"req_{next(self._ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._out.put_nowait(
            {"type": "control_request", "request_id": request_id, "request": request}
        )
        return await future

    async def _play(self) -> None:
        matchers = (self.initialize.get("hooks") or {}).get("PreToolUse", [])
        for n, step in enumerate(self.script):
            tool_use_id = f"toolu_{n:03d}"
            if step.via == "hook":
                allowed, why = True, ""
                for matcher in matchers:
                    for callback_id in matcher["hookCallbackIds"]:
                        answer = await self._ask(
                            {
                                "subtype": "hook_callback",
                                "callback_id": callback_id,
                                "tool_use_id": tool_use_id,
                                "input": {
                                    "hook_event_name": "PreToolUse",
                                    "session_id": "sess-1",
                                    "transcript_path": "/dev/null",
                                    "cwd": str(self.cwd),
                                    "permission_mode": step.permission_mode,
                                    "tool_name": step.tool,
                                    "tool_input": step.input,
                                    "tool_use_id": tool_use_id,
                                },
                            }
                        )
                        if answer["subtype"] == "error":
                            # on_failure="block": a failing hook blocks the call.
                            blocked = matcher.get("onFailure") == "block"
                            allowed, why = not blocked, answer["error"]
                            continue
                        out = answer["response"]["hookSpecificOutput"]
                        if out["permissionDecision"] != "allow":
                            allowed, why = False, out["permissionDecisionReason"]
            else:
                answer = await self._ask(
                    {
                        "subtype": "can_use_tool",
                        "tool_name": step.tool,
                        "input": step.input,
                        "tool_use_id": tool_use_id,
                        "permission_suggestions": [],
                    }
                )
                body = answer.get("response", {})
                allowed = body.get("behavior") == "allow"
                why = body.get("message", answer.get("error", ""))
            if allowed:
                self.ran.append(step.tool + " " + json.dumps(step.input, sort_keys=True))
            else:
                self.refusals[f"{step.tool} {n}"] = why
        self._out.put_nowait(
            {
                "type": "result",
                "subtype": "success",
                "duration_ms": 1,
                "duration_api_ms": 0,
                "is_error": False,
                "num_turns": 1,
                "session_id": "sess-1",
                "result": "done",
            }
        )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('hi')\n")
    (tmp_path / ".env").write_text("TOKEN=x\n")
    return tmp_path


class Person:
    """An approval callback that answers from a list and remembers what it was asked."""

    def __init__(self, *answers: ApprovalOutcome) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> ApprovalOutcome:
        self.asked.append(request)
        return self.answers.pop(0)


async def _run(policy: ClaudeAgentPolicy, cli: FakeClaudeCLI, **options: Any) -> None:
    async with ClaudeSDKClient(options=policy.options(**options), transport=cli) as client:
        await client.query("do the work")
        messages = [m async for m in client.receive_response()]
    assert isinstance(messages[-1], ResultMessage)


async def test_hook_allows_denies_and_asks_the_person(project: Path) -> None:
    person = Person(ApprovalOutcome.ALLOW_ONCE, ApprovalOutcome.REJECT_ONCE)
    audit = MemorySink()
    policy = ClaudeAgentPolicy(cwd=project, approval=person, audit=audit)
    cli = FakeClaudeCLI(
        project,
        [
            Step("Read", {"file_path": str(project / "src" / "app.py")}),
            Step("Read", {"file_path": str(project / ".env")}),
            Step("Bash", {"command": "rm -rf ~", "description": "clean"}),
            Step("Write", {"file_path": str(project / "src" / "new.py"), "content": "x = 1\n"}),
            Step("Bash", {"command": "python -m pytest -q", "description": "test"}),
            Step("mcp__github__create_issue", {"title": "bug"}),
        ],
    )
    person.answers.append(ApprovalOutcome.ALLOW_ONCE)
    await _run(policy, cli)
    # The matcher the SDK registered is safehold's, for every tool, and fails closed.
    (matcher,) = cli.initialize["hooks"]["PreToolUse"]
    assert matcher["matcher"] is None and matcher["onFailure"] == "block"
    assert [r.split(" ")[0] for r in cli.ran] == ["Read", "Write", "mcp__github__create_issue"]
    assert "matches denied pattern `.env`" in cli.refusals["Read 1"]
    assert "deny rule `rm -r ~`" in cli.refusals["Bash 2"]
    assert cli.refusals["Bash 4"].startswith("safehold denied:")
    assert [r.call.name for r in person.asked] == ["Write", "Bash", "mcp__github__create_issue"]
    assert person.asked[0].call.tool_call_id == "toolu_003"
    assert [e["verdict"] for e in audit.entries] == [
        "allow",
        "deny",
        "deny",
        "allow",
        "deny",
        "allow",
    ]


async def test_without_an_approval_callback_an_ask_is_denied(project: Path) -> None:
    policy = ClaudeAgentPolicy(cwd=project)
    write = Step("Edit", {"file_path": str(project / "src" / "app.py"), "old_string": "hi"})
    cli = FakeClaudeCLI(project, [write, Step("Glob", {"pattern": "**/*.py"})])
    await _run(policy, cli)
    assert [r.split(" ")[0] for r in cli.ran] == ["Glob"]
    assert "no approval callback" in cli.refusals["Edit 0"]


async def test_can_use_tool_answers_with_the_same_policy(project: Path) -> None:
    person = Person(ApprovalOutcome.ALLOW_ALWAYS)
    policy = ClaudeAgentPolicy(SafetyConfig(), cwd=project, approval=person)
    command = {"command": "npm test", "description": "test"}
    cli = FakeClaudeCLI(
        project,
        [
            Step("Bash", command, via="can_use_tool"),
            Step("Bash", command, via="can_use_tool"),  # the "always" grant answers
            Step("Read", {"file_path": "/etc/shadow"}, via="can_use_tool"),
        ],
    )
    await _run(policy, cli, hooks={})
    assert len(person.asked) == 1
    assert [r.split(" ")[0] for r in cli.ran] == ["Bash", "Bash"]
    assert "/etc/shadow" in cli.refusals["Read 2"]


async def test_plan_mode_is_read_only(project: Path) -> None:
    person = Person(ApprovalOutcome.ALLOW_ONCE)
    policy = ClaudeAgentPolicy(cwd=project, approval=person)
    cli = FakeClaudeCLI(
        project,
        [
            Step(
                "Write", {"file_path": str(project / "x.py"), "content": ""}, permission_mode="plan"
            ),
            Step("Read", {"file_path": str(project / "src" / "app.py")}, permission_mode="plan"),
        ],
    )
    await _run(policy, cli)
    assert person.asked == []
    assert [r.split(" ")[0] for r in cli.ran] == ["Read"]
    assert "read-only" in cli.refusals["Write 0"]


async def test_options_keep_the_agents_own_hooks(project: Path) -> None:
    async def mine(*_: Any) -> dict[str, Any]:
        return {}

    policy = ClaudeAgentPolicy(cwd=project)
    options = policy.options(hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[mine])]})
    pre = options.hooks["PreToolUse"]  # type: ignore[index]
    assert pre[0].hooks == [policy.pre_tool_use] and pre[1].hooks == [mine]
    assert options.can_use_tool == policy.can_use_tool
    assert options.cwd == str(project)
    with pytest.raises(ValueError, match="not a directory"):
        ClaudeAgentPolicy(cwd=project / "missing")


async def test_commands_are_judged_as_claude_code_runs_them_unsandboxed(project: Path) -> None:
    """Claude Code, not safehold, runs the Bash tool: inline code is not left to a sandbox.

    In auto mode with the default `sandbox.mode = "bwrap"`, safehold's own runner would
    confine `python3 -c …`; Claude Code runs it on the host, so the policy asks the person.
    """
    person = Person(ApprovalOutcome.REJECT_ONCE)
    auto = SafetyConfig().with_mode("auto")
    assert auto.sandbox.mode == "bwrap"
    policy = ClaudeAgentPolicy(auto, cwd=project, approval=person)
    inline = {"command": 'python3 -c \'import subprocess; subprocess.run(["ls", "/srv"])\''}
    tests = {"command": "npm test"}
    cli = FakeClaudeCLI(project, [Step("Bash", inline), Step("Bash", tests)])
    await _run(policy, cli)
    assert [r.split(" ")[0] for r in cli.ran] == ["Bash"]  # npm test only
    assert len(person.asked) == 1
    codes = {r.code for r in person.asked[0].decision.reasons}
    assert "not-understood" in codes, codes
