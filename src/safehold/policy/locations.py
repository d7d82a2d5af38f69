"""`call_locations`: the absolute paths a tool call names, as the engine reads them.

ACP tool calls carry `locations` so an editor can follow along; ACP requires absolute
paths. This lists every path the engine checks for a call: its path arguments (by key and
by value, and the call's own locations) and, for a command, its redirection targets and
the path-like words of every simple command and wrapper layer, relative ones resolved
against the workspace and against each directory a `cd` in the command moves to. Only
the lexical form is given (no symlink resolution): it is what the person reads.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Sequence

from safehold.policy._arguments import find_path_arguments
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.paths import PathRejected, _absolute, _lexical
from safehold.policy.shell import analyze
from safehold.policy.shell.check_paths import _path_candidates
from safehold.policy.shell.findings import _cd_dirs, _roles, _spellings

__all__ = ["call_locations"]

_GLOB = frozenset("*?[")
# Roles whose words are local paths the engine judges (`touch x.txt`, `mkdir build`): listed
# whether or not the file exists yet. Network roles name hosts and URLs, not files.
_PATH_ROLES = frozenset({"read", "write", "delete", "perm", "cwd", "mount", "upload"})


def call_locations(
    call: ToolCall, workspace: str | None, *, home: str | None = None, limit: int = 64
) -> tuple[str, ...]:
    """Absolute paths the call names, in order, without duplicates, at most `limit`.

    With `workspace` None, relative paths are left out (they cannot be made absolute).
    Never raises for odd input: what cannot be read as a path is simply not listed.
    """
    home = home if home is not None else os.environ.get("HOME", "")
    found: list[str] = []

    def add(raw: str, base: str | None) -> None:
        if len(found) >= limit or not raw or "://" in raw or _GLOB & set(raw):
            return
        if not raw.startswith(("/", "~")) and base is None:
            return
        try:
            path = _lexical(_absolute(raw, base or "/", home or "/nonexistent-home"))
        except (PathRejected, ValueError, TypeError):
            return
        if path not in found:
            found.append(path)

    try:
        for arg in find_path_arguments(call)[0]:
            raw = arg.raw if isinstance(arg.raw, str) else os.fsdecode(arg.raw)
            add(raw, workspace)
        command = _command(call)
        if command is not None:
            _command_paths(command, workspace, home, add)
    except Exception:  # listing is best effort; the decision never depends on it
        pass
    return tuple(found)


def _command(call: ToolCall) -> str | list[str] | None:
    if call.kind is not ToolKind.EXECUTE and "command" not in call.arguments:
        return None
    command = call.arguments.get("command")
    extra = call.arguments.get("args")
    if isinstance(command, str) and isinstance(extra, list | tuple):
        return [command, *(a for a in extra if isinstance(a, str))]
    if isinstance(command, str):
        return command
    if isinstance(command, Sequence) and all(isinstance(a, str) for a in command):
        return list(command)
    return None


def _command_paths(
    command: str | list[str],
    workspace: str | None,
    home: str,
    add: Callable[[str, str | None], None],
) -> None:
    # The same walk as the engine's path check (shell.check_paths._check_paths): redirections, then
    # every word of every simple command and wrapper layer, spelled after each `cd`.
    analysis = analyze(command)
    dirs, _unknown = _cd_dirs(analysis)
    bases = [workspace] if workspace is not None else []
    for r in analysis.redirects:
        for spelling in _spellings(r.target, dirs):
            add(spelling, workspace)
    for cmd in analysis.commands:
        uses, _modes = _roles(cmd)
        for use in uses:
            if use.role in _PATH_ROLES and use.word.static:
                for spelling in _spellings(use.word.text, dirs):
                    add(spelling, workspace)
        for word in (*(w for layer in cmd.wrapper_words for w in layer), *cmd.words):
            for candidate in _path_candidates(word):
                path_like = "/" in candidate or candidate.startswith(("~", "."))
                for spelling in _spellings(candidate, dirs):
                    if path_like or any(_exists(spelling, b, home) for b in bases):
                        add(spelling, workspace)


def _exists(path: str, base: str, home: str) -> bool:
    if path.startswith("~"):
        full = home + path[1:]
    else:
        full = path if path.startswith("/") else posixpath.join(base, path)
    try:
        return os.path.lexists(full)
    except (OSError, ValueError):
        return False
