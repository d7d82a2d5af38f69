"""Heredoc bodies that are data: found by the parser, verified by bash's own rule, set aside.

A quoted heredoc (`cat > f <<'EOF'`, `python - <<'PY'`) hands its body to the program
unexpanded: to the shell it is data, whatever it contains — a diff, Python with backslashes
at line ends, text neither parser can read as bash. Such bodies are verified here and then
left out of what the guards and the second parser read (`code_text`), so their content
neither trips the guards nor slows the parsers, up to `MAX_HEREDOC_LENGTH`.

The verification is bash's rule, checked on the text itself, so a parser that misplaced a
body cannot hide a command in it: the body starts on the line after the operator's line and
ends just before the first line that is exactly the delimiter (after leading tabs, for
`<<-`). An unquoted heredoc expands `$(…)` and backticks, so its body is code and stays.

tree-sitter also drops a lone `-` operand written just before a redirection
(`python - <<'PY'`, `sqlfluff lint - 2>&1`),
which bash reads as "the program is on stdin"; `quote_lone_dashes` spells it `'-'` — the
same word to bash — so the parse keeps it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

__all__ = [
    "MAX_HEREDOC_LENGTH",
    "DataBody",
    "code_text",
    "data_bodies",
    "quote_lone_dashes",
    "skipped_dashes",
    "skipped_text",
    "spell_dashes",
]

_REDIRECTS = frozenset({"heredoc_redirect", "file_redirect", "herestring_redirect"})
MAX_HEREDOC_LENGTH = 1_048_576
"""Most characters of quoted heredoc bodies in one command that are read as data (1 MiB)."""


@dataclass(frozen=True, slots=True)
class DataBody:
    """A verified quoted heredoc body: its byte span in the source and its delimiter."""

    start: int
    end: int
    delimiter: str


def _unquoted_delimiter(raw: str) -> str | None:
    """`'EOF'`, `"EOF"` or `\\EOF` → `EOF`; None for an unquoted or unusual delimiter."""
    if len(raw) >= 3 and raw[0] == raw[-1] and raw[0] in "'\"":
        inner = raw[1:-1]
    elif raw.startswith("\\") and len(raw) > 1:
        inner = raw[1:]
    else:
        return None
    if not inner or any(ch in inner for ch in "'\"\\$` \t\n"):
        return None
    return inner


def _heredoc_nodes(root: Node) -> list[Node]:
    out: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "heredoc_redirect":
            out.append(node)
        stack.extend(reversed(node.children))
    return out


def data_bodies(root: Node, src: bytes) -> tuple[list[DataBody], bool]:
    """The quoted heredoc bodies of a parse whose place bash's rule confirms, in order.

    The flag is True when a quoted heredoc with a plain delimiter is *not* where bash's
    rule puts it: the parser ended it early (at `EOF ` or a tab-indented `EOF` under `<<`)
    or late, so its reading of the lines around it cannot be trusted.
    """
    out: list[DataBody] = []
    mismatch = False
    if b"<<" not in src:  # no heredoc operator, no heredoc node: skip the walk
        return out, mismatch
    for node in _heredoc_nodes(root):
        op = next((c.type for c in node.children if not c.is_named), "")
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        end = next((c for c in node.children if c.type == "heredoc_end"), None)
        if op not in ("<<", "<<-") or start is None or body is None or end is None:
            continue
        raw = src[start.start_byte : start.end_byte].decode("utf-8", "replace")
        delimiter = _unquoted_delimiter(raw)
        if delimiter is None:
            continue
        span = _verified(src, start, body, end, delimiter, op == "<<-")
        if span is None:
            mismatch = True
            continue
        out.append(DataBody(span[0], span[1], delimiter))
    return out, mismatch


def _verified(
    src: bytes, start: Node, body: Node, end: Node, delimiter: str, strip_tabs: bool
) -> tuple[int, int] | None:
    """The body's whole lines when `body` is exactly what bash reads as this heredoc's body.

    None when bash's rule puts the body elsewhere. (The parser may leave leading blanks out
    of the body and, for `<<-`, count the end line's tabs into it; the span returned runs
    from the first body line's start to the end line's start.)
    """
    delim = delimiter.encode("utf-8")
    # The body starts on the line after the operator's line (one heredoc on that line);
    # the parser leaves leading blanks and blank lines out of it, which are still body
    # lines to bash (and checked below like every other line).
    first_newline = src.find(b"\n", start.end_byte)
    body_start = first_newline + 1
    lead = src[body_start : body.start_byte]
    if first_newline < 0 or body.start_byte < body_start or lead.strip(b" \t\n"):
        return None
    # The end line is exactly the delimiter (after leading tabs for `<<-`), a whole line.
    line_start = src.rfind(b"\n", 0, end.start_byte) + 1
    indent = src[line_start : end.start_byte]
    if indent.strip(b"\t") or (indent and not strip_tabs):
        return None
    if not line_start <= body.end_byte <= end.start_byte or line_start < body_start:
        return None
    if src[end.start_byte : end.end_byte] != delim:
        return None
    if end.end_byte < len(src) and src[end.end_byte : end.end_byte + 1] != b"\n":
        return None
    # No earlier line of the body ends it.
    for line in src[body_start:line_start].split(b"\n"):
        if (line.lstrip(b"\t") if strip_tabs else line) == delim:
            return None
    return body_start, line_start


def code_text(text: str, src: bytes, bodies: list[DataBody]) -> str:
    """`text` with the data bodies left out (their delimiter lines stay): what bash parses."""
    if not bodies:
        return text
    parts: list[bytes] = []
    pos = 0
    for b in bodies:
        parts.append(src[pos : b.start])
        pos = b.end
    parts.append(src[pos:])
    return b"".join(parts).decode("utf-8", "surrogatepass")


def skipped_text(root: Node, src: bytes) -> Iterator[tuple[Node | None, int, bytes]]:
    """Each run of source text no token covers: the token after it, where it starts, its bytes.

    tree-sitter silently skips what it treats as "extras" (blanks, and more than bash would
    skip); a heredoc body is one token. The text after the last token comes with None.
    """
    pos = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count and node.type != "heredoc_body":
            stack.extend(reversed(node.children))
            continue
        if node.start_byte > pos:
            yield node, pos, src[pos : node.start_byte]
        pos = max(pos, node.end_byte)
    if pos < len(src):
        yield None, pos, src[pos:]


def skipped_dashes(root: Node, src: bytes) -> tuple[list[int], bytes | None]:
    """Where each lone `-` the parse skipped before a redirection is, and the first other
    skipped text that is not blank (None when there is none), in one walk of the tree.

    A lone `-` is a gap that is exactly `-` between blanks, followed by a redirection
    (`<<EOF`, `2>&1`); any other skipped text is for the caller to refuse.
    """
    gaps: list[int] = []
    other: bytes | None = None
    for node, pos, gap in skipped_text(root, src):
        parent = node.parent if node is not None else None
        redirect = parent is not None and parent.type in _REDIRECTS
        if gap.strip(b" \t") == b"-" and redirect and b"\n" not in gap:
            gaps.append(pos + gap.index(b"-"))
        elif other is None and gap.strip(b" \t\n"):
            other = gap
    return gaps, other


def spell_dashes(src: bytes, gaps: list[int]) -> bytes:
    """`src` with the `-` at each of `gaps` (from `skipped_dashes`) spelled `'-'`."""
    out = bytearray()
    last = 0
    for at in gaps:
        out += src[last:at] + b"'-'"
        last = at + 1
    out += src[last:]
    return bytes(out)


def quote_lone_dashes(root: Node, src: bytes) -> bytes | None:
    """`src` with each lone `-` the parse skipped before `<<` spelled `'-'`; None if none.

    Only a gap that is exactly `-` between blanks, followed by a redirection (`<<EOF`,
    `2>&1`), is rewritten; any other skipped text is left for the caller to refuse. The
    rewrite never changes what bash runs: `'-'` and `-` are one word to it.
    """
    gaps, _other = skipped_dashes(root, src)
    return spell_dashes(src, gaps) if gaps else None
