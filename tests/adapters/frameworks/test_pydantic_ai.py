"""`SafeholdToolset`: a real pydantic-ai agent, driven by `FunctionModel`, gated by safehold."""

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
from pydantic_ai.models.test import TestModel  # noqa: E402
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults  # noqa: E402

from safehold import ApprovalOutcome, Gate, SafetyConfig, SessionPolicies, ToolKind  # noqa: E402
from safehold.adapters.pydantic_ai import PYDANTIC_AI_TOOLS, SafeholdToolset  # noqa: E402
from safehold.adapters.tool_table import ToolSpec  # noqa: E402
from safehold.audit import MemorySink  # noqa: E402

SID = "conv-1"
TABLE = PYDANTIC_AI_TOOLS.with_tools(
    {"read_file": ToolSpec(ToolKind.READ), "write_file": ToolSpec(ToolKind.EDIT)}
)


def file_tools(ran: list[str]) -> FunctionToolset[None]:
    tools: FunctionToolset[None] = FunctionToolset()

    @tools.tool_plain
    def read_file(path: str) -> str:
        """Read a file."""
        ran.append(f"read {path}")
        return Path(path).read_text()

    @tools.tool_plain
    def write_file(path: str, content: str) -> str:
        """Write a file."""
        ran.append(f"write {path}")
        Path(path).write_text(content)
        return "written"

    return tools


def scripted(*calls: tuple[str, dict[str, Any]]) -> FunctionModel:
    """A model that makes `calls` (all at once) and then says what the tools returned."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [
            part.content
            for message in messages
            if isinstance(message, ModelRequest)
            for part in message.parts
            if isinstance(part, ToolReturnPart)
        ]
        if returns:
            return ModelResponse(parts=[TextPart(" | ".join(str(r) for r in returns))])
        return ModelResponse(
            parts=[
                ToolCallPart(name, args, tool_call_id=f"call-{i}")
                for i, (name, args) in enumerate(calls)
            ]
        )

    return FunctionModel(respond)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / ".env").write_text("TOKEN=secret")
    return tmp_path


@pytest.fixture
def gate(ws: Path) -> Gate:
    return Gate(SessionPolicies(SafetyConfig()), audit=MemorySink())


def agent_for(model: Any, toolset: SafeholdToolset[None]) -> Agent[None, Any]:
    return Agent(model, toolsets=[toolset], output_type=[str, DeferredToolRequests])


async def test_allow_runs_and_deny_returns_a_refusal(ws: Path, gate: Gate) -> None:
    ran: list[str] = []
    toolset = SafeholdToolset(
        file_tools(ran), gate=gate, session_id=SID, table=TABLE, workspace=str(ws)
    )
    model = scripted(
        ("read_file", {"path": str(ws / "notes.txt")}),
        ("read_file", {"path": str(ws / ".env")}),
    )
    result = await agent_for(model, toolset).run("read both")
    assert isinstance(result.output, str)
    assert "hello" in result.output
    assert "safehold did not run the tool `read_file`. Denied:" in result.output
    assert ".env" in result.output and "secret" not in result.output
    assert ran == [f"read {ws / 'notes.txt'}"]


async def test_ask_defers_and_the_answer_runs_the_call(ws: Path, gate: Gate) -> None:
    ran: list[str] = []
    toolset = SafeholdToolset(
        file_tools(ran), gate=gate, session_id=SID, table=TABLE, workspace=str(ws)
    )
    agent = agent_for(
        scripted(
            ("write_file", {"path": str(ws / "a.txt"), "content": "A"}),
            ("write_file", {"path": str(ws / "b.txt"), "content": "B"}),
        ),
        toolset,
    )
    first = await agent.run("write two files")
    requests = first.output
    assert isinstance(requests, DeferredToolRequests)
    assert [p.tool_name for p in requests.approvals] == ["write_file", "write_file"]
    meta = requests.metadata["call-0"]["safehold"]
    assert meta["verdict"] == "ask" and meta["explain"].startswith("Needs approval: ")
    assert ran == []

    results = toolset.results(requests, {"call-0": ApprovalOutcome.ALLOW_ALWAYS, "call-1": False})
    second = await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    assert ran == [f"write {ws / 'a.txt'}"]
    assert (ws / "a.txt").read_text() == "A" and not (ws / "b.txt").exists()
    assert "written" in second.output and "rejected" in second.output
    # The "always" answer is a grant: the same write no longer asks.
    third = await agent_for(
        scripted(("write_file", {"path": str(ws / "a.txt"), "content": "A2"})), toolset
    ).run("again")
    assert third.output == "written"
    # A second answer to the same question changes nothing.
    again = toolset.results(requests, {"call-1": True})
    assert again.approvals["call-1"].kind == "tool-denied"  # type: ignore[union-attr]


async def test_an_approval_made_outside_safehold_does_not_run(ws: Path, gate: Gate) -> None:
    ran: list[str] = []
    toolset = SafeholdToolset(
        file_tools(ran), gate=gate, session_id=SID, table=TABLE, workspace=str(ws)
    )
    agent = agent_for(
        scripted(("write_file", {"path": str(ws / "a.txt"), "content": "A"})), toolset
    )
    first = await agent.run("write")
    assert isinstance(first.output, DeferredToolRequests)
    forged = DeferredToolResults(approvals={"call-0": True})
    second = await agent.run(message_history=first.all_messages(), deferred_tool_results=forged)
    assert ran == [] and not (ws / "a.txt").exists()
    assert "safehold did not run" in second.output


async def test_stale_answer_after_reload_denies(ws: Path, gate: Gate) -> None:
    ran: list[str] = []
    toolset = SafeholdToolset(
        file_tools(ran), gate=gate, session_id=SID, table=TABLE, workspace=str(ws)
    )
    agent = agent_for(
        scripted(("write_file", {"path": str(ws / "a.txt"), "content": "A"})), toolset
    )
    first = await agent.run("write")
    assert isinstance(first.output, DeferredToolRequests)
    gate.policies.load(SID, str(ws))
    results = toolset.results(first.output, {"call-0": True})
    second = await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    assert ran == [] and "loaded again" in second.output
    with pytest.raises(ValueError, match="not asked about"):
        toolset.results(first.output, {"nope": True})


def test_unmapped_tools_ask_with_test_model(ws: Path, gate: Gate) -> None:
    """TestModel calls every tool; tools the table does not know are asked about."""
    ran: list[str] = []
    toolset = SafeholdToolset(file_tools(ran), gate=gate, session_id=SID, workspace=str(ws))
    result = Agent(
        TestModel(call_tools=["read_file"]),
        toolsets=[toolset],
        output_type=[str, DeferredToolRequests],
    ).run_sync("go")
    assert isinstance(result.output, DeferredToolRequests)
    assert [p.tool_name for p in result.output.approvals] == ["read_file"]
    assert ran == []
