"""`GrantFiles`: the project and user grants on disk, where `safehold grants` finds them.

An "always" answer given for a project or for the user outlives the session, so it is kept in
a file of the user's state directory, never inside the project (an agent can write the
project; it must not be able to write itself a grant):

- user grants: `$XDG_STATE_HOME/safehold/grants/user.json`;
- project grants: `$XDG_STATE_HOME/safehold/grants/project-<sha256 of the project path>.json`,
  the project being the session's workspace (its real path), which the file also names.

`$XDG_STATE_HOME` defaults to `~/.local/state`; safehold's sandbox masks
`$XDG_STATE_HOME/safehold` in every run, so a sandboxed command can neither read nor write
these files. Files are written as `SessionStateDir` writes its records (a 0700 directory of
the user opened without following links, a fresh 0600 file fsynced and renamed over the old
one), and a read-modify-write holds an exclusive lock on the directory.

Fail closed: a file that is unreadable, damaged, too large, not the user's or not 0600 gives
**no grants at all** when deciding (each call asks again), and a one-line `GrantFileError`
for `safehold grants`. Expired grants never hold (`Grant.expired`, judged against the `now`
the caller passes); `clear --expired` removes them.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from safehold.errors import ConfigError
from safehold.policy.grants import Grant, GrantEffect, GrantReach, active_grants
from safehold.session_store import open_private_dir, read_private, write_private

__all__ = ["GrantFileError", "GrantFiles", "grant_id", "grants_root"]

log = logging.getLogger("safehold.grant_store")

_FORMAT: Final = 1
_USER_FILE: Final = "user.json"
PERSISTED: Final[tuple[GrantReach, ...]] = ("project", "user")


class GrantFileError(ConfigError):
    """A grants file that cannot be read or written (it gives no grants)."""


def grants_root(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_STATE_HOME/safehold/grants` (default `~/.local/state/safehold/grants`)."""
    env = os.environ if env is None else env
    state = env.get("XDG_STATE_HOME", "")
    if not os.path.isabs(state):
        home = env.get("HOME") or os.path.expanduser("~")
        state = os.path.join(home, ".local", "state")
    return Path(state) / "safehold" / "grants"


def grant_id(grant: Grant) -> str:
    """A short stable id for a listing and `safehold grants revoke`: scope and key hashed."""
    text = f"{grant.scope}\0{grant.key}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(text).hexdigest()[:12]


def project_of(workspace: str | os.PathLike[str]) -> str:
    """The project a workspace belongs to: its real, absolute path."""
    return os.path.realpath(os.path.abspath(workspace))


