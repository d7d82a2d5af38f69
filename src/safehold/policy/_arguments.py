"""Which arguments of a tool call are paths: declared names, common names, ACP locations.

A value under a path name may be a string, a list of them, or a mapping/list holding more
path-named keys (a multi-edit tool's ``edits: [{"file_path": ...}]``). Mappings and lists
under other names are searched for path-named keys too. Anything under a path name that is
not a path (a number, a list holding a number) is reported as invalid, which is a DENY:
a tool could still turn it into a path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.decision import Reason

__all__ = ["COMMON_PATH_ARGUMENTS", "PathArgument", "find_path_arguments"]

COMMON_PATH_ARGUMENTS: Final = frozenset(
    {
        "path",
        "paths",
        "file",
        "files",
        "file_path",
        "file_paths",
        "filepath",
        "filename",
        "filenames",
        "abs_path",
        "absolute_path",
        "relative_path",
        "notebook_path",
        "src",
        "dst",
        "source",
        "sources",
        "destination",
        "dest",
        "target",
        "targets",
        "old_path",
        "new_path",
        "from_path",
        "to_path",
        "cwd",
        "dir",
        "dirs",
        "directory",
        "directories",
        "root",
        "workdir",
        "working_directory",
        "output_path",
        "input_path",
    }
)


def _normal(key: object) -> str:
    """`filePath`, `FILE_PATH`, `file-path` and `file_path` are one name."""
    return str(key).lower().replace("_", "").replace("-", "")


_COMMON_NORMAL: Final = frozenset(_normal(k) for k in COMMON_PATH_ARGUMENTS) | {
    "pathname",
    "pathnames",
    "folder",
    "folders",
    "oldpath",
    "newpath",
    "targetfile",
}
# Names ending like this hold paths too (`targetFile`, `configPath`, `outputDir`).
_PATH_SUFFIXES: Final = ("path", "paths", "file", "files", "filename", "filenames", "dir")
_PATH_SUFFIXES_LONG: Final = ("dirs", "directory", "directories", "folder", "folders")
# Names that hold a path only when the value looks like a local one (`url: file:///etc/x`);
# `https://host/.env.example` is a remote name, not a file here.
_URL_NAMES: Final = frozenset({"url", "uri", "urls", "uris"})
_LOCAL_PREFIXES: Final = ("file:", "/", "~", ".")


def _is_path_name(key: object) -> bool:
    name = _normal(key)
    return name in _COMMON_NORMAL or name.endswith(_PATH_SUFFIXES + _PATH_SUFFIXES_LONG)


_MAX_DEPTH: Final = 16
_MAX_PATHS: Final = 1000


@dataclass(frozen=True, slots=True)
class PathArgument:
    """One path found in a call: where it was (``edits[0].file_path``) and its raw value."""

    where: str
    raw: str | bytes


class _Finder:
    def __init__(self, declared: frozenset[str]) -> None:
        self.declared = declared
        self.found: list[PathArgument] = []
        self.invalid: list[Reason] = []

    def bad(self, where: str, message: str) -> None:
        self.invalid.append(Reason("path-argument-invalid", where, f"argument `{where}` {message}"))

    def search(self, value: object, where: str, depth: int) -> None:
        """Look for path-named keys inside a value that is not itself a path."""
        if depth > _MAX_DEPTH:
            self.bad(where, f"is nested deeper than {_MAX_DEPTH} levels")
        elif isinstance(value, Mapping):
            for key in sorted(value, key=str):
                sub = f"{where}.{key}" if where else str(key)
                item = value[key]
                if isinstance(item, str) and _is_patch(key, item):
                    for i, name in enumerate(_patch_paths(item)):
                        self.take(name, f"{sub} (patch file {i + 1})", depth + 1, declared=True)
                if key in self.declared or _is_path_name(key):
                    self.take(value[key], sub, depth + 1, declared=key in self.declared)
                elif _normal(key) in _URL_NAMES and _local(value[key]):
                    self.take(value[key], sub, depth + 1, declared=False)
                else:
                    self.search(value[key], sub, depth + 1)
        elif isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
            for i, item in enumerate(value):
                self.search(item, f"{where}[{i}]", depth + 1)

    def take(self, value: object, where: str, depth: int, *, declared: bool) -> None:
        """Collect the paths in a value found under a path name."""
        if len(self.found) >= _MAX_PATHS:
            if not any(r.code == "path-argument-too-many" for r in self.invalid):
                self.invalid.append(
                    Reason(
                        "path-argument-too-many",
                        where,
                        f"the call names more than {_MAX_PATHS} paths (from argument `{where}`)",
                    )
                )
        elif depth > _MAX_DEPTH:
            self.bad(where, f"is nested deeper than {_MAX_DEPTH} levels")
        elif value is None:
            return
        elif isinstance(value, str | bytes):
            self.found.append(PathArgument(where, value))
        elif isinstance(value, Mapping):
            self.search(value, where, depth)
        elif isinstance(value, Sequence) and not isinstance(value, bytearray):
            for i, item in enumerate(value):
                self.take(item, f"{where}[{i}]", depth + 1, declared=True)
        elif declared:
            self.bad(where, f"should be a path but is a {type(value).__name__}")
        # A number or bool under a common name (`target: 3`) is not a path; ignore it.


# Headers naming the files a patch changes: Codex's `apply_patch` format and unified diffs.
_PATCH_HEADER: Final = re.compile(
    r"^(?:\*\*\* (?:Add|Update|Delete) File: |\*\*\* Move to: |--- |\+\+\+ "
    r"|rename (?:from|to) |copy (?:from|to) )(.+?)\s*$"
    r"|^diff --git (\S+) (\S+)\s*$",
    re.MULTILINE,
)
_PATCH_NAMES: Final = frozenset({"patch", "diff", "input", "patchtext", "unifieddiff", "changes"})


def _patch_paths(text: str) -> list[str]:
    """The files a patch text names (`*** Update File: x`, `+++ b/x`, `diff --git a/x b/y`)."""
    out: list[str] = []
    for m in _PATCH_HEADER.finditer(text):
        for name in (m.group(1), m.group(2), m.group(3)):
            if not name:
                continue
            name = name.split("\t", 1)[0]  # `--- a/x<TAB>timestamp`
            if name == "/dev/null":
                continue
            out.append(name)
            if name.startswith(("a/", "b/")):
                out.append(name[2:])  # git's prefixes; both readings are checked
    return out


def _is_patch(key: object, value: str) -> bool:
    if _normal(key) in _PATCH_NAMES:
        return True
    head = value.lstrip()[:32]
    return head.startswith(("*** Begin Patch", "diff --git ", "--- "))


def _local(value: object) -> bool:
    """A URL argument naming a local file: `file:///etc/shadow`, `/etc/shadow`, `~/x`."""
    if isinstance(value, str | bytes):
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        return text.lower().startswith(_LOCAL_PREFIXES)
    if isinstance(value, Sequence) and not isinstance(value, bytearray):
        return any(_local(v) for v in value)
    return False


def find_path_arguments(call: ToolCall) -> tuple[tuple[PathArgument, ...], tuple[Reason, ...]]:
    """Every path in the call, in a stable order, and a reason for each invalid one."""
    declared = frozenset(call.path_args)
    if call.kind is ToolKind.MOVE:
        declared |= {"from", "to"}  # a move tool's `{"from": a, "to": b}`
    finder = _Finder(declared)
    finder.search(call.arguments, "", 0)
    for i, location in enumerate(call.locations):
        path = getattr(location, "path", location)
        finder.take(path, f"locations[{i}]", 1, declared=True)
    return tuple(finder.found), tuple(finder.invalid)
