"""Properties of issue 13: a secret is found wherever it sits in a call, whatever the label."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.engine import evaluate
from safehold.policy.modes import Mode, flags_for_mode

AUTO = SafetyConfig().with_mode(Mode.AUTO)
NEUTRAL_KEYS = st.sampled_from(["a", "b", "opts", "value", "items", "meta", "payload", "x_y"])
SECRETS = st.sampled_from(
    ["~/.ssh/id_rsa", ".env", "/etc/shadow", " file:///etc/shadow", "./.aws/credentials"]
)
FILLER = st.one_of(st.integers(), st.booleans(), st.none(), st.sampled_from(["hi", "a b", ""]))


@st.composite
def hidden(draw: st.DrawFn) -> object:
    """A nested argument value (up to 6 levels) with one secret path somewhere inside."""
    value: object = draw(SECRETS)
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            items = draw(st.lists(FILLER, max_size=3))
            items.insert(draw(st.integers(0, len(items))), value)
            value = items
        else:
            value = {draw(NEUTRAL_KEYS): value, "other": draw(FILLER)}
    return value


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("args") / "ws"
    root.mkdir()
    (root / ".env").write_text("X=1\n")
    return str(root)


@given(value=hidden(), key=NEUTRAL_KEYS, kind=st.sampled_from(list(ToolKind)))
def test_a_secret_anywhere_in_the_arguments_is_denied(
    ws: str, value: object, key: str, kind: ToolKind
) -> None:
    decision = evaluate(AUTO, ToolCall("tool", {key: value}, kind), workspace=ws)
    assert decision.verdict is Verdict.DENY, decision


@given(
    value=hidden(),
    key=st.sampled_from(["command", "cmd", "script", "shell"]),
    kind=st.sampled_from(list(ToolKind)),
)
def test_a_command_reading_a_secret_is_denied_under_any_label(
    ws: str, value: object, key: str, kind: ToolKind
) -> None:
    call = ToolCall("tool", {key: "cat ~/.ssh/id_rsa", "extra": value}, kind)
    assert evaluate(AUTO, call, workspace=ws).verdict is Verdict.DENY


@given(
    mode=st.sampled_from(list(Mode)),
    flag=st.sampled_from(
        ["read_only", "require_approval_for_writes", "require_approval_for_execute"]
    ),
    value=st.booleans(),
)
def test_mode_in_config_data_agrees_with_the_flags_or_is_an_error(
    mode: Mode, flag: str, value: bool
) -> None:
    expected = flags_for_mode(mode)._asdict()[flag]
    if value == expected:
        assert SafetyConfig.model_validate({"mode": mode.value, flag: value}).mode is mode
    else:
        with pytest.raises(ValidationError, match="`mode`"):
            SafetyConfig.model_validate({"mode": mode.value, flag: value})
