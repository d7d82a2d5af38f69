"""Look through wrapper programs to the command they run.

`sudo env FOO=1 nice -n 5 rm -rf /` runs `rm -rf /`; rules must see that. Each wrapper
knows its own options; an option it does not know makes the command opaque, because a
wrong guess about which word is the inner program is exactly a bypass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from safehold.policy._bash_command_strings import command_strings
from safehold.policy._bash_tables import (
    COMMAND_OPTIONS,
    ENV_OPTIONS,
    GIT_ARG_OPTS,
    GIT_CODE_KEYS,
    GIT_FLAGS,
    NOHUP_OPTIONS,
    SHELL_ARG_OPTS,
    SHELL_FLAG_LETTERS,
    SHELL_LONG_FLAGS,
    SIMPLE_WRAPPERS,
    SUDO_OPTIONS,
    TIMEOUT_OPTIONS,
    XARGS_OPTIONS,
    is_dangerous_env,
    skip_options,
)
from safehold.policy._bash_words import Word

__all__ = ["INTERPRETERS", "SHELLS", "Unwrapped", "program_family", "program_name", "unwrap"]

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "posh", "yash"})
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
_MAX_LAYERS = 16

Reasons = tuple[tuple[str, str, str], ...]


@dataclass(frozen=True, slots=True)
class Unwrapped:
    """One command after wrapper stripping: the wrapper layers, the inner words, and more."""

    layers: tuple[tuple[Word, ...], ...]
    words: tuple[Word, ...]
    assignments: tuple[tuple[str, Word], ...] = ()
    # (shell, script) for `bash -c script` / static `eval`: re-analysed by the caller.
    script: tuple[str, str] | None = None
    opaque: Reasons = ()


def program_name(word: Word) -> str:
    """The program's basename: `/usr/bin/rm` is `rm`, `python3.12` is `python3.12`."""
    return word.text.rsplit("/", 1)[-1]


def program_family(name: str) -> str:
    """The interpreter family of a program name: `python3.12` is `python`, `nodejs` is `node`."""
    for base in ("python", "node", "perl", "ruby", "php", "lua"):
        if name.startswith(base) and name[len(base) :].replace(".", "").isdigit():
            return base
    return "node" if name == "nodejs" else name


def _opaque(code: str, rule: str, message: str) -> Reasons:
    return ((code, rule, message),)


def unwrap(words: tuple[Word, ...], *, stdin_fed: bool) -> list[Unwrapped]:
    """Strip wrappers from a command's words; `find -exec` yields one entry per command."""
    layers: list[tuple[Word, ...]] = []
    assignments: list[tuple[str, Word]] = []
    out: list[Unwrapped] = []
    for _ in range(_MAX_LAYERS):
        if not words:
            return [Unwrapped(tuple(layers), (), tuple(assignments)), *out]
        head = words[0]
        if not head.static:
            return [
                *out,
                Unwrapped(
                    tuple(layers),
                    words,
                    tuple(assignments),
                    None,
                    _opaque(
                        "dynamic-command-name",
                        "command-name",
                        f"the program `{head.text}` is computed at run time",
                    ),
                ),
            ]
        name = program_family(program_name(head))
        step = _step(name, words, stdin_fed)
        if step is None:
            return [*out, Unwrapped(tuple(layers), words, tuple(assignments))]
        if step.opaque and step.script is None:
            return [*out, Unwrapped(tuple(layers), words, tuple(assignments), None, step.opaque)]
        out.extend(
            Unwrapped(
                (*layers, words, *e.layers),
                e.words,
                (*assignments, *e.assignments),
                e.script,
                e.opaque,
            )
            for e in step.extra
        )
        assignments.extend(step.assignments)
        if step.script is not None:
            # The script is re-analysed so its deny rules still fire; an opaque reason of the
            # step itself (a static `eval`) stays beside it.
            return [
                *out,
                Unwrapped((*layers, words), (), tuple(assignments), step.script, step.opaque),
            ]
        if step.keep_self:
            # The wrapper is a command in its own right (find, git): emit it as such.
            own = (*layers, words) if step.self_words is not None else tuple(layers)
            out.append(Unwrapped(own, step.self_words or words, tuple(assignments)))
            return out
        layers.append(words)
        words = step.inner
        stdin_fed = stdin_fed and name not in ("xargs",)
    return [
        *out,
        Unwrapped(
            tuple(layers),
            words,
            tuple(assignments),
            None,
            _opaque(
                "too-many-wrappers", "wrappers", f"more than {_MAX_LAYERS} nested wrapper programs"
            ),
        ),
    ]


