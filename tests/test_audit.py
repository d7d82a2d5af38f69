"""Audit sinks: JSONL file, logging, memory, fan-out, and building them from `AuditConfig`."""

from __future__ import annotations

import json
import logging
import stat
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from safehold import AuditConfig, ConfigError
from safehold.audit import JsonlFileSink, LoggingSink, MemorySink, MultiSink, sink_from_config


def test_jsonl_file_is_private_and_appends_one_line_per_record(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    with JsonlFileSink(path) as sink:
        sink.record({"n": 1, "command": "echo a\necho b"})
    with JsonlFileSink(path) as sink:  # reopening appends, never truncates
        sink.record({"n": 2, "when": object()})
    lines = path.read_text().splitlines()
    assert [json.loads(line)["n"] for line in lines] == [1, 2]
    assert json.loads(lines[0])["command"] == "echo a\necho b"
    assert json.loads(lines[1])["when"].startswith("<object")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_jsonl_lines_stay_whole_under_concurrent_writers(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    big = "y" * 100_000
    with JsonlFileSink(path) as sink:
        threads = [
            threading.Thread(
                target=lambda i=i: [sink.record({"t": i, "big": big}) for _ in range(20)]
            )
            for i in range(8)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(entries) == 160
    assert all(e["big"] == big for e in entries)


def test_closed_file_sink_raises(tmp_path: Path) -> None:
    sink = JsonlFileSink(tmp_path / "a.jsonl")
    sink.close()
    with pytest.raises(ValueError, match="closed"):
        sink.record({"x": 1})


def test_logging_sink_emits_json(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="safehold.test-audit")
    LoggingSink("safehold.test-audit").record({"verdict": "deny", "session": "s"})
    [rec] = [r for r in caplog.records if r.name == "safehold.test-audit"]
    assert json.loads(rec.getMessage()) == {"verdict": "deny", "session": "s"}


class Failing:
    def record(self, entry: Mapping[str, Any]) -> None:
        raise OSError("nope")


def test_multi_sink_feeds_every_sink_then_raises() -> None:
    first, last = MemorySink(), MemorySink()
    with pytest.raises(OSError, match="nope"):
        MultiSink([first, Failing(), last]).record({"a": 1})
    assert first.entries == last.entries == [{"a": 1}]


def test_sink_from_config(tmp_path: Path) -> None:
    assert sink_from_config(AuditConfig()) is None
    file_sink = sink_from_config(AuditConfig(path=str(tmp_path / "a.jsonl")))
    assert isinstance(file_sink, JsonlFileSink)
    assert isinstance(sink_from_config(AuditConfig(logger="safehold.audit")), LoggingSink)
    both = sink_from_config(AuditConfig(path=str(tmp_path / "b.jsonl"), logger="x"))
    assert isinstance(both, MultiSink) and len(both.sinks) == 2


def test_unwritable_audit_path_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"audit\.path"):
        sink_from_config(AuditConfig(path=str(tmp_path / "missing-dir" / "a.jsonl")))
