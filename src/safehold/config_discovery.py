"""Which config file a command uses when none is named: the same order for the CLI and the hooks.

1. `--config F` (or the ``explicit`` argument);
2. `$SAFEHOLD_CONFIG` when set and not empty;
3. `<project>/.safehold.toml` (then `.safehold.json`), the project being the workspace;
4. `$XDG_CONFIG_HOME/safehold/config.toml` (default `~/.config/safehold/config.toml`);
5. the built-in defaults.

A file named by 1 or 2 must exist: a missing one is a `ConfigError`, never the defaults. A
found file that does not validate is a `ConfigError` too, and so is something at a
candidate's path that is not a regular file (a directory, a FIFO, a dangling link); nothing falls back to a looser
config because a stricter one is broken.

A project file comes with the code that was cloned. One that is less strict than what would
apply without it (the user file, else the defaults; `policy.strictness`) is used only when
the person has trusted it with its current content (`safehold config trust`,
`project_trust`); otherwise it is a `ConfigError`, which blocks the hook call.

A long-lived process (the hook server) asks again for every call: a file loaded before is
reused while its path, inode, size and times are unchanged (see `_load`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from safehold.errors import ConfigError
from safehold.policy.config import SafetyConfig
from safehold.policy.strictness import loosened_fields
from safehold.project_trust import is_trusted

__all__ = [
    "ENV_VAR",
    "PROJECT_FILES",
    "ConfigSource",
    "candidates",
    "discover_config",
    "find_config",
]

ENV_VAR: Final = "SAFEHOLD_CONFIG"
PROJECT_FILES: Final = (".safehold.toml", ".safehold.json")


@dataclass(frozen=True, slots=True)
class ConfigSource:
    """Where the effective config came from: a file and the rule that found it, or the defaults."""

    path: Path | None
    origin: str
    """`--config`, `$SAFEHOLD_CONFIG`, `project`, `user` or `defaults`."""

    def describe(self) -> str:
        """One line for a person: `/p/.safehold.toml (project file)`."""
        if self.path is None:
            return "the built-in defaults (no config file found)"
        words = {
            "--config": "named by --config",
            ENV_VAR: f"named by ${ENV_VAR}",
            "project": "project file",
            "user": "user file",
        }
        return f"{self.path} ({words.get(self.origin, self.origin)})"


def _user_dir(env: Mapping[str, str]) -> Path | None:
    xdg = env.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg)
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".config" if os.path.isabs(home) else None


def find_config(
    explicit: str | os.PathLike[str] | None = None,
    *,
    project: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> ConfigSource:
    """The config file the rules above pick (without reading it)."""
    env = os.environ if env is None else env
    if explicit is not None:
        return _named(Path(explicit), "--config")
    named = env.get(ENV_VAR, "")
    if named:
        return _named(Path(named).expanduser(), ENV_VAR)
    if project is not None:
        for name in PROJECT_FILES:
            candidate = Path(project) / name
            if _present(candidate, "project"):
                return ConfigSource(candidate, "project")
    user = _user_dir(env)
    if user is not None:
        candidate = user / "safehold" / "config.toml"
        if _present(candidate, "user"):
            return ConfigSource(candidate, "user")
    return ConfigSource(None, "defaults")


def candidates(
    *, project: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> list[tuple[Path, str]]:
    """Every file discovery looks at, in order, with its origin (`project` or `user`)."""
    env = os.environ if env is None else env
    out = [(Path(project) / name, "project") for name in PROJECT_FILES] if project else []
    user = _user_dir(env)
    if user is not None:
        out.append((user / "safehold" / "config.toml", "user"))
    return out


def _present(candidate: Path, origin: str) -> bool:
    """Whether discovery uses `candidate`: absent is False; there but unusable is an error.

    A directory, a FIFO, a socket or a device where the config file belongs is never skipped
    in silence: a looser file further down would then decide instead.
    """
    try:
        candidate.stat()
    except FileNotFoundError:
        if candidate.is_symlink():
            raise ConfigError(
                f"{candidate}: the {origin} config file is a link to nothing"
            ) from None
        return False
    except NotADirectoryError:
        return False
    except OSError as exc:
        raise ConfigError(f"{candidate}: the {origin} config file cannot be read: {exc}") from None
    if not candidate.is_file():
        raise ConfigError(
            f"{candidate}: the {origin} config file is not a regular file; remove it, or name "
            f"a config with --config or ${ENV_VAR}"
        )
    return True


def _named(path: Path, origin: str) -> ConfigSource:
    if not path.is_file():
        what = "--config" if origin == "--config" else f"${origin}"
        state = "is not a file" if path.exists() else "does not exist"
        raise ConfigError(f"{path}: the config file named by {what} {state}")
    return ConfigSource(path, origin)


def discover_config(
    explicit: str | os.PathLike[str] | None = None,
    *,
    project: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[SafetyConfig, ConfigSource]:
    """Find and load the config; errors are `ConfigError` naming the file."""
    source = find_config(explicit, project=project, env=env)
    if source.path is None:
        return _defaults(), source
    config = _load(source.path)
    if source.origin == "project":
        _check_project_file(source.path, config, env)
    return config, source


def _check_project_file(path: Path, config: SafetyConfig, env: Mapping[str, str] | None) -> None:
    """Refuse a project file that loosens the policy unless the person trusted it."""
    env = os.environ if env is None else env
    user = find_config(project=None, env=env)
    base = _load(user.path) if user.path is not None else _defaults()
    if user.path is not None:
        # `load` protects the file it read; the project file need not protect the user's.
        own = str(user.path.resolve())
        kept = tuple(e for e in base.protected_paths if e.replace("\\", "") != own)
        base = base.replace(protected_paths=kept, replace_default_protected_paths=True)
    looser = loosened_fields(config, base)
    if looser and not is_trusted(path, env):
        than = "your user config" if user.path is not None else "the built-in defaults"
        raise ConfigError(
            f"{path}: this project file is less strict than {than} (in "
            f"{', '.join(f'`{n}`' for n in looser)}) and you have not trusted it; it came "
            f"with the code, so read it, then run `safehold config trust --cwd {path.parent}` to "
            "use it (trust ends when the file changes), or pin your own config with "
            f"--config or ${ENV_VAR}"
        )


_DEFAULTS: list[SafetyConfig] = []
_LOADED: dict[tuple[object, ...], SafetyConfig] = {}
_RACY_NS = 3_000_000_000  # file times are coarse: a change this recent may not show in them


def _defaults() -> SafetyConfig:
    if not _DEFAULTS:
        _DEFAULTS.append(SafetyConfig())  # immutable: one object serves every call
    return _DEFAULTS[0]


def _load(path: Path) -> SafetyConfig:
    """`SafetyConfig.load`, reusing an earlier result for the same unchanged file."""
    try:
        st = path.stat()
        key: tuple[object, ...] = (str(path), str(path.resolve()), st.st_dev, st.st_ino)
        key += (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    except (OSError, RuntimeError):
        return SafetyConfig.load(path)  # which reports the problem
    cached = _LOADED.get(key)
    if cached is not None:
        return cached
    config = SafetyConfig.load(path)
    # INVARIANT: only a file whose times are old enough is reused: a second write within
    # the filesystem's time granularity and of the same size would otherwise look unchanged.
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > _RACY_NS:
        if len(_LOADED) >= 16:
            _LOADED.clear()
        _LOADED[key] = config
    return config
