"""`safehold doctor [--cwd DIR] [--stop]`: what is in force here, and what is installed.

One finding a line, grouped: the config (the file in force, every candidate discovery
looked at and why it was used or not), each coding-agent CLI's hook (installed or not,
where), whether bubblewrap runs a command, and whether a hook server runs (`--stop` ends
it). Exit 0 when nothing is wrong, 1 when a finding needs the person (a config error, a
sandbox that does not run); nothing here changes a file, except `--stop`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from safehold.policy.config import SafetyConfig

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `doctor` subcommand."""
    p = sub.add_parser(
        "doctor",
        help="show the config in force and where it came from, the hooks, bubblewrap, the hook server",
        description="Show the effective config and every file discovery looked at, whether the "
        "Claude Code and Gemini CLI hooks are installed and where, whether bubblewrap works, "
        "and whether a hook server runs.",
    )
    p.add_argument("--cwd", metavar="DIR", help="the project to look at (default: the current one)")
    p.add_argument("--config", metavar="F", help="a config file, as the other commands take it")
    p.add_argument("--stop", action="store_true", help="stop this user's hook server")
    p.set_defaults(handler=run)


def _config(args: argparse.Namespace, project: str) -> SafetyConfig | None:
    from safehold.config_discovery import ENV_VAR, candidates, discover_config, find_config
    from safehold.errors import ConfigError

    print("config:")
    config: SafetyConfig | None = None
    try:
        config, source = discover_config(args.config, project=project)
    except ConfigError as exc:
        print(f"  error: {exc}")
    else:
        print(f"  in force: {source.describe()}")
        sandbox = config.sandbox.mode
        print(f"  mode `{config.mode.value}`, sandbox `{sandbox}`")
    named = args.config is not None or bool(os.environ.get(ENV_VAR))
    used = None
    with contextlib.suppress(ConfigError):
        used = find_config(args.config, project=project).path
    for path, origin in candidates(project=project):
        if path == used:
            # The file in force; when it does not load, every command that reads it fails.
            why = "used" if config is not None else "chosen, but it does not load (the error above)"
        elif named:
            why = (
                "not read: "
                + ("--config" if args.config is not None else f"${ENV_VAR}")
                + (" names the file")
            )
        elif not os.path.lexists(path):
            why = "not there"
        elif used is not None:
            why = "not read: a file before it is used"
        else:
            why = "unusable (see the error above)"
        print(f"  {origin} candidate {path}: {why}")
    return config


def _hooks(project: str) -> None:
    from safehold.cli.hook_install import CLIS, installed_hooks

    print("hooks:")
    home = Path(os.path.expanduser("~"))
    for name, target in CLIS.items():
        found = installed_hooks(name, home=home, cwd=Path(project))
        if not found:
            where = target.settings("user", home=home, cwd=Path(project))
            print(
                f"  {target.title}: not installed (`safehold hook install {name}` adds it to {where})"
            )
        for scope, path, command in found:
            note = ""
            if name == "gemini-cli" and scope == "project":
                note = " (Gemini CLI ignores it in an untrusted folder: install it for the user)"
            print(f"  {target.title}: installed in {path} ({scope}): {command}{note}")


def _bubblewrap(config: SafetyConfig) -> bool:
    """Run `echo ok` in the sandbox the config describes, in an empty scratch workspace."""
    from safehold.adapters.bwrap import run_sandboxed_sync
    from safehold.errors import SafeholdError

    try:
        with tempfile.TemporaryDirectory(prefix="safehold-doctor-") as ws:
            result = run_sandboxed_sync(["/bin/sh", "-c", "echo ok"], cwd=ws, config=config)
    except SafeholdError as exc:
        print(f"bubblewrap: does not work here: {str(exc).splitlines()[0]}")
        return False
    if result.exit_code == 0 and result.stdout.strip() == b"ok":
        print("bubblewrap: works (a command ran in the sandbox)")
        return True
    detail = result.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
    print(
        f"bubblewrap: a test command failed (exit {result.exit_code}) {' '.join(detail)}".rstrip()
    )
    return False


def _server(stop: bool) -> None:
    from safehold.cli._hook_client import server_key, socket_path

    path = socket_path(server_key())
    if path is None:
        print("hook server: no private runtime folder, so none can run (hooks decide in-process)")
        return
    pid = _server_pid(path)
    if pid is None:
        print(f"hook server: not running ({path}.sock)")
        return
    if not stop:
        print(f"hook server: running, pid {pid}, {path}.sock (`safehold doctor --stop` ends it)")
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError as exc:
        print(f"hook server: could not stop pid {pid}: {exc}")
        return
    print(f"hook server: stopped pid {pid}")


def _server_pid(path: str) -> int | None:
    """The pid of the server holding `path.lock`, or None when no server holds it."""
    import fcntl

    try:
        lock = open(path + ".lock")  # noqa: SIM115
    except OSError:
        return None
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            text = lock.read().strip()
            return int(text) if text.isdigit() else None
        fcntl.flock(lock, fcntl.LOCK_UN)
        return None


def run(args: argparse.Namespace) -> int:
    """Print every finding; 0 when none needs the person, 1 otherwise."""
    project = os.path.abspath(args.cwd if args.cwd is not None else os.getcwd())
    if not os.path.isdir(project):
        print(f"error: `--cwd`: `{args.cwd}` is not a directory", file=sys.stderr)
        return 2
    from safehold.policy.config import SafetyConfig

    config = _config(args, project)
    _hooks(project)
    ok = _bubblewrap(config or SafetyConfig()) and config is not None
    _server(args.stop)
    return 0 if ok else 1
