"""`run_sandboxed` / `run_sandboxed_sync`: run one shell command inside bubblewrap.

The policy decides whether a command may run; this decides what it can touch when it does.
There is no silent fallback: a missing bwrap, blocked user namespaces or an unknown CPU
architecture raise `SandboxUnavailable`; only `SandboxConfig(mode="none")` runs commands
unsandboxed, and then every run logs a warning and reports `sandboxed=False`.

The runner keeps the policy's promise: given the `decision` that allowed the command, it
refuses (`SandboxError`) to run a `confined` ALLOW (one that holds only because the sandbox
confines the command) without the sandbox, and refuses any decision that is not an ALLOW.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from safehold.adapters.bwrap._argv import SandboxSpec, argv_parts, build_argv
from safehold.adapters.bwrap._limits import Cgroup, limit_prefix, open_cgroup
from safehold.adapters.bwrap._locate import (
    Bwrap,
    classify_start_failure,
    find_bwrap,
    identity,
    read_version,
)
from safehold.adapters.bwrap._plan import (
    MountPlan,
    Watch,
    plan_mounts,
    scan_protected,
    system_view,
)
from safehold.adapters.bwrap._process import (
    RawOutcome,
    exit_code_of,
    sandbox_result,
    spawn_and_collect,
    spawn_sandbox,
)
from safehold.adapters.bwrap._result import CommandResult
from safehold.adapters.bwrap._seccomp import build_filter, native_arch
from safehold.errors import SandboxError, SandboxUnavailable
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision
from safehold.policy.sandbox_config import SandboxConfig
from safehold.policy.timeouts import validate_timeout

__all__ = ["PreparedRun", "prepare_run", "run_sandboxed", "run_sandboxed_sync"]

log = logging.getLogger("safehold.sandbox")

SHELL: Final = "/bin/bash"
DEFAULT_PATH: Final = "/usr/local/bin:/usr/bin:/bin"

_probed: set[tuple[object, ...]] = set()
_probe_lock = threading.Lock()


def _argv_of(command: object) -> list[str]:
    if isinstance(command, str):
        if not command.strip() or "\x00" in command:
            raise ValueError("`command` must be a non-empty string without NUL bytes")
        return [SHELL, "-c", command]
    if isinstance(command, bytes) or not isinstance(command, Sequence):
        raise TypeError(
            f"`command` must be a str or a sequence of str, not {type(command).__name__}"
        )
    argv = list(command)
    if not argv or not all(isinstance(a, str) and "\x00" not in a for a in argv) or not argv[0]:
        raise ValueError("`command` argv must be a non-empty list of strings without NUL bytes")
    return argv


def _env_of(sandbox: SandboxConfig, extra: Mapping[str, str] | None) -> dict[str, str]:
    env = {k: os.environ[k] for k in sandbox.env_allowlist if k in os.environ}
    env.setdefault("PATH", DEFAULT_PATH)
    env.setdefault("LANG", "C.UTF-8")
    env["TMPDIR"] = "/tmp"  # the private tmpfs
    for name, value in (extra or {}).items():
        if not isinstance(name, str) or not name or "=" in name or "\x00" in name:
            raise ValueError(f"`env` has an invalid variable name {name!r}")
        if not isinstance(value, str) or "\x00" in value:
            raise ValueError(f"`env[{name!r}]` must be a string without NUL bytes")
        env[name] = value
    return env


def _limits(
    sandbox: SandboxConfig, timeout: float | None, max_output_bytes: int | None
) -> tuple[float | None, int]:
    seconds = sandbox.timeout if timeout is None else validate_timeout(timeout)
    cap = sandbox.max_output_bytes if max_output_bytes is None else max_output_bytes
    if isinstance(cap, bool) or not isinstance(cap, int) or cap <= 0:
        raise ValueError(f"`max_output_bytes` must be a positive int, got {cap!r}")
    return (seconds or None), cap


def _spawn_bwrap(
    bwrap: Bwrap,
    plan: MountPlan,
    *,
    argv: list[str],
    env: dict[str, str],
    sandbox: SandboxConfig,
    network: bool,
    timeout: float | None,
    cap: int,
    cancel_fd: int | None,
    cgroup: Cgroup | None = None,
) -> RawOutcome:
    program = build_filter(
        native_arch(), allow_unix_sockets=sandbox.allow_unix_sockets, network=network
    )

    def build(seccomp_fd: int, status_fd: int, block_fd: int | None) -> list[str]:
        spec = SandboxSpec(
            network=network,
            env=env,
            tmp_size_bytes=sandbox.tmp_size_mb * 1024 * 1024,
            seccomp_fd=seccomp_fd,
            status_fd=status_fd,
            command=argv,
            block_fd=block_fd,
        )
        return build_argv(bwrap, plan, spec)

    return spawn_sandbox(
        build,
        program=program,
        env=env,
        timeout=timeout,
        cap=cap,
        cancel_fd=cancel_fd,
        max_processes=sandbox.max_processes,
        cgroup=cgroup,
    )


def _writable(sandbox: SandboxConfig, cwd: str) -> tuple[str, ...]:
    # The roots as plan_mounts expands them (it validates them later); here only to keep
    # the bwrap search out of every directory a command could have planted a binary in.
    home = os.environ.get("HOME") or os.path.expanduser("~")
    roots = []
    for raw in sandbox.writable_roots:
        path = raw.replace("{workspace}", cwd)
        if path == "~" or path.startswith("~/"):
            path = home + path[1:]
        if os.path.isabs(path):
            roots.append(path)
    return tuple(roots)


def _close(fd: int) -> None:
    if fd >= 0:
        with contextlib.suppress(OSError):
            os.close(fd)


def _probe(bwrap: Bwrap, sandbox: SandboxConfig) -> None:
    """Run `true` in a real sandbox once per binary: `--version` proves nothing about userns."""
    with _probe_lock:
        if identity(bwrap.path) in _probed:
            return
    plan = MountPlan("/", system=system_view())
    raw = _spawn_bwrap(
        bwrap,
        plan,
        argv=["true"],
        env={"PATH": DEFAULT_PATH},
        sandbox=sandbox,
        network=False,
        timeout=30.0,
        cap=65536,
        cancel_fd=None,
    )
    if raw.status.get("exit-code") != 0:
        error = classify_start_failure(raw.stderr, bwrap.path)
        if not isinstance(error, SandboxUnavailable):
            error = SandboxUnavailable(f"the sandbox self-test failed: {error}")
        raise error
    with _probe_lock:
        _probed.add(identity(bwrap.path))


def _aside(path: str, protected: Callable[[str], bool]) -> tuple[str | None, str]:
    """Rename `path` to `NAME.safehold-blocked` (`-2`, `-3`... if taken); (target, error)."""
    target = f"{path}.safehold-blocked"
    n = 1
    while os.path.lexists(target) or protected(target):
        n += 1
        target = f"{path}.safehold-blocked-{n}"
        if n > 100:
            break
    try:
        os.rename(path, target)
    except OSError as exc:
        return None, exc.strerror or str(exc)
    return target, ""


def _quarantine(config: SafetyConfig, plan: MountPlan) -> list[str]:
    """Move protected paths the command created out of the way, so they never take effect.

    bwrap can only make *existing* paths read-only. A protected path that did not exist
    (`.husky/`, `sub/.git/hooks`, `.github/workflows/`) and that the command created would
    run on the host later (a hook, a CI workflow, an editor task), so it is renamed to
    `NAME.safehold-blocked` (`-2`, `-3`... if taken): nothing reads that name, and the
    content stays for review. A directory the command left unlistable (mode 0300) may hide
    such paths: it is moved aside the same way.
    """
    findings = []
    created, closed, protected = scan_protected(config, plan)
    for path in created:
        target, error = _aside(path, protected)
        if target is None:
            findings.append(
                f"protected path `{path}` was created by the command and could not be moved "
                f"aside ({error}); remove it before using the directory on the host"
            )
        else:
            findings.append(
                f"protected path `{path}` was created by the command; moved to `{target}`"
            )
    for path in closed:
        target, error = _aside(path, protected)
        if target is None:
            findings.append(
                f"directory `{path}` cannot be listed after the run and could not be moved "
                f"aside ({error}); it may hide protected paths: review it before using the "
                "directory on the host"
            )
        else:
            findings.append(
                f"directory `{path}` cannot be listed after the run (it may hide protected "
                f"paths); moved to `{target}`"
            )
    return findings


def _after_run(config: SafetyConfig, plan: MountPlan) -> tuple[str, ...]:
    """The after-run check; it never raises: the command's output is returned whatever fails.

    On an unexpected error the check reports it as a finding ("review the workspace"). The
    scan has no entry budget here (`scan_protected`): a command cannot make it give up by
    creating more entries than `sandbox.scan_max_entries`.
    """
    try:
        return _audit(plan.watch, _quarantine(config, plan))
    except Exception as exc:  # reported as a finding: the run's output stays
        findings = [
            f"the after-run check of the writable roots failed ({type(exc).__name__}: {exc}); "
            "protected paths the command created may remain: review the workspace"
        ]
        log.warning("sandbox audit: %s", findings[0])
        return tuple(findings)


def _audit(watch: tuple[Watch, ...], extra: list[str]) -> tuple[str, ...]:
    findings = list(extra)
    for item in watch:
        if item.link is None and os.path.lexists(item.path):
            findings.append(f"protected path `{item.path}` was created by the command")
        elif item.link is not None:
            try:
                now: str | None = os.readlink(item.path)
            except OSError:
                now = None
            if now != item.link:
                findings.append(f"protected symlink `{item.path}` was replaced by the command")
    for text in findings:
        log.warning("sandbox audit: %s; review it before trusting it", text)
    return tuple(findings)


def _keep_promise(decision: object, sandbox: SandboxConfig) -> None:
    """Refuse to run what `decision` did not allow as it will run; never fall back."""
    if decision is None:
        return
    if not isinstance(decision, Decision):
        raise TypeError(f"`decision` must be a Decision, not {type(decision).__name__}")
    if not decision.allowed:
        raise ValueError(
            f"the decision is {decision.verdict.value}, not allow: the command is not run "
            f"({decision.explain()})"
        )
    if decision.confined and sandbox.mode == "none":
        raise SandboxError(
            "the command was allowed only because safehold's sandbox confines it "
            "(decided with runner='sandbox'), but sandbox.mode is `none`: it is not run "
            "unconfined. Decide it again for the host (runner='host'), or enable the sandbox"
        )


def _run(
    command: object,
    *,
    cwd: str,
    config: SafetyConfig,
    timeout: float | None,
    max_output_bytes: int | None,
    env: Mapping[str, str] | None,
    cancel_fd: int | None,
    decision: Decision | None = None,
) -> CommandResult:
    if not isinstance(config, SafetyConfig):
        raise TypeError(f"`config` must be a SafetyConfig, not {type(config).__name__}")
    _keep_promise(decision, config.sandbox)
    if not isinstance(cwd, str) or not cwd or "\x00" in cwd:
        raise ValueError("`cwd` must be a non-empty path string")
    sandbox = config.sandbox
    argv = _argv_of(command)
    seconds, cap = _limits(sandbox, timeout, max_output_bytes)
    full_env = _env_of(sandbox, env)
    started = time.monotonic()
    if sandbox.mode == "none":
        log.warning("sandbox.mode is `none`: running %r WITHOUT a sandbox", argv)
        raw = spawn_and_collect(
            argv,
            env=full_env,
            pass_fds=(),
            status_fd=None,
            timeout=seconds,
            cap=cap,
            cancel_fd=cancel_fd,
            cwd=os.path.realpath(cwd),
        )
        return CommandResult(
            exit_code=exit_code_of(raw),
            stdout=raw.stdout,
            stderr=raw.stderr,
            timed_out=raw.timed_out,
            truncated=raw.truncated,
            duration=time.monotonic() - started,
            sandboxed=False,
        )
    ready = _prepare(argv, cwd=cwd, config=config, env=full_env)
    cgroup = open_cgroup(sandbox.max_processes)
    started = time.monotonic()
    try:
        raw = _spawn_bwrap(
            ready.bwrap,
            ready.plan,
            argv=ready.argv,
            env=full_env,
            sandbox=sandbox,
            network=sandbox.network,
            timeout=seconds,
            cap=cap,
            cancel_fd=cancel_fd,
            cgroup=cgroup,
        )
        return sandbox_result(
            raw,
            bwrap=ready.bwrap.path,
            duration=time.monotonic() - started,
            cap=cap,
            after=lambda: _after_run(config, ready.plan),
            make=CommandResult,
        )
    finally:
        if cgroup is not None:
            cgroup.close()  # after the after-run check: the sandbox's pid namespace is gone by then


@dataclass(frozen=True, slots=True)
class _Ready:
    bwrap: Bwrap
    plan: MountPlan
    argv: list[str]
    """The command behind the limits script."""


def _prepare(argv: list[str], *, cwd: str, config: SafetyConfig, env: dict[str, str]) -> _Ready:
    """Plan the mounts, find and self-test bwrap; sets `env`'s HOME to the mounted one."""
    sandbox = config.sandbox
    native_arch()  # unknown architecture: SandboxUnavailable before anything runs
    plan = plan_mounts(config, cwd)  # config errors first, then the bwrap search
    bwrap = read_version(find_bwrap(sandbox.bwrap_path, cwd=cwd, writable=_writable(sandbox, cwd)))
    _probe(bwrap, sandbox)
    if plan.home is not None and "HOME" in env:
        env["HOME"] = plan.home  # the canonical path: the one mounted inside
    limited = limit_prefix(SHELL, sandbox.max_processes, sandbox.max_memory_mb) + argv
    return _Ready(bwrap, plan, limited)


