"""Complete vocabularies: every option the installed program lists is in its table.

For each program table with a `source` (a complete table, see docs/shell.md "Program
vocabularies"), the installed program's help is read (one subprocess per program, cached
for the session; `LC_ALL=C`, `HOME` isolated, a timeout) and every option it lists must be
in the table; an option the help says takes a value must take one in the table too (read
as a flag, its value would count as an operand and an option such as `--output FILE`
would pass unjudged). A program that is not installed, or whose help lists nothing, is
skipped: the test runs against whatever the machine has.

The tables are also checked without any program: an option whose name says it runs
something has the `exec` role, and one whose name says it names a file has a file role.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.engine import evaluate
from safehold.policy.sandbox_config import SandboxConfig
from safehold.policy.shell.programs import MODULES, PROGRAMS
from safehold.policy.shell.programs.table import PARSERS, ROLES, Program
from tests.help_options import HelpStyle, help_options

# How to ask a program for its options, when `NAME --help` is not the way.
_HELP_COMMANDS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("echo",): ("bash", "-c", "help echo"),
    ("awk",): ("awk", "-W", "usage"),
    ("mawk",): ("mawk", "-W", "usage"),
    # kubectl's `--help` lists only a subcommand's own options; the global ones, which
    # every subcommand takes, are listed by `kubectl options`.
    ("kubectl",): ("kubectl", "options"),
    ("ps",): ("ps", "--help", "all"),  # `ps --help` lists only the help topics
    # The short helps list the common options only.
    ("curl",): ("curl", "--help", "all"),
    ("xz",): ("xz", "--long-help"),
    ("unxz",): ("xz", "--long-help"),
    ("lzma",): ("xz", "--long-help"),
    ("unlzma",): ("xz", "--long-help"),
    ("xzcat",): ("xz", "--long-help"),
    ("lzcat",): ("xz", "--long-help"),
    ("unzip",): ("unzip", "-hh"),
}
_STYLES: dict[str, HelpStyle] = {"find": "find", "python": "python", "python3": "python"}
# The help a parser family prints: cobra's usage lines for Go's pflag (docker, kubectl).
_PARSER_STYLES: dict[str, HelpStyle] = {"pflag": "cobra"}
# Words a help text spells like options that are not options: `cut`'s range `-M`.
_NOT_OPTIONS: dict[tuple[str, ...], frozenset[str]] = {
    ("cut",): frozenset({"-M"}),
    ("numfmt",): frozenset({"-M"}),  # `--field=-M`: a range of fields
    ("git", "fetch"): frozenset({"--contains"}),  # `git branch -a --contains`, in prose
    # zstd's `-#` is a level (`-19`), `-b#` a glued number: placeholders, not names.
    **{
        (name,): frozenset({"-#", "-b#", "-e#", "-i#", "-T#", "-B#", "-M#"})
        for name in ("zstd", "unzstd", "zstdcat")
    },
}
# Options left out of a table on purpose, so that they ask: the reason is in the table.
_LEFT_OUT: dict[tuple[str, ...], frozenset[str]] = {
    ("file",): frozenset({"-C", "--compile"}),  # writes NAME.mgc into the current directory
    ("patch",): frozenset({"-e", "--ed", "-g", "--get"}),  # run ed (`!cmd`), or RCS/git
    ("date",): frozenset({"-s", "--set"}),  # sets the system clock
    ("hostname",): frozenset({"-F", "--file", "-b", "--boot"}),  # set the host name
    ("git", "grep"): frozenset({"-O", "--open-files-in-pager"}),  # runs a pager program
    ("tar",): frozenset({"--checkpoint-action"}),  # `exec=CMD` runs a command
    # An OpenSSL engine by name or path (native code), a socket no path names, an FTP
    # command string.
    ("curl",): frozenset({"--engine", "--abstract-unix-socket", "--ftp-alternative-to-user"}),
    # Start the configured editor, a program named by config or the environment.
    ("git", "add"): frozenset({"-e", "--edit"}),
    ("git", "commit"): frozenset({"-e", "--edit"}),
    ("git", "tag"): frozenset({"-e", "--edit"}),
    ("git", "branch"): frozenset({"--edit-description"}),
    # The program that serves the fetch (run here for a local repository); the URL recorded
    # as the branch's upstream, where a later bare `git push` sends.
    ("git", "fetch"): frozenset({"--upload-pack", "--set-upstream"}),
    ("git", "pull"): frozenset({"--upload-pack", "--set-upstream", "-e", "--edit"}),
    # Set any ini value (`cache_dir` anywhere); send the results to a web service.
    ("pytest",): frozenset({"-o", "--override-ini", "--pastebin"}),
    # A makefile statement given as text; write every target.
    ("make",): frozenset({"-E", "--eval", "-t", "--touch"}),
    ("gmake",): frozenset({"-E", "--eval", "-t", "--touch"}),
    ("py.test",): frozenset({"-o", "--override-ini", "--pastebin"}),
    # A daemon elsewhere (another machine's root, or `ssh://`), a client config that names
    # credential helpers docker runs (programs/docker.py).
    ("docker",): frozenset({"-H", "--host", "--config"}),
    # A kubeconfig's `exec` plugin runs a command; `--server` gets the current credentials;
    # impersonation (programs/kubectl.py). Files and raw API paths may name Secrets.
    ("kubectl",): frozenset(
        {"--kubeconfig", "-s", "--server", "--as", "--as-group", "--as-uid"}
        | {"--insecure-skip-tls-verify"}  # the user's credentials over an unchecked TLS link
    ),
    ("kubectl", "get"): frozenset({"-f", "--filename", "-k", "--kustomize", "--raw"}),
    ("kubectl", "describe"): frozenset({"-f", "--filename", "-k", "--kustomize"}),
    ("kubectl", "wait"): frozenset({"-f", "--filename"}),
    ("kubectl", "config", "view"): frozenset({"--raw", "--flatten"}),
    # Run code, import plugins or native modules, or name files inside a list or a value.
    ("pylint",): frozenset(
        {"--init-hook", "--evaluation", "--load-plugins", "--extension-pkg-allow-list"}
        | {"--extension-pkg-whitelist", "-f", "--output-format", "--files", "--source-roots"}
    ),
    # Templaters and library paths import Python; a suffix computes the written name.
    **{
        ("sqlfluff", sub): frozenset({"-t", "--templater", "--library-path"})
        | (frozenset({"-x", "--fixed-suffix"}) if sub in ("fix", "format") else frozenset())
        for sub in ("lint", "fix", "format", "parse", "render")
    },
    **{
        ("pip", sub): frozenset(
            {"--python", "--keyring-provider", "--trusted-host", "-f", "--find-links"}
        )
        for sub in ("install", "list", "show", "freeze")
    },
    **{
        ("pip3", sub): frozenset(
            {"--python", "--keyring-provider", "--trusted-host", "-f", "--find-links"}
        )
        for sub in ("install", "list", "show", "freeze")
    },
}
# go and gh: left out of every table of theirs (see `golang` and `github_cli`): flags that
# run a program or pass flags to the compiler and linker; jq with `$ENV`, Go templates,
# browsers and editors, gh's token and host options.
_GO_LEFT_OUT = frozenset(
    {"-toolexec", "-exec", "-vettool", "-fixtool", "-ldflags", "-gcflags", "-asmflags"}
    | {"-gccgoflags", "-http", "-overlay"}
)
_GH_LEFT_OUT = frozenset(
    {"-q", "--jq", "-t", "--template", "-w", "--web", "-e", "--editor", "--admin"}
    | {"--show-token", "--hostname", "--verbose"}
)
for _name, _left in (("go", _GO_LEFT_OUT), ("gh", _GH_LEFT_OUT)):
    _stack: list[tuple[tuple[str, ...], Program]] = [((_name,), PROGRAMS[_name])]
    while _stack:
        _path, _program = _stack.pop()
        _LEFT_OUT[_path] = _LEFT_OUT.get(_path, frozenset()) | _left
        _stack += [((*_path, k), v) for k, v in _program.subcommands.items()]
# The environment a program's help is asked in: pytest without the plugins this machine
# happens to have (their options depend on the project, so the table lists none).
_HELP_ENV: dict[str, tuple[tuple[str, str], ...]] = {
    "pytest": (("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1"),),
    "py.test": (("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1"),),
    # Django's `test`, `check`, … read settings to build their parsers: its defaults.
    "django-admin": (("DJANGO_SETTINGS_MODULE", "django.conf.global_settings"),),
    "-m": (("DJANGO_SETTINGS_MODULE", "django.conf.global_settings"),),
}


def _complete_tables() -> Iterator[tuple[tuple[str, ...], Program]]:
    """(command path, table) for every complete table, subcommands included."""

    seen: set[tuple[str, int]] = set()

    def walk(path: tuple[str, ...], program: Program) -> Iterator[tuple[tuple[str, ...], Program]]:
        # An alias (`docker container ls`, `list`, `ps`, `docker ps`) shares its command's
        # table: its help is the same, read once, under the first name.
        if program.source and (path[0], id(program)) not in seen:
            seen.add((path[0], id(program)))
            yield path, program
        for sub, table in program.subcommands.items():
            yield from walk((*path, sub), table)

    for name, program in sorted(PROGRAMS.items()):
        yield from walk((name,), program)
    for name, program in sorted(MODULES.items()):  # `python3 -m unittest`
        yield from walk(("-m", name), program)


_TABLES = list(_complete_tables())


def _help_command(path: tuple[str, ...], program: Program) -> tuple[tuple[str, ...], HelpStyle]:
    """How to ask for `path`'s options: its `--help`, or git's man page (`-h` lists few)."""
    if program.parser in _PARSER_STYLES:
        return _HELP_COMMANDS.get(path, (*path, "--help")), _PARSER_STYLES[program.parser]
    if path in _HELP_COMMANDS:
        return _HELP_COMMANDS[path], "gnu"
    if path[0] == "-m":  # a module: `python3 -m unittest --help`
        return ("python3", *path, "--help"), "gnu"
    if len(path) > 1:
        if path[0] == "git" and shutil.which("man") is not None:
            return ("man", "-P", "cat", "-".join(path)), "man"
        if path[0] != "git":
            return (*path, "--help"), "gnu"  # `pip install --help`
        return (*path, "-h"), "gnu"  # git's parse-options
    return (path[0], "--help"), _STYLES.get(path[0], "gnu")


_HELPS: dict[tuple[object, ...], str | None] = {}
_DIGESTS: dict[tuple[str, int, int], str] = {}


def _digest(path: str) -> str:
    """The program file's hash, once per file: docker and kubectl are 40-60 MB, asked for
    the help of a hundred subcommands."""
    info = os.stat(path)
    key = (os.path.realpath(path), info.st_size, info.st_mtime_ns)
    if key not in _DIGESTS:
        with open(path, "rb") as f:
            _DIGESTS[key] = hashlib.sha256(f.read()).hexdigest()
    return _DIGESTS[key]


def _help_text(
    argv: tuple[str, ...], home: str, extra: tuple[tuple[str, str], ...] = ()
) -> str | None:
    """The help a program prints (stdout and stderr), or None when it cannot be had.

    Asked once per program file and arguments: `pip3` and `pip`, `py.test` and `pytest` are
    the same script under two names, and list the same options."""
    found = shutil.which(argv[0])
    if found is None:
        return None
    key = (_digest(found), argv[1:], home, extra)
    if key in _HELPS:
        return _HELPS[key]
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", ""), "HOME": home, "COLUMNS": "80"}
    env["MANWIDTH"] = "200"
    env |= dict(extra)
    env |= {k: home for k in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME")}
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, env=env, timeout=20, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        text = None
    else:
        text = done.stdout + done.stderr
    _HELPS[key] = text
    return text


@pytest.fixture(scope="session")
def help_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("help-home")


@pytest.mark.parametrize(("path", "program"), _TABLES, ids=[" ".join(p) for p, _ in _TABLES])
def test_table_lists_every_option_the_help_lists(
    path: tuple[str, ...], program: Program, help_home: Path
) -> None:
    argv, style = _help_command(path, program)
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} is not installed")
    text = _help_text(argv, str(help_home), _HELP_ENV.get(path[0], ()))
    listed = help_options(text or "", style)
    ignored = _NOT_OPTIONS.get(path, frozenset()) | _LEFT_OUT.get(path, frozenset())
    listed = {k: v for k, v in listed.items() if k not in ignored}
    if not listed:
        pytest.skip(f"`{' '.join(argv)}` lists no options here")
    missing = sorted(name for name in listed if name not in program.options)
    assert not missing, (
        f"{' '.join(path)} ({program.source}): the installed program lists options the "
        f"table lacks: {' '.join(missing)}"
    )
    if style == "find":
        return  # find's list does not spell every value it takes
    as_flags = sorted(
        name
        for name, arity in listed.items()
        if arity != "flag" and not program.options[name].takes
    )
    assert not as_flags, f"{' '.join(path)}: options that take a value read as flags: {as_flags}"


def test_the_help_reader_reads_each_style() -> None:
    gnu = (
        "  -A, --after-context=NUM   print NUM lines\n"
        "      --color[=WHEN]        use markers\n"
        "  -p NUM  --strip=NUM  Strip NUM leading components.\n"
        "    --decorate-refs <pattern>\n"
        "    --name-status show names and status\n"
        "  -NUM                      same as --context=NUM\n"
        "Usage: -x is not a line that lists options\n"
    )
    assert help_options(gnu) == {
        "-A": "value",
        "--after-context": "value",
        "--color": "optional",
        "-p": "value",
        "--strip": "value",
        "--decorate-refs": "value",
        "--name-status": "flag",
    }
    python = "-c cmd : program passed in as string\n-B     : don't write .pyc files\n"
    assert help_options(python, "python") == {"-c": "value", "-B": "flag"}
    find = "      -newer FILE -delete -exec COMMAND ; -print. -and\n"
    assert help_options(find, "find") == {
        "-newer": "value",
        "-delete": "flag",
        "-exec": "value",
        "-and": "flag",
    }


def test_the_help_reader_reads_cobra_help() -> None:
    """pflag's usage lines (docker) and kubectl's template: type names and defaults."""
    pflag = (
        "Options:\n"
        "  -a, --all             Show all containers (default shows just running)\n"
        "  -f, --filter filter   Filter output based on conditions provided\n"
        "      --format string   Format output using a custom template:\n"
        "                        'table':            Print output in table format\n"
        '      --detach-keys string[="ctrl-p"]   Override the key sequence\n'
        "      --level[=2]        An optional value without a type name\n"
        "  -n, --last int        Show n last created containers (default -1)\n"
    )
    assert help_options(pflag, "cobra") == {
        "-a": "flag",
        "--all": "flag",
        "-f": "value",
        "--filter": "value",
        "--format": "value",
        "--detach-keys": "optional",
        "--level": "optional",
        "-n": "value",
        "--last": "value",
    }
    kubectl = (
        "Options:\n"
        "    -A, --all-namespaces=false:\n"
        "\tIf present, list the requested object(s) across all namespaces.\n"
        "    --chunk-size=500:\n"
        "    -o, --output='':\n"
        "    --allow-missing-template-keys=true:\n"
        "    --as-group=[]:\n"
        "  -f, --filename=[]: prose is not an option line unless it ends with a colon\n"
    )
    assert help_options(kubectl, "cobra") == {
        "-A": "flag",
        "--all-namespaces": "flag",
        "--chunk-size": "value",
        "-o": "value",
        "--output": "value",
        "--allow-missing-template-keys": "flag",
        "--as-group": "value",
    }


# The words of an option's name that say its value runs (`--compress-program`, `--rsh`)
# or names a file (`--output`, `--exclude-from`, `--temporary-directory`).
_RUNS = frozenset({"command", "program", "exec", "cmd", "rsh", "pager", "editor", "hook"})
# `go doc -cmd` is a boolean (show package main's symbols); Go's booleans take an optional
# glued value (`-cmd=false`), so they read as options with a value. docker's
# `--health-cmd` runs inside the container (the run itself asks on the host).
_RUNS_NOT = frozenset({"--exec-path", "-cmd", "--cmd", "--health-cmd"})
_FILES = frozenset(
    {"file", "output", "dir", "directory", "path", "from", "template", "input", "rootdir"}
)
# Options whose name says "file" but whose value names none (a separator, a format).
_FILES_NOT = frozenset(
    {
        "--output-delimiter",
        "--output-error",
        "--output-indicator-new",  # git: the character marking new lines
        "--output-indicator-old",
        "--output-indicator-context",
        "-path",  # find: a pattern on names
        "-ipath",
        "--ancestry-path",  # git log: a commit
        "--git-path",  # git rev-parse: prints a path, opens nothing
        "--path-format",
        "--exclude-per-directory",  # git ls-files: a file name looked up in each directory
        "--from",
        "--output",  # df --output=FIELDS
        "--starting-file",  # diff -S NAME: a name inside the compared directories
        "--exclude-dir",  # grep: a glob on names
        "--dirstat-by-file",  # git: parameters of the statistics
        "--msg-template",  # pylint: the format of a message line
        "--volumes-from",  # docker: a container whose volumes are shared
        "--cache-from",  # docker build: images used as cache
        "--mail-from",  # curl: an e-mail address
    }
)


def _tokens(name: str) -> set[str]:
    return set(name.lstrip("-").lower().replace("_", "-").split("-"))


def _last_token(name: str) -> str:
    """`--exclude-from` → `from`: the word that says what the value is."""
    return name.lstrip("-").lower().replace("_", "-").rsplit("-", 1)[-1]


@pytest.mark.parametrize(("path", "program"), _TABLES, ids=[" ".join(p) for p, _ in _TABLES])
def test_option_roles_follow_what_the_option_names(path: tuple[str, ...], program: Program) -> None:
    assert program.parser in PARSERS
    wrong: list[str] = []
    for name, opt in program.options.items():
        assert opt.role is None or opt.role in ROLES
        if not opt.takes:
            continue
        tokens = _tokens(name)
        if tokens & _RUNS and name not in _RUNS_NOT and opt.role != "exec":
            wrong.append(f"{name} runs its value but has role {opt.role}")
        elif _last_token(name) in _FILES and name not in _FILES_NOT and opt.role is None:
            wrong.append(f"{name} names a file but has no role")
    assert not wrong, f"{' '.join(path)}: {'; '.join(wrong)}"


_EVERYDAY = [
    "head -20 src/main.py",
    "tail -50 src/main.py",
    "nl -ba src/main.py | sed -n '1,40p'",
    "grep -B5 -A10 -n foo src/main.py",
    "git log -5 --stat --oneline",
    "git show HEAD --name-only",
    "ls --color=auto -la src",
    "sed -i.bak s/a/b/ src/main.py",
    "python -m pytest -xvs src/main.py",
    "pip list --format=json",
    "git stash list",
    "python -m py_compile src/main.py",
    "python3 -m unittest -v src.main",
]


@pytest.mark.parametrize("command", _EVERYDAY)
def test_everyday_spellings_stay_allowed_on_the_host(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The complete tables read what agents type as they mean it: allowed without a sandbox."""
    work = tmp_path / "proj"
    (work / "src").mkdir(parents=True)
    (work / "src" / "main.py").write_text("x = 1\n")
    monkeypatch.setenv("HOME", str(tmp_path))
    config = SafetyConfig(sandbox=SandboxConfig(mode="none")).with_mode("auto")
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    decision = evaluate(config, call, workspace=str(work), runner="host")
    assert decision.verdict is Verdict.ALLOW, decision.reasons
