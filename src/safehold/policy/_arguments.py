"""What a tool call's arguments show: paths, glob filters, URLs and command strings.

Paths are found by key (declared names, common names, ACP locations) and by value, at any
depth: a string under any key that is not free text (`content`, `query`, ...) is a path when
it looks like one (absolute, `~`, `./`, `../`, a dot-name, a `file:` URL in any case or
spacing) or names an existing entry of the workspace. Everything under a path name is a
path (``{"path": {"value": ".env"}}``). A path under a write-like name (`output`,
`save_as`, `dest`) is a write whatever the tool's kind. Anything under a path name that is
not a path (a number) is invalid, which is a DENY. The walk is bounded: past a depth or a
node count the call asks instead of being searched further.
"""

from __future__ import annotations

import functools
import os
import re
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from safehold.errors import value_kind
from safehold.policy._memo import remember
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.decision import Reason
from safehold.policy.urls import URL_IN_TEXT

__all__ = [
    "COMMON_PATH_ARGUMENTS",
    "Arguments",
    "PathArgument",
    "find_path_arguments",
    "lists_names",
    "read_arguments",
]

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
        "location",
        "file_url",
        "save_as",
        "output",
        "outputs",
        "out",
        "outfile",
        "outdir",
        "attachment",
        "attachments",
    }
)
# A path under one of these names is written (the tool saves there) whatever its kind.
_WRITE_NAMES: Final = frozenset(
    {
        "output",
        "outputs",
        "out",
        "outfile",
        "outdir",
        "outputpath",
        "outputfile",
        "outputdir",
        "outputdirectory",
        "saveas",
        "savepath",
        "saveto",
        "savefile",
        "dest",
        "dests",
        "destination",
        "destinations",
        "destpath",
        "destinationpath",
        "dst",
        "target",
        "targets",
        "targetpath",
        "targetfile",
        "targetdir",
        "to",
        "topath",
        "newpath",
        "writeto",
        "downloadto",
        "downloadpath",
        "exportto",
        "exportpath",
    }
)
# Free text: what is written, searched for or said, not where. Never read as paths by value.
_TEXT_NAMES: Final = frozenset(
    {
        "content",
        "contents",
        "text",
        "oldstring",
        "newstring",
        "oldstr",
        "newstr",
        "oldtext",
        "newtext",
        "code",
        "body",
        "message",
        "description",
        "prompt",
        "query",
        "question",
        "thought",
        "reason",
        "explanation",
        "title",
        "summary",
        "instructions",
        "regex",
        "pattern",
        "patterns",
        "search",
        "searchterm",
        "keyword",
        "keywords",
        "replacement",
        "data",
        "comment",
    }
)
# Strings under these names are command lines, analysed as commands whatever the kind.
_COMMAND_NAMES: Final = frozenset(
    {"command", "commands", "cmd", "script", "shell", "commandline", "shellcommand", "bash"}
)
# Glob and include filters of search and list tools; `pattern` only for glob tools.
_GLOB_NAMES: Final = frozenset(
    {"glob", "globs", "include", "includes", "includepattern", "filepattern", "filepatterns"}
)
_URL_KEYS: Final = frozenset({"url", "uri", "urls", "uris", "endpoint", "href", "link"})
# Top-level flags by which a tool follows the links it meets below a directory it walks
# (`{"path": ".", "follow": true}`): each such link is then judged where it points.
_FOLLOW_NAMES: Final = frozenset(
    {
        "follow",
        "followlinks",
        "followsymlinks",
        "followsymlink",
        "followsymboliclinks",
        "symlinks",
        "dereference",
        "deref",
    }
)
# Top-level names of the directory a tool resolves its other relative paths from (a `cwd`,
# Gemini CLI's `dir_path`, an MCP tool's `root`): `{"path": "x/y", "cwd": "lib"}` opens
# `lib/x/y`, which may pass a link `lib/x` out of the roots.
_BASE_NAMES: Final = frozenset(
    {
        "cwd",
        "workdir",
        "workingdir",
        "workingdirectory",
        "dir",
        "dirpath",
        "directory",
        "root",
        "rootdir",
        "rootpath",
        "base",
        "basedir",
        "basepath",
        "folder",
        "parent",
        "parentdir",
    }
)


