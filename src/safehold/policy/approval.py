"""The approval flow: decide, ask a person when the policy says ASK, remember "always" answers.

Semantics (SPEC §6), in the order `Gate.check` applies them:

- `evaluate` says ALLOW or DENY → that is the answer; nobody is asked.
- ASK → the callback is asked. allow_once / allow_always → ALLOW; reject_once /
  reject_always → DENY. The two "always" answers record a grant under the decision's grant
  key in the session (nothing is recorded when the key is None), and `evaluate` reads it
  next time: grants never lift a policy DENY nor a protected-path ASK.
- Every failure is a DENY with its own reason code: no callback, timeout, an exception, a
  `cancelled` / `timed_out` / `failed` answer, an answer that is not an `ApprovalOutcome`,
  a session closed while the person was deciding, a policy that turned to DENY meanwhile,
  an audit sink that cannot record an ALLOW.
- An "always" answer may name where its grant holds (`ApprovalAnswer`: `session`, `project`
  or `user`) and for how long. Session grants live in `SessionPolicies`; project and user
  grants in the gate's `grant_store` (`safehold.grant_store.GrantFiles`), read before every
  decision. Expiry is judged against the gate's injectable `clock`; an expired grant never
  holds.
- Cancelling the caller's task (`asyncio.CancelledError`) propagates.
- Concurrent ASKs with the same (session, grant key) share one dialog: one callback call,
  every waiter gets the answer. A waiter that is cancelled leaves the dialog running for
  the others; the dialog is cancelled only when its last waiter leaves. An allow_once is
  only handed to waiters whose call is identical to the one shown (arguments, locations,
  diffs); a waiter with a different call under the same key asks again afterwards. An
  allow_always reaches such a waiter only through its grant: when its call still asks after
  the grant (an `env` argument, say), it asks again too.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Final, Protocol, runtime_checkable

from safehold.errors import UnknownSessionError
from safehold.policy.calls import ToolCall
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Reason, Verdict
from safehold.policy.engine import Runner, evaluate
from safehold.policy.grants import (
    GRANT_REACHES,
    Grant,
    GrantEffect,
    GrantReach,
    describe_grant_key,
    merge_grants,
)
from safehold.policy.pending import PendingAsks, same_call
from safehold.policy.redact import redact
from safehold.policy.sessions import SessionPolicies
from safehold.policy.timeouts import validate_timeout

__all__ = [
    "ApprovalAnswer",
    "ApprovalCallback",
    "ApprovalOutcome",
    "ApprovalRequest",
    "AuditSink",
    "FileDiff",
    "Gate",
    "GrantStore",
    "gate",
]


class ApprovalOutcome(StrEnum):
    """What the person (or the channel to them) answered."""

    ALLOW_ONCE = "allow_once"
    ALLOW_ALWAYS = "allow_always"
    REJECT_ONCE = "reject_once"
    REJECT_ALWAYS = "reject_always"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class ApprovalAnswer:
    """An answer with where its grant holds and for how long; a callback may return it
    instead of a bare `ApprovalOutcome` (which means `scope="session"`, no expiry).

    `scope` and `expires_in` (seconds from the answer, finite and > 0) matter only for the
    two "always" outcomes.
    """

    outcome: ApprovalOutcome
    scope: GrantReach = "session"
    expires_in: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.outcome, ApprovalOutcome):
            raise ValueError(f"outcome must be an ApprovalOutcome, got {self.outcome!r}")
        if self.scope not in GRANT_REACHES:
            raise ValueError(f"scope must be one of {', '.join(GRANT_REACHES)}, got {self.scope!r}")
        ttl = self.expires_in
        if ttl is not None and (
            isinstance(ttl, bool)
            or not isinstance(ttl, int | float)
            or not math.isfinite(ttl)
            or ttl <= 0
        ):
            raise ValueError(f"expires_in must be a finite number of seconds > 0, got {ttl!r}")


class GrantStore(Protocol):
    """Where project and user grants are kept (`safehold.grant_store.GrantFiles`)."""

    def active(self, workspace: str, now: float) -> Mapping[str, GrantEffect]:
        """The grants that hold for `workspace` at `now`; nothing when they cannot be read."""
        ...

    def add(self, workspace: str, grant: Grant) -> None:
        """Record `grant` for `workspace` (project) or the user; raise when it cannot."""
        ...


@dataclass(frozen=True, slots=True)
class FileDiff:
    """A proposed file change to show the person: the path, the new text and the old one."""

    path: str
    new_text: str
    old_text: str | None = None


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """What the callback is asked about: the session, the call and the ASK decision."""

    session_id: str
    call: ToolCall
    decision: Decision
    diffs: tuple[FileDiff, ...] = ()


class ApprovalCallback(Protocol):
    """An async callable that asks a person about a request and returns their `ApprovalOutcome`.

    Structurally ``Callable[[ApprovalRequest], Awaitable[ApprovalOutcome]]``: any
    ``async def ask(request)`` fits. It may return an `ApprovalAnswer` to scope a grant.
    """

    def __call__(self, request: ApprovalRequest, /) -> Awaitable[ApprovalOutcome | ApprovalAnswer]:
        """Ask about `request`."""
        ...


@runtime_checkable
class AuditSink(Protocol):
    """Receives one JSON-ready record per decision; raising makes an ALLOW a DENY."""

    def record(self, entry: Mapping[str, Any]) -> None:
        """Store or emit one decision record."""


_APPROVAL = "approval"
_WALL_CLOCK: Final = time.time  # the default `clock`; bound once (tests replace `time`)

# Answer → (verdict, reason code, message). The message is completed with the grant note.
# It says what was answered, never who: a client may answer by itself (acpx without a
# terminal, an auto-deny flag), and a refusal must not claim a person saw the call.
_ANSWERS: dict[ApprovalOutcome, tuple[Verdict, str, str]] = {
    ApprovalOutcome.ALLOW_ONCE: (
        Verdict.ALLOW,
        "approved-once",
        "allowed once when asked (the approval answer)",
    ),
    ApprovalOutcome.ALLOW_ALWAYS: (
        Verdict.ALLOW,
        "approved-always",
        "allowed always when asked (the approval answer)",
    ),
    ApprovalOutcome.REJECT_ONCE: (
        Verdict.DENY,
        "rejected-once",
        "rejected when asked (the approval answer; a client may answer by itself)",
    ),
    ApprovalOutcome.REJECT_ALWAYS: (
        Verdict.DENY,
        "rejected-always",
        "rejected always when asked (the approval answer; a client may answer by itself)",
    ),
    ApprovalOutcome.CANCELLED: (
        Verdict.DENY,
        "approval-cancelled",
        "the approval request was cancelled or dismissed without an answer",
    ),
    ApprovalOutcome.TIMED_OUT: (
        Verdict.DENY,
        "approval-timed-out",
        "no answer arrived before the approval timeout",
    ),
    ApprovalOutcome.FAILED: (
        Verdict.DENY,
        "approval-failed",
        "the approval channel failed (no connection, client error or malformed reply)",
    ),
}
_GRANT_EFFECT = {
    ApprovalOutcome.ALLOW_ALWAYS: GrantEffect.ALLOW,
    ApprovalOutcome.REJECT_ALWAYS: GrantEffect.REJECT,
}


@dataclass(frozen=True, slots=True)
class _Answer:
    """The result of one dialog: an outcome, or a failure reason when there is none."""

    outcome: ApprovalOutcome | None
    failure: Reason | None = None
    latency: float | None = None
    grant_note: str = ""


_DialogKey = tuple[asyncio.AbstractEventLoop, str, int | None, str]


@dataclass(slots=True)
class _Dialog:
    task: asyncio.Task[_Answer]
    key: _DialogKey | None
    request: ApprovalRequest
    waiters: int = 0


@dataclass(slots=True)
class _Asked:
    answer: _Answer
    shared: bool = False
    same_call: bool = True


def _same_call(a: ApprovalRequest, b: ApprovalRequest) -> bool:
    # What the person was shown: everything but the call id.
    return a.diffs == b.diffs and same_call(a.call, b.call)


class Gate:
    """Runs evaluate → ask → grant → final decision for the sessions of one `SessionPolicies`.

    One `Gate` per agent (not per call) so that concurrent identical ASKs share a dialog.
    `audit`, when given, receives one record per decision. `runner` says who runs the
    commands this gate allows: `"host"` (the default: your code runs them, unconfined) or
    `"sandbox"` (only when every allowed command then runs through `run_sandboxed`).
    `grant_store` keeps project and user grants (without one, such an answer is recorded
    for the session only); `clock` (seconds since the epoch, default `time.time`) is the
    time grant expiry is judged against.
    """

    def __init__(
        self,
        policies: SessionPolicies,
        *,
        audit: AuditSink | None = None,
        runner: Runner = "host",
        grant_store: GrantStore | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        if not isinstance(policies, SessionPolicies):
            raise TypeError(f"policies must be a SessionPolicies, got {type(policies).__name__}")
        if clock is not None and not callable(clock):
            raise TypeError("clock must be a callable returning seconds since the epoch")
        self._policies = policies
        self._audit = audit
        self._runner = check_runner(runner)
        self._store = grant_store
        self._clock: Callable[[], float] = clock if clock is not None else _WALL_CLOCK
        self._lock = threading.Lock()
        self._dialogs: dict[_DialogKey, _Dialog] = {}
        self._pending = PendingAsks()

    @property
    def policies(self) -> SessionPolicies:
        """The session store whose configs and grants this gate reads and writes."""
        return self._policies

    @property
    def grant_store(self) -> GrantStore | None:
        """Where project and user grants are kept, or None (session grants only)."""
        return self._store

    @property
    def runner(self) -> Runner:
        """Who runs the commands this gate decides about: `"host"` or `"sandbox"`."""
        return self._runner

    def with_runner(self, runner: Runner) -> Gate:
        """This gate if it already decides for `runner`, else a gate for `runner` over the same
        sessions and audit sink (with its own dialogs and pending answers)."""
        if check_runner(runner) == self._runner:
            return self
        return Gate(
            self._policies,
            audit=self._audit,
            runner=runner,
            grant_store=self._store,
            clock=self._clock,
        )

    async def check(
        self,
        session_id: str,
        call: ToolCall,
        callback: ApprovalCallback | None,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 (the contract's name; validated)
        diffs: Iterable[FileDiff] = (),
    ) -> Decision:
        """Decide `call` for the session, asking through `callback` when the policy says ASK.

        `timeout` (seconds, 0 = wait indefinitely) defaults to the session config's
        `acp_approval_timeout`; a bad value raises ValueError before anything is decided.
        """
        wait = None if timeout is None else validate_timeout(timeout)
        generation = self._generation(session_id)  # read first: a reload after it is seen
        decision = self._evaluate(session_id, call)
        if decision.verdict is not Verdict.ASK:
            return self._finish(session_id, call, decision, None)
        if callback is None:
            reason = Reason(
                "approval-unavailable",
                _APPROVAL,
                "the policy asks for approval but no approval callback is connected",
            )
            return self._finish(session_id, call, _deny(decision, reason), None)
        if wait is None:
            wait = self._policies.config(session_id).acp_approval_timeout
        request = ApprovalRequest(session_id, call, decision, tuple(diffs))
        try:
            asked = await self._ask(request, callback, wait, generation)
            while asked.shared and not asked.same_call:
                outcome = asked.answer.outcome
                if outcome is ApprovalOutcome.ALLOW_ALWAYS:
                    # The grant covers the key, but only what a grant may lift: a hard ASK
                    # of this call (an `env` argument, a protected path) the person never
                    # saw still needs their answer about this call itself.
                    again = self._evaluate(session_id, call)
                    if again.verdict is not Verdict.ASK:
                        return self._finish(session_id, call, again, asked)
                    request = ApprovalRequest(session_id, call, again, request.diffs)
                elif outcome is not ApprovalOutcome.ALLOW_ONCE:
                    break
                # The person allowed *another* call with this key (a different content for
                # the same path, say): that says nothing about what this one adds.
                asked = await self._ask(request, callback, wait, generation)
        except asyncio.CancelledError:
            reason = Reason(
                "task-cancelled", _APPROVAL, "the task waiting for approval was cancelled"
            )
            self._record(session_id, call, _deny(decision, reason), None, best_effort=True)
            raise
        final = self._conclude(request, asked.answer, generation)
        return self._finish(session_id, call, final, asked)

    def decide(self, session_id: str, call: ToolCall) -> Decision:
        """Decide `call` with the session's grants and audit it, without asking anybody.

        An ASK is remembered: deliver the person's answer later with `answer`, which records
        grants and audit exactly as `check` would have.
        """
        generation = self._generation(session_id)  # read first: a reload after it is seen
        decision = self._finish(session_id, call, self._evaluate(session_id, call), None)
        if decision.verdict is Verdict.ASK and generation is not None:
            self._pending.add(session_id, call, decision, generation)
        return decision

    def answer(
        self, session_id: str, call: ToolCall, outcome: ApprovalOutcome | ApprovalAnswer
    ) -> Decision:
        """Record the person's answer to an ASK `decide` returned; return the final decision.

        Only the first answer to a question counts. An answer to a call that was never
        asked (or to a different call under the same id), a second answer, and an answer
        for a session closed or reloaded since the question are denied and change nothing.
        """
        ask, duplicate = self._pending.take(session_id, call)
        if ask is None or not same_call(ask.call, call):
            if duplicate:
                reason = Reason(
                    "answer-duplicate",
                    _APPROVAL,
                    "this call was already answered; a second answer changes nothing",
                )
            else:
                reason = Reason(
                    "answer-unknown",
                    _APPROVAL,
                    "no question is pending for this call (never asked, asked about "
                    "different arguments, or forgotten); the answer changes nothing",
                )
            base = ask.decision if ask is not None else Decision(Verdict.DENY)
            return self._finish(session_id, call, _deny(base, reason), None)
        latency = time.monotonic() - ask.asked_at
        request = ApprovalRequest(session_id, ask.call, ask.decision)
        if self._generation(session_id) != ask.generation:
            stale = (
                _reloaded(session_id)
                if self._policies.is_open(session_id)
                else Reason(
                    "session-closed",
                    "session",
                    f"session `{session_id}` closed while the person was deciding",
                )
            )
            answer = _Answer(None, stale, latency)
        elif not isinstance(outcome, ApprovalOutcome | ApprovalAnswer):
            failure = Reason(
                "approval-unknown-outcome",
                _APPROVAL,
                f"the answer was `{outcome!r}`, not an ApprovalOutcome",
            )
            answer = _Answer(None, failure, latency)
        else:
            answer = self._remember(request, _answer_of(outcome), latency, ask.generation)
        final = self._conclude(request, answer, ask.generation)
        return self._finish(session_id, call, final, _Asked(answer))

    # -- deciding ------------------------------------------------------------------------

    def _evaluate(self, session_id: str, call: ToolCall) -> Decision:
        if not isinstance(call, ToolCall):
            reason = Reason("bad-call", "gate", f"expected a ToolCall, got `{type(call).__name__}`")
            return Decision(Verdict.DENY, (reason,))
        try:
            config = self._policies.config(session_id)
            workspace = self._policies.workspace(session_id)
            grants = self._grants(session_id, workspace, self._now())
        except UnknownSessionError:
            reason = Reason(
                "session-unknown",
                "session",
                f"session `{session_id}` is not open (never opened, or closed)",
            )
            return Decision(Verdict.DENY, (reason,))
        try:
            return evaluate(config, call, workspace=workspace, grants=grants, runner=self._runner)
        except Exception as exc:  # fail closed: a bug in a decision function never allows
            reason = Reason(
                "evaluate-error", "engine", f"the policy engine failed: {type(exc).__name__}: {exc}"
            )
            return Decision(Verdict.DENY, (reason,))

    def _now(self) -> float:
        """The clock's time; NaN when it fails or is not a finite number (no expiring grant
        then holds, and no expiring grant is recorded)."""
        try:
            now = self._clock()
        except Exception:
            return math.nan
        if isinstance(now, bool) or not isinstance(now, int | float) or not math.isfinite(now):
            return math.nan
        return float(now)

    def _grants(self, session_id: str, workspace: str, now: float) -> Mapping[str, GrantEffect]:
        """The session's grants and the stored project and user ones that hold at `now`."""
        held = self._policies.grants(session_id, now=now)
        if self._store is None:
            return held
        try:
            stored = self._store.active(workspace, now)
        except Exception:  # a store that fails gives no grants: every call asks again
            stored = {}
        return merge_grants(held, stored) if stored else held

    def _generation(self, session_id: str) -> int | None:
        try:
            return self._policies.generation(session_id)
        except UnknownSessionError:
            return None

    def _conclude(
        self, request: ApprovalRequest, answer: _Answer, generation: int | None
    ) -> Decision:
        decision = request.decision
        if answer.outcome is None:
            assert answer.failure is not None
            return _deny(decision, answer.failure)
        verdict, code, message = _ANSWERS[answer.outcome]
        reason = Reason(code, _APPROVAL, message + answer.grant_note)
        if verdict is Verdict.DENY:
            return _deny(decision, reason)
        # The answer was given for the policy as it stood when we asked; if the session
        # turned read-only, closed or gained a reject grant meanwhile, that wins.
        again = self._evaluate(request.session_id, request.call)
        if again.verdict is not Verdict.DENY and self._generation(request.session_id) != generation:
            # Loaded again, or closed and reopened under the same id: the person answered
            # for the session as it was, not for the one that now has this id.
            return _deny(decision, _reloaded(request.session_id))
        if again.verdict is Verdict.DENY:
            changed = Reason(
                "policy-changed",
                _APPROVAL,
                "the call was allowed when asked, but the policy denies it now",
            )
            return Decision(Verdict.DENY, (changed, *again.reasons), decision.grant_key)
        return Decision(Verdict.ALLOW, (reason, *decision.reasons), decision.grant_key)

    # -- asking --------------------------------------------------------------------------

    async def _ask(
        self,
        request: ApprovalRequest,
        callback: ApprovalCallback,
        wait: float,
        generation: int | None,
    ) -> _Asked:
        loop = asyncio.get_running_loop()
        grant_key = request.decision.grant_key
        key = None if grant_key is None else (loop, request.session_id, generation, grant_key)
        with self._lock:
            dialog = self._dialogs.get(key) if key is not None else None
            shared = dialog is not None and not dialog.task.done()
            if dialog is None or not shared:
                task = loop.create_task(self._run_dialog(key, request, callback, wait, generation))
                dialog = _Dialog(task, key, request)
                if key is not None:
                    self._dialogs[key] = dialog
            dialog.waiters += 1
        same = not shared or _same_call(dialog.request, request)
        try:
            return _Asked(await asyncio.shield(dialog.task), shared, same)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # our caller is being cancelled: leave, the others keep the dialog
            failure = Reason("approval-cancelled", _APPROVAL, "the approval dialog was cancelled")
            return _Asked(_Answer(None, failure), shared, same)
        finally:
            with self._lock:
                dialog.waiters -= 1
                if dialog.waiters == 0 and not dialog.task.done():
                    dialog.task.cancel()
                    # Forget it now: a call arriving before the cancellation lands must
                    # open a fresh dialog, not join one that is going away.
                    if dialog.key is not None and self._dialogs.get(dialog.key) is dialog:
                        del self._dialogs[dialog.key]

    async def _run_dialog(
        self,
        key: _DialogKey | None,
        request: ApprovalRequest,
        callback: ApprovalCallback,
        wait: float,
        generation: int | None,
    ) -> _Answer:
        started = time.monotonic()
        try:
            try:
                outcome = await asyncio.wait_for(callback(request), wait or None)
            except TimeoutError:
                return _Answer(ApprovalOutcome.TIMED_OUT, latency=time.monotonic() - started)
            except Exception as exc:
                failure = Reason(
                    "approval-error",
                    _APPROVAL,
                    f"the approval callback raised {type(exc).__name__}: {exc}",
                )
                return _Answer(None, failure, time.monotonic() - started)
            latency = time.monotonic() - started
            if not isinstance(outcome, ApprovalOutcome | ApprovalAnswer):
                failure = Reason(
                    "approval-unknown-outcome",
                    _APPROVAL,
                    f"the approval callback returned `{outcome!r}`, not an ApprovalOutcome",
                )
                return _Answer(None, failure, latency)
            return self._remember(request, _answer_of(outcome), latency, generation)
        finally:
            # INVARIANT: the grant is recorded and the dialog forgotten in one step with no
            # await between, so a later ASK either sees the grant or opens a new dialog; it
            # never joins a finished one and inherits an answer meant for another call.
            if key is not None:
                with self._lock:
                    dialog = self._dialogs.get(key)
                    if dialog is not None and dialog.task is asyncio.current_task():
                        del self._dialogs[key]

    def _remember(
        self,
        request: ApprovalRequest,
        given: ApprovalAnswer,
        latency: float,
        generation: int | None,
    ) -> _Answer:
        outcome = given.outcome
        effect = _GRANT_EFFECT.get(outcome)
        if effect is None:
            return _Answer(outcome, latency=latency)
        key = request.decision.grant_key
        if key is None:
            return _Answer(
                outcome,
                latency=latency,
                grant_note=" (no grant recorded: the call has no narrow key)",
            )
        now = self._now()
        if given.expires_in is not None and math.isnan(now):
            return _Answer(
                outcome,
                latency=latency,
                grant_note=" (no grant recorded: the clock gave no time to count its expiry from)",
            )
        expires_at = None if given.expires_in is None else now + given.expires_in
        until = "" if expires_at is None else f" until {_utc(expires_at)}"
        scope = given.scope
        fallback = ""
        if scope != "session" and self._store is None:
            scope, fallback = "session", f" (no grant store: the {given.scope} grant is kept"
            fallback += " for this session only)"
        try:
            if generation is None:
                raise UnknownSessionError(request.session_id)
            if scope == "session":
                self._policies.grant(
                    request.session_id, key, effect, generation=generation, expires_at=expires_at
                )
            else:
                assert self._store is not None
                if self._policies.generation(request.session_id) != generation:
                    raise UnknownSessionError(request.session_id)
                grant = Grant(
                    key,
                    effect,
                    scope,
                    expires_at,
                    granted_at=None if math.isnan(now) else now,
                    what=_what(request, key),
                )
                try:
                    self._store.add(self._policies.workspace(request.session_id), grant)
                except Exception as exc:  # any failure of the store: no grant, no crash
                    raise _StoreFailed(str(exc) or type(exc).__name__) from None
        except _StoreFailed as exc:
            return _Answer(
                outcome,
                latency=latency,
                grant_note=f" (the {scope} grant could not be recorded: {exc}; this answer "
                "counts for this call only)",
            )
        except UnknownSessionError:
            if self._policies.is_open(request.session_id):
                return _Answer(None, _reloaded(request.session_id), latency)
            failure = Reason(
                "session-closed",
                "session",
                f"session `{request.session_id}` closed while the person was deciding",
            )
            return _Answer(None, failure, latency)
        where = "" if scope == "session" else f"{scope} "
        return _Answer(
            outcome,
            latency=latency,
            grant_note=f"; recorded {where}grant `{key}`{until}{fallback}",
        )

    # -- auditing ------------------------------------------------------------------------

    def _finish(
        self, session_id: str, call: ToolCall, decision: Decision, asked: _Asked | None
    ) -> Decision:
        try:
            self._record(session_id, call, decision, asked)
        except Exception as exc:
            if decision.verdict is Verdict.DENY:
                return decision
            reason = Reason(
                "audit-failed",
                "audit",
                f"the decision could not be audited: {type(exc).__name__}: {exc}",
            )
            return _deny(decision, reason)
        return decision

    def _record(
        self,
        session_id: str,
        call: ToolCall,
        decision: Decision,
        asked: _Asked | None,
        *,
        best_effort: bool = False,
    ) -> None:
        if self._audit is None:
            return
        try:
            config = self._policies.config(session_id)
            entry = _audit_entry(
                session_id,
                call,
                decision,
                asked,
                redact_secrets=config.audit.redact,
                runner=self._runner,
            )
            try:
                workspace: str | None = self._policies.workspace(session_id)
            except UnknownSessionError:  # closed while asking: still recorded, not replayable
                workspace = None
            entry.update(_replay_fields(config, workspace, call, decision))
            entry["config_mode"] = self._policies.base.mode.value  # `mode` differs: a switch
            entry["policy_verdict"] = _policy_verdict(decision, asked)
            self._audit.record(entry)
        except Exception:
            if not best_effort:
                raise


