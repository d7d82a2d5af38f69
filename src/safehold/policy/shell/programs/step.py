"""What one program step of the unwrapper yields: the shared vocabulary of `programs/`.

Each family module maps program names to a step function `(name, words, stdin_fed)` that
says what the program runs: an inner command (a wrapper), a shell script to re-analyse,
commands of its own (`find -exec`), or why what it runs is unknown (opaque reasons).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from safehold.policy.shell.words import Word

__all__ = ["Reasons", "Step", "StepFn", "Unwrapped", "opaque", "program_name", "unknown_option"]

Reasons = tuple[tuple[str, str, str], ...]


@dataclass(frozen=True, slots=True)
class Unwrapped:
    """One command after wrapper stripping: the wrapper layers, the inner words, and more."""

    layers: tuple[tuple[Word, ...], ...]
    words: tuple[Word, ...]
    assignments: tuple[tuple[str, Word], ...] = ()
    # (shell, script) for `bash -c script` / static `eval`: re-analysed by the caller.
    script: tuple[str, str] | None = None
    opaque: Reasons = ()
    # Visible code no analysis reads (`python -c CODE`): judged as the agent's own script.
    code: tuple[str, ...] = ()


def program_name(word: Word) -> str:
    """The program's basename: `/usr/bin/rm` is `rm`, `python3.12` is `python3.12`."""
    return word.text.rsplit("/", 1)[-1]


def opaque(code: str, rule: str, message: str) -> Reasons:
    return ((code, rule, message),)


@dataclass(frozen=True, slots=True)
class Step:
    """One wrapper step: the inner words, or a script, or commands of its own, or opaque."""

    inner: tuple[Word, ...] = ()
    assignments: tuple[tuple[str, Word], ...] = ()
    script: tuple[str, str] | None = None
    opaque: Reasons = ()
    extra: tuple[Unwrapped, ...] = ()
    keep_self: bool = False
    self_words: tuple[Word, ...] | None = None
    # (layer, inner words): commands the program runs itself (`find -exec CMD ;`); the
    # unwrapper looks through each in turn, under the given extra wrapper layer.
    nested: tuple[tuple[tuple[Word, ...], tuple[Word, ...]], ...] = ()
    # Visible code no analysis reads (`python -c CODE`, `perl -pe CODE`), next to its
    # `inline-code` reason: the assessment scans it for denied paths.
    code: tuple[str, ...] = ()


StepFn = Callable[[str, tuple[Word, ...], bool], Step | None]


def unknown_option(name: str, option: str) -> Step:
    return Step(
        opaque=opaque(
            "unknown-wrapper-option",
            name,
            f"option `{option}` of `{name}` is not understood, so the program it runs is unknown",
        )
    )
