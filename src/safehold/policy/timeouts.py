"""Timeout validation shared by the config, the approval flow and the ACP callback."""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BeforeValidator

from safehold.errors import value_kind

__all__ = ["Seconds", "validate_timeout"]


def validate_timeout(value: Any) -> float:
    """Return `value` as float seconds; raise ValueError unless it is a finite int/float >= 0.

    0 means "wait indefinitely". bool is refused although it is an int: `True` as a
    timeout is always a wiring mistake.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        got = "null" if value is None else f"{value_kind(value)} {value!r:.80}"
        raise ValueError(f"timeout must be a number of seconds, got {got}")
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"timeout must be finite, got {value!r}")
    if value < 0:
        raise ValueError(f"timeout must be >= 0 (0 waits indefinitely), got {value!r}")
    return float(value)


Seconds = Annotated[float, BeforeValidator(validate_timeout)]
"""A finite, non-negative number of seconds (pydantic field type)."""
