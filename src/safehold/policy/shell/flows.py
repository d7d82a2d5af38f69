"""What one step of a command line hands to a later step: files it writes, links it makes.

`a && b`, `a; b` and `a | b` run in one shell, so a step sees what an earlier step left:

- **Written, then run.** `curl -o i.sh URL && bash i.sh`, `wget -O x.py URL; python3 x.py`,
  `git clone URL d && d/install.sh`, `base64 -d > x.sh && sh x.sh`: the program that runs
  is text computed at run time (downloaded, decoded, copied, extracted), which no analysis
  reads. It is asked in every mode (`runs-written-file`, security-model rule 3), like a
  pipe into a shell. Only a script written from a static heredoc by `cat` is spelled out in
  the command (`cat > t.py <<'EOF' … EOF`; `python3 t.py`): that is the agent's own visible
  code, judged as any script file in the workspace.
- **Written, then imported.** Python imports from its own folder first (`sys.path[0]`: where
  `-c`, `-m` or `-` runs, or the script's folder), so `cp x json.py && python3 -c 'import
  json'` runs `x`: a module file written there (any name: the standard library's modules
  import each other), a folder that may become a package, or a file inside a folder named
  like a standard library module, asks the same way.
- **Linked, then used.** `ln -s .git/hooks hk && cp hook.sh hk/pre-commit` writes
  `.git/hooks/pre-commit`: a later step's path that goes through a link made earlier is
  also judged where the link points (`Through`).

A step "runs" a file when the file is its program (`./x`, `d/install.sh`), the script
operand of an interpreter or shell (`python3 -u x.py`, `sh x.sh`), `source`/`.`'s operand,
or a program file given to an option (`awk -f x.awk`, `sed -f x.sed`, `make -f x.mk`:
`SCRIPT_FILE_OPTIONS`). A project runner, or an interpreter running a script, also runs code
it finds where it runs, next to its script and in the folders above (`_runs_from`): a
foreign file there counts (fetched, decoded, piped from a download, or text holding a
command line that asks: `_foreign_steps`). A `chmod +x` in between changes nothing: the file
still runs. The order of the steps is not relied on (a loop runs its body again), so a file
written anywhere in the line and run anywhere in it counts.

Pure: a function of the analysis and where each command runs; no file is looked at (a link
name that is a directory is covered by both readings, `L` and `L/<target's name>`).
"""

from __future__ import annotations

import fnmatch
import functools
import posixpath
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from safehold.policy.config import DEFAULT_COMMAND_RULES
from safehold.policy.decision import Reason, Verdict
from safehold.policy.paths import kernel_path, link_points_to, links_below
from safehold.policy.shell.analysis import Redirect, ShellAnalysis, SimpleCommand, analyze
from safehold.policy.shell.hazards import hazards
from safehold.policy.shell.locations import PHYSICAL, resolve_dir
from safehold.policy.shell.programs import PROGRAMS, module_command, program_for
from safehold.policy.shell.programs.awk_sed import sed_output_texts
from safehold.policy.shell.programs.compressors import COMPRESSED_SUFFIXES
from safehold.policy.shell.programs.compressors import PROGRAMS as COMPRESSORS
from safehold.policy.shell.programs.files import (
    STDIN_COPIERS,
    TEXT_MAKERS,
    TextMaker,
    copies_as_links,
    copies_stdin,
)
from safehold.policy.shell.programs.interpreters import (
    INTERPRETERS,
    SCRIPT_FILE_OPERANDS,
    SCRIPT_FILE_OPTIONS,
    SCRIPT_SUFFIXES,
    program_family,
    python_module,
    script_operand,
)
from safehold.policy.shell.programs.project_tools import (
    PYTHON_IMPORTERS,
    RUNNER_SETTINGS,
    RUNS_OPERANDS,
    SETTINGS_OPTIONS,
    Settings,
)
from safehold.policy.shell.programs.shells import SHELLS
from safehold.policy.shell.programs.step import program_name
from safehold.policy.shell.programs.table import (
    Role,
    RoleUse,
    first_operand,
    option_values,
    read_roles,
)
from safehold.policy.shell.restores import restore_of, restored_scope
from safehold.policy.shell.rules import CompiledRules, compile_rules
from safehold.policy.shell.sandboxed import code_strings
from safehold.policy.shell.words import Word

__all__ = ["Flows", "Through", "follow"]

# Writers whose output holds no content of its own (an empty file or directory), or only
# text the command spells out: sed's in-place edit applies its visible script to the file.
# A file their script names (sed's `w FILE`: the lines of its input) does hold content, and
# so does an edit whose inserted text holds a command line that asks, or is spelled nowhere
# (`sed -i 's/^all:/&\n\tcurl URL | sh/' Makefile && make`: `_edit_is_foreign`).
_NO_CONTENT = frozenset({"mkdir", "touch", "mktemp", "sed", "gsed"})
_SEDS = frozenset({"sed", "gsed"})
# Redirections the Python reader makes of the files inline code opens (`check_code._read_python`):
# what the code writes is computed by the code, so it is no text the command spells out.
_CODE_WRITES = frozenset({"python open"})
# Link makers: their written operand is a link to their read operand.
_LINKERS = frozenset({"ln", "link"})
# Programs that move or copy a file under a new name: a symbolic link among their sources
# may stay a link there (mv(1); cp(1): "When copying from a symbolic link, cp normally
# follows the link only when not copying recursively", and `-P`, `-d`, `-a` keep it).
_LINK_CARRIERS = frozenset({"mv", "cp"})
# Options that make a program save into its current directory under a name the server or
# the URL picks (curl's `-O`, `-J`, `--remote-name`, `--remote-name-all`; documented in
# curl(1)); `git clone URL` with no directory makes one named after the URL.
_REMOTE_NAME = {"curl": frozenset({"-O", "--remote-name", "--remote-name-all", "-J"})}
_REMOTE_LETTERS = {"curl": frozenset("OJ")}
_SOURCE = frozenset({"source", "."})
# Redirections whose writer is no one program: a compound's (`{ …; } > F`), and `exec`'s
# with no command, which opens a descriptor any later step writes to (bash(1) "exec": "If
# command is not specified, any redirections take effect in the current shell"): `exec
# 3>Makefile; curl URL >&3`. A shell's (`bash -c '…' > F`) takes the output of the steps
# of its script, which are read as steps of the line.
_UNNAMED = frozenset({"", "exec"})
MAX_FLOW_PAIRS = 4096
"""Writes × runs compared per command line; past it every run of a local file asks."""

Place = Callable[[SimpleCommand], tuple[Sequence[str | None], Sequence[RoleUse]]]


@dataclass(frozen=True, slots=True)
class Through:
    """A later step's path that goes through a link an earlier step made."""

    role: Role
    path: str
    """Where the path lands through the link: absolute, normalised; "" when not known (a
    folder `cp -r` or `mv` carries was too large to look through for links)."""
    spelled: str
    program: str


@dataclass(frozen=True, slots=True)
class Flows:
    """The flows of one command line: reasons to ask, and paths reached through new links."""

    asks: tuple[Reason, ...] = ()
    through: tuple[Through, ...] = ()
    host_asks: tuple[Reason, ...] = ()
    """Reasons to ask without the sandbox only (a path inside a repository cloned in the
    line: the sandbox confines wherever its links lead)."""


@dataclass(frozen=True, slots=True)
class _Written:
    path: str | None  # None: computed, could be any file
    writer: str
    file: bool = False  # a redirection's target: a file, never a folder
    by: int = 0  # `id` of the command that writes it (0: a redirection)
    # The content comes from outside the line and the workspace (fetched, cloned, decoded,
    # piped from a download), or is text holding a command line that asks (`_text_runs`).
    foreign: bool = False
    # `path` is the folder the program saves into under a name the remote side picks
    # (`curl -O`, `git clone URL` with no directory): what it writes is one level below.
    remote: bool = False


def follow(analysis: ShellAnalysis, place: Place, base: str, home: str) -> Flows:
    """The flows of `analysis`; `place(cmd)` gives a command's absolute dirs and roles."""
    placed = [(cmd, *place(cmd)) for cmd in analysis.commands]
    if not _may_write(analysis, placed):
        return Flows()  # nothing written and no link made: no flow to follow
    written = _written(analysis, placed, base, home)
    asks: list[Reason] = _settings_asks(analysis, placed, base, home)
    if written:
        pairs = 0
        for cmd, dirs, uses in placed:
            ran = False
            for spelled, full in _runs(cmd, dirs, uses, home):
                pairs += len(written)
                hit = _first(written, pairs, _overwrites, full)
                if hit is not None:
                    ran = True
                    _add(asks, _runs_written(cmd.program, spelled, hit.writer))
            # What a step itself writes (`python -m django makemigrations`, `pytest
            # --junitxml=r.xml`) is its own doing, not code another step left for it.
            for folder, fits in [] if ran else _runs_from(cmd, dirs, home):
                pairs += len(written)
                hit = _first(written, pairs, fits, folder, by=id(cmd))
                if hit is not None:
                    _add(asks, _runs_from_written(cmd.program, folder, hit))
                    break  # one reason per step: the folders overlap
            collects = not ran and _runner_name(cmd) in RUNS_OPERANDS
            own = _output_of(cmd, analysis.commands) if collects else _NO_OUTPUT
            for folder, fits in _collected(cmd, dirs, uses, home, own) if collects else []:
                pairs += len(written)
                hit = _first(written, pairs, fits, folder, by=id(cmd))
                if hit is not None:
                    _add(asks, _runs_from_written(cmd.program, folder, hit))
                    break
            for folder in _imports_from(cmd, dirs, uses, home):
                pairs += len(written)
                hit = _first(written, pairs, _shadows, folder, by=id(cmd))
                if hit is not None:
                    _add(asks, _imports_written(cmd.program, folder, hit))
    through = tuple(_through(analysis, placed, base, home))
    return Flows(tuple(asks), through, tuple(_through_clones(analysis, placed, base, home)))