@dataclass(frozen=True, slots=True)
class _Step:
    inner: tuple[Word, ...] = ()
    assignments: tuple[tuple[str, Word], ...] = ()
    script: tuple[str, str] | None = None
    opaque: Reasons = ()
    extra: tuple[Unwrapped, ...] = ()
    keep_self: bool = False
    self_words: tuple[Word, ...] | None = None


def _unknown(name: str, option: str) -> _Step:
    return _Step(
        opaque=_opaque(
            "unknown-wrapper-option",
            name,
            f"option `{option}` of `{name}` is not understood, so the program it runs is unknown",
        )
    )


def _step(name: str, words: tuple[Word, ...], stdin_fed: bool) -> _Step | None:
    if name in SIMPLE_WRAPPERS:
        start = 2 if name == "nice" and len(words) > 1 and _is_nice_number(words[1]) else 1
        i, bad = skip_options(words, start, SIMPLE_WRAPPERS[name])
        if bad is not None:
            return _unknown(name, bad)
        return _Step(inner=words[i:])
    if name == "timeout":
        i, bad = skip_options(words, 1, TIMEOUT_OPTIONS)
        if bad is not None:
            return _unknown(name, bad)
        return _Step(inner=words[i + 1 :])
    if name in ("command", "builtin"):
        if name == "command" and any(w.text in ("-v", "-V") for w in words[1:2]):
            return None  # `command -v x` only looks x up
        i, bad = skip_options(words, 1, COMMAND_OPTIONS if name == "command" else NOHUP_OPTIONS)
        return _unknown(name, bad) if bad is not None else _Step(inner=words[i:])
    if name == "env":
        return _env(words)
    if name in ("sudo", "doas"):
        return _sudo(name, words)
    if name == "xargs":
        return _xargs(words)
    if name == "find":
        return _find(words)
    if name == "git":
        return _git(words)
    if name in SHELLS:
        return _shell(name, words, stdin_fed)
    if name in INTERPRETERS:
        return _interpreter(name, words, stdin_fed)
    if name == "eval":
        if all(w.static for w in words[1:]):
            # SPEC §5: `eval` is opaque (ASK) even with static words; the words are still
            # re-analysed so that `eval 'rm -rf /'` is denied rather than merely asked.
            return _Step(
                script=("eval", " ".join(w.text for w in words[1:])),
                opaque=_opaque("eval", "eval", "`eval` runs a string as shell code"),
            )
        return _Step(
            opaque=_opaque("eval", "eval", "`eval` of a computed string runs unknown code")
        )
    if name in ("source", "."):
        return _Step(
            opaque=_opaque(
                "source", name, f"`{name}` runs the commands in a file, which cannot be seen here"
            )
        )
    if name in (
        "alias",
        "trap",
        "enable",
        "hash",
        "bind",
        "fc",
        "coproc",
        "mapfile",
        "readarray",
        "watch",
        "parallel",
        "script",
        "su",
        "runuser",
        "unshare",
        "nsenter",
        "chroot",
        "flock",
        "strace",
        "ltrace",
        "gdb",
        "busybox",
        # Run a command later or in a server that may live outside the sandbox.
        "at",
        "batch",
        "systemd-run",
        "tmux",
        "screen",
    ) or (name == "crontab" and not (len(words) == 2 and words[1].text == "-l")):
        return _Step(
            opaque=_opaque(
                "hidden-command",
                name,
                f"`{name}` runs or redefines commands in a way that is not analysed",
            )
        )
    if name in ("tar", "rsync", "scp", "sftp", "ssh", "man"):
        return _command_string_step(name, words)
    if name in _AWKS:
        return _awk(name, words)
    if name in ("sed", "gsed"):
        return _sed(name, words)
    if name in _EDITORS:
        return _editor(name, words)
    return None


