"""Static evaluation of bash words: what a word is after quote removal, if it is known.

A word is *static* when bash would produce exactly this one string from it: plain text
(with backslash escapes removed), `'...'`, `"..."` without expansions, `$'...'` and their
concatenations. Anything bash computes at run time (parameter, command, arithmetic and
process substitution, globs, brace expansion) makes the word dynamic; its text then keeps
the source spelling of the dynamic parts so rules and reasons can still show it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from tree_sitter import Node

__all__ = ["Word", "decode_ansi_c", "evaluate_word"]

# Characters that make an unquoted word a glob pattern.
_GLOB = re.compile(r"[*?\[]")
# Brace expansion: `{a,b}` or `{1..3}`; a lone `{}` (find -exec) is literal to bash.
_TILDE = re.compile(r"(^|[=:])~")
_DYNAMIC_NODES = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
    }
)
_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


class Word(NamedTuple):
    """One shell word: its text after quote removal and whether bash could make it differ.

    A named tuple, not a dataclass: words are hashed and compared in every memo lookup of
    the assessment, and a tuple does both in C.
    """

    text: str
    static: bool
    # True when bash may split it into several words or none (unquoted expansion, glob).
    splits: bool = False
    # True when the only thing bash computes is a leading `~` / `~/` (the home directory).
    home: bool = False


def _brace_expands(text: str) -> bool:
    """True when `text` holds `{…,…}` or `{…..…}` with no brace inside: a brace expansion.

    One pass, remembering only the innermost open brace (the regex it replaces,
    `\\{[^{}]*(,|\\.\\.)[^{}]*\\}`, took quadratic time on `{,,,,…`).
    """
    open_at = -1  # the last `{` not yet closed by a `}`, with no brace since
    listed = False  # a `,` or `..` since that `{`
    for i, ch in enumerate(text):
        if ch == "{":
            open_at, listed = i, False
        elif ch == "}":
            if open_at >= 0 and listed:
                return True
            open_at = -1
        elif open_at >= 0 and (ch == "," or (ch == "." and i > open_at + 1 and text[i - 1] == ".")):
            listed = True
    return False


def _unescape_unquoted(raw: str) -> str:
    # Outside quotes a backslash quotes the next character (backslash-newline is guarded
    # out before parsing, so it never reaches here).
    if "\\" not in raw:
        return raw
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            out.append(raw[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _unescaped_glob(raw: str) -> bool:
    if not _GLOB.search(raw):
        return False
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\":
            i += 2
            continue
        if _GLOB.match(ch):
            return True
        i += 1
    return False


def _unescape_double(raw: str) -> str:
    # Inside "...", backslash only escapes $ ` " \ (and newline).
    out: list[str] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw) and raw[i + 1] in '$`"\\':
            out.append(raw[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def decode_ansi_c(body: str) -> str:
    """Decode the body of a `$'...'` string the way bash does."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1]
        i += 2
        if esc in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[esc])
        elif esc in "01234567":
            digits = esc
            while i < n and len(digits) < 3 and body[i] in "01234567":
                digits += body[i]
                i += 1
            out.append(chr(int(digits, 8) & 0xFF))
        elif esc in "xuU":
            limit = {"x": 2, "u": 4, "U": 8}[esc]
            digits = ""
            while i < n and len(digits) < limit and body[i] in "0123456789abcdefABCDEF":
                digits += body[i]
                i += 1
            if not digits:
                out.append("\\" + esc)
            else:
                code = int(digits, 16)
                out.append(chr(code) if code <= 0x10FFFF else "\ufffd")
        elif esc == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + esc)
    return "".join(out)


def _string_parts(node: Node, src: bytes) -> tuple[str, bool]:
    # Walk "..." by byte ranges so text between child nodes is never lost.
    start, end = node.start_byte + 1, node.end_byte - 1
    pieces: list[str] = []
    static = True
    pos = start
    for child in node.named_children:
        if child.type == "string_content":
            continue
        if child.start_byte > pos:
            pieces.append(_unescape_double(src[pos : child.start_byte].decode("utf-8", "replace")))
        pieces.append(src[child.start_byte : child.end_byte].decode("utf-8", "replace"))
        static = False
        pos = child.end_byte
    if end > pos:
        pieces.append(_unescape_double(src[pos:end].decode("utf-8", "replace")))
    return "".join(pieces), static


def evaluate_word(node: Node, src: bytes) -> Word:
    """Evaluate a word-like node statically; unknown node kinds are dynamic, never guessed."""
    raw = src[node.start_byte : node.end_byte].decode("utf-8", "replace")
    kind = node.type
    if kind in ("word", "number", "command_name"):
        if kind == "command_name":
            if node.named_child_count != 1:
                return Word(raw, False, True)
            return evaluate_word(node.named_children[0], src)
        if kind == "word" and (_unescaped_glob(raw) or _brace_expands(raw)):
            return Word(_unescape_unquoted(raw), False, True)
        if kind == "word" and _TILDE.search(raw):
            # bash replaces `~` (at the start, or after `=` / `:`) with a home directory.
            home = (raw == "~" or raw.startswith("~/")) and not _TILDE.search(raw, 1)
            return Word(_unescape_unquoted(raw), False, False, home)
        return Word(_unescape_unquoted(raw), True)
    if kind == "raw_string":
        return Word(raw[1:-1], True)
    if kind == "ansi_c_string":
        return Word(decode_ansi_c(raw[2:-1]), True)
    if kind in ("string", "translated_string"):
        target = node
        if kind == "translated_string":
            inner = [c for c in node.named_children if c.type == "string"]
            if len(inner) != 1:
                return Word(raw, False)
            target = inner[0]
        text, static = _string_parts(target, src)
        return Word(text, static)
    if kind == "concatenation":
        return _evaluate_concatenation(node, src, raw)
    if kind in _DYNAMIC_NODES:
        return Word(raw, False, kind != "string")
    return Word(raw, False, True)


def _evaluate_concatenation(node: Node, src: bytes, raw: str) -> Word:
    texts: list[str] = []
    unquoted_raw: list[str] = []
    static = True
    splits = False
    home = False
    pos = node.start_byte
    for child in node.children:
        if child.start_byte != pos or not child.is_named:
            # A gap or an anonymous token (such as an empty `` `` ``) inside one word:
            # tree-sitter saw something it does not model. Never guess its value.
            return Word(raw, False, True)
        part = evaluate_word(child, src)
        texts.append(part.text)
        home = part.home if pos == node.start_byte else home and part.static
        static = static and part.static
        splits = splits or part.splits
        if child.type == "word":
            unquoted_raw.append(src[child.start_byte : child.end_byte].decode("utf-8", "replace"))
        pos = child.end_byte
    if pos != node.end_byte:
        return Word(raw, False, True)
    if _brace_expands("".join(unquoted_raw)):
        return Word("".join(texts), False, True)
    return Word("".join(texts), static, splits, home and not splits)
