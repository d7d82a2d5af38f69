"""Every code block in the docs and the README runs, and every output it shows is real.

A block's fence language says what is done with it:

- `python`: run in a fresh interpreter after the page's earlier python blocks (a page
  reads like a notebook; the page runs once and each block's test reads its part); its `#> ` comment lines, in order, are exactly what it prints,
  and a block that prints shows it (a failure shows the real output in that form). A
  block that starts `# file: NAME` is also saved as NAME and runs as that module (not as
  `__main__`).
- `console`: every `$ ` line is run by bash in a scratch tree; the lines under it are its
  output (paths normalised, see `_console_tree`). A command line ending in `\\` goes on
  to the next line, as in a shell.
- `bash`: every line (with the same `\\` continuation) is run by bash in the same tree and
  must exit 0 (README's are run by `.ci/run` itself: they install the package). A line that
  installs a package (`pip install`, `pipx install`) is checked, not run: the suite never
  reaches the network, so it must name this project (with extras it has) or a local path.
- `toml`: a safehold config (or part of one), validated by `SafetyConfig.load`.
- `json`: parsed as JSON, or as JSON lines.
- `sh`, `text`, `jsonc`, `mermaid`: shown, not run. `sh` is for commands that need what the
  test cannot provide (a network, a package index, a project with a Makefile, an editor),
  `text` for usage lines, diagrams and messages, `jsonc` for editor settings with comments.

A block without a language fails: every block says how it is checked.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from safehold import SafetyConfig
from safehold.adapters.mcp import McpSettings

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").rglob("*.md"))
README = ROOT / "README.md"
SHOWN_ONLY = {"sh", "text", "jsonc", "mermaid"}
CHECKED = {"python", "py", "console", "bash", "toml", "json"}

_FENCE = re.compile(r"(^ *```)( *)(.*?)\n(.+?)\1", re.M | re.S)


class Block:
    """One fenced block: where it is, its language and its text."""

    def __init__(self, path: Path, line: int, lang: str, source: str) -> None:
        self.path, self.line, self.lang, self.source = path, line, lang, source

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _blocks() -> list[Block]:
    found = []
    for path in [*DOCS, README]:
        text = path.read_text(encoding="utf-8")
        for m in _FENCE.finditer(text):
            line = text[: m.start()].count("\n") + 1
            lang = m.group(3).strip().split(" ")[0].lower()
            found.append(Block(path, line, lang, m.group(4)))
    return found


BLOCKS = _blocks()


def _of(*langs: str, readme: bool = True) -> list[object]:
    return [
        pytest.param(b, id=str(b))
        for b in BLOCKS
        if b.lang in langs and (readme or b.path != README)
    ]


def test_every_block_says_how_it_is_checked() -> None:
    unknown = [
        f"{b} [{b.lang or 'no language'}]" for b in BLOCKS if b.lang not in CHECKED | SHOWN_ONLY
    ]
    assert not unknown, f"give these blocks one of {sorted(CHECKED | SHOWN_ONLY)}: {unknown}"


def test_the_checked_languages_are_found() -> None:
    # Guards the parametrised tests below against a fence regex that finds nothing.
    assert {b.lang for b in BLOCKS} >= {"python", "console", "toml"}


# -- python --------------------------------------------------------------------------------


def _shown_output(source: str) -> list[str]:
    """The `#> ` lines of a block, in order: what the docs say it prints."""
    return [line.strip()[3:] for line in source.splitlines() if line.strip().startswith("#>")]


_PAGE_RUNNER = """
import json, os, sys
blocks = json.load(open(sys.argv[1], encoding="utf-8"))
namespace = {}
for source, file in blocks:
    # A `# file: NAME` block runs as that module would (`__name__` is NAME's stem, so its
    # `if __name__ == "__main__":` part does not run); any other as the reader's script.
    namespace["__name__"] = file.rsplit(".", 1)[0] if file else "__main__"
    if file:
        namespace["__file__"] = os.path.abspath(file)
    else:
        namespace.pop("__file__", None)
    exec(compile(source, file or "<docs>", "exec"), namespace)
    print("\\0--block-end--", flush=True)
