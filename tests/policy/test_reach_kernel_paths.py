"""`..` after a link: where the kernel takes a path, not where `normpath` does.

`deeplink` is a link two levels down (`deep/a/b`): for the kernel `deeplink/..` is
`deep/a`, for `normpath` it is `.`. Beside `deep/a/b` lie a link to `.git` and one out of
the workspace. bash's `cd` falls back to chdir(2) with the text as written when the logical
directory cannot be entered; a program's `-C DIR` and the call's `cwd` are chdir(2) outright;
a written operand is opened as written. Real links in a temporary tree; every call is
judged by `evaluate` in auto mode for the host, where nothing else confines the command.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.policy.decision import Verdict
from safehold.policy.paths import kernel_path

AUTO = SafetyConfig().with_mode("auto")
_RANK = {Verdict.ALLOW: 0, Verdict.ASK: 1, Verdict.DENY: 2}


def _tree(root: Path) -> Path:
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "config").write_text("Host x")
    (home / "elsewhere").mkdir()
    ws = home / "proj"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]")
    (ws / "src").mkdir()
    (ws / "README.md").write_text("# x")
    (ws / "deep" / "a" / "b").mkdir(parents=True)
    (ws / "deep" / "a" / "g").symlink_to(ws / ".git")
    (ws / "deep" / "a" / "out").symlink_to(home / "elsewhere")
    (ws / "deep" / "a" / "keys").symlink_to(home / ".ssh")
    (ws / "deeplink").symlink_to(ws / "deep" / "a" / "b")
    return ws


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    workspace = _tree(tmp_path_factory.mktemp("kernel"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(workspace.parent))
        yield workspace


def _decide(ws: Path, command: str, **extra: str) -> Verdict:
    call = ToolCall("bash", {"command": command, **extra}, ToolKind.EXECUTE)
    return evaluate(AUTO, call, workspace=str(ws), runner="host").verdict


def test_kernel_path_climbs_from_the_target_of_a_link(ws: Path) -> None:
    assert kernel_path(f"{ws}/deeplink/../g/config") == f"{ws}/deep/a/g/config"
    assert kernel_path(f"{ws}/deeplink/../../README.md") == f"{ws}/deep/README.md"
    # No link before the `..`: the lexical form, as `normpath` spells it.
    assert kernel_path(f"{ws}/src/../deep/./a//b") == f"{ws}/deep/a/b"
    assert kernel_path(f"{ws}/nothing/here/../x") == f"{ws}/nothing/x"
    # The names after the last `..` stay as spelled: a link there is judged by its name too.
    assert kernel_path(f"{ws}/src/../deeplink") == f"{ws}/deeplink"


def test_kernel_path_of_a_link_loop_is_the_lexical_form(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert kernel_path(f"{tmp_path}/loop/../x") == f"{tmp_path}/x"


@pytest.mark.parametrize(
    ("command", "extra"),
    [
        # The call's own directory: the client enters it with chdir(2).
        ("echo x > config", {"cwd": "deeplink/../g"}),
        ("cp README.md hooks/pre-commit", {"cwd": "deeplink/../g"}),
        ("echo x > config", {"workdir": "deeplink/../g"}),
        # bash's fallback, and a program's own -C DIR.
        ("cd deeplink/../g && echo x > config", {}),
        ("cd deeplink && cd ../g/hooks && echo x > pre-commit", {}),
        ("env -C deeplink/../g sed -i s/a/b/ config", {}),
        # A written operand.
        ("cp README.md deeplink/../g/hooks/pre-commit", {}),
        ("tee -a deeplink/../g/config < README.md", {}),
    ],
)
def test_a_protected_file_reached_after_a_link_asks(
    ws: Path, command: str, extra: dict[str, str]
) -> None:
    assert _decide(ws, command, **extra) is Verdict.ASK


@pytest.mark.parametrize(
    "command",
    [
        "cd deeplink/../out && echo x > notes",
        "cd deeplink/../out && rm -rf .",
        "cd deeplink/../keys && cat config",
        "env -C deeplink/../keys cat config",
    ],
)
def test_outside_or_secret_after_a_link_is_refused(ws: Path, command: str) -> None:
    assert _decide(ws, command) is not Verdict.ALLOW


@pytest.mark.parametrize(
    "command", ["cd deeplink/.. && ls", "cd src/.. && echo ok > out.txt", "env -C src/.. ls"]
)
def test_climbing_inside_the_workspace_still_runs(ws: Path, command: str) -> None:
    assert _decide(ws, command) is Verdict.ALLOW


_NAMES = st.sampled_from(["deeplink", "..", "g", "out", "src", ".", "hooks"])


@given(names=st.lists(_NAMES, min_size=1, max_size=5))
@example(names=["deeplink", "..", "g"])
@example(names=["deeplink", "..", "out"])
def test_a_spelling_is_never_looser_than_where_the_kernel_takes_it(
    ws: Path, names: list[str]
) -> None:
    """Writing through a relative spelling, or into it after `cd` or `env -C`, is judged at
    least as strictly as writing the absolute path the kernel reaches."""
    spelled = "/".join(names)
    real = kernel_path(f"{ws}/{spelled}")
    direct = _RANK[_decide(ws, f"cp README.md {real}/config")]
    assert _RANK[_decide(ws, f"cp README.md {spelled}/config")] >= direct
    assert _RANK[_decide(ws, f"env -C {spelled} cp ../README.md config")] >= direct
    # bash's cd may land where the kernel takes the text (its fallback).
    redirected = _RANK[_decide(ws, f"echo x > {real}/config")]
    assert _RANK[_decide(ws, f"cd {spelled} && echo x > config")] >= redirected
