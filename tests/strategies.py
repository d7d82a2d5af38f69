"""Hypothesis strategies shared by the test suite: paths, tool calls, configs.

`paths()` draws relative paths over a small vocabulary that is rich in trouble: dot
segments, doubled slashes, names from the default deny lists, glob metacharacters, mixed
case and NFD spellings. `tool_calls()` puts them under the argument names the engine looks
for (and some it must not need). `configs()` varies the three mode flags and adds deny and
protected patterns from a pool.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from hypothesis import strategies as st

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig

__all__ = [
    "NAMES",
    "PATTERN_POOL",
    "configs",
    "deny_patterns",
    "names",
    "paths",
    "tool_calls",
]

NAMES: tuple[str, ...] = (
    "a",
    "b",
    "src",
    "main.py",
    "Sub",
    ".env",
    ".ENV",
    ".ssh",
    "id_rsa",
    ".git",
    "config",
    "key.pem",
    "notes.md",
    "x*",
    "[1]",
    "q?",
    "café",
    unicodedata.normalize("NFD", "café"),
    "secret",
)

PATTERN_POOL: tuple[str, ...] = (
    "*.md",
    "notes.md",
    "src/",
    "/etc/",
    "{workspace}/b/",
    "{workspace}/src/main.py",
    "Sub",
    "café",
    "~/.config/",
    "q?",
    "[1]",
    "**/a/**",
    "secret",
)


def names(extra: Sequence[str] = ()) -> st.SearchStrategy[str]:
    """One path component from the troublesome vocabulary (plus `extra`)."""
    return st.sampled_from((*NAMES, *extra))


def paths(extra: Sequence[str] = (), *, detours: bool = True) -> st.SearchStrategy[str]:
    """A relative path; with `detours`, it may contain `.`, `..` and empty (`//`) segments."""
    parts = names(extra)
    if detours:
        parts = st.one_of(parts, st.sampled_from((".", "..", "")))
    return st.lists(parts, min_size=1, max_size=5).map("/".join).filter(lambda p: p != "")


def deny_patterns() -> st.SearchStrategy[tuple[str, ...]]:
    """A few extra patterns from the pool, possibly repeated."""
    return st.lists(st.sampled_from(PATTERN_POOL), max_size=4).map(tuple)


@st.composite
def configs(draw: st.DrawFn) -> SafetyConfig:
    """A config with random mode flags and extra deny/protected patterns."""
    return SafetyConfig(
        read_only=draw(st.booleans()),
        require_approval_for_writes=draw(st.booleans()),
        require_approval_for_execute=draw(st.booleans()),
        denied_paths=draw(deny_patterns()),
        protected_paths=draw(deny_patterns()),
    )


_PATH_ARGS = ("path", "file_path", "paths", "src", "dst", "target", "cwd", "edits")


@st.composite
def tool_calls(draw: st.DrawFn, path_strategy: st.SearchStrategy[str] | None = None) -> ToolCall:
    """A tool call of any kind with path arguments under common, nested or declared names."""
    path_strategy = path_strategy if path_strategy is not None else paths()
    kind = draw(st.sampled_from(list(ToolKind)))
    arguments: dict[str, object] = {}
    for name in draw(st.lists(st.sampled_from(_PATH_ARGS), max_size=3, unique=True)):
        if name == "paths":
            arguments[name] = draw(st.lists(path_strategy, min_size=1, max_size=3))
        elif name == "edits":
            arguments[name] = [{"file_path": draw(path_strategy), "text": "x"}]
        else:
            arguments[name] = draw(path_strategy)
    declared: tuple[str, ...] = ()
    if draw(st.booleans()):
        arguments["notebook"] = draw(path_strategy)
        declared = ("notebook",)
    if kind is ToolKind.EXECUTE:
        arguments["command"] = draw(
            st.sampled_from(["ls", "git status", "rm -rf /", "", 'eval "$X"', "cat .env"])
        )
        extra = draw(st.sampled_from([None, "args", "bad-args", "env"]))
        if extra == "args":
            arguments["args"] = ["-la"]
        elif extra == "bad-args":
            arguments["args"] = "-la"
        elif extra == "env":
            arguments["env"] = {"LD_PRELOAD": "/tmp/x.so"}
    locations = tuple(draw(st.lists(path_strategy, max_size=2)))
    return ToolCall(
        draw(st.sampled_from(["read_file", "write_file", "bash", "mcp_tool"])),
        arguments,
        kind,
        locations=locations,
        path_args=declared,
    )


def make_tree(root: str) -> str:
    """Build a real tree with symlinks under `root` and return its workspace directory.

    Layout (`ws` is the workspace)::

        secret/key.txt            a file outside the workspace, denied by `{root}/secret/`
        outside/file.txt          a file outside the workspace
        ws2/x                     a sibling whose name extends the workspace's
        ws/src/main.py, ws/a/b/notes.md, ws/Sub/, ws/.git/config, ws/.env, ws/café/
        ws/link_secret  -> ../secret/key.txt     file symlink out of the workspace
        ws/link_out     -> ../outside            directory symlink out of the workspace
        ws/link_in      -> src                   directory symlink inside the workspace
        ws/dangling     -> ../outside/new.txt    a link to a file that does not exist yet
        ws/src/up       -> ..                    a link back up (a cycle through a directory)
    """
    import os

    def touch(rel: str) -> None:
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write("x")

    for rel in (
        "secret/key.txt",
        "outside/file.txt",
        "ws2/x",
        "ws/src/main.py",
        "ws/a/b/notes.md",
        "ws/.git/config",
        "ws/.env",
        "ws/Sub/file",
        f"ws/{unicodedata.normalize('NFC', 'café')}/menu",
    ):
        touch(rel)
    ws = os.path.join(root, "ws")
    os.symlink("../secret/key.txt", os.path.join(ws, "link_secret"))
    os.symlink("../outside", os.path.join(ws, "link_out"))
    os.symlink("src", os.path.join(ws, "link_in"))
    os.symlink("../outside/new.txt", os.path.join(ws, "dangling"))
    os.symlink("..", os.path.join(ws, "src", "up"))
    return ws
