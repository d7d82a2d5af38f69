"""Tools that test, check and lint a project: django-admin, sqlfluff, pylint, and the
standard library's `unittest` and `py_compile` run as `python -m MODULE`.

Like pytest (`python_tools`), a test runner runs the workspace's own code: its settings,
its test modules, the apps its settings list, the config files in it. That is the code
`python script.py` runs, so it is not a finding; what the tables judge is every file an
option or operand names. Options that run code given on the command line, or load code
from a place the command computes, are left out of the tables, so that they ask (each is
named below, with why). A dotted module name looked up on `sys.path` (`--settings`,
`--testrunner`) is a value, as pytest's `-p NAME` is.

`MODULES` holds the tables of modules that are not programs on `PATH` (`python -m
unittest`); `PROGRAMS` the programs (`django-admin`, `sqlfluff`, `pylint`), which
`python -m NAME` also reads with (`python -m pylint`).
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Opt, Program, Role
from safehold.policy.shell.programs.vocab import HELP, flags, optional, valued, values

__all__ = [
    "MODULES",
    "PROGRAMS",
    "PYTHON_IMPORTERS",
    "RUNNER_SETTINGS",
    "RUNS_OPERANDS",
    "SETTINGS_OPTIONS",
    "Settings",
]

# -- django-admin / python -m django -------------------------------------------------------
# Django 5.2.19: django/core/management/base.py (`BaseCommand.create_parser`),
# django/core/management/__init__.py (`ManagementUtility.execute`), the commands in
# django/core/management/commands/*.py and `DiscoverRunner.add_arguments` in
# django/test/runner.py. Every command first imports the settings module and the apps it
# lists (`django.setup()`): the project's code. `--pythonpath DIR` puts DIR first on
# `sys.path`, so the settings and tests are imported from there: a read of DIR, judged
# like `python DIR/script.py` (outside the workspace it asks on the host). Left out
# subcommands (`shell` runs code, `runserver` listens, `migrate`/`flush`/`loaddata` change
# the database, `startapp`/`makemessages`/… write) are not understood, so they ask.
_DJANGO_SOURCE = "Django 5.2.19 (django/core/management/base.py, commands/*.py)"
_DJANGO_BASE = {
    **HELP,
    **flags("-h", "--traceback", "--no-color", "--force-color"),
    **values("-v", "--verbosity", "--settings"),
    **valued("read", "--pythonpath"),
}
_CHECKS = flags("--skip-checks")  # only commands with `requires_system_checks`


def _django(
    *groups: dict[str, Opt],
    operands: Role | None = None,
    implicit: tuple[tuple[Role, str | None], ...] = (),
    modes: dict[str, Program] | None = None,
) -> Program:
    return Program(
        options={k: v for group in (_DJANGO_BASE, *groups) for k, v in group.items()},
        operands=operands,
        implicit=implicit,
        modes=modes or {},
        parser="argparse",
        source=_DJANGO_SOURCE,
    )


# `test`: the labels are modules, classes or directories of the workspace's tests.
# `--testrunner CLASS` imports a class by its dotted name (as `--settings` does); a custom
# runner's own options are not in this table, so they ask. `--shuffle` and `--parallel`
# take an optional value; `--durations` is Django's on Python 3.12+.
_DJANGO_TEST = _django(
    flags("--noinput", "--no-input", "--failfast", "--keepdb", "-r", "--reverse"),
    flags("--debug-mode", "-d", "--debug-sql", "--pdb", "-b", "--buffer"),
    flags("--no-faulthandler", "--timing"),
    values("--testrunner", "-p", "--pattern", "--tag", "--exclude-tag", "-k", "--durations"),
    optional("--shuffle", "--parallel"),
    valued("read", "-t", "--top-level-directory"),
    operands="read",
)
# `check`: app labels (names, not files).
_DJANGO_CHECK = _django(
    flags("--list-tags", "--deploy"),
    values("-t", "--tag", "--fail-level", "--database"),
)
# `makemigrations` writes migration files into each app's migrations package, a place
# Django computes; `--check` (which implies it) and `--dry-run` write nothing.
_DJANGO_MAKEMIGRATIONS = _django(
    _CHECKS,
    flags("--merge", "--empty", "--noinput", "--no-input", "--no-header", "--scriptable"),
    flags("--update"),
    values("-n", "--name"),
    {"--dry-run": Opt(mode="dry-run"), "--check": Opt(mode="dry-run")},
    implicit=(("write", None),),
    modes={"dry-run": Program()},
)
_DJANGO_SHOWMIGRATIONS = _django(
    _CHECKS, flags("--list", "-l", "--plan", "-p"), values("--database")
)
_DJANGO_SQLMIGRATE = _django(_CHECKS, flags("--backwards"), values("--database"))
# `--default MODULE` imports a settings module by name, as `--settings` does; `--output`
# is the format (`hash` or `unified`).
_DJANGO_DIFFSETTINGS = _django(flags("--all"), values("--default", "--output"))
# `help` and `version` are read by `ManagementUtility`'s own parser (`allow_abbrev=False`):
# `--settings` and `--pythonpath` only; `help --commands`, `help SUBCOMMAND`.
_DJANGO_EARLY = {**values("--settings"), **valued("read", "--pythonpath")}
_DJANGO = Program(
    # `django-admin --help` and `--version` only as the one argument; the subcommand first.
    options={**HELP, **flags("-h")},
    subcommands={
        "test": _DJANGO_TEST,
        "check": _DJANGO_CHECK,
        "makemigrations": _DJANGO_MAKEMIGRATIONS,
        "showmigrations": _DJANGO_SHOWMIGRATIONS,
        "sqlmigrate": _DJANGO_SQLMIGRATE,
        "diffsettings": _DJANGO_DIFFSETTINGS,
        "help": Program(
            options={**_DJANGO_EARLY, **flags("--commands")}, parser="exact", source=_DJANGO_SOURCE
        ),
        "version": Program(options=_DJANGO_EARLY, parser="exact", source=_DJANGO_SOURCE),
    },
    options_first=True,
    parser="exact",
    source=_DJANGO_SOURCE,
)

# -- sqlfluff ------------------------------------------------------------------------------
# sqlfluff 4.5.0, src/sqlfluff/cli/commands.py (click: short clusters, `--opt=V`, long
# names in full, no prefixes). Left out, so that they ask: `-t`/`--templater` (the
# `python` and `jinja` templaters import Python from the configured library path, `dbt`
# runs dbt) and `--library-path` (a directory of Python macros it imports); `-x`/
# `--fixed-suffix` (the written file's name is computed from the operand and the suffix,
# which may hold `/`). `--config FILE` is read (a config in the workspace is the
# project's, as `.sqlfluff` is); `--stdin-filename` names where the config is looked up.
_SQLFLUFF_SOURCE = "sqlfluff 4.5.0 (src/sqlfluff/cli/commands.py)"
_SQL_COMMON = {**HELP, **flags("-h", "-v", "--verbose", "-n", "--nocolor", "--color")}
_SQL_CORE = {
    **values("-d", "--dialect", "-r", "--rules", "-e", "--exclude-rules", "--encoding"),
    **values("-i", "--ignore", "--logger", "--disable-noqa-except"),
    **flags("--ignore-local-config", "--bench", "--disable-noqa"),
    **valued("read", "--config", "--stdin-filename"),
}
_SQL_LINT = {
    **flags("-q", "--quiet", "--disable-progress-bar", "--warn-unused-ignores"),
    **flags("--disregard-sqlfluffignores"),
    **values("-p", "--processes"),
    **valued("write", "--persist-timing"),
}


def _sqlfluff(*groups: dict[str, Opt], operands: Role | None = None) -> Program:
    return Program(
        options={k: v for group in (_SQL_COMMON, *groups) for k, v in group.items()},
        operands=operands,
        parser="getopt",
        source=_SQLFLUFF_SOURCE,
    )


_SQL_RESULTS = {
    **flags("--nofail"),
    **values("-f", "--format", "--recursion-limit"),
    **valued("write", "--write-output"),
}
_SQLFLUFF = Program(
    options={**HELP, **flags("-h")},
    subcommands={
        "lint": _sqlfluff(
            _SQL_CORE, _SQL_LINT, _SQL_RESULTS, values("--annotation-level"), operands="read"
        ),
        # `fix` and `format` rewrite the files they are given (`-` reads stdin, writes stdout).
        "fix": _sqlfluff(
            _SQL_CORE,
            _SQL_LINT,
            flags("-f", "--force", "--check", "--FIX-EVEN-UNPARSABLE", "--show-lint-violations"),
            values("--recursion-limit"),
            operands="write",
        ),
        "format": _sqlfluff(_SQL_CORE, _SQL_LINT, values("--recursion-limit"), operands="write"),
        "parse": _sqlfluff(
            _SQL_CORE,
            _SQL_RESULTS,
            flags("-c", "--code-only", "-m", "--include-meta", "--parse-statistics"),
            operands="read",
        ),
        "render": _sqlfluff(_SQL_CORE, operands="read"),
        "dialects": _sqlfluff(),
        "rules": _sqlfluff(),
        "version": _sqlfluff(),
    },
    parser="getopt",
    source=_SQLFLUFF_SOURCE,
)

# -- pylint --------------------------------------------------------------------------------
# pylint 4.1.4 `--long-help` (argparse, long prefixes). pylint parses the code it checks
# and does not run it. Left out, so that they ask: `--init-hook` (Python code it runs),
# `--evaluation` (an expression it evaluates), `--load-plugins` (modules it imports),
# `--extension-pkg-allow-list`/`--extension-pkg-whitelist` and the hidden
# `--unsafe-load-any-extension` (native modules it imports into itself);
# `-f`/`--output-format` (a reporter class imported by name, and `FORMAT:FILE` writes FILE,
# a path inside the value); `--files` and `--source-roots` (comma-separated lists of paths,
# not judged one by one). `--rcfile` is read (pylint also matches `--rc…`); `--output`,
# `--spelling-private-dict-file` (unknown words are added to it) and the import graphs
# are written. Its statistics go to its own cache directory (`--persistent`), as pip's do.
_PYLINT_VALUES = (
    "--help-msg", "--ignore", "--ignore-patterns", "--ignore-paths", "--persistent",
    "--fail-under", "--fail-on", "--jobs", "-j", "--limit-inference-results", "--recursive",
    "--py-version", "--ignored-modules", "--analyse-fallback-blocks",
    "--clear-cache-post-run", "--prefer-stubs", "--reports", "-r", "--score", "-s",
    "--msg-template", "--confidence", "--enable", "-e", "--disable", "-d",
    "--max-nested-blocks", "--never-returning-functions",
    "--suggest-join-with-non-empty-separator", "--ignore-on-opaque-inference",
    "--mixin-class-rgx", "--ignore-mixin-members", "--ignored-checks-for-mixins",
    "--ignore-none", "--ignored-classes", "--generated-members",
    "--contextmanager-decorators", "--missing-member-hint-distance",
    "--missing-member-max-choices", "--missing-member-hint", "--signature-mutators",
    "--known-side-effects-only-functions", "--notes", "--notes-rgx",
    "--check-fixme-in-docstring", "--max-args", "--max-positional-arguments",
    "--max-locals", "--max-returns", "--max-branches", "--max-statements", "--max-parents",
    "--ignored-parents", "--max-attributes", "--min-public-methods", "--max-public-methods",
    "--max-bool-expr", "--exclude-too-few-public-methods",
    "--check-str-concat-over-line-jumps", "--check-quote-consistency", "--spelling-dict",
    "--spelling-ignore-words", "--spelling-store-unknown-words",
    "--max-spelling-suggestions", "--spelling-ignore-comment-directives", "--init-import",
    "--dummy-variables-rgx", "--additional-builtins", "--callbacks",
    "--redefining-builtins-modules", "--ignored-argument-names",
    "--allow-global-unused-variables", "--allowed-redefined-builtins",
    "--defining-attr-methods", "--valid-classmethod-first-arg",
    "--valid-metaclass-classmethod-first-arg", "--exclude-protected",
    "--check-protected-access-in-special-methods", "--overgeneral-exceptions",
    "--timeout-methods", "--good-names", "--good-names-rgxs", "--bad-names",
    "--bad-names-rgxs", "--name-group", "--include-naming-hint", "--property-classes",
    "--argument-naming-style", "--argument-rgx", "--attr-naming-style", "--attr-rgx",
    "--class-naming-style", "--class-rgx", "--class-attribute-naming-style",
    "--class-attribute-rgx", "--class-const-naming-style", "--class-const-rgx",
    "--const-naming-style", "--const-rgx", "--function-naming-style", "--function-rgx",
    "--inlinevar-naming-style", "--inlinevar-rgx", "--method-naming-style", "--method-rgx",
    "--module-naming-style", "--module-rgx", "--paramspec-rgx", "--typealias-rgx",
    "--typevar-rgx", "--typevartuple-rgx", "--variable-naming-style", "--variable-rgx",
    "--no-docstring-rgx", "--docstring-min-length", "--max-line-length",
    "--ignore-long-lines", "--ignore-pattern-in-long-lines", "--single-line-if-stmt",
    "--single-line-class-stmt", "--max-module-lines", "--indent-string",
    "--indent-after-paren", "--expected-line-ending-format", "--deprecated-modules",
    "--preferred-modules", "--known-standard-library", "--known-first-party",
    "--known-third-party", "--allow-any-import-level", "--allow-wildcard-with-all",
    "--allow-reexport-from-package", "--min-similarity-lines", "--ignore-comments",
    "--ignore-docstrings", "--ignore-imports", "--ignore-signatures", "--logging-modules",
    "--logging-format-style",
)  # fmt: skip
_PYLINT = Program(
    options={
        **HELP,
        **flags("-h", "--list-msgs", "--list-msgs-enabled", "--list-groups"),
        **flags("--list-conf-levels", "--list-extensions", "--full-documentation"),
        **flags("--generate-rcfile", "--generate-toml-config", "--long-help"),
        **flags("--errors-only", "-E", "--verbose", "-v", "--enable-all-extensions"),
        **flags("--exit-zero", "--from-stdin"),
        **values(*_PYLINT_VALUES),
        **valued("read", "--rcfile"),
        **valued("write", "--output", "--spelling-private-dict-file", "--import-graph"),
        **valued("write", "--ext-import-graph", "--int-import-graph"),
    },
    operands="read",
    parser="argparse",
    source="pylint 4.1.4 --long-help",
)

# -- python -m unittest, python -m py_compile ----------------------------------------------
# CPython 3.11 Lib/unittest/main.py (`python -m unittest --help`, `… discover --help`):
# the names are test modules, classes or files of the workspace (reads). `discover` is
# only a first word, and its words would otherwise read as test names, so its options are
# in the one table: `-s START` and `-t TOP` are the directories it imports tests from
# (reads); its optional positional START, PATTERN and TOP read as names too (a pattern
# read as a path is only judged more strictly). `--durations` is 3.12's.
_UNITTEST = Program(
    options={
        **flags("-h", "--help", "-v", "--verbose", "-q", "--quiet", "--locals", "-f"),
        **flags("--failfast", "-c", "--catch", "-b", "--buffer"),
        **values("-k", "--durations", "-p", "--pattern"),
        **valued("read", "-s", "--start-directory", "-t", "--top-level-directory"),
    },
    operands="read",
    parser="argparse",
    source="CPython 3.11 python -m unittest --help (Lib/unittest/main.py)",
)
# CPython 3.11 Lib/py_compile.py `main`: compiles each file (a read; the `.pyc` goes to
# `__pycache__` beside it, as any import's does). `-` alone reads the file names from
# standard input: names nobody saw, so computed paths.
_PY_COMPILE = Program(
    options=flags("-h", "--help", "-q", "--quiet"),
    operands="read",
    stdin_names="read",
    parser="argparse",
    source="CPython 3.11 python -m py_compile --help (Lib/py_compile.py)",
)

PROGRAMS: dict[str, Program] = {
    "django-admin": _DJANGO,
    "sqlfluff": _SQLFLUFF,
    "pylint": _PYLINT,
}
MODULES: dict[str, Program] = {
    "django": _DJANGO,
    "unittest": _UNITTEST,
    "py_compile": _PY_COMPILE,
}

# Files a runner reads its options, plugins or code from, by name, in the folder it runs in,
# below it (the folders it collects), and in the folders above (its rootdir search): what
# they say is on no command line, so a step of the same line that writes one asks
# (`flows`). Each file maps to what makes a text the command shows in full (a heredoc
# `cat` or `tee` writes out) ask: None, any text (a plugin can read any key); a set of
# words, a text holding one of them (lowercased); empty, no visible text (code the agent
# writes out, judged as `cat > t.py <<'EOF'` then `python3 t.py` is). Any other writer
# (`echo`, `printf`, a copy, a download, `sed -i`) asks whatever it writes.
# - pytest: `addopts`, `-p` plugins, `cache_dir`, `pythonpath` and plugins' own keys in
#   `pytest.ini`, `.pytest.ini`, `pyproject.toml`, `tox.ini`, `setup.cfg`; `conftest.py`
#   plugins (pytest docs, "Configuration: Finding the rootdir", "conftest.py: local
#   per-directory plugins");
# - tox: its `commands` in `tox.ini`, `tox.toml`, `setup.cfg`, `pyproject.toml` (tox docs,
#   "Configuration"); nox: `noxfile.py`;
# - pylint: `init-hook` and `load-plugins` in its rc files (as in `flows.PROJECT_RUNNERS`);
# - sqlfluff: the templater (`python`, `dbt`) and the Python macros and library it loads
#   (`library_path`, `load_macros_from_path`; sqlfluff docs, "Configuration", "Library
#   Templating"); a dialect or a rule's setting loads nothing;
# - npm, pnpm and yarn: `.npmrc` (`script-shell`, `node-options`; npm docs, "npmrc"), yarn
#   also `.yarnrc` and `.yarnrc.yml` (`yarnPath` runs a file; Yarn docs, "yarnrc").
Settings = dict[str, frozenset[str] | None]
_PYTEST_SETTINGS: Settings = {
    **dict.fromkeys(("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")),
    "conftest.py": frozenset(),
}
_SQLFLUFF_WORDS = frozenset(
    {"templater", "library_path", "load_macros_from_path", "loader_search_path", "dbt"}
)
_NPM_SETTINGS: Settings = {".npmrc": None}
RUNNER_SETTINGS: dict[str, Settings] = {
    "pytest": _PYTEST_SETTINGS,
    "py.test": _PYTEST_SETTINGS,
    "tox": dict.fromkeys(("tox.ini", "tox.toml", "setup.cfg", "pyproject.toml")),
    "nox": {"noxfile.py": frozenset()},
    "pylint": dict.fromkeys(("pylintrc", ".pylintrc", "pyproject.toml", "setup.cfg", "tox.ini")),
    "sqlfluff": dict.fromkeys(
        (".sqlfluff", "setup.cfg", "tox.ini", "pyproject.toml"), _SQLFLUFF_WORDS
    ),
    "npm": _NPM_SETTINGS,
    "pnpm": _NPM_SETTINGS,
    "yarn": {**_NPM_SETTINGS, ".yarnrc": None, ".yarnrc.yml": None},
}

# Options naming a file a runner reads as one of its settings files above, each with what
# makes a visible text in it ask (as there): pytest's `-c`/`--config-file` (pytest docs,
# "Configuration"), pylint's `--rcfile`, sqlfluff's `--config` (an extra config file, read
# last), npm's `--userconfig` and `--globalconfig` (npm docs, "config"). A step of the same
# line that writes that file asks as one writing `pytest.ini` does (`flows`).
SETTINGS_OPTIONS: dict[str, Settings] = {
    **dict.fromkeys(("pytest", "py.test"), dict.fromkeys(("-c", "--config-file"))),
    "pylint": {"--rcfile": None},
    "sqlfluff": {"--config": _SQLFLUFF_WORDS},
    **dict.fromkeys(("npm", "pnpm", "yarn"), dict.fromkeys(("--userconfig", "--globalconfig"))),
}

# Console scripts that import Python modules by the names they are given, as `python -m
# MODULE` does (`flows`): `django-admin` imports the settings module (`--settings`,
# `DJANGO_SETTINGS_MODULE`) and the apps it lists from `sys.path`, `--pythonpath DIR`
# first (Django docs, "django-admin and manage.py"). Each with the options that name a
# folder it imports from; where it runs counts too (`PYTHONPATH` may hold `.`).
# `pytest` imports each test module it collects, and in its default `prepend` import mode
# first puts the module's basedir (the first folder upwards without an `__init__.py`) at
# the front of `sys.path` (pytest docs, "pytest import mechanisms and sys.path/PYTHONPATH"):
# a `test_x.py` or a `json.py` written where it runs is imported as under `python -m
# pytest`, which puts that folder first on `sys.path` too.
PYTHON_IMPORTERS: dict[str, frozenset[str]] = {
    "django-admin": frozenset({"--pythonpath"}),
    **dict.fromkeys(("pytest", "py.test"), frozenset()),
}
# Test runners that import each file their operands name as a test module, and collect the
# test modules below each folder they name (pytest docs, "How to invoke pytest": `pytest
# test_mod.py`, `pytest test_mod.py::test_func`, `pytest testing/`; `python -m unittest
# tests/test_x.py` imports the file too, unittest docs "Command-Line Interface"): a Python
# file written there in the same line runs, as `python3 x.py` runs `x.py` (`flows`).
RUNS_OPERANDS: frozenset[str] = frozenset({"pytest", "py.test", "unittest"})
