"""Archives and patches: which words are the archive, what is packed, where files land.

`tar -c` reads its operands and writes the `-f` archive; `tar -x` reads the archive and
writes into the current directory (or `-C DIR`); `unzip` likewise; `zip ARCHIVE FILES…`
writes the archive. `patch` writes the files named inside the patch, which are not known
here (a computed write). `gzip FILE` replaces FILE by FILE.gz (a delete and a write).
"""

from __future__ import annotations

from dataclasses import replace

from safehold.policy.shell.programs.table import NAMES_FROM_INPUT, WRITES_ANYWHERE, Opt, Program
from safehold.policy.shell.programs.vocab import HELP, flags, names_from, optional, valued, values

__all__ = ["LOCAL_ARCHIVE", "PROGRAMS", "TAR"]

LOCAL_ARCHIVE = "local-archive"
"""The mode of tar's `--force-local`: an archive name with a `:` is a local file, not
`HOST:FILE` on another machine (`command_strings` makes that remote form opaque)."""

_V = Opt(takes=True)
_READ = Opt(takes=True, role="read")
_WRITE = Opt(takes=True, role="write")
_CWD = Opt(takes=True, role="cwd")

# GNU tar 1.34 `--help`, every option. Left out, so that they ask: `--checkpoint-action`
# (`exec=CMD` runs a command; its other actions print). Its parser is argp (getopt_long:
# unique prefixes, `tar --to-comm=CMD`), and an old-style first word (`tar czf A src`)
# gives each letter that takes a value the next word in turn (`table._old_style`).
_TAR_MODE = {
    **dict.fromkeys(("-c", "--create", "-r", "--append", "-u", "--update"), Opt(mode="create")),
    **dict.fromkeys(("-A", "--catenate", "--concatenate", "--delete"), Opt(mode="create")),
    **dict.fromkeys(("-x", "--extract", "--get"), Opt(mode="extract")),
    **dict.fromkeys(("-t", "--list", "--test-label"), Opt(mode="list")),
    # `-d`: compares the members with the files of the same names under `.` (or `-C`).
    **dict.fromkeys(("-d", "--diff", "--compare"), Opt(mode="compare")),
}
_TAR_OPTIONS = {
    **HELP,
    **_TAR_MODE,
    **flags("-?", "--usage", "--restrict", "--show-defaults", "--show-snapshot-field-ranges"),
    # The archive: written by -c/-r/-u/-A/--delete, read by -x/-t/-d (the modes below).
    **valued("write", "-f", "--file"),
    **valued("cwd", "-C", "--directory"),
    **names_from("-T", "--files-from"),
    **valued("read", "-X", "--exclude-from", "--exclude-ignore", "--exclude-ignore-recursive"),
    **valued("read", "--add-file", "--group-map", "--owner-map"),
    # DATE-OR-FILE: a date, or a file whose time is taken.
    **valued("read", "--mtime", "-N", "--newer", "--after-date"),
    **valued("write", "-g", "--listed-incremental", "--index-file", "--volno-file"),
    # `--one-top-level[=DIR]`: extracted files go under DIR (default: the archive's name).
    "--one-top-level": Opt(takes=True, optional=True, role="write"),
    # Programs tar runs (re-analysed as commands; `programs.command_strings`).
    **valued("exec", "-I", "--use-compress-program", "--to-command", "-F", "--info-script"),
    **valued("exec", "--new-volume-script", "--rmt-command", "--rsh-command"),
    # Names inside the archive or the trees, patterns, numbers, formats, owners, texts.
    **values("--exclude", "--exclude-tag", "--exclude-tag-all", "--exclude-tag-under"),
    **values("-K", "--starting-file", "--newer-mtime", "--strip-components", "--transform"),
    **values("--xform", "--hole-detection", "--level", "--sparse-version", "--group"),
    **values("--mode", "--owner", "--sort", "--xattrs-exclude", "--xattrs-include", "-L"),
    **values("--tape-length", "-b", "--blocking-factor", "--record-size", "-H", "--format"),
    **values("--pax-option", "-V", "--label", "--suffix", "--no-quote-chars", "--quote-chars"),
    **values("--quoting-style", "--warning"),
    **optional("--occurrence", "--atime-preserve", "--backup", "--checkpoint", "--totals"),
    **flags("--check-device", "-G", "--incremental", "--ignore-failed-read", "--no-check-device"),
    **flags("--no-seek", "-n", "--seek", "-S", "--sparse", "--exclude-backups"),
    **flags("--exclude-caches", "--exclude-caches-all", "--exclude-caches-under"),
    **flags("--exclude-vcs", "--exclude-vcs-ignores", "--no-null", "--no-recursion"),
    **flags("--no-unquote", "--no-verbatim-files-from", "--null", "--recursion", "--unquote"),
    **flags("--verbatim-files-from", "--anchored", "--ignore-case", "--no-anchored"),
    **flags("--no-ignore-case", "--no-wildcards", "--no-wildcards-match-slash", "--wildcards"),
    **flags("--wildcards-match-slash", "--keep-newer-files", "-k", "--keep-old-files"),
    **flags("--no-overwrite-dir", "--overwrite", "--overwrite-dir", "--recursive-unlink"),
    **flags("--skip-old-files", "-U", "--unlink-first", "-W", "--verify"),
    **flags("--ignore-command-error", "--no-ignore-command-error", "-O", "--to-stdout"),
    **flags("--clamp-mtime", "--delay-directory-restore", "-m", "--touch"),
    **flags("--no-delay-directory-restore", "--no-same-owner", "--no-same-permissions"),
    **flags("--numeric-owner", "-p", "--preserve-permissions", "--same-permissions"),
    **flags("--same-owner", "-s", "--preserve-order", "--same-order", "--acls", "--no-acls"),
    **flags("--no-selinux", "--no-xattrs", "--selinux", "--xattrs", "-M"),
    "--force-local": Opt(mode=LOCAL_ARCHIVE),
    **flags("--multi-volume", "-B", "--read-full-records", "-i", "--ignore-zeros"),
    **flags("--old-archive", "--portability", "--posix", "-a", "--auto-compress", "-j"),
    **flags("--bzip2", "-J", "--xz", "--lzip", "--lzma", "--lzop", "--no-auto-compress"),
    **flags("--zstd", "-z", "--gzip", "--gunzip", "--ungzip", "-Z", "--compress"),
    **flags("--uncompress", "--hard-dereference", "-h", "--dereference", "--one-file-system"),
    **flags("--show-transformed-names", "--show-stored-names", "--full-time", "-l"),
    **flags("--check-links", "-R", "--block-number", "--show-omitted-dirs", "--utc", "-v"),
    **flags("--verbose", "-w", "--interactive", "--confirmation", "-o"),
    # Extracting, the names the archive holds are written as they are, absolute or with
    # `..` (`-P`), or through symbolic links to directories already on disk.
    **dict.fromkeys(
        ("-P", "--absolute-names", "--keep-directory-symlink"), Opt(mode=WRITES_ANYWHERE)
    ),
    "--remove-files": Opt(mode="move"),
}
_READS_ARCHIVE = {"-f": _READ, "--file": _READ}
_TAR = Program(
    options=_TAR_OPTIONS,
    operands="read",
    bundled_first=True,
    modes={
        # `-x`: the archive named by `-f` is only read; what it holds lands in `.` (or
        # `-C DIR`), under names not known here. Operands name members to extract: the
        # files written (`tar -xf a.tar .git/hooks/pre-commit`).
        "extract": Program(
            options=_READS_ARCHIVE, operands="write", implicit=(("write", "."),), unpacks=True
        ),
        "list": Program(options=_READS_ARCHIVE),
        "compare": Program(options=_READS_ARCHIVE, operands="read"),
        "move": Program(operands="delete"),
    },
    source="GNU tar 1.34 --help",
)
# Zip 3.0 (Debian) `zip -so` ("show options"), every option but one. Its parser
# (fileio.c `get_option`) reads two-letter short options (`-TT`, `-db`) greedily inside
# clusters and a trailing `-` as a negation, so a cluster cannot be read letter by
# letter: the table takes each option word as spelled (`exact`), and a cluster, a prefix
# of a long option or a negation asks. `-x` and `-i` take a list: the words after them
# up to the next option (`Opt.items`). Left out, so that it asks: `-R`/`--recurse-patterns`
# (its operands are patterns matched under `.`: files nobody named, `.env` included).
_ZIP_LIST = Opt(takes=True, items=True)
_ZIP = Program(
    options={
        **flags("-h", "--help", "-H", "-?", "-h2", "--more-help", "-L", "--license", "-v"),
        **flags("--verbose", "--version", "-so", "--show-options"),
        **valued("write", "-b", "--temp-path", "-O", "--output-file", "-lf", "--logfile-path"),
        **valued("exec", "-TT", "--unzip-command"),
        **dict.fromkeys(("-x", "--exclude", "-i", "--include"), _ZIP_LIST),
        **values("-ds", "--dot-size", "-n", "--suffixes", "-P", "--password", "-s"),
        **values("--split-size", "-t", "--from-date", "-tt", "--before-date", "-UN"),
        **values("--unicode", "-Z", "--compression-method"),
        **dict.fromkeys(("-@", "--names-stdin"), Opt(mode=NAMES_FROM_INPUT)),
        **dict.fromkeys(("-m", "--move"), Opt(mode="move")),
        # Operands after the archive name its entries, not files.
        **dict.fromkeys(("-d", "--delete", "-U", "--copy-entries"), Opt(mode="edit")),
        **flags(*(f"-{d}" for d in "0123456789"), "--store", "-A", "--adjust-sfx", "-c"),
        **flags(*(f"--compress-{d}" for d in "123456789"), "--entry-comments"),
        **flags("-db", "--display-bytes", "-dc", "--display-counts", "-dd", "--display-dots"),
        **flags("-dg", "--display-globaldots", "-du", "--display-usize", "-dv"),
        **flags("--display-volume", "-D", "--no-dir-entries", "-DF", "--difference-archive"),
        **flags("-e", "--encrypt", "-F", "--fix", "-FF", "--fixfix", "-FI", "--fifo", "-FS"),
        **flags("--filesync", "-f", "--freshen", "-fd", "--force-descriptors", "-fz"),
        **flags("--force-zip64", "-g", "--grow", "-j", "--junk-paths", "-J", "--junk-sfx"),
        **flags("-k", "--DOS-names", "-l", "--to-crlf", "-ll", "--from-crlf", "-la"),
        **flags("--log-append", "-li", "--log-info", "-mm", "-MM", "--must-match", "-nw"),
        **flags("--no-wild", "-o", "--latest-time", "-p", "--paths", "-q", "--quiet", "-r"),
        **flags("--recurse-paths", "-RE", "--regex", "-sp", "--split-pause", "-sv"),
        **flags("--split-verbose", "-sb", "--split-bell", "-sc", "--show-command", "-sd"),
        **flags("--show-debug", "-sf", "--show-files", "-su", "--show-unicode", "-sU"),
        **flags("--show-just-unicode", "-T", "--test", "-u", "--update", "-ws"),
        **flags("--wild-stop-dirs", "-X", "--strip-extra", "-y", "--symlinks", "-z"),
        **flags("--archive-comment"),
    },
    operands="read",
    first="write",
    modes={
        "move": Program(operands="delete", first="write"),
        "edit": Program(first="write"),
    },
    parser="exact",
    source="Zip 3.0 (Debian) zip -so",
)
# UnZip 6.00 (Debian) `unzip -hh`, every option. Its own parser reads clusters of letters
# (`-qo`, `-dDIR`) and no long options (`getopt`). `-Z` switches to zipinfo, whose listing
# letters (`-1 -2 -s -m -h -T -z`) are listed too. `-:` keeps `../` in member names:
# written anywhere. `-x` takes the patterns that follow, up to the next option.
_UNZIP_LIST = Opt(mode="list")
_UNZIP = Program(
    options={
        **flags("--help", "-hh"),
        **valued("write", "-d"),
        "-x": Opt(takes=True, items=True),
        **values("-i", "-P", "-O", "-I"),
        **dict.fromkeys(("-l", "-t", "-z", "-v", "-Z", "-p", "-c"), _UNZIP_LIST),
        "-T": Opt(mode="touch"),
        **flags("-f", "-u", "-n", "-q", "-o", "-a", "-j", "-U", "-C", "-L", "-X", "-V"),
        **flags("-K", "-M", "-b", "-B", "-D", "-E", "-F", "-J", "-N", "-s", "-S", "-W"),
        **flags("-Y", "-$", "-^", "-2", "-1", "-m", "-h", "-A"),
        "-:": Opt(mode=WRITES_ANYWHERE),
    },
    first="read",
    operands="write",
    implicit=(("write", "."),),
    unpacks=True,
    modes={"list": Program(first="read"), "touch": Program(first="write")},
    parser="getopt",
    source="UnZip 6.00 (Debian) unzip -hh",
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

TAR = _TAR
PROGRAMS: dict[str, Program] = {
    "tar": _TAR,
    # libarchive's tar reads most of GNU tar's options, not all (`-s PATTERN`): not complete.
    "bsdtar": replace(_TAR, source=""),
    "zip": _ZIP,
    "unzip": _UNZIP,
    "patch": _PATCH,
    "lz4": _COMPRESS,
}
