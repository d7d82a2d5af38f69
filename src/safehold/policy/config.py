"""`SafetyConfig`: the immutable, fully validated policy an agent runs under.

Every change produces a new, re-validated object. Built-in deny / protected lists and
command rules are a floor that user lists extend; replacing them takes an explicit
``replace_default_*`` opt-out.
"""

from __future__ import annotations

import functools
import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, Final, Literal, Self

import pathspec
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails

from safehold.errors import ConfigError, value_kind
from safehold.policy.decision import Verdict
from safehold.policy.examples import PolicyExample
from safehold.policy.modes import (
    Flags,
    Mode,
    derive_mode,
    flags_for_mode,
    flags_with_option,
    option_values_for,
)
from safehold.policy.program_config import DeclaredProgram
from safehold.policy.sandbox_config import SandboxConfig
from safehold.policy.timeouts import Seconds
from safehold.policy.urls import NetworkConfig

__all__ = [
    "DEFAULT_COMMAND_RULES",
    "DEFAULT_DENIED_PATHS",
    "DEFAULT_PROTECTED_PATHS",
    "DEFAULT_READONLY_PATHS",
    "ENV_TEMPLATE_NAMES",
    "AuditConfig",
    "CommandRule",
    "PathPattern",
    "SafetyConfig",
    "format_validation_error",
]

# gitignore syntax on absolute paths: a pattern without a slash floats (matches a name
# anywhere); a trailing slash means "this directory and everything below".
DEFAULT_DENIED_PATHS: Final[tuple[str, ...]] = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d/",
    "/etc/ssh/ssh_host_*_key",
    ".ssh/",
    ".gnupg/",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.keystore",
    "*.jks",
    ".env",
    ".env.*",
    # An editor's backup and auto-save copies of `.env` (emacs, gedit, nano: `.env~`;
    # emacs's auto-save `#.env#`); vim's swap file `.env.swp` is `.env.*`.
    ".env~",
    "\\#.env#",
    ".envrc",
    "credentials",
    "credentials.*",
    ".git-credentials",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".aws/",
    ".azure/",
    ".config/gcloud/",
    ".config/gh/hosts.yml",
    ".docker/config.json",
    ".kube/config",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".password-store/",
    "*.kdbx",
    "?*.env",
    "*.ppk",
    "*.tfstate",
    "*.tfstate.backup",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".config/rclone/",
    ".*_history",
    ".history",
    ".zhistory",
    "fish_history",
    ".lesshst",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".gemini/google_accounts.json",
    ".config/github-copilot/",
    # Tokens kept in the toolchain directories the sandbox shows read-only (its default
    # read roots, ~/.cache and ~/.nvm): Hugging Face's login, npm's global config
    # (`npm config set -g //registry/:_authToken=...` writes PREFIX/etc/npmrc).
    ".cache/huggingface/token",
    ".cache/huggingface/stored_tokens",
    "etc/npmrc",
    "/run/secrets/",
    "/var/run/secrets/",
    ".mozilla/",
    ".config/google-chrome/",
    ".config/chromium/",
    ".config/BraveSoftware/",
    ".local/share/keyrings/",
    ".local/share/kwalletd/",
    "Library/Keychains/",
    "Library/Application Support/Google/Chrome/",
    "Library/Application Support/Firefox/",
)

# Template env files hold variable names, not values: `.env.*` does not deny these names
# (a symlink by such a name to a real `.env` is still denied through its target).
ENV_TEMPLATE_NAMES: Final = frozenset({".env.example", ".env.sample", ".env.template"})

