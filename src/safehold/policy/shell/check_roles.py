"""The role each command gives each word (`programs`), judged (`roles`), and the flows.

Writes, deletes, mounts and network destinations of every word with a role; words
computed at run time, which only the host asks for (`_check_computed`); files written and
then run or read through new links within the line (`flows`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from safehold.policy._globs import has_expansion
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Reason, Verdict
from safehold.policy.shell.analysis import ShellAnalysis, SimpleCommand
from safehold.policy.shell.check_paths import _NO_FILES, _check_argument, _check_outside_read
from safehold.policy.shell.findings import _add, _Findings, _inside, _place, _spellings
from safehold.policy.shell.flows import follow
from safehold.policy.shell.locations import resolve_chdir, resolve_dir
from safehold.policy.shell.programs.classes import class_reasons
from safehold.policy.shell.programs.network import URL_VARIABLES
from safehold.policy.shell.programs.step import program_name
from safehold.policy.shell.programs.table import (
    RoleUse,
)
from safehold.policy.shell.programs.trees import walking
from safehold.policy.shell.roles import Finding, judge_change, judge_use
from safehold.policy.shell.words import Word

if TYPE_CHECKING:
    from safehold.policy.paths import CompiledPolicy

_CHANGES = frozenset({"write", "delete", "perm", "mount"})


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
    sandboxed: bool = False,
) -> None:
    """Files written then run, paths through new links, within one line (`flows`)."""
    flow = follow(analysis, lambda c: _place(c, base, policy, found)[:2], base, policy.home)
    for reason in flow.asks:
        _add(found, Finding(Verdict.ASK, reason, False))
    for reason in flow.host_asks:
        found.add(found.host_asks if sandboxed else found.ask, reason)
    for t in flow.through:
        if not t.path:
            reason = Reason(
                "tree-unchecked",
                t.program,
                f"`{t.spelled}` is below a folder an earlier step copied or moved, too large "
                "to look through for the links it carries, so where it lands is not known",
            )
            _add(found, Finding(Verdict.ASK, reason, False))
        elif t.role in _CHANGES:
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