def _clone_roots(
    placed: list[tuple[SimpleCommand, Sequence[str | None], Sequence[RoleUse]]], home: str
) -> list[tuple[int, str, int]]:
    """(step, folder, depth) for each `git clone` of the line: the folder it fills with the
    remote's files, and how many names below it a path is inside the clone (2 for `git
    clone URL` with no directory, which names the clone's folder after the URL). And for
    each command that writes tracked files from another version (`git checkout BRANCH`,
    `git pull`, `git stash pop`: `restores.restored_scope`), the paths it reaches (depth
    0: the path itself or below it), which that version may hold as links."""
    out: list[tuple[int, str, int]] = []
    for cmd, dirs, _uses in placed:
        if restore_of(cmd) is None:
            continue
        for d in dirs:
            restored = None if d is None else restored_scope(cmd, kernel_path(d))
            if restored is not None:
                # The whole tree: any name below its top (the top itself stays a folder).
                top = restored[1]
                out += [(id(cmd), posixpath.join(top, p), 0) if p else (id(cmd), top, 1)
                        for p in restored[2]]  # fmt: skip
    for cmd, dirs, uses in placed:
        # An archive's members may be symbolic links, made as they are (GNU tar 1.34
        # manual, "Symbolic Links"; Info-ZIP unzip restores links on Unix), and may replace
        # a file already there: any name below where it extracts may lead anywhere.
        if _step_name(cmd) in _LINK_EXTRACTORS:
            for use in uses:
                if use.role == "write" and use.word.static:
                    out += [(id(cmd), p, 1) for p in _absolute(use.word.text, dirs, home)]
            continue
        # `git worktree add DIR REV` fills DIR with REV's files as a clone fills its folder.
        texts = [w.text for w in cmd.words[1:3] if w.static]
        if cmd.program != "git" or not (
            any(w.static and w.text == "clone" for w in cmd.words) or texts == ["worktree", "add"]
        ):
            continue
        if _clones_unnamed(cmd):
            out += [(id(cmd), d, 2) for d in dirs if d is not None]
            continue
        for use in uses:
            if use.role == "write" and use.word.static:
                out += [(id(cmd), p, 1) for p in _absolute(use.word.text, dirs, home)]
    return out


# Extractors of archives that hold symbolic links (`_clone_roots`).
_LINK_EXTRACTORS = frozenset({"tar", "bsdtar", "gtar", "unzip", "7z", "7za", "unrar", "cpio"})


def _through_clones(
    analysis: ShellAnalysis,
    placed: list[tuple[SimpleCommand, Sequence[str | None], Sequence[RoleUse]]],
    base: str,
    home: str,
) -> list[Reason]:
    """A path below a folder `git clone` fills in the same line: git checks out a symbolic
    link as a link (git-config(1) `core.symlinks`, true on Linux and macOS), and the remote
    chose each name below, so `d/link` may lead anywhere (`git clone URL d && cat
    d/link`, with `link -> ~/.ssh/id_rsa`). A later command sees it (it is on disk then);
    in the same line nothing has looked, and only the sandbox confines it."""
    roots = _clone_roots(placed, home)
    if not roots:
        return []

    def inside(path: str, by: int | None) -> str | None:
        for step, folder, depth in roots:
            if step == by:
                continue
            if depth == 0 and path == folder:
                return folder
            if not path.startswith(folder.rstrip("/") + "/"):
                continue
            if len(path[len(folder.rstrip("/")) + 1 :].strip("/").split("/")) >= depth:
                return folder
        return None

    found: list[tuple[str, str]] = []
    for cmd, dirs, uses in placed:
        spots = [d for d in dirs if d is not None]
        found += [(cmd.program, d) for d in spots if inside(d, id(cmd))]
        for use in uses:
            if use.role in ("read", "write", "delete", "perm") and use.word.static:
                for full in _absolute(use.word.text, dirs, home):
                    if inside(full, id(cmd)):
                        found.append((cmd.program, use.word.text))
    for r in analysis.redirects:
        spots = [d for d in (resolve_dir(x, base, home) for x in r.dirs) if d is not None]
        for full in _absolute(r.target, spots, home):
            if inside(full, None):
                found.append((r.writer or "a redirection", r.target))
    return [
        Reason(
            "through-cloned-link",
            program,
            f"`{program}` reaches `{spelled}` inside a repository the same command clones "
            "or checks out from another version, or an archive it extracts: any name there "
            "may be a symbolic link that version or archive holds, leading out of the "
            "workspace or to a secret, and nothing has looked yet",
        )
        for program, spelled in found[:1]
    ]


def _first(
    written: Sequence[_Written],
    pairs: int,
    fits: Callable[[str, _Written], bool],
    path: str,
    by: int | None = None,
) -> _Written | None:
    """The first write that `fits(path, write)`, leaving out the writes of the step `by`
    itself; past `MAX_FLOW_PAIRS` pairs, any write (the work stays bounded)."""
    return next(
        (
            w
            for w in written
            if pairs > MAX_FLOW_PAIRS or ((by is None or w.by != by) and fits(path, w))
        ),
        None,
    )


def _overwrites(path: str, written: _Written) -> bool:
    """The write may be the file `path` or a folder holding it."""
    return _under(path, written.path)


def _add(asks: list[Reason], reason: Reason) -> None:
    if reason not in asks:
        asks.append(reason)


def _under(path: str, written: str | None) -> bool:
    if written is None:
        return True
    return path == written or path.startswith(written.rstrip("/") + "/")


def _runs_written(program: str, spelled: str, writer: str) -> Reason:
    return Reason(
        "runs-written-file",
        f"{program} {spelled[:40]}",
        f"`{program}` runs `{spelled}`, which `{writer}` writes in the same command: code "
        "computed at run time (downloaded, decoded or copied) that nobody has read",
    )


# Programs that run code they find in the directory they run in: a Makefile's recipes,
# package.json scripts, conftest.py and the tests, build.rs, a Gradle or Maven build, a
# Rakefile, tox.ini and noxfile.py (each program's manual: make(1) "-f", npm-run-script(1),
# pytest "conftest.py", Cargo "Build Scripts"). `make -C DIR` runs in DIR (`dirs`).
# pylint runs the `init-hook` Python code and loads the `load-plugins` modules of the first
# `pylintrc`, `.pylintrc`, `pyproject.toml`, `setup.cfg` or `tox.ini` it finds (pylint docs,
# "Command-line arguments and configuration files"); sqlfluff loads the templater and its
# Python macros (`library_path`) that `.sqlfluff`, `setup.cfg`, `tox.ini` or
# `pyproject.toml` name, in the folder it runs in and those above (sqlfluff docs,
# "Configuration": "Nesting", "Library Templating").
# `django-admin` and `python -m django` import the settings module and the apps it lists.
PROJECT_RUNNERS = frozenset(
    {
        "make", "gmake", "cmake", "ninja", "meson", "scons", "npm", "yarn", "pnpm", "bun",
        "deno", "pytest", "py.test", "tox", "nox", "cargo", "go", "gradle", "gradlew", "mvn",
        "mvnw", "ant", "sbt", "rake", "bundle", "just", "task", "invoke", "poetry", "uv",
        "hatch", "pdm", "rye", "jest", "vitest", "mocha", "phpunit", "composer", "mix",
        "dotnet", "swift", "stack", "cabal", "pylint", "sqlfluff", "django-admin",
    }
)  # fmt: skip
_PYTHON_RUNNERS = frozenset(
    {"pytest", "unittest", "tox", "nox", "build", "pip", "pylint", "sqlfluff", "django"}
)


Fits = Callable[[str, _Written], bool]


def _runs_from(cmd: SimpleCommand, dirs: Sequence[str | None], home: str) -> list[tuple[str, Fits]]:
    """The folders whose code `cmd` runs without naming a file, each with the test of a
    write that can change that code.

    A project runner (`make`, `npm test`, `pytest`, `python -m pytest`) runs the code below
    where it runs (`_feeds_runner`), and looks for its configuration in the folders above
    (`npm` finds `package.json`, pytest its rootdir's `conftest.py`, each folder up to the
    root): a file directly in one of them counts (`_beside`). An interpreter running a
    script (`node src/app.js`, `bash src/run.sh`) loads modules from where it runs and from
    the script's folder, and walks up from there (`node_modules/`): a code file below them
    counts (`_code_below`), and one directly in a folder above the script's (`_code_beside`).
    """
    here = [d for d in dirs if d is not None]
    runner = cmd.program in PROJECT_RUNNERS
    if not runner and program_family(cmd.program) == "python":
        found = python_module(cmd.words)
        runner = found is not None and found[1].split(".", 1)[0] in _PYTHON_RUNNERS
    out: list[tuple[str, Fits]] = []
    if runner:
        out += [(d, _feeds_runner) for d in here]
        out += [(up, _beside) for d in here for up in _above(d)]
    if cmd.program in REPOSITORY_FINDERS:
        out += [(d, _repository_in) for d in here]
    suffixes = SCRIPT_SUFFIXES.get(program_family(cmd.program))
    if suffixes is not None:
        script = _script_dirs(cmd, dirs, home)
        fits = _code_below(suffixes)
        out += [(d, fits) for d in (*here, *script)]
        out += [(up, _code_beside(suffixes)) for d in script for up in _above(d)]
    return out


