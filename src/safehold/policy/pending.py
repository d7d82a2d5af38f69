"""Questions a `Gate` has decided to ask but not yet heard back about (`Gate.decide` / `answer`).

Frameworks such as pydantic-ai (deferred tools) and the OpenAI Agents SDK (interruptions)
stop the run when a tool needs approval and deliver the person's answer later, in another
call. The gate remembers each ASK it handed out here, with the session instance it was
asked in, so that the answer can be recorded exactly as `Gate.check` would have, and so
that an answer nobody asked for, a second answer, or an answer meant for a session that has
since been closed or reloaded changes nothing.

A question is found again by the session and the call's `tool_call_id`, or, for a call
without one, by its exact content. The registry is bounded: the oldest questions are
forgotten first, and an answer to a forgotten one is denied like any unknown answer.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from safehold.policy.calls import ToolCall
from safehold.policy.decision import Decision

__all__ = ["PendingAsk", "PendingAsks", "ask_key", "same_call"]

_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class PendingAsk:
    """One ASK handed out by `Gate.decide`: what was asked, in which session instance, when."""

    session_id: str
    call: ToolCall
    decision: Decision
    generation: int
    asked_at: float


def ask_key(session_id: str, call: ToolCall) -> tuple[str, str, str]:
    """The key a question is filed under: its `tool_call_id`, or its exact content."""
    if call.tool_call_id is not None:
        return (session_id, "id", call.tool_call_id)
    content = [call.name, call.kind.value, dict(call.arguments), call.locations, call.path_args]
    return (session_id, "call", json.dumps(content, sort_keys=True, default=repr))


def same_call(x: ToolCall, y: ToolCall) -> bool:
    """True when two calls show a person the same thing (everything but the call id)."""
    # NaN and other values not equal to themselves count as different: fail closed.
    try:
        return bool(
            (x.name, x.kind, x.locations, x.path_args) == (y.name, y.kind, y.locations, y.path_args)
            and dict(x.arguments) == dict(y.arguments)
        )
    except Exception:
        return False


class PendingAsks:
    """A bounded, thread-safe registry of open questions and of recently answered ones."""

    def __init__(self, limit: int = _LIMIT) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._open: OrderedDict[tuple[str, str, str], PendingAsk] = OrderedDict()
        self._answered: OrderedDict[tuple[str, str, str], None] = OrderedDict()

    def add(self, session_id: str, call: ToolCall, decision: Decision, generation: int) -> None:
        """Remember an ASK; asking again under the same key replaces the earlier question."""
        key = ask_key(session_id, call)
        ask = PendingAsk(session_id, call, decision, generation, time.monotonic())
        with self._lock:
            self._open.pop(key, None)
            self._answered.pop(key, None)
            self._open[key] = ask
            _trim(self._open, self._limit)

    def take(self, session_id: str, call: ToolCall) -> tuple[PendingAsk | None, bool]:
        """Remove and return the question `call` answers, and whether it was answered before."""
        key = ask_key(session_id, call)
        with self._lock:
            ask = self._open.pop(key, None)
            if ask is None:
                return None, key in self._answered
            self._answered[key] = None
            _trim(self._answered, self._limit)
            return ask, False

    def __len__(self) -> int:
        with self._lock:
            return len(self._open)


def _trim(entries: OrderedDict[Any, Any], limit: int) -> None:
    while len(entries) > limit:
        entries.popitem(last=False)
