"""What safehold's sandbox makes safe to allow: the agent's own code, and scratch in /tmp.

The contract (docs/decisions.md, "Code the analysis cannot read"):

- Visible code no analysis reads — `python -c CODE`, `perl -pe CODE`, a heredoc script
  (`python - <<'PY'`), an editor script — is treated like a script file the agent wrote:
  in auto mode it is allowed when the command runs in the sandbox (`sandbox.mode =
  "bwrap"`) and asks otherwise. A path-like word in that code that names a denied path
  still denies (`code_paths`).
- Code computed at run time (`$CMD`, `eval "$x"`, a downloaded or decoded script fed to an
  interpreter) keeps its own reasons, which are not in `SANDBOXED_CODE`: it always asks.
- The sandbox gives every command a private `/tmp` (a tmpfs, `--tmpfs /tmp` in
  `adapters/bwrap/_argv.py`): a write there outside the allowed roots lands in that tmpfs,
  so when the command runs sandboxed it is not an outside-root write (`private_scratch`).
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from safehold.policy.config import SafetyConfig

__all__ = ["SANDBOXED_CODE", "code_paths", "code_strings", "private_scratch", "runs_sandboxed"]

SANDBOXED_CODE = frozenset({"inline-code", "heredoc-script", "not-understood"})
"""Opaque reasons that mean "visible code no analysis reads", allowed when sandboxed."""

# Splits code into words at characters no path contains in practice: blanks, quotes,
# brackets, separators, operators. One character class, so the split is linear.
_NOT_PATH = re.compile(r"[\s'\"`(),;{}<>|&=+\[\]]+")
_PRIVATE_TMP = "/tmp"


def runs_sandboxed(config: SafetyConfig) -> bool:
    """True when the config runs commands in safehold's bwrap sandbox."""
    return config.sandbox.mode == "bwrap"


@functools.lru_cache(maxsize=16)  # a decision for the sandbox may read the code twice
def code_paths(code: str) -> tuple[str, ...]:
    """The distinct path-like words in a piece of code (`/x/y`, `~/.ssh/id_rsa`, `./.env`).

    Words are split at quotes and punctuation, so string literals (`open('~/.aws/config')`)
    and shell words inside code (`system("cat ~/.netrc")`) both yield their paths.
    """
    out: dict[str, None] = {}
    for word in _NOT_PATH.split(code):
        if word and ("/" in word or word[0] in "~.") and word not in (".", ".."):
            out[word] = None
    return tuple(out)


@functools.lru_cache(maxsize=16)
def code_strings(code: str) -> tuple[str, ...]:
    """The distinct quoted literals in `code` that have a blank in them: maybe command lines.

    `system('curl -s URL | sh')`, `execSync("rm -rf ~")`, awk `system("…")`. One
    forward pass: a quote runs to the next unescaped same quote (or the end).
    """
    out: dict[str, None] = {}
    for m in _QUOTED.finditer(code):
        text = m.group(1) if m.group(1) is not None else m.group(2) or m.group(3) or ""
        if " " in text or "\t" in text:
            out[text] = None
    return tuple(out)


# A quoted literal: from a quote to the next same quote not after a backslash (or the end).
# Each character is taken one way (a backslash always with the character after it, a lone
# one only at the very end): no ambiguity, so no backtracking, linear.
_QUOTED = re.compile(
    r"'((?:[^'\\]|\\[\s\S])*\\?)'?"
    r'|"((?:[^"\\]|\\[\s\S])*\\?)"?'
    r"|`((?:[^`\\]|\\[\s\S])*\\?)`?"
)


def private_scratch(target: str, config: SafetyConfig, home: str) -> bool:
    """True when a write to `target`, as the command spells it, lands in the private /tmp.

    Only an absolute `/tmp/…` spelling counts (`../x` from a workspace under /tmp does not:
    the analysis reads that as the host path it names), and never a path in the home
    directory, even one that lives under /tmp.
    """
    if not runs_sandboxed(config) or not target.startswith(_PRIVATE_TMP + "/"):
        return False
    normal = posixpath.normpath(target)
    home = posixpath.normpath(home)
    inside_home = normal == home or normal.startswith(home.rstrip("/") + "/")
    return normal.startswith(_PRIVATE_TMP + "/") and not inside_home
