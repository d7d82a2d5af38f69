"""The in-process scan cache: a tree is reused whole until an event lands inside it."""

from __future__ import annotations

import time
from pathlib import Path

from safehold.adapters.bwrap import _scan
from safehold.adapters.bwrap._scan import Matcher, Scanner
from safehold.policy.paths import compile_policy
from tests.adapters.bwrap.conftest import make_config


def _scanner(ws: Path) -> Scanner:
    policy = compile_policy(make_config(), str(ws))
    denied = Matcher.of(policy.denied, policy.casefold)
    protected = Matcher.of(policy.protected, policy.casefold)
    return Scanner(denied, protected, 1_000_000)


def test_an_event_in_one_tree_leaves_the_other_trees_cached(ws: Path) -> None:
    if _scan._get_watcher() is None:
        return  # without inotify the stamps decide (covered by the property tests)
    one, two = ws / "one", ws / "two"
    for top in (one, two):
        (top / "deep" / "er").mkdir(parents=True)
        (top / "deep" / "er" / "a.txt").write_text("x\n")
    time.sleep(0.1)  # past the racy window
    _scan.clear_cache()
    first = _scanner(ws)
    first.hits(str(two))
    first.hits(str(one))
    first.hits(str(one))  # watched now: from here on a reuse costs nothing
    kept = first.hits(str(two))
    (one / "deep" / "er" / ".env").write_text("SECRET\n")
    again = _scanner(ws)
    assert again.hits(str(two)) is kept  # no event in `two`: not walked at all
    assert str(one / "deep" / "er" / ".env") in again.hits(str(one)).denied
