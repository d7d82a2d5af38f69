"""sed and awk: a script that runs shell commands (`e`, `system()`, pipes) is inline code."""

from __future__ import annotations

from safehold.policy.shell.programs.awk_program import read_awk_program
from safehold.policy.shell.programs.sed_script import read_sed_script
from safehold.policy.shell.programs.shells import STDIN_FILES, stdin_program
from safehold.policy.shell.programs.step import Reasons, Step, StepFn, opaque
from safehold.policy.shell.programs.table import Opt, Program, Role, RoleUse, read_roles
from safehold.policy.shell.programs.vocab import flags
from safehold.policy.shell.words import Word

__all__ = ["PROGRAMS", "STEPS", "sed_output_texts"]


def _computed(name: str) -> Step:
    """A script or program computed at run time: code nobody can see, never sandboxed."""
    return Step(opaque=opaque("dynamic-script", name, f"`{name}` runs a computed script"))


def _sed_runs(script: str) -> bool:
    """True when a GNU sed script runs shell commands (`e`, `s///e`) or is not understood.

    `read_sed_script` reads the script in one linear pass; the backtracking regexes it
    replaces ran for minutes on a 1,200-character `c\\` text.
    """
    read = read_sed_script(script)
    return read.runs_code or read.unknown


# `-f -` (and `/dev/stdin`) reads the script from standard input: GNU sed `compile_file`,
# gawk manual "Options" (`-f -`). A pipe into it runs whatever comes down the pipe.
_STDIN_FILES = STDIN_FILES
_SCRIPT_FILE_OPTIONS = frozenset({"-f", "--file", "-E", "--exec"})


def _from_stdin(uses: tuple[RoleUse, ...]) -> bool:
    return any(
        u.option in _SCRIPT_FILE_OPTIONS and u.word.static and u.word.text in _STDIN_FILES
        for u in uses
    )


def _sed(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    """`sed '1e rm -rf ~'`, `sed 's/.*/id/e'`: a script that runs commands is inline code.

    The words are read with the table (`SED_ROLES`), as GNU getopt_long reads them: unique
    prefixes (`--expr=S`), clusters (`-ne S`), options after operands (`sed F -e S`).
    """
    reading = read_roles(SED_ROLES, words)
    if _from_stdin(reading.uses):
        return stdin_program(name, stdin_fed)
    for script in reading.scripts:
        text = script.text
        if not script.static:
            return _computed(name)
        if _sed_runs(text):
            return Step(
                opaque=opaque(
                    "inline-code",
                    f"{name} e",
                    f"the `{name}` script runs shell commands (`e`), which are not analysed",
                ),
                code=(text,),
            )
    return None


_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})


