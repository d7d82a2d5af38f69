"""Path patterns compiled once per config and workspace: gitignore syntax on absolute paths.

A config pattern is expanded (``{workspace}`` with glob metacharacters escaped, a leading
``~``), anchored (a pattern that does not start with ``/`` matches at any depth, as if it
began with ``**/``), NFC-normalised, case-folded when the volume folds case, and compiled by
pathspec's ``gitignore`` factory. Matching keeps the source pattern of every hit so a reason
can name the exact rule. This module does no I/O: the caller passes resolved roots in.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import pathspec

from safehold.errors import PolicyError

__all__ = [
    "PatternEntry",
    "PatternSet",
    "RootSet",
    "compile_patterns",
    "compile_roots",
    "escape_glob",
    "is_plain",
]

_GLOB_SPECIALS = re.compile(r"([\\*?\[\] !#])")
_GLOB_CHARS = re.compile(r"[\\*?\[\]]")
_DOT_SEGMENTS = re.compile(r"/(?:\./)+|/{2,}")


def escape_glob(path: str) -> str:
    """Escape every character gitignore syntax would read as a wildcard, escape or comment."""
    return _GLOB_SPECIALS.sub(r"\\\1", path)


def is_plain(pattern: str) -> bool:
    """True when the pattern (placeholders aside) names one path, with no wildcard."""
    return not _GLOB_CHARS.search(pattern.replace("{workspace}", ""))


def _fold(text: str, casefold: bool) -> str:
    text = unicodedata.normalize("NFC", text)
    return text.casefold() if casefold else text


def _expand(source: str, workspaces: Sequence[str], homes: Sequence[str]) -> list[str]:
    """Every spelling of a pattern: one per workspace form and home form."""
    # `./build/` means the workspace's build directory; `.` segments and doubled slashes
    # would otherwise be literal to gitignore and never match a canonical path.
    text = "{workspace}/" + source[2:] if source.startswith("./") else source
    while (tidy := _DOT_SEGMENTS.sub("/", text)) != text:
        text = tidy
    if text.endswith("/.") and len(text) > 2:
        text = text[:-1]
    variants = [text]
    if "{workspace}" in text:
        variants = [v.replace("{workspace}", escape_glob(w)) for v in variants for w in workspaces]
    if text == "~" or text.startswith("~/"):
        variants = [escape_glob(h) + v[1:] for v in variants for h in homes]
    # Relative patterns float: `.ssh/`, `.kube/config` and `*.pem` mean "at any depth", the
    # only reading that makes sense for a list matched against absolute paths.
    return [v if v.startswith("/") else "**/" + v for v in variants]


@dataclass(frozen=True, slots=True)
class PatternEntry:
    """One compiled spelling of a config pattern, and the pattern as the config wrote it."""

    source: str
    expanded: str
    regex: re.Pattern[str]


@dataclass(frozen=True, slots=True)
class PatternSet:
    """Compiled patterns, matched as a set: order and duplicates never matter.

    Matching is two-stage. Most patterns have a *witness*: a literal component every path
    they match must contain (`.env`, `id_rsa`, `gen3` in `{workspace}/gen3/`), so only the
    entries whose witness occurs in the path are tried. Patterns whose last component is
    wildcards then a literal (`*.pem`, `?*.env`, `.*_history`) are tried only when some
    component ends with that literal. The rest (`.env.*`) sit behind one union regex that
    matches a superset of them. Either way the entry's own regex decides.
    """

    entries: tuple[PatternEntry, ...]
    by_witness: Mapping[str, tuple[int, ...]]
    rest: tuple[int, ...]
    rest_regex: re.Pattern[str] | None
    by_suffix: Mapping[str, tuple[int, ...]]
    suffix_lengths: tuple[int, ...]

    def _suffix_hits(self, component: str, candidates: set[int]) -> None:
        # Suffixes starting with `.` or `_` (`.pem`, `_history`) are looked up from each such
        # character; any other suffix by its length.
        for sep in "._":
            k = component.find(sep)
            while k >= 0:
                hit = self.by_suffix.get(component[k:])
                if hit is not None:
                    candidates.update(hit)
                k = component.find(sep, k + 1)
        for n in self.suffix_lengths:
            hit = self.by_suffix.get(component[-n:])
            if hit is not None and len(component) >= n:
                candidates.update(hit)

    def may_hold(self, components: Iterable[str]) -> bool:
        """False when no witnessed or suffixed pattern can match a path made of these
        components: none is a witness, none ends in a suffix (the prefilter of `match`,
        for a caller that sees many paths sharing a directory)."""
        candidates: set[int] = set()
        any_suffix = bool(self.suffix_lengths)
        for component in components:
            if component in self.by_witness:
                return True
            if self.by_suffix and (any_suffix or "." in component or "_" in component):
                self._suffix_hits(component, candidates)
                if candidates:
                    return True
        return False

    def may_match_rest(self, form: str) -> bool:
        """True when a pattern with neither witness nor suffix may match the absolute path."""
        if not self.rest:
            return False
        if self.rest_regex is None:
            return True
        stripped = form[1:]
        return bool(self.rest_regex.search(stripped) or self.rest_regex.search(stripped + "/"))

    def match(self, forms: Iterable[str]) -> tuple[PatternEntry, ...]:
        """Every entry that matches one of the absolute paths, as a file or as a directory."""
        # pathspec searches (not matches: `**/` compiles to an unanchored `/`) the path with
        # its leading `/` stripped; trying `p/` too lets a directory pattern (`.ssh/`) cover
        # the bare directory (`/home/u/.ssh`).
        subjects = []
        candidates: set[int] = set()
        by_witness = self.by_witness
        # With only `.`/`_` suffixes (the usual case), a component holding neither has no hit.
        any_suffix = bool(self.suffix_lengths)
        for form in dict.fromkeys(forms):
            stripped = form[1:]
            subjects.append(stripped)
            subjects.append(stripped + "/")
            for component in stripped.split("/"):
                hit = by_witness.get(component)
                if hit is not None:
                    candidates.update(hit)
                if self.by_suffix and (any_suffix or "." in component or "_" in component):
                    self._suffix_hits(component, candidates)
        if self.rest and (self.rest_regex is None or any(map(self.rest_regex.search, subjects))):
            candidates.update(self.rest)
        return tuple(
            self.entries[i]
            for i in sorted(candidates)
            if any(map(self.entries[i].regex.search, subjects))
        )


_LITERAL_COMPONENT = re.compile(r"[^*?\[\]\\\s]+")


def _witness(expanded: str) -> str | None:
    """A component every path matching the pattern contains literally, or None."""
    # INVARIANT: in gitignore syntax a pattern component without `*`, `?`, `[` or `\\`
    # matches exactly one path component equal to it, so a path without it cannot match.
    literal = [c for c in expanded.split("/") if c and _LITERAL_COMPONENT.fullmatch(c)]
    return literal[-1] if literal else None


_SUFFIXED = re.compile(r"[^*?\[\]\\\s]*[*?]+([^*?\[\]\\\s]+)")


def _suffix(expanded: str) -> str | None:
    """The literal every matching path's component ends with (`**/*.pem` -> `.pem`), or None."""
    # INVARIANT: the last pattern component matches one path component (gitignore), so a
    # path without a component ending in the literal cannot match.
    m = _SUFFIXED.fullmatch(expanded.rstrip("/").rpartition("/")[2])
    return m.group(1) if m else None


