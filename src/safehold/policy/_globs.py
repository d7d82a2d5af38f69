"""What a shell word with braces or glob characters can expand to, for the denied-path check.

Bash expands `{a,b}` and then `*`, `?`, `[...]` against the filesystem before a program sees
its arguments, so `tar cf x ~/.gnup?` reads `~/.gnupg`. The expansion here follows bash's
defaults (no `dotglob`, no `globstar`, no `extglob`) and errs on the side of more matches:
quote characters in a computed word's spelling are dropped, so a quoted `*` is treated as a
glob too. Anything too large to expand within the bounds is reported as unknown (None), which
the caller turns into ASK.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Callable

__all__ = ["MAX_EXPANSIONS", "expand_braces", "expand_globs", "has_expansion"]

MAX_EXPANSIONS = 256
"""Most words one argument may expand to before it counts as unknown."""
MAX_LISTED = 4096
"""Most directory entries read for one argument before it counts as unknown."""

_GLOB = re.compile(r"[*?\[]")
_SEQUENCE = re.compile(r"^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.-?\d+)?$")


def has_expansion(text: str) -> bool:
    """True when bash could expand the word with braces or glob characters."""
    return "{" in text or _GLOB.search(text) is not None


def _unquote(text: str) -> str:
    return text.replace("\\", "").replace("'", "").replace('"', "")


def _matching_brace(text: str, start: int) -> int | None:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _split_top(body: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in body:
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += ch == "{"
        depth -= ch == "}"
        current.append(ch)
    parts.append("".join(current))
    return parts


def _sequence(body: str) -> list[str] | None:
    m = _SEQUENCE.match(body)
    if m is None:
        return None
    a, b = m.group(1), m.group(2)
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        lo, hi = sorted((int(a), int(b)))
        if hi - lo >= MAX_EXPANSIONS:
            return None
        return [str(n) for n in range(lo, hi + 1)]
    if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
        lo, hi = sorted((ord(a), ord(b)))
        return [chr(c) for c in range(lo, hi + 1)]
    return None


def expand_braces(text: str) -> list[str] | None:
    """Every word `{a,b}` / `{1..3}` brace expansion makes of `text`; None past the bound."""
    words = [_unquote(text)]
    done: list[str] = []
    while words:
        word = words.pop()
        start = word.find("{")
        end = -1
        alternatives: list[str] = []
        while start != -1:
            closing = _matching_brace(word, start)
            if closing is None:
                start = -1
                break
            end = closing
            body = word[start + 1 : end]
            alternatives = _split_top(body)
            if len(alternatives) > 1:
                break
            seq = _sequence(body)
            if seq is not None:
                alternatives = seq
                break
            start = word.find("{", start + 1)
        if start == -1:
            done.append(word)
        else:
            head, tail = word[:start], word[end + 1 :]
            words.extend(head + alt + tail for alt in alternatives)
        if len(done) + len(words) > MAX_EXPANSIONS:
            return None
    return done


def _bash_pattern(component: str) -> str:
    # bash's `[^...]` is fnmatch's `[!...]`; `**` without globstar is `*`.
    return component.replace("[^", "[!")


def expand_globs(
    absolute: str, list_directory: Callable[[str], list[str] | None], *, dots: bool = False
) -> list[str] | None:
    """The existing paths a glob on an absolute path matches (the path itself if no glob).

    A component without glob characters is taken literally (bash does not check that it
    exists); a name starting with `.` only matches a pattern starting with `.`, unless
    `dots` (a tool's glob library may match them: node-glob's `dot: true`). Returns None
    when more than `MAX_LISTED` entries or `MAX_EXPANSIONS` matches would be needed.
    """
    if _GLOB.search(absolute) is None:
        return [absolute]
    parts = [p for p in absolute.split("/") if p]
    current = ["/"]
    listed = 0
    for i, part in enumerate(parts):
        if _GLOB.search(part) is None:
            current = [posixpath.join(c, part) for c in current]
            continue
        pattern = _bash_pattern(part)
        last = i == len(parts) - 1
        found: list[str] = []
        for directory in current:
            names = list_directory(directory)
            if names is None:
                continue  # bash too finds nothing in a directory it cannot read
            listed += len(names)
            if listed > MAX_LISTED:
                return None
            for name in names:
                if name.startswith(".") and not pattern.startswith(".") and not dots:
                    continue
                if fnmatch.fnmatchcase(name, pattern):
                    found.append(posixpath.join(directory, name))
        if not last:
            found = [f for f in found if list_directory(f) is not None]
        if len(found) > MAX_EXPANSIONS:
            return None
        current = found
        if not current:
            return []
    return current
