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
from types import MappingProxyType
from typing import Final

from safehold.errors import value_kind
from safehold.policy._memo import remember
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.decision import Reason
from safehold.policy.urls import URL_IN_TEXT

__all__ = [
    "CALL_CWD",
    "COMMON_PATH_ARGUMENTS",
    "Arguments",
    "PathArgument",
    "find_path_arguments",
    "lists_names",
    "read_arguments",
    "type_hidden_names",
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


def _is_position(text: str) -> bool:
    """`12`, `12-30`: a line number or range."""
    return bool(text) and text[0].isdigit() and all(c.isdigit() or c == "-" for c in text)


def _without_position(value: str) -> str | None:
    """The file name before a line position (`.env:3`, `a.py:12:5`, `a.py:3-9`, `.env#L1`,
    `.env#L1-L9`), or None when `value` ends in none. Linear in `value`."""
    text = value.strip()
    at = text.rfind("#L")
    if at > 0 and _is_position(text[at + 2 :].replace("L", "")):
        return text[:at]
    cut = text
    for _ in range(2):  # a line, then a column
        at = cut.rfind(":")
        if at <= 0 or not _is_position(cut[at + 1 :]):
            break
        cut = cut[:at]
    return cut if cut != text else None


# Command names whose list value may be command lines, one an element, rather than an argv.
_LINE_LIST_NAMES: Final = frozenset({"commands", "script", "scripts", "commandlines"})


# At most this many elements of such a list are judged one by one (past it, as an argv only).
_MAX_LINES: Final = 64
# Glob and include filters of search and list tools; `pattern` only for glob tools.
_GLOB_NAMES: Final = frozenset(
    {"glob", "globs", "include", "includes", "includepattern", "filepattern", "filepatterns"}
)
_URL_KEYS: Final = frozenset(
    {
        "url",
        "uri",
        "urls",
        "uris",
        "endpoint",
        "href",
        "link",
        # A host a tool connects to (an SSH, database or ping tool's `host`): judged as
        # the host of a URL, so `{"hostname": "metadata.google.internal"}` is denied.
        "host",
        "hosts",
        "hostname",
        "hostnames",
        "ip",
        "ipaddress",
        "ipaddr",
        "proxy",
        "proxyurl",
    }
)
# Strings under these names are command lines only when they are strings: `{"exec":
# "rm -rf ~"}`; `{"exec": true}` is a switch.
_COMMAND_TEXT_NAMES: Final = frozenset(
    {"exec", "cmdline", "bashcommand", "shellcmd", "terminalcommand", "runcommand", "run"}
)
# Code a tool runs (an MCP `run_code {"code": ...}`, a browser tool's `function`), in a
# tool whose side is unknown or execute: safehold cannot read what it does, so it asks.
_CODE_NAMES: Final = frozenset(
    {
        "code",
        "sourcecode",
        "pythoncode",
        "jscode",
        "javascript",
        "python",
        "expression",
        "expr",
        "function",
        "snippet",
        "eval",
    }
)
# A bare token (a language code `en`, an error code `E42`) is no code to run.
_CODE_MARKS: Final = frozenset("()=;{}\n\t `'\"$|&<>")


@dataclass(frozen=True, slots=True)
class _Switch:
    """What a search tool's switch widens: links followed, hidden names or ignored files read."""

    follow: bool = False
    hidden: bool = False
    ignored: bool = False


# Switches that make a search or list tool read more than it does by default, by the
# tool's argument name (compared as `_normal` names) with a true value, or (the `False`
# table) with a false value: ripgrep's `--hidden`, `--no-ignore`, `-L`; Gemini CLI's
# `respect_git_ignore`, `respect_gemini_ignore` and `useDefaultExcludes`.
_SWITCH_ON: Final = {
    "hidden": _Switch(hidden=True),
    "includehidden": _Switch(hidden=True),
    "showhidden": _Switch(hidden=True),
    "searchhidden": _Switch(hidden=True),
    "dotfiles": _Switch(hidden=True),
    "noignore": _Switch(ignored=True),
    "noignorevcs": _Switch(ignored=True),
    "noignorefiles": _Switch(ignored=True),
    "noignoredot": _Switch(ignored=True),
    "includeignored": _Switch(ignored=True),
    "unrestricted": _Switch(hidden=True, ignored=True),
}
_SWITCH_OFF: Final = {
    "respectgitignore": _Switch(ignored=True),
    "respectgeminiignore": _Switch(ignored=True),
    "usedefaultexcludes": _Switch(hidden=True, ignored=True),
    "usegitignore": _Switch(ignored=True),
    "gitignore": _Switch(ignored=True),
    "excludehidden": _Switch(hidden=True),
    "skiphidden": _Switch(hidden=True),
    "ignorehidden": _Switch(hidden=True),
}
# The same switches as command-line flags in a value (`{"flags": ["--hidden", "-L"]}`,
# `{"-L": true}`), spelled as ripgrep, grep and find spell them (case matters: `-l` is
# not `-L`).
_SWITCH_FLAGS: Final = {
    "-L": _Switch(follow=True),
    "--follow": _Switch(follow=True),
    "--dereference-recursive": _Switch(follow=True),
    "-R": _Switch(follow=True),
    "--hidden": _Switch(hidden=True),
    "-.": _Switch(hidden=True),
    "--no-ignore": _Switch(ignored=True),
    "--no-ignore-vcs": _Switch(ignored=True),
    "--no-ignore-dot": _Switch(ignored=True),
    "--no-ignore-files": _Switch(ignored=True),
    "-u": _Switch(ignored=True),
    "-uu": _Switch(hidden=True, ignored=True),
    "-uuu": _Switch(hidden=True, ignored=True),
}
_NOT_SWITCHES: Final = _TEXT_NAMES | _GLOB_NAMES | _COMMAND_NAMES | _COMMAND_TEXT_NAMES
_TRUE_WORDS: Final = frozenset({"true", "yes", "on", "1"})
_FALSE_WORDS: Final = frozenset({"false", "no", "off", "0"})
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


CALL_CWD: Final = "(cwd)"
"""The argument an adapter adds for the directory the agent's tools resolve relative paths
from, when that is not the workspace (Claude Code's session `cwd` after a `cd`): a base
directory only, judged as a path only for a search tool given no other path (it then
searches there). `(` is in no tool's own argument name."""


@functools.lru_cache(maxsize=4096)
def _normal(key: object) -> str:
    """`filePath`, `FILE_PATH`, `file-path`, ` file_path ` and `file_path` are one name."""
    return str(key).strip().lower().replace("_", "").replace("-", "")


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


# Every name the tables above give a meaning: a mapping key spelled so is an argument
# name, not a path (`{"edits": [{"old_string": ...}]}`).
_KNOWN_NORMAL: Final = (
    _COMMON_NORMAL
    | _WRITE_NAMES
    | _TEXT_NAMES
    | _COMMAND_NAMES
    | _COMMAND_TEXT_NAMES
    | _CODE_NAMES
    | _GLOB_NAMES
    | _URL_KEYS
    | _BASE_NAMES
    | _FOLLOW_NAMES
    | frozenset(_SWITCH_ON)
    | frozenset(_SWITCH_OFF)
)

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
    url_mentions: tuple[PathArgument, ...] = ()
    """URLs named inside free text under a neutral key: checked for a denied host only."""
    code: tuple[PathArgument, ...] = ()
    """Code a tool of unknown side runs (`{"code": "..."}`): it asks, unread."""
    hidden: bool = False
    """A switch (`hidden: true`, `--hidden`) makes a search read hidden files too."""
    ignored: bool = False
    """A switch (`no_ignore: true`, `respect_git_ignore: false`) makes a search read what
    `.gitignore` leaves out."""
    text_mentions: tuple[PathArgument, ...] = ()
    """Paths and URLs named in the free text of a tool of unknown side: a denied one asks."""
    computed: tuple[Reason, ...] = ()
    """Paths that start with a variable other than `$HOME` and `$PWD` (`$XDG_CONFIG_HOME/x`):
    a tool that expands variables opens a place the call does not tell, so it asks."""


# Splits free text into words at characters no path contains in practice (one character
# class: linear). `file:` prefixes fall away with the colon-free rest kept whole.
_PATH_WORD = re.compile(r"[^\s'\"`(),;{}<>|&=\[\]]+")
_MAX_URLS: Final = 100
"""URLs read out of one text value; past them the call asks (`arguments-too-large`)."""
_URL_TEXT = URL_IN_TEXT
# `scheme://…`, and a web scheme without its slashes (`http:/h`, `HTTP:h`), which WHATWG
# URL parsers (browsers, Node's `fetch`) read as `http://h`.
_WHOLE_URL = re.compile(r"(?i)^\s*(?:[a-z][a-z0-9+.-]*://|(?:https?|wss?|ftps?):)\S+$")


_TABS_NEWLINES: Final = str.maketrans("", "", "\t\n\r")
_PATH_HEADS: Final = frozenset("/~.$ \t")


def _path_head(key: object) -> bool:
    """Whether a key may look like a path (`/`, `~`, `.`, `$HOME`, `file:`): a quick test."""
    return isinstance(key, str) and (key[:1] in _PATH_HEADS or key[:5].lower() == "file:")


_NAME_WORD = re.compile(r"[^\s,;]+")
_MAX_NAME_WORDS: Final = 8


def _undecorated(word: str) -> str:
    """`@a/b.py:12:3` → `a/b.py`; `a.py#L4-L9` → `a.py` (string operations: linear)."""
    word = word.lstrip("@")
    head, mark, tail = word.partition("#L")
    if mark and tail[:1].isdigit():
        word = head
    for _ in range(2):  # `file:line` and `file:line:column`
        head, colon, tail = word.rpartition(":")
        if colon and tail.isdigit():
            word = head
    return word


# scp-style `user@host:path` (git, rsync, scp): the host is where the tool connects.
_SCP_ADDRESS = re.compile(r"^\s*[\w.+-]{1,64}@([\w.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]):\S*$")
_ADDRESS_HEADS: Final = frozenset("0123456789[")
# A dotted IPv4 address or a bracketed IPv6 one, with an optional port and path.
_BARE_ADDRESS = re.compile(
    r"^\s*(?:\d{1,10}(?:\.\d{1,10}){1,3}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?(?:/\S*)?\s*$"
)


class _Finder:
    def __init__(
        self,
        declared: frozenset[str],
        globs: frozenset[str],
        urls: frozenset[str],
        exists: Callable[[str], bool] | None,
        *,
        reads_text: bool = False,
        runs_code: bool = False,
    ) -> None:
        self.reads_text = reads_text  # free text names are searched for denied names too
        self.runs_code = runs_code  # a `code` argument is code the tool runs
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
        self.url_mentions: list[PathArgument] = []
        self.text_paths: list[PathArgument] = []
        self.text_urls: list[PathArgument] = []
        self.code: list[PathArgument] = []
        self.invalid: list[Reason] = []
        self.limits: list[Reason] = []
        self.computed: list[Reason] = []
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
                if not where and key == CALL_CWD:
                    continue  # where the agent is, not what the tool touches: a base
                sub = f"{where}.{key}" if where else str(key)
                item = value[key]
                name = _normal(key)
                if where or _path_head(key):
                    self.key_path(key, name, sub, where, write)
                if isinstance(item, str) and _is_patch(key, item):
                    self.patch(item, sub, depth)
                if name in _COMMAND_NAMES and (where or key != "command"):
                    self.commands.append((sub, item))  # top-level `command` is the engine's
                    if name in _LINE_LIST_NAMES and _strings(item) and len(item) <= _MAX_LINES:
                        # `{"commands": ["ls", "rm -rf ~"]}`: an argv to some tools, a list
                        # of command lines to others; both readings are judged.
                        self.commands += [(f"{sub}[{i}]", line) for i, line in enumerate(item)]
                elif name in _COMMAND_TEXT_NAMES and isinstance(item, str):
                    self.commands.append((sub, item))
                    continue
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
                    # A declared URL name that is no URL key holds text with URLs in it
                    # (Gemini CLI's `prompt`); a `url` is a URL however it is spelled.
                    text = name in self.url_names and name not in _URL_KEYS
                    self.url_value(item, sub, depth + 1, text=text)
                elif self.runs_code and name in _CODE_NAMES and _is_code(item):
                    self.code.append(PathArgument(sub, str(item)))
                    self.text(item, sub, depth + 1)
                elif name in _TEXT_NAMES or name in _COMMAND_NAMES:
                    if self.reads_text and name in _TEXT_NAMES:
                        self.text(item, sub, depth + 1)
                else:
                    self.search(item, sub, depth + 1, write=write)
        elif isinstance(value, str | bytes):
            self.by_value(value, where, write)
        elif isinstance(value, Sequence) and not isinstance(value, bytearray):
            for i, item in enumerate(value):
                sub = f"{where}[{i}]"
                if isinstance(item, str) and _looks_like_patch(item):
                    self.patch(item, sub, depth)  # `{"patches": ["*** Begin Patch ..."]}`
                self.search(item, sub, depth + 1, write=write)

    def patch(self, text: str, where: str, depth: int) -> None:
        """The files a patch text names, each judged as a path of the call."""
        named: set[str] = set()
        for patched in _patch_paths(text):
            if patched in named:
                continue  # one file per hunk: judged once
            if len(self.found) >= _MAX_PATHS:
                # The rest is not read: the call asks (`arguments-too-large`).
                self.limit(where, f"names more than {_MAX_PATHS} files in its patch")
                break
            named.add(patched)
            self.take(patched, f"{where} (patch file {len(named)})", depth + 1, declared=True)

    def key_path(self, key: object, name: str, where: str, parent: str, write: bool) -> bool:
        """A mapping key that is a path (`{"files": {".git/hooks/pre-commit": "..."}}`).

        Any key that looks like a path, and below the top level (where a tool's own argument
        names are) one holding a `/` or naming an existing entry, unless it is a name the
        tables know (`file_path`, `content`, `url`)."""
        if not isinstance(key, str) or len(key) > _MAX_VALUE_CHARS:
            return False
        if not key.strip():
            return False
        if _path_head(key) and (_looks_like_path(key) or _home_spelled(key) is not None):
            self.add_path(where, key, write, by_value=True)
            return True
        if not parent or name in _KNOWN_NORMAL or _is_path_name(key) or "\n" in key:
            return False
        stripped = key.strip()
        if "/" in stripped and not any(c.isspace() for c in stripped):
            self.add_path(where, key, write, by_value=True)
            return True
        if self.exists is not None:
            self.asked_files = True
            if self.exists(stripped):
                self.add_path(where, key, write, by_value=True)
                return True
        return False

    def text(self, value: object, where: str, depth: int) -> None:
        """Free text of a tool whose side is unknown (an MCP tool's `query`): the absolute
        paths and URLs it names are checked against the denied lists (an ask: text may name
        a file without the tool opening it)."""
        if self.over(where, depth):
            return
        if isinstance(value, str | bytes):
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
            if _looks_like_patch(text):
                self.patch(text, where, depth)
            self.mention(text, where, free=True)
        elif isinstance(value, Mapping):
            for key in sorted(value, key=str):
                self.text(value[key], f"{where}.{key}", depth + 1)
        elif isinstance(value, Sequence) and not isinstance(value, bytearray):
            for i, item in enumerate(value):
                self.text(item, f"{where}[{i}]", depth + 1)

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
        elif text.lstrip()[:1] in _ADDRESS_HEADS and _BARE_ADDRESS.match(text):
            # An address without a scheme (`{"u": "169.254.169.254"}`) may be where a tool
            # connects: a denied one counts, as a URL named in text does.
            self.url_mentions.append(PathArgument(where, "http://" + text.strip()))
        elif "@" in text and (scp := _SCP_ADDRESS.match(text)) is not None:
            self.url_mentions.append(PathArgument(where, f"ssh://{scp.group(1)}/"))
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
            self.decorated(stripped, where, write)

    def decorated(self, text: str, where: str, write: bool) -> None:
        """Names of the workspace a tool may read out of a short text: `@file` (a mention),
        `file:12` or `file#L12` (a place in it), `a.py,b.py` or `a.py b.py` (a list)."""
        if self.exists is None or not any(c in text for c in "@:#, \t"):
            return
        words: list[str] = []
        for m in _NAME_WORD.finditer(text):
            if len(words) >= _MAX_NAME_WORDS:
                return  # a sentence, not a list of names
            words.append(m.group())
        for one in words:
            word = _undecorated(one)
            folder = word.rpartition("/")[0]
            if word and (self.exists(word) or (folder and self.exists(folder))):
                self.add_path(where, word, write, by_value=True)

    def mention(self, text: str, where: str, *, free: bool = False) -> None:
        """Absolute and home paths inside free text: a tool may act on what its text names.
        `free`: the text is under a free-text name (`query`), so a denied name there asks."""
        paths, urls = (
            (self.text_paths, self.text_urls) if free else (self.mentions, self.url_mentions)
        )
        for m in _PATH_WORD.finditer(text):
            word = m.group()
            if len(paths) >= _MAX_PATHS:
                self.limit(where, f"names more than {_MAX_PATHS} paths in its text")
                return
            if word[:5].lower() == "file:":
                rest = word[5:]
                word = "/" + rest.lstrip("/") if rest.startswith("/") else rest
            home = _home_spelled(word)
            if home is not None or word.startswith(("/", "~/")):
                paths.append(PathArgument(where, home or word))
        if "://" in text or ":/" in text:
            # A web URL named in the text (`fetch('http://169.254.169.254/')` in a browser
            # tool's script): only a denied host counts, as for a path named in text.
            for i, m in enumerate(_URL_TEXT.finditer(text)):
                if i >= _MAX_URLS:
                    self.limit(where, f"holds more than {_MAX_URLS} URLs")
                    break
                urls.append(PathArgument(where, m.group()))

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
        bare = _without_position(value) if isinstance(value, str) else None
        if bare is not None:
            # `.env:3`, `src/a.py:12:5`, `.env#L1-L9`: editors, viewers and agents' read
            # tools take a line (and column) after the name; the file is the name.
            self.add_path(where, bare, write, by_value=by_value)
        home = _home_spelled(value) if isinstance(value, str) else None
        if home is not None:
            # A tool that expands variables (a shell, `os.path.expandvars`) opens `~/…`.
            self.found.append(PathArgument(where, home, write, by_value))
        elif isinstance(value, str) and _VARIABLE_HEAD.match(value):
            # Any other variable: where such a tool opens the file is not known here.
            self.computed.append(
                Reason(
                    "computed-path",
                    where,
                    f"argument `{where}` starts with a variable (`{value.strip()[:80]}`): a "
                    "tool that expands variables opens a place the call does not tell",
                )
            )

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
                if self.key_path(key, _normal(key), sub, where, write):
                    # The key is the path (`{"files": {"a/b.py": "text"}}`), so the value
                    # is what goes there: searched, not taken as a path itself.
                    self.search(value[key], sub, depth + 1, write=write_here)
                    continue
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
            joined = value.translate(_TABS_NEWLINES)
            if not text and joined != value and _WHOLE_URL.match(joined):
                # WHATWG URL parsers (browsers, Node's `fetch`) drop tabs and newlines
                # anywhere in a URL: `http://169.254.\n169.254/` is the metadata service.
                self.urls.append(PathArgument(where, joined.strip()))
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
# A path that starts with another variable (`$XDG_CONFIG_HOME/…`, `${TMPDIR}/x`).
_VARIABLE_HEAD: Final = re.compile(r"^\s*\$(?:\{[A-Za-z_]|[A-Za-z_])")


def _looks_like_path(text: str) -> bool:
    """Absolute, `~`, `./`, `../`, a dot-name (`.env`, `.ssh/id_rsa`) or a `file:` URL."""
    return bool(_PATHLIKE.match(text))


# Headers naming the files a patch changes: Codex's `apply_patch` format and unified diffs.
# A lazy `(.+?)\s*$` was quadratic in a run of blanks. Patch header lines: `*** Update File: x` (the apply_patch format), `--- a/x`, `+++ b/x`,
# `rename from x`, `copy to x`, `diff --git a/x b/y`. The pattern starts with a newline, so
# the scan jumps from line start to line start; each line's rest is taken whole
# (`[^\n]*`, trimmed in Python): linear in the text.
_PATCH_HEADER: Final = re.compile(
    r"\n(?:[ \t]*(\*\*\* (?:Add|Update|Delete) File: |\*\*\* Move to: )"
    r"|(--- |\+\+\+ |rename (?:from|to) |copy (?:from|to) )|diff --git )([^\n]*)"
)
"""Codex's `apply_patch` trims each line before reading its marker, so a `*** Add File:`
line may be indented; git reads its headers at the start of the line only."""
_PATCH_NAMES: Final = frozenset({"patch", "diff", "input", "patchtext", "unifieddiff", "changes"})
# git's C-style quoting of a name with special characters (`"b/.gi\164/x"`): these escapes,
# and `\ooo` octal bytes (git apply reads them so; `diff.c`'s `quote_c_style`).
_C_ESCAPES: Final = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _patch_paths(text: str) -> Iterator[str]:
    """The files a patch text names (`*** Update File: x`, `+++ b/x`, `diff --git a/x b/y`,
    git's quoted `"b/x"`), each header line once, in order (a patch repeats its headers per
    file and hunk)."""
    for marker, header, rest in dict.fromkeys(_PATCH_HEADER.findall("\n" + text)):
        names = [_header_name(rest)] if marker or header else _diff_git_names(rest)
        for name in names:
            if not name or name == "/dev/null":
                continue
            yield name
            if name.startswith(("a/", "b/")):
                yield name[2:]  # git's prefixes; both readings are checked


def _header_name(rest: str) -> str:
    """The name on a header line: quoted (`"b/x y"`), or up to a tab (`--- a/x<TAB>date`)."""
    rest = rest.strip()
    if rest.startswith('"'):
        name, _end = _c_unquote(rest)
        return name
    return rest.split("\t", 1)[0].rstrip()


def _diff_git_names(rest: str) -> list[str]:
    """The two names of `diff --git A B`: quoted ones read whole; unquoted ones split at
    blanks, or (names holding blanks) before ` b/`."""
    rest = rest.strip()
    names: list[str] = []
    while rest and len(names) < 2:
        if rest.startswith('"'):
            name, end = _c_unquote(rest)
            names.append(name)
            rest = rest[end:].lstrip()
        else:
            word, _blank, rest = rest.partition(" ")
            names.append(word)
            rest = rest.lstrip()
    if rest:  # unquoted names with blanks in them: `a/x y b/x y`
        head, sep, tail = f"{names[0]} {' '.join(names[1:])} {rest}".partition(" b/")
        return [head, "b/" + tail] if sep else []
    return names


def _c_unquote(text: str) -> tuple[str, int]:
    """A C-quoted name at the start of `text` (which starts with `"`) and where it ends."""
    out = bytearray()
    i = 1
    while i < len(text):
        c = text[i]
        if c == '"':
            return out.decode("utf-8", "surrogateescape"), i + 1
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            digits = text[i + 1 : i + 4]
            if len(digits) == 3 and all(d in "01234567" for d in digits):
                out.append(int(digits, 8) & 0xFF)
                i += 4
                continue
            out.append(_C_ESCAPES.get(nxt, ord(nxt) if ord(nxt) < 128 else 63))
            i += 2
            continue
        out += c.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "surrogateescape"), len(text)  # no closing quote: all of it


