"""The archive and compressor tables read words as the programs' own parsers do.

Each case is a reading a table-wide rule would get wrong: tar's old-style first word,
zip's lists, zstd's `-o` inside a cluster, the compressors' modes, names written anywhere.
"""

from __future__ import annotations

import pytest

from safehold.policy.shell.programs import PROGRAMS
from safehold.policy.shell.programs.table import read_roles
from safehold.policy.shell.programs.trees import walking
from safehold.policy.shell.words import Word


def _roles(command: str) -> set[tuple[str, str]]:
    words = tuple(Word(w, True) for w in command.split())
    program = PROGRAMS[words[0].text]
    return {
        (u.role, u.word.text if u.word.static else "<computed>")
        for u in read_roles(program, words).uses
    }


def test_old_style_letters_take_the_next_words_in_turn() -> None:
    # `tar cfz A src`: `f` takes `A`, not the rest of the cluster (`z`).
    assert _roles("tar cfz .git/hooks/pre-commit src") == {
        ("write", ".git/hooks/pre-commit"),
        ("read", "src"),
    }
    assert _roles("tar xfC a.tar out") >= {("read", "a.tar"), ("cwd", "out")}


def test_extraction_writes_its_members_and_the_current_directory() -> None:
    assert _roles("tar -xf a.tar .git/hooks/pre-commit") == {
        ("read", "a.tar"),
        ("write", ".git/hooks/pre-commit"),
        ("write", "."),
    }
    assert ("write", "<computed>") in _roles("tar -xPf a.tar")
    assert ("write", "<computed>") in _roles("unzip -: a.zip")
    assert ("write", "<computed>") not in _roles("tar -xf a.tar")


def test_a_zip_list_runs_to_the_next_option() -> None:
    # zip reads `out.zip` as a pattern of `-x`; the archive is `.git/hooks/pre-commit`.
    assert _roles("zip -x a out.zip -r .git/hooks/pre-commit src") == {
        ("write", ".git/hooks/pre-commit"),
        ("read", "src"),
    }
    assert _roles("zip -r out.zip src -x a b") == {("write", "out.zip"), ("read", "src")}
    # unzip's `-x` list: patterns, not members written.
    assert _roles("unzip a.zip -x .git/x b -d out") == {
        ("read", "a.zip"),
        ("write", "out"),
        ("write", "."),
    }


@pytest.mark.parametrize(
    ("command", "role"),
    [
        ("gzip f", "delete"),
        ("gzip -d f.gz", "delete"),
        ("gzip -k f", "write"),
        ("gzip -c f", "read"),
        ("gzip -kc f", "write"),
        ("zcat f.gz", "read"),
        ("xz -dk f.xz", "write"),
        ("bzip2 -t f.bz2", "read"),
        ("zstd f", "write"),
        ("zstd --rm f", "delete"),
        ("zstd -c f", "read"),
        ("zstd -c -o out f", "write"),
    ],
)
def test_compressor_modes_give_operands_their_role(command: str, role: str) -> None:
    last = command.rsplit(" ", 1)[1]
    assert {r for r, w in _roles(command) if w == last} == {role}


def test_zstd_gives_o_the_next_word_inside_a_cluster() -> None:
    # zstd reads `-ok X F` as `-o X -k F`: whichever word it writes, the table writes both.
    roles = _roles("zstd -ok .git/hooks/pre-commit f")
    assert ("write", ".git/hooks/pre-commit") in roles


@pytest.mark.parametrize(
    ("command", "unknown"),
    [
        ("zip -qr out.zip src", ("-qr",)),  # exact: a cluster is not read letter by letter
        ("tar -xf a.tar --checkpoint-action=exec=id", ("--checkpoint-action=exec=id",)),
        ("curl --engine x https://example.com", ("--engine",)),
        ("curl --out f https://example.com", ("--out",)),  # ambiguous prefix
        ("bzip2 --dec f", ("--dec",)),  # bzip2 takes long options in full only
    ],
)
def test_words_the_parser_would_not_read_as_the_table_does_are_unknown(
    command: str, unknown: tuple[str, ...]
) -> None:
    words = tuple(Word(w, True) for w in command.split())
    assert read_roles(PROGRAMS[words[0].text], words).unknown == unknown


def test_curl_and_tar_resolve_unique_prefixes() -> None:
    assert ("upload", "secret") in _roles("curl --upload-f secret https://example.com")
    assert ("exec", "sh") in _roles("tar -xf a.tar --to-comm sh")


@pytest.mark.parametrize(
    ("command", "follows"),
    [
        ("tar -czf o.tgz src", False),
        ("tar -czf o.tgz --dereference src", True),
        ("tar -czf o.tgz --deref src", True),  # argp takes the prefix
        ("tar czhf o.tgz src", True),
        ("gzip -rf src", True),
        ("gzip -r --force src", True),
        ("gzip -r --for src", True),
    ],
)
def test_tree_walks_read_abbreviated_options_as_the_program_does(
    command: str, follows: bool
) -> None:
    walk = walking(tuple(Word(w, True) for w in command.split()))
    assert walk is not None
    assert walk.follows is follows


@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("curl -O https://h/AGENTS.md", "AGENTS.md"),
        ("curl -O https://h/a/../b/./CLAUDE.md?x=1#top", "CLAUDE.md"),
        ("curl --output-dir .husky -O https://h/pre-commit", ".husky/pre-commit"),
        ("curl -sLO http://h:8080/x/tool.tgz", "tool.tgz"),
        ("wget https://h/docs/AGENTS.md", "AGENTS.md"),
        ("wget https://h/get?id=7#f", "get?id=7"),
        ("wget https://h/dir/", "index.html"),
        ("wget -P .git https://h/config", ".git/config"),
    ],
)
def test_curl_and_wget_write_the_file_the_url_names(command: str, written: str) -> None:
    assert ("write", written) in _roles(command)


@pytest.mark.parametrize(
    "command",
    [
        "curl -OJ https://h/download",
        "curl -O https://h/{AGENTS,x}.md",
        "curl -O https://h/[1-3].md",
        "wget -r https://h/",
        "wget -rnp https://h/docs/",
        "wget --content-disposition https://h/x",
        "wget --trust-server-names https://h/x",
    ],
)
def test_names_the_server_chooses_are_computed(command: str) -> None:
    assert ("write", "<computed>") in _roles(command)


def test_a_named_output_or_no_remote_name_writes_no_url_name() -> None:
    assert _roles("wget -O out.html https://h/AGENTS.md") >= {("write", "out.html")}
    assert ("write", "AGENTS.md") not in _roles("wget -O out.html https://h/AGENTS.md")
    assert ("write", "AGENTS.md") not in _roles("curl https://h/AGENTS.md")
    assert ("write", "x.md") in _roles("curl -g -O https://h/x.md")
