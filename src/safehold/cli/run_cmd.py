"""`safehold run [--config F] [--cwd DIR] [--network] [--timeout S] -- CMD [ARG...]`.

Runs one command (an argv, not a shell string: use `-- bash -c '...'` for shell syntax) in
the bubblewrap sandbox and exits with its exit code. A sandbox that cannot start is one
`error:` line and exit 125; a timeout is exit 124, like timeout(1).
"""

from __future__ import annotations

import argparse
import os
import sys

from safehold.adapters.bwrap import CommandResult, run_sandboxed_sync
from safehold.cli.config_cmd import load_config
from safehold.policy.config import SafetyConfig
from safehold.policy.timeouts import validate_timeout

EXIT_TIMEOUT = 124
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


def _report(result: CommandResult, timeout: float | None) -> int:
    sys.stdout.buffer.write(result.stdout)
    sys.stdout.buffer.flush()
    sys.stderr.buffer.write(result.stderr)
    sys.stderr.buffer.flush()
    if not result.sandboxed:
        print("warning: the command ran WITHOUT a sandbox (sandbox.mode = none)", file=sys.stderr)
    if result.truncated:
        print("warning: output was truncated (sandbox.max_output_bytes)", file=sys.stderr)
    for finding in result.findings:
        print(f"warning: {finding}", file=sys.stderr)
    if result.timed_out or result.exit_code is None:
        limit = f" after {timeout:g} s" if timeout else ""
        return _error(f"the command timed out{limit} and was killed", EXIT_TIMEOUT)
    return result.exit_code


def run(args: argparse.Namespace) -> int:
    """Run the command in the sandbox and return its exit code."""
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
    result = run_sandboxed_sync(command, cwd=os.path.abspath(cwd), config=config, timeout=timeout)
    return _report(result, timeout)
