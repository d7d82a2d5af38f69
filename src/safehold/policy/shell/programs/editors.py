"""Editors: commands given on the command line (`vim -c`, `+CMD`, `emacs --eval`) are code."""

from __future__ import annotations

from safehold.policy.shell.programs.step import Step, StepFn, opaque
from safehold.policy.shell.words import Word

__all__ = ["EDITORS", "STEPS"]

EDITORS = frozenset({"vi", "vim", "nvim", "view", "ex", "gvim", "emacs", "emacsclient"})
# `+10` and `+/pattern` only move the cursor; any other `+CMD`, `-c`, `--cmd` is an ex command
# (`:!rm -rf ~`), and emacs evaluates Lisp.
_EDITOR_CODE = frozenset({"-c", "--cmd", "--eval", "-eval", "--execute"})


def _moves_cursor(word: Word) -> bool:
    """`+`, `+N`, `+/pat` or `+?pat`, spelled out: an argument that only moves the cursor.
    Vim runs `+CMD` as the ex command CMD (vim(1) "+{command}"; `+/pat` is the command
    `/pat`), so text after the pattern's closing delimiter is a command run at that line:
    `+/x/|!id`, `+/x/!id` (a filter), `+?x?w FILE`. A `|` or a line break anywhere is
    read as starting one."""
    rest = word.text[1:]
    if not word.static:
        return False
    if rest == "" or rest.isdigit():
        return True
    if rest[:1] not in ("/", "?") or "|" in rest or "\n" in rest:
        return False  # a `|` or a line break may start a command: read as one
    i = 1
    while i < len(rest):
        if rest[i] == "\\":
            i += 2
        elif rest[i] == rest[0]:
            return i == len(rest) - 1
        else:
            i += 1
    return True


# vim's netrw (`:help netrw-externapp`) reads and writes `scp://`, `sftp://`, `rsync://`,
# `dav://`, `ftp://`, `http://` and `https://` operands by running scp, sftp, rsync, curl
# or wget with the user's credentials: not understood without the sandbox.
# vi(1p), ex(1p): with standard input not a terminal, vi and ex read their commands from it
# (`printf ':!id\n' | vi f`, `ex f < cmds`). ed has no table: not understood anyway.
_READS_COMMANDS = frozenset({"vi", "vim", "nvim", "view", "ex", "gvim"})


def _editor(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    """`vim -c '!rm -rf ~'`, `emacs --eval '(shell-command …)'`: editor commands are code;
    so are the keys of a vi or ex fed by a pipe or `<`."""
    if stdin_fed and name in _READS_COMMANDS:
        return Step(
            opaque=opaque(
                "program-from-stdin",
                name,
                f"`{name}` reads its commands (`:!CMD` runs CMD) from a pipe or redirection",
            )
        )
    for k, w in enumerate(words[1:], start=1):
        t = w.text
        plus = t.startswith("+") and not _moves_cursor(w)
        client_eval = name == "emacsclient" and t == "-e"
        glued = t.startswith(("--eval=", "--cmd=")) or plus
        if t in _EDITOR_CODE or glued or client_eval:
            value = w if glued else (words[k + 1] if k + 1 < len(words) else Word("", True))
            if not (w.static and value.static):
                return Step(
                    opaque=opaque("dynamic-script", name, f"`{name}` runs computed commands")
                )
            return Step(
                opaque=opaque(
                    "inline-code",
                    f"{name} {t[:6]}",
                    f"`{name}` runs editor commands given on the command line, which are not "
                    "analysed",
                ),
                code=(value.text,),
            )
    for w in words[1:]:
        if name in _READS_COMMANDS and "://" in w.text and not w.text.startswith("-"):
            return Step(
                opaque=opaque(
                    "not-understood",
                    f"{name} URL",
                    f"`{name} {w.text}`: netrw fetches (and on `:w` sends) a URL with a "
                    "program of its choosing (scp, rsync, curl, …), which is not analysed",
                )
            )
    return None


STEPS: dict[str, StepFn] = dict.fromkeys(EDITORS | _READS_COMMANDS, _editor)
