"""What a repository's `.gitignore` leaves out, for programs that honour it (`git add`, `rg`).

Only the top-level `.gitignore` and `.git/info/exclude` are read (each whole, up to 64 KiB;
a longer one is not honoured at all), never
nested `.gitignore` files or the user's global excludes: a file those would ignore is still
counted as read, which can only make a walk ask more, never less. `.git` itself is always
left out, as git and rg leave it out.
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Callable

from pathspec import GitIgnoreSpec

__all__ = ["ignore_filter", "repository_root"]

_MAX_BYTES = 64 * 1024
_MAX_LEVELS = 64


def repository_root(directory: str) -> str | None:
    """The nearest directory at or above `directory` holding `.git`, or None."""
    current = posixpath.normpath(directory)
    for _ in range(_MAX_LEVELS):
        if os.path.lexists(posixpath.join(current, ".git")):
            return current
        parent = posixpath.dirname(current)
        if parent == current:
            return None
        current = parent
    return None


def ignore_filter(directory: str) -> Callable[[str, bool], bool]:
    """A test `(path, is_dir) -> ignored` for the repository holding `directory`.

    Outside a repository only `.git` entries are ignored (there is nothing else to honour).
    """
    root = repository_root(directory)
    lines: list[str] = []
    if root is not None:
        for name in (".gitignore", ".git/info/exclude"):
            lines += _read_lines(posixpath.join(root, name))
    try:
        spec = GitIgnoreSpec.from_lines(lines)
    except Exception:  # a pattern pathspec cannot read: honour none of them (ask more)
        spec = GitIgnoreSpec.from_lines([])

    def ignored(path: str, is_dir: bool) -> bool:
        if posixpath.basename(path) == ".git":
            return True
        if root is None or not spec.patterns:
            return False
        rel = posixpath.relpath(path, root)
        if rel.startswith(".."):
            return False
        return bool(spec.match_file(rel + "/" if is_dir else rel))

    return ignored


def _read_lines(path: str) -> list[str]:
    # A regular file only, not followed through a link and never waited on (a FIFO named
    # `.gitignore` would block an open for reading): every decision ends in bounded time.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        data = os.read(fd, _MAX_BYTES + 1)
    except OSError:
        return []
    finally:
        os.close(fd)
    if len(data) > _MAX_BYTES:
        # Part of the file could drop a `!negation` below the cut and hide a file git
        # stages: a file too long to read whole is honoured not at all (the walk asks more).
        return []
    return data.decode("utf-8", "replace").splitlines()