@dataclass(frozen=True, slots=True)
class PreparedRun:
    """One sandboxed run planned in this process, to be spawned by another (`prepare_run`).

    The warm hook server answers `safehold run` with this: the client puts its own pipes'
    numbers between `head` and `tail` (`_process.fd_options`), spawns bwrap itself
    (`_process.spawn_sandbox`), then asks the server for `after_run` on `plan`.
    """

    head: list[str]
    tail: list[str]
    env: dict[str, str]
    program: bytes
    """The seccomp filter."""
    timeout: float | None
    cap: int
    max_processes: int
    bwrap: str
    config: SafetyConfig
    plan: MountPlan

    def after_run(self) -> tuple[str, ...]:
        """The after-run check of this run (it never raises)."""
        return _after_run(self.config, self.plan)


def prepare_run(
    command: Sequence[str], *, cwd: str, config: SafetyConfig, timeout: float | None = None
) -> PreparedRun | None:
    """Everything `run_sandboxed_sync(command, ...)` does before it spawns bwrap, or None
    for `sandbox.mode = "none"` (the caller then runs it in-process, with its warning)."""
    if not isinstance(config, SafetyConfig):
        raise TypeError(f"`config` must be a SafetyConfig, not {type(config).__name__}")
    if not isinstance(cwd, str) or not cwd or "\x00" in cwd:
        raise ValueError("`cwd` must be a non-empty path string")
    sandbox = config.sandbox
    if sandbox.mode == "none":
        return None
    argv = _argv_of(command)
    seconds, cap = _limits(sandbox, timeout, None)
    env = _env_of(sandbox, None)
    ready = _prepare(argv, cwd=cwd, config=config, env=env)
    spec = SandboxSpec(
        network=sandbox.network,
        env=env,
        tmp_size_bytes=sandbox.tmp_size_mb * 1024 * 1024,
        seccomp_fd=0,  # counted in the length check; the client puts in its own numbers
        status_fd=0,
        command=ready.argv,
    )
    head, tail = argv_parts(ready.bwrap, ready.plan, spec)
    program = build_filter(
        native_arch(), allow_unix_sockets=sandbox.allow_unix_sockets, network=sandbox.network
    )
    return PreparedRun(
        head=head,
        tail=tail,
        env=env,
        program=program,
        timeout=seconds,
        cap=cap,
        max_processes=sandbox.max_processes,
        bwrap=ready.bwrap.path,
        config=config,
        plan=ready.plan,
    )


