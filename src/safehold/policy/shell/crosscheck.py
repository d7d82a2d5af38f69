"""A second opinion: bashlex must split a script into the same command words as tree-sitter.

Measured on random inputs, tree-sitter alone accepted commands
bash runs differently; requiring two independent parsers to agree on every command's word
boundaries removed every such case. Disagreement, or bashlex failing, is reported as a
reason; it never raises.
"""

from __future__ import annotations

import functools
import queue
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tree_sitter import Node

from safehold.policy.shell.parse import parse_tree

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
    import bashlex  # loaded by `_install_cancellation_points` before any job is queued

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
    # Show bashlex only what it can read, keeping every offset so words still line up:
    # a quoted heredoc's body is blanked (it is data) and its delimiter unquoted (bashlex
    # cannot read `<<'EOF'`); a `$'...'` string keeps its bounds but not its content
    # (bashlex misreads it, and one such input made it loop until memory ran out).
    if "<<" not in text and "$'" not in text:
        return text
    src = text.encode("utf-8")
    chars = list(text)
    offsets = _char_offsets(text)

    def at(byte: int) -> int:
        return offsets[byte] if offsets else byte

    stack = [parse_tree(src)]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type == "ansi_c_string":
            a, b = at(node.start_byte), at(node.end_byte)
            if b - a >= 3:
                chars[a:b] = ["x", "'", *("x" * (b - a - 3)), "'"]
            continue
        if node.type != "heredoc_redirect":
            continue
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        if start is None:
            continue
        raw = src[start.start_byte : start.end_byte].decode("utf-8", "replace")
        if raw[:1] not in ("'", '"') or raw[-1:] != raw[:1] or len(raw) < 3:
            continue
        chars[at(start.start_byte) : at(start.end_byte)] = [*raw[1:-1], " ", " "]
        for body in (c for c in node.children if c.type == "heredoc_body"):
            x, y = at(body.start_byte), at(body.end_byte)
            chars[x:y] = [ch if ch == "\n" else " " for ch in chars[x:y]]
    return "".join(chars)


class _Overrun(Exception):
    """bashlex ran past its time budget (raised inside the worker thread)."""


class _Cancel:
    """Which worker thread must stop at its next cancellation point (None: none)."""

    thread: int | None = None


_CANCEL = _Cancel()


@functools.cache
def _install_cancellation_points() -> None:
    # Run once, by the first caller, outside the time budget: importing bashlex builds its
    # parser (~0.1 s), which only a process that needs a second opinion pays for.
    # bashlex's loops (word expansion, the tokenizer's character reads) go through these
    # functions; wrapping them lets a runaway parse be stopped without tracing every call.
    import bashlex.subst
    import bashlex.tokenizer

    for owner, name in ((bashlex.subst, "_paramexpand"), (bashlex.tokenizer.tokenizer, "_getc")):
        original = getattr(owner, name, None)
        if original is None or getattr(original, "_safehold_cancellable", False):
            continue

        def cancellable(
            *args: Any, __original: Any = original, __cancel: _Cancel = _CANCEL, **kwargs: Any
        ) -> Any:
            # A cancellation point, checked inline: this runs for every character bashlex reads.
            if __cancel.thread is not None and __cancel.thread == threading.get_ident():
                raise _Overrun("bashlex ran past its time budget")
            return __original(*args, **kwargs)

        cancellable._safehold_cancellable = True  # type: ignore[attr-defined]
        setattr(owner, name, cancellable)


class _Worker:
    """One thread that runs bashlex, so a runaway parse never holds up the caller.

    The caller waits at most the budget, then gets an answer that means "disagree" (so:
    ASK) and asks the worker to stop at its next cancellation point.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[str, _Job]] = queue.SimpleQueue()
        self._state = threading.Lock()
        self._running: _Job | None = None
        self._thread: threading.Thread | None = None
        self._serial = threading.Lock()

    def parse(self, text: str, budget: float) -> Counter[tuple[Span, ...]]:
        _install_cancellation_points()
        with self._serial:
            if self._thread is None or not self._thread.is_alive():
                self._jobs = queue.SimpleQueue()
                self._thread = threading.Thread(
                    target=self._loop, args=(self._jobs,), name="safehold-bashlex", daemon=True
                )
                self._thread.start()
            job = _Job()
            self._jobs.put((text, job))
            if not job.done.wait(budget):
                self._stop(job, self._thread)
                raise _Overrun("bashlex ran past its time budget")
        if job.error is not None:
            raise job.error
        assert job.result is not None
        return job.result

    def _stop(self, job: _Job, thread: threading.Thread) -> None:
        # Ask the worker to stop at its next cancellation point; one that does not stop in
        # time is abandoned (it is a daemon thread) and a fresh worker takes the next job.
        with self._state:
            if self._running is not job:
                return
            _CANCEL.thread = thread.ident
        if not job.done.wait(0.5):
            self._thread = None

    def _loop(self, jobs: queue.SimpleQueue[tuple[str, _Job]]) -> None:
        while True:
            try:
                text, job = jobs.get()
                with self._state:
                    self._running = job
                    _CANCEL.thread = None
                try:
                    job.result = _bashlex_commands(text)
                except BaseException as exc:  # everything, `_Overrun` included, is an answer
                    job.error = exc if isinstance(exc, Exception) else _Overrun(str(exc))
                finally:
                    with self._state:
                        self._running = None
                    job.done.set()
            except BaseException:  # INVARIANT: a stray `_Overrun` never kills the worker
                continue


@dataclass(slots=True)
class _Job:
    done: threading.Event = field(default_factory=threading.Event)
    result: Counter[tuple[Span, ...]] | None = None
    error: Exception | None = None


_WORKER = _Worker()
# Far above any real command (a 10,000-character script takes bashlex ~50 ms).
BASHLEX_BUDGET = 1.0


@functools.lru_cache(maxsize=4096)
def disagreement(text: str) -> str | None:
    """Why bashlex and tree-sitter disagree on `text`'s commands, or None when they agree."""
    try:
        theirs = _WORKER.parse(_for_bashlex(text), BASHLEX_BUDGET)
    except Exception as exc:  # bashlex raises many types (and RecursionError) on valid bash
        return f"the second parser could not read it ({type(exc).__name__})"
    try:
        ours = _tree_sitter_commands(text)
    except Exception as exc:  # pragma: no cover - tree-sitter does not raise on text
        return f"the parser failed ({type(exc).__name__})"
    if ours != theirs:
        return "the two parsers split it into different commands or words"
    return None
