"""`evaluate`: the evaluation order of SPEC §3, grants, grant keys and reasons."""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold.policy import engine as engine_mod
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import evaluate
from safehold.policy.grants import GrantEffect, path_grant_key, tool_grant_key
from safehold.policy.modes import Mode
from tests.strategies import make_tree

A, Q, D = Verdict.ALLOW, Verdict.ASK, Verdict.DENY
# A command every shell analysis must call opaque: what `eval` runs is not known statically.
OPAQUE = 'eval "$CMD"'


@pytest.fixture
def ws(tmp_path: Path) -> str:
    return make_tree(str(tmp_path))


def decide(
    ws: str,
    call: ToolCall,
    mode: Mode = Mode.REVIEW,
    grants: dict[str, GrantEffect] | None = None,
    **config: object,
) -> Decision:
    return evaluate(SafetyConfig(**config).with_mode(mode), call, workspace=ws, grants=grants)  # type: ignore[arg-type]


def codes(decision: Decision) -> list[str]:
    return [r.code for r in decision.reasons]


CALLS = {
    "read": ToolCall("read_file", {"path": "src/main.py"}, ToolKind.READ),
    "search": ToolCall("grep", {"pattern": "x", "path": "src"}, ToolKind.SEARCH),
    "think": ToolCall("think", {"thought": "hm"}, ToolKind.THINK),
    "edit": ToolCall("write_file", {"path": "src/new.py"}, ToolKind.EDIT),
    "move": ToolCall("mv", {"src": "src/main.py", "dst": "src/moved.py"}, ToolKind.MOVE),
    "execute": ToolCall("bash", {"command": OPAQUE}, ToolKind.EXECUTE),
    "fetch": ToolCall("fetch", {"url": "https://example.com"}, ToolKind.FETCH),
    "other": ToolCall("mcp_thing", {"q": 1}, ToolKind.OTHER),
    "switch_mode": ToolCall("switch", {}, ToolKind.SWITCH_MODE),
}

# Expected verdict per mode (SPEC §3 with every command opaque).
TABLE = {
    "read": (A, A, A),
    "search": (A, A, A),
    "think": (A, A, A),
    "edit": (A, Q, D),
    "move": (A, Q, D),
    "execute": (Q, Q, D),
    "fetch": (A, Q, Q),
    "other": (A, Q, Q),
    "switch_mode": (A, Q, Q),
}


@pytest.mark.parametrize("name", list(TABLE))
@pytest.mark.parametrize("mode", list(Mode))
def test_verdict_table_by_kind_and_mode(ws: str, name: str, mode: Mode) -> None:
    expected = TABLE[name][list(Mode).index(mode)]
    decision = decide(ws, CALLS[name], mode)
    assert decision.verdict is expected, decision
    assert decision.reasons, "every decision explains itself"


def test_read_only_denies_writes_and_execute_naming_the_flag(ws: str) -> None:
    for name in ("edit", "move", "execute"):
        decision = decide(ws, CALLS[name], Mode.READ_ONLY)
        assert codes(decision) == ["read-only"]
        assert decision.reasons[0].rule == "read_only"


def test_read_only_asks_for_unknown_tools_and_a_grant_does_not_lift_it(ws: str) -> None:
    call = CALLS["other"]
    key = tool_grant_key(call.name)
    decision = decide(ws, call, Mode.READ_ONLY, grants={key: GrantEffect.ALLOW})
    assert decision.verdict is Q
    assert "read-only-ask" in codes(decision)


def test_review_reasons_name_the_flags(ws: str) -> None:
    assert codes(decide(ws, CALLS["edit"])) == ["write-needs-approval"]
    assert decide(ws, CALLS["edit"]).reasons[0].rule == "require_approval_for_writes"
    execute = decide(ws, CALLS["execute"])
    assert "execute-needs-approval" in codes(execute)
    assert len(codes(execute)) >= 2, "the command analysis gives its own reason"
    assert codes(decide(ws, CALLS["fetch"])) == ["tool-needs-approval"]


