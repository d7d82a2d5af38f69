"""Run every tests/corpus/*.toml through `evaluate` (default config, auto mode).

Each case names the verdict and the reason codes the decision must carry; see the header of
the corpus file for the tree it runs against.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.engine import evaluate
from safehold.policy.sandbox_config import SandboxConfig
from safehold.policy.shell import MAX_COMMAND_LENGTH

CORPUS_DIR = Path(__file__).parent.parent / "corpus"
# commands.toml holds the first rounds' groups; each later topic has a file of its own
# (same format, same tree), read in name order.
CORPORA = sorted(CORPUS_DIR.glob("*.toml"))
AUTO = SafetyConfig().with_mode("auto")
AUTO_NO_SANDBOX = AUTO.replace(sandbox=SandboxConfig(mode="none"))
UNSANDBOXED: list[Any] = []


def _cases() -> list[Any]:
    groups = [
        group
        for corpus in CORPORA
        for group in tomllib.loads(corpus.read_text(encoding="utf-8"))["group"]
    ]
    out = []
    for group in groups:
        for i, case in enumerate(group["cases"]):
            command = case["command"].replace("{{LONG}}", "x" * MAX_COMMAND_LENGTH)
            out.append(
                pytest.param(
                    command,
                    Verdict(case["verdict"]),
                    tuple(case.get("codes", ())),
                    id=f"{group['name']}-{i}",
                )
            )
            if "unsandboxed" in case:
                UNSANDBOXED.append(
                    pytest.param(
                        command,
                        Verdict(case["unsandboxed"]),
                        tuple(case.get("unsandboxed_codes", ())),
                        id=f"{group['name']}-{i}-unsandboxed",
                    )
                )
    return out


CASES = _cases()


def test_the_corpus_is_large_and_covers_both_sides() -> None:
    verdicts = [c.values[1] for c in CASES]
    assert len(CASES) >= 150
    assert verdicts.count(Verdict.ALLOW) >= 40
    assert verdicts.count(Verdict.DENY) >= 60
    assert verdicts.count(Verdict.ASK) >= 40


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("home")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("key")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("k")
    (home / ".bashrc").write_text("")
    ws = home / "proj"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "main.py").write_text("print(1)")
    (ws / "README.md").write_text("# x")
    (ws / ".env").write_text("TOKEN=x")
    (ws / "package.json").write_text("{}")
    (ws / "innocent").symlink_to(home / ".ssh" / "id_rsa")
    # round12-reach.toml: `deeplink` is a link two levels down, so `deeplink/..` is
    # `deep/a` for the kernel and `.` for `normpath`; beside it, a folder holding a
    # denied file, a link out of the workspace and a (dangling) link to `.vscode`.
    (ws / "deep" / "a" / "b").mkdir(parents=True)
    (ws / "deep" / "a" / "envdir").mkdir()
    (ws / "deep" / "a" / "envdir" / ".env").write_text("TOKEN=x")
    (home / "elsewhere").mkdir()
    (ws / "deep" / "a" / "out").symlink_to(home / "elsewhere")
    (ws / "deep" / "a" / "vs").symlink_to(ws / ".vscode")
    (ws / "deeplink").symlink_to(ws / "deep" / "a" / "b")
    return ws


@pytest.fixture
def home(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(workspace.parent))
    return workspace.parent


@pytest.mark.parametrize(("command", "verdict", "codes"), CASES)
def test_corpus_case(
    command: str, verdict: Verdict, codes: tuple[str, ...], workspace: Path, home: Path
) -> None:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    decision = evaluate(AUTO, call, workspace=str(workspace), runner="sandbox")
    got = {r.code for r in decision.reasons}
    assert decision.verdict is verdict, decision.reasons
    assert set(codes) <= got, decision.reasons


@pytest.mark.parametrize(("command", "verdict", "codes"), UNSANDBOXED)
def test_corpus_case_without_the_sandbox(
    command: str, verdict: Verdict, codes: tuple[str, ...], workspace: Path, home: Path
) -> None:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    decision = evaluate(AUTO_NO_SANDBOX, call, workspace=str(workspace))
    got = {r.code for r in decision.reasons}
    assert decision.verdict is verdict, decision.reasons
    assert set(codes) <= got, decision.reasons


def test_every_sandbox_dependent_case_asks_without_the_sandbox() -> None:
    """Without the sandbox a case is never looser than with it: `unsandboxed = "allow"`
    only for what the sandbox allows too (a command the tables understand in full)."""
    assert len(UNSANDBOXED) >= 15
    assert sum(c.values[1] is not Verdict.ALLOW for c in UNSANDBOXED) >= 15
    sandboxed = {str(c.id): c.values[1] for c in CASES}
    looser = [
        c.id
        for c in UNSANDBOXED
        if c.values[1] is Verdict.ALLOW
        and sandboxed[str(c.id).removesuffix("-unsandboxed")] is not Verdict.ALLOW
    ]
    assert not looser, looser
    assert sum(c.values[1] is Verdict.ALLOW for c in UNSANDBOXED) >= 5  # benign host allows