def _audit_entry(
    session_id: str,
    call: object,
    decision: Decision,
    asked: _Asked | None,
    *,
    redact_secrets: bool = True,
    runner: Runner = "host",
) -> dict[str, Any]:
    """Build the JSON-ready audit record of one decision (secrets redacted unless told not to)."""
    clean: Callable[[Any], Any] = redact if redact_secrets else _plain
    answer = asked.answer if asked is not None else None
    tc = call if isinstance(call, ToolCall) else None
    return {
        "time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "session": session_id,
        "tool": tc.name if tc else None,
        "kind": tc.kind.value if tc else None,
        "tool_call_id": tc.tool_call_id if tc else None,
        "arguments": clean(dict(tc.arguments)) if tc else None,
        "locations": clean(list(tc.locations)) if tc else [],
        "verdict": decision.verdict.value,
        "reasons": [
            {"code": r.code, "rule": clean(r.rule), "message": clean(r.message)}
            for r in decision.reasons
        ],
        "grant_key": clean(decision.grant_key),
        "asked": asked is not None,
        "outcome": answer.outcome.value if answer is not None and answer.outcome else None,
        "latency_ms": (
            round(answer.latency * 1000, 3)
            if answer is not None and answer.latency is not None
            else None
        ),
        "shared_dialog": asked.shared if asked is not None else False,
        "runner": runner,
        "confined": decision.confined,
        "redacted": redact_secrets,
    }