def test_opaque_commands_ask_even_in_auto(ws: str) -> None:
    decision = decide(ws, CALLS["execute"], Mode.AUTO)
    assert decision.verdict is Q
    assert decision.reasons and "execute-needs-approval" not in codes(decision)


# -- step 2 in the engine --------------------------------------------------------------------


def test_denied_path_wins_over_mode_and_grants(ws: str) -> None:
    call = ToolCall("read_file", {"path": ".env"}, ToolKind.READ)
    key = path_grant_key("read_file", [f"{ws}/.env"])
    decision = decide(ws, call, Mode.AUTO, grants={key: GrantEffect.ALLOW})
    assert decision.verdict is D
    assert decision.grant_key == key
    assert [(r.code, r.rule) for r in decision.reasons] == [("path-denied", ".env")]
    assert decision.reasons[0].message == (
        "argument `path`: path `.env` matches denied pattern `.env`"
    )


def test_protected_write_asks_in_auto_and_a_grant_does_not_lift_it(ws: str) -> None:
    call = ToolCall("write_file", {"path": ".git/config"}, ToolKind.EDIT)
    key = path_grant_key("write_file", [f"{ws}/.git/config"])
    decision = decide(ws, call, Mode.AUTO, grants={key: GrantEffect.ALLOW})
    assert decision.verdict is Q
    assert codes(decision) == ["path-protected"]


def test_unknown_and_network_tools_have_their_paths_checked(ws: str) -> None:
    assert decide(ws, ToolCall("mcp", {"path": ".env"}), Mode.AUTO).verdict is D
    assert decide(ws, ToolCall("mcp", {"path": "src/main.py"}), Mode.AUTO).verdict is A
    assert decide(ws, ToolCall("web", {"cwd": "/"}, ToolKind.FETCH), Mode.AUTO).verdict is D
    # Such a tool may write, so a protected path asks even in auto.
    hook = ToolCall("mcp_git", {"path": ".git/hooks/pre-commit"})
    assert codes(decide(ws, hook, Mode.AUTO)) == ["path-protected"]
    save = ToolCall("download", {"url": "https://x", "destination": ".bashrc"}, ToolKind.FETCH)
    assert decide(ws, save, Mode.AUTO).verdict is Q
    # A read tool reading a protected path is fine.
    assert decide(ws, ToolCall("cat", {"path": ".git/config"}, ToolKind.READ)).verdict is A


def test_execute_cwd_outside_the_workspace_is_denied(ws: str) -> None:
    call = ToolCall("bash", {"command": OPAQUE, "cwd": "/etc"}, ToolKind.EXECUTE)
    decision = decide(ws, call, Mode.AUTO)
    assert decision.verdict is D
    assert "path-outside-allowed" in codes(decision)


@pytest.mark.parametrize(
    ("arguments", "path_args", "verdict"),
    [
        ({"path": 3}, (), A),  # a number under a common name is not a path
        ({"notebook": 3}, ("notebook",), D),  # but a declared path argument must be one
        ({"paths": ["src/main.py", 7]}, (), D),
        ({"path": None}, (), A),
        ({"path": ""}, (), D),
    ],
)
def test_values_under_path_names(
    ws: str, arguments: dict[str, object], path_args: tuple[str, ...], verdict: Verdict
) -> None:
    call = ToolCall("read_file", arguments, ToolKind.READ, path_args=path_args)
    assert decide(ws, call).verdict is verdict


# -- step 3 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [None, "", "   ", 42, [], [""], {"cmd": "ls"}, [1, 2]])
def test_an_execute_call_without_a_command_is_denied(ws: str, command: object) -> None:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    decision = decide(ws, call, Mode.AUTO)
    assert decision.verdict is D
    assert any("command" in code for code in codes(decision)), decision