"""

_FILE_LINE = re.compile(r"\A# file: (\S+)\n")


def _file_name(block: Block) -> str | None:
    """NAME for a block that starts `# file: NAME`: the reader saves it under that name."""
    m = _FILE_LINE.match(block.source)
    return m.group(1) if m else None


# The optional frameworks a page's code may import (the extras `pydantic-ai`,
# `openai-agents`, `mcp` and `claude`): a page that needs a missing one is skipped, except
# where `SAFEHOLD_REQUIRE_FRAMEWORKS` is set (CI, once the extras are installed).
FRAMEWORKS = {"pydantic_ai", "agents", "mcp", "claude_agent_sdk"}


def _missing_frameworks(blocks: list[Block]) -> list[str]:
    imported: set[str] = set()
    for b in blocks:
        for node in ast.walk(ast.parse(b.source)):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
    return sorted(m for m in imported & FRAMEWORKS if importlib.util.find_spec(m) is None)


_BLOCK_END = "\0--block-end--\n"
_page_runs: dict[tuple[Path, int], tuple[subprocess.CompletedProcess[str], list[str]]] = {}


def _run_page(page: list[Block], tmp: Path) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run `page`'s python blocks in order, once per worker, in one fresh interpreter.

    Each block's test reads its own part of the output: a block's output cannot depend on
    the blocks after it (they run after its end marker is printed), so one run serves them
    all, where a run per block cost a page of n blocks n(n+1)/2 block runs.
    """
    key = (page[0].path, len(page))
    if key not in _page_runs:
        runs = [(b.source, _file_name(b)) for b in page]
        for source, file in runs:
            if file is not None:  # saved, as the reader would, so that other code can run it
                (tmp / file).write_text(source, encoding="utf-8")
        (tmp / "blocks.json").write_text(json.dumps(runs), encoding="utf-8")
        (tmp / "runner.py").write_text(_PAGE_RUNNER, encoding="utf-8")
        home = tmp / "home"
        home.mkdir()
        result = _run(f"{sys.executable} runner.py blocks.json", tmp, home)
        _page_runs[key] = (result, result.stdout.split(_BLOCK_END))
    return _page_runs[key]


