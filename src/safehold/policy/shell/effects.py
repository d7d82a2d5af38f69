"""Step 3 of the shell pipeline: what each command does, as effects with their provenance.

parse (`analysis`) → resolve (where each command runs, what each word means: `programs`)
→ **effects** → one judge (`judge`). An `Effect` is one thing a command does to the world
(reads, writes or deletes a path, runs code, sends data to a destination) or one part of
it the analysis does not understand, each with the word and the table entry it comes
from, so a reason can say why.

Understood means: the program is known (a table in `programs.PROGRAMS`, a structural step
in `programs.STEPS` — wrappers, shells, interpreters — a shell builtin in `BUILTINS`, or a
program the user declared in `[[programs]]`), and every option word resolves in its table
(`table.read_roles`). A table without a `source` is trusted for the options it lists;
an option it does not list is not understood, as for a complete one.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from safehold.policy.shell.analysis import SimpleCommand
from safehold.policy.shell.programs import PROGRAMS, STEPS, command_strings, module_command
from safehold.policy.shell.programs.editors import EDITORS
from safehold.policy.shell.programs.environment import (
    ENVIRONMENT_LISTINGS,
    ENVIRONMENT_SCRIPTS,
    ENVIRONMENT_SHOWN_BY,
    ENVIRONMENT_SUBCOMMANDS,
    SHOWS_ENVIRONMENT,
    is_secret_name,
    secret_expansions,
)
from safehold.policy.shell.programs.interpreters import (
    INTERPRETERS,
    OPTION_TABLES,
    PYTHON,
    SETUP_FETCHES,
    SETUP_PUBLISHES,
    program_family,
    python_module,
    script_operand,
)
from safehold.policy.shell.programs.shell_settings import COMPUTED, setting_problem
from safehold.policy.shell.programs.shells import OTHER_LANGUAGE_SHELLS, SHELLS
from safehold.policy.shell.programs.step import program_name
from safehold.policy.shell.programs.table import (
    FETCHES_CODE,
    MAY_BE_OPTION,
    OPTIONS_FILE,
    Program,
    read_roles,
)
from safehold.policy.shell.words import Word

__all__ = ["BUILTINS", "ENVIRONMENT", "Effect", "EffectKind", "expanded_effects", "host_effects"]

EffectKind = Literal["read", "write", "delete", "run", "send", "not-understood", "unseen"]
"""`unseen`: the command acts where the analysis cannot look (a container, a daemon, a
cluster): understood, yet unconfined it asks with its table's `HostAsk` (the code is the
effect's `target`)."""