def test_acp_terminal_args_must_be_strings(ws: str) -> None:
    bad = ToolCall("terminal", {"command": "ls", "args": "-la"}, ToolKind.EXECUTE)
    decision = decide(ws, bad, Mode.AUTO)
    assert decision.verdict is D
    assert ("command-invalid", "args") in [(r.code, r.rule) for r in decision.reasons]


def test_an_env_argument_asks_even_for_an_opaque_command_in_auto(ws: str) -> None:
    call = ToolCall(
        "terminal",
        {"command": OPAQUE, "env": [{"name": "LD_PRELOAD", "value": "/x"}]},
        ToolKind.EXECUTE,
    )
    decision = decide(ws, call, Mode.AUTO)
    assert decision.verdict is Q
    assert "command-env" in codes(decision)


ENV_CALLS = {
    # ACP `terminal/create`: command + args, env as a list of name/value pairs.
    "acp": (
        {"command": "make", "args": ["test"]},
        {"env": [{"name": "LD_PRELOAD", "value": "/tmp/evil.so"}]},
    ),
    # A shell-string tool with an env mapping.
    "bash": ({"command": "make test"}, {"env": {"LD_PRELOAD": "evil.so"}}),
}


@pytest.mark.parametrize("shape", list(ENV_CALLS))
@pytest.mark.parametrize("mode", [Mode.AUTO, Mode.REVIEW])
def test_an_allow_always_grant_never_lifts_the_ask_of_an_env_argument(
    ws: str, shape: str, mode: Mode
) -> None:
    # The grant is real: it is the key `make test` produces, and it allows the call without
    # `env` in every mode that asks. The same command with `env` (LD_PRELOAD, PATH can make
    # the approved `make` run other code) still asks, and says why.
    base, env = ENV_CALLS[shape]
    plain = ToolCall("terminal", base, ToolKind.EXECUTE)
    key = decide(ws, plain, mode).grant_key
    assert key is not None, "`make test` must be grantable for this test to mean anything"
    grants = {key: GrantEffect.ALLOW}
    granted = decide(ws, plain, mode, grants=grants)
    assert granted.verdict is A, granted
    with_env = ToolCall("terminal", {**base, **env}, ToolKind.EXECUTE)
    assert decide(ws, with_env, mode).grant_key == key, "env must not change the grant key"
    decision = decide(ws, with_env, mode, grants=grants)
    assert decision.verdict is Q, decision
    assert "command-env" in codes(decision)
    assert "grant-allow" not in codes(decision)


# -- step 4: grants --------------------------------------------------------------------------


def test_reject_always_denies_a_call_that_would_be_allowed(ws: str) -> None:
    call = CALLS["read"]
    key = path_grant_key("read_file", [f"{ws}/src/main.py"])
    decision = decide(ws, call, grants={key: GrantEffect.REJECT})
    assert decision.verdict is D
    assert codes(decision) == ["grant-reject"]


def test_allow_always_lifts_the_approval_flag_for_exactly_that_path(ws: str) -> None:
    key = path_grant_key("write_file", [f"{ws}/src/new.py"])
    granted = decide(ws, CALLS["edit"], grants={key: GrantEffect.ALLOW})
    assert granted.verdict is A and codes(granted) == ["grant-allow"]
    other = ToolCall("write_file", {"path": "src/other.py"}, ToolKind.EDIT)
    assert decide(ws, other, grants={key: GrantEffect.ALLOW}).verdict is Q
    other_tool = ToolCall("edit_file", {"path": "src/new.py"}, ToolKind.EDIT)
    assert decide(ws, other_tool, grants={key: GrantEffect.ALLOW}).verdict is Q


