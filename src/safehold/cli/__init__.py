"""The `safehold` command: check, run, acp, demo, config, mcp-proxy, hook, doctor, replay, grants.

Each subcommand lives in its own module with `register(subparsers)` and `run(args) -> int`.
User errors print `error: ...` (and maybe `hint: ...`) on stderr and exit non-zero; no
traceback is ever shown for them.

`safehold hook ...` runs once per tool call, so this module imports nothing until it knows
the command: a hook first tries the warm server (`safehold.cli._hook_client`).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: a hook call should not import typing
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from typing import Any, Protocol

    class _Command(Protocol):
        def register(self, sub: Any) -> None: ...

        def run(self, args: argparse.Namespace) -> int: ...


__all__ = ["build_parser", "guarded", "main", "run_command"]

_COMMANDS = (
    "check",
    "run",
    "acp",
    "demo",
    "config",
    "mcp_proxy",
    "hook",
    "doctor",
    "replay",
    "grants",
)
_PARSERS: dict[str | None, argparse.ArgumentParser] = {}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the argument parser with every subcommand (or just `only`, to start faster)."""
    import importlib

    from safehold import __version__
    from safehold.cli._parser import Parser

    parser = Parser(
        prog="safehold", description="Safety and permission policy engine for AI agents."
    )
    parser.add_argument("--version", action="version", version=f"safehold {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for name in _COMMANDS:
        if only is not None and name != only:
            continue
        module: _Command = importlib.import_module(f"safehold.cli.{name}_cmd")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `safehold` command."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words == ["hook", "warm"]:
        from safehold.cli import _hook_client

        return _hook_client.warm()
    if words[:1] == ["hook"]:
        from safehold.cli import _headless, _hook_client

        _headless.mark(words)  # in this process: the server has neither its terminal nor parents
        code = _hook_client.run(words)
        if code is not None:
            return code
    if words[:1] == ["run"]:
        from safehold.cli import _run_client

        code = _run_client.run(words)  # planned by the warm server, run here
        if code is not None:
            return code
    return run_command(words)


def run_command(
    words: list[str], *, handler: Callable[[argparse.Namespace], int] | None = None
) -> int:
    """Parse `words` and run the command in this process (`handler` instead of the
    command's own, once parsed: the hook server plans a `run` without running it)."""
    only = None
    if words[:1] == ["acp"] and not {"-h", "--help"} & set(words):
        # An editor waits for `acp` to answer `initialize`: answer it while the rest imports
        # (safehold.cli.acp_initialize), and build only this subcommand's parser.
        from safehold import __version__
        from safehold.cli import acp_initialize

        acp_initialize.start(__version__)
        only = "acp"
    elif words and words[0].replace("-", "_") in _COMMANDS:
        # Importing every subcommand costs a hook call its start-up budget: load only the one named.
        only = words[0].replace("-", "_")
    parser = _PARSERS.get(only) if only != "acp" else None
    if parser is None:
        parser = _PARSERS[only] = build_parser(only)  # a hook server parses many commands
    args = parser.parse_args(words)
    return guarded(lambda: (handler or args.handler)(args))


def guarded(call: Callable[[], int]) -> int:
    """`call()`'s exit code; an error is one `error:` line and a failing exit, never allow."""
    from safehold.errors import SafeholdError

    try:
        return call()
    except SafeholdError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # a bug must still be one line and a failing exit, never allow
        print(f"error: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
