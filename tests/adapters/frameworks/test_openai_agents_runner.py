"""`SafeholdGuard` judges function tools for the host unless told; its shell tool is sandboxed.

A real OpenAI Agents SDK run driven by its `ScriptedModel`: a function tool runs in this
process, so in auto mode `python3 -c 'import os'` interrupts the run for approval; told
`runner="sandbox"`, it runs. `guard.shell_tool()` runs commands with `run_sandboxed`, so
it decides for the sandbox whatever the guard's runner.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.adapters._frameworks import need

need("agents")

from agents import Agent, Runner, function_tool, set_tracing_disabled  # noqa: E402
from agents.testing import ScriptedModel, assistant_message, function_call  # noqa: E402
from openai.types.responses import ResponseFunctionShellToolCall  # noqa: E402

from safehold import Gate, SafetyConfig, SessionPolicies, ToolKind  # noqa: E402
from safehold.adapters.openai_agents import OPENAI_AGENTS_TOOLS, SafeholdGuard  # noqa: E402
from safehold.adapters.tool_table import ToolSpec  # noqa: E402
from safehold.audit import MemorySink  # noqa: E402
from safehold.policy.engine import Runner as Who  # noqa: E402

INLINE = "python3 -c 'import os'"
TABLE = OPENAI_AGENTS_TOOLS.with_tools({"bash": ToolSpec(ToolKind.EXECUTE)})


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    set_tracing_disabled(True)


def _guard(tmp_path: Path, sink: MemorySink | None = None, **runner: Who) -> SafeholdGuard:
    gate = Gate(SessionPolicies(SafetyConfig().with_mode("auto")), audit=sink, **runner)
    return SafeholdGuard(gate, session_id="s1", workspace=str(tmp_path), table=TABLE, **runner)


async def _run(guard: SafeholdGuard) -> tuple[Any, list[str]]:
    ran: list[str] = []

    @function_tool
    def bash(command: str) -> str:
        """Run a command (here: only recorded)."""
        ran.append(command)
        return "ran"

    model = ScriptedModel(
        [[function_call("bash", {"command": INLINE}, call_id="c0")], [assistant_message("done")]]
    )
    agent = Agent(name="a", model=model, tools=[guard.protect(bash)])
    return await Runner.run(agent, "run it"), ran


async def test_function_tools_ask_for_the_host_by_default(tmp_path: Path) -> None:
    result, ran = await _run(_guard(tmp_path))
    assert [i.name for i in result.interruptions] == ["bash"]
    assert ran == []


async def test_function_tools_told_the_sandbox_runs_them_are_allowed(tmp_path: Path) -> None:
    result, ran = await _run(_guard(tmp_path, runner="sandbox"))
    assert result.interruptions == []
    assert result.final_output == "done"
    assert ran == [INLINE]


def test_a_guard_and_its_gate_must_name_the_same_runner(tmp_path: Path) -> None:
    gate = Gate(SessionPolicies(SafetyConfig()), runner="sandbox")
    with pytest.raises(ValueError, match="SafeholdGuard: runner='host'"):
        SafeholdGuard(gate, session_id="s1")


@pytest.mark.sandbox
async def test_the_shell_tool_decides_for_the_sandbox_and_runs_there(tmp_path: Path) -> None:
    sink = MemorySink()
    guard = _guard(tmp_path, sink)  # a host guard: its shell tool still declares the sandbox
    call = ResponseFunctionShellToolCall(
        type="shell_call",
        id="sh0",
        call_id="sh0",
        status="completed",
        action={"commands": ["python3 -c 'import os, subprocess; print(os.sep)'"]},
    )
    model = ScriptedModel([[call], [assistant_message("done")]])
    agent = Agent(name="a", model=model, tools=[guard.shell_tool()])
    result = await Runner.run(agent, "shell")
    assert result.interruptions == []
    assert result.final_output == "done"
    [output] = [i.output for i in result.new_items if i.type == "tool_call_output_item"]
    assert "/" in str(output)
    [entry] = sink.entries
    assert entry["runner"] == "sandbox" and entry["verdict"] == "allow"
    assert entry["confined"] is True