_EDITORS = frozenset({"vi", "vim", "nvim", "view", "ex", "gvim", "emacs", "emacsclient"})
# `+10` and `+/pattern` only move the cursor; any other `+CMD`, `-c`, `--cmd` is an ex command
# (`:!rm -rf ~`), and emacs evaluates Lisp.
_EDITOR_CODE = frozenset({"-c", "--cmd", "--eval", "-eval", "--execute"})


def _editor(name: str, words: tuple[Word, ...]) -> _Step | None:
    """`vim -c '!rm -rf ~'`, `emacs --eval '(shell-command …)'`: editor commands are code."""
    for w in words[1:]:
        t = w.text
        plus = t.startswith("+") and not (t[1:].isdigit() or t[1:2] in ("", "/", "?"))
        client_eval = name == "emacsclient" and t == "-e"
        if t in _EDITOR_CODE or t.startswith(("--eval=", "--cmd=")) or plus or client_eval:
            return _Step(
                opaque=_opaque(
                    "inline-code",
                    f"{name} {t[:6]}",
                    f"`{name}` runs editor commands given on the command line, which are not "
                    "analysed",
                )
            )
    return None


# GNU sed runs a command with `e` (`1e id`, `/x/eid`) and the `e` flag of `s` (`s/.*/id/e`).
# To find an `e` command, the parts that hold free text are blanked first: `s` and `y`
# commands, regex addresses, `a`/`i`/`c` text and labels.
_SED_S_E_FLAG = re.compile(r"s(.)(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gpIiMm0-9w]*e", re.S)
_SED_TEXT = re.compile(
    r"[sy](.)(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gpIiMm0-9]*"
    r"|/(?:\\.|[^/\\\n])*/[IM]*"
    r"|\\(.)(?:\\.|(?!\2).)*\2"
    r"|(?:^|(?<=[;{}\s0-9$!,]))[aic]\\?[^\n]*"
    r"|[:btTrRwW]\s*[^;\n}]*",
    re.S,
)
_SED_E_COMMAND = re.compile(r"(?:^|[;\n{}0-9$!,\s])e")


def _sed_runs(script: str) -> bool:
    if _SED_S_E_FLAG.search(script):
        return True
    return _SED_E_COMMAND.search(_SED_TEXT.sub(" ", script)) is not None


def _sed(name: str, words: tuple[Word, ...]) -> _Step | None:
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
        if not script.static or _sed_runs(text):
            return _Step(
                opaque=_opaque(
                    "inline-code",
                    f"{name} e",
                    f"the `{name}` script runs shell commands (`e`), which are not analysed",
                )
            )
    return None


_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
# awk statements that run a shell command: `system(...)`, `print | "cmd"`, `"cmd" | getline`.
_AWK_RUNS = re.compile(r"system\s*\(|\|\s*&|\|\s*getline|\bprintf?\b[^;{}\n]*\|")
_AWK_ARG_OPTIONS = frozenset({"-F", "-v", "-f", "--field-separator", "--assign", "--file"})


def _awk(name: str, words: tuple[Word, ...]) -> _Step | None:
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
            t in ("-f", "--file") or t.startswith("--file=") or (t.startswith("-f") and len(t) > 2)
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
        if not program.static or _AWK_RUNS.search(program.text):
            return _Step(
                opaque=_opaque(
                    "inline-code",
                    f"{name} program",
                    f"the `{name}` program runs shell commands (`system`, pipes), which are "
                    "not analysed",
                )
            )
    return None


