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

The checks live in modules of their own, in the order `_assess` runs them: `check_rules`
(command and text rules), `expand` (listings and loops), `check_paths`,
`check_code`, `check_roles` (roles, computed words, flows) and `check_trees` (the host's
tree walks); `findings` holds what they share. This module draws the verdict, and tells
the host's view from a sandboxed pass where one pass can (`CommandAssessment.host_view`).
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Reason, Verdict
from safehold.policy.grants import command_grant_key
from safehold.policy.paths import looked_checks
from safehold.policy.program_config import declared_tables
from safehold.policy.shell.analysis import ShellAnalysis, analyze
from safehold.policy.shell.check_code import (
    _check_code,
    _check_spelled_urls,
    _own_module,
    _read_python,
)
from safehold.policy.shell.check_paths import _check_paths, _workspace_read, _workspace_read_on_host
from safehold.policy.shell.check_roles import (
    _SETTERS,
    _check_computed,
    _check_flows,
    _check_roles,
    _variable_destinations,
)
from safehold.policy.shell.check_rules import _apply_rules, _apply_text_rules
from safehold.policy.shell.check_tracked import _check_restored, _check_tracked
from safehold.policy.shell.check_trees import _check_deleted_trees, _check_trees
from safehold.policy.shell.crosscheck import disagreement
from safehold.policy.shell.effects import expanded_effects, host_effects
from safehold.policy.shell.expand import _expand_listings, _expand_loops
from safehold.policy.shell.findings import _add, _Findings, _place, _sorted
from safehold.policy.shell.hazards import hazards
from safehold.policy.shell.judge import judge
from safehold.policy.shell.locations import resolve_chdir
from safehold.policy.shell.parse import is_plain_text, plain_heredoc_words, plain_words
from safehold.policy.shell.sandboxed import (
    SANDBOXED_CODE,
    runs_sandboxed,
)

if TYPE_CHECKING:
    from safehold.policy.paths import CompiledPolicy


__all__ = ["CommandAssessment", "assess_command"]

# Not commands at all: DENY rather than ASK (there is nothing for a person to approve).
_INVALID = frozenset({"invalid-command", "empty-command"})


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
    # Both passes judge what a loop's variable and a listing's `{}` stand for, so the
    # sandboxed pass can tell the host's view (`_same_on_host`).
    analysis = _expand_listings(analysis, policy, found, base)
    analysis = _expand_loops(analysis, policy, found, base, sandboxed)
    _check_paths(analysis, policy, found, config, base)
    _check_tracked(analysis, policy, found, base)  # git's store: no sandbox masks it
    _check_code(analysis, policy, config, found, base)
    _check_roles(analysis, policy, config, found, base)
    _check_flows(analysis, policy, config, found, base, sandboxed)
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
    _check_restored(analysis, policy, found, base)
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
    not read from outside. Both passes expand a loop's `"$VAR"` and a listing's `{}` to the
    words they take (`_expand_loops`, `_expand_listings`), so a loop value spelling `/tmp`
    counts as such a word. Conservative: any of them, in any spelling, and the host is
    judged by a second pass. What only the host adds on top
    of the same analysis (the closed world, computed words, tree walks) is added by
    `_host_findings`.
    """
    if analysis.opaque or (
        analysis.redirects and any("/tmp" in r.target for r in analysis.redirects)
    ):
        return False
    if _workspace_read(policy, config) != _workspace_read_on_host(policy, config):
        return False
    if any(
        "/tmp" in w.text
        for cmd in analysis.commands
        if cmd.loops
        for _, loop in cmd.loops
        for w in loop.words
    ):
        return False  # a loop value the sandbox may read as its private `/tmp`
    for cmd in analysis.commands:
        # `argv` and `wrappers` are the words' texts; NUL (in no word) keeps them apart.
        if "/tmp" in "\0".join(cmd.argv) or any("/tmp" in "\0".join(w) for w in cmd.wrappers):
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
    host.exists, host.declared, host.listed = found.exists, found.declared, found.listed
    for reason in found.host_asks:
        host.add(host.ask, reason)
    _check_computed(analysis, policy, host, base)
    _closed_world(analysis, config, host, allow_reasons, policy, base)
    _check_trees(analysis, policy, host, base)
    _check_deleted_trees(analysis, policy, host, base)
    _check_restored(analysis, policy, host, base)
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
    if analysis.expanded:
        for finding in judge(expanded_effects(analysis.expanded), unconfined=True):
            _add(found, finding)


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


"""A command in a `for` body is judged once per value of its loop variables, up to this many
values (all loops together); past it, the variable's words stay computed and ask."""
"""URLs read out of one command's words and code; past them the command asks."""
