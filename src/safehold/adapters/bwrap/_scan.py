"""Find denied and protected entries in directory trees, cached in the process per directory.

A directory's mtime and ctime change whenever an entry is added to it, removed from it or
renamed in it, and ctime cannot be set back (`utime` sets it to now). So a directory whose
(device, inode, mtime, ctime) is what it was when it was read holds the same names: its
result is reused and only changed directories are read again. A second run in an unchanged
tree costs one `lstat` per directory.

Racy directories: a change in the same timestamp tick as the read would leave the stamps
unchanged (git's "racily clean" problem). A directory whose stamps are not clearly older than
the moment it was read (by `_racy_ns`) is never reused; it is read again next time.

Where inotify is available, every directory read is also watched (the watch is added
*before* the read, so no change can slip between them). Events are drained at the start of
each walk; a directory with no event since it was read is reused without even an `lstat`,
and a tree with no event in it since its last walk is not walked: its result is reused
whole. Moving or deleting a watched directory invalidates every cached path below it (a
watch follows the inode, not the path); a queue overflow invalidates everything. Without
inotify, or past the watch budget, the stamps above decide.

Matching is exact, not approximate: every entry whose *name* could match a pattern's last
component goes through the policy's own `PatternSet.match` on its full path. The name test
is only a necessary condition that skips the full match for the many names (`index.js`)
no pattern can match.

Symlinks are resolved on every run: their target can change without their directory
changing. Memory: one record per directory (its sub-directory names and its few hits), at
most `MAX_CACHED_DIRS` directories per policy, oldest evicted first.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import stat
import struct
import threading
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from safehold.adapters.bwrap import _store
from safehold.errors import SandboxError
from safehold.policy._patterns import PatternSet

__all__ = [
    "MAX_CACHED_DIRS",
    "SAVE_AFTER_ENTRIES",
    "DirRecord",
    "Matcher",
    "Scanner",
    "TreeResult",
    "clear_cache",
    "racy",
    "tree_unchanged",
]

MAX_CACHED_DIRS: Final = 250_000
"""Directory records kept per policy (about 250 bytes each plus names: well under 100 MB)."""
SAVE_AFTER_ENTRIES: Final = 2_000
"""A scan that read at least this many entries from disk rewrites the store (`_store`)."""

_MAX_POLICIES: Final = 4
_FINE_RACY_NS: Final = 50_000_000
"""Stamps are a clock tick coarse (at most 10 ms at HZ=100): 50 ms clears the tick and skew."""
_COARSE_RACY_NS: Final = 3_000_000_000
"""Whole-second stamps (ext3, FAT's 2 s): wait out a full tick and then some."""


def _racy_ns(mtime_ns: int, ctime_ns: int) -> int:
    coarse = mtime_ns % 1_000_000_000 == 0 and ctime_ns % 1_000_000_000 == 0
    return _COARSE_RACY_NS if coarse else _FINE_RACY_NS


def racy(mtime_ns: int, ctime_ns: int, since_ns: int) -> bool:
    """True when stamps are not clearly older than `since_ns` (a change in the same tick as
    a read taken then would leave them unchanged)."""
    return max(mtime_ns, ctime_ns) >= since_ns - _racy_ns(mtime_ns, ctime_ns)


def _last_component(expanded: str) -> str | None:
    """The pattern's last path component, or None when it can match any name (`**`)."""
    last = expanded.rstrip("/").rsplit("/", 1)[-1]
    return None if not last or "**" in last else last


class Matcher:
    """One of the policy's compiled pattern sets, with a cheap necessary test on names."""

    def __init__(self, patterns: PatternSet, casefold: bool) -> None:
        self.patterns = tuple(e.expanded for e in patterns.entries)
        self._set = patterns
        self.casefold = casefold
        literals: set[str] = set()
        prefixes: set[str] = set()
        suffixes: set[str] = set()
        inner: set[str] = set()
        self.any_name = False
        for expanded in self.patterns:
            last = _last_component(expanded)
            if last is None or any(c in last for c in "[\\"):
                self.any_name = True  # rare shapes: every name is a candidate
                continue
            # `?` is exactly one character, so `*` in its place matches a superset: the
            # test stays a necessary condition (`?*.env` must still end with `.env`).
            pieces = last.replace("?", "*").split("*")
            if len(pieces) == 1:
                literals.add(last)
            elif pieces[0]:
                prefixes.add(pieces[0])  # `.env.*`, `ssh_host_*_key`: must start so
            elif pieces[-1]:
                suffixes.add(pieces[-1])  # `*.pem`: must end so
            elif any(pieces):
                inner.update(p for p in pieces if p)  # `*token*`: must contain one
            else:
                self.any_name = True  # `*`
        self.literals = frozenset(literals)
        self.prefixes = tuple(sorted(prefixes))
        self.suffixes = tuple(sorted(suffixes))
        self.inner = tuple(sorted(inner))

    @classmethod
    def of(cls, patterns: PatternSet, casefold: bool) -> Matcher:
        """The matcher of a compiled pattern set, built once while that set is in use."""
        key = (id(patterns), casefold)
        with _lock:
            hit = _matchers.get(key)
            if hit is not None and hit._set is patterns:
                return hit
        made = cls(patterns, casefold)
        with _lock:
            _matchers[key] = made  # holds `patterns`: its id cannot be reused meanwhile
            while len(_matchers) > 2 * _MAX_POLICIES:
                del _matchers[next(iter(_matchers))]
        return made

    def fold(self, text: str) -> str:
        """The form the policy matches: NFC, case-folded on case-insensitive volumes."""
        if text.isascii():  # NFC and casefold are plain identities/lower() on ASCII
            return text.lower() if self.casefold else text
        form = unicodedata.normalize("NFC", text)
        return form.casefold() if self.casefold else form

    def may_match(self, form: str) -> bool:
        """False only when no pattern can match a path whose last component folds to `form`."""
        return (
            self.any_name
            or form in self.literals
            or form.startswith(self.prefixes)
            or form.endswith(self.suffixes)
            or (bool(self.inner) and any(piece in form for piece in self.inner))
        )

    def __call__(self, path: str) -> bool:
        # PatternSet.match tries `path` and `path/`, so directory patterns cover the directory.
        return bool(self._set.match((self.fold(path),)))


_matchers: dict[tuple[int, bool], Matcher] = {}


class _NameFilter:
    """The union of two matchers' name tests (inlined in `Scanner._read`'s hot loop)."""

    def __init__(self, *matchers: Matcher) -> None:
        self.any_name = any(m.any_name for m in matchers)
        self.literals = frozenset().union(*(m.literals for m in matchers))
        self.prefixes = tuple(sorted({p for m in matchers for p in m.prefixes}))
        self.suffixes = tuple(sorted({p for m in matchers for p in m.suffixes}))
        self.inner = tuple(sorted({p for m in matchers for p in m.inner}))


@dataclass(frozen=True, slots=True)
class DirRecord:
    """What one read of a directory found: its sub-directories and its hits, by name."""

    key: tuple[int, int, int, int]
    trusted: bool
    subdirs: tuple[str, ...]
    """Real sub-directories (not symlinks) that are not denied: the walk goes on into them."""
    denied: tuple[str, ...]
    protected: tuple[str, ...]
    links: tuple[str, ...]
    entries: int
    gen: int | None = None
    """The watcher generation from which this record is exact, or None (not watched)."""
    unreadable: bool = False
    """The directory could not be listed (or an entry in it not typed): what it holds is
    unknown, so it is masked whole, never taken for empty. Never trusted (never stored)."""


class _Cache:
    def __init__(self) -> None:
        self.dirs: dict[str, DirRecord] = {}
        self.loaded: set[str] = set()
        """Stores (`_store`) already read into `stored`."""
        self.stored: dict[str, _store.Raw] = {}
        """Records from the store not used yet: parsed, checked and moved to `dirs` on use."""
        self.trees: dict[tuple[str, int], object] = {}
        self.inodes: dict[str, tuple[tuple[int, int, int, int], tuple[tuple[str, int, int], ...]]]
        self.inodes = {}


_caches: dict[tuple[object, ...], _Cache] = {}
_lock = threading.Lock()


def clear_cache() -> None:
    """Forget every cached directory in this process (the store on disk stays)."""
    with _lock:
        _caches.clear()


def _cache_for(key: tuple[object, ...]) -> _Cache:
    with _lock:
        cache = _caches.pop(key, None) or _Cache()
        _caches[key] = cache  # most recently used last
        while len(_caches) > _MAX_POLICIES:
            del _caches[next(iter(_caches))]
        return cache


def _join(directory: str, name: str) -> str:
    return directory + name if directory.endswith("/") else directory + "/" + name


def _stat_key(path: str) -> tuple[int, int, int, int] | None:
    """The directory's stamps; None when it is gone or not a directory. Raises `OSError`
    when it exists but cannot be stat'ed (a parent without search permission)."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


# inotify (linux/inotify.h)
_IN_MODIFY_NAMES: Final = 0x100 | 0x200 | 0x40 | 0x80  # CREATE, DELETE, MOVED_FROM, MOVED_TO
_IN_SELF: Final = 0x400 | 0x800  # DELETE_SELF, MOVE_SELF
_IN_Q_OVERFLOW: Final = 0x4000
_IN_IGNORED: Final = 0x8000
_IN_ONLYDIR: Final = 0x01000000
_IN_DONT_FOLLOW: Final = 0x02000000
_IN_NONBLOCK_CLOEXEC: Final = 0o4000 | 0o2000000
_EVENT: Final = struct.Struct("iIII")
_EVENT_LOG: Final = 100_000
"""Events remembered for `_Watcher.touched`; a tree older than the oldest is walked again."""


class _Watcher:
    """One inotify instance for the process: which cached directories changed since when.

    `counter` grows with every drained event; a path's last event is `changed[path]`. A record
    read at `gen` (the counter when its watch was in place) is still exact while no event for
    its path came after `gen` and no overflow happened after it.
    """

    def __init__(self, fd: int, budget: int, libc: ctypes.CDLL) -> None:
        self.fd = fd
        self.budget = budget
        self._libc = libc
        self.counter = 1
        self.floor = 0
        self.changed: dict[str, int] = {}
        self.log: list[tuple[int, str]] = []
        """(counter, directory) of recent events, oldest first: which trees they touch."""
        self.log_floor = 0
        """Events at or before this counter fell off the log."""
        self.by_wd: dict[int, str] = {}
        self.by_path: dict[str, int] = {}

    def watch(self, path: str) -> int | None:
        """Make sure `path` is watched; return the generation it is watched from, or None."""
        if path in self.by_path:
            return self.counter
        if len(self.by_path) >= self.budget:
            return None
        mask = _IN_MODIFY_NAMES | _IN_SELF | _IN_ONLYDIR | _IN_DONT_FOLLOW
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(path), mask)
        if wd < 0:
            return None
        old = self.by_wd.get(wd)
        if old is not None and old != path:
            # The same inode under a new path (a rename we have not drained yet): the old
            # path no longer names it.
            self.by_path.pop(old, None)
            self._invalidate(old)
        self.by_wd[wd] = path
        self.by_path[path] = wd
        return self.counter

    def clean(self, path: str, gen: int | None) -> bool:
        """True when `path` is watched and nothing happened to it since generation `gen`."""
        return (
            gen is not None
            and gen >= self.floor
            and path in self.by_path
            and self.changed.get(path, 0) <= gen
        )

    def touched(self, top: str, gen: int) -> bool:
        """True unless no event since generation `gen` concerns `top` or anything below it."""
        if gen < self.floor or gen < self.log_floor:
            return True
        prefix = top.rstrip("/") + "/"
        for counter, path in reversed(self.log):
            if counter <= gen:
                return False
            # Events on an ancestor do not count: moving or deleting `top` itself reaches
            # its own watch (MOVE_SELF, DELETE_SELF), and a directory moved into its place
            # has other stamps than the record of `top`.
            if path == top or path.startswith(prefix):
                return True
        return False

    def _note(self, path: str) -> None:
        self.changed[path] = self.counter
        self.log.append((self.counter, path))
        if len(self.log) > _EVENT_LOG:
            cut = len(self.log) // 2
            self.log_floor = self.log[cut - 1][0]
            del self.log[:cut]

    def _invalidate(self, top: str) -> None:
        self._note(top)
        prefix = top.rstrip("/") + "/"
        for path in [p for p in self.by_path if p.startswith(prefix)]:
            self.changed[path] = self.counter

    def drain(self) -> bool:
        """Read every queued event; True when there was any."""
        seen = False
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return seen
            except OSError:
                self.floor = self.counter = self.counter + 1
                return True
            if not data:
                return seen
            seen = True
            self.counter += 1
            at = 0
            while at + _EVENT.size <= len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, at)
                at += _EVENT.size + length
                if mask & _IN_Q_OVERFLOW:
                    self.floor = self.counter
                    continue
                path = self.by_wd.get(wd)
                if path is None:
                    continue
                if mask & (_IN_SELF | _IN_IGNORED):
                    self._invalidate(path)
                    if mask & _IN_IGNORED or self.by_path.get(path) == wd:
                        self.by_wd.pop(wd, None)
                        self.by_path.pop(path, None)
                        if not mask & _IN_IGNORED:
                            self._libc.inotify_rm_watch(self.fd, wd)
                else:
                    self._note(path)


def _make_watcher() -> _Watcher | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(_IN_NONBLOCK_CLOEXEC)
    except (OSError, AttributeError):
        return None
    if fd < 0:
        return None
    try:
        with open("/proc/sys/fs/inotify/max_user_watches", encoding="ascii") as fh:
            limit = int(fh.read())
    except (OSError, ValueError):
        limit = 8192
    # Leave most of the user's watches to editors and build tools.
    return _Watcher(fd, min(MAX_CACHED_DIRS, limit // 4), libc)


_watcher: list[_Watcher | None] = []


def _get_watcher() -> _Watcher | None:
    with _lock:
        if not _watcher:
            _watcher.append(_make_watcher())
        return _watcher[0]


@dataclass(frozen=True, slots=True)
class TreeResult:
    """A whole tree's hits, reusable while no event inside it arrived since `gen`."""

    gen: int
    dirs: tuple[tuple[str, DirRecord], ...]
    denied: tuple[str, ...]
    """Full paths of every denied entry in the tree (so a reused tree costs no loop)."""
    protected: tuple[str, ...]
    links: tuple[str, ...]
    unreadable: tuple[str, ...] = ()
    """Directories that could not be listed (or typed): unknown, so masked whole."""

    @classmethod
    def of(cls, gen: int, dirs: tuple[tuple[str, DirRecord], ...]) -> TreeResult:
        """The tree's records with their hits gathered as full paths."""
        denied: list[str] = []
        protected: list[str] = []
        links: list[str] = []
        unreadable: list[str] = []
        for directory, rec in dirs:
            if rec.unreadable:
                unreadable.append(directory)
            denied.extend(_join(directory, name) for name in rec.denied)
            protected.extend(_join(directory, name) for name in rec.protected)
            links.extend(_join(directory, name) for name in rec.links)
        return cls(gen, dirs, tuple(denied), tuple(protected), tuple(links), tuple(unreadable))


class Scanner:
    """Walks trees for one policy, reading only the directories that changed since last time."""

    def __init__(
        self, denied: Matcher, protected: Matcher, limit: int, store: str | None = None
    ) -> None:
        self.denied = denied
        self.protected = protected
        self.limit = limit
        self.read = 0
        """Entries read from disk by this scanner (cached directories cost nothing)."""
        policy = (denied.patterns, protected.patterns, denied.fold("Aé"))
        self._cache = _cache_for(policy)
        self._store = store
        # The file's name hashes the patterns' repr: only worth it when there is a store.
        self._store_name = "" if store is None else _store.file_name(policy)
        if store is not None and store not in self._cache.loaded:
            self._load(store)
        self._names = _NameFilter(denied, protected)
        self._watcher = _get_watcher()
        if self._watcher is not None:
            with _lock:
                self._watcher.drain()

    def _load(self, store: str) -> None:
        """Fill the cache from the store on disk (records are checked against stamps on use)."""
        found = _store.load(store, self._store_name)
        with _lock:
            if len(found) <= MAX_CACHED_DIRS:
                self._cache.stored.update(found)
            self._cache.loaded.add(store)

    def _stored(self, path: str) -> DirRecord | None:
        """The store's record for `path` (once: it moves to the cache when stamps match)."""
        with _lock:
            raw = self._cache.stored.pop(path, None)
        parsed = None if raw is None else _store.parse(raw)
        if parsed is None:
            return None
        key, entries, subdirs, denied, protected, links = parsed
        return DirRecord(key, True, subdirs, denied, protected, links, entries)

    def persist(self) -> None:
        """Save the cache to the store when this scan read enough to be worth it."""
        if self._store is None or self.read < SAVE_AFTER_ENTRIES:
            return
        with _lock:
            records = [
                (path, (r.key, r.entries, r.subdirs, r.denied, r.protected, r.links))
                for path, r in self._cache.dirs.items()
                if r.trusted
            ]
        _store.save(self._store, self._store_name, records)

    def _read(self, path: str, key: tuple[int, int, int, int], gen: int | None) -> DirRecord:
        started = time.time_ns()
        try:
            with os.scandir(path) as it:
                found = list(it)
        except OSError:
            # Not listable (mode 0311, 0300, another owner): unknown, never "empty". The
            # command may be able to chmod it open, so the whole directory is masked.
            return DirRecord(key, False, (), (), (), (), 0, gen, unreadable=True)
        self.read += len(found)
        if self.read > self.limit:
            raise SandboxError(
                f"too many directory entries to scan for denied and protected paths under "
                f"`{path}` (more than {self.limit} in one run); raise `sandbox.scan_max_entries` "
                "or run in a smaller working directory"
            )
        subdirs: list[str] = []
        denied: list[str] = []
        protected: list[str] = []
        links: list[str] = []
        # The hot loop of a first scan (one pass per entry): the name filter is inlined.
        names, fold = self._names, self.denied.fold
        any_name, literals = names.any_name, names.literals
        prefixes, suffixes, inner = names.prefixes, names.suffixes, names.inner
        plain = not self.denied.casefold  # then an ASCII name is its own folded form
        for entry in found:
            name = entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                if not is_dir and entry.is_symlink():
                    links.append(name)
                    continue
            except OSError:
                # Listable but not searchable (no `x`): its entries cannot be told apart,
                # so the directory is unknown as a whole.
                return DirRecord(key, False, (), (), (), (), len(found), gen, unreadable=True)
            form = name if plain and name.isascii() else fold(name)
            if (
                any_name
                or form in literals
                or form.startswith(prefixes)
                or form.endswith(suffixes)
                or (inner and any(piece in form for piece in inner))
            ):  # the rare candidate: the policy's matcher decides
                full = _join(path, name)
                if self.denied.may_match(form) and self.denied(full):
                    denied.append(name)
                    if self.protected.may_match(form) and self.protected(full):
                        # Both (`.npmrc`): masked, and moved aside when a command made it.
                        protected.append(name)
                    continue  # masked whole: nothing below it is visible
                if self.protected.may_match(form) and self.protected(full):
                    protected.append(name)
            if is_dir:
                subdirs.append(name)
        trusted = max(key[2], key[3]) < started - _racy_ns(key[2], key[3])
        return DirRecord(
            key,
            trusted,
            tuple(subdirs),
            tuple(denied),
            tuple(protected),
            tuple(links),
            len(found),
            gen,
        )

    def record(self, path: str) -> DirRecord | None:
        """The directory's record, from the cache when its stamps are unchanged and not racy."""
        dirs = self._cache.dirs
        cached = dirs.get(path)
        watcher = self._watcher
        if (
            cached is not None
            and not cached.unreadable  # read again: a chmod sends no event we watch
            and watcher is not None
            and watcher.clean(path, cached.gen)
        ):
            return cached  # watched, and no event since it was read: not even an lstat
        gen = None
        if cached is None and self._cache.stored:
            # From the store: checked by its stamps like any cached record. Not watched yet:
            # a short-lived process would pay a watch per directory for nothing; a second
            # walk in this process adds the watch.
            cached = self._stored(path)
        elif watcher is not None:
            with _lock:
                gen = watcher.watch(path)  # before the stat and the read: nothing slips by
        try:
            key = _stat_key(path)
        except OSError:
            # It was listed in its parent but cannot be stat'ed (a parent without `x`, say).
            return DirRecord((0, 0, 0, 0), False, (), (), (), (), 0, gen, unreadable=True)
        if key is None:
            return None
        if cached is not None and cached.trusted and cached.key == key:
            if gen is not None or cached.gen is not None or path not in dirs:
                cached = dataclasses.replace(cached, gen=gen)
                with _lock:
                    dirs[path] = cached
            return cached
        fresh = self._read(path, key, gen)
        with _lock:
            dirs[path] = fresh
            while len(dirs) > MAX_CACHED_DIRS:
                del dirs[next(iter(dirs))]
        return fresh

    def tree(self, top: str, depth: int = -1) -> tuple[tuple[str, DirRecord], ...]:
        """Every (directory, record) of the tree; reused whole while no event arrived in it."""
        return self.hits(top, depth).dirs

    def hits(self, top: str, depth: int = -1) -> TreeResult:
        """The tree's records and hits; reused whole while no event arrived in it."""
        watcher = self._watcher
        saved = self._cache.trees.get((top, depth))
        if isinstance(saved, TreeResult) and watcher is not None:
            with _lock:
                watcher.drain()  # what happened since this scan began counts too
                if not watcher.touched(top, saved.gen):
                    return saved
        found = TreeResult.of(-1, tuple(self.walk(top, depth)))
        if (
            watcher is not None
            and not found.unreadable
            and all(watcher.clean(d, r.gen) for d, r in found.dirs)
        ):
            found = dataclasses.replace(found, gen=watcher.counter)
            with _lock:
                self._cache.trees[(top, depth)] = found
        return found

    def walk(self, top: str, depth: int = -1) -> Iterator[tuple[str, DirRecord]]:
        """Yield (directory, record) for `top` and below, `depth` levels (-1: unbounded)."""
        stack = [(top, 1)]
        while stack:
            directory, level = stack.pop()
            rec = self.record(directory)
            if rec is None:
                continue
            yield directory, rec
            if depth < 0 or level < depth:
                stack.extend((_join(directory, name), level + 1) for name in rec.subdirs)

    def multi_linked(self, directory: str, rec: DirRecord) -> tuple[tuple[str, int, int], ...]:
        """(name, device, inode) of the regular files in `directory` with more than one link."""
        cached = self._cache.inodes.get(directory)
        if cached is not None and cached[0] == rec.key and rec.trusted:
            return cached[1]
        found: list[tuple[str, int, int]] = []
        try:
            with os.scandir(directory) as it:
                for entry in it:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                        found.append((entry.name, st.st_dev, st.st_ino))
        except OSError:
            pass
        result = tuple(found)
        with _lock:
            self._cache.inodes[directory] = (rec.key, result)
            while len(self._cache.inodes) > MAX_CACHED_DIRS:
                del self._cache.inodes[next(iter(self._cache.inodes))]
        return result


def tree_unchanged(top: str, found: TreeResult) -> bool:
    """True only when `found` (a `Scanner.hits` result) still describes the tree at `top`.

    Watched trees: no inotify event inside since it was made. Otherwise every directory it
    lists must be a trusted record with exactly its stamps now, and a tree found empty must
    still not exist. Any doubt (an unreadable directory, a racy record, an error) is False.
    """
    if found.unreadable:
        return False
    watcher = _get_watcher()
    if watcher is not None and found.gen >= 0:
        with _lock:
            watcher.drain()
            if not watcher.touched(top, found.gen):
                return True
    try:
        if not found.dirs:
            return _stat_key(top) is None
        for directory, rec in found.dirs:
            if not rec.trusted or _stat_key(directory) != rec.key:
                return False
    except OSError:
        return False
    return True
