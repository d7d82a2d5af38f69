"""The remembered early `session/new` answer (issue 29): keyed by every input, checked, fail closed.

`safehold acp` answers a `session/new` from the cache before its config loads; these tests
check that the key changes with each input the config load reads, that the reader only ever
sends an answer the loaded config confirms (or the agent stops), and, over real agent
processes, that a remembered answer equals the SDK's and a tampered one ends the agent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from safehold.cli import _acp_session_cache as cache
from safehold.cli.acp_initialize import EarlyInitialize

AGENT = [sys.executable, "-m", "safehold.cli", "acp"]
OPTIONS = ("config=None", "floor=None")


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The files these tests write (a user config, trust records) must not reach other
    # tests of this worker, whose agents would load them.
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _entries() -> list[Path]:
    return list((Path(os.environ["XDG_CACHE_HOME"]) / "safehold" / "acp").glob("*.json"))


def _key(config: str | None = None, options: tuple[str, ...] = OPTIONS) -> str:
    return cache.lookup(list(options), config)[0]


def test_the_key_changes_with_every_file_discovery_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    home = Path(os.environ["HOME"])
    keys = [_key()]
    files = [
        project / ".safehold.toml",
        project / ".safehold.json",
        home / ".config" / "safehold" / "config.toml",
        home / ".local" / "state" / "safehold" / "trusted-projects.json",
    ]
    for path in files:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('mode = "auto"\n')
        keys.append(_key())
        path.write_text('mode = "read-only"\n')  # the same size: the bytes count
        keys.append(_key())
    named = tmp_path / "named.toml"
    named.write_text("")
    keys.append(_key(str(named), ("config='named.toml'", "floor=None")))
    named.write_text('mode = "auto"\n')
    keys.append(_key(str(named), ("config='named.toml'", "floor=None")))
    monkeypatch.setenv("SAFEHOLD_MANAGED_CONFIG", str(tmp_path / "managed.toml"))
    keys.append(_key())
    (tmp_path / "managed.toml").write_text("")
    keys.append(_key())
    assert len(set(keys)) == len(keys)


def test_the_key_changes_with_options_directory_and_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    first = _key()
    assert _key() == first  # nothing changed: the same entry
    assert _key(options=("config=None", "floor='review'")) != first
    monkeypatch.setenv("SAFEHOLD_CONFIG", str(tmp_path / "x.toml"))
    assert _key() != first
    monkeypatch.delenv("SAFEHOLD_CONFIG")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert _key() != first


def test_a_link_to_nothing_is_not_a_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Discovery refuses a dangling project file but skips a missing one: distinct keys.
    monkeypatch.chdir(tmp_path)
    missing = _key()
    (tmp_path / ".safehold.toml").symlink_to(tmp_path / "nowhere")
    assert _key() != missing


def test_an_entry_is_read_back_and_a_damaged_one_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    setup = {"modes": {"currentModeId": "review"}, "configOptions": []}
    key, found = cache.lookup(list(OPTIONS), None)
    assert found is None
    cache.remember(key, setup)
    assert cache.lookup(list(OPTIONS), None) == (key, setup)
    folder = cache.cache_dir()
    assert folder is not None
    entry = Path(folder) / f"{key}.json"
    assert entry.stat().st_mode & 0o777 == 0o600
    assert Path(folder).stat().st_mode & 0o777 == 0o700
    for damaged in ("{", "[]", '{"version": 1, "setup": {"modes": {}}}', '{"setup": {}}'):
        entry.write_text(damaged)
        assert cache.lookup(list(OPTIONS), None) == (key, None)


def _reader(lines: list[bytes]) -> tuple[EarlyInitialize, int, int]:
    """An early reader on pipes, fed `lines`; returns it and the client's ends."""
    to_agent_r, to_agent_w = os.pipe()
    from_agent_r, from_agent_w = os.pipe()
    early = EarlyInitialize(from_agent_w, to_agent_r, "0")
    os.write(to_agent_w, b"".join(lines))
    return early, to_agent_w, from_agent_r


def _msg(i: int, method: str, params: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}).encode()


def _answers(fd: int, count: int) -> list[dict[str, Any]]:
    data = b""
    while data.count(b"\n") < count:
        chunk = os.read(fd, 65536)
        assert chunk, data
        data += chunk
    return [json.loads(line) for line in data.splitlines()]


@pytest.mark.parametrize("same", [True, False])
def test_a_remembered_answer_that_went_out_must_be_confirmed(tmp_path: Path, same: bool) -> None:
    remembered = {"modes": {"currentModeId": "auto"}, "configOptions": []}
    loaded = remembered if same else {"modes": {"currentModeId": "review"}, "configOptions": []}
    early, to_agent, from_agent = _reader(
        [
            _msg(0, "initialize", {"protocolVersion": 1}) + b"\n",
            _msg(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}) + b"\n",
        ]
    )
    try:
        early.offer_sessions(remembered)
        _init, new = _answers(from_agent, 2)
        assert new["result"]["modes"] == remembered["modes"]
        # The client holds this answer: only the same answer from the loaded config passes.
        assert early.confirm_sessions(loaded) is same
        assert early.confirm_sessions(None) is False
    finally:
        os.close(to_agent)
        early.finish()
        os.close(from_agent)


