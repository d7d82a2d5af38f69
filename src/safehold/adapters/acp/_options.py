"""ACP views of a session's safety state: the mode list and the config-option list.

Translation only: the three flags come from `SafetyConfig`, the mode is derived by the
policy package, and incoming values are parsed here into what `SessionPolicies` takes.
Booleans go on the wire as `boolean` options only when the client said it can show them;
otherwise each toggle is a two-value select (`"true"` / `"false"`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias, TypeVar

import pydantic
from acp.schema import (
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from safehold.adapters._acp_texts import FALSE as _FALSE
from safehold.adapters._acp_texts import FLAG_TEXT as _FLAG_TEXT
from safehold.adapters._acp_texts import MODE_TEXT as _MODE_TEXT
from safehold.adapters._acp_texts import TRUE as _TRUE
from safehold.policy.config import SafetyConfig
from safehold.policy.modes import OPTION_NAMES, Mode, flags_for_mode, flags_meet_floor

__all__ = [
    "MODE_OPTION_ID",
    "RESERVED_OPTION_IDS",
    "AgentOption",
    "ConfigOption",
    "build_config_options",
    "build_mode_state",
    "offered_modes",
    "parse_agent_value",
    "parse_flag_value",
    "parse_mode_value",
]

ConfigOption: TypeAlias = SessionConfigOptionSelect | SessionConfigOptionBoolean

_M = TypeVar("_M", bound=pydantic.BaseModel)

MODE_OPTION_ID: Final = "mode"
RESERVED_OPTION_IDS: Final = frozenset({MODE_OPTION_ID, *OPTION_NAMES})


@dataclass(frozen=True, slots=True)
class AgentOption:
    """An option the agent owns (model, reasoning effort), listed next to safehold's own.

    A `bool` default makes a toggle; a `str` default makes a select over `choices`, given
    as values or `(value, label)` pairs. safehold keeps its per-session value and hands
    every change to the agent.
    """

    id: str
    name: str
    default: str | bool
    choices: Sequence[str | tuple[str, str]] = ()
    description: str | None = None
    category: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValueError("AgentOption.id must be a non-empty string")
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"AgentOption `{self.id}`: name must be a non-empty string")
        if self.id in RESERVED_OPTION_IDS:
            raise ValueError(f"AgentOption.id `{self.id}` is reserved for safehold's own options")
        pairs = _pairs(self.choices)
        object.__setattr__(self, "choices", pairs)
        if isinstance(self.default, bool):
            if pairs:
                raise ValueError(f"AgentOption `{self.id}`: a boolean option takes no choices")
            return
        if not isinstance(self.default, str):
            raise ValueError(f"AgentOption `{self.id}`: default must be a str or a bool")
        values = [v for v, _ in pairs]
        if not values:
            raise ValueError(f"AgentOption `{self.id}`: a select option needs choices")
        if len(set(values)) != len(values):
            raise ValueError(f"AgentOption `{self.id}`: choice values must be unique")
        if self.default not in values:
            raise ValueError(
                f"AgentOption `{self.id}`: default `{self.default}` is not one of its choices"
            )

    @property
    def is_boolean(self) -> bool:
        """True for a toggle, False for a select."""
        return isinstance(self.default, bool)

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        """The select's `(value, label)` pairs (empty for a toggle)."""
        return _pairs(self.choices)

    @property
    def values(self) -> tuple[str, ...]:
        """The select's values (empty for a toggle)."""
        return tuple(v for v, _ in self.pairs)


