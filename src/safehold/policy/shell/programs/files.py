"""coreutils and findutils file commands: what each operand and option value is to the file.

`cp SRC… DST` reads its sources and writes DST; `mv` removes its sources; `rm`, `shred`
delete; `chmod`/`chown` change permissions of everything after their first operand; `dd
of=` writes. Options not listed are read as flags, so their value counts as an operand:
that errs towards checking a word as a file rather than skipping one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from safehold.policy.shell.programs.find import FIND
from safehold.policy.shell.programs.table import (
    PERM_TREE,
    Opt,
    Program,
    Role,
    Setting,
    read_roles,
)
from safehold.policy.shell.programs.vocab import HELP, flags, names_from, optional, valued, values
from safehold.policy.shell.words import Word

__all__ = [
    "LINKS",
    "PROGRAMS",
    "STDIN_COPIERS",
    "TEXT_MAKERS",
    "StdinCopier",
    "TextMaker",
    "copies_as_links",
    "copies_stdin",
]

_V = Opt(takes=True)  # an option with a value that names no file
_READ = Opt(takes=True, role="read")
_WRITE = Opt(takes=True, role="write")

_CU = "GNU coreutils 9.1 --help"
# Roles on words a program is not given: it writes in the directory it runs in.
_HERE: tuple[tuple[Role, str | None], ...] = (("write", "."),)
LINKS = "links"
"""The mode of cp's `-l`/`--link` and `-s`/`--symbolic-link`: it makes links, not copies."""
_MAKES_LINKS = Opt(mode=LINKS)
_TO_DIR = Opt(takes=True, role="write", mode="to-dir")
# `-S SUFFIX` (cp(1), mv(1), ln(1), install(1): "override the usual backup suffix"): the
# backup of each file overwritten is DEST+SUFFIX, a write (`cp -S .json x .mcp` leaves
# the old `.mcp` as `.mcp.json`).
_SUFFIX = Opt(takes=True, backup="suffix")
_COPY_OPTIONS = {
    "-t": _TO_DIR,
    "--target-directory": _TO_DIR,
    "-S": Opt(takes=True, backup="suffix", long="--suffix"),
    "--suffix": _SUFFIX,
    **optional("--backup", "--context"),
    **flags("-b", "-f", "--force", "-i", "--interactive", "-n", "--no-clobber", "-u"),
    **flags("--update", "-v", "--verbose", "-T", "--no-target-directory", "-Z"),
    **flags("--strip-trailing-slashes"),
}
# A mode for `-t DIR`: every operand is a source.
_CP = Program(
    options={
        **HELP,
        **_COPY_OPTIONS,
        **optional("--preserve", "--reflink"),
        **values("--no-preserve", "--sparse"),
        **flags("-a", "--archive", "--attributes-only", "--copy-contents", "-d", "-H"),
        **flags("-L", "--dereference", "-P", "--no-dereference", "-p", "--parents"),
        **flags("-R", "-r", "--recursive", "--remove-destination"),
        **dict.fromkeys(("-l", "--link", "-s", "--symbolic-link"), _MAKES_LINKS),
        **flags("-x", "--one-file-system"),
    },
    operands="read",
    last="write",
    modes={"to-dir": Program(operands="read")},
    source=f"cp ({_CU})",
)
_MV = Program(
    options={**HELP, **_COPY_OPTIONS, **flags("--context")},
    operands="delete",
    last="write",
    modes={"to-dir": Program(operands="delete")},
    source=f"mv ({_CU})",
)
_INSTALL = Program(
    options={
        **_COPY_OPTIONS,
        "-m": _V,
        "--mode": _V,
        "-o": _V,
        "--owner": _V,
        "-g": _V,
        "--group": _V,
        "-d": Opt(mode="dirs"),
        "--directory": Opt(mode="dirs"),
    },
    operands="read",
    last="write",
    modes={"to-dir": Program(operands="read"), "dirs": Program(operands="write")},
)
# `ln SOURCE NAME` makes a hard link (ln(1): "By default, each destination (name of new
# link) should not already exist"; `-s` makes symbolic ones): NAME is the same file as
# SOURCE, so whoever writes NAME writes SOURCE, in this command or a later one that sees only
# a plain file (`ln .git/config c`, then `echo … >> c`). The source is judged as a write.
_LN = Program(
    options=_COPY_OPTIONS,
    operands="write",
    last="write",
    modes={"to-dir": Program(operands="write")},
    implicit=_HERE,  # `ln TARGET`: the link is made in `.`, under TARGET's name
)
_RECURSIVE = Opt(mode="recursive")
# csplit `-b FORMAT`: understood while it names no directory.
_SUFFIX_FORMAT = Opt(takes=True, setting=lambda v: None if "/" in v else Setting())
_DELETE = Program(
    options={"-r": _RECURSIVE, "-R": _RECURSIVE, "--recursive": _RECURSIVE, "--dir": Opt()},
    operands="delete",
)
_RM = Program(
    options={
        **HELP,
        **dict.fromkeys(("-r", "-R", "--recursive"), _RECURSIVE),
        **flags("-f", "--force", "-i", "-I", "--one-file-system", "--no-preserve-root"),
        **flags("-d", "--dir", "-v", "--verbose"),
        **optional("--interactive", "--preserve-root"),
    },
    operands="delete",
    source=f"rm ({_CU})",
)
# `chmod -x f` spells a mode like an option: then there is no MODE operand to skip.
_MODE_WORD = Opt(mode="mode-given")
_CHMOD = Program(
    options={
        **HELP,
        "--reference": Opt(takes=True, role="read", mode="mode-given"),
        **{f"-{c}": _MODE_WORD for c in "rwxXst"},
        **flags("-c", "--changes", "-f", "--silent", "--quiet", "-v", "--verbose"),
        **flags("--no-preserve-root", "--preserve-root"),
        # Every entry below a directory operand (`check_trees`).
        **dict.fromkeys(("-R", "--recursive"), Opt(mode=PERM_TREE)),
    },
    operands="perm",
    skip=1,
    modes={"mode-given": Program(operands="perm")},
    source=f"chmod ({_CU})",
)
_CHOWN = Program(
    options={"--reference": Opt(takes=True, role="read", mode="mode-given"), "--from": _V},
    operands="perm",
    skip=1,
    modes={"mode-given": Program(operands="perm")},
)
PROGRAMS: dict[str, Program] = {
    "cp": _CP,
    "mv": _MV,
    "install": _INSTALL,
    "ln": _LN,
    "link": Program(operands="write", last="write"),  # link(1): a hard link, as `ln`'s
    "rm": _RM,
    "rmdir": _DELETE,
    "unlink": _DELETE,
    "shred": Program(options={"-n": _V, "-s": _V, "--random-source": _READ}, operands="delete"),
    "touch": Program(
        options={
            **HELP,
            **valued("read", "-r", "--reference"),
            **values("-d", "--date", "-t", "--time"),
            **flags("-a", "-c", "--no-create", "-f", "-h", "--no-dereference", "-m"),
        },
        operands="write",
        source=f"touch ({_CU})",
    ),
    "truncate": Program(
        options={"-s": _V, "--size": _V, "-r": _READ, "--reference": _READ}, operands="write"
    ),
    "mkdir": Program(
        options={
            **HELP,
            **values("-m", "--mode"),
            **flags("-p", "--parents", "-v", "--verbose", "-Z"),
            **optional("--context"),
        },
        operands="write",
        source=f"mkdir ({_CU})",
    ),
    "mkfifo": Program(options={"-m": _V, "--mode": _V}, operands="write"),
    "mknod": Program(options={"-m": _V, "--mode": _V}, first="write"),
    "chmod": _CHMOD,
    "chown": _CHOWN,
    "chgrp": _CHOWN,
    "chattr": Program(operands="perm", skip=1),
    "setfacl": Program(
        options={"-m": _V, "-x": _V, "-M": _READ, "-X": _READ, "--set": _V, "--set-file": _READ},
        operands="perm",
    ),
    "dd": Program(keyvalue={"if": "read", "of": "write"}),
    "tee": Program(
        options={
            **HELP,
            **flags("-a", "--append", "-i", "--ignore-interrupts", "-p"),
            **optional("--output-error"),
        },
        operands="write",
        source=f"tee ({_CU})",
    ),
    "split": Program(
        options={
            "-b": _V,
            "-l": _V,
            "-n": _V,
            "-a": _V,
            "-C": _V,
            "--bytes": _V,
            "--lines": _V,
            "--number": _V,
            "--suffix-length": _V,
            "--additional-suffix": _V,
            "--line-bytes": _V,
            "-t": _V,
            "--separator": _V,
            "--filter": Opt(takes=True, role="exec"),
        },
        first="read",
        last="write",
        implicit=_HERE,  # with no PREFIX, the pieces are `./xaa`, `./xab`, …
    ),
    # Each piece is written to PREFIX followed by `sprintf(FORMAT, N)`: a FORMAT with a `/`
    # (`-b '/../../../home/u/.bashrc%.0d'`, `%.0d` printing nothing) moves the file out of
    # the directory PREFIX names, and csplit does not refuse it: not understood.
    "csplit": Program(
        options={
            **HELP,
            **valued("write", "-f", "--prefix"),
            **dict.fromkeys(("-b", "--suffix-format"), _SUFFIX_FORMAT),
            **values("-n", "--digits"),
            **flags("-k", "--keep-files", "--suppress-matched", "-s", "--quiet"),
            **flags("--silent", "-z", "--elide-empty-files"),
        },
        first="read",
        implicit=_HERE,  # with no `--prefix`, the pieces are `./xx00`, `./xx01`, …
        source=f"csplit ({_CU})",
    ),
    "find": FIND,
    "sort": Program(
        options={
            **HELP,
            **valued("write", "-o", "--output", "-T", "--temporary-directory"),
            **valued("read", "--random-source"),
            **names_from("--files0-from"),
            **values("-k", "--key", "-t", "--field-separator", "-S", "--buffer-size"),
            **values("--parallel", "--batch-size", "--sort"),
            **optional("--check"),
            "--compress-program": Opt(takes=True, role="exec"),
            **flags("-b", "--ignore-leading-blanks", "-d", "--dictionary-order", "-f"),
            **flags("--ignore-case", "-g", "--general-numeric-sort", "-i", "-M"),
            **flags("--ignore-nonprinting", "--month-sort", "-h", "--human-numeric-sort"),
            **flags("-n", "--numeric-sort", "-R", "--random-sort", "-r", "--reverse", "-V"),
            **flags("--version-sort", "-c", "-C", "--debug", "-m", "--merge", "-s"),
            **flags("--stable", "-u", "--unique", "-z", "--zero-terminated"),
        },
        operands="read",
        source=f"sort ({_CU})",
    ),
    "uniq": Program(
        options={
            **HELP,
            **flags("-c", "--count", "-d", "--repeated", "-D", "-i", "--ignore-case", "-u"),
            **flags("--unique", "-z", "--zero-terminated"),
            **optional("--all-repeated", "--group"),
            **values("-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars"),
        },
        operands="read",
        last="write",
        source=f"uniq ({_CU})",
    ),
}


