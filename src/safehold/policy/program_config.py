"""`[[programs]]`: programs the user tells safehold about, so that without the sandbox they
are understood (issue 22). Each declares its options (arity and role) and its operands' role:

    [[programs]]
    name = "sqlfluff"
    parser = "argparse"
    operands = "read"
    options = [{ name = "--config", value = "required", role = "read" }, { name = "-v" }]

A declaration only adds knowledge about a program safehold does not know: a name with a
built-in table or step (`rm`, `bash`) is an error, so a config cannot read a known program
more loosely. Declared programs make commands run unasked, so a project config declares
them only once trusted (`strictness.loosened_fields`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from safehold.policy.shell.programs.table import Program

__all__ = ["DeclaredOption", "DeclaredProgram", "declared_tables"]

# `table.Role` and `table.Parser`, spelled here so the config needs no shell import (a test
# checks they stay the same).
Role = Literal[
    "read", "write", "delete", "perm", "exec", "network", "upload", "send", "cwd", "mount",
    "remote",
]  # fmt: skip
Parser = Literal["getopt_long", "getopt", "git", "argparse", "pflag", "exact"]

_Name = Annotated[str, Field(strict=True, min_length=1, max_length=100)]


class DeclaredOption(BaseModel):
    """One option of a declared program: its spelling, whether it takes a value, its role."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: _Name
    """The option as written: `-v`, `--config`."""
    value: Literal["none", "required", "optional"] = "none"
    """Whether it takes a value: none, required (the next word or glued), optional (glued only)."""
    role: Role | Literal["none"] = "none"
    """What its value is to the program: `read`, `write`, `delete`, `exec`, `network`, … or none."""

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        if not value.startswith("-") or value in ("-", "--") or any(c.isspace() for c in value):
            raise ValueError(f"option {value!r} must start with `-` and contain no blanks")
        if "=" in value:
            raise ValueError(f"option {value!r}: write the name without `=` (a value is `value`)")
        return value


class DeclaredProgram(BaseModel):
    """A program the user declares: its name, how it parses options, its options, operands."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: _Name
    """The program's name as run (its basename): `sqlfluff`."""
    parser: Parser = "getopt_long"
    """How it reads option words: getopt_long, getopt, git, argparse or exact."""
    options: tuple[DeclaredOption, ...] = ()
    """Every option it accepts; an option not listed is not understood."""
    operands: Role | Literal["none"] = "none"
    """What its operands are to it: `read`, `write`, `delete`, … or none (not files)."""

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        if "/" in value or any(c.isspace() for c in value) or value.startswith("-"):
            raise ValueError(f"program name {value!r} must be a bare name (no `/`, no blanks)")
        from safehold.policy.shell.effects import BUILTINS  # here: no import cycle
        from safehold.policy.shell.programs import PROGRAMS, STEPS

        if value in PROGRAMS or value in STEPS or value in BUILTINS:
            raise ValueError(
                f"program `{value}` is already known to safehold; [[programs]] declares only "
                "programs it does not know"
            )
        return value


@functools.lru_cache(maxsize=64)
def declared_tables(programs: tuple[DeclaredProgram, ...]) -> Mapping[str, Program]:
    """The program tables of the declarations, by name (the last of a name wins)."""
    from safehold.policy.shell.programs.table import Opt, Program

    out: dict[str, Program] = {}
    for p in programs:
        options = {
            o.name: Opt(
                takes=o.value != "none",
                optional=o.value == "optional",
                role=None if o.role == "none" else o.role,
            )
            for o in p.options
        }
        operands = None if p.operands == "none" else p.operands
        out[p.name] = Program(options=options, operands=operands, parser=p.parser, source="config")
    return out