def _is_patch(key: object, value: str) -> bool:
    return _normal(key) in _PATCH_NAMES or _looks_like_patch(value)


def _looks_like_patch(text: str) -> bool:
    """A patch anywhere in the text (after a mail's headers too): Codex's envelope, a git
    diff, or a unified diff's `--- `/`+++ ` pair. Substring tests: linear."""
    return (
        "*** Begin Patch" in text
        or "diff --git " in text
        or ("--- " in text and "\n+++ " in text)
        or ("*** " in text and " File: " in text)
    )


def _is_code(value: object) -> bool:
    """Code, not a bare token: a string with a call, an operator, a quote or a blank."""
    return isinstance(value, str) and any(c in _CODE_MARKS for c in value.strip())


def _local(value: object) -> bool:
    """A URL argument naming a local file: `file:///etc/shadow`, `/etc/shadow`, `~/x`."""
    if isinstance(value, str | bytes):
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        return text.strip().lower().startswith(_LOCAL_PREFIXES)
    if isinstance(value, Sequence) and not isinstance(value, bytearray):
        return any(_local(v) for v in value)
    return False


# ripgrep's built-in file types whose globs name hidden files (`crates/ignore/src/
# default_types.rs`). A type is a whitelist that goes before ripgrep's hidden test, so a
# search told `type: "sh"` reads `./.env`: each name is judged as a filter of the call.
RG_TYPE_HIDDEN_NAMES: Final = MappingProxyType(
    {
        "sh": (
            ".env", ".login", ".logout", ".profile", ".bash_login", ".bash_logout",
            ".bash_profile", ".bashrc", ".cshrc", ".kshrc", ".tcshrc", ".zshenv", ".zlogin",
            ".zlogout", ".zprofile", ".zshrc",
        ),
        "zsh": (".zshenv", ".zlogin", ".zlogout", ".zprofile", ".zshrc"),
        "vim": (".vimrc", ".gvimrc"),
        "vimscript": (".vimrc", ".gvimrc"),
        "ruby": (".irbrc",),
    }
)  # fmt: skip


