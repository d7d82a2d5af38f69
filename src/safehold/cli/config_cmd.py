"""`safehold config validate F | test [F] | schema | show [F] | trust`."""

from __future__ import annotations

import argparse
import json
import os
import sys

from safehold.config_discovery import ConfigSource, discover_config
from safehold.policy.config import SafetyConfig
from safehold.policy.examples import DEFAULT_EXAMPLES, ExampleResult, run_examples


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `config` subcommand and its three actions."""
    p = sub.add_parser("config", help="validate, show or describe config files")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    v = actions.add_parser(
        "validate",
        help="check a TOML/JSON config file and run its [[examples]]",
        description="Validate a config file, then decide each of its [[examples]] and compare "
        "the verdict with `expect`. Exit status: 0 valid (and every example passed), 1 an "
        "example failed, 2 the file is invalid.",
    )
    v.add_argument("file", help="the config file (.toml or .json)")
    v.add_argument(
        "--cwd", metavar="DIR", help="the workspace the examples are decided in (default: .)"
    )
    v.set_defaults(handler=_validate)
    te = actions.add_parser(
        "test",
        help="run a config's [[examples]] (policy tests)",
        description="Decide each [[examples]] entry of the config (F, else the one found as "
        "`config show` says) and compare the verdict with `expect`; a failure prints the "
        "decision's reasons. Without any config file, the built-in defaults' own examples "
        "run. Exit status: 0 every example passed, 1 one failed or there were none, 2 the "
        "config is invalid.",
    )
    te.add_argument("file", nargs="?", help="the config file (default: found as described)")
    te.add_argument(
        "--cwd", metavar="DIR", help="the workspace the examples are decided in (default: .)"
    )
    te.set_defaults(handler=_test)
    s = actions.add_parser("schema", help="print the JSON schema of the config")
    s.set_defaults(handler=_schema)
    sh = actions.add_parser(
        "show",
        help="print the effective config and say which file it came from",
        description="Print the effective config as JSON on stdout, and on stderr the file it "
        "came from: F, else $SAFEHOLD_CONFIG, else <project>/.safehold.toml, else "
        "~/.config/safehold/config.toml, else the built-in defaults.",
    )
    sh.add_argument("file", nargs="?", help="the config file (default: found as described)")
    sh.add_argument(
        "--cwd", metavar="DIR", help="the project whose .safehold.toml counts (default: .)"
    )
    sh.add_argument(
        "--effective",
        action="store_true",
        help="print the merged policy (managed policy, file, built-in lists) as TOML, each "
        "entry and setting with the layer it came from",
    )
    sh.set_defaults(handler=_show)
    t = actions.add_parser(
        "trust",
        help="use this project's .safehold.toml even where it loosens the policy",
        description="Record the project's .safehold.toml (or .safehold.json), with its current "
        "content, as trusted. A project file less strict than your user config (or the "
        "defaults) is refused until then, and trust ends when the file changes.",
    )
    t.add_argument("--cwd", metavar="DIR", help="the project (default: .)")
    t.set_defaults(handler=_trust)


def load_config_from(
    path: str | None, project: str | None = None
) -> tuple[SafetyConfig, ConfigSource]:
    """The config named by `--config F`, else the one discovery finds for the project (cwd)."""
    return discover_config(path, project=os.getcwd() if project is None else project)


def load_config(path: str | None, project: str | None = None) -> SafetyConfig:
    """The config from `--config F`, else discovered (see `safehold.config_discovery`)."""
    return load_config_from(path, project)[0]


# Tables an adapter reads from the same file (`safehold mcp-proxy`'s `[mcp]`): not errors.
ADAPTER_SECTIONS = ("mcp",)


def _validate(args: argparse.Namespace) -> int:
    config, _ = SafetyConfig.load_sections(args.file, ADAPTER_SECTIONS)
    print(f"ok: {args.file} is a valid safehold config (mode `{config.mode}`)")
    if not config.examples:
        return 0
    return _report(run_examples(config, workspace=_workspace(args.cwd)))


def _test(args: argparse.Namespace) -> int:
    workspace = _workspace(args.cwd)
    config, source = load_config_from(args.file, workspace)
    examples = config.examples
    if source.path is None:
        examples = DEFAULT_EXAMPLES  # the defaults' own promises
    print(f"config: {source.describe()}", file=sys.stderr)
    if not examples:
        print(f"error: {source.describe()} has no [[examples]] to run", file=sys.stderr)
        return 1
    return _report(run_examples(config, workspace=workspace, examples=examples))


def _report(results: tuple[ExampleResult, ...]) -> int:
    for result in results:
        print(result.render())
    failed = sum(not r.passed for r in results)
    print(f"{len(results)} examples: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


def _workspace(cwd: str | None) -> str:
    from safehold.errors import ConfigError

    path = os.path.abspath(cwd if cwd is not None else os.getcwd())
    if not os.path.isdir(path):
        raise ConfigError(f"`--cwd`: `{cwd}` is not a directory")
    return path


def _schema(args: argparse.Namespace) -> int:
    print(json.dumps(SafetyConfig.model_json_schema(), indent=2))
    return 0


def _show(args: argparse.Namespace) -> int:
    config, source = load_config_from(args.file, args.cwd)
    print(f"config: {source.describe()}", file=sys.stderr)
    if args.effective:
        print(_effective(config, source))
        return 0
    data = config.model_dump(mode="json")
    data["mode"] = config.mode.value
    print(json.dumps(data, indent=2))
    return 0


def _effective(config: SafetyConfig, source: ConfigSource) -> str:
    """The policy as TOML, every entry and setting followed by `# <where it came from>`."""
    from safehold.config_discovery import managed_config
    from safehold.policy.provenance import Provenance

    managed = managed_config()
    prov = None
    layers = []
    if managed is not None:
        label = f"{managed[1]} (managed policy)"
        prov = Provenance.of(managed[0], label)
        layers.append(label)
    if source.path is not None and source.origin != "managed":
        prov = Provenance.of(SafetyConfig.load(source.path), source.describe(), base=prov)
        layers.append(source.describe())
    prov = prov or Provenance.of(config, "")
    lines = [f"# effective policy: {' on '.join(reversed(layers)) or 'the built-in defaults'}"]
    data = config.model_dump(mode="json", exclude={"examples"})
    data["mode"] = config.mode.value
    tables = []
    for name in sorted(data):
        value = data[name]
        if isinstance(value, dict):
            tables.append((name, value))
        else:
            lines.extend(_toml_lines(name, name, value, prov))
    for name, table in tables:
        lines.append(f"\n[{name}]")
        for key in sorted(table):
            lines.extend(_toml_lines(f"{name}.{key}", key, table[key], prov))
    return "\n".join(lines)


def _toml_lines(dotted: str, key: str, value: object, prov: object) -> list[str]:
    from safehold.policy.provenance import Provenance

    assert isinstance(prov, Provenance)
    if value is None:
        return [f"# {key} is not set  # {prov.source_of_setting(dotted)}"]
    if not isinstance(value, list):
        return [f"{key} = {json.dumps(value)}  # {prov.source_of_setting(dotted)}"]
    if not value:
        return [f"{key} = []  # {prov.source_of_setting(dotted)}"]
    out = [f"{key} = ["]
    for item in value:
        entry = item.get("pattern", "") if isinstance(item, dict) else str(item)
        shown = json.dumps(
            {k: v for k, v in item.items() if v is not None} if isinstance(item, dict) else item
        )
        if isinstance(item, dict):
            shown = (
                "{ "
                + ", ".join(f"{k} = {json.dumps(v)}" for k, v in item.items() if v is not None)
                + " }"
            )
        out.append(f"  {shown},  # {prov.source_of_entry(dotted, str(entry))}")
    out.append("]")
    return out


def _trust(args: argparse.Namespace) -> int:
    from pathlib import Path

    from safehold.config_discovery import PROJECT_FILES
    from safehold.errors import ConfigError
    from safehold.project_trust import trust, trust_store

    project = Path(args.cwd or os.getcwd())
    found = [project / name for name in PROJECT_FILES if (project / name).is_file()]
    if not found:
        raise ConfigError(f"{project}: no {' or '.join(PROJECT_FILES)} to trust")
    SafetyConfig.load(found[0])  # a file that does not validate is not worth trusting
    digest = trust(found[0])
    print(f"trusted: {found[0]} (sha256 {digest[:16]}…), recorded in {trust_store()}")
    return 0