def _index(entries: Sequence[PatternEntry]) -> PatternSet:
    by_witness: dict[str, list[int]] = {}
    by_suffix: dict[str, list[int]] = {}
    rest: list[int] = []
    for i, entry in enumerate(entries):
        witness = _witness(entry.expanded)
        suffix = _suffix(entry.expanded) if witness is None else None
        if witness is not None:
            by_witness.setdefault(witness, []).append(i)
        elif suffix is not None:
            by_suffix.setdefault(suffix, []).append(i)
        else:
            rest.append(i)
    return PatternSet(
        tuple(entries),
        MappingProxyType({k: tuple(v) for k, v in by_witness.items()}),
        tuple(rest),
        _union([entries[i] for i in rest]),
        MappingProxyType({k: tuple(v) for k, v in by_suffix.items()}),
        tuple(sorted({len(k) for k in by_suffix if not k.startswith((".", "_"))})),
    )


@functools.lru_cache(maxsize=8192)
def _pattern_regex(text: str) -> tuple[re.Pattern[str] | None, str]:
    """The regex of one gitignore-style line, or None and what is wrong with it.

    Cached: a new workspace recompiles only the lines that name it (most of the built-in
    lists do not), so the first decision in a workspace does not pay for every pattern.
    """
    try:
        spec = pathspec.PathSpec.from_lines("gitignore", [text])
    except Exception as exc:  # pathspec raises several types for bad patterns
        return None, f"does not compile: {exc}"
    patterns = list(spec.patterns)
    regex = getattr(patterns[0], "regex", None) if len(patterns) == 1 else None
    # INVARIANT: every pattern is an include pattern with a regex; a dropped or negated
    # pattern would silently narrow a deny list (fail open).
    if patterns[0].include is not True or not isinstance(regex, re.Pattern):
        return None, "compiles to nothing"
    return regex, ""


