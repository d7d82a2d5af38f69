"""What each known program does with its arguments, one module per family.

A family module holds its programs' option tables and a step function per program name
(`STEPS`); `step_for` looks a program up. To teach the analysis a new program, add it to
the family's module (or a new module listed in `_FAMILIES`): the walker never changes.
See docs/shell.md, "Adding a program".
"""

from __future__ import annotations

from safehold.policy.shell.programs import (
    awk_sed,
    command_strings,
    editors,
    git,
    hidden,
    interpreters,
    runners,
    shells,
)
from safehold.policy.shell.programs.step import StepFn

__all__ = ["STEPS", "step_for"]

_FAMILIES = (runners, git, shells, interpreters, hidden, command_strings, awk_sed, editors)


def _merge() -> dict[str, StepFn]:
    out: dict[str, StepFn] = {}
    for family in _FAMILIES:
        for name, fn in family.STEPS.items():
            if name in out:  # one meaning per program name, or the table is ambiguous
                raise ValueError(f"program {name!r} is in two families")
            out[name] = fn
    return out


STEPS = _merge()


def step_for(name: str) -> StepFn | None:
    """The step function for a program name (its interpreter family), or None if unknown."""
    return STEPS.get(name)
