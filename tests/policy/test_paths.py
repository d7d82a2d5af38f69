"""Path canonicalisation and the compiled path lists (SPEC §4), on real temporary trees."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from safehold.errors import PolicyError
from safehold.policy import paths as paths_mod
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.paths import compile_policy, resolve_path
from tests.strategies import make_tree


@pytest.fixture
def ws(tmp_path: Path) -> str:
    return make_tree(str(tmp_path))


def check(ws: str, raw: object, access: str = "read", **config: object) -> paths_mod.PathCheck:
    policy = compile_policy(SafetyConfig(**config), ws)  # type: ignore[arg-type]
    return policy.check_path(raw, access)  # type: ignore[arg-type]


def codes(result: paths_mod.PathCheck) -> set[str]:
    return {r.code for r in result.reasons}


# -- canonicalisation ------------------------------------------------------------------------


def test_relative_paths_join_the_workspace_not_the_process_cwd(
    ws: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path / "outside")
    c = compile_policy(SafetyConfig(), ws).canonicalize("src/main.py")
    assert c.resolved == os.path.join(ws, "src/main.py")
    assert check(ws, "file.txt").verdict is Verdict.ALLOW  # ws/file.txt, not outside/file.txt
    assert check(ws, "file.txt").canonical == os.path.join(ws, "file.txt")


def test_tilde_expands_to_home_and_other_users_homes_are_refused(
    ws: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    c = compile_policy(SafetyConfig(), ws).canonicalize("~/.ssh/id_rsa")
    assert c.resolved == f"{home}/.ssh/id_rsa"
    result = check(ws, "~root/.ssh/id_rsa")
    assert result.verdict is Verdict.DENY and codes(result) == {"path-invalid"}
    assert "another user's home" in result.reasons[0].message


@pytest.mark.parametrize(
    "raw",
    ["a\x00b", "a\nb", "a\x1b[31mb", "a\u202eb", "a\u200bb", "\ud800", "a\x7f", "a\x85"],
)
def test_control_and_invisible_characters_are_denied_with_a_reason(ws: str, raw: str) -> None:
    result = check(ws, raw)
    assert result.verdict is Verdict.DENY
    assert codes(result) == {"path-invalid"}
    assert "U+" in result.reasons[0].message
    assert result.canonical is None


@pytest.mark.parametrize("raw", ["", 42, None, ["a"], "x" * 5000])
def test_empty_overlong_and_non_string_paths_are_denied(ws: str, raw: object) -> None:
    result = check(ws, raw)
    assert result.verdict is Verdict.DENY and codes(result) == {"path-invalid"}


def test_bytes_paths_are_decoded_and_checked(ws: str) -> None:
    assert check(ws, b"src/main.py").verdict is Verdict.ALLOW
    assert check(ws, b".env").verdict is Verdict.DENY


def test_canonical_form_is_nfc_and_free_of_dot_segments(ws: str) -> None:
    nfd = unicodedata.normalize("NFD", "café")
    c = compile_policy(SafetyConfig(), ws).canonicalize(f"./a//b/../{nfd}/./menu/")
    assert c.resolved == unicodedata.normalize("NFC", f"{ws}/a/café/menu")
    assert unicodedata.is_normalized("NFC", c.resolved)


def test_symlink_loops_are_denied_not_followed_forever(ws: str) -> None:
    os.symlink("loop_b", os.path.join(ws, "loop_a"))
    os.symlink("loop_a", os.path.join(ws, "loop_b"))
    result = check(ws, "loop_a/x")
    assert result.verdict is Verdict.DENY and codes(result) == {"path-unresolvable"}


def test_resolve_path_agrees_with_os_realpath_on_the_tree(ws: str) -> None:
    # The kernel fast path and the component walk must land where realpath lands.
    for rel in (
        "src/main.py",
        "link_in/main.py",
        "link_out/file.txt",
        "link_out/new/deeper.txt",
        "link_secret",
        "dangling",
        "src/up/src/up/a/b",
        "a/../src/./main.py",
        "link_out/../ws2/x",
        "missing/../src",
        "",
    ):
        path = os.path.join(ws, rel)
        assert resolve_path(path)[0] == os.path.realpath(path), rel


def test_crossing_a_link_into_proc_self_is_flagged(ws: str) -> None:
    os.symlink("/proc/self/cwd", os.path.join(ws, "here"))
    result = check(ws, "here/anything")
    assert result.verdict is Verdict.DENY
    assert "path-magic-alias" in codes(result)


# -- pattern semantics -----------------------------------------------------------------------


def test_relative_patterns_with_a_slash_match_at_any_depth(ws: str) -> None:
    # gitignore would anchor `.kube/config` at `/`; against absolute paths that never matches.
    result = check(ws, "deep/down/.kube/config")
    assert result.verdict is Verdict.DENY
    assert [r.rule for r in result.reasons] == [".kube/config"]


def test_directory_patterns_cover_the_bare_directory(ws: str) -> None:
    os.makedirs(os.path.join(ws, "proj/.ssh"))
    result = check(ws, "proj/.ssh")
    assert result.verdict is Verdict.DENY
    assert [r.rule for r in result.reasons] == [".ssh/"]


def test_reasons_name_the_exact_pattern_and_the_resolved_form(ws: str, tmp_path: Path) -> None:
    result = check(ws, "link_secret", denied_paths=[f"{tmp_path}/secret/"])
    assert result.verdict is Verdict.DENY
    denied = [r for r in result.reasons if r.code == "path-denied"]
    assert [r.rule for r in denied] == [f"{tmp_path}/secret/"]
    assert denied[0].message == (
        f"path `link_secret` resolves to `{tmp_path}/secret/key.txt`, which matches "
        f"denied pattern `{tmp_path}/secret/`"
    )


def test_workspace_placeholder_is_glob_escaped(tmp_path: Path) -> None:
    ws = tmp_path / "pro*j[1]?"
    (ws / "build").mkdir(parents=True)
    sibling = tmp_path / "proXj1Z" / "build"
    sibling.mkdir(parents=True)
    config = SafetyConfig(denied_paths=["{workspace}/build/"])
    policy = compile_policy(config, str(ws))
    assert policy.check_path("build/x", "read").verdict is Verdict.DENY
    # The sibling would match the pattern if `*`, `[1]` and `?` stayed wildcards.
    assert policy.check_denied(str(sibling / "x")) == ()
    assert policy.check_path("src/ok.py", "write").verdict is Verdict.ALLOW


def test_tilde_in_patterns_is_the_home_directory(
    ws: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", ws)
    result = check(ws, "docs/private.txt", denied_paths=["~/docs/"])
    assert result.verdict is Verdict.DENY
    assert [r.rule for r in result.reasons] == ["~/docs/"]


def test_allowed_roots_compare_by_components(tmp_path: Path) -> None:
    ws = make_tree(str(tmp_path))
    result = check(ws, f"{ws}2/x")
    assert result.verdict is Verdict.ASK and codes(result) == {"path-outside-read"}
    assert result.approvable
    written = check(ws, f"{ws}2/x", "write")
    assert written.verdict is Verdict.DENY and codes(written) == {"path-outside-allowed"}
    assert check(ws, ws).verdict is Verdict.ALLOW
    assert check(ws, ws + "/").verdict is Verdict.ALLOW


def test_allowed_glob_patterns_and_extra_roots(ws: str, tmp_path: Path) -> None:
    outside = str(tmp_path / "outside")
    assert check(ws, f"{outside}/file.txt", allowed_paths=["{workspace}", outside]).verdict is (
        Verdict.ALLOW
    )
    globbed = check(ws, f"{outside}/file.txt", allowed_paths=[f"{outside}/*.txt"])
    assert globbed.verdict is Verdict.ALLOW
    assert check(ws, f"{outside}/file.md", allowed_paths=[f"{outside}/*.txt"]).verdict is (
        Verdict.ASK
    )


def test_empty_allowed_paths_allow_anywhere_but_the_deny_list_still_applies(
    ws: str, tmp_path: Path
) -> None:
    assert check(ws, f"{tmp_path}/outside/file.txt", allowed_paths=[]).verdict is Verdict.ALLOW
    assert check(ws, "/etc/shadow", allowed_paths=[]).verdict is Verdict.DENY


def test_dev_null_is_always_inside(ws: str) -> None:
    assert check(ws, "/dev/null", "write").verdict is Verdict.ALLOW


def test_protected_paths_ask_for_writes_only(ws: str) -> None:
    assert check(ws, ".git/config", "read").verdict is Verdict.ALLOW
    result = check(ws, ".git/config", "write")
    assert result.verdict is Verdict.ASK
    assert [(r.code, r.rule) for r in result.reasons] == [("path-protected", ".git")]


def test_check_denied_ignores_allowed_roots(ws: str, tmp_path: Path) -> None:
    policy = compile_policy(SafetyConfig(), ws)
    assert policy.check_denied(f"{tmp_path}/outside/file.txt") == ()
    assert [r.rule for r in policy.check_denied("/etc/shadow")] == ["/etc/shadow"]
    assert [r.code for r in policy.check_denied("/proc/self/environ")] == ["path-magic-alias"]
    assert [r.code for r in policy.check_denied("a\x00")] == ["path-invalid"]


# -- case folding ----------------------------------------------------------------------------


def test_case_folding_when_the_volume_is_case_insensitive(ws: str) -> None:
    for raw in (".ENV", "x/.Ssh/id_rsa", "KEY.PEM", ".Git/config"):
        folded = check(ws, raw, "write", case_insensitive_paths=True)
        assert folded.verdict is not Verdict.ALLOW, raw
    assert check(ws, ".ENV", case_insensitive_paths=False).verdict is Verdict.ALLOW


def test_case_sensitivity_is_detected_per_workspace(
    ws: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert paths_mod.volume_folds_case(ws) is False  # this box's tmp is case-sensitive
    paths_mod._folds_case_cached.cache_clear()
    paths_mod._compile.cache_clear()
    monkeypatch.setattr(paths_mod, "volume_folds_case", lambda root: True)
    try:
        policy = compile_policy(SafetyConfig(), ws)
        assert policy.casefold is True
        assert policy.check_path(".ENV", "read").verdict is Verdict.DENY
    finally:
        paths_mod._folds_case_cached.cache_clear()
        paths_mod._compile.cache_clear()


# -- compiling -------------------------------------------------------------------------------


def test_compiled_policy_is_cached_per_config_and_workspace(ws: str, tmp_path: Path) -> None:
    config = SafetyConfig()
    first = compile_policy(config, ws)
    assert compile_policy(config, ws) is first
    assert compile_policy(SafetyConfig(), ws) is first  # an equal config shares it
    assert compile_policy(config, str(tmp_path)) is not first
    assert compile_policy(SafetyConfig(denied_paths=["*.md"]), ws) is not first


@pytest.mark.parametrize("workspace", ["relative/dir", "", "/tmp/a\x00b", None])
def test_a_workspace_that_is_not_absolute_is_a_policy_error(workspace: object) -> None:
    with pytest.raises(PolicyError, match="absolute"):
        compile_policy(SafetyConfig(), workspace)  # type: ignore[arg-type]


def test_a_workspace_reached_through_a_symlink(tmp_path: Path) -> None:
    # A checkout opened through a symlink: patterns and roots work on both spellings.
    real = make_tree(str(tmp_path))
    link = tmp_path / "ws_link"
    link.symlink_to(real)
    policy = compile_policy(SafetyConfig(denied_paths=["{workspace}/src/main.py"]), str(link))
    assert policy.check_path("a/b/notes.md", "write").verdict is Verdict.ALLOW
    assert policy.check_path("a/b/notes.md", "write").canonical == f"{real}/a/b/notes.md"
    for raw in ("src/main.py", f"{real}/src/main.py", f"{link}/src/main.py"):
        assert policy.check_path(raw, "read").verdict is Verdict.DENY, raw
    assert policy.check_path(f"{tmp_path}/outside/file.txt", "read").verdict is Verdict.ASK
    assert policy.check_path(f"{tmp_path}/outside/file.txt", "write").verdict is Verdict.DENY


@pytest.mark.parametrize(
    ("pattern", "raw"),
    [
        ("./build/", "build/out.o"),
        ("{workspace}/./a//b/", "a/b/notes.md"),
        ("a/b/.", "a/b/notes.md"),
        ("./src/main.py", "src/main.py"),
    ],
)
def test_dot_segments_in_patterns_are_tidied_not_taken_literally(
    ws: str, pattern: str, raw: str
) -> None:
    # gitignore would read `./build/` literally, and no canonical path has a `.` segment.
    result = check(ws, raw, denied_paths=[pattern])
    assert result.verdict is Verdict.DENY
    assert [r.rule for r in result.reasons if r.code == "path-denied"] == [pattern]
