"""`find ROOTS | xargs PROG` and `find ROOTS -exec PROG {} +` on the host, over real trees.

The names xargs appends (or find fills into `{}`) are files below find's roots, so the
consumer is judged as reading or changing the whole tree below each root: a denied file,
a link leading out, a name plain xargs would split, and (for a writer) a protected entry
all ask. Real temporary trees and real symlinks; commands are only evaluated, never run.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.policy import tree_scan
from safehold.policy.decision import Decision, Verdict
from tests.strategies import examples

AUTO = SafetyConfig().with_mode("auto")


def _host(command: str, ws: Path) -> Decision:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    return evaluate(AUTO, call, workspace=str(ws), runner="host")


def _codes(decision: Decision) -> set[str]:
    return {r.code for r in decision.reasons}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "app.py").write_text("TOKEN = 1\n")
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    return root


LISTINGS = [
    "find src -name '*.py' | xargs grep -l TOKEN",
    "find src -type f -print0 | xargs -0 grep -l TOKEN",
    "find src -name '*.py' -exec grep -l TOKEN {} +",
    "find src -name '*.py' -exec grep -l TOKEN {} \\;",
]


@pytest.mark.parametrize("command", LISTINGS)
def test_a_clean_listing_is_understood_on_the_host(ws: Path, command: str) -> None:
    decision = _host(command, ws)
    assert decision.verdict is Verdict.ALLOW, decision.reasons


@pytest.mark.parametrize("command", LISTINGS)
def test_a_denied_file_deep_in_the_tree_asks(ws: Path, command: str) -> None:
    (ws / "src" / "pkg" / ".env").write_text("TOKEN=sk\n")
    decision = _host(command, ws)
    assert decision.verdict is Verdict.ASK
    assert "tree-holds-denied" in _codes(decision)
    assert any("pkg/.env" in r.message for r in decision.reasons)


@pytest.mark.parametrize("command", LISTINGS)
def test_a_link_leading_out_of_the_roots_asks(ws: Path, tmp_path: Path, command: str) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "notes.py").write_text("x\n")
    os.symlink(outside / "notes.py", ws / "src" / "pkg" / "notes.py")
    decision = _host(command, ws)
    assert decision.verdict is Verdict.ASK
    assert "listing-entry" in _codes(decision), decision.reasons


def test_a_link_inside_the_workspace_is_fine(ws: Path) -> None:
    os.symlink(ws / "src" / "app.py", ws / "src" / "pkg" / "again.py")
    for command in LISTINGS:
        assert _host(command, ws).verdict is Verdict.ALLOW, command


def test_a_name_plain_xargs_splits_asks_only_without_nul_separators(ws: Path) -> None:
    # `src/my ../x.py` reaches xargs as `src/my` and `../x.py`: a path outside the tree.
    (ws / "src" / "my ..").mkdir()
    (ws / "src" / "my ..").joinpath("x.py").write_text("x\n")
    split = _host("find src -name '*.py' | xargs grep -l TOKEN", ws)
    assert split.verdict is Verdict.ASK
    assert "listing-entry" in _codes(split)
    whole = ["find src -print0 | xargs -0 grep -l T", "find src -exec grep -l T {} +"]
    for command in whole:
        assert _host(command, ws).verdict is Verdict.ALLOW, command


@pytest.mark.parametrize(
    "command",
    [
        "find src -name '*.py' | xargs sed -i s/a/b/",
        "find src -name '*.py' -exec sed -i s/a/b/ {} +",
    ],
)
def test_a_writer_asks_for_any_protected_entry_in_the_tree(ws: Path, command: str) -> None:
    assert _host(command, ws).verdict is Verdict.ALLOW
    (ws / "src" / ".git").mkdir()
    (ws / "src" / ".git" / "config").write_text("[core]\n")
    decision = _host(command, ws)
    assert decision.verdict is Verdict.ASK
    assert "listing-entry" in _codes(decision)
    assert any("protected" in r.message for r in decision.reasons)


def test_a_reader_does_not_ask_about_protected_entries(ws: Path) -> None:
    (ws / "src" / ".git").mkdir()
    (ws / "src" / ".git" / "config").write_text("[core]\n")
    assert _host(LISTINGS[0], ws).verdict is Verdict.ALLOW


def test_a_listing_too_large_to_look_through_asks(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(30):
        (ws / "src" / f"f{i}.py").write_text("x\n")
    monkeypatch.setattr(tree_scan, "MAX_TREE_ENTRIES", 10)
    decision = _host(LISTINGS[0], ws)
    assert decision.verdict is Verdict.ASK
    assert "tree-unchecked" in _codes(decision)


def test_the_sandbox_verdict_is_unchanged(ws: Path) -> None:
    # With the sandbox, the stdin words stay what they were: nothing is looked up.
    (ws / "src" / "pkg" / ".env").write_text("TOKEN=sk\n")
    call = ToolCall("bash", {"command": LISTINGS[0]}, ToolKind.EXECUTE)
    assert evaluate(AUTO, call, workspace=str(ws), runner="sandbox").verdict is Verdict.ALLOW


# The property: a listing the host allows reads nothing `grep -r` of the same roots would
# not, and every file find could hand the consumer is one it may read by name.
ENTRY = st.sampled_from(["a.py", "b.txt", ".env", "id_rsa", "my file.py", "q'x.py", "sub"])
KIND = st.sampled_from(["file", "dir", "link-in", "link-out", "link-secret"])
EXPRESSIONS = ["", "-name '*.py'", "-type f", "-path '*/sub/*' -prune -o -print"]
FORMS = ["{find} | xargs grep -l K", "{find} -exec grep -l K {{}} +"]


def _build(ws: Path, outside: Path, entries: list[tuple[str, str, str]]) -> None:
    for parent, name, kind in entries:
        folder = ws / "src" / parent
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            continue
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if path.exists() or path.is_symlink():
            continue
        if kind == "file":
            path.write_text("K\n")
        elif kind == "dir":
            path.mkdir()
        elif kind == "link-in":
            os.symlink(ws / "src", path)
        elif kind == "link-out":
            os.symlink(outside / "plain.txt", path)
        else:
            os.symlink(outside / ".ssh" / "id_rsa", path)


def _listed(root: Path) -> list[str]:
    """Every path `find root` prints (it does not follow links), root first."""
    out = [str(root)]
    for folder, dirs, files in os.walk(root):
        out += [os.path.join(folder, n) for n in dirs + files]
    return out


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    entries=st.lists(st.tuples(st.sampled_from(["", "sub", "pkg"]), ENTRY, KIND), max_size=5),
    expression=st.sampled_from(EXPRESSIONS),
    form=st.sampled_from(FORMS),
)
def test_a_listing_the_host_allows_is_no_looser_than_reading_the_tree(
    tmp_path_factory: pytest.TempPathFactory,
    entries: list[tuple[str, str, str]],
    expression: str,
    form: str,
) -> None:
    base = tmp_path_factory.mktemp("listing")
    ws, outside = base / "proj", base / "outside"
    (outside / ".ssh").mkdir(parents=True)
    (outside / ".ssh" / "id_rsa").write_text("key\n")
    (outside / "plain.txt").write_text("x\n")
    (ws / "src").mkdir(parents=True)
    _build(ws, outside, entries)
    command = form.format(find=f"find src {expression}".strip())
    if _host(command, ws).verdict is not Verdict.ALLOW:
        return
    assert _host("grep -r K src", ws).verdict is Verdict.ALLOW
    for path in _listed(ws / "src"):
        named = _host(f"grep -l K -- {shlex.quote(path)}", ws)
        assert named.verdict is Verdict.ALLOW, (command, path, named.reasons)
        if "xargs" in command:
            assert not set(os.path.basename(path)) & set(" \t\n'\"\\")


# `for VAR in WORDS; do … "$VAR" …; done`: judged once per value on the host.


def test_a_loop_over_a_workspace_glob_is_judged_per_match(ws: Path) -> None:
    loop = 'for f in src/*.py; do grep -n TOKEN "$f"; done'
    assert _host(loop, ws).verdict is Verdict.ALLOW
    (ws / "src" / "id_rsa.py").symlink_to(ws.parent / "key")
    (ws.parent / "key").write_text("k\n")
    (ws / "src" / "z.py").symlink_to(ws.parent / "key")
    decision = _host(loop, ws)
    assert decision.verdict is not Verdict.ALLOW
    assert any("z.py" in r.message or "key" in r.message for r in decision.reasons)


def test_a_loop_value_naming_a_denied_file_denies(ws: Path) -> None:
    (ws / "src" / ".env").write_text("TOKEN=1\n")
    decision = _host('for f in src/app.py src/.env; do grep -n TOKEN "$f"; done', ws)
    assert decision.verdict is Verdict.DENY
    assert "path-denied" in _codes(decision)


def test_a_loop_with_too_many_values_asks_and_says_why(ws: Path) -> None:
    for i in range(70):
        (ws / "src" / f"m{i}.py").write_text("x\n")
    decision = _host('for f in src/*.py; do grep -n TOKEN "$f"; done', ws)
    assert decision.verdict is Verdict.ASK
    assert "loop-too-long" in _codes(decision)


def test_a_loop_variable_set_anywhere_else_stays_computed(ws: Path) -> None:
    for body in ['f=x; grep -n T "$f"', 'read -r f; grep -n T "$f"', 'grep -n T "$f"; f=y']:
        decision = _host(f"for f in src/*.py; do {body}; done", ws)
        assert "computed-path" in _codes(decision), body


@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(entries=st.lists(st.tuples(st.just(""), ENTRY, KIND), max_size=5))
def test_a_loop_the_host_allows_names_only_files_it_may_read(
    tmp_path_factory: pytest.TempPathFactory, entries: list[tuple[str, str, str]]
) -> None:
    base = tmp_path_factory.mktemp("loop")
    ws, outside = base / "proj", base / "outside"
    (outside / ".ssh").mkdir(parents=True)
    (outside / ".ssh" / "id_rsa").write_text("key\n")
    (outside / "plain.txt").write_text("x\n")
    (ws / "src").mkdir(parents=True)
    _build(ws, outside, entries)
    if _host('for f in src/*; do grep -n K "$f"; done', ws).verdict is not Verdict.ALLOW:
        return
    for name in os.listdir(ws / "src"):
        if not name.startswith("."):
            path = shlex.quote(f"src/{name}")
            assert _host(f"grep -n K {path}", ws).verdict is Verdict.ALLOW, name
