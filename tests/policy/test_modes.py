"""The two tables of SPEC §2.1, row by row."""

from __future__ import annotations

import pytest

from safehold import Mode, SafetyConfig

# (read_only, approve writes, approve execute) -> (mode, auto_approve_writes, auto_approve_execute, read_only)
DERIVATION = [
    ((True, True, True), ("read-only", False, False, True)),
    ((True, False, False), ("read-only", False, False, True)),
    ((True, True, False), ("read-only", False, False, True)),
    ((True, False, True), ("read-only", False, False, True)),
    ((False, True, True), ("review", False, False, False)),
    ((False, False, False), ("auto", True, True, False)),
    ((False, True, False), ("review", False, True, False)),
    ((False, False, True), ("review", True, False, False)),
]


@pytest.mark.parametrize(("flags", "expected"), DERIVATION)
def test_derived_mode_and_option_values_follow_the_table(
    flags: tuple[bool, bool, bool], expected: tuple[str, bool, bool, bool]
) -> None:
    ro, w, x = flags
    config = SafetyConfig(
        read_only=ro, require_approval_for_writes=w, require_approval_for_execute=x
    )
    mode, aw, ax, ro_opt = expected
    assert config.mode == Mode(mode)
    assert config.option_values() == {
        "auto_approve_writes": aw,
        "auto_approve_execute": ax,
        "read_only": ro_opt,
    }


@pytest.mark.parametrize(
    ("mode", "flags"),
    [
        ("auto", (False, False, False)),
        ("review", (True, True, False)),
        ("read-only", (True, True, True)),
    ],
)
def test_with_mode_sets_all_three_flags_atomically(
    mode: str, flags: tuple[bool, bool, bool]
) -> None:
    w, x, ro = flags
    for start in (SafetyConfig(), SafetyConfig(read_only=True), SafetyConfig().with_mode("auto")):
        after = start.with_mode(mode)
        assert (
            after.require_approval_for_writes,
            after.require_approval_for_execute,
            after.read_only,
        ) == (w, x, ro)
        assert after.mode == Mode(mode)


@pytest.mark.parametrize(
    ("name", "value", "field", "expected"),
    [
        ("auto_approve_writes", True, "require_approval_for_writes", False),
        ("auto_approve_writes", False, "require_approval_for_writes", True),
        ("auto_approve_execute", True, "require_approval_for_execute", False),
        ("auto_approve_execute", False, "require_approval_for_execute", True),
        ("read_only", True, "read_only", True),
        ("read_only", False, "read_only", False),
    ],
)
def test_with_option_changes_its_one_flag(
    name: str, value: bool, field: str, expected: bool
) -> None:
    before = SafetyConfig().with_mode("auto") if not value else SafetyConfig()
    after = before.with_option(name, value)
    assert getattr(after, field) is expected
    others = {"require_approval_for_writes", "require_approval_for_execute", "read_only"} - {field}
    for other in others:
        assert getattr(after, other) == getattr(before, other)


def test_auto_then_read_only_option_is_a_hybrid_reported_as_read_only() -> None:
    # The seed: set_mode("auto") then set_config_option("read_only", true) -> read-only wins.
    config = SafetyConfig().with_mode("auto").with_option("read_only", True)
    assert config.mode is Mode.READ_ONLY
    assert not config.require_approval_for_writes
    assert config.option_values()["auto_approve_writes"] is False


@pytest.mark.parametrize("name", ["read-only", "auto_approve", "mode", "", "READ_ONLY"])
def test_unknown_option_names_raise_value_error(name: str) -> None:
    with pytest.raises(ValueError, match="unknown option"):
        SafetyConfig().with_option(name, True)


@pytest.mark.parametrize("value", [1, 0, "true", None, "yes", 1.0])
def test_non_bool_option_values_raise_value_error(value: object) -> None:
    with pytest.raises(ValueError, match="takes true or false"):
        SafetyConfig().with_option("read_only", value)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["yolo", "Auto", "readonly", ""])
def test_unknown_modes_raise_value_error(mode: str) -> None:
    with pytest.raises(ValueError, match="unknown mode"):
        SafetyConfig().with_mode(mode)


def test_mode_values_are_the_wire_ids() -> None:
    assert [m.value for m in Mode] == ["auto", "review", "read-only"]
