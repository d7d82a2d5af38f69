"""What jq's filter and ps's words reach beyond their files: the environment and modules.

The tables themselves are checked by test_vocabulary_completeness.py and the verdicts by
tests/corpus/everyday.toml; these are the two readers the tables cannot express.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from safehold.policy.shell.programs.jq import JQ, jq_filter, jq_shows_environment, mentions
from safehold.policy.shell.programs.system import ps_shows_environment
from safehold.policy.shell.programs.table import read_roles
from safehold.policy.shell.words import Word

_ENV = frozenset({"env", "ENV"})


def _words(*texts: str) -> tuple[Word, ...]:
    return tuple(Word(t, True) for t in texts)


def test_a_filter_mentions_env_as_an_identifier_not_as_a_field() -> None:
    # Inside a string too (`"\\(env.X)"` interpolates): erring towards asking.
    for text in ("env", "$ENV.HOME", '"\\(env.TOKEN)"', "env|keys", "[.[] | env]", '."env"'):
        assert mentions(text, _ENV), text
    for text in (".env", ".environment", "environment", "envy", "$ENVIRON", "xenv", "a.env"):
        assert not mentions(text, _ENV), text


# The reference: `env` bounded by non-identifier characters, not right after a single `.`.
_REFERENCE = re.compile(r"(?:^|[^A-Za-z0-9_.]|\.\.)env(?![A-Za-z0-9_])")


@given(st.text(alphabet="env.$_ x1(|", max_size=24))
def test_mentions_agrees_with_the_reference(text: str) -> None:
    assert mentions(text, frozenset({"env"})) == bool(_REFERENCE.search(text))


def test_the_filter_is_the_first_operand_after_two_word_values() -> None:
    found = jq_filter(_words("jq", "--arg", "k", "v", "--rawfile", "r", "f", "-r", ".x", "a"))
    assert found is not None and found.text == ".x"
    assert jq_filter(_words("jq", "-f", "prog.jq", "a.json")) is None  # a file holds it
    dashed = jq_filter(_words("jq", "-n", "--", "-env"))
    assert dashed is not None and dashed.text == "-env"


def test_jq_shows_the_environment_through_its_filter_only() -> None:
    assert jq_shows_environment(_words("jq", "-n", "env")) is not None
    assert jq_shows_environment(_words("jq", "--arg", "env", "1", ".x", "a")) is None
    assert jq_shows_environment(_words("jq", "-r", ".env", "a")) is None
    computed = (Word("jq", True), Word("-n", True), Word("$F", False))
    assert jq_shows_environment(computed) is not None


def test_a_filter_that_loads_modules_reads_a_computed_path() -> None:
    uses = read_roles(JQ, _words("jq", "-n", 'import "m" as $d {search: "/"}; $d')).uses
    assert [(u.role, u.word.static) for u in uses] == [("read", False)]
    assert read_roles(JQ, _words("jq", "-n", ".imports")).uses == ()


def test_ps_shows_the_environment_with_bsd_e_in_any_reading() -> None:
    for argv in (("ps", "aux"), ("ps", "-ef"), ("ps", "aux", "--sort=-%mem"), ("ps", "-p", "1")):
        assert ps_shows_environment(_words(*argv)) is None, argv
    for argv in (("ps", "eww"), ("ps", "aux", "e"), ("ps", "-u", "xe"), ("ps", "-ef", "-u", "x")):
        assert ps_shows_environment(_words(*argv)) is not None, argv
    assert ps_shows_environment((Word("ps", True), Word("$X", False))) is not None


@given(st.lists(st.text(alphabet="-aeuxfw1", min_size=1, max_size=4), min_size=2, max_size=4))
def test_ps_lines_with_e_beside_other_words_always_ask(texts: list[str]) -> None:
    """procps re-reads a line it cannot parse in BSD syntax: with more than one word, any
    `e` outside a long option may be BSD `e`."""
    has_e = any("e" in t for t in texts if not t.startswith("--"))
    assert (ps_shows_environment(_words("ps", *texts)) is not None) == has_e


def test_a_quoted_pid_value_is_a_pid_list_in_both_readings() -> None:
    quoted = (Word("ps", True), Word("-p", True), Word("$PID", False), Word("-o", True))
    assert ps_shows_environment((*quoted, Word("pid,cmd", True))) is None
    split = (Word("ps", True), Word("-p", True), Word("$PIDS", False, True))
    assert ps_shows_environment(split) is not None  # `$PIDS` may be `1 e`
    assert ps_shows_environment((*quoted, Word("pid,user", True))) is not None