DEFAULT_PROTECTED_PATHS: Final[tuple[str, ...]] = (
    ".git",
    ".gitmodules",
    ".gitconfig",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".config/fish/",
    ".inputrc",
    ".ssh/",
    ".vscode/",
    ".idea/",
    ".zed/",
    ".claude/",
    ".cursor/",
    ".mcp.json",
    ".github/workflows/",
    ".github/actions/",
    ".gitlab-ci.yml",
    ".husky/",
    "*.code-workspace",
    ".gemini/",
    ".kiro/",
    ".amazonq/",
    ".codex/",
    "opencode.json",
    ".devcontainer/",
    ".pre-commit-config.yaml",
    ".yarnrc.yml",
    ".pnpmfile.cjs",
    ".mise.toml",
    # Settings that make the next run of a tool run a program the file names: yarn 1's
    # `yarn-path` (any `yarn` runs that file), bun's `preload` scripts, a Rust toolchain's
    # `path` and cargo's `runner`/`rustc-wrapper`/aliases, pylint's `init-hook` (editors
    # run pylint in the background, on open).
    ".yarnrc",
    "bunfig.toml",
    "rust-toolchain",
    "rust-toolchain.toml",
    ".cargo/config",
    ".cargo/config.toml",
    # npm's project config (denied too: it holds registry tokens): `script-shell`,
    # `node-options=--require ...` and `git` name programs every later npm run starts.
    ".npmrc",
    ".pylintrc",
    "pylintrc",
    ".bash_aliases",
    ".config/git/",
    ".config/systemd/",
    "~/.local/bin/",
    "site-packages/*.pth",
    "dist-packages/*.pth",
    "safehold.toml",
    "safehold.json",
    ".safehold.toml",
    ".safehold.json",
    # safehold's own user config and state (grants an "always" answer filed, audit logs,
    # the hook server's socket): an agent that wrote there would approve itself.
    "~/.config/safehold/",
    "~/.local/state/safehold/",
    # Instructions every later agent session reads as its own: a prompt-injection foothold.
    "AGENTS.md",
    "CLAUDE.md",
    "CLAUDE.local.md",
    "GEMINI.md",
    ".github/copilot-instructions.md",
    ".github/instructions/",
    ".cursorrules",
    ".windsurfrules",
    # CI configuration: code run with the repository's secrets on the next push.
    ".circleci/",
    "bitbucket-pipelines.yml",
    "Jenkinsfile",
    ".gitlab/",
    "azure-pipelines.yml",
    ".travis.yml",
    ".buildkite/",
)

# Read without asking, written only with approval: what agents read to understand the code
# they work on (system headers, installed packages' sources, toolchains).
DEFAULT_READONLY_PATHS: Final[tuple[str, ...]] = (
    "/usr/include/",
    "/usr/local/include/",
    "/usr/lib/python3*/",
    "/usr/lib64/python3*/",
    "/usr/local/lib/python3*/",
    "/usr/lib/jvm/",
    "/usr/local/go/",
    "/usr/share/doc/",
    "site-packages/",
    "dist-packages/",
    "~/.local/lib/python3*/",
    "~/.pyenv/versions/",
    "~/.cargo/registry/",
    "~/.cargo/git/",
    "~/.rustup/toolchains/",
    "~/go/pkg/mod/",
    "~/.m2/repository/",
    "~/.gradle/caches/",
    "~/.nvm/versions/",
)

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_PLACEHOLDER = re.compile(r"<[A-Za-z_][\w-]*>|\{[A-Za-z_][\w-]*\}")


@functools.lru_cache(maxsize=4096)
def _check_pattern(value: str) -> str:
    """Reject patterns that pathspec would drop, negate, or read differently than meant.

    A pure function of the text, so it is memoised (bounded): every config built from the
    defaults, by `with_mode` or `replace`, checks the same hundred-odd patterns again. A
    pattern that fails raises each time (exceptions are not cached).
    """
    if not value or not value.strip():
        raise ValueError("a path pattern must not be empty")
    if _CONTROL.search(value):
        raise ValueError(f"path pattern {value!r} contains a control character")
    if value.startswith("!"):
        raise ValueError(
            f"path pattern `{value}` is a negation; `!` is not allowed "
            "(write a narrower pattern instead)"
        )
    if value.startswith("#"):
        raise ValueError(f"path pattern `{value}` would be read as a comment")
    if value != value.rstrip():
        raise ValueError(f"path pattern `{value}` has trailing whitespace that gitignore drops")
    if ".." in value.replace("\\", "/").split("/"):
        raise ValueError(f"path pattern `{value}` contains a `..` component")
    if value.count("[") != value.count("]"):
        raise ValueError(f"path pattern `{value}` has an unbalanced `[`")
    placeholder = _PLACEHOLDER.search(value.replace("{workspace}", ""))
    if placeholder:
        # `<cwd>/**` (Aar's spelling) would otherwise be a literal name that never matches.
        raise ValueError(
            f"path pattern `{value}` has the unknown placeholder `{placeholder.group()}`; "
            "the only placeholder is `{workspace}` (and a leading `~`)"
        )
    probe = value.replace("{workspace}", "/workspace")
    if probe.startswith("~"):
        probe = "/home/user" + probe[1:]
    try:
        spec = pathspec.PathSpec.from_lines("gitignore", [probe])
    except Exception as exc:  # pathspec raises several types for bad patterns
        raise ValueError(f"path pattern `{value}` is malformed: {exc}") from None
    if not spec.patterns or any(p.include is None for p in spec.patterns):
        raise ValueError(f"path pattern `{value}` compiles to nothing (it would be ignored)")
    return value


