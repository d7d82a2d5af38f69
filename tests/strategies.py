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

from hypothesis import settings
from hypothesis import strategies as st

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import CommandRule, SafetyConfig
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import Runner
from safehold.policy.shell.programs import PROGRAMS
from safehold.policy.shell.programs.interpreters import program_family

__all__ = [
    "NAMES",
    "PATTERN_POOL",
    "allowed_but_for_vocabulary",
    "configs",
    "deny_patterns",
    "examples",
    "likely_configs",
    "likely_tool_calls",
    "names",
    "paths",
    "tool_calls",
]

_BASE_EXAMPLES = 60  # what the `dev` and `ci` profiles run (tests/conftest.py)


def examples(n: int) -> int:
    """`n` examples under the default profiles, scaled by the loaded one (never below 1).

    `@settings(max_examples=examples(200))` runs 200 in `dev` and `ci`, about 6,700 in
    `deep`: a test that needs more (or fewer) examples than the profile says so relative
    to it, and a deeper profile still raises it.
    """
    return max(1, n * settings.default.max_examples // _BASE_EXAMPLES)


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


# -- biased strategies: calls that get past steps 1-2 -------------------------------------
# `tool_calls()` over the trouble vocabulary is denied about 80% of the time (denied names,
# paths outside the workspace, read-only), so at CI depth the precedence of grants, hard and
# soft asks and approval flags is barely reached. These draw mostly from what `make_tree`
# holds inside the workspace, grantable commands, rules that allow or ask, and `env`.

# Paths inside the `make_tree` workspace: plain files, a symlink staying inside, protected
# paths (`.git/...` asks on write), a file that does not exist yet.
LIKELY_PATHS: tuple[str, ...] = (
    "src/main.py",
    ".git/config",
    "a/b/notes.md",
    "link_in/main.py",
    ".git/hooks/pre-commit",
    "new.txt",
)
TROUBLE_PATHS: tuple[str, ...] = (".env", "link_out/file.txt", "link_secret", "../outside")

# Commands by what step 3 makes of them under `likely_configs`' rules. ACP `command` + `args`
# appear as tuples; `git status a;cat ...` is one word to exec and two commands to a shell.
LIKELY_COMMANDS: dict[str, tuple[str | tuple[str, list[str]], ...]] = {
    "no-objection": ("cat src/main.py", "ls -la", ("ls", ["-la"]), "git commit -m x"),
    "rule-allowed": ("git status", "make test", ("git", ["status"]), ("make", ["test"]), "ls"),
    "two-readings": (("git", ["status", "a;cat src/main.py"]), ("make", ["x;ls -la"])),
    "rule-asks": ("sudo ls", "git push origin main", ("sudo", ["make"]), "doas ls"),
    "opaque": ('eval "$X"', "python -c 'print(1)'", "echo hi > .git/hooks/pre-commit"),
    "denied": ("rm -rf /", "make clean", "cat .env"),
}

RULE_POOL: tuple[CommandRule, ...] = (
    CommandRule(pattern="git status *", decision=Verdict.ALLOW),
    CommandRule(pattern="make *", decision=Verdict.ALLOW),
    CommandRule(pattern="ls", decision=Verdict.ALLOW),
    CommandRule(pattern="git push *", decision=Verdict.ASK),
    CommandRule(pattern="make clean", decision=Verdict.DENY),
)


def likely_paths() -> st.SearchStrategy[str]:
    """A path inside the workspace of `make_tree`, one time in five one that is denied."""
    return st.sampled_from((False, False, False, False, True)).flatmap(
        lambda trouble: st.sampled_from(TROUBLE_PATHS if trouble else LIKELY_PATHS)
    )


@st.composite
def likely_configs(draw: st.DrawFn) -> SafetyConfig:
    """A config with random flags, the rules of `RULE_POOL` and maybe more protected paths."""
    return SafetyConfig(
        read_only=draw(st.booleans()),
        require_approval_for_writes=draw(st.booleans()),
        require_approval_for_execute=draw(st.booleans()),
        protected_paths=draw(st.lists(st.sampled_from(("src/", "*.md")), max_size=1).map(tuple)),
        command_rules=RULE_POOL,
    )


_FILE_KINDS = (ToolKind.READ, ToolKind.EDIT, ToolKind.DELETE, ToolKind.MOVE, ToolKind.SEARCH)
_TOOL_KINDS = (ToolKind.FETCH, ToolKind.OTHER, ToolKind.SWITCH_MODE, ToolKind.THINK)


@st.composite
def likely_tool_calls(draw: st.DrawFn) -> ToolCall:
    """A file, execute or other tool call that is mostly allowed or asked (see above).

    Half are execute calls, drawn by what step 3 makes of the command, one in three with an
    `env` argument; file calls always name a path.
    """
    shape = draw(st.sampled_from(("execute", "file", "execute", "tool")))
    arguments: dict[str, object] = {}
    if shape == "file":
        kind = draw(st.sampled_from(_FILE_KINDS))
        arguments["paths"] = draw(st.lists(likely_paths(), min_size=1, max_size=2))
    elif shape == "tool":
        kind = draw(st.sampled_from(_TOOL_KINDS))
        if draw(st.booleans()):
            arguments["path"] = draw(likely_paths())
    else:
        kind = ToolKind.EXECUTE
        group = draw(st.sampled_from(sorted(LIKELY_COMMANDS)))
        command = draw(st.sampled_from(LIKELY_COMMANDS[group]))
        if isinstance(command, tuple):
            arguments["command"], arguments["args"] = command[0], list(command[1])
        else:
            arguments["command"] = command
        if draw(st.sampled_from((False, False, True))):
            arguments["env"] = draw(
                st.sampled_from(({"LD_PRELOAD": "evil.so"}, [{"name": "MAKEFLAGS", "value": "-j"}]))
            )
        if draw(st.sampled_from((False, False, False, True))):
            arguments["cwd"] = draw(st.sampled_from(("src", "a/b", "link_out")))
    return ToolCall(
        draw(st.sampled_from(["read_file", "write_file", "bash", "terminal", "mcp_tool"])),
        arguments,
        kind,
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


def runner_for(config: SafetyConfig) -> Runner:
    """The runner a test config stands for: its sandbox when it names one, else the host."""
    return "sandbox" if config.sandbox.mode == "bwrap" else "host"


def allowed_but_for_vocabulary(decision: Decision) -> bool:
    """ALLOW, or an ASK whose only objection is a program whose table is not yet complete.

    Closed world (issue 22): unconfined, a program with no table, or a table with no
    `source`, asks `not-understood`. Tests about something else (heredocs, tree reads) use
    this until the program's table is complete; a table with a `source` must then ALLOW.
    """
    if decision.verdict is Verdict.ALLOW:
        return True
    if decision.verdict is not Verdict.ASK:
        return False
    for reason in decision.reasons:
        if reason.code != "not-understood":
            return False
        name = reason.rule.split(" ", 1)[0]
        table = PROGRAMS.get(program_family(name))
        if table is not None and table.source:
            return False
    return True
