"""Environment variables: those that make a program (or bash itself) load or run other code,
and those a command shows whose values are the agent's secrets (`shows_environment`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from safehold.policy.shell.programs.jq import jq_shows_environment
from safehold.policy.shell.programs.system import ps_shows_environment
from safehold.policy.shell.words import Word

__all__ = [
    "DECLARATION_BUILTINS",
    "ENVIRONMENT_IMPORTERS",
    "ENVIRONMENT_LISTINGS",
    "ENVIRONMENT_SCRIPTS",
    "ENVIRONMENT_SHOWN_BY",
    "ENVIRONMENT_SUBCOMMANDS",
    "NAME_SETTERS",
    "SHOWS_ENVIRONMENT",
    "declared_names",
    "exported_names",
    "exports_all",
    "imported_setting",
    "is_dangerous_env",
    "is_dangerous_setting",
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
# bash's own (bash manual, "Bash Variables"): `BASH_CMDS` and `BASH_ALIASES` are the
# command hash table and the alias list (assigning an element defines one), `EXECIGNORE`
# hides executables from the PATH search (so another file of the same name runs),
# `BASH_LOADABLES_PATH` is where `enable -f` loads builtins from, `BASH_COMPAT` changes how
# the shell parses and quotes; `POSIXLY_CORRECT` puts bash in POSIX mode and makes GNU
# programs stop reading options at the first operand (getopt(3)), so a word the tables
# read as an option is a file, and the reverse.
_DANGEROUS_ENV = _DANGEROUS_ENV | frozenset(
    {"BASH_CMDS", "BASH_ALIASES", "EXECIGNORE", "BASH_LOADABLES_PATH", "BASH_COMPAT",
     "POSIXLY_CORRECT"}
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
# Programs' own variables that name options, plugins, start-up files, helper programs or
# the files they write, each as good as a word on the command line that is judged:
# - pytest ("Environment variables" in pytest's reference): `PYTEST_ADDOPTS` holds extra
#   command-line options (`--basetemp=/root` empties that directory), `PYTEST_PLUGINS`
#   modules to import as plugins, `PYTEST_DEBUG_TEMPROOT` where `tmp_path` directories go;
# - GNU tar and bsdtar (tar(1), "-f": "If this option is not given, tar uses the value of
#   `TAPE`"): the archive written or read when no `-f` is given;
# - pylint (`pylint --help`, "Environment variables"): `PYLINTRC` the configuration file
#   (which can load plugins), `PYLINTHOME` where its cache is written;
# - wget (wget(1), "Startup File"): `SYSTEM_WGETRC` the system-wide start-up file
#   (`WGETRC`, the user's, is above);
# - rustup and cargo (rustup book, "Environment variables"; cargo book, "Environment
#   variables"): the toolchain (`RUSTUP_TOOLCHAIN` may be a path to one) and where
#   toolchains live and come from, the `rustfmt` and `rustdoc` programs cargo runs;
# - Node's corepack (corepack README, "Environment Variables"): where package managers are
#   downloaded from, kept, and which keys vouch for them, and the env file it loads;
# - OpenSSL-using clients (curl(1), "SSLKEYLOGFILE"; NSS and OpenSSL alike): a file the
#   TLS secrets are appended to;
# - the XDG base directories (XDG Base Directory Specification): where programs read their
#   data files and write caches (`XDG_CONFIG_HOME`, their configuration, is above);
# - GNU make (GNU make manual, "Variables Used by Implicit Rules"): the programs its
#   built-in rules run and their flags; make imports every environment variable as a make
#   variable, so `RM='…' make clean` runs that text;
# - npm (npm docs, "config": `globalconfig` defaults to `$PREFIX/etc/npmrc`, and the
#   `prefix` config to `$PREFIX`): an npmrc from there sets `script-shell`; pnpm reads
#   `pnpm_config_*` as npm reads `npm_config_*` (pnpm docs, "Settings (.npmrc)");
# - coverage.py (coverage docs, "Configuration reference" and "Measuring sub-processes"):
#   `COVERAGE_RCFILE` the configuration file, which names plugins to import,
#   `COVERAGE_PROCESS_START` the one every Python process then starts coverage with;
# - sqlfluff (docs, "Configuration"): `SQLFLUFF_CONFIG`, whose templater imports a library
#   path.
_DANGEROUS_ENV = _DANGEROUS_ENV | frozenset(
    {
        "PREFIX", "COVERAGE_RCFILE", "COVERAGE_PROCESS_START", "SQLFLUFF_CONFIG",
        "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DEBUG_TEMPROOT", "TAPE", "PYLINTRC",
        "PYLINTHOME", "SYSTEM_WGETRC", "RUSTUP_TOOLCHAIN", "RUSTUP_HOME",
        "RUSTUP_DIST_SERVER", "RUSTUP_UPDATE_ROOT", "RUSTFMT", "RUSTDOC", "RUSTDOCFLAGS",
        "COREPACK_NPM_REGISTRY", "COREPACK_HOME", "COREPACK_INTEGRITY_KEYS",
        "COREPACK_ENV_FILE", "SSLKEYLOGFILE", "XDG_CACHE_HOME", "XDG_DATA_HOME",
        "XDG_DATA_DIRS", "XDG_CONFIG_DIRS", "XDG_STATE_HOME",
        # GNU make's built-in programs and their flags (CC, CXX, AR, FC, the *FLAGS of C
        # and the linker are above).
        "AS", "CPP", "M2C", "PC", "CO", "GET", "LEX", "YACC", "LINT", "MAKEINFO", "TEX",
        "TEXI2DVI", "WEAVE", "CWEAVE", "TANGLE", "CTANGLE", "RM", "LD", "ARFLAGS",
        "ASFLAGS", "CXXFLAGS", "COFLAGS", "FFLAGS", "GFLAGS", "LDLIBS", "LFLAGS", "YFLAGS",
        "PFLAGS", "RFLAGS", "LINTFLAGS",
    }
)  # fmt: skip
# Libraries' and helper programs' own variables:
_DANGEROUS_ENV = _DANGEROUS_ENV | frozenset(
    {
        "LOCPATH",  # glibc loads the locale data files from there (setlocale(3), locale(7))
        "NLSPATH",  # glibc's catopen(3) loads message catalogs from there
        "SSH_AUTH_SOCK",  # the ssh agent socket ssh, git and scp sign with (ssh(1))
        "SVN_SSH",  # the tunnel program svn runs for svn+ssh:// (svn book, "Tunneling")
        "HGRCPATH",  # Mercurial's config files, whose hooks run commands (hg help config)
        # The backup suffix of cp, mv, ln, install and patch (coreutils manual, "Backup
        # options"): `SIMPLE_BACKUP_SUFFIX=.json cp -b x .mcp` writes `.mcp.json`.
        "SIMPLE_BACKUP_SUFFIX",
        # kubectl's preferences file (kubernetes.io, "Kubectl user preferences (kuberc)",
        # 1.33+): default option values for each command, `--kubeconfig` among them (whose
        # `exec` plugin kubectl runs); the editor `kubectl edit` runs.
        "KUBERC",
        "KUBE_EDITOR",
        # Info-ZIP zip reads its default options from `ZIPOPT`, or else `ZIP` (zip(1),
        # "ENVIRONMENT": "ZIP [Not on RISC OS and VMS] see ZIPOPT"): `ZIP='-TT CMD -T' zip
        # a.zip f` runs CMD.
        "ZIP",
    }
)
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
    "PNPM_CONFIG_",
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
    "KUBECTL_",  # `KUBECTL_KUBERC` turns the kuberc file on, `KUBECTL_EXTERNAL_DIFF` a program
    # coverage.py, run by pytest-cov from a project's own `addopts`: `COVERAGE_FILE` and
    # `COVERAGE_DEBUG_FILE` name files it writes, `COVERAGE_RCFILE` its settings.
    "COVERAGE_",
)


def is_dangerous_env(name: str) -> bool:
    """True for a variable that makes programs load or run other code (`LD_PRELOAD`, `PAGER`)."""
    upper = name.upper()
    return upper in _DANGEROUS_ENV or upper.startswith(_DANGEROUS_ENV_PREFIXES)


# Directories programs write their temporary files in, and some empty: POSIX's `TMPDIR`
# (XBD "Environment Variables"), `TEMP` and `TMP` (Python's `tempfile.gettempdir`, which
# pytest's `tmp_path` builds on), Go's `GOTMPDIR` (`go help environment`). Harmless while
# they stay below the directory the command runs in or below /tmp.
_TEMP_DIRS = frozenset({"TMPDIR", "TEMP", "TMP", "GOTMPDIR"})


def is_dangerous_setting(name: str, value: Word) -> bool:
    """True for an assignment `name=value` that can make programs run other code, or write
    and delete files elsewhere (`TMPDIR=/root`)."""
    if is_dangerous_env(name):
        return True
    if name.upper() not in _TEMP_DIRS:
        return False
    text = value.text
    parts = text.split("/")
    if not value.static or ".." in parts:
        return True
    return text.startswith("/") and parts[1:2] != ["tmp"]


# Builtins whose `NAME=value` words set variables, whatever the quoting of the word
# (`export 'PATH=/x'` sets PATH as `export PATH=/x` does); bash manual, "Bash Builtins".
DECLARATION_BUILTINS = frozenset({"export", "declare", "typeset", "local", "readonly"})


def _is_name(text: str) -> bool:
    """True for a shell variable's name: ASCII letters, digits and `_`, not led by a digit."""
    return text.isascii() and text.isidentifier()


