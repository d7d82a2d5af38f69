"""`AcpPolicyBridge` modes and config options, driven over a real in-process ACP connection."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp import RequestError

from safehold.adapters.acp.bridge import AcpPolicyBridge, AgentOption
from safehold.policy.config import SafetyConfig
from safehold.policy.grants import GrantEffect
from safehold.policy.modes import Mode
from safehold.policy.sessions import SessionPolicies
from tests.adapters.acp.bridge_harness import (
    HAS_BOOLEAN_CAPABILITY,
    BridgeAgent,
    RecordingClient,
    boolean_capabilities,
    connected,
    current_values,
    eventually,
    options_by_id,
)

pytestmark = pytest.mark.acp

needs_boolean = pytest.mark.skipif(
    not HAS_BOOLEAN_CAPABILITY, reason="this ACP SDK has no boolean config-option capability"
)

REVIEW_VALUES = {
    "mode": "review",
    "auto_approve_writes": "false",
    "auto_approve_execute": "false",
    "read_only": "false",
}


def make(
    base: SafetyConfig | None = None, *, floor: Mode | None = None, **kwargs: Any
) -> tuple[SessionPolicies, AcpPolicyBridge, BridgeAgent, RecordingClient]:
    policies = SessionPolicies(base, floor=floor)
    bridge = AcpPolicyBridge(policies, **kwargs)
    return policies, bridge, BridgeAgent(bridge), RecordingClient()


async def test_new_session_reports_modes_and_select_toggles_without_boolean_capability(
    tmp_path: Any,
) -> None:
    _, bridge, agent, client = make()
    async with connected(agent, client) as conn:
        resp = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
    assert resp.modes.current_mode_id == "review"
    assert [m.id for m in resp.modes.available_modes] == ["auto", "review", "read-only"]
    assert [o.id for o in resp.config_options] == [
        "mode",
        "auto_approve_writes",
        "auto_approve_execute",
        "read_only",
    ]
    assert {o.type for o in resp.config_options} == {"select"}
    assert current_values(resp.config_options) == REVIEW_VALUES
    toggle = options_by_id(resp.config_options)["read_only"]
    assert [c.value for c in toggle.options] == ["true", "false"]
    assert not bridge.boolean_options


@needs_boolean
async def test_toggles_are_boolean_options_when_the_client_advertises_them(tmp_path: Any) -> None:
    _, bridge, agent, client = make()
    async with connected(agent, client, capabilities=boolean_capabilities()) as conn:
        resp = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
    by_id = options_by_id(resp.config_options)
    assert by_id["mode"].type == "select"
    for name in ("auto_approve_writes", "auto_approve_execute", "read_only"):
        assert by_id[name].type == "boolean"
        assert by_id[name].current_value is False
    assert bridge.boolean_options


@pytest.mark.parametrize(
    ("base", "mode", "values"),
    [
        # SPEC 2.1: the derived mode and the option values for each flag combination.
        (dict(read_only=True), "read-only", ("false", "false", "true")),
        (dict(read_only=True, require_approval_for_writes=False), "read-only", ("false", "false", "true")),
        (dict(), "review", ("false", "false", "false")),
        (dict(require_approval_for_writes=False, require_approval_for_execute=False), "auto", ("true", "true", "false")),
        (dict(require_approval_for_execute=False), "review", ("false", "true", "false")),
        (dict(require_approval_for_writes=False), "review", ("true", "false", "false")),
    ],
)  # fmt: skip
async def test_new_session_derives_mode_and_options_from_the_base_config(
    tmp_path: Any, base: dict[str, bool], mode: str, values: tuple[str, str, str]
) -> None:
    _, _, agent, client = make(SafetyConfig(**base))
    async with connected(agent, client) as conn:
        resp = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
    assert resp.modes.current_mode_id == mode
    assert current_values(resp.config_options) == {
        "mode": mode,
        "auto_approve_writes": values[0],
        "auto_approve_execute": values[1],
        "read_only": values[2],
    }


@pytest.mark.parametrize(
    ("mode", "flags"),
    [
        ("auto", (False, False, False)),
        ("review", (False, True, True)),
        ("read-only", (True, True, True)),
    ],
)
async def test_set_mode_sets_all_three_flags_and_notifies_both_panels(
    tmp_path: Any, mode: str, flags: tuple[bool, bool, bool]
) -> None:
    # Start from a hybrid so every mode really changes something.
    policies, _, agent, client = make(SafetyConfig(require_approval_for_writes=False))
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id=mode)
        assert tuple(policies.config(sid).flags) == flags
        await eventually(lambda: len(client.of_kind("config_option_update")) == 1, "option update")
    [mode_update] = client.of_kind("current_mode_update")
    assert mode_update.current_mode_id == mode
    [opts] = client.of_kind("config_option_update")
    assert current_values(opts.config_options)["mode"] == mode
    assert current_values(opts.config_options)["read_only"] == str(mode == "read-only").lower()


async def test_set_option_changes_one_flag_and_returns_the_complete_list(tmp_path: Any) -> None:
    policies, _, agent, client = make()
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        resp = await conn.set_config_option(
            session_id=sid, config_id="auto_approve_execute", value="true"
        )
        await eventually(lambda: client.of_kind("config_option_update"), "option update")
    assert current_values(resp.config_options) == {
        "mode": "review",  # a hybrid reports review
        "auto_approve_writes": "false",
        "auto_approve_execute": "true",
        "read_only": "false",
    }
    flags = policies.config(sid).flags
    assert (flags.read_only, flags.require_approval_for_writes) == (False, True)
    assert flags.require_approval_for_execute is False
    # The mode did not change, so no mode notification; the options panel heard the change.
    assert client.of_kind("current_mode_update") == []
    [update] = client.of_kind("config_option_update")
    assert current_values(update.config_options) == current_values(resp.config_options)


async def test_read_only_option_wins_and_moves_the_mode(tmp_path: Any) -> None:
    policies, _, agent, client = make()
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        resp = await conn.set_config_option(session_id=sid, config_id="read_only", value="true")
        await eventually(lambda: len(client.of_kind("current_mode_update")) == 2, "mode updates")
    assert current_values(resp.config_options) == {
        "mode": "read-only",
        "auto_approve_writes": "false",  # with read_only on, the auto options read false
        "auto_approve_execute": "false",
        "read_only": "true",
    }
    assert [u.current_mode_id for u in client.of_kind("current_mode_update")] == [
        "auto",
        "read-only",
    ]
    # Only the one flag changed: the approval flags keep auto's values underneath.
    assert tuple(policies.config(sid).flags) == (True, False, False)


async def test_mode_option_is_the_same_as_set_mode(tmp_path: Any) -> None:
    policies, _, agent, client = make()
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        resp = await conn.set_config_option(session_id=sid, config_id="mode", value="auto")
        await eventually(lambda: client.of_kind("current_mode_update"), "mode update")
    assert current_values(resp.config_options)["auto_approve_writes"] == "true"
    assert tuple(policies.config(sid).flags) == (False, False, False)
    assert client.of_kind("current_mode_update")[0].current_mode_id == "auto"


@needs_boolean
async def test_boolean_toggles_take_booleans_and_refuse_strings(tmp_path: Any) -> None:
    policies, _, agent, client = make()
    async with connected(agent, client, capabilities=boolean_capabilities()) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        resp = await conn.set_config_option(session_id=sid, config_id="read_only", value=True)
        assert options_by_id(resp.config_options)["read_only"].current_value is True
        with pytest.raises(RequestError) as err:
            await conn.set_config_option(session_id=sid, config_id="read_only", value="false")
    assert err.value.code == -32602
    assert "read_only" in str(err.value)
    assert policies.config(sid).read_only is True


async def _refused(conn: Any, call: Any, code: int = -32602) -> RequestError:
    with pytest.raises(RequestError) as err:
        await call
    assert err.value.code == code
    return err.value


@pytest.mark.parametrize(
    ("kind", "target", "value", "words"),
    [
        ("mode", None, "yolo", "unknown mode `yolo`"),
        ("mode", None, "", "unknown mode ``"),
        ("option", "mode", "yolo", "unknown mode `yolo`"),
        ("option", "mode", True, "mode must be a string"),
        ("option", "auto_approve_everything", "true", "unknown config option `auto_approve_everything`"),
        ("option", "read_only", "yes", "option `read_only` takes"),
        ("option", "read_only", "True", "option `read_only` takes"),
        ("option", "auto_approve_writes", "1", "option `auto_approve_writes` takes"),
    ],
)  # fmt: skip
async def test_bad_mode_option_or_value_is_invalid_params_and_changes_nothing(
    tmp_path: Any, kind: str, target: str | None, value: Any, words: str
) -> None:
    policies, _, agent, client = make()
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        before = policies.config(sid)
        if kind == "mode":
            call = conn.set_session_mode(session_id=sid, mode_id=value)
        else:
            call = conn.set_config_option(session_id=sid, config_id=target, value=value)
        err = await _refused(conn, call)
        # A later good request proves the connection survived; then settle notifications.
        await conn.set_config_option(session_id=sid, config_id="mode", value="review")
        await eventually(lambda: client.of_kind("config_option_update"), "update")
    assert words in str(err)
    assert err.data["message"] in str(err)
    assert policies.config(sid) == before
    assert len(client.of_kind("config_option_update")) == 1  # only the good request's


@pytest.mark.parametrize("method", ["mode", "option", "close"])
async def test_unknown_or_closed_session_is_invalid_params(tmp_path: Any, method: str) -> None:
    policies, _, agent, client = make()
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.close_session(session_id=sid)
        for target in (sid, "never-opened"):
            if method == "mode":
                call = conn.set_session_mode(session_id=target, mode_id="auto")
            elif method == "option":
                call = conn.set_config_option(
                    session_id=target, config_id="read_only", value="true"
                )
            else:
                call = conn.close_session(session_id=target)
            err = await _refused(conn, call)
            assert f"unknown session `{target}`" in str(err)
    assert policies.sessions() == ()
    assert client.updates == []


@pytest.mark.parametrize(
    ("change", "value"),
    [("mode", "auto"), ("auto_approve_writes", "true"), ("auto_approve_execute", "true")],
)
async def test_floor_refuses_looser_changes_and_hides_looser_modes(
    tmp_path: Any, change: str, value: str
) -> None:
    policies, _, agent, client = make(floor=Mode.REVIEW)
    async with connected(agent, client) as conn:
        resp = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        sid = resp.session_id
        assert [m.id for m in resp.modes.available_modes] == ["review", "read-only"]
        assert [c.value for c in options_by_id(resp.config_options)["mode"].options] == [
            "review",
            "read-only",
        ]
        err = await _refused(
            conn, conn.set_config_option(session_id=sid, config_id=change, value=value)
        )
        if change == "mode":
            await _refused(conn, conn.set_session_mode(session_id=sid, mode_id=value))
        # Tightening is always allowed.
        await conn.set_session_mode(session_id=sid, mode_id="read-only")
    assert "floor" in str(err)
    assert policies.config(sid).mode is Mode.READ_ONLY


async def test_sessions_are_independent(tmp_path: Any) -> None:
    policies, _, agent, client = make()
    async with connected(agent, client) as conn:
        a = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        b = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await asyncio.gather(
            conn.set_session_mode(session_id=a, mode_id="auto"),
            conn.set_session_mode(session_id=b, mode_id="read-only"),
        )
        await eventually(lambda: len(client.of_kind("current_mode_update")) == 2, "updates")
    assert policies.config(a).mode is Mode.AUTO
    assert policies.config(b).mode is Mode.READ_ONLY
    assert policies.base.mode is Mode.REVIEW
    by_session = {
        sid: u.current_mode_id
        for sid, u in client.updates
        if u.session_update == "current_mode_update"
    }
    assert by_session == {a: "auto", b: "read-only"}


async def test_fork_copies_the_parents_override_and_then_diverges(tmp_path: Any) -> None:
    policies, _, agent, client = make()
    async with connected(agent, client) as conn:
        parent = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.set_config_option(
            session_id=parent, config_id="auto_approve_writes", value="true"
        )
        policies.grant(parent, 'tool:"x"', GrantEffect.ALLOW)
        fork = await conn.fork_session(session_id=parent, cwd=str(tmp_path))
        child = fork.session_id
        assert child != parent
        assert current_values(fork.config_options)["auto_approve_writes"] == "true"
        assert fork.modes.current_mode_id == "review"
        await conn.set_session_mode(session_id=child, mode_id="read-only")
    assert policies.config(parent).mode is Mode.REVIEW
    assert policies.config(parent).require_approval_for_writes is False
    assert policies.config(child).mode is Mode.READ_ONLY
    assert dict(policies.grants(child)) == {'tool:"x"': GrantEffect.ALLOW}


async def test_fork_of_unknown_session_is_invalid_params(tmp_path: Any) -> None:
    policies, _, agent, client = make()
    async with connected(agent, client) as conn:
        await _refused(conn, conn.fork_session(session_id="nope", cwd=str(tmp_path)))
    assert policies.sessions() == ()


async def test_load_continues_the_session_with_its_flags_and_grants(tmp_path: Any) -> None:
    # A reload must never loosen the session: read-only stays read-only (issue 14).
    policies, _, agent, client = make(SafetyConfig(require_approval_for_execute=False))
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="read-only")
        policies.grant(sid, 'tool:"x"', GrantEffect.ALLOW)
        before = policies.generation(sid)
        resp = await conn.load_session(session_id=sid, cwd=str(tmp_path), mcp_servers=[])
    assert resp.modes.current_mode_id == "read-only"
    assert current_values(resp.config_options)["read_only"] == "true"
    assert policies.config(sid).read_only is True
    assert dict(policies.grants(sid)) == {'tool:"x"': GrantEffect.ALLOW}
    assert policies.generation(sid) != before  # a new instance: pending answers are void


async def test_resume_keeps_an_open_session_and_refuses_an_unknown_one(tmp_path: Any) -> None:
    policies, _, agent, client = make()
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        kept = await conn.resume_session(session_id=sid, cwd=str(tmp_path))
        err = await _refused(
            conn, conn.resume_session(session_id="from-another-run", cwd=str(tmp_path)), -32002
        )
        err_load = await _refused(
            conn,
            conn.load_session(session_id="from-another-run", cwd=str(tmp_path), mcp_servers=[]),
            -32002,
        )
    assert kept.modes.current_mode_id == "auto"
    assert "from-another-run" in str(err) and "from-another-run" in str(err_load)
    assert not policies.is_open("from-another-run")


async def test_close_wipes_the_session(tmp_path: Any) -> None:
    policies, _, agent, client = make()
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="auto")
        await conn.close_session(session_id=sid)
        assert not policies.is_open(sid)
        await _refused(
            conn, conn.load_session(session_id=sid, cwd=str(tmp_path), mcp_servers=[]), -32002
        )
    assert not policies.is_open(sid)


@pytest.mark.parametrize("cwd", ["relative/dir", "", "/tmp/a\nb"])
async def test_bad_cwd_is_invalid_params(cwd: str) -> None:
    policies, _, agent, client = make()
    async with connected(agent, client) as conn:
        await _refused(conn, conn.new_session(cwd=cwd, mcp_servers=[]))
    assert policies.sessions() == ()


# -- the agent's own options ---------------------------------------------------------------

MODEL = AgentOption(
    id="model",
    name="Model",
    default="small",
    choices=[("small", "Small model"), ("large", "Large model")],
    category="model",
)
THINK = AgentOption(id="deep_thinking", name="Think harder", default=False)


async def test_agent_options_are_listed_changed_and_heard(tmp_path: Any) -> None:
    heard: list[tuple[str, str, Any]] = []

    async def on_change(session_id: str, option_id: str, value: str | bool) -> None:
        heard.append((session_id, option_id, value))

    _, bridge, agent, client = make(options=[MODEL, THINK], on_option_change=on_change)
    async with connected(agent, client) as conn:
        resp = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        sid = resp.session_id
        assert [o.id for o in resp.config_options][-2:] == ["model", "deep_thinking"]
        assert current_values(resp.config_options)["model"] == "small"
        after = await conn.set_config_option(session_id=sid, config_id="model", value="large")
        await conn.set_config_option(session_id=sid, config_id="deep_thinking", value="true")
        await eventually(lambda: len(client.of_kind("config_option_update")) == 2, "updates")
    assert current_values(after.config_options)["model"] == "large"
    assert heard == [(sid, "model", "large"), (sid, "deep_thinking", True)]
    assert bridge.option_value(sid, "model") == "large"
    assert bridge.option_value(sid, "deep_thinking") is True
    assert client.of_kind("current_mode_update") == []


async def test_agent_option_refusals_change_nothing(tmp_path: Any) -> None:
    heard: list[Any] = []

    def on_change(session_id: str, option_id: str, value: str | bool) -> None:
        if value == "large":
            raise ValueError("model `large` is not available on this plan")
        heard.append(value)

    _, bridge, agent, client = make(options=[MODEL], on_option_change=on_change)
    async with connected(agent, client) as conn:
        sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        err = await _refused(
            conn, conn.set_config_option(session_id=sid, config_id="model", value="huge")
        )
        assert "`huge`" in str(err)
        err = await _refused(
            conn, conn.set_config_option(session_id=sid, config_id="model", value="large")
        )
        assert "not available" in str(err)
    assert heard == []
    assert bridge.option_value(sid, "model") == "small"


async def test_agent_option_values_follow_fork_load_and_sessions(tmp_path: Any) -> None:
    _, bridge, agent, client = make(options=[MODEL])
    async with connected(agent, client) as conn:
        a = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        b = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
        await conn.set_config_option(session_id=a, config_id="model", value="large")
        child = (await conn.fork_session(session_id=a, cwd=str(tmp_path))).session_id
        assert bridge.option_value(child, "model") == "large"
        assert bridge.option_value(b, "model") == "small"
        await conn.load_session(session_id=a, cwd=str(tmp_path), mcp_servers=[])
    assert bridge.option_value(a, "model") == "large"  # load continues the session
    assert bridge.option_value(child, "model") == "large"


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (dict(id="mode", name="M", default="a", choices=["a"]), "reserved"),
        (dict(id="read_only", name="R", default=True), "reserved"),
        (dict(id="m", name="M", default="c", choices=["a", "b"]), "not one of its choices"),
        (dict(id="m", name="M", default="a"), "needs choices"),
        (dict(id="m", name="M", default=True, choices=["a"]), "takes no choices"),
        (dict(id="", name="M", default=True), "non-empty"),
        (dict(id="m", name="M", default=3), "str or a bool"),
        (dict(id="m", name="", default=True), "name must be"),
    ],
)
def test_agent_option_definitions_are_checked(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        AgentOption(**kwargs)


def test_duplicate_agent_option_ids_are_refused() -> None:
    with pytest.raises(ValueError, match="unique"):
        AcpPolicyBridge(SessionPolicies(), options=[MODEL, MODEL])


# -- raw values: `_meta` can override a validated argument with any JSON (research/acp.md) ----


@pytest.mark.parametrize("bad", [["x"], {"a": 1}, 3, None])
async def test_non_string_ids_are_invalid_params_not_crashes(bad: Any) -> None:
    policies = SessionPolicies()
    bridge = AcpPolicyBridge(policies, options=[MODEL])
    bridge.new_session("s", "/w")
    calls = [
        lambda: bridge.set_session_mode(None, bad, "auto"),
        lambda: bridge.set_config_option(None, bad, "read_only", True),
        lambda: bridge.set_config_option(None, "s", bad, True),
    ]
    for call in calls:
        with pytest.raises(RequestError) as err:
            await call()
        assert err.value.code == -32602
    for sync_call in (
        lambda: bridge.close_session(bad),
        lambda: bridge.fork_session(bad, "t", "/w"),
        lambda: bridge.fork_session("s", bad, "/w"),
        lambda: bridge.load_session(bad, "/w"),
        lambda: bridge.new_session("u", bad),
    ):
        with pytest.raises(RequestError) as err:
            sync_call()
        assert err.value.code == -32602
    assert [s.session_id for s in policies.sessions()] == ["s"]
    assert policies.config("s") == policies.base


async def test_a_custom_category_is_kept_or_dropped_never_fatal(tmp_path: Any) -> None:
    # 0.12.1 accepts only a few category literals; other versions keep any string.
    effort = AgentOption(
        id="effort", name="Effort", default="low", choices=["low", "high"], category="effort"
    )
    _, _, agent, client = make(options=[effort])
    async with connected(agent, client) as conn:
        resp = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
    option = options_by_id(resp.config_options)["effort"]
    assert option.current_value == "low"
    assert option.category in ("effort", None)
