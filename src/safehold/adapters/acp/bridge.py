"""`AcpPolicyBridge`: safehold as the backend of an ACP agent's modes, options and approvals.

An agent hands its whole safety surface to the bridge: the `modes` and `configOptions` of
its session responses, `session/set_mode`, `session/set_config_option`, and the gate in
front of every tool call. The bridge only translates; `SessionPolicies` holds the state and
enforces the operator floor, and the policy decides.

Scope and persistence: changes touch only the three safety flags, per session; fork copies
the parent's override and grants; load and resume continue a session with its flags and
grants; close wipes the session. A session this process never saw can be continued only
from a saved copy (`saved_state`, e.g. `SessionStateDir.load`); otherwise load and resume
are ACP's "resource not found" (-32002), never a fresh session at the defaults, which could
be looser than what the person chose. Every refused change is a JSON-RPC invalid-params
error and changes nothing.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from acp import RequestError
from acp.schema import (
    ConfigOptionUpdate,
    CurrentModeUpdate,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from safehold.adapters.acp._options import (
    MODE_OPTION_ID,
    AgentOption,
    ConfigOption,
    build_config_options,
    build_mode_state,
    parse_agent_value,
    parse_flag_value,
    parse_mode_value,
)
from safehold.adapters.acp.permission import (
    DEFAULT_OPTIONS,
    PermissionOptions,
    make_acp_approval_callback,
)
from safehold.errors import PolicyError
from safehold.policy.approval import FileDiff, Gate, same_runner
from safehold.policy.calls import ToolCall
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Reason, Verdict
from safehold.policy.engine import Runner
from safehold.policy.modes import OPTION_NAMES
from safehold.policy.sessions import SessionPolicies, SessionSnapshot

__all__ = ["AcpPolicyBridge", "AgentOption", "OptionChangeHandler", "SessionSetup"]

log = logging.getLogger(__name__)

OptionChangeHandler = Callable[[str, str, "str | bool"], Awaitable[None] | None]
"""`(session_id, option_id, value)`: called before an agent option changes; a ValueError refuses it."""

INVALID_PARAMS: Final = -32602
RESOURCE_NOT_FOUND: Final = -32002

SavedState = Callable[[str], "SessionSnapshot | None"]
"""Looks up a session saved by an earlier process (`SessionStateDir.load`); None if none."""

# ACP leaves session ids free-form; refuse only what cannot be a sane id (empty, huge,
# control characters), since ids end up in logs and audit records.
_SESSION_ID = re.compile(r"[^\x00-\x1f\x7f]{1,256}")


@dataclass(frozen=True, slots=True)
class SessionSetup:
    """What a session/new, load, fork or resume response carries for safehold's part."""

    modes: SessionModeState
    config_options: list[ConfigOption]


def session_not_found(session_id: str) -> RequestError:
    """ACP's "resource not found" for a session this process cannot continue."""
    message = (
        f"session `{session_id}` is not known to this agent process and no saved state "
        "exists for it; start a new session"
    )
    # `details` is what clients such as Toad show a person (`error.data.details`).
    return RequestError(
        RESOURCE_NOT_FOUND,
        f"Resource not found: {message}",
        {"sessionId": session_id, "details": message},
    )


def invalid_params(message: str, **data: Any) -> RequestError:
    """A JSON-RPC invalid-params error whose message says what is wrong.

    The message is in the error's message (editors show only that) and in `data.details`
    (what clients such as Toad show a person).
    """
    return RequestError(
        INVALID_PARAMS,
        f"Invalid params: {message}",
        {"message": message, "details": message, **data},
    )