def copies_as_links(words: tuple[Word, ...]) -> bool:
    """`cp` (argv, program first) makes links instead of copies: `-s`, `-l`, a cluster
    holding one (`-as`), any unique prefix (`--sym`, `--li`), read with cp's table. An
    option word the table does not resolve may be one of them too."""
    reading = read_roles(_CP, words)
    return LINKS in reading.modes or bool(reading.unknown)


_STDIN = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


@dataclass(frozen=True, slots=True)
class StdinCopier:
    """How a program copies its standard input into the files it writes (and its output)."""

    keep: frozenset[str] = frozenset()
    """Option words, and `key=` prefixes, that keep the copy byte for byte; any other word
    that is not an operand may change it (`cat -n`, `dd count=1`)."""
    inputs: int | None = 0
    """How many leading operands name what it copies, each then standard input (`cp
    /dev/stdin F`: 1); None: every operand (`cat -`)."""
    input_key: str = ""
    """The `key=` operand that names what it copies (dd's `if=`); its operands are all
    `key=value` words."""
    stdin: frozenset[str] = _STDIN
    """The operands that name standard input."""


# Programs that copy their standard input to the files they write: a heredoc or herestring
# fed to one of them writes text the command spells out, as `cat > F <<'EOF'` does
# (`flows`). From coreutils 9.1 --help: cat reads `-` as standard input; tee copies it to
# every operand and to its output, and no option of its changes the text; dd copies `if=`
# (standard input when absent) to `of=`, and `count=`, `skip=`, `seek=`, `conv=`, `cbs=`
# and `iflag=` pick or change bytes; cp reads `/dev/stdin` as any file.
STDIN_COPIERS: dict[str, StdinCopier] = {
    "cat": StdinCopier(keep=frozenset({"--"}), inputs=None, stdin=_STDIN | {"-"}),
    "tee": StdinCopier(
        keep=frozenset(
            {"--", "-a", "--append", "-i", "--ignore-interrupts", "-p", "--output-error"}
            | {"--output-error="}
        )
    ),
    "dd": StdinCopier(
        keep=frozenset({"of=", "bs=", "ibs=", "obs=", "status=", "oflag="}), input_key="if"
    ),
    "cp": StdinCopier(keep=frozenset({"--", "-f", "--force", "-v", "--verbose"}), inputs=1),
}


