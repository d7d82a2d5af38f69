"""`SafeholdToolset` judges for the host unless told the sandbox runs the command.

A real pydantic-ai agent driven by `FunctionModel`: its tool runs in this process, so in
auto mode `python3 -c 'import os'` must be asked about (the run ends with a deferred
request and the tool does not run); told `runner="sandbox"`, the call is allowed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.adapters._frameworks import need

need("pydantic_ai")

from pydantic_ai import Agent, FunctionToolset  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from pydantic_ai.tools import DeferredToolRequests  # noqa: E402

from safehold import Gate, SafetyConfig, SessionPolicies, ToolKind  # noqa: E402
from safehold.adapters.pydantic_ai import PYDANTIC_AI_TOOLS, SafeholdToolset  # noqa: E402
from safehold.adapters.tool_table import ToolSpec  # noqa: E402
from safehold.policy.engine import Runner  # noqa: E402

INLINE = "python3 -c 'import os'"
TABLE = PYDANTIC_AI_TOOLS.with_tools({"bash": ToolSpec(ToolKind.EXECUTE)})


def shell_tools(ran: list[str]) -> FunctionToolset[None]:
    tools: FunctionToolset[None] = FunctionToolset()

    @tools.tool_plain
    def bash(command: str) -> str:
        """Run a command (here: only recorded)."""
        ran.append(command)
        return "ran"

    return tools


def one_call() -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if any(
            isinstance(part, ToolReturnPart)
            for message in messages
            if isinstance(message, ModelRequest)
            for part in message.parts
        ):
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart("bash", {"command": INLINE}, tool_call_id="c0")])

    return FunctionModel(respond)


async def _run(tmp_path: Path, **runner: Runner) -> tuple[Any, list[str]]:
    ran: list[str] = []
    policies = SessionPolicies(SafetyConfig().with_mode("auto"))
    toolset = SafeholdToolset(
        shell_tools(ran),
        gate=Gate(policies, **runner),
        session_id="s1",
        table=TABLE,
        workspace=str(tmp_path),
        **runner,
    )
    agent = Agent(one_call(), toolsets=[toolset], output_type=[str, DeferredToolRequests])
    return (await agent.run("run it")).output, ran


async def test_the_toolset_asks_for_the_host_by_default(tmp_path: Path) -> None:
    output, ran = await _run(tmp_path)
    assert isinstance(output, DeferredToolRequests)
    [request] = output.approvals
    assert request.args_as_dict() == {"command": INLINE}
    assert ran == []


async def test_the_toolset_told_the_sandbox_runs_it_allows(tmp_path: Path) -> None:
    output, ran = await _run(tmp_path, runner="sandbox")
    assert output == "done"
    assert ran == [INLINE]


def test_a_toolset_and_its_gate_must_name_the_same_runner() -> None:
    gate = Gate(SessionPolicies(SafetyConfig()), runner="sandbox")
    with pytest.raises(ValueError, match="SafeholdToolset: runner='host'"):
        SafeholdToolset(shell_tools([]), gate=gate, session_id="s1")
