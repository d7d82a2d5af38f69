"""Round 15 of where paths land: links a folder copy carries.

`cp -r`/`cp -a` copy a symbolic link met inside the tree as a link, and `mv` keeps it, so a
later step's path below the copy lands where the link leads. Real links in a temporary tree;
every call is judged by `evaluate` in auto mode for the host.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from safehold import SafetyConfig, ToolCall, ToolKind, evaluate
from safehold.policy.decision import Verdict
from safehold.policy.paths import links_below
from safehold.policy.shell import flows

AUTO = SafetyConfig().with_mode("auto")


def _tree(root: Path) -> Path:
    home = root / "home"
    (home / "elsewhere").mkdir(parents=True)
    (home / ".bashrc").write_text("")
    ws = home / "proj"
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / "README.md").write_text("# x")
    (ws / "vendor" / "v1").mkdir(parents=True)
    (ws / "vendor" / "current").symlink_to("v1")  # a link that stays inside
    (ws / "tpl" / "a").mkdir(parents=True)
    (ws / "tpl" / "a" / "out").symlink_to(home / "elsewhere")
    (ws / "tpl" / "a" / "hooks").symlink_to(ws / ".git" / "hooks")
    (ws / "tpl" / "rc").symlink_to(home / ".bashrc")
    return ws


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    workspace = _tree(tmp_path_factory.mktemp("round15"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(workspace.parent))
        yield workspace


def _decide(ws: Path, command: str) -> tuple[Verdict, set[str]]:
    call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
    d = evaluate(AUTO, call, workspace=str(ws), runner="host")
    return d.verdict, {r.code for r in d.reasons}


@pytest.mark.parametrize(
    "command",
    [
        "cp -r tpl t2 && touch t2/a/out/x",
        "cp -a tpl t2 && echo x >> t2/rc",
        "cp -R tpl/a t2 && cp README.md t2/hooks/pre-commit",
        "cp -r tpl/. t2 && echo x > t2/a/hooks/post-checkout",
        "mkdir t2 && cp -r tpl t2 && touch t2/tpl/a/out/x",
        "cp -rt /tmp tpl && touch /tmp/tpl/rc",
        "mv tpl t2 && touch t2/a/out/x",
    ],
)
def test_a_link_inside_a_copied_folder_is_followed(ws: Path, command: str) -> None:
    assert _decide(ws, command)[0] is not Verdict.ALLOW


@pytest.mark.parametrize(
    "command",
    [
        "cp -r vendor v2 && touch v2/current/x",
        "cp -a vendor v2 && ls v2/current",
        "cp -r tpl t2 > copy.log",
        "mv vendor lib && touch lib/v1/x",
    ],
)
def test_a_copy_whose_links_stay_inside_is_allowed(ws: Path, command: str) -> None:
    assert _decide(ws, command)[0] is Verdict.ALLOW


def test_links_below_lists_links_without_following_them(ws: Path) -> None:
    found, complete = links_below(str(ws / "tpl"))
    assert complete
    assert {rel for rel, _ in found} == {"a/out", "a/hooks", "rc"}
    assert links_below(str(ws / "tpl"), limit=1)[1] is False
    assert links_below(str(ws / "tpl" / "rc")) == ([], True)


def test_a_folder_too_large_to_walk_asks(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flows, "links_below", lambda root: ([], False))
    verdict, codes = _decide(ws, "cp -r vendor v2 && touch v2/x")
    assert verdict is Verdict.ASK
    assert "tree-unchecked" in codes
