"""Properties of path canonicalisation and the path lists, on one real tree with symlinks."""

from __future__ import annotations

import os
import random
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.paths import PathRejected, compile_policy
from tests.strategies import deny_patterns, make_tree, names, paths

TREE_NAMES = ("link_secret", "link_out", "link_in", "dangling", "file.txt", "key.txt", "outside")
tree_paths = paths(TREE_NAMES)
plain_paths = paths(TREE_NAMES, detours=False)


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> str:
    return make_tree(str(tmp_path_factory.mktemp("tree")))


def _is_clean(path: str) -> bool:
    if not path.startswith("/") or path.startswith("//"):
        return False
    if path == "/":
        return True
    return all(part not in ("", ".", "..") for part in path[1:].split("/"))


@given(raw=tree_paths, casefold=st.booleans())
def test_canonicalisation_is_idempotent_and_clean(ws: str, raw: str, casefold: bool) -> None:
    policy = compile_policy(SafetyConfig(case_insensitive_paths=casefold), ws)
    try:
        first = policy.canonicalize(raw)
    except PathRejected:
        return
    for form in (first.literal, first.resolved):
        assert _is_clean(form), form
        assert unicodedata.is_normalized("NFC", form)
    assert policy.canonicalize(first.resolved).resolved == first.resolved


def _with_detour(raw: str, detour: str, at: int) -> str:
    parts = raw.split("/")
    at = at % (len(parts) + 1)
    if detour == "" and at == 0:
        at = 1  # a leading empty segment would make the path absolute
    return "/".join([*parts[:at], detour, *parts[at:]])


@given(
    raw=plain_paths,
    detour=st.sampled_from([".", "", "src/..", "link_in/..", "a/b/../.."]),
    at=st.integers(0, 6),
    access=st.sampled_from(["read", "write"]),
    extra=deny_patterns(),
)
def test_detours_do_not_change_the_verdict(
    ws: str, raw: str, detour: str, at: int, access: str, extra: tuple[str, ...]
) -> None:
    # `./`, `//` and `d/..` through a real directory name the same file as the plain path.
    policy = compile_policy(SafetyConfig(denied_paths=extra), ws)
    variant = _with_detour(raw, detour, at)
    plain = policy.check_path(raw, access)  # type: ignore[arg-type]
    detoured = policy.check_path(variant, access)  # type: ignore[arg-type]
    assert plain.verdict is detoured.verdict, (raw, variant, plain, detoured)
    assert plain.canonical == detoured.canonical


@given(rest=st.lists(names(), min_size=1, max_size=3).map("/".join), extra=deny_patterns())
def test_a_symlink_hop_does_not_change_the_verdict(
    ws: str, rest: str, extra: tuple[str, ...]
) -> None:
    # `link_in` -> `src`: both spellings reach the same file. Only patterns that name the
    # link itself may make the linked spelling stricter, never looser.
    policy = compile_policy(SafetyConfig(denied_paths=extra), ws)
    direct = policy.check_path(f"src/{rest}", "write")
    hop = policy.check_path(f"link_in/{rest}", "write")
    assert hop.verdict.strictness >= direct.verdict.strictness, (direct, hop)
    assert hop.canonical == direct.canonical


@given(raw=tree_paths)
def test_a_write_is_allowed_only_inside_an_allowed_root(ws: str, raw: str) -> None:
    result = compile_policy(SafetyConfig(), ws).check_path(raw, "write")
    if result.verdict is Verdict.ALLOW:
        # An independent oracle: the OS's own realpath of the path joined to the workspace.
        real = os.path.realpath(os.path.join(ws, raw))
        root = os.path.realpath(ws)
        assert os.path.commonpath([real, root]) == root, (raw, real)


@given(raw=tree_paths, extra=deny_patterns(), access=st.sampled_from(["read", "write"]))
def test_adding_deny_patterns_never_loosens_a_path(
    ws: str, raw: str, extra: tuple[str, ...], access: str
) -> None:
    before = compile_policy(SafetyConfig(), ws).check_path(raw, access)  # type: ignore[arg-type]
    after = compile_policy(SafetyConfig(denied_paths=extra), ws).check_path(raw, access)  # type: ignore[arg-type]
    assert after.verdict.strictness >= before.verdict.strictness


