"""Step 3 of the evaluation order: what the command of an execute call amounts to.

`assess_command` combines the shell analysis (`shell.analyze`), the command rules, the
built-in hazards and the path policy into one verdict:

- DENY: a deny rule matches any simple command or wrapper layer, a built-in hazard
  (pipe-to-shell, fork bomb, block-device or `/dev/tcp` redirection), a redirection target
  the path policy denies, a static path argument matching `denied_paths`, or no command.
- ASK: anything opaque; an ask rule; a deny rule that a computed word could complete; a
  redirection into a protected path; the two parsers disagreeing on a command that would
  otherwise run without a person.
- ALLOW: no objection. `skip_approval` is set only when every simple command matched an
  allow rule; allow rules never override a DENY or an ASK.

A compound command is as strict as its strictest part. Nothing here raises: an internal
failure is a DENY naming the error.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
import posixpath
import re
import shlex
import sys
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar, cast

from safehold.policy import tree_scan
from safehold.policy._globs import expand_braces, expand_globs, has_expansion
from safehold.policy._memo import remember
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Reason, Verdict
from safehold.policy.gitignore import ignore_filter, repository_root
from safehold.policy.grants import command_grant_key
from safehold.policy.paths import PathCheck, kernel_path, list_directory, looked_checks
from safehold.policy.program_config import declared_tables
from safehold.policy.shell.analysis import Redirect, ShellAnalysis, SimpleCommand, analyze
from safehold.policy.shell.crosscheck import disagreement
from safehold.policy.shell.effects import expanded_effects, host_effects
from safehold.policy.shell.flows import carries_links, follow
from safehold.policy.shell.hazards import hazards
from safehold.policy.shell.judge import judge
from safehold.policy.shell.listings import LISTED_ROLES, SPLIT_CHARACTERS, listed, listings
from safehold.policy.shell.locations import PHYSICAL, resolve_chdir, resolve_dir
from safehold.policy.shell.parse import Loop, is_plain_text, plain_heredoc_words, plain_words
from safehold.policy.shell.programs import module_command, program_for
from safehold.policy.shell.programs.classes import class_reasons, spellings
from safehold.policy.shell.programs.containers import OTHER_PLACES
from safehold.policy.shell.programs.files import copies_as_links
from safehold.policy.shell.programs.find import find_roots_at
from safehold.policy.shell.programs.interpreters import program_family, python_module
from safehold.policy.shell.programs.network import URL_VARIABLES
from safehold.policy.shell.programs.runners import WRAPPER_ROLES, chdir_values
from safehold.policy.shell.programs.search import (
    pattern_words,
    script_words,
    search_operands,
)
from safehold.policy.shell.programs.shells import SHELLS
from safehold.policy.shell.programs.step import program_name
from safehold.policy.shell.programs.table import (
    UNPACKS,
    Program,
    Role,
    RoleUse,
    is_remote,
    roles_of,
)
from safehold.policy.shell.programs.trees import Walking, walking
from safehold.policy.shell.python_code import cwd_first, invocation_problem, read_python
from safehold.policy.shell.roles import Finding, judge_change, judge_use
from safehold.policy.shell.rules import CompiledRules, compile_rules
from safehold.policy.shell.sandboxed import (
    SANDBOXED_CODE,
    code_paths,
    code_strings,
    private_scratch,
    runs_sandboxed,
)
from safehold.policy.shell.words import Word
from safehold.policy.tree_scan import TreeScan
from safehold.policy.urls import URL_IN_TEXT, check_url

if TYPE_CHECKING:
    from safehold.policy.paths import CompiledPolicy

__all__ = ["CommandAssessment", "assess_command"]

# Not commands at all: DENY rather than ASK (there is nothing for a person to approve).
_INVALID = frozenset({"invalid-command", "empty-command"})
_CD = frozenset({"cd", "pushd"})


@dataclass(frozen=True, slots=True)
class CommandAssessment:
    """Step 3's verdict on a command; ALLOW means "no objection", not "run it"."""

    verdict: Verdict
    reasons: tuple[Reason, ...]
    grant_key: str | None
    skip_approval: bool
    # Assessed for safehold's sandbox: the same command's assessment for the host, when the
    # one pass could tell it (see `_same_on_host`); None when only a second pass can.
    # Read it with `host_view`: the pass leaves it to `later`, which tells it on demand, so
    # a decision that cannot be an ALLOW (review mode, an ASK) never pays for it.
    host: CommandAssessment | None = None
    later: Callable[[], CommandAssessment | None] | None = field(
        default=None, compare=False, repr=False
    )

    def host_view(self) -> CommandAssessment | None:
        """`host`, told by `later` when the pass left it for later (once: remembered)."""
        if self.host is not None or self.later is None:
            return self.host
        return self.later()


def assess_command(
    command: object, *, config: SafetyConfig, policy: CompiledPolicy, cwd: object = None
) -> CommandAssessment:
    """Assess an execute call's command against rules, hazards and the path policy.

    `cwd` is the call's working directory (relative to the workspace, `~/…` or absolute);
    every relative path the command names is resolved from it.
    """
    try:
        return _assess(command, config, policy, cwd)
    except Exception as exc:  # INVARIANT: no error path allows
        return CommandAssessment(
            Verdict.DENY,
            (
                Reason(
                    "command-analysis-error",
                    "shell-analysis",
                    f"the command could not be assessed ({type(exc).__name__}: {exc})",
                ),
            ),
            None,
            False,
        )


@dataclass(slots=True)
class _Findings:
    deny: list[Reason]
    ask: list[Reason]
    grantable: bool = True
    # Per command (by identity): its directories and roles, computed once per assessment.
    places: dict[int, tuple[list[str | None], list[RoleUse], frozenset[str]]] = field(
        default_factory=dict
    )
    # Whether a bare word names an existing file, looked up once per assessment.
    exists: dict[str, bool] = field(default_factory=dict)
    # The user's `[[programs]]` tables, by name (None: none declared).
    declared: Mapping[str, Program] | None = None
    # `find … | xargs PROG` consumers (by identity): the root words, whether PROG reads
    # or changes the files below them, and whether xargs splits names at blanks.
    listed: dict[int, tuple[tuple[Word, ...], Literal["read", "write"], bool]] = field(
        default_factory=dict
    )
    # This decision's memo of checks (`paths.looked_checks`), when a second pass of the
    # same decision will read it: the host's pass after a sandboxed pass that cannot tell
    # the host's view (`_same_on_host` False, remembered in `same_on_host`).
    memo: dict[object, object] | None = None
    same_on_host: bool | None = None

    def add(self, bucket: list[Reason], reason: Reason) -> None:
        if reason not in bucket:
            bucket.append(reason)


def _base(cwd: object, policy: CompiledPolicy, found: _Findings) -> str:
    """The directory the command starts in: the call's `cwd`, else the workspace."""
    if cwd is None:
        return posixpath.normpath(policy.workspace)
    if not isinstance(cwd, str) or not cwd.strip() or "\x00" in cwd:
        found.add(
            found.deny,
            Reason("cwd-invalid", "cwd", "argument `cwd` must be a non-empty path string"),
        )
        return posixpath.normpath(policy.workspace)
    # The client enters `cwd` with chdir(2): `link/..` is the parent of the link's target.
    return resolve_chdir(cwd, policy.workspace, policy.home)


def _assess(
    command: object, config: SafetyConfig, policy: CompiledPolicy, cwd: object = None
) -> CommandAssessment:
    analysis = analyze(command)  # type: ignore[arg-type]  # analyze accepts any object
    found = _Findings([], [])
    found.declared = declared_tables(config.programs) if config.programs else None
    sandboxed = runs_sandboxed(config)
    base = _base(cwd, policy, found)
    if analysis.opaque:
        # No "always" for code in the command, read or not: a grant is for what a person
        # can see whole (kept when the Python reader understands the code, as before it).
        found.grantable = False
    if not sandboxed:
        analysis = _read_python(analysis, policy, base)
    memo = looked_checks()
    if memo is not None:
        # A sandboxed pass records its checks only when the host's pass will come.
        if sandboxed:
            found.same_on_host = _same_on_host(analysis, policy, config, found, base)
        if not sandboxed or not found.same_on_host:
            found.memo = memo
    for reason in analysis.opaque:
        if sandboxed and reason.code in SANDBOXED_CODE:
            continue  # the agent's own code, run in the sandbox: like `python script.py`
        found.add(found.deny if reason.code in _INVALID else found.ask, reason)
    if analysis.opaque:
        found.grantable = False
    for reason in hazards(analysis):
        found.add(found.deny, reason)
    allow_reasons = _apply_rules(analysis, config, found, policy, base)
    _apply_text_rules(command, analysis, config, found)
    if not sandboxed:
        analysis = _expand_listings(analysis, policy, found, base)
        analysis = _expand_loops(analysis, policy, found, base)
    _check_paths(analysis, policy, found, config, base)
    _check_code(analysis, policy, config, found, base)
    _check_roles(analysis, policy, config, found, base)
    _check_flows(analysis, policy, config, found, base)
    _check_spelled_urls(analysis, config, found)
    if not sandboxed:
        _closed_world(analysis, config, found, allow_reasons, policy, base)
    if sandboxed:
        # Nothing below changes `found` for the sandbox: the host's view is told from it
        # on demand (`CommandAssessment.host_view`), the same as if told now.
        told: list[CommandAssessment] = []  # this pass's own conclusion, once drawn
        later = _later(_host_of, analysis, config, policy, found, base, allow_reasons, told)
        told.append(_conclude(found, analysis, config, allow_reasons, later))
        return told[0]
    _check_trees(analysis, policy, found, base)
    _check_deleted_trees(analysis, policy, found, base)
    return _conclude(found, analysis, config, allow_reasons, None)


