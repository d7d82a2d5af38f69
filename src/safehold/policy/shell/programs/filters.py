"""Everyday filters, encoders, checksums and comparers (coreutils, diffutils, util-linux,
glibc iconv, xxd): complete tables, next to `text.py`'s.

Each table lists every option of the program's `--help` on Debian 12 (the version is in
`source`), with its arity and the role of its value. Their operands are files they read;
the few that write say so: `xxd IN OUT` and `ptx IN OUT` write their second operand
(`last="write"`), `shuf -o`, `iconv -o` and `sdiff -o` write, and `sdiff`/`diff3
--diff-program` run a program. `sha256sum -c LIST` (and every checksum program's
`-c`/`--check`) reads the files LIST names: names nobody saw (`NAMES_FROM_INPUT`), which
ask without the sandbox.
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import NAMES_FROM_INPUT, Opt, Program, Role
from safehold.policy.shell.programs.vocab import HELP, flags, optional, valued, values

__all__ = ["PROGRAMS"]

_CU = "GNU coreutils 9.1 --help"
_UL = "util-linux 2.38.1 --help"
_DU = "GNU diffutils 3.8 --help"
_ZERO = flags("-z", "--zero-terminated")
_UL_HELP = flags("-h", "--help", "-V", "--version")


def _reads(
    name: str,
    options: dict[str, Opt],
    source: str = _CU,
    *,
    skip: int = 0,
    last: Role | None = None,
) -> Program:
    """A program that reads its operands (standard input when none), its table complete."""
    return Program(
        options=options, operands="read", skip=skip, last=last, source=f"{name} ({source})"
    )


_ENCODE = {
    **HELP,
    **flags("-d", "--decode", "-i", "--ignore-garbage"),
    **values("-w", "--wrap"),
}
_BASENC = {
    **_ENCODE,
    **flags("--base64", "--base64url", "--base32", "--base32hex", "--base16"),
    **flags("--base2msbf", "--base2lsbf", "--z85"),
}
# `-c`/`--check`: the operands are lists of checksums and file names; the files they name
# are read (computed paths: `NAMES_FROM_INPUT`).
_CHECK = Opt(mode=NAMES_FROM_INPUT)
_SUM_COMMON = {
    **HELP,
    "-c": _CHECK,
    "--check": _CHECK,
    **flags("--tag", "-z", "--zero", "--ignore-missing", "--quiet", "--status"),
    **flags("--strict", "-w", "--warn"),
}
_SUM = {**_SUM_COMMON, **flags("-b", "--binary", "-t", "--text")}
_B2SUM = {**_SUM, **values("-l", "--length")}
# cksum 9.1; `--base64` and `--raw` (coreutils 9.2) only change how the sum is printed.
_CKSUM = {
    **_SUM_COMMON,
    **values("-a", "--algorithm", "-l", "--length"),
    **flags("--untagged", "--debug", "--base64", "--raw"),
}
_SUMS = {
    name: _reads(name, options)
    for name, options in (
        ("md5sum", _SUM),
        ("sha1sum", _SUM),
        ("sha224sum", _SUM),
        ("sha256sum", _SUM),
        ("sha384sum", _SUM),
        ("sha512sum", _SUM),
        ("b2sum", _B2SUM),
        ("cksum", _CKSUM),
    )
}

_CMP = {
    **flags("--help", "-v", "--version", "-b", "--print-bytes", "-l", "--verbose"),
    **flags("-s", "--quiet", "--silent"),
    **values("-i", "--ignore-initial", "-n", "--bytes"),
}
_SDIFF = {
    **flags("--help", "-v", "--version", "-i", "--ignore-case", "-E"),
    **flags("--ignore-tab-expansion", "-Z", "--ignore-trailing-space", "-b"),
    **flags("--ignore-space-change", "-W", "--ignore-all-space", "-B"),
    **flags("--ignore-blank-lines", "--strip-trailing-cr", "-a", "--text", "-l"),
    **flags("--left-column", "-s", "--suppress-common-lines", "-t", "--expand-tabs", "-d"),
    **flags("--minimal", "-H", "--speed-large-files"),
    **values("-I", "--ignore-matching-lines", "-w", "--width", "--tabsize"),
    **valued("write", "-o", "--output"),
    **valued("exec", "--diff-program"),
}
_DIFF3 = {
    **flags("--help", "-v", "--version", "-A", "--show-all", "-e", "--ed", "-E"),
    **flags("--show-overlap", "-3", "--easy-only", "-x", "--overlap-only", "-X", "-i"),
    **flags("-m", "--merge", "-a", "--text", "--strip-trailing-cr", "-T", "--initial-tab"),
    **values("-L", "--label"),
    **valued("exec", "--diff-program"),
}
_SHUF = {
    **HELP,
    **_ZERO,
    **flags("-e", "--echo", "-r", "--repeat"),
    **values("-i", "--input-range", "-n", "--head-count"),
    **valued("write", "-o", "--output"),
    **valued("read", "--random-source"),
}
# glibc's iconv (argp: unique prefixes of long options, `-?` for help).
_ICONV = {
    **flags("-l", "--list", "-c", "-s", "--silent", "--verbose", "-?", "--help", "--usage"),
    **flags("-V", "--version"),
    **values("-f", "--from-code", "-t", "--to-code"),
    **valued("write", "-o", "--output"),
}
# xxd's own parser matches option words by their first letters (`-autoskip` is `-a`):
# only the spellings of its `-h` are understood (`exact`); any other asks. `-R WHEN`
# (colour) is newer xxd's. `xxd [-r] IN OUT` writes OUT.
_XXD = {
    **flags("-a", "-b", "-C", "-E", "-e", "-h", "-i", "-ps", "-p", "-r", "-d", "-u", "-v"),
    **values("-c", "-g", "-l", "-n", "-o", "-s", "-R"),
}
_COLUMN = {
    **_UL_HELP,
    **flags("-t", "--table", "-d", "--table-noheadings", "-e", "--table-header-repeat"),
    **flags("-L", "--keep-empty-lines", "-J", "--json", "-x", "--fillrows"),
    **flags("-m", "--table-maxout"),  # util-linux 2.39, with `-C` and `-S`
    **values("-C", "--table-column", "-S", "--use-spaces"),
    **values("-n", "--table-name", "-O", "--table-order", "-N", "--table-columns", "-l"),
    **values("--table-columns-limit", "-E", "--table-noextreme", "-H", "--table-hide"),
    **values("-R", "--table-right", "-T", "--table-truncate", "-W", "--table-wrap", "-r"),
    **values("--tree", "-i", "--tree-id", "-p", "--tree-parent", "-c", "--output-width"),
    **values("-o", "--output-separator", "-s", "--separator"),
}
_LOOK = {
    **_UL_HELP,
    **flags("-a", "--alternative", "-d", "--alphanum", "-f", "--ignore-case"),
    **values("-t", "--terminate"),
}
_PTX = {
    **HELP,
    **flags("-A", "--auto-reference", "-G", "--traditional", "-O", "-R", "--right-side-refs"),
    **flags("-T", "-f", "--ignore-case", "-r", "--references", "-t", "--typeset-mode"),
    **values("-F", "--flag-truncation", "-M", "--macro-name", "--format", "-S"),
    **values("--sentence-regexp", "-W", "--word-regexp", "-g", "--gap-size", "-w", "--width"),
    **valued("read", "-b", "--break-file", "-i", "--ignore-file", "-o", "--only-file"),
}

PROGRAMS: dict[str, Program] = {
    "tac": _reads(
        "tac",
        {**HELP, **flags("-b", "--before", "-r", "--regex"), **values("-s", "--separator")},
    ),
    "rev": _reads("rev", _UL_HELP, _UL),
    "fold": _reads(
        "fold", {**HELP, **flags("-b", "--bytes", "-s", "--spaces"), **values("-w", "--width")}
    ),
    "fmt": _reads(
        "fmt",
        {
            **HELP,
            **flags("-c", "--crown-margin", "-s", "--split-only", "-t", "--tagged-paragraph"),
            **flags("-u", "--uniform-spacing"),
            **values("-p", "--prefix", "-w", "--width", "-g", "--goal"),
        },
    ),
    "expand": _reads("expand", {**HELP, **flags("-i", "--initial"), **values("-t", "--tabs")}),
    "unexpand": _reads(
        "unexpand", {**HELP, **flags("-a", "--all", "--first-only"), **values("-t", "--tabs")}
    ),
    "comm": _reads(
        "comm",
        {
            **HELP,
            **_ZERO,
            **flags("-1", "-2", "-3", "--check-order", "--nocheck-order", "--total"),
            **values("--output-delimiter"),
        },
    ),
    "join": _reads(
        "join",
        {
            **HELP,
            **_ZERO,
            **values("-a", "-e", "-j", "-o", "-t", "-v", "-1", "-2"),
            **flags("-i", "--ignore-case", "--check-order", "--nocheck-order", "--header"),
        },
    ),
    "paste": _reads(
        "paste", {**HELP, **_ZERO, **flags("-s", "--serial"), **values("-d", "--delimiters")}
    ),
    "tsort": _reads("tsort", HELP),
    "base64": _reads("base64", _ENCODE),
    "base32": _reads("base32", _ENCODE),
    "basenc": _reads("basenc", _BASENC),
    **_SUMS,
    "cmp": _reads("cmp", _CMP, _DU),
    "sdiff": _reads("sdiff", _SDIFF, _DU),
    "diff3": _reads("diff3", _DIFF3, _DU),
    "shuf": _reads("shuf", _SHUF),
    "iconv": _reads("iconv", _ICONV, "glibc 2.36 --help"),
    "xxd": Program(
        options=_XXD,
        operands="read",
        last="write",
        parser="exact",
        options_first=True,  # `xxd IN -r` writes a file named `-r`
        source="xxd 2022-01-14 (vim 9.0) -h",
    ),
    "column": _reads("column", _COLUMN, _UL),
    "look": _reads("look", _LOOK, _UL, skip=1),
    # GNU ptx reads every operand; `ptx -G IN OUT` (and so erring, any second) writes OUT.
    "ptx": _reads("ptx", _PTX, last="write"),
    "numfmt": Program(
        options={
            **HELP,
            **_ZERO,
            **flags("--debug", "--grouping"),
            **values("-d", "--delimiter", "--field", "--format", "--from", "--from-unit"),
            **values("--invalid", "--padding", "--round", "--suffix", "--to", "--to-unit"),
            **optional("--header"),
        },
        source=f"numfmt ({_CU}); operands are numbers",
    ),
    "factor": Program(
        # `-h`/`--exponents`: coreutils 9.3.
        options={**HELP, **flags("-h", "--exponents")},
        source=f"factor ({_CU}); operands are numbers",
    ),
    "yes": Program(options=HELP, source=f"yes ({_CU}); operands are text"),
}
