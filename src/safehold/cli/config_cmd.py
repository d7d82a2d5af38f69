"""`safehold config validate F | schema | show [F]`."""

from __future__ import annotations

import argparse
import json

from safehold.policy.config import SafetyConfig


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `config` subcommand and its three actions."""
    p = sub.add_parser("config", help="validate, show or describe config files")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    v = actions.add_parser("validate", help="check a TOML/JSON config file")
    v.add_argument("file", help="the config file (.toml or .json)")
    v.set_defaults(handler=_validate)
    s = actions.add_parser("schema", help="print the JSON schema of the config")
    s.set_defaults(handler=_schema)
    sh = actions.add_parser("show", help="print the effective config (defaults, or a file's)")
    sh.add_argument("file", nargs="?", help="the config file; default: built-in defaults")
    sh.set_defaults(handler=_show)


def load_config(path: str | None) -> SafetyConfig:
    """The config from `--config F`, or the defaults; errors are `ConfigError`."""
    return SafetyConfig() if path is None else SafetyConfig.load(path)


def _validate(args: argparse.Namespace) -> int:
    config = SafetyConfig.load(args.file)
    print(f"ok: {args.file} is a valid safehold config (mode `{config.mode}`)")
    return 0


def _schema(args: argparse.Namespace) -> int:
    print(json.dumps(SafetyConfig.model_json_schema(), indent=2))
    return 0


def _show(args: argparse.Namespace) -> int:
    config = load_config(args.file)
    data = config.model_dump(mode="json")
    data["mode"] = config.mode.value
    print(json.dumps(data, indent=2))
    return 0
