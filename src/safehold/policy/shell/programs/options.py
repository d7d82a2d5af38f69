"""Option grammars: which words of a program are options and which take a value."""

from __future__ import annotations

from dataclasses import dataclass

from safehold.policy.shell.words import Word

__all__ = ["WrapperOptions", "skip_options"]


@dataclass(frozen=True, slots=True)
class WrapperOptions:
    """A wrapper's option grammar."""

    with_arg: frozenset[str] = frozenset()  # short or long options taking the next word
    flags: frozenset[str] = frozenset()  # options without an argument
    attached: bool = True  # `-n5` / `--opt=value` forms allowed


def skip_options(words: tuple[Word, ...], i: int, opts: WrapperOptions) -> tuple[int, str | None]:
    """Skip a wrapper's options from index i; return the next index, or an unknown option."""
    while i < len(words):
        w = words[i]
        if not w.static:
            return i, w.text if w.text.startswith("-") or w.splits else None
        t = w.text
        if t == "--":
            return i + 1, None
        if not t.startswith("-") or t == "-":
            return i, None
        if t in opts.flags:
            i += 1
            continue
        if t in opts.with_arg:
            i += 2
            continue
        if t.startswith("--") and "=" in t and t.split("=", 1)[0] in opts.with_arg:
            i += 1
            continue
        if not t.startswith("--") and opts.attached:
            # A cluster such as `-nv` or `-n5`: every letter a flag, or a flag run ending
            # in an option that takes the rest of the word as its argument.
            ok = False
            for k in range(1, len(t)):
                letter = "-" + t[k]
                if letter in opts.with_arg:
                    ok = True
                    if k == len(t) - 1:
                        i += 1  # argument is the next word
                    break
                if letter not in opts.flags:
                    break
            else:
                ok = True
            if ok:
                i += 1
                continue
        return i, t
    return i, None