PathPattern = Annotated[str, Field(strict=True), AfterValidator(_check_pattern)]
"""A gitignore-style path pattern; `{workspace}` and a leading `~` are expanded per session."""


def _check_rule_pattern(value: str) -> str:
    if not value.strip():
        raise ValueError("a command rule pattern must not be empty")
    if _CONTROL.search(value):
        raise ValueError(f"command rule pattern {value!r} contains a control character")
    return value


class CommandRule(BaseModel):
    """A rule on commands: tokens of parsed simple commands (`git status`, `npm run test *`),
    or, for deny and ask only, a substring or an RE2 regular expression of the command text.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    pattern: Annotated[str, Field(strict=True), AfterValidator(_check_rule_pattern)]
    """Tokens matched against a command's argv (`*` one token, a trailing `*` any rest); or the substring / regex."""
    decision: Verdict
    """`allow`, `ask` or `deny` (`substring` and `regex` rules: `ask` or `deny` only)."""
    reason: Annotated[str, Field(strict=True)] | None = None
    """Why the rule exists, shown to the person in the decision's reasons."""
    match: Literal["tokens", "substring", "regex"] = "tokens"
    """How `pattern` matches: parsed `tokens` (default), a `substring` of the command text, or an RE2 `regex` searched in it."""

    @model_validator(mode="before")
    @classmethod
    def _normalise_tokens(cls, data: Any) -> Any:
        # Token patterns compare by words, so spacing is not part of them; text patterns keep it.
        if isinstance(data, Mapping) and data.get("match", "tokens") == "tokens":
            pattern = data.get("pattern")
            if isinstance(pattern, str):
                data = {**data, "pattern": " ".join(pattern.split())}
        return data

    @model_validator(mode="after")
    def _check_text_rule(self) -> Self:
        if self.match == "tokens":
            return self
        if self.decision is Verdict.ALLOW:
            raise ValueError(
                f"{self.match} rule `{self.pattern}` cannot allow: substring and regex rules "
                "match text, which says nothing about what else the command runs; use "
                "`deny` or `ask` (or a token rule to allow)"
            )
        if self.match == "regex":
            compile_text_regex(self.pattern)  # ValueError names the pattern
        return self


def compile_text_regex(pattern: str) -> Any:
    """Compile a user regex with RE2 (linear time, no backtracking); ValueError when invalid."""
    import re2  # type: ignore[import-untyped]  # google-re2: only regex rules need it

    options = re2.Options()
    options.log_errors = False  # the ValueError says it; RE2 would also print to stderr
    try:
        return re2.compile(pattern, options=options)
    except Exception as exc:  # re2.error, and TypeError for odd input
        detail = exc.args[0] if exc.args else exc
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise ValueError(
            f"regex rule `{pattern}` is not a valid RE2 expression: {detail}"
        ) from None