def _command_string_step(name: str, words: tuple[Word, ...]) -> _Step | None:
    """`ssh host CMD`, `tar --to-command=CMD`: CMD is re-analysed as an `sh -c` script."""
    strings, unknown = command_strings(name, words)
    if unknown is not None:
        return _Step(
            opaque=_opaque(
                "hidden-command",
                unknown,
                f"`{unknown}` may make `{name}` run a command that is not analysed",
            )
        )
    extra: list[Unwrapped] = []
    for w in strings:
        if not w.static:
            return _Step(
                opaque=_opaque(
                    "dynamic-script", name, f"`{name}` runs a computed command `{w.text}`"
                )
            )
        if w.text.strip():
            extra.append(Unwrapped((), (), (), ("sh", w.text)))
    return _Step(extra=tuple(extra), keep_self=True) if extra else None


def _is_nice_number(word: Word) -> bool:
    t = word.text
    return word.static and t.startswith("-") and t[1:].lstrip("+-").isdigit()


def _env(words: tuple[Word, ...]) -> _Step:
    i = 1
    assigns: list[tuple[str, Word]] = []
    while i < len(words):
        i, bad = skip_options(words, i, ENV_OPTIONS)
        if bad is not None:
            if bad.startswith(("-S", "--split-string")):
                return _Step(
                    opaque=_opaque(
                        "env-split-string", "env -S", "`env -S` splits a string into a command"
                    )
                )
            return _unknown("env", bad)
        if i < len(words) and words[i].text == "-":
            i += 1
            continue
        if i < len(words) and _is_assignment(words[i]):
            name, _, value = words[i].text.partition("=")
            assigns.append((name, Word(value, words[i].static)))
            i += 1
            continue
        break
    return _Step(inner=words[i:], assignments=tuple(assigns))


def _is_assignment(word: Word) -> bool:
    name, eq, _ = word.text.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _sudo(name: str, words: tuple[Word, ...]) -> _Step:
    i, bad = skip_options(words, 1, SUDO_OPTIONS)
    if bad is not None:
        if bad in ("-i", "-s", "--login", "--shell"):
            return _Step(
                opaque=_opaque("hidden-command", f"{name} {bad}", f"`{name} {bad}` runs a shell")
            )
        if bad in ("-e", "--edit", "-l", "--list", "-v", "--validate", "-k", "-K"):
            return _Step(inner=())
        return _unknown(name, bad)
    assigns: list[tuple[str, Word]] = []
    while i < len(words) and _is_assignment(words[i]):
        key, _, value = words[i].text.partition("=")
        assigns.append((key, Word(value, words[i].static)))
        i += 1
    return _Step(inner=words[i:], assignments=tuple(assigns))


def _xargs(words: tuple[Word, ...]) -> _Step:
    i, bad = skip_options(words, 1, XARGS_OPTIONS)
    if bad is not None:
        return _unknown("xargs", bad)
    replace = None
    for k, w in enumerate(words[1:i], start=1):
        if w.text.startswith("--process-slot-var"):
            # xargs sets this variable for the program: `PATH` there changes what runs.
            holder = w if "=" in w.text else (words[k + 1] if k + 1 < i else w)
            var = w.text.partition("=")[2] if "=" in w.text else holder.text
            if not holder.static or is_dangerous_env(var) or not var:
                return _Step(
                    opaque=_opaque(
                        "dangerous-env",
                        var or "--process-slot-var",
                        f"`xargs --process-slot-var` sets `{var}`, which can make programs "
                        "run other code",
                    )
                )
        if w.text in ("-I", "--replace") and k + 1 < i:
            replace = words[k + 1].text
        elif w.text.startswith("-I") and len(w.text) > 2:
            replace = w.text[2:]
        elif w.text.startswith(("-i", "--replace=")):
            replace = w.text.split("=", 1)[1] if "=" in w.text else (w.text[2:] or "{}")
    inner = words[i:] or (Word("echo", True),)
    # xargs adds words read from stdin: they are unknown here.
    if replace:
        inner = tuple(Word(w.text, False, True) if replace in w.text else w for w in inner)
    else:
        inner = (*inner, Word("<stdin words>", False, True))
    return _Step(inner=inner)