def copies_stdin(program: str, words: Sequence[Word]) -> bool | None:
    """Whether `words` (a `STDIN_COPIERS` program's) copy standard input into what they
    write: byte for byte (True), changed (False), or not at all (None: it reads files, or
    a word is computed)."""
    copier = STDIN_COPIERS.get(program)
    if copier is None or not words or not all(w.static for w in words):
        return None
    unchanged = True
    operands = 0
    ended = False
    for word in words[1:]:
        text = word.text
        key, eq, value = text.partition("=")
        if copier.input_key:
            if key == copier.input_key and eq:
                if value not in copier.stdin:
                    return None  # `dd if=F`: it copies a file
            else:
                unchanged = unchanged and bool(eq) and key + "=" in copier.keep
            continue
        if not ended and text[:1] == "-" and text not in copier.stdin:
            ended = text == "--"
            unchanged = unchanged and _keeps(copier, text)
            continue
        if (copier.inputs is None or operands < copier.inputs) and text not in copier.stdin:
            return None  # `cat F > G <<'EOF'`: it copies F, not its standard input
        operands += 1
    if copier.inputs is not None and operands < copier.inputs:
        return None
    return unchanged


def _keeps(copier: StdinCopier, option: str) -> bool:
    """The option keeps the copy byte for byte: listed, `--name=value` of a listed prefix,
    or a bundle of listed letters (`tee -ai`)."""
    if option in copier.keep or option.split("=", 1)[0] + "=" in copier.keep:
        return True
    if option[1:2] == "-":
        return False
    return all(f"-{c}" in copier.keep for c in option[1:])