class AuditConfig(BaseModel):
    """Where decisions are logged, one JSON object per decision."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Annotated[str, Field(strict=True, min_length=1)] | None = None
    """Append JSON lines to this file (`~` expands)."""
    logger: Annotated[str, Field(strict=True, min_length=1)] | None = None
    """Also emit each record to this `logging` logger (e.g. `safehold.audit`)."""
    redact: StrictBool = True
    """Redact secrets (tokens, passwords, keys) from logged arguments."""


def _merge(defaults: Iterable[Any], user: Iterable[Any]) -> tuple[Any, ...]:
    out: list[Any] = []
    seen: set[Any] = set()
    for item in (*defaults, *user):
        key = _identity(item)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return tuple(out)


def _identity(item: Any) -> Any:
    # A rule given as a dict (after `model_dump`) is the same rule as the model it came from,
    # so re-validating a config must not append the defaults a second time.
    if isinstance(item, BaseModel):
        item = item.model_dump()
    if isinstance(item, Mapping):
        try:
            return tuple(sorted((str(k), v) for k, v in item.items() if v is not None))
        except TypeError:
            return repr(sorted(item.items(), key=str))
    try:
        hash(item)
    except TypeError:
        return repr(item)
    return item


def _schema_with_mode(schema: dict[str, Any]) -> None:
    # `mode` is read by a before-validator (`_expand_mode`), not a field: the schema of a
    # config file still lists it, so an editor validating against it accepts `mode = "auto"`.
    schema["properties"]["mode"] = {
        "title": "Mode",
        "enum": [m.value for m in Mode],
        "type": "string",
        "description": "Shorthand for read_only and the two require_approval flags; a flag "
        "that contradicts it is an error.",
    }


class SafetyConfig(BaseModel):
    """The policy: modes' three flags, path lists, command rules, sandbox and audit settings."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", validate_default=True, json_schema_extra=_schema_with_mode
    )

    read_only: StrictBool = False
    """Writes and execute are denied outright."""
    require_approval_for_writes: StrictBool = True
    """Write-side tools (edit, delete, move) need approval."""
    require_approval_for_execute: StrictBool = True
    """Execute-side tools need approval."""
    denied_paths: tuple[PathPattern, ...] = DEFAULT_DENIED_PATHS
    """Path patterns never read or written (extends the built-in list)."""
    allowed_paths: tuple[PathPattern, ...] = ("{workspace}",)
    """When non-empty, file tools may only touch paths inside these roots/patterns."""
    protected_paths: tuple[PathPattern, ...] = DEFAULT_PROTECTED_PATHS
    """Writes always ask, in every mode (denied in read-only); extends the built-in list."""
    readonly_paths: tuple[PathPattern, ...] = DEFAULT_READONLY_PATHS
    """Read without asking even outside `allowed_paths`; writes ask (extends the built-in list)."""
    write_denied_paths: tuple[PathPattern, ...] = ()
    """Path patterns never written, deleted or re-permissioned; reads are judged as usual."""
    outside_reads: Literal["ask", "deny"] = "ask"
    """A read outside `allowed_paths` and `readonly_paths`: ask (default) or deny outright."""
    command_rules: tuple[CommandRule, ...] = ()
    """Allow / ask / deny rules on parsed commands (extends the built-in rules)."""
    sandbox: SandboxConfig = SandboxConfig()
    """How execute tools run."""
    network: NetworkConfig = NetworkConfig()
    """Which hosts fetch tools and commands may reach (the URL policy)."""
    acp_approval_timeout: Seconds = 0.0
    """Seconds to wait for the client's permission answer; 0 waits indefinitely."""
    audit: AuditConfig = AuditConfig()
    """Where decisions are logged."""
    case_insensitive_paths: StrictBool | None = None
    """Fold case before matching; None detects it per volume."""
    replace_default_denied_paths: StrictBool = False
    """Use `denied_paths` as given instead of extending the built-in list."""
    replace_default_protected_paths: StrictBool = False
    """Use `protected_paths` as given instead of extending the built-in list."""
    replace_default_readonly_paths: StrictBool = False
    """Use `readonly_paths` as given instead of extending the built-in list."""
    replace_default_command_rules: StrictBool = False
    """Use `command_rules` as given instead of extending the built-in rules."""
    programs: tuple[DeclaredProgram, ...] = ()
    """Programs safehold does not know, declared so that without the sandbox they are understood."""
    grant_scope: Literal["exact", "tool", "command-prefix"] = "exact"
    """What an "always" answer covers: the exact command or path (default), the whole tool, or a command's program and subcommand."""
    examples: tuple[PolicyExample, ...] = ()
    """Policy tests (`[[examples]]`): calls and the verdict each must get; they never change a decision."""

    @model_validator(mode="before")
    @classmethod
    def _extend_defaults(cls, data: Any) -> Any:
        # Defaults are a floor: user lists add to them unless the opt-out is set.
        if not isinstance(data, Mapping):
            return data
        data = _expand_mode(dict(data))
        pairs = (
            ("denied_paths", "replace_default_denied_paths", DEFAULT_DENIED_PATHS),
            ("protected_paths", "replace_default_protected_paths", DEFAULT_PROTECTED_PATHS),
            ("readonly_paths", "replace_default_readonly_paths", DEFAULT_READONLY_PATHS),
            ("command_rules", "replace_default_command_rules", DEFAULT_COMMAND_RULES),
        )
        for field, flag, defaults in pairs:
            user = data.get(field)
            if data.get(flag) is True or not isinstance(user, list | tuple):
                continue
            data[field] = _merge(defaults, user)
        if "command_rules" not in data and data.get("replace_default_command_rules") is not True:
            data["command_rules"] = DEFAULT_COMMAND_RULES
        return data

    # -- modes and options ------------------------------------------------------------

    @property
    def flags(self) -> Flags:
        """The three safety flags that modes and options change."""
        return Flags(
            self.read_only, self.require_approval_for_writes, self.require_approval_for_execute
        )

    @property
    def mode(self) -> Mode:
        """The derived mode: read_only wins; hybrids report review."""
        return derive_mode(self.flags)

    def option_values(self) -> dict[str, bool]:
        """The three config-option values (`auto_approve_writes`, `auto_approve_execute`, `read_only`)."""
        return option_values_for(self.flags)

    def with_flags(self, flags: Flags) -> Self:
        """Return a re-validated copy with the three safety flags replaced."""
        return self.replace(**flags._asdict())

    def with_mode(self, mode: Mode | str) -> Self:
        """Return a copy with all three flags set atomically for the mode."""
        return self.with_flags(flags_for_mode(mode))

    def with_option(self, name: str, value: bool) -> Self:
        """Return a copy with one option changed; unknown names and non-bools raise ValueError."""
        return self.with_flags(flags_with_option(self.flags, name, value))

    def without_sandbox(self) -> Self:
        """A copy with `sandbox.mode = "none"`: the config a decision for the host judges with.

        There is no need to call it to be safe: `evaluate` and every entry point that only
        decides judge for the host (`runner="host"`) unless told `runner="sandbox"`, so
        what auto mode leaves to safehold's sandbox (inline code, computed paths, the
        private `/tmp`) is never allowed unconfined.
        """
        if self.sandbox.mode == "none":
            return self
        return self.replace(sandbox={**self.sandbox.model_dump(), "mode": "none"})

    def digest(self) -> str:
        """A short SHA-256 of the policy (every field but `examples`), for audit records.

        Two configs with the same digest decide every call alike; a replay says when the
        policy it re-decides under is the one that decided the record.
        """
        import hashlib

        held = _DIGESTS.get(id(self))
        if held is not None and held[0] is self:
            return held[1]
        text = self.model_dump_json(exclude={"examples"})
        value = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        if len(_DIGESTS) >= 64:
            _DIGESTS.clear()
        _DIGESTS[id(self)] = (self, value)
        return value

    def replace(self, **changes: Any) -> Self:
        """Return a copy with fields changed, validated like a new config."""
        data = self.model_dump(mode="python", round_trip=True)
        data.update(changes)
        return type(self).model_validate(data)

    # -- files -------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> Self:
        """Read a TOML or JSON config file; errors are `ConfigError` naming file, line and field.

        The file itself is added to `protected_paths`, so an agent cannot loosen its own policy.
        """
        return cls.load_sections(path, ())[0]

    @classmethod
    def load_sections(
        cls, path: str | Path, sections: Iterable[str]
    ) -> tuple[Self, dict[str, Any]]:
        """`load`, also returning the top-level tables named in `sections` (an adapter's `[mcp]`)."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError(f"{p}: no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{p}: cannot read: {exc}") from None
        data = _parse(p, text)
        if not isinstance(data, dict):
            raise ConfigError(f"{p}: the top level must be a table/object of config fields")
        extras = {name: data.pop(name) for name in sections if name in data}
        protected = data.get("protected_paths", [])
        if isinstance(protected, list):
            own = _escape_glob(str(p.resolve()))
            data["protected_paths"] = [*protected, own]
        try:
            return cls.model_validate(data), extras
        except ValidationError as exc:
            raise ConfigError(format_validation_error(exc, source=p, text=text)) from exc


_DIGESTS: dict[int, tuple[SafetyConfig, str]] = {}


def _expand_mode(data: dict[str, Any]) -> dict[str, Any]:
    """`mode = "auto" | "review" | "read-only"` in a config: shorthand for the three flags."""
    if "mode" not in data:
        return data
    mode = data.pop("mode")
    if not isinstance(mode, str):
        raise ValueError(f"`mode`: expected a mode name, got {mode!r}")
    try:
        flags = flags_for_mode(mode)._asdict()
    except ValueError as exc:
        raise ValueError(f"`mode`: {exc}") from None
    for name, value in flags.items():
        if name in data and data[name] != value:
            raise ValueError(
                f"`mode`: mode `{mode}` sets `{name} = {str(value).lower()}`, but the config "
                f"also sets `{name} = {json.dumps(data[name])}`; remove one of them"
            )
        data[name] = value
    return data


def _parse(p: Path, text: str) -> Any:
    suffix = p.suffix.lower()
    if suffix == ".json":
        try:
            return json.loads(text, parse_constant=_reject_constant)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{p}: line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}"
            ) from None
        except ValueError as exc:
            raise ConfigError(f"{p}: invalid JSON: {exc}") from None
    if suffix in (".toml", ""):
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{p}: invalid TOML: {exc}") from None
    raise ConfigError(f"{p}: unknown config format `{suffix}` (use .toml or .json)")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"`{name}` is not a valid number here")


def _escape_glob(path: str) -> str:
    return re.sub(r"([\[\]*?!#\\])", r"\\\1", path)


def _line_of(key: str, text: str) -> int | None:
    pattern = re.compile(rf"^[ \t]*\"?{re.escape(key)}\"?[ \t]*[=:]", re.MULTILINE)
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


_MERGED_FIELDS = frozenset({"denied_paths", "protected_paths", "readonly_paths", "command_rules"})
_NAMED = re.compile(r"^`(\w+)`: ")
_LIST, _TABLE = "a list (`[...]`)", "a table (`[section]` or `{ key = value }`)"
_EXPECTED: dict[str, str] = {
    # pydantic's error types, in the words of a TOML/JSON file (not "a valid tuple").
    "tuple_type": _LIST,
    "list_type": _LIST,
    "set_type": _LIST,
    "frozen_set_type": _LIST,
    "dict_type": _TABLE,
    "model_type": _TABLE,
    "model_attributes_type": _TABLE,
    "dataclass_type": _TABLE,
    "string_type": "a string",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
}
_SHOULD_BE = "Input should be "


def _shown(value: object) -> str:
    """A value as the file spells it (`"yes"`, `null`, `[1, 2]`), at most 80 characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def validation_message(err: ErrorDetails, *, setting: str = "a SafetyConfig") -> str:
    """One pydantic error in the words of a TOML/JSON file: what was expected, what came."""
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if err["type"] == "extra_forbidden":
        msg = f"unknown field (not {setting} setting; check the spelling)"
    elif err["type"] in _EXPECTED:
        msg = f"expected {_EXPECTED[err['type']]}"
    elif msg.startswith(_SHOULD_BE):  # `literal_error`, `enum`: the values it may take
        msg = "expected " + msg[len(_SHOULD_BE) :].replace("'", "`")
    if "input" in err and err["type"] not in ("missing", "value_error", "extra_forbidden"):
        got = err["input"]
        msg += ", got null" if got is None else f", got {value_kind(got)} {_shown(got)}"
    return msg


