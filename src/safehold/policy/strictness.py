"""Whether one config is at least as strict as another, field by field.

A project's `.safehold.toml` comes with the code that was cloned; `config_discovery` uses one
that loosens the policy only after the person trusts it. "Looser" is decided here, on the
validated configs (so `mode = "auto"` and the three flags are one thing), and errs strict:
any change whose effect is not plainly a tightening counts as loosening.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from safehold.policy.config import SafetyConfig

__all__ = ["loosened_fields"]

# Fields whose every change may loosen (a sandbox setting, where audit records are written,
# how grants are scoped): only an unchanged value is at least as strict.
_SAME_OR_LOOSER = ("sandbox", "audit", "case_insensitive_paths", "grant_scope")
_PRIVATE_RANK = {"allow": 0, "ask": 1, "deny": 2}


def loosened_fields(config: SafetyConfig, base: SafetyConfig) -> list[str]:
    """The fields in which `config` is less strict than `base`; empty when it is not.

    Stricter means: read-only or approval flags turned on, denied and protected lists
    extended, allowed and read-only roots narrowed, deny and ask command rules added,
    URL domains narrowed or denied, an approval timeout set.
    """
    out: list[str] = []
    if base.read_only and not config.read_only:
        out.append("read_only")
    if not config.read_only:
        for name in ("require_approval_for_writes", "require_approval_for_execute"):
            if getattr(base, name) and not getattr(config, name):
                out.append(name)
    for name in ("denied_paths", "protected_paths", "write_denied_paths"):
        if not set(getattr(base, name)) <= set(getattr(config, name)):
            out.append(name)
    for name in ("allowed_paths", "readonly_paths"):
        if not set(getattr(config, name)) <= set(getattr(base, name)):
            out.append(name)
    if base.outside_reads == "deny" and config.outside_reads != "deny":
        out.append("outside_reads")  # deny is tighter than ask
    if _rules_loosened(config, base):
        out.append("command_rules")
    if _network_loosened(config, base):
        out.append("network")
    if not set(config.programs) <= set(base.programs):
        out.append("programs")  # a declared program runs unasked without the sandbox
    if base.acp_approval_timeout and not (
        0 < config.acp_approval_timeout <= base.acp_approval_timeout
    ):
        out.append("acp_approval_timeout")
    out.extend(name for name in _SAME_OR_LOOSER if getattr(config, name) != getattr(base, name))
    return out


def _rules_loosened(config: SafetyConfig, base: SafetyConfig) -> bool:
    def key(rule: object) -> str:
        return repr(rule)

    kept = {key(r) for r in config.command_rules}
    if any(key(r) not in kept for r in base.command_rules):
        return True  # a rule of the base was dropped
    known = {key(r) for r in base.command_rules}
    # An added allow rule lets commands through without a person; deny and ask only tighten.
    return any(key(r) not in known and r.decision.value == "allow" for r in config.command_rules)


def _network_loosened(config: SafetyConfig, base: SafetyConfig) -> bool:
    new, old = config.network, base.network
    if not set(old.denied_domains) <= set(new.denied_domains):
        return True
    if new.replace_default_denied_domains and not old.replace_default_denied_domains:
        return True
    if _PRIVATE_RANK.get(new.private_addresses, -1) < _PRIVATE_RANK.get(old.private_addresses, 3):
        return True
    if old.allowed_domains:  # a non-empty list narrows; an empty one allows every domain
        return not new.allowed_domains or not set(new.allowed_domains) <= set(old.allowed_domains)
    return False
