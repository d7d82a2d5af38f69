"""Environment variables: those that make a program (or bash itself) load or run other code,
and those a command shows whose values are the agent's secrets (`shows_environment`)."""

from __future__ import annotations

from collections.abc import Callable

from safehold.policy.shell.programs.jq import jq_shows_environment
from safehold.policy.shell.programs.system import ps_shows_environment
from safehold.policy.shell.words import Word

__all__ = [
    "ENVIRONMENT_LISTINGS",
    "ENVIRONMENT_SCRIPTS",
    "ENVIRONMENT_SHOWN_BY",
    "ENVIRONMENT_SUBCOMMANDS",
    "NAME_SETTERS",
    "SHOWS_ENVIRONMENT",
    "is_dangerous_env",
    "is_secret_name",
    "names_set",
    "secret_expansions",
]


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
        "MAKEFILES",  # GNU make reads these makefiles first (make(1), "MAKEFILES")
        "GNUMAKEFLAGS",
        "CC",
        "CXX",
        "LDFLAGS",
        "CFLAGS",
        "CPPFLAGS",
    }
)
# The rest of the family (issue 10): start-up files and option variables of shells,
# editors, pagers, archivers, downloaders and language runtimes, each able to name a
# program to run or code to load.
_DANGEROUS_ENV = _DANGEROUS_ENV | frozenset(
    {
        "ENV", "TAR_OPTIONS", "MANOPT", "MANROFFOPT", "MANPL", "VIMINIT", "GVIMINIT",
        "EXINIT", "MYVIMRC", "MYGVIMRC", "VIMRUNTIME", "EMACSLOADPATH", "LESS", "LESSKEY",
        "LESSKEYIN", "LESSKEY_SYSTEM", "LESSEDIT", "LESSSECURE", "SYSTEMD_PAGER",
        "SYSTEMD_EDITOR", "SYSTEMD_LESS", "RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH",
        "RSH", "SHELL", "MAKESHELL", "CONFIG_SHELL", "FCEDIT", "GREP_OPTIONS", "ZIPOPT",
        "UNZIP", "UNZIPOPT", "GZIP", "BZIP2", "BZIP", "XZ_OPT", "XZ_DEFAULTS", "ZSTD_NBTHREADS",
        "WGETRC", "CURL_HOME", "GNUPGHOME", "PHPRC", "PHP_INI_SCAN_DIR", "R_PROFILE",
        "R_PROFILE_USER", "R_ENVIRON", "R_ENVIRON_USER", "R_LIBS", "R_LIBS_USER",
        "TCLLIBPATH", "TCL_LIBRARY", "GEM_HOME", "GEM_PATH", "BUNDLE_GEMFILE", "AWKPATH",
        "AWKLIBPATH", "PERL5DB", "PERLDB_OPTS", "PERL5SHELL", "CLASSPATH", "GOTOOLCHAIN",
        "GOROOT", "MAVEN_OPTS", "GRADLE_OPTS", "JAVA_OPTS", "ANT_OPTS", "SBT_OPTS",
        "DOTNET_STARTUP_HOOKS", "HISTFILE", "TERMINFO_DIRS", "MAIL", "MAILPATH",
    }
)  # fmt: skip
# The go command's (`go help environment`): commands it runs (`GOAUTH`, `GOCACHEPROG`,
# `GCCGO`, `PKG_CONFIG`, `AR`, `FC`), where modules and their checksums come from and
# where they are kept (`GOPROXY`, `GOSUMDB`, `GONOSUMDB`, `GOPRIVATE`, `GONOPROXY`,
# `GOINSECURE`, `GOVCS`, `GOPATH`, `GOMODCACHE`, `GOCACHE`), which go.work and Go
# environment file it reads (`GOWORK`, `GOENV`), where `go install` writes (`GOBIN`).
# `GOOS`, `GOARCH`, `CGO_ENABLED` only choose the target.
_DANGEROUS_ENV = _DANGEROUS_ENV | frozenset(
    {
        "GOAUTH", "GOCACHEPROG", "GCCGO", "GCCGOTOOLDIR", "PKG_CONFIG", "AR", "FC",
        "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOINSECURE", "GOVCS",
        "GOPATH", "GOMODCACHE", "GOCACHE", "GOWORK", "GOENV", "GOBIN", "GO111MODULE",
        # cgo's compiler and linker flags (`-fplugin=…` loads code), and the lists that let
        # a package's `#cgo` lines pass flags the go command otherwise refuses.
        *(f"CGO_{tool}FLAGS{allow}" for tool in ("C", "CPP", "CXX", "F", "LD")
          for allow in ("", "_ALLOW")),
    }
)  # fmt: skip
_DANGEROUS_ENV_PREFIXES = (
    "LUA_INIT",
    "LUA_PATH",
    "LUA_CPATH",
    "JULIA_",
    "DENO_",
    "BUN_",
    "NODE_",
    "CORECLR_",
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
    "GH_",  # gh's pager, browser, editor, config directory, host and token
    "DOCKER_",
    "KUBECONFIG",
)


def is_dangerous_env(name: str) -> bool:
    """True for a variable that makes programs load or run other code (`LD_PRELOAD`, `PAGER`)."""
    upper = name.upper()
    return upper in _DANGEROUS_ENV or upper.startswith(_DANGEROUS_ENV_PREFIXES)