class GrantFiles:
    """The user's project and user grants; `active` is what a `Gate` reads before deciding.

    `root` defaults to `grants_root(env)`. Nothing is created until a grant is added.
    """

    def __init__(
        self, root: str | os.PathLike[str] | None = None, *, env: Mapping[str, str] | None = None
    ) -> None:
        self.root = Path(root) if root is not None else grants_root(env)
        # The last parse of each file, by its stamp: an unchanged file is not parsed again.
        # A write renames a new file into place (a new inode), so any change is seen.
        self._parsed: dict[str, tuple[tuple[int, ...], tuple[Grant, ...]]] = {}

    def file_name(self, scope: GrantReach, workspace: str | None = None) -> str:
        """The file that holds `scope`'s grants (a project's: the workspace's)."""
        if scope == "user":
            return _USER_FILE
        if scope != "project" or workspace is None:
            raise ValueError("project grants need the project's workspace")
        digest = hashlib.sha256(project_of(workspace).encode("utf-8", "surrogatepass"))
        return f"project-{digest.hexdigest()}.json"

    def path(self, scope: GrantReach, workspace: str | None = None) -> Path:
        """The full path of `scope`'s grants file."""
        return self.root / self.file_name(scope, workspace)

    # -- reading -------------------------------------------------------------------------

    def load(self, scope: GrantReach, workspace: str | None = None) -> tuple[Grant, ...]:
        """Every grant in `scope`'s file, expired or not; none when there is no file.

        `GrantFileError` (one line, naming the file) when it cannot be read or is damaged.
        """
        name = self.file_name(scope, workspace)
        if not self.root.is_dir():
            return ()
        with self._dir(lock=False) as fd:
            return self._read(fd, name, scope, workspace)

    def active(self, workspace: str, now: float) -> Mapping[str, GrantEffect]:
        """The project's and the user's grants that hold at `now`, by key (a reject wins).

        A file that cannot be read or is damaged gives nothing (logged): fail closed.
        """
        held: list[Grant] = []
        for scope in PERSISTED:
            try:
                held.extend(self.load(scope, workspace))
            except (GrantFileError, OSError, ValueError) as exc:
                log.error("%s; no %s grants are used", exc, scope)
        return active_grants(held, now=now)

    # -- changing ------------------------------------------------------------------------

    def add(self, workspace: str, grant: Grant) -> None:
        """Record `grant` in its scope's file (replacing one under the same key).

        A damaged file is not overwritten: `GrantFileError`, nothing recorded.
        """
        if grant.scope not in PERSISTED:
            raise ValueError(f"a {grant.scope} grant is not kept in a file")
        name = self.file_name(grant.scope, workspace)
        with self._dir(lock=True, create=True) as fd:
            kept = [g for g in self._read(fd, name, grant.scope, workspace) if g.key != grant.key]
            self._write(fd, name, grant.scope, workspace, [*kept, grant])

    def remove(
        self,
        scope: GrantReach,
        workspace: str | None,
        *,
        ids: frozenset[str] | None = None,
        expired_at: float | None = None,
        reset_damaged: bool = False,
    ) -> tuple[Grant, ...]:
        """Remove grants from `scope`'s file; return the ones removed.

        `ids` picks grants by `grant_id`; `expired_at` picks those expired at that time;
        neither removes every grant. `reset_damaged` empties a damaged file instead of
        raising (removing grants never loosens anything).
        """
        name = self.file_name(scope, workspace)
        if not self.root.is_dir():
            return ()
        with self._dir(lock=True) as fd:
            try:
                held = self._read(fd, name, scope, workspace)
            except GrantFileError:
                if not reset_damaged:
                    raise
                self._write(fd, name, scope, workspace, [])
                return ()
            gone = [
                g
                for g in held
                if (ids is None or grant_id(g) in ids)
                and (expired_at is None or g.expired(expired_at))
            ]
            if gone:
                self._write(fd, name, scope, workspace, [g for g in held if g not in gone])
            return tuple(gone)

    # -- internals -----------------------------------------------------------------------

    @contextlib.contextmanager
    def _dir(self, *, lock: bool, create: bool = False) -> Iterator[int]:
        if not create and not self.root.is_dir():
            raise GrantFileError(f"{self.root}: no grants directory")
        try:
            fd = open_private_dir(self.root)
        except ConfigError as exc:
            raise GrantFileError(str(exc)) from None
        try:
            if lock:
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield fd
        finally:
            os.close(fd)  # closing releases the lock

    def _read(
        self, fd: int, name: str, scope: GrantReach, workspace: str | None
    ) -> tuple[Grant, ...]:
        where = self.root / name
        stamp = self._stamp(fd, name, where)
        if stamp is None:
            return ()
        held = self._parsed.get(name)
        if held is not None and held[0] == stamp:
            return held[1]
        try:
            data = read_private(name, fd, "the file")
        except FileNotFoundError:
            return ()
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise GrantFileError(f"{where}: cannot read the grants file: {why}") from None
        try:
            grants = _parse(data, scope, None if workspace is None else project_of(workspace))
        except (ValueError, TypeError, RecursionError) as exc:
            raise GrantFileError(f"{where}: the grants file is damaged: {exc}") from None
        if self._stamp(fd, name, where) == stamp:  # unchanged while read: remember it
            self._parsed[name] = (stamp, grants)
        return grants

    @staticmethod
    def _stamp(fd: int, name: str, where: Path) -> tuple[int, ...] | None:
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise GrantFileError(f"{where}: cannot read the grants file: {exc.strerror}") from None
        return (
            st.st_dev,
            st.st_ino,
            st.st_size,
            st.st_mtime_ns,
            st.st_ctime_ns,
            st.st_mode,
            st.st_uid,
        )

    def _write(
        self,
        fd: int,
        name: str,
        scope: GrantReach,
        workspace: str | None,
        grants: list[Grant],
    ) -> None:
        record: dict[str, Any] = {
            "format": _FORMAT,
            "scope": scope,
            "grants": [g.to_json() for g in grants],
        }
        if scope == "project" and workspace is not None:
            record["project"] = project_of(workspace)
        body = json.dumps(record, ensure_ascii=False, sort_keys=True, indent=1).encode("utf-8")
        try:
            write_private(fd, name, body)
        except OSError as exc:
            raise GrantFileError(
                f"{self.root / name}: cannot write the grants file: {exc.strerror or exc}"
            ) from None


def _parse(data: bytes, scope: GrantReach, project: str | None) -> tuple[Grant, ...]:
    record = json.loads(data.decode("utf-8"))
    if not isinstance(record, Mapping) or record.get("format") != _FORMAT:
        raise ValueError("unknown format")
    if record.get("scope") != scope:
        raise ValueError(f"it holds {record.get('scope')!r} grants, not {scope!r} ones")
    if scope == "project" and record.get("project") != project:
        raise ValueError("it names another project")
    items = record.get("grants")
    if not isinstance(items, list):
        raise ValueError("`grants` is not a list")
    grants = tuple(Grant.from_json(item) for item in items)
    if any(g.scope != scope for g in grants):
        raise ValueError(f"a grant in it is not a {scope} grant")
    return grants
