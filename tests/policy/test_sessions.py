"""SessionPolicies: lifecycle, floor, isolation and concurrency (SPEC §2.2)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from safehold import (
    GrantEffect,
    Mode,
    PolicyError,
    SafetyConfig,
    SessionPolicies,
    UnknownSessionError,
)


def test_unknown_session_gets_the_base() -> None:
    store = SessionPolicies(SafetyConfig(acp_approval_timeout=5))
    assert store.config("nope") is store.base
    assert dict(store.grants("nope")) == {}


def test_changes_are_per_session_and_never_reach_the_base() -> None:
    base = SafetyConfig()
    store = SessionPolicies(base)
    store.open("a", "/w/a")
    store.open("b", "/w/b")
    store.set_mode("a", "auto")
    assert store.config("a").mode is Mode.AUTO
    assert store.config("b").mode is Mode.REVIEW
    assert store.base is base and base.mode is Mode.REVIEW


def test_set_option_changes_one_flag() -> None:
    store = SessionPolicies()
    store.open("a", "/w")
    config = store.set_option("a", "auto_approve_execute", True)
    assert config.require_approval_for_execute is False
    assert config.require_approval_for_writes is True
    assert store.config("a") == config


def test_fork_copies_then_diverges() -> None:
    store = SessionPolicies()
    store.open("a", "/w")
    store.set_mode("a", "read-only")
    store.grant("a", 'tool:"x"', GrantEffect.ALLOW)
    store.fork("a", "b")
    assert store.config("b").mode is Mode.READ_ONLY
    assert dict(store.grants("b")) == {'tool:"x"': GrantEffect.ALLOW}
    assert store.workspace("b") == "/w"
    store.set_mode("b", "auto")
    store.revoke("b", 'tool:"x"')
    assert store.config("a").mode is Mode.READ_ONLY
    assert dict(store.grants("a")) == {'tool:"x"': GrantEffect.ALLOW}


def test_load_forgets_earlier_toggles_and_grants() -> None:
    store = SessionPolicies()
    store.open("a", "/w")
    store.set_mode("a", "auto")
    store.grant("a", "k", GrantEffect.REJECT)
    assert store.load("a", "/w2") is store.base
    assert store.config("a").mode is Mode.REVIEW
    assert store.workspace("a") == "/w2"
    assert dict(store.grants("a")) == {}


def test_close_wipes_everything() -> None:
    store = SessionPolicies()
    store.open("a", "/w")
    store.set_mode("a", "auto")
    store.grant("a", "k", GrantEffect.ALLOW)
    assert store.close("a") is True
    assert store.close("a") is False
    assert store.config("a") is store.base
    assert dict(store.grants("a")) == {}
    with pytest.raises(UnknownSessionError, match="unknown session `a`"):
        store.set_mode("a", "auto")


def test_open_twice_is_refused() -> None:
    store = SessionPolicies()
    store.open("a", "/w")
    with pytest.raises(PolicyError, match="already open"):
        store.open("a", "/w")
    store.open("b", "/w")
    with pytest.raises(PolicyError, match="already open"):
        store.fork("a", "b")


@pytest.mark.parametrize(
    ("floor", "change", "message"),
    [
        (
            Mode.REVIEW,
            ("mode", "auto"),
            "mode `auto` refused for session `s`: the operator floor is `review`",
        ),
        (
            Mode.REVIEW,
            ("option", "auto_approve_writes", True),
            "`auto_approve_writes=true` refused",
        ),
        (
            Mode.REVIEW,
            ("option", "auto_approve_execute", True),
            "requires approval for writes and for execute",
        ),
        (Mode.READ_ONLY, ("mode", "review"), "keeps the session read-only"),
        (Mode.READ_ONLY, ("option", "read_only", False), "`read_only=false` refused"),
    ],
)
def test_floor_refuses_more_permissive_changes(
    floor: Mode, change: tuple[object, ...], message: str
) -> None:
    store = SessionPolicies(SafetyConfig().with_mode(floor), floor=floor)
    store.open("s", "/w")
    before = store.config("s")
    with pytest.raises(PolicyError, match=message.replace("`", "`").replace("(", r"\(")):
        if change[0] == "mode":
            store.set_mode("s", str(change[1]))
        else:
            store.set_option("s", str(change[1]), bool(change[2]))
    assert store.config("s") == before


def test_floor_allows_stricter_changes() -> None:
    store = SessionPolicies(floor=Mode.REVIEW)
    store.open("s", "/w")
    assert store.set_mode("s", "read-only").mode is Mode.READ_ONLY
    assert store.set_mode("s", "review").mode is Mode.REVIEW


def test_base_more_permissive_than_floor_is_refused() -> None:
    with pytest.raises(PolicyError, match="more permissive than the floor"):
        SessionPolicies(SafetyConfig().with_mode("auto"), floor=Mode.REVIEW)


def test_threads_never_leak_changes_between_sessions() -> None:
    store = SessionPolicies()
    ids = [f"s{i}" for i in range(40)]
    for sid in ids:
        store.open(sid, f"/w/{sid}")
    target = {sid: (Mode.AUTO if i % 2 else Mode.READ_ONLY) for i, sid in enumerate(ids)}
    barrier = threading.Barrier(8)

    def worker(part: list[str]) -> None:
        barrier.wait()
        for _ in range(50):
            for sid in part:
                store.set_mode(sid, "review")
                store.set_mode(sid, target[sid])
                store.grant(sid, f"tool:{sid}", GrantEffect.ALLOW)

    threads = [threading.Thread(target=worker, args=(ids[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for sid in ids:
        assert store.config(sid).mode is target[sid]
        assert dict(store.grants(sid)) == {f"tool:{sid}": GrantEffect.ALLOW}


async def test_asyncio_tasks_see_only_their_own_session() -> None:
    store = SessionPolicies()

    async def session(i: int) -> None:
        sid = f"t{i}"
        store.open(sid, "/w")
        for n in range(20):
            store.set_option(sid, "read_only", (i + n) % 2 == 0)
            await asyncio.sleep(0)
            assert store.config(sid).read_only is ((i + n) % 2 == 0)

    await asyncio.gather(*(session(i) for i in range(50)))


def test_ten_thousand_sessions_share_configs() -> None:
    store = SessionPolicies()
    for i in range(10_000):
        store.open(f"s{i}", "/w")
        if i % 3 == 0:
            store.set_mode(f"s{i}", "auto")
    # Only the three flags vary per session, so at most 8 distinct config objects exist.
    distinct = {id(store.config(f"s{i}")) for i in range(10_000)}
    assert len(distinct) == 2
