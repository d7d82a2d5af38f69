"""Every path a command names, judged by the path policy (`paths.CompiledPolicy`).

Redirections, each word that may be a path (with every spelling bash may expand it to),
the paths a table made from part of a word, globs expanded against the workspace, and the
directory a program runs in: denied paths deny, protected ones ask, reads outside the
roots ask (or deny with `outside_reads = "deny"`). `_workspace_read` is the rule for the
workspace itself (`outside_reads`, a workspace under `/tmp`), which every check that
reads a directory asks.
"""

from __future__ import annotations

import functools
import os
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from safehold.policy._globs import expand_braces, expand_globs, has_expansion
from safehold.policy._memo import remember
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Reason, Verdict
from safehold.policy.paths import PathCheck, kernel_path, list_directory
from safehold.policy.shell.analysis import ShellAnalysis, SimpleCommand
from safehold.policy.shell.findings import _CD, _Findings, _once, _place, _show, _spellings
from safehold.policy.shell.flows import carries_links
from safehold.policy.shell.locations import resolve_dir
from safehold.policy.shell.programs.containers import OTHER_PLACES
from safehold.policy.shell.programs.files import copies_as_links
from safehold.policy.shell.programs.search import (
    pattern_words,
)
from safehold.policy.shell.programs.step import program_name
from safehold.policy.shell.programs.table import (
    RoleUse,
)
from safehold.policy.shell.sandboxed import (
    private_scratch,
    runs_sandboxed,
)
from safehold.policy.shell.words import Word

if TYPE_CHECKING:
    from safehold.policy.paths import CompiledPolicy


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
    linker = None
    if analysis.redirects:
        linker = next(
            (
                c
                for c, place in placed
                if _makes_links(c) or carries_links(c, place[0], place[1], policy.home)
            ),
            None,
        )
    if linker is not None:
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
    if not uses:
        return
    own = {id(w) for layer in (*cmd.wrapper_words, cmd.words) for w in layer}
    for use in uses:
        made = id(use.word) not in own and use.option != "script"
        if made and use.role in ("read", "upload") and use.word.static:
            key = (use.word.text, True)
            if key not in seen:
                seen.add(key)
                _check_argument(use.word.text, dirs, policy, found)
                _check_outside_read(use.word.text, dirs, policy, config, found)


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


@functools.lru_cache(maxsize=4096)
def _path_candidates(word: Word) -> tuple[str, ...]:
    """The parts of a word that may name a file: itself, `--opt=PATH`, `if=PATH`, `@PATH`.

    A pure function of the word's value (a named tuple): remembered.
    """
    text = word.text
    if not word.static:
        for home in ("$HOME", "${HOME}"):
            if text.startswith(home):
                text = "~" + text[len(home) :]
        # Other computed words: only a literal tail can be judged (`$X/.ssh/id_rsa`).
        if "/" not in text and "~" not in text and not has_expansion(text):
            return ()
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
    return tuple(c for c in out if c)


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
    ws = policy.workspace  # `posixpath.join(ws, path)`, `path` not starting with `/`
    return ws + path if not ws or ws[-1] == "/" else ws + "/" + path


def _exists(policy: CompiledPolicy, path: str, found: _Findings) -> bool:
    # A bare word (`credentials`) is a path only if such a file exists; one lstat, no read,
    # once per assessment (the denied and the outside-read checks both ask).
    known = found.exists.get(path)
    if known is None:
        try:
            os.lstat(_absolute(policy, path))
            known = True
        except FileNotFoundError:
            known = False
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


# Programs that never open the files their arguments name: a computed argument is data.
_NO_FILES = frozenset(
    {
        "echo", "printf", "true", "false", "test", "[", "expr", "seq", "sleep", "basename",
        "dirname", "exit", "return", "shift", "set", "unset", "export", "local", "declare",
        "typeset", "readonly", "let", ":", "wait", "cd", "pushd", "popd", "kill",
    }
)  # fmt: skip
_NO_FILES_OR_CD = _NO_FILES | _CD
