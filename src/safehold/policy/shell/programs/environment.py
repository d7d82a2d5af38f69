"""Environment variables that make a program (or bash itself) load or run other code."""

from __future__ import annotations

__all__ = ["is_dangerous_env"]


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
