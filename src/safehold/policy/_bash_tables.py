"""Tables of what programs and variables mean to the shell analysis.

Option grammars of the wrapper programs (which words are options, which take an argument),
git's code-running config keys, and the environment variables that make programs run other
code. Kept apart from the logic that uses them so each table can be read on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from safehold.policy._bash_words import Word

__all__ = [
    "COMMAND_OPTIONS",
    "ENV_OPTIONS",
    "EXEC_OPTIONS",
    "GIT_ARG_OPTS",
    "GIT_CODE_KEYS",
    "GIT_FLAGS",
    "IONICE_OPTIONS",
    "NICE_OPTIONS",
    "NOHUP_OPTIONS",
    "SETSID_OPTIONS",
    "SHELL_ARG_OPTS",
    "SHELL_FLAG_LETTERS",
    "SHELL_KEYWORDS",
    "SHELL_LONG_FLAGS",
    "SIMPLE_WRAPPERS",
    "STDBUF_OPTIONS",
    "SUDO_OPTIONS",
    "TIMEOUT_OPTIONS",
    "TIME_OPTIONS",
    "XARGS_OPTIONS",
    "WrapperOptions",
    "is_dangerous_env",
    "skip_options",
]


# Bash's reserved words that open, continue or close a compound command.
SHELL_KEYWORDS = frozenset(
    {
        "{",
        "}",
        "!",
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "for",
        "while",
        "until",
        "do",
        "done",
        "case",
        "esac",
        "in",
        "select",
        "function",
    }
)


@dataclass(frozen=True, slots=True)
class WrapperOptions:
    """A wrapper's option grammar."""

    with_arg: frozenset[str] = frozenset()  # short or long options taking the next word
    flags: frozenset[str] = frozenset()  # options without an argument
    attached: bool = True  # `-n5` / `--opt=value` forms allowed


def skip_options(words: tuple[Word, ...], i: int, opts: WrapperOptions) -> tuple[int, str | None]:
    """Skip a wrapper's options from index i; return the next index, or an unknown option."""
    while i < len(words):
        w = words[i]
        if not w.static:
            return i, w.text if w.text.startswith("-") or w.splits else None
        t = w.text
        if t == "--":
            return i + 1, None
        if not t.startswith("-") or t == "-":
            return i, None
        if t in opts.flags:
            i += 1
            continue
        if t in opts.with_arg:
            i += 2
            continue
        if t.startswith("--") and "=" in t and t.split("=", 1)[0] in opts.with_arg:
            i += 1
            continue
        if not t.startswith("--") and opts.attached:
            # A cluster such as `-nv` or `-n5`: every letter a flag, or a flag run ending
            # in an option that takes the rest of the word as its argument.
            ok = False
            for k in range(1, len(t)):
                letter = "-" + t[k]
                if letter in opts.with_arg:
                    ok = True
                    if k == len(t) - 1:
                        i += 1  # argument is the next word
                    break
                if letter not in opts.flags:
                    break
            else:
                ok = True
            if ok:
                i += 1
                continue
        return i, t
    return i, None


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
            "--max-lines",
            "--max-procs",
            "--max-chars",
            "--eof",
            "--replace",
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
            "-i",
            "-l",
            "-e",
        }
    ),
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
SHELL_FLAG_LETTERS = frozenset("abefhikmnprstuvxBCEHPTl")
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
GIT_ARG_OPTS = frozenset({"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})
GIT_FLAGS = frozenset(
    {
        "-p",
        "-P",
        "--paginate",
        "--no-pager",
        "--bare",
        "--no-replace-objects",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-optional-locks",
        "--no-advice",
    }
)
# git config keys whose value git runs as a program (or that point git at other programs).
GIT_CODE_KEYS = (
    "alias.",
    "pager.",
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.fsmonitor",
    "core.hookspath",
    "core.askpass",
    "core.gitproxy",
    "core.worktree",
    "diff.external",
    "sequence.editor",
    "credential.",
    "gpg.",
    "filter.",
    "diff.",
    "merge.",
    "uploadpack.",
    "receivepack.",
    "protocol.",
    "remote.",
    "url.",
    "include.",
    "includeif.",
    "http.",
    "ssh.",
    "interactive.",
    "difftool.",
    "mergetool.",
    "man.",
    "web.",
    "browser.",
    "sendemail.",
    "instaweb.",
    "gc.",
    "init.templatedir",
    "submodule.",
    "fetch.",
)


# Variables that make a program (or bash itself) load or run other code.
_DANGEROUS_ENV = frozenset(
    {
        "PATH",
        "ENV_OPTIONS",
        "BASH_ENV",
        "PROMPT_COMMAND",
        "PS0",
        "PS1",
        "PS2",
        "PS4",
        "IFS",
        "SHELLOPTS",
        "BASHOPTS",
        "GLOBIGNORE",
        "HOME",
        "CDPATH",
        "OLDPWD",
        "XDG_CONFIG_HOME",
        "ZDOTDIR",
        "INPUTRC",
        "PAGER",
        "MANPAGER",
        "GIT_PAGER",
        "EDITOR",
        "VISUAL",
        "SUDO_EDITOR",
        "LESSOPEN",
        "LESSCLOSE",
        "BROWSER",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "GCONV_PATH",
        "GLIBC_TUNABLES",
        "HOSTALIASES",
        "OPENSSL_CONF",
        "OPENSSL_ENGINES",
        "TERMINFO",
        "MAKEFLAGS",
        "MFLAGS",
        "CC",
        "CXX",
        "LDFLAGS",
        "CFLAGS",
        "CPPFLAGS",
    }
)
_DANGEROUS_ENV_PREFIXES = (
    "LD_",
    "DYLD_",
    "GIT_",
    "PYTHON",
    "BASH_FUNC_",
    "NPM_CONFIG_",
    "YARN_",
    "PIP_",
    "MALLOC_",
    "CARGO_",
    "RUSTC",
    "RUSTFLAGS",
    "GOFLAGS",
    "DOCKER_",
    "KUBECONFIG",
)


def is_dangerous_env(name: str) -> bool:
    """True for a variable that makes programs load or run other code (`LD_PRELOAD`, `PAGER`)."""
    upper = name.upper()
    return upper in _DANGEROUS_ENV or upper.startswith(_DANGEROUS_ENV_PREFIXES)
