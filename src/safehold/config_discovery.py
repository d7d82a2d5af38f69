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

A managed policy (`/etc/safehold/policy.toml`, or the file `$SAFEHOLD_MANAGED_CONFIG`
names) is the floor under all of this: the file found above is layered on it (lists extend
it, settings set in the file replace its values) and the result may only be stricter than the
managed policy (`policy.strictness`); a looser one is a `ConfigError`, which trust does not
lift. Without any other file the managed policy itself applies. A managed file that is present
but unreadable or invalid is a `ConfigError` for every call (every hook call is blocked, every
check exits 2): it never falls back to the defaults.

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
    "MANAGED_ENV_VAR",
    "MANAGED_PATH",
    "PROJECT_FILES",
    "ConfigSource",
    "candidates",
    "discover_config",
    "find_config",
    "layered",
    "managed_config",
]

ENV_VAR: Final = "SAFEHOLD_CONFIG"
MANAGED_ENV_VAR: Final = "SAFEHOLD_MANAGED_CONFIG"
MANAGED_PATH: Final = Path("/etc/safehold/policy.toml")
PROJECT_FILES: Final = (".safehold.toml", ".safehold.json")


@dataclass(frozen=True, slots=True)
class ConfigSource:
    """Where the effective config came from: a file and the rule that found it, or the defaults."""

    path: Path | None
    origin: str
    """`--config`, `$SAFEHOLD_CONFIG`, `project`, `user`, `managed` or `defaults`."""

    def describe(self) -> str:
        """One line for a person: `/p/.safehold.toml (project file)`."""
        if self.path is None:
            return "the built-in defaults (no config file found)"
        words = {
            "--config": "named by --config",
            ENV_VAR: f"named by ${ENV_VAR}",
            "project": "project file",
            "user": "user file",
            "managed": "managed policy",
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


def managed_config(env: Mapping[str, str] | None = None) -> tuple[SafetyConfig, Path] | None:
    """The managed policy and its file, or None when there is none.

    Raises `ConfigError` when the file is named but missing, or present but unreadable or
    invalid: the caller then decides nothing (it never falls back to the defaults).
    """
    env = os.environ if env is None else env
    named = env.get(MANAGED_ENV_VAR, "")
    path = Path(named).expanduser() if named else MANAGED_PATH
    if not named and not os.path.lexists(path):
        return None
    if named and not os.path.lexists(path):
        raise ConfigError(f"{path}: the managed policy named by ${MANAGED_ENV_VAR} does not exist")
    try:
        return _load(path), path
    except ConfigError as exc:
        raise ConfigError(
            f"managed policy: {exc}; every call is denied until it is fixed "
            "(a broken managed policy never falls back to the defaults)"
        ) from None


# Lists a file on top of another extends (as user lists extend the built-in ones).
_EXTENDED: Final = ("denied_paths", "protected_paths", "readonly_paths", "command_rules")
_SECTIONS: Final = ("sandbox", "network", "audit")


def layered(base: SafetyConfig, top: SafetyConfig) -> SafetyConfig:
    """`top` on `base`: lists extend base's, a setting `top` sets replaces base's value.

    Only what `top`'s file set counts (a field it leaves out keeps base's value, not the
    default). The result is validated like any config; it may be looser than `base` (a
    setting can loosen), which `loosened_fields` then says.
    """
    data = base.model_dump(mode="python", round_trip=True)
    mine = top.model_dump(mode="python", round_trip=True, exclude_unset=True)
    for name, value in mine.items():
        if name in _EXTENDED:
            data[name] = [*data[name], *value]
        elif name in _SECTIONS and isinstance(value, dict):
            section = dict(data[name])
            for key, sub in value.items():
                extend = name == "network" and key == "denied_domains"
                section[key] = [*section[key], *sub] if extend else sub
            data[name] = section
        elif not name.startswith("replace_default_"):
            data[name] = value
    return SafetyConfig.model_validate(data)


def discover_config(
    explicit: str | os.PathLike[str] | None = None,
    *,
    project: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[SafetyConfig, ConfigSource]:
    """Find and load the config; errors are `ConfigError` naming the file."""
    managed = managed_config(env)
    source = find_config(explicit, project=project, env=env)
    if source.path is None:
        if managed is not None:
            return managed[0], ConfigSource(managed[1], "managed")
        return _defaults(), source
    config = _load(source.path)
    if source.origin == "project":
        _check_project_file(source.path, config, env, managed)
    if managed is not None:
        config = _on_managed(source.path, config, managed)
    return config, source


def _on_managed(
    path: Path, config: SafetyConfig, managed: tuple[SafetyConfig, Path]
) -> SafetyConfig:
    """`config` layered on the managed policy; a `ConfigError` when that loosens it."""
    effective = layered(managed[0], config)
    looser = loosened_fields(effective, managed[0])
    if looser:
        raise ConfigError(
            f"{path}: this file is less strict than the managed policy {managed[1]} (in "
            f"{', '.join(f'`{n}`' for n in looser)}); files may only tighten a managed policy, "
            "so remove those settings (trust does not lift this)"
        )
    return effective


def _check_project_file(
    path: Path,
    config: SafetyConfig,
    env: Mapping[str, str] | None,
    managed: tuple[SafetyConfig, Path] | None = None,
) -> None:
    """Refuse a project file that loosens the policy unless the person trusted it."""
    env = os.environ if env is None else env
    user = find_config(project=None, env=env)
    base = _load(user.path) if user.path is not None else _defaults()
    if user.path is None and managed is not None:
        return  # what applies without this file is the managed policy: `_on_managed` checks
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