def _script_dirs(cmd: SimpleCommand, dirs: Sequence[str | None], home: str) -> list[str]:
    """The folder of the script an interpreter runs (`node src/app.js`: `src`)."""
    at = script_operand(cmd.program, cmd.words)
    if at is None or at >= len(cmd.words):
        return []
    word = cmd.words[at]
    if not (word.static or word.home):
        return []
    return [posixpath.dirname(full) for full in _absolute(word.text, dirs, home)]


MAX_ABOVE = 64
"""Folders above one folder that are looked at (a path deeper than this is cut there)."""


def _above(folder: str) -> list[str]:
    """The folders above `folder`, nearest first, up to the root."""
    out: list[str] = []
    while folder not in ("/", "") and len(out) < MAX_ABOVE:
        folder = posixpath.dirname(folder)
        out.append(folder)
    return out


# Programs whose standard output is what the other end of a connection sends: a shell on
# another host, a socket, or a name server's answer (DNS TXT records hold any text; dig,
# host, nslookup and drill print them: BIND 9.18 and ldns 1.8 manuals).
_NETWORK_OUTPUT = frozenset(
    {
        "https", "lwp-request", "fetch", "ssh", "nc", "nc.openbsd", "nc.traditional",
        "netcat", "netcat-openbsd", "pnc", "ncat", "socat", "telnet", "dig", "host",
        "nslookup", "drill",
    }
)  # fmt: skip
# Writers whose content comes from outside the command line and the workspace: fetched,
# cloned, extracted or decoded. A file one of them writes below where a project runner runs
# may be its code (`curl -o conftest.py URL && pytest`); a log, a stamp or a copy of a
# workspace file (`cmd | tee build/log`, `cp README.md build/`) is not asked for.
_FOREIGN_WRITERS = frozenset(
    {
        "curl", "wget", "aria2c", "http", "gh", "git", "svn", "hg", "scp", "sftp", "rsync",
        "tar", "bsdtar", "unzip", "7z", "7za", "unrar", "gunzip", "zcat", "bunzip2", "unxz",
        "zstd", "base64", "base32", "basenc", "xxd", "uudecode", "openssl", "gpg", "docker",
        "podman", "kubectl", "pip", "pip3", "npm", "npx", "pnpm", "yarn", "cargo",
        # What a remote end or a name server sends, written to a file by a redirection
        # (`nc HOST 80 > Makefile`, `ssh HOST cat f > Makefile`, `host -t txt NAME >
        # package.json`): as `_FOREIGN_STREAMS`, under every name the tables know.
        *_NETWORK_OUTPUT,
        # Decompressors under every name (gzip 1.12, bzip2 1.0.8, xz 5.4, lz4 1.9, zstd 1.5
        # `--help`: `-d`/`-c` and the `*cat` names write the inflated text).
        "gzip", "bzip2", "bzcat", "xz", "xzcat", "lzma", "unlzma", "lzcat", "lz4", "unlz4",
        "lz4cat", "unzstd", "zstdcat",
    }
)  # fmt: skip
# Programs whose standard output is such content: downloaders, decoders and decompressors.
# What a later stage of their pipe writes holds it (`curl URL | tee conftest.py`, `curl URL
# | sed -n 'w Makefile'`); `git log | tee log.txt` is the workspace's own history.
_FOREIGN_STREAMS = frozenset(
    {
        "curl", "wget", "aria2c", "http", "gh", *_NETWORK_OUTPUT,
        "base64", "base32", "basenc", "xxd", "uudecode", "openssl", "gpg",
        "gunzip", "zcat", "bzcat", "bunzip2", "xzcat", "unxz", "zstd", "zstdcat", "unzip",
        "tar", "bsdtar", "7z", "7za", "gzip", "bzip2", "xz", "lzma", "unlzma", "lzcat", "lz4",
        "unlz4", "lz4cat", "unzstd",
    }
)  # fmt: skip


# Compressors that also decompress (gzip 1.12, bzip2 1.0.8, xz 5.4, zstd 1.5 `--help`:
# `-d`, `--decompress`, `--uncompress`): only decompressing do they write text a runner may
# run. What they compress is compressed data, which no runner runs (`gzip build.log &&
# make`). lz4 is not here: it decompresses a `.lz4` file without `-d`.
_DECOMPRESS_ONLY = frozenset({"gzip", "bzip2", "xz", "lzma", "zstd"})


def _inflates(cmd: SimpleCommand, name: str) -> bool:
    """Whether a step of `_FOREIGN_WRITERS`/`_FOREIGN_STREAMS` writes foreign content: any
    but a compressor of `_DECOMPRESS_ONLY` that may not decompress. Read conservatively: a
    computed word, any short-option cluster holding `d`, and any long option a prefix of
    `--decompress` or `--uncompress` may mean decompress (getopt_long takes prefixes)."""
    if name not in _DECOMPRESS_ONLY:
        return True
    for word in cmd.words[1:]:
        text = word.text
        if not word.static:
            return True
        if text == "--":
            break
        if text.startswith("--"):
            option = text.partition("=")[0]
            if len(option) > 2 and (
                "--decompress".startswith(option) or "--uncompress".startswith(option)
            ):
                return True
        elif text.startswith("-") and "d" in text[1:]:
            return True
    return False


# Writers whose file comes from outside the workspace and its history: downloaders,
# decoders, extractors and package tools (git's checkouts restore the project's own files).
_FETCHERS = (_FOREIGN_WRITERS | _FOREIGN_STREAMS) - {"git"}


def _feeds_runner(folder: str, written: _Written) -> bool:
    """A write that may change the code a project runner in `folder` runs: one that makes
    or fills `folder` or a folder above it (`git clone URL d && cd d`, `tar x` into `.`), a
    computed path, or a foreign file below it."""
    if _under(folder, written.path):
        return True
    return written.foreign and _under(written.path or "", folder)


# Programs that run what the repository they find where they run configures: git reads the
# `config` (core.fsmonitor, core.pager, diff.external, hooks) of the repository it finds
# in its directory or above, a bare one included (git(1) "GIT_DIR", git-config(1)
# "safe.bareRepository": `all` by default). A fetched tree can hold one: an archive a
# `.git/config`, a clone a bare repository in a subfolder (`git clone URL y && cd y/evil
# && git status`). A clone's own root is not one: git writes its `.git` itself.
REPOSITORY_FINDERS = frozenset({"git"})


def _repository_in(folder: str, written: _Written) -> bool:
    """A write that may give `folder` a repository git finds: a computed path, or a foreign
    tree `folder` is in (below a clone's root, or anywhere in an extracted tree)."""
    if written.path is None:
        return True
    if not written.foreign or written.file or not _under(folder, written.path):
        return False
    top = written.path.rstrip("/")
    root = posixpath.dirname(folder) == top if written.remote else folder == top
    return not (root and written.writer == "git")


def _beside(folder: str, written: _Written) -> bool:
    """A write that may change a configuration file a runner looks for in `folder`, a folder
    above where it runs: one that makes or fills `folder`, or a foreign file directly in it
    (`curl -o package.json URL && cd src && npm test`)."""
    if _under(folder, written.path):
        return True
    return written.foreign and posixpath.dirname(written.path or "") == folder


def _code_below(suffixes: tuple[str, ...]) -> Fits:
    """A write that may change a module an interpreter loads from below `folder`: as
    `_feeds_runner`, for a foreign file that may be code (`_is_code`)."""

    def fits(folder: str, written: _Written) -> bool:
        if _under(folder, written.path):
            return True
        path = written.path or ""
        return written.foreign and _under(path, folder) and _is_code(path, suffixes)

    return fits


def _code_beside(suffixes: tuple[str, ...]) -> Fits:
    """As `_beside`, for a foreign file that may be code (`node_modules/` above a script)."""

    def fits(folder: str, written: _Written) -> bool:
        if _under(folder, written.path):
            return True
        path = written.path or ""
        inside = posixpath.dirname(path) == folder or _under(path, folder + "/node_modules")
        return written.foreign and inside and _is_code(path, suffixes)

    return fits


def _is_code(path: str, suffixes: tuple[str, ...]) -> bool:
    """`path` may be code an interpreter loads: a name with one of its suffixes, or a name
    with no suffix (a folder: a clone, an extraction, a package; or a shell's library)."""
    name = posixpath.basename(path)
    dot = name.rfind(".", 1)
    return dot < 0 or name[dot:] in suffixes


def _runs_from_written(program: str, folder: str, written: _Written) -> Reason:
    name = "a computed path" if written.path is None else f"`{written.path}`"
    return Reason(
        "runs-written-file",
        f"{program} {folder[-40:]}",
        f"`{program}` runs code it finds in `{folder}` (a Makefile, scripts, tests, "
        f"modules, settings), and "
        f"`{written.writer}` writes {name} there in the same command: code computed at run "
        "time (downloaded, decoded or copied) that nobody has read",
    )


