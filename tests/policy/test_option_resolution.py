"""Option words read as each parser family reads them: prefixes, clusters, glued values."""

from __future__ import annotations

import dataclasses

import pytest

from safehold.policy.shell.programs.table import Opt, Parser, Program, read_roles, resolve_option
from safehold.policy.shell.words import Word


def _program(parser: Parser) -> Program:
    return Program(
        options={
            "--regexp": Opt(takes=True),
            "--recursive": Opt(),
            "--output": Opt(takes=True, role="write"),
            "--outline": Opt(),
            "--checkpoint": Opt(takes=True, optional=True),
            "--verify": Opt(),
            "-r": Opt(),
            "-v": Opt(),
            "-o": Opt(takes=True, role="write"),
            "-C": Opt(takes=True, optional=True),
        },
        operands="read",
        parser=parser,
        source="a complete test table",
    )


def _words(*texts: str) -> tuple[Word, ...]:
    return tuple(Word(t, True) for t in ("prog", *texts))


@pytest.mark.parametrize("parser", ["getopt_long", "git", "argparse"])
def test_a_unique_prefix_is_the_long_option(parser: Parser) -> None:
    resolved = resolve_option(_program(parser), "--reg")
    assert not resolved.unknown
    assert resolved.flags[0][0] == "--regexp"
    assert resolved.takes  # so the next word is the pattern, not a file


@pytest.mark.parametrize("parser", ["getopt_long", "git", "argparse"])
def test_an_ambiguous_prefix_is_unknown(parser: Parser) -> None:
    # `--out` is a prefix of both `--output` and `--outline`.
    assert resolve_option(_program(parser), "--out").unknown
    assert resolve_option(_program(parser), "--out=x").unknown


@pytest.mark.parametrize("parser", ["getopt", "exact"])
def test_parsers_without_abbreviations_do_not_expand_prefixes(parser: Parser) -> None:
    assert resolve_option(_program(parser), "--reg").unknown
    assert not resolve_option(_program(parser), "--regexp").unknown


def test_a_glued_prefix_value_gets_the_options_role() -> None:
    reading = read_roles(_program("getopt_long"), _words("--outp=~/.bashrc", "a"))
    assert ("write", "~/.bashrc") in [(u.role, u.word.text) for u in reading.uses]
    assert reading.unknown == ()


@pytest.mark.parametrize("parser", ["getopt_long", "git", "argparse"])
def test_a_prefix_in_an_incomplete_table_is_read_but_not_understood(parser: Parser) -> None:
    # The program may have an option the table lacks that the word names exactly or is
    # also a prefix of (npm's `--global` against a table holding only `--globalconfig`).
    partial = dataclasses.replace(_program(parser), source="")
    resolved = resolve_option(partial, "--outp=~/.bashrc")
    assert resolved.unknown
    reading = read_roles(partial, _words("--outp=~/.bashrc", "a"))
    assert ("write", "~/.bashrc") in [(u.role, u.word.text) for u in reading.uses]
    assert reading.unknown == ("--outp=~/.bashrc",)
    assert not resolve_option(partial, "--output=x").unknown  # exact names still are


def test_a_prefix_of_a_left_out_option_is_not_understood() -> None:
    # `pip install --python X`: pip's own `--python` (left out), not `--python-version`.
    program = dataclasses.replace(
        _program("argparse"), left_out=frozenset({"--regexp-file", "--reg"})
    )
    assert resolve_option(program, "--rege").unknown
    assert resolve_option(program, "--reg").unknown
    assert resolve_option(program, "--regexp").flags[0][0] == "--regexp"
    assert not resolve_option(program, "--regexp").unknown


def test_an_unknown_long_option_is_reported() -> None:
    reading = read_roles(_program("getopt_long"), _words("--to-command=sh", "a"))
    assert reading.unknown == ("--to-command=sh",)


def test_a_value_for_a_flag_is_unknown() -> None:
    assert resolve_option(_program("getopt_long"), "--recursive=yes").unknown


def test_a_cluster_with_an_unknown_letter_is_reported_and_its_known_letters_read() -> None:
    reading = read_roles(_program("getopt_long"), _words("-rxo", "out", "a"))
    assert reading.unknown == ("-rxo",)
    assert ("write", "out") in [(u.role, u.word.text) for u in reading.uses]


def test_a_value_letter_takes_the_rest_of_the_cluster() -> None:
    reading = read_roles(_program("getopt_long"), _words("-rvofile", "a"))
    assert reading.unknown == ()
    roles = [(u.role, u.word.text) for u in reading.uses]
    assert ("write", "file") in roles and ("read", "a") in roles