def type_hidden_names(value: object) -> tuple[str, ...]:
    """The hidden names the file types a search tool's `type` argument selects (`"sh"`,
    `["sh", "py"]`, `"sh,py"`) let in."""
    names = value if isinstance(value, list | tuple) else [value]
    out: list[str] = []
    for name in names[:64]:
        if isinstance(name, str):
            for one in name.split(",")[:64]:
                out.extend(RG_TYPE_HIDDEN_NAMES.get(one.strip().lower(), ()))
    return tuple(dict.fromkeys(out))


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
    unknown = call.kind is ToolKind.OTHER
    finder = _Finder(
        declared,
        globs,
        urls,
        exists,
        reads_text=unknown,
        runs_code=unknown or call.kind is ToolKind.EXECUTE,
    )
    finder.search(call.arguments, "", 0)
    for i, location in enumerate(call.locations):
        path = getattr(location, "path", location)
        finder.take(path, f"locations[{i}]", 1, declared=True)
    here = call.arguments.get(CALL_CWD)
    if call.kind is ToolKind.SEARCH and isinstance(here, str) and not finder.found:
        finder.add_path(CALL_CWD, here, False)  # a search given no path searches there
    for key in (*call.url_args, *call.glob_args):
        value = call.arguments.get(key)
        if not (value is None or isinstance(value, str) or _strings(value)):
            # A declared URL or filter that is no text (`{"url": 5}`) cannot be judged.
            finder.bad(str(key), f"should be text but is {value_kind(value)}")
    switch = _switches(call.arguments)
    found = Arguments(
        tuple(finder.found),
        tuple(finder.globs),
        tuple(finder.urls),
        tuple(finder.commands),
        tuple(finder.invalid),
        tuple(finder.limits),
        tuple(finder.mentions),
        bases,
        switch.follow,
        tuple(finder.url_mentions),
        tuple(finder.code),
        switch.hidden,
        switch.ignored,
        (*finder.text_paths, *finder.text_urls),
        tuple(finder.computed),
    )
    return found, finder.asked_files or bool(bases)