def _imports_from(
    cmd: SimpleCommand, dirs: Sequence[str | None], uses: Sequence[RoleUse], home: str
) -> list[str]:
    """The folders a Python step imports modules from before the standard library: the
    script's own folder (`python3 x.py`), or where it runs (`-c`, `-m`, `-`, standard input);
    for a console script that imports modules by name (`PYTHON_IMPORTERS`: `django-admin
    --settings=M`), where it runs and the folders its options name (`--pythonpath D`).

    Python puts that folder first on `sys.path` (the Python docs, "sys.path"), so a `json.py`
    there is what `import json` runs, and so is a `re.py` for any module that imports `re`.
    """
    named = PYTHON_IMPORTERS.get(cmd.program)
    if named is not None:
        out = [d for d in dirs if d is not None]
        for use in uses:
            if use.option in named and (use.word.static or use.word.home):
                out += _absolute(use.word.text, dirs, home)
        return out
    if program_family(cmd.program) != "python":
        return []
    at = script_operand(cmd.program, cmd.words)
    if at is None:
        return [d for d in dirs if d is not None]
    if at >= len(cmd.words) or not (cmd.words[at].static or cmd.words[at].home):
        return [d for d in dirs if d is not None]  # a computed script: anywhere it runs
    return [posixpath.dirname(full) for full in _absolute(cmd.words[at].text, dirs, home)]


_MODULE_SUFFIXES = (".py", ".pyc", ".pyw", ".so", ".pth")
# The standard library's top-level names (any module can import them), and the modules
# `site` imports by name: a folder of the same name shadows them.
_STANDARD = frozenset(sys.stdlib_module_names) | {"sitecustomize", "usercustomize", "__pycache__"}


def _shadows(folder: str, written: _Written) -> bool:
    """A write that can put a module in `folder`: a computed path, a tree holding `folder`,
    a module file in it (`json.py`, `re.cpython-311-x86_64-linux-gnu.so`), or a folder in it
    that can be a package (`json/`, `json/__init__.py`: a name without a dot); inside the
    project's own packages, only a foreign one (`curl -o pkg/util.py URL`)."""
    path = written.path
    if path is None or _under(folder, path):
        return True
    if not _under(path, folder):
        return False
    first, _, rest = path[len(folder.rstrip("/")) + 1 :].partition("/")
    if rest and first not in _STANDARD and not (written.foreign and written.writer in _FETCHERS):
        # Inside the project's own package (`cp x.py.bak pkg/x.py && python3 -m pytest`,
        # `git checkout -- pkg/x.py`, an edit by inline code): the project's code, which
        # runs like any script file in the workspace. A download, decoding or extraction
        # put there (`curl -o pkg/util.py URL && python3 main.py`) is not.
        return False
    last = posixpath.basename(path)
    if last.endswith(_MODULE_SUFFIXES) or ".cpython-" in last:
        return True
    # A write that may make a folder: a package (`git clone URL json`), or a subpackage.
    return last.isidentifier() and not written.file


def _imports_written(program: str, folder: str, written: _Written) -> Reason:
    name = "a computed path" if written.path is None else f"`{written.path}`"
    return Reason(
        "runs-written-file",
        f"{program} import {folder[-40:]}",
        f"`{program}` imports modules from `{folder}` before the standard library's, and "
        f"`{written.writer}` writes {name} there in the same command: code computed at run "
        "time that nobody has read",
    )


def _absolute(text: str, dirs: Sequence[str | None], home: str) -> list[str]:
    out = []
    for d in dirs:
        if d is None:
            continue
        full = resolve_dir(text, d, home)
        if full is not None and full not in out:
            out.append(full)
    return out


def _may_write(
    analysis: ShellAnalysis,
    placed: list[tuple[SimpleCommand, Sequence[str | None], Sequence[RoleUse]]],
) -> bool:
    """False when nothing in the line can write: no output redirection, no role `write`
    (every link `_links` finds is one), no file the remote side names. Then `_written` and
    `_links` find nothing, so there is no flow (a cheap test, done before them)."""
    if any(r.access == "write" and not _visible(r) for r in analysis.redirects):
        return True
    for cmd, _dirs, uses in placed:
        if any(u.role == "write" for u in uses) or _remote_named(cmd) or restore_of(cmd):
            return True
        if _step_name(cmd) in COMPRESSORS and _decompressed(cmd, uses):
            return True
    # A visible text written to a runner's settings file still asks (`_settings_asks`).
    return bool(analysis.redirects) and any(_settings_of(c) for c in analysis.commands)


def _runner_name(cmd: SimpleCommand) -> str:
    """The runner `cmd` is, as `RUNNER_SETTINGS` names it: its program, or the module
    `python -m` runs (`python -m pytest` is `pytest`)."""
    name = cmd.program
    if program_family(name) == "python":
        found = python_module(cmd.words)
        name = found[1].split(".", 1)[0] if found is not None else ""
    return name


def _settings_of(cmd: SimpleCommand) -> Settings:
    """The files `cmd` reads its options, plugins or code from, by name, each with what
    makes a visible text in it ask (`RUNNER_SETTINGS`: `pytest`'s `pytest.ini`, also as
    `python -m pytest`)."""
    return RUNNER_SETTINGS.get(_runner_name(cmd), {})


def _settings_named(
    cmd: SimpleCommand, dirs: Sequence[str | None], uses: Sequence[RoleUse], home: str
) -> dict[str | None, frozenset[str] | None]:
    """The settings files `cmd`'s options name (`SETTINGS_OPTIONS`: `pytest -c F`, `pylint
    --rcfile F`), absolute (None for a computed one), each with what makes a visible text
    in it ask, as `RUNNER_SETTINGS` says for a file found by name."""
    options = SETTINGS_OPTIONS.get(_runner_name(cmd))
    if not options:
        return {}
    out: dict[str | None, frozenset[str] | None] = {}
    for use in uses:
        if use.option not in options:
            continue
        if not (use.word.static or use.word.home):
            out[None] = options[use.option]
            continue
        for full in _absolute(use.word.text, dirs, home):
            out[full] = options[use.option]
    return out


# Writers that leave a file empty: what a settings file says is not changed by them.
_EMPTY = frozenset({"mkdir", "touch", "mktemp"})


def _settings_asks(
    analysis: ShellAnalysis,
    placed: list[tuple[SimpleCommand, Sequence[str | None], Sequence[RoleUse]]],
    base: str,
    home: str,
) -> list[Reason]:
    """A step that runs where another step writes one of its settings files, by name, in
    the folder it runs in, below it or directly in a folder above (`RUNNER_SETTINGS`): the
    options and plugins in it are on no command line. Every writer counts, `echo` and
    `printf` included (`echo 'addopts = -p evil' > pytest.ini; pytest`); a text the command
    shows in full (a heredoc `cat` or `tee` writes out) counts when the table says so. So
    does a settings file an option names, wherever it is (`pytest -c x.ini`: a write of
    `x.ini` in the line; `SETTINGS_OPTIONS`)."""
    runners = [
        (cmd, dirs, files, _settings_named(cmd, dirs, uses, home))
        for cmd, dirs, uses in placed
        if (files := _settings_of(cmd))
    ]
    if not runners:
        return []
    # (path, writer, `id` of its step, the text it writes when the command shows it)
    writes: list[tuple[str | None, str, int, str | None]] = []
    for r in analysis.redirects:
        if r.access == "write":
            spots = [resolve_dir(d, base, home) for d in r.dirs]
            writer = r.writer or "a redirection"
            text = r.body if r.literal else None
            writes += [(p, writer, 0, text) for p in _absolute(r.target, spots, home)]
    for cmd, dirs, uses in placed:
        if cmd.program in _EMPTY:
            continue
        text = cmd.copied[0] if cmd.copied is not None and cmd.copied[1] else None
        for use in uses:
            if use.role != "write":
                continue
            if not (use.word.static or use.word.home):
                writes.append((None, cmd.program, id(cmd), None))
            else:
                full = _absolute(use.word.text, dirs, home)
                writes += [(p, cmd.program, id(cmd), text) for p in full]
    asks: list[Reason] = []
    pairs = 0
    for cmd, dirs, files, named in runners:
        here = [d for d in dirs if d is not None]
        for path, writer, by, text in writes:
            pairs += 1
            if by == id(cmd):
                continue  # its own output (`pytest --junitxml=r.xml`)
            name = posixpath.basename(path or "")
            hit = pairs > MAX_FLOW_PAIRS or path is None or (None in named)
            if not hit and name in files:
                folder = posixpath.dirname(path or "")
                near = any(_under(folder, d) or _under(d, folder) for d in here)
                hit = near and _unsafe_settings(text, files[name])
            if not hit and path in named:
                hit = _unsafe_settings(text, named[path])
            if hit:
                _add(asks, _settings_written(cmd.program, path, writer))
                break
    return asks


def _unsafe_settings(text: str | None, words: frozenset[str] | None) -> bool:
    """A settings file's new text may load code or set options: any text not shown in full,
    or a shown one the table's `words` say may (None: any)."""
    if text is None or words is None:
        return True
    lowered = text.lower()
    return any(word in lowered for word in words)


def _settings_written(program: str, path: str | None, writer: str) -> Reason:
    name = "a computed path" if path is None else f"`{path}`"
    return Reason(
        "runs-written-file",
        f"{program} settings",
        f"`{program}` reads its options, plugins or code from {name}, which `{writer}` "
        "writes in the same command: settings no command line shows, which nobody has "
        "checked",
    )


def _written(
    analysis: ShellAnalysis,
    placed: list[tuple[SimpleCommand, Sequence[str | None], Sequence[RoleUse]]],
    base: str,
    home: str,
) -> list[_Written]:
    """Every write of the line, each marked foreign or not. A step that reads a foreign file
    writes foreign content too (`curl -o /tmp/c URL; cp /tmp/c conftest.py`), up to
    `MAX_TAINT_ROUNDS` copies deep; past the pairs bound every step counts as foreign."""
    # Only the folders a runner or an interpreter runs from ask about foreign content: with
    # neither in the line, no text is read for it.
    if any(_finds_code(cmd) for cmd in analysis.commands):
        foreign, streams = _foreign_steps(analysis.commands)
    else:
        foreign, streams = set(), False
    out = _writes(analysis, placed, base, home, foreign, streams)
    for _ in range(MAX_TAINT_ROUNDS):
        sources = [w.path for w in out if w.foreign]
        if not sources:
            break
        readers = _readers(placed, sources, home, foreign)
        if not readers:
            break
        foreign |= readers
        out = _writes(analysis, placed, base, home, foreign, streams)
    return out


