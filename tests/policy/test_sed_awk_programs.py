"""sed and awk programs as sed and awk read them: the readers behind `programs/awk_sed.py`.

GNU sed 4.9's `compile.c` for labels and `s` flags; awk's lexer for string literals,
regular expressions and comments; the ways an awk program changes the files it reads.
"""

from __future__ import annotations

import pytest

from safehold.policy.shell.programs.awk_program import read_awk_program
from safehold.policy.shell.programs.sed_script import read_sed_script


@pytest.mark.parametrize(
    ("script", "runs"),
    [
        (":a e id", True),  # the label is `a`; `e id` is the next command
        (":a\te id", True),
        ("v 4.2 e id", True),  # `v` reads its version as a label
        ("/x/{bx};e id", True),  # the label ends at `}`, which closes the block
        ("/x/{bx}", False),
        (":x#c\n1e id", True),
        ("s/x/y/ e", True),  # blanks before an `s` flag
        ("b e id", False),  # `b` to the label `e`, then `i d`: text to insert
        (":e;N;$!be;s/\\n/ /g", False),
        ("/a/{:l;N;/b/!bl;p}", False),
    ],
)
def test_a_sed_label_ends_where_gnu_sed_ends_it(script: str, runs: bool) -> None:
    read = read_sed_script(script)
    assert (read.runs_code or read.unknown) is runs


def test_a_file_after_a_label_or_a_spaced_flag_is_seen() -> None:
    assert read_sed_script(":a w /root/.bashrc").writes == ("/root/.bashrc",)
    assert read_sed_script("s/a/b/ w out.txt").writes == ("out.txt",)
    assert read_sed_script(":a r /etc/hostname").reads == ("/etc/hostname",)


@pytest.mark.parametrize(
    "program",
    [
        'BEGIN { print "id;" | "sh" }',
        'BEGIN { print "id #}" | "sh" }',
        'BEGIN { printf "%s\\n", "id;" | "sh" }',
        '{ print "x" |& "cat" }',
        '"date" | getline d',
        'BEGIN { if (1) /"/; print "x" | "sh" }',  # after `if (…)` a `/` starts a regex
        'BEGIN { system("id") }',
        'BEGIN { f = "system"; @f("id") }',
        'BEGIN { print "unterminated }',  # not read with certainty: counts as code
        "/[/]/ { print }",  # awks differ on `/` in a bracket: counts as code
    ],
)
def test_an_awk_program_that_may_run_a_command(program: str) -> None:
    read = read_awk_program(program)
    assert read.runs_code or read.unknown


@pytest.mark.parametrize(
    "program",
    [
        '{ print "a|b" }',
        "{ print $1 / 2 }",
        "{ a = $1 / 2; b = $2 / 3; print a, b }",
        "/a|b/ { n++ } END { print n }",
        '{ n = split($0, parts, "|"); print n }',
        "# a comment | with a bar\n{ print }",
        "{ if ($1 > 2 || $2 < 1) print }",
        '{ gsub(/[\\/]/, "-"); print }',
    ],
)
def test_an_awk_program_that_runs_nothing(program: str) -> None:
    read = read_awk_program(program)
    assert not read.runs_code and not read.unknown


@pytest.mark.parametrize(
    ("program", "files"),
    [
        ('BEGIN { print "a;" > "/root/.bashrc" }', [("write", "/root/.bashrc")]),
        ('BEGIN { print "x #;" > ".git/hooks/pre-commit" }', [("write", ".git/hooks/pre-commit")]),
        ('BEGIN { print "x;" >> ".git/config" }', [("write", ".git/config")]),
        ('BEGIN { getline a[";"] < "/root/.profile" }', [("read", "/root/.profile")]),
        ('{ print "a",\n  "b" > "/root/.bashrc" }', [("write", "/root/.bashrc")]),
        ('{ print > ENVIRON["HOME"] "/.bashrc" }', [("write", None)]),
        ('{ print > "/root/" "x" }', [("write", None)]),
        ('{ print > "\\057root/.bashrc" }', [("write", None)]),  # an escape: not guessed
        ('{ print "e" > "/dev/stderr" }', []),
        ('BEGIN { while ((getline l < "README.md") > 0) n++ }', [("read", "README.md")]),
    ],
)
def test_files_an_awk_program_opens(program: str, files: list[tuple[str, str | None]]) -> None:
    assert list(read_awk_program(program).files) == files


@pytest.mark.parametrize(
    ("program", "changes"),
    [
        ('BEGIN { ARGV[1] = "/root/.bashrc"; ARGC = 2 } { print }', True),
        ('BEGIN { ARGV[ARGC++] = "/root/.bashrc" } 1', True),
        ('BEGIN { split("/root/.bashrc", ARGV) } 1', True),
        ("BEGIN { delete ARGV } 1", True),
        ('BEGIN { sub(/x/, "/root/.bashrc", ARGV[1]) } 1', True),
        ('BEGIN { getline ARGV[1] < "list" } 1', True),
        ('BEGIN { SYMTAB["ARGC"] = 1 } 1', True),
        ("BEGIN { print ARGV[1] }", False),
        ("END { for (i = 1; i < ARGC; i++) print ARGV[i] }", False),
        ("BEGIN { if (ARGC != 2) exit 1 }", False),
        ("BEGIN { for (k in ARGV) n++ }", False),
    ],
)
def test_an_awk_program_that_changes_argv(program: str, changes: bool) -> None:
    assert read_awk_program(program).argv is changes


@pytest.mark.parametrize(
    "program",
    [
        'BEGIN { print "x" |& "/inet/tcp/0/example.com/80" }',
        'BEGIN { getline l < "/inet4/tcp/0/example.com/80" }',
        'BEGIN { print "x" > "/inet6/udp/0/example.com/53" }',
    ],
)
def test_gawk_network_files_are_network(program: str) -> None:
    read = read_awk_program(program)
    assert read.network
    assert all(path is None or not path.startswith("/inet") for _, path in read.files)
