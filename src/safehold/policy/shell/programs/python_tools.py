"""Python and pytest: complete tables for the interpreter's own options and pytest's.

`python` (CPython 3.11 `--help`): `-c CODE` and `-m MODULE` end the interpreter's options,
and the words after them, or after the script, belong to the code (`ends`, `stop_at`).
The code itself is judged by the interpreter step (`interpreters`), not by roles: its
value is marked `exec`, never none. The script operand is a file the interpreter reads.

`pytest` (pytest 9, core options only: `PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 pytest --help`):
plugin options (`-n` of xdist, `--cov`, …) differ per project and are not listed, so they
are not understood. Left out, so that they ask: `-o`/`--override-ini` (sets `cache_dir`
and any ini value, so writes anywhere) and `--pastebin` (sends the results to a web
service). `--basetemp DIR` deletes DIR first; `--rootdir` is where `.pytest_cache` is
written; `--junit-xml`, `--log-file`, `--debug=FILE` write.
"""

from __future__ import annotations

from safehold.policy.shell.programs.shells import stdin_program
from safehold.policy.shell.programs.step import Step, StepFn
from safehold.policy.shell.programs.table import Opt, Program, Setting
from safehold.policy.shell.programs.vocab import HELP, flags, optional, valued, values
from safehold.policy.shell.words import Word

__all__ = ["PROGRAMS", "STEPS"]

_CODE = Opt(takes=True, role="exec", ends=True)
# `-X NAME[=VALUE]` (python(1) and `--help-xoptions`, CPython 3.11 to 3.13): the options
# that only change what the interpreter reports or how it runs. `pycache_prefix=PATH`
# writes the bytecode cache below PATH; any other name (`presite=MODULE` imports a module
# first, a name a later version adds) is not understood.
_X_PLAIN = frozenset(
    {
        "faulthandler", "showrefcount", "tracemalloc", "importtime", "dev", "utf8",
        "warn_default_encoding", "no_debug_ranges", "frozen_modules", "int_max_str_digits",
        "perf", "perf_jit", "cpu_count", "gil",
    }
)  # fmt: skip


def _x_option(text: str) -> Setting | None:
    name, eq, value = text.partition("=")
    if name == "pycache_prefix" and eq and value:
        return Setting(uses=(("write", value),))
    return Setting() if name in _X_PLAIN else None


def _warning_filter(text: str) -> Setting | None:
    """`-W action:message:category:module:lineno` (python(1), "-W arg"; pytest's `-W`
    reads it alike): a category spelled with a dot is imported from its module
    (`ignore::pkg.Warning` imports `pkg`, the way `-m pkg` runs it): not understood."""
    fields = text.split(":")
    return None if len(fields) > 2 and "." in fields[2] else Setting()


_WARNINGS = Opt(takes=True, setting=_warning_filter)
_PYTHON = Program(
    options={
        **flags("-b", "-bb", "-B", "-d", "-E", "-h", "-?", "--help", "-i", "-I", "-O", "-OO"),
        **flags("-P", "-q", "-s", "-S", "-u", "-v", "-V", "--version", "-x"),
        **flags("--help-env", "--help-xoptions", "--help-all"),
        **values("--check-hash-based-pycs"),
        "-W": _WARNINGS,
        "-X": Opt(takes=True, setting=_x_option),
        "-c": _CODE,
        "-m": _CODE,
    },
    first="read",
    options_first=True,
    stop_at=1,
    parser="getopt",
    source="CPython 3.11.7 --help",
)
_PYTEST = Program(
    options={
        **HELP,
        **flags("-h", "-V", "--markers", "-x", "--exitfirst", "--strict-config"),
        **flags("--strict-markers", "--strict", "--fixtures", "--funcargs"),
        **flags("--fixtures-per-test", "--pdb", "--trace", "-s", "--runxfail", "--lf"),
        **flags("--last-failed", "--ff", "--failed-first", "--nf", "--new-first"),
        **flags("--cache-clear", "--sw", "--stepwise", "--sw-skip", "--stepwise-skip"),
        **flags("--sw-reset", "--stepwise-reset", "-v", "--verbose", "--no-header"),
        **flags("--no-summary", "--no-fold-skipped", "--force-short-summary", "-q"),
        **flags("--quiet", "--disable-warnings", "--disable-pytest-warnings", "-l"),
        **flags("--showlocals", "--no-showlocals", "--xfail-tb", "--full-trace"),
        **flags("--collect-only", "--co", "--pyargs", "--noconftest", "--keep-duplicates"),
        **flags("--collect-in-virtualenv", "--continue-on-collection-errors"),
        **flags("--doctest-modules", "--doctest-ignore-import-errors"),
        **flags("--doctest-continue-on-failure", "--disable-plugin-autoload"),
        **flags("--trace-config", "--setup-only", "--setup-show", "--setup-plan"),
        **values("-k", "-m", "--maxfail", "--pdbcls", "--capture", "--lfnf"),
        **values("--last-failed-no-failures", "--durations", "--durations-min", "-r"),
        **values("--verbosity", "--tb", "--show-capture", "--color", "--code-highlight"),
        **values("--junit-prefix", "--max-warnings", "--ignore"),
        **dict.fromkeys(("-W", "--pythonwarnings"), _WARNINGS),
        **values("--ignore-glob", "--deselect", "--import-mode", "--doctest-report"),
        **values("--doctest-glob", "-p", "--assert", "--log-level", "--log-format"),
        **values("--log-date-format", "--log-cli-level", "--log-cli-format"),
        **values("--log-cli-date-format", "--log-file-mode", "--log-file-level"),
        **values("--log-file-format", "--log-file-date-format", "--log-auto-indent"),
        **values("--log-disable"),
        **optional("--cache-show"),
        **valued("read", "-c", "--config-file", "--confcutdir"),
        **valued("write", "--junit-xml", "--junitxml", "--log-file", "--rootdir"),
        **valued("delete", "--basetemp"),
        "--debug": Opt(takes=True, optional=True, role="write"),
    },
    operands="read",
    parser="argparse",
    source="pytest 9.0 --help (core, PYTEST_DISABLE_PLUGIN_AUTOLOAD=1)",
)

PROGRAMS: dict[str, Program] = {"python": _PYTHON, "pytest": _PYTEST, "py.test": _PYTEST}

# pytest 9.0 `--help`: `--pdb` starts the debugger on errors, `--trace` at the start of each
# test; pdb reads its commands from standard input, and `!stmt` runs Python (pdb docs,
# "Debugger Commands"). pytest takes no abbreviations (its parser sets allow_abbrev=False).
_DEBUGGER_OPTIONS = frozenset({"--pdb", "--trace"})


def _pytest(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    """`echo '!import os; …' | pytest --pdb`: the debugger runs what the pipe feeds it."""
    if not stdin_fed:
        return None
    for w in words[1:]:
        if w.static and w.text == "--":
            break
        if w.static and w.text in _DEBUGGER_OPTIONS:
            return stdin_program(f"{name} {w.text}", stdin_fed)
    return None


STEPS: dict[str, StepFn] = {"pytest": _pytest, "py.test": _pytest}
