"""Project config files the person has trusted, by path and content.

A `<project>/.safehold.toml` that loosens the policy is used only once the person has read it
and run `safehold config trust`; the record names the file and the SHA-256 of its bytes, so
any change to the file (a `git pull`, an agent's edit) ends the trust. The records live in
`$XDG_STATE_HOME/safehold/trusted-projects.json` (default `~/.local/state/safehold/…`),
outside every project, written atomically with mode 0600.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from safehold.errors import ConfigError

__all__ = ["is_trusted", "trust", "trust_store"]


def trust_store(env: Mapping[str, str] | None = None) -> Path:
    """Where the trust records are kept."""
    env = os.environ if env is None else env
    state = env.get("XDG_STATE_HOME", "")
    if not os.path.isabs(state):
        home = env.get("HOME") or os.path.expanduser("~")
        state = os.path.join(home, ".local", "state")
    return Path(state) / "safehold" / "trusted-projects.json"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _records(store: Path) -> dict[str, str]:
    try:
        data = json.loads(store.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return {}  # unreadable or damaged: nothing is trusted (fail closed)
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    return {str(k): str(v) for k, v in files.items()}


def is_trusted(path: Path, env: Mapping[str, str] | None = None) -> bool:
    """True when `path`, with its current content, was trusted."""
    try:
        key = str(path.resolve())
        return _records(trust_store(env)).get(key) == _digest(path)
    except OSError:
        return False


def trust(path: Path, env: Mapping[str, str] | None = None) -> str:
    """Record `path` with its current content as trusted; return the SHA-256 recorded."""
    store = trust_store(env)
    try:
        digest = _digest(path)
        records = _records(store)
        records[str(path.resolve())] = digest
        store.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=store.parent, prefix=".trusted-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"version": 1, "files": records}, f, indent=2, sort_keys=True)
        os.replace(tmp, store)
    except OSError as exc:
        raise ConfigError(f"{store}: cannot record trust: {exc}") from None
    return digest
