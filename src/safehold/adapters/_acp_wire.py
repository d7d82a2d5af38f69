"""The reference agent's `session/new` result as JSON, built without the ACP SDK.

`safehold acp` answers a `session/new` that follows `initialize` while the SDK (about a
second of pydantic models) is still importing: clients such as acpx start an agent for
most commands and wait for the session before anything else. The result must be exactly
what the agent answers through the SDK (`SafeholdAgent.new_session`, serialised by the
SDK's connection); tests/cli/test_acp_initialize.py compares the two over real
subprocesses on every SDK version CI runs. Only the reference agent's shape is built here:
no agent options, all three toggles shown, toggles as `"true"`/`"false"` selects (the
early path never answers a client that advertised session capabilities).
"""

from __future__ import annotations

from typing import Any

from safehold.adapters._acp_texts import FALSE, FLAG_TEXT, MODE_TEXT, TRUE
from safehold.policy.config import SafetyConfig
from safehold.policy.modes import Mode, flags_for_mode, flags_meet_floor

__all__ = ["session_setup_json"]


def session_setup_json(config: SafetyConfig, floor: Mode | None) -> dict[str, Any]:
    """`modes` and `configOptions` of a new session at `config`, as the SDK sends them.

    ValueError when the config does not meet the floor (the agent refuses to start then).
    """
    if not flags_meet_floor(config.flags, floor):
        raise ValueError(f"the config's mode is looser than the floor `{floor}`")
    modes = [m for m in Mode if flags_meet_floor(flags_for_mode(m), floor)]
    current = config.mode.value
    mode_state = {
        "currentModeId": current,
        "availableModes": [
            {"id": m.value, "name": MODE_TEXT[m][0], "description": MODE_TEXT[m][1]} for m in modes
        ],
    }
    options: list[dict[str, Any]] = [
        _select(
            "mode",
            "Mode",
            current,
            [(m.value, MODE_TEXT[m][0], MODE_TEXT[m][1]) for m in modes],
            description="Safety mode: sets the three toggles below at once",
            category="mode",
        )
    ]
    for name, value in config.option_values().items():
        label, text = FLAG_TEXT[name]
        on_off: list[tuple[str, str, str | None]] = [(TRUE, "On", None), (FALSE, "Off", None)]
        options.append(_select(name, label, TRUE if value else FALSE, on_off, description=text))
    return {"modes": mode_state, "configOptions": options}


def _select(
    option_id: str,
    name: str,
    current: str,
    choices: list[tuple[str, str, str | None]],
    *,
    description: str,
    category: str | None = None,
) -> dict[str, Any]:
    option: dict[str, Any] = {
        "currentValue": current,
        "options": [
            {"value": v, "name": n, **({"description": d} if d is not None else {})}
            for v, n, d in choices
        ],
        "id": option_id,
        "name": name,
        "description": description,
    }
    if category is not None:
        option["category"] = category
    option["type"] = "select"
    return option
