"""`SessionStateDir`: each session's flags and grants on disk, so a restarted agent continues it.

A client may restart its agent between prompts and then load or resume the session. Without
the session's state the new process would answer with the default mode: a session the
person set to read-only would come back in review. With a state dir the new process reads
the session back; without one it refuses to continue a session it never saw.

Files are written safely for a directory that an attacker may share the parent of:

- the directory is opened once with `O_NOFOLLOW` (a symlink is refused), must belong to the
  user and must not be writable by group or others (it is created 0700);
- every file operation goes through that directory's descriptor, files are opened with
  `O_NOFOLLOW`, written to a fresh `O_EXCL` temporary file with mode 0600, fsynced and
  renamed over the old one (a reader sees the old or the new record, never half of one);
- a record is read only when it is a regular file of the user, mode 0600, at most
  `MAX_RECORD_BYTES`, younger than `max_age`, well-formed and naming the same session id;
  anything else counts as "no record" (the session is then refused, never loosened).

File names are the SHA-256 of the session id, so an id can never name a path.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import secrets
import stat
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from safehold.errors import ConfigError
from safehold.policy.grants import GrantEffect
from safehold.policy.modes import Flags
from safehold.policy.sessions import SessionSnapshot

__all__ = ["DEFAULT_MAX_AGE", "MAX_RECORD_BYTES", "SessionStateDir"]

log = logging.getLogger("safehold.session_store")

DEFAULT_MAX_AGE: Final = 7 * 24 * 3600.0
_CLOCK_SKEW: Final = 60.0  # seconds a record's time may lie in the future
"""Seconds a saved session stays valid after its last change (one week)."""

MAX_RECORD_BYTES: Final = 4 * 1024 * 1024
"""A record larger than this is not read (it was not written by safehold)."""

_FORMAT: Final = 1
_SUFFIX: Final = ".json"
_FLAG_NAMES: Final = Flags._fields


class SessionStateDir:
    """A directory of per-session records; use `record` as a `SessionPolicies` observer.

    `max_age` (seconds, finite and > 0) bounds how long after its last change a session can
    be continued. Errors opening the directory are `ConfigError`; errors writing a record
    are logged and the stale record is removed, so a failed save never resurrects an
    older, possibly looser state.
    """

    def __init__(self, path: str | os.PathLike[str], *, max_age: float = DEFAULT_MAX_AGE) -> None:
        if (
            isinstance(max_age, bool)
            or not isinstance(max_age, int | float)
            or not math.isfinite(max_age)
            or max_age <= 0
        ):
            raise ValueError(f"max_age must be a finite number of seconds > 0, got {max_age!r}")
        self.path = Path(path)
        self.max_age = float(max_age)
        self._lock = threading.Lock()
        self._fd = _open_dir(self.path)

    def close(self) -> None:
        """Release the directory descriptor."""
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    # -- the observer --------------------------------------------------------------------

    def record(self, session_id: str, snapshot: SessionSnapshot | None) -> None:
        """Save the session's state, or remove it when `snapshot` is None (closed)."""
        if snapshot is None:
            self.delete(session_id)
            return
        try:
            self.save(session_id, snapshot)
        except OSError as exc:
            log.error("could not save session %s: %s; removing its old record", session_id, exc)
            self.delete(session_id)

    # -- records -------------------------------------------------------------------------

    def save(self, session_id: str, snapshot: SessionSnapshot) -> None:
        """Write the session's record atomically (0600, fsynced); OSError on failure."""
        body = json.dumps(
            {
                "format": _FORMAT,
                "session_id": session_id,
                "cwd": snapshot.cwd,
                "flags": dict(zip(_FLAG_NAMES, (bool(f) for f in snapshot.flags), strict=True)),
                "grants": {str(k): GrantEffect(v).value for k, v in snapshot.grants.items()},
                "expires": {str(k): float(v) for k, v in snapshot.expires.items()},
                "saved_at": time.time(),
            },
            ensure_ascii=False,
            sort_keys=True,
        ).encode("utf-8")
        with self._lock:
            write_private(self._require_fd(), _name(session_id), body)

    def load(self, session_id: str) -> SessionSnapshot | None:
        """The session's saved state, or None when there is no valid, fresh record."""
        name = _name(session_id)
        with self._lock:
            fd = self._require_fd()
            try:
                data = _read_record(name, fd)
            except FileNotFoundError:
                return None
            except (OSError, ValueError) as exc:
                log.warning("ignoring the saved state of session %s: %s", session_id, exc)
                return None
        try:
            snapshot, saved_at = _parse(data, session_id)
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("ignoring the saved state of session %s: %s", session_id, exc)
            return None
        age = time.time() - saved_at
        # A record may be up to a minute in the future (clock skew between processes), never
        # older than max_age: the allowance does not extend the age limit.
        if not -_CLOCK_SKEW <= age <= self.max_age:
            log.info("saved state of session %s is too old (%.0f s); removing it", session_id, age)
            self.delete(session_id)
            return None
        return snapshot

    def delete(self, session_id: str) -> None:
        """Remove the session's record if there is one."""
        with self._lock:
            if self._fd < 0:
                return
            try:
                os.unlink(_name(session_id), dir_fd=self._fd)
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.error("could not remove the saved state of session %s: %s", session_id, exc)

    def _require_fd(self) -> int:
        if self._fd < 0:
            raise OSError("the session state dir is closed")
        return self._fd


