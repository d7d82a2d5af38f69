"""What the framework adapters (pydantic-ai, OpenAI Agents SDK) share, framework-free.

- `refusal`: the text a model reads instead of a tool's result when safehold does not run
  the call;
- `CallLedger`: a bounded record of calls by session and call id (what the person allowed
  through `Gate.answer`, what the policy already decided), each entry good once and only for
  that exact call;
- `session_for`: the session id of a run (fixed, or computed from the framework's context),
  opened on first use when the adapter knows the workspace.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from safehold.policy.approval import Gate
from safehold.policy.calls import ToolCall
from safehold.policy.decision import Decision
from safehold.policy.pending import ask_key, same_call

__all__ = ["CallLedger", "refusal", "session_for"]

_C = TypeVar("_C")


def refusal(decision: Decision, name: str) -> str:
    """The text a model reads when safehold does not run its call: what and why."""
    return f"safehold did not run the tool `{name}`. {decision.explain()}"


class CallLedger:
    """A bounded map of calls by (session, call id or content), each entry taken once."""

    def __init__(self, limit: int = 4096) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[str, str, str], tuple[ToolCall, Decision | None]] = (
            OrderedDict()
        )

    def put(self, session_id: str, call: ToolCall, decision: Decision | None = None) -> None:
        """Record `call` (and the decision made about it, if any); the oldest go first."""
        with self._lock:
            self._items[ask_key(session_id, call)] = (call, decision)
            while len(self._items) > self._limit:
                self._items.popitem(last=False)

    def has(self, session_id: str, call: ToolCall) -> bool:
        """True when exactly this call is recorded."""
        with self._lock:
            entry = self._items.get(ask_key(session_id, call))
        return entry is not None and same_call(entry[0], call)

    def take(self, session_id: str, call: ToolCall) -> tuple[bool, Decision | None]:
        """Remove the entry under the call's key; (True, its decision) only for this exact call."""
        with self._lock:
            entry = self._items.pop(ask_key(session_id, call), None)
        if entry is None or not same_call(entry[0], call):
            return False, None
        return True, entry[1]


def session_for(
    gate: Gate,
    session_id: str | Callable[[_C], str],
    context: _C | None,
    workspace: str | None,
) -> str:
    """The run's session id; with a `workspace`, the session is opened on first use."""
    if isinstance(session_id, str):
        sid = session_id
    elif context is None:
        raise TypeError("session_id is a function of the run context: pass session_id=")
    else:
        sid = session_id(context)
    if workspace is not None:
        gate.policies.ensure(sid, workspace)
    return sid