def _finds_code(cmd: SimpleCommand) -> bool:
    """`cmd` may run code it finds rather than names (`_runs_from` may give folders)."""
    family = program_family(cmd.program)
    return (
        cmd.program in PROJECT_RUNNERS
        or cmd.program in REPOSITORY_FINDERS
        or family == "python"
        or family in SCRIPT_SUFFIXES
    )


MAX_TAINT_ROUNDS = 3
"""Copies of a foreign file followed (`cp a b; cp b c`): the line's steps are this deep."""


def _readers(
    placed: list[tuple[SimpleCommand, Sequence[str | None], Sequence[RoleUse]]],
    sources: Sequence[str | None],
    home: str,
    foreign: set[int],
) -> set[int]:
    """The steps not yet foreign that read a file in `sources` (None: a computed path), or
    move it (`mv`'s sources are its deletes)."""
    out: set[int] = set()
    pairs = 0
    for cmd, dirs, uses in placed:
        if id(cmd) in foreign:
            continue
        for use in uses:
            if use.role not in ("read", "delete") or not (use.word.static or use.word.home):
                continue
            pairs += len(sources)
            if pairs > MAX_FLOW_PAIRS:
                out.add(id(cmd))  # past the bound: taken as foreign (the work stays bounded)
                break
            full = _absolute(use.word.text, dirs, home)
            if any(_under(f, s) for f in full for s in sources):
                out.add(id(cmd))
                break
    return out


def _writes(
    analysis: ShellAnalysis,
    placed: list[tuple[SimpleCommand, Sequence[str | None], Sequence[RoleUse]]],
    base: str,
    home: str,
    foreign: set[int],
    streams: bool,
) -> list[_Written]:
    out: list[_Written] = []
    # A redirection names its writer by program: foreign when a step of that name is. One
    # with no writer (a compound's) is foreign when a download or decoder is in the line.
    # A wrapper the redirection names stands for the program it runs (`xargs > F` writes
    # what the `echo` it runs prints).
    foreign_names = {
        name
        for c in analysis.commands
        if id(c) in foreign
        for name in (c.program, *(program_name(w[0]) for w in c.wrapper_words if w))
    }
    for r in analysis.redirects:
        if r.access != "write" or _visible(r):
            continue
        spots = [resolve_dir(d, base, home) for d in r.dirs]
        writer = r.writer or ("inline Python" if r.op in _CODE_WRITES else "a redirection")
        # A copied body here holds a command line that asks, or is changed (`_visible`):
        # foreign; so is what inline Python writes (`_CODE_WRITES`).
        alien = _alien_copy(r.body, r.altered) or r.op in _CODE_WRITES
        unnamed = r.writer in _UNNAMED or r.writer in SHELLS
        alien = alien or r.writer in foreign_names or (unnamed and streams)
        out += [
            _Written(p, writer, file=True, foreign=alien) for p in _absolute(r.target, spots, home)
        ]
    for cmd, dirs, uses in placed:
        program = cmd.program
        edit = program in _SEDS and _edit_is_foreign(cmd)
        alien = id(cmd) in foreign or edit
        if cmd.copied is not None:
            # `tee F <<'EOF'`: as `cat > F <<'EOF'`, the text it writes is spelled out.
            body, exact = cmd.copied
            if _alien_copy(body, not exact):
                alien = True
            elif not alien:
                uses = [u for u in uses if u.role != "write"]
        if _step_name(cmd) in COMPRESSORS:
            uses = [*uses, *_decompressed(cmd, uses)]
        for use in uses:
            if use.role != "write":
                continue
            if program in _NO_CONTENT and use.option != "script" and not edit:
                continue
            if not (use.word.static or use.word.home):
                out.append(_Written(None, program, by=id(cmd), foreign=alien))
            else:
                full = _absolute(use.word.text, dirs, home)
                out += [_Written(p, program, by=id(cmd), foreign=alien) for p in full]
        if _remote_named(cmd):
            out += [
                _Written(d, program, by=id(cmd), foreign=True, remote=True)
                for d in dirs
                if d is not None
            ]
    return out


def _decompressed(cmd: SimpleCommand, uses: Sequence[RoleUse]) -> list[RoleUse]:
    """The files a compressor writes in place of the operands it replaces: `gunzip
    Makefile.gz` deletes `Makefile.gz` and writes `Makefile` (`COMPRESSED_SUFFIXES`; with a
    suffix option, `-S .txt`, any last suffix)."""
    suffixed = any(w.text.startswith(("-S", "--suf")) for w in cmd.words[1:])
    out: list[RoleUse] = []
    for use in uses:
        text = use.word.text
        if use.role not in ("delete", "write") or not (use.word.static or use.word.home):
            continue
        name = posixpath.basename(text)
        strip = next((s for s in COMPRESSED_SUFFIXES if name.endswith(s) and name != s), None)
        if strip is None and suffixed and name.rfind(".") > 0:
            strip = name[name.rfind(".") :]
        if strip is not None:
            word = use.word._replace(text=text[: -len(strip)])
            out.append(RoleUse("write", word, use.option))
    return out


def _edit_is_foreign(cmd: SimpleCommand) -> bool:
    """A sed edit whose inserted text (`s` replacements, `a`/`i`/`c` text) holds a command
    line that asks (`_text_runs`), or is spelled nowhere (`sed_output_texts`)."""
    texts = sed_output_texts(cmd.words)
    return texts is None or any(_text_runs(t) for t in texts)


def _foreign_steps(commands: Sequence[SimpleCommand]) -> tuple[set[int], bool]:
    """The `id`s of the steps whose output is content from outside the line and the
    workspace: a fetcher, cloner or decoder (`_FOREIGN_WRITERS`), a `printf`/`echo` whose
    text is hidden or holds a command line that asks (`_hidden_text`), and every later stage
    of a pipe that a downloader, decoder or such `printf` feeds (`_FOREIGN_STREAMS`); and
    whether the line has such a feeder at all."""
    out: set[int] = set()
    feeds: list[tuple[int, int]] = []
    streams = False
    spelled = _spelled_stages(commands)
    for cmd in commands:
        name = _step_name(cmd)
        own = name in _FOREIGN_WRITERS and _inflates(cmd, name)
        if (
            (cmd.program in _ECHOES and _hidden_text(cmd))
            or (cmd.program in _ARGUMENT_PRINTERS and _prints_runs(cmd))
            or _computes_text(cmd, name, spelled)
        ):
            own = streams = True
            feeds += cmd.pipes
        elif name in _FOREIGN_STREAMS and _inflates(cmd, name):
            streams = True
            feeds += cmd.pipes
        if own:
            out.add(id(cmd))
    if feeds:
        out |= {
            id(c)
            for c in commands
            if any(p == fp and s > fs for p, s in c.pipes for fp, fs in feeds)
        }
    return out, streams


def _step_name(cmd: SimpleCommand) -> str:
    """The program a step is: the module's name for `python -m MODULE` (`python3 -m base64
    -d` decodes as `base64 -d` does), else the program's."""
    if program_family(cmd.program) == "python":
        found = python_module(cmd.words)
        if found is not None:
            return found[1]
    return cmd.program


def _computes_text(cmd: SimpleCommand, name: str, spelled: Sequence[tuple[int, int]]) -> bool:
    """`cmd` writes text no word of the command shows, which it computes from text the
    command spells apart:

    - a program of `files.TEXT_MAKERS` (`rev`, `tr`, `awk`, `jq`) or a sed that changes
      text the command spells on its standard input (`rev <<< 'hs | LRU lruc'`, `echo … |
      tr …`: `_spelled_input`),
      or whose program holds a string it may join with others (`awk 'BEGIN{print "cu"
      "rl …"}'`, `jq -rn '"cu" + "rl …"'`), or a sed whose inserted text is computed or
      asks (`_edit_is_foreign`); one that only reorders or picks from the workspace's files
      (`jq .a f.json`, `awk '{print $1}' f`, `sed 's/-O2/-O3/' f`) writes the workspace's
      own text;
    - an interpreter or shell running code the command gives rather than a script file
      (`python3 -c 'print(…)'`, `python3 -m MODULE`, `sh -c …`);
    - any other program but a byte-for-byte copier (`files.STDIN_COPIERS`) given text the
      command spells (`sort`, `cut`, `paste`, `xargs` may cut or join it).
    """
    maker = TEXT_MAKERS.get(name)
    if maker is None and name not in _SEDS:
        if program_family(name) in INTERPRETERS and script_operand(name, cmd.words) is None:
            return True
        # Any other program given spelled text, but a copier, may cut, sort or join it into
        # a line no word holds (`cut -c2- <<< 'Xcurl URL | shx'`, `paste -sd'|'`). A copier
        # copies its input as it is, or reads the files it names (`cat README.md`).
        if name in STDIN_COPIERS and copies_stdin(name, cmd.words) is not False:
            return False
        if not _spelled_input(cmd, spelled):
            return False
    elif name in _SEDS and _edit_is_foreign(cmd):
        return True
    table = PROGRAMS.get(name)
    if table is None:
        return True
    reading = read_roles(table, cmd.words)
    if maker is not None and _joins_text(cmd, reading.scripts, maker):
        return True
    if any(u.option == "" and u.role in ("read", "write") for u in reading.uses):
        return False  # it changes files it names
    return _spelled_input(cmd, spelled)


