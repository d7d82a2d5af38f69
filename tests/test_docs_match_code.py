"""The reference pages say what the code does: config fields, CLI options, the ACP SDK range.

Each test reads a table or a line of the docs and compares it with the source of truth (the
pydantic models, the argparse parser, pyproject.toml), so a field or an option added to the
code without a line in the docs fails here, and so does a stale line.
"""

from __future__ import annotations

import argparse
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from safehold import SafetyConfig
from safehold.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _field_tables(page: Path) -> dict[str, dict[str, str]]:
    """`{section heading: {field: default cell}}` for every `| field | ... |` table."""
    tables: dict[str, dict[str, str]] = {}
    heading, rows = "", None
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            heading, rows = line.lstrip("# ").strip(), None
        elif line.startswith("| field |"):
            header = [c.strip() for c in line.strip("|").split("|")]
            rows = tables.setdefault(heading, {})
            default_at = header.index("default")
        elif rows is not None and line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[default_at]
        elif not line.startswith("|"):
            rows = None
    return tables


CONFIG_TABLES = _field_tables(DOCS / "configuration.md")


def _section_model(section: str) -> type[BaseModel]:
    annotation = SafetyConfig.model_fields[section].annotation
    assert isinstance(annotation, type) and issubclass(annotation, BaseModel)
    return annotation


# Keys a config file accepts besides the model's fields (model validators read them).
CONFIG_FILE_ONLY_KEYS = {"mode"}


@pytest.mark.parametrize(
    ("heading", "model", "extra"),
    [
        ("Fields", SafetyConfig, CONFIG_FILE_ONLY_KEYS),
        ("`[sandbox]`", _section_model("sandbox"), set()),
        ("`[network]`", _section_model("network"), set()),
        ("`[audit]`", _section_model("audit"), set()),
    ],
)
def test_config_table_names_every_field(
    heading: str, model: type[BaseModel], extra: set[str]
) -> None:
    documented = set(CONFIG_TABLES[heading])
    fields = set(model.model_fields) | extra
    assert documented - fields == set(), f"documented under {heading} but not a field"
    assert fields - documented == set(), f"fields missing from the {heading} table"


def _spellings(value: Any) -> tuple[str, ...]:
    """How the docs may spell a scalar default (`true`, `120`, `"exact"`); () for others."""
    if isinstance(value, bool):
        return (f"`{str(value).lower()}`",)
    if isinstance(value, float) and value.is_integer():
        return (f"`{value}`", f"`{int(value)}`")
    if isinstance(value, int | float):
        return (f"`{value}`",)
    if isinstance(value, str):
        return (f'`"{value}"`',)
    return ()


@pytest.mark.parametrize(
    ("heading", "model"),
    [
        ("Fields", SafetyConfig),
        ("`[sandbox]`", _section_model("sandbox")),
        ("`[network]`", _section_model("network")),
        ("`[audit]`", _section_model("audit")),
    ],
)
def test_config_table_scalar_defaults_are_the_models(heading: str, model: type[BaseModel]) -> None:
    wrong = {}
    for name, field in model.model_fields.items():
        spellings = _spellings(field.default)
        cell = CONFIG_TABLES[heading][name]
        # A default may say more after the value ("`"bwrap"` on Linux").
        if spellings and not cell.startswith(spellings):
            wrong[name] = (cell, spellings)
    assert wrong == {}, f"{heading}: documented default vs the model's"


def _options(parser: argparse.ArgumentParser, prefix: str) -> dict[str, set[str]]:
    """`{"safehold check": {"--json", ...}}` for the parser and each subcommand under it."""
    found: dict[str, set[str]] = {prefix: set()}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.update(_options(sub, f"{prefix} {name}"))
        elif not isinstance(action, argparse._HelpAction):
            found[prefix] |= {s for s in action.option_strings if s.startswith("--")}
    return found


def _usage_entries() -> list[str]:
    """The usage block of docs/cli.md, one entry a command (indented lines continue one)."""
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    usage = page.split("```text\n", 1)[1].split("```", 1)[0]
    entries: list[str] = []
    for line in usage.splitlines():
        if line.startswith("safehold "):
            entries.append(line)
        elif entries and line.strip():
            entries[-1] += " " + line.strip()
    return entries


def test_cli_page_names_every_subcommand_and_option() -> None:
    entries = _usage_entries()
    missing = []
    for command, options in _options(build_parser(), "safehold").items():
        words = command.split()[1:]
        if not words:
            continue  # `safehold` itself: only --help and --version
        mine = [e for e in entries if e.split()[1] == words[0] and all(w in e for w in words[1:])]
        if not mine:
            missing.append(command)
        for option in sorted(options):
            if not any(re.search(re.escape(option) + r"(?![\w-])", e) for e in mine):
                missing.append(f"{command} {option}")
    assert missing == [], "not in docs/cli.md's usage block"


def test_acp_sdk_range_is_stated_once_the_way_pyproject_says() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (spec,) = [d for d in project["dependencies"] if d.startswith("agent-client-protocol")]
    for page in ("acp-agent.md", "acp-integration.md"):
        text = (DOCS / page).read_text(encoding="utf-8")
        stated = re.findall(r"`agent-client-protocol[<>=!~][^`]*`", text)
        assert stated == [f"`{spec}`"], f"docs/{page} states the supported SDK as {stated}"


_IN_PROGRESS = re.compile(r"\b(?:being added|will be added|coming soon|not yet implemented)\b")


def test_no_page_describes_work_in_progress() -> None:
    """A page says what the release does: `migrating.md` said a rule was "being added"."""
    pages = [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]
    found = [
        f"{page.relative_to(ROOT)}:{n}"
        for page in pages
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if _IN_PROGRESS.search(line)
    ]
    assert found == []
