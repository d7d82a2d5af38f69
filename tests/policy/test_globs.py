"""Brace and glob expansion for the denied-path check, on real trees (bash's defaults)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from safehold.policy._globs import MAX_EXPANSIONS, expand_braces, expand_globs, has_expansion
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.paths import compile_policy, list_directory
from safehold.policy.shell.assess import CommandAssessment, assess_command

AUTO = SafetyConfig().with_mode("auto")


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    ws = home / "proj"
    (home / ".gnupg").mkdir(parents=True)
    (home / ".gnupg" / "secring.gpg").write_text("k")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("k")
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "main.py").write_text("print(1)")
    (ws / "src" / "util.py").write_text("print(2)")
    (ws / ".env").write_text("TOKEN=x")
    monkeypatch.setenv("HOME", str(home))
    return ws


def assess(command: str, ws: Path) -> CommandAssessment:
    return assess_command(command, config=AUTO, policy=compile_policy(AUTO, str(ws)))


@pytest.mark.parametrize(
    "command",
    [
        "tar czf out.tgz ~/.gnup?",
        "tar czf out.tgz ~/.gnu*",
        "tar czf out.tgz ~/.{gnupg,nothing}",
        "cat {~/.gnupg,x}/secring.gpg",
        "cat ~/.g*/*",
        "cat ~/.*/*",
        "cp ~/.a[w-x]s/cred* .",
        "cat ~/.[^x]ws/credentials",
        "cat .e*",
        "cat ./.e?v",
        "cat $HOME/.gnup?/secring.gpg",
    ],
)
def test_globs_and_braces_that_reach_a_denied_file_are_denied(tree: Path, command: str) -> None:
    a = assess(command, tree)
    assert a.verdict is Verdict.DENY, a.reasons
    assert any(r.code == "path-denied" and "expands to" in r.message for r in a.reasons)


@pytest.mark.parametrize(
    "command", ["ls src/*.py", "wc -l src/{main,util}.py", "ls ~/.nothing*/x", "ls *.py"]
)
def test_globs_that_reach_no_denied_file_have_no_objection(tree: Path, command: str) -> None:
    a = assess(command, tree)
    if "~" in command:
        # No glob objection; the home directory is outside the roots, so the read asks.
        assert a.verdict is Verdict.ASK, a.reasons
        assert {r.code for r in a.reasons} == {"path-outside-read"}, a.reasons
    else:
        assert a.verdict is Verdict.ALLOW, a.reasons


def test_star_does_not_match_dotfiles_like_bash(tree: Path) -> None:
    # bash without dotglob: `*` skips `.env`, so `cat *` does not read it.
    matches = expand_globs(str(tree / "*"), list_directory)
    assert matches is not None
    assert sorted(Path(m).name for m in matches) == ["src"]


def test_expansion_agrees_with_real_bash(tree: Path) -> None:
    # Differential: what bash itself expands these words to, in the same tree.
    for word in ["src/*.py", ".e*", "src/{main,util}.py", "s?c/m*", "*/*", ".[e]nv"]:
        out = subprocess.run(
            ["bash", "--norc", "--noprofile", "-c", f"shopt -s nullglob; printf '%s\\n' {word}"],
            cwd=tree,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        ours: list[str] = []
        for w in expand_braces(word) or []:
            found = expand_globs(str(tree / w), list_directory)
            assert found is not None
            ours.extend(str(Path(f).relative_to(tree)) for f in found)
        assert sorted(ours) == sorted(out), word


def test_brace_expansion() -> None:
    assert sorted(expand_braces("a{b,c{d,e}}f") or []) == ["abf", "acdf", "acef"]
    assert sorted(expand_braces("x{1..3}") or []) == ["x1", "x2", "x3"]
    assert expand_braces("x{a}y") == ["x{a}y"]
    assert expand_braces("{a,b") == ["{a,b"]
    assert expand_braces("{" + ",".join(str(i) for i in range(MAX_EXPANSIONS + 1)) + "}") is None


def test_too_many_entries_is_unknown_and_asks(tree: Path) -> None:
    big = tree / "big"
    big.mkdir()
    for i in range(5000):
        (big / f"f{i}").touch()
    assert expand_globs(str(big / "*"), list_directory) is None
    a = assess("cat big/*", tree)
    assert a.verdict is not Verdict.ALLOW
    assert any(r.code == "glob-unchecked" for r in a.reasons)


def test_has_expansion() -> None:
    assert has_expansion("*.py") and has_expansion("a{b,c}") and has_expansion("x[ab]")
    assert not has_expansion("plain/path.txt")