def _host_of(
    analysis: ShellAnalysis,
    config: SafetyConfig,
    policy: CompiledPolicy,
    found: _Findings,
    base: str,
    allow_reasons: list[Reason] | None,
    told: Sequence[CommandAssessment] = (),
) -> CommandAssessment | None:
    """The host's assessment told from the sandboxed pass's findings, or None when only a
    second pass can tell it (`_same_on_host`).

    `told`: the sandboxed pass's own conclusion. When the host adds no finding (the same
    reasons, the same grantability), `_conclude` of the same inputs draws the same
    conclusion, so it is not drawn twice.
    """
    same = found.same_on_host
    if same is None:
        same = _same_on_host(analysis, policy, config, found, base)
    if not same:
        return None
    on_host = _host_findings(analysis, config, policy, found, base, allow_reasons)
    if told and _added_nothing(on_host, found):
        return told[0]  # the same verdict, reasons, grant key and skip (its `later` unused)
    return _conclude(on_host, analysis, config, allow_reasons, None)


def _added_nothing(on_host: _Findings, found: _Findings) -> bool:
    """True when `on_host` (`found` copied, then only added to) holds what `found` holds:
    `_Findings.add` appends only a reason not already there, and grantability only goes
    from True to False, so equal lengths and grantability are equal findings."""
    return (
        len(on_host.deny) == len(found.deny)
        and len(on_host.ask) == len(found.ask)
        and on_host.grantable == found.grantable
    )


def _later(
    fn: Callable[..., CommandAssessment | None], *args: object
) -> Callable[[], CommandAssessment | None]:
    """`fn(*args)` when first asked for, remembered for later asks."""
    told: list[CommandAssessment | None] = []

    def tell() -> CommandAssessment | None:
        if not told:
            told.append(fn(*args))
        return told[0]

    return tell


def _grant_key(analysis: ShellAnalysis) -> str | None:
    """The command's grant key (`grant_argvs` is text only: remembered by value)."""
    return _grant_key_memo(analysis.grant_argvs)


@functools.lru_cache(maxsize=1024)
def _grant_key_memo(argvs: tuple[tuple[str, ...], ...]) -> str:
    return command_grant_key(argvs)


def _conclude(
    found: _Findings,
    analysis: ShellAnalysis,
    config: SafetyConfig,
    allow_reasons: list[Reason] | None,
    later: Callable[[], CommandAssessment | None] | None,
) -> CommandAssessment:
    """What the findings come to once every check has run (`later`: see CommandAssessment)."""
    key = _grant_key(analysis) if found.grantable else None
    if found.deny:
        return CommandAssessment(Verdict.DENY, _sorted(found.deny), key, False, None, later)
    if found.ask:
        return CommandAssessment(Verdict.ASK, _sorted(found.ask), key, False, None, later)
    skip = allow_reasons is not None
    if skip or not config.require_approval_for_execute:
        # Nobody will look at this command: demand a second parser's agreement first.
        for script in analysis.scripts:
            if script is analysis.scripts[0] and _plain_words(script, analysis):
                continue
            if script is not analysis.scripts[0] and plain_words(script) is not None:
                # A script of plain words inside the command (`py_compile` of `python3 -m
                # py_compile`): bash splits it at blanks, and bashlex agrees on every such
                # text (tests/properties), so it is not asked.
                continue
            problem = disagreement(script)
            if problem is not None:
                reason = Reason(
                    "parser-disagreement",
                    "second-parser",
                    f"the command cannot be read with certainty: {problem}",
                )
                return CommandAssessment(Verdict.ASK, (reason,), None, False, None, later)
    return CommandAssessment(Verdict.ALLOW, _sorted(allow_reasons or []), key, skip, None, later)


def _same_on_host(
    analysis: ShellAnalysis,
    policy: CompiledPolicy,
    config: SafetyConfig,
    found: _Findings,
    base: str,
) -> bool:
    """True when no check of this (sandboxed) pass took a branch the host would not take.

    The sandbox loosens in exactly these places: code no analysis reads (opaque) runs, and
    on the host the Python reader reads it instead; an absolute `/tmp/…` word, redirection
    or directory is the private scratch (`private_scratch`); the workspace under `/tmp` is
    not read from outside; on the host a loop's `"$VAR"` and a listing's `{}` stand for the
    words they take (`_expand_loops`, `_expand_listings`). Conservative: any of them, in
    any spelling, and the host is judged by a second pass. What only the host adds on top
    of the same analysis (the closed world, computed words, tree walks) is added by
    `_host_findings`.
    """
    if analysis.opaque or any("/tmp" in r.target for r in analysis.redirects):
        return False
    if _workspace_read(policy, config) != _workspace_read_on_host(policy, config):
        return False
    if any(cmd.loops for cmd in analysis.commands) or listings(analysis):
        return False
    for cmd in analysis.commands:
        for layer in (*cmd.wrapper_words, cmd.words):
            for w in layer:
                if "/tmp" in w.text:
                    return False
        setting = cmd.assignments or cmd.program in _SETTERS  # else no variable is set
        if setting and (any("/tmp" in a for a in cmd.assignments) or _variable_destinations(cmd)):
            return False
        for d in _place(cmd, base, policy, found)[0]:
            if d is not None and d != policy.workspace and "/tmp" in d:
                return False
    return True


def _host_findings(
    analysis: ShellAnalysis,
    config: SafetyConfig,
    policy: CompiledPolicy,
    found: _Findings,
    base: str,
    allow_reasons: list[Reason] | None,
) -> _Findings:
    """`found` plus what only a host run adds: the closed world, computed words and the
    tree walks."""
    host = _Findings(list(found.deny), list(found.ask), found.grantable, found.places)
    host.exists, host.declared = found.exists, found.declared
    _check_computed(analysis, policy, host, base)
    _closed_world(analysis, config, host, allow_reasons, policy, base)
    _check_trees(analysis, policy, host, base)
    _check_deleted_trees(analysis, policy, host, base)
    return host


def _closed_world(
    analysis: ShellAnalysis,
    config: SafetyConfig,
    found: _Findings,
    allow_reasons: list[Reason] | None,
    policy: CompiledPolicy,
    base: str,
) -> None:
    """Unconfined, auto mode allows only what the analysis understands (docs/shell.md).

    Commands that the config's allow rules cover in full are the user's own word
    (`make *`), as they are in review mode: auto is never stricter than review. A module
    of the workspace run as `python -m NAME` is the workspace's code (`_own_module`).
    """
    if config.require_approval_for_execute or allow_reasons is not None:
        return
    for cmd in analysis.commands:
        effects = host_effects(cmd, found.declared)
        own = _own_module(cmd, found.declared, policy, base)
        if own is not None:
            effects = tuple(
                e for e in effects if not (e.program.endswith(" -m") and e.target == own)
            )
        for finding in judge(effects, unconfined=True):
            _add(found, finding)
    for finding in judge(expanded_effects(analysis.expanded), unconfined=True):
        _add(found, finding)


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


def _plain_words(script: str, analysis: ShellAnalysis) -> bool:
    """True when `script` is plain words whose split the analysis reproduces exactly.

    For such text bash's reading is a split at blanks; agreeing with that is a second
    opinion as good as bashlex's, at no cost (`git status`, `npm test`, `ls -la src`, and
    `python3 - <<'PY'` or `cat > f <<'EOF'` with its quoted body set aside:
    `plain_heredoc_words`).
    """
    if is_plain_text(script):
        return analysis.grant_argvs == (tuple(script.split()),)
    # The same with a quoted heredoc on stdin (`python3 - <<'PY'`, `cat > f <<'EOF'`, its
    # body set aside): the one command's words, its output redirection, then the heredoc,
    # as the analysis lists them.
    shape = plain_heredoc_words(script)
    if shape is None or len(analysis.grant_argvs) != 1:
        return False
    words, redirects = shape
    argv = analysis.grant_argvs[0]
    return argv[:-1] == (*words, *redirects) and argv[-1].startswith("<<")


def _sorted(reasons: list[Reason]) -> tuple[Reason, ...]:
    return tuple(sorted(set(reasons), key=lambda r: (r.code, r.rule, r.message)))


def _show(cmd: SimpleCommand | tuple[Word, ...]) -> str:
    words = cmd.words if isinstance(cmd, SimpleCommand) else cmd
    text = " ".join(w.text for w in words).replace("`", "'")
    return text if len(text) <= 80 else text[:79] + "…"


def _home_spelled(
    words: tuple[Word, ...], home: str, workspace: str, base: str
) -> tuple[Word, ...] | None:
    """`words` with the home directory spelled `~` and `..` resolved, if that changes any.

    Pure: remembered for a tuple of words (which hashes and compares by value).
    """
    if type(words) is tuple and all(type(w) is Word for w in words):
        return _home_spelled_memo(words, home, workspace, base)
    return _home_spelled_of(words, home, workspace, base)


