"""The bytes tree-sitter reads (`parse.shielded`): the scanner's out-of-domain `isdigit`.

tree-sitter-bash 0.25.1's brace-range rule calls C's `isdigit` on the code point after `{`
(and after `{DIGITS..`); from U+0100 on glibc reads past its table, and some code points
crashed the process (SIGSEGV) while a command was judged: a hook that dies lets the agent's
tool call through. The parser now reads a copy with that one character replaced.
"""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from safehold.policy.shell.analysis import analyze
from safehold.policy.shell.parse import shielded


def test_only_the_character_the_scanner_would_misread_is_replaced() -> None:
    assert shielded("echo {中}".encode()) == b"echo {%%%}"
    assert shielded("echo {12中".encode()) == b"echo {12%%%"
    assert shielded("seq {1..中}".encode()) == b"seq {1..%%%}"
    assert shielded("x {1..20中".encode()) == b"x {1..20%%%"
    # Anywhere else the character stays: it is not where the scanner calls `isdigit`.
    for text in ("echo 中{a}", "echo {a中}", "echo {1.中}", "echo 中", "echo '{' 中"):
        assert shielded(text.encode()) == text.encode()
    assert shielded(b"echo {a,b}") == b"echo {a,b}"


def test_the_words_keep_the_characters_of_the_command() -> None:
    analysis = analyze("echo {中} {1..中} && ls {12é")
    assert [cmd.argv for cmd in analysis.commands] == [
        ("echo", "{中}", "{1..中}"),
        ("ls", "{12é"),
    ]


@given(st.text(alphabet=st.sampled_from(["{", "1", ".", "a", " ", "é", "中", "\U000a8411"])))
def test_same_length_only_non_ascii_bytes_change_and_idempotent(text: str) -> None:
    src = text.encode()
    out = shielded(src)
    assert len(out) == len(src)
    assert all(a == b or (a >= 0x80 and b == ord("%")) for a, b in zip(src, out, strict=True))
    assert shielded(out) == out
    if b"{" not in src:
        assert out == src


def test_code_points_that_crashed_the_parser_are_read_in_a_child_process() -> None:
    # Before the shield this child died of SIGSEGV within the first hundred code points
    # below U+A8411 (glibc's table read 1.3 MB out of bounds); it must now finish.
    code = (
        "from safehold.policy.shell.parse import parse_tree, forget_trees\n"
        "for base in (0xA8411, 0x10FFFF, 0x50000):\n"
        "    for k in range(500):\n"
        "        c = chr(base - k)\n"
        "        for t in ('{' + c + '}', 'echo {12' + c, 'x {1..' + c + '}'):\n"
        "            parse_tree(t.encode())\n"
        "        forget_trees()\n"
        "print('ok')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0 and run.stdout.strip() == "ok", (run.returncode, run.stderr[-500:])
