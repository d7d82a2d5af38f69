"""Modes and config options: the three safety flags seen as a mode or as toggles.

The derivation is the seed's table: ``read_only`` wins; both approval flags on is
review; both off is auto; any hybrid reports review (the stricter reading).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final, NamedTuple

__all__ = [
    "OPTION_NAMES",
    "Flags",
    "Mode",
    "derive_mode",
    "flags_for_mode",
    "flags_meet_floor",
    "flags_with_option",
    "option_values_for",
    "parse_mode",
]


class Mode(StrEnum):
    """The three session modes an agent offers (ACP `session/set_mode`)."""

    AUTO = "auto"
    REVIEW = "review"
    READ_ONLY = "read-only"


class Flags(NamedTuple):
    """The three safety flags that modes and options change, and nothing else."""

    read_only: bool
    require_approval_for_writes: bool
    require_approval_for_execute: bool


OPTION_NAMES: Final = ("auto_approve_writes", "auto_approve_execute", "read_only")

_MODE_FLAGS: Final = {
    Mode.AUTO: Flags(False, False, False),
    Mode.REVIEW: Flags(False, True, True),
    Mode.READ_ONLY: Flags(True, True, True),
}


def derive_mode(flags: Flags) -> Mode:
    """Return the mode the flags amount to; read_only wins and hybrids report review."""
    if flags.read_only:
        return Mode.READ_ONLY
    if not flags.require_approval_for_writes and not flags.require_approval_for_execute:
        return Mode.AUTO
    return Mode.REVIEW


def parse_mode(mode: Mode | str) -> Mode:
    """Return the `Mode` for a mode id; an unknown id raises ValueError listing the valid ones."""
    try:
        return Mode(mode)
    except ValueError:
        valid = ", ".join(f"`{m.value}`" for m in Mode)
        raise ValueError(f"unknown mode `{mode}`: expected one of {valid}") from None


def flags_for_mode(mode: Mode | str) -> Flags:
    """Return the three flags a mode sets atomically."""
    return _MODE_FLAGS[parse_mode(mode)]


def flags_with_option(flags: Flags, name: str, value: bool) -> Flags:
    """Return the flags with one option applied; unknown names and non-bools raise ValueError."""
    if name not in OPTION_NAMES:
        valid = ", ".join(f"`{n}`" for n in OPTION_NAMES)
        raise ValueError(f"unknown option `{name}`: expected one of {valid}")
    if not isinstance(value, bool):
        raise ValueError(f"option `{name}` takes true or false, got {value!r}")
    if name == "auto_approve_writes":
        return flags._replace(require_approval_for_writes=not value)
    if name == "auto_approve_execute":
        return flags._replace(require_approval_for_execute=not value)
    return flags._replace(read_only=value)


def option_values_for(flags: Flags) -> dict[str, bool]:
    """Return the three config-option values; with read_only on, the auto options read false."""
    if flags.read_only:
        return {"auto_approve_writes": False, "auto_approve_execute": False, "read_only": True}
    return {
        "auto_approve_writes": not flags.require_approval_for_writes,
        "auto_approve_execute": not flags.require_approval_for_execute,
        "read_only": False,
    }


def flags_meet_floor(flags: Flags, floor: Mode | None) -> bool:
    """True when the flags are at least as strict as the floor mode (None: no floor)."""
    if floor is None or flags.read_only:
        return True
    floor_flags = flags_for_mode(floor)
    if floor_flags.read_only:
        return False
    return (flags.require_approval_for_writes or not floor_flags.require_approval_for_writes) and (
        flags.require_approval_for_execute or not floor_flags.require_approval_for_execute
    )
