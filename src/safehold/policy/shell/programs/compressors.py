"""Compressors: gzip, xz, bzip2, zstd and the names they answer to (complete tables).

Each table lists every option of the program's help on Debian 12 (the version is in
`source`). What the operands are depends on the mode:

- gzip, xz and bzip2 replace each FILE by its (de)compressed sibling (`gzip f` writes
  `f.gz` and deletes `f`): the operands are deleted; `-k` keeps them and writes the
  sibling beside each (a write); `-c`, `-l` and `-t` only read them;
- zstd keeps its inputs by default and writes the sibling (a write); `--rm` deletes them;
  `-c`, `-l` and `--test` only read; `-o FILE` writes FILE, and then every operand is
  read as written too, because zstd gives `-o` the next word even inside a cluster
  (`-ok OUT IN`), where a table would give it the rest of the cluster;
- `zcat`, `bzcat`, `xzcat`, `zstdcat` only read.

None of them runs a program. Modes are picked by name in order (`table._read`): `keep`
and `move` come before `output` and `stdout`, so a conflicting pair reads the stricter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from safehold.policy.shell.programs.table import (
    NAMES_FROM_INPUT,
    WRITES_ANYWHERE,
    Opt,
    Program,
    RoleUse,
)
from safehold.policy.shell.programs.vocab import (
    DIGITS,
    HELP,
    flags,
    names_from,
    optional,
    valued,
    values,
)
from safehold.policy.shell.words import Word

__all__ = ["COMPRESSED_SUFFIXES", "PROGRAMS"]

_DECOMPRESS = "decompress"


def _siblings(
    suffix: str, strips: tuple[tuple[str, str], ...], *, unpacks: bool = False, other: str = ""
) -> Callable[[Sequence[RoleUse], frozenset[str]], list[Word]]:
    """The sibling each operand is (de)compressed into (`Program.siblings`): FILE+`suffix`
    compressing; FILE with a known ending replaced (`strips`: `.gz` by nothing, `.tgz` by
    `.tar`) decompressing (`unpacks`, or `-d`), or FILE+`other` when none is known (bzip2's
    `.out`; gzip and xz skip such a file). A computed operand gives a computed sibling."""

    def names(uses: Sequence[RoleUse], modes: frozenset[str]) -> list[Word]:
        back = unpacks or _DECOMPRESS in modes
        out: list[Word] = []
        for use in uses:
            word = use.word
            if use.option or use.role not in ("delete", "write"):
                continue  # `-c`, `-l`, `-t` read their operands; `-o F` is judged as given
            if not word.static:
                out.append(word)
                continue
            text = word.text
            if not back:
                out.append(Word(text + suffix, True, word.splits, word.home))
                continue
            ending = next((s for s in strips if text.endswith(s[0]) and text != s[0]), None)
            if ending is not None:
                named = text[: len(text) - len(ending[0])] + ending[1]
                out.append(Word(named, True, word.splits, word.home))
            elif other:
                out.append(Word(text + other, True, word.splits, word.home))
        return out

    return names


_KEEP = Opt(mode="keep")
_STDOUT = Opt(mode="stdout")
# gzip(1), "-d"/"-S": the endings gunzip recognises; `.tgz` and `.taz` become `.tar`.
_GZ_ENDINGS = (
    (".tgz", ".tar"), (".taz", ".tar"), (".gz", ""), ("-gz", ""), (".z", ""), ("-z", ""),
    ("_z", ""), (".Z", ""),
)  # fmt: skip
_GZ_SIBLINGS = _siblings(".gz", _GZ_ENDINGS)
_READS = {
    "keep": Program(operands="write", siblings=_GZ_SIBLINGS),
    "stdout": Program(operands="read"),
}
# `-S SUFFIX` names each sibling FILE+SUFFIX, or strips SUFFIX when decompressing (gzip(1),
# xz(1)): `gzip -S rc .bash` writes `.bashrc`. Read, and not understood.
_SUFFIX = Opt(takes=True, setting=lambda v: None)

# gzip 1.12 `--help` (getopt_long). `gunzip` is `gzip -d`, `zcat` is `gzip -cd`: scripts
# that pass every option on.
_GZIP_OPTIONS = {
    **HELP,
    **dict.fromkeys(("-c", "--stdout", "-l", "--list", "-t", "--test"), _STDOUT),
    **dict.fromkeys(("-k", "--keep"), _KEEP),
    **dict.fromkeys(("-S", "--suffix"), _SUFFIX),
    **dict.fromkeys(("-d", "--decompress"), Opt(mode=_DECOMPRESS)),
    **flags("-f", "--force", "-h", "-L", "--license", "-n"),
    **flags("--no-name", "-q", "--quiet", "-r", "--recursive", "--rsyncable"),
    # `-N`: decompressing, the file is named by the archive's header (its last component,
    # beside the input: `.envrc`, `.npmrc`), not by the input's name: a computed write.
    **dict.fromkeys(("-N", "--name"), Opt(mode=WRITES_ANYWHERE)),
    **flags("--synchronous", "-v", "--verbose", "-V", "--fast", "--best"),
    **flags(*(f"-{d}" for d in "123456789")),
}
_GZIP = "gzip 1.12 --help"
_GZIP_TABLE = Program(
    options=_GZIP_OPTIONS, operands="delete", modes=_READS, source=_GZIP, siblings=_GZ_SIBLINGS
)
_ZCAT = Program(options=_GZIP_OPTIONS, operands="read", source=f"zcat ({_GZIP})")

# XZ Utils 5.4.1 `xz --long-help` (getopt_long). `unxz`, `xzcat`, `lzma`, `unlzma`,
# `lzcat` are xz under other names: the same options.
_XZ_OPTIONS = {
    **HELP,
    **dict.fromkeys(("-c", "--stdout", "-l", "--list", "-t", "--test"), _STDOUT),
    **dict.fromkeys(("-k", "--keep"), _KEEP),
    # `--files[=FILE]`: the names to process, from FILE or standard input.
    **dict.fromkeys(
        ("--files", "--files0"),
        Opt(takes=True, optional=True, role="read", mode=NAMES_FROM_INPUT),
    ),
    **dict.fromkeys(("-S", "--suffix"), _SUFFIX),
    **dict.fromkeys(("-d", "--decompress"), Opt(mode=_DECOMPRESS)),
    **values("-F", "--format", "-C", "--check", "-T", "--threads"),
    **values("--block-size", "--block-list", "--flush-timeout", "--memlimit-compress"),
    **values("--memlimit-decompress", "--memlimit-mt-decompress", "-M", "--memlimit"),
    **optional("--lzma1", "--lzma2", "--x86", "--arm", "--armthumb", "--arm64", "--powerpc"),
    **optional("--ia64", "--sparc", "--delta"),
    **flags("-z", "--compress", "-f", "--force", "--single-stream"),
    **flags("--no-sparse", "--ignore-check", "-e", "--extreme", "--no-adjust", "-q"),
    **flags("--quiet", "-v", "--verbose", "-Q", "--no-warn", "--robot", "--info-memory"),
    **flags("-h", "-H", "--long-help", "-V", *DIGITS),
}
_XZ = "XZ Utils 5.4.1 xz --long-help"
# xz(1), "--suffix": `.xz` and `.txz` (`.tar`), `.lzma` and `.tlz` for `--format=lzma`.
_XZ_ENDINGS = ((".txz", ".tar"), (".tlz", ".tar"), (".xz", ""), (".lzma", ""))


def _xz(suffix: str, unpacks: bool) -> Program:
    siblings = _siblings(suffix, _XZ_ENDINGS, unpacks=unpacks)
    modes = {
        "keep": Program(operands="write", siblings=siblings),
        "stdout": Program(operands="read"),
    }
    return Program(
        options=_XZ_OPTIONS, operands="delete", modes=modes, source=_XZ, siblings=siblings
    )


_XZ_TABLE = _xz(".xz", unpacks=False)
_XZCAT = Program(options=_XZ_OPTIONS, operands="read", source=f"xzcat ({_XZ})")

# bzip2 1.0.8 `--help`: its own parser reads clusters (`-dc`) and long options spelled in
# full, no prefixes (`getopt`). `bunzip2` and `bzcat` are bzip2 under other names.
_BZIP2_OPTIONS = {
    **HELP,
    **dict.fromkeys(("-c", "--stdout", "-t", "--test"), _STDOUT),
    **dict.fromkeys(("-k", "--keep"), _KEEP),
    **dict.fromkeys(("-d", "--decompress"), Opt(mode=_DECOMPRESS)),
    **flags("-h", "-z", "--compress", "-f", "--force", "-q", "--quiet"),
    **flags("-v", "--verbose", "-L", "--license", "-V", "-s", "--small", "--fast", "--best"),
    **flags(*(f"-{d}" for d in "123456789")),
}
_BZIP2 = "bzip2 1.0.8 --help"
# bzip2(1): `.bz2`, `.bz`, `.tbz2` and `.tbz` (`.tar`); any other name gets `.out`.
_BZ_ENDINGS = ((".tbz2", ".tar"), (".tbz", ".tar"), (".bz2", ""), (".bz", ""))


def _bzip2(unpacks: bool) -> Program:
    siblings = _siblings(".bz2", _BZ_ENDINGS, unpacks=unpacks, other=".out")
    modes = {
        "keep": Program(operands="write", siblings=siblings),
        "stdout": Program(operands="read"),
    }
    return Program(
        options=_BZIP2_OPTIONS,
        operands="delete",
        modes=modes,
        parser="getopt",
        source=_BZIP2,
        siblings=siblings,
    )


_BZIP2_TABLE = _bzip2(unpacks=False)
_BZCAT = Program(
    options=_BZIP2_OPTIONS, operands="read", parser="getopt", source=f"bzcat ({_BZIP2})"
)

# zstd 1.5.4 `--help`: its own parser reads clusters with numbers glued to their letter
# (`-19`, `-T0`, `-M64`: each a glued value only) and long options spelled in full, no
# prefixes (`getopt`); `-o` and `-D` take the next word even inside a cluster.
_ZSTD_OPTIONS = {
    **HELP,
    **dict.fromkeys(("-c", "--stdout", "-l", "--test"), _STDOUT),
    **flags("-k", "--keep"),
    "--rm": Opt(mode="move"),
    "-o": Opt(takes=True, role="write", mode="output"),
    **valued("read", "-D", "--patch-from"),
    **valued("write", "--trace", "--output-dir-flat", "--output-dir-mirror"),
    **names_from("--filelist"),
    **optional("-T", "-B", "-M", "-b", "-e", "-i", "--fast", "--long", "--train-cover"),
    **optional("--train-fastcover", "--train-legacy"),
    **values("--auto-threads", "--stream-size", "--size-hint", "--target-compressed-block-size"),
    **values("--format", "--maxdict", "--dictID", "--priority"),
    **dict.fromkeys(("-d", "--decompress"), Opt(mode=_DECOMPRESS)),
    **flags("-f", "--force", "-h", "-H", "-V", "-v", "--verbose", "-q"),
    **flags("--quiet", "--progress", "--no-progress", "-r", "--asyncio", "--no-asyncio"),
    **flags("--check", "--no-check", "--ultra", "--adapt", "--single-thread", "--rsyncable"),
    **flags("--exclude-compressed", "--no-dictID", "--compress-literals"),
    **flags("--no-compress-literals", "--row-match-finder", "--no-row-match-finder"),
    **flags("--sparse", "--no-sparse", "--pass-through", "--no-pass-through", "--train", "-S"),
    **DIGITS,
}
_ZSTD = "zstd 1.5.4 --help"
# zstd(1): `.zst` and `.tzst` (`.tar`), and the other formats it decompresses.
_ZST_ENDINGS = (
    (".tzst", ".tar"), (".zst", ""), (".gz", ""), (".xz", ""), (".lzma", ""), (".lz4", ""),
)  # fmt: skip


def _zstd(unpacks: bool) -> Program:
    siblings = _siblings(".zst", _ZST_ENDINGS, unpacks=unpacks)
    modes = {
        "move": Program(operands="delete", siblings=siblings),
        "output": Program(operands="write"),
        "stdout": Program(operands="read"),
    }
    return Program(
        options=_ZSTD_OPTIONS,
        operands="write",
        modes=modes,
        parser="getopt",
        source=_ZSTD,
        siblings=siblings,
    )


_ZSTD_TABLE = _zstd(unpacks=False)
_ZSTDCAT = Program(
    options=_ZSTD_OPTIONS,
    operands="read",
    modes={"output": Program(operands="write")},
    parser="getopt",
    source=f"zstdcat ({_ZSTD})",
)

_GUNZIP_SIBLINGS = _siblings(".gz", _GZ_ENDINGS, unpacks=True)
PROGRAMS: dict[str, Program] = {
    "gzip": _GZIP_TABLE,
    "gunzip": Program(
        options=_GZIP_OPTIONS,
        operands="delete",
        modes={
            "keep": Program(operands="write", siblings=_GUNZIP_SIBLINGS),
            "stdout": Program(operands="read"),
        },
        source=f"gunzip ({_GZIP})",
        siblings=_GUNZIP_SIBLINGS,
    ),
    "zcat": _ZCAT,
    "xz": _XZ_TABLE,
    "unxz": _xz(".xz", unpacks=True),
    "lzma": _xz(".lzma", unpacks=False),
    "unlzma": _xz(".lzma", unpacks=True),
    "xzcat": _XZCAT,
    "lzcat": _XZCAT,
    "bzip2": _BZIP2_TABLE,
    "bunzip2": _bzip2(unpacks=True),
    "bzcat": _BZCAT,
    "zstd": _ZSTD_TABLE,
    "unzstd": _zstd(unpacks=True),
    "zstdcat": _ZSTDCAT,
}

# The suffixes a decompressor strips from the file it replaces: `gunzip Makefile.gz` writes
# `Makefile` (gzip 1.12 gzip(1) "-S": `.gz`, `-gz`, `.z`, `-z`, `_z`, `.Z`, and `.tgz`/`.taz`
# for `.tar`; xz 5.4 xz(1) "-d": `.xz`, `.txz`, `.lzma`, `.tlz`; bzip2 1.0.8 bzip2(1):
# `.bz2`, `.bz`, `.tbz2`, `.tbz`; zstd 1.5 zstd(1): `.zst`, `.tzst`; lz4 1.9 lz4(1): `.lz4`).
# The table's operands are the files replaced (deleted); `flows` reads the file written in
# their place from these, and any last suffix when `-S`/`--suffix` names another.
COMPRESSED_SUFFIXES: tuple[str, ...] = (
    ".gz", "-gz", ".z", "-z", "_z", ".Z", ".tgz", ".taz", ".xz", ".txz", ".lzma", ".tlz",
    ".bz2", ".bz", ".tbz2", ".tbz", ".zst", ".tzst", ".lz4",
)  # fmt: skip
