"""The paths git's index tracks, read from `.git/index` (gitformat-index(5)), bounded.

A file the policy denies may also be committed: `.env` added with `git add -f`, a key
checked in years ago. git then prints its content from its own object store, which no
path names and no sandbox can mask (`git show`, `git log -p`, `git grep --cached`,
`git archive HEAD`). The index lists every tracked path, so reading it tells whether the
repository holds such a file. Pure apart from reading `.git`, `.git/config` and the
index; never raises; anything it cannot read is None (not known), which asks.
"""

from __future__ import annotations

import os
import posixpath
from collections import OrderedDict

from safehold.policy._memo import remember

__all__ = ["MAX_INDEX_BYTES", "MAX_INDEX_ENTRIES", "may_name_revision", "tracked_paths"]

# An index larger than this, or with more entries, is not read: the command asks.
MAX_INDEX_BYTES = 64 * 1024 * 1024
MAX_INDEX_ENTRIES = 200_000


def tracked_paths(top: str) -> tuple[str, ...] | None:
    """The paths (relative to the work tree's `top`) that git's index lists.

    `()` when the repository has no index (nothing staged or committed yet checked out);
    None when the index cannot be read or is past the bounds (the caller asks).
    Remembered by the index file's identity, size and change time.
    """
    git_dir = _git_dir(top)
    if git_dir is None:
        return None
    index = posixpath.join(git_dir, "index")
    try:
        st = os.stat(index)
    except FileNotFoundError:
        return ()
    except (OSError, ValueError):
        return None
    key = (index, st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    held = _READ.get(key)
    if held is not None:
        return held[0]
    paths = _read_index(index, st.st_size, _hash_size(git_dir))
    remember(_READ, key, (paths,), 16)
    return paths


_READ: OrderedDict[tuple[object, ...], tuple[tuple[str, ...] | None]] = OrderedDict()


def _git_dir(top: str) -> str | None:
    """The repository's git directory: `top/.git`, or where a `.git` file points
    (`gitdir: PATH`, as in a linked worktree or a submodule); None when unreadable."""
    dot_git = posixpath.join(top, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, "rb") as f:
            text = f.read(4096)
    except (OSError, ValueError):
        return None
    first = text.split(b"\n", 1)[0].strip()
    if not first.startswith(b"gitdir:"):
        return None
    target = os.fsdecode(first[len(b"gitdir:") :].strip())
    if not target:
        return None
    return posixpath.normpath(posixpath.join(top, target))


def _hash_size(git_dir: str) -> int:
    """20 (SHA-1), or 32 when the repository's config sets `objectFormat = sha256`."""
    try:
        with open(posixpath.join(git_dir, "config"), "rb") as f:
            config = f.read(1 << 20).lower()
    except (OSError, ValueError):
        return 20
    return 32 if b"objectformat" in config and b"sha256" in config else 20


def _read_index(index: str, size: int, hash_size: int) -> tuple[str, ...] | None:
    if size > MAX_INDEX_BYTES:
        return None
    try:
        with open(index, "rb") as f:
            data = f.read(MAX_INDEX_BYTES + 1)
    except (OSError, ValueError):
        return None
    try:
        return _entries(data, hash_size)
    except (IndexError, ValueError):
        return None


def _entries(data: bytes, hash_size: int) -> tuple[str, ...] | None:
    """The entry paths of an index file's bytes (versions 2, 3 and 4), or None."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4) or count > MAX_INDEX_ENTRIES:
        return None
    fixed = 40 + hash_size  # ctime, mtime, dev, ino, mode, uid, gid, size; then the name
    out: list[str] = []
    previous = b""
    pos = 12
    for _ in range(count):
        flags_at = pos + fixed
        if flags_at + 2 > len(data):
            return None
        flags = int.from_bytes(data[flags_at : flags_at + 2], "big")
        start = flags_at + 2
        if flags & 0x4000:  # extended flags (version 3 and later)
            if version < 3:
                return None
            start += 2
        if version == 4:
            # The path is the previous one less N bytes, then this entry's suffix (N is
            # git's offset varint).
            byte = data[start]
            start += 1
            strip = byte & 0x7F
            while byte & 0x80:
                byte = data[start]
                start += 1
                strip = ((strip + 1) << 7) | (byte & 0x7F)
            if strip > len(previous):
                return None
            end = data.index(b"\0", start)
            path = previous[: len(previous) - strip] + data[start:end]
            pos = end + 1
        else:
            end = data.index(b"\0", start)
            path = data[start:end]
            # Entries are padded with 1-8 NULs to a multiple of 8 bytes.
            pos += (start - pos + len(path) + 8) & ~7
        if not path or path.startswith(b"/") or b"\0" in path:
            return None
        previous = path
        out.append(os.fsdecode(path))
    return tuple(out)


# Characters of revision syntax (gitrevisions(7)): `HEAD~2`, `main^`, `@{u}`, `HEAD:path`,
# `A..B`; a word holding one is read as a revision.
_REVISION_SYNTAX = frozenset("~^@:{")
_HEX = frozenset("0123456789abcdefABCDEF")
MAX_PACKED_REFS_BYTES = 4 * 1024 * 1024


def may_name_revision(top: str, word: str) -> bool:
    """Whether `word` may name a revision in the repository whose work tree is `top`:
    revision syntax, `-` (the previous branch), a hexadecimal object name of 4 or more
    digits, or a ref git's lookup rules find (gitrevisions(7): `$GIT_DIR/<name>`,
    `refs/<name>`, `refs/tags/<name>`, `refs/heads/<name>`, `refs/remotes/<name>` and its
    `HEAD`), loose or in `packed-refs`. True when the repository cannot be read."""
    if not word or word == "-" or any(ch in _REVISION_SYNTAX for ch in word):
        return True
    if len(word) >= 4 and all(ch in _HEX for ch in word):
        return True
    if ".." in word:
        return True  # a range (`A..B`, `..`)
    if not _ref_format(word):
        return False  # no ref has this name (`.`, `src/`, `*.py`)
    git_dir = _git_dir(top)
    if git_dir is None:
        return True
    common = _common_dir(git_dir)
    if common is None:
        return True
    names = (word, f"refs/{word}", f"refs/tags/{word}", f"refs/heads/{word}",
             f"refs/remotes/{word}", f"refs/remotes/{word}/HEAD")  # fmt: skip
    for name in names:
        for where in (git_dir, common):
            try:
                if os.path.lexists(posixpath.join(where, name)):
                    return True
            except ValueError:
                return True
    try:
        with open(posixpath.join(common, "packed-refs"), "rb") as f:
            packed = f.read(MAX_PACKED_REFS_BYTES + 1)
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return True
    if len(packed) > MAX_PACKED_REFS_BYTES:
        return True
    wanted = {os.fsencode(n) for n in names[1:]}
    for line in packed.split(b"\n"):
        parts = line.split(b" ", 1)
        if len(parts) == 2 and parts[1].strip() in wanted:
            return True
    return False


def _ref_format(word: str) -> bool:
    """Whether a ref may be named `word` (git-check-ref-format(1): no component starting
    with `.` or ending with `.lock`, no empty component, no space, control character, `\\`,
    `?`, `*` or `[`)."""
    if any(ch in _NOT_IN_REFS or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in word):
        return False
    parts = word.split("/")
    return all(p and not p.startswith(".") and not p.endswith(".lock") for p in parts)


_NOT_IN_REFS = frozenset(" \\?*[")


def _common_dir(git_dir: str) -> str | None:
    """Where the refs of a linked worktree's repository live (`commondir`), else `git_dir`."""
    try:
        with open(posixpath.join(git_dir, "commondir"), "rb") as f:
            text = f.read(4096)
    except FileNotFoundError:
        return git_dir
    except (OSError, ValueError):
        return None
    target = os.fsdecode(text.strip())
    return posixpath.normpath(posixpath.join(git_dir, target)) if target else None