def _joins_text(cmd: SimpleCommand, scripts: Sequence[Word], maker: TextMaker) -> bool:
    """The program of a `TEXT_MAKERS` step may join pieces of text: a computed program, a
    mark of `maker.joins` in it, a text option, or an awk `NAME=value` operand."""
    if any(not w.static or any(j in w.text for j in maker.joins) for w in scripts):
        return True
    for word in cmd.words[1:]:
        text = word.text
        if any(_gives(text, option) for option in maker.text_options):
            return True
        if maker.assigns and word not in scripts and _ASSIGNMENT.match(text):
            return True
    return False


def _gives(text: str, option: str) -> bool:
    """The word `text` is `option`, with its value glued (`-vx=1`, `--assign=x=1`) or not, or
    a prefix of a long option (`--ass`) that a getopt_long parser takes for it."""
    if option[1:2] != "-":
        return text.startswith(option)
    name = text.split("=", 1)[0]
    return len(name) > 3 and option.startswith(name)


# An awk operand that sets a variable (POSIX awk "Operands": `assignment`).
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


# Redirections that feed a program text the command spells out (bash(1) "Here Documents",
# "Here Strings").
_HEREDOCS = frozenset({"<<", "<<-", "<<<"})


def _spelled_stages(commands: Sequence[SimpleCommand]) -> list[tuple[int, int]]:
    """The pipe stages whose output is text the command spells out: `echo`/`printf`, and a
    program reading a heredoc or herestring."""
    return [
        p
        for c in commands
        if c.program in _ECHOES or any(op in _HEREDOCS for _fd, op in c.stdio)
        for p in c.pipes
    ]


def _spelled_input(cmd: SimpleCommand, spelled: Sequence[tuple[int, int]]) -> bool:
    """`cmd` reads text the command spells out: a heredoc or herestring, or a pipe that an
    earlier `echo`/`printf` or heredoc reader feeds (`echo … | cat | rev`)."""
    if any(op in _HEREDOCS for _fd, op in cmd.stdio):
        return True
    return any(p == fp and s > fs for p, s in cmd.pipes for fp, fs in spelled)


_ECHOES = frozenset({"printf", "echo"})
# Programs that print text their words spell, as `echo` does, each with the escapes of its
# format that make a line break (coreutils 9.1 date(1) `%n`, `%t`; seq(1) `-f`, `-s`;
# numfmt(1) `--format`; basename(1), dirname(1), shuf(1) `-e`, yes(1), expr(1) print
# their operands or parts of them): `date '+all:%n%tcurl URL | sh' > Makefile && make`
# writes a recipe.
_ARGUMENT_PRINTERS: dict[str, dict[str, str]] = {
    "date": {"%n": "\n", "%t": "\t"},
    **{name: {} for name in ("seq", "numfmt", "basename", "dirname", "shuf", "yes", "expr")},
}
# Splits a word's text into the names it may run: one character class, linear.
_NAME_BREAKS = re.compile(r"[^A-Za-z0-9_.+-]+")
# Escapes printf(1) and `echo -e` turn into characters the command does not show: octal,
# hexadecimal and Unicode (coreutils printf(1), bash(1) "echo"): `\x73` is `s`.
_HIDING_ESCAPES = frozenset("01234567xuU")
MAX_TEXT_COMMANDS = 32
"""Command lines read out of one `printf`/`echo` text; past it the text counts as hidden."""


def _hidden_text(cmd: SimpleCommand) -> bool:
    """`printf`/`echo` text that is not what the command shows, or holds a command line that
    asks: a hiding escape (`\x69mport os`), a downloader's output (`$(curl …)`), a printf
    format that picks characters (`%c`, `%.2s`), or a line the analysis would ask for run outright
    (`curl URL | sh`: `hazards`). A runner that finds that text runs it, so it counts like
    a download (`printf 'all:\n\tcurl URL | sh' > Makefile && make`)."""
    words = cmd.words[1:]
    texts: list[str] = []
    for k, word in enumerate(words):
        text = word.text
        if not word.static and _substitutes_foreign(text):
            return True
        if any(text[j + 1 : j + 2] in _HIDING_ESCAPES for j in _backslashes(text)):
            return True
        if cmd.program == "printf" and k == 0 and len(words) > 1 and _picks(text):
            return True
        texts.append(text)
    # A format's `%s` puts its arguments side by side: read them spaced and joined.
    # The shell expands these words' substitutions as it writes them (`_substitutes_foreign`
    # reads those): a line that is one is not code the file runs later.
    joined = (" ".join(texts), "".join(texts[1:]))
    if any(_text_runs(text, written=False) for text in joined):
        return True
    # A word bash does not expand (`'$(curl URL)'`, `'$$(…)'`, `'X != cmd | sh'`) lands in
    # the file as it is, and its substitutions run when the file runs: read as a heredoc
    # body is (`written`).
    static = [w.text for w in words if w.static]
    return bool(static) and any(
        _text_runs(text, written=True) for text in (" ".join(static), "".join(static[1:]))
    )


def _prints_runs(cmd: SimpleCommand) -> bool:
    """A program of `_ARGUMENT_PRINTERS` whose static words hold a command line that asks
    (read as written text, its format's line breaks made), or whose computed words run a
    downloader's or decoder's `$(…)`."""
    breaks = _ARGUMENT_PRINTERS.get(cmd.program, {})
    texts: list[str] = []
    for word in cmd.words[1:]:
        if not word.static:
            if _substitutes_foreign(word.text):
                return True
            continue  # expanded by bash first, as `echo "$X"`'s words are
        text = word.text
        for escape, made in breaks.items():
            text = text.replace(escape, made)
        texts.append(text)
    return bool(texts) and any(
        _text_runs(text, written=True) for text in (" ".join(texts), "".join(texts))
    )


def _substitutes_foreign(text: str) -> bool:
    """A computed word whose text runs a downloader or decoder (`"$(curl -s URL)"`), or a
    program that computes text (`"$(rev <<< 'hs | LRU lruc')"`, `$(python3 -c …)`): its
    output is the word's. `"$(git rev-parse HEAD)"` is the workspace's own."""
    if "$(" not in text and "`" not in text and "<(" not in text:
        return False
    return any(
        name in _FOREIGN_STREAMS
        or name in TEXT_MAKERS
        or name in _SEDS
        or program_family(name) in INTERPRETERS
        for name in _NAME_BREAKS.split(text)
    )


def _backslashes(text: str) -> list[int]:
    """Where `text` has a backslash that starts an escape (`\\` is one backslash)."""
    out: list[int] = []
    j = text.find("\\")
    while j >= 0:
        out.append(j)
        j = text.find("\\", j + 2)
    return out


# Conversions that print their argument whole (`%b` also expands its escapes, which the
# arguments are scanned for), and `%%`; any other (`%c`, `%.2s`, `%5s`, `%x`) picks or
# changes characters (coreutils printf(1)).
_WHOLE_CONVERSIONS = frozenset("sbdi%")


def _picks(fmt: str) -> bool:
    """A printf format that picks or changes its arguments' characters (`%c`, `%.2s`): the
    text it prints is in no word."""
    j = fmt.find("%")
    while j >= 0:
        if fmt[j + 1 : j + 2] not in _WHOLE_CONVERSIONS:
            return True
        j = fmt.find("%", j + 2)
    return False


def _visible(r: Redirect) -> bool:
    """A redirection whose output is text the command spells out (`cat > f <<'EOF'`, `tee
    <<'EOF'`), with no command line in it that asks (`_text_runs`): what it writes is as
    visible as a heredoc script. One whose text pipes a download to a shell is foreign
    content."""
    return r.literal and not _text_runs(r.body)


def _alien_copy(body: str, altered: bool) -> bool:
    """A copy of a static stdin body that is foreign content: changed or picked from (`cat
    -n`, `dd count=1`: the text written is in no word), or holding a command line that asks
    (`_text_runs`)."""
    return altered or (bool(body) and _text_runs(body))


@functools.lru_cache(maxsize=64)
def _text_runs(text: str, *, written: bool = True) -> bool:
    """A text holding a command line that asks run outright: a line (lines a backslash
    continues read joined too) or a quoted string in it that pipes, starts with a shell or
    with a program a built-in deny or ask rule names, or may run computed code
    (`_computes_code`), with a `hazards` finding (`curl URL | sh`), computed code
    (`_runs_computed_code`: `eval "$(curl URL)"`, `base64 -d f | sh`, `$CMD x`) or a
    certain match of such a rule (`rm -rf ~`), as `assess` reads command lines in inline
    code. The built-in rules only: the text is judged the same whatever the configuration
    adds. `written`: the text lands in a file as it is (a heredoc body, a sed insertion), so
    its substitutions run when the file runs; `echo`/`printf` words are expanded first."""
    rules = _builtin_rules()
    lines = text.replace("\\n", "\n").replace("\\t", "\n").replace("\t", "\n").split("\n")
    lines += code_strings(text)
    if "\\" in text:
        # The text as printf, JSON or Python read its escapes (`\u007c` is `|`), and with a
        # backslash-newline continuing the line, as sh and make read it (`curl URL \` then
        # `| sh` on the next line): the lines these readings add.
        decoded = _unescaped(text)
        more = decoded.replace("\t", "\n").split("\n")
        more += decoded.replace("\t", " ").replace("\\\n", " ").split("\n")
        more += code_strings(decoded)
        seen = set(lines)
        lines += [line for line in dict.fromkeys(more) if line not in seen]
    candidates = [
        c
        for c in lines
        if "|" in c
        or _starts_shell(c)
        or rules.names(_first_name(c))
        or (written and _computes_code(c))
    ]
    if len(candidates) > MAX_TEXT_COMMANDS:
        return True
    for candidate in candidates:
        inner = analyze(candidate)
        if hazards(inner) or (written and _runs_computed_code(inner)):
            return True
        for cmd in inner.commands:
            for layer in (*cmd.wrapper_words, cmd.words):
                if any(
                    m.certain and m.rule.decision is not Verdict.ALLOW
                    for m in rules.strict_matches(layer)
                ):
                    return True
    return False


