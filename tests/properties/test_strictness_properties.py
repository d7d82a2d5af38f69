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


# -- against a user's config, not only the defaults (issue 30) ------------------------------
# A project file is compared with the user's config when there is one. The user's config is
# itself a tightening of the defaults; a project file that repeats it and tightens further is
# not looser, and one that leaves out any of the user's tightenings (a missing `[network]`
# section drops the user's `allowed_domains`) is.

_domains = st.lists(_names.map(lambda n: f"{n}.example"), min_size=1, max_size=3, unique=True)
_user_tightenings: dict[str, st.SearchStrategy[Any]] = {
    **_tightenings,
    "denied_paths": st.lists(_names.map(lambda n: f"**/{n}.secret"), min_size=1, max_size=3),
    "protected_paths": st.lists(_names.map(lambda n: f"{n}/**"), min_size=1, max_size=3),
    "command_rules": st.lists(
        st.builds(
            lambda n, d: {"pattern": f"tool-{n}", "decision": d},
            _names,
            st.sampled_from(["deny", "ask"]),
        ),
        min_size=1,
        max_size=3,
    ),
    "network": st.fixed_dictionaries(
        {},
        optional={
            "allowed_domains": _domains,
            "denied_domains": _domains,
            "private_addresses": st.just("deny"),
        },
    ).filter(bool),
}


@st.composite
def user_configs(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(sorted(_user_tightenings)), unique=True, min_size=1))
    return {k: draw(_user_tightenings[k]) for k in keys}


def _tighten_further(draw: st.DrawFn, user: dict[str, Any]) -> dict[str, Any]:
    out = dict(user)
    for key, value in draw(tightened()).items():
        if isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = [*out[key], *value]
        elif key == "acp_approval_timeout" and key in out:
            out[key] = min(out[key], value)
        else:
            out[key] = value
    network = dict(out.get("network", {}))
    if draw(st.booleans()):
        network["private_addresses"] = "deny"
    if network.get("allowed_domains"):  # narrowing keeps a non-empty part of the user's list
        allowed = network["allowed_domains"]
        network["allowed_domains"] = allowed[: draw(st.integers(1, len(allowed)))]
    if network:
        out["network"] = network
    return out


@given(user_configs(), st.data())
def test_repeating_the_users_config_and_tightening_is_never_loosening(
    user: dict[str, Any], data: st.DataObject
) -> None:
    project = data.draw(_further(user))
    base = SafetyConfig.model_validate(user)
    assert loosened_fields(SafetyConfig.model_validate(project), base) == []


def _further(user: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.composite(lambda draw: _tighten_further(draw, user))()


@given(user_configs(), st.data())
def test_leaving_out_any_of_the_users_tightenings_is_seen(
    user: dict[str, Any], data: st.DataObject
) -> None:
    base = SafetyConfig.model_validate(user)
    dropped = data.draw(st.sampled_from(sorted(user)))
    project = {k: v for k, v in user.items() if k != dropped}
    if dropped == "network" and data.draw(st.booleans()):
        project["network"] = {}  # an empty `[network]` table says no more than a missing one
    assert loosened_fields(SafetyConfig.model_validate(project), base) != [], dropped