@functools.lru_cache(maxsize=2048)
def _home_spelled_memo(
    words: tuple[Word, ...], home: str, workspace: str, base: str
) -> tuple[Word, ...] | None:
    return _home_spelled_of(words, home, workspace, base)


def _home_spelled_of(
    words: tuple[Word, ...], home: str, workspace: str, base: str
) -> tuple[Word, ...] | None:
    """The uncached `_home_spelled`.

    `rm -rf /home/me` is `rm -rf ~`, `rm -rf ~/..` is `rm -rf /home`, and in a workspace
    `~/proj`, `rm -rf ..` is `rm -rf ~`: deny rules are written with one spelling, so each
    operand naming a place gets its resolved one too.
    """
    home = posixpath.normpath(home)
    out: list[Word] = list(words[:1])
    changed = False
    for w in words[1:]:
        t = w.text
        for var in ("$HOME", "${HOME}"):
            if not w.static and (t == var or t.startswith(var + "/")):
                t = "~" + t[len(var) :]
        # A relative operand (from `base`: the workspace, or where a `cd` went) matters
        # only when it lands outside the workspace: `cd / && rm -rf etc`, `rm -rf ..`.
        relative = w.static and t[:1] not in ("", "-", "/", "~")
        if relative and _inside(posixpath.normpath(posixpath.join(base, t)), workspace):
            relative = False
        if t == "~" or t.startswith("~/") or (w.static and t.startswith("/")) or relative:
            if relative:
                spelled = posixpath.join(base, t)
            else:
                spelled = home + t[1:] if t.startswith("~") else t
            full = posixpath.normpath(re.sub("/+", "/", spelled))
            full = "/" if full.startswith("//") else full
            if full == home or full.startswith(home.rstrip("/") + "/"):
                new = Word("~" + full[len(home) :], True)
            else:
                new = Word(full, True)
            changed = changed or new.text != w.text
            out.append(new)
        else:
            out.append(w)
    return tuple(out) if changed else None


def _inside(path: str, root: str) -> bool:
    root = posixpath.normpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")


def _apply_rules(
    analysis: ShellAnalysis,
    config: SafetyConfig,
    found: _Findings,
    policy: CompiledPolicy,
    base: str,
) -> list[Reason] | None:
    """Add deny/ask rule hits; return allow reasons when every command is allowed."""
    rules = compile_rules(config.command_rules)
    allows: list[Reason] | None = [] if analysis.commands else None
    memo = found.memo
    for cmd in analysis.commands:
        bases = tuple(d for d in _place(cmd, base, policy, found)[0] if d is not None)
        if memo is None:
            allowed = _command_rules(cmd, bases, rules, policy, found)
        else:
            key = ("rules", id(cmd), bases, id(rules), policy.home, policy.workspace)
            alive = (cmd, rules)
            allowed = _once(memo, key, alive, found, _command_rules, cmd, bases, rules, policy)
        if allows is not None:
            allows = None if allowed is None else [*allows, allowed]
    return allows


def _command_rules(
    cmd: SimpleCommand,
    bases: tuple[str, ...],
    rules: CompiledRules,
    policy: CompiledPolicy,
    found: _Findings,
) -> Reason | None:
    """The rule checks of one command of `_apply_rules`: its allow reason, or None when
    no allow rule matches it."""
    layers = [*cmd.wrapper_words, cmd.words]
    layers += [s for layer in layers if (s := spellings(layer)) is not None]
    layers += [
        alt
        for base in bases
        for layer in layers
        if (alt := _home_spelled(layer, policy.home, policy.workspace, base)) is not None
    ]
    for layer in layers:
        for m in rules.strict_matches(layer):
            why = f" ({m.rule.reason})" if m.rule.reason else ""
            if m.rule.decision is Verdict.DENY and m.certain:
                found.add(
                    found.deny,
                    Reason(
                        "command-denied",
                        m.rule.pattern,
                        f"`{_show(layer)}` matches deny rule `{m.rule.pattern}`{why}",
                    ),
                )
            elif m.rule.decision is Verdict.DENY:
                found.add(
                    found.ask,
                    Reason(
                        "command-may-be-denied",
                        m.rule.pattern,
                        f"`{_show(layer)}` has computed words that could make it match "
                        f"deny rule `{m.rule.pattern}`{why}",
                    ),
                )
            else:
                found.add(
                    found.ask,
                    Reason(
                        "command-ask-rule",
                        m.rule.pattern,
                        f"`{_show(layer)}` matches ask rule `{m.rule.pattern}`{why}",
                    ),
                )
    _check_hidden_commands(cmd, rules, found)
    rule = rules.allow_match(cmd.words) if cmd.words and not cmd.assignments else None
    if rule is None:
        return None
    return Reason(
        "command-allowed", rule.pattern, f"`{_show(cmd)}` matches allow rule `{rule.pattern}`"
    )


def _apply_text_rules(
    command: object, analysis: ShellAnalysis, config: SafetyConfig, found: _Findings
) -> None:
    """Substring and regex rules (deny and ask only) on the command and every inner script."""
    rules = compile_rules(config.command_rules)
    if isinstance(command, str):
        texts = [command]
    elif isinstance(command, list | tuple) and all(isinstance(a, str) for a in command):
        texts = [shlex.join(command)]
    else:
        texts = []
    texts += [t for t in analysis.scripts if t not in texts]
    for text in texts:
        for rule in rules.text_matches(text):
            why = f" ({rule.reason})" if rule.reason else ""
            deny = rule.decision is Verdict.DENY
            found.add(
                found.deny if deny else found.ask,
                Reason(
                    "command-denied" if deny else "command-ask-rule",
                    rule.pattern,
                    f"the command contains `{rule.pattern}` ({rule.match} rule, "
                    f"{rule.decision.value}){why}",
                ),
            )


def _check_hidden_commands(cmd: SimpleCommand, rules: CompiledRules, found: _Findings) -> None:
    """Ask when a program's arguments spell a denied command (`valgrind rm -rf /`).

    No list of wrappers is complete (`ssh host …`, `docker exec c …`, `valgrind …`): any
    program may run its arguments. Only deny rules with more than a program name count, so
    `grep shutdown log` stays quiet while `echo rm -rf /` asks.
    """
    words = cmd.words
    for i in range(1, len(words) - 1):
        if not words[i].static:
            continue
        if program_name(words[i]) in SHELLS and all(w.static for w in words[i:]):
            # `docker exec c sh -c 'rm -rf /'`: the shell's script is analysed as one.
            for inner in analyze([w.text for w in words[i:]]).commands:
                for layer in (*inner.wrapper_words, inner.words):
                    for m in rules.strict_matches(layer):
                        if m.certain and m.rule.decision is Verdict.DENY:
                            found.add(
                                found.ask,
                                Reason(
                                    "command-may-run-denied",
                                    m.rule.pattern,
                                    f"`{_show(cmd)}` may run `{_show(layer)}`, which matches "
                                    f"deny rule `{m.rule.pattern}`",
                                ),
                            )
        for m in rules.strict_matches(words[i:]):
            if m.certain and m.rule.decision is Verdict.DENY and " " in m.rule.pattern:
                found.add(
                    found.ask,
                    Reason(
                        "command-may-run-denied",
                        m.rule.pattern,
                        f"`{_show(cmd)}` may run `{_show(words[i:])}`, which matches deny "
                        f"rule `{m.rule.pattern}`",
                    ),
                )


def _place(
    cmd: SimpleCommand, base: str, policy: CompiledPolicy, found: _Findings
) -> tuple[list[str | None], list[RoleUse], frozenset[str]]:
    """`_command_dirs` and the command's modes, once per command per assessment."""
    known = found.places.get(id(cmd))
    if known is None:
        known = _command_dirs(cmd, base, policy, found.declared)
        found.places[id(cmd)] = known
    return known


def _command_dirs(
    cmd: SimpleCommand,
    base: str,
    policy: CompiledPolicy,
    declared: Mapping[str, Program] | None = None,
) -> tuple[list[str | None], list[RoleUse], frozenset[str]]:
    """Absolute directories `cmd` may run in (None: computed), its roles and modes.

    The walk's `cd` chain, then `env -C DIR`, `sudo -D DIR`, `git -C DIR` and the
    program's own `-C DIR` (`tar`, `make`), which move its relative paths.
    """
    # A pure function of the command, `base` and the home directory (no I/O). Analyses are
    # cached per command text, so a repeated command brings the same `cmd` object: it is
    # remembered by identity, the entry keeping `cmd` alive so its id is not reused.
    home = policy.home
    if _reads_links(cmd):
        # A physical directory or a `-C DIR` that climbs is resolved through the links on
        # the way (`resolve_chdir`): never remembered across decisions, a link may change.
        return _command_dirs_of(cmd, base, home, declared)
    known = _DIRS.get(id(cmd))
    if (
        known is not None
        and known[0] is cmd
        and known[1] == base
        and known[2] == home
        and known[6] is declared
    ):
        return list(known[3]), list(known[4]), known[5]
    if declared is None:
        dirs, uses, modes = _command_dirs_by_value(cmd, base, home)
    else:
        dirs, uses, modes = _command_dirs_of(cmd, base, home, declared)
    entry = (cmd, base, home, tuple(dirs), tuple(uses), modes, declared)
    remember(_DIRS, id(cmd), entry, _DIRS_SIZE)
    return dirs, uses, modes