@functools.lru_cache(maxsize=4096)
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
    "fileurl",
}
# Names ending like this hold paths too (`targetFile`, `configPath`, `outputDir`).
_PATH_SUFFIXES: Final = ("path", "paths", "file", "files", "filename", "filenames", "dir")
_PATH_SUFFIXES_LONG: Final = ("dirs", "directory", "directories", "folder", "folders")
# Names that hold a path only when the value looks like a local one (`url: file:///etc/x`);
# `https://host/.env.example` is a remote name, not a file here.
_URL_NAMES: Final = frozenset({"url", "uri", "urls", "uris"})
_LOCAL_PREFIXES: Final = ("file:", "/", "~", ".")


@functools.lru_cache(maxsize=4096)
def _is_path_name(key: object) -> bool:
    name = _normal(key)
    return (
        name in _COMMON_NORMAL
        or name in _WRITE_PATH_NAMES
        or name.endswith(_PATH_SUFFIXES + _PATH_SUFFIXES_LONG)
    )


# The names a tool saves under (`save_to`, `downloadTo`, `export_to`) hold paths too; `to`
# alone is a recipient as often as a file (a message tool's `to`), so it is not one.
_WRITE_PATH_NAMES: Final = _WRITE_NAMES - {"to"}


_MAX_DEPTH: Final = 16
_MAX_PATHS: Final = 1000
_MAX_NODES: Final = 20_000  # values visited in one call's arguments
_MAX_VALUE_CHARS: Final = 4096  # longer strings are text, not paths


@dataclass(frozen=True, slots=True)
class PathArgument:
    """One path found in a call: where it was (``edits[0].file_path``), its raw value, and
    whether it was under a write-like name (then it is checked as a write)."""

    where: str
    raw: str | bytes
    write: bool = False
    by_value: bool = False
    """Found by its look, not its key: checked as a read (or a write under a write name)."""


@dataclass(frozen=True, slots=True)
class Arguments:
    """Everything the policy judges in a call's arguments."""

    paths: tuple[PathArgument, ...]
    globs: tuple[PathArgument, ...]
    """Glob and include filters of search and list tools."""
    urls: tuple[PathArgument, ...]
    """URLs (a whole value under a URL name or spelled `scheme://`, or found in URL text)."""
    commands: tuple[tuple[str, object], ...]
    """`(where, value)` of every command string or argv list, outside `command` itself."""
    invalid: tuple[Reason, ...]
    """A value under a path name that is no path: DENY."""
    limits: tuple[Reason, ...]
    """The arguments were too deep or too large to search fully: ASK."""
    mentions: tuple[PathArgument, ...] = ()
    """Absolute and home paths named inside free text under a neutral key (`"see
    ~/.ssh/id_rsa"`, an SQL `load_file('/etc/shadow')`): checked against the denied paths."""
    bases: tuple[str, ...] = ()
    """Top-level directories the tool resolves its relative paths and filters from."""
    follows: bool = False
    """A top-level flag (`follow: true`) says the tool follows links below its paths."""


# Splits free text into words at characters no path contains in practice (one character
# class: linear). `file:` prefixes fall away with the colon-free rest kept whole.
_PATH_WORD = re.compile(r"[^\s'\"`(),;{}<>|&=\[\]]+")
_MAX_URLS: Final = 100
"""URLs read out of one text value; past them the call asks (`arguments-too-large`)."""
_URL_TEXT = URL_IN_TEXT
_WHOLE_URL = re.compile(r"(?i)^\s*[a-z][a-z0-9+.-]*://\S+$")


