"""`SafeholdGuard`: a real OpenAI Agents SDK run, driven by its `ScriptedModel`, gated by safehold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.adapters._frameworks import need

need("agents")

from agents import Agent, Runner, function_tool, set_tracing_disabled  # noqa: E402
from agents.testing import ScriptedModel, assistant_message, function_call  # noqa: E402
from openai.types.responses import ResponseFunctionShellToolCall  # noqa: E402

from safehold import ApprovalOutcome, Gate, Mode, SafetyConfig, SessionPolicies, ToolKind  # noqa: E402
from safehold.adapters.openai_agents import OPENAI_AGENTS_TOOLS, SafeholdGuard  # noqa: E402
from safehold.adapters.tool_table import ToolSpec  # noqa: E402
from safehold.audit import MemorySink  # noqa: E402

SID = "conv-1"
TABLE = OPENAI_AGENTS_TOOLS.with_tools(
    {"read_file": ToolSpec(ToolKind.READ), "write_file": ToolSpec(ToolKind.EDIT)}
)


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    # No network and no key: the scripted model never calls out, tracing is off.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    set_tracing_disabled(True)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / ".env").write_text("TOKEN=secret")
    return tmp_path


@pytest.fixture
def guard(ws: Path) -> SafeholdGuard:
    gate = Gate(SessionPolicies(SafetyConfig()), audit=MemorySink())
    return SafeholdGuard(gate, session_id=SID, workspace=str(ws), table=TABLE)


def file_tools(guard: SafeholdGuard, ran: list[str]) -> list[Any]:
    @function_tool
    def read_file(path: str) -> str:
        """Read a file."""
        ran.append(f"read {path}")
        return Path(path).read_text()

    @function_tool
    def write_file(path: str, content: str) -> str:
        """Write a file."""
        ran.append(f"write {path}")
        Path(path).write_text(content)
        return "written"

    return [guard.protect(read_file), guard.protect(write_file)]


def outputs(result: Any) -> list[str]:
    return [str(item.output) for item in result.new_items if item.type == "tool_call_output_item"]


async def test_allow_runs_and_deny_is_rejected_content(ws: Path, guard: SafeholdGuard) -> None:
    ran: list[str] = []
    model = ScriptedModel(
        [
            [
                function_call("read_file", {"path": str(ws / "notes.txt")}, call_id="c0"),
                function_call("read_file", {"path": str(ws / ".env")}, call_id="c1"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="a", model=model, tools=file_tools(guard, ran))
    result = await Runner.run(agent, "read both")
    assert result.final_output == "done"
    assert ran == [f"read {ws / 'notes.txt'}"]
    texts = outputs(result)
    assert "hello" in texts[0]
    assert texts[1].startswith("safehold did not run the tool `read_file`. Denied:")
    assert "secret" not in texts[1]


async def test_ask_interrupts_and_the_answer_runs_the_call(ws: Path, guard: SafeholdGuard) -> None:
    ran: list[str] = []
    model = ScriptedModel(
        [
            [
                function_call(
                    "write_file", {"path": str(ws / "a.txt"), "content": "A"}, call_id="c0"
                ),
                function_call(
                    "write_file", {"path": str(ws / "b.txt"), "content": "B"}, call_id="c1"
                ),
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="a", model=model, tools=file_tools(guard, ran))
    first = await Runner.run(agent, "write two")
    assert [i.name for i in first.interruptions] == ["write_file", "write_file"]
    assert ran == []
    state = first.to_state()
    a, b = first.interruptions
    assert guard.answer(state, a, ApprovalOutcome.ALLOW_ALWAYS).allowed
    assert not guard.answer(state, b, False).allowed
    second = await Runner.run(agent, state)
    assert second.final_output == "done"
    assert ran == [f"write {ws / 'a.txt'}"]
    assert (ws / "a.txt").read_text() == "A" and not (ws / "b.txt").exists()
    assert any("rejected" in text for text in outputs(second))


async def test_an_approval_made_outside_safehold_does_not_run(
    ws: Path, guard: SafeholdGuard
) -> None:
    ran: list[str] = []
    model = ScriptedModel(
        [
            [
                function_call(
                    "write_file", {"path": str(ws / "a.txt"), "content": "A"}, call_id="c0"
                )
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="a", model=model, tools=file_tools(guard, ran))
    first = await Runner.run(agent, "write")
    state = first.to_state()
    state.approve(first.interruptions[0])  # behind safehold's back
    second = await Runner.run(agent, state)
    assert ran == [] and not (ws / "a.txt").exists()
    assert any(text.startswith("safehold did not run") for text in outputs(second))


def shell_call(call_id: str, *commands: str) -> ResponseFunctionShellToolCall:
    return ResponseFunctionShellToolCall(
        id=f"sh-{call_id}",
        call_id=call_id,
        type="shell_call",
        status="completed",
        action={"commands": list(commands)},
    )


@pytest.mark.sandbox
async def test_shell_commands_are_decided_and_run_in_the_sandbox(
    ws: Path, guard: SafeholdGuard
) -> None:
    model = ScriptedModel(
        [
            [shell_call("s0", "cat notes.txt", "echo hi > made.txt")],
            [shell_call("s1", "rm -rf ~", "echo never")],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="a", model=model, tools=[guard.shell_tool()])
    first = await Runner.run(agent, "shell")
    # Commands ask in review mode: the run stops before anything ran.
    assert [i.name for i in first.interruptions] == ["shell"]
    assert not (ws / "made.txt").exists()
    state = first.to_state()
    assert guard.answer(state, first.interruptions[0], True).allowed
    second = await Runner.run(agent, state)
    assert second.final_output == "done"
    texts = outputs(second)
    # Both allowed commands ran in the sandbox, in the workspace.
    assert "hello" in texts[0]
    assert (ws / "made.txt").read_text() == "hi\n"
    # The second action was refused without a question, and nothing after the refusal ran.
    assert "safehold did not run the tool `shell`. Denied:" in texts[1]
    assert "never" not in texts[1].replace("echo never", "")


@pytest.mark.sandbox
async def test_an_answer_covers_only_the_commands_that_asked(ws: Path) -> None:
    """In auto mode `echo` is allowed on its own; the answer is about `eval` alone."""
    policies = SessionPolicies(SafetyConfig().with_mode(Mode.AUTO))
    guard = SafeholdGuard(Gate(policies), session_id=SID, workspace=str(ws), table=TABLE)
    model = ScriptedModel(
        [[shell_call("s0", "echo first", 'eval "$NOTHING"')], [assistant_message("done")]]
    )
    agent = Agent(name="a", model=model, tools=[guard.shell_tool()])
    first = await Runner.run(agent, "shell")
    assert [i.name for i in first.interruptions] == ["shell"]
    state = first.to_state()
    assert guard.answer(state, first.interruptions[0], True).allowed
    second = await Runner.run(agent, state)
    assert second.final_output == "done"
    assert "first" in outputs(second)[0]
