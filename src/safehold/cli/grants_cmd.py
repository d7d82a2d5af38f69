"""`safehold grants list|revoke|clear`: the project and user grants "always allow" answers left.

Project grants are those of the project at `--cwd` (default: the current directory); user
grants hold in every project. Session grants live with their session (in the agent, or its
`--state-dir`) and end with it; they are not listed here.

Exit status: 0 done, 1 `revoke` found no grant with a given id, 2 on any error (a damaged or
unreadable grants file is one `error:` line; `clear` empties a damaged file).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from typing import Any

from safehold.errors import ConfigError

_SCOPES = ("project", "user", "all")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `grants` subcommand and its three actions."""
    p = sub.add_parser(
        "grants",
        help="list, revoke or clear the project and user grants of \u201calways allow\u201d answers",
        description="Manage the grants \u201calways allow\u201d / \u201calways reject\u201d "
        "answers recorded for a project or for the user (kept under "
        "$XDG_STATE_HOME/safehold/grants, outside every project). Session grants end with "
        "their session and are not listed.",
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", parser_class=type(p))
    actions.required = True
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--scope",
        choices=_SCOPES,
        default="all",
        help="the project's grants, the user's, or both (default: all)",
    )
    common.add_argument(
        "--cwd",
        metavar="DIR",
        help="the project (its workspace directory); default: the current directory",
    )
    ls = actions.add_parser(
        "list", parents=[common], help="list the grants with their ids, scope and expiry"
    )
    ls.add_argument("--json", action="store_true", help="one JSON array instead of text")
    ls.set_defaults(handler=run_list)
    rv = actions.add_parser("revoke", parents=[common], help="remove grants by id")
    rv.add_argument("ids", metavar="ID", nargs="+", help="a grant id that `grants list` shows")
    rv.set_defaults(handler=run_revoke)
    cl = actions.add_parser("clear", parents=[common], help="remove every grant (of a scope)")
    cl.add_argument(
        "--expired", action="store_true", help="remove only the grants that have expired"
    )
    cl.set_defaults(handler=run_clear)


def _where(args: argparse.Namespace) -> tuple[str, tuple[Any, ...]]:
    workspace = os.path.abspath(args.cwd if args.cwd is not None else os.getcwd())
    if not os.path.isdir(workspace):
        raise ConfigError(f"`--cwd`: `{args.cwd}` is not a directory")
    scopes = ("project", "user") if args.scope == "all" else (args.scope,)
    return workspace, scopes


def run_list(args: argparse.Namespace) -> int:
    """Print the grants of the chosen scopes; a file that cannot be read is an error."""
    from safehold.grant_store import GrantFileError, GrantFiles, grant_id
    from safehold.policy.grants import describe_grant_key

    workspace, scopes = _where(args)
    store = GrantFiles()
    now = time.time()
    rows: list[dict[str, Any]] = []
    errors: list[str] = []
    for scope in scopes:
        try:
            grants = store.load(scope, workspace)
        except GrantFileError as exc:
            errors.append(str(exc))
            continue
        for g in grants:
            rows.append(
                {
                    "id": grant_id(g),
                    "scope": g.scope,
                    "effect": g.effect.value,
                    "what": g.what or describe_grant_key(g.key),
                    "key": g.key,
                    "expires_at": g.expires_at,
                    "granted_at": g.granted_at,
                    "expired": g.expired(now),
                    "file": str(store.path(scope, workspace)),
                }
            )
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
    elif not rows:
        if not errors:
            print(f"no grants ({', '.join(scopes)}) for {workspace}")
    else:
        for row in rows:
            when = _when(row["expires_at"], row["expired"])
            what = _visible(row["what"])
            print(f"{row['id']}  {row['scope']:<7}  {row['effect']:<6}  {when:<27}  {what}")
    if errors:
        for line in errors:
            print(f"error: {line}; no grants from it are used", file=sys.stderr)
        return 2
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    """Remove the grants with the given ids; exit 1 when an id matched nothing."""
    from safehold.grant_store import GrantFiles, grant_id
    from safehold.policy.grants import describe_grant_key

    workspace, scopes = _where(args)
    store = GrantFiles()
    wanted = frozenset(args.ids)
    found: set[str] = set()
    for scope in scopes:
        for g in store.remove(scope, workspace, ids=wanted):
            found.add(grant_id(g))
            what = _visible(g.what or describe_grant_key(g.key))
            print(f"revoked {grant_id(g)}  {g.scope}  {g.effect.value}  {what}")
    missing = sorted(wanted - found)
    for gid in missing:
        print(f"error: no {' or '.join(scopes)} grant has the id `{gid}`", file=sys.stderr)
    return 1 if missing else 0


def run_clear(args: argparse.Namespace) -> int:
    """Remove every grant (or every expired one) of the chosen scopes; empty a damaged file."""
    from safehold.grant_store import GrantFileError, GrantFiles

    workspace, scopes = _where(args)
    store = GrantFiles()
    now = time.time() if args.expired else None
    total = 0
    for scope in scopes:
        try:
            total += len(store.remove(scope, workspace, expired_at=now))
        except GrantFileError as exc:
            if args.expired:
                raise
            store.remove(scope, workspace, reset_damaged=True)
            print(f"note: {exc}; emptied it", file=sys.stderr)
    what = "expired grant" if args.expired else "grant"
    print(f"cleared {total} {what}{'s' * (total != 1)} ({', '.join(scopes)})")
    return 0


def _when(expires_at: float | None, expired: bool) -> str:
    if expires_at is None:
        return "no expiry"
    text = datetime.fromtimestamp(expires_at, UTC).isoformat(timespec="seconds")
    return f"{'expired' if expired else 'until'} {text.replace('+00:00', 'Z')}"


def _visible(text: str) -> str:
    # A grant's text is a command an agent wrote: a newline or an escape must not forge a row.
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
