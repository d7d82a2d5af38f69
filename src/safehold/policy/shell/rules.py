"""Compile `CommandRule`s once and match them against parsed simple commands by tokens.

Rules never see raw text: they match argv words after quote removal, wrapper stripping
and basename normalisation of the program, so `grep shutdown log` does not hit a
`shutdown` rule and `/bin/rm -fr /` does hit `rm -rf /`.

Two match modes, chosen so that a mistake errs towards asking:

- **allow** rules match the *whole* argv, token by token: `git status` allows exactly
  `git status`; `npm run test *` allows `npm run test` plus any arguments. A word whose
  value bash computes at run time only matches a trailing `*`.
- **deny** and **ask** rules match *anywhere it counts*: the program must be the same,
  every option of the pattern must be present (clusters and known aliases expanded,
  so `-rf` = `-r -f` = `-fr` = `--recursive --force` for `rm`), and the pattern's other
  tokens must appear in order among the command's operands. A deny rule that a computed
  word *could* complete (`rm -rf "$dir"`) is reported as uncertain, which asks.

Inside a token, `*` matches any characters except `/` and `**` matches anything; a token
that is exactly `*` matches one word (or, last, any remaining words).
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from safehold.policy.config import CommandRule, compile_text_regex
from safehold.policy.decision import Verdict
from safehold.policy.shell.words import Word

__all__ = ["CompiledRules", "RuleMatch", "compile_rules", "program_of"]

# Option spellings that mean the same thing, per program (only where deny rules care).
_ALIASES: dict[str, dict[str, str]] = {
    "rm": {"-R": "-r", "--recursive": "-r", "--force": "-f", "--dir": "-d"},
    "chmod": {"--recursive": "-R"},
    "chown": {"--recursive": "-R"},
    "chgrp": {"--recursive": "-R"},
    "history": {},
    "kill": {"-KILL": "-9", "-SIGKILL": "-9", "-s9": "-9"},
    "nc": {"--exec": "-e", "--sh-exec": "-c"},
    "ncat": {"--exec": "-e", "--sh-exec": "-c", "--lua-exec": "-e"},
    "netcat": {"--exec": "-e", "--sh-exec": "-c"},
}


def program_of(text: str) -> str:
    """Basename of a program word: `/usr/bin/rm` is `rm`."""
    return text.rsplit("/", 1)[-1]


def _normalise_operand(text: str) -> str:
    # `//`, `/./`, `/` trailing and `${HOME}` are spellings of the same target.
    if text.startswith("${HOME}"):
        text = "$HOME" + text[len("${HOME}") :]
    if "/" in text:
        collapsed = re.sub(r"/+", "/", text)
        normal = posixpath.normpath(collapsed)
        return "/" if collapsed.startswith("/") and normal in ("/", "//") else normal
    return text


def _expand_option(program: str, token: str) -> tuple[str, ...]:
    aliases = _ALIASES.get(program, {})
    if token.startswith("--"):
        name = token.split("=", 1)[0] if "=" in token else token
        return (aliases.get(name, name),)
    if token in aliases:
        return (aliases[token],)
    if len(token) > 2 and token[1:].isalpha():
        return tuple(aliases.get("-" + ch, "-" + ch) for ch in token[1:])
    return (token,)


def _token_regex(token: str) -> re.Pattern[str] | None:
    if "*" not in token or token == "*":
        return None
    parts = re.split(r"(\*\*|\*)", token)
    body = "".join(".*" if p == "**" else "[^/]*" if p == "*" else re.escape(p) for p in parts)
    return re.compile(body + r"\Z", re.DOTALL)


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    regex: re.Pattern[str] | None

    def matches(self, text: str) -> bool:
        if self.text == "*":
            return True
        if self.regex is not None:
            return self.regex.match(text) is not None
        return self.text == text


@dataclass(frozen=True, slots=True)
class _Compiled:
    rule: CommandRule
    program: str
    tokens: tuple[_Token, ...]  # allow mode: every token after the program
    rest: bool  # allow mode: trailing `*`
    options: tuple[tuple[str, ...], ...]  # deny/ask: each option token, expanded
    operands: tuple[_Token, ...]  # deny/ask: non-option tokens in order


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """A rule that matched a command; `certain` is False when only a computed word could."""

    rule: CommandRule
    certain: bool


def _compile(rule: CommandRule) -> _Compiled:
    parts = rule.pattern.split()
    program = program_of(parts[0])
    rest = parts[1:]
    trailing = bool(rest) and rest[-1] == "*"
    allow_tokens = tuple(_Token(t, _token_regex(t)) for t in (rest[:-1] if trailing else rest))
    options: list[tuple[str, ...]] = []
    operands: list[_Token] = []
    for t in rest:
        if t.startswith("-") and len(t) > 1:
            options.append(_expand_option(program, t))
        else:
            op = t if "*" in t else _normalise_operand(t)
            operands.append(_Token(op, _token_regex(op)))
    while operands and operands[-1].text == "*":
        operands.pop()  # a trailing `*` adds nothing to a "contains" match
    return _Compiled(rule, program, allow_tokens, trailing, tuple(options), tuple(operands))


class CompiledRules:
    """Rules compiled once per config, indexed by program for matching."""

    __slots__ = ("_allow", "_globbed", "_memo", "_strict", "_text")

    def __init__(self, rules: Sequence[CommandRule]) -> None:
        # `strict_matches` is a pure function of the words: remembered per rule set (bounded).
        self._memo = functools.lru_cache(maxsize=_MEMO_SIZE)(self._strict_matches)
        self._allow: dict[str, list[_Compiled]] = {}
        self._strict: dict[str, list[_Compiled]] = {}
        # Rules whose program is a glob (`mkfs.*`): checked against every program.
        self._globbed: list[tuple[re.Pattern[str], _Compiled]] = []
        # Substring and regex rules (deny and ask only) on the command text.
        self._text: list[tuple[CommandRule, Any]] = []
        for rule in rules:
            if rule.match != "tokens":
                matcher = compile_text_regex(rule.pattern) if rule.match == "regex" else None
                self._text.append((rule, matcher))
                continue
            compiled = _compile(rule)
            regex = _token_regex(compiled.program)
            if regex is not None and rule.decision is not Verdict.ALLOW:
                self._globbed.append((regex, compiled))
                continue
            table = self._allow if rule.decision is Verdict.ALLOW else self._strict
            table.setdefault(compiled.program, []).append(compiled)

    def names(self, program: str) -> bool:
        """True when a deny or ask rule is written for `program` (literally or by a glob)."""
        return program in self._strict or any(
            regex.fullmatch(program) is not None for regex, _ in self._globbed
        )

    def text_matches(self, text: str) -> list[CommandRule]:
        """Substring and regex rules found in `text` (linear time: `in` and RE2)."""
        return [
            rule
            for rule, regex in self._text
            if (rule.pattern in text if regex is None else regex.search(text) is not None)
        ]

    def _candidates(self, program: str) -> list[_Compiled]:
        found = self._strict.get(program, [])
        if self._globbed:
            found = found + [c for regex, c in self._globbed if regex.match(program)]
        return found

    def strict_matches(self, words: Sequence[Word]) -> list[RuleMatch]:
        """Deny and ask rules that match (or a computed word could make match) `words`."""
        if not words or not words[0].static:
            return []
        if type(words) is tuple and all(type(w) is Word for w in words):
            return list(self._memo(words))  # a tuple of words hashes and compares by value
        return list(self._strict_matches(words))

    def _strict_matches(self, words: Sequence[Word]) -> tuple[RuleMatch, ...]:
        program = program_of(words[0].text)
        candidates = self._candidates(program)
        if not candidates:
            return ()
        options, operands, dynamic = _split_argv(program, words[1:])
        out: list[RuleMatch] = []
        for c in candidates:
            missing = _missing(c, options, operands)
            if missing == 0:
                out.append(RuleMatch(c.rule, True))
            elif dynamic and (dynamic[0] or missing <= dynamic[1]):
                out.append(RuleMatch(c.rule, False))
        return tuple(out)

    def allow_match(self, words: Sequence[Word]) -> CommandRule | None:
        """The first allow rule that matches the whole of `words`, if any."""
        if not words or not words[0].static:
            return None
        for c in self._allow.get(program_of(words[0].text), ()):
            if _allow_matches(c, words[1:]):
                return c.rule
        return None


def _split_argv(
    program: str, args: Sequence[Word]
) -> tuple[set[str], list[str], tuple[bool, int] | None]:
    options: set[str] = set()
    operands: list[str] = []
    splitting = False
    single = 0
    end_of_options = False
    for w in args:
        if not w.static:
            if w.splits:
                splitting = True
            else:
                single += 1
            operands.append(_normalise_operand(w.text))
            continue
        t = w.text
        if not end_of_options and t == "--":
            end_of_options = True
        elif t.startswith("-") and len(t) > 1 and (not end_of_options or t[1:].isdigit()):
            # After `--` a `-1` is still what `kill -1` means (every process): deny rules
            # read it as the option they were written with.
            options.update(_expand_option(program, t))
            if "=" in t:
                operands.append(t)
        else:
            operands.append(_normalise_operand(t))
    dynamic = (splitting, single) if splitting or single else None
    return options, operands, dynamic


def _missing(c: _Compiled, options: set[str], operands: list[str]) -> int:
    missing = sum(1 for group in c.options if not all(o in options for o in group))
    i = 0
    for token in c.operands:
        while i < len(operands) and not token.matches(operands[i]):
            i += 1
        if i >= len(operands):
            missing += 1
        else:
            i += 1
    return missing


def _allow_matches(c: _Compiled, args: Sequence[Word]) -> bool:
    if len(args) < len(c.tokens) or (len(args) > len(c.tokens) and not c.rest):
        return False
    for token, w in zip(c.tokens, args, strict=False):
        # A non-trailing `*` may stand for one computed word, never one that splits.
        known = w.static and token.matches(w.text)
        if not known and not (token.text == "*" and not w.splits):
            return False
    return True


def compile_rules(rules: tuple[CommandRule, ...]) -> CompiledRules:
    """Compile a config's rules once (configs are immutable, so the result is cached)."""
    # Hashing 100 pydantic rules costs more than matching them: look the tuple up by
    # identity first (keeping it alive so its id is not reused), by value second.
    hit = _BY_IDENTITY.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    compiled = _compile_by_value(rules)
    if len(_BY_IDENTITY) >= 64:
        _BY_IDENTITY.clear()
    _BY_IDENTITY[id(rules)] = (rules, compiled)
    return compiled


_BY_IDENTITY: dict[int, tuple[tuple[CommandRule, ...], CompiledRules]] = {}
_MEMO_SIZE = 2048  # word tuples remembered per rule set


@functools.lru_cache(maxsize=64)
def _compile_by_value(rules: tuple[CommandRule, ...]) -> CompiledRules:
    return CompiledRules(rules)