class _Finder:
    def __init__(
        self,
        declared: frozenset[str],
        globs: frozenset[str],
        urls: frozenset[str],
        exists: Callable[[str], bool] | None,
    ) -> None:
        self.declared = declared
        self.glob_names = globs
        self.url_names = urls
        self.exists = exists
        self.found: list[PathArgument] = []
        self.seen: set[tuple[str | bytes, bool, bool]] = set()
        self.globs: list[PathArgument] = []
        self.urls: list[PathArgument] = []
        self.commands: list[tuple[str, object]] = []
        self.mentions: list[PathArgument] = []
        self.invalid: list[Reason] = []
        self.limits: list[Reason] = []
        self.nodes = 0
        self.asked_files = False  # whether the result depends on `exists` (the filesystem)

    def bad(self, where: str, message: str) -> None:
        self.invalid.append(Reason("path-argument-invalid", where, f"argument `{where}` {message}"))

    def limit(self, where: str, message: str) -> bool:
        """Record that the walk stopped here (an ASK); True when over a bound."""
        if not self.limits:
            self.limits.append(
                Reason(
                    "arguments-too-large",
                    where,
                    f"argument `{where}` {message}, so not everything in the call could be checked",
                )
            )
        return True

    def over(self, where: str, depth: int) -> bool:
        self.nodes += 1
        if depth > _MAX_DEPTH:
            return self.limit(where, f"is nested deeper than {_MAX_DEPTH} levels")
        if self.nodes > _MAX_NODES:
            return self.limit(where, f"is past the first {_MAX_NODES} values")
        return False

    def search(self, value: object, where: str, depth: int, *, write: bool = False) -> None:
        """Look for paths, globs, URLs and commands inside a value that is not itself a path."""
        if self.over(where, depth):
            return
        if isinstance(value, Mapping):
            for key in sorted(value, key=str):
                sub = f"{where}.{key}" if where else str(key)
                item = value[key]
                name = _normal(key)
                if isinstance(item, str) and _is_patch(key, item):
                    named: set[str] = set()
                    for patched in _patch_paths(item):
                        if patched in named:
                            continue  # one file per hunk: judged once
                        if len(self.found) >= _MAX_PATHS:
                            # The rest is not read: the call asks (`arguments-too-large`).
                            self.limit(sub, f"names more than {_MAX_PATHS} files in its patch")
                            break
                        named.add(patched)
                        where_in = f"{sub} (patch file {len(named)})"
                        self.take(patched, where_in, depth + 1, declared=True)
                if name in _COMMAND_NAMES and (where or key != "command"):
                    self.commands.append((sub, item))  # top-level `command` is the engine's
                if name in self.glob_names:
                    self.filters(item, sub, depth + 1)
                elif key in self.declared or _is_path_name(key):
                    self.take(
                        item,
                        sub,
                        depth + 1,
                        declared=key in self.declared,
                        write=write or name in _WRITE_NAMES,
                    )
                elif name in self.url_names or name in _URL_KEYS:
                    self.url_value(item, sub, depth + 1, text=key in self.url_names)
                elif name in _TEXT_NAMES or name in _COMMAND_NAMES:
                    continue
                else:
                    self.search(item, sub, depth + 1, write=write)
        elif isinstance(value, str | bytes):
            self.by_value(value, where, write)
        elif isinstance(value, Sequence) and not isinstance(value, bytearray):
            for i, item in enumerate(value):
                self.search(item, f"{where}[{i}]", depth + 1, write=write)

    def by_value(self, value: str | bytes, where: str, write: bool) -> None:
        """A string under a name that says nothing: a path or a URL if it looks like one."""
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if not text or len(text) > _MAX_VALUE_CHARS or "\n" in text:
            self.mention(text, where)
            return
        if _WHOLE_URL.match(text) and not text.strip().lower().startswith("file:"):
            self.urls.append(PathArgument(where, text.strip()))
        elif _looks_like_path(text) or _home_spelled(text) is not None:
            self.add_path(where, value, write, by_value=True)
        else:
            self.asked_files = True  # with or without `exists`: the answer is the filesystem's
            stripped = text.strip()
            # A file that exists, or a new one in a folder that does (`docs/new.txt`, where
            # `docs` may be a link out of the workspace).
            folder = stripped.rpartition("/")[0]
            if self.exists is not None and (
                self.exists(stripped) or (folder and " " not in stripped and self.exists(folder))
            ):
                self.add_path(where, value, write, by_value=True)
            else:
                self.mention(text, where)

    def mention(self, text: str, where: str) -> None:
        """Absolute and home paths inside free text: a tool may act on what its text names."""
        for m in _PATH_WORD.finditer(text):
            word = m.group()
            if len(self.mentions) >= _MAX_PATHS:
                self.limit(where, f"names more than {_MAX_PATHS} paths in its text")
                return
            if word[:5].lower() == "file:":
                rest = word[5:]
                word = "/" + rest.lstrip("/") if rest.startswith("/") else rest
            home = _home_spelled(word)
            if home is not None or word.startswith(("/", "~/")):
                self.mentions.append(PathArgument(where, home or word))

    def add_path(
        self, where: str, value: str | bytes, write: bool, *, by_value: bool = False
    ) -> None:
        if (value, write, by_value) in self.seen:
            return  # the same path again (a patch naming one file per hunk): judged once
        self.seen.add((value, write, by_value))
        if len(self.found) >= _MAX_PATHS:
            self.limit(where, f"brings the call past {_MAX_PATHS} paths")
            return
        self.found.append(PathArgument(where, value, write, by_value))
        if isinstance(value, str) and value != value.strip() and value.strip():
            # A tool that trims its argument opens the trimmed name.
            self.found.append(PathArgument(where, value.strip(), write, by_value))
        home = _home_spelled(value) if isinstance(value, str) else None
        if home is not None:
            # A tool that expands variables (a shell, `os.path.expandvars`) opens `~/…`.
            self.found.append(PathArgument(where, home, write, by_value))

    def take(
        self, value: object, where: str, depth: int, *, declared: bool, write: bool = False
    ) -> None:
        """Collect the paths in a value found under a path name."""
        if self.over(where, depth) or value is None:
            return
        if isinstance(value, str | bytes):
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
            if _WHOLE_URL.match(text) and not text.strip().lower().startswith("file:"):
                # A URL under any name is a URL: `{"source": "http://169.254.169.254/"}`.
                self.urls.append(PathArgument(where, text.strip()))
            self.add_path(where, value, write)
        elif isinstance(value, Mapping):
            # Everything under a path name is a path: `{"path": {"value": ".env"}}`.
            for key in sorted(value, key=str):
                sub = f"{where}.{key}"
                write_here = write or _normal(key) in _WRITE_NAMES
                self.take(value[key], sub, depth + 1, declared=False, write=write_here)
        elif isinstance(value, Sequence) and not isinstance(value, bytearray):
            for i, item in enumerate(value):
                self.take(item, f"{where}[{i}]", depth + 1, declared=True, write=write)
        elif declared:
            scalar = isinstance(value, int | float)  # bool too: `true`, as the payload says
            shown = f" ({str(value).lower() if isinstance(value, bool) else value})" * scalar
            self.bad(where, f"should be a path but is {value_kind(value)}{shown}")
        # A number or bool under a common name (`target: 3`) is not a path; ignore it.

    def filters(self, value: object, where: str, depth: int) -> None:
        """Glob or include filters: a string (`*.py`, `{a,b}`) or a list of them."""
        if self.over(where, depth):
            return
        if isinstance(value, str):
            self.globs.append(PathArgument(where, value))
        elif isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
            for i, item in enumerate(value):
                self.filters(item, f"{where}[{i}]", depth + 1)
        elif value is not None and not isinstance(value, bool | int | float):
            self.search(value, where, depth)

    def url_value(self, value: object, where: str, depth: int, *, text: bool) -> None:
        """A value under a URL name: a URL, a local path (`file:`, `/x`), or text with URLs."""
        if self.over(where, depth):
            return
        if isinstance(value, str):
            if _local(value):
                self.add_path(where, value, False)
            elif text or not _WHOLE_URL.match(value):
                for i, m in enumerate(_URL_TEXT.finditer(value)):
                    if i >= _MAX_URLS:
                        self.limit(where, f"holds more than {_MAX_URLS} URLs")
                        break
                    self.urls.append(PathArgument(f"{where} (URL {i + 1})", m.group()))
                if not text and not _URL_TEXT.search(value) and value.strip():
                    self.urls.append(PathArgument(where, value.strip()))  # `host/path`
            else:
                self.urls.append(PathArgument(where, value.strip()))
        elif isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
            for i, item in enumerate(value):
                self.url_value(item, f"{where}[{i}]", depth + 1, text=text)
        elif value is not None:
            self.search(value, where, depth)