# Builtins that set a variable named by an argument rather than by `NAME=value`:
# builtin -> (options taking a value, options whose value is a name, operands that are names)
# `read PATH`, `printf -v PATH …`, `getopts o PATH`, `mapfile -t PATH`.
NAME_SETTERS: dict[str, tuple[frozenset[str], frozenset[str], str]] = {
    "read": (frozenset({"-d", "-n", "-N", "-p", "-t", "-u", "-i"}), frozenset({"-a"}), "all"),
    "printf": (frozenset(), frozenset({"-v"}), "none"),
    "getopts": (frozenset(), frozenset(), "second"),
    "mapfile": (
        frozenset({"-d", "-n", "-O", "-s", "-u", "-C", "-c"}), frozenset(), "all"
    ),
    "readarray": (
        frozenset({"-d", "-n", "-O", "-s", "-u", "-C", "-c"}), frozenset(), "all"
    ),
}  # fmt: skip
_NAMEREF_BUILTINS = frozenset({"declare", "typeset", "local"})


def names_set(words: tuple[str, ...]) -> list[str]:
    """Variable names a builtin call sets through its arguments (`read PATH`), and the
    targets of namerefs it declares (`declare -n r=PATH`, then `r=…` sets PATH)."""
    if not words:
        return []
    name = words[0]
    if name in _NAMEREF_BUILTINS:
        flags = "".join(w[1:] for w in words[1:] if w.startswith("-") and not w.startswith("--"))
        if "n" not in flags:
            return []
        return [w.partition("=")[2] for w in words[1:] if "=" in w]
    spec = NAME_SETTERS.get(name)
    if spec is None:
        return []
    with_value, name_options, operands = spec
    out: list[str] = []
    rest: list[str] = []
    i = 1
    while i < len(words):
        w = words[i]
        if w == "--":
            rest.extend(words[i + 1 :])
            break
        if w.startswith("-") and len(w) > 1 and not rest:
            opt = w[:2]
            value = w[2:] if len(w) > 2 else (words[i + 1] if i + 1 < len(words) else "")
            if opt in name_options:
                out.append(value)
            i += 1 if len(w) > 2 or (opt not in with_value and opt not in name_options) else 2
            continue
        rest.append(w)
        i += 1
    if operands == "all":
        out.extend(rest)
    elif operands == "second" and len(rest) >= 2:
        out.append(rest[1])
    return out


# -- what a command shows of the environment ---------------------------------------------
#
# On the host a command runs with the agent's environment, which holds its API keys and
# tokens; what it prints goes to the model. (safehold's sandbox passes only
# `sandbox.env_allowlist`.) Programs and builtins that print every variable when given no
# name (GNU coreutils `env`, `printenv`; bash manual, "Bourne Shell Builtins" and "Bash
# Builtins": `export -p`, `set` with no arguments, `declare`/`typeset` with no names,
# `readonly -p`): program -> when it lists.
ENVIRONMENT_LISTINGS: dict[str, str] = {
    # "bare": a listing only with no argument at all (`set -e` sets an option);
    # "options": a listing while every argument is an option (`declare -px`), not a name.
    "env": "options",
    "printenv": "options",
    "export": "options",
    "declare": "options",
    "typeset": "options",
    "readonly": "options",
    "set": "bare",
}

# Programs whose script language reads the environment through a named array: the
# word in the script that does (POSIX awk, "ENVIRON"; gawk, mawk and busybox awk alike).
ENVIRONMENT_SCRIPTS: dict[str, str] = {
    "awk": "ENVIRON",
    "gawk": "ENVIRON",
    "mawk": "ENVIRON",
    "nawk": "ENVIRON",
}

# Programs whose words can make them print the environment, each with the function that
# says why (or None): jq's filter `env` / `$ENV` (jq(1), "$ENV, env"), and ps's BSD `e`
# ("show the environment after the command", ps(1)), in every way procps reads it.
ENVIRONMENT_SHOWN_BY: dict[str, Callable[[tuple[Word, ...]], str | None]] = {
    "jq": jq_shows_environment,
    "ps": ps_shows_environment,
}

# Package managers with a run subcommand whose script named `env` prints the environment
# when the project defines no script of that name: npm's built-in `env` script (npm docs,
# `npm run-script`), yarn classic's (`yarn run env`), and bun and pnpm, whose `run`
# falls back to the `env` program on PATH. Any word `env` among the manager's words
# counts: erring towards asking.
ENVIRONMENT_SUBCOMMANDS: frozenset[str] = frozenset({"npm", "yarn", "pnpm", "bun"})

SHOWS_ENVIRONMENT = "shows-environment"
"""The mode (`Opt.mode`) of an option that makes a program print every variable of its
environment with its value: `make -p` (GNU make manual, "Summary of Options": the data
base lists every variable, those from the environment included)."""

# Parts of a variable's name that say it holds a secret (upper-cased names; the names
# cloud and CI tools use: AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, OPENAI_API_KEY, PGPASSWORD,
# GOOGLE_APPLICATION_CREDENTIALS), and whole names that hold one without saying so.
_SECRET_PARTS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "COOKIE")
_SECRET_NAMES = frozenset({"DATABASE_URL"})


def is_secret_name(name: str) -> bool:
    """True when a variable's name says its value is a secret."""
    upper = name.upper()
    return upper in _SECRET_NAMES or any(part in upper for part in _SECRET_PARTS)


_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def secret_expansions(text: str) -> list[str]:
    """The secret-named variables `text` expands (`$GITHUB_TOKEN`, `${AWS_SECRET_ACCESS_KEY:-}`),
    in one pass. A `$` inside single quotes is counted too: erring towards asking."""
    found: list[str] = []
    i, n = 0, len(text)
    while i < n:
        at = text.find("$", i)
        if at < 0:
            break
        j = at + 1
        if j < n and text[j] == "{":
            j += 1
        start = j
        while j < n and text[j] in _NAME_CHARS:
            j += 1
        name = text[start:j]
        if name and not name[0].isdigit() and is_secret_name(name) and name not in found:
            found.append(name)
        i = max(j, at + 1)
    return found