@pytest.mark.parametrize("block", _of("python", "py"))
def test_python_block_runs_and_prints_what_it_shows(
    block: Block, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # The blocks of a page build on each other, as a reader follows them: this one runs
    # after the page's earlier python blocks, in one fresh interpreter, in a scratch
    # directory with a scratch HOME. The page runs once, up to its last block whose code
    # (with the blocks before it) needs no missing framework.
    page = [b for b in BLOCKS if b.lang in ("python", "py") and b.path == block.path]
    index = page.index(block)
    missing = _missing_frameworks(page[: index + 1])
    if missing and not os.environ.get("SAFEHOLD_REQUIRE_FRAMEWORKS"):
        pytest.skip(f"needs {', '.join(missing)} (an optional extra)")
    runnable = index + 1
    while runnable < len(page) and (
        os.environ.get("SAFEHOLD_REQUIRE_FRAMEWORKS")
        or not _missing_frameworks(page[: runnable + 1])
    ):
        runnable += 1
    result, parts = _run_page(page[:runnable], tmp_path_factory.mktemp("page"))
    if len(parts) < index + 2:  # this block printed no end marker: it, or one before it, failed
        failed = page[len(parts) - 1]
        assert failed is block, (
            f"{block} did not run: {failed}, before it, failed:\n{result.stderr}"
        )
        raise AssertionError(f"{block} failed:\n{result.stderr}")
    # What a block prints is shown under it, exactly; a block that prints nothing shows none.
    shown = _shown_output(block.source)
    printed = parts[index].rstrip("\n").splitlines()
    real = "\n".join("#> " + line if line else "#>" for line in printed)
    assert [line.rstrip() for line in printed] == [s.rstrip() for s in shown], (
        f"{block}: the `#>` lines are not what it prints; the real output is:\n{real}"
    )


# -- console and bash -----------------------------------------------------------------------


def _console_tree(tmp: Path) -> tuple[Path, dict[str, str]]:
    """A workspace as the docs describe it, and how to spell its paths as the docs do.

    `/tmp/demo/proj` is the workspace (with `src/app.py`, `.git/config`, `.env` and `data`, a
    symlink to `../outside`), `/home/u` the home directory (with `~/.ssh/id_rsa` and
    `~/proj`, a link to the workspace).
    """
    root = tmp / "demo"
    ws = root / "proj"
    home = tmp / "home"
    for rel in ("proj/src/app.py", "proj/.git/config", "proj/.env", "outside/file.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n", encoding="utf-8")
    (ws / "data").symlink_to("../outside")
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("key\n", encoding="utf-8")
    (home / "proj").symlink_to(ws)
    (home / "project").symlink_to(ws)
    return ws, {str(home): "/home/u", str(root): "/tmp/demo"}


def _run(command: str, ws: Path, home: Path) -> subprocess.CompletedProcess[str]:
    bindir = str(Path(sys.executable).parent)
    # TMPDIR: the blocks' `tempfile.mkdtemp()` workspaces go in the scratch tree, removed
    # with it, not in /tmp.
    scratch = home.parent / ".tmp"
    scratch.mkdir(exist_ok=True)
    env = {
        "HOME": str(home),
        "PATH": f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "LANG": "C.UTF-8",
        "TMPDIR": str(scratch),
    }
    # PYTHONPATH: the code under test; SAFEHOLD_HOOK_SERVER: conftest turns the hook server
    # off, so `safehold hook` here decides in-process and leaves no server behind.
    for name in ("PYTHONPATH", "SAFEHOLD_HOOK_SERVER"):
        if name in os.environ:
            env[name] = os.environ[name]
    return subprocess.run(
        ["bash", "-c", command],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _commands(source: str) -> list[tuple[str, list[str]]]:
    """`$ cmd` lines of a console block, each with the output lines under it."""
    runs: list[tuple[str, list[str]]] = []
    for line in source.splitlines():
        if runs and not runs[-1][1] and runs[-1][0].endswith("\\"):
            runs[-1] = (f"{runs[-1][0]}\n{line}", [])  # a `\` continues the command
        elif line.startswith("$ "):
            runs.append((line[2:], []))
        elif runs:
            runs[-1][1].append(line)
        elif line.strip():
            raise AssertionError(f"output before the first `$ ` line: {line!r}")
    return runs


def _lines(source: str) -> list[str]:
    """The commands of a bash block: one a line, a line ending in `\\` joined to the next."""
    commands: list[str] = []
    for line in source.splitlines():
        if commands and commands[-1].endswith("\\"):
            commands[-1] += "\n" + line
        elif line.strip() and not line.lstrip().startswith("#"):
            commands.append(line)
    return commands


@pytest.mark.parametrize("block", _of("console"))
def test_console_block_shows_the_real_output(block: Block, tmp_path: Path) -> None:
    ws, spelling = _console_tree(tmp_path)
    for command, shown in _commands(block.source):
        result = _run(command, ws, tmp_path / "home")
        out = result.stdout + result.stderr
        for real, docs in spelling.items():
            out = out.replace(real, docs)
        expected = "\n".join(shown).strip("\n")
        assert out.strip("\n") == expected, f"{block}: `{command}` printed:\n{out}"


_EXTRAS = set(
    tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
)
_REQUIREMENT = re.compile(r"safehold(?:\[([a-z0-9,-]+)\])?")


def _install_words(line: str) -> list[str] | None:
    """What a `pip install` / `pipx install` line installs, or None for any other line."""
    words = shlex.split(line)
    if words[:3] in (["python", "-m", "pip"], ["python3", "-m", "pip"]):
        words = ["pip", *words[3:]]
    if len(words) < 2 or words[0] not in ("pip", "pip3", "pipx") or words[1] != "install":
        return None
    return [w for w in words[2:] if not w.startswith("-")]


def _check_install(block: Block, line: str, installs: list[str]) -> None:
    """An install line names safehold (with extras it has) or a local checkout or wheel."""
    assert installs, f"{block}: `{line}` installs nothing"
    for what in installs:
        if what.startswith(("./", "/", "~/")) or what in (".", "..") or what.endswith(".whl"):
            continue
        m = _REQUIREMENT.fullmatch(what)
        assert m is not None, f"{block}: `{line}` installs `{what}`, not safehold"
        unknown = set((m.group(1) or "").split(",")) - _EXTRAS - {""}
        assert not unknown, f"{block}: `{line}`: safehold has no extra {sorted(unknown)}"


def test_install_lines_are_checked() -> None:
    # Guards the check above: it reads the lines it should, and refuses what it should.
    assert _install_words("pip install 'safehold[claude]'") == ["safehold[claude]"]
    assert _install_words("pipx install ./safehold") == ["./safehold"]
    assert _install_words("safehold demo") is None
    here = Block(README, 1, "bash", "")
    _check_install(here, "", ["safehold[claude,mcp]", "./dist/safehold-0.2.0-py3-none-any.whl"])
    for bad in (["requests"], ["safehold[nope]"], []):
        with pytest.raises(AssertionError):
            _check_install(here, "", bad)


@pytest.mark.parametrize("block", _of("bash", readme=False))
def test_bash_block_runs(block: Block, tmp_path: Path) -> None:
    if shutil.which("bash") is None:  # pragma: no cover - Linux only project
        pytest.fail("bash is needed to run the docs' bash blocks")
    ws, _ = _console_tree(tmp_path)
    # A page's config file (a toml block starting `# safehold.toml`) is there, as the reader
    # would have written it.
    for earlier in BLOCKS:
        same_page = earlier.path == block.path and earlier.line < block.line
        if same_page and earlier.lang == "toml" and earlier.source.startswith("# safehold.toml"):
            (ws / "safehold.toml").write_text(earlier.source, encoding="utf-8")
    for line in _lines(block.source):
        installs = _install_words(line)
        if installs is not None:  # no network in the suite: check what it installs instead
            _check_install(block, line, installs)
            continue
        result = _run(line, ws, tmp_path / "home")
        assert result.returncode == 0, (
            f"{block}: `{line}` exited {result.returncode}:\n{result.stderr}"
        )


# -- toml and json --------------------------------------------------------------------------


@pytest.mark.parametrize("block", _of("toml"))
def test_toml_block_is_a_valid_config(block: Block, tmp_path: Path) -> None:
    tomllib.loads(block.source)
    path = tmp_path / "safehold.toml"
    path.write_text(block.source, encoding="utf-8")
    # Read as `safehold mcp-proxy` reads it: the policy, and the adapter's `[mcp]` table.
    _, sections = SafetyConfig.load_sections(path, ("mcp",))
    McpSettings.from_section(sections.get("mcp"), str(path))


@pytest.mark.parametrize("block", _of("json"))
def test_json_block_parses(block: Block) -> None:
    try:
        json.loads(block.source)
    except json.JSONDecodeError:
        for line in block.source.splitlines():  # JSON lines (an audit log)
            if line.strip():
                json.loads(line)
