"""Audit sinks: where the `Gate` writes one JSON record per decision.

`JsonlFileSink` appends one line per record to a file (created 0600: the arguments, even
redacted, are nobody else's business); `LoggingSink` emits each record as a JSON message on
a `logging` logger; `MemorySink` keeps them in a list (for UIs and tests); `sink_from_config`
builds what `SafetyConfig.audit` asks for. Records arrive already redacted by the gate; the
sinks never shorten them.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from safehold.errors import ConfigError
from safehold.policy.approval import AuditSink
from safehold.policy.config import AuditConfig

__all__ = [
    "AuditSink",
    "JsonlFileSink",
    "LoggingSink",
    "MemorySink",
    "MultiSink",
    "sink_from_config",
]


def _line(entry: Mapping[str, Any]) -> str:
    # json escapes newlines inside strings, so one record is always exactly one line.
    return json.dumps(dict(entry), ensure_ascii=False, default=str, separators=(",", ":"))


class JsonlFileSink:
    """Appends each record as one JSON line to `path` (`~` expands), flushed per record."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._path = Path(os.path.expanduser(os.fspath(path)))
        self._lock = threading.Lock()
        # O_NOFOLLOW: a symlink planted at the log's path (say by a sandboxed command, to
        # `~/.bashrc`) must not make the host append attacker-chosen text elsewhere.
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        fd = os.open(self._path, flags, 0o600)
        self._file = os.fdopen(fd, "a", encoding="utf-8")

    @property
    def path(self) -> Path:
        """The file records are appended to."""
        return self._path

    def record(self, entry: Mapping[str, Any]) -> None:
        """Append `entry` as one line; raises OSError when it cannot be written."""
        data = _line(entry) + "\n"
        with self._lock:
            if self._file.closed:
                raise ValueError(f"audit log `{self._path}` is closed")
            # One write call per record: O_APPEND keeps lines from different writers whole.
            self._file.write(data)
            self._file.flush()

    def close(self) -> None:
        """Close the file; later records raise."""
        with self._lock:
            self._file.close()

    def __enter__(self) -> JsonlFileSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LoggingSink:
    """Emits each record as a JSON message on a `logging` logger (default `safehold.audit`)."""

    def __init__(
        self, logger: str | logging.Logger = "safehold.audit", level: int = logging.INFO
    ) -> None:
        self._logger = logger if isinstance(logger, logging.Logger) else logging.getLogger(logger)
        self._level = level

    @property
    def logger(self) -> logging.Logger:
        """The logger records go to."""
        return self._logger

    def record(self, entry: Mapping[str, Any]) -> None:
        """Log `entry` as one JSON message."""
        self._logger.log(self._level, "%s", _line(entry))


class MemorySink:
    """Keeps every record in memory, in order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[dict[str, Any]] = []

    @property
    def entries(self) -> list[dict[str, Any]]:
        """A copy of the records so far."""
        with self._lock:
            return list(self._entries)

    def record(self, entry: Mapping[str, Any]) -> None:
        """Keep `entry`."""
        with self._lock:
            self._entries.append(dict(entry))


class MultiSink:
    """Sends each record to every sink; if any fails, the others still get it, then it raises."""

    def __init__(self, sinks: Iterable[AuditSink]) -> None:
        self._sinks = tuple(sinks)

    @property
    def sinks(self) -> tuple[AuditSink, ...]:
        """The sinks, in order."""
        return self._sinks

    def record(self, entry: Mapping[str, Any]) -> None:
        """Record `entry` in every sink; re-raise the first failure afterwards."""
        error: Exception | None = None
        for sink in self._sinks:
            try:
                sink.record(entry)
            except Exception as exc:
                error = error or exc
        if error is not None:
            raise error


def sink_from_config(audit: AuditConfig) -> AuditSink | None:
    """Build the sink `SafetyConfig.audit` describes (file, logger, both), or None for neither.

    Raises `ConfigError` when the file cannot be opened: an audit log that was asked for
    and cannot be written is a wiring error, not something to skip silently.
    """
    sinks: list[AuditSink] = []
    if audit.path is not None:
        try:
            sinks.append(JsonlFileSink(audit.path))
        except OSError as exc:
            raise ConfigError(
                f"audit.path `{audit.path}` cannot be opened for appending: {exc.strerror or exc}"
            ) from exc
    if audit.logger is not None:
        sinks.append(LoggingSink(audit.logger))
    if not sinks:
        return None
    return sinks[0] if len(sinks) == 1 else MultiSink(sinks)
