"""Properties of modes and options (SPEC §2.1), named like theorems."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from safehold import Mode, SafetyConfig
from safehold.policy.modes import OPTION_NAMES, Flags, derive_mode

flags = st.builds(Flags, st.booleans(), st.booleans(), st.booleans())
modes = st.sampled_from(list(Mode))
options = st.tuples(st.sampled_from(OPTION_NAMES), st.booleans())
changes = st.lists(st.one_of(modes, options), max_size=12)

SAFETY_FIELDS = {"read_only", "require_approval_for_writes", "require_approval_for_execute"}


def _config(f: Flags) -> SafetyConfig:
    return SafetyConfig(
        read_only=f.read_only,
        require_approval_for_writes=f.require_approval_for_writes,
        require_approval_for_execute=f.require_approval_for_execute,
    )


def _apply(config: SafetyConfig, change: Mode | tuple[str, bool]) -> SafetyConfig:
    if isinstance(change, Mode):
        return config.with_mode(change)
    return config.with_option(*change)


@given(flags)
def test_read_only_wins_the_derivation(f: Flags) -> None:
    config = _config(f)
    assert (config.mode is Mode.READ_ONLY) == f.read_only


@given(flags)
def test_derived_mode_is_a_total_function_of_the_three_flags(f: Flags) -> None:
    config = _config(f)
    assert config.mode in set(Mode)
    assert config.mode == derive_mode(f) == _config(f).mode


@given(flags, modes)
def test_with_mode_reaches_the_mode(f: Flags, mode: Mode) -> None:
    assert _config(f).with_mode(mode).mode is mode


@given(flags, modes, modes)
def test_with_mode_is_idempotent_and_last_writer_wins(f: Flags, first: Mode, second: Mode) -> None:
    config = _config(f)
    assert config.with_mode(first).with_mode(first) == config.with_mode(first)
    assert config.with_mode(first).with_mode(second) == config.with_mode(second)


@given(flags, options)
def test_with_option_changes_exactly_one_flag(f: Flags, option: tuple[str, bool]) -> None:
    before = _config(f)
    after = before.with_option(*option)
    field = {
        "auto_approve_writes": "require_approval_for_writes",
        "auto_approve_execute": "require_approval_for_execute",
        "read_only": "read_only",
    }[option[0]]
    expected = (not option[1]) if field.startswith("require") else option[1]
    assert getattr(after, field) is expected
    for name in SafetyConfig.model_fields:
        if name != field:
            assert getattr(after, name) == getattr(before, name), name


@given(changes)
def test_mode_and_option_changes_never_touch_other_fields(
    seq: list[Mode | tuple[str, bool]],
) -> None:
    start = SafetyConfig(
        denied_paths=["private/"],
        allowed_paths=["{workspace}", "/opt/shared"],
        acp_approval_timeout=12.5,
        sandbox={"network": True, "profile": "read-only"},
    )
    config = start
    for change in seq:
        config = _apply(config, change)
    for name in set(SafetyConfig.model_fields) - SAFETY_FIELDS:
        assert getattr(config, name) == getattr(start, name), name


@given(flags)
def test_option_values_agree_with_the_derived_mode(f: Flags) -> None:
    config = _config(f)
    values = config.option_values()
    assert values["read_only"] is f.read_only
    if config.mode is Mode.AUTO:
        assert values["auto_approve_writes"] and values["auto_approve_execute"]
    if config.mode is Mode.READ_ONLY:
        assert not values["auto_approve_writes"] and not values["auto_approve_execute"]
