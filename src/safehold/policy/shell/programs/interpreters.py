"""Interpreters: inline code (`python -c`, `perl -e`) cannot be analysed; stdin programs neither."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from safehold.policy.shell.programs import python_tools
from safehold.policy.shell.programs.js_runtimes import BUN, DENO
from safehold.policy.shell.programs.shells import SHELL_ARG_OPTS, SHELLS, stdin_program
from safehold.policy.shell.programs.step import Step, StepFn, opaque
from safehold.policy.shell.programs.table import Opt, Program, resolve_option
from safehold.policy.shell.words import Word

__all__ = [
    "INTERPRETERS",
    "OPTION_TABLES",
    "PROGRAMS",
    "PYTHON",
    "SCRIPT_FILE_OPERANDS",
    "SCRIPT_FILE_OPTIONS",
    "SCRIPT_SUFFIXES",
    "SETUP_FETCHES",
    "SETUP_PUBLISHES",
    "STEPS",
    "program_family",
    "python_module",
    "script_operand",
]

# Interpreters that read a program from stdin when given no script.
INTERPRETERS = SHELLS | frozenset(
    {"python", "python2", "python3", "perl", "ruby", "node", "nodejs", "php", "lua", "tclsh"}
    # Shells bash cannot read, and runtimes with an inline-code flag.
    | {"fish", "csh", "tcsh", "nu", "elvish", "xonsh", "pwsh", "powershell", "rc"}
    | {"bun", "deno", "Rscript", "R", "julia", "expect", "osascript", "groovy", "scala"}
)
# Interpreters' flags whose argument is inline code that cannot be analysed.
_INLINE_CODE = {
    "python": ("-c",),
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "node": ("-e", "--eval", "-p", "--print"),
    "php": ("-r",),
    "lua": ("-e",),
    "fish": ("-c", "--command", "-C", "--init-command"),
    "csh": ("-c",),
    "tcsh": ("-c",),
    "nu": ("-c", "--commands", "-e", "--execute"),
    "elvish": ("-c",),
    "xonsh": ("-c",),
    "rc": ("-c",),
    # PowerShell takes any unambiguous prefix of a parameter, in any case (compared lowered).
    "pwsh": ("-c", "-command", "-commandwithargs", "-cwa", "-e", "-ec", "-encodedcommand"),
    "powershell": ("-c", "-command", "-commandwithargs", "-cwa", "-e", "-ec", "-encodedcommand"),
    "bun": ("-e", "--eval", "-p", "--print"),
    "deno": ("eval",),
    "Rscript": ("-e",),
    "R": ("-e",),
    "julia": ("-e", "--eval", "-E", "--print"),
    "expect": ("-c",),
    "osascript": ("-e",),
    "groovy": ("-e",),
    "scala": ("-e",),
}


@functools.lru_cache(maxsize=1024)
def program_family(name: str) -> str:
    """The interpreter family of a program name: `python3.12` is `python`, `nodejs` is `node`."""
    for base in ("python", "node", "perl", "ruby", "php", "lua"):
        if name.startswith(base) and name[len(base) :].replace(".", "").isdigit():
            return base
    return "node" if name == "nodejs" else name


# Interpreters' options that take the next word as their value (`python -W ignore -c …`).
_INTERPRETER_ARG_OPTIONS = {
    "python": ("-W", "-X", "--check-hash-based-pycs"),
    "node": (
        "-r", "--require", "--import", "--loader", "--experimental-loader", "-C",
        "--conditions", "--input-type", "--env-file", "--title", "--inspect-port",
    ),
    "perl": ("-I", "-M", "-m"),
    "ruby": ("-I", "-r", "-C", "-X", "-E", "--encoding"),
    "php": ("-d", "-c", "-z", "-t"),
    "lua": ("-l",),
    "julia": ("-t", "--threads", "-p", "--procs", "-J", "--sysimage", "-L", "--load"),
}  # fmt: skip


# Flags after which the interpreter prints something and exits without reading a program
# (`--version` and `--help` for every interpreter, besides these).
_NO_PROGRAM = {
    "python": ("-V", "-VV", "-h", "-?", "--help-env", "--help-xoptions", "--help-all"),
    "node": ("-v", "-h", "--v8-options"),
    "perl": ("-v", "-V", "-h"),
    "ruby": ("-h",),
    "php": ("-v", "-h", "-i", "-m"),
    "lua": ("-v",),
    "deno": ("-V", "-h"),
    "bun": ("-v", "-h"),
    "julia": ("-v", "-h"),
}


def _interpreter(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    code_flags = _INLINE_CODE.get(name, ())
    arg_options = _INTERPRETER_ARG_OPTIONS.get(name, ())

    def is_code(t: str) -> bool:
        return t in code_flags or (
            t.startswith("-")
            and not t.startswith("--")
            and any(f[1] in t[1:] for f in code_flags if len(f) == 2)
        )

    def code_at(at: int) -> Word:
        """The code a code flag at `at` gives: the next word, or the rest of its cluster."""
        t = texts[at]
        value = words[at + 1] if at + 1 < len(words) else Word("", True)
        if t not in code_flags:  # a cluster: `-pe CODE`, or the code glued on, `-cCODE`
            k = next(k for k in range(1, len(t)) if any(f == "-" + t[k] for f in code_flags))
            glued = words[at].text[k + 1 :]
            value = Word(glued, words[at].static) if glued else value
        return value

    def inline(at: int) -> Step:
        # Every code flag's value is code (`perl -ne 'print' -e 'open F, ".env"'`).
        code = [code_at(at)]
        code += [
            code_at(j) for j in range(at + 1, len(words)) if words[j].static and is_code(texts[j])
        ]
        if not all(w.static for w in code):
            return Step(
                opaque=opaque(
                    "dynamic-script", f"{name} {texts[at][:2]}", f"`{name}` runs computed code"
                )
            )
        return Step(
            opaque=opaque(
                "inline-code",
                f"{name} {texts[at][:2]}",
                f"`{name}` runs inline code that is not analysed",
            ),
            code=tuple(w.text for w in code),
        )

    texts = [w.text.lower() if name in ("pwsh", "powershell") else w.text for w in words]
    # `python -i SCRIPT` (or `-i -m MOD`) reads more code from standard input once the
    # script ends (python(1), "-i": "even when sys.stdin does not appear to be a
    # terminal"): a program from stdin, as `python -` is.
    inspects = name == "python" and _python_inspects(words)
    computed = False
    i = 1
    while i < len(words):
        t = texts[i]
        if i == 1 and t == _RUN_SUBCOMMAND.get(name) and words[i].static:
            i += 1  # `deno run [OPTIONS] SCRIPT`, `bun run -`: the script follows `run`
            continue
        if not words[i].static:
            computed = True  # an option value, or the script itself: `python $f`
            i += 1
            continue
        if is_code(t):
            return inline(i)
        if not t.startswith("-") and t in _DEBUGGERS.get(name, ()) and stdin_fed:
            # `echo "exec('…')" | node inspect app.js`: the debugger's commands run code.
            return stdin_program(f"{name} {t}", stdin_fed)
        if not t.startswith("-"):
            # The script, or the value of an option not in the table: a code flag right
            # after it leaves both readings open, so it counts (`node --opt v -e code`).
            after = texts[i + 1] if i + 1 < len(words) else ""
            if i > 1 and texts[i - 1].startswith("-") and is_code(after):
                return inline(i + 1)
            return stdin_program(name, stdin_fed) if inspects else None
        if t == "-":
            break
        if t in _NO_PROGRAM.get(name, ()) or t in ("--version", "--help"):
            return None  # prints a version or help text and exits: no program is read
        if name == "python" and t == "-m":
            if inspects:
                return stdin_program(name, stdin_fed)
            module = words[i + 1] if i + 1 < len(words) else None
            # `python -m pytest --pdb`: the module's own step (`runners._pytest`).
            step = MODULE_STEPS.get(module.text) if module is not None else None
            return step(module.text, words[i + 1 :], stdin_fed) if step and module else None
        # The value of an option is skipped, unless it is itself a code flag.
        i += 2 if t in arg_options and not is_code(texts[min(i + 1, len(texts) - 1)]) else 1
    if computed:
        # `for f in *.py; do python $f; done`: the script is computed, and word splitting
        # can make it `-c CODE`: code nobody saw, never allowed unasked.
        return Step(opaque=opaque("dynamic-script", name, f"`{name}` runs a computed script"))
    return stdin_program(name, stdin_fed)


STEPS: dict[str, StepFn] = dict.fromkeys(INTERPRETERS - SHELLS, _interpreter)
# Subcommands that start a debugger reading its commands from standard input (Node.js
# "Debugger": `node inspect script.js`, `exec expr` evaluates in the script; `debug` is its
# old name).
_DEBUGGERS: Mapping[str, frozenset[str]] = {"node": frozenset({"inspect", "debug"})}
# Steps of modules `python -m NAME` runs that read a program of their own.
MODULE_STEPS: Mapping[str, StepFn] = python_tools.STEPS


_CODE = Opt(takes=True)
_GLUED = Opt(takes=True, optional=True)
# `perl -i -pe CODE FILE…` and `ruby -i -pe CODE FILE…` rewrite their files, as `sed -i`.
# A value only glued on (perlrun: `-C[number/list]`, `-Fpattern`, `-x[directory]`; `ruby
# -h`: `-Fpattern`, `-x[directory]`) is no option's when it is the next word: that word is
# the script (`perl -i -x s.pl .git/config` edits `.git/config`). `-x DIR`, ruby's `-C
# DIR` and `-X DIR` change directory before the script's files are opened (ruby's before
# the script itself is: ruby.c, `proc_options`).
_PERL = Program(
    options={"-e": _CODE, "-E": _CODE, "-i": Opt(mode="inplace"), "-I": _CODE, "-M": _CODE,
             "-m": _CODE, "-C": _GLUED, "-F": _GLUED,
             "-x": Opt(takes=True, optional=True, role="cwd"),
             **{f"-{c}": Opt() for c in "pnlawsTtWXc0"}},
    operands="read",
    skip=1,
    unskip=frozenset({"-e", "-E"}),
    modes={"inplace": Program(operands="write", skip=1)},
)  # fmt: skip
_CHDIR = Opt(takes=True, role="cwd")
_RUBY = Program(
    options={"-e": _CODE, "-i": Opt(mode="inplace"), "-I": _CODE, "-r": _CODE, "-E": _CODE,
             "-C": _CHDIR, "-X": _CHDIR, "-x": Opt(takes=True, optional=True, role="cwd"),
             "-F": _GLUED, **{f"-{c}": Opt() for c in "pnlawsTtWc0"}},
    operands="read",
    skip=1,
    unskip=frozenset({"-e"}),
    modes={"inplace": Program(operands="write", skip=1)},
)  # fmt: skip
PROGRAMS: dict[str, Program] = {"perl": _PERL, "ruby": _RUBY}


# Runtimes whose script follows a subcommand (`deno run x.ts`, `bun run x.ts`).
_RUN_SUBCOMMAND = {"deno": "run", "bun": "run"}


def script_operand(name: str, words: tuple[Word, ...]) -> int | None:
    """The index of the script file an interpreter or shell runs: `python -u x.py` is 2.

    None when it runs inline code, a module (`python -m`), standard input, or nothing. Read
    with the same option data as `_interpreter` (and `SHELL_ARG_OPTS` for shells).
    """
    family = program_family(name)
    if family not in INTERPRETERS:
        return None
    code_flags = _INLINE_CODE.get(family, ())
    arg_options = _INTERPRETER_ARG_OPTIONS.get(family, ())
    if family in SHELLS:
        code_flags, arg_options = ("-c",), tuple(SHELL_ARG_OPTS)
    if family == "python":
        return _python_script(words)
    i = 1
    while i < len(words):
        t = words[i].text
        if t in code_flags or t in ("-", "--version"):
            return None
        if t == "--":
            return i + 1 if i + 1 < len(words) else None
        if t == _RUN_SUBCOMMAND.get(family) and words[i].static:
            i += 1  # `deno run [OPTIONS] SCRIPT`: the script follows run's own options
            continue
        if not t.startswith(("-", "+")) or not words[i].static:
            return i
        if family in SHELLS and not t.startswith("--") and "c" in t[1:]:
            return None  # `sh -ec CODE`
        i += 2 if t in arg_options else 1
    return None


def _python_inspects(words: tuple[Word, ...]) -> bool:
    """Whether Python's own options (before the script, `-c` or `-m`, read with its table
    as `_python_script` reads them) hold `-i`, alone or in a cluster (`-ui`, `-im MOD`)."""
    i = 1
    while i < len(words):
        word = words[i]
        t = word.text
        if not word.static or not t.startswith("-") or t in ("-", "--"):
            return False
        resolved = resolve_option(PYTHON, t)
        names = {name for name, _opt in resolved.flags}
        if "-i" in names:
            return True
        if names & {"-c", "-m"}:
            return False
        i += 2 if resolved.takes else 1
    return False


def _python_script(words: tuple[Word, ...]) -> int | None:
    """`script_operand` for Python, its options read with its table (`PYTHON`, as CPython's
    getopt reads them): a cluster ends in an option that takes the rest of the word or the
    next one (`-bW ignore x.py`, `-uX dev x.py`: `ignore` and `dev` are values, `x.py` is
    the script); `-c` and `-m` anywhere in a cluster (`-uc CODE`) end them with no script."""
    i = 1
    while i < len(words):
        word = words[i]
        t = word.text
        if t == "--":
            return i + 1 if i + 1 < len(words) else None
        if not word.static or not t.startswith("-") or t == "-":
            return i if t != "-" else None
        resolved = resolve_option(PYTHON, t)
        if any(name in ("-c", "-m") for name, _opt in resolved.flags):
            return None
        if any(name in _PRINTS_AND_EXITS for name, _opt in resolved.flags):
            return None
        i += 2 if resolved.takes else 1
    return None


_PRINTS_AND_EXITS = frozenset({"--version", "-V", "--help", "-h", "-?", "--help-all"})


# Interpreters' own options, for the closed world (`effects.host_effects`): an option
# word not listed here is not understood. Python's parser reads clusters (`-uB`, `-Wignore`)
# and no abbreviations; `-c` and `-m` end its options (the step reads `-c`; `-m MODULE`'s
# words are the module's, see `python_module`).
_FLAG = Opt()
PYTHON = Program(
    options={
        **{f"-{c}": _FLAG for c in "bBdEhiIOPqsSuvVx?"},
        "-c": Opt(takes=True),
        "-m": Opt(takes=True),
        "-W": Opt(takes=True),
        "-X": Opt(takes=True),
        "--check-hash-based-pycs": Opt(takes=True),
        **dict.fromkeys(("--help", "--version", "--help-env", "--help-xoptions"), _FLAG),
        "--help-all": _FLAG,
    },
    parser="getopt",
    options_first=True,
    stop_at=0,
    source="Python 3.11.7 (python3 --help)",
)
# `python setup.py COMMAND`: setuptools commands that do more than build in the workspace
# (setuptools' and distutils' command list): `install`/`develop`/`easy_install` fetch the
# package's dependencies and install them (code downloaded and run), `upload`/`register`/
# `upload_docs` publish the package.
SETUP_FETCHES = frozenset({"install", "develop", "easy_install", "bdist_egg"})
SETUP_PUBLISHES = frozenset({"upload", "register", "upload_docs"})

# Interpreters and editors with no table here: every option word is not understood.
OPTION_TABLES: dict[str, Program] = {"python": PYTHON, "deno": DENO, "bun": BUN}


def python_module(words: tuple[Word, ...]) -> tuple[int, str] | None:
    """`python … -m MODULE ARGS…`: where the module's own words start, and its name.

    None when there is no `-m` (or a `-c` or a script comes first, or a word is computed).
    """
    i = 1
    while i < len(words):
        word = words[i]
        t = word.text
        if not word.static or not t.startswith("-") or t.startswith("--") or t == "-":
            return None
        for k in range(1, len(t)):
            letter, rest = t[k], t[k + 1 :]
            if letter == "c":
                return None
            if letter in "mWX":
                if not rest:
                    i += 1  # the value is the next word
                    if i >= len(words):
                        return None
                    rest = words[i].text
                if letter == "m":
                    return i + 1, rest
                break
        i += 1
    return None


# Options whose value is a file the program reads as its own program, by the option name its
# table resolves the word to (prefixes and glued values: `awk -fx.awk`, `gawk --fil=x.awk`,
# `sed -nfx.sed`; gawk's `-E FILE`/`--exec FILE` is `-f` that ends the options), with the
# suffix the program also tries: gawk's `-f NAME` and `-i NAME` load NAME, or NAME.awk when
# NAME is not found ("the path is searched again after adding the suffix '.awk'", gawk
# manual, "The AWKPATH Environment Variable"; `awk` is gawk on many systems). A downloaded program file runs as much
# as a script operand does: gawk's `system()`, sed's `e` command, a Makefile's recipes.
# gawk 5 manual, "Options"; GNU sed 4.9 `--help` (`-f script-file`); GNU Make 4.3 make(1)
# (`-f FILE`, `--file=FILE`, `--makefile=FILE` read FILE as a makefile).
_AWK_FILES: Mapping[str, str] = {
    "-f": ".awk",
    "--file": ".awk",
    "-E": ".awk",
    "--exec": ".awk",
    "-i": ".awk",
    "--include": ".awk",
}
_SED_FILES: Mapping[str, str] = {"-f": "", "--file": ""}
_MAKE_FILES: Mapping[str, str] = {"-f": "", "--file": "", "--makefile": ""}
SCRIPT_FILE_OPTIONS: Mapping[str, Mapping[str, str]] = {
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), _AWK_FILES),
    **dict.fromkeys(("sed", "gsed"), _SED_FILES),
    **dict.fromkeys(("make", "gmake"), _MAKE_FILES),
}
# Options that make the first operand the program's own program file instead of its program
# text: jq's `-f`/`--from-file` is a flag, after which the filter operand names the file
# the filter is read from (jq 1.7.1 manual, "--from-file"; jqlang/jq pull request 3199,
# "It does not actually take an argument"): `jq -f f.jq x.json`, `jq f.jq -f`.
SCRIPT_FILE_OPERANDS: Mapping[str, frozenset[str]] = {"jq": frozenset({"-f", "--from-file"})}

# Files an interpreter's script may load besides itself, found below where it runs or next
# to it: `require('./util')` and `node_modules/` (Node.js "Modules: CommonJS", `.js`,
# `.node` and the ESM `.mjs`/`.cjs`; a `.json` is data), `require_relative` (Ruby), `use`/`require`
# (perlfunc "require": `.pm`, `.pl`), PHP's `include`, Lua's `require` (`.lua`, `.so`).
# Python's imports are `flows._imports_from`'s. A shell sources any name (`. lib`):
# every file without a suffix, and `.sh`/`.bash`.
SCRIPT_SUFFIXES: dict[str, tuple[str, ...]] = {
    "node": (".js", ".mjs", ".cjs", ".node", ".ts", ".mts", ".cts"),
    "deno": (".js", ".mjs", ".ts", ".mts", ".jsx", ".tsx"),
    "bun": (".js", ".mjs", ".cjs", ".ts", ".mts", ".jsx", ".tsx"),
    "ruby": (".rb", ".so"),
    "perl": (".pl", ".pm", ".so"),
    "php": (".php", ".inc", ".phtml"),
    "lua": (".lua", ".so"),
    **dict.fromkeys(SHELLS, (".sh", ".bash", "")),
}