def run_sandboxed_sync(
    command: str | Sequence[str],
    *,
    cwd: str,
    config: SafetyConfig,
    timeout: float | None = None,
    max_output_bytes: int | None = None,
    env: Mapping[str, str] | None = None,
    decision: Decision | None = None,
) -> CommandResult:
    """Run `command` (a `/bin/bash -c` string, or an argv) in the sandbox and wait for it.

    `cwd` is the session's workspace and the working directory. `timeout` (seconds, 0 = none)
    and `max_output_bytes` default to the config's sandbox settings; `env` adds variables to
    the cleared, allow-listed environment. `decision`, the policy's answer for this command
    (decided with `runner="sandbox"`), is checked first: anything but an ALLOW raises
    ValueError, and a `confined` ALLOW with `sandbox.mode = "none"` raises `SandboxError`.
    Raises `SandboxUnavailable` when bwrap cannot run here (never runs the command
    unconfined instead), `SandboxError` when the sandbox fails to start for this command.
    """
    return _run(
        command,
        cwd=cwd,
        config=config,
        timeout=timeout,
        max_output_bytes=max_output_bytes,
        env=env,
        cancel_fd=None,
        decision=decision,
    )


async def run_sandboxed(
    command: str | Sequence[str],
    *,
    cwd: str,
    config: SafetyConfig,
    timeout: float | None = None,  # noqa: ASYNC109 - the contract's signature
    max_output_bytes: int | None = None,
    env: Mapping[str, str] | None = None,
    decision: Decision | None = None,
) -> CommandResult:
    """Async form of `run_sandboxed_sync`; cancelling the task kills the whole sandbox.

    The sandbox is spawned and reaped by one dedicated thread that outlives it, because
    `--die-with-parent` follows the spawning *thread* (a short-lived one would kill it).
    """
    import asyncio  # here: `safehold run` (sync) should not pay for importing it

    loop = asyncio.get_running_loop()
    done: asyncio.Future[CommandResult] = loop.create_future()
    cancel_r, cancel_w = os.pipe()

    def deliver(result: CommandResult | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def work() -> None:
        result: CommandResult | None = None
        error: BaseException | None = None
        try:
            result = _run(
                command,
                cwd=cwd,
                config=config,
                timeout=timeout,
                max_output_bytes=max_output_bytes,
                env=env,
                cancel_fd=cancel_r,
                decision=decision,
            )
        except BaseException as exc:
            error = exc
        finally:
            os.close(cancel_r)
        with contextlib.suppress(RuntimeError):  # the loop may be closed already
            loop.call_soon_threadsafe(deliver, result, error)

    thread = threading.Thread(target=work, name="safehold-sandbox", daemon=True)
    try:
        thread.start()
    except BaseException:
        os.close(cancel_r)
        os.close(cancel_w)
        raise
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        with contextlib.suppress(OSError):
            os.write(cancel_w, b"x")
        while not done.done():  # wait until the sandbox is killed and reaped
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.shield(done)
        if not done.cancelled():
            done.exception()  # mark it retrieved; the cancellation is what we report
        raise
    finally:
        os.close(cancel_w)
