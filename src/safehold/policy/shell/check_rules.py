"""Command rules, text rules and commands hidden in other commands' arguments.

The user's and the built-in rules (`rules`) match every simple command and wrapper layer,
also with `$HOME`/`~` spelled the other way; an allow rule that covers every command is
the user's own word. A command line in an argument (`git -c alias…`, a `--exec` value) is
read as a command too.
"""

from __future__ import annotations

import functools
import posixpath
import re
import shlex
from collections import OrderedDict
from typing import TYPE_CHECKING

from safehold.policy.config import CommandRule, SafetyConfig
from safehold.policy.decision import Reason, Verdict
from safehold.policy.shell.analysis import ShellAnalysis, SimpleCommand, analyze
from safehold.policy.shell.findings import _Findings, _inside, _once, _place, _show
from safehold.policy.shell.programs.classes import spellings
from safehold.policy.shell.programs.shells import SHELLS
from safehold.policy.shell.programs.step import program_name
from safehold.policy.shell.rules import CompiledRules, compile_rules
from safehold.policy.shell.words import Word

if TYPE_CHECKING:
    from safehold.policy.paths import CompiledPolicy


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
    for cmd in analysis.commands:
        bases = tuple(d for d in _place(cmd, base, policy, found)[0] if d is not None)
        # Everything `_command_rules` reads, by value (it opens no file): a command seen
        # before, in this decision's other pass or in an earlier text, is not matched again.
        key = (
            cmd.words, cmd.wrapper_words, bool(cmd.assignments), bases, id(rules),
            policy.home, policy.workspace,
        )  # fmt: skip
        allowed = _once(
            _RULES_BY_VALUE, key, (rules,), found, _command_rules, cmd, bases, rules, policy,
            size=_RULES_SIZE,
        )  # fmt: skip
        if allows is not None:
            allows = None if allowed is None else [*allows, allowed]
    return allows


_RULES_BY_VALUE: OrderedDict[object, object] = OrderedDict()
_RULES_SIZE = 1024


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
        uncertain: list[CommandRule] = []
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
                uncertain.append(m.rule)
            else:
                found.add(
                    found.ask,
                    Reason(
                        "command-ask-rule",
                        m.rule.pattern,
                        f"`{_show(layer)}` matches ask rule `{m.rule.pattern}`{why}",
                    ),
                )
        if uncertain:
            found.add(found.ask, _may_be_denied(_show(layer), uncertain))
    _check_hidden_commands(cmd, rules, found)
    rule = rules.allow_match(cmd.words) if cmd.words and not cmd.assignments else None
    if rule is None:
        return None
    return Reason(
        "command-allowed", rule.pattern, f"`{_show(cmd)}` matches allow rule `{rule.pattern}`"
    )


def _may_be_denied(shown: str, rules: list[CommandRule]) -> Reason:
    """One reason for every deny rule a command's computed words could make it match
    (`rm -rf $f` and the 19 built-in recursive-delete rules): the first three named."""
    names = ", ".join(f"`{r.pattern}`" for r in rules[:3])
    if len(rules) == 1:
        what = f"deny rule {names}"
    else:
        more = f" and {len(rules) - 3} more" if len(rules) > 3 else ""
        what = f"{len(rules)} deny rules: {names}{more}"
    reasons = {r.reason for r in rules}
    why = f" ({rules[0].reason})" if len(reasons) == 1 and rules[0].reason else ""
    return Reason(
        "command-may-be-denied",
        rules[0].pattern,
        f"`{shown}` has computed words that could make it match {what}{why}",
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
