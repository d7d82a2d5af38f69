"""OpenAI Agents SDK: `needs_approval`, a tool input guardrail and a sandboxed shell executor.

`SafeholdGuard(gate, session_id=...)` plugs safehold into the SDK's own mechanisms:

- `guard.protect(tool)` gives a function tool `needs_approval=guard.needs_approval(name)`
  (the run is interrupted when the policy says ASK) and the input guardrail
  `guard.input_guardrail` (a DENY never runs: the model reads the reasons instead);
- `guard.answer(state, item, outcome)` records the person's answer to an interruption
  through `Gate.answer` (grants and audit as `Gate.check` would) and approves or rejects
  the item in the `RunState`; an approval made with `state.approve` alone does not run an
  ASK call, because the guardrail only lets through what safehold allowed;
- `guard.shell_tool()` is the SDK's `ShellTool` whose commands are decided one by one and
  run by `safehold.adapters.bwrap.run_sandboxed`.

Function tools run in your process, so they are judged for the host unless the guard is
built with `runner="sandbox"` (only for tools that run their commands with
`run_sandboxed`). The shell tool always decides for the sandbox: safehold runs it.

Needs the `safehold[openai-agents]` extra. See docs/openai-agents.md.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable
from typing import Any

from agents import FunctionTool, RunContextWrapper, RunState, ShellTool
from agents.items import ToolApprovalItem
from agents.tool import (
    ShellActionRequest,
    ShellCallOutcome,
    ShellCommandOutput,
    ShellCommandRequest,
    ShellResult,
)
from agents.tool_guardrails import (
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
)

from safehold.adapters._framework_calls import CallLedger, refusal, session_for
from safehold.adapters.bwrap import run_sandboxed
from safehold.adapters.tables.openai_agents import OPENAI_AGENTS_TOOLS
from safehold.adapters.tool_table import ToolTable
from safehold.errors import SafeholdError
from safehold.policy.approval import ApprovalOutcome, Gate, same_runner
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import Runner

__all__ = ["OPENAI_AGENTS_TOOLS", "SafeholdGuard", "refusal"]

SessionId = str | Callable[[RunContextWrapper[Any]], str]
_SHELL = "shell"


class SafeholdGuard:
    """safehold's gate for one agent's function tools and shell, in the SDK's own terms.

    `session_id` is a fixed id or a function of the run context; `workspace`, when given,
    opens the session on first use and is where shell commands run. `table` says what each
    tool name is: extend `OPENAI_AGENTS_TOOLS` with the application's own tools. `runner`
    says who runs the function tools' commands (`"host"`, the default, or `"sandbox"`); the
    gate must decide for the same runner. The shell tool decides for the sandbox.
    """

    def __init__(
        self,
        gate: Gate,
        *,
        session_id: SessionId,
        workspace: str | None = None,
        table: ToolTable = OPENAI_AGENTS_TOOLS,
        runner: Runner = "host",
    ) -> None:
        self.gate = same_runner(gate, runner, "SafeholdGuard")
        # safehold's own executor runs the shell tool's commands, in the sandbox.
        self._shell_gate = gate.with_runner("sandbox")
        self.session_id = session_id
        self.workspace = workspace
        self.table = table
        self._approved = CallLedger()  # allowed by the person through `answer`
        self._decided = CallLedger()  # decided by needs_approval, to be judged by the guardrail
        self.input_guardrail: ToolInputGuardrail[Any] = ToolInputGuardrail(
            guardrail_function=self._guard, name="safehold"
        )

    # -- sessions and calls --------------------------------------------------------------

    def _session(self, ctx: RunContextWrapper[Any] | None) -> str:
        return session_for(self.gate, self.session_id, ctx, self.workspace)

    def _call(self, name: str, arguments: object, call_id: str | None) -> ToolCall:
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError:
                arguments = {"arguments": arguments}  # unreadable: judged as given, never dropped
        if not isinstance(arguments, dict):
            arguments = {"arguments": arguments}
        return self.table.to_call(name, arguments, tool_call_id=call_id)

    # -- function tools ------------------------------------------------------------------

    def needs_approval(
        self, tool_name: str
    ) -> Callable[[RunContextWrapper[Any], dict[str, Any], str], Awaitable[bool]]:
        """A `needs_approval` callable for the function tool `tool_name`: True when safehold asks."""

        async def needs_approval(
            ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
        ) -> bool:
            session_id = self._session(ctx)
            call = self._call(tool_name, params, call_id)
            decision = self.gate.decide(session_id, call)
            if decision.verdict is not Verdict.ASK:
                self._decided.put(session_id, call, decision)  # the guardrail enforces it
            return decision.verdict is Verdict.ASK

        return needs_approval

    async def _guard(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        tool = data.context
        session_id = self._session(tool)
        call = self._call(tool.tool_name, tool.tool_arguments, tool.tool_call_id)
        approved, _ = self._approved.take(session_id, call)
        if approved:
            return ToolGuardrailFunctionOutput.allow()
        known, decision = self._decided.take(session_id, call)
        if not known or decision is None:
            decision = self.gate.decide(session_id, call)
        if decision.allowed:
            return ToolGuardrailFunctionOutput.allow()
        return ToolGuardrailFunctionOutput.reject_content(
            refusal(decision, tool.tool_name), output_info=decision.to_dict()
        )

    def protect(self, tool: FunctionTool) -> FunctionTool:
        """A copy of `tool` that safehold gates (its approval and input guardrail)."""
        guardrails = [*(tool.tool_input_guardrails or ()), self.input_guardrail]
        return dataclasses.replace(
            tool, needs_approval=self.needs_approval(tool.name), tool_input_guardrails=guardrails
        )

    # -- answers -------------------------------------------------------------------------

    def answer(
        self,
        state: RunState[Any],
        item: ToolApprovalItem,
        outcome: ApprovalOutcome | bool,
        *,
        session_id: str | None = None,
    ) -> Decision:
        """Record the person's answer to one interruption and approve or reject it in `state`.

        `True`/`False` mean allow once / reject once. Returns safehold's final decision; a
        stale, duplicate or unknown answer is a DENY and rejects the item.
        """
        if isinstance(outcome, bool):
            outcome = ApprovalOutcome.ALLOW_ONCE if outcome else ApprovalOutcome.REJECT_ONCE
        sid = session_id if session_id is not None else self._session(None)
        name = item.name or ""
        # A shell action's commands that the policy decided on its own (allowed or denied)
        # were not asked about: the executor enforces those; the answer is for the rest.
        gate, every = self._item_calls(item)
        calls = [c for c in every if not self._decided.has(sid, c)]
        decisions = [gate.answer(sid, call, outcome) for call in calls]
        final = _strictest(decisions)
        if final.allowed:
            for call in calls:
                self._approved.put(sid, call)
            state.approve(item)
        else:
            state.reject(item, rejection_message=refusal(final, name))
        return final

    def _item_calls(self, item: ToolApprovalItem) -> tuple[Gate, list[ToolCall]]:
        """The calls an interruption stands for, and the gate that asked about them."""
        raw = item.raw_item
        action = raw.get("action") if isinstance(raw, dict) else getattr(raw, "action", None)
        commands = action.get("commands") if isinstance(action, dict) else None
        if commands is None:
            commands = getattr(action, "commands", None)
        if item.name == _SHELL and isinstance(commands, list):
            shell = [_shell_call(command, item.call_id, i) for i, command in enumerate(commands)]
            return self._shell_gate, shell
        return self.gate, [self._call(item.name or "", item.arguments, item.call_id)]

    # -- shell ---------------------------------------------------------------------------

    def shell_tool(self, *, timeout: float | None = None) -> ShellTool:
        """The SDK's `ShellTool`: commands safehold asks about interrupt the run; each command
        it allows runs in the bwrap sandbox (`run_sandboxed`) in the workspace."""
        return ShellTool(
            executor=self.shell_executor(timeout=timeout), needs_approval=self._shell_needs_approval
        )

    async def _shell_needs_approval(
        self, ctx: RunContextWrapper[Any], action: ShellActionRequest, call_id: str
    ) -> bool:
        session_id = self._session(ctx)
        verdicts = set()
        for i, command in enumerate(action.commands):
            call = _shell_call(command, call_id, i)
            decision = self._shell_gate.decide(session_id, call)
            verdicts.add(decision.verdict)
            if decision.verdict is not Verdict.ASK:
                self._decided.put(session_id, call, decision)
        # An action with a denied command is not worth a question: the executor refuses it
        # (and everything after it, and any command still asking), with the reasons.
        return Verdict.ASK in verdicts and Verdict.DENY not in verdicts

    def shell_executor(
        self, *, timeout: float | None = None
    ) -> Callable[[ShellCommandRequest], Awaitable[ShellResult]]:
        """A shell executor: decides every command and runs the allowed ones in the sandbox.

        A refused command is not run: its output is the refusal on stderr and exit code 126,
        and the commands after it are not run either.
        """

        async def execute(request: ShellCommandRequest) -> ShellResult:
            session_id = self._session(request.ctx_wrapper)
            policies = self.gate.policies
            config = policies.config(session_id)
            cwd = policies.workspace(session_id)
            outputs: list[ShellCommandOutput] = []
            data = request.data
            seconds = timeout
            if seconds is None and data.action.timeout_ms:
                seconds = data.action.timeout_ms / 1000
            for i, command in enumerate(data.action.commands):
                call = _shell_call(command, data.call_id, i)
                decision = self._shell_decision(session_id, call)
                if not decision.allowed:
                    outputs.append(_refused(command, refusal(decision, _SHELL)))
                    break
                try:
                    result = await run_sandboxed(
                        command, cwd=cwd, config=config, timeout=seconds, decision=decision
                    )
                except SafeholdError as exc:
                    outputs.append(_refused(command, f"safehold could not sandbox it: {exc}"))
                    break
                outcome = (
                    ShellCallOutcome(type="timeout")
                    if result.timed_out
                    else ShellCallOutcome(type="exit", exit_code=result.exit_code)
                )
                outputs.append(
                    ShellCommandOutput(
                        stdout=result.stdout_text,
                        stderr=result.stderr.decode("utf-8", "replace"),
                        outcome=outcome,
                        command=command,
                    )
                )
            return ShellResult(output=outputs, max_output_length=data.action.max_output_length)

        return execute

    def _shell_decision(self, session_id: str, call: ToolCall) -> Decision:
        approved, _ = self._approved.take(session_id, call)
        if approved:
            return Decision(Verdict.ALLOW)
        known, decision = self._decided.take(session_id, call)
        if known and decision is not None:
            return decision
        return self._shell_gate.decide(session_id, call)


def _shell_call(command: str, call_id: str | None, index: int) -> ToolCall:
    # One ToolCall per command of the action, each with its own id, so each is answered alone.
    return ToolCall(
        _SHELL,
        {"command": command},
        ToolKind.EXECUTE,
        tool_call_id=None if call_id is None else f"{call_id}#{index}",
    )


def _refused(command: str, message: str) -> ShellCommandOutput:
    return ShellCommandOutput(
        stderr=message, outcome=ShellCallOutcome(type="exit", exit_code=126), command=command
    )


def _strictest(decisions: list[Decision]) -> Decision:
    for decision in decisions:
        if not decision.allowed:
            return decision
    return decisions[0] if decisions else Decision(Verdict.DENY)
