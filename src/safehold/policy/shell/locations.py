"""Where each command runs: the directories a `cd` / `pushd` / `popd` chain may have reached.

The walker keeps one `Location` per shell scope. A directory is a string relative to the
call's base (`.`, `src`, `../..`), home-relative (`~`, `~/x/..`) or absolute; `None` means
"computed at run time" (`cd "$d"`, `cd -`, a `cd` inside a loop body). The set only grows
(a `cd` may fail and leave the shell where it was), except right after `cd X &&`, where the
next command runs in X or not at all. Subshells, `$(…)`, `<(…)` and pipeline stages work on
a copy, so their `cd` does not leak out. `assess` resolves the set against the call's `cwd`.

bash's `cd` is logical (`cd link/..` is where the shell was), but when that directory
cannot be entered it hands the text to chdir(2) as it is (bash's `change_to_directory`,
outside POSIX mode), and the kernel takes `..` after the link (`cd link/../x` is beside
the link's target). A `cd` whose words climb with `..` therefore also keeps that
*physical* candidate, marked with `PHYSICAL` (a NUL, which no bash word holds): its text is
the unnormalised join, and `resolve_dir` takes it as the kernel does (`paths.kernel_path`).
A physical directory stays physical: after the fallback bash's `$PWD` is the real path.
"""

from __future__ import annotations

import functools
import posixpath
from dataclasses import dataclass

from safehold.policy.paths import kernel_path
from safehold.policy.shell.words import Word

__all__ = [
    "BASE",
    "MAX_DIRS",
    "PHYSICAL",
    "Dir",
    "Location",
    "chdir_move",
    "resolve_chdir",
    "resolve_dir",
]

Dir = str | None
BASE = "."
MAX_DIRS = 16
"""More possible directories than this is treated as not knowing where the command runs."""

_CD_BUILTINS = frozenset({"cd", "pushd", "popd"})
# The letters of `cd [-L|[-P [-e]] [-@]]` and `pushd`/`popd -n` (bash manual, "Bourne Shell
# Builtins" and "Directory Stack Builtins"), in any cluster: `cd -eP DIR`.
_CD_LETTERS = frozenset("LPe@n")


PHYSICAL = "\x00"
"""The mark of a directory reached as chdir(2) reaches it (see the module's docstring)."""


def _climbs(path: str) -> bool:
    """True when `path` has a `..` after a name: where the kernel and `normpath` may part."""
    names = [p for p in path.split("/") if p]
    return any(p == ".." and k and names[k - 1] != ".." for k, p in enumerate(names))


def _moves(base: str, target: str) -> set[Dir]:
    """Where `cd TARGET` from `base` may land: the logical directory, and the physical one
    when the words climb (bash's fallback); from a physical directory, the physical one,
    and an unknown one when the target climbs (bash joins it logically to the real path,
    which the text does not tell)."""
    if base.startswith(PHYSICAL):
        raw = PHYSICAL + target if target.startswith("/") else f"{base}/{target}"
        return {raw, None} if _climbs(target) else {raw}
    logical = _join(base, target)
    raw = target if target.startswith("/") else f"{base}/{target}"
    return {logical, PHYSICAL + raw} if _climbs(raw) else {logical}


def chdir_move(base: Dir, target: Word) -> Dir:
    """Where chdir(2) of `target` from `base` lands (a program's `-C DIR`: no logical step):
    physical when the text climbs; None when it is computed."""
    if base is None or not (target.static or target.home):
        return None
    text = target.text
    rooted = text.startswith("/") or (target.home and text.startswith("~"))
    if base.startswith(PHYSICAL):
        return PHYSICAL + text if rooted else f"{base}/{text}"
    raw = text if rooted else f"{base}/{text}"
    if _climbs(raw):
        return PHYSICAL + raw
    return raw if target.home and rooted else _join(base, text)


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
                if text == "~" or text.startswith("~/"):
                    new = _moves("~", text[2:]) if text[2:] else {"~"}
                else:
                    new = {None}
            elif not target.static or text == "-" or (name == "pushd" and text[:1] in "+-"):
                new = {None}  # `cd "$d"`, `cd -` ($OLDPWD), `pushd +1` (a stack rotation)
            else:
                new = set()
                for d in self.dirs:
                    new |= {None} if d is None else _moves(d, text)
        if physical:
            new.add(None)
        self._set(self.dirs | new)
        self.last_cd_at = at
        self.last_new = frozenset(new) if new else None
        self.pushed = self.pushed or name == "pushd"
        return True


def resolve_dir(d: Dir, base: str, home: str) -> str | None:
    """An absolute, normalised directory for `d`; None when it is unknown.

    A `PHYSICAL` directory is taken as the kernel takes it (this looks at the links on
    the way, so it is not remembered across decisions)."""
    if d is None:
        return None
    if d.startswith(PHYSICAL):
        return resolve_chdir(d[len(PHYSICAL) :], base, home)
    return _resolve_dir(d, base, home)


def resolve_chdir(d: str, base: str, home: str) -> str:
    """The directory chdir(2) enters for the text `d` from `base`: a program's own `-C DIR`
    (`env`, `git`, `tar`, `make`), the call's `cwd`, bash's fallback. `..` is taken after
    the links before it (`paths.kernel_path`), not dropped with the name before it."""
    if not _climbs(d):
        return _resolve_dir(d, base, home)
    if d == "~" or d.startswith("~/"):
        full = home.rstrip("/") + d[1:]
    elif d.startswith("/"):
        full = d
    else:
        full = f"{base}/{d}"
    return kernel_path(full if full.startswith("/") else "/" + full)


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
