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

from safehold.policy.shell.programs.table import Opt, Program
from safehold.policy.shell.programs.vocab import HELP, flags, optional, valued, values

__all__ = ["PROGRAMS"]

_CODE = Opt(takes=True, role="exec", ends=True)
_PYTHON = Program(
    options={
        **flags("-b", "-bb", "-B", "-d", "-E", "-h", "-?", "--help", "-i", "-I", "-O", "-OO"),
        **flags("-P", "-q", "-s", "-S", "-u", "-v", "-V", "--version", "-x"),
        **flags("--help-env", "--help-xoptions", "--help-all"),
        **values("-W", "-X", "--check-hash-based-pycs"),
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
        **values("--junit-prefix", "-W", "--pythonwarnings", "--max-warnings", "--ignore"),
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
