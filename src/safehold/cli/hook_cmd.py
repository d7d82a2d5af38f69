"""`safehold hook claude-code | gemini-cli [--config F] [--ask-as-deny | --interactive]`.

(`safehold hook install | uninstall` live in `safehold.cli.hook_install`; `hook warm` in
`safehold.cli._hook_client`.)

An ASK that no person can answer is answered deny (`safehold would ask: …`): the flags,
`$SAFEHOLD_HEADLESS`, the payload and what the hook process saw decide that
(`safehold.cli._headless`).

Reads the CLI's hook payload on stdin, decides the tool call, prints the CLI's decision JSON
on stdout and exits 0. Anything else (empty or malformed stdin, an unknown event, a missing
or invalid config, an internal error) is one `error:` line on stderr and exit 2, which both
Claude Code and Gemini CLI treat as "block this tool call": a broken install never lets a
call through.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, Final

from safehold.cli._hook_client import MAX_PAYLOAD
from safehold.errors import SafeholdError

if TYPE_CHECKING:
    from safehold.adapters.hooks._payload import HookCall
    from safehold.policy.config import SafetyConfig
    from safehold.policy.decision import Decision

__all__ = ["MAX_PAYLOAD", "register", "run"]

_FLAVOURS: Final = {
    "claude-code": "Claude Code's PreToolUse hook",
    "gemini-cli": "Gemini CLI's BeforeTool hook",
}


class HookError(SafeholdError):
    """The hook could not decide; the tool call is blocked (exit 2)."""

    exit_code = 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `hook` subcommand with one action per CLI."""
    p = sub.add_parser(
        "hook",
        help="decide a tool call from a coding-agent CLI's hook (Claude Code, Gemini CLI)",
        description="Read a hook payload on stdin and print the decision JSON. Exit 0 with a "
        "decision; exit 2 (which blocks the call) on any error.",
    )
    flavours = p.add_subparsers(
        dest="flavour", metavar="{claude-code,gemini-cli,install,uninstall,warm}"
    )
    flavours.required = True
    for name, what in _FLAVOURS.items():
        f = flavours.add_parser(name, help=what, description=f"Run as {what}.")
        f.add_argument(
            "--config",
            metavar="F",
            help="a TOML/JSON config file (default: $SAFEHOLD_CONFIG, <project>/.safehold.toml, "
            "~/.config/safehold/config.toml, else the built-in defaults)",
        )
        person = f.add_mutually_exclusive_group()
        person.add_argument(
            "--ask-as-deny",
            action="store_true",
            help="answer deny where safehold would ask (no person is there to answer); "
            "without it or --interactive, the hook looks: $SAFEHOLD_HEADLESS, the CLI's "
            "headless switch (claude -p, gemini -p), Claude Code's dontAsk mode, a terminal",
        )
        person.add_argument(
            "--interactive",
            action="store_true",
            help="a person answers the CLI's prompts even where the hook sees no terminal "
            "(an IDE extension, a desktop app): asks stay asks",
        )
        f.set_defaults(handler=run)
    from safehold.cli.hook_install import register_actions

    register_actions(flavours)
    w = flavours.add_parser(
        "warm",
        help="start the warm hook server in the background (for a CLI's SessionStart hook)",
        description="Start the hook server unless it runs, so that a session's first tool "
        "call is answered warm. Prints nothing; always exits 0.",
    )
    w.set_defaults(handler=_warm)


def _warm(args: argparse.Namespace) -> int:
    from safehold.cli._hook_client import warm

    return warm()


