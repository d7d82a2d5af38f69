"""The Aar drop-in: callback form, option ids, builders, config sections, text rules.

ACP parts run over a real SDK connection (socketpair), with a client that answers the
way Aar's clients do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from safehold import (
    CommandRule,
    ConfigError,
    Gate,
    SafetyConfig,
    SessionPolicies,
    ToolCall,
    ToolKind,
    Verdict,
    evaluate,
)
from safehold.adapters.aar import (
    AAR_PERMISSION_OPTIONS,
    ApprovalResult,
    from_aar_callback,
    make_aar_approval_callback,
    safety_config_from_aar,
    tool_call_from_aar,
)
from safehold.adapters.acp import (
    AcpPolicyBridge,
    AgentOption,
    PermissionOptions,
    build_config_options,
    build_mode_state,
    make_acp_approval_callback,
)
from safehold.policy.approval import ApprovalOutcome, ApprovalRequest
from safehold.policy.decision import Decision, Reason
from tests.adapters.acp.bridge_harness import BridgeAgent, RecordingClient, connected
from tests.adapters.acp.conftest import PermissionClient, TestAgent, acp_pair, answer_with

pytestmark = pytest.mark.acp


class SideEffect(Enum):  # Aar's enum shape: members with lowercase values
    READ = "read"
    WRITE = "write"
    EXECUTE = "execute"


@dataclass
class Spec:
    name: str
    side_effects: list[SideEffect] = field(default_factory=lambda: [SideEffect.EXECUTE])


@dataclass
class Call:
    tool_name: str
    arguments: dict[str, Any]
    tool_call_id: str = "tc-1"


BASH = Spec("bash")
RM = Call("bash", {"command": "rm -rf ./build"})


# -- the three-valued callback over ACP ------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "result"),
    [
        ("allow_once", ApprovalResult.APPROVED),
        ("allow_always", ApprovalResult.APPROVED_ALWAYS),
        ("deny", ApprovalResult.DENIED),
        ("reject_once", ApprovalResult.DENIED),  # an alias of `deny`
        ("allow-once", ApprovalResult.DENIED),  # never offered under Aar's ids
        ("sudo", ApprovalResult.DENIED),
    ],
)
async def test_aar_callback_answers_in_three_values(answer: str, result: ApprovalResult) -> None:
    client = PermissionClient(answer_with(answer))
    async with acp_pair(TestAgent(), client) as pair:
        callback = make_aar_approval_callback(pair.agent_conn, "s1", timeout=5, workspace="/ws")
        got = await callback(BASH, RM)  # no decision: the request says the agent asks
    assert got is result
    [(_sid, tool_call, options)] = client.requests
    assert [o.option_id for o in options] == ["allow_once", "allow_always", "deny", "reject_always"]
    assert tool_call.kind == "execute" and tool_call.title == "rm -rf ./build"
    assert [loc.path for loc in tool_call.locations] == ["/ws/build"]


async def test_aar_callback_takes_a_decision_when_there_is_one() -> None:
    client = PermissionClient(answer_with("allow_once"))
    why = Decision(Verdict.ASK, (Reason("protected-path", "x", "writes .git"),))
    async with acp_pair(TestAgent(), client) as pair:
        callback = make_aar_approval_callback(pair.agent_conn, "s1", timeout=5)
        assert await callback(BASH, RM, why) is ApprovalResult.APPROVED
    [(_sid, tool_call, _options)] = client.requests
    texts = [c.content.text for c in tool_call.content if getattr(c, "type", "") == "content"]
    assert any("writes .git" in t for t in texts)


def test_aar_callback_validates_the_timeout_when_wired() -> None:
    with pytest.raises(ValueError, match="timeout"):
        make_aar_approval_callback(None, "s1", timeout=-1)


async def test_underscore_aliases_for_the_default_ids() -> None:
    options = PermissionOptions(aliases={"allow_once": "allow-once"})
    async with acp_pair(TestAgent(), PermissionClient(answer_with("allow_once"))) as pair:
        ask = make_acp_approval_callback(pair.agent_conn, "s1", timeout=5, options=options)
        request = ApprovalRequest("s1", tool_call_from_aar(BASH, RM), _ask())
        assert await ask(request) is ApprovalOutcome.ALLOW_ONCE
    async with acp_pair(TestAgent(), PermissionClient(answer_with("allow_always"))) as pair:
        ask = make_acp_approval_callback(pair.agent_conn, "s1", timeout=5, options=options)
        assert await ask(request) is ApprovalOutcome.FAILED  # no alias for that one


@pytest.mark.parametrize(
    "kwargs",
    [
        {"ids": {ApprovalOutcome.ALLOW_ONCE: "a"}},
        {"aliases": {"x": "not-offered"}},
        {"aliases": {"allow-always": "allow-once"}},
        {
            "ids": {
                ApprovalOutcome.ALLOW_ONCE: "same",
                ApprovalOutcome.ALLOW_ALWAYS: "same",
                ApprovalOutcome.REJECT_ONCE: "r",
                ApprovalOutcome.REJECT_ALWAYS: "ra",
            }
        },
    ],
)
def test_bad_option_ids_are_wiring_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="PermissionOptions"):
        PermissionOptions(**kwargs)


@given(st.text(max_size=20))
def test_only_offered_ids_and_aliases_count(option_id: str) -> None:
    accepted = {*AAR_PERMISSION_OPTIONS.ids.values(), *AAR_PERMISSION_OPTIONS.aliases}
    outcome = AAR_PERMISSION_OPTIONS.outcome_of(option_id)
    assert (outcome is not None) == (option_id in accepted)


async def test_an_existing_aar_callback_drives_the_gate(tmp_path: Any) -> None:
    seen: list[tuple[str, tuple[str, ...], dict[str, Any]]] = []

    async def aar_callback(spec: Any, call: Any) -> str:
        seen.append((spec.name, spec.side_effects, dict(call.arguments)))
        return "approved_always"

    policies = SessionPolicies()
    policies.open("s", str(tmp_path))
    gate = Gate(policies)
    call = ToolCall("bash", {"command": "make build"}, ToolKind.EXECUTE)
    first = await gate.check("s", call, from_aar_callback(aar_callback))
    again = await gate.check("s", call, from_aar_callback(aar_callback))
    other = ToolCall("bash", {"command": "make deploy"}, ToolKind.EXECUTE)

    async def refuse(spec: Any, call: Any) -> str:
        return "nope"  # not one of the three values: refused

    third = await gate.check("s", other, from_aar_callback(refuse))
    assert first.verdict is Verdict.ALLOW and again.verdict is Verdict.ALLOW
    assert seen == [("bash", ("execute",), {"command": "make build"})]  # the grant answered
    assert third.verdict is Verdict.DENY


# -- stateless builders ------------------------------------------------------------------------


MODEL = AgentOption("model", "Model", "small", ("small", "large"))


def test_builders_hide_toggles_and_put_agent_options_first() -> None:
    config = SafetyConfig()
    full = [o.id for o in build_config_options(config)]
    assert full == ["mode", "auto_approve_writes", "auto_approve_execute", "read_only"]
    hidden = build_config_options(config, toggles=(), extras=[MODEL], agent_options_first=True)
    assert [o.id for o in hidden] == ["model", "mode"]
    some = build_config_options(config, toggles=["read_only"])
    assert [o.id for o in some] == ["mode", "read_only"]
    assert build_mode_state(config.with_mode("auto")).current_mode_id == "auto"
    with pytest.raises(ValueError, match="unknown toggle"):
        build_config_options(config, toggles=["yolo"])


async def test_a_bridge_with_hidden_toggles_refuses_them(tmp_path: Any) -> None:
    from acp import RequestError

    bridge = AcpPolicyBridge(
        SessionPolicies(), options=[MODEL], toggles=(), agent_options_first=True
    )
    async with connected(BridgeAgent(bridge), RecordingClient()) as conn:
        resp = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        assert [o.id for o in resp.config_options] == ["model", "mode"]
        with pytest.raises(RequestError):
            await conn.set_config_option(
                session_id=resp.session_id, config_id="read_only", value="true"
            )
        await conn.set_config_option(
            session_id=resp.session_id, config_id="mode", value="read-only"
        )
    assert bridge.policies.config(resp.session_id).read_only is True


# -- config sections ---------------------------------------------------------------------------


AAR_SECTION = {
    "read_only": False,
    "require_approval_for_writes": True,
    "require_approval_for_execute": False,
    "denied_paths": ["**/.env", "/etc/sudoers.d/**", "**/.ssh/**", "<cwd>/secrets/**"],
    "allowed_paths": ["<cwd>/**"],
    "sandbox": {"mode": "linux", "linux": {"max_memory_mb": 512}},
    "log_all_commands": True,
    "acp_approval_timeout": 30.0,
    "denied_path": ["typo"],
    "theme": "dark",
}


def test_an_aar_section_becomes_a_safety_config() -> None:
    got = safety_config_from_aar(AAR_SECTION)
    c = got.config
    assert (c.read_only, c.require_approval_for_writes, c.require_approval_for_execute) == (
        False,
        True,
        False,
    )
    assert {".env", "/etc/sudoers.d/", ".ssh/", "{workspace}/secrets/"} <= set(c.denied_paths)
    assert c.allowed_paths == ("{workspace}",)
    assert c.sandbox.mode == "bwrap"
    assert c.acp_approval_timeout == 30.0
    assert c.audit.logger == "safehold.audit"
    assert got.unknown == ("denied_path", "theme")  # reported, not dropped
    assert any("linux" in n for n in got.notes)
    # And the translated patterns mean what Aar's meant.
    for path, verdict in [("/ws/app/.env", Verdict.DENY), ("/ws/secrets/k", Verdict.DENY)]:
        call = ToolCall("read_file", {"path": path}, ToolKind.READ)
        assert evaluate(c, call, workspace="/ws").verdict is verdict


@pytest.mark.parametrize(
    ("section", "words"),
    [
        ({"sandbox": "bogus"}, "unknown sandbox mode"),
        ({"acp_approval_timeout": -5}, "acp_approval_timeout"),
        ({"read_only": "yes please"}, "read_only"),
        ({"denied_paths": ["<home>/x"]}, "unknown placeholder"),
    ],
)
def test_bad_aar_values_are_config_errors(section: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        safety_config_from_aar(section)


def test_aar_local_sandbox_is_no_sandbox() -> None:
    got = safety_config_from_aar({"sandbox": "local"})
    assert got.config.sandbox.mode == "none"
    assert any("no isolation" in n for n in got.notes)


@pytest.mark.parametrize("pattern", ["<cwd>/**", "{home}/.ssh", "src/<dir>/x"])
def test_unknown_placeholders_are_config_errors(pattern: str) -> None:
    with pytest.raises(ValueError, match="unknown placeholder"):
        SafetyConfig(allowed_paths=(pattern,))


# -- substring and regex rules -----------------------------------------------------------------


def _verdict(rules: list[dict[str, Any]], command: str) -> Verdict:
    config = SafetyConfig(
        require_approval_for_execute=False,
        require_approval_for_writes=False,
        command_rules=rules,
    )
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    # The rules are the point here, not the closed world (`terraform` has no table, so on
    # the host it asks whatever the rules say): decide as for the sandbox.
    return evaluate(config, call, workspace="/tmp", runner="sandbox").verdict


@pytest.mark.parametrize(
    ("rule", "command", "verdict"),
    [
        (
            {"pattern": "terraform destroy", "match": "substring"},
            "make && terraform destroy",
            Verdict.DENY,
        ),
        ({"pattern": "terraform destroy", "match": "substring"}, "terraform plan", Verdict.ALLOW),
        ({"pattern": r"kubectl\s+delete", "match": "regex"}, "kubectl   delete ns x", Verdict.DENY),
        (
            {"pattern": r"kubectl\s+delete", "match": "regex"},
            'sh -c "kubectl delete ns x"',
            Verdict.DENY,
        ),
        (
            {"pattern": r"^git push", "match": "regex", "decision": "ask"},
            "git push -f",
            Verdict.ASK,
        ),
    ],
)
def test_text_rules_deny_and_ask(rule: dict[str, Any], command: str, verdict: Verdict) -> None:
    assert _verdict([{"decision": "deny", **rule}], command) is verdict


@pytest.mark.parametrize("match", ["substring", "regex"])
def test_text_rules_never_allow(match: str) -> None:
    with pytest.raises(ValueError, match="cannot allow"):
        CommandRule(pattern="git status", decision="allow", match=match)


@pytest.mark.parametrize("pattern", ["(a", "(?=lookahead)", r"(a)\1"])
def test_regexes_re2_cannot_run_are_refused_at_load(pattern: str) -> None:
    with pytest.raises(ValueError, match="not a valid RE2"):
        CommandRule(pattern=pattern, decision="deny", match="regex")


def test_a_catastrophic_regex_for_backtracking_engines_runs_on_long_input() -> None:
    # `(a+)+$` takes exponential time in a backtracking engine on "aaa…ab"; RE2 is linear.
    rule = {"pattern": "(a+)+$", "decision": "deny", "match": "regex"}
    assert _verdict([rule], "echo " + "a" * 3_000 + "b") is Verdict.ALLOW
    assert _verdict([rule], "echo " + "a" * 3_000) is Verdict.DENY


def test_text_patterns_keep_their_spacing_and_token_patterns_do_not() -> None:
    assert CommandRule(pattern="a  b", decision="deny", match="substring").pattern == "a  b"
    assert CommandRule(pattern="a  b", decision="deny").pattern == "a b"


def _ask() -> Decision:
    return Decision(Verdict.ASK, (Reason("x", "y", "z"),))


# -- opt-in broad grants -----------------------------------------------------------------------


async def _asks_after_always(scope: str, first: str, later: str, tmp_path: Any) -> bool:
    """Answer "always allow" to `first`, then report whether `later` asks again."""
    config = SafetyConfig(grant_scope=scope)  # type: ignore[arg-type]
    policies = SessionPolicies(config)
    policies.open("s", str(tmp_path))
    gate = Gate(policies)
    asked: list[str] = []

    async def always(spec: Any, call: Any) -> str:
        asked.append(call.arguments["command"])
        return "approved_always"

    def bash(command: str) -> ToolCall:
        return ToolCall("bash", {"command": command}, ToolKind.EXECUTE)

    assert (await gate.check("s", bash(first), from_aar_callback(always))).allowed
    decision = await gate.check("s", bash(later), from_aar_callback(always))
    return len(asked) == 2 or not decision.allowed


@pytest.mark.parametrize(
    ("scope", "later", "asks"),
    [
        ("exact", "git status", False),
        ("exact", "git status --short", True),
        ("command-prefix", "git status --short", False),
        ("command-prefix", "git push", True),
        ("command-prefix", "git status && curl x", True),
        ("tool", "make build", False),
        ("tool", "python -c 'import os'", True),  # opaque code: no key, always asks
        ("tool", "cat ~/.ssh/id_rsa", True),  # a denied path: never lifted
    ],
)
async def test_grant_scopes(scope: str, later: str, asks: bool, tmp_path: Any) -> None:
    assert await _asks_after_always(scope, "git status", later, tmp_path) is asks


def test_broad_grants_are_off_by_default_and_validated() -> None:
    assert SafetyConfig().grant_scope == "exact"
    with pytest.raises(ValueError, match="grant_scope"):
        SafetyConfig(grant_scope="everything")  # type: ignore[arg-type]


def test_the_dialog_says_what_a_broad_always_covers() -> None:
    from safehold.adapters.acp.permission import always_scope
    from safehold.policy.grants import broaden, command_grant_key

    exact = command_grant_key([["git", "status", "--short"]])
    prefix = broaden(exact, "command-prefix", "bash")
    assert "starting with `git status`" in always_scope(prefix)
    assert "every `bash` call" in always_scope(broaden(exact, "tool", "bash"))