def _reads_links(cmd: SimpleCommand) -> bool:
    """True when where `cmd` runs depends on links: a `PHYSICAL` directory of its `cd`
    chain, or a word holding `..` (a `-C DIR` that climbs)."""
    if any(d is not None and d.startswith(PHYSICAL) for d in cmd.dirs):
        return True
    words = [*cmd.words, *(w for layer in cmd.wrapper_words for w in layer)]
    return any(".." in w.text for w in words)


def _command_dirs_by_value(
    cmd: SimpleCommand, base: str, home: str
) -> tuple[list[str | None], list[RoleUse], frozenset[str]]:
    """`_command_dirs_of` remembered by the command's words, not its identity.

    A command seen before in another text (`git status` in `git status && ls`) has equal
    words but new word objects, and the checks match a role to its word by identity
    (`u.word is w`). So the memo keeps, for each role, the position of its word among the
    command's words (or the word itself when the table made it, as `--out=F`'s `F`), and
    hands back roles holding this command's own words. The key includes which positions
    hold one and the same object, so identity between words is the same as computed.
    """
    flat = [*cmd.words, *(w for layer in cmd.wrapper_words for w in layer)]
    first: dict[int, int] = {}
    shape = tuple([first.setdefault(id(w), k) for k, w in enumerate(flat)])
    key = (cmd.words, cmd.wrapper_words, cmd.dirs, base, home, shape)
    held = _DIRS_BY_VALUE.get(key)
    if held is None:
        dirs, uses, modes = _command_dirs_of(cmd, base, home, None)
        spots = tuple((u.role, first.get(id(u.word)), u.word, u.option) for u in uses)
        remember(_DIRS_BY_VALUE, key, (tuple(dirs), spots, modes), _DIRS_SIZE)
        return dirs, uses, modes
    dirs_held, spots, modes = held
    roles = [
        RoleUse(role, word if at is None else flat[at], option) for role, at, word, option in spots
    ]
    return list(dirs_held), roles, modes


_DIRS: OrderedDict[
    int,
    tuple[
        SimpleCommand,
        str,
        str,
        tuple[str | None, ...],
        tuple[RoleUse, ...],
        frozenset[str],
        Mapping[str, Program] | None,
    ],
] = OrderedDict()
_DIRS_SIZE = 1024
_DIRS_BY_VALUE: OrderedDict[
    tuple[object, ...],
    tuple[
        tuple[str | None, ...],
        tuple[tuple[Role, int | None, Word, str], ...],
        frozenset[str],
    ],
] = OrderedDict()


def _command_dirs_of(
    cmd: SimpleCommand, base: str, home: str, declared: Mapping[str, Program] | None = None
) -> tuple[list[str | None], list[RoleUse], frozenset[str]]:
    dirs: list[str | None] = []
    for d in cmd.dirs:
        full = resolve_dir(d, base, home)
        if full not in dirs:
            dirs.append(full)
    moves: list[Word] = [w for layer in cmd.wrapper_words for w in chdir_values(layer)]
    uses, modes = _roles(cmd, declared)
    for layer in cmd.wrapper_words:
        # A wrapper's own options can name files (`time -o FILE cmd`): their roles count.
        table = WRAPPER_ROLES.get(program_name(layer[0])) if layer else None
        if table is not None:
            uses += [u for u in roles_of(table, layer)[0] if u.option]
    moves += [u.word for u in uses if u.role == "cwd"]
    for word in moves:
        if not (word.static or word.home):
            dirs.append(None)
            continue
        for d in list(dirs):
            if d is not None:
                moved = resolve_chdir(word.text, d, home)  # chdir(2): `..` after links
                if moved not in dirs:
                    dirs.append(moved)
    return dirs, uses, modes


def _roles(
    cmd: SimpleCommand, declared: Mapping[str, Program] | None = None
) -> tuple[list[RoleUse], frozenset[str]]:
    family = program_family(cmd.program) if cmd.words else ""
    program = program_for(family) if cmd.words else None
    if program is None and declared and cmd.words:
        program = declared.get(cmd.program)  # a `[[programs]]` table
    if program is None:
        return [], frozenset()
    uses, modes = roles_of(program, cmd.words)
    module = module_command(cmd.words, declared) if family == "python" else None
    if module is not None and module[2] is not None:
        # `python -m pytest --junit-xml=F`: the module's words have the module's roles.
        inner, modes = roles_of(module[2], module[1])
        uses += inner
    return uses, frozenset(modes)


def _cd_dirs(analysis: ShellAnalysis) -> tuple[list[str], bool]:
    """Directories (relative to the call's base) the commands may run in, and whether one is
    computed at run time. For `policy.locations`, which spells paths for the person."""
    dirs: list[str] = []
    unknown = False
    every: list[tuple[str | None, ...]] = [c.dirs for c in analysis.commands]
    every += [r.dirs for r in analysis.redirects]
    for item in every:
        for d in item:
            if d is None:
                unknown = True
            elif d not in dirs:
                dirs.append(d)
    return dirs or ["."], unknown


def _spellings(path: str, dirs: Sequence[str | None]) -> list[str]:
    if path.startswith(("/", "~")):
        return [path]
    return [posixpath.join(d, path) for d in dirs if d is not None]


def _check_paths(
    analysis: ShellAnalysis,
    policy: CompiledPolicy,
    found: _Findings,
    config: SafetyConfig,
    base: str,
) -> None:
    placed = [(cmd, _place(cmd, base, policy, found)) for cmd in analysis.commands]
    per_command = [(cmd, place[0]) for cmd, place in placed]
    redirect_dirs = [
        [resolve_dir(d, base, policy.home) for d in r.dirs] for r in analysis.redirects
    ]
    unknown_cd = any(None in dirs for _, dirs in per_command) or any(
        None in dirs for dirs in redirect_dirs
    )
    if unknown_cd:
        found.add(
            found.ask,
            Reason(
                "cd-computed",
                "cd",
                "the command changes to a directory computed at run time, so the files its "
                "relative paths name cannot be checked",
            ),
        )
    linker = next(
        (
            c
            for c, place in placed
            if _makes_links(c) or carries_links(c, place[0], place[1], policy.home)
        ),
        None,
    )
    if linker is not None and analysis.redirects:
        # `ln -s ~/.bashrc x; echo evil >> x`: the redirect target is checked now, before
        # the link exists, so where it lands is not known.
        found.add(
            found.ask,
            Reason(
                "redirect-through-new-link",
                linker.program,
                f"`{_show(linker)}` creates a link in the same command as a redirection, so "
                "the file the redirection opens cannot be checked",
            ),
        )
        found.grantable = False
    for r, dirs in zip(analysis.redirects, redirect_dirs, strict=True):
        if None in dirs and not r.target.startswith(("/", "~")):
            found.add(
                found.ask,
                Reason(
                    "redirect-after-cd",
                    f"{r.op} {r.target}",
                    f"the redirection target `{r.target}` is relative to a directory "
                    "computed at run time",
                ),
            )
            found.grantable = False
        for spelling in _spellings(r.target, dirs):
            check = policy.check_path(spelling, r.access)
            if r.access == "write" and private_scratch(r.target, config, policy.home):
                check = _without_outside(check)
            if check.verdict is Verdict.DENY:
                for reason in check.reasons:
                    found.add(found.deny, _redirect_reason(r.op, reason))
            elif check.verdict is Verdict.ASK:
                for reason in check.reasons:
                    found.add(found.ask, _redirect_reason(r.op, reason))
                found.grantable = False  # grants never lift a protected-path ASK
    code = set(analysis.code)  # code is not a path: `_check_code` reads it
    memo = found.memo
    for cmd, (dirs, uses, _modes) in placed:
        if memo is None:
            _command_paths(cmd, dirs, uses, code, policy, config, found)
            continue
        layers = (*cmd.wrapper_words, cmd.words)
        skipped = {w.text for layer in layers for w in layer if w.text in code}
        workspace_read = _workspace_read(policy, config) if policy.workspace in dirs else None
        # What the check reads of `config` beyond the policy's lists: the private /tmp of
        # the sandbox, which only a `/tmp` spelling outside the workspace can reach.
        scratch = runs_sandboxed(config) and _spells_tmp(cmd, dirs, uses, policy.workspace)
        key = (
            "paths", id(cmd), base, tuple(dirs), policy.lists_key, frozenset(skipped),
            workspace_read, scratch,
        )  # fmt: skip
        alive = (cmd, found.declared)
        _once(memo, key, alive, found, _command_paths, cmd, dirs, uses, skipped, policy, config)


def _spells_tmp(
    cmd: SimpleCommand, dirs: Sequence[str | None], uses: Sequence[RoleUse], workspace: str
) -> bool:
    """Whether a word, a role's word or a directory other than the workspace says `/tmp`."""
    return (
        any("/tmp" in w.text for layer in (*cmd.wrapper_words, cmd.words) for w in layer)
        or any("/tmp" in u.word.text for u in uses)
        or any(d is not None and d != workspace and "/tmp" in d for d in dirs)
    )


_T = TypeVar("_T")


