"""Properties of the runner and of the mount plan, named for what they guarantee."""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safehold import SafetyConfig
from safehold.adapters.bwrap import run_sandboxed_sync
from safehold.adapters.bwrap._plan import clear_plans
from safehold.adapters.bwrap._scan import Matcher, Scanner
from safehold.policy.paths import CompiledPolicy, compile_policy
from tests.adapters.bwrap.conftest import make_config, plan_with_home

_ARG = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=20,
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=st.lists(_ARG, max_size=5))
def test_argv_round_trips_unchanged(ws: Path, args: list[str]) -> None:
    # Quotes, newlines, leading dashes, `$(...)`: an argv is passed through, never re-parsed.
    result = run_sandboxed_sync(
        ["/usr/bin/printf", "%s\\0", *args], cwd=str(ws), config=make_config(), timeout=20
    )
    expected = b"".join(os.fsencode(a) + b"\0" for a in args) if args else b"\0"
    assert result.stdout == expected


_NAMES = st.sampled_from(
    [
        ".env",
        ".env.local",
        "id_rsa",
        "server.pem",
        "notes.txt",
        "src",
        ".ssh",
        "credentials",
        "a",
        "b",
        ".git",
        "main.py",
        "x.key",
    ]
)
_TREES = st.lists(st.lists(_NAMES, min_size=1, max_size=4), min_size=1, max_size=12)


def _build(root: Path, paths: list[list[str]]) -> None:
    for parts in paths:
        *dirs, leaf = parts
        parent = root.joinpath(*dirs) if dirs else root
        try:
            parent.mkdir(parents=True, exist_ok=True)
            target = parent / leaf
            if not target.exists():
                target.write_text("secret?")
        except (FileExistsError, NotADirectoryError):
            continue  # a file already sits where a directory was wanted


@given(tree=_TREES)
def test_every_denied_path_in_the_workspace_is_masked(tree: list[list[str]]) -> None:
    # Differential: the policy's own verdict on every file of a random tree vs the masks.
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        _build(ws, tree)
        config = SafetyConfig()
        plan = plan_with_home(config, ws, Path(tmp) / "nohome")
        policy = compile_policy(config, str(ws))
        masked = (*plan.masked_dirs, *plan.masked_files)
        for dirpath, dirnames, filenames in os.walk(ws):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                hit = bool(policy.check_denied(path))
                covered = any(path == m or path.startswith(m + "/") for m in masked)
                if hit:
                    assert covered, f"denied `{path}` is not masked"
                if path in masked:
                    assert hit, f"`{path}` is masked but no denied pattern matches it"
        shutil.rmtree(ws)


_DEEP = st.tuples(
    st.lists(st.sampled_from(["a", "b", "src", "lib"]), min_size=1, max_size=64),
    st.sampled_from([".env", "id_rsa", "server.pem", "notes.txt"]),
)


def _masked(plan_masks: tuple[str, ...], path: str) -> bool:
    return any(path == m or path.startswith(m + "/") for m in plan_masks)


@functools.lru_cache(maxsize=4)
def _walker(ws: str) -> tuple[Scanner, CompiledPolicy]:
    policy = compile_policy(SafetyConfig(), ws)
    denied = Matcher.of(policy.denied, policy.casefold)
    return Scanner(denied, Matcher.of(policy.protected, policy.casefold), 100_000), policy


@given(chain=_DEEP, also=_TREES)
def test_a_denied_file_at_any_depth_is_masked(
    chain: tuple[list[str], str], also: list[list[str]]
) -> None:
    # Random trees stop at 4 levels; a walk that gives up at some fixed level below 64 is
    # caught here, where a directory chain up to 64 deep ends in a (maybe) denied name.
    # The plan's own walk (`Scanner.hits`, what `plan_mounts` masks from) on a tmpfs, one
    # workspace path for every example: fast enough for many trees.
    dirs, leaf = chain
    ws = Path(f"/dev/shm/safehold-depth-{os.getpid()}")
    scanner, policy = _walker(str(ws))
    shutil.rmtree(ws, ignore_errors=True)
    ws.mkdir()
    try:
        _build(ws, also)
        deep = ws.joinpath(*dirs)
        try:
            deep.mkdir(parents=True, exist_ok=True)
            (deep / leaf).write_text("secret?")
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            return  # the random tree put a file where the chain wanted a directory, or the reverse
        path = str(deep / leaf)
        masked = scanner.hits(str(ws)).denied
        assert _masked(masked, path) == bool(policy.check_denied(path)), path
    finally:
        shutil.rmtree(ws, ignore_errors=True)


def test_a_denied_file_a_hundred_levels_down_is_masked(ws: Path) -> None:
    deep = ws.joinpath(*(["d"] * 100))
    deep.mkdir(parents=True)
    (deep / ".env").write_text("SECRET")
    plan = plan_with_home(SafetyConfig(), ws, ws.parent / "nohome")
    assert str(deep / ".env") in plan.masked_files


_EDITS = st.lists(
    st.tuples(
        st.sampled_from(["add", "remove", "rename", "mkdir"]),
        st.lists(_NAMES, min_size=1, max_size=3),
        _NAMES,
    ),
    min_size=1,
    max_size=6,
)


def _apply(root: Path, edit: tuple[str, list[str], str]) -> None:
    action, parts, name = edit
    target = root.joinpath(*parts)
    try:
        if action == "add":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("secret?")
        elif action == "mkdir":
            target.mkdir(parents=True, exist_ok=True)
        elif action == "remove":
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
        elif target.exists():
            target.rename(target.parent / name)
    except OSError:
        pass  # a file where a directory was wanted, a rename onto a non-empty directory


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=_TREES, edits=_EDITS, watched=st.booleans())
def test_the_cached_scan_equals_a_fresh_scan_after_any_edits(
    tree: list[list[str]], edits: list[tuple[str, list[str], str]], watched: bool
) -> None:
    # Incremental masking must never lag behind the tree: plan, edit the tree right away
    # (inside the racy window of the stamps), plan again from the cache, and compare with a
    # plan made from nothing. With and without inotify.
    from safehold.adapters.bwrap import _scan

    saved = list(_scan._watcher)
    _scan._watcher[:] = [] if watched else [None]
    try:
        with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
            ws = Path(tmp) / "ws"
            ws.mkdir()
            _build(ws, tree)
            config = SafetyConfig()
            home = Path(tmp) / "nohome"
            plan_with_home(config, ws, home)
            for edit in edits:
                _apply(ws, edit)
            cached = plan_with_home(config, ws, home)
            _scan.clear_cache()
            clear_plans()  # else `fresh` would be the cached plan itself
            fresh = plan_with_home(config, ws, home)
            assert cached.masked_dirs == fresh.masked_dirs
            assert cached.masked_files == fresh.masked_files
            assert cached.protected == fresh.protected
            assert cached.pins == fresh.pins
    finally:
        _scan._watcher[:] = saved


_PATHS = st.lists(st.sampled_from(["a", "b", "ab", "a.b"]), max_size=4).map(
    lambda parts: "/" + "/".join(parts)
)


@given(path=_PATHS, tops=st.sets(_PATHS, max_size=6))
def test_the_ancestor_lookup_agrees_with_the_prefix_test(path: str, tops: set[str]) -> None:
    # `_under` replaced one prefix test per mask by one set lookup per ancestor: same answer
    # (`/ab` is not inside `/a`; everything is inside `/`).
    from safehold.adapters.bwrap._plan import _inside, _under

    assert _under(path, tops) == any(_inside(path, t) for t in tops)
