"""Logging for `safehold acp`: one line a record, to stderr or `--log-file`.

Its own module so that `safehold.cli.acp_cmd` does not import `logging` before the early
reader may answer `session/new` (issue 29).
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["configure_logging"]


class _OneLine(logging.Formatter):
    """One line a record: an exception is named after the message, not shown as a traceback.

    A client that sends garbage makes the ACP SDK log the parse error with its traceback;
    that is the client's mistake, and 29 lines of safehold's internals do not help with it.
    At `--log-level debug` the traceback is kept.
    """

    def __init__(self, *, full: bool) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self._full = full

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info and record.exc_info[1] is not None and not self._full:
            exc = record.exc_info[1]
            line = f"{record.getMessage()}: {type(exc).__name__}: {exc}"
            record = logging.makeLogRecord(
                {**record.__dict__, "msg": line, "args": None, "exc_info": None, "exc_text": None}
            )
        return super().format(record)


def configure_logging(log_file: str | None, level: str) -> None:
    """Send every record to `log_file` (0600, never through a symlink), else stderr."""
    handler: logging.Handler
    if log_file:
        try:
            # O_NOFOLLOW: a symlink planted at the log's path must not make the agent
            # append lines that quote commands to another file (`~/.bashrc`).
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
            fd = os.open(log_file, flags, 0o600)
            handler = logging.StreamHandler(os.fdopen(fd, "a", encoding="utf-8"))
        except OSError as exc:
            from safehold.errors import ConfigError

            raise ConfigError(f"--log-file `{log_file}`: cannot open: {exc}") from None
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine(full=level == "debug"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
