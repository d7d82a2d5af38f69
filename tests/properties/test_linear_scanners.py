"""The scanners over untrusted tool-call text are linear, regular expressions included.

`test_bounded_work` counts Python steps; a regular expression runs in C, where no step is
counted, so here each scanner is timed on doubling pathological inputs and only the ratio
is compared (a linear scanner takes about 32× as long for 32× the input, a quadratic one
1024×): no absolute duration is asserted. A static check finds the shape CI's ReDoS scan
misses: a lazy quantifier before `\\s*$` (`(.+?)\\s*$` is quadratic in a run of blanks).
"""

from __future__ import annotations

import ast
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from safehold.policy._arguments import _patch_paths, _read
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.shell.parse import plain_heredoc_walk, shielded
from safehold.policy.shell.programs.network import destinations
from safehold.policy.shell.sandboxed import code_paths, code_strings

SRC = Path(__file__).resolve().parents[2] / "src"
_RE_CALLS = frozenset({"compile", "match", "search", "fullmatch", "finditer", "findall", "sub"})
# A lazy quantifier, any closing groups, then optional blanks up to the end of the line.
_LAZY_BEFORE_END = re.compile(r"(?:[*+}]|\?)\?\)*\\s[*+]\$")


def _regex_literals() -> list[tuple[str, str]]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _RE_CALLS
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                out.append((f"{path.relative_to(SRC)}:{node.lineno}", node.args[0].value))
    return out


def test_the_source_has_regexes_to_check() -> None:
    assert len(_regex_literals()) >= 20


def test_no_lazy_quantifier_before_trailing_blanks() -> None:
    bad = [(where, p) for where, p in _regex_literals() if _LAZY_BEFORE_END.search(p)]
    assert bad == []


def test_the_lazy_check_sees_the_quadratic_shape() -> None:
    assert _LAZY_BEFORE_END.search(r"^--- (.+?)\s*$")
    assert _LAZY_BEFORE_END.search(r"x*?\s*$")
    assert not _LAZY_BEFORE_END.search(r"^--- ([^\n]*)")


def _seconds(fn: Callable[[str], Any], small: str, large: str) -> tuple[float, float]:
    """The best of five runs of each, interleaved so a busy machine slows both alike, in
    CPU time of this thread: time spent waiting for a core (load) is not counted."""
    best = [float("inf"), float("inf")]
    for _ in range(5):
        for k, text in enumerate((small, large)):
            start = time.thread_time()
            fn(text)
            best[k] = min(best[k], time.thread_time() - start)
    return best[0], best[1]


def _all_patch_paths(text: str) -> list[str]:
    return list(_patch_paths(text))  # a generator: read it to the end


def _arguments(key: str) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        # The uncached reading: `read_arguments` remembers a call it has seen.
        return _read(ToolCall("tool", {key: text}, ToolKind.EDIT), None)

    return read


def _unknown(key: str) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        return _read(ToolCall("tool", {key: text}, ToolKind.OTHER), lambda _name: False)

    return read


def _heredoc_walk(text: str) -> Any:
    return plain_heredoc_walk(text, frozenset({"."}))


SCANNERS: dict[str, tuple[Callable[[str], Any], Callable[[int], str]]] = {
    "patch-blanks": (_all_patch_paths, lambda n: "--- " + " " * n + "x"),
    "patch-tabs": (_all_patch_paths, lambda n: "+++ a" + "\t " * (n // 2) + "b"),
    "patch-headers": (_all_patch_paths, lambda n: "--- a\n" * (n // 6)),
    "diff-git": (_all_patch_paths, lambda n: "diff --git a b" + " " * n + "c"),
    "arguments-patch": (_arguments("patch"), lambda n: "--- " + " " * n + "x"),
    "arguments-content": (_arguments("content"), lambda n: "--- " + " " * n + "x"),
    "arguments-blanks": (_arguments("notes"), lambda n: " " * n + "x"),
    "arguments-urls": (_arguments("url"), lambda n: "http://a" * (n // 8)),
    "arguments-paths": (_arguments("notes"), lambda n: "/a" * (n // 2)),
    # Round 12: indented `*** Add File:` markers, git's C-quoted names, the free text of a
    # tool of unknown side (searched for denied names and URLs).
    "patch-indent": (_all_patch_paths, lambda n: "\n" + " \t" * (n // 2) + "*** Add"),
    "patch-quoted": (_all_patch_paths, lambda n: '+++ "' + "\\1" * (n // 2)),
    "diff-git-quoted": (_all_patch_paths, lambda n: 'diff --git "a' + " " * n + '" b'),
    "arguments-unknown-text": (_unknown("query"), lambda n: "see http://a /b " * (n // 16)),
    "curl-glob": (lambda t: destinations("curl", "", t, True), lambda n: "{" * n + "x"),
    # The uncached scanners (`__wrapped__`: the decision remembers the last few texts).
    "code-strings-escapes": (code_strings.__wrapped__, lambda n: "'" + "\\ " * (n // 2)),
    "code-strings-quotes": (code_strings.__wrapped__, lambda n: "'a \\'" * (n // 5)),
    "code-paths": (code_paths.__wrapped__, lambda n: "./a " * (n // 4)),
    # A quoted heredoc read without the parser: each line's run of blanks before a text
    # that is almost the delimiter, and one long run.
    "heredoc-lines": (_heredoc_walk, lambda n: "cat <<'EOF'\nx\n" + "  EO\n" * (n // 5) + "EOF"),
    "heredoc-blanks": (_heredoc_walk, lambda n: "cat <<'EOF'\nx\n" + " " * n + "EO\nEOF"),
    # The bytes the parser reads (`parse.shielded`): runs of digits after many braces.
    "shield-digits": (lambda t: shielded(t.encode()), lambda n: "{1" * (n // 2) + "..9é"),
    "shield-braces": (lambda t: shielded(t.encode()), lambda n: "{中" * (n // 2)),
}


@pytest.mark.parametrize("name", sorted(SCANNERS))
def test_each_scanner_grows_linearly(name: str) -> None:
    fn, make = SCANNERS[name]
    n = 32_768
    fn(make(n))  # warm caches and imports
    small, large = _seconds(fn, make(n), make(32 * n))
    # 32× the input: about 32× the time when linear (up to 4× more once the input no longer
    # fits the CPU's caches), 1024× when quadratic. The bound sits between the two, with a
    # floor for inputs too fast to time, so a busy machine does not fail it.
    assert large <= 320 * max(small, 2e-3), (small, large)
