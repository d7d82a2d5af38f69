"""Where each command runs: the directories a `cd` / `pushd` / `popd` chain may have reached.

The walker keeps one `Location` per shell scope. A directory is a string relative to the
call's base (`.`, `src`, `../..`), home-relative (`~`, `~/x/..`) or absolute; `None` means
"computed at run time" (`cd "$d"`, `cd -`, a `cd` inside a loop body). The set only grows
(a `cd` may fail and leave the shell where it was), except right after `cd X &&`, where the
next command runs in X or not at all. Subshells, `$(…)`, `<(…)` and pipeline stages work on
a copy, so their `cd` does not leak out. `assess` resolves the set against the call's `cwd`.
"""

from __future__ import annotations

import functools
import posixpath
from dataclasses import dataclass

from safehold.policy.shell.words import Word

__all__ = ["BASE", "MAX_DIRS", "Dir", "Location", "resolve_dir"]

Dir = str | None
BASE = "."
MAX_DIRS = 16
"""More possible directories than this is treated as not knowing where the command runs."""

_CD_BUILTINS = frozenset({"cd", "pushd", "popd"})
# The letters of `cd [-L|[-P [-e]] [-@]]` and `pushd`/`popd -n` (bash manual, "Bourne Shell
# Builtins" and "Directory Stack Builtins"), in any cluster: `cd -eP DIR`.
_CD_LETTERS = frozenset("LPe@n")


def _join(base: str, target: str) -> str:
    if target.startswith("/"):
        return posixpath.normpath(target)
    if base.startswith("~"):
        # `~` is resolved later (assess knows HOME); `..` must climb out of it then.
        return f"{base}/{target}"
    return posixpath.normpath(posixpath.join(base, target))


@dataclass(slots=True)
class Location:
    """The directories a command at this point of a script may run in."""

    dirs: frozenset[Dir] = frozenset({BASE})
    pushed: bool = False
    last_cd_at: int = -1
    last_new: frozenset[Dir] | None = None
    # Every directory this scope may have been in (`dirs` narrows after `cd X &&`; the
    # directory stack does not): where a `popd` may return to.
    seen: frozenset[Dir] = frozenset({BASE})

    def __post_init__(self) -> None:
        self.seen = self.seen | self.dirs

    def copy(self) -> Location:
        """A copy for a subshell: its `cd` does not move the parent."""
        return Location(self.dirs, self.pushed, -1, None, self.seen | self.dirs)

    def unknown(self) -> None:
        """Something moved the shell to a directory that cannot be known here."""
        self.dirs = self.dirs | {None}

    def merge(self, other: Location) -> None:
        """The shell may also be where `other` (a scope that may share it) went."""
        if other.dirs != self.dirs:
            self._set(self.dirs | other.dirs)
            self.seen = self.seen | other.seen
            self.pushed = self.pushed or other.pushed

    def _set(self, dirs: frozenset[Dir]) -> None:
        if len(dirs) > MAX_DIRS:
            dirs = frozenset({None})
        self.dirs = dirs
        self.seen = self.seen | dirs

    def apply(self, words: tuple[Word, ...], at: int) -> bool:
        """Apply `cd`/`pushd`/`popd` words (possibly behind `builtin`/`command`); True if one."""
        k = 0
        # `builtin cd`, `builtin -- cd`, `command cd`, `command -p cd` (not `command -v cd`,
        # which only says what `cd` is).
        while k < len(words) - 1 and words[k].static and words[k].text in ("builtin", "command"):
            k += 1
            while k < len(words) - 1 and words[k].static and words[k].text in ("-p", "--"):
                k += 1
        if k >= len(words) or not words[k].static or words[k].text not in _CD_BUILTINS:
            return False
        name = words[k].text
        args = list(words[k + 1 :])
        moved = physical = False
        while args and args[0].text.startswith("-") and args[0].text != "-":
            flag = args[0]
            if name == "pushd" and flag.text[1:].isdigit():
                break  # `pushd -1`: a stack rotation, read below
            args.pop(0)
            if flag.static and flag.text == "--":
                break
            if not flag.static or not set(flag.text[1:]) <= _CD_LETTERS:
                moved = True  # a computed or unknown flag: where it goes is not known
                break
            # `-P` resolves links first (`cd -P link/..` is the link target's parent):
            # the directory the words name, or one the text does not tell.
            physical = physical or "P" in flag.text
            if name == "pushd" and "n" in flag.text:
                return True  # `pushd -n DIR` only adds DIR to the stack
        new: set[Dir]
        if moved:
            new = {None}
        elif name == "popd":
            # Back to a directory this scope was in (any: `+N` rotates), or not known.
            new = set(self.seen | self.dirs) if self.pushed else {None}
        elif not args:
            new = {"~"} if name == "cd" else {None}
        else:
            target = args[0]
            text = target.text
            if target.home and not target.static and text.startswith("~"):
                new = {text} if text == "~" or text.startswith("~/") else {None}
            elif not target.static or text == "-" or (name == "pushd" and text[:1] in "+-"):
                new = {None}  # `cd "$d"`, `cd -` ($OLDPWD), `pushd +1` (a stack rotation)
            else:
                new = {None if d is None else _join(d, text) for d in self.dirs}
        if physical:
            new.add(None)
        self._set(self.dirs | new)
        self.last_cd_at = at
        self.last_new = frozenset(new) if new else None
        self.pushed = self.pushed or name == "pushd"
        return True


def resolve_dir(d: Dir, base: str, home: str) -> str | None:
    """An absolute, normalised directory for `d`; None when it is unknown."""
    if d is None:
        return None
    return _resolve_dir(d, base, home)


@functools.lru_cache(maxsize=4096)
def _resolve_dir(d: str, base: str, home: str) -> str:
    """`resolve_dir` of a known directory: text only (no I/O), so remembered."""
    if d == "~" or d.startswith("~/"):
        full = home.rstrip("/") + d[1:]
    elif d.startswith("/"):
        full = d
    else:
        full = posixpath.join(base, d)
    full = posixpath.normpath(full)
    return "/" + full.lstrip("/") if full.startswith("//") else full
