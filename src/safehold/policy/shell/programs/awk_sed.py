"""sed and awk: a script that runs shell commands (`e`, `system()`, pipes) is inline code."""

from __future__ import annotations

from safehold.policy.shell.programs.sed_script import read_sed_script
from safehold.policy.shell.programs.step import Step, StepFn, opaque
from safehold.policy.shell.programs.table import Opt, Program, Role
from safehold.policy.shell.programs.vocab import flags
from safehold.policy.shell.words import Word

__all__ = ["PROGRAMS", "STEPS"]


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


def _sed(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    """`sed '1e rm -rf ~'`, `sed 's/.*/id/e'`: a script that runs commands is inline code."""
    scripts: list[Word] = []
    from_file = False
    i = 1
    while i < len(words):
        t = words[i].text
        if t in ("-e", "--expression") and i + 1 < len(words):
            scripts.append(words[i + 1])
            i += 2
        elif t.startswith("--expression="):
            scripts.append(Word(t.partition("=")[2], words[i].static))
            i += 1
        elif t in ("-f", "--file") or t.startswith("--file="):
            from_file = True
            i += 1 if "=" in t else 2
        elif t in ("-l", "--line-length"):
            i += 2
        elif t == "--":
            i += 1
            break
        elif t.startswith("-") and t != "-" and not t.startswith("--"):
            i += 1
            for k, letter in enumerate(t[1:], start=2):
                if letter == "i":
                    break  # the rest is the backup suffix: `-i.bak`
                if letter in "efl":
                    # A cluster ending in an option with a value: `-ne SCRIPT`, `-ne1d`.
                    value = words[i] if k == len(t) and i < len(words) else Word(t[k:], True)
                    i += 1 if k == len(t) else 0
                    if letter == "e":
                        scripts.append(value)
                    from_file = from_file or letter == "f"
                    break
        elif t.startswith("-") and t != "-":
            i += 1
        else:
            break
    if not scripts and not from_file and i < len(words):
        scripts.append(words[i])
    for script in scripts:
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
_AWK_BLANKS = " \t\n\r\f\v"
_AWK_STATEMENT_ENDS = ";{}\n"


def _awk_runs(program: str) -> bool:
    """True when an awk program may run a shell command, read in one linear pass.

    Flags `system(`, `|&` (a coprocess), `| getline`, a `|` after `print`/`printf` in
    the same statement (`print | "sh"`), and an `@` before a name: gawk's indirect call
    (`f = "sys" "tem"; @f("id")` calls any function, built-ins included), `@load` (native
    code) and `@include` (another program; `"inplace"` turns the operands into in-place
    edits). Wherever they appear, strings included: a false alarm asks, a miss would run
    code.
    """
    n = len(program)
    printing = False  # a `print`/`printf` word earlier in the current statement
    i = 0
    while i < n:
        ch = program[i]
        if ch in _AWK_STATEMENT_ENDS:
            printing = False
        elif ch == "@" and i + 1 < n and (program[i + 1].isalnum() or program[i + 1] == "_"):
            return True
        elif ch == "|":
            j = i + 1
            while j < n and program[j] in _AWK_BLANKS:
                j += 1
            if printing or program.startswith(("&", "getline"), j):
                return True
        elif ch.isalnum() or ch == "_":
            start = i
            while i < n and (program[i].isalnum() or program[i] == "_"):
                i += 1
            word = program[start:i]
            printing = printing or word in ("print", "printf")
            j = i
            while j < n and program[j] in _AWK_BLANKS:
                j += 1
            if word.endswith("system") and program.startswith("(", j):
                return True
            continue
        i += 1
    return False


# Options whose value is the next word (gawk 5 `--help`; `-E FILE` is the program file).
_AWK_ARG_OPTIONS = frozenset(
    {"-F", "-v", "-f", "--field-separator", "--assign", "--file", "-i", "--include", "-l",
     "--load"}
)  # fmt: skip


def _awk(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    """`awk 'BEGIN { system("rm -rf ~") }'`: a program that runs commands is inline code."""
    programs: list[Word] = []
    from_file = False
    i = 1
    while i < len(words):
        t = words[i].text
        if t in ("-e", "--source") and i + 1 < len(words):
            programs.append(words[i + 1])  # gawk's program text given as an option
            i += 2
        elif t.startswith("--source="):
            programs.append(Word(t[len("--source=") :], words[i].static))
            i += 1
        elif (
            t in ("-f", "--file", "-E", "--exec")
            or t.startswith(("--file=", "--exec="))
            or (t.startswith(("-f", "-E")) and len(t) > 2)
        ):
            from_file = True  # the program is a file, like a script
            i += 1 if "=" in t or (len(t) > 2 and not t.startswith("--")) else 2
        elif t == "--":
            i += 1
            break
        elif t in _AWK_ARG_OPTIONS:
            i += 2
        elif t.startswith("-") and t != "-":
            i += 1
        else:
            break
    if not programs and not from_file and i < len(words):
        programs.append(words[i])
    for program in programs:
        if not program.static:
            return _computed(name)
        if _awk_runs(program.text):
            return Step(
                opaque=opaque(
                    "inline-code",
                    f"{name} program",
                    f"the `{name}` program runs shell commands (`system`, pipes), which are "
                    "not analysed",
                ),
                code=(program.text,),
            )
    return None


STEPS: dict[str, StepFn] = {**dict.fromkeys(_AWKS, _awk), "sed": _sed, "gsed": _sed}


_V = Opt(takes=True)
_SCRIPT = Opt(takes=True, script=True)  # a script given as an option: no operand is one then


def sed_files(script: str) -> list[tuple[Role, str | None]]:
    """Files a sed script reads (`r`, `R`) or writes (`w`, `W`, `s///w`)."""
    read = read_sed_script(script)
    out: list[tuple[Role, str | None]] = [("read", p) for p in read.reads]
    out += [("write", p) for p in read.writes if p not in ("/dev/stdout", "/dev/stderr")]
    return out


_AWK_STOP = frozenset(";{}\n|")


def _quoted_after(program: str, i: int, marks: str) -> tuple[int, str | None, bool]:
    """Scan from `i` to the first of `marks` in the statement, then read a quoted name.

    Returns where the scan stopped, the name (None when it is not a string literal), and
    whether a mark was found (a mark with no literal after it names a computed file).
    """
    n = len(program)
    while i < n and program[i] not in marks:
        if program[i] in _AWK_STOP:
            return i, None, False
        i += 1
    if i >= n:
        return i, None, False
    mark = program[i]
    i += 1
    if mark == ">" and i < n and program[i] == ">":
        i += 1
    while i < n and program[i] in " \t":
        i += 1
    if i >= n or program[i] != '"':
        return i, None, True
    end = program.find('"', i + 1)
    if end < 0:
        return i, None, True
    # `"dir/" name`: a literal followed by more of the expression is computed too.
    j = end + 1
    while j < n and program[j] in " \t":
        j += 1
    if j < n and program[j] not in _AWK_STOP and program[j] not in ")}":
        return j, None, True
    return end + 1, program[i + 1 : end], True


_AWK_OPENS: tuple[tuple[str, str, Role], ...] = (("print", ">", "write"), ("getline", "<", "read"))


def awk_files(program: str) -> list[tuple[Role, str | None]]:
    """Files an awk program writes (`print > "f"`) or reads (`getline < "f"`).

    A file named by an expression (`print > ENVIRON["HOME"] "/.bashrc"`) is None: a path
    computed at run time. One forward scan per `print`/`getline`, resuming where the last
    one stopped, so the work is linear in the program's length (no regular expression on
    untrusted text).
    """
    out: list[tuple[Role, str | None]] = []
    for word, marks, role in _AWK_OPENS:
        start = program.find(word)
        while start >= 0:
            stop, name, marked = _quoted_after(program, start + len(word), marks)
            if name is None and marked:
                out.append((role, None))
            elif name is not None and name not in ("/dev/stdout", "/dev/stderr", "-"):
                out.append((role, name))
            start = program.find(word, max(stop, start + len(word)))
    return out


# `-i[SUFFIX]`: the suffix, if any, is glued on (`-i.bak`); a separate word is the script.
_INPLACE = Opt(takes=True, optional=True, mode="inplace")
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
    unskip=frozenset({"-f", "--file", "-e", "--source"}),
    modes={"inplace": Program(operands="write", skip=1)},
    script_files=awk_files,
)  # fmt: skip
PROGRAMS: dict[str, Program] = {
    "sed": SED_ROLES,
    "gsed": SED_ROLES,
    **dict.fromkeys(_AWKS, AWK_ROLES),
}
