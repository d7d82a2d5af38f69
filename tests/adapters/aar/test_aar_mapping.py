"""The Aar drop-in maps what Aar means: unconfined sandboxes, undeclared tools, honest dialogs.

- Aar's `wsl` sandbox (root in a distro that sees the host's drives) and `local` confine
  nothing: `sandbox.mode = "none"`.
- `SideEffect.NONE` is also Aar's default for undeclared tools, so it is kind `other`
  (asked in review mode), never a pure read.
- Through `from_aar_callback(make_aar_approval_callback(...))` the person reads safehold's
  reasons and what the "always" answer records, and the grant is then recorded; an Aar
  callback used without safehold's decision says the agent asks, not safehold.
ACP parts run over a real SDK connection.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any

import pytest

from safehold import Gate, SafetyConfig, SessionPolicies, ToolCall, ToolKind, Verdict, evaluate
from safehold.adapters.aar import (
    AAR_PERMISSION_OPTIONS,
    from_aar_callback,
    make_aar_approval_callback,
    safety_config_from_aar,
    tool_call_from_aar,
)
from tests.adapters.acp.conftest import PermissionClient, TestAgent, acp_pair, answer_with

pytestmark = pytest.mark.acp


class SideEffect(Enum):  # Aar's enum, with its lowercase values
    NONE = "none"
    READ = "read"
    WRITE = "write"
    EXECUTE = "execute"
    NETWORK = "network"
    EXTERNAL = "external"


class Spec:
    def __init__(self, name: str, side_effects: list[Any]) -> None:
        self.name, self.side_effects = name, side_effects


class Call:
    def __init__(self, tool_name: str, arguments: dict[str, Any]) -> None:
        self.tool_name, self.arguments, self.tool_call_id = tool_name, arguments, "tc-1"


@pytest.mark.parametrize(
    ("aar", "mode", "note"),
    [
        ("wsl", "none", "no confinement"),
        ("local", "none", "no isolation"),
        ("linux", "bwrap", "bubblewrap"),
        ("auto", "bwrap", "bubblewrap"),
        ("windows", "bwrap", "bubblewrap is required"),
    ],
)
def test_aar_sandboxes_map_to_what_they_confine(aar: str, mode: str, note: str) -> None:
    got = safety_config_from_aar({"sandbox": {"mode": aar}})
    assert got.config.sandbox.mode == mode
    [text] = [n for n in got.notes if n.startswith(f"sandbox.mode `{aar}`")]
    assert note in text


@pytest.mark.parametrize(
    ("effects", "kind"),
    [
        ([SideEffect.NONE], ToolKind.OTHER),
        ([], ToolKind.OTHER),
        (None, ToolKind.OTHER),
        ([SideEffect.EXTERNAL], ToolKind.OTHER),
        (["none"], ToolKind.OTHER),
        ([SideEffect.NONE, SideEffect.READ], ToolKind.READ),
        ([SideEffect.READ, SideEffect.EXECUTE], ToolKind.EXECUTE),
    ],
)
def test_side_effects_map_to_kinds(effects: list[Any] | None, kind: ToolKind) -> None:
    assert tool_call_from_aar(Spec("t", effects), Call("t", {})).kind is kind  # type: ignore[arg-type]


def test_an_undeclared_tool_asks_in_review_mode(tmp_path: Path) -> None:
    """`[NONE]` may be a pure tool or one nobody declared: it is never a silent read."""
    call = tool_call_from_aar(Spec("deploy", [SideEffect.NONE]), Call("deploy", {}))
    assert evaluate(SafetyConfig(), call, workspace=str(tmp_path)).verdict is Verdict.ASK
    pure = tool_call_from_aar(Spec("deploy", [SideEffect.READ]), Call("deploy", {}))
    assert evaluate(SafetyConfig(), pure, workspace=str(tmp_path)).verdict is Verdict.ALLOW


def texts(tool_call: Any) -> list[str]:
    return [c.content.text for c in tool_call.content if getattr(c, "type", "") == "content"]


async def test_the_shim_dialog_shows_safeholds_reasons_and_the_grant_it_records(
    tmp_path: Path,
) -> None:
    client = PermissionClient(answer_with("allow_always"))
    policies = SessionPolicies()
    policies.open("s1", str(tmp_path))
    gate = Gate(policies)
    call = ToolCall("bash", {"command": "make build"}, ToolKind.EXECUTE, tool_call_id="c1")
    async with acp_pair(TestAgent(), client) as pair:
        aar = make_aar_approval_callback(pair.agent_conn, "s1", timeout=5, workspace=str(tmp_path))
        first = await gate.check("s1", call, from_aar_callback(aar))
        again = await gate.check("s1", call, from_aar_callback(aar))
    assert first.verdict is Verdict.ALLOW and again.verdict is Verdict.ALLOW
    [(_sid, tool_call, options)] = client.requests  # the grant answered the second call
    assert [o.option_id for o in options] == list(AAR_PERMISSION_OPTIONS.ids.values())
    shown = texts(tool_call)
    assert any(t.startswith("safehold asks because: ") for t in shown)
    assert not any("agent" in t and "asks" in t for t in shown)
    assert "An \u201calways\u201d answer covers exactly this command, for this session." in shown
    assert not any("not remembered" in t for t in shown)


async def test_without_safeholds_decision_the_dialog_says_the_agent_asks() -> None:
    client = PermissionClient(answer_with("allow_once"))
    async with acp_pair(TestAgent(), client) as pair:
        aar = make_aar_approval_callback(pair.agent_conn, "s1", timeout=5)
        await aar(Spec("bash", [SideEffect.EXECUTE]), Call("bash", {"command": "make build"}))
    [(_sid, tool_call, _options)] = client.requests
    shown = texts(tool_call)
    assert "The agent asks because: the agent's own policy asks before this call" in shown
    assert "The agent decides what an \u201calways\u201d answer covers." in shown
    assert not any(t.startswith("safehold asks") or "not remembered" in t for t in shown)


async def test_a_two_argument_aar_callback_still_works(tmp_path: Path) -> None:
    seen: list[str] = []

    async def aar_callback(spec: Any, call: Any) -> str:
        seen.append(spec.name)
        return "approved"

    policies = SessionPolicies()
    policies.open("s1", str(tmp_path))
    call = ToolCall("bash", {"command": "make build"}, ToolKind.EXECUTE)
    decision = await Gate(policies).check("s1", call, from_aar_callback(aar_callback))
    assert decision.verdict is Verdict.ALLOW and seen == ["bash"]
