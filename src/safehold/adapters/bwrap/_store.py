"""The scan cache on disk, so a new process does not read every directory again.

A record claims "this directory, while its (device, inode, mtime, ctime) are these, holds
these sub-directories and these denied, protected and symlinked names". The scan reuses it
only when the directory's stamps are still exactly those (`_scan.Scanner.record`), so an
honest record is as good as reading the directory. A *forged* record could hide a secret
(claim "nothing denied here"), so the store's safety is about who can write it:

- It lives in the user's state directory, `$XDG_STATE_HOME/safehold/scan` (by default
  `~/.local/state/safehold/scan`), which the runner creates (mode 0700) **before** planning
  every run, and masks like a denied directory in every run whose visible trees contain it
  (`_plan.plan_mounts`). No sandboxed command can read or write it, or rename a parent away
  (the parents inside writable roots are pinned, as for every mask).
- Anyone else who can write it runs outside the sandbox with the user's rights (they can
  read the secrets directly) or is root. Other users cannot: a directory or file that is not
  the caller's, or that group or others may write, is ignored.
- Loading fails closed: a symlink, a bad checksum or a malformed file discards the whole
  file; a record with a malformed number or a name that is empty, `.` or `..` is not used
  (names cannot hold `/`: it separates them). A record is only looked up by the path the
  walk reached, so a record for any other path is never used. A missing or discarded record
  costs time (the directory is read), never a mask.

Format: `HEADER`, the SHA-256 of the payload in hex and a newline, then the payload: ten
NUL-separated fields per directory (path, device, inode, mtime_ns, ctime_ns, entries, then
the sub-directory, denied, protected and symlink names, each list joined with `/`, which no
name can contain). File names are the policy's hash: records depend on the patterns.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import threading
import time
from collections.abc import Iterable
from typing import Final

__all__ = [
    "HEADER",
    "Raw",
    "Record",
    "file_name",
    "load",
    "parse",
    "prepare",
    "save",
    "store_root",
    "wait",
]

HEADER: Final = b"safehold-scan 1\n"
_FIELDS: Final = 10
_KEEP: Final = 4
"""Store files kept (one per policy), newest first: the in-process cache keeps as many."""
_SUFFIX: Final = ".scan"


def store_root(home: str) -> str:
    """The directory the runner keeps and masks: `$XDG_STATE_HOME/safehold`."""
    state = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(state):
        state = os.path.join(home, ".local", "state")
    return os.path.join(state, "safehold")


def _private(st: os.stat_result, kind: int) -> bool:
    """Owned by the caller, of the right type, and not writable by group or others."""
    return (
        stat.S_IFMT(st.st_mode) == kind
        and st.st_uid == os.geteuid()
        and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def prepare(home: str) -> tuple[str, str | None]:
    """Create the store (0700) if needed: (the root to mask, the usable store or None).

    The root is returned even when the store is unusable, so the caller masks whatever is
    there: it must exist before a command could create it.
    """
    root = store_root(home)
    path = os.path.join(root, "scan")
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        real = os.path.realpath(path)
        if not _private(os.lstat(real), stat.S_IFDIR):
            return os.path.realpath(root), None
    except OSError:
        return os.path.realpath(root), None
    return os.path.realpath(root), real


def file_name(policy: object) -> str:
    """The store file of one policy (its patterns and case folding)."""
    return hashlib.sha256(repr(policy).encode()).hexdigest()[:24] + _SUFFIX


def _names(field: str) -> tuple[str, ...] | None:
    if not field:
        return ()
    names = tuple(field.split("/"))
    if "" in names or "." in names or ".." in names:
        return None
    return names


Record = tuple[tuple[int, int, int, int], int, tuple[str, ...], tuple[str, ...],
               tuple[str, ...], tuple[str, ...]]  # fmt: skip
"""(key, entries, subdirs, denied, protected, links) of one directory."""

Raw = tuple[str, ...]
"""A record's fields after the path, as stored: checked by `parse` when it is used."""


def parse(raw: Raw) -> Record | None:
    """One stored record, or None when a field is malformed (the directory is read instead)."""
    try:
        dev, ino, mtime, ctime, entries, *lists = raw
        key = (int(dev), int(ino), int(mtime), int(ctime))
        count = int(entries)
    except ValueError:
        return None
    subdirs, denied, protected, links = map(_names, lists)
    if subdirs is None or denied is None or protected is None or links is None:
        return None
    return key, count, subdirs, denied, protected, links


def load(store: str, name: str) -> dict[str, Raw]:
    """Every record of the file by path, or nothing at all when the file is not sound.

    The file is checked whole (owner, mode, checksum, shape); each record's fields are
    checked by `parse` when the walk reaches its directory: most are never needed at all.
    """
    try:
        fd = os.open(os.path.join(store, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return {}
    try:
        if not _private(os.fstat(fd), stat.S_IFREG):
            return {}
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read()
    except OSError:
        return {}
    finally:
        os.close(fd)
    head = len(HEADER)
    if not data.startswith(HEADER) or data[head + 64 : head + 65] != b"\n":
        return {}
    payload = data[head + 65 :]
    if not payload or hashlib.sha256(payload).hexdigest().encode() != data[head : head + 64]:
        return {}
    fields = payload.decode("utf-8", "surrogateescape").split("\0")
    if len(fields) % _FIELDS:
        return {}
    columns = [fields[i::_FIELDS] for i in range(1, _FIELDS)]
    return dict(zip(fields[::_FIELDS], zip(*columns, strict=True), strict=True))


def _encode(records: Iterable[tuple[str, Record]]) -> bytes:
    fields: list[str] = []
    for path, (key, entries, subdirs, denied, protected, links) in records:
        fields += (path, *map(str, key), str(entries))
        fields += ("/".join(subdirs), "/".join(denied), "/".join(protected), "/".join(links))
    return "\0".join(fields).encode("utf-8", "surrogateescape")


def _write(store: str, name: str, records: list[tuple[str, Record]]) -> None:
    payload = _encode(records)
    digest = hashlib.sha256(payload).hexdigest().encode()
    tmp = os.path.join(store, f".{name}.{os.getpid()}.{threading.get_native_id()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(HEADER + digest + b"\n" + payload)
        os.replace(tmp, os.path.join(store, name))  # readers see the old or the new file
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return
    _prune(store)


def _prune(store: str) -> None:
    """Keep the `_KEEP` newest store files (the in-process cache holds as many policies)."""
    try:
        with os.scandir(store) as it:
            found = [(e.stat().st_mtime, e.path) for e in it if e.name.endswith(_SUFFIX)]
    except OSError:
        return
    for _, path in sorted(found, reverse=True)[_KEEP:]:
        with contextlib.suppress(OSError):
            os.unlink(path)


_writers: list[threading.Thread] = []


def save(store: str, name: str, records: list[tuple[str, Record]]) -> None:
    """Write the records in a background thread (the command runs meanwhile).

    The thread is not a daemon: a short-lived process (`safehold run`) finishes the write
    before it exits. `wait` joins it (tests).
    """
    thread = threading.Thread(target=_write, args=(store, name, records), name="safehold-scan")
    _writers[:] = [t for t in _writers if t.is_alive()]
    _writers.append(thread)
    thread.start()


def wait(timeout: float = 10.0) -> None:
    """Wait for pending writes (tests and benchmarks)."""
    deadline = time.monotonic() + timeout
    for thread in list(_writers):
        thread.join(max(deadline - time.monotonic(), 0.0))
