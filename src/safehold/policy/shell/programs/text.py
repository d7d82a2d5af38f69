"""Text and listing programs (coreutils, util-linux, diffutils, file): complete tables.

Each table lists every option of the program's `--help` on Debian 12 (the version is in
`source`), with its arity and the role of its value. Their operands are files they read
(`cat`, `head`, `wc`, `ls`, `diff`), or no file at all (`echo`, `tr`, `basename`: text).
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Program
from safehold.policy.shell.programs.vocab import (
    DIGITS,
    HELP,
    flags,
    names_from,
    optional,
    valued,
    values,
)

__all__ = ["PROGRAMS"]

_CU = "GNU coreutils 9.1 --help"
_ZERO = flags("-z", "--zero-terminated")
_QUIET = flags("-q", "--quiet", "--silent", "-v", "--verbose")

_CAT = Program(
    options={
        **HELP,
        **flags("-A", "--show-all", "-b", "--number-nonblank", "-e", "-E", "--show-ends"),
        **flags("-n", "--number", "-s", "--squeeze-blank", "-t", "-T", "--show-tabs", "-u"),
        **flags("-v", "--show-nonprinting"),
    },
    operands="read",
    source=f"cat ({_CU})",
)
_HEAD = Program(
    options={**HELP, **DIGITS, **_QUIET, **_ZERO, **values("-c", "--bytes", "-n", "--lines")},
    operands="read",
    source=f"head ({_CU})",
)
_TAIL = Program(
    options={
        **HELP,
        **DIGITS,
        **_QUIET,
        **_ZERO,
        **values("-c", "--bytes", "-n", "--lines", "--max-unchanged-stats", "--pid"),
        **values("-s", "--sleep-interval"),
        **optional("--follow"),
        **flags("-f", "-F", "--retry"),
    },
    operands="read",
    source=f"tail ({_CU})",
)
_NL = Program(
    options={
        **HELP,
        **flags("-p", "--no-renumber"),
        **values("-b", "--body-numbering", "-d", "--section-delimiter", "-f"),
        **values("--footer-numbering", "-h", "--header-numbering", "-i", "--line-increment"),
        **values("-l", "--join-blank-lines", "-n", "--number-format", "-s"),
        **values("--number-separator", "-v", "--starting-line-number", "-w", "--number-width"),
    },
    operands="read",
    source=f"nl ({_CU})",
)
_WC = Program(
    options={
        **HELP,
        **flags("-c", "--bytes", "-m", "--chars", "-l", "--lines", "-L", "--max-line-length"),
        **flags("-w", "--words"),
        **names_from("--files0-from"),
    },
    operands="read",
    source=f"wc ({_CU})",
)
_CUT = Program(
    options={
        **HELP,
        **_ZERO,
        **values("-b", "--bytes", "-c", "--characters", "-d", "--delimiter", "-f", "--fields"),
        **values("--output-delimiter"),
        **flags("-n", "--complement", "-s", "--only-delimited"),
    },
    operands="read",
    source=f"cut ({_CU})",
)
_TR = Program(
    options={
        **HELP,
        **flags("-c", "-C", "--complement", "-d", "--delete", "-s", "--squeeze-repeats"),
        **flags("-t", "--truncate-set1"),
    },
    source=f"tr ({_CU}); its operands are character sets",
)
# bash's builtin echo: `-n`, `-e`, `-E` (clusters of them); every other word is text.
_ECHO = Program(options=flags("-n", "-e", "-E"), parser="getopt", source="bash 5.2 help echo")
_PRINTF = Program(
    options={**HELP, **values("-v")},
    parser="exact",
    source=f"printf ({_CU}) and bash 5.2 help printf (`-v VAR`); operands are text",
)
_NOTHING = Program(options=HELP, parser="exact", source=f"true/false ({_CU})")
_PWD = Program(
    options={**HELP, **flags("-L", "--logical", "-P", "--physical")}, source=f"pwd ({_CU})"
)
_SEQ = Program(
    options={**HELP, **values("-f", "--format", "-s", "--separator"),
             **flags("-w", "--equal-width")},
    source=f"seq ({_CU}); operands are numbers",
)  # fmt: skip
_OD = Program(
    options={
        **HELP,
        **values("-A", "--address-radix", "--endian", "-j", "--skip-bytes", "-N"),
        **values("--read-bytes", "-S", "-t", "--format"),
        **optional("--strings", "-w", "--width"),
        **flags("-v", "--output-duplicates", "--traditional"),
        **flags(*(f"-{c}" for c in "abcdfilosx")),
    },
    operands="read",
    source=f"od ({_CU})",
)
_HEXDUMP = Program(
    options={
        **flags("-b", "--one-byte-octal", "-c", "--one-byte-char", "-C", "--canonical", "-d"),
        **flags("--two-bytes-decimal", "-o", "--two-bytes-octal", "-x", "--two-bytes-hex"),
        **flags("-v", "--no-squeezing", "-h", "--help", "-V", "--version"),
        **optional("-L", "--color"),
        **values("-e", "--format", "-n", "--length", "-s", "--skip"),
        **valued("read", "-f", "--format-file"),
    },
    operands="read",
    source="hexdump (util-linux 2.38.1 --help)",
)
_BASENAME = Program(
    options={**HELP, **flags("-z", "--zero", "-a", "--multiple"),
             **values("-s", "--suffix")},
    source=f"basename ({_CU}); operands are names, not opened",
)  # fmt: skip
_DIRNAME = Program(
    options={**HELP, **flags("-z", "--zero")},
    source=f"dirname ({_CU}); operands are names, not opened",
)
_REALPATH = Program(
    options={
        **HELP,
        **flags("-e", "--canonicalize-existing", "-m", "--canonicalize-missing", "-L"),
        **flags("--logical", "-P", "--physical", "-q", "--quiet", "-s", "--strip"),
        **flags("--no-symlinks", "-z", "--zero"),
        **valued("read", "--relative-to", "--relative-base"),
    },
    operands="read",
    source=f"realpath ({_CU})",
)
_READLINK = Program(
    options={
        **HELP,
        **flags("-f", "--canonicalize", "-e", "--canonicalize-existing", "-m"),
        **flags("--canonicalize-missing", "-n", "--no-newline", "-q", "--quiet", "-s"),
        **flags("--silent", "-v", "--verbose", "-z", "--zero"),
    },
    operands="read",
    source=f"readlink ({_CU})",
)
_STAT = Program(
    options={
        **HELP,
        **flags("-L", "--dereference", "-f", "--file-system", "-t", "--terse"),
        **values("--cached", "-c", "--format", "--printf"),
    },
    operands="read",
    source=f"stat ({_CU})",
)
_DU = Program(
    options={
        **HELP,
        **flags("-0", "--null", "-a", "--all", "--apparent-size", "-b", "--bytes", "-c"),
        **flags("--total", "-D", "--dereference-args", "-H", "-h", "--human-readable"),
        **flags("--inodes", "-k", "-L", "--dereference", "-l", "--count-links", "-m", "-P"),
        **flags("--no-dereference", "-S", "--separate-dirs", "--si", "-s", "--summarize"),
        **flags("-x", "--one-file-system"),
        **values("-B", "--block-size", "-d", "--max-depth", "-t", "--threshold"),
        **values("--time-style", "--exclude"),
        **optional("--time"),
        **valued("read", "-X", "--exclude-from"),
        **names_from("--files0-from"),
    },
    operands="read",
    source=f"du ({_CU})",
)
_DF = Program(
    options={
        **HELP,
        **flags("-a", "--all", "-h", "--human-readable", "-H", "--si", "-i", "--inodes"),
        **flags("-k", "-l", "--local", "--no-sync", "-P", "--portability", "--sync"),
        **flags("--total", "-T", "--print-type", "-v"),
        **values("-B", "--block-size", "-t", "--type", "-x", "--exclude-type"),
        **optional("--output"),
    },
    operands="read",
    source=f"df ({_CU})",
)
_LS = Program(
    options={
        **HELP,
        **flags("-a", "--all", "-A", "--almost-all", "--author", "-b", "--escape", "-B"),
        **flags("--ignore-backups", "-c", "-C", "-d", "--directory", "-D", "--dired", "-f"),
        **flags("-F", "--file-type", "--full-time", "-g", "--group-directories-first"),
        **flags("-G", "--no-group", "-h", "--human-readable", "--si", "-H"),
        **flags("--dereference-command-line", "--dereference-command-line-symlink-to-dir"),
        **flags("-i", "--inode", "-k", "--kibibytes", "-l", "-L", "--dereference", "-m"),
        **flags("-n", "--numeric-uid-gid", "-N", "--literal", "-o", "-p", "-q"),
        **flags("--hide-control-chars", "--show-control-chars", "-Q", "--quote-name", "-r"),
        **flags("--reverse", "-R", "--recursive", "-s", "--size", "-S", "-t", "-u", "-U"),
        **flags("-v", "-x", "-X", "-Z", "--context", "--zero", "-1"),
        **values("--block-size", "--format", "--hide", "--indicator-style", "-I", "--ignore"),
        **values("--quoting-style", "--sort", "--time", "--time-style", "-T", "--tabsize"),
        **values("-w", "--width"),
        **optional("--color", "--classify", "--hyperlink"),
    },
    operands="read",
    source=f"ls ({_CU})",
)
_FILE = Program(
    options={
        **flags("--help", "-v", "--version", "-z", "--uncompress", "-Z", "--uncompress-noreport"),
        **flags("-b", "--brief", "-c", "--checking-printout", "-i", "--mime"),
        **flags("--mime-encoding", "--apple", "--extension", "--mime-type", "-k"),
        **flags("--keep-going", "-l", "--list", "-L", "--dereference", "-h"),
        **flags("--no-dereference", "-n", "--no-buffer", "-N", "--no-pad", "-0", "--print0"),
        **flags("-p", "--preserve-date", "-r", "--raw", "-s", "--special-files", "-S"),
        **flags("--no-sandbox", "-d", "--debug"),
        **values("-e", "--exclude", "--exclude-quiet", "-F", "--separator", "-P"),
        **values("--parameter"),
        **valued("read", "-m", "--magic-file"),
        **names_from("-f", "--files-from"),
        # `-C`/`--compile` writes `NAME.mgc` into the current directory: left out (asks).
    },
    operands="read",
    source="file 5.44 --help",
)
_DIFF_VALUES = values(
    "-C", "-U", "-W", "--width", "-F", "--show-function-line", "--label", "--tabsize",
    "-x", "--exclude", "-S", "--starting-file", "-I", "--ignore-matching-lines", "-D",
    "--ifdef", "--line-format", "--horizon-lines", "--palette", "--old-group-format",
    "--new-group-format", "--unchanged-group-format", "--changed-group-format",
    "--old-line-format", "--new-line-format", "--unchanged-line-format",
)  # fmt: skip
_DIFF = Program(
    options={
        **HELP,
        **_DIFF_VALUES,
        **optional("--context", "--unified", "--color"),
        **valued("read", "-X", "--exclude-from", "--from-file", "--to-file"),
        **flags("--normal", "-q", "--brief", "-s", "--report-identical-files", "-c", "-u"),
        **flags("-e", "--ed", "-n", "--rcs", "-y", "--side-by-side", "--left-column"),
        **flags("--suppress-common-lines", "-p", "--show-c-function", "-t", "--expand-tabs"),
        **flags("-T", "--initial-tab", "--suppress-blank-empty", "-l", "--paginate", "-r"),
        **flags("--recursive", "--no-dereference", "-N", "--new-file"),
        **flags("--unidirectional-new-file", "--ignore-file-name-case"),
        **flags("--no-ignore-file-name-case", "-i", "--ignore-case", "-E"),
        **flags("--ignore-tab-expansion", "-Z", "--ignore-trailing-space", "-b"),
        **flags("--ignore-space-change", "-w", "--ignore-all-space", "-B"),
        **flags("--ignore-blank-lines", "-a", "--text", "--strip-trailing-cr", "-d"),
        **flags("--minimal", "--speed-large-files", "-v"),
    },
    operands="read",
    source="diff (GNU diffutils 3.8 --help)",
)
_WHICH = Program(
    options=flags("-a", "-s"),
    parser="getopt",
    source="which (debianutils 5.7, which(1)); operands are program names",
)

PROGRAMS: dict[str, Program] = {
    "cat": _CAT,
    "head": _HEAD,
    "tail": _TAIL,
    "nl": _NL,
    "wc": _WC,
    "cut": _CUT,
    "tr": _TR,
    "echo": _ECHO,
    "printf": _PRINTF,
    "true": _NOTHING,
    "false": _NOTHING,
    "pwd": _PWD,
    "seq": _SEQ,
    "od": _OD,
    "hexdump": _HEXDUMP,
    "basename": _BASENAME,
    "dirname": _DIRNAME,
    "realpath": _REALPATH,
    "readlink": _READLINK,
    "stat": _STAT,
    "du": _DU,
    "df": _DF,
    "ls": _LS,
    "file": _FILE,
    "diff": _DIFF,
    "which": _WHICH,
}
