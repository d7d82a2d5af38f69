"""Shells: `bash -c SCRIPT` is re-analysed; a shell reading its program from stdin is opaque.

Also `eval` (its static words are re-analysed) and `source` (a file nobody can see here).
"""

from __future__ import annotations

from safehold.policy.shell.programs.shell_settings import COMPUTED, setting_problem
from safehold.policy.shell.programs.step import Step, StepFn, opaque, unknown_option
from safehold.policy.shell.words import Word

__all__ = ["OTHER_LANGUAGE_SHELLS", "SHELLS", "STDIN_FILES", "STEPS", "stdin_program"]

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "posh", "yash"})
# Shells whose language is not bash's (nor the POSIX subset dash, ash and posh speak): the
# analysis reads their scripts as bash would, which they do not. zsh expands `=(cmd)`,
# glob qualifiers (`*(e:cmd:)`, zshexpn(1) "Glob Qualifiers") and `${(e)var}` flags (code
# run by expansion), and reads `~/.zshenv` for every script (zsh(1) "Startup/Shutdown
# Files"); ksh93 and mksh have `${ cmd; }`, discipline functions and `.sh.*` variables
# (ksh(1)); yash has its own options and startup file (yash(1)). Their scripts are still
# re-analysed (a visible `rm -rf /` is judged), and on the host the shell is not
# understood, as a program in no table is.
OTHER_LANGUAGE_SHELLS = frozenset({"zsh", "ksh", "ksh93", "mksh", "yash"})
# Not `k` (keyword) or `P` (physical): programs.shell_settings.
SHELL_FLAG_LETTERS = frozenset("abefhimnprstuvxBCEHTl")
SHELL_ARG_OPTS = frozenset({"-o", "+o", "-O", "+O"})
SHELL_LONG_FLAGS = frozenset(
    {
        "--norc",
        "--noprofile",
        "--posix",
        "--login",
        "--noediting",
        "--restricted",
        "--verbose",
        "--debugger",
        "--dump-strings",
        "--version",
        "--help",
    }
)


def _shell(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    i = 1
    has_c = False
    reads_stdin = False
    while i < len(words):
        w = words[i]
        t = w.text
        if not w.static:
            return Step(
                opaque=opaque(
                    "dynamic-script", name, f"`{name}` gets a computed option or script `{t}`"
                )
            )
        if t in ("--", "-"):
            i += 1
            reads_stdin = reads_stdin or t == "-"
            break
        if t in SHELL_ARG_OPTS:
            value = words[i + 1] if i + 1 < len(words) else None
            if value is not None:
                args = (f"{t[0]}s" if t[1] == "O" else t, value.text if value.static else COMPUTED)
                problem = setting_problem("shopt" if t[1] == "O" else "set", args)
                if problem is not None:
                    why = f"`{name} {t} {value.text}` changes how the shell reads its script"
                    return Step(opaque=opaque("not-understood", f"{name} {t}", why))
            i += 2
            continue
        if t in SHELL_LONG_FLAGS:
            i += 1
            continue
        if t.startswith("--"):
            return unknown_option(name, t)
        if t[:1] in "-+" and len(t) > 1 and set(t[1:]) <= SHELL_FLAG_LETTERS | {"c", "s"}:
            has_c = has_c or "c" in t[1:]
            reads_stdin = reads_stdin or "s" in t[1:]
            i += 1
            continue
        if t[:1] in "-+":
            return unknown_option(name, t)
        break
    if has_c:
        if i >= len(words):
            return unknown_option(name, "-c")
        if not words[i].static:
            return Step(
                opaque=opaque("dynamic-script", f"{name} -c", f"`{name} -c` runs a computed script")
            )
        return Step(script=(name, words[i].text))
    if reads_stdin or i >= len(words):
        return stdin_program(name, stdin_fed)
    return None


# Names a program's file option reads standard input under: `-` by the programs' own
# convention (GNU sed `-f -`, gawk `-f -`, GNU make `-f -`), and the kernel's names for it.
STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def stdin_program(name: str, stdin_fed: bool) -> Step:
    where = "a pipe or redirection" if stdin_fed else "standard input"
    return Step(
        opaque=opaque(
            "program-from-stdin", name, f"`{name}` reads the program it runs from {where}"
        )
    )


def _eval(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    if all(w.static for w in words[1:]):
        # SPEC §5: `eval` is opaque (ASK) even with static words; the words are still
        # re-analysed so that `eval 'rm -rf /'` is denied rather than merely asked.
        return Step(
            script=("eval", " ".join(w.text for w in words[1:])),
            opaque=opaque("eval", "eval", "`eval` runs a string as shell code"),
        )
    return Step(opaque=opaque("eval", "eval", "`eval` of a computed string runs unknown code"))


def _source(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    return Step(
        opaque=opaque(
            "source", name, f"`{name}` runs the commands in a file, which cannot be seen here"
        )
    )


STEPS: dict[str, StepFn] = {
    **dict.fromkeys(SHELLS, _shell),
    "eval": _eval,
    "source": _source,
    ".": _source,
}
