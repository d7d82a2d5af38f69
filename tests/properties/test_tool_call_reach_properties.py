"""Properties of round 12's tool-call reach: however a call spells where it goes, it is judged.

- a file a patch names in git's C quotes is judged as git apply decodes it;
- a denied path used as a mapping key, at any depth, is denied;
- a tool of a table given an argument its table does not list is never allowed;
- a search switch that reads hidden files, however its name is cased or dashed, reads them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from safehold.adapters.tables.claude_code import CLAUDE_CODE_TOOLS
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.engine import evaluate
from safehold.policy.modes import Mode

AUTO = SafetyConfig().with_mode(Mode.AUTO)
FILLER = st.one_of(st.integers(), st.booleans(), st.none(), st.sampled_from(["hi", "a b", ""]))
SECRET_KEYS = st.sampled_from(["~/.ssh/id_rsa", ".env", "/etc/shadow", "./.aws/credentials"])


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("reach12") / "ws"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print(1)\n")
    (root / ".env").write_text("TOKEN=1\n")
    return str(root)


@st.composite
def c_quoted(draw: st.DrawFn, name: str) -> str:
    """`name` in git's C quotes, each character written as itself or as an octal escape."""
    out = []
    for ch in name:
        out.append(f"\\{ord(ch):03o}" if draw(st.booleans()) else ch)
    return '"' + "".join(out) + '"'


# A name a patch may write, and what writing it is: a protected path asks, a denied one is
# denied (the `a/`/`b/` prefix is git's, and both readings are judged).
TARGETS = {
    ".git/hooks/pre-commit": Verdict.ASK,
    "b/.git/config": Verdict.ASK,
    "b/.env": Verdict.DENY,
}


@given(
    data=st.data(),
    target=st.sampled_from(sorted(TARGETS)),
    header=st.sampled_from(["+++ ", "--- ", "rename to ", "copy to "]),
)
def test_a_patch_name_in_c_quotes_is_judged_decoded(
    ws: str, data: st.DataObject, target: str, header: str
) -> None:
    quoted = data.draw(c_quoted(target))
    patch = f"diff --git a/x b/x\n{header}{quoted}\n@@ -0,0 +1 @@\n+x\n"
    decision = evaluate(AUTO, ToolCall("apply_patch", {"patch": patch}, "edit"), workspace=ws)
    assert decision.verdict is TARGETS[target], (patch, decision)


@st.composite
def keyed(draw: st.DrawFn) -> object:
    """Arguments with a denied path as a mapping key somewhere (up to 5 levels down)."""
    value: object = {draw(SECRET_KEYS): draw(FILLER)}
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.booleans()):
            items = draw(st.lists(FILLER, max_size=3))
            items.insert(draw(st.integers(0, len(items))), value)
            value = items
        else:
            value = {draw(st.sampled_from(["a", "opts", "files", "map"])): value}
    return value


@given(value=keyed(), kind=st.sampled_from(list(ToolKind)))
def test_a_denied_path_as_a_key_is_denied(ws: str, value: object, kind: ToolKind) -> None:
    arguments = value if isinstance(value, dict) else {"items": value}
    decision = evaluate(AUTO, ToolCall("tool", arguments, kind), workspace=ws)
    assert decision.verdict is Verdict.DENY, (arguments, decision)


def _benign(ws: str) -> dict[str, dict[str, object]]:
    """A call of each table tool with documented arguments that auto mode allows."""
    return {
        "Read": {"file_path": f"{ws}/src/app.py", "offset": 1},
        "Write": {"file_path": f"{ws}/src/new.py", "content": "x"},
        "Edit": {"file_path": f"{ws}/src/app.py", "old_string": "1", "new_string": "2"},
        "MultiEdit": {"file_path": f"{ws}/src/app.py", "edits": []},
        "Glob": {"pattern": "*.py", "path": f"{ws}/src"},
        "Grep": {"pattern": "print", "path": f"{ws}/src", "-n": True},
        "LS": {"path": f"{ws}/src"},
        "WebFetch": {"url": "https://example.com/", "prompt": "x"},
        "WebSearch": {"query": "x"},
        "Bash": {"command": "ls", "description": "list"},
    }


@given(
    tool=st.sampled_from(sorted(_benign("/w"))),
    extra=st.text(min_size=1, max_size=12),
    value=FILLER,
    mode=st.sampled_from(list(Mode)),
)
def test_an_argument_the_table_does_not_list_is_never_allowed(
    ws: str, tool: str, extra: str, value: object, mode: Mode
) -> None:
    spec = CLAUDE_CODE_TOOLS.lookup(tool)
    assert spec.arguments is not None
    base = _benign(ws)[tool]
    alone = CLAUDE_CODE_TOOLS.to_call(tool, base)
    assert evaluate(AUTO, alone, workspace=ws).verdict is Verdict.ALLOW  # the base is fine
    if extra in spec.arguments:
        return
    call = CLAUDE_CODE_TOOLS.to_call(tool, {**base, extra: value})
    config = SafetyConfig().with_mode(mode)
    decision = evaluate(config, call, workspace=ws)
    assert decision.verdict is not Verdict.ALLOW, (call, decision)
    assert decision.verdict is Verdict.DENY or "argument-unknown" in {
        r.code for r in decision.reasons
    }


@st.composite
def spelled(draw: st.DrawFn, name: str) -> str:
    """`include_hidden` as `includeHidden`, `INCLUDE-HIDDEN`, ` include_hidden`, …"""
    sep = draw(st.sampled_from(["_", "-", ""]))
    words = [w.upper() if draw(st.booleans()) else w for w in name.split("_")]
    return draw(st.sampled_from(["", " "])) + sep.join(words)


@given(
    key=st.sampled_from(["hidden", "include_hidden", "show_hidden", "unrestricted"]).flatmap(
        spelled
    ),
    value=st.sampled_from([True, "true", "True", "yes", "1", " on "]),
)
def test_a_hidden_switch_reads_hidden_files_however_spelled(
    ws: str, key: str, value: object
) -> None:
    quiet = ToolCall("grep", {"pattern": "TOKEN", "path": "."}, "search")
    assert evaluate(AUTO, quiet, workspace=ws).verdict is Verdict.ALLOW
    loud = ToolCall("grep", {"pattern": "TOKEN", "path": ".", key: value}, "search")
    decision = evaluate(AUTO, loud, workspace=ws)
    assert decision.verdict is Verdict.ASK, (key, value, decision)
    assert "tree-holds-denied" in {r.code for r in decision.reasons}


def test_the_fixture_tree_is_what_the_properties_assume(ws: str) -> None:
    assert Path(ws, ".env").is_file() and Path(ws, ".git", "hooks").is_dir()
