"""`safehold run [--config F] [--cwd DIR] [--network] [--timeout S] -- CMD [ARG...]`.

Runs one command (an argv, not a shell string: use `-- bash -c '...'` for shell syntax) in
the bubblewrap sandbox and exits with its exit code. A sandbox that cannot start is one
`error:` line and exit 125; a timeout is exit 124, like timeout(1).

A warm hook server, when one runs, plans the run instead of this process
(`safehold.cli._run_client`): the same config and plan, without loading them here.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

from safehold.adapters.bwrap import run_sandboxed_sync
from safehold.cli._run_client import report
from safehold.cli.config_cmd import load_config
from safehold.policy.config import SafetyConfig
from safehold.policy.timeouts import validate_timeout

EXIT_USAGE = 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `run` subcommand."""
    p = sub.add_parser(
        "run",
        help="run a command inside the bubblewrap sandbox",
        description="Run CMD in the sandbox (workspace = --cwd) and exit with its exit code.",
    )
    p.add_argument("--config", metavar="F", help="a TOML/JSON SafetyConfig file")
    p.add_argument("--cwd", metavar="DIR", help="workspace and working directory (default: .)")
    p.add_argument("--network", action="store_true", help="share the host network")
    p.add_argument(
        "--timeout",
        metavar="S",
        type=float,
        help="seconds before the whole sandbox is killed (0: none; default: the config's)",
    )
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD [ARG...]")
    p.set_defaults(handler=run)


def _error(message: str, code: int = EXIT_USAGE) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


@dataclass(frozen=True, slots=True)
class Setup:
    """What `safehold run` runs, read from its arguments and the config."""

    command: list[str]
    cwd: str
    config: SafetyConfig
    timeout: float | None


def setup(args: argparse.Namespace) -> Setup | int:
    """The run the arguments ask for, or the exit code of a usage error (already printed).

    Raises `ConfigError` (exit 2) for a config that cannot be used. The warm hook server
    calls this too (`safehold.cli._hook_server`): a warm run honours the same config.
    """
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        return _error("no command given: use `safehold run [OPTIONS] -- CMD [ARG...]`")
    config: SafetyConfig = load_config(args.config, args.cwd)
    if args.network:
        config = config.replace(sandbox={**config.sandbox.model_dump(), "network": True})
    timeout = config.sandbox.timeout
    if args.timeout is not None:
        try:
            timeout = validate_timeout(args.timeout)
        except ValueError as exc:
            return _error(f"--timeout: {exc}")
    cwd = args.cwd if args.cwd is not None else os.getcwd()
    if not os.path.isdir(cwd):
        return _error(f"--cwd: `{cwd}` is not a directory")
    return Setup(command, os.path.abspath(cwd), config, timeout)


def run(args: argparse.Namespace) -> int:
    """Run the command in the sandbox and return its exit code."""
    ready = setup(args)
    if isinstance(ready, int):
        return ready
    result = run_sandboxed_sync(
        ready.command, cwd=ready.cwd, config=ready.config, timeout=ready.timeout
    )
    return report(result, ready.timeout)