_PATHLIKE = re.compile(r"^\s*(?:[/~]|\.{1,2}(?:/|$)|\.[^\s./][^\s/]*(?:/|$)|(?i:file):)")


def _home_spelled(text: str) -> str | None:
    """`$HOME/x` or `${HOME}/x` spelled `~/x`, and `$PWD/x` or `${PWD}/x` spelled `./x`
    (where the tool runs); None for any other text."""
    text = text.strip()
    for var, spelled in _VARIABLE_SPELLINGS:
        if text == var or text.startswith(var + "/"):
            return spelled + text[len(var) :]
    return None


# A tool that expands variables (a shell, `os.path.expandvars`) opens these as spelled.
_VARIABLE_SPELLINGS: Final = (("$HOME", "~"), ("${HOME}", "~"), ("$PWD", "."), ("${PWD}", "."))


def _looks_like_path(text: str) -> bool:
    """Absolute, `~`, `./`, `../`, a dot-name (`.env`, `.ssh/id_rsa`) or a `file:` URL."""
    return bool(_PATHLIKE.match(text))


# Headers naming the files a patch changes: Codex's `apply_patch` format and unified diffs.
# A lazy `(.+?)\s*$` was quadratic in a run of blanks. Patch header lines: `*** Update File: x` (the apply_patch format), `--- a/x`, `+++ b/x`,
# `rename from x`, `copy to x`, `diff --git a/x b/y`. The pattern starts with a newline, so
# the scan jumps from line start to line start; each line's rest is taken whole
# (`[^\n]*`, trimmed in Python): linear in the text.
_PATCH_HEADER: Final = re.compile(
    r"\n(?:(\*\*\* (?:Add|Update|Delete) File: |\*\*\* Move to: |--- |\+\+\+ "
    r"|rename (?:from|to) |copy (?:from|to) )|diff --git )([^\n]*)"
)
_PATCH_NAMES: Final = frozenset({"patch", "diff", "input", "patchtext", "unifieddiff", "changes"})


