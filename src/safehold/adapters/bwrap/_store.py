"""The scan cache on disk, so a new process does not read every directory again.

A record claims "this directory, while its (device, inode, mtime, ctime) are these, holds
these sub-directories and these denied, protected and symlinked names". The scan reuses it
only when the directory's stamps are still exactly those (`_scan.Scanner.record`), so an
honest record is as good as reading the directory. A *forged* record could hide a secret
(claim "nothing denied here"), so every file carries an HMAC-SHA256 of its policy name and
payload, keyed with a random key kept in the user's **kernel keyring** (`store_key`):

- No sandboxed command can read or replace that key: the sandbox's seccomp filter refuses
  `add_key`, `request_key` and `keyctl`. So even a command that could write the store can
  only delete it, corrupt it (discarded) or put back an older authentic file, whose records
  are true for the stamps they carry (and a file moved to another policy's name fails).
- The store itself lives in the user's state directory, `$XDG_STATE_HOME/safehold/scan`
  (by default `~/.local/state/safehold/scan`), which the runner creates (mode 0700) before
  planning every run and masks like a denied directory in every run whose visible trees
  contain it (`_plan.plan_mounts`): commands cannot list it either.
- A directory or file that is not the caller's, or that group or others may write, is
  ignored; a symlink in place of the file is not followed. Without a keyring (some
  containers forbid `keyctl`) there is no store, and every new process walks.
- Loading fails closed: a bad MAC or a malformed file discards the whole file; a record
  with a malformed number or a name that is empty, `.` or `..` is not used (names cannot
  hold `/`: it separates them). A record is only looked up by the path the walk reached,
  so a record for any other path is never used. A missing or discarded record costs time
  (the directory is read), never a mask.

Format: `HEADER`, the MAC in hex and a newline, then the payload: ten
NUL-separated fields per directory (path, device, inode, mtime_ns, ctime_ns, entries, then
the sub-directory, denied, protected and symlink names, each list joined with `/`, which no
name can contain). File names are the policy's hash: records depend on the patterns.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import hmac
import os
import stat
import threading
import time
from collections.abc import Iterable
from typing import Final

from safehold.adapters.bwrap._seccomp import native_arch
from safehold.errors import SandboxError

__all__ = [
    "HEADER",
    "Raw",
    "Record",
    "file_name",
    "load",
    "parse",
    "prepare",
    "save",
    "store_key",
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
    if not os.environ.get("XDG_STATE_HOME", "").startswith("/") and (
        home == "/" or not os.path.isdir(home)
    ):
        return os.path.realpath(root), None  # no home of its own (a service): no store
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        real = os.path.realpath(path)
        if not _private(os.lstat(real), stat.S_IFDIR):
            return os.path.realpath(root), None
    except OSError:
        return os.path.realpath(root), None
    return os.path.realpath(root), real


_KEY_NAME: Final = b"safehold:scan-store"
_KEY_SYSCALLS: Final = {"x86_64": (248, 250), "aarch64": (217, 219)}
"""(add_key, keyctl) per architecture: the same calls the sandbox's seccomp filter refuses."""
_KEY_SPEC_USER_KEYRING: Final = -4
_KEYCTL_SETPERM: Final = 5
_KEYCTL_SEARCH: Final = 10
_KEYCTL_READ: Final = 11
_KEY_PERM: Final = 0x3F0B0000
"""Possessor: all; the user (outside any sandbox): view, read, search."""
_key_cache: list[bytes | None] = []
_key_lock = threading.Lock()


def _keyring_key() -> bytes | None:
    """The store's MAC key from the user's kernel keyring, created on first use; None if none.

    No sandboxed command can read it: the sandbox's seccomp filter refuses `add_key`,
    `request_key` and `keyctl` (and always has). It lasts until reboot; a new key makes
    every stored file fail its check, which costs one walk.
    """
    try:
        add_key, keyctl = _KEY_SYSCALLS[native_arch().name]
        libc = ctypes.CDLL(None, use_errno=True)
    except (KeyError, OSError, SandboxError):  # an unknown CPU, no libc: no key, no store
        return None
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    user = ctypes.c_long(_KEY_SPEC_USER_KEYRING)

    def read() -> bytes | None:
        serial = syscall(keyctl, _KEYCTL_SEARCH, user, b"user", _KEY_NAME, 0)
        if serial < 0:
            return None
        buf = ctypes.create_string_buffer(64)
        size = syscall(keyctl, _KEYCTL_READ, ctypes.c_long(serial), buf, ctypes.c_size_t(64))
        return buf.raw[:size] if size == 32 else None

    key = read()
    if key is None:
        fresh = os.urandom(32)
        serial = syscall(add_key, b"user", _KEY_NAME, fresh, ctypes.c_size_t(32), user)
        if serial < 0:
            return None
        syscall(keyctl, _KEYCTL_SETPERM, ctypes.c_long(serial), ctypes.c_ulong(_KEY_PERM))
        key = read()  # another process may have added its own meanwhile: use what is there
    return key


def store_key() -> bytes | None:
    """The MAC key for this process (looked up once)."""
    with _key_lock:
        if not _key_cache:
            _key_cache.append(_keyring_key())
        return _key_cache[0]


def _mac(key: bytes, name: str, payload: bytes) -> bytes:
    # The file name (the policy) is covered too: a file moved to another policy's name fails.
    return hmac.new(key, name.encode() + b"\0" + payload, hashlib.sha256).hexdigest().encode()


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
    key = store_key()
    if key is None or not payload:
        return {}
    if not hmac.compare_digest(_mac(key, name, payload), data[head : head + 64]):
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
    key = store_key()
    if key is None:
        return
    payload = _encode(records)
    digest = _mac(key, name, payload)
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
