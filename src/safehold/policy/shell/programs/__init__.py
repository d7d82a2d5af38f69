"""What each known program does with its arguments, one module per family.

A family module holds two tables: `STEPS` (program name -> step function: what the program
runs — an inner command, a shell string, inline code) and `PROGRAMS` (program name ->
`Program`: its options and the role of each operand and option value). `step_for` and
`program_for` look a program up. To teach the analysis a new program, add it to its
family's module (or a new module listed here): the walker never changes. See
docs/shell.md, "Adding a program".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

from safehold.policy.shell.programs import (
    archives,
    awk_sed,
    command_strings,
    compressors,
    containers,
    editors,
    files,
    filters,
    git,
    github_cli,
    golang,
    grep,
    hidden,
    interpreters,
    jq,
    network,
    packages,
    project_tools,
    python_tools,
    runners,
    shells,
    system,
    text,
)
from safehold.policy.shell.programs.interpreters import python_module
from safehold.policy.shell.programs.step import StepFn
from safehold.policy.shell.programs.table import Program
from safehold.policy.shell.words import Word

__all__ = ["MODULES", "PROGRAMS", "STEPS", "module_command", "program_for", "step_for"]

T = TypeVar("T")


def _merge(tables: Iterable[Mapping[str, T]]) -> dict[str, T]:
    out: dict[str, T] = {}
    for table in tables:
        for name, value in table.items():
            if name in out:  # one meaning per program name, or the table is ambiguous
                raise ValueError(f"program {name!r} is in two families")
            out[name] = value
    return out


STEPS: dict[str, StepFn] = _merge(
    f.STEPS
    for f in (
        runners, git, shells, interpreters, hidden, command_strings, awk_sed, editors,
        python_tools,
    )
)  # fmt: skip
PROGRAMS: dict[str, Program] = _merge(
    (
        files.PROGRAMS,
        network.PROGRAMS,
        archives.PROGRAMS,
        compressors.PROGRAMS,
        containers.PROGRAMS,
        packages.PROGRAMS,
        awk_sed.PROGRAMS,
        interpreters.PROGRAMS,
        text.PROGRAMS,
        filters.PROGRAMS,
        system.PROGRAMS,
        jq.PROGRAMS,
        grep.PROGRAMS,
        python_tools.PROGRAMS,
        project_tools.PROGRAMS,
        runners.PROGRAMS,
        golang.PROGRAMS,
        github_cli.PROGRAMS,
        {"git": git.ROLES},
    )
)
# Modules run as `python -m NAME` that are no program on `PATH` (`python -m unittest`);
# a module that is also a program (`python -m pytest`) is read with the program's table.
MODULES: dict[str, Program] = _merge((project_tools.MODULES,))


def step_for(name: str) -> StepFn | None:
    """The step function for a program name (its interpreter family), or None if unknown."""
    return STEPS.get(name)


def program_for(name: str) -> Program | None:
    """The role table of a program name (its interpreter family), or None if unknown."""
    return PROGRAMS.get(name)


def module_command(
    words: tuple[Word, ...], declared: Mapping[str, Program] | None = None
) -> tuple[str, tuple[Word, ...], Program | None] | None:
    """`python … -m MODULE ARGS…` as the module's own command: its name, its words (the
    module first, as a program's name) and its table (the user's `[[programs]]` first),
    or None when the words run no module. The words before `-m` are the interpreter's.
    """
    found = python_module(words)
    if found is None:
        return None
    at, name = found
    table = (declared or {}).get(name) or MODULES.get(name) or PROGRAMS.get(name)
    return name, (Word(name, True), *words[at:]), table