_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}
_HEX_WIDTHS = {"x": 2, "u": 4}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _unescaped(text: str) -> str:
    r"""`text` with the escapes printf, JSON and Python share read: `\\`, `\n`, `\t`,
    `\xHH` and `\uHHHH`; any other backslash is kept. One forward pass."""
    out: list[str] = []
    i = 0
    while i < len(text):
        j = text.find("\\", i)
        if j < 0 or j + 1 >= len(text):
            out.append(text[i:])
            break
        out.append(text[i:j])
        follow = text[j + 1]
        width = _HEX_WIDTHS.get(follow, 0)
        digits = text[j + 2 : j + 2 + width]
        if follow in _ESCAPES:
            out.append(_ESCAPES[follow])
            i = j + 2
        elif width and len(digits) == width and all(d in _HEX_DIGITS for d in digits):
            out.append(chr(int(digits, 16)))
            i = j + 2 + width
        else:
            out.append("\\")
            i = j + 1
    return "".join(out)


# Words of a line that may run code it computes (bash(1) "eval", "source", "exec"; `<(…)`).
# Backticks are left out: prose in code and comments quotes names with them.
_CODE_RUNNERS = frozenset({"eval", "source", "exec"})
# What a line that runs computed code is asked for when run outright, never allowed
# unasked (`sandboxed.SANDBOXED_CODE` is the visible kind): a computed program, `eval`, a
# program read from a pipe (`base64 -d f | sh`).
_COMPUTED_CODE = frozenset({"dynamic-command-name", "eval", "program-from-stdin"})


def _computes_code(line: str) -> bool:
    """A line that may run code it computes (`eval "$(curl URL)"`, `true && $CMD`, `source
    <(…)`): one with an expansion or a word of `_CODE_RUNNERS`, read like a command line
    (`_runs_computed_code` then says whether it runs one)."""
    if "$" in line or "<(" in line:
        return True
    return any(name in _CODE_RUNNERS for name in _NAME_BREAKS.split(line))


def _runs_computed_code(inner: ShellAnalysis) -> bool:
    """The line, run outright, runs code computed at run time: a computed program name,
    `eval`, a program read from a pipe, or `source` of a computed file (`source <(curl
    URL)`)."""
    if any(r.code in _COMPUTED_CODE for r in inner.opaque):
        return True
    return any(
        c.program in _SOURCE and len(c.words) > 1 and not c.words[1].static for c in inner.commands
    )


@functools.cache
def _builtin_rules() -> CompiledRules:
    return compile_rules(DEFAULT_COMMAND_RULES)


def _first_name(line: str) -> str:
    words = line.split(None, 1)
    return posixpath.basename(words[0]) if words else ""


def _starts_shell(line: str) -> bool:
    return _first_name(line) in SHELLS


def _remote_named(cmd: SimpleCommand) -> bool:
    """`curl -O URL`, `git clone URL`: a file or directory named by the remote side."""
    if cmd.program == "git":
        return _clones_unnamed(cmd)
    names = _REMOTE_NAME.get(cmd.program)
    if names is None:
        return False
    words = [w.text for w in cmd.words]
    letters = _REMOTE_LETTERS[cmd.program]
    return any(
        t in names or (t[:1] == "-" and t[1:2] != "-" and any(c in letters for c in t[1:]))
        for t in words[1:]
    )


def _clones_unnamed(cmd: SimpleCommand) -> bool:
    """`git clone URL` with no directory operand (`--depth 1` and other option values read
    by git's table): git makes a folder named after the URL. A clone whose options the table
    does not resolve may be one."""
    if not any(w.static and w.text == "clone" for w in cmd.words[1:]):
        return False
    git = PROGRAMS.get("git")
    if git is None:
        return True
    reading = read_roles(git, cmd.words)
    if reading.unknown:
        return True
    roles = {u.role for u in reading.uses}
    return "network" in roles and "write" not in roles


# What a test runner collects by name below the folders its operands name or, given none,
# below where it runs. pytest: the test modules (`python_files`: `test_*.py`, `*_test.py`;
# every module with `--doctest-modules`) and the doctest text files (`--doctest-glob`:
# `test*.txt`), with the packages' `__init__.py` (pytest docs, "Configuration",
# "How to run doctests", "pytest import mechanisms"). unittest: `python -m unittest` alone
# is `discover`, which imports the modules matching `-p`/`--pattern` (`test*.py`) below
# `-s`/`--start-directory` (`.`), and their packages (unittest docs, "Test Discovery").
_PYTEST_COLLECTS = ("test_*.py", "*_test.py", "__init__.py")
_PYTEST_DOCTESTS = ("test*.txt",)
_UNITTEST_COLLECTS = ("test*.py", "__init__.py")


def _collected(
    cmd: SimpleCommand,
    dirs: Sequence[str | None],
    uses: Sequence[RoleUse],
    home: str,
    own: _Own,
) -> list[tuple[str, Fits]]:
    """The folders a test runner collects test files from (`RUNS_OPERANDS`), absolute, each
    with the test of a write that may be one: a file or folder its operands name (`pytest
    tests/test_x.py::test_a`, `python -m pytest tests`), where every Python file counts and
    so does a doctest text file; with no operand, where it runs (`pytest`, `python -m
    unittest`), where the files it collects by name count. What the runner's own output
    becomes (`pytest > test_log.txt`, `pytest | tee test_out.txt`: `own`) is not one."""
    name = _runner_name(cmd)
    if name not in RUNS_OPERANDS:
        return []
    found = module_command(cmd.words) if program_family(cmd.program) == "python" else None
    words = cmd.words if found is None else found[1]
    table = program_for(name) if found is None else found[2]
    if table is None:
        return []
    operands = [u.word for u in uses if not u.option and u.role == "read"]
    here = [d for d in dirs if d is not None]
    if name == "unittest":
        if operands and operands[0].static and operands[0].text == "discover":
            start = [w for _, w in option_values(table, words, ("-s", "--start-directory"))]
            start += operands[1:2]
            pattern = [w for _, w in option_values(table, words, ("-p", "--pattern"))]
            pattern += operands[2:3]
            names = _globs(pattern[:1], _UNITTEST_COLLECTS)
            return [
                (f, _test_files(names, False, own)) for f in _folders(start[:1], here, dirs, home)
            ]
        if not operands:
            return [(d, _test_files(_UNITTEST_COLLECTS, False, own)) for d in here]
        return [(f, _test_files((), True, own)) for f in _folders(operands, [], dirs, home)]
    doctests = _globs(
        [w for _, w in option_values(table, words, ("--doctest-glob",))], _PYTEST_DOCTESTS
    )
    if operands:
        return [(f, _test_files(doctests, True, own)) for f in _folders(operands, [], dirs, home)]
    modules = "--doctest-modules" in first_operand(table, words)[1]
    names = None if doctests is None else _PYTEST_COLLECTS + doctests
    return [(d, _test_files(names, modules, own)) for d in here]


def _globs(given: Sequence[Word], default: tuple[str, ...]) -> tuple[str, ...] | None:
    """The file name patterns an option gives (`--doctest-glob '*.md'`), or `default` when
    none is given; None (any name) when one is computed."""
    if any(not w.static for w in given):
        return None
    return tuple(w.text for w in given) or default


def _folders(
    words: Sequence[Word], default: Sequence[str], dirs: Sequence[str | None], home: str
) -> list[str]:
    """The absolute paths `words` name (a test id's `::…` cut off), or `default` when there
    are none; a computed word is left out (its reach is judged as a computed path)."""
    out: list[str] = []
    for word in words:
        if not (word.static or word.home):
            continue
        text = word.text.split("::", 1)[0]
        out += _absolute(text, dirs, home) if text else []
    return out if words else list(default)


# A runner's own output: the programs its redirections may name, and the `id`s of the steps
# of its pipes after it.
_Own = tuple[frozenset[str], frozenset[int]]


_NO_OUTPUT: _Own = (frozenset(), frozenset())


def _output_of(cmd: SimpleCommand, commands: Sequence[SimpleCommand]) -> _Own:
    """What `cmd`'s output is written by: its own redirections (named by its program) and
    the steps after it in its pipes (`pytest | tee log.txt`)."""
    # `python3 -m pytest` is also the step of its interpreter, which holds the pipes.
    pipes = [*cmd.pipes]
    for c in commands:
        if cmd.wrapper_words and c.words == cmd.wrapper_words[0]:
            pipes += c.pipes
    later = frozenset(
        id(c) for c in commands if any(p == q and s > t for p, s in c.pipes for q, t in pipes)
    )
    # `python3 -m pytest > log`: the redirection names the interpreter, the wrapper.
    names = frozenset({cmd.program, *(program_name(w[0]) for w in cmd.wrapper_words if w)})
    return names, later


