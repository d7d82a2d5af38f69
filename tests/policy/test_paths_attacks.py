"""The attack corpus: ways to reach a denied or outside file, each on a real tree.

Every case must come out DENY (or ASK where the SPEC says so), never ALLOW. `{root}`,
`{ws}` and `{home}` in a case are the tree's root, the workspace and `$HOME`.
Background: research/policy.md §A.3 (the attack table) and research/aar.md §10.1.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.engine import evaluate
from safehold.policy.paths import compile_policy
from tests.strategies import make_tree

NFC = unicodedata.normalize("NFC", "café")
NFD = unicodedata.normalize("NFD", "café")


@dataclass(frozen=True)
class Case:
    raw: str
    access: str = "read"
    verdict: Verdict = Verdict.DENY
    code: str = "path-denied"  # a reason code the verdict must carry
    config: dict[str, object] = field(default_factory=dict)


SECRET = {"denied_paths": ["{root}/secret/"]}
NO_ROOTS = {"allowed_paths": []}

CASES: dict[str, Case] = {
    # symlinks
    "file link inside ws to a denied file": Case("link_secret", config=SECRET),
    "file link to a denied file, write": Case("link_secret", "write", config=SECRET),
    "link named innocently to .env": Case("notes.txt"),
    "link named .env to an innocent file": Case("x/.env", "write"),
    "dir link out of ws, read existing": Case(
        "link_out/file.txt", verdict=Verdict.ASK, code="path-outside-read"
    ),
    "dir link out of ws, write existing": Case(
        "link_out/file.txt", "write", code="path-outside-allowed"
    ),
    "dir link out of ws, write new file": Case(
        "link_out/new.txt", "write", code="path-outside-allowed"
    ),
    "dir link out of ws, new file in new dir": Case(
        "link_out/newdir/deeper/new.txt", "write", code="path-outside-allowed"
    ),
    "dangling link, create its target": Case("dangling", "write", code="path-outside-allowed"),
    "dir link then .. (lexical would stay inside)": Case(
        "link_out/../secret/key.txt", config={**SECRET, **NO_ROOTS}
    ),
    # lexical tricks
    "dot-dot out of ws": Case(
        "sub/../../outside/file.txt", verdict=Verdict.ASK, code="path-outside-read"
    ),
    "dot-dot through a real dir": Case("src/../../secret/key.txt", config=SECRET),
    "double leading slash": Case("//etc/shadow", config=NO_ROOTS),
    "triple leading slash": Case("///etc/shadow", config=NO_ROOTS),
    "dot segment": Case("/etc/./shadow", config=NO_ROOTS),
    "doubled inner slash": Case("/etc//shadow", config=NO_ROOTS),
    "trailing slash": Case("/etc/shadow/", config=NO_ROOTS),
    "trailing slash-dot": Case(".env/.", "write"),
    "dot-slash prefix": Case("./.env"),
    "trailing dot on name": Case(".env.", "write"),
    "bare .ssh directory": Case("{home}/.ssh", config=NO_ROOTS),
    "ssh dir with trailing dot": Case("{home}/.ssh/.", config=NO_ROOTS),
    # home
    "tilde ssh key": Case("~/.ssh/id_rsa", config=NO_ROOTS),
    "home-absolute ssh key": Case("{home}/.ssh/id_rsa", config=NO_ROOTS),
    "tilde alone is outside": Case("~", verdict=Verdict.ASK, code="path-outside-read"),
    "other user's home": Case("~root/.ssh/id_rsa", code="path-invalid"),
    # case and unicode
    "upper-case .ENV, case-insensitive": Case(".ENV", config={"case_insensitive_paths": True}),
    "mixed-case .Ssh, case-insensitive": Case(
        "x/.Ssh/id_rsa", config={"case_insensitive_paths": True}
    ),
    "upper-case KEY.PEM, case-insensitive": Case(
        "KEY.PEM", "write", config={"case_insensitive_paths": True}
    ),
    "NFD name vs NFC pattern": Case(f"{NFD}/menu", config={"denied_paths": [f"{NFC}/"]}),
    "NFC name vs NFD pattern": Case(f"{NFC}/menu", config={"denied_paths": [f"{NFD}/"]}),
    "bidi override in a name": Case("a\u202egnp.env", code="path-invalid"),
    "NUL byte": Case(".env\x00.txt", code="path-invalid"),
    "newline": Case("a\n/etc/shadow", code="path-invalid"),
    "file URL": Case("file:///etc/shadow", code="path-invalid"),
    "file URL, upper-case scheme": Case("FILE://localhost/etc/shadow", code="path-invalid"),
    # roots
    "sibling sharing the prefix": Case("{ws}2/x", verdict=Verdict.ASK, code="path-outside-read"),
    "sibling sharing the prefix, write": Case("{ws}2/x", "write", code="path-outside-allowed"),
    "parent of the workspace": Case("{root}", verdict=Verdict.ASK, code="path-outside-read"),
    # magic aliases
    "proc self root": Case("/proc/self/root/etc/passwd", code="path-magic-alias", config=NO_ROOTS),
    "proc self cwd": Case("/proc/self/cwd/.env", code="path-magic-alias", config=NO_ROOTS),
    "proc pid environ": Case("/proc/1/environ", code="path-magic-alias", config=NO_ROOTS),
    "proc thread-self": Case("/proc/thread-self/root/x", code="path-magic-alias", config=NO_ROOTS),
    "dev fd": Case("/dev/fd/0", code="path-magic-alias", config=NO_ROOTS),
    "dev stdin": Case("/dev/stdin", code="path-magic-alias", config=NO_ROOTS),
    "bash dev tcp": Case("/dev/tcp/10.0.0.1/4444", "write", "deny", "path-magic-alias", NO_ROOTS),
    "link into proc self": Case("procroot/etc/passwd", code="path-magic-alias", config=NO_ROOTS),
    # asks
    "write to .git": Case(".git/config", "write", Verdict.ASK, "path-protected"),
    "write to .git through a link": Case("gitlink/config", "write", Verdict.ASK, "path-protected"),
    "write to a shell rc file": Case(".bashrc", "write", Verdict.ASK, "path-protected"),
    "write to a github workflow": Case(
        ".github/workflows/ci.yml", "write", Verdict.ASK, "path-protected"
    ),
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    ws = make_tree(str(tmp_path))
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("key")
    monkeypatch.setenv("HOME", str(home))
    os.symlink(".env", os.path.join(ws, "notes.txt"))
    os.makedirs(os.path.join(ws, "x"))
    os.symlink("../src/main.py", os.path.join(ws, "x", ".env"))
    os.symlink("/proc/self/root", os.path.join(ws, "procroot"))
    os.symlink(".git", os.path.join(ws, "gitlink"))
    return {"root": str(tmp_path), "ws": ws, "home": str(home)}


def _fill(value: object, tree: dict[str, str]) -> object:
    if isinstance(value, str):
        for key, sub in tree.items():
            value = value.replace("{" + key + "}", sub)
        return value
    if isinstance(value, list):
        return [_fill(v, tree) for v in value]
    return value


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_attack_is_never_allowed(case: Case, tree: dict[str, str]) -> None:
    config = SafetyConfig(**{k: _fill(v, tree) for k, v in case.config.items()})  # type: ignore[arg-type]
    raw = _fill(case.raw, tree)
    result = compile_policy(config, tree["ws"]).check_path(raw, case.access)  # type: ignore[arg-type]
    assert result.verdict is Verdict(case.verdict), result.reasons
    assert case.code in {r.code for r in result.reasons}, result.reasons


def test_relative_path_resolves_against_the_workspace_when_the_cwd_differs(
    tree: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # From the process cwd `outside/`, `link_secret` does not exist and would look harmless.
    monkeypatch.chdir(os.path.join(tree["root"], "outside"))
    config = SafetyConfig(denied_paths=[f"{tree['root']}/secret/"], allowed_paths=[])
    result = compile_policy(config, tree["ws"]).check_path("link_secret", "read")
    assert result.verdict is Verdict.DENY
    assert [r.code for r in result.reasons] == ["path-denied"]


def test_workspace_with_glob_characters_does_not_allow_its_siblings(tmp_path: Path) -> None:
    ws = tmp_path / "w*[s]?"
    ws.mkdir()
    for sibling in ("wXs1", "ws_", "w[s]?"):
        (tmp_path / sibling).mkdir()
        result = compile_policy(SafetyConfig(), str(ws)).check_path(
            str(tmp_path / sibling / "f"), "write"
        )
        assert result.verdict is Verdict.DENY, sibling
    inside = compile_policy(SafetyConfig(), str(ws)).check_path("f", "write")
    assert inside.verdict is Verdict.ALLOW


@pytest.mark.parametrize(
    "arguments",
    [
        {"file_path": ".env"},
        {"dst": ".env", "src": "src/main.py"},
        {"target": "link_secret"},
        {"cwd": "link_out/.env"},
        {"paths": ["src/main.py", "a/b/notes.md", ".env"]},
        {"edits": [{"file_path": "src/main.py"}, {"file_path": ".env"}]},
        {"options": {"output": {"path": ".env"}}},
    ],
    ids=["file_path", "dst", "target", "cwd", "list-last-denied", "nested-edits", "deep-nested"],
)
def test_paths_under_other_argument_names_are_checked(
    arguments: dict[str, object], tree: dict[str, str]
) -> None:
    for kind in (ToolKind.READ, ToolKind.EDIT, ToolKind.OTHER, ToolKind.FETCH):
        call = ToolCall("tool", arguments, kind)
        decision = evaluate(SafetyConfig(), call, workspace=tree["ws"])
        assert decision.verdict is Verdict.DENY, (kind, decision)


def test_declared_path_arguments_and_acp_locations_are_checked(tree: dict[str, str]) -> None:
    declared = ToolCall("nb", {"notebook": ".env"}, ToolKind.READ, path_args=("notebook",))
    assert evaluate(SafetyConfig(), declared, workspace=tree["ws"]).verdict is Verdict.DENY
    # Found by value too: `.env` looks like a path under any name that is not free text.
    undeclared = ToolCall("nb", {"notebook": ".env"}, ToolKind.READ)
    assert evaluate(SafetyConfig(), undeclared, workspace=tree["ws"]).verdict is Verdict.DENY
    text = ToolCall("nb", {"content": ".env"}, ToolKind.READ)
    assert evaluate(SafetyConfig(), text, workspace=tree["ws"]).verdict is Verdict.ALLOW
    located = ToolCall("edit", {"text": "x"}, ToolKind.EDIT, locations=("src/main.py", ".env"))
    assert evaluate(SafetyConfig(), located, workspace=tree["ws"]).verdict is Verdict.DENY


@pytest.mark.parametrize(
    "arguments",
    [
        {"filePath": "{home}/.ssh/id_rsa"},
        {"FILE_PATH": "{home}/.ssh/id_rsa"},
        {"Path": "{home}/.ssh/id_rsa"},
        {"target_file": "{home}/.ssh/id_rsa"},
        {"targetFile": "{home}/.ssh/id_rsa"},
        {"notebookPath": "{ws}/.env"},
        {"pathname": "{home}/.ssh/id_rsa"},
        {"folder": "{home}/.ssh"},
        {"outputDir": "{home}/.ssh"},
        {"newPath": "{home}/.ssh/authorized_keys", "path": "{ws}/ok.txt"},
        {"uri": "file://{home}/.ssh/id_rsa"},
        {"url": "{home}/.ssh/id_rsa"},
        {"opts": {"sourceFile": "{ws}/.env"}},
    ],
    ids=lambda a: next(iter(a)),
)
def test_issue_3_paths_under_camel_case_and_suffixed_names_are_checked(
    arguments: dict[str, object], tree: dict[str, str]
) -> None:
    # Only exact snake_case names were recognised: `{"filePath": "~/.ssh/id_rsa"}` was ALLOW.
    def fill(value: object) -> object:
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        return str(value).format(home=tree["home"], ws=tree["ws"])

    call = ToolCall("tool", fill(arguments), ToolKind.READ)  # type: ignore[arg-type]
    decision = evaluate(SafetyConfig().with_mode("auto"), call, workspace=tree["ws"])
    assert decision.verdict is Verdict.DENY, decision


def test_issue_3_a_move_tools_from_and_to_are_paths(tree: dict[str, str]) -> None:
    call = ToolCall("mv", {"from": "ok.txt", "to": "/tmp/elsewhere"}, ToolKind.MOVE)
    decision = evaluate(SafetyConfig().with_mode("auto"), call, workspace=tree["ws"])
    assert decision.verdict is Verdict.DENY
    assert {r.code for r in decision.reasons} == {"path-outside-allowed"}


def test_issue_3_remote_urls_are_not_paths(tree: dict[str, str]) -> None:
    call = ToolCall("fetch", {"url": "https://example.com/.env.example"}, ToolKind.FETCH)
    decision = evaluate(SafetyConfig().with_mode("auto"), call, workspace=tree["ws"])
    assert decision.verdict is Verdict.ALLOW


@pytest.mark.parametrize(
    "arguments",
    [
        {"input": "*** Begin Patch\n*** Add File: ../../outside.txt\n+x\n*** End Patch"},
        {"input": "*** Begin Patch\n*** Update File: .env\n@@\n-a\n+b\n*** End Patch"},
        {"patch": "*** Update File: ok.txt\n*** Move to: {home}/.bashrc\n"},
        {"diff": "--- a/ok.txt\n+++ b/../../../etc/cron.d/x\n@@ -1 +1 @@\n-a\n+b\n"},
        {"changes": "diff --git a/ok.txt b/.env\nrename from ok.txt\nrename to .env\n"},
        {"text": "*** Begin Patch\n*** Delete File: {home}/.ssh/id_rsa\n*** End Patch"},
    ],
)
def test_issue_3_files_named_inside_patch_arguments_are_checked(
    arguments: dict[str, str], tree: dict[str, str]
) -> None:
    # An apply_patch-style tool edits the files its patch names; they were never checked.
    filled = {k: v.replace("{home}", tree["home"]) for k, v in arguments.items()}
    call = ToolCall("apply_patch", filled, ToolKind.EDIT)
    decision = evaluate(SafetyConfig().with_mode("auto"), call, workspace=tree["ws"])
    assert decision.verdict is Verdict.DENY, decision


def test_issue_3_a_patch_inside_the_workspace_is_allowed(tree: dict[str, str]) -> None:
    patch = "*** Begin Patch\n*** Update File: src/main.py\n@@\n-a\n+b\n*** End Patch"
    call = ToolCall("apply_patch", {"input": patch}, ToolKind.EDIT)
    decision = evaluate(SafetyConfig().with_mode("auto"), call, workspace=tree["ws"])
    assert decision.verdict is Verdict.ALLOW, decision
