"""pydantic-ai: a toolset wrapper that gates every tool call, with approvals that arrive later.

`SafeholdToolset(toolset, gate=..., session_id=...)` wraps any pydantic-ai toolset (a
`FunctionToolset`, an MCP server, a combination). For each call the model makes:

- ALLOW runs the tool;
- DENY does not run it: the model gets a refusal with the reasons as the tool's result, so
  it can change course;
- ASK raises pydantic-ai's `ApprovalRequired`: the run ends with `DeferredToolRequests`
  (give the agent `output_type=[..., DeferredToolRequests]`). Show the person the calls,
  then turn their answers into `DeferredToolResults` with `toolset.results(requests,
  answers)`, which records each answer through `Gate.answer` (grants and audit as
  `Gate.check` would), and pass those to the next run.

An approval that did not come from `results` (a hand-made `DeferredToolResults`, or
`override_args` that change the call) does not run an ASK call: only a policy ALLOW would.
Needs the `safehold[pydantic-ai]` extra (pydantic-ai-slim). See docs/pydantic-ai.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.exceptions import ApprovalRequired
from pydantic_ai.tools import (
    AgentDepsT,
    DeferredToolRequests,
    DeferredToolResults,
    ToolApproved,
    ToolDenied,
)
from pydantic_ai.toolsets import WrapperToolset
from pydantic_ai.toolsets.abstract import ToolsetTool

from safehold.adapters._framework_calls import CallLedger, refusal, session_for
from safehold.adapters.tables.pydantic_ai import PYDANTIC_AI_TOOLS
from safehold.adapters.tool_table import ToolTable
from safehold.policy.approval import ApprovalOutcome, Gate, same_runner
from safehold.policy.decision import Verdict
from safehold.policy.engine import Runner

__all__ = ["PYDANTIC_AI_TOOLS", "SafeholdToolset", "refusal"]

SessionId = str | Callable[[RunContext[Any]], str]


@dataclass
class SafeholdToolset(WrapperToolset[AgentDepsT]):
    """Gates every call of the wrapped toolset through a `Gate`, for one session per run.

    `session_id` is a fixed id or a function of the run context (say, of its deps);
    `workspace`, when given, opens the session on first use (`SessionPolicies.ensure`).
    `table` says what each tool name is (kind, path and command arguments): extend
    `PYDANTIC_AI_TOOLS` with the application's own tools. The wrapped tools run in your
    process, so calls are judged for the host: `runner="sandbox"` only when the tools run
    their commands with `run_sandboxed` (the gate must decide for the same runner).
    """

    gate: Gate = field(kw_only=True)
    session_id: SessionId = field(kw_only=True)
    table: ToolTable = field(default=PYDANTIC_AI_TOOLS, kw_only=True)
    workspace: str | None = field(default=None, kw_only=True)
    runner: Runner = field(default="host", kw_only=True)
    _approved: CallLedger = field(default_factory=CallLedger, kw_only=True, repr=False)

    def __post_init__(self) -> None:
        same_runner(self.gate, self.runner, "SafeholdToolset")

    def _session(self, ctx: RunContext[AgentDepsT] | None) -> str:
        return session_for(self.gate, self.session_id, ctx, self.workspace)

    async def call_tool(
        self,
        name: str,
        tool_args: dict[str, Any],
        ctx: RunContext[AgentDepsT],
        tool: ToolsetTool[AgentDepsT],
    ) -> Any:
        """Decide the call; run it only when the policy or the person allowed it."""
        session_id = self._session(ctx)
        call = self.table.to_call(name, tool_args, tool_call_id=ctx.tool_call_id)
        if ctx.tool_call_approved and self._approved.take(session_id, call)[0]:
            return await super().call_tool(name, tool_args, ctx, tool)
        decision = self.gate.decide(session_id, call)
        if decision.verdict is Verdict.ALLOW:
            return await super().call_tool(name, tool_args, ctx, tool)
        if decision.verdict is Verdict.ASK and not ctx.tool_call_approved:
            raise ApprovalRequired(
                metadata={"safehold": {"explain": decision.explain(), **decision.to_dict()}}
            )
        return refusal(decision, name)

    def results(
        self,
        requests: DeferredToolRequests,
        answers: Mapping[str, ApprovalOutcome | bool],
        *,
        session_id: str | None = None,
    ) -> DeferredToolResults:
        """Record the person's answers (by `tool_call_id`) and build the next run's results.

        `True`/`False` mean allow once / reject once; an `ApprovalOutcome` may also say
        "always". A call left unanswered is treated as cancelled (denied). Each answer goes
        through `Gate.answer`, so a stale or duplicate answer denies too.
        """
        sid = session_id if session_id is not None else self._session(None)
        pending = {part.tool_call_id: part for part in requests.approvals}
        unknown = sorted(set(answers) - set(pending))
        if unknown:
            raise ValueError(f"answers name tool calls that were not asked about: {unknown}")
        approvals: dict[str, bool | ToolApproved | ToolDenied] = {}
        for call_id, part in pending.items():
            answer = answers.get(call_id, ApprovalOutcome.CANCELLED)
            outcome = (
                (ApprovalOutcome.ALLOW_ONCE if answer else ApprovalOutcome.REJECT_ONCE)
                if isinstance(answer, bool)
                else answer
            )
            call = self.table.to_call(part.tool_name, part.args_as_dict(), tool_call_id=call_id)
            decision = self.gate.answer(sid, call, outcome)
            if decision.allowed:
                self._approved.put(sid, call)
                approvals[call_id] = ToolApproved()
            else:
                approvals[call_id] = ToolDenied(refusal(decision, part.tool_name))
        return DeferredToolResults(approvals=approvals)