def _once(
    memo: dict[object, object],
    key: tuple[object, ...],
    alive: tuple[object, ...],
    found: _Findings,
    check: Callable[..., _T],
    *args: object,
) -> _T:
    """`check(*args, found)`, made once per decision for `key` (`paths.looked_checks`).

    `key` holds everything the check reads, so a second pass of the same decision (the
    host's, after the sandbox's) whose key is equal gets the same findings: they are
    recorded apart, then added to `found` as the check would add them (`_Findings.add`
    keeps one of each; grantability only goes from True to False). `alive`: objects the
    key names by identity, kept alive with the entry and compared on every use.
    """
    held = cast("_Held | None", memo.get(key))
    if held is None or any(a is not b for a, b in zip(held[0], alive, strict=True)):
        deny, ask, grantable = found.deny, found.ask, found.grantable
        found.deny, found.ask, found.grantable = [], [], True
        try:
            made = check(*args, found)
            held = (alive, tuple(found.deny), tuple(found.ask), found.grantable, made)
        finally:
            found.deny, found.ask, found.grantable = deny, ask, grantable
        memo[key] = held
    for reason in held[1]:
        found.add(found.deny, reason)
    for reason in held[2]:
        found.add(found.ask, reason)
    if not held[3]:
        found.grantable = False
    return cast("_T", held[4])


# A check made once (`_once`): the objects its key names, its denials and asks, whether it
# left the command grantable, and what it returned.
_Held = tuple[tuple[object, ...], tuple[Reason, ...], tuple[Reason, ...], bool, object]


def _command_paths(
    cmd: SimpleCommand,
    dirs: list[str | None],
    uses: list[RoleUse],
    code: set[str],
    policy: CompiledPolicy,
    config: SafetyConfig,
    found: _Findings,
) -> None:
    """The path checks of one command of `_check_paths`."""
    seen: set[tuple[str, bool]] = set()
    # Wrapper layers too: `xargs -a FILE`, `env -C DIR`, `git -C DIR` name paths. Search
    # patterns are not: `grep -rn ".env" src` does not read `.env`.
    if cmd.words and program_name(cmd.words[0]) not in _NO_FILES_OR_CD:
        # `cd ~ && grep -r key`, `cd / && ls`: a program reads the directory it runs in.
        for d in dirs:
            if d == policy.workspace:
                asks, denials = _workspace_read(policy, config)
                for reason in asks:
                    found.add(found.ask, reason)
                for reason in denials:  # `outside_reads = "deny"`: never looser than ask
                    found.add(found.deny, reason)
            elif d is not None and not private_scratch(d + "/x", config, policy.home):
                _check_outside_read(d, [d], policy, config, found)
    elsewhere = False  # inside `docker exec c …`, `ssh h …`: not the host's paths
    host_reads = {id(u.word) for u in uses if u.role == "read"}
    for layer in (*cmd.wrapper_words, cmd.words):
        # A program that opens files reads what its arguments name: outside the roots
        # that asks, as a read tool's would (`grep -r key ~`, `sh /tmp/x.sh`).
        name = program_name(layer[0]) if layer else ""
        elsewhere = elsewhere or name in OTHER_PLACES
        opens = bool(layer) and name not in _NO_FILES
        for word in _paths_of(layer):
            if word.text in code:
                continue
            table_read = id(word) in host_reads
            operand = table_read or (opens and word is not layer[0] and not elsewhere)
            for candidate in _path_candidates(word):
                key = (candidate, operand)
                if key not in seen:
                    seen.add(key)
                    _check_argument(candidate, dirs, policy, found)
                    if operand and (word.static or word.home or candidate[:1] == "~"):
                        _check_outside_read(candidate, dirs, policy, config, found)
                    if not word.static and has_expansion(candidate):
                        read = config if operand else None
                        _check_expansions(candidate, dirs, policy, found, read)
    # Paths a table made from part of a word (`kubectl -o go-template-file=F`, `git show
    # HEAD:F`) are no word of the command: each is read where the program runs.
    own = {id(w) for layer in (*cmd.wrapper_words, cmd.words) for w in layer}
    for use in uses:
        made = id(use.word) not in own and use.option != "script"
        if made and use.role in ("read", "upload") and use.word.static:
            key = (use.word.text, True)
            if key not in seen:
                seen.add(key)
                _check_argument(use.word.text, dirs, policy, found)
                _check_outside_read(use.word.text, dirs, policy, config, found)


def _check_trees(
    analysis: ShellAnalysis, policy: CompiledPolicy, found: _Findings, base: str
) -> None:
    """Ask when a program that reads a whole tree would read a denied file in it.

    Only without the sandbox, which masks such files by construction: `grep -r KEY .` on
    the host reads `./.env` although no word names it. A tree too large to look through
    asks too (`tree-unchecked`); a directory outside the roots already asks as a read.
    All the walks of one command share one budget of entries, and a directory is walked
    once however often it is named (`grep -r x . . . .`): the decision stays bounded.
    """
    budget = tree_scan.MAX_TREE_ENTRIES
    walked: set[tuple[str, bool, bool, bool]] = set()
    for cmd in analysis.commands:
        listing = found.listed.get(id(cmd))
        if listing is not None:
            budget = _check_listing(cmd, listing, policy, found, base, budget)
            continue
        walk = walking(cmd.words)
        if walk is None:
            continue
        dirs, uses, _modes = _place(cmd, base, policy, found)
        words = _tree_operands(cmd, walk, uses)
        default = not words and walk.cwd_default
        if default:
            words = [Word(".", True)]
        for word in words:
            if not word.static or is_remote(word):
                continue  # a computed word already asks without the sandbox
            for spelling in _spellings(word.text, dirs):
                full = kernel_path(_absolute(policy, spelling))
                if default and walk.repo_root:
                    full = repository_root(full) or full  # `git add -A`: the whole work tree
                if not os.path.isdir(full):
                    continue
                key = (full, walk.follows, walk.skips_hidden, walk.gitignore)
                if key in walked:
                    continue
                walked.add(key)
                if policy.check_path(full, "read").verdict is not Verdict.ALLOW:
                    continue  # outside the roots or denied: the read checks already said so
                scan = tree_scan.denied_below(
                    policy,
                    full,
                    follow_links=walk.follows,
                    skip_hidden=walk.skips_hidden,
                    skip=ignore_filter(full) if walk.gitignore else None,
                    limit=max(budget, 0),
                    flag=tree_scan.link_objection(policy) if walk.follows else None,
                    names_only=walk.names_only,
                )
                budget -= scan.seen
                verb = "lists every name" if walk.names_only else "reads every file"
                _tree_reasons(cmd, word.text, full, scan, found, verb)
                _followed_out(cmd, word.text, full, scan, found)


def _expand_listings(
    analysis: ShellAnalysis, policy: CompiledPolicy, found: _Findings, base: str
) -> ShellAnalysis:
    """The analysis with each `find ROOTS | xargs PROG` consumer naming the roots instead
    of its stdin words, and each `find ROOTS -exec PROG {} +` instead of its `{}`
    (`listings`), recorded in `found.listed` for `_check_listing`.

    Only after the rules have matched the command as written (a rule never sees a root
    as the path it names), and only when the consumer runs where find runs, reads no tree
    of its own (`xargs grep -r` would walk through links), and its table gives every root
    a role of `LISTED_ROLES`; anything else keeps its stdin words computed.
    """
    pairs = listings(analysis)
    if not pairs:
        return analysis
    commands = list(analysis.commands)
    for pair in pairs:
        cmd = commands[pair.consumer]
        dirs = _place(cmd, base, policy, found)[0]
        where = [resolve_dir(d, base, policy.home) for d in cmd.dirs]
        if None in dirs or dirs != where:
            continue  # the consumer moves (`xargs make -C DIR`): names are find's relative
        if (
            pair.producer is not None
            and _place(commands[pair.producer], base, policy, found)[0] != where
        ):
            continue
        new, roots = listed(cmd, pair)
        if walking(new.words) is not None:
            continue
        uses = _place(new, base, policy, found)[1]
        roles = [{u.role for u in uses if u.word is w} for w in roots]
        if not all(r and r <= LISTED_ROLES for r in roles):
            continue
        access: Literal["read", "write"] = "read"
        if any(r - {"read"} for r in roles):
            access = "write"
        commands[pair.consumer] = new
        found.listed[id(new)] = (roots, access, pair.split_names)
    return dataclasses.replace(analysis, commands=tuple(commands))


MAX_LOOP_VALUES = 64
"""A command in a `for` body is judged once per value of its loop variables, up to this many
values (all loops together); past it, the variable's words stay computed and ask."""


def _expand_loops(
    analysis: ShellAnalysis, policy: CompiledPolicy, found: _Findings, base: str
) -> ShellAnalysis:
    """The analysis with each command whose words are `"$VAR"` of a `for VAR in WORDS`
    judged once per value: a copy of the command for each, with the value in its place.

    The values are static words (or `~/…`), or the matches of a glob over the workspace (expanded
    where the loop runs, as bash does; judged as named paths, as `_workspace_glob` says);
    a loop with any other word keeps its variable computed. Only after the rules have
    matched the command as written, as for listings.
    """
    if not any(cmd.loops for cmd in analysis.commands):
        return analysis
    commands: list[SimpleCommand] = []
    for cmd in analysis.commands:
        copies = _loop_copies(cmd, policy, found, base) if cmd.loops else None
        commands.extend(copies if copies is not None else (cmd,))
    return dataclasses.replace(analysis, commands=tuple(commands))


