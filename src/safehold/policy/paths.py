"""Path policy: canonicalise a path against the session workspace, then match the lists.

Canonicalisation (SPEC §4): reject control and invisible formatting characters; expand a
leading ``~``; make the path absolute against the *session workspace* (never the process
cwd); resolve symlinks the way the kernel will (for a path that does not exist yet, through
its deepest existing parent, following dangling links); collapse ``.``/``..``/``//``;
NFC-normalise; case-fold on case-insensitive volumes. Two forms are kept: the *literal*
(lexically normalised) and the *resolved* one. Deny matches either; allow needs the resolved
form inside a root; a write matching a protected pattern asks.

The only I/O in the policy package lives here, in `resolve_path`, `volume_folds_case` and
`list_directory` (lstat/readlink, an `O_PATH` open and a directory listing, never a file
read); tests may replace any of them.
"""

from __future__ import annotations

import fnmatch
import functools
import itertools
import os
import posixpath
import re
import stat
import sys
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal

import pathspec

from safehold.errors import PolicyError, value_kind
from safehold.policy import _patterns, tree_scan
from safehold.policy._globs import expand_globs
from safehold.policy._memo import remember
from safehold.policy._patterns import PatternEntry, PatternSet, RootSet
from safehold.policy.config import ENV_TEMPLATE_NAMES, SafetyConfig
from safehold.policy.decision import Reason, Verdict

__all__ = [
    "Access",
    "CanonicalPath",
    "CompiledPolicy",
    "PathCheck",
    "PathRejected",
    "compile_policy",
    "entry_exists",
    "kernel_path",
    "link_points_to",
    "links_below",
    "list_directory",
    "resolve_path",
    "selects_any_name",
    "volume_folds_case",
]

Access = Literal["read", "write", "run"]
"""`run`: the directory a command runs in (outside the roots is denied, never protected)."""