# A shell variable's name (one character class after another: linear, no backtracking).
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def declared_names(words: tuple[Word, ...]) -> list[tuple[str, str]]:
    """(name, why) for each variable a declaration builtin (`export 'PAGER=id'`) or `let`
    (`let PATH=1`) sets that can make programs run other code, and for each word whose
    variable's name bash computes (`export "$x"`): that may be any variable."""
    out: list[tuple[str, str]] = []
    if words[0].text == "let":
        # Every name in the expressions: `let` assigns with `=`, `+=`, `++`, … anywhere.
        for w in words[1:]:
            for name in _NAME.findall(w.text):
                if is_dangerous_env(name):
                    out.append((name, f"sets `{name}`, which can make programs run other code"))
        return out
    options = True
    for w in words[1:]:
        text = w.text
        if options and text == "--":
            options = False
            continue
        if options and len(text) > 1 and text[0] in "-+":
            continue
        name, eq, value = text.partition("=")
        name = name.removesuffix("+").split("[", 1)[0]
        if _is_name(name):
            if eq and is_dangerous_setting(name, Word(value, w.static)):
                out.append((name, f"sets `{name}`, which can make programs run other code"))
        elif not w.static:
            out.append((text, f"sets a variable whose name `{text}` is computed at run time"))
    return out


