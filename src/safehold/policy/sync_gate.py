"""`SyncGate`: the approval flow for agents that do not run asyncio.

It wraps a `Gate` and drives `Gate.check` on a private event loop in a daemon thread, so a
synchronous agent gets exactly the async semantics: the same reasons, grants, audit records,
timeouts and shared dialogs (calls from several threads about the same thing share one
question). The person is asked through a plain function, run in a worker thread so that a
timeout can still end the wait; a function that never returns keeps its thread but its late
answer changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterable
from typing import Protocol

from safehold.policy.approval import (
    ApprovalOutcome,
    ApprovalRequest,
    AuditSink,
    FileDiff,
    Gate,
    same_runner,
)
from safehold.policy.calls import ToolCall
from safehold.policy.decision import Decision
from safehold.policy.engine import Runner
from safehold.policy.sessions import SessionPolicies
from safehold.policy.timeouts import validate_timeout

__all__ = ["SyncApprovalCallback", "SyncGate"]


class SyncApprovalCallback(Protocol):
    """A plain function that asks a person about a request and returns their answer."""

    def __call__(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        """Ask about `request`."""
        ...


class SyncGate:
    """Blocking `check` / `decide` / `answer` over one `Gate`; safe to share between threads.

    Do not call `check` from inside a running event loop (it would block the loop): use
    the async `Gate` there. `runner` as for `Gate`: `"host"` unless every command it allows
    runs through `run_sandboxed_sync`; a `Gate` passed in must decide for the same runner.
    """

    def __init__(
        self,
        policies: SessionPolicies | Gate,
        *,
        audit: AuditSink | None = None,
        runner: Runner = "host",
    ) -> None:
        if isinstance(policies, Gate):
            if audit is not None:
                raise TypeError("audit is set on the Gate; pass it to Gate(...) instead")
            self._gate = same_runner(policies, runner, "SyncGate")
        else:
            self._gate = Gate(policies, audit=audit, runner=runner)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def gate(self) -> Gate:
        """The async `Gate` this facade drives."""
        return self._gate

    @property
    def policies(self) -> SessionPolicies:
        """The session store whose configs and grants the gate reads and writes."""
        return self._gate.policies

    @property
    def runner(self) -> Runner:
        """Who runs the commands this gate decides about: `"host"` or `"sandbox"`."""
        return self._gate.runner

    def decide(self, session_id: str, call: ToolCall) -> Decision:
        """`Gate.decide`: decide and audit without asking; an ASK waits for `answer`."""
        return self._gate.decide(session_id, call)

    def answer(self, session_id: str, call: ToolCall, outcome: ApprovalOutcome) -> Decision:
        """`Gate.answer`: record a later answer to an ASK `decide` returned."""
        return self._gate.answer(session_id, call, outcome)

    def check(
        self,
        session_id: str,
        call: ToolCall,
        ask: SyncApprovalCallback | None,
        *,
        timeout: float | None = None,
        diffs: Iterable[FileDiff] = (),
    ) -> Decision:
        """`Gate.check` for synchronous code: decide, ask through `ask` when needed, record."""
        wait = None if timeout is None else validate_timeout(timeout)
        loop = self._running_loop()
        if threading.current_thread() is self._thread:
            raise RuntimeError("SyncGate.check was called from its own approval thread")
        callback = None if ask is None else _threaded(ask)
        work = self._gate.check(session_id, call, callback, timeout=wait, diffs=tuple(diffs))
        return asyncio.run_coroutine_threadsafe(work, loop).result()

    def close(self) -> None:
        """Stop the private event loop (a later `check` starts a new one)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is not None and thread is not None:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()

    def __enter__(self) -> SyncGate:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="safehold-sync-gate", daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop


def _threaded(
    ask: SyncApprovalCallback,
) -> Callable[[ApprovalRequest], asyncio.Future[ApprovalOutcome]]:
    def callback(request: ApprovalRequest) -> asyncio.Future[ApprovalOutcome]:
        # A thread of its own per question: the loop keeps time (and other dialogs) while
        # the person thinks, and a function that never returns cannot starve a pool.
        loop = asyncio.get_running_loop()
        future: asyncio.Future[ApprovalOutcome] = loop.create_future()

        def settle(result: ApprovalOutcome | None, error: BaseException | None) -> None:
            if future.done():  # timed out or cancelled meanwhile: the late answer is dropped
                return
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)  # type: ignore[arg-type]

        def run() -> None:
            try:
                result, error = ask(request), None
            except Exception as exc:
                result, error = None, exc
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(settle, result, error)

        threading.Thread(target=run, name="safehold-ask", daemon=True).start()
        return future

    return callback