def _loop_copies(
    cmd: SimpleCommand, policy: CompiledPolicy, found: _Findings, base: str
) -> list[SimpleCommand] | None:
    loops = list(dict.fromkeys(loop for _, loop in cmd.loops))
    values: list[list[str]] = []
    for loop in loops:
        listed_values = _loop_values(loop, policy, base)
        if listed_values is None:
            return None
        values.append(listed_values)
    count = 1
    for v in values:
        count *= len(v)
    if count > MAX_LOOP_VALUES:
        found.add(
            found.ask,
            Reason(
                "loop-too-long",
                cmd.program,
                f"`{_show(cmd)}` runs once for each of {count} values of its loop variables; "
                f"over {MAX_LOOP_VALUES} are not judged one by one",
            ),
        )
        return None
    out: list[SimpleCommand] = []
    for combination in itertools.product(*values):
        chosen = dict(zip(loops, combination, strict=True))
        words = list(cmd.words)
        for k, loop in cmd.loops:
            words[k] = Word(chosen[loop], True)
        out.append(
            dataclasses.replace(
                cmd,
                argv=tuple(w.text for w in words),
                words=tuple(words),
                dynamic=frozenset(k for k, w in enumerate(words) if not w.static),
                loops=(),
            )
        )
    return out


def _loop_values(loop: Loop, policy: CompiledPolicy, base: str) -> list[str] | None:
    """The values a `for` loop's variable takes, or None when they are not all known."""
    where = [resolve_dir(d, base, policy.home) for d in loop.dirs]
    if len(where) != 1 or where[0] is None:
        return None
    here = where[0]
    out: list[str] = []
    for word in loop.words:
        if word.static or word.home:
            out.append(word.text)  # `~/x` is judged as the home directory's `x`
        elif _workspace_glob(word, [here], policy):
            patterns = expand_braces(word.text)
            if patterns is None:
                return None
            for pattern in patterns:
                matches = expand_globs(posixpath.join(here, pattern), list_directory)
                if matches is None:
                    return None
                # No match: bash passes the word itself (no `nullglob`).
                out += [posixpath.relpath(m, here) for m in sorted(matches)] or [pattern]
        else:
            return None
        if len(out) > MAX_LOOP_VALUES:
            out.append("")  # enough to say "too many"
            return out
    return out


def _check_listing(
    cmd: SimpleCommand,
    listing: tuple[tuple[Word, ...], Literal["read", "write"], bool],
    policy: CompiledPolicy,
    found: _Findings,
    base: str,
    budget: int,
) -> int:
    """Judge every entry below the roots of a `find | xargs` consumer; the budget left.

    The consumer opens each name find prints, following links: an entry that is denied,
    a link its access to would not be allowed, any entry it changes without approval
    (for a writer), or a name plain `xargs` would split asks. As for `_check_trees`, a
    root outside the roots already asks as a read, and a tree too large asks.
    """
    roots, access, split = listing
    dirs = _place(cmd, base, policy, found)[0]

    def flag(entry: os.DirEntry[str]) -> str | None:
        if split and not SPLIT_CHARACTERS.isdisjoint(entry.name):
            return "plain `xargs` splits that name at a blank or reads quotes in it"
        if access == "write" or entry.is_symlink():
            check = policy.check_path(entry.path, access)
            if check.verdict is not Verdict.ALLOW:
                return "; ".join(r.message for r in check.reasons)
        return None

    seen: set[str] = set()
    for word in roots:
        # A root outside the roots or denied: the read checks already said so.
        scans, budget = _walk_named(word.text, dirs, policy, "read", seen, budget, flag)
        for full, scan in scans:
            verb = "reads" if access == "read" else "changes"
            _tree_reasons(cmd, word.text, full, scan, found, f"{verb} the files `find` lists")
            for path, why in scan.flagged:
                found.grantable = False
                found.add(
                    found.ask,
                    Reason(
                        "listing-entry",
                        cmd.program,
                        f"`{cmd.program}` {verb} the files `find` lists under `{word.text}`, "
                        f"including `{posixpath.relpath(path, full)}`: {why}",
                    ),
                )
    return budget


def _followed_out(
    cmd: SimpleCommand, operand: str, root: str, scan: TreeScan, found: _Findings
) -> None:
    """Ask for each link a walk that follows links meets leading out of the roots or to a
    denied place (`find -L .` with `./k` a link to `~/.ssh` lists the keys' names)."""
    for path, why in scan.flagged:
        inside = posixpath.relpath(path, root)
        found.add(
            found.ask,
            Reason(
                "path-outside-read",
                cmd.program,
                f"`{cmd.program}` follows links under `{operand}`, and `{inside}` leads out: {why}",
            ),
        )


def _find_operands(words: tuple[Word, ...], start: int) -> list[Word]:
    """find(1)'s starting points: after its global options (`-H`, `-L`, `-P`, `-D LIST`,
    `-O LEVEL`, `--`: `find_roots_at`), up to the first word of the expression (`-…`, `(`,
    `!`)."""
    out: list[Word] = []
    for word in words[find_roots_at(words, start) :]:
        if word.text.startswith(("-", "(", "!", ")", ",")):
            break
        out.append(word)
    return out


def _tree_operands(cmd: SimpleCommand, walk: Walking, uses: list[RoleUse]) -> list[Word]:
    """The words naming the directories a tree-walking command reads."""
    if walk.operands == "find":
        return _find_operands(cmd.words, walk.start)
    if walk.operands == "roles":
        return [u.word for u in uses if u.role in ("read", "upload") and not u.option]
    if walk.operands == "search":
        return [cmd.words[i] for i in search_operands(cmd.words)]
    out: list[Word] = []
    options_done = False
    for word in cmd.words[walk.start :]:
        if not options_done and word.text == "--":
            options_done = True
        elif options_done or not word.text.startswith("-"):
            out.append(word)
    return out


def _check_deleted_trees(
    analysis: ShellAnalysis, policy: CompiledPolicy, found: _Findings, base: str
) -> None:
    """Ask when deleting a directory would remove a protected or denied entry below it.

    Only without the sandbox, which mounts protected paths read-only by construction:
    `rm -rf .` or `find . -delete` on the host removes `./.git` although no word names it.
    Every entry below each directory a command deletes (`rm -r`, `find -delete`, `rsync
    --delete`, `git rm -r`) is judged as a write: a protected or denied one asks, and a tree
    too large to look through asks (`tree-unchecked`). The walks of one command share one
    budget of entries, and a directory is walked once however often it is named.
    """
    budget = tree_scan.MAX_TREE_ENTRIES
    walked: set[str] = set()

    flag = tree_scan.write_objection(policy)

    for cmd in analysis.commands:
        dirs, uses, modes = _place(cmd, base, policy, found)
        unpacks = UNPACKS in modes
        for use in uses:
            deletes = use.role == "delete"
            if not (deletes or (unpacks and use.role == "write")) or not use.word.static:
                continue  # a computed word already asks without the sandbox
            # The directory itself, when it asks or is denied, already said so. An archive
            # unpacked into a directory may write any name below it (`.git/hooks/…`).
            scans, budget = _walk_named(use.word.text, dirs, policy, "write", walked, budget, flag)
            verb = "deletes everything" if deletes else "unpacks members of any name"
            what = (
                "deletes `{}` and everything below it"
                if deletes
                else ("unpacks an archive into `{}`, whose members may be named anything below it")
            )
            for full, scan in scans:
                _tree_reasons(cmd, use.word.text, full, scan, found, verb)
                for path, why in scan.flagged:
                    found.grantable = False
                    inside = posixpath.relpath(path, full)
                    found.add(
                        found.ask,
                        Reason(
                            "tree-holds-protected",
                            cmd.program,
                            f"`{cmd.program}` {what.format(use.word.text)}, including "
                            f"`{inside}`: {why}; without the sandbox nothing keeps it",
                        ),
                    )


def _walk_named(
    text: str,
    dirs: list[str | None],
    policy: CompiledPolicy,
    access: Literal["read", "write"],
    walked: set[str],
    budget: int,
    flag: Callable[[os.DirEntry[str]], str | None],
) -> tuple[list[tuple[str, TreeScan]], int]:
    """Walk each directory the word `text` names (once per command: `walked`) whose own
    `access` the policy allows; the scans and the budget of entries left."""
    scans: list[tuple[str, TreeScan]] = []
    for spelling in _spellings(text, dirs):
        full = kernel_path(_absolute(policy, spelling))
        if full in walked or not os.path.isdir(full):
            continue
        walked.add(full)
        if policy.check_path(full, access).verdict is not Verdict.ALLOW:
            continue
        scan = tree_scan.denied_below(
            policy, full, follow_links=False, skip_hidden=False, limit=max(budget, 0), flag=flag
        )
        budget -= scan.seen
        scans.append((full, scan))
    return scans, budget


def _tree_reasons(
    cmd: SimpleCommand,
    operand: str,
    root: str,
    scan: TreeScan,
    found: _Findings,
    verb: str = "reads every file",
) -> None:
    program = cmd.program
    for path, rule in scan.denied:
        inside = posixpath.relpath(path, root)
        found.add(
            found.ask,
            Reason(
                "tree-holds-denied",
                rule,
                f"`{program}` {verb} under `{operand}`, including `{inside}` "
                f"(denied by `{rule}`); without the sandbox nothing hides it",
            ),
        )
    if not scan.complete:
        found.add(
            found.ask,
            Reason(
                "tree-unchecked",
                program,
                f"`{program}` {verb} under `{operand}`: more entries than the "
                f"{tree_scan.MAX_TREE_ENTRIES} one command's walks may look through for "
                "denied files without the sandbox",
            ),
        )


