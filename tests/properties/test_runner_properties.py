"""Who runs the command: a decision for the host is never looser than one for the sandbox.

Over generated tool calls and shell commands (the sandbox-dependent ones included: inline
code, writes to the private `/tmp`, computed words, unknown programs) and configs in every
mode: `runner="host"` is at least as strict as `runner="sandbox"` (allow < ask < deny),
and a sandbox decision is `confined` exactly when it allows what the host would not.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from safehold.policy import engine
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.engine import evaluate
from safehold.policy.grants import GrantEffect
from safehold.policy.modes import Mode
from tests.strategies import (
    configs,
    likely_configs,
    likely_tool_calls,
    make_tree,
    paths,
    tool_calls,
)

TREE_NAMES = ("link_secret", "link_out", "link_in", "dangling", "file.txt", "outside")

# Commands whose verdict may depend on the sandbox, next to ones whose verdict does not.
PARTS = (
    "python3 -c 'import os'",
    "node -e 'require(\"fs\")'",
    "echo hi > /tmp/x",
    "cp src/main.py /tmp/copy",
    "mkdir -p /tmp/build",
    "grep -r KEY .",
    "cat $(ls)",
    "bash ./script.sh",
    "python3 script.py",
    "frobnicate --fast",
    "ls -la",
    "git status",
    "cat .env",
    "rm -rf ~",
    "curl -s https://example.com",
    "cat link_out/file.txt",
    # Where the one-pass host view must step aside (`assess._same_on_host`).
    "cd .. && ls",
    "ls /t'm'p/x",
    "cat ~/.bashrc",
    'cat "$HOME/notes"',
    "X=/tmp/y cat file.txt",
    "export HTTPS_PROXY=http://$H:1; git status",
    "grep -rn TODO .",
    "npm test",
    # Computed paths: the host asks for them, the sandbox does not (`check_roles._check_computed`).
    'rm -rf "$D"',
    "wc --files0-from=names.lst",
)
OPERATORS = (" && ", " | ", "; ")


@st.composite
def commands(draw: st.DrawFn) -> str:
    first = draw(st.sampled_from(PARTS))
    if draw(st.booleans()):
        return first
    return first + draw(st.sampled_from(OPERATORS)) + draw(st.sampled_from(PARTS))


def execute_calls() -> st.SearchStrategy[ToolCall]:
    return st.builds(
        lambda command, cwd: ToolCall(
            "bash",
            {"command": command} if cwd is None else {"command": command, "cwd": cwd},
            ToolKind.EXECUTE,
        ),
        commands(),
        st.sampled_from((None, None, None, "/tmp", "..", "/tmp/w")),
    )


calls = st.one_of(
    execute_calls(), execute_calls(), tool_calls(paths(TREE_NAMES)), likely_tool_calls()
)


@st.composite
def any_configs(draw: st.DrawFn) -> SafetyConfig:
    config = draw(st.one_of(configs(), likely_configs()))
    mode = draw(st.sampled_from((None, Mode.AUTO, Mode.AUTO)))
    return config if mode is None else config.with_mode(mode)


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> str:
    return make_tree(str(tmp_path_factory.mktemp("tree")))


@given(call=calls, config=any_configs(), grant=st.booleans())
@example(  # found by this property: a grant for the argv reading lifted the shell reading's
    call=ToolCall("run", {"command": 'eval "$X"', "args": ["-la"]}, ToolKind.EXECUTE),
    config=SafetyConfig().with_mode(Mode.AUTO),
    grant=True,
)
@example(  # a path list read from a file (computed paths) was allowed on the host's view
    call=ToolCall("bash", {"command": "wc --files0-from=names.lst"}, ToolKind.EXECUTE),
    config=SafetyConfig().with_mode(Mode.AUTO),
    grant=False,
)
def test_the_host_decision_is_never_looser_than_the_sandbox_decision(
    ws: str, call: ToolCall, config: SafetyConfig, grant: bool
) -> None:
    assert config.sandbox.mode == "bwrap"
    host = evaluate(config, call, workspace=ws, runner="host")
    grants = {host.grant_key: GrantEffect.ALLOW} if grant and host.grant_key else None
    if grants is not None:
        host = evaluate(config, call, workspace=ws, grants=grants, runner="host")
    sandbox = evaluate(config, call, workspace=ws, grants=grants, runner="sandbox")
    assert host.verdict.strictness >= sandbox.verdict.strictness, (host, sandbox)
    assert not host.confined
    assert sandbox.confined == (sandbox.allowed and not host.allowed), (host, sandbox)
    assert sandbox.confined == ("allowed-in-sandbox" in {r.code for r in sandbox.reasons})
    # The default is the host, and the host is the config without its sandbox.
    assert evaluate(config, call, workspace=ws, grants=grants) == host
    bare = config.without_sandbox()
    assert evaluate(bare, call, workspace=ws, grants=grants, runner="sandbox") == host
    # The one pass that also tells the host's assessment answers as two passes would.
    alone, executes, _ = engine._evaluate(config, call, ws, grants)
    two_passes = engine._confined(alone, host) if executes and alone.allowed else alone
    assert sandbox == two_passes, (sandbox, two_passes)


def test_the_vocabulary_reaches_a_confined_allow(ws: str) -> None:
    """The property is not vacuous: some generated commands do depend on the sandbox."""
    auto = SafetyConfig().with_mode(Mode.AUTO)
    confined = [
        part
        for part in PARTS
        if evaluate(
            auto,
            ToolCall("bash", {"command": part}, ToolKind.EXECUTE),
            workspace=ws,
            runner="sandbox",
        ).confined
    ]
    assert len(confined) >= 3, confined