class _StoreFailed(Exception):
    """The grant store could not record an answer."""


def _answer_of(outcome: ApprovalOutcome | ApprovalAnswer) -> ApprovalAnswer:
    return outcome if isinstance(outcome, ApprovalAnswer) else ApprovalAnswer(outcome)


def _utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _what(request: ApprovalRequest, key: str) -> str:
    command = request.call.arguments.get("command")
    return command if isinstance(command, str) else describe_grant_key(key)


def check_runner(runner: object) -> Runner:
    """`runner` itself when it is `"host"` or `"sandbox"`; any other value raises ValueError."""
    if runner == "host" or runner == "sandbox":
        return runner
    raise ValueError(f"runner must be 'host' or 'sandbox', got {runner!r}")


def same_runner(gate: Gate, runner: Runner, who: str) -> Gate:
    """`gate`, checked to decide for `runner`: a gate built for the other runner raises.

    An entry point that takes both a `Gate` and a `runner` says the runner twice; when the
    two disagree the reader cannot tell which holds, so neither is guessed.
    """
    if check_runner(runner) != gate.runner:
        raise ValueError(
            f"{who}: runner={runner!r} but the gate decides for runner={gate.runner!r}; "
            f"build the gate with Gate(..., runner={runner!r}) or pass runner={gate.runner!r}"
        )
    return gate


