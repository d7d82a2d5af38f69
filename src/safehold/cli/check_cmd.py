"""`safehold check`: print the decision for one tool call and why, without running anything.

The exit status is the verdict, so no failure can pass for an allow: 0 allow, 3 ask, 4 deny;
2 with one `error:` line when anything goes wrong (bad input, an invalid or missing config,
an internal error).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from safehold.cli.config_cmd import load_config_from
from safehold.errors import SafeholdError, value_kind
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import evaluate
from safehold.policy.modes import Mode
from safehold.policy.provenance import Provenance, annotate


class CheckInputError(SafeholdError):
    """A `safehold check` argument is malformed."""

    exit_code = 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `check` subcommand."""
    p = sub.add_parser(
        "check",
        help="print the decision for one tool call and why",
        description="Decide one tool call and print the verdict and its reasons. "
        "Exit status: 0 allow, 3 ask, 4 deny, 2 on any error.",
    )
    p.add_argument(
        "--config",
        metavar="F",
        help="a TOML or JSON config file (default: $SAFEHOLD_CONFIG, <cwd>/.safehold.toml, "
        "~/.config/safehold/config.toml, else the built-in defaults)",
    )
    p.add_argument(
        "--mode", choices=[m.value for m in Mode], help="decide as if the session were in this mode"
    )
    p.add_argument(
        "--cwd", metavar="DIR", help="the session workspace (default: the current directory)"
    )
    p.add_argument(
        "--runner",
        choices=("host", "sandbox"),
        default="host",
        help="who runs the command: host (default; the agent runs it unconfined) or sandbox "
        "(safehold's runner, `safehold run` / `safehold acp`)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--explain",
        action="store_true",
        help="show every step that contributed: the precedence step that decided, each rule "
        "with the list and the config file (or built-in default) it came from",
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--bash", metavar="CMD", help="a shell command (an execute tool call)")
    what.add_argument("--read", metavar="P", help="a file read")
    what.add_argument("--write", metavar="P", help="a file write")
    what.add_argument("--tool", metavar="NAME", help="any tool, with --args and --kind")
    p.add_argument("--args", metavar="JSON", help="the tool's arguments, a JSON object")
    p.add_argument(
        "--kind",
        metavar="K",
        help="the tool's ACP kind (" + ", ".join(k.value for k in ToolKind) + "; default other)",
    )
    p.set_defaults(handler=run)


def _build_call(args: argparse.Namespace) -> ToolCall:
    if args.tool is None and (args.args is not None or args.kind is not None):
        raise CheckInputError("`--args` and `--kind` go with `--tool NAME`")
    if args.bash is not None:
        return ToolCall("bash", {"command": args.bash}, ToolKind.EXECUTE)
    if args.read is not None:
        return ToolCall("read_file", {"path": args.read}, ToolKind.READ)
    if args.write is not None:
        return ToolCall("write_file", {"path": args.write}, ToolKind.EDIT)
    kind = ToolKind.OTHER
    if args.kind is not None:
        try:
            kind = ToolKind(args.kind)
        except ValueError:
            valid = ", ".join(f"`{k.value}`" for k in ToolKind)
            raise CheckInputError(
                f"`--kind`: unknown kind `{args.kind}` (one of {valid})"
            ) from None
    arguments: Any = {}
    if args.args is not None:
        try:
            arguments = json.loads(args.args)
        except json.JSONDecodeError as exc:
            raise CheckInputError(
                f"`--args`: invalid JSON: {exc.msg} at column {exc.colno}"
            ) from None
        if not isinstance(arguments, dict):
            raise CheckInputError(f"`--args`: expected a JSON object, got {value_kind(arguments)}")
    return ToolCall(args.tool, arguments, kind)


def _workspace(cwd: str | None) -> str:
    path = os.path.abspath(cwd if cwd is not None else os.getcwd())
    if not os.path.isdir(path):
        raise CheckInputError(f"`--cwd`: `{cwd}` is not a directory")
    return path


def _render(decision: Decision, call: ToolCall, mode: Mode, workspace: str) -> str:
    lines = [f"{decision.verdict.value}: `{call.name}` ({call.kind.value}) in mode `{mode}`"]
    lines.append(f"  workspace: {workspace}")
    for reason in decision.reasons:
        lines.append(f"  - {reason.code} [{reason.rule}]: {reason.message}")
    if decision.grant_key is not None:
        lines.append(f"  grant key: {decision.grant_key}")
    return "\n".join(lines)


def _provenance(config: SafetyConfig, layer: str, mode: str | None) -> Provenance:
    flags = ("read_only", "require_approval_for_writes", "require_approval_for_execute", "mode")
    overrides = dict.fromkeys(flags, f"--mode {mode}") if mode is not None else None
    return Provenance.of(config, layer, overrides=overrides)


EXIT_CODES = {Verdict.ALLOW: 0, Verdict.ASK: 3, Verdict.DENY: 4}
"""`safehold check`'s exit status per verdict; every error exits 2."""


def run(args: argparse.Namespace) -> int:
    """Decide the described call, print the verdict with its reasons, exit with the verdict."""
    workspace = _workspace(args.cwd)
    config, source = load_config_from(args.config, workspace)
    print(f"config: {source.describe()}", file=sys.stderr)
    provenance = _provenance(config, source.describe(), args.mode) if args.explain else None
    if args.mode is not None:
        config = config.with_mode(args.mode)
    call = _build_call(args)
    decision = evaluate(config, call, workspace=workspace, runner=args.runner)
    if provenance is not None:  # indexed as loaded: a copy made by `with_mode` sets every field
        decision = annotate(decision, provenance)
    if args.explain and not args.json:
        print(f"`{call.name}` ({call.kind.value}) in mode `{config.mode}`")
        print(f"  workspace: {workspace}")
        print(f"  runner: {args.runner}")
        print(f"  config: {source.describe()}")
        print(decision.explain(steps=True))
    elif args.json:
        out = decision.to_dict()
        out["mode"] = config.mode.value
        out["workspace"] = workspace
        out["runner"] = args.runner
        out["config"] = {
            "path": None if source.path is None else str(source.path),
            "origin": source.origin,
        }
        out["tool"] = {"name": call.name, "kind": call.kind.value}
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(_render(decision, call, config.mode, workspace))
    sys.stdout.flush()
    return EXIT_CODES[decision.verdict]
