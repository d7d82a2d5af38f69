"""`make_acp_approval_callback`: ask the person through the editor with `session/request_permission`.

The callback offers four options with stable ids and maps the reply fail-closed: only an
offered option id counts; `cancelled`, an unknown id, a malformed reply, a client error, a
closed connection, a missing connection and the timeout are all non-allow outcomes. A
reply is read by its shape (the SDK's models, or exactly the protocol's fields), so a
connection that is not the SDK's is read the same way. On timeout the request is
abandoned: the SDK drops the pending entry (so a late answer changes nothing) and, from
agent-client-protocol 1.0.0rc3 on, sends `$/cancel_request` so the editor can close its
dialog. Task cancellation propagates.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import shlex
import unicodedata
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from acp.schema import (
    AllowedOutcome,
    ContentToolCallContent,
    DeniedOutcome,
    FileEditToolCallContent,
    RequestPermissionResponse,
    ToolCallLocation,
    ToolCallUpdate,
)

from safehold.adapters.acp._compat import (
    PermissionKind,
    RequestError,
    diff_content,
    location,
    permission_option,
    text_content,
    tool_call_update,
)
from safehold.policy._arguments import find_path_arguments
from safehold.policy.approval import (
    ApprovalAnswer,
    ApprovalCallback,
    ApprovalOutcome,
    ApprovalRequest,
)
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.grants import GRANT_REACHES, GrantReach
from safehold.policy.locations import call_locations
from safehold.policy.timeouts import validate_timeout

__all__ = [
    "AGENT_ASKS_CODE",
    "DEFAULT_OPTIONS",
    "OPTION_IDS",
    "SCOPED_OPTION_IDS",
    "PermissionOptions",
    "answer_of_response",
    "build_permission_tool_call",
    "make_acp_approval_callback",
    "outcome_of_response",
    "permission_options",
]

logger = logging.getLogger("safehold.adapters.acp")

# (option id, label, ACP kind, outcome). The ids are stable so clients and tests can rely
# on them; the kind is what an editor uses to style the button. The two "always" ids hold
# for the session, as they always did; the labels say so.
_OPTIONS: tuple[tuple[str, str, PermissionKind, ApprovalOutcome], ...] = (
    ("allow-once", "Allow once", "allow_once", ApprovalOutcome.ALLOW_ONCE),
    (
        "allow-always",
        "Always allow in this session",
        "allow_always",
        ApprovalOutcome.ALLOW_ALWAYS,
    ),
    ("reject-once", "Reject", "reject_once", ApprovalOutcome.REJECT_ONCE),
    (
        "reject-always",
        "Always reject in this session",
        "reject_always",
        ApprovalOutcome.REJECT_ALWAYS,
    ),
)

SCOPED_OPTION_IDS: Mapping[GrantReach, str] = MappingProxyType(
    {"project": "allow-always-project", "user": "allow-always-user"}
)
"""The extra "always allow" ids offered for wider scopes (when `PermissionOptions.scopes`
names them): `allow-always-project` (every session in this workspace) and
`allow-always-user` (every session of this user)."""

_SCOPED_LABELS: Final[Mapping[str, str]] = MappingProxyType(
    {"project": "Always allow in this project", "user": "Always allow everywhere (all projects)"}
)

OPTION_IDS: Mapping[ApprovalOutcome, str] = MappingProxyType(
    {outcome: oid for oid, _, _, outcome in _OPTIONS}
)
"""The option id offered for each of the four answers (`allow-once`, `allow-always`, ...)."""


@dataclass(frozen=True, slots=True)
class PermissionOptions:
    """Which option ids a permission request offers, and which other spellings it accepts.

    `ids` renames the offered ids (every one of the four answers needs one, all distinct);
    `aliases` maps an extra id a client may answer with to one of the offered ids (a client
    that answers `allow_once` to an offered `allow-once`, say). Any other id, offered by
    nobody, is still refused.
    """

    ids: Mapping[ApprovalOutcome, str] = field(default_factory=lambda: dict(OPTION_IDS))
    aliases: Mapping[str, str] = field(default_factory=dict)
    scopes: tuple[GrantReach, ...] = ("session",)
    """Where an "always allow" may hold: `session` (the `allow-always` id) is always offered;
    `project` and `user` add `SCOPED_OPTION_IDS` (the gate then needs a grant store)."""
    expires_in: float | None = None
    """Seconds an "always allow" grant lasts, whatever its scope (the labels say it); None:
    no expiry. An "always reject" never expires."""

    def __post_init__(self) -> None:
        scopes = tuple(self.scopes) if not isinstance(self.scopes, str) else (self.scopes,)
        if not set(scopes) <= set(GRANT_REACHES) or "session" not in scopes:
            raise ValueError(
                "PermissionOptions.scopes must name `session` and any of `project`, `user`; "
                f"got {self.scopes!r}"
            )
        object.__setattr__(self, "scopes", tuple(s for s in GRANT_REACHES if s in scopes))
        ttl = self.expires_in
        if ttl is not None and (
            isinstance(ttl, bool)
            or not isinstance(ttl, int | float)
            or not math.isfinite(ttl)
            or ttl <= 0
        ):
            raise ValueError(
                f"PermissionOptions.expires_in must be a finite number of seconds > 0, got {ttl!r}"
            )
        ids = {ApprovalOutcome(k): v for k, v in dict(self.ids).items()}
        wanted = {outcome for _, _, _, outcome in _OPTIONS}
        if set(ids) != wanted:
            missing = ", ".join(sorted(o.value for o in wanted - set(ids)))
            raise ValueError(
                f"PermissionOptions.ids needs an id for each answer; missing: {missing}"
            )
        for oid in ids.values():
            if not isinstance(oid, str) or not oid or oid != oid.strip():
                raise ValueError(f"PermissionOptions: option id {oid!r} must be a non-empty string")
        if len(set(ids.values())) != len(ids):
            raise ValueError("PermissionOptions: the four option ids must be distinct")
        offered = set(ids.values())
        scoped = {SCOPED_OPTION_IDS[s] for s in self.scopes if s != "session"}
        if offered & scoped:
            raise ValueError(
                "PermissionOptions: an option id is already used by a scoped "
                f"\u201calways allow\u201d: {', '.join(sorted(offered & scoped))}"
            )
        offered |= scoped
        aliases = dict(self.aliases)
        for alias, target in aliases.items():
            if not isinstance(alias, str) or not alias:
                raise ValueError(f"PermissionOptions: alias {alias!r} must be a non-empty string")
            if target not in offered:
                raise ValueError(
                    f"PermissionOptions: alias `{alias}` points to `{target}`, which is not "
                    "an offered option id"
                )
            if alias in offered and alias != target:
                raise ValueError(
                    f"PermissionOptions: alias `{alias}` is already the id of another option"
                )
        object.__setattr__(self, "ids", MappingProxyType(ids))
        object.__setattr__(self, "aliases", MappingProxyType(aliases))

    def options(self) -> list[Any]:
        """The `PermissionOption`s to offer, in a fixed order: the four, with the scoped
        "always allow" ones after `allow-always`."""
        out = []
        for _, name, kind, outcome in _OPTIONS:
            if outcome is ApprovalOutcome.ALLOW_ALWAYS:
                out.append(permission_option(self.ids[outcome], name + self._until, kind))
                out.extend(
                    permission_option(SCOPED_OPTION_IDS[s], _SCOPED_LABELS[s] + self._until, kind)
                    for s in self.scopes
                    if s != "session"
                )
            else:
                out.append(permission_option(self.ids[outcome], name, kind))
        return out

    @property
    def _until(self) -> str:
        return "" if self.expires_in is None else f" for {_duration_text(self.expires_in)}"

    def outcome_of(self, option_id: object) -> ApprovalOutcome | None:
        """The answer an id stands for (offered or alias); None for any other id."""
        answer = self.answer_of(option_id)
        return None if answer is None else answer.outcome

    def answer_of(self, option_id: object) -> ApprovalAnswer | None:
        """The answer an id stands for, with its grant's scope and lifetime; None for an id
        that was not offered."""
        if not isinstance(option_id, str):
            return None
        option_id = self.aliases.get(option_id, option_id)
        ttl = self.expires_in
        for scope in self.scopes:
            if scope != "session" and SCOPED_OPTION_IDS[scope] == option_id:
                return ApprovalAnswer(ApprovalOutcome.ALLOW_ALWAYS, scope, ttl)
        for outcome, oid in self.ids.items():
            if oid == option_id:
                lasts = ttl if outcome is ApprovalOutcome.ALLOW_ALWAYS else None
                return ApprovalAnswer(outcome, "session", lasts)
        return None


def _duration_text(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)} {unit}"
    return f"{seconds:g} s"


DEFAULT_OPTIONS: Final = PermissionOptions()
"""The ids `allow-once`, `allow-always`, `reject-once`, `reject-always`, no aliases."""


def permission_options() -> list[Any]:
    """The four `PermissionOption`s every request offers by default, in a fixed order."""
    return DEFAULT_OPTIONS.options()


def make_acp_approval_callback(
    conn: Any,
    session_id: str,
    timeout: float = 0.0,
    *,
    workspace: str | None = None,
    options: PermissionOptions = DEFAULT_OPTIONS,
) -> ApprovalCallback:
    """Build an `ApprovalCallback` that asks over ACP `session/request_permission`.

    `conn` is the agent's `AgentSideConnection` (or None: every request is then answered
    `failed` without touching the network). `timeout` is in seconds, 0 waits indefinitely;
    it is validated here, so a bad value fails when the agent is wired, not mid-turn.
    `workspace` (the session's cwd) makes relative paths absolute in `locations`.
    `options` sets the offered option ids and accepted aliases.
    """
    if not isinstance(options, PermissionOptions):
        raise TypeError(f"options must be PermissionOptions, got {type(options).__name__}")
    wait = validate_timeout(timeout)
    if not isinstance(session_id, str) or not session_id:
        raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
    if conn is None:

        async def no_connection(request: ApprovalRequest) -> ApprovalOutcome:
            logger.warning(
                "permission for %s in session %s refused: no ACP connection",
                request.call.name,
                session_id,
            )
            return ApprovalOutcome.FAILED

        return no_connection
    if not callable(getattr(conn, "request_permission", None)):
        raise TypeError(
            f"conn must be an ACP AgentSideConnection (with request_permission), "
            f"got {type(conn).__name__}"
        )

    async def ask(request: ApprovalRequest) -> ApprovalOutcome | ApprovalAnswer:
        if request.session_id != session_id:
            # The person looking at session A must never approve a call of session B.
            logger.error(
                "permission refused: callback for session %s asked about session %s",
                session_id,
                request.session_id,
            )
            return ApprovalOutcome.FAILED
        try:
            tool_call = build_permission_tool_call(request, workspace, scopes=options.scopes)
        except Exception as exc:  # e.g. arguments that cannot be shown: never ask blind
            logger.warning("permission refused: cannot describe the call: %s", exc)
            return ApprovalOutcome.FAILED
        try:
            response = await asyncio.wait_for(
                conn.request_permission(
                    session_id=session_id, tool_call=tool_call, options=options.options()
                ),
                wait or None,
            )
        except TimeoutError:
            logger.warning(
                "permission for %s in session %s timed out after %ss",
                tool_call.tool_call_id,
                session_id,
                wait,
            )
            return ApprovalOutcome.TIMED_OUT
        except RequestError as exc:
            logger.warning(
                "permission for %s refused: client error %s %s %s",
                tool_call.tool_call_id,
                exc.code,
                exc,
                exc.data,
            )
            return ApprovalOutcome.FAILED
        except Exception as exc:  # ConnectionError, pydantic.ValidationError, anything else
            logger.warning(
                "permission for %s refused: %s: %s", tool_call.tool_call_id, type(exc).__name__, exc
            )
            return ApprovalOutcome.FAILED
        answer = answer_of_response(response, tool_call.tool_call_id, options)
        if answer.scope == "session" and answer.expires_in is None:
            return answer.outcome  # the plain outcome, as before scopes existed
        return answer

    return ask


def outcome_of_response(
    response: object, tool_call_id: str = "?", options: PermissionOptions = DEFAULT_OPTIONS
) -> ApprovalOutcome:
    """Map a permission reply to an outcome; anything but an offered option fails."""
    return answer_of_response(response, tool_call_id, options).outcome


_FAILED: Final = ApprovalAnswer(ApprovalOutcome.FAILED)


def answer_of_response(
    response: object, tool_call_id: str = "?", options: PermissionOptions = DEFAULT_OPTIONS
) -> ApprovalAnswer:
    """As `outcome_of_response`, with the scope and lifetime the chosen option gives a grant.

    The reply is read by its shape (see `_read_reply`): only an outcome that is the SDK's
    `AllowedOutcome`, or a mapping with exactly the protocol's fields, whose `optionId` is a
    `str` among the offered ids (or their aliases), allows.
    """
    try:
        read = _read_reply(response)
    except Exception:  # a property or a mapping that raises while read: malformed
        read = None
    if read is None:
        logger.warning("permission for %s refused: malformed reply %r", tool_call_id, response)
        return _FAILED
    if read is _CANCELLED:
        return ApprovalAnswer(ApprovalOutcome.CANCELLED)
    chosen = options.answer_of(read)
    if chosen is None:
        # The SDK does not check that the id was offered; we do (ACP schema v2 requires it).
        logger.warning("permission for %s refused: option %r was not offered", tool_call_id, read)
        return _FAILED
    return chosen


_CANCELLED: Final = object()
"""What `_read_reply` returns for a `cancelled` outcome."""

# The protocol's fields (JSON names) of a `RequestPermissionResponse` and of its two
# outcomes; each may also carry `_meta` (an object or null), which is never read.
_REPLY_FIELDS: Final = frozenset({"outcome"})
_SELECTED_FIELDS: Final = frozenset({"outcome", "optionId"})
_CANCELLED_FIELDS: Final = frozenset({"outcome"})


def _read_reply(response: object) -> str | object | None:
    """The option id a reply selects, `_CANCELLED`, or None for a malformed reply.

    The reply is the SDK's `RequestPermissionResponse`, a mapping with exactly the
    protocol's fields, or another object (a test double, another SDK's model) whose
    `outcome` attribute is read. The outcome decides, and is read strictly: the SDK's
    `AllowedOutcome` or `DeniedOutcome` (by type), or a mapping with exactly the fields of
    one of them. An option id counts only as an exact `str`; anything else (a missing or
    extra field, another type, a mock's made-up attribute) is malformed.
    """
    if isinstance(response, RequestPermissionResponse):
        outcome: object = response.outcome
    elif isinstance(response, Mapping):
        fields = dict(response)
        outcome = fields["outcome"] if _names(fields) == _REPLY_FIELDS else None
    else:
        outcome = getattr(response, "outcome", None)
    if isinstance(outcome, DeniedOutcome):
        return _CANCELLED
    if isinstance(outcome, AllowedOutcome):
        # The type says `selected`; a double of it may lack the field, but never disagree.
        selected = getattr(outcome, "outcome", "selected")
        option_id = getattr(outcome, "option_id", None)
        return option_id if _is_str(selected, "selected") and _is_str(option_id) else None
    if isinstance(outcome, Mapping):
        fields = dict(outcome)  # one copy: every check reads the same values
        kind, names = fields.get("outcome"), _names(fields)
        if names == _CANCELLED_FIELDS and _is_str(kind, "cancelled"):
            return _CANCELLED
        if names == _SELECTED_FIELDS and _is_str(kind, "selected"):
            option_id = fields["optionId"]
            return option_id if _is_str(option_id) else None
    return None


def _names(fields: dict[Any, Any]) -> frozenset[Any] | None:
    """The protocol field names of a mapping (without `_meta`, which must be an object or
    null); None when `_meta` is something else."""
    meta = fields.get("_meta")
    if meta is not None and not isinstance(meta, Mapping):
        return None
    return frozenset(fields) - {"_meta"}


def _is_str(value: object, expected: str | None = None) -> bool:
    """True for an exact `str` (no subclass, no mock), equal to `expected` when given."""
    return type(value) is str and (expected is None or value == expected)


# -- what the person sees --------------------------------------------------------------


def build_permission_tool_call(
    request: ApprovalRequest,
    workspace: str | None = None,
    *,
    scopes: Sequence[GrantReach] = ("session",),
) -> ToolCallUpdate:
    """The `ToolCallUpdate` of a permission request: full command/path, kind, locations, input.

    `locations` are absolute (ACP requires it): relative paths are resolved against
    `workspace`, and left out when it is None.
    """
    call = request.call
    content: list[ContentToolCallContent | FileEditToolCallContent] = []
    command = _command_text(call)  # shown once, in full, as the title
    why = "; ".join(r.message for r in request.decision.reasons)
    if [r.code for r in request.decision.reasons] == [AGENT_ASKS_CODE]:
        # The agent's own policy asked, not safehold's: it decides what "always" covers.
        content.append(text_content(f"The agent asks because: {why}"))
        content.append(text_content(_AGENT_ALWAYS))
    else:
        if why:
            content.append(text_content(f"safehold asks because: {why}"))
        content.append(text_content(always_scope(request.decision.grant_key, scopes)))
    content.extend(diff_content(d.path, d.new_text, d.old_text) for d in request.diffs)
    return tool_call_update(
        call.tool_call_id or f"safehold-{uuid.uuid4().hex}",
        title=_title(call, command),
        name=call.name,
        kind=call.kind.value,
        status="pending",
        locations=_locations(request, workspace) or None,
        raw_input=_json_safe(dict(call.arguments)),
        content=content,
    )


AGENT_ASKS_CODE: Final = "agent-asks"
"""The reason code of a request the agent's own policy made, without safehold's decision."""
_AGENT_ALWAYS: Final = "The agent decides what an \u201calways\u201d answer covers."


def always_scope(grant_key: str | None, scopes: Sequence[GrantReach] = ("session",)) -> str:
    """Say what an "always" answer will cover: a tool-wide grant must not look like a narrow one.

    With wider `scopes` offered, it says where: the session, or as the answer chooses.
    """
    text = _always_what(grant_key)
    if grant_key is None or len(scopes) < 2 or not text.endswith(_SESSION):
        return text
    where = {"session": "this session", "project": "this project", "user": "every project"}
    choices = ", ".join(where[s] for s in scopes[:-1]) + " or " + where[scopes[-1]]
    return text[: -len(_SESSION)] + f", in {choices}, as your answer says."


_SESSION: Final = ", for this session."


def _always_what(grant_key: str | None) -> str:
    try:
        if grant_key is None:
            return "An \u201calways\u201d answer is not remembered for this call: it asks again."
        kind, _, body = grant_key.partition(":")
        if kind == "cmd":
            return "An \u201calways\u201d answer covers exactly this command, for this session."
        if kind == "path":
            tool, paths = json.loads(body)
            where = ", ".join(f"`{visible_text(str(p))}`" for p in paths)
            return (
                f"An \u201calways\u201d answer covers every `{visible_text(str(tool))}` call on "
                f"{where}, whatever it writes, for this session."
            )
        if kind == "prefix":
            shown = "; ".join(
                " ".join(str(w) for w in part)
                for part in json.loads(body)
                if part[:1] != ["<operators>"]
            )
            return (
                f"An \u201calways\u201d answer covers every command starting with "
                f"`{visible_text(shown)}`, whatever follows, for this session."
            )
        if kind == "tool":
            return (
                f"An \u201calways\u201d answer covers every `{visible_text(str(json.loads(body)))}` "
                "call, whatever its arguments, for this session."
            )
    except (ValueError, TypeError):
        pass
    return f"An \u201calways\u201d answer is recorded under `{visible_text(str(grant_key))}`."


def _command_text(call: ToolCall) -> str | None:
    if call.kind is not ToolKind.EXECUTE:
        return None
    command = call.arguments.get("command")
    extra = call.arguments.get("args")
    if extra is not None:
        # ACP's terminal shape: the engine decides `command` + `args` as one argv, so the
        # person sees all of it (showing only `rm` for `rm -rf ~` would hide the point).
        argv = [command, *extra] if isinstance(extra, list | tuple) else []
        if argv and all(isinstance(a, str) for a in argv):
            return shlex.join(argv)
        return repr({"command": command, "args": extra})
    if isinstance(command, str):
        return command
    if isinstance(command, Sequence) and all(isinstance(a, str) for a in command):
        return shlex.join(command)
    return None if command is None else repr(command)


def _title(call: ToolCall, command: str | None) -> str:
    # Shown in full, never shortened; control and bidi characters are made visible so a
    # second line or a right-to-left override cannot hide part of the command.
    if command is not None:
        return visible_text(command)
    paths = _argument_paths(call)
    if paths:
        return visible_text(f"{call.name} {' '.join(paths)}")
    return visible_text(call.name)


def visible_text(text: str) -> str:
    """Escape control, format and separator characters so nothing in a title can hide."""
    return "".join(
        ch.encode("unicode_escape").decode("ascii")
        if unicodedata.category(ch) in {"Cc", "Cf", "Zl", "Zp"}
        else ch
        for ch in text
    )


def _argument_paths(call: ToolCall) -> list[str]:
    # The same extraction the engine decides on, so the person sees every path it checked
    # (including ACP locations).
    found: list[str] = []
    for arg in find_path_arguments(call)[0]:
        raw = arg.raw if isinstance(arg.raw, str) else arg.raw.decode("utf-8", "replace")
        if raw and raw not in found:
            found.append(raw)
    return found


def _locations(request: ApprovalRequest, workspace: str | None) -> list[ToolCallLocation]:
    paths = list(call_locations(request.call, workspace))
    for d in request.diffs:
        path = d.path if d.path.startswith("/") or workspace is None else f"{workspace}/{d.path}"
        if path.startswith("/") and path not in paths:
            paths.append(path)
    return [location(p) for p in paths]


def _json_safe(value: Any, depth: int = 0) -> Any:
    # raw_input must be strict JSON: a NaN or an object a strict client cannot parse could
    # make the editor drop the request and leave the turn waiting. Anything else is shown
    # as its repr.
    if depth > 64:
        return "..."
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v, depth + 1) for v in value]
    return repr(value)