@given(raw=tree_paths, seed=st.integers(0, 2**16), access=st.sampled_from(["read", "write"]))
def test_pattern_order_and_duplicates_do_not_matter(
    ws: str, raw: str, seed: int, access: str
) -> None:
    base = SafetyConfig(denied_paths=["secret", "*.md", "{workspace}/b/"])
    denied = list(base.denied_paths)
    protected = list(base.protected_paths)
    rng = random.Random(seed)
    for items in (denied, protected):
        items.extend(rng.sample(items, k=min(3, len(items))))
        rng.shuffle(items)
    shuffled = SafetyConfig(
        denied_paths=denied,
        protected_paths=protected,
        replace_default_denied_paths=True,
        replace_default_protected_paths=True,
    )
    one = compile_policy(base, ws).check_path(raw, access)  # type: ignore[arg-type]
    other = compile_policy(shuffled, ws).check_path(raw, access)  # type: ignore[arg-type]
    assert one == other


@given(raw=st.text(max_size=40), access=st.sampled_from(["read", "write"]))
def test_any_string_gets_a_verdict_and_a_reason_when_not_allowed(
    ws: str, raw: str, access: str
) -> None:
    result = compile_policy(SafetyConfig(), ws).check_path(raw, access)  # type: ignore[arg-type]
    assert isinstance(result.verdict, Verdict)
    assert result.verdict is Verdict.ALLOW or result.reasons


@given(
    raw=st.sampled_from([".env", "x/.ssh/id_rsa", "KEY.pem", ".Git/config"]).map(
        lambda s: "".join(c.upper() if i % 2 else c for i, c in enumerate(s))
    )
)
def test_case_variants_are_never_allowed_when_the_volume_folds_case(ws: str, raw: str) -> None:
    policy = compile_policy(SafetyConfig(case_insensitive_paths=True), ws)
    assert policy.check_path(raw, "write").verdict is not Verdict.ALLOW


def test_tree_fixture_has_the_expected_links(ws: str) -> None:
    assert Path(ws, "link_in").resolve() == Path(ws, "src").resolve()


component = st.sampled_from(["a", "b", ".env", "x.pem", "id_rsa", "gen1", "Sub", "[1]", "q?"])
pattern_part = st.sampled_from(
    ["a", "b", ".env", "*.pem", "id_rsa", "gen*", "**", "Sub", r"\[1\]", "q?", "[ab]", "*"]
)


@given(
    patterns=st.lists(
        st.tuples(st.booleans(), st.lists(pattern_part, min_size=1, max_size=3)).map(
            lambda t: ("/" if t[0] else "") + "/".join(t[1])
        ),
        min_size=1,
        max_size=6,
    ),
    trailing=st.lists(st.booleans(), min_size=6, max_size=6),
    path=st.lists(component, min_size=0, max_size=5).map(lambda c: "/" + "/".join(c)),
    casefold=st.booleans(),
)
def test_indexed_matching_agrees_with_pathspec(
    patterns: list[str], trailing: list[bool], path: str, casefold: bool
) -> None:
    # Differential: the witness index and union shortcut must find exactly the patterns a
    # brute-force check of every expanded pattern finds (on `p` and on `p/`).
    import pathspec

    from safehold.policy._patterns import compile_patterns

    sources = [
        p + ("/" if t and not p.endswith("/") else "")
        for p, t in zip(patterns, trailing, strict=False)
    ]
    sources = [s for s in sources if s.strip("/") and s != "**/"]
    if not sources:
        return
    compiled = compile_patterns(sources, workspaces=("/w",), homes=("/h",), casefold=casefold)
    subject = (path.casefold() if casefold else path)[1:]
    expected = {
        e.source
        for e in compiled.entries
        if e.regex.search(subject) or e.regex.search(subject + "/")
    }
    if subject:  # and that brute force is pathspec's own answer (it strips a lone `/`)
        assert expected == {
            e.source
            for e in compiled.entries
            if pathspec.PathSpec.from_lines("gitignore", [e.expanded]).match_file(subject)
            or pathspec.PathSpec.from_lines("gitignore", [e.expanded]).match_file(subject + "/")
        }
    found = {e.source for e in compiled.match(["/" + subject])}
    assert found == expected, (sources, path)
