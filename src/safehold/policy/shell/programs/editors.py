"""Editors: commands given on the command line (`vim -c`, `+CMD`, `emacs --eval`) are code."""

from __future__ import annotations

from safehold.policy.shell.programs.step import Step, StepFn, opaque
from safehold.policy.shell.words import Word

__all__ = ["STEPS"]

_EDITORS = frozenset({"vi", "vim", "nvim", "view", "ex", "gvim", "emacs", "emacsclient"})
# `+10` and `+/pattern` only move the cursor; any other `+CMD`, `-c`, `--cmd` is an ex command
# (`:!rm -rf ~`), and emacs evaluates Lisp.
_EDITOR_CODE = frozenset({"-c", "--cmd", "--eval", "-eval", "--execute"})


def _editor(name: str, words: tuple[Word, ...], stdin_fed: bool) -> Step | None:
    """`vim -c '!rm -rf ~'`, `emacs --eval '(shell-command …)'`: editor commands are code."""
    for w in words[1:]:
        t = w.text
        plus = t.startswith("+") and not (t[1:].isdigit() or t[1:2] in ("", "/", "?"))
        client_eval = name == "emacsclient" and t == "-e"
        if t in _EDITOR_CODE or t.startswith(("--eval=", "--cmd=")) or plus or client_eval:
            return Step(
                opaque=opaque(
                    "inline-code",
                    f"{name} {t[:6]}",
                    f"`{name}` runs editor commands given on the command line, which are not "
                    "analysed",
                )
            )
    return None


STEPS: dict[str, StepFn] = dict.fromkeys(_EDITORS, _editor)