def _test_files(names: tuple[str, ...] | None, modules: bool, own: _Own) -> Fits:
    """A write that may put a file the runner collects at or below `folder`, or make a
    folder holding one: a Python module (`modules`), or a file whose name matches one of
    `names` (None: any name); not the runner's own output (`own`)."""
    programs, later = own

    def fits(folder: str, written: _Written) -> bool:
        if _under(folder, written.path):
            return True
        path = written.path or ""
        if not _under(path, folder):
            return False
        if written.by in later or (written.by == 0 and written.writer in programs):
            return False
        if modules and path.endswith(_MODULE_SUFFIXES):
            return True
        base = posixpath.basename(path)
        return names is None or any(fnmatch.fnmatchcase(base, n) for n in names)

    return fits


def _runs(
    cmd: SimpleCommand, dirs: Sequence[str | None], uses: Sequence[RoleUse], home: str
) -> list[tuple[str, str]]:
    """The local files `cmd` runs as code: (as spelled, absolute). Its program, a script
    operand, `source`'s operand, a program file given to an option (`SCRIPT_FILE_OPTIONS`:
    `awk -f F`, `sed --file=F`, `make -f F`, read by the table), and the operand an option
    makes one (`SCRIPT_FILE_OPERANDS`: `jq -f F`)."""
    words = cmd.words
    if not words:
        return []
    out: list[tuple[str, str]] = []
    makers = SCRIPT_FILE_OPERANDS.get(cmd.program)
    table = program_for(cmd.program) if makers else None
    if makers and table is not None:
        first, given = first_operand(table, words)
        if first is not None and given & makers and (first.static or first.home) and first.text:
            out += [(first.text, full) for full in _absolute(first.text, dirs, home)]
    options = SCRIPT_FILE_OPTIONS.get(cmd.program, {})
    for use in uses:
        suffix = options.get(use.option) if use.role == "read" else None
        if suffix is None or not (use.word.static or use.word.home) or not use.word.text:
            continue
        spellings = [use.word.text] + ([use.word.text + suffix] if suffix else [])
        out += [(t, full) for t in spellings for full in _absolute(t, dirs, home)]
    at: int | None = None
    if words[0].static and "/" in words[0].text:
        at = 0
    elif words[0].text in _SOURCE and words[0].static:
        at = 1 if len(words) > 1 else None
    else:
        at = script_operand(cmd.program, words)
    if at is None or at >= len(words) or not (words[at].static or words[at].home):
        return out
    text = words[at].text
    if not text:
        return out
    # `python DIR` (and a zip file) runs `DIR/__main__.py` (Python docs, "Command line and
    # environment": "<script> … a directory name or zipfile … its __main__.py").
    spellings = (
        [text, f"{text.rstrip('/')}/__main__.py"]
        if program_family(cmd.program) == "python" and at > 0
        else [text]
    )
    return out + [(t, full) for t in spellings for full in _absolute(t, dirs, home)]


def _through(
    analysis: ShellAnalysis,
    placed: list[tuple[SimpleCommand, Sequence[str | None], Sequence[RoleUse]]],
    base: str,
    home: str,
) -> list[Through]:
    links = _links(placed, home)
    if not links:
        return []
    out: list[Through] = []
    for cmd, dirs, uses in placed:
        if cmd.program in _LINKERS:
            continue
        # A directory reached by climbing (`cd x/../g`, `locations.PHYSICAL`), as written.
        climbed = [_climbed(d, base, home) for d in cmd.dirs if d and d.startswith(PHYSICAL)]
        for use in uses:
            if use.role in ("write", "delete", "perm", "read") and use.word.static:
                for full in _spelled(use.word.text, [*dirs, *climbed], home):
                    out += _via(links, full, use.role, use.word.text, cmd.program)
    for r in analysis.redirects:
        spots = [resolve_dir(d, base, home) for d in r.dirs]
        spots += [_climbed(d, base, home) for d in r.dirs if d and d.startswith(PHYSICAL)]
        for full in _spelled(r.target, spots, home):
            out += _via(links, full, r.access, r.target, r.writer or "a redirection")
    return out


def _climbed(d: str, base: str, home: str) -> str:
    """A `PHYSICAL` directory as written, absolute: `base/x/../g` (`_via` climbs it)."""
    text = d[len(PHYSICAL) :]
    if text == "~" or text.startswith("~/"):
        return home.rstrip("/") + text[1:]
    return text if text.startswith("/") else f"{base}/{text}"


def _spelled(text: str, dirs: Sequence[str | None], home: str) -> list[str]:
    """`_absolute`, and for a path that climbs, its join as written (`x/../g/config`), whose
    `..` is taken after a link the line makes (`_via`)."""
    out = _absolute(text, dirs, home)
    if "/.." not in f"/{text}" and not any(d and "/.." in d for d in dirs):
        return out
    for d in dirs:
        if d is None:
            continue
        if text.startswith("/"):
            raw = text
        elif text == "~" or text.startswith("~/"):
            raw = home.rstrip("/") + text[1:]
        else:
            raw = f"{d}/{text}"
        raw = re.sub("/(?:\\./)+", "/", re.sub("/+", "/", raw))
        if raw not in out:
            out.append(raw)
    return out


def _via(
    links: list[tuple[str, str]], full: str, role: Role, spelled: str, program: str
) -> list[Through]:
    out = []
    for link, target in links:
        if full == link or full.startswith(link + "/"):
            # `..` after the link climbs from where it leads, as the kernel takes it; an
            # unknown target (a folder too large to walk) lands nowhere known: "".
            landed = kernel_path(target + full[len(link) :]) if target else ""
            out.append(Through(role, landed, spelled, program))
    return out


def _links(
    placed: list[tuple[SimpleCommand, Sequence[str | None], Sequence[RoleUse]]], home: str
) -> list[tuple[str, str]]:
    """(link, where it points) for every link a step makes, both readings of a dir name."""
    out: list[tuple[str, str]] = []
    for cmd, dirs, uses in placed:
        if cmd.program not in _LINKERS and not _copies_as_links(cmd):
            out += _carried(cmd, dirs, uses, home)
            continue
        targets, names = _link_ends(cmd, uses)
        for name in names:
            for link in _absolute(name.text, dirs, home):
                for target in targets:
                    # A symbolic link's relative target is read from the link's directory, a
                    # hard link's from the current one: both, without asking which it is.
                    points = _absolute(target.text, [posixpath.dirname(link), *dirs], home)
                    for full in points:
                        out.append((link, full))
                        inside = posixpath.join(link, posixpath.basename(full))
                        out.append((inside, full))
    return out


def _carried(
    cmd: SimpleCommand,
    dirs: Sequence[str | None],
    uses: Sequence[RoleUse],
    home: str,
    *,
    inside: bool = True,
) -> list[tuple[str, str]]:
    """(new name, where it leads) for each existing symbolic link `mv` or `cp` gives a new
    name (`mv deeplink x`, `cp -P lib/g gg`): a link made in this line, as `ln`'s; with
    `inside`, also the links inside a folder it carries (`_carried_inside`)."""
    if cmd.program not in _LINK_CARRIERS:
        return []
    out: list[tuple[str, str]] = []
    sources, names = _link_ends(cmd, uses)
    for source in sources:
        for full in _absolute(source.text, dirs, home):
            target = link_points_to(full)
            if target is None:
                if inside:
                    out += _carried_inside(full, names, dirs, home)
                continue
            for name in names:
                for link in _absolute(name.text, dirs, home):
                    out.append((link, target))
                    out.append((posixpath.join(link, posixpath.basename(full)), target))
    return out


def _carried_inside(
    full: str, names: Sequence[Word], dirs: Sequence[str | None], home: str
) -> list[tuple[str, str]]:
    """The links inside the folder `full` that `mv` or a recursive `cp` carries to its new
    name (`cp -r deep d2`: `deep/a/out` is copied as a link, so `d2/a/out/x` is written where
    `out` leads): each at both readings of the new name (`NAME/…`, `NAME/BASE/…`). A folder
    too large to walk gives `(NAME, "")`: what lies below NAME is not known (`_via`)."""
    inside, complete = links_below(full)
    if not inside and complete:
        return []
    out: list[tuple[str, str]] = []
    base = posixpath.basename(full)
    for name in names:
        for link in _absolute(name.text, dirs, home):
            for top in (link, posixpath.normpath(posixpath.join(link, base))):
                out += [(posixpath.join(top, rel), target) for rel, target in inside]
                if not complete:
                    out.append((top, ""))
    return out


def carries_links(
    cmd: SimpleCommand, dirs: Sequence[str | None], uses: Sequence[RoleUse], home: str
) -> bool:
    """True when `cmd` moves or copies an existing symbolic link under a new name (the
    links inside a folder it carries are followed by `_through`, redirections too)."""
    return bool(_carried(cmd, dirs, uses, home, inside=False))


def _link_ends(cmd: SimpleCommand, uses: Sequence[RoleUse]) -> tuple[list[Word], list[Word]]:
    """What a link-making step's links point to, and where they are made: the operands
    before the last, and the last one (or `-t DIR`; a lone operand's link is `./NAME`).
    Read by position, not role: a hard link's source is written as its name is (`files`)."""
    to_dir = [u.word for u in uses if u.option and u.role == "write" and u.word.static]
    operands = [
        u.word
        for u in uses
        if not u.option
        and u.role in ("read", "write", "delete")
        and u.word.static
        and any(u.word is w for w in cmd.words)
    ]
    if to_dir:
        return operands, to_dir
    if len(operands) > 1:
        return operands[:-1], operands[-1:]
    # `ln TARGET`: the link is `./NAME`, NAME being TARGET's last name.
    return operands, [Word(posixpath.basename(w.text.rstrip("/")) or ".", True) for w in operands]


def _copies_as_links(cmd: SimpleCommand) -> bool:
    return cmd.program == "cp" and copies_as_links(cmd.words)
