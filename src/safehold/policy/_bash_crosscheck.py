"""A second opinion: bashlex must split a script into the same command words as tree-sitter.

Measured on random inputs (research/policy.md B.3), tree-sitter alone accepted commands
bash runs differently; requiring two independent parsers to agree on every command's word
boundaries removed every such case. Disagreement, or bashlex failing, is reported as a
reason; it never raises.
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

import bashlex
from tree_sitter import Node

from safehold.policy._bash_ast import parse_tree

__all__ = ["disagreement"]

Span = tuple[int, int]


def _char_offsets(text: str) -> list[int] | None:
    # tree-sitter reports byte offsets; bashlex reports str indices.
    if text.isascii():
        return None
    offsets: list[int] = []
    for i, ch in enumerate(text):
        offsets.extend([i] * len(ch.encode("utf-8")))
    offsets.append(len(text))
    return offsets


def _tree_sitter_commands(text: str) -> Counter[tuple[Span, ...]]:
    src = text.encode("utf-8")
    offsets = _char_offsets(text)
    out: Counter[tuple[Span, ...]] = Counter()
    stack = [parse_tree(src)]
    # Words after a redirect target (`cmd >out a b`) hang on the redirect in tree-sitter.
    trailing: dict[int, list[Node]] = {}
    while stack:
        node = stack.pop()
        if node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is not None and body.type == "command":
                extra = trailing.setdefault(body.id, [])
                for redirect in node.children_by_field_name("redirect"):
                    extra.extend(redirect.children_by_field_name("destination")[1:])
        if node.type in ("declaration_command", "unset_command"):
            spans = [
                _span(c, offsets)
                for c in node.children
                if c.type != "comment" and not c.type.endswith("_redirect")
            ]
            out[tuple(spans)] += 1
        if node.type == "command":
            spans = []
            extra = []
            for child in node.children:
                if child.type.endswith("_redirect"):
                    extra.extend(child.children_by_field_name("destination")[1:])
                if child.type in ("variable_assignment", "comment") or child.type.endswith(
                    "_redirect"
                ):
                    continue
                spans.append(_span(child, offsets))
            spans.extend(_span(c, offsets) for c in (*extra, *trailing.get(node.id, ())))
            out[tuple(spans)] += 1
        stack.extend(reversed(node.children))
    return out


def _span(node: Node, offsets: list[int] | None) -> Span:
    start, end = node.start_byte, node.end_byte
    if offsets is not None:
        start, end = offsets[start], offsets[end]
    return (start, end)


def _bashlex_commands(text: str) -> Counter[tuple[Span, ...]]:
    out: Counter[tuple[Span, ...]] = Counter()
    stack: list[Any] = list(bashlex.parse(text))
    while stack:
        node = stack.pop()
        if getattr(node, "kind", None) == "command":
            words = [p for p in node.parts if p.kind == "word"]
            out[tuple((p.pos[0], p.pos[1]) for p in words)] += 1
        for attr in ("parts", "list"):
            stack.extend(getattr(node, attr, None) or ())
        for attr in ("command", "output", "heredoc"):
            child = getattr(node, attr, None)
            if child is not None and hasattr(child, "kind"):
                stack.append(child)
    return out


def _for_bashlex(text: str) -> str:
    # bashlex cannot read a quoted heredoc delimiter (`<<'EOF'`). Blank out each quoted
    # heredoc's body (it is data: no commands) and unquote its delimiter, keeping every
    # offset, so the remaining words still line up with tree-sitter's.
    if "<<" not in text:
        return text
    src = text.encode("utf-8")
    chars = list(text)
    offsets = _char_offsets(text)
    stack = [parse_tree(src)]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type != "heredoc_redirect":
            continue
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        if start is None:
            continue
        raw = src[start.start_byte : start.end_byte].decode("utf-8", "replace")
        if raw[:1] not in ("'", '"') or raw[-1:] != raw[:1] or len(raw) < 3:
            continue
        a = offsets[start.start_byte] if offsets else start.start_byte
        b = offsets[start.end_byte] if offsets else start.end_byte
        chars[a:b] = [*raw[1:-1], " ", " "]
        for body in (c for c in node.children if c.type == "heredoc_body"):
            x = offsets[body.start_byte] if offsets else body.start_byte
            y = offsets[body.end_byte] if offsets else body.end_byte
            chars[x:y] = [ch if ch == "\n" else " " for ch in chars[x:y]]
    return "".join(chars)


@functools.lru_cache(maxsize=4096)
def disagreement(text: str) -> str | None:
    """Why bashlex and tree-sitter disagree on `text`'s commands, or None when they agree."""
    try:
        theirs = _bashlex_commands(_for_bashlex(text))
    except Exception as exc:  # bashlex raises many types (and RecursionError) on valid bash
        return f"the second parser could not read it ({type(exc).__name__})"
    try:
        ours = _tree_sitter_commands(text)
    except Exception as exc:  # pragma: no cover - tree-sitter does not raise on text
        return f"the parser failed ({type(exc).__name__})"
    if ours != theirs:
        return "the two parsers split it into different commands or words"
    return None