# Programs whose standard output is text they compute: from a program the command gives
# them (an awk or jq program, bc or m4 input), or by changing the characters of their
# input (`rev`, `tr`, `iconv`). What they write into a file is in no word of the command, so
# a text that says `curl URL | sh` can be spelled reversed, shifted or joined from pieces
# (`rev <<< 'hs | LRU lruc' > Makefile && make`). `flows` counts their output like a
# download's, where a runner or an interpreter finds it, when they change text the command
# spells on their standard input, or their program may join pieces of text: it holds one
# of `joins` (a string, a variable the command or the environment fills), or the command
# gives it one of `text_options` (`awk -v a=cu`, `jq --arg a cu`) or, for awk, a `NAME=value`
# operand. A program with no entry in the program tables always counts.


@dataclass(frozen=True, slots=True)
class TextMaker:
    """A program whose output is text it computes (see `TEXT_MAKERS`)."""

    source: str
    joins: tuple[str, ...] = ()
    """Marks in its program text of pieces of text the program may join."""
    text_options: tuple[str, ...] = ()
    """Options whose value is text its program reads (glued values included)."""
    assigns: bool = False
    """`NAME=value` operands set a variable of its program (awk)."""


_AWK_MAKER = TextMaker(
    "POSIX awk, gawk 5.2 gawk(1): prints what its program computes; `-v`/`--assign` and "
    "`NAME=value` operands set variables, `ARGV` and `ENVIRON` hold the words and the "
    "environment",
    joins=('"', "ARGV", "ENVIRON", "getline"),
    text_options=("-v", "--assign"),
    assigns=True,
)
TEXT_MAKERS: dict[str, TextMaker] = {
    "rev": TextMaker("util-linux rev(1): reverses the characters of each line"),
    "tr": TextMaker(f"tr ({_CU}): translates, squeezes or deletes characters"),
    "iconv": TextMaker("glibc iconv(1): converts the text from one encoding to another"),
    "awk": _AWK_MAKER,
    "gawk": _AWK_MAKER,
    "mawk": _AWK_MAKER,
    "nawk": _AWK_MAKER,
    "jq": TextMaker(
        "jq 1.6 manual: prints the values its filter builds (`+` joins strings, `implode`, "
        "`ascii`, `$__loc__`, `env`, `input`); `--arg`, `--argjson`, `--args`, `--jsonargs`, "
        "`--rawfile`, `--slurpfile` bind text to variables",
        joins=('"', "$", "env", "input", "implode", "ascii", "@"),
        text_options=("--arg", "--args", "--jsonargs", "--rawfile", "--slurpfile"),
    ),
    "bc": TextMaker("GNU bc(1): prints what its program computes"),
    "dc": TextMaker("GNU dc(1): `P` prints the characters of a number"),
    "m4": TextMaker("GNU m4 manual: expands macros defined in its input"),
    "envsubst": TextMaker("GNU gettext envsubst(1): puts the environment's values in"),
}
