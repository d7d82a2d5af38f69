"""`SessionPolicies`: per-session overrides and grants over one base config, in memory.

The store is the only mutable state in the policy package. Sessions change only the three
safety flags (modes and options), so a session holds its flags, its workspace and its
grants; the effective config for a set of flags is built once and shared.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from safehold.errors import PolicyError, UnknownSessionError
from safehold.policy.config import SafetyConfig
from safehold.policy.grants import Grant, GrantEffect, active_grants
from safehold.policy.modes import (
    Flags,
    Mode,
    derive_mode,
    flags_for_mode,
    flags_meet_floor,
    flags_with_option,
)

__all__ = ["SessionInfo", "SessionPolicies", "SessionSnapshot"]

_FLOOR_NEEDS = {
    Mode.REVIEW: "requires approval for writes and for execute",
    Mode.READ_ONLY: "keeps the session read-only",
}


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A listing row: the session, its workspace and its current mode."""

    session_id: str
    cwd: str
    mode: Mode


@dataclass(frozen=True, slots=True)
class SessionSnapshot:
    """What a session is, apart from its id: workspace, the three flags and the grants.

    `expires` holds the expiry (seconds since the epoch) of the grants that have one.
    """

    cwd: str
    flags: Flags
    grants: Mapping[str, GrantEffect] = field(default_factory=dict)
    expires: Mapping[str, float] = field(default_factory=dict)


SessionObserver = Callable[[str, "SessionSnapshot | None"], None]
"""Hears every session change: `(session_id, snapshot)`, or `None` when the session closed.

Called under the store's lock, in the order the changes happened (a persistence layer
writes what it hears). It must not raise and must not call back into the store.
"""


# Every open/load/fork makes a new session instance with a number never used before, so an
# answer given to one instance can tell that the id now names another (reloaded, reopened).
_generations = itertools.count(1)


@dataclass(slots=True)
class _Session:
    cwd: str
    flags: Flags
    grants: dict[str, GrantEffect] = field(default_factory=dict)
    expires: dict[str, float] = field(default_factory=dict)
    generation: int = field(default_factory=lambda: next(_generations))

    def snapshot(self) -> SessionSnapshot:
        return SessionSnapshot(
            self.cwd,
            self.flags,
            MappingProxyType(dict(self.grants)),
            MappingProxyType(dict(self.expires)),
        )