# Shell builtins the analysis models: none opens a file its words name, runs another
# command, or changes anything outside the shell (`cd` moves the analysis; bash manual,
# "Shell Builtin Commands"). `read` reads stdin only; `printf -v` sets a variable.
BUILTINS = frozenset(
    {
        ":", "true", "false", "echo", "printf", "test", "[", "[[", "cd", "pushd", "popd",
        "dirs", "export", "set", "unset", "local", "declare", "typeset", "readonly", "let",
        "shift", "exit", "return", "wait", "read", "break", "continue", "shopt", "umask",
        "pwd", "getopts", "times",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Effect:
    """One thing a command does, or one part of it not understood, and where it comes from.

    `target`: the path, URL, code or word concerned; `program`: the program whose words
    gave it; `provenance`: which word and which table entry (`"\\`--outp=F\\` (sort
    --output)"`), or why there is none.
    """

    kind: EffectKind
    target: str
    program: str
    provenance: str


def host_effects(
    cmd: SimpleCommand, declared: Mapping[str, Program] | None = None
) -> tuple[Effect, ...]:
    """What a host run of `cmd` must be judged on beyond its roles: the parts the analysis
    does not understand (`not-understood`), and code it downloads and runs (`run`).

    `declared`: the user's `[[programs]]`, looked up before the built-in tables.
    """
    if declared is None:
        # A pure function of the words (Effects hold text only, no word objects): remembered
        # by value, so a command seen in an earlier text is not read again.
        return _host_effects_memo(cmd.words, cmd.wrapper_words)
    return _host_effects(cmd.words, cmd.wrapper_words, declared)


@functools.lru_cache(maxsize=2048)
def _host_effects_memo(
    words: tuple[Word, ...], wrapper_words: tuple[tuple[Word, ...], ...]
) -> tuple[Effect, ...]:
    return _host_effects(words, wrapper_words, None)


def _host_effects(
    words: tuple[Word, ...],
    wrapper_words: tuple[tuple[Word, ...], ...],
    declared: Mapping[str, Program] | None,
) -> tuple[Effect, ...]:
    """The uncached `host_effects`: what is not understood, and what it shows of the
    environment."""
    return _understood(words, wrapper_words, declared) + _environment(words, wrapper_words)


ENVIRONMENT = "the environment"
"""The target of a `read` effect on the agent's environment variables (`env`, `$GITHUB_TOKEN`)."""


def _environment(
    words: tuple[Word, ...], wrapper_words: tuple[tuple[Word, ...], ...]
) -> tuple[Effect, ...]:
    """Reads of the agent's secrets from its environment (programs.environment)."""
    found: list[Effect] = []
    if not words and wrapper_words and wrapper_words[-1] and wrapper_words[-1][0].static:
        name = program_name(wrapper_words[-1][0])
        if name == "env":  # `env` with no command to run prints every variable
            found.append(Effect("read", ENVIRONMENT, name, "`env` prints every variable"))
    elif words and words[0].static:
        name = program_name(words[0])
        listing = ENVIRONMENT_LISTINGS.get(name)
        rest = [w.text for w in words[1:]]
        if (listing == "bare" and not rest) or (
            listing == "options" and all(t[:1] in ("-", "+") and t != "--" for t in rest)
        ):
            why = f"`{' '.join((name, *rest))}` prints every variable"
            found.append(Effect("read", ENVIRONMENT, name, why))
        elif name == "printenv":
            for t in rest:
                if is_secret_name(t):
                    found.append(Effect("read", ENVIRONMENT, name, f"`printenv {t}` prints it"))
        elif name in ENVIRONMENT_SCRIPTS:
            # `awk '{print ENVIRON["GITHUB_TOKEN"]}'`: the script reads the environment. Any
            # word that names the array counts (the script's place among the words is the
            # program's parser's business): erring towards asking.
            array = ENVIRONMENT_SCRIPTS[name]
            if any(array in t for t in rest):
                why = f"`{name}`'s script reads `{array}`, the program's environment"
                found.append(Effect("read", ENVIRONMENT, name, why))
        elif name in ENVIRONMENT_SHOWN_BY:
            shown = ENVIRONMENT_SHOWN_BY[name](words)  # `jq -n env`, `ps eww`
            if shown is not None:
                found.append(Effect("read", ENVIRONMENT, name, shown))
        elif name in ENVIRONMENT_SUBCOMMANDS and "env" in rest:
            why = f"`{name} … env` runs the `env` script, which prints every variable"
            found.append(Effect("read", ENVIRONMENT, name, why))
    for layer in (*wrapper_words, words):
        for word in layer:
            if not word.static:
                found.extend(expanded_effects((word.text,)))
    return tuple(found)


def expanded_effects(texts: tuple[str, ...]) -> tuple[Effect, ...]:
    """The secret-named variables `texts` expand (words, unquoted heredoc bodies, assignment
    values: `ShellAnalysis.expanded`), each a read of the environment."""
    return tuple(
        Effect(
            "read",
            ENVIRONMENT,
            var,
            f"`${var}` expands a variable whose name says it holds a secret",
        )
        for text in texts
        for var in secret_expansions(text)
    )


def _understood(
    words: tuple[Word, ...],
    wrapper_words: tuple[tuple[Word, ...], ...],
    declared: Mapping[str, Program] | None,
) -> tuple[Effect, ...]:
    """The parts of the command the analysis does not understand, and downloaded code."""
    if not words:
        return ()
    first = words[0]
    if not first.static:
        return (
            Effect("not-understood", first.text, "", f"`{first.text}`: the program is computed"),
        )
    name = program_name(first)
    for layer in (*wrapper_words, words):  # `/tmp/env git status` too
        spelled = layer[0].text if layer and layer[0].static else ""
        if "/" in spelled and not _installed(spelled):
            why = (
                f"`{spelled}` runs a file by its path, not the program "
                f"`{program_name(layer[0])}` from the system's directories"
            )
            return (Effect("not-understood", spelled, program_name(layer[0]), why),)
    for layer in (*wrapper_words, words):  # `zsh -c 'ls'`: ls runs behind zsh
        shell = program_name(layer[0]) if layer and layer[0].static else ""
        if shell in OTHER_LANGUAGE_SHELLS:
            why = (
                "is a shell whose language is not bash's: its script is read here as bash "
                "would read it, which it does not (programs.shells.OTHER_LANGUAGE_SHELLS)"
            )
            return (_unknown(shell, shell, why),)
    family = program_family(name)
    if len(words) == 1 and wrapper_words and _module_of(wrapper_words[-1]) == first.text:
        # The module `python -m NAME` runs, seen as a command of its own: the python
        # command itself says whether the module and its words are understood.
        return ()
    table = None
    if declared:
        table = declared.get(name) or declared.get(family)
    # `python -m MODULE ARGS…` runs the module as a program: its words are read with the
    # module's table (`python -m pytest -x` with pytest's).
    module = python_module(words) if table is None and family == "python" else None
    if table is None and module is None:
        table = PROGRAMS.get(family)
    if table is None and family in _CODE_RUNNERS:
        # An interpreter or an editor: its own options must be known; a script's words
        # are the script's.
        command = module_command(words, declared) if module is not None else None
        if module is not None and command is not None:
            at, mod = module
            unknown = _unknown_words(PYTHON, words[: at - 1])
            _, argv, table = command
            if table is None:
                why = f"`{name} -m {mod}`: the module is in no program table"
                return (*unknown, Effect("not-understood", mod, f"{name} -m", why))
            return unknown + _unknown_words(table, argv, mod)
        return _unknown_words(OPTION_TABLES.get(family, _NO_OPTIONS), words)
    if table is not None:
        return _unknown_words(table, words) + _setup_py(name, words)
    if name in SETTINGS:
        args = [w.text if w.static else COMPUTED for w in words[1:]]
        problem = setting_problem(name, args)
        if problem is not None:
            why = (
                f"{problem} changes how the shell reads the line, which the analysis does not model"
            )
            return (Effect("not-understood", problem.strip("`"), name, why),)
        return ()
    if name in BUILTINS or (name in STEPS and name not in _NEEDS_TABLE):
        return ()
    return (_unknown(name, name, "is in no program table"),)


# Builtins whose words are the shell's own settings (programs.shell_settings).
SETTINGS = frozenset({"set", "shopt"})


def _setup_py(name: str, words: tuple[Word, ...]) -> tuple[Effect, ...]:
    """`python setup.py install`: downloaded code; `python setup.py sdist upload`: published."""
    at = script_operand(name, words)
    if at is None or program_family(name) != "python" or program_name(words[at]) != "setup.py":
        return ()
    found: list[Effect] = []
    for w in words[at + 1 :]:
        shown = f"`setup.py {w.text}`"
        if not w.static:
            found.append(_unknown(w.text, name, "is a computed setuptools command"))
        elif w.text in SETUP_FETCHES:
            why = f"{shown} fetches the package's dependencies and installs them"
            found.append(Effect("run", "downloaded packages", name, why))
        elif w.text in SETUP_PUBLISHES:
            found.append(_unknown(w.text, name, "publishes the package (setuptools)"))
    return tuple(found)


# Steps that only look for a command string among the program's options (`man -P CMD`):
# the program's other options still need a table.
_NEEDS_TABLE = frozenset(command_strings.STEPS) - frozenset(PROGRAMS)
# Interpreters and editors: structural steps, whose own options still have to be known.
_CODE_RUNNERS = (INTERPRETERS - SHELLS) | EDITORS
_NO_OPTIONS = Program(options_first=True, stop_at=0)


def _module_of(layer: tuple[Word, ...]) -> str | None:
    """The module a `python … -m NAME …` layer runs, or None."""
    if not layer or program_family(program_name(layer[0])) != "python":
        return None
    found = python_module(layer)
    return found[1] if found is not None else None


# Where a program spelled by its path is the installed program its table describes: the
# system's binary directories (FHS 3.0, and Homebrew's), and a virtual environment's
# `bin/` in the workspace (`.venv/bin/pytest`: the environment's own entry points).
# Anywhere else (`./pytest`, `/tmp/git`, `../ls`) it is a file named like a program.
_SYSTEM_BIN_DIRS = frozenset(
    {"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin",
     "/opt/homebrew/bin"}
)  # fmt: skip
_VENV_BIN_DIRS = frozenset({".venv/bin", "venv/bin", "./.venv/bin", "./venv/bin"})


def _installed(path: str) -> bool:
    """True when `path` names a program in a system binary directory or a workspace venv."""
    head, _, _tail = path.rpartition("/")
    if head.startswith("/"):
        normal = head.rstrip("/") or "/"
        return normal in _SYSTEM_BIN_DIRS and ".." not in normal.split("/")
    return head in _VENV_BIN_DIRS


def _unknown(word: str, program: str, why: str) -> Effect:
    return Effect("not-understood", word, program, f"`{word}` {why}")


def _unknown_words(table: Program, words: tuple[Word, ...], name: str = "") -> tuple[Effect, ...]:
    """The words `table` does not account for, and the downloaded code the command runs."""
    name = name or program_name(words[0])
    reading = read_roles(table, words)
    found = tuple(
        _unknown(word, name, f"is no option or subcommand in the table of `{name}`")
        for word in reading.unknown
    )
    shown = " ".join(w.text for w in words[:3])
    found += tuple(
        Effect("unseen", ask.code, name, f"`{shown}` {ask.why}")
        for ask in dict.fromkeys(reading.asks)
    )
    if FETCHES_CODE in reading.modes:
        why = f"`{shown}` downloads packages and runs code that comes with them"
        found += (Effect("run", "downloaded packages", name, why),)
    if MAY_BE_OPTION in reading.modes:
        why = (
            f"`{shown}`: a word computed at run time stands where `{name}` reads its "
            "options, so it may be any of them (`-f FILE`, `--output=FILE`); put `--` "
            "before it"
        )
        found += (Effect("not-understood", "computed option", name, why),)
    if OPTIONS_FILE in reading.modes:
        shown = " ".join(w.text for w in words[:3])
        why = f"`{shown}`: options, commands or URLs read from a file or given as commands are not seen"
        found += (Effect("not-understood", "options file", name, why),)
    if SHOWS_ENVIRONMENT in reading.modes:
        shown = " ".join(w.text for w in words[:3])
        why = f"`{shown}` prints every variable of its environment ({name}'s table)"
        found += (Effect("read", ENVIRONMENT, name, why),)
    return found