# Programs that take every variable of their environment as a setting of their own: GNU
# make (GNU make manual, "Variables from the Environment": "Every environment variable
# that make sees when it starts up is transformed into a make variable"), so any variable
# a rule or recipe uses (`$(RM)`, `$(PYTHON)`) may come from the environment, as
# `make NAME=value` sets it. Harmless: the locale, the terminal and colour names, which no
# makefile runs, and values that are a number or a yes/no switch (`V=1`, `DEBUG=true`),
# which no recipe can run as a program.
ENVIRONMENT_IMPORTERS = frozenset({"make", "gmake"})
_IMPORT_HARMLESS = frozenset({"LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR", "FORCE_COLOR",
                              "CLICOLOR", "COLUMNS", "CI"})  # fmt: skip
_SWITCH_VALUES = frozenset({"yes", "no", "true", "false", "on", "off", "y", "n"})


def imported_setting(program: str, name: str, value: Word | None) -> bool:
    """True when `program` takes the environment variable `name` (set to `value`; None when
    not known) as a setting that may change what it runs (`PY=/tmp/x make`)."""
    if program not in ENVIRONMENT_IMPORTERS or name in _IMPORT_HARMLESS or name.startswith("LC_"):
        return False
    if value is None or not value.static:
        return True
    text = value.text
    return not (text.isdigit() and text.isascii()) and text.lower() not in _SWITCH_VALUES


def exported_names(words: tuple[Word, ...]) -> list[tuple[str, Word | None]]:
    """The variables a declaration builtin puts in the environment of later commands, with
    their values (None: the value it had), as `export A=1 B` or `declare -x A=1` does;
    bash manual, "Bash Builtins"."""
    if not words or words[0].text not in ("export", "declare", "typeset"):
        return []
    texts = [w.text for w in words]
    options = [t for t in texts[1:] if len(t) > 1 and t[0] in "-+" and t != "--"]
    flags = "".join(t for t in options if t[0] == "-")
    if texts[0] == "export" and any(f in flags for f in "nfp"):
        return []
    if texts[0] != "export" and ("x" not in flags or "f" in flags):
        return []
    out: list[tuple[str, Word | None]] = []
    for w in words[1:]:
        if w.text in options or w.text == "--":
            continue
        name, eq, value = w.text.partition("=")
        name = name.removesuffix("+")
        if _is_name(name):
            out.append((name, Word(value, w.static) if eq else None))
    return out


def exports_all(words: tuple[str, ...]) -> bool:
    """True for `set -a` or `set -o allexport`: every variable set afterwards is exported
    (bash manual, "The Set Builtin")."""
    if not words or words[0] != "set":
        return False
    i = 1
    while i < len(words) and words[i] != "--" and words[i][:1] in ("-", "+"):
        w = words[i]
        if w in ("-o", "+o"):
            if w == "-o" and words[i + 1 : i + 2] == ("allexport",):
                return True
            i += 2
            continue
        if w[0] == "-" and "a" in w[1:]:
            return True
        i += 1
    return False


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