def _strings(value: object) -> bool:
    """A list of strings (a declared URL or filter list)."""
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str | bytes | bytearray)
        and all(isinstance(v, str) for v in value)
    )


def _switches(arguments: Mapping[str, object]) -> _Switch:
    """What the call's top-level switches widen (`follow: true`, `hidden: true`,
    `respect_git_ignore: false`, `{"flags": ["--no-ignore", "-L"]}`, `{"-L": true}`)."""
    found: list[_Switch] = []
    for key, value in arguments.items():
        if isinstance(value, dict | MappingProxyType):  # Gemini CLI's `file_filtering_options`
            for inner, setting in list(value.items())[:64]:
                _switch(inner, setting, found)
        else:
            _switch(key, value, found)
    if not found:
        return _NO_SWITCH  # the common case
    return _Switch(
        any(one.follow for one in found),
        any(one.hidden for one in found),
        any(one.ignored for one in found),
    )


_NO_SWITCH: Final = _Switch()
_SWITCH_NAMES: Final = _FOLLOW_NAMES | frozenset(_SWITCH_ON) | frozenset(_SWITCH_OFF)
_FLAG_NAMES: Final = frozenset(_normal(flag) for flag in _SWITCH_FLAGS)  # `L`, `hidden`, `uu`


def _switch(key: object, value: object, found: list[_Switch]) -> None:
    """The switches one argument sets: by its name and value, or as flags in its value."""
    name = _normal(key)
    if name in _SWITCH_NAMES or name in _FLAG_NAMES or (type(key) is str and key[:1] == "-"):
        on = (
            value is True
            or (type(value) is int and value == 1)
            or (isinstance(value, str) and value.strip().lower() in _TRUE_WORDS)
        )
        off = value is False or (isinstance(value, str) and value.strip().lower() in _FALSE_WORDS)
        if on and name in _FOLLOW_NAMES:
            found.append(_Switch(follow=True))
        if on and name in _SWITCH_ON:
            found.append(_SWITCH_ON[name])
        if off and name in _SWITCH_OFF:
            found.append(_SWITCH_OFF[name])
        if on and isinstance(key, str):
            flag = key.strip()
            flag = flag if flag.startswith("-") else ("-" if len(flag) == 1 else "--") + flag
            if flag in _SWITCH_FLAGS:
                found.append(_SWITCH_FLAGS[flag])
    # A pattern `-L` is text, and a command line's own flags (`ls -R`) are the shell
    # analysis's to read, not the tool's switches. `"--hidden --follow"` in one string, or a
    # list of flags.
    words: Sequence[object] = ()
    if isinstance(value, str):
        if "-" in value and name not in _NOT_SWITCHES:
            words = value.split(None, 64)
    elif isinstance(value, list | tuple) and name not in _NOT_SWITCHES and _strings(value):
        words = value
    for word in words[:64]:
        if isinstance(word, str) and word.strip() in _SWITCH_FLAGS:
            found.append(_SWITCH_FLAGS[word.strip()])


def base_directories(arguments: Mapping[str, object]) -> tuple[str, ...]:
    """The string values of the top-level base-directory names (`cwd`, `dir_path`, `root`)."""
    out: list[str] = []
    for key, value in arguments.items():
        base = key == CALL_CWD or _normal(key) in _BASE_NAMES
        if base and isinstance(value, str) and value.strip():
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