def _read_payload() -> Any:
    data = sys.stdin.buffer.read(MAX_PAYLOAD + 1)
    if len(data) > MAX_PAYLOAD:
        raise HookError(f"hook payload larger than {MAX_PAYLOAD} bytes")
    if not data.strip():
        raise HookError("empty stdin: expected the hook's JSON payload")
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise HookError(
            f"invalid JSON on stdin: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except (UnicodeDecodeError, RecursionError) as exc:
        raise HookError(f"unreadable JSON on stdin: {type(exc).__name__}") from None


def _decide(args: argparse.Namespace) -> dict[str, Any]:
    from safehold.config_discovery import discover_config
    from safehold.policy.engine import evaluate
    from safehold.policy.modes import Mode

    if args.flavour == "claude-code":
        from safehold.adapters.hooks import claude_code as flavour
    else:
        from safehold.adapters.hooks import gemini_cli as flavour  # type: ignore[no-redef]

    hook_call = flavour.parse(_read_payload())
    config, source = discover_config(args.config, project=hook_call.workspace)
    loaded = config
    if hook_call.read_only:
        config = config.with_mode(Mode.READ_ONLY)
    if config.audit.path is None and config.audit.logger is None:
        # The agent runs the command itself, outside safehold's sandbox: judge it so.
        decision = evaluate(config, hook_call.call, workspace=hook_call.workspace, runner="host")
    else:
        decision = _decide_audited(config, hook_call)
    if not decision.allowed:  # the message says which rule and file: `Decision.trace`
        from safehold.policy.provenance import Provenance, annotate

        decision = annotate(decision, Provenance.of(loaded, source.describe()))
    return flavour.render(decision, no_person=_no_person(args, hook_call))


def _no_person(args: argparse.Namespace, hook_call: HookCall) -> str | None:
    """Why no person can answer an ask here (it is then answered deny), or None.

    The user's word first (the flags, then `$SAFEHOLD_HEADLESS`), then the payload, then what
    the hook process saw (`safehold.cli._headless`).
    """
    import os

    from safehold.cli import _headless

    if args.ask_as_deny:
        return "--ask-as-deny"
    if getattr(args, "interactive", False):
        return None
    try:
        choice = _headless.user_choice(os.environ)
    except ValueError as exc:
        raise HookError(str(exc)) from None
    if choice is not None:
        return f"${_headless.HEADLESS_VAR}" if choice else None
    if hook_call.no_person is not None:
        return hook_call.no_person
    seen = os.environ.get(_headless.SEEN_VAR)
    if seen is None:  # not marked by a hook process (called in-process): look from here
        return _headless.detect(args.flavour)
    return seen or None


def _decide_audited(config: SafetyConfig, hook_call: HookCall) -> Decision:
    """Decide through a `Gate`, which writes the audit record, as the ACP agent does.

    An audit log that cannot be opened is a `ConfigError` (exit 2, the call is blocked); one
    that cannot record an ALLOW turns it into a DENY (`audit-failed`), as in every adapter.
    """
    from safehold.audit import JsonlFileSink, MultiSink, sink_from_config
    from safehold.policy.approval import Gate
    from safehold.policy.sessions import SessionPolicies

    sink = sink_from_config(config.audit)
    session = hook_call.session_id or "hook"
    policies = SessionPolicies(config)
    policies.open(session, hook_call.workspace)
    try:
        return Gate(policies, audit=sink, runner="host").decide(session, hook_call.call)
    finally:
        for each in sink.sinks if isinstance(sink, MultiSink) else (sink,):
            if isinstance(each, JsonlFileSink):
                each.close()  # a hook server decides many calls: no descriptor may leak


def run(args: argparse.Namespace) -> int:
    """Decide the payload's tool call; every failure is one line and exit 2 (blocks the call)."""
    try:
        out = json.dumps(_decide(args), ensure_ascii=False)
    except SafeholdError as exc:
        message = str(exc)
    except Exception as exc:  # fail closed: a bug blocks the call, it never allows it
        message = f"internal error: {type(exc).__name__}: {exc}"
    else:
        sys.stdout.write(out + "\n")
        sys.stdout.flush()
        return 0
    first = message.splitlines()[0] if message else "unknown error"
    sys.stderr.write(f"error: safehold hook {args.flavour}: {first}\n")
    return 2
