"""`SessionStateDir`: what a restarted agent may read back, and what it must refuse."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safehold.errors import ConfigError, PolicyError
from safehold.policy.grants import GrantEffect
from safehold.policy.modes import Flags, Mode
from safehold.policy.sessions import SessionPolicies, SessionSnapshot
from safehold.session_store import SessionStateDir, _name
from tests.strategies import examples

READ_ONLY = Flags(True, True, True)


def test_observer_saves_every_change_and_close_removes_it(tmp_path: Path) -> None:
    store = SessionStateDir(tmp_path / "s")
    policies = SessionPolicies(observer=store.record)
    policies.open("a", "/w")
    policies.set_mode("a", Mode.READ_ONLY)
    policies.grant("a", 'tool:"x"', GrantEffect.REJECT)
    snap = store.load("a")
    assert snap is not None
    assert snap.flags == READ_ONLY and snap.cwd == "/w"
    assert dict(snap.grants) == {'tool:"x"': GrantEffect.REJECT}
    policies.close("a")
    assert store.load("a") is None
    assert [p.name for p in (tmp_path / "s").iterdir()] == []


def test_a_new_store_restores_the_session(tmp_path: Path) -> None:
    first = SessionPolicies(observer=SessionStateDir(tmp_path).record)
    first.open("a", "/w")
    first.set_mode("a", "read-only")
    second = SessionPolicies()
    snap = SessionStateDir(tmp_path).load("a")
    assert snap is not None
    second.restore("a", snap)
    assert second.config("a").mode is Mode.READ_ONLY


def test_restore_respects_the_floor(tmp_path: Path) -> None:
    policies = SessionPolicies(floor=Mode.REVIEW)
    with pytest.raises(PolicyError, match="floor"):
        policies.restore("a", SessionSnapshot("/w", Flags(False, False, False)))
    assert not policies.is_open("a")


def test_files_are_private_and_the_dir_is_0700(tmp_path: Path) -> None:
    store = SessionStateDir(tmp_path / "new")
    store.save("a", SessionSnapshot("/w", READ_ONLY))
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700
    [f] = (tmp_path / "new").iterdir()
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    assert f.name == _name("a")  # the id never becomes a path


def test_symlinked_dir_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    with pytest.raises(ConfigError, match="symlink"):
        SessionStateDir(tmp_path / "link")


def test_dir_writable_by_others_is_refused(tmp_path: Path) -> None:
    d = tmp_path / "open"
    d.mkdir()
    d.chmod(0o777)
    with pytest.raises(ConfigError, match="writable by others"):
        SessionStateDir(d)


def test_a_symlinked_record_is_not_followed(tmp_path: Path) -> None:
    store = SessionStateDir(tmp_path / "s")
    elsewhere = tmp_path / "planted.json"
    store.save("a", SessionSnapshot("/w", READ_ONLY))
    record = tmp_path / "s" / _name("a")
    elsewhere.write_bytes(record.read_bytes())
    elsewhere.chmod(0o600)
    record.unlink()
    os.symlink(elsewhere, record)
    assert store.load("a") is None  # O_NOFOLLOW: a planted link is no record
    # Saving replaces the link itself and never writes through it.
    store.save("a", SessionSnapshot("/w2", READ_ONLY))
    assert not record.is_symlink()
    assert json.loads(elsewhere.read_text())["cwd"] == "/w"


@pytest.mark.parametrize(
    "spoil",
    ["mode", "other-id", "garbage", "bad-flags", "bad-grant", "old", "future", "nan-time"],
)
def test_a_doubtful_record_is_no_record(tmp_path: Path, spoil: str) -> None:
    store = SessionStateDir(tmp_path, max_age=3600)
    store.save("a", SessionSnapshot("/w", READ_ONLY))
    record = tmp_path / _name("a")
    data = json.loads(record.read_text())
    if spoil == "mode":
        record.chmod(0o644)
    elif spoil == "garbage":
        record.write_bytes(b"\x00not json")
    else:
        if spoil == "other-id":
            data["session_id"] = "b"
        elif spoil == "bad-flags":
            data["flags"]["read_only"] = "yes"
        elif spoil == "bad-grant":
            data["grants"] = {"k": "maybe"}
        elif spoil == "old":
            data["saved_at"] = time.time() - 7200
        elif spoil == "future":
            data["saved_at"] = time.time() + 7200
        elif spoil == "nan-time":
            data["saved_at"] = float("nan")
        record.write_text(json.dumps(data))
    assert store.load("a") is None


def test_a_failed_save_removes_the_stale_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The session was saved in auto; the change to read-only cannot be written (disk
    # error, injected at fsync). A restart must not find the older, looser auto record.
    store = SessionStateDir(tmp_path)
    store.record("a", SessionSnapshot("/w", Flags(False, False, False)))
    assert store.load("a") is not None

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    store.record("a", SessionSnapshot("/w", READ_ONLY))
    monkeypatch.undo()
    assert store.load("a") is None
    assert list(tmp_path.iterdir()) == []  # the temporary file is gone too


@pytest.mark.parametrize("age", [0, -1, float("nan"), float("inf"), True, "7"])
def test_max_age_is_validated(tmp_path: Path, age: object) -> None:
    with pytest.raises(ValueError, match="max_age"):
        SessionStateDir(tmp_path, max_age=age)  # type: ignore[arg-type]


@settings(max_examples=examples(50), deadline=None)
@given(
    sid=st.text(min_size=1, max_size=80),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans()),
    grants=st.dictionaries(st.text(max_size=40), st.sampled_from(list(GrantEffect)), max_size=5),
)
def test_round_trip(
    tmp_path_factory: pytest.TempPathFactory,
    sid: str,
    flags: tuple[bool, bool, bool],
    grants: dict[str, GrantEffect],
) -> None:
    store = SessionStateDir(tmp_path_factory.mktemp("rt"))
    store.save(sid, SessionSnapshot("/w", Flags(*flags), grants))
    snap = store.load(sid)
    assert snap is not None
    assert (snap.flags, dict(snap.grants)) == (Flags(*flags), grants)


@pytest.mark.parametrize(
    ("age", "kept"),
    [(3590, True), (3630, False), (-30, True), (-90, False)],
    ids=["young", "past-max-age", "slightly-future", "far-future"],
)
def test_the_age_limit_is_exact_and_only_future_times_get_a_minute_of_skew(
    tmp_path: Path, age: float, kept: bool
) -> None:
    # max_age is a hard limit (no allowance past it); a record may be dated up to a minute
    # in the future (another process's clock), no more.
    store = SessionStateDir(tmp_path, max_age=3600)
    store.save("a", SessionSnapshot("/w", READ_ONLY))
    record = tmp_path / _name("a")
    data = json.loads(record.read_text())
    data["saved_at"] = time.time() - age
    record.write_text(json.dumps(data))
    assert (store.load("a") is not None) is kept
