"""The shell's own settings the analysis models: `set` options and `shopt` names.

Source: the bash 5.2 manual, "The Set Builtin" and "The Shopt Builtin" (`help set`,
`help shopt`). A setting is listed when the analysis reads a line the same way with it on
or off: it changes error handling, tracing or history, never where a command runs, which
words a glob or an assignment makes, or what a name runs. The others change what the
analysis reads, and are not understood:

- `set -P` / `-o physical`: `cd` resolves links first (`cd link/..` is the target's parent);
- `set -k` / `-o keyword`: `cmd NAME=VALUE` puts NAME in cmd's environment;
- `set -o posix`: assignments before special builtins stay, among other changes;
- `shopt -s lastpipe`: the last stage of a pipeline runs in the shell (its `cd` stays);
- `dotglob`, `globstar`, `nocaseglob`, `extglob`, `globasciiranges`: globs match other
  files than the analysis expands them to (and `extglob` changes the grammar);
- `expand_aliases`: a word runs what an alias says; `cdable_vars`, `cdspell`,
  `dirspell`, `autocd`: `cd` goes elsewhere than its word; `xpg_echo`: `echo` decodes
  escapes, so what it writes is not what the line shows; `sourcepath`: `source` searches
  `PATH`.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["COMPUTED", "SET_LETTERS", "SET_NAMES", "SHOPT_NAMES", "setting_problem"]

SET_LETTERS = frozenset("abefhmnuvxBCEHT")
"""`set -X` letters the analysis reads alike on and off (not k, P, p, t)."""

SET_NAMES = frozenset(
    {
        "allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall",
        "histexpand", "history", "ignoreeof", "monitor",
        "noclobber", "noexec", "noglob", "nolog", "notify", "nounset", "pipefail",
        "verbose", "vi", "xtrace",
    }
)  # fmt: skip
"""`set -o NAME` names the analysis reads alike on and off (not keyword, physical, posix,
privileged, onecmd, interactive-comments: off, `#` starts no comment)."""

SHOPT_NAMES = frozenset(
    {
        "checkhash", "checkjobs", "checkwinsize", "cmdhist", "execfail", "failglob",
        "gnu_errfmt", "histappend", "histreedit", "histverify", "huponexit",
        "inherit_errexit", "lithist", "localvar_inherit",
        "localvar_unset", "login_shell", "mailwarn", "no_empty_cmd_completion",
        "nocasematch", "nullglob", "progcomp", "progcomp_alias", "promptvars",
        "shift_verbose", "complete_fullquote", "direxpand", "force_fignore",
        "hostcomplete", "noexpand_translation", "varredir_close", "assoc_expand_once",
    }
)  # fmt: skip
"""`shopt NAME`s the analysis reads alike on and off. `nullglob`/`failglob` only drop or
refuse a glob that matches nothing; `nocasematch` touches `[[ ]]` and `case` only. Not
`interactive_comments` (off, `#` starts no comment), `extquote`, `patsub_replacement`
(they change what words say), `extdebug` (its DEBUG trap may skip commands)."""


def setting_problem(program: str, args: Sequence[str]) -> str | None:
    """Why `set ARGS…` / `shopt ARGS…` (static words) changes what the analysis reads, or
    None. Query forms (`shopt -q NAME`, `set -o`) and positional parameters (`set -- a b`)
    change nothing."""
    if program == "shopt":
        return _shopt(args)
    return _set(args)


COMPUTED = "\x00"
"""The word `setting_problem` is given for a computed word (`set $opts`)."""


def _set(args: Sequence[str]) -> str | None:
    i = 0
    while i < len(args):
        word = args[i]
        if word == COMPUTED:
            return "`set` with a computed option"
        if word in ("--", "-") or word[:1] not in ("-", "+") or len(word) == 1:
            return None  # the rest are positional parameters
        takes_name = False
        for letter in word[1:]:
            if letter == "o":
                takes_name = True
            elif letter not in SET_LETTERS:
                return f"`set {word[0]}{letter}`"
        i += 1
        if takes_name and i < len(args):
            if args[i] not in SET_NAMES:
                return f"`set {word[0]}o {args[i]}`"
            i += 1
    return None


def _shopt(args: Sequence[str]) -> str | None:
    letters = ""
    names: list[str] = []
    if COMPUTED in args:
        return "`shopt` with a computed word"
    for word in args:
        if word[:1] == "-" and len(word) > 1 and not names:
            letters += word[1:]
        else:
            names.append(word)
    if set(letters) - set("supqo"):
        return f"`shopt -{letters}`"
    if "q" in letters or "p" in letters or not ("s" in letters or "u" in letters):
        return None  # a query or a listing
    listed = SET_NAMES if "o" in letters else SHOPT_NAMES
    for name in names:
        if name not in listed:
            return f"`shopt -{letters} {name}`"
    return None