def compile_patterns(
    sources: Iterable[str],
    *,
    workspaces: Sequence[str],
    homes: Sequence[str],
    casefold: bool,
) -> PatternSet:
    """Compile config patterns for one workspace; a pattern pathspec would drop is an error."""
    entries: dict[tuple[str, str], PatternEntry] = {}
    for source in sorted(set(sources)):
        for expanded in _expand(source, workspaces, homes):
            text = _fold(expanded, casefold)
            if (source, text) in entries:
                continue
            regex, problem = _pattern_regex(text)
            if regex is None:
                raise PolicyError(f"path pattern `{source}` {problem}")
            entries[(source, text)] = PatternEntry(source, text, regex)
    return _index([entries[k] for k in sorted(entries)])


_FLOATING = "^(?:.+/)?"


def _union(entries: Sequence[PatternEntry]) -> re.Pattern[str] | None:
    """One regex that matches (searched) whenever some entry matches: a cheap first test.

    Anchored entries (`^etc/shadow...`) join one `^(?:...)` group; floating ones
    (`^(?:.+/)?\\.env...`) are searched after any `/` instead of backtracking over every
    prefix. That second form matches a superset, so a miss is always a true miss.
    """
    if not entries:
        return None
    anchored: list[str] = []
    floating: list[str] = []
    for e in entries:
        source = e.regex.pattern
        if "(?P" in source or e.regex.flags & ~re.UNICODE:
            return None  # cannot merge safely; match entry by entry
        if source.startswith(_FLOATING):
            floating.append(source[len(_FLOATING) :])
        elif source.startswith("^"):
            anchored.append(source[1:])
        else:
            return None  # an unanchored shape (`**` compiles to `.`): no shortcut
    parts = []
    if anchored:
        parts.append("^(?:" + "|".join(f"(?:{a})" for a in anchored) + ")")
    if floating:
        parts.append("(?:^|/)(?:" + "|".join(f"(?:{f})" for f in floating) + ")")
    return re.compile("|".join(parts))


@dataclass(frozen=True, slots=True)
class RootSet:
    """Allowed roots: plain roots compared by path components, and glob patterns."""

    roots: tuple[str, ...]
    globs: PatternSet
    sources: tuple[str, ...]

    def contains(self, path: str) -> bool:
        """True when the path is a root, lies below one (by components), or matches a glob."""
        for root in self.roots:
            if path == root or path.startswith(root if root == "/" else root + "/"):
                return True
        return bool(self.globs.entries) and bool(self.globs.match((path,)))


def compile_roots(
    plain: Iterable[tuple[str, str]],
    globs: Iterable[str],
    *,
    workspaces: Sequence[str],
    homes: Sequence[str],
    casefold: bool,
    sources: Iterable[str],
) -> RootSet:
    """Build the allowed set from already-resolved plain roots `(source, root)` and globs."""
    roots = sorted({_fold(root, casefold) for _, root in plain})
    glob_set = compile_patterns(globs, workspaces=workspaces, homes=homes, casefold=casefold)
    return RootSet(tuple(roots), glob_set, tuple(sorted(set(sources))))