def test_a_remembered_answer_not_yet_sent_is_replaced(tmp_path: Path) -> None:
    remembered = {"modes": {"currentModeId": "auto"}, "configOptions": []}
    loaded = {"modes": {"currentModeId": "review"}, "configOptions": []}
    early, to_agent, from_agent = _reader([_msg(0, "initialize", {"protocolVersion": 1}) + b"\n"])
    try:
        early.offer_sessions(remembered)
        _answers(from_agent, 1)
        assert early.confirm_sessions(loaded) is True  # the session/new has not come yet
        os.write(to_agent, _msg(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}))
        os.write(to_agent, b"\n")
        [new] = _answers(from_agent, 1)
        assert new["result"]["modes"] == loaded["modes"]
    finally:
        os.close(to_agent)
        early.finish()
        os.close(from_agent)


def _start(cwd: Path, lines: list[bytes], extra: tuple[str, ...] = ()) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [*AGENT, *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdin is not None
    proc.stdin.write(b"".join(line + b"\n" for line in lines))
    proc.stdin.flush()
    return proc


def _first_session(cwd: Path, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    proc = _start(
        cwd,
        [
            _msg(0, "initialize", {"protocolVersion": 1}),
            _msg(1, "session/new", {"cwd": str(cwd), "mcpServers": []}),
        ],
        extra,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdout.readline()
        new: dict[str, Any] = json.loads(proc.stdout.readline())
    finally:
        _finish(proc)
    assert proc.returncode == 0
    return new


def _finish(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Close the agent's stdin; what it still wrote on stdout and stderr once it exited."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.close()
    rest, err = proc.stdout.read(), proc.stderr.read()
    proc.wait(timeout=60)
    return rest, err


def test_a_second_start_answers_from_the_cache_as_the_first(tmp_path: Path) -> None:
    (tmp_path / "policy.toml").write_text('mode = "read-only"\n')
    extra = ("--config", "policy.toml", "--floor", "review")
    first = _first_session(tmp_path, extra)
    entries = _entries()
    assert len(entries) == 1  # the first start remembered its answer
    remembered = json.loads(entries[0].read_text())["setup"]
    first["result"].pop("sessionId")
    assert first["result"] == remembered
    assert remembered["modes"]["currentModeId"] == "read-only"
    second = _first_session(tmp_path, extra)
    second["result"].pop("sessionId")
    assert second["result"] == first["result"]


def test_a_tampered_entry_that_went_out_stops_the_agent(tmp_path: Path) -> None:
    # The entry for this start says `auto`; the config says `read-only`. Either the reader
    # answered before the config loaded (then the agent stops with an error) or the loaded
    # answer replaced it; never is a session served that the editor shows as `auto`.
    (tmp_path / "policy.toml").write_text('mode = "read-only"\n')
    extra = ("--config", "policy.toml")
    honest = _first_session(tmp_path, extra)["result"]
    [entry] = _entries()
    data = json.loads(entry.read_text())
    data["setup"]["modes"]["currentModeId"] = "auto"
    entry.write_text(json.dumps(data))
    proc = _start(
        tmp_path,
        [
            _msg(0, "initialize", {"protocolVersion": 1}),
            _msg(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}),
        ],
        extra,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdout.readline()
    new = json.loads(proc.stdout.readline())
    sid = new["result"]["sessionId"]
    proc.stdin.write(_msg(2, "session/set_mode", {"sessionId": sid, "modeId": "read-only"}))
    proc.stdin.write(b"\n")
    rest, err = _finish(proc)
    if new["result"]["modes"]["currentModeId"] == "auto":
        assert proc.returncode != 0
        assert b"remembered answer" in err and b"Traceback" not in err
        assert rest == b""  # nothing more was served
    else:
        new["result"].pop("sessionId")
        assert new["result"] == {k: v for k, v in honest.items() if k != "sessionId"}
        assert proc.returncode == 0
    # Either way the entry now holds the loaded config's answer.
    assert json.loads(entry.read_text())["setup"]["modes"]["currentModeId"] == "read-only"


def test_a_fifo_in_place_of_a_file_is_read_without_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Opening a FIFO for reading waits for a writer: the start would hang before its config.
    monkeypatch.chdir(tmp_path)
    key, _ = cache.lookup(list(OPTIONS), None)
    folder = cache.cache_dir()
    assert folder is not None
    os.makedirs(folder)
    os.mkfifo(os.path.join(folder, f"{key}.json"))
    assert cache.lookup(list(OPTIONS), None) == (key, None)
    os.mkfifo(tmp_path / ".safehold.toml")
    assert _key() != key  # and the project file's kind is part of the key