def _workspace_read(
    policy: CompiledPolicy, config: SafetyConfig
) -> tuple[tuple[Reason, ...], tuple[Reason, ...]]:
    """What reading the workspace itself asks and denies (nothing, unless `allowed_paths`
    leaves it out; then a denial with `outside_reads = "deny"`).

    Remembered per compiled policy: the policy already fixed where the workspace resolves
    when it was compiled (its patterns are spelled with that), and moving the workspace
    itself is a change outside the roots, which is never allowed unasked.
    """
    known = _WORKSPACE_READ.get(id(policy))
    if known is not None and known[0] is policy and known[1] is config:
        return known[2]
    found = _Findings([], [])
    if not private_scratch(policy.workspace + "/x", config, policy.home):
        _check_outside_read(policy.workspace, [policy.workspace], policy, config, found)
    reasons = (tuple(found.ask), tuple(found.deny))
    remember(_WORKSPACE_READ, id(policy), (policy, config, reasons), 16)
    return reasons


_WORKSPACE_READ: OrderedDict[
    int,
    tuple[CompiledPolicy, SafetyConfig, tuple[tuple[Reason, ...], tuple[Reason, ...]]],
] = OrderedDict()


def _workspace_read_on_host(
    policy: CompiledPolicy, config: SafetyConfig
) -> tuple[tuple[Reason, ...], tuple[Reason, ...]]:
    """`_workspace_read` as a host run judges it (no private `/tmp`), remembered likewise."""
    known = _WORKSPACE_READ_HOST.get(id(policy))
    if known is not None and known[0] is policy and known[1] is config:
        return known[2]
    reasons = _workspace_read(policy, config.without_sandbox())
    remember(_WORKSPACE_READ_HOST, id(policy), (policy, config, reasons), 16)
    return reasons


_WORKSPACE_READ_HOST: OrderedDict[
    int,
    tuple[CompiledPolicy, SafetyConfig, tuple[tuple[Reason, ...], tuple[Reason, ...]]],
] = OrderedDict()


def _paths_of(words: tuple[Word, ...]) -> list[Word]:
    """The words of one command layer that may name files: all but its search patterns."""
    patterns = pattern_words(words)
    return [w for i, w in enumerate(words) if i not in patterns]


def _makes_links(cmd: SimpleCommand) -> bool:
    """`ln`, `link`, `cp -s/-l` (and their long forms): the command creates a link."""
    if cmd.program in ("ln", "link"):
        return True
    return cmd.program == "cp" and copies_as_links(cmd.words)


def _redirect_reason(op: str, reason: Reason) -> Reason:
    return Reason(reason.code, reason.rule, f"redirection `{op}`: {reason.message}")


def _path_candidates(word: Word) -> list[str]:
    """The parts of a word that may name a file: itself, `--opt=PATH`, `if=PATH`, `@PATH`."""
    text = word.text
    if not word.static:
        for home in ("$HOME", "${HOME}"):
            if text.startswith(home):
                text = "~" + text[len(home) :]
        # Other computed words: only a literal tail can be judged (`$X/.ssh/id_rsa`).
        if "/" not in text and "~" not in text and not has_expansion(text):
            return []
    out: list[str] = []
    if not text.startswith("-"):
        out.append(text)
    if "=" in text:
        out.append(text.split("=", 1)[1])
    if text.startswith("-") and not text.startswith("--") and len(text) > 2:
        # A value attached to a short option: `grep -f.env`, `curl -d@.env`, `-T~/.ssh/k`.
        rest = text[2:]
        start = next((i for i, c in enumerate(rest) if c in "/~.@<"), None)
        if start is not None:
            out.append(rest[start:])
    # curl's `-d @file`, `-F name=@file` and `-F 'name=<file'` read the file.
    out.extend(c[1:] for c in list(out) if c.startswith(("@", "<")))
    return [c for c in out if c]


def _check_argument(
    text: str, dirs: list[str | None], policy: CompiledPolicy, found: _Findings
) -> None:
    path_like = "/" in text or text.startswith(("~", "."))
    for spelling in _spellings(text, dirs):
        if not path_like and not _exists(policy, spelling, found):
            continue
        for reason in policy.check_denied(spelling):
            if reason.code == "path-denied":
                found.add(
                    found.deny,
                    Reason(reason.code, reason.rule, f"command argument: {reason.message}"),
                )
            else:
                found.add(
                    found.ask,
                    Reason(reason.code, reason.rule, f"command argument: {reason.message}"),
                )


# Devices every program may read: they hold no file data (`/dev/stdin` and kin are magic
# aliases, judged by `check_denied`).
_HARMLESS_DEVICES = frozenset({"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty"})


def _check_outside_read(
    text: str,
    dirs: list[str | None],
    policy: CompiledPolicy,
    config: SafetyConfig,
    found: _Findings,
) -> None:
    """Ask when an argument names a place outside the allowed and read-only roots.

    Only places outside count (absolute, `~`, `..` out of the workspace, or any relative
    path after a `cd` out of it); a `/tmp/…` path in the sandbox's private `/tmp` is
    scratch, not the host's.
    """
    if private_scratch(text, config, policy.home):
        return
    path_like = "/" in text or text.startswith("~") or text in (".", "..")
    for spelling in _spellings(text, dirs):
        if not path_like and not _exists(policy, spelling, found):
            continue  # a bare word is a path only if such a file exists
        if kernel_path(_absolute(policy, spelling)) in _HARMLESS_DEVICES:
            continue
        check = policy.check_path(spelling, "read")
        if check.verdict is not Verdict.ALLOW:
            # ASK, or DENY with `outside_reads = "deny"` (denied paths are judged elsewhere).
            bucket = found.deny if check.verdict is Verdict.DENY else found.ask
            for reason in check.reasons:
                if reason.code == "path-outside-read":
                    message = f"command argument: {reason.message}"
                    found.add(bucket, Reason(reason.code, reason.rule, message))


def _check_expansions(
    text: str,
    dirs: list[str | None],
    policy: CompiledPolicy,
    found: _Findings,
    read: SafetyConfig | None = None,
) -> None:
    # Bash expands braces and globs before the program runs: `tar cf x ~/.gnup?` reads
    # ~/.gnupg. Check every path the word expands to now; too many to check is an ASK.
    # `read`: the word is an operand the program opens, so each match is also a read,
    # judged against the roots where it really is (`head docs/*` through a link `docs`
    # to the home directory reads outside them).
    words = expand_braces(text)
    unknown = words is None
    for word in words or ():
        for spelling in _spellings(word, dirs):
            matches = expand_globs(_absolute(policy, spelling), list_directory)
            if matches is None:
                unknown = True
                continue
            for match in matches:
                for reason in policy.check_denied(match):
                    message = f"command argument `{text}` expands to `{match}`: {reason.message}"
                    target = found.deny if reason.code == "path-denied" else found.ask
                    found.add(target, Reason(reason.code, reason.rule, message))
                if read is not None:
                    _check_outside_read(match, [match], policy, read, found)
    if unknown:
        found.add(
            found.ask,
            Reason(
                "glob-unchecked",
                text,
                f"command argument `{text}` expands to more paths than can be checked",
            ),
        )


def _absolute(policy: CompiledPolicy, path: str) -> str:
    if path.startswith("/"):
        return path
    if path == "~" or path.startswith("~/"):
        return policy.home + path[1:]
    return posixpath.join(policy.workspace, path)


def _exists(policy: CompiledPolicy, path: str, found: _Findings) -> bool:
    # A bare word (`credentials`) is a path only if such a file exists; one lstat, no read,
    # once per assessment (the denied and the outside-read checks both ask).
    known = found.exists.get(path)
    if known is None:
        full = _absolute(policy, path)
        try:
            known = os.path.lexists(full)
        except (OSError, ValueError):
            known = True  # cannot tell: check it as a path
        found.exists[path] = known
    return known


def _without_outside(check: PathCheck) -> PathCheck:
    """`check` without its outside-the-roots reason (a write into the private /tmp)."""
    reasons = tuple(r for r in check.reasons if r.code != "path-outside-allowed")
    if len(reasons) == len(check.reasons):
        return check
    verdict = Verdict.ALLOW
    if any(r.code == "path-protected" for r in reasons):
        verdict = Verdict.ASK
    if any(r.code != "path-protected" for r in reasons):
        verdict = Verdict.DENY
    return PathCheck(verdict, reasons, check.canonical)


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
    rules = compile_rules(config.command_rules)
    dirs: list[str | None] = [base]
    for cmd in analysis.commands:
        dirs.extend(d for d in _place(cmd, base, policy, found)[0] if d not in dirs)
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
    for code in (*analysis.code, *scripts, *written):
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
        for layer in (*cmd.wrapper_words, cmd.words)
        for w in layer
        if w.static and "://" in w.text
    ]
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
"""URLs read out of one command's words and code; past them the command asks."""


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


# Programs that never open the files their arguments name: a computed argument is data.
_NO_FILES = frozenset(
    {
        "echo", "printf", "true", "false", "test", "[", "expr", "seq", "sleep", "basename",
        "dirname", "exit", "return", "shift", "set", "unset", "export", "local", "declare",
        "typeset", "readonly", "let", ":", "wait", "cd", "pushd", "popd", "kill",
    }
)  # fmt: skip
_NO_FILES_OR_CD = _NO_FILES | _CD
_CHANGES = frozenset({"write", "delete", "perm", "mount"})