def test_grant_keys(ws: str) -> None:
    assert decide(ws, CALLS["read"]).grant_key == path_grant_key("read_file", [f"{ws}/src/main.py"])
    assert decide(ws, CALLS["move"]).grant_key == path_grant_key(
        "mv", [f"{ws}/src/main.py", f"{ws}/src/moved.py"]
    )
    # A fetch is filed under the hosts it reaches.
    assert decide(ws, CALLS["fetch"]).grant_key == path_grant_key("fetch", ["url:example.com"])
    assert decide(ws, ToolCall("t", {}, ToolKind.THINK)).grant_key == tool_grant_key("t")
    # The same file named two ways is one grant.
    twice = ToolCall("read_file", {"paths": ["src/main.py", "link_in/main.py"]}, ToolKind.READ)
    assert decide(ws, twice).grant_key == path_grant_key("read_file", [f"{ws}/src/main.py"])
    # A path that cannot be canonicalised leaves nothing to grant.
    assert decide(ws, ToolCall("read_file", {"path": "a\x00"}, ToolKind.READ)).grant_key is None
    assert decide(ws, CALLS["execute"]).grant_key is None
    # An execute call never gets a tool-wide key, even when its command is not analysed.
    assert decide(ws, CALLS["execute"], Mode.READ_ONLY).grant_key is None


# -- robustness ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "call", "workspace", "code"),
    [
        (SafetyConfig(), "not a call", "/tmp", "call-invalid"),
        ({"read_only": False}, ToolCall("x"), "/tmp", "config-invalid"),
        (SafetyConfig(), ToolCall("x"), "relative", "workspace-invalid"),
        (SafetyConfig(), ToolCall("x"), None, "workspace-invalid"),
    ],
)
def test_bad_inputs_are_denied_not_raised(
    config: object, call: object, workspace: object, code: str
) -> None:
    decision = evaluate(config, call, workspace=workspace)  # type: ignore[arg-type]
    assert decision.verdict is D
    assert codes(decision) == [code]


