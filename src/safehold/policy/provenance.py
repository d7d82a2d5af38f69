"""Where each rule of a decision came from: the built-in defaults, a config file, a grant.

`evaluate` records *which* rule fired (`Reason.rule`: a pattern, a command rule, a setting);
this module says *where that rule came from*, after the decision, so the engine stays as
fast as it was. `Provenance.of(config, layer)` indexes a config once: every list entry
(`denied_paths`, `command_rules`, `network.allowed_domains`, …) is either one of the built-in
defaults or from the layer (the file) that was loaded, and every setting either keeps its
default or was set by that layer. `annotate(decision, provenance)` fills `Reason.source`.

A reason whose rule is no config entry names the program table entry that gave the word its
role (`rm delete` → `program table: rm`, with the `--help` version the entry was taken from),
else the built-in shell analysis.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

from safehold.policy.decision import Decision, Reason

if TYPE_CHECKING:
    from safehold.policy.config import SafetyConfig

__all__ = ["BUILT_IN", "Provenance", "annotate"]

BUILT_IN: Final = "built-in"

# Reason codes whose rule is the config entry that fired, and the list it is an entry of.
_LISTS: Final = (
    "denied_paths",
    "protected_paths",
    "readonly_paths",
    "allowed_paths",
    "command_rules",
    "network.denied_domains",
    "network.allowed_domains",
)
_SECTIONS: Final = ("sandbox", "network", "audit")


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where each entry and setting of one effective config came from."""

    entries: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """A list entry (a pattern, a command rule's pattern) → (its list, where it came from)."""
    settings: Mapping[str, str] = field(default_factory=dict)
    """A setting (`require_approval_for_execute`, `network.private_addresses`) → where from."""

    @classmethod
    def of(
        cls,
        config: SafetyConfig,
        layer: str,
        *,
        base: Provenance | None = None,
        overrides: Mapping[str, str] | None = None,
    ) -> Provenance:
        """Index `config`, loaded from `layer` (a file's description), over `base`'s sources.

        Entries that are built-in defaults stay `built-in`; entries `base` knows keep its
        source (a lower layer); the rest are `layer`'s. `overrides` names settings changed
        after loading (`{"read_only": "--mode read-only"}`).
        """
        from safehold.policy.config import SafetyConfig

        defaults = _defaults_index(SafetyConfig())
        known = dict(base.entries) if base is not None else {}
        entries: dict[str, tuple[str, str]] = dict(known)  # a lower layer's entries stay
        for name, entry in _list_entries(config):
            if (name, entry) in defaults:
                entries[entry] = (name, BUILT_IN)
            elif entry not in known or known[entry][0] != name:
                entries.setdefault(entry, (name, layer))
        settings = dict(base.settings) if base is not None else {}
        for name in _set_fields(config):
            settings[name] = layer
        settings.update(overrides or {})
        return cls(entries, settings)

    def source_of_setting(self, name: str) -> str:
        """Where a setting's value came from (`network.private_addresses`)."""
        return self.settings.get(name, f"{BUILT_IN} default")

    def source_of_entry(self, name: str, entry: str) -> str:
        """Where one entry of the list `name` came from."""
        found = self.entries.get(entry)
        return found[1] if found is not None and found[0] == name else BUILT_IN

    def source_of(self, reason: Reason) -> str:
        """Where the rule of `reason` came from, in words."""
        found = self.entries.get(reason.rule)
        if found is not None:
            return f"{found[0]}, {found[1]}"
        if reason.code.startswith("grant-"):
            return "a grant recorded by an earlier \u201calways\u201d answer"
        setting = reason.rule
        if setting in self.settings:
            return self.settings[setting]
        if _is_setting(setting):
            return f"{BUILT_IN} default"
        return _analysis_source(reason.rule)


def annotate(decision: Decision, provenance: Provenance) -> Decision:
    """`decision` with every reason's `source` filled in."""
    reasons = tuple(replace(r, source=provenance.source_of(r)) for r in decision.reasons)
    return replace(decision, reasons=reasons)


def _list_entries(config: Any) -> Iterable[tuple[str, str]]:
    for name in _LISTS:
        holder, _, attr = name.rpartition(".")
        values = getattr(getattr(config, holder) if holder else config, attr)
        for value in values:
            yield name, str(getattr(value, "pattern", value))


_DEFAULTS_INDEX: list[frozenset[tuple[str, str]]] = []


def _defaults_index(defaults: SafetyConfig) -> frozenset[tuple[str, str]]:
    if not _DEFAULTS_INDEX:
        _DEFAULTS_INDEX.append(frozenset(_list_entries(defaults)))
    return _DEFAULTS_INDEX[0]


def _set_fields(config: Any) -> Iterable[str]:
    for name in config.model_fields_set:
        if name in _SECTIONS:
            yield from (f"{name}.{sub}" for sub in getattr(config, name).model_fields_set)
        yield name
    if config.model_fields_set & {"read_only", "require_approval_for_execute"}:
        yield "mode"  # the mode is the three flags


def _is_setting(name: str) -> bool:
    from safehold.policy.config import SafetyConfig

    head, _, sub = name.partition(".")
    fields = SafetyConfig.model_fields
    return head == "mode" or (head in fields and (not sub or head in _SECTIONS))


def _analysis_source(rule: str) -> str:
    from safehold.policy.shell.programs import program_for

    word = rule.split(" ", 1)[0]
    program = program_for(word) if word else None
    if program is None:
        return f"{BUILT_IN} shell analysis"
    taken = f", from {program.source}" if program.source else ""
    return f"program table: {word}{taken}"