def _patch_paths(text: str) -> Iterator[str]:
    """The files a patch text names (`*** Update File: x`, `+++ b/x`, `diff --git a/x b/y`),
    each header line once, in order (a patch repeats its headers per file and hunk)."""
    for prefix, rest in dict.fromkeys(_PATCH_HEADER.findall("\n" + text)):
        if prefix:
            names = [rest]
        else:
            names = rest.split()  # `diff --git A B`: two names, no more
            if len(names) != 2:
                continue
        for raw in names:
            name = raw.rstrip().split("\t", 1)[0]  # `--- a/x<TAB>timestamp`
            if not name or name == "/dev/null":
                continue
            yield name
            if name.startswith(("a/", "b/")):
                yield name[2:]  # git's prefixes; both readings are checked


def _is_patch(key: object, value: str) -> bool:
    if _normal(key) in _PATCH_NAMES:
        return True
    head = value.lstrip()[:32]
    return head.startswith(("*** Begin Patch", "diff --git ", "--- "))


def _local(value: object) -> bool:
    """A URL argument naming a local file: `file:///etc/shadow`, `/etc/shadow`, `~/x`."""
    if isinstance(value, str | bytes):
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        return text.strip().lower().startswith(_LOCAL_PREFIXES)
    if isinstance(value, Sequence) and not isinstance(value, bytearray):
        return any(_local(v) for v in value)
    return False


def lists_names(tool: str) -> bool:
    """Whether a search tool's name says it lists names by a glob (`Glob`, `find_files`)
    rather than reading the files it searches (`Grep`, `grep_search`)."""
    return "glob" in _normal(tool) or "find" in _normal(tool)


@functools.lru_cache(maxsize=1024)
def _glob_names(tool: str, declared: tuple[str, ...]) -> frozenset[str]:
    names = frozenset(_normal(k) for k in declared) | _GLOB_NAMES
    if lists_names(tool):
        names |= {"pattern", "patterns"}  # a glob tool's `pattern` is a glob
    return names


