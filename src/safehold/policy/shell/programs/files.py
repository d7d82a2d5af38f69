"""coreutils and findutils file commands: what each operand and option value is to the file.

`cp SRC… DST` reads its sources and writes DST; `mv` removes its sources; `rm`, `shred`
delete; `chmod`/`chown` change permissions of everything after their first operand; `dd
of=` writes. Options not listed are read as flags, so their value counts as an operand:
that errs towards checking a word as a file rather than skipping one.
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Opt, Program

__all__ = ["PROGRAMS"]

_V = Opt(takes=True)  # an option with a value that names no file
_READ = Opt(takes=True, role="read")
_WRITE = Opt(takes=True, role="write")

_COPY_OPTIONS = {
    "-t": Opt(takes=True, role="write", mode="to-dir"),
    "--target-directory": Opt(takes=True, role="write", mode="to-dir"),
    "-S": _V,
    "--suffix": _V,
    "--backup": Opt(),
    "--reflink": Opt(),
    "--sparse": Opt(),
    "--preserve": Opt(),
    "--no-preserve": Opt(),
    "--context": Opt(),
}
# A mode for `-t DIR`: every operand is a source.
_CP = Program(
    options=_COPY_OPTIONS,
    operands="read",
    last="write",
    modes={"to-dir": Program(operands="read")},
)
_MV = Program(
    options=_COPY_OPTIONS,
    operands="delete",
    last="write",
    modes={"to-dir": Program(operands="delete")},
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
_LN = Program(
    options=_COPY_OPTIONS,
    operands="read",
    last="write",
    modes={"to-dir": Program(operands="read")},
)
_RECURSIVE = Opt(mode="recursive")
_DELETE = Program(
    options={"-r": _RECURSIVE, "-R": _RECURSIVE, "--recursive": _RECURSIVE, "--dir": Opt()},
    operands="delete",
)
_WRITE_ALL = Program(operands="write")
# `chmod -x f` spells a mode like an option: then there is no MODE operand to skip.
_MODE_WORD = Opt(mode="mode-given")
_CHMOD = Program(
    options={
        "--reference": Opt(takes=True, role="read", mode="mode-given"),
        **{f"-{c}": _MODE_WORD for c in "rwxXst"},
    },
    operands="perm",
    skip=1,
    modes={"mode-given": Program(operands="perm")},
)
_CHOWN = Program(
    options={"--reference": Opt(takes=True, role="read", mode="mode-given"), "--from": _V},
    operands="perm",
    skip=1,
    modes={"mode-given": Program(operands="perm")},
)
_FIND = Program(
    options={
        "-D": _V,
        "-delete": Opt(mode="delete"),
        "-fprint": _WRITE,
        "-fprint0": _WRITE,
        "-fprintf": _WRITE,
        "-fls": _WRITE,
        "-newer": _READ,
        "-anewer": _READ,
        "-cnewer": _READ,
        "-samefile": _READ,
        "-files0-from": _READ,
        **dict.fromkeys(
            (
                "-name",
                "-iname",
                "-path",
                "-ipath",
                "-wholename",
                "-iwholename",
                "-regex",
                "-iregex",
                "-lname",
                "-ilname",
                "-type",
                "-xtype",
                "-perm",
                "-user",
                "-group",
                "-uid",
                "-gid",
                "-size",
                "-mtime",
                "-atime",
                "-ctime",
                "-mmin",
                "-amin",
                "-cmin",
                "-maxdepth",
                "-mindepth",
                "-printf",
                "-inum",
                "-links",
                "-fstype",
                "-used",
                "-context",
                "-regextype",
            ),
            _V,
        ),
    },
    operands="read",
    leading_operands=True,
    modes={"delete": Program(operands="delete")},
)

PROGRAMS: dict[str, Program] = {
    "cp": _CP,
    "mv": _MV,
    "install": _INSTALL,
    "ln": _LN,
    "link": Program(operands="read", last="write"),
    "rm": _DELETE,
    "rmdir": _DELETE,
    "unlink": _DELETE,
    "shred": Program(options={"-n": _V, "-s": _V, "--random-source": _READ}, operands="delete"),
    "touch": Program(
        options={"-r": _READ, "--reference": _READ, "-d": _V, "--date": _V, "-t": _V},
        operands="write",
    ),
    "truncate": Program(
        options={"-s": _V, "--size": _V, "-r": _READ, "--reference": _READ}, operands="write"
    ),
    "mkdir": Program(options={"-m": _V, "--mode": _V, "--context": _V}, operands="write"),
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
    "tee": _WRITE_ALL,
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
    ),
    "csplit": Program(
        options={"-f": _WRITE, "--prefix": _WRITE, "-b": _V, "-n": _V},
        first="read",
    ),
    "find": _FIND,
    "sort": Program(
        options={
            "-o": _WRITE,
            "--output": _WRITE,
            "-T": _WRITE,
            "--temporary-directory": _WRITE,
            "-k": _V,
            "-t": _V,
            "-S": _V,
            "--files0-from": _READ,
            "--key": _V,
            "--field-separator": _V,
            "--buffer-size": _V,
            "--parallel": _V,
            "--batch-size": _V,
            "--compress-program": Opt(takes=True, role="exec"),
        },
        operands="read",
    ),
    "uniq": Program(operands="read", last="write"),
}
