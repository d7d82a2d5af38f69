"""Code in the command: inline Python read on the host, code strings, URLs spelled anywhere.

`_read_python` hands `python -c`/heredoc code to the Python reader (`python_code`);
`_check_code` judges the paths and command lines inside code no analysis reads;
`_check_spelled_urls` denies a denied URL wherever it is spelled.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Reason, Verdict
from safehold.policy.shell.analysis import Redirect, ShellAnalysis, SimpleCommand, analyze
from safehold.policy.shell.findings import _Findings, _inside, _place, _show, _spellings
from safehold.policy.shell.hazards import hazards
from safehold.policy.shell.locations import resolve_dir
from safehold.policy.shell.programs import module_command
from safehold.policy.shell.programs.interpreters import program_family, python_module
from safehold.policy.shell.programs.search import (
    script_words,
)
from safehold.policy.shell.programs.shells import SHELLS
from safehold.policy.shell.programs.table import (
    Program,
)
from safehold.policy.shell.python_code import cwd_first, invocation_problem, read_python
from safehold.policy.shell.rules import CompiledRules, compile_rules
from safehold.policy.shell.sandboxed import (
    code_paths,
    code_strings,
)
from safehold.policy.urls import URL_IN_TEXT, check_url

if TYPE_CHECKING:
    from safehold.policy.paths import CompiledPolicy


def _own_module(
    cmd: SimpleCommand,
    declared: Mapping[str, Program] | None,
    policy: CompiledPolicy,
    base: str,
) -> str | None:
    """The module of `python -m NAME` when it is the workspace's own code, else None.

    As `python script.py` runs a script of the workspace, `python -m pkg.tests.test_x` run
    where `pkg` is a module or package of the workspace runs the workspace's code: Python
    puts the directory it runs in first on `sys.path`. Only when the module has no table
    (a table judges its words), the interpreter's options and `PYTHON*` variables change
    nothing (`invocation_problem`), and no `-I`/`-P`/`PYTHONSAFEPATH` keeps that directory
    off `sys.path`; `_workspace_module` says whether the name is the workspace's.
    """
    if program_family(cmd.program) != "python":
        return None
    command = module_command(cmd.words, declared)
    found = python_module(cmd.words)
    if command is None or command[2] is not None or found is None:
        return None
    at, name = found
    texts = tuple(w.text for w in cmd.words)
    if at < 3 or texts[at - 2] != "-m":  # `-m NAME` as two words, after plain options
        return None
    before = texts[: at - 2]
    if invocation_problem(before, cmd.assignments) is not None:
        return None
    if not cwd_first(texts, cmd.assignments):
        return None
    if not _workspace_module(name.split(".", 1)[0], set(cmd.dirs), (), policy, base):
        return None
    return name


def _read_python(analysis: ShellAnalysis, policy: CompiledPolicy, base: str) -> ShellAnalysis:
    """The analysis with inline Python that `read_python` understands read, not feared.

    Only when every piece of visible code is Python: its `inline-code`/`heredoc-script`
    reasons go, and each file it opens becomes a redirection of that side, judged by the
    path policy like `< FILE` or `> FILE`. Code that is not understood keeps one
    `not-understood` reason saying why. An import from outside the standard library is
    understood only when the directory Python runs in, inside the workspace, holds that
    module: the workspace's own code, as `python script.py` runs it (docs/shell.md).
    """
    mine = [r for r in analysis.opaque if r.code in ("inline-code", "heredoc-script")]
    if not mine or not all(r.rule.split(" ", 1)[0] == "python" for r in mine):
        return analysis
    runs = [c for c in analysis.commands if program_family(c.program) == "python"]
    dirs = {d for c in runs for d in c.dirs}
    where = tuple(sorted(dirs, key=lambda d: (d is None, d or ""))) or (".",)
    rest = tuple(r for r in analysis.opaque if r not in mine)
    redirects: list[Redirect] = []
    invocation = [invocation_problem(c.argv, c.assignments) for c in runs]
    # `-I`, `-P`: the directory Python runs in is not searched, so no import is the workspace's.
    if not all(cwd_first(c.argv, c.assignments) for c in runs):
        dirs = set()
    for code in analysis.code:
        reading = read_python(code)
        why = next((p for p in invocation if p is not None), reading.why)
        if reading.understood and not _search_inside(reading.search, dirs, policy, base):
            why = "the code adds a directory outside the workspace to `sys.path`"
        for name in reading.imports if reading.understood else ():
            if not _workspace_module(name, dirs, reading.search, policy, base):
                why = f"the code imports `{name}`, which is neither listed nor in the workspace"
        if why:
            reason = Reason("not-understood", mine[0].rule, f"inline Python: {why}")
            return dataclasses.replace(analysis, opaque=(*rest, reason))
        for path, side in reading.accesses:
            access: Literal["read", "write"] = "write" if side == "write" else "read"
            redirects.append(Redirect(path, access, "python open", where))
    return dataclasses.replace(analysis, opaque=rest, redirects=(*analysis.redirects, *redirects))


def _search_inside(
    search: tuple[str, ...], dirs: set[str | None], policy: CompiledPolicy, base: str
) -> bool:
    """True when every directory the code adds to `sys.path` (`sys.path.insert(0, '..')`,
    or the workspace by its absolute path) is inside the workspace from every directory
    Python runs in. Python does not expand `~`, so a `~` directory is refused."""
    for extra in search:
        if extra.startswith("~"):
            return False
        for d in dirs or {"."}:
            where = None if d is None else resolve_dir(d, base, policy.home)
            full = None if where is None else posixpath.normpath(posixpath.join(where, extra))
            if full is None or not _inside(full, policy.workspace):
                return False
    return True


def _workspace_module(
    name: str, dirs: set[str | None], search: tuple[str, ...], policy: CompiledPolicy, base: str
) -> bool:
    """True when `name` is a module or package in a workspace directory Python runs in.

    A module file (`name.py`) or a regular package (`name/__init__.py`): a directory without
    `__init__.py` is a namespace portion, which loses to a regular package of that name
    anywhere later on `sys.path` (importlib's path finder). Never a standard-library name
    or a private one: those may be built in, frozen or imported at startup (`site` and the
    `.pth` files), found before the workspace is searched.
    """
    top = name.split(".", 1)[0]
    if not dirs or top in sys.stdlib_module_names or top.startswith("_"):
        return False
    for d in dirs:
        where = resolve_dir(d, base, policy.home)
        inside = where is not None and (
            where == policy.workspace or where.startswith(policy.workspace.rstrip("/") + "/")
        )
        if where is None or not inside:
            return False
        found = False
        for extra in ("", *search):
            folder = posixpath.normpath(posixpath.join(where, extra, name))
            if os.path.isfile(folder + ".py") or os.path.isfile(folder + "/__init__.py"):
                found = True
        if not found:
            return False
    return True


def _check_code(
    analysis: ShellAnalysis,
    policy: CompiledPolicy,
    config: SafetyConfig,
    found: _Findings,
    base: str,
) -> None:
    """Deny when visible code the analysis cannot read names a denied path.

    `python -c "open('/home/u/.ssh/id_rsa')"` is allowed only as the agent's own code in
    the sandbox; a denied path spelled in that code is denied like any other argument.
    """
    # sed and awk scripts are not paths either, but `r FILE`/`getline < FILE` in them are.
    scripts = [
        layer[i].text
        for cmd in analysis.commands
        for layer in (*cmd.wrapper_words, cmd.words)
        for i in script_words(layer)
    ]
    # Text a heredoc or herestring writes to a file (`cat > t.sh <<'EOF'`, `tee t.py
    # <<'EOF'`): as a Write tool's content, a denied path spelled in it is denied, since a
    # later step may run the file (`… EOF; bash t.sh`).
    written = [r.body for r in analysis.redirects if r.literal and r.body]
    written += [c.copied[0] for c in analysis.commands if c.copied is not None and c.copied[0]]
    codes = (*analysis.code, *scripts, *written)
    if not codes:
        return
    rules = compile_rules(config.command_rules)
    dirs: list[str | None] = [base]
    for cmd in analysis.commands:
        dirs.extend(d for d in _place(cmd, base, policy, found)[0] if d not in dirs)
    for code in codes:
        for word in code_paths(code):
            if word in _STANDARD_STREAMS:
                continue  # the command's own standard streams: no other file's data
            for spelling in _spellings(word, dirs):
                for reason in policy.check_denied(spelling):
                    if reason.code == "path-denied":
                        message = f"code given to the command names a denied path: {reason.message}"
                        found.add(found.deny, Reason(reason.code, reason.rule, message))
                    elif reason.code == "path-magic-alias":
                        # `/proc/self/environ`, `/dev/fd/9`: asked, as in an argument.
                        message = f"code given to the command names {reason.message}"
                        found.add(found.ask, Reason(reason.code, reason.rule, message))
        _check_code_commands(code, rules, found)


def _check_spelled_urls(analysis: ShellAnalysis, config: SafetyConfig, found: _Findings) -> None:
    """Deny a URL the URL policy denies wherever the command spells it: an operand no table
    reads as a destination (`pip install http://169.254.169.254/x.whl`, `npm i URL`), an
    option the tables do not know (`uv pip install --index-url URL`), code (`python3 -c
    "urlopen('http://169.254.169.254/')"`). With the sandbox's network on, these reach the
    host's network like `curl URL`. Only a denial counts: a URL seen in text may be no
    request at all, so an address the policy would ask about is left to the roles."""
    texts = [
        w.text
        for cmd in analysis.commands
        # `argv` and `wrappers` are the words' texts: most commands spell no URL at all.
        if "://" in "\0".join(cmd.argv) or any("://" in "\0".join(w) for w in cmd.wrappers)
        for layer in (*cmd.wrapper_words, cmd.words)
        for w in layer
        if w.static and "://" in w.text
    ]
    if not texts and not analysis.code:
        return
    texts += [code for code in analysis.code if "://" in code]
    seen: set[str] = set()
    denied = {(r.code, r.rule) for r in found.deny}
    for text in texts:
        for m in URL_IN_TEXT.finditer(text):
            url = m.group()
            if url in seen:
                continue
            if len(seen) >= MAX_SPELLED_URLS:
                found.add(
                    found.ask,
                    Reason(
                        "arguments-too-large",
                        "urls",
                        f"the command spells more than {MAX_SPELLED_URLS} URLs, more than are "
                        "checked",
                    ),
                )
                return
            seen.add(url)
            check = check_url(url, config.network)
            if check.verdict is not Verdict.DENY:
                continue
            for reason in check.reasons:
                if (reason.code, reason.rule) not in denied:
                    message = f"the command spells `{url[:80]}`: {reason.message}"
                    found.add(found.deny, Reason(reason.code, reason.rule, message))


MAX_SPELLED_URLS = 100


# Spellings of a process's standard streams (symbolic links into `/proc/self/fd`): code
# that names them reads or writes only what the command is given or prints.
_STANDARD_STREAMS = frozenset(
    {"/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2"}
)


# Bounds on the command lines read out of code: enough for a script's `system("…")`
# calls, and never more analyses than this per command.
MAX_CODE_COMMANDS = 32
MAX_CODE_COMMAND_LENGTH = 4096


def _check_code_commands(code: str, rules: CompiledRules, found: _Findings) -> None:
    """Ask when a string in the code is a command line a person must see run.

    `python -c "system('curl -s URL | sh')"`, `node -e "execSync('rm -rf ~')"`: the
    code is the agent's own, but the command line in it is visible, so it is judged like
    one written outright (a pipe to a shell, a deny or ask rule), as an ASK: the string may
    be data the code only prints. Only strings that pipe, or start with a shell or a
    program a rule names, are analysed; past the bounds the command asks.
    """
    candidates = []
    for text in code_strings(code):
        name = text.split(None, 1)[0].rsplit("/", 1)[-1] if text.strip() else ""
        if "|" in text or name in SHELLS or rules.names(name):
            candidates.append(text)
    if len(candidates) > MAX_CODE_COMMANDS or any(
        len(t) > MAX_CODE_COMMAND_LENGTH for t in candidates
    ):
        found.add(
            found.ask,
            Reason(
                "code-strings-unchecked",
                "shell-analysis",
                f"the code holds more command lines than are checked ({MAX_CODE_COMMANDS} "
                f"of at most {MAX_CODE_COMMAND_LENGTH} characters), so one could be missed",
            ),
        )
        found.grantable = False
        return
    for text in candidates:
        inner = analyze(text)
        shown = text if len(text) <= 60 else text[:59] + "…"
        why = [r.message for r in hazards(inner)]
        for cmd in inner.commands:
            for layer in (*cmd.wrapper_words, cmd.words):
                why += [
                    f"`{_show(layer)}` matches {m.rule.decision.value} rule `{m.rule.pattern}`"
                    for m in rules.strict_matches(layer)
                    if m.certain and m.rule.decision is not Verdict.ALLOW
                ]
        for message in why:
            found.add(
                found.ask,
                Reason("code-runs-command", "shell-analysis", f"code runs `{shown}`: {message}"),
            )
        if why:
            found.grantable = False
