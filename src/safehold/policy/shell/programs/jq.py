"""jq: every option of jq 1.6 and 1.7 (`jq --help`, jq(1)), and what its filter reaches.

jq's parser is hand-written (`main.c`, `isoption`): long options are spelled in full, and
`-L` in a cluster reads the rest of the word as the path (`-nL` is the path `L`), so the
table reads option words exactly (`exact`): a cluster such as `-rc` is not understood.
`--arg NAME VALUE`, `--argjson`, and the files of `--slurpfile`/`--rawfile`/`--argfile
NAME FILE` take two words (`Opt.count`); the file is read. `-f`/`--from-file` makes the
first operand the program's file (read); `-L DIR`/`--library-path` names a module
directory (modules are jq code, which cannot run programs: a read). `--run-tests` (its
first operand is a test file, not the filter) is left out, so that it asks.

The filter itself can reach two things no word names: the environment (`env`, `$ENV`:
`jq_shows_environment`, asked on the host as environment-secrets) and module files
(`import "m" as $d {search: "DIR"}`, `include`, `modulemeta`: a computed read, asked
on the host).
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Opt, Program, Role, first_operand
from safehold.policy.shell.programs.vocab import flags, values
from safehold.policy.shell.words import Word

__all__ = ["PROGRAMS", "jq_filter", "jq_shows_environment", "mentions"]

_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def mentions(text: str, names: frozenset[str]) -> bool:
    """True when `text` holds one of `names` as a whole identifier not read as a field
    (`env`, `$ENV`, `import`; not `.env`, `environment`). One pass."""
    i, n = 0, len(text)
    while i < n:
        if text[i] not in _NAME_CHARS:
            i += 1
            continue
        start = i
        while i < n and text[i] in _NAME_CHARS:
            i += 1
        field = start > 0 and text[start - 1] == "." and text[start - 2 : start] != ".."
        if not field and text[start:i] in names:
            return True
    return False


_ENVIRONMENT = frozenset({"env", "ENV"})
_MODULES = frozenset({"import", "include", "modulemeta"})


def _module_files(script: str) -> list[tuple[Role, str | None]]:
    """A filter that loads modules reads files named inside it, relative to a search path
    the filter can set (`import "m" as $d {search: "/"}`): a computed read."""
    return [("read", None)] if mentions(script, _MODULES) else []


_FROM_FILE = Opt()
_TWO_READ = Opt(takes=True, count=2, role="read")
_TWO = Opt(takes=True, count=2)

JQ = Program(
    options={
        **flags("-h", "--help", "-V", "--version", "--build-configuration"),
        **flags("-n", "--null-input", "-R", "--raw-input", "-s", "--slurp", "-c"),
        **flags("--compact-output", "-r", "--raw-output", "--raw-output0", "-j"),
        **flags("--join-output", "-a", "--ascii-output", "-S", "--sort-keys", "-C"),
        **flags("--color-output", "-M", "--monochrome-output", "--tab", "--unbuffered"),
        **flags("--stream", "--stream-errors", "--seq", "-e", "--exit-status", "--args"),
        **flags("--jsonargs", "-b", "--binary", "--debug-dump-disasm", "--debug-trace"),
        **flags("--debug-trace=all"),
        **values("--indent"),
        "-f": _FROM_FILE,
        "--from-file": _FROM_FILE,
        "-L": Opt(takes=True, role="read"),
        "--library-path": Opt(takes=True, role="read"),
        "--arg": _TWO,
        "--argjson": _TWO,
        "--slurpfile": _TWO_READ,
        "--rawfile": _TWO_READ,
        "--argfile": _TWO_READ,
    },
    operands="read",
    skip=1,
    unskip=frozenset({"-f", "--from-file"}),
    script_files=_module_files,
    parser="exact",
    source="jq 1.6 and 1.7.1 --help, jq(1); operands after the filter are read",
)

PROGRAMS: dict[str, Program] = {"jq": JQ}


def jq_filter(words: tuple[Word, ...]) -> Word | None:
    """The filter word of `jq ARGS…`: the first operand, unless `-f` makes it a file
    (None then, as when there is no operand)."""
    first, given = first_operand(JQ, words)
    return None if given & JQ.unskip else first


def jq_shows_environment(words: tuple[Word, ...]) -> str | None:
    """Why `jq ARGS…` may print the environment (`env`, `$ENV` in its filter), or None.

    A computed filter may be anything; a filter read from a file (`-f`) is the
    workspace's code, as a script is."""
    found = jq_filter(words)
    if found is None:
        return None
    if not found.static:
        return "`jq`'s filter is computed: it may read `env` or `$ENV`"
    if mentions(found.text, _ENVIRONMENT):
        return "`jq`'s filter reads `env` or `$ENV`, the program's environment"
    return None