def _pairs(choices: Sequence[str | tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((c, c) if isinstance(c, str) else (str(c[0]), str(c[1])) for c in choices)


def offered_modes(floor: Mode | None) -> tuple[Mode, ...]:
    """The modes a session may switch to under the floor, least permissive last."""
    return tuple(m for m in Mode if flags_meet_floor(flags_for_mode(m), floor))


def build_mode_state(config: SafetyConfig, floor: Mode | None = None) -> SessionModeState:
    """The `modes` of a session response: the offered modes and the derived current one.

    Stateless: build it from any config (a session's, or one of your own).
    """
    modes = [
        SessionMode(id=m.value, name=_MODE_TEXT[m][0], description=_MODE_TEXT[m][1])
        for m in offered_modes(floor)
    ]
    return SessionModeState(current_mode_id=config.mode.value, available_modes=modes)


def build_config_options(
    config: SafetyConfig,
    floor: Mode | None = None,
    *,
    boolean: bool = False,
    extras: Sequence[AgentOption] = (),
    extra_values: Mapping[str, str | bool] | None = None,
    toggles: Iterable[str] = OPTION_NAMES,
    agent_options_first: bool = False,
) -> list[ConfigOption]:
    """The complete option list: `mode`, the shown toggles, and the agent's own options.

    Stateless: everything comes from the arguments. `toggles` names which of the three
    toggles to show (an empty tuple hides them; the mode still sets them); with
    `agent_options_first` the agent's options (model, effort) come before safehold's.
    """
    shown = _toggles(toggles)
    modes = offered_modes(floor)
    ours: list[ConfigOption] = [
        _select(
            MODE_OPTION_ID,
            "Mode",
            config.mode.value,
            [(m.value, _MODE_TEXT[m][0], _MODE_TEXT[m][1]) for m in modes],
            description="Safety mode: sets the three toggles below at once"
            if shown
            else "Safety mode",
            category="mode",
        )
    ]
    for name, value in config.option_values().items():
        if name not in shown:
            continue
        label, text = _FLAG_TEXT[name]
        ours.append(_toggle(name, label, value, boolean=boolean, description=text))
    theirs: list[ConfigOption] = []
    values = extra_values or {}
    for opt in extras:
        current = values.get(opt.id, opt.default)
        if opt.is_boolean:
            theirs.append(
                _toggle(
                    opt.id,
                    opt.name,
                    bool(current),
                    boolean=boolean,
                    description=opt.description,
                    category=opt.category,
                )
            )
        else:
            choices = [(v, label, None) for v, label in opt.pairs]
            theirs.append(
                _select(
                    opt.id,
                    opt.name,
                    str(current),
                    choices,
                    description=opt.description,
                    category=opt.category,
                )
            )
    return theirs + ours if agent_options_first else ours + theirs


def _toggles(toggles: Iterable[str]) -> tuple[str, ...]:
    if isinstance(toggles, str):
        raise ValueError("toggles must be a collection of toggle ids, not one string")
    shown = tuple(toggles)
    unknown = [t for t in shown if t not in OPTION_NAMES]
    if unknown:
        valid = ", ".join(f"`{n}`" for n in OPTION_NAMES)
        raise ValueError(f"unknown toggle `{unknown[0]}`: expected some of {valid}")
    return shown


def parse_mode_value(value: object, floor: Mode | None) -> Mode:
    """The mode named by a `set_mode` / `mode` option value; ValueError names what is valid."""
    valid = ", ".join(f"`{m.value}`" for m in offered_modes(floor))
    if not isinstance(value, str):
        raise ValueError(f"mode must be a string, one of {valid}; got {_show(value)}")
    try:
        return Mode(value)
    except ValueError:
        raise ValueError(f"unknown mode `{value}`: expected one of {valid}") from None


def parse_flag_value(option_id: str, value: object, *, boolean: bool) -> bool:
    """The bool for a toggle; a string is accepted only where the toggle is shown as a select."""
    return _parse_bool(option_id, value, boolean=boolean)


def parse_agent_value(option: AgentOption, value: object, *, boolean: bool) -> str | bool:
    """The value for an agent option, checked against its type and choices."""
    if option.is_boolean:
        return _parse_bool(option.id, value, boolean=boolean)
    if not isinstance(value, str):
        raise ValueError(f"option `{option.id}` takes one of its values, got {_show(value)}")
    if value not in option.values:
        valid = ", ".join(f"`{v}`" for v in option.values)
        raise ValueError(f"option `{option.id}` has no value `{value}`: expected one of {valid}")
    return value


def _parse_bool(option_id: str, value: object, *, boolean: bool) -> bool:
    if isinstance(value, bool):
        return value
    if not boolean and value in (_TRUE, _FALSE):
        return value == _TRUE
    expected = "true or false" if boolean else '"true" or "false"'
    raise ValueError(f"option `{option_id}` takes {expected}, got {_show(value)}")


def _show(value: object) -> str:
    text = repr(value) if not isinstance(value, str) else f"`{value}`"
    return text if len(text) <= 80 else text[:77] + "..."


def _toggle(
    option_id: str,
    name: str,
    value: bool,
    *,
    boolean: bool,
    description: str | None = None,
    category: str | None = None,
) -> ConfigOption:
    if boolean:
        return _build(
            SessionConfigOptionBoolean,
            type="boolean",
            id=option_id,
            name=name,
            current_value=value,
            description=description,
            category=category,
        )
    on_off = [(_TRUE, "On", None), (_FALSE, "Off", None)]
    return _select(
        option_id,
        name,
        _TRUE if value else _FALSE,
        on_off,
        description=description,
        category=category,
    )


def _select(
    option_id: str,
    name: str,
    current: str,
    choices: Sequence[tuple[str, str, str | None]],
    *,
    description: str | None = None,
    category: str | None = None,
) -> ConfigOption:
    options = [
        SessionConfigSelectOption(value=value, name=label, description=text)
        for value, label, text in choices
    ]
    return _build(
        SessionConfigOptionSelect,
        type="select",
        id=option_id,
        name=name,
        current_value=current,
        options=options,
        description=description,
        category=category,
    )


def _build(model: type[_M], **fields: Any) -> _M:
    # `category` is UX metadata whose type differs by SDK version (0.12.1 accepts only a
    # few literals): drop it rather than fail when this SDK will not take the value.
    try:
        return model(**fields)
    except pydantic.ValidationError:
        if fields.get("category") is None:
            raise
        fields["category"] = None
        return model(**fields)
