"""Commands that read whole trees, without the sandbox: a denied file below is seen.

`grep -r KEY .` reads `./.env` though no word names it. With `sandbox.mode = "none"` (and in
every hook, whose agent runs the command on the host) the assessment walks the tree
(bounded) and asks; with the sandbox, which masks such files, it does not. Real temporary
trees, real symlinks.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.policy import tree_scan
from safehold.policy.decision import Decision
from tests.strategies import allowed_but_for_vocabulary, examples, runner_for

AUTO = SafetyConfig().with_mode("auto")
HOST = AUTO.without_sandbox()

# Every program the tree table knows, in the spelling that makes it walk `.`.
WALKERS = [
    "grep -r TOKEN .",
    "grep -R TOKEN",
    "grep -rn TOKEN",
    "grep --recursive TOKEN .",
    "egrep -r 'A|B' .",
    "rg --hidden TOKEN",
    "rg -uu TOKEN .",
    "ag --hidden TOKEN",
    "ack TOKEN",
    "tar czf out.tgz .",
    "tar -c -f out.tar .",
    "zip -r out.zip .",
    "cp -r . ../backup",
    "cp -a . ../backup",
    "rsync -a . host:/backup",
    "scp -r . host:/backup",
    "git add -A",
    "git add .",
    "git add --all -- .",
]


def _decide(config: SafetyConfig, command: str, ws: Path) -> Decision:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    return evaluate(config, call, workspace=str(ws), runner=runner_for(config))


def _codes(decision: Decision) -> set[str]:
    return {r.code for r in decision.reasons}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "deep" / "er").mkdir(parents=True)
    (root / "src" / "app.py").write_text("TOKEN = load()\n")
    (root / "src" / "deep" / "er" / ".env").write_text("TOKEN=sk-live\n")
    return root


@pytest.mark.parametrize("command", WALKERS)
def test_a_tree_reader_sees_a_denied_file_deep_in_the_tree(ws: Path, command: str) -> None:
    host = _decide(HOST, command, ws)
    assert "tree-holds-denied" in _codes(host), host
    assert any("src/deep/er/.env" in r.message for r in host.reasons)
    # In the sandbox the file is masked: no walk, no such reason.
    assert "tree-holds-denied" not in _codes(_decide(AUTO, command, ws))


@pytest.mark.parametrize(
    "command",
    [
        "grep TOKEN src/app.py",  # no -r: one file
        "grep -r TOKEN src/app.py",  # a file operand is not a tree
        "cp src/app.py ../copy.py",
        "tar tzf out.tgz",  # listing an archive reads no tree
        "rg TOKEN",  # rg leaves hidden files out: `.env` is hidden
        "git status",
    ],
)
def test_what_reads_no_tree_with_a_denied_file_is_not_asked_about(ws: Path, command: str) -> None:
    assert "tree-holds-denied" not in _codes(_decide(HOST, command, ws))


def test_rg_reads_a_denied_file_that_is_not_hidden(ws: Path) -> None:
    (ws / "keys").mkdir()
    (ws / "keys" / "id_rsa").write_text("key\n")
    assert "tree-holds-denied" in _codes(_decide(HOST, "rg TOKEN", ws))


def test_a_search_reads_only_its_directory_operand(ws: Path) -> None:
    (ws / "docs").mkdir()
    (ws / "docs" / "a.md").write_text("TOKEN\n")
    assert allowed_but_for_vocabulary(_decide(HOST, "grep -r TOKEN docs", ws))
    assert "tree-holds-denied" in _codes(_decide(HOST, "grep -r TOKEN docs src", ws))


def test_links_are_followed_only_by_programs_that_follow_them(ws: Path, tmp_path: Path) -> None:
    secret_home = tmp_path / "home"
    (secret_home / ".ssh").mkdir(parents=True)
    (secret_home / ".ssh" / "id_ed25519").write_text("key\n")
    (ws / "src" / "deep" / "er" / ".env").unlink()
    os.symlink(secret_home / ".ssh" / "id_ed25519", ws / "src" / "key-link")
    os.symlink(secret_home, ws / "src" / "home-link")
    # grep -r does not follow links inside the tree; grep -R and cp -rL do.
    assert "tree-holds-denied" not in _codes(_decide(HOST, "grep -r TOKEN .", ws))
    followed = _decide(HOST, "grep -R TOKEN .", ws)
    assert "tree-holds-denied" in _codes(followed), followed
    assert "tree-holds-denied" in _codes(_decide(HOST, "cp -rL src ../copy", ws))


def test_a_link_loop_ends(ws: Path) -> None:
    os.symlink(ws, ws / "src" / "loop")
    decision = _decide(HOST, "grep -R TOKEN .", ws)
    assert "tree-holds-denied" in _codes(decision)


def _repository(ws: Path, ignore: str) -> None:
    (ws / ".git" / "info").mkdir(parents=True)
    (ws / ".gitignore").write_text(ignore)


@pytest.mark.parametrize("command", ["git add -A", "git add .", "rg TOKEN", "rg --hidden TOKEN"])
def test_what_gitignore_ignores_is_not_read_by_git_add_or_rg(ws: Path, command: str) -> None:
    (ws / "keys").mkdir()
    (ws / "keys" / "id_rsa").write_text("key\n")
    _repository(ws, "")
    assert "tree-holds-denied" in _codes(_decide(HOST, command, ws))
    (ws / ".gitignore").write_text(".env\nkeys/\n")
    assert allowed_but_for_vocabulary(_decide(HOST, command, ws))
    # `--force` / `--no-ignore` read what is ignored too.
    forced = command.replace("git add", "git add -f").replace("rg", "rg --no-ignore --hidden")
    assert "tree-holds-denied" in _codes(_decide(HOST, forced, ws))


def test_git_add_all_from_a_subdirectory_stages_the_whole_work_tree(ws: Path) -> None:
    _repository(ws, "")
    (ws / "keys").mkdir()
    (ws / "keys" / "id_rsa").write_text("key\n")
    call = ToolCall("bash", {"command": "git add -A", "cwd": "src/deep"}, ToolKind.EXECUTE)
    decision = evaluate(HOST, call, workspace=str(ws))
    assert any("keys/id_rsa" in r.message for r in decision.reasons), decision


@pytest.mark.parametrize("command", ["git add -A", "git add --all", "git add ':/'"])
def test_a_workspace_below_the_repository_top_stages_outside_it(ws: Path, command: str) -> None:
    # The workspace is `repo/src`: `git add -A` stages `repo/.env` too, which no word names
    # and the roots leave out, so it asks as a read there; `git add .` stays in the roots.
    _repository(ws, "")
    (ws / ".env").write_text("TOKEN=sk-live\n")
    (ws / "src" / "deep" / "er" / ".env").unlink()
    inner = ws / "src"
    decision = _decide(HOST, command, inner)
    assert decision.verdict.value == "ask", decision
    assert "path-outside-read" in _codes(decision)
    assert allowed_but_for_vocabulary(_decide(HOST, "git add .", inner))


def test_a_fifo_gitignore_does_not_hang_the_decision(ws: Path) -> None:
    (ws / ".git").mkdir()
    os.mkfifo(ws / ".gitignore")
    assert "tree-holds-denied" in _codes(_decide(HOST, "git add -A", ws))


def test_templates_are_not_secrets(ws: Path) -> None:
    (ws / "src" / "deep" / "er" / ".env").rename(ws / "src" / "deep" / "er" / ".env.example")
    assert allowed_but_for_vocabulary(_decide(HOST, "grep -r TOKEN .", ws))


def test_a_tree_too_large_to_look_through_asks(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (ws / "src" / "deep" / "er" / ".env").unlink()
    for i in range(30):
        (ws / "src" / f"f{i}.py").write_text("x\n")
    assert allowed_but_for_vocabulary(_decide(HOST, "grep -r TOKEN .", ws))
    monkeypatch.setattr(tree_scan, "MAX_TREE_ENTRIES", 10)
    decision = _decide(HOST, "grep -r TOKEN .", ws)
    assert decision.verdict.value == "ask" and _codes(decision) - {"not-understood"} == {
        "tree-unchecked"
    }


def test_the_walks_of_one_command_share_one_budget(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "src" / "deep" / "er" / ".env").unlink()
    for i in range(30):
        (ws / "src" / f"f{i}.py").write_text("x\n")
    monkeypatch.setattr(tree_scan, "MAX_TREE_ENTRIES", 40)
    # One directory named a thousand times is walked once: within the budget.
    assert allowed_but_for_vocabulary(_decide(HOST, "grep -r TOKEN" + " ." * 1000, ws))
    # Two different walks of it (hidden files and .gitignore differ) need twice the entries.
    both = _decide(HOST, "grep -r TOKEN . && rg --hidden TOKEN .", ws)
    assert both.verdict.value == "ask" and _codes(both) - {"not-understood"} == {"tree-unchecked"}


NAMES = st.text(alphabet="abcdefgh_-", min_size=1, max_size=8)
SECRETS = st.sampled_from([".env", ".env.local", "id_rsa", "server.pem", ".netrc", "id_ed25519"])


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    depth=st.lists(NAMES, min_size=0, max_size=5),
    secret=SECRETS,
    noise=st.lists(NAMES, max_size=10),
    command=st.sampled_from(WALKERS),
)
def test_without_the_sandbox_a_denied_file_anywhere_in_a_walked_tree_is_never_allowed(
    tmp_path_factory: pytest.TempPathFactory,
    depth: list[str],
    secret: str,
    noise: list[str],
    command: str,
) -> None:
    ws = tmp_path_factory.mktemp("tree") / "proj"
    ws.mkdir()
    for name in noise:
        (ws / f"{name}.txt").write_text("x\n")
    where = ws.joinpath(*depth)
    where.mkdir(parents=True, exist_ok=True)
    (where / secret).write_text("secret\n")
    decision = _decide(HOST, command, ws)
    if command.startswith(("rg ", "ag ")) and "--hidden" not in command and "-uu" not in command:
        return
    assert decision.verdict.value != "allow", (command, depth, secret)


COMPONENTS = st.sampled_from(
    [
        "src", "a", ".env", ".env.local", ".env.example", "id_rsa", "key.pem", ".ssh",
        ".netrc", ".bash_history", "credentials", ".aws", "config", ".git", "secrets",
        "x.key", "notes_history", ".npmrc", "app.py", "id_ed25519.pub", ".gnupg",
    ]
)  # fmt: skip


@given(st.lists(COMPONENTS, min_size=1, max_size=6))
def test_the_walks_prefilter_never_drops_a_match(parts: list[str]) -> None:
    """`may_hold` over the directory and the name, or `may_match_rest`, holds for every path
    the compiled denied patterns match: skipping the others loses nothing."""
    from safehold.policy.paths import compile_policy

    policy = compile_policy(HOST, "/work/proj")
    for base in ("/work/proj", policy.home):
        path = "/".join((base, *parts))
        if policy.denied.match((path,)):
            directory, _, name = path.rpartition("/")
            held = policy.denied.may_hold(directory.split("/"))
            assert held or policy.denied.may_hold((name,)) or policy.denied.may_match_rest(path)


def test_a_linked_directory_is_walked_when_the_program_follows_links(
    ws: Path, tmp_path: Path
) -> None:
    # Only the directory is a link; the key inside it is a plain file.
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "id_rsa").write_text("key\n")
    (ws / "src" / "deep" / "er" / ".env").unlink()
    os.symlink(outside, ws / "src" / "linked")
    followed = _decide(HOST, "grep -R TOKEN .", ws)
    # The link leads out of the roots: following it is a read there, which asks already.
    assert {"tree-holds-denied", "path-outside-read"} & _codes(followed), followed
    assert any("linked" in r.message or "id_rsa" in r.message for r in followed.reasons)
    plain = _codes(_decide(HOST, "grep -r TOKEN .", ws))
    assert not {"tree-holds-denied", "path-outside-read"} & plain


def test_names_fold_under_case_insensitive_paths(ws: Path) -> None:
    (ws / "src" / "deep" / "er" / ".env").rename(ws / "src" / "deep" / "er" / "ID_RSA")
    folding = HOST.replace(case_insensitive_paths=True)
    decision = _decide(folding, "grep -r TOKEN .", ws)
    assert "tree-holds-denied" in _codes(decision), decision
    exact = HOST.replace(case_insensitive_paths=False)
    assert "tree-holds-denied" not in _codes(_decide(exact, "grep -r TOKEN .", ws))


def _keys(ws: Path) -> None:
    (ws / "src" / "deep" / "er" / ".env").unlink()
    (ws / "keys").mkdir()
    (ws / "keys" / "id_rsa").write_text("key\n")


def test_a_linked_gitignore_is_not_followed(ws: Path, tmp_path: Path) -> None:
    _keys(ws)
    _repository(ws, "")
    (ws / ".gitignore").unlink()
    planted = tmp_path / "planted-ignore"
    planted.write_text("keys/\n")
    os.symlink(planted, ws / ".gitignore")
    assert "tree-holds-denied" in _codes(_decide(HOST, "git add -A", ws))


def test_a_fifo_gitignore_with_a_writer_is_not_read(ws: Path) -> None:
    _keys(ws)
    (ws / ".git").mkdir()
    os.mkfifo(ws / ".gitignore")
    # Held open by a writer that has already written: a read would not block, and would
    # return `keys/`, which ignores the key.
    fd = os.open(ws / ".gitignore", os.O_RDWR | os.O_NONBLOCK)
    try:
        os.write(fd, b"keys/\n")
        assert "tree-holds-denied" in _codes(_decide(HOST, "git add -A", ws))
    finally:
        os.close(fd)


def test_a_negation_brings_back_a_file_git_stages(ws: Path) -> None:
    _keys(ws)
    _repository(ws, "keys/*\n!keys/id_rsa\n")
    decision = _decide(HOST, "git add -A", ws)
    assert any("keys/id_rsa" in r.message for r in decision.reasons), decision
    (ws / ".gitignore").write_text("keys/*\n")
    assert _decide(HOST, "git add -A", ws).verdict.value == "allow"


def test_a_gitignore_too_long_to_read_whole_is_not_honoured(ws: Path) -> None:
    _keys(ws)
    _repository(ws, "keys/\n" + "#" * (64 * 1024) + "\n")
    assert "tree-holds-denied" in _codes(_decide(HOST, "git add -A", ws))


@pytest.mark.parametrize(
    "command",
    ["diff -r src ../other", "diff --recursive src ../other", "git grep --no-index TOKEN",
     "git grep --untracked TOKEN", "git grep --no-index -n TOKEN src"],
)  # fmt: skip
def test_diff_r_and_git_grep_outside_the_index_read_the_tree(ws: Path, command: str) -> None:
    _repository(ws, "")
    host = _decide(HOST, command, ws)
    assert "tree-holds-denied" in _codes(host), host
    assert "tree-holds-denied" not in _codes(_decide(AUTO, command, ws))


def test_git_grep_of_the_index_reads_no_tree(ws: Path) -> None:
    _repository(ws, "")
    assert "tree-holds-denied" not in _codes(_decide(HOST, "git grep TOKEN", ws))
