"""The early `session/new` answer of `safehold acp`, remembered between runs (issue 29).

What a new session's answer says (its modes and config options, `session_setup_json`)
depends only on the config and `--floor`. Loading the config needs pydantic and safehold's
config models, most of the half second before `safehold acp` could answer; acpx starts an
agent for most commands. So after a config loads, its answer is kept under
`$XDG_CACHE_HOME/safehold/acp/` (default `~/.cache/…`, 0700), named by a digest of
everything the load reads:

- safehold's code (the path, size and modification time of every file in the package)
  and the interpreter's version;
- every option of `safehold acp` (`--config`, `--floor`, ...), the current directory, and the variables discovery reads
  (`SAFEHOLD_CONFIG`, `SAFEHOLD_MANAGED_CONFIG`, `HOME`, `XDG_CONFIG_HOME`, `XDG_STATE_HOME`);
- every file discovery may read, whether or not it is used: the named config, the managed
  policy, the project's `.safehold.toml` and `.safehold.json`, the user config and the
  project-trust records, each by its kind (missing, link, directory, ...) and its bytes.

The next start with the same inputs offers the remembered answer before the config loads
(`lookup`), and the main thread then checks it against the loaded config
(`EarlyInitialize.confirm_sessions`): an answer that was sent and does not match ends the
agent with an error (fail closed); one not yet sent is replaced. Only answers of configs
that loaded are written, and only when the key computed again after the load is the one
computed before it (no input changed meanwhile), so a config that fails to load never gets
an early answer. Any
problem reading or writing the cache is a miss, never an error.

Imports only light standard modules: it runs before the config's imports.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["CACHE_VERSION", "cache_dir", "forget", "key", "lookup", "remember"]

CACHE_VERSION: Final = 1
_KEEP: Final = 32  # entries kept; older ones are removed when a new one is written
_MAX_ENTRY: Final = 1 << 20  # an entry is a few kilobytes; anything larger is not one
_ENV: Final = (
    "SAFEHOLD_CONFIG",
    "SAFEHOLD_MANAGED_CONFIG",
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
)


def cache_dir(env: Mapping[str, str] | None = None) -> str | None:
    """Where the answers are kept, or None without an absolute cache or home directory."""
    env = os.environ if env is None else env
    base = env.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = env.get("HOME") or os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "safehold", "acp")


def lookup(options: list[str], config: str | None) -> tuple[str, dict[str, Any] | None]:
    """(key, the remembered setup or None) for a start with `options` and `--config config`.

    The key names the entry `remember` writes once the config has loaded.
    """
    key = _key(options, config)
    folder = cache_dir()
    if folder is None:
        return key, None
    raw = _read_regular(os.path.join(folder, f"{key}.json"), _MAX_ENTRY)
    try:
        data = json.loads(raw) if raw is not None else None
    except ValueError:
        return key, None
    if (
        not isinstance(data, dict)
        or data.get("version") != CACHE_VERSION
        or not isinstance(data.get("setup"), dict)
        or not isinstance(data["setup"].get("modes"), dict)
        or not isinstance(data["setup"].get("configOptions"), list)
    ):
        return key, None
    setup: dict[str, Any] = data["setup"]
    return key, setup


def remember(key: str, setup: dict[str, Any]) -> None:
    """Keep `setup` under `key` (atomically, 0600); errors are ignored.

    The caller checks that `key` still holds after the config loaded (`key` again): a file
    that changed between the two would otherwise file one config's answer under another's.
    """
    folder = cache_dir()
    if folder is None:
        return
    body = json.dumps({"version": CACHE_VERSION, "setup": setup}, separators=(",", ":"))
    tmp = os.path.join(folder, f".{key}.{os.getpid()}.tmp")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(body)
        os.replace(tmp, os.path.join(folder, f"{key}.json"))
        _prune(folder)
    except OSError:
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(tmp)


def forget(key: str) -> None:
    """Remove the entry under `key`, if there is one; errors are ignored."""
    folder = cache_dir()
    if folder is not None:
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(os.path.join(folder, f"{key}.json"))


def _prune(folder: str) -> None:
    entries = []
    with os.scandir(folder) as it:
        for entry in it:
            if entry.name.endswith(".json") and not entry.name.startswith("."):
                entries.append((entry.stat().st_mtime_ns, entry.path))
    for _, path in sorted(entries, reverse=True)[_KEEP:]:
        os.unlink(path)


def key(options: list[str], config: str | None) -> str:
    """The digest `lookup` names the entry by (computed afresh: it reads the files again)."""
    return _key(options, config)


def _key(options: list[str], config: str | None) -> str:
    try:
        from _blake2 import blake2b  # hashlib would load OpenSSL first (~10 ms)
    except ImportError:  # pragma: no cover - every CPython build has it
        from hashlib import blake2b
    h = blake2b(digest_size=20)
    env = os.environ
    cwd = os.getcwd()
    words: list[str] = [f"v{CACHE_VERSION}", sys.version, *options, cwd]
    words += [f"{name}={env.get(name)!r}" for name in _ENV]
    h.update("\0".join(words).encode("utf-8", "surrogateescape"))
    for path in _inputs(config, cwd, env):
        h.update(b"\0" + path.encode("utf-8", "surrogateescape") + b"\0")
        h.update(_file_state(path))
    _code_state(h)
    return h.hexdigest()


def _inputs(config: str | None, cwd: str, env: Mapping[str, str]) -> list[str]:
    """Every file config discovery may read (`safehold.config_discovery`)."""
    paths = [os.path.join(cwd, ".safehold.toml"), os.path.join(cwd, ".safehold.json")]
    if config is not None:
        paths.append(os.path.join(cwd, config))
    named = env.get("SAFEHOLD_CONFIG", "")
    if named:
        paths.append(os.path.join(cwd, os.path.expanduser(named)))
    managed = env.get("SAFEHOLD_MANAGED_CONFIG", "")
    paths.append(
        os.path.join(cwd, os.path.expanduser(managed)) if managed else "/etc/safehold/policy.toml"
    )
    home = env.get("HOME") or os.path.expanduser("~")
    xdg = env.get("XDG_CONFIG_HOME", "")
    config_home = xdg if os.path.isabs(xdg) else os.path.join(home, ".config")
    paths.append(os.path.join(config_home, "safehold", "config.toml"))
    state = env.get("XDG_STATE_HOME", "")
    state = state if os.path.isabs(state) else os.path.join(home, ".local", "state")
    paths.append(os.path.join(state, "safehold", "trusted-projects.json"))
    return paths


def _file_state(path: str) -> bytes:
    """The kind of what is at `path` (without and with following links) and its bytes."""
    try:
        link = stat.S_IFMT(os.lstat(path).st_mode)
    except OSError as exc:
        return f"lstat:{exc.errno}".encode()
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"{link}:stat:{exc.errno}".encode()
    head = f"{link}:{stat.S_IFMT(st.st_mode)}:{st.st_size}:".encode()
    if not stat.S_ISREG(st.st_mode):
        return head
    data = _read_regular(path, None)
    return head + (data if data is not None else b"unreadable")


def _read_regular(path: str, limit: int | None) -> bytes | None:
    """The bytes of the regular file at `path` (None: anything else, or unreadable).

    Opened without blocking, so a FIFO put in a file's place cannot hang the start.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (limit is not None and st.st_size > limit):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _code_state(h: Any) -> None:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    pending = [root]
    while pending:
        folder = pending.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            h.update(f"\0{folder}:unreadable".encode())
            continue
        for entry in entries:
            if entry.name == "__pycache__":
                continue
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
            elif not entry.name.endswith(".pyc"):
                st = entry.stat()
                h.update(f"\0{entry.path}:{st.st_size}:{st.st_mtime_ns}".encode())