class SessionPolicies:
    """Per-session safety state over a base config; safe from threads and asyncio tasks.

    `floor`, when given, is the most permissive mode any session may reach: a change
    beyond it raises `PolicyError` and changes nothing.
    """

    def __init__(
        self,
        base: SafetyConfig | None = None,
        *,
        floor: Mode | None = None,
        observer: SessionObserver | None = None,
    ) -> None:
        self._base = base if base is not None else SafetyConfig()
        self._floor = Mode(floor) if floor is not None else None
        if not flags_meet_floor(self._base.flags, self._floor):
            raise PolicyError(
                f"base config is in mode `{self._base.mode}`, more permissive than the "
                f"floor `{self._floor}`"
            )
        self._lock = threading.RLock()
        self._sessions: dict[str, _Session] = {}
        self._configs: dict[Flags, SafetyConfig] = {self._base.flags: self._base}
        self._observer = observer

    @property
    def base(self) -> SafetyConfig:
        """The base config every session starts from; never changed by the store."""
        return self._base

    @property
    def floor(self) -> Mode | None:
        """The most permissive mode a session may reach, or None."""
        return self._floor

    # -- lifecycle -----------------------------------------------------------------------

    def open(self, session_id: str, cwd: str) -> SafetyConfig:
        """Start a session at the base config with `cwd` as its workspace."""
        with self._lock:
            if session_id in self._sessions:
                raise PolicyError(f"session `{session_id}` is already open")
            self._sessions[session_id] = _Session(cwd=cwd, flags=self._base.flags)
            self._changed(session_id)
            return self._base

    def ensure(self, session_id: str, cwd: str) -> SafetyConfig:
        """Open the session unless it is open; return its config either way.

        For frameworks that have no session lifecycle of their own (a conversation id is
        the session). An open session keeps its mode and grants; naming another `cwd` for
        it raises `PolicyError`, since its paths were judged against the first one.
        """
        with self._lock:
            state = self._sessions.get(session_id)
            if state is None:
                return self.open(session_id, cwd)
            if state.cwd != cwd:
                raise PolicyError(
                    f"session `{session_id}` is open with workspace `{state.cwd}`, not `{cwd}`"
                )
            return self._config_for(state.flags)

    def load(self, session_id: str, cwd: str) -> SafetyConfig:
        """(Re)start a session from the base defaults: earlier toggles and grants are gone."""
        with self._lock:
            self._sessions[session_id] = _Session(cwd=cwd, flags=self._base.flags)
            self._changed(session_id)
            return self._base

    def restore(self, session_id: str, snapshot: SessionSnapshot) -> SafetyConfig:
        """(Re)start a session as `snapshot` says (a new instance: pending answers are void).

        Used to continue a session with the flags and grants it had, whether they come from
        this store or from a copy persisted by an earlier process. Flags more permissive
        than the floor raise `PolicyError` and change nothing.
        """
        flags = Flags(*(bool(f) for f in snapshot.flags))
        with self._lock:
            if not flags_meet_floor(flags, self._floor):
                raise PolicyError(
                    f"session `{session_id}` cannot be restored in mode `{derive_mode(flags)}`: "
                    f"the operator floor is `{self._floor}`"
                )
            config = self._config_for(flags)
            grants = {str(k): GrantEffect(v) for k, v in snapshot.grants.items()}
            expires = {k: float(v) for k, v in snapshot.expires.items() if k in grants}
            self._sessions[session_id] = _Session(
                cwd=snapshot.cwd, flags=flags, grants=grants, expires=expires
            )
            self._changed(session_id)
            return config

    def snapshot(self, session_id: str) -> SessionSnapshot:
        """The open session's workspace, flags and grants (a copy)."""
        with self._lock:
            return self._get(session_id).snapshot()

    def fork(self, src: str, dst: str, cwd: str | None = None) -> SafetyConfig:
        """Start `dst` as a copy of `src` (flags and grants); the two diverge from then on."""
        with self._lock:
            parent = self._get(src)
            if dst in self._sessions:
                raise PolicyError(f"session `{dst}` is already open")
            self._sessions[dst] = _Session(
                cwd=cwd if cwd is not None else parent.cwd,
                flags=parent.flags,
                grants=dict(parent.grants),
                expires=dict(parent.expires),
            )
            self._changed(dst)
            return self._config_for(parent.flags)

    def close(self, session_id: str) -> bool:
        """Forget everything about the session; False if it was not open."""
        with self._lock:
            closed = self._sessions.pop(session_id, None) is not None
            if closed:
                self._changed(session_id)
            return closed

    # -- reading -------------------------------------------------------------------------

    def config(self, session_id: str) -> SafetyConfig:
        """The effective config of a session; the base for unknown or closed sessions."""
        with self._lock:
            state = self._sessions.get(session_id)
            return self._base if state is None else self._config_for(state.flags)

    def workspace(self, session_id: str) -> str:
        """The session's working directory (ACP `cwd`)."""
        with self._lock:
            return self._get(session_id).cwd

    def generation(self, session_id: str) -> int:
        """A number naming this instance of the session; a load, or a close and reopen, changes it."""
        with self._lock:
            return self._get(session_id).generation

    def is_open(self, session_id: str) -> bool:
        """True while the session is open."""
        with self._lock:
            return session_id in self._sessions

    def sessions(self) -> tuple[SessionInfo, ...]:
        """Every open session with its workspace and mode, in opening order."""
        with self._lock:
            return tuple(
                SessionInfo(sid, s.cwd, derive_mode(s.flags)) for sid, s in self._sessions.items()
            )

    # -- changing ------------------------------------------------------------------------

    def set_mode(self, session_id: str, mode: Mode | str) -> SafetyConfig:
        """Set the session's three flags atomically for `mode`."""
        with self._lock:
            state = self._get(session_id)
            new = flags_for_mode(mode)
            return self._apply(session_id, state, new, f"mode `{Mode(mode)}`")

    def set_option(self, session_id: str, name: str, value: bool) -> SafetyConfig:
        """Change one of the three options (`auto_approve_writes`, `auto_approve_execute`, `read_only`)."""
        with self._lock:
            state = self._get(session_id)
            new = flags_with_option(state.flags, name, value)
            return self._apply(session_id, state, new, f"`{name}={str(value).lower()}`")

    # -- grants --------------------------------------------------------------------------

    def grants(self, session_id: str, *, now: float | None = None) -> Mapping[str, GrantEffect]:
        """A read-only snapshot of the session's grants that hold (empty for unknown sessions).

        A grant with an expiry holds only while `now` (seconds since the epoch, passed by the
        caller) is before it. Without `now` nothing can be judged: such grants are left out
        when they allow and kept when they reject (the stricter reading).
        """
        with self._lock:
            state = self._sessions.get(session_id)
            if state is None:
                return MappingProxyType({})
            if not state.expires:
                return MappingProxyType(dict(state.grants))
            held = self._grant_list(state)
        if now is None:
            kept = {
                g.key: g.effect
                for g in held
                if g.expires_at is None or g.effect is GrantEffect.REJECT
            }
            return MappingProxyType(kept)
        return MappingProxyType(active_grants(held, now=now))

    def grant_list(self, session_id: str) -> tuple[Grant, ...]:
        """Every grant of the session, expired or not, as `Grant`s (empty for unknown sessions)."""
        with self._lock:
            state = self._sessions.get(session_id)
            return () if state is None else self._grant_list(state)

    @staticmethod
    def _grant_list(state: _Session) -> tuple[Grant, ...]:
        return tuple(
            Grant(key, effect, "session", expires_at=state.expires.get(key))
            for key, effect in state.grants.items()
        )

    def grant(
        self,
        session_id: str,
        key: str,
        effect: GrantEffect,
        *,
        generation: int | None = None,
        expires_at: float | None = None,
    ) -> None:
        """Record an "always" answer for the session under `key`, until `expires_at` if given.

        With `generation`, only in that instance of the session: one reloaded or reopened
        since raises `UnknownSessionError` and records nothing.
        """
        if expires_at is not None:
            Grant(key, effect, expires_at=expires_at)  # validates: ValueError, nothing recorded
        with self._lock:
            state = self._get(session_id)
            if generation is not None and state.generation != generation:
                raise UnknownSessionError(session_id)
            state.grants[key] = GrantEffect(effect)
            if expires_at is None:
                state.expires.pop(key, None)
            else:
                state.expires[key] = float(expires_at)
            self._changed(session_id)

    def revoke(self, session_id: str, key: str) -> bool:
        """Drop one grant; False if there was none."""
        with self._lock:
            state = self._get(session_id)
            dropped = state.grants.pop(key, None) is not None
            state.expires.pop(key, None)
            if dropped:
                self._changed(session_id)
            return dropped

    def revoke_all(self, session_id: str) -> int:
        """Drop every grant of the session; return how many there were."""
        with self._lock:
            state = self._get(session_id)
            count = len(state.grants)
            state.grants.clear()
            state.expires.clear()
            self._changed(session_id)
            return count

    # -- internals -----------------------------------------------------------------------

    def _get(self, session_id: str) -> _Session:
        state = self._sessions.get(session_id)
        if state is None:
            raise UnknownSessionError(session_id)
        return state

    def _config_for(self, flags: Flags) -> SafetyConfig:
        config = self._configs.get(flags)
        if config is None:
            config = self._configs[flags] = self._base.with_flags(flags)
        return config

    def _apply(self, session_id: str, state: _Session, new: Flags, what: str) -> SafetyConfig:
        if not flags_meet_floor(new, self._floor):
            needs = _FLOOR_NEEDS[self._floor] if self._floor is not None else ""
            raise PolicyError(
                f"{what} refused for session `{session_id}`: the operator floor is "
                f"`{self._floor}`, which {needs}"
            )
        config = self._config_for(new)  # validates before the session changes
        state.flags = new
        self._changed(session_id)
        return config

    def _changed(self, session_id: str) -> None:
        # Under the lock, so an observer hears the changes in the order they happened.
        if self._observer is None:
            return
        state = self._sessions.get(session_id)
        self._observer(session_id, None if state is None else state.snapshot())
