"""`safehold replay LOG [--config F] [--cwd DIR] [--allow-looser] [--json]`: re-decide an audit log.

Exit status: 0 nothing got looser (or `--allow-looser`), 1 a call got looser, 2 on any error
(a missing log, an invalid config, no record that could be replayed). It runs nothing and
writes nothing but its report on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from safehold.errors import ConfigError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `replay` subcommand."""
    p = sub.add_parser(
        "replay",
        help="decide every call of an audit log again under a policy and show what changed",
        description="Re-decide every call in an audit log (or every *.jsonl / *.log under a "
        "directory) under a policy, and print the calls whose verdict changed, grouped by "
        "direction (looser / tighter) and reason, then a summary. Runs nothing; writes "
        "nothing but the report. Exit status: 0 nothing got looser, 1 something did (unless "
        "--allow-looser), 2 on any error.",
    )
    p.add_argument("log", metavar="LOG", help="an audit log (JSON lines) or a directory of logs")
    p.add_argument(
        "--config",
        metavar="F",
        help="the policy to replay under (default: found as `safehold config show` says)",
    )
    p.add_argument(
        "--cwd",
        metavar="DIR",
        help="decide every call in this workspace instead of the recorded one",
    )
    p.add_argument(
        "--allow-looser",
        action="store_true",
        help="exit 0 even when a call would now be decided less strictly",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the report as one JSON object (summary, changes, skipped) instead of text",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Replay the log under the config; print the report; exit with what changed."""
    from safehold.cli.config_cmd import load_config_from
    from safehold.replay import log_files, read_records, replay

    files = log_files(args.log)  # a missing log is the first error
    workspace = None
    if args.cwd is not None:
        workspace = os.path.abspath(args.cwd)
        if not os.path.isdir(workspace):
            raise ConfigError(f"`--cwd`: `{args.cwd}` is not a directory")
    config, source = load_config_from(args.config, workspace)
    print(f"config: {source.describe()} (policy {config.digest()})", file=sys.stderr)
    report = replay(read_records(files), config, workspace=workspace)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=1, default=repr))
    else:
        print(report.render())
    sys.stdout.flush()
    if not report.replayed:
        raise ConfigError(f"{args.log}: no record could be replayed")
    return 1 if report.changed("looser") and not args.allow_looser else 0