def _add(found: _Findings, finding: Finding) -> None:
    found.add(found.deny if finding.verdict is Verdict.DENY else found.ask, finding.reason)
    if not finding.grantable:
        found.grantable = False


def _check_roles(
    analysis: ShellAnalysis,
    policy: CompiledPolicy,
    config: SafetyConfig,
    found: _Findings,
    base: str,
) -> None:
    """Judge every role each command gives a word (see `roles`), and its classes.

    A word computed at run time has no path to judge: where nothing confines the command,
    `_check_computed` asks for it (the host's only addition here, so a sandboxed pass can
    tell the host's view: `_host_findings`).
    """
    for cmd in analysis.commands:
        for layer in (*cmd.wrapper_words, cmd.words):
            for verdict, reason in class_reasons(layer, stdin_fed=cmd.stdin_fed):
                _add(found, Finding(verdict, reason, verdict is not Verdict.DENY))
        dirs, uses, modes = _place(cmd, base, policy, found)
        program = cmd.program
        for use in [*uses, *_variable_destinations(cmd)]:
            if use.role in _CHANGES:
                _judge_change_use(use, program, modes, dirs, policy, config, found)
            elif use.role == "read":
                if (use.word.static or use.word.home) and use.option == "script":
                    # A file named inside a script (`sed 'r F'`, awk `getline < F`) is no
                    # word of its own: judged as an argument the program reads is.
                    _check_argument(use.word.text, dirs, policy, found)
                    _check_outside_read(use.word.text, dirs, policy, config, found)
            else:
                for finding in judge_use(use, program, cmd.stdin_fed, config):
                    _add(found, finding)
    if config.sandbox.mode == "none":
        _check_computed(analysis, policy, found, base)


def _check_computed(
    analysis: ShellAnalysis, policy: CompiledPolicy, found: _Findings, base: str
) -> None:
    """Unconfined, a word computed at run time in a role that reads or changes files may be
    any path: it asks (`computed-path`), unless it is a glob over the workspace, whose
    matches are judged instead. So does a computed argument of a program without roles."""
    for cmd in analysis.commands:
        dirs, uses, _ = _place(cmd, base, policy, found)
        program = cmd.program
        # A glob's matches are judged as paths, but a tree walk below them is not looked
        # through (`grep -r KEY src/*`): for a walker a glob stays an unknown path. Nor
        # under xargs or `find -exec`: the words they fill in (`{}`, `xargs -I '*'`) look
        # like globs but are whatever they read at run time.
        globs = walking(cmd.words) is None and not _fills_words(cmd)
        for use in [*uses, *_variable_destinations(cmd)]:
            if use.role in _CHANGES:
                # A computed mount source asks even in the sandbox (`_judge_change_use`).
                computed = use.role != "mount" and _computed_change(use.word)
            else:
                computed = use.role == "read" and not (
                    use.word.static
                    or use.word.home
                    or (globs and _workspace_glob(use.word, dirs, policy))
                )
            if computed:
                _add(found, _computed(program, use))
        if cmd.words and program not in _NO_FILES and not uses:
            # Nothing confines an unknown program's computed arguments: each may be a path.
            for w in cmd.words[1:]:
                if not (w.static or w.home or (globs and _workspace_glob(w, dirs, policy))):
                    _add(found, _computed(program, RoleUse("read", w)))
                    break


def _check_flows(
    analysis: ShellAnalysis,
    policy: CompiledPolicy,
    config: SafetyConfig,
    found: _Findings,
    base: str,
) -> None:
    """Files written then run, paths through new links, within one line (`flows`)."""
    flow = follow(analysis, lambda c: _place(c, base, policy, found)[:2], base, policy.home)
    for reason in flow.asks:
        _add(found, Finding(Verdict.ASK, reason, False))
    for t in flow.through:
        if t.role in _CHANGES:
            for finding in judge_change(
                t.path, t.role, program=t.program, modes=frozenset(), policy=policy,
                config=config, spelled=t.spelled,
            ):  # fmt: skip
                _add(found, finding)
        else:
            _check_argument(t.path, [base], policy, found)


# Commands whose own words set variables (`export NAME=VALUE`), as assignments do.
_SETTERS = frozenset({"export", "env", "declare", "typeset", "local", "readonly"})


def _variable_destinations(cmd: SimpleCommand) -> list[RoleUse]:
    """`http_proxy=URL curl …`, `export ALL_PROXY=URL`: the proxy or index is a destination."""
    settings = list(cmd.assignments)
    if cmd.program in _SETTERS:
        settings += [w.text for w in cmd.words[1:] if w.static]
    out = []
    for setting in settings:
        name, eq, value = setting.partition("=")
        if eq and name in URL_VARIABLES and value:
            static = not any(c in value for c in "$`")
            out.append(RoleUse("network", Word(value, static), name))
    return out


def _fills_words(cmd: SimpleCommand) -> bool:
    """True when a wrapper layer fills words in at run time (`xargs -I{}`, `find -exec`)."""
    return any(layer and program_name(layer[0]) in _FILLERS for layer in cmd.wrapper_words)


_FILLERS = frozenset({"xargs", "find"})


def _workspace_glob(word: Word, dirs: list[str | None], policy: CompiledPolicy) -> bool:
    """A glob that bash expands against the workspace only (`src/*.py`, `*.{c,h}`).

    Its matches are listed and judged like named paths (`_check_expansions`: a denied match
    denies, too many to list asks), so it is no unknown path: no `$`, no backquote, no `~`,
    relative, no `..`, from directories that are all known and inside the workspace.
    """
    text = word.text
    if word.static or not has_expansion(text) or any(c in text for c in "$`~\\'\""):
        return False
    parts = text.split("/")
    if text.startswith("/") or ".." in parts:
        return False
    if any(p.startswith(".") and has_expansion(p) for p in parts):
        return False  # `.*` may match `.` and `..`

    return all(d is not None and _inside(d, policy.workspace) for d in dirs)


def _computed(program: str, use: RoleUse) -> Finding:
    return Finding(
        Verdict.ASK,
        Reason(
            "computed-path",
            f"{program} {use.word.text[:40]}",
            f"`{program}` {use.role}s `{use.word.text}`, a path computed at run time, and "
            "no sandbox confines it (sandbox.mode is none)",
        ),
        False,
    )


def _tilde_form(text: str) -> str | None:
    """`$HOME/x`, `${HOME}/x`, `~/x` spelled as `~/x`; None for any other computed text."""
    for home in ("$HOME", "${HOME}", "~"):
        if text == home or text.startswith(home + "/"):
            return "~" + text[len(home) :]
    return None


def _computed_change(word: Word) -> bool:
    """A word a program writes or deletes that no check can judge: computed at run time
    and not a `$HOME` spelling (`_judge_change_use`)."""
    return not (word.static or word.home) and _tilde_form(word.text) is None


def _judge_change_use(
    use: RoleUse,
    program: str,
    modes: frozenset[str],
    dirs: list[str | None],
    policy: CompiledPolicy,
    config: SafetyConfig,
    found: _Findings,
) -> None:
    word = use.word
    source = _mount_source(word.text) if use.role == "mount" else word.text
    if source is None:
        return  # a named volume, not a host path
    text = source
    if not (word.static or word.home):
        home = _tilde_form(text)
        if home is None:
            if use.role == "mount":  # a computed bind mount: even in the sandbox
                _add(found, _computed(program, use))
            return  # else unconfined only: `_check_computed`
        text = home
    if not text.startswith(("/", "~")) and None in dirs and use.role != "mount":
        _add(
            found,
            Finding(
                Verdict.ASK,
                Reason(
                    "change-after-cd",
                    f"{program} {text[:40]}",
                    f"`{program}` {use.role}s `{text}`, relative to a directory computed at "
                    "run time",
                ),
                False,
            ),
        )
    for full in (f for spelling in _spellings(text, dirs) for f in _reached(spelling, policy)):
        for finding in judge_change(
            full,
            use.role,
            program=program,
            modes=modes,
            policy=policy,
            config=config,
            spelled=text,
        ):
            _add(found, finding)


def _reached(spelling: str, policy: CompiledPolicy) -> list[str]:
    """The places a path word names: as spelled (normalised), and, when it differs, where
    the kernel takes it (`link/../x` is beside the link's target: `paths.kernel_path`)."""
    spelled = resolve_dir(spelling, policy.workspace, policy.home) or policy.workspace
    real = resolve_chdir(spelling, policy.workspace, policy.home)
    return [spelled] if real == spelled else [spelled, real]


def _mount_source(value: str) -> str | None:
    """The host side of `-v SRC:DST[:opts]` or `--mount type=bind,source=SRC,…`.

    A volume of the `local` driver with `volume-opt=device=DIR` (and `o=bind`) is a bind
    mount of DIR, whatever its name (`--mount type=volume,src=v,volume-opt=device=/`).
    """
    parts = [part.partition("=") for part in value.split(",")]
    for key, _, v in parts:
        if key == "volume-opt" and v.startswith("device="):
            return v[len("device=") :]
    if "source=" in value or "src=" in value:
        for key, _, v in parts:
            if key in ("source", "src"):
                return v
        return None
    src = value.split(":", 1)[0]
    return src if src.startswith(("/", "~", ".", "$")) else None
