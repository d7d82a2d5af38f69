"""The reference agent's prompt forms: plain lines, `run: CMD`, fenced code blocks."""

from __future__ import annotations

import pytest
from acp.schema import TextContentBlock
from hypothesis import given
from hypothesis import strategies as st

from safehold.adapters.acp._agent_text import command_lines


def lines(text: str) -> list[str]:
    return command_lines([TextContentBlock(type="text", text=text)])


@pytest.mark.parametrize(
    ("text", "commands"),
    [
        ("ls\n\n# a comment\ncat x", ["ls", "cat x"]),
        ("Please run this:\nrun: cat .env\nthanks!", ["cat .env"]),
        ("RUN:   touch a  ", ["touch a"]),
        ("run:\nrun: # nothing", []),
        (
            "Do this:\n```sh\nls -la\n# note\n\ntouch x\n```\nand nothing else",
            ["ls -la", "touch x"],
        ),
        ("~~~bash\necho a\n~~~", ["echo a"]),
        ("````\n```\ninner\n````\nafter", ["```", "inner"]),
        ("```\nnever closed\nstill code", ["never closed", "still code"]),
        ("run: a\n```\nb\n```\nprose", ["a", "b"]),
        ("```not a fence``` just text", ["```not a fence``` just text"]),
    ],
)
def test_prompt_forms(text: str, commands: list[str]) -> None:
    assert lines(text) == commands


def test_prose_never_runs_once_a_prompt_marks_its_commands() -> None:
    # The Toad case: a sentence next to a fenced command must not become a command.
    assert lines("rm -rf ~ is what I would never do\n```\nls\n```") == ["ls"]


@given(st.text(max_size=300))
def test_every_command_is_a_stripped_line_of_the_prompt(text: str) -> None:
    source = {line.strip() for line in text.splitlines()}
    for command in lines(text):
        assert command and not command.startswith("#")
        assert command in source or any(s.endswith(command) for s in source)
