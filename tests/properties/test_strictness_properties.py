"""`loosened_fields`: tightening never counts as loosening, and any loosening is seen.

The project-file trust check rests on this: a false "tighter" would let a cloned
repository's `.safehold.toml` loosen the policy unasked.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from safehold.policy.config import SafetyConfig
from safehold.policy.strictness import loosened_fields

BASE = SafetyConfig()

_names = st.text(alphabet="abcdefgh", min_size=1, max_size=6)
_tightenings: dict[str, st.SearchStrategy[Any]] = {
    "denied_paths": st.lists(_names.map(lambda n: f"**/{n}.secret"), max_size=3),
    "protected_paths": st.lists(_names.map(lambda n: f"{n}/**"), max_size=3),
    "command_rules": st.lists(
        st.builds(
            lambda n, d: {"pattern": f"tool-{n}", "decision": d},
            _names,
            st.sampled_from(["deny", "ask"]),
        ),
        max_size=3,
    ),
    "read_only": st.just(True),
    "acp_approval_timeout": st.floats(min_value=1, max_value=600),
}
_loosenings: list[dict[str, Any]] = [
    {"require_approval_for_writes": False},
    {"require_approval_for_execute": False},
    {"allowed_paths": ["{workspace}", "/"]},
    {"readonly_paths": ["/etc/"]},
    {"replace_default_denied_paths": True, "denied_paths": []},
    {"replace_default_protected_paths": True, "protected_paths": []},
    {"replace_default_command_rules": True, "command_rules": []},
    {"command_rules": [{"pattern": "curl", "decision": "allow"}]},
    {"sandbox": {"mode": "none"}},
    {"sandbox": {"read_roots": ["~/.ssh"]}},
    {"audit": {"path": "~/.bashrc"}},
    {"network": {"private_addresses": "allow"}},
    {"network": {"replace_default_denied_domains": True, "denied_domains": []}},
    {"grant_scope": "tool"},
]


@st.composite
def tightened(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(sorted(_tightenings)), unique=True, max_size=4))
    return {k: draw(_tightenings[k]) for k in keys}


@given(tightened())
def test_tightening_is_never_loosening(data: dict[str, Any]) -> None:
    assert loosened_fields(SafetyConfig.model_validate(data), BASE) == []


@given(tightened(), st.sampled_from(_loosenings))
def test_any_loosening_is_seen_whatever_tightens_beside_it(
    data: dict[str, Any], loosening: dict[str, Any]
) -> None:
    merged = {**data, **loosening}
    if "read_only" in merged and any(k.startswith("require_approval") for k in loosening):
        merged.pop("read_only")  # read-only makes the approval flags moot: not a loosening
    assert loosened_fields(SafetyConfig.model_validate(merged), BASE) != []
