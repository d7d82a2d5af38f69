"""Shims over the ACP Python SDK (`agent-client-protocol` 0.10.0 … 1.x) and its differences.

Rules that keep one code base working on every supported version:
always keyword arguments (the positional order changed in 0.11), always the explicit
discriminators (`outcome=`, `type=`, `session_update=`: required before 1.0), never
`acp.helpers` (removed in 1.0), and fields filtered against the model (`ToolCallUpdate.name`
exists only from 1.0 on). Models are built from `acp.schema`, which every version has.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any, Literal

from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    ContentToolCallContent,
    DeniedOutcome,
    FileEditToolCallContent,
    PermissionOption,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallLocation,
    ToolCallUpdate,
)

__all__ = [
    "SDK_CANCELS_ABANDONED_REQUESTS",
    "SDK_VERSION",
    "PermissionKind",
    "RequestError",
    "cancelled_response",
    "diff_content",
    "location",
    "permission_option",
    "selected_response",
    "text_block",
    "text_content",
    "tool_call_update",
]

PermissionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]


def _sdk_version() -> str:
    try:
        return metadata.version("agent-client-protocol")
    except metadata.PackageNotFoundError:  # vendored or renamed: still usable
        return "unknown"


SDK_VERSION = _sdk_version()
"""The installed `agent-client-protocol` version string."""

SDK_CANCELS_ABANDONED_REQUESTS: bool = hasattr(RequestError, "request_cancelled")
"""True when the SDK sends `$/cancel_request` for a request whose waiter was cancelled.

Only 1.0.0rc3 and later do; older versions drop the pending request locally and ignore a
late answer, leaving the client's dialog open.
"""


def text_block(text: str) -> TextContentBlock:
    """A text content block (replaces `acp.helpers.text_block`, gone in 1.0)."""
    return TextContentBlock(type="text", text=text)


def text_content(text: str) -> ContentToolCallContent:
    """Tool-call content holding plain text."""
    return ContentToolCallContent(type="content", content=text_block(text))


def diff_content(path: str, new_text: str, old_text: str | None = None) -> FileEditToolCallContent:
    """Tool-call content showing a file edit as a diff."""
    return FileEditToolCallContent(type="diff", path=path, new_text=new_text, old_text=old_text)


def location(path: str, line: int | None = None) -> ToolCallLocation:
    """A tool-call location (a file the call touches)."""
    return ToolCallLocation(path=path, line=line)


def permission_option(option_id: str, name: str, kind: PermissionKind) -> PermissionOption:
    """One option of a `session/request_permission` request."""
    return PermissionOption(option_id=option_id, name=name, kind=kind)


def tool_call_update(tool_call_id: str, **fields: Any) -> ToolCallUpdate:
    """A `ToolCallUpdate`, dropping fields this SDK version does not know (e.g. `name` < 1.0)."""
    known = ToolCallUpdate.model_fields
    return ToolCallUpdate(
        tool_call_id=tool_call_id, **{k: v for k, v in fields.items() if k in known}
    )


def selected_response(option_id: str) -> RequestPermissionResponse:
    """A permission response selecting `option_id` (discriminator passed explicitly)."""
    return RequestPermissionResponse(
        outcome=AllowedOutcome(outcome="selected", option_id=option_id)
    )


def cancelled_response() -> RequestPermissionResponse:
    """A permission response saying the request was cancelled (no decision)."""
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