def _awk(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    """`awk 'BEGIN { system("rm -rf ~") }'`: a program that runs commands is inline code.

    The words are read with the table (`AWK_ROLES`), as gawk's getopt_long reads them.
    """
    reading = read_roles(AWK_ROLES, words)
    if _from_stdin(reading.uses):
        return stdin_program(name, stdin_fed)
    reasons: Reasons = ()
    code: tuple[str, ...] = ()
    for program in reading.scripts:
        if not program.static:
            return _computed(name)
        read = read_awk_program(program.text)
        if read.runs_code or read.unknown:
            reasons += opaque(
                "inline-code",
                f"{name} program",
                f"the `{name}` program runs shell commands (`system`, pipes), which are not "
                "analysed",
            )
        if read.network:
            reasons += opaque(
                "inline-code",
                f"{name} /inet",
                f"the `{name}` program opens a network connection (gawk's `/inet` special "
                "files), which is not analysed",
            )
        if read.argv:
            reasons += opaque(
                "not-understood",
                f"{name} ARGV",
                f"the `{name}` program changes `ARGV` or `ARGC`, so the files it reads are "
                "chosen at run time",
            )
        if reasons and not code:
            code = (program.text,)
    return Step(opaque=reasons, code=code) if reasons else None


STEPS: dict[str, StepFn] = {**dict.fromkeys(_AWKS, _awk), "sed": _sed, "gsed": _sed}


_V = Opt(takes=True)
_SCRIPT = Opt(takes=True, script=True)  # a script given as an option: no operand is one then


def sed_files(script: str) -> list[tuple[Role, str | None]]:
    """Files a sed script reads (`r`, `R`) or writes (`w`, `W`, `s///w`)."""
    read = read_sed_script(script)
    out: list[tuple[Role, str | None]] = [("read", p) for p in read.reads]
    out += [("write", p) for p in read.writes if p not in ("/dev/stdout", "/dev/stderr")]
    return out


def sed_output_texts(words: tuple[Word, ...]) -> tuple[str, ...] | None:
    """The text sed's scripts put into its output (each `s` replacement, each `a`/`i`/`c`
    text); None when some of that output is spelled nowhere in the command: a computed or
    unreadable script, a script file (`-f`), or a `y` map of the input's characters."""
    reading = read_roles(SED_ROLES, words)
    if any(u.option in _SCRIPT_FILE_OPTIONS for u in reading.uses):
        return None
    out: list[str] = []
    for script in reading.scripts:
        if not script.static:
            return None
        read = read_sed_script(script.text)
        if read.unknown or read.maps:
            return None
        out += read.texts
    return tuple(out)


def awk_files(program: str) -> list[tuple[Role, str | None]]:
    """Files an awk program writes (`print > "f"`) or reads (`getline < "f"`); a file named
    by an expression (`print > ENVIRON["HOME"] "/.bashrc"`) is None: computed at run time."""
    return list(read_awk_program(program).files)


# `-i[SUFFIX]`: the suffix, if any, is glued on (`-i.bak`); a separate word is the script.
# It names the backup of each file edited (sed(1), "-i[SUFFIX]": FILE+SUFFIX, or with `*`
# "each asterisk is replaced with the basename of the current file", which may "place
# backup copies … into another directory": `-i'.git/*' config` replaces `.git/config`).
_INPLACE = Opt(takes=True, optional=True, mode="inplace", backup="sed")
_READ = Opt(takes=True, role="read")
# `sed SCRIPT FILE…` reads its files; `sed -i` rewrites them. Every option of GNU sed 4.9.
SED_ROLES = Program(
    options={
        "-e": _SCRIPT, "--expression": _SCRIPT, "-f": _READ, "--file": _READ, "-l": _V,
        "--line-length": _V, "-i": _INPLACE, "--in-place": _INPLACE,
        **flags("-n", "--quiet", "--silent", "--debug", "--follow-symlinks", "--posix"),
        **flags("-E", "-r", "--regexp-extended", "-s", "--separate", "--sandbox", "-u"),
        **flags("--unbuffered", "-z", "--null-data", "--help", "--version"),
    },
    operands="read",
    skip=1,
    unskip=frozenset({"-e", "--expression", "-f", "--file"}),
    modes={"inplace": Program(operands="write", skip=1)},
    script_files=sed_files,
    source="GNU sed 4.9 --help",
)  # fmt: skip
_INCLUDE = Opt(takes=True, role="read", mode="inplace")
AWK_ROLES = Program(
    options={
        "-f": Opt(takes=True, role="read"), "--file": Opt(takes=True, role="read"),
        # gawk 5 `--help`: `-E file`, `--exec=file`: the program file (the last option).
        "-E": Opt(takes=True, role="read"), "--exec": Opt(takes=True, role="read"),
        "-e": _SCRIPT, "--source": _SCRIPT, "-v": _V, "--assign": _V, "-F": _V,
        "--field-separator": _V,
        # gawk 5 manual, "Options": `-i FILE` loads an awk library; the library `inplace`
        # makes each file operand an in-place edit. Any library may be that one (a copy,
        # a name on AWKPATH), so every `-i` reads as in-place: the operands are writes.
        "-i": _INCLUDE, "--include": _INCLUDE,
        # `-l LIB` loads a shared library: native code, run as a program is.
        "-l": Opt(takes=True, role="exec"), "--load": Opt(takes=True, role="exec"),
    },
    operands="read",
    skip=1,
    unskip=frozenset({"-f", "--file", "-e", "--source", "-E", "--exec"}),
    modes={"inplace": Program(operands="write", skip=1)},
    script_files=awk_files,
)  # fmt: skip
PROGRAMS: dict[str, Program] = {
    "sed": SED_ROLES,
    "gsed": SED_ROLES,
    **dict.fromkeys(_AWKS, AWK_ROLES),
}