MAX_PATH_CHARS = 4096
_MAX_LINK_HOPS = 40  # the kernel's own limit (MAXSYMLINKS)
# C0/C1 controls, DEL, surrogates, and invisible characters that can make a path shown to a
# person differ from the path used (bidi overrides, zero-width, line separators, BOM).
_BAD_CHARS = re.compile(
    "[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)
# Names that are other processes' views of the filesystem, or not files at all for bash.
_MAGIC = re.compile(
    r"^/(?:proc/(?:self|thread-self|\d+)|dev/(?:fd|stdin|stdout|stderr|tcp|udp))(?=/|$)"
)
# Sinks any tool may touch wherever the allowed roots are.
_ALWAYS_INSIDE = frozenset({"/dev/null"})


class PathRejected(ValueError):
    """A path that cannot be canonicalised safely; it carries the reason for the DENY."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason.message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class CanonicalPath:
    """A path's two matching forms and whether resolving it went through a magic link."""

    literal: str
    resolved: str
    via_magic: bool

    @property
    def canonical(self) -> str:
        """The resolved form: what a grant for this path is filed under."""
        return self.resolved


@dataclass(frozen=True, slots=True)
class PathCheck:
    """The verdict of SPEC §3 step 2 for one path, its reasons and its canonical form.

    ``approvable`` marks an ASK that an "always allow" grant for this path may lift (a read
    outside the allowed roots, a write under `readonly_paths`); a protected-path ASK is not.
    """

    verdict: Verdict
    reasons: tuple[Reason, ...]
    canonical: str | None
    approvable: bool = False


# -- filesystem access (the only I/O in policy/) --------------------------------------------


def resolve_path(path: str) -> tuple[str, bool]:
    """Resolve symlinks in an absolute path; return it and whether a magic link was crossed.

    Fast path: let the kernel resolve it (`O_PATH` open, then read `/proc/self/fd/N`). When
    that fails, or when symlinks or `..` are involved, walk the components with lstat and
    readlink, so a hop through `/proc/self/...` is seen and loops are an error.
    """
    lexical = _lexical(path)
    fast = _kernel_resolve(path)
    if fast is not None and fast == lexical and "/.." not in path:
        return fast, False
    return _walk(path)


def _kernel_resolve(path: str, depth: int = 0) -> str | None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        head, _, tail = path.rpartition("/")
        if tail in ("", ".", "..") or depth > 64 or os.path.islink(path):
            return None  # a dangling link or a lexical step: leave it to the walk
        parent = _kernel_resolve(head or "/", depth + 1)
        return None if parent is None else posixpath.join(parent, tail)
    except (OSError, ValueError, AttributeError):
        return None
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    finally:
        os.close(fd)
    if not target.startswith("/") or target.endswith(" (deleted)"):
        return None
    return target


def _walk(path: str) -> tuple[str, bool]:
    """Component-by-component realpath that reports magic hops and refuses loops."""
    pending = path.split("/")
    pending.reverse()
    resolved = ""
    via_magic = False
    hops = 0
    while pending:
        name = pending.pop()
        if name in ("", "."):
            continue
        if name == "..":
            resolved = resolved.rpartition("/")[0]
            continue
        candidate = f"{resolved}/{name}"
        try:
            st = os.lstat(candidate)
        except (OSError, ValueError):
            resolved = candidate  # does not exist (yet): the rest is taken literally
            continue
        if not stat.S_ISLNK(st.st_mode):
            resolved = candidate
            continue
        hops += 1
        if hops > _MAX_LINK_HOPS:
            raise OSError(40, "too many levels of symbolic links", path)
        if _MAGIC.match(candidate):
            via_magic = True
        target = os.readlink(candidate)
        if target.startswith("/"):
            resolved = ""
        parts = target.split("/")
        parts.reverse()
        pending.extend(parts)
    return resolved or "/", via_magic


def link_points_to(path: str) -> str | None:
    """Where the symbolic link at the absolute `path` leads (resolved); None when no link
    is there (lstat, then `resolve_path`)."""
    try:
        if not stat.S_ISLNK(os.lstat(path).st_mode):
            return None
        return resolve_path(path)[0]
    except (OSError, ValueError):
        return None


MAX_LINKS_WALK = 4096
"""Entries `links_below` looks at before it gives up."""


def links_below(root: str, limit: int = MAX_LINKS_WALK) -> tuple[list[tuple[str, str]], bool]:
    """The symbolic links inside the directory `root` (absolute), as (path relative to
    `root`, where it leads, resolved), found without following a link; and False when the
    walk stopped at `limit` entries before seeing everything. Empty for a `root` that is
    no directory, or is itself a link (`link_points_to` tells where that leads)."""
    out: list[tuple[str, str]] = []
    try:
        if not stat.S_ISDIR(os.lstat(root).st_mode):
            return out, True
    except (OSError, ValueError):
        return out, True
    seen = 0
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            entries = os.scandir(posixpath.join(root, rel) if rel else root)
        except (OSError, ValueError):
            continue
        with entries:
            for entry in entries:
                seen += 1
                if seen > limit:
                    return out, False
                name = posixpath.join(rel, entry.name) if rel else entry.name
                try:
                    if entry.is_symlink():
                        target = link_points_to(entry.path)
                        if target is not None:
                            out.append((name, target))
                    elif entry.is_dir(follow_symlinks=False):
                        stack.append(name)
                except OSError:
                    continue
    return out, True


def kernel_path(path: str) -> str:
    """Where the kernel takes the absolute `path`, normalised, its last names unresolved.

    A program hands `x/../y` to a system call as it is, and the kernel takes each `..`
    after the links before it (`link/..` is the parent of the link's target), where
    `posixpath.normpath` only drops a name. The part up to the last `..` is resolved as
    the kernel does; the names after it stay as spelled, so a link there is still judged
    by its own name and then by where it points. The lexical form is returned whenever
    it reaches the same place, so a path without links is spelled as before. A part the
    kernel cannot resolve (a loop) fails the call there: the lexical form is returned.
    """
    lexical = _lexical(path)
    parts = path.split("/")
    if ".." not in parts:
        return lexical
    last = len(parts) - 1 - parts[::-1].index("..")
    prefix = "/".join(parts[: last + 1]) or "/"
    rest = "/".join(parts[last + 1 :])
    try:
        physical = _walk(prefix)[0]
        if physical == _walk(_lexical(prefix))[0]:
            return lexical
    except (OSError, ValueError):
        return lexical
    return _lexical(f"{physical}/{rest}" if rest else physical)


def volume_folds_case(root: str) -> bool:
    """Detect whether the volume holding `root` is case-insensitive (lstat only)."""
    probe = root
    while True:
        head, _, name = probe.rpartition("/")
        if name and name.swapcase() != name:
            try:
                a = os.lstat(probe)
            except OSError:
                a = None
            if a is not None:
                try:
                    b = os.lstat(f"{head}/{name.swapcase()}")
                except OSError:
                    return False
                return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
        if not head:
            return sys.platform in ("darwin", "win32")
        probe = head


def entry_exists(path: str) -> bool:
    """True when something (a file, directory or link) is at the absolute path (lstat only)."""
    try:
        os.lstat(path)
    except (OSError, ValueError):
        return False
    return True


def list_directory(path: str) -> list[str] | None:
    """The names in a directory (what a shell glob can expand to); None if it cannot be listed."""
    try:
        return os.listdir(path)
    except (OSError, ValueError):
        return None


# -- canonicalisation ------------------------------------------------------------------------


def _lexical(path: str) -> str:
    out = posixpath.normpath(path)
    # POSIX keeps exactly two leading slashes; Linux treats them as one.
    return "/" + out.lstrip("/") if out.startswith("//") else out


def _reject(code: str, message: str) -> PathRejected:
    return PathRejected(Reason(code, "path-canonicalisation", message))


def _absolute(raw: object, workspace: str, home: str) -> str:
    """Validate the raw argument and make it absolute against the workspace."""
    if isinstance(raw, bytes):
        raw = os.fsdecode(raw)
    if not isinstance(raw, str):
        raise _reject("path-invalid", f"a path must be a string, got {value_kind(raw)}")
    if not raw:
        raise _reject("path-invalid", "the path is empty")
    if len(raw) > MAX_PATH_CHARS:
        raise _reject("path-invalid", f"the path is longer than {MAX_PATH_CHARS} characters")
    bad = _BAD_CHARS.search(raw)
    if bad:
        raise _reject(
            "path-invalid",
            f"path {raw!r} contains the control or invisible character U+{ord(bad.group()):04X}",
        )
    if raw[:5].lower() == "file:":
        # Some tools open `file://` URLs; the policy would see a harmless relative name.
        raise _reject("path-invalid", f"path `{raw}` is a `file:` URL; pass a plain path")
    if raw.startswith("~"):
        if raw != "~" and not raw.startswith("~/"):
            raise _reject(
                "path-invalid", f"path `{raw}` names another user's home (`~user` is not expanded)"
            )
        raw = home + raw[1:]
    return raw if raw.startswith("/") else f"{workspace}/{raw}"


def canonicalize(raw: object, *, workspace: str, home: str, casefold: bool) -> CanonicalPath:
    """Canonicalise one path argument; raise `PathRejected` (a DENY) when it cannot be."""
    absolute = _absolute(raw, workspace, home)
    try:
        resolved, via_magic = resolve_path(absolute)
    except OSError as exc:
        raise _reject(
            "path-unresolvable", f"path `{raw}` cannot be resolved: {exc.strerror}"
        ) from None
    except (ValueError, UnicodeError) as exc:
        raise _reject("path-unresolvable", f"path `{raw}` cannot be resolved: {exc}") from None
    if _BAD_CHARS.search(resolved):
        raise _reject(
            "path-invalid", f"path `{raw}` resolves through a link to a control character"
        )
    literal = _lexical(unicodedata.normalize("NFC", absolute))
    resolved = unicodedata.normalize("NFC", resolved)
    if _MAGIC.match(literal) or _MAGIC.match(resolved):
        via_magic = True
    if casefold:
        literal, resolved = literal.casefold(), resolved.casefold()
    return CanonicalPath(literal, resolved, via_magic)


# One decision's look at the filesystem: inside `one_look` (each `evaluate`), a path string
# resolved once is not resolved again for that decision (a sandboxed command that is judged
# a second time for the host names the same paths twice). Never across decisions: a link
# may change between two calls.
_LOOKED: ContextVar[dict[tuple[str, str, str, bool], CanonicalPath | Reason] | None] = ContextVar(
    "safehold_one_look", default=None
)


# The same decision's checks of what it looked at: a check whose inputs are equal in both
# passes of a sandboxed command (the sandbox's and the host's) is made once, and its findings
# are told to the second pass (`shell.assess`). Never across decisions, for the same reason.
_CHECKED: ContextVar[dict[object, object] | None] = ContextVar(
    "safehold_one_look_checks", default=None
)


def looked_checks() -> dict[object, object] | None:
    """This decision's memo of checks (keyed by their inputs), or None outside `one_look`."""
    return _CHECKED.get()


class one_look:  # used as `with one_look():`, like a function
    """Within the block, each path string is canonicalised once (per workspace and home).

    `checks`: also make each check of `looked_checks` once, for a decision that may judge
    the command twice (the sandboxed runner's); a decision of one pass only pays nothing.
    A class rather than a `contextlib.contextmanager` generator: it is entered once per
    decision, and the generator's set-up costs more than the two calls it makes.
    """

    __slots__ = ("_checks", "_shared", "_token")

    def __init__(self, checks: bool = False) -> None:
        self._shared = checks

    def __enter__(self) -> None:
        self._token = _LOOKED.set({})
        self._checks = _CHECKED.set({} if self._shared else None)

    def __exit__(self, *exc: object) -> None:
        _CHECKED.reset(self._checks)
        _LOOKED.reset(self._token)


# -- the compiled policy ---------------------------------------------------------------------


def _sorted_reasons(reasons: list[Reason]) -> tuple[Reason, ...]:
    return tuple(sorted(set(reasons), key=lambda r: (r.code, r.rule, r.message)))


def _describe(raw: object, entry: PatternEntry, c: CanonicalPath, what: str) -> str:
    literal_hit = any(entry.regex.search(s) for s in (c.literal[1:], c.literal[1:] + "/"))
    if literal_hit or c.literal == c.resolved:
        return f"path `{raw}` matches {what} pattern `{entry.source}`"
    return f"path `{raw}` resolves to `{c.resolved}`, which matches {what} pattern `{entry.source}`"


_MEMO_SIZE = 1024  # judged canonical paths remembered per compiled policy

# What a compiled policy's checks read, numbered (`CompiledPolicy.lists_key`); a number is
# never given twice, so one forgotten and met again is only a new number.
_LISTS_KEYS: OrderedDict[tuple[object, ...], int] = OrderedDict()
_LISTS_COUNT = itertools.count()


def _lists_key(policy: CompiledPolicy) -> int:
    c = policy.config
    lists = (
        policy.workspace, policy.home, policy.casefold, c.denied_paths, c.protected_paths,
        c.write_denied_paths, c.allowed_paths, c.readonly_paths, c.outside_reads,
    )  # fmt: skip
    key = _LISTS_KEYS.get(lists)
    if key is None:
        key = next(_LISTS_COUNT)
        remember(_LISTS_KEYS, lists, key, 64)
    return key


@dataclass(frozen=True, slots=True)
class _Memo:
    """Bounded caches of a policy's pure steps (`CompiledPolicy._judge` and `_denied`)."""

    judge: Callable[[str, CanonicalPath, Access], PathCheck]
    denied: Callable[[str, CanonicalPath], tuple[Reason, ...]]
    lists_key: int


@dataclass(frozen=True, slots=True)
class CompiledPolicy:
    """The path lists of one config compiled for one workspace; `check_path` only matches."""

    config: SafetyConfig
    workspace: str
    home: str
    casefold: bool
    denied: PatternSet
    protected: PatternSet
    allowed: RootSet | None
    readonly: RootSet | None = None
    write_denied: PatternSet | None = None
    _memo: _Memo = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Everything after canonicalisation is a pure function of the frozen lists and the
        # canonical forms, so it is remembered per policy (bounded); canonicalisation itself
        # reads the filesystem and runs on every call.
        object.__setattr__(
            self,
            "_memo",
            _Memo(
                functools.lru_cache(maxsize=_MEMO_SIZE)(self._judge),
                functools.lru_cache(maxsize=_MEMO_SIZE)(self._denied),
                _lists_key(self),
            ),
        )

    @property
    def lists_key(self) -> int:
        """Equal for two policies that judge every path alike: the same workspace, home and
        path lists (the config's sandbox mode, which no path check reads, may differ), so a
        check made with one holds for the other (`looked_checks`)."""
        return self._memo.lists_key

    def canonicalize(self, raw: object) -> CanonicalPath:
        """Canonicalise a path against this workspace; `PathRejected` when it cannot be."""
        looked = _LOOKED.get()
        if looked is None or type(raw) is not str:
            return canonicalize(
                raw, workspace=self.workspace, home=self.home, casefold=self.casefold
            )
        key = (raw, self.workspace, self.home, self.casefold)
        seen = looked.get(key)
        if seen is None:
            try:
                seen = canonicalize(
                    raw, workspace=self.workspace, home=self.home, casefold=self.casefold
                )
            except PathRejected as exc:
                seen = exc.reason
            looked[key] = seen
        if isinstance(seen, Reason):
            raise PathRejected(seen)
        return seen

    def names_entry(self, text: str) -> bool:
        """True when a relative string names an existing entry of the workspace."""
        if not text or text.startswith(("/", "~")) or len(text) > 255 or _BAD_CHARS.search(text):
            return False
        return entry_exists(f"{self.workspace}/{text}")

    def check_glob(self, raw: str, *, names: bool = False) -> PathCheck:
        """Judge a glob/include filter: DENY when it can select a denied file, ASK when its
        fixed part lies outside the roots (like a read there), or when what it matches on
        disk leads there. `names`: the tool lists the matches and opens none (a search
        tool's glob), so a match is judged only where the tool walks through it."""
        if not isinstance(raw, str) or not raw.strip() or len(raw) > 1024:
            reason = Reason("glob-invalid", "glob", f"glob filter {raw!r} is empty or too long")
            return PathCheck(Verdict.ASK, (reason,), None)
        text = raw.strip()
        text = text[1:] if text.startswith("!") else text  # an exclusion is still a glob
        reasons: list[Reason] = []
        outside: list[Reason] = []
        for alternative in _globs_expand_braces(text):
            prefix = _glob_prefix(alternative)
            if prefix:
                # Relative too: its fixed part may pass through a link out of the roots
                # (`docs/**` with `docs` a link to the home directory).
                check = self.check_path(prefix, "read")
                if check.verdict is Verdict.DENY:
                    reasons.extend(check.reasons)
                elif check.verdict is Verdict.ASK:
                    outside.extend(check.reasons)
            # What the filter's components before any `**` match on disk, each judged as a
            # read where it resolves: `h*/notes.txt` reaches through a link `homelink`
            # out of the roots, `lib/*/x` through `lib/vendor`.
            for check in self._glob_reach(alternative, names=names):
                if check.verdict is Verdict.DENY:
                    reasons.extend(check.reasons)
                elif check.verdict is Verdict.ASK:
                    outside.extend(check.reasons)
            witness = _glob_witness(alternative)
            for r in self.check_denied(witness) if witness else ():
                if r.code == "path-denied":
                    reasons.append(_glob_reason(raw, r.rule))
            for source, sample in self._samples():
                if _glob_selects(alternative, sample):
                    reasons.append(_glob_reason(raw, source))
        if reasons:
            return PathCheck(Verdict.DENY, _sorted_reasons(reasons), None)
        if outside:
            return PathCheck(Verdict.ASK, _sorted_reasons(outside), None, approvable=True)
        return PathCheck(Verdict.ALLOW, (), None)

    def _glob_reach(self, pattern: str, *, names: bool = False) -> list[PathCheck]:
        """The checks of the entries a filter's components up to its first `**` match (the
        tool's glob library walks through links there); `glob-unchecked` past the bounds."""
        deep = "**" in pattern
        head = pattern.split("**", 1)[0].rpartition("/")[0] if deep else pattern.rstrip("/")
        if names and not deep:
            head = head.rpartition("/")[0]  # the last component's matches are only listed
        if not head and (names or not deep):
            return []  # `**/x` lists names; a glob library follows no link for it
        head = head or "."  # a reader's `**/x` reads the files below the workspace
        if head.startswith("~"):
            head = self.home + head[1:]
        elif not head.startswith("/"):
            head = f"{self.workspace}/{head}"
        matches = expand_globs(head, list_directory, dots=True)
        if matches is None:
            return [_glob_unchecked(pattern)]
        checks = [self.check_path(match, "read") for match in matches]
        if deep or (_GLOB_META.search(pattern) is None and not names):
            # Below `dir/**` (and a bare directory, which Gemini CLI's `read_many_files`
            # reads as `dir/**`) node-glob follows a link: one leading out is a read there.
            budget = tree_scan.MAX_TREE_ENTRIES
            for match, check in list(zip(matches, checks, strict=True)):
                if check.verdict is not Verdict.ALLOW or not os.path.isdir(match):
                    continue
                scan = tree_scan.denied_below(
                    self,
                    match,
                    follow_links=bool(pattern.split("**", 1)[0]),
                    skip_hidden=False,
                    limit=max(budget, 0),
                    flag=tree_scan.link_objection(self),
                    names_only=names,  # a reader (`read_many_files`) reads what is below
                )
                budget -= scan.seen
                checks.extend(self.check_path(path, "read") for path, _ in scan.denied)
                checks.extend(self.check_path(path, "read") for path, _ in scan.flagged)
                if not scan.complete:
                    checks.append(_glob_unchecked(pattern))
        return checks

    def _samples(self) -> tuple[tuple[str, str], ...]:
        return _denied_samples(self.config.denied_paths)

    def check_denied(self, raw: object) -> tuple[Reason, ...]:
        """Reasons the path is denied (denied_paths, magic aliases, bad input); empty if none."""
        try:
            c = self.canonicalize(raw)
        except PathRejected as exc:
            return (exc.reason,)
        if type(raw) is str:  # a plain string hashes and compares by value: safe to memoise
            return self._memo.denied(raw, c)
        return self._denied(raw, c)

    def denies_as_spelled(self, path: str) -> bool:
        """Whether the denied patterns match the absolute `path` as spelled, no link
        resolved and no file looked at: a name whose content git keeps under that name
        (`shell.check_tracked`; a tracked link's content is its target's text)."""
        form = posixpath.normpath(path)
        c = CanonicalPath(form, form, False)
        return any(not _env_template(e, c) for e in self.denied.match((form,)))

    def guards_as_spelled(self, path: str) -> bool:
        """Whether writing the absolute `path` as spelled needs approval or is denied (the
        protected, write-denied or denied patterns match it), no link resolved and no file
        looked at: a tracked file git writes under its own name (`shell.check_tracked`;
        git replaces a link there, it does not write through it)."""
        form = posixpath.normpath(path)
        return bool(self.protected.match((form,))) or self.denies_as_spelled(form)

    def _denied(self, raw: object, c: CanonicalPath) -> tuple[Reason, ...]:
        return _sorted_reasons(self._deny_reasons(raw, c))

    def check_path(self, raw: object, access: Access) -> PathCheck:
        """Apply SPEC §3 step 2 to one path: DENY, ASK (protected write) or ALLOW."""
        try:
            c = self.canonicalize(raw)
        except PathRejected as exc:
            return PathCheck(Verdict.DENY, (exc.reason,), None)
        if type(raw) is str:  # a plain string hashes and compares by value: safe to memoise
            return self._memo.judge(raw, c, access)
        return self._judge(raw, c, access)

    def _judge(self, raw: object, c: CanonicalPath, access: Access) -> PathCheck:
        """`check_path` after canonicalisation: pure (no I/O), so `_memo` may remember it."""
        deny = self._deny_reasons(raw, c)
        if deny:
            return PathCheck(Verdict.DENY, _sorted_reasons(deny), c.canonical)
        inside = self.allowed is None or c.resolved in _ALWAYS_INSIDE
        inside = inside or (self.allowed is not None and self.allowed.contains(c.resolved))
        if inside and access == "read":
            return PathCheck(Verdict.ALLOW, (), c.canonical)
        readonly = self.readonly is not None and self.readonly.contains(c.resolved)
        if access == "read":
            if readonly:
                return PathCheck(Verdict.ALLOW, (), c.canonical)
            if self.config.outside_reads == "deny":
                no = self._outside_reason(
                    raw, c, "path-outside-read", "denied (outside_reads = deny)"
                )
                return PathCheck(Verdict.DENY, (no,), c.canonical)
            ask = self._outside_reason(raw, c, "path-outside-read", "reading it needs approval")
            return PathCheck(Verdict.ASK, (ask,), c.canonical, approvable=True)
        # A write, or the directory a command runs in (its relative writes land there).
        if access != "run" and self.write_denied is not None:
            deny.extend(
                Reason(
                    "path-write-denied",
                    e.source,
                    "writing is denied: " + _describe(raw, e, c, "write-denied"),
                )
                for e in self.write_denied.match((c.literal, c.resolved))
            )
            if deny:
                return PathCheck(Verdict.DENY, _sorted_reasons(deny), c.canonical)
        if not inside and not readonly:
            deny.append(self._outside_reason(raw, c, "path-outside-allowed", "denied"))
            return PathCheck(Verdict.DENY, _sorted_reasons(deny), c.canonical)
        if access == "run":
            return PathCheck(Verdict.ALLOW, (), c.canonical)
        asks = [
            Reason(
                "path-protected",
                e.source,
                "writing needs approval: " + _describe(raw, e, c, "protected"),
            )
            for e in self.protected.match((c.literal, c.resolved))
        ]
        if asks:
            return PathCheck(Verdict.ASK, _sorted_reasons(asks), c.canonical)
        if readonly:
            ask = Reason(
                "path-readonly",
                "readonly_paths",
                f"path `{raw}` is in the read-only paths; writing it needs approval",
            )
            return PathCheck(Verdict.ASK, (ask,), c.canonical, approvable=True)
        return PathCheck(Verdict.ALLOW, (), c.canonical)

    def _outside_reason(self, raw: object, c: CanonicalPath, code: str, outcome: str) -> Reason:
        sources = self.allowed.sources if self.allowed is not None else ()
        roots = ", ".join(f"`{s}`" for s in sources)
        if any("{workspace}" in s for s in sources):
            roots += f"; `{{workspace}}` is `{self.workspace}`"
        where = (
            f"path `{raw}` is" if raw == c.resolved else f"path `{raw}` resolves to `{c.resolved}`,"
        )
        return Reason(
            code, "allowed_paths", f"{where} outside the allowed paths ({roots}); {outcome}"
        )

    def _deny_reasons(self, raw: object, c: CanonicalPath) -> list[Reason]:
        reasons = [
            Reason("path-denied", e.source, _describe(raw, e, c, "denied"))
            for e in self.denied.match((c.literal, c.resolved))
            if not _env_template(e, c)
        ]
        if c.via_magic:
            reasons.append(
                Reason(
                    "path-magic-alias",
                    "/proc/self, /proc/<pid>, /dev/fd",
                    f"path `{raw}` goes through a process-relative alias (`/proc/self/...`, "
                    f"`/proc/<pid>/...`, `/dev/fd/...`) that names a different file for "
                    f"each process",
                )
            )
        return reasons


def _env_template(entry: PatternEntry, c: CanonicalPath) -> bool:
    """True when `.env.*` matches only as the name of a template (`.env.example`)."""
    if entry.source != ".env.*":
        return False
    for form in (c.literal, c.resolved):
        hit = entry.regex.search(form[1:]) or entry.regex.search(form[1:] + "/")
        if hit and form.rpartition("/")[2] not in _TEMPLATES:
            return False
    return True


_TEMPLATES = ENV_TEMPLATE_NAMES | {n.casefold() for n in ENV_TEMPLATE_NAMES}


# -- glob filters ------------------------------------------------------------------------------

_GLOB_META = re.compile(r"[*?\[{]")
_GLOB_STARTS = frozenset("*?[")
"""What a glob component may start with and still match a name starting with `.`."""
_MAX_ALTERNATIVES = 64


def _globs_expand_braces(text: str) -> list[str]:
    """`*.{ts,tsx}` -> `*.ts`, `*.tsx` (bounded; past the bound the text is kept as is)."""
    out = [text]
    for _ in range(8):
        grown: list[str] = []
        changed = False
        for item in out:
            m = re.search(r"\{([^{}]*)\}", item)
            if m is None:
                grown.append(item)
                continue
            changed = True
            grown.extend(item[: m.start()] + alt + item[m.end() :] for alt in m.group(1).split(","))
        if len(grown) > _MAX_ALTERNATIVES:
            return out
        out = grown
        if not changed:
            break
    return out


def _glob_prefix(text: str) -> str:
    """The components of a glob before the first one holding a wildcard."""
    fixed: list[str] = []
    for part in text.split("/"):
        if _GLOB_META.search(part):
            break
        fixed.append(part)
    return "/".join(fixed) or ("/" if text.startswith("/") else "")


def _glob_witness(text: str) -> str:
    """One name the glob selects: wildcards as short as they can be (`.env*` -> `.env`)."""
    out = re.sub(r"\*\*/", "", text)
    out = re.sub(r"\[!?\^?([^\]])[^\]]*\]", r"\1", out)
    out = out.replace("*", "").replace("?", "x")
    return out.rstrip("/") or ""


def _glob_unchecked(pattern: str) -> PathCheck:
    reason = Reason(
        "glob-unchecked",
        "glob",
        f"glob filter {pattern!r} reaches more entries than one decision looks through",
    )
    return PathCheck(Verdict.ASK, (reason,), None)


def _glob_reason(raw: str, source: str) -> Reason:
    return Reason(
        "glob-denied",
        source,
        f"glob filter `{raw}` can select files matching denied pattern `{source}`",
    )


@functools.lru_cache(maxsize=8)
def _denied_samples(sources: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """A name each floating denied pattern matches (`*.pem` -> `x.pem`, `.ssh/` -> `.ssh/x`)."""
    out = []
    for source in sources:
        if source.startswith(("/", "~", "{workspace}", "./")):
            continue
        sample = re.sub(r"\[[^\]]*\]", "x", source).replace("**/", "").replace("*", "x")
        sample = sample.replace("?", "x")
        out.append((source, sample + "x" if sample.endswith("/") else sample))
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def _glob_regex(text: str) -> re.Pattern[str] | None:
    try:
        spec = pathspec.PathSpec.from_lines("gitignore", [text])
    except Exception:  # pathspec raises several types for bad patterns
        return None
    patterns = list(spec.patterns)
    regex = getattr(patterns[0], "regex", None) if len(patterns) == 1 else None
    return regex if isinstance(regex, re.Pattern) else None


def selects_any_name(raw: object) -> bool:
    """Whether an include filter's last component is wildcards only (`*`, `**/?*`,
    `src/*`): it narrows nothing, and it selects hidden and ignored names too, since
    ripgrep's `--glob` whitelist goes before its hidden and `.gitignore` tests."""
    text = str(raw).strip()
    if not text or text.startswith("!"):
        return False
    return any(
        not alternative.rstrip("/").rpartition("/")[2].replace("*", "").replace("?", "")
        for alternative in _globs_expand_braces(text)
    )


def _glob_selects(glob: str, sample: str) -> bool:
    """Whether a glob matches a denied sample name, or a file in a denied sample folder.

    Search tools skip hidden entries unless the glob names one, so a hidden sample
    (`.docker/config.json`) counts only for a glob with a component starting with `.`.
    A glob of wildcards only (`*`, `**`) is no filter for secrets: every search selects
    everything.
    """
    last = glob.rstrip("/").rpartition("/")[2]
    parts = sample.split("/")
    dotted = any(p.startswith(".") for p in glob.split("/"))
    if not dotted and any(p.startswith(".") for p in parts[:-1]):
        return False
    # A hidden file name (`.env`) is selected by a last component that starts with a
    # wildcard too: ripgrep's `-g`/`--glob` is a whitelist that goes before its hidden
    # test, so `rg -g '?env' KEY` (Claude Code's Grep `glob`) reads `./.env`.
    if not dotted and parts[-1].startswith(".") and last[:1] not in _GLOB_STARTS:
        return False
    regex = _glob_regex(glob.lstrip("/"))
    if regex is None:
        return False
    any_name = not last.replace("*", "").replace("?", "")
    if not any_name and (regex.search(sample) or regex.search("d/" + sample)):
        return True
    # A denied folder (sample `.ssh/x`): a glob naming a folder like it (a component with
    # a literal in it, not only `*`) selects the files in it its last component matches:
    # `**/.s?h/id*` selects `.ssh/id`, `**/.s*/*` every file there.
    folder, _slash, name = sample.rpartition("/")
    witness = "x" if any_name else _glob_witness(last)
    if name != "x" or not folder or not witness:
        return False
    inner = folder.rpartition("/")[2]
    folders = glob.split("/")[:-1]
    if not any(p.replace("*", "") and fnmatch.fnmatchcase(inner, p) for p in folders):
        return False
    return bool(regex.search(f"{folder}/{witness}") or regex.search(f"d/{folder}/{witness}"))


# -- compiling (cached) ---------------------------------------------------------------------


def compile_policy(config: SafetyConfig, workspace: str) -> CompiledPolicy:
    """Compile the config's path lists for a workspace, once; later calls reuse the result.

    Raises `PolicyError` when the config is not a `SafetyConfig` or the workspace is not an
    absolute path.
    """
    home = os.environ.get("HOME") or _account_home()
    for last in _LAST:  # by identity: hashing a config walks all of it
        if last[0] is config and last[1] == workspace and last[2] == home:
            return last[3]
    if not isinstance(config, SafetyConfig):
        raise PolicyError(f"expected a SafetyConfig, got {type(config).__name__}")
    if (
        not isinstance(workspace, str)
        or not workspace.startswith("/")
        or _BAD_CHARS.search(workspace)
    ):
        raise PolicyError(f"the session workspace must be an absolute path, got {workspace!r}")
    compiled = _compile(config, workspace, home)
    # The last few, newest first: a decision for the sandbox runner compiles its config and
    # the host form of it (`engine.host_config`) in turn, which a single entry would thrash.
    globals()["_LAST"] = ((config, workspace, home, compiled), *_LAST[:3])
    return compiled


_LAST: tuple[tuple[SafetyConfig, str, str, CompiledPolicy], ...] = ()


# A handful of workspaces per process is the common case; each compiled policy holds its
# pattern entries and path memos (thousands of objects the garbage collector walks), and
# recompiling one costs a few milliseconds since `_patterns` keeps each line's regex.
@functools.lru_cache(maxsize=16)
def _compile(config: SafetyConfig, workspace: str, home: str) -> CompiledPolicy:
    workspace = _lexical(workspace)
    if not home.startswith("/") or _BAD_CHARS.search(home):
        home = "/nonexistent-home"  # `~` then matches nothing real rather than the workspace
    home = _lexical(home)
    ws_forms = _forms(workspace)
    home_forms = _forms(home)
    casefold = config.case_insensitive_paths
    if casefold is None:
        casefold = _folds_case_cached(ws_forms[-1])
    denied = _patterns.compile_patterns(
        config.denied_paths, workspaces=ws_forms, homes=home_forms, casefold=casefold
    )
    # A write-denied path is protected too: the sandbox pins protected paths read-only, so
    # what the analysis denies is also unwritable for code it cannot see.
    protected = _patterns.compile_patterns(
        (*config.protected_paths, *config.write_denied_paths),
        workspaces=ws_forms,
        homes=home_forms,
        casefold=casefold,
    )
    allowed = _compile_allowed(config.allowed_paths, ws_forms, home_forms, casefold)
    readonly = _compile_allowed(config.readonly_paths, ws_forms, home_forms, casefold)
    write_denied = (
        _patterns.compile_patterns(
            config.write_denied_paths, workspaces=ws_forms, homes=home_forms, casefold=casefold
        )
        if config.write_denied_paths
        else None
    )
    return CompiledPolicy(
        config, workspace, home, casefold, denied, protected, allowed, readonly, write_denied
    )


def _forms(path: str) -> tuple[str, ...]:
    """The path as given and as resolved now (they differ under a symlinked checkout)."""
    try:
        real = resolve_path(path)[0]
    except (OSError, ValueError):
        return (path,)
    return (path,) if real == path else (path, real)


@functools.lru_cache(maxsize=1)
def _account_home() -> str:
    return os.path.expanduser("~")


@functools.lru_cache(maxsize=256)
def _folds_case_cached(root: str) -> bool:
    return volume_folds_case(root)


def _spell(source: str, workspaces: tuple[str, ...], homes: tuple[str, ...]) -> list[str]:
    """A plain (wildcard-free) pattern with `{workspace}` and `~` substituted, unescaped."""
    spelled = [source.replace("{workspace}", ws) for ws in workspaces]
    if source == "~" or source.startswith("~/"):
        spelled = [h + s[1:] for s in spelled for h in homes]
    return spelled


def _compile_allowed(
    sources: tuple[str, ...], workspaces: tuple[str, ...], homes: tuple[str, ...], casefold: bool
) -> RootSet | None:
    if not sources:
        return None
    plain: list[tuple[str, str]] = []
    globs: list[str] = []
    for source in sources:
        anchored = source.startswith(("/", "{workspace}", "~/")) or source == "~"
        if not (anchored and _patterns.is_plain(source)):
            globs.append(source)
            continue
        for spelled in _spell(source, workspaces, homes):
            for form in _forms(_lexical(spelled)):
                plain.append((source, unicodedata.normalize("NFC", form)))
    return _patterns.compile_roots(
        plain, globs, workspaces=workspaces, homes=homes, casefold=casefold, sources=sources
    )
