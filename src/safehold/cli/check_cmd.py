"""`safehold check` (not built yet: says so and exits 2)."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `check` subcommand."""
    p = sub.add_parser("check", help="(not available yet)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Report that the command is not available in this build."""
    print("error: `safehold check` is not available in this build", file=sys.stderr)
    return 2