def read_arguments(call: ToolCall, exists: Callable[[str], bool] | None = None) -> Arguments:
    """Everything the policy judges in the call's arguments, in a stable order.

    `exists` says whether a relative string names an existing entry of the workspace (then
    it is a path); without it only strings that look like paths are.
    """
    key = _memo_key(call)
    if key is not None:
        known = _MEMO.get(key)
        if known is not None:
            return known
    found, asked_files = _read(call, exists)
    if key is not None and not asked_files:
        # A pure function of the call's fields: no answer from the filesystem went into it.
        remember(_MEMO, key, found, _MEMO_SIZE)
    return found


_MEMO: Final[OrderedDict[tuple[object, ...], Arguments]] = OrderedDict()
_MEMO_SIZE: Final = 2048
_MEMO_ITEMS: Final = 16
_SCALARS: Final = frozenset({str, int, float, bool, type(None)})


def _memo_key(call: ToolCall) -> tuple[object, ...] | None:
    """A key for a call with flat, plain, short arguments (most file tools), else None.

    Only exact `str` keys and scalar values qualify, each paired with its type (`1`, `1.0`
    and `True` are equal but read differently), so equal keys mean equal calls.
    """
    if len(call.arguments) > _MEMO_ITEMS:
        return None
    items: list[tuple[str, type, object]] = []
    for key, value in call.arguments.items():
        kind = type(value)
        if type(key) is not str or kind not in _SCALARS:
            return None
        if kind is str and len(value) > _MAX_VALUE_CHARS:
            return None  # long text: hashing it would cost more than reading it
        items.append((key, kind, value))
    if type(call.name) is not str or call.locations:
        return None
    if call.path_args or call.glob_args or call.url_args:
        for names in (call.path_args, call.glob_args, call.url_args):
            if any(type(n) is not str for n in names):
                return None
    return (call.name, call.kind, call.path_args, call.glob_args, call.url_args, *items)


def _read(call: ToolCall, exists: Callable[[str], bool] | None) -> tuple[Arguments, bool]:
    declared = frozenset(call.path_args)
    if call.kind is ToolKind.MOVE:
        declared |= {"from", "to"}  # a move tool's `{"from": a, "to": b}`
    globs = _glob_names(call.name, call.glob_args)
    urls = frozenset(_normal(k) for k in call.url_args) if call.url_args else frozenset()
    bases = base_directories(call.arguments)
    if bases and exists is not None:
        # A relative name under a neutral key is a path when it names an entry below a
        # base too (`{"x": "vendor/data.txt", "cwd": "lib"}`).
        exists = _exists_below(exists, bases)
    finder = _Finder(declared, globs, urls, exists)
    finder.search(call.arguments, "", 0)
    for i, location in enumerate(call.locations):
        path = getattr(location, "path", location)
        finder.take(path, f"locations[{i}]", 1, declared=True)
    found = Arguments(
        tuple(finder.found),
        tuple(finder.globs),
        tuple(finder.urls),
        tuple(finder.commands),
        tuple(finder.invalid),
        tuple(finder.limits),
        tuple(finder.mentions),
        bases,
        any(_normal(k) in _FOLLOW_NAMES and v is True for k, v in call.arguments.items()),
    )
    return found, finder.asked_files or bool(bases)


def base_directories(arguments: Mapping[str, object]) -> tuple[str, ...]:
    """The string values of the top-level base-directory names (`cwd`, `dir_path`, `root`)."""
    out: list[str] = []
    for key, value in arguments.items():
        if _normal(key) in _BASE_NAMES and isinstance(value, str) and value.strip():
            out.append(value.strip())
    return tuple(dict.fromkeys(out))


def _exists_below(exists: Callable[[str], bool], bases: tuple[str, ...]) -> Callable[[str], bool]:
    def below(text: str) -> bool:
        if exists(text):
            return True
        if text.startswith(("/", "~")):
            return False
        for base in bases:
            joined = f"{base.rstrip('/')}/{text}"
            if base.startswith("/") and os.path.lexists(joined):
                return True
            if not base.startswith(("/", "~")) and exists(joined):
                return True
        return False

    return below


def find_path_arguments(call: ToolCall) -> tuple[tuple[PathArgument, ...], tuple[Reason, ...]]:
    """Every path in the call (by key and by look, not by stat) and a reason for each invalid one."""
    found = read_arguments(call)
    return found.paths, found.invalid