def test_an_internal_failure_is_a_deny(ws: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(engine_mod, "read_arguments", broken)
    decision = decide(ws, CALLS["read"], Mode.AUTO)
    assert decision.verdict is D
    assert codes(decision) == ["internal-error"]
    assert "boom" in decision.reasons[0].message


def test_reasons_are_sorted_and_unique(ws: str) -> None:
    call = ToolCall(
        "mcp",
        {"paths": ["link_secret", ".env", ".env", "/etc/shadow"]},
        ToolKind.EDIT,
    )
    decision = decide(ws, call)
    keys = [(r.code, r.rule, r.message) for r in decision.reasons]
    assert keys == sorted(set(keys))
    assert decision == decide(ws, call)


def test_too_many_paths_is_one_ask_reason(ws: str) -> None:
    call = ToolCall("read_file", {"paths": [f"src/f{i}.py" for i in range(5000)]}, ToolKind.READ)
    decision = decide(ws, call, Mode.AUTO)
    assert decision.verdict is Q
    assert codes(decision) == ["arguments-too-large"]
    # One path named again and again is judged once: no bound is reached.
    again = ToolCall("read_file", {"paths": ["src/main.py"] * 5000}, ToolKind.READ)
    assert decide(ws, again, Mode.AUTO).verdict is A


def test_arguments_nested_deeper_than_the_bound_ask(ws: str) -> None:
    nested: object = {"note": "hello"}
    for _ in range(20):
        nested = {"inner": nested}
    decision = decide(ws, ToolCall("mcp", {"payload": nested}), Mode.AUTO)
    assert decision.verdict is Q
    assert codes(decision) == ["arguments-too-large"]


def test_huge_argument_objects_ask_quickly(ws: str) -> None:
    wide = {"items": [{"k": i, "v": [i, {"x": str(i)}]} for i in range(20_000)]}
    decision = decide(ws, ToolCall("mcp", wide), Mode.AUTO)
    assert decision.verdict is Q
    assert codes(decision) == ["arguments-too-large"]


@pytest.mark.parametrize(
    ("arguments", "verdict"),
    [
        ({"command": "rm -rf /", "args": []}, Verdict.DENY),
        ({"command": "ls; rm -rf /", "args": ["-la"]}, Verdict.DENY),
        ({"command": "ls", "args": ["; rm -rf /"]}, Verdict.DENY),
        ({"command": "echo", "args": ["$(rm -rf /)"]}, Verdict.DENY),
        ({"command": "echo", "args": ["$(touch x)"]}, Verdict.ALLOW),  # sees `touch x`
        ({"command": "$CMD", "args": []}, Verdict.ASK),
    ],
)
def test_issue_3_acp_command_and_args_are_also_read_as_a_shell_would(
    ws: str, arguments: dict[str, object], verdict: Verdict
) -> None:
    # ACP clients differ: some exec `command` + `args`, some hand the joined line to a shell.
    # `{"command": "rm -rf /", "args": []}` was ALLOW in auto mode as a program named
    # `rm -rf /`.
    call = ToolCall("terminal", arguments, ToolKind.EXECUTE)
    decision = evaluate(SafetyConfig().with_mode("auto"), call, workspace=ws)
    assert decision.verdict is verdict, decision


def test_issue_3_a_plain_acp_argv_keeps_its_grant_key(ws: str) -> None:
    call = ToolCall("terminal", {"command": "npm", "args": ["test"]}, ToolKind.EXECUTE)
    decision = evaluate(SafetyConfig().with_mode("auto"), call, workspace=ws)
    assert decision.verdict is Verdict.ALLOW and decision.grant_key is not None


def test_a_grant_for_the_argv_reading_never_lifts_a_hard_ask_of_the_shell_reading(
    ws: str,
) -> None:
    # On the host both readings ask: the argv one for an unknown program named `eval "$X"`
    # (grantable), the shell one for `eval` of a computed string (no grant lifts it). The
    # grant key of the first reading was kept, so an "always" answer allowed the second.
    config = SafetyConfig().with_mode("auto")
    call = ToolCall("terminal", {"command": 'eval "$X"', "args": ["-la"]}, ToolKind.EXECUTE)
    first = evaluate(config, call, workspace=ws)
    assert first.verdict is Verdict.ASK and first.grant_key is None, first
    assert {"eval", "not-understood"} <= {r.code for r in first.reasons}
    # Both readings grantable: the argv reading's key is kept, and its grant lifts both.
    npm = ToolCall("terminal", {"command": "npm", "args": ["install"]}, ToolKind.EXECUTE)
    asked = evaluate(config, npm, workspace=ws)
    assert asked.verdict is Verdict.ASK and asked.grant_key is not None, asked
    granted = evaluate(config, npm, workspace=ws, grants={asked.grant_key: GrantEffect.ALLOW})
    assert granted.verdict is Verdict.ALLOW, granted


@pytest.mark.parametrize("kind", [ToolKind.EDIT, ToolKind.DELETE, ToolKind.MOVE])
@pytest.mark.parametrize("arguments", [{}, {"path": None}, {"content": "TOKEN=1\n"}])
def test_a_write_that_names_no_path_asks_even_when_writes_need_no_approval(
    ws: str, kind: ToolKind, arguments: dict[str, object]
) -> None:
    """Auto mode allows writes inside the allowed paths; a call that names none is not one."""
    call = ToolCall("save", arguments, kind)
    auto = decide(ws, call, Mode.AUTO)
    assert auto.verdict is Q and codes(auto) == ["write-target-unknown"]
    assert codes(decide(ws, call)) == ["write-needs-approval"]  # review asks anyway
    # An "always" answer for the tool lifts it, as it lifts a write's approval.
    granted = decide(ws, call, Mode.AUTO, grants={tool_grant_key("save"): GrantEffect.ALLOW})
    assert granted.verdict is A


def test_a_write_that_names_its_path_and_a_read_that_names_none_are_allowed_in_auto(
    ws: str,
) -> None:
    assert (
        decide(ws, ToolCall("save", {"path": "src/new.py"}, ToolKind.EDIT), Mode.AUTO).verdict is A
    )
    assert decide(ws, ToolCall("notes", {}, ToolKind.READ), Mode.AUTO).verdict is A