def _find(words: tuple[Word, ...]) -> _Step:
    extra: list[Unwrapped] = []
    i = 1
    while i < len(words):
        t = words[i].text
        if words[i].static and t in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(words) and not (words[j].static and words[j].text in (";", "+")):
                j += 1
            if j >= len(words) or j == i + 1:
                return _Step(
                    opaque=_opaque(
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
            for e in unwrap(inner, stdin_fed=False):
                extra.append(
                    Unwrapped(
                        (words[: i + 1], *e.layers), e.words, e.assignments, e.script, e.opaque
                    )
                )
            i = j + 1
            continue
        i += 1
    return _Step(extra=tuple(extra), keep_self=True)


def _git(words: tuple[Word, ...]) -> _Step:
    i = 1
    while i < len(words):
        w = words[i]
        t = w.text
        if not w.static:
            return _unknown("git", t)
        if t in GIT_FLAGS:
            i += 1
        elif t in GIT_ARG_OPTS:
            i += 2
        elif t.split("=", 1)[0] in GIT_ARG_OPTS and "=" in t:
            i += 1
        elif t == "-c" or t.startswith("-c"):
            setting = t[2:] if len(t) > 2 else (words[i + 1].text if i + 1 < len(words) else "")
            static = w.static if len(t) > 2 else (i + 1 < len(words) and words[i + 1].static)
            key = setting.split("=", 1)[0].lower()
            if not static or key.startswith(GIT_CODE_KEYS):
                return _Step(
                    opaque=_opaque(
                        "git-config-code",
                        "git -c",
                        f"`git -c {setting}` can make git run another program",
                    )
                )
            i += 1 if len(t) > 2 else 2
        elif t.startswith("-"):
            if t.startswith(("--exec-path", "--config-env", "--list-cmds")):
                return _Step(
                    opaque=_opaque(
                        "git-config-code", "git", f"`git {t}` can make git run another program"
                    )
                )
            return _unknown("git", t)
        else:
            break
    problem = _git_runs_code(words[i:])
    if problem is not None:
        return _Step(opaque=problem)
    return _Step(keep_self=True, self_words=(words[0], *words[i:]))


# Options of git subcommands whose value git runs as a shell command (or a program).
_GIT_COMMAND_OPTIONS = {
    "rebase": ("-x", "--exec"),
    "clone": ("-u", "--upload-pack", "--template", "-c", "--config"),
    "fetch": ("--upload-pack",),
    "pull": ("--upload-pack",),
    "ls-remote": ("--upload-pack",),
    "archive": ("--exec",),
    "push": ("--receive-pack", "--exec"),
    "grep": ("-O", "--open-files-in-pager"),
    "difftool": ("-x", "--extcmd"),
    "send-email": ("--smtp-server", "--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd"),
    "init": ("--template",),
}
# Subcommands that run a command given as an argument.
_GIT_COMMAND_SUBCOMMANDS = frozenset({"filter-branch", "filter-repo"})
_GIT_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l", "get", "list"})


def _git_runs_code(words: tuple[Word, ...]) -> Reasons | None:
    """Why `git SUBCOMMAND ARGS…` runs code the analysis cannot see, or None."""
    if not words:
        return None
    sub = words[0].text
    args = words[1:]
    if sub in _GIT_COMMAND_SUBCOMMANDS or (
        sub in ("submodule", "bisect") and any(w.text in ("foreach", "run") for w in args)
    ):
        return _opaque("git-runs-command", f"git {sub}", f"`git {sub}` runs a given command")
    if sub == "config" and not any(w.text in _GIT_CONFIG_READS for w in args):
        # `git config core.pager 'rm -rf ~'` makes the next, harmless-looking `git log` run it.
        for w in args:
            if not w.static or w.text.lower().startswith(GIT_CODE_KEYS):
                return _opaque(
                    "git-config-code",
                    "git config",
                    f"`git config {w.text}` can make later git commands run another program",
                )
        return None
    for w in args:
        for opt in _GIT_COMMAND_OPTIONS.get(sub, ()):
            t = w.text
            glued = t.startswith(opt) and (
                t[len(opt) : len(opt) + 1] == "=" if opt.startswith("--") else len(t) > len(opt)
            )
            if t == opt or glued:
                return _opaque(
                    "git-runs-command",
                    f"git {sub} {opt}",
                    f"`git {sub} {opt}` runs a command that is not analysed",
                )
    return None


def _shell(name: str, words: tuple[Word, ...], stdin_fed: bool) -> _Step | None:
    i = 1
    has_c = False
    reads_stdin = False
    while i < len(words):
        w = words[i]
        t = w.text
        if not w.static:
            return _Step(
                opaque=_opaque(
                    "dynamic-script", name, f"`{name}` gets a computed option or script `{t}`"
                )
            )
        if t in ("--", "-"):
            i += 1
            reads_stdin = reads_stdin or t == "-"
            break
        if t in SHELL_ARG_OPTS:
            i += 2
            continue
        if t in SHELL_LONG_FLAGS:
            i += 1
            continue
        if t.startswith("--"):
            return _unknown(name, t)
        if t[:1] in "-+" and len(t) > 1 and set(t[1:]) <= SHELL_FLAG_LETTERS | {"c", "s"}:
            has_c = has_c or "c" in t[1:]
            reads_stdin = reads_stdin or "s" in t[1:]
            i += 1
            continue
        if t[:1] in "-+":
            return _unknown(name, t)
        break
    if has_c:
        if i >= len(words):
            return _unknown(name, "-c")
        if not words[i].static:
            return _Step(
                opaque=_opaque(
                    "dynamic-script", f"{name} -c", f"`{name} -c` runs a computed script"
                )
            )
        return _Step(script=(name, words[i].text))
    if reads_stdin or i >= len(words):
        return _stdin_program(name, stdin_fed)
    return None


def _stdin_program(name: str, stdin_fed: bool) -> _Step:
    where = "a pipe or redirection" if stdin_fed else "standard input"
    return _Step(
        opaque=_opaque(
            "program-from-stdin", name, f"`{name}` reads the program it runs from {where}"
        )
    )


# Interpreters' options that take the next word as their value (`python -W ignore -c …`).
_INTERPRETER_ARG_OPTIONS = {
    "python": ("-W", "-X", "--check-hash-based-pycs"),
    "node": (
        "-r", "--require", "--import", "--loader", "--experimental-loader", "-C",
        "--conditions", "--input-type", "--env-file", "--title", "--inspect-port",
    ),
    "perl": ("-I", "-M", "-m", "-C"),
    "ruby": ("-I", "-r", "-C", "-E", "--encoding", "-F"),
    "php": ("-d", "-c", "-z", "-t"),
    "lua": ("-l",),
    "julia": ("-t", "--threads", "-p", "--procs", "-J", "--sysimage", "-L", "--load"),
}  # fmt: skip


def _interpreter(name: str, words: tuple[Word, ...], stdin_fed: bool) -> _Step | None:
    code_flags = _INLINE_CODE.get(name, ())
    arg_options = _INTERPRETER_ARG_OPTIONS.get(name, ())

    def is_code(t: str) -> bool:
        return t in code_flags or (
            t.startswith("-")
            and not t.startswith("--")
            and any(f[1] in t[1:] for f in code_flags if len(f) == 2)
        )

    def inline(flag: str) -> _Step:
        return _Step(
            opaque=_opaque(
                "inline-code", f"{name} {flag}", f"`{name}` runs inline code that is not analysed"
            )
        )

    texts = [w.text.lower() if name in ("pwsh", "powershell") else w.text for w in words]
    i = 1
    while i < len(words):
        t = texts[i]
        if not words[i].static:
            i += 1
            continue
        if is_code(t):
            return inline(t[:2])
        if not t.startswith("-"):
            # The script, or the value of an option not in the table: a code flag right
            # after it leaves both readings open, so it counts (`node --opt v -e code`).
            after = texts[i + 1] if i + 1 < len(words) else ""
            if i > 1 and texts[i - 1].startswith("-") and is_code(after):
                return inline(after[:2])
            return None
        if t == "-":
            break
        if name == "python" and t == "-m":
            return None
        # The value of an option is skipped, unless it is itself a code flag.
        i += 2 if t in arg_options and not is_code(texts[min(i + 1, len(texts) - 1)]) else 1
    return _stdin_program(name, stdin_fed)