class AcpPolicyBridge:
    """Backs an ACP agent's session modes, config options and tool-call approvals.

    One bridge per client connection: `boolean_options` follows that client's capability
    (call `set_client_capabilities` from `initialize`). Several bridges may share one
    `SessionPolicies`. `options` are the agent's own config options; `on_option_change`
    hears their changes. `saved_state` finds sessions an earlier process saved, so load
    and resume can continue them after a restart. `permission_options` sets the option
    ids permission requests offer and the aliases they accept, and
    which grant scopes ("always allow in this project") they offer. `toggles` names the
    toggles to show (`()` hides all three: the mode still sets them, and a change of a
    hidden toggle is refused as unknown); `agent_options_first` lists the agent's options
    before safehold's. `runner` says who runs the commands the bridge allows: `"host"`
    (the default: the agent runs them itself) or `"sandbox"` (only when every allowed
    command runs through `run_sandboxed`); a `gate` passed in must decide for the same one.
    """

    def __init__(
        self,
        policies: SessionPolicies,
        *,
        gate: Gate | None = None,
        options: Sequence[AgentOption] = (),
        on_option_change: OptionChangeHandler | None = None,
        boolean_options: bool = False,
        saved_state: SavedState | None = None,
        permission_options: PermissionOptions = DEFAULT_OPTIONS,
        toggles: Sequence[str] = OPTION_NAMES,
        agent_options_first: bool = False,
        runner: Runner = "host",
    ) -> None:
        ids = [o.id for o in options]
        if len(set(ids)) != len(ids):
            raise ValueError("AcpPolicyBridge: agent option ids must be unique")
        if gate is not None and gate.policies is not policies:
            # Grants would be recorded in one store and read from another.
            raise ValueError("AcpPolicyBridge: the gate must use the same SessionPolicies")
        self._policies = policies
        self._gate = (
            same_runner(gate, runner, "AcpPolicyBridge")
            if gate is not None
            else Gate(policies, runner=runner)
        )
        self._options = {o.id: o for o in options}
        self._on_change = on_option_change
        self._boolean = bool(boolean_options)
        self._saved = saved_state
        if set(permission_options.scopes) - {"session"} and self._gate.grant_store is None:
            raise ValueError(
                "AcpPolicyBridge: permission_options offer project or user grants, but the "
                "gate has no grant_store to keep them"
            )
        self._permission_options = permission_options
        self._toggles = tuple(toggles)
        self._agent_first = bool(agent_options_first)
        build_config_options(SafetyConfig(), toggles=self._toggles)  # ValueError: unknown toggle
        self._lock = threading.RLock()
        self._values: dict[str, dict[str, str | bool]] = {}

    @property
    def policies(self) -> SessionPolicies:
        """The session store behind the bridge."""
        return self._policies

    @property
    def boolean_options(self) -> bool:
        """True when toggles go out as `boolean` options, False for two-value selects."""
        return self._boolean

    def set_client_capabilities(self, client_capabilities: Any) -> None:
        """Follow the client's `initialize` capabilities (boolean config options or not)."""
        self._boolean = client_supports_boolean_options(client_capabilities)

    # -- session lifecycle ---------------------------------------------------------------

    def new_session(self, session_id: str, cwd: str) -> SessionSetup:
        """Open a session at the base config; return its modes and options."""
        _check_session_id(session_id)
        _check_cwd(cwd)
        with self._lock:
            self._call(self._policies.open, session_id, cwd)
            self._values[session_id] = {}
            return self.setup(session_id)

    def load_session(self, session_id: str, cwd: str) -> SessionSetup:
        """Continue a session in `cwd` with its flags and grants, as a new instance.

        A pending answer given to the earlier instance is void. A session neither open
        here nor saved is "resource not found" (-32002).
        """
        _check_session_id(session_id)
        _check_cwd(cwd)
        with self._lock:
            self._call(self._policies.restore, session_id, self._known(session_id, cwd))
            self._values.setdefault(session_id, {})
            return self.setup(session_id)

    def fork_session(self, session_id: str, new_session_id: str, cwd: str) -> SessionSetup:
        """Open `new_session_id` with a copy of the parent's override, options and grants."""
        self._require_open(session_id)
        _check_session_id(new_session_id)
        _check_cwd(cwd)
        with self._lock:
            self._call(self._policies.fork, session_id, new_session_id, cwd)
            self._values[new_session_id] = dict(self._values.get(session_id, {}))
            return self.setup(new_session_id)

    def resume_session(self, session_id: str, cwd: str) -> SessionSetup:
        """Continue an open session as it is, or a saved one; otherwise -32002."""
        _check_session_id(session_id)
        _check_cwd(cwd)
        with self._lock:
            if not self._policies.is_open(session_id):
                self._call(self._policies.restore, session_id, self._known(session_id, cwd))
                self._values.setdefault(session_id, {})
            return self.setup(session_id)

    def _known(self, session_id: str, cwd: str) -> SessionSnapshot:
        snap: SessionSnapshot | None
        if self._policies.is_open(session_id):
            snap = self._policies.snapshot(session_id)
        else:
            snap = self._saved(session_id) if self._saved is not None else None
        if snap is None:
            raise session_not_found(session_id)
        return SessionSnapshot(cwd, snap.flags, snap.grants)

    def close_session(self, session_id: str) -> None:
        """Forget the session: its override, options and grants."""
        self._require_open(session_id)
        with self._lock:
            self._values.pop(session_id, None)
            if not self._policies.close(session_id):
                raise invalid_params(f"unknown session `{session_id}`", sessionId=session_id)

    # -- views ---------------------------------------------------------------------------

    def setup(self, session_id: str) -> SessionSetup:
        """The session's current modes and complete option list."""
        return SessionSetup(self.modes(session_id), self.config_options(session_id))

    def modes(self, session_id: str) -> SessionModeState:
        """The session's `SessionModeState` (offered modes, derived current mode)."""
        self._require_open(session_id)
        return build_mode_state(self._policies.config(session_id), self._policies.floor)

    def config_options(self, session_id: str) -> list[ConfigOption]:
        """The session's complete config-option list with current values."""
        self._require_open(session_id)
        with self._lock:
            values = dict(self._values.get(session_id, {}))
        return build_config_options(
            self._policies.config(session_id),
            self._policies.floor,
            boolean=self._boolean,
            extras=tuple(self._options.values()),
            extra_values=values,
            toggles=self._toggles,
            agent_options_first=self._agent_first,
        )

    def option_value(self, session_id: str, option_id: str) -> str | bool:
        """The current value of one of the agent's own options in a session."""
        self._require_open(session_id)
        option = self._options.get(option_id)
        if option is None:
            raise KeyError(option_id)
        with self._lock:
            return self._values.get(session_id, {}).get(option_id, option.default)

    # -- changes -------------------------------------------------------------------------

    async def set_session_mode(
        self, conn: Any, session_id: str, mode_id: str
    ) -> SetSessionModeResponse:
        """Set all three flags for the mode atomically; tell the client's panels."""
        self._require_open(session_id)
        mode = self._parse(parse_mode_value, mode_id, self._policies.floor)
        self._call(self._policies.set_mode, session_id, mode)
        await self._notify(conn, session_id, mode_changed=True)
        return SetSessionModeResponse()

    async def set_config_option(
        self, conn: Any, session_id: str, config_id: str, value: str | bool
    ) -> SetSessionConfigOptionResponse:
        """Change one option; return the complete list and tell the client's panels."""
        self._require_open(session_id)
        if not isinstance(config_id, str):
            raise invalid_params(f"config option id must be a string, got {config_id!r}")
        before = self._policies.config(session_id).mode
        if config_id == MODE_OPTION_ID:
            mode = self._parse(parse_mode_value, value, self._policies.floor)
            self._call(self._policies.set_mode, session_id, mode)
        elif config_id in self._toggles:
            flag = self._parse(parse_flag_value, config_id, value, boolean=self._boolean)
            self._call(self._policies.set_option, session_id, config_id, flag)
        elif config_id in self._options:
            await self._set_agent_option(session_id, self._options[config_id], value)
        else:
            known = ", ".join(f"`{i}`" for i in (MODE_OPTION_ID, *self._toggles, *self._options))
            raise invalid_params(
                f"unknown config option `{config_id}`: expected one of {known}",
                configId=config_id,
            )
        changed = self._policies.config(session_id).mode is not before
        await self._notify(conn, session_id, mode_changed=changed)
        return SetSessionConfigOptionResponse(config_options=self.config_options(session_id))

    # -- gating --------------------------------------------------------------------------

    @property
    def gate(self) -> Gate:
        """The approval gate (shared by every session, so identical concurrent asks share a dialog)."""
        return self._gate

    async def gate_tool_call(
        self, conn: Any, session_id: str, call: ToolCall, *, diffs: Iterable[FileDiff] = ()
    ) -> Decision:
        """Decide a tool call for the session, asking the client over ACP when the policy asks.

        The wait for the person's answer is the session config's `acp_approval_timeout`
        (0: indefinitely); a timeout, a dismissed dialog or a lost connection is a DENY.
        An unknown session is a DENY (there is no workspace to judge paths against).
        """
        if not self._policies.is_open(session_id):
            return Decision(
                Verdict.DENY,
                (
                    Reason(
                        "unknown-session",
                        "session",
                        f"session `{session_id}` is not open: tool calls need an open session",
                    ),
                ),
            )
        timeout = self._policies.config(session_id).acp_approval_timeout
        try:
            workspace: str | None = self._policies.workspace(session_id)
        except PolicyError:
            workspace = None  # closed meanwhile: the gate denies it
        callback = make_acp_approval_callback(
            conn,
            session_id,
            timeout=timeout,
            workspace=workspace,
            options=self._permission_options,
        )
        return await self._gate.check(session_id, call, callback, timeout=timeout, diffs=diffs)

    # -- internals -----------------------------------------------------------------------

    def _require_open(self, session_id: str) -> None:
        if not isinstance(session_id, str) or not self._policies.is_open(session_id):
            raise invalid_params(f"unknown session `{session_id}`", sessionId=str(session_id))

    @staticmethod
    def _parse(parser: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return parser(*args, **kwargs)
        except ValueError as exc:
            raise invalid_params(str(exc)) from None

    @staticmethod
    def _call(method: Callable[..., Any], *args: Any) -> Any:
        # The store refuses (unknown session, floor, duplicate id) before changing anything.
        try:
            return method(*args)
        except (PolicyError, ValueError) as exc:
            raise invalid_params(str(exc)) from None

    async def _set_agent_option(self, session_id: str, option: AgentOption, value: object) -> None:
        parsed = self._parse(parse_agent_value, option, value, boolean=self._boolean)
        if self._on_change is not None:
            try:
                result = self._on_change(session_id, option.id, parsed)
                if result is not None:
                    await result
            except ValueError as exc:
                raise invalid_params(str(exc), configId=option.id) from None
        with self._lock:
            if self._policies.is_open(session_id):
                self._values.setdefault(session_id, {})[option.id] = parsed

    async def _notify(self, conn: Any, session_id: str, *, mode_changed: bool) -> None:
        # The change is already in effect; a client that cannot hear about it is logged, not
        # rolled back (the response to the request carries the same state).
        if conn is None:
            return
        try:
            if mode_changed:
                mode = self._policies.config(session_id).mode.value
                await conn.session_update(
                    session_id=session_id,
                    update=CurrentModeUpdate(
                        session_update="current_mode_update", current_mode_id=mode
                    ),
                )
            await conn.session_update(
                session_id=session_id,
                update=ConfigOptionUpdate(
                    session_update="config_option_update",
                    config_options=self.config_options(session_id),
                ),
            )
        except (ConnectionError, RequestError) as exc:
            log.warning("could not notify session %s of an option change: %s", session_id, exc)


def client_supports_boolean_options(client_capabilities: Any) -> bool:
    """True when the client advertised `session.configOptions.boolean` (ACP 0.11+)."""
    session = getattr(client_capabilities, "session", None)
    config_options = getattr(session, "config_options", None)
    return getattr(config_options, "boolean", None) is not None


def _check_session_id(session_id: object) -> None:
    if not isinstance(session_id, str) or not _SESSION_ID.fullmatch(session_id):
        raise invalid_params(
            f"session id {session_id!r} must be 1-256 characters without control characters"
        )


def _check_cwd(cwd: object) -> None:
    if not isinstance(cwd, str) or not cwd.startswith("/") or _has_control(cwd):
        raise invalid_params(f"cwd {cwd!r} must be an absolute path", cwd=str(cwd))


def _has_control(text: str) -> bool:
    return any(ord(c) < 0x20 or ord(c) == 0x7F for c in text)
