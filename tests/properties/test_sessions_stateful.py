"""A stateful machine for `SessionPolicies` against a dict shadow model (SPEC §2.2)."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    precondition,
    rule,
)

from safehold import GrantEffect, Mode, PolicyError, SafetyConfig, SessionPolicies
from safehold.policy.modes import OPTION_NAMES, Flags, flags_for_mode, flags_meet_floor

MODES = list(Mode)
KEYS = ['tool:"read"', 'cmd:[["ls"]]', 'path:["edit", ["/w/a"]]']


def _flags_after_option(flags: Flags, name: str, value: bool) -> Flags:
    if name == "auto_approve_writes":
        return flags._replace(require_approval_for_writes=not value)
    if name == "auto_approve_execute":
        return flags._replace(require_approval_for_execute=not value)
    return flags._replace(read_only=value)


class SessionRules(RuleBasedStateMachine):
    """Verbs on the store; the shadow model is a dict of (cwd, flags, grants) per session."""

    sessions = Bundle("sessions")

    def __init__(self) -> None:
        super().__init__()
        self.counter = 0
        self.model: dict[str, tuple[str, Flags, dict[str, GrantEffect]]] = {}
        self.closed: set[str] = set()

    @initialize(
        floor=st.sampled_from([None, Mode.REVIEW, Mode.READ_ONLY]),
        base_mode=st.sampled_from(MODES),
        timeout=st.floats(min_value=0, max_value=100),
    )
    def build(self, floor: Mode | None, base_mode: Mode, timeout: float) -> None:
        base = SafetyConfig(acp_approval_timeout=timeout, denied_paths=["x/"]).with_mode(base_mode)
        if not flags_meet_floor(base.flags, floor):
            base = base.with_mode(floor or Mode.REVIEW)
        self.base = base
        self.base_dump = base.model_dump()
        self.floor = floor
        self.store = SessionPolicies(base, floor=floor)
        self.expected: dict[Flags, SafetyConfig] = {}

    def _expected(self, flags: Flags) -> SafetyConfig:
        # Built independently of the store (a fresh validation), cached to keep the machine fast.
        if flags not in self.expected:
            self.expected[flags] = SafetyConfig.model_validate(
                {**self.base_dump, **flags._asdict()}
            )
        return self.expected[flags]

    def _new_id(self) -> str:
        self.counter += 1
        return f"s{self.counter}"

    @rule(target=sessions, cwd=st.sampled_from(["/w/a", "/w/b"]))
    def open(self, cwd: str) -> str:
        sid = self._new_id()
        self.store.open(sid, cwd)
        self.model[sid] = (cwd, self.base.flags, {})
        return sid

    @rule(sid=sessions, mode=st.sampled_from(MODES))
    def set_mode(self, sid: str, mode: Mode) -> None:
        if sid not in self.model:
            try:
                self.store.set_mode(sid, mode)
            except PolicyError:
                return
            raise AssertionError("set_mode on a closed session must fail")
        cwd, _, grants = self.model[sid]
        new = flags_for_mode(mode)
        if flags_meet_floor(new, self.floor):
            self.store.set_mode(sid, mode)
            self.model[sid] = (cwd, new, grants)
        else:
            try:
                self.store.set_mode(sid, mode)
            except PolicyError:
                return
            raise AssertionError("floor must refuse a more permissive mode")

    @rule(sid=sessions, name=st.sampled_from(OPTION_NAMES), value=st.booleans())
    def set_option(self, sid: str, name: str, value: bool) -> None:
        if sid not in self.model:
            try:
                self.store.set_option(sid, name, value)
            except PolicyError:
                return
            raise AssertionError("set_option on a closed session must fail")
        cwd, flags, grants = self.model[sid]
        new = _flags_after_option(flags, name, value)
        if flags_meet_floor(new, self.floor):
            self.store.set_option(sid, name, value)
            self.model[sid] = (cwd, new, grants)
        else:
            try:
                self.store.set_option(sid, name, value)
            except PolicyError:
                return
            raise AssertionError("floor must refuse a more permissive option")

    @precondition(lambda self: bool(self.model))
    @rule(target=sessions, data=st.data())
    def fork(self, data: st.DataObject) -> str:
        src = data.draw(st.sampled_from(sorted(self.model)))
        dst = self._new_id()
        self.store.fork(src, dst)
        cwd, flags, grants = self.model[src]
        self.model[dst] = (cwd, flags, dict(grants))
        return dst

    @rule(sid=sessions, key=st.sampled_from(KEYS), effect=st.sampled_from(list(GrantEffect)))
    def grant(self, sid: str, key: str, effect: GrantEffect) -> None:
        if sid not in self.model:
            return
        self.store.grant(sid, key, effect)
        self.model[sid][2][key] = effect

    @rule(sid=sessions, key=st.sampled_from(KEYS))
    def revoke(self, sid: str, key: str) -> None:
        if sid not in self.model:
            return
        assert self.store.revoke(sid, key) == (self.model[sid][2].pop(key, None) is not None)

    @rule(sid=sessions, cwd=st.sampled_from(["/w/a", "/w/c"]))
    def load(self, sid: str, cwd: str) -> None:
        self.store.load(sid, cwd)
        self.model[sid] = (cwd, self.base.flags, {})
        self.closed.discard(sid)

    @rule(sid=consumes(sessions))
    def close(self, sid: str) -> None:
        assert self.store.close(sid) == (sid in self.model)
        self.model.pop(sid, None)
        self.closed.add(sid)

    # -- invariants ----------------------------------------------------------------------

    @invariant()
    def base_is_never_mutated(self) -> None:
        assert self.store.base is self.base
        assert self.base.flags == Flags(**{k: self.base_dump[k] for k in Flags._fields})

    @invariant()
    def effective_config_is_base_plus_own_changes(self) -> None:
        for sid, (_, flags, _) in self.model.items():
            config = self.store.config(sid)
            assert config.flags == flags
            assert config == self._expected(flags)

    @invariant()
    def no_grant_crosses_sessions(self) -> None:
        for sid, (_, _, grants) in self.model.items():
            assert dict(self.store.grants(sid)) == grants

    @invariant()
    def unknown_or_closed_sessions_get_the_base(self) -> None:
        for sid in self.closed - set(self.model):
            assert self.store.config(sid) is self.base
            assert dict(self.store.grants(sid)) == {}
        assert self.store.config("never-opened") is self.base

    @invariant()
    def nothing_is_more_permissive_than_the_floor(self) -> None:
        for info in self.store.sessions():
            assert flags_meet_floor(self.store.config(info.session_id).flags, self.floor)

    @invariant()
    def listing_matches_the_model(self) -> None:
        listed = {i.session_id: (i.cwd, i.mode) for i in self.store.sessions()}
        assert listed == {
            sid: (cwd, self._expected(flags).mode) for sid, (cwd, flags, _) in self.model.items()
        }

    def teardown(self) -> None:
        # The full comparison once per run; the cheap flag check runs after every step.
        if hasattr(self, "base"):
            assert self.base.model_dump() == self.base_dump


TestSessions = SessionRules.TestCase
TestSessions.settings = settings(stateful_step_count=30)