def _replay_fields(
    config: SafetyConfig, workspace: str | None, call: object, decision: Decision
) -> dict[str, Any]:
    """What `safehold replay` needs to decide the call again: where, how, under which policy.

    (`runner`, who the gate decided for, is in the entry already.) `cwd` is the call's own `cwd` argument, else
    the workspace; `step` the precedence step that decided (a grant's, say); `path_args`,
    `glob_args` and `url_args` only when the call names any.
    """
    tc = call if isinstance(call, ToolCall) else None
    cwd = tc.arguments.get("cwd") if tc is not None else None
    out: dict[str, Any] = {
        "workspace": workspace,
        "cwd": cwd if isinstance(cwd, str) else workspace,
        "mode": config.mode.value,
        "policy": config.digest(),
        "step": decision.step,
    }
    for name in ("path_args", "glob_args", "url_args"):
        if tc is not None and getattr(tc, name):
            out[name] = list(getattr(tc, name))
    return out


def _policy_verdict(decision: Decision, asked: _Asked | None) -> str:
    """What the policy itself said, before any person or failure changed it."""
    if asked is not None or (decision.reasons and decision.reasons[0].rule == _APPROVAL):
        return Verdict.ASK.value  # a person was asked, or would have been
    return decision.verdict.value


def _plain(value: Any) -> Any:
    # Without redaction the record must still be JSON-ready: tuples become lists.
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _reloaded(session_id: str) -> Reason:
    return Reason(
        "session-reloaded",
        "session",
        f"session `{session_id}` was loaded again or reopened while the person was deciding; "
        "the answer was for the session as it was",
    )


def _deny(decision: Decision, reason: Reason) -> Decision:
    return Decision(Verdict.DENY, (reason, *decision.reasons), decision.grant_key)


async def gate(
    policies: SessionPolicies,
    session_id: str,
    call: ToolCall,
    callback: ApprovalCallback | None,
    *,
    audit: AuditSink | None = None,
    timeout: float | None = None,  # noqa: ASYNC109 (the contract's name; validated)
    diffs: Iterable[FileDiff] = (),
    runner: Runner = "host",
) -> Decision:
    """One-shot `Gate.check`: decide one call (no dialog sharing across separate calls)."""
    return await Gate(policies, audit=audit, runner=runner).check(
        session_id, call, callback, timeout=timeout, diffs=diffs
    )
