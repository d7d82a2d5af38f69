"""Building blocks for complete option tables: flags, values and the groups programs share.

A complete table (`Program.source` set) lists every option the program's `--help` lists;
these helpers keep the tables short: `flags("-n", "--number")` for options without a
value, `values("-w", "--width")` for options whose value names no file (role none, as
stated), `HELP` for `--help`/`--version`, `DIGITS` for the obsolete `-NUM` spelling that
head, tail and grep accept (`head -20`: each digit a flag of the cluster).
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import NAMES_FROM_INPUT, Opt, Role
from safehold.policy.shell.words import Word

__all__ = [
    "DIGITS",
    "FLAG",
    "HELP",
    "NAMES",
    "VALUE",
    "flags",
    "names_from",
    "no_operand",
    "optional",
    "valued",
    "values",
]

FLAG = Opt()
VALUE = Opt(takes=True)


def flags(*names: str) -> dict[str, Opt]:
    """Options without a value."""
    return dict.fromkeys(names, FLAG)


def values(*names: str) -> dict[str, Opt]:
    """Options with a required value that names no file, runs nothing, goes nowhere."""
    return dict.fromkeys(names, VALUE)


def optional(*names: str) -> dict[str, Opt]:
    """Options with an optional value (only a glued `--opt=V` is theirs) naming nothing."""
    return dict.fromkeys(names, Opt(takes=True, optional=True))


def valued(role: Role, *names: str) -> dict[str, Opt]:
    """Options with a required value in `role` (`valued("read", "-f", "--file")`)."""
    return dict.fromkeys(names, Opt(takes=True, role=role))


NAMES = Opt(takes=True, role="read", mode=NAMES_FROM_INPUT)
"""A value that is a file of more file names (`--files0-from=F`): read, and each name in
it a computed read (`table.NAMES_FROM_INPUT`)."""


def names_from(*names: str) -> dict[str, Opt]:
    """Options whose value lists the files the program reads (`tar -T F`)."""
    return dict.fromkeys(names, NAMES)


HELP: dict[str, Opt] = flags("--help", "--version")
# `head -20`, `tail -50`, `grep -5`, `git log -3`: a count spelled as an option.
DIGITS: dict[str, Opt] = flags(*(f"-{d}" for d in "0123456789"))


def no_operand(word: Word) -> bool:
    """`Program.understood_operand` of a program whose every operand changes something
    (`hostname NAME`, `git remote add NAME URL`): none is understood, each still judged
    in its role."""
    return False
