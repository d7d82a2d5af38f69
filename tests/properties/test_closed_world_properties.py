"""Closed world (issue 22): on the host, in auto mode, an option word the program's table
does not resolve (unknown, or an ambiguous prefix) is never allowed.

The option words are drawn at random; the oracle is `resolve_option`, the same reading the
program's parser family gives, so a word counts only when that reading says it is unknown.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.engine import evaluate
from safehold.policy.shell.programs import PROGRAMS, STEPS
from safehold.policy.shell.programs.table import resolve_option

AUTO = SafetyConfig().with_mode("auto")
# Programs the table alone reads (no step of their own, no subcommands): their option
# words are judged only by `read_roles`.
NAMES = sorted(
    name
    for name, program in PROGRAMS.items()
    if name not in STEPS and not program.subcommands and not program.bundled_first
)
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-"


@st.composite
def unknown_options(draw: st.DrawFn) -> tuple[str, str]:
    name = draw(st.sampled_from(NAMES))
    body = draw(st.text(LETTERS, min_size=1, max_size=12))
    dashes = draw(st.sampled_from(["--", "-"]))
    value = draw(st.sampled_from(["", "=x", "=/tmp/x"]))
    word = dashes + body.lstrip("-") + value
    if len(word) < 2 or word in ("--", "-"):
        word = "--zz"
    if not resolve_option(PROGRAMS[name], word).unknown:
        word = "--zz-unknown-" + body.lstrip("-")
    return name, word


@given(case=unknown_options())
def test_an_option_the_table_does_not_resolve_is_never_allowed_on_the_host(
    case: tuple[str, str],
) -> None:
    name, word = case
    if not resolve_option(PROGRAMS[name], word).unknown:
        return  # `--zz-unknown-…` happened to be a prefix of a real option
    workspace = Path(__file__).resolve().parent
    command = shlex.join([name, word, "README.md"])
    call = ToolCall(kind=ToolKind.EXECUTE, name="Bash", arguments={"command": command})
    decision = evaluate(AUTO, call, workspace=str(workspace), runner="host")
    assert decision.verdict is not Verdict.ALLOW, command
