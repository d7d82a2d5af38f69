"""`python -m MODULE` on the host: the module's table judges its words, and a module of the
workspace is the workspace's own code (as `python script.py` is), with real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import evaluate
from safehold.policy.sandbox_config import SandboxConfig

AUTO_HOST = SafetyConfig(sandbox=SandboxConfig(mode="none")).with_mode("auto")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    ws = home / "proj"
    for package in ("mypkg", "mypkg/tests", "http", "django"):
        (ws / package).mkdir(parents=True)
        (ws / package / "__init__.py").write_text("")
    (ws / "mypkg" / "tests" / "test_json.py").write_text("def test_x(): pass\n")
    (ws / "single.py").write_text("print(1)\n")
    (ws / "loose").mkdir()  # a namespace directory: no __init__.py
    (ws / "loose" / "mod.py").write_text("print(1)\n")
    (ws / "sub").mkdir()
    return ws


def decide(command: str, ws: Path) -> Decision:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    return evaluate(AUTO_HOST, call, workspace=str(ws), runner="host")


@pytest.mark.parametrize(
    "command",
    [
        "python -m mypkg.tests.test_json",
        "python3 -u -m mypkg.tests.test_json -v",
        "python -m single",
        "cd sub && cd .. && python -m mypkg",
        "python -m unittest -v mypkg.tests.test_json",
        "python -m py_compile mypkg/tests/test_json.py",
        "python -c 'import mypkg'",
    ],
)
def test_the_workspaces_own_modules_run_on_the_host(command: str, ws: Path) -> None:
    decision = decide(command, ws)
    assert decision.verdict is Verdict.ALLOW, decision.reasons


@pytest.mark.parametrize(
    ("command", "why"),
    [
        # Not where Python runs: `sub` holds no `mypkg`.
        ("cd sub && python -m mypkg.tests.test_json", "no module there"),
        # A namespace directory loses to a regular package of that name on `sys.path`.
        ("python -m loose.mod", "namespace directory"),
        # A standard-library name is found before the workspace (`http` is imported early).
        ("python -m http.server", "standard library"),
        # `-I`, `-P` and `PYTHONSAFEPATH` keep the directory off `sys.path`.
        ("python -I -m mypkg", "isolated"),
        ("python -W ignore -P -m mypkg", "safe path"),
        ("PYTHONSAFEPATH=1 python -m mypkg", "safe path from the environment"),
        ("python -I -c 'import mypkg'", "isolated inline code"),
        ("python -Pc 'import mypkg'", "safe path in a cluster"),
        # A module with a table is read with it, even when the workspace holds it.
        ("python -m django shell -c 'import os'", "subcommand not in the table"),
    ],
)
def test_what_is_not_the_workspaces_module_asks(command: str, why: str, ws: Path) -> None:
    decision = decide(command, ws)
    assert decision.verdict is Verdict.ASK, why
    assert "not-understood" in {r.code for r in decision.reasons}, (why, decision.reasons)


@pytest.mark.parametrize(
    "command",
    [
        "python -m pytest --junit-xml=.git/hooks/pre-commit",
        "python3 -m sqlfluff fix .git/hooks/pre-commit --dialect ansi",
        "python -m pylint --output=.git/hooks/pre-commit mypkg",
        "python -m unittest discover -s ~/.ssh",
    ],
)
def test_a_modules_words_have_the_modules_roles(command: str, ws: Path) -> None:
    """The module's options and operands are judged as the program's would be."""
    (ws / ".git" / "hooks").mkdir(parents=True)
    assert decide(command, ws).verdict is not Verdict.ALLOW
    assert decide(command.split(" -m ", 1)[1], ws).verdict is not Verdict.ALLOW


def test_file_names_read_from_stdin_are_computed(ws: Path) -> None:
    (ws / "names.txt").write_text("/etc/shadow\n")
    decision = decide("python -m py_compile - < names.txt", ws)
    assert decision.verdict is not Verdict.ALLOW
    assert "computed-path" in {r.code for r in decision.reasons}, decision.reasons


def test_makemigrations_writes_unless_it_only_checks(ws: Path) -> None:
    assert decide("python -m django makemigrations --check --dry-run", ws).verdict is Verdict.ALLOW
    assert decide("python -m django makemigrations --dry-run", ws).verdict is Verdict.ALLOW
    writes = decide("python -m django makemigrations", ws)
    assert writes.verdict is Verdict.ASK
    assert "computed-path" in {r.code for r in writes.reasons}, writes.reasons
