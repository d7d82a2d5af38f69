"""The public API: `__all__` is sorted, complete, and holds every SPEC §9 name."""

from __future__ import annotations

import importlib

import pytest

import safehold

SPEC_CORE = [
    "SafetyConfig",
    "SandboxConfig",
    "Mode",
    "CommandRule",
    "ToolCall",
    "ToolKind",
    "Decision",
    "Verdict",
    "evaluate",
    "SessionPolicies",
    "PolicyError",
    "ApprovalCallback",
    "ApprovalRequest",
    "ApprovalOutcome",
    "validate_timeout",
    "gate",
    "Gate",
]
SPEC_ADAPTERS = {
    "safehold.adapters.acp": ["make_acp_approval_callback", "AcpPolicyBridge"],
    "safehold.adapters.bwrap": [
        "run_sandboxed",
        "run_sandboxed_sync",
        "CommandResult",
        "SandboxUnavailable",
    ],
}


def test_all_is_sorted_and_unique() -> None:
    assert list(safehold.__all__) == sorted(set(safehold.__all__))


def test_all_names_exist() -> None:
    for name in safehold.__all__:
        assert hasattr(safehold, name), name


@pytest.mark.parametrize("name", SPEC_CORE)
def test_spec_core_names_are_exported(name: str) -> None:
    assert name in safehold.__all__


@pytest.mark.parametrize(
    "module", ["safehold", "safehold.policy.config", "safehold.policy.sessions", "safehold.errors"]
)
def test_public_classes_have_docstrings(module: str) -> None:
    mod = importlib.import_module(module)
    for name in getattr(mod, "__all__", []):
        obj = getattr(mod, name)
        if isinstance(obj, type) or callable(obj):
            assert (obj.__doc__ or "").strip(), f"{module}.{name} has no docstring"


@pytest.mark.parametrize(
    ("module", "name"), [(m, n) for m, names in SPEC_ADAPTERS.items() for n in names]
)
def test_spec_adapter_names_are_exported(module: str, name: str) -> None:
    mod = importlib.import_module(module)
    assert name in mod.__all__
    assert getattr(mod, name) is not None