def format_validation_error(
    exc: ValidationError, *, source: Path | None = None, text: str | None = None
) -> str:
    """Render a pydantic error as one line: `file: line N: field: what is wrong`."""
    parts = []
    for err in exc.errors(include_url=False):
        parts_of_loc = [x for x in err["loc"] if not str(x).startswith("function-after")]
        if parts_of_loc and parts_of_loc[0] in _MERGED_FIELDS:
            # The index counts the built-in entries merged in front; the message names the value.
            parts_of_loc = [x for x in parts_of_loc if not isinstance(x, int)]
        loc = ".".join(str(x) for x in parts_of_loc)
        msg = validation_message(err)
        named = _NAMED.match(msg) if not parts_of_loc else None
        if named:  # a whole-config check that names its field (`mode`)
            loc, msg = named.group(1), msg[named.end() :]
            err["loc"] = (loc,)
        where = ""
        if text is not None:
            keys = [str(x) for x in err["loc"] if isinstance(x, str)]
            line = _line_of(keys[-1], text) if keys else None
            if line is not None:
                where = f"line {line}: "
        parts.append(f"{where}`{loc or '<root>'}`: {msg}")
    prefix = f"{source}: " if source is not None else ""
    return prefix + "; ".join(parts)


# Built-in rules: a floor that user rules extend (`replace_default_command_rules` opts out).
# Deny and ask rules match wherever their tokens appear, options in any order and spelling:
# `rm -r /` also catches `/bin/rm -fr //` and `sudo rm --recursive --force /`. Hazards that
# span several commands (pipe-to-shell, fork bombs, block-device and /dev/tcp redirections)
# are checked in `policy/shell/hazards.py`.
def _rules(decision: Verdict, reason: str, *patterns: str) -> tuple[CommandRule, ...]:
    return tuple(CommandRule(pattern=p, decision=decision, reason=reason) for p in patterns)