def test_exact_parsers_have_no_clusters() -> None:
    assert resolve_option(_program("exact"), "-rv").unknown
    assert not resolve_option(_program("getopt"), "-rv").unknown


def test_an_optional_value_is_the_options_only_when_glued() -> None:
    program = _program("getopt_long")
    separate = read_roles(program, _words("--checkpoint", "a"))
    assert [(u.role, u.word.text) for u in separate.uses] == [("read", "a")]
    short = read_roles(program, _words("-C", "a"))
    assert [(u.role, u.word.text) for u in short.uses] == [("read", "a")]
    glued = resolve_option(program, "-C7")
    assert glued.value == "7" and not glued.takes


def test_git_negations_resolve_to_the_flag() -> None:
    assert resolve_option(_program("git"), "--no-verify").flags[0][0] == "--verify"
    assert resolve_option(_program("getopt_long"), "--no-verify").unknown


def test_an_unknown_subcommand_is_reported() -> None:
    program = Program(subcommands={"push": Program(first="send")})
    assert read_roles(program, _words("frobnicate", "x")).unknown == ("frobnicate",)
    assert read_roles(program, _words("push", "origin")).unknown == ()


def test_pflag_takes_clusters_and_glued_values_but_no_prefixes() -> None:
    """Go's pflag (docker, kubectl): `-rv`, `-ofile`, `-o=file`, `--output=F`; no `--outp`."""
    program = _program("pflag")
    assert resolve_option(program, "--reg").unknown
    assert resolve_option(program, "--outp=x").unknown
    cluster = resolve_option(program, "-rv")
    assert [name for name, _ in cluster.flags] == ["-r", "-v"] and not cluster.unknown
    assert resolve_option(program, "-ofile").value == "file"
    assert resolve_option(program, "-o=file").value == "file"
    assert resolve_option(program, "--output=F").value == "F"
    # A flag takes a boolean (Go's ParseBool spellings), and nothing else.
    assert resolve_option(program, "--recursive=true").flags[0][0] == "--recursive"
    assert not resolve_option(program, "-r=false").unknown
    assert resolve_option(program, "--recursive=yes").unknown
    assert resolve_option(_program("getopt_long"), "--recursive=true").unknown


def test_a_keyed_value_names_a_file_only_for_its_keys() -> None:
    """kubectl's `-o jsonpath-file=F` reads F; `-o json`, `-o jsonpath=…` name nothing."""
    output = Opt(takes=True, keyed={"jsonpath-file": "read"})
    program = Program(options={"-o": output, "--output": output}, parser="pflag")

    def uses(*texts: str) -> list[tuple[str, str]]:
        return [(u.role, u.word.text) for u in read_roles(program, _words(*texts)).uses]

    assert uses("-o", "jsonpath-file=/etc/shadow") == [("read", "/etc/shadow")]
    assert uses("--output=jsonpath-file=F") == [("read", "F")]
    assert uses("-o", "jsonpath={.items}") == []
    assert uses("-o", "json") == []
    computed = read_roles(program, (Word("prog", True), Word("-o", True), Word("$F", False)))
    assert [(u.role, u.word.text) for u in computed.uses] == [("read", "$F")]


def test_a_two_word_value_gives_its_role_to_the_second_word() -> None:
    # `jq --rawfile NAME FILE`: NAME is a variable, FILE is read; the filter follows.
    program = Program(
        options={"--rawfile": Opt(takes=True, count=2, role="read"), "-n": Opt()},
        operands="read",
        skip=1,
        parser="exact",
    )
    reading = read_roles(program, _words("--rawfile", "k", "~/.ssh/id_rsa", "-n", "$k", "a"))
    assert [(u.role, u.word.text) for u in reading.uses] == [
        ("read", "~/.ssh/id_rsa"),
        ("read", "a"),  # `$k` is the filter (skipped), `a` an input file
    ]
    glued = read_roles(program, _words("--rawfile=k", "secret", "."))
    assert [(u.role, u.word.text) for u in glued.uses] == [("read", "secret")]


def test_operands_a_program_does_not_accept_are_not_understood() -> None:
    # `date +FORMAT` prints; `date MMDDhhmm` sets the clock.
    program = Program(understood_operand=lambda w: w.static and w.text.startswith("+"))
    assert read_roles(program, _words("+%s")).unknown == ()
    assert read_roles(program, _words("+%s", "010100002030")).unknown == ("010100002030",)
    assert read_roles(program, (Word("date", True), Word("$X", False))).unknown == ("$X",)
