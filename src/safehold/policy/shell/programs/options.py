"""Option grammars: which words of a program are options and which take a value."""

from __future__ import annotations

from dataclasses import dataclass

from safehold.policy.shell.words import Word

__all__ = ["WrapperOptions", "read_options", "skip_options"]


@dataclass(frozen=True, slots=True)
class WrapperOptions:
    """A wrapper's option grammar."""

    with_arg: frozenset[str] = frozenset()  # short or long options taking the next word
    flags: frozenset[str] = frozenset()  # options without an argument
    attached: bool = True  # `-n5` / `--opt=value` forms allowed
    # Options whose value is optional (getopt's `::`): only a glued one is theirs (`-iR`,
    # `--replace=R`); alone they are flags, and the next word is not their value.
    optional: frozenset[str] = frozenset()


def skip_options(words: tuple[Word, ...], i: int, opts: WrapperOptions) -> tuple[int, str | None]:
    """Skip a wrapper's options from index i; return the next index, or an unknown option."""
    end, bad, _values = read_options(words, i, opts)
    return end, bad


def read_options(
    words: tuple[Word, ...], i: int, opts: WrapperOptions
) -> tuple[int, str | None, list[tuple[str, Word | None]]]:
    """A wrapper's options from index i, as `skip_options` reads them: the next index, an
    unknown option (or None), and each option given, with its value (None for a flag) in
    every spelling the grammar takes: `-C DIR`, `-CDIR`, `--chdir=DIR`, and a cluster
    ending in it (`-iC DIR`, `-iCDIR`). Every check of a wrapper's options reads them here,
    so none of them reads the words otherwise than this one parser does."""
    given: list[tuple[str, Word | None]] = []
    while i < len(words):
        w = words[i]
        if not w.static:
            return i, (w.text if w.text.startswith("-") or w.splits else None), given
        t = w.text
        if t == "--":
            return i + 1, None, given
        if not t.startswith("-") or t == "-":
            return i, None, given
        if t in opts.flags or t in opts.optional:
            given.append((t, None))
            i += 1
            continue
        if t in opts.with_arg:
            given.append((t, words[i + 1] if i + 1 < len(words) else None))
            i += 2
            continue
        if t.startswith("--") and "=" in t and t.split("=", 1)[0] in opts.with_arg | opts.optional:
            name = t.partition("=")[0]
            given.append((name, Word(t.partition("=")[2], w.static, w.splits, w.home)))
            i += 1
            continue
        if not t.startswith("--") and opts.attached:
            # A cluster such as `-nv` or `-n5`: every letter a flag, or a flag run ending
            # in an option that takes the rest of the word as its argument.
            ok = False
            letters: list[tuple[str, Word | None]] = []
            step = 1
            for k in range(1, len(t)):
                letter = "-" + t[k]
                if letter in opts.optional:
                    # `-iR`: the rest of the word is the value; `-i` at the end has none.
                    ok = True
                    rest = t[k + 1 :]
                    value = Word(rest, w.static, w.splits, w.home) if rest else None
                    letters.append((letter, value))
                    break
                if letter in opts.with_arg:
                    ok = True
                    if k == len(t) - 1:
                        step = 2  # argument is the next word
                        letters.append((letter, words[i + 1] if i + 1 < len(words) else None))
                    else:
                        letters.append((letter, Word(t[k + 1 :], w.static, w.splits, w.home)))
                    break
                if letter not in opts.flags:
                    break
                letters.append((letter, None))
            else:
                ok = True
            if ok:
                given.extend(letters)
                i += step
                continue
        return i, t, given
    return i, None, given