def write_private(dir_fd: int, name: str, body: bytes) -> None:
    """Replace `name` in the directory atomically: a fresh 0600 file, fsynced, renamed over it."""
    tmp = f".{name}.{secrets.token_hex(8)}.tmp"
    out = os.open(
        tmp,
        os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
        0o600,
        dir_fd=dir_fd,
    )
    try:
        try:
            view = memoryview(body)
            while view:
                view = view[os.write(out, view) :]
            os.fsync(out)
        finally:
            os.close(out)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise


def _name(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest() + _SUFFIX


def open_private_dir(path: Path) -> int:
    """A descriptor of `path` (created 0700): no symlink, the user's, not writable by others.

    Anything else is a `ConfigError` naming the directory.
    """
    return _open_dir(path)


def read_private(name: str, dir_fd: int, what: str = "the record") -> bytes:
    """The bytes of a regular 0600 file of the user in the directory, at most
    `MAX_RECORD_BYTES`; ValueError (its message names the file as `what`) or OSError
    (FileNotFoundError when absent) otherwise."""
    return _read_record(name, dir_fd, what)


def _open_dir(path: Path) -> int:
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"state dir `{path}`: cannot create it: {exc.strerror}") from None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        what = "is a symlink" if os.path.islink(path) else f"cannot open it: {exc.strerror}"
        raise ConfigError(f"state dir `{path}`: {what}") from None
    st = os.fstat(fd)
    problem = None
    if st.st_uid != os.getuid():
        problem = "belongs to another user"
    elif st.st_mode & 0o022:
        problem = f"is writable by others (mode {stat.S_IMODE(st.st_mode):o}); chmod 700 it"
    if problem is not None:
        os.close(fd)
        raise ConfigError(f"state dir `{path}`: {problem}")
    return fd


def _read_record(name: str, dir_fd: int, what: str = "the record") -> bytes:
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{what} is not a regular file")
        if st.st_uid != os.getuid():
            raise ValueError(f"{what} belongs to another user")
        if st.st_mode & 0o077:
            raise ValueError(f"{what}'s mode is {stat.S_IMODE(st.st_mode):o}, not 600")
        if st.st_size > MAX_RECORD_BYTES:
            raise ValueError(f"{what} is larger than {MAX_RECORD_BYTES} bytes")
        chunks = []
        total = 0
        while chunk := os.read(fd, 65536):
            total += len(chunk)
            if total > MAX_RECORD_BYTES:
                raise ValueError(f"{what} is larger than {MAX_RECORD_BYTES} bytes")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _parse(data: bytes, session_id: str) -> tuple[SessionSnapshot, float]:
    record: Any = json.loads(data.decode("utf-8"))
    if not isinstance(record, Mapping) or record.get("format") != _FORMAT:
        raise ValueError("unknown record format")
    if record.get("session_id") != session_id:
        raise ValueError("the record names another session")
    cwd = record["cwd"]
    if not isinstance(cwd, str) or not cwd.startswith("/"):
        raise ValueError("the record's cwd is not an absolute path")
    flags_in = record["flags"]
    if not isinstance(flags_in, Mapping) or set(flags_in) != set(_FLAG_NAMES):
        raise ValueError("the record's flags are malformed")
    values = [flags_in[n] for n in _FLAG_NAMES]
    if not all(isinstance(v, bool) for v in values):
        raise ValueError("the record's flags are not booleans")
    grants_in = record["grants"]
    if not isinstance(grants_in, Mapping):
        raise ValueError("the record's grants are malformed")
    grants = {}
    for key, effect in grants_in.items():
        if not isinstance(key, str) or not isinstance(effect, str):
            raise ValueError("the record's grants are malformed")
        grants[key] = GrantEffect(effect)
    expires_in = record.get("expires", {})  # absent in records written before expiry
    if not isinstance(expires_in, Mapping):
        raise ValueError("the record's grant expiries are malformed")
    expires = {}
    for key, when in expires_in.items():
        if (
            key not in grants
            or isinstance(when, bool)
            or not isinstance(when, int | float)
            or not math.isfinite(when)
        ):
            raise ValueError("the record's grant expiries are malformed")
        expires[key] = float(when)
    saved_at = record["saved_at"]
    if isinstance(saved_at, bool) or not isinstance(saved_at, int | float):
        raise ValueError("the record's time is malformed")
    if not math.isfinite(saved_at):
        raise ValueError("the record's time is malformed")
    return SessionSnapshot(cwd, Flags(*values), grants, expires), float(saved_at)