_DELETE_ROOTS = (
    "/",
    "/*",
    "~",
    "~/*",
    "$HOME",
    "$HOME/*",
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib64",
    "/opt",
    "/root",
    "/sbin",
    "/srv",
    "/usr",
    "/var",
)
_DISKS = (
    "sd*",
    "hd*",
    "vd*",
    "xvd*",
    "nvme*",
    "mmcblk*",
    "disk*",
    "mapper/**",
    "dm-*",
    "md*",
    "loop*",
    "disk/**",  # /dev/disk/by-id/..., /dev/disk/by-uuid/...
    "block/**",  # /dev/block/8:0
)

DEFAULT_COMMAND_RULES: tuple[CommandRule, ...] = (
    *_rules(
        Verdict.DENY,
        "recursive delete of the root, the home directory or a system directory",
        *(f"rm -r {root}" for root in _DELETE_ROOTS),
        "shred -r /",
        "shred -r ~",
        *(f"find {root} -delete" for root in ("/", "/*", "~", "$HOME")),
    ),
    *_rules(
        Verdict.DENY,
        "creates a filesystem or swap, destroying what the device held",
        "mkfs",
        "mkfs.*",
        "mke2fs",
        "mkswap",
        "wipefs",
        "mkntfs",
        "mkdosfs",
    ),
    *_rules(
        Verdict.DENY,
        "repartitions a disk",
        "fdisk",
        "sfdisk",
        "cfdisk",
        "parted",
        "sgdisk",
        "gdisk",
    ),
    *_rules(
        Verdict.DENY,
        "writes raw data over a disk device",
        *(f"dd of=/dev/{disk}" for disk in _DISKS),
        "shred /dev/**",
        *(f"{prog} * /dev/{disk}" for prog in ("cp", "cat", "tee") for disk in _DISKS[:6]),
    ),
    *_rules(
        Verdict.DENY,
        "powers off or restarts the machine",
        "shutdown",
        "reboot",
        "halt",
        "poweroff",
        "init 0",
        "init 6",
        "telinit 0",
        "telinit 6",
        "systemctl poweroff",
        "systemctl reboot",
        "systemctl halt",
        "systemctl kexec",
        *(
            f"systemctl * {target}.target"  # `systemctl start|isolate reboot.target`
            for target in ("poweroff", "reboot", "halt", "kexec", "rescue", "emergency")
        ),
        "loginctl poweroff",
        "loginctl reboot",
    ),
    *_rules(Verdict.DENY, "kills every process the user can signal", "kill -9 -1", "killall5"),
    *_rules(
        Verdict.DENY,
        "reverse shell: connects a program's input and output to the network",
        "nc -e",
        "nc -c",
        "ncat -e",
        "ncat -c",
        "netcat -e",
        "netcat -c",
        "socat exec:**",
        "socat EXEC:**",
        "socat system:**",
        "socat SYSTEM:**",
    ),
    *_rules(
        Verdict.DENY,
        "makes every file under the root or home world-writable",
        "chmod -R 777 /",
        "chmod -R 0777 /",
        "chmod -R a+rwx /",
        "chmod -R ugo+rwx /",
        "chmod -R 777 ~",
        "chown -R * /",
    ),
    *_rules(
        Verdict.DENY,
        "erases the shell history, hiding what ran",
        "history -c",
        "history -w /dev/null",
    ),
    *_rules(Verdict.ASK, "runs a command with other privileges", "sudo", "doas", "pkexec", "run0"),
)
