"""On the host, the words a command takes at run time, where the analysis can list them.

A `find ROOTS | xargs PROG` consumer names the roots instead of its stdin words
(`listings`), and a command inside `for VAR in WORDS` is judged once per value
(`"$VAR"`). Only for the host's pass, after the rules matched the command as written;
anything else keeps its computed words.
"""

from __future__ import annotations

import dataclasses
import itertools
import posixpath
from typing import TYPE_CHECKING, Literal

from safehold.policy._globs import expand_braces, expand_globs
from safehold.policy.decision import Reason
from safehold.policy.paths import list_directory
from safehold.policy.shell.analysis import ShellAnalysis, SimpleCommand
from safehold.policy.shell.check_roles import _workspace_glob
from safehold.policy.shell.findings import _Findings, _place, _show
from safehold.policy.shell.listings import LISTED_ROLES, listed, listings
from safehold.policy.shell.locations import resolve_dir
from safehold.policy.shell.parse import Loop
from safehold.policy.shell.programs.trees import walking
from safehold.policy.shell.words import Word

if TYPE_CHECKING:
    from safehold.policy.paths import CompiledPolicy


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


def _expand_loops(
    analysis: ShellAnalysis,
    policy: CompiledPolicy,
    found: _Findings,
    base: str,
    sandboxed: bool = False,
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
        copies = _loop_copies(cmd, policy, found, base, sandboxed) if cmd.loops else None
        commands.extend(copies if copies is not None else (cmd,))
    return dataclasses.replace(analysis, commands=tuple(commands))


def _loop_copies(
    cmd: SimpleCommand, policy: CompiledPolicy, found: _Findings, base: str, sandboxed: bool
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
        # Sandboxed, the variable stays computed (which the sandbox allows); the host asks.
        found.add(
            found.host_asks if sandboxed else found.ask,
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
