"""Archives and patches: which words are the archive, what is packed, where files land.

`tar -c` reads its operands and writes the `-f` archive; `tar -x` reads the archive and
writes into the current directory (or `-C DIR`); `unzip` likewise; `zip ARCHIVE FILES…`
writes the archive. `patch` writes the files named inside the patch, which are not known
here (a computed write). `gzip FILE` replaces FILE by FILE.gz (a delete and a write).
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import NAMES_FROM_INPUT, Opt, Program
from safehold.policy.shell.programs.vocab import HELP, NAMES, flags, optional, valued, values

__all__ = ["PROGRAMS"]

_V = Opt(takes=True)
_READ = Opt(takes=True, role="read")
_WRITE = Opt(takes=True, role="write")
_CWD = Opt(takes=True, role="cwd")

_TAR_OPTIONS = {
    "-f": Opt(takes=True, role="write"), "--file": Opt(takes=True, role="write"),
    "-C": _CWD, "--directory": _CWD, "-T": NAMES, "--files-from": NAMES, "-X": _READ,
    "--exclude-from": _READ, "-g": _WRITE, "--listed-incremental": _WRITE,
    "-b": _V, "--blocking-factor": _V, "--exclude": _V, "-H": _V, "--format": _V,
    "-L": _V, "--tape-length": _V, "-N": _V, "--newer": _V, "--owner": _V,
    "--group": _V, "--mode": _V, "--mtime": _V, "--transform": _V, "--xform": _V,
    "--strip-components": _V, "-V": _V, "--label": _V, "--checkpoint": _V,
    "-I": Opt(takes=True, role="exec"), "--use-compress-program": Opt(takes=True, role="exec"),
    "--to-command": Opt(takes=True, role="exec"), "-F": Opt(takes=True, role="exec"),
    "--info-script": Opt(takes=True, role="exec"),
    "--new-volume-script": Opt(takes=True, role="exec"),
    "--rsh-command": Opt(takes=True, role="exec"),
    "-c": Opt(mode="create"), "--create": Opt(mode="create"),
    "-x": Opt(mode="extract"), "--extract": Opt(mode="extract"), "--get": Opt(mode="extract"),
    "-t": Opt(mode="list"), "--list": Opt(mode="list"), "-d": Opt(mode="list"),
    "--diff": Opt(mode="list"), "--compare": Opt(mode="list"),
    "-r": Opt(mode="create"), "--append": Opt(mode="create"), "-u": Opt(mode="create"),
    "--update": Opt(mode="create"), "-A": Opt(mode="create"), "--catenate": Opt(mode="create"),
    "--delete": Opt(mode="create"), "--remove-files": Opt(mode="move"),
}  # fmt: skip
_READS_ARCHIVE = {"-f": _READ, "--file": _READ}
_TAR = Program(
    options=_TAR_OPTIONS,
    operands="read",
    bundled_first=True,
    modes={
        # `-x`: the archive named by `-f` is only read, but what it holds lands in `.`
        # (or `-C DIR`), under names not known here.
        "extract": Program(options=_READS_ARCHIVE, implicit=(("write", "."),)),
        "list": Program(options=_READS_ARCHIVE),
        "move": Program(operands="delete"),
    },
)
_ZIP = Program(
    options={
        "-x": _V, "-i": _V, "-n": _V, "-P": _V, "--password": _V, "-b": _WRITE,
        "-t": _V, "-tt": _V, "-O": _WRITE, "--output-file": _WRITE,
        "-@": Opt(mode=NAMES_FROM_INPUT), "--names-stdin": Opt(mode=NAMES_FROM_INPUT),
        "-TT": Opt(takes=True, role="exec"), "--unzip-command": Opt(takes=True, role="exec"),
        "-m": Opt(mode="move"), "--move": Opt(mode="move"), "-d": Opt(mode="edit"),
        "--delete": Opt(mode="edit"),
    },
    operands="read",
    first="write",
    modes={
        "move": Program(operands="delete", first="write"),
        "edit": Program(first="write"),
    },
)  # fmt: skip
_UNZIP = Program(
    options={"-d": _WRITE, "-x": _V, "-P": _V, "-l": Opt(mode="list"), "-t": Opt(mode="list"),
             "-Z": Opt(mode="list"), "-p": Opt(mode="list"), "-c": Opt(mode="list")},
    first="read",
    implicit=(("write", "."),),
    modes={"list": Program(first="read")},
)  # fmt: skip
# Every option of GNU patch 2.7.6 but three left out, so that they ask: `-e`/`--ed` feeds
# the patch to `ed`, whose `!` runs commands; `-g`/`--get` runs RCS, SCCS or git to get files.
_PATCH = Program(
    options={
        **HELP,
        **valued("read", "-i", "--input"),
        **valued("write", "-o", "--output", "-r", "--reject-file"),
        # Backup files land at PREFIX + name: a directory the backups are written into.
        **valued("write", "-B", "--prefix", "-Y", "--basename-prefix"),
        **valued("cwd", "-d", "--directory"),
        **values("-p", "--strip", "-F", "--fuzz", "-D", "--ifdef", "-V", "--version-control"),
        **values("-z", "--suffix", "--quoting-style", "--reject-format", "--read-only"),
        **optional("--merge"),
        **flags("-l", "--ignore-whitespace", "-c", "--context", "-n", "--normal", "-u"),
        **flags("--unified", "-N", "--forward", "-R", "--reverse", "-E"),
        **flags("--remove-empty-files", "-Z", "--set-utc", "-T", "--set-time", "-b"),
        **flags("--backup", "--backup-if-mismatch", "--no-backup-if-mismatch", "-t"),
        **flags("--batch", "-f", "--force", "-s", "--quiet", "--silent", "--verbose"),
        **flags("--dry-run", "--posix", "--binary", "-v"),
    },
    first="write",
    last="read",
    implicit=(("write", None),),
    source="GNU patch 2.7.6 --help",
)
_COMPRESS = Program(
    options={"-S": _V, "--suffix": _V, "-c": Opt(mode="keep"), "--stdout": Opt(mode="keep"),
             "-k": Opt(mode="keep"), "--keep": Opt(mode="keep"), "-t": Opt(mode="keep"),
             "--test": Opt(mode="keep"), "-l": Opt(mode="keep"), "--list": Opt(mode="keep"),
             "-o": _WRITE, "-T": _V, "--threads": _V, "-b": _V},
    operands="delete",
    modes={"keep": Program(operands="read")},
)  # fmt: skip

PROGRAMS: dict[str, Program] = {
    "tar": _TAR,
    "bsdtar": _TAR,
    "zip": _ZIP,
    "unzip": _UNZIP,
    "patch": _PATCH,
    **dict.fromkeys(
        ("gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "lzma"),
        _COMPRESS,
    ),
}
