"""Every decision is linear in its input: work grows with the input, never faster.

Work is counted, not timed: the number of Python line events (`sys.settrace`) a function
runs for one input. For each piece of the shell analysis that reads untrusted text, an
adversarial input is a long run of the characters its patterns repeat (backslashes, sed
delimiters, `{,`, `print `, quotes); doubling the run twice, the second doubling must add
about twice the work the first added (a quadratic scanner would add four times as much). Regular expressions run in C and are
not counted here: CI scans them with regexploit, and the ones left on untrusted text are
single character classes or anchored literals (docs/decisions.md, "Bounded time").
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.engine import evaluate
from safehold.policy.shell.analysis import (
    MAX_COMMAND_LENGTH,
    MAX_HEREDOC_LENGTH,
    MAX_INPUT_LENGTH,
    _analyze_safely,
)
from safehold.policy.shell.programs.awk_program import read_awk_program
from safehold.policy.shell.programs.environment import secret_expansions
from safehold.policy.shell.programs.sed_script import read_sed_script
from safehold.policy.shell.sandboxed import code_paths, code_strings
from safehold.policy.shell.words import _brace_expands
from tests.strategies import examples

# Characters the analysis' patterns repeat, and pieces of the constructs they scan.
UNITS = [
    "\\", "\\\\", "\\n", "s/", "s\\/", "/", "[", "[/", "a\\", "c\\ ", "e", ";e", "{", "{,", ",",
    "..", "}", "print ", "print|", "system", "|", " ", "'", '"', "$(", "`", "<<", "-", "$",
    "a.", "x-", "~/", "./", "\n", "\t", "EOF\n", "#", "!", "&&", "=",
]  # fmt: skip
SCANNERS: dict[str, Callable[[str], Any]] = {
    "sed": read_sed_script,
    "awk": read_awk_program,
    "brace": _brace_expands,
    "code_paths": code_paths,
    "code_strings": code_strings,
    "secret_expansions": secret_expansions,
}
WRAPS = ["{}", "sed '{}' f", "sed -e '1,2c\\{}' f", "awk '{}' f", "echo {{{}}}", "python -c '{}'"]


def work(fn: Callable[[str], Any], text: str) -> int:
    """Python line events `fn(text)` runs: a count of steps, independent of the clock."""
    count = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    # A memoised scanner would count no work for an input an earlier example already ran.
    getattr(fn, "cache_clear", lambda: None)()
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        fn(text)
    finally:
        sys.settrace(previous)
    return count


def assert_linear(fn: Callable[[str], Any], make: Callable[[int], str], n: int) -> None:
    # Even repeat counts throughout, so every input ends the same way (an odd number of
    # quotes or backslashes stops the analysis early, which is cheap, not linear).
    w2, w4, w8 = (work(fn, make(k * n)) for k in (2, 4, 8))
    # Compare growth, not size, so the fixed part cancels: doubling the input from 4n to
    # 8n adds about twice what doubling from 2n to 4n added when the work is linear, and
    # four times as much when it is quadratic.
    grew_linearly = w8 - w4 <= 3 * max(w4 - w2, 0) + 50
    # An input the analysis gives up on early at every size (`echo {EOF\n&&…}` is refused
    # after a few hundred steps, a few more or less by where it stops) shows no growth to
    # compare; a quadratic pass over even the smallest input here (80+ characters) would
    # take thousands.
    stopped_early = max(w2, w4, w8) <= 1_000
    assert grew_linearly or stopped_early, (w2, w4, w8)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scanner=st.sampled_from(sorted(SCANNERS)),
    unit=st.lists(st.sampled_from(UNITS), min_size=1, max_size=3).map("".join),
    prefix=st.sampled_from(["", "s", "1,2c\\", "/x/", "{", "print "]),
    n=st.integers(min_value=20, max_value=100),
)
def test_each_scanner_does_linear_work(scanner: str, unit: str, prefix: str, n: int) -> None:
    fn = SCANNERS[scanner]
    assert_linear(fn, lambda k: prefix + unit * k, n)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    wrap=st.sampled_from(WRAPS),
    unit=st.lists(st.sampled_from(UNITS), min_size=1, max_size=3).map("".join),
    n=st.integers(min_value=10, max_value=40),
)
def test_the_whole_analysis_does_linear_work(wrap: str, unit: str, n: int) -> None:
    # `_analyze_safely` is `analyze` without its cache, so every call does the work.
    def make(k: int) -> str:
        return wrap.replace("{}", unit * k)

    assume_small = len(make(8 * n)) <= MAX_COMMAND_LENGTH
    if assume_small:
        assert_linear(_analyze_safely, make, n)


def test_the_sed_script_that_took_minutes_is_read_in_one_pass() -> None:
    # The corpus command: `sed -i '402,416c\    def …\n …'` with a 1,200-character text
    # full of `\n` escapes, which a backtracking regex explored exponentially.
    text = "402,416c\\" + "    x = y\\n" * 120
    assert work(read_sed_script, text) <= 40 * len(text)
    assert not read_sed_script(text).runs_code


def test_input_past_the_bound_is_an_immediate_ask() -> None:
    # The size is read first: the work does not grow with the input at all.
    small = work(_analyze_safely, "x" * (MAX_INPUT_LENGTH + 1))
    large = work(_analyze_safely, "x" * (4 * MAX_INPUT_LENGTH))
    assert large <= small + 10
    analysis = _analyze_safely("x" * (MAX_INPUT_LENGTH + 1))
    assert [r.code for r in analysis.opaque] == ["input-too-large"]
    call = ToolCall("bash", {"command": "echo " + "x" * MAX_INPUT_LENGTH}, ToolKind.EXECUTE)
    decision = evaluate(SafetyConfig().with_mode("auto"), call, workspace="/nonexistent/ws")
    assert decision.verdict is Verdict.ASK
    assert {r.code for r in decision.reasons} == {"input-too-large"}


def test_a_data_heredoc_of_a_mebibyte_is_data() -> None:
    # Lines bash would refuse as code (a diff, backslash-newlines, unbalanced quotes) are
    # data in a quoted heredoc, up to MAX_HEREDOC_LENGTH characters.
    line = "-    x = 'it\\'s' \\\n+    if (a) { b; } `c` $(d) <<EOF\n"
    body = line * ((MAX_HEREDOC_LENGTH - 100) // len(line))
    command = f"cat > patch.diff <<'EOF'\n{body}EOF\ngit apply patch.diff"
    analysis = _analyze_safely(command)
    assert analysis.opaque == ()
    assert [c.argv for c in analysis.commands] == [("cat",), ("git", "apply", "patch.diff")]
    assert max(len(s) for s in analysis.scripts) < 100  # the body is not re-read as code
