"""Programs that show the system, the user and the processes (coreutils, net-tools'
hostname, procps-ng), and `mktemp`: complete tables.

Each table lists every option of the program's `--help` on Debian 12 (the version is in
`source`). Left out, so that they ask: `date -s`/`--set` (sets the system clock) and
`hostname -F`/`--file`/`-b`/`--boot` (set the host name). An operand that changes the
system is not understood (`Program.understood_operand`): `date MMDDhhmm` sets the clock
(only `+FORMAT` is understood), `hostname NAME` sets the host name. `mktemp`'s template
and `-p`/`--tmpdir DIR` are writes; with no template it creates a fresh, randomly named
file in the temporary directory, which is its whole purpose: no role.

`ps` reads three syntaxes (ps(1), procps-ng 4.0.2): UNIX options with a dash (`-ef`, read
like getopt clusters), GNU long options (exact names), and BSD options without a dash
(`aux`): a BSD word is understood when every letter is a BSD option of ps(1) or it is a
list of process ids. BSD `e` shows every process's environment, and procps re-reads a
command line it cannot parse in BSD syntax ("bad ps syntax, perhaps a bogus '-'?"), where
the `e` of `-ef` is that letter: `ps_shows_environment` says when a command may print
other processes' environments (environment-secrets, asked on the host).
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Opt, Program
from safehold.policy.shell.programs.vocab import (
    HELP,
    flags,
    no_operand,
    optional,
    valued,
    values,
)
from safehold.policy.shell.words import Word

__all__ = ["PROGRAMS", "ps_shows_environment"]

_CU = "GNU coreutils 9.1 --help"
_PROCPS = "procps-ng 4.0.2"
_PS_HELP = flags("-h", "--help", "-V", "--version")


def _date_operand(word: Word) -> bool:
    """`date +FORMAT` prints; any other operand (`date 010100002030`) sets the clock."""
    return word.static and word.text.startswith("+")


# BSD options of ps(1) that select processes or choose columns (`a u x`, `f`, `w`, `o
# FORMAT`, `p PID`…); `e` (the environment) is not among them. Digits and commas: a list
# of process ids (`ps 1234`).
_PS_BSD = frozenset("agTrxpqtUjlOosuvXZcfhknSwHmLV")
_PS_PIDS = frozenset("0123456789,")


def _ps_operand(word: Word) -> bool:
    """A BSD option word of ps (`aux`, `axjf`) or a list of process ids."""
    text = word.text
    return word.static and bool(text) and (set(text) <= _PS_BSD or set(text) <= _PS_PIDS)


# `ps -ef`, `ps -eLf`, `ps -ejH`: UNIX option words with `e` that always parse in UNIX
# syntax when nothing else is on the line (no value, no other word that could fail and
# send the line to the BSD reader).
_PS_UNIX_E = frozenset(
    {"-e", "-A", "-ef", "-eF", "-elf", "-ely", "-eLf", "-ejH", "-efH", "-efw", "-efww"}
    | {"-ew", "-eww", "-eH", "-f", "-F", "-H", "-w", "-ww", "-Af", "-AF"}
)


_PS_PID_OPTIONS = frozenset({"-p", "--pid", "-q", "--quick-pid", "--ppid"})


def ps_shows_environment(words: tuple[Word, ...]) -> str | None:
    """Why `ps ARGS…` may print other processes' environments, or None.

    BSD `e` does; a line ps cannot parse as UNIX options is re-read in BSD syntax, where
    every letter of every word (`-ef`, a value `-u xe`) is a BSD option. So a word with
    `e` is safe only alone, as one plain UNIX option word (`ps -ef`); a computed word may
    be anything. GNU long options (`--sort=-%mem`) stay GNU options in both readings.
    """
    rest = words[1:]
    # The value of a pid option (`-p "$PID"`) is a pid list in both readings (BSD `p`
    # takes one too), unless it is computed unquoted and may split into more words.
    pids = {
        k + 1
        for k, w in enumerate(rest[:-1])
        if w.static and w.text in _PS_PID_OPTIONS and not rest[k + 1].splits
    }
    if any(not w.static and k not in pids for k, w in enumerate(rest)):
        return "a computed word of `ps` may be its `e` option (the environment)"
    texts = [w.text for k, w in enumerate(rest) if k not in pids and not w.text.startswith("--")]
    if not any("e" in t for t in texts):
        return None
    if len(rest) == 1 and rest[0].text in _PS_UNIX_E:
        return None  # `ps -ef`: one UNIX option word, which always parses as one
    return (
        "`ps` with the letter `e` outside plain UNIX options: BSD `e` (also when procps "
        "re-reads a line it cannot parse) prints every process's environment"
    )


_PS = Program(
    options={
        "--help": Opt(takes=True, optional=True),
        **flags("-A", "-e", "-a", "-d", "-N", "--deselect", "-F", "-f", "--forest", "-H"),
        **flags("-j", "-l", "-M", "-P", "-y", "--context", "--headers", "--no-headers"),
        **flags("-L", "-m", "-T", "-c", "--cumulative", "-V", "--version", "-w"),
        **values("-C", "-G", "--Group", "-g", "--group", "-p", "--pid", "--ppid", "-q"),
        **values("--quick-pid", "-s", "--sid", "-t", "--tty", "-u", "--user", "-U"),
        **values("--User", "-O", "-o", "--format", "--cols", "--columns", "--width"),
        **values("--rows", "--lines", "--sort"),
    },
    understood_operand=_ps_operand,
    parser="getopt",
    source=f"ps ({_PROCPS} --help all, ps(1)); BSD words by letter",
)

PROGRAMS: dict[str, Program] = {
    "date": Program(
        options={
            **HELP,
            **values("-d", "--date", "--rfc-3339"),
            **flags("--debug", "--resolution", "-R", "--rfc-email", "-u", "--utc"),
            **flags("--universal"),
            **optional("-I", "--iso-8601"),
            **valued("read", "-f", "--file", "-r", "--reference"),
            # `-s`/`--set` sets the system clock: left out, so that it asks.
        },
        understood_operand=_date_operand,
        source=f"date ({_CU}); `+FORMAT` operands only",
    ),
    "sleep": Program(options=HELP, source=f"sleep ({_CU}); operands are durations"),
    "id": Program(
        options={
            **HELP,
            **flags("-a", "-Z", "--context", "-g", "--group", "-G", "--groups", "-n"),
            **flags("--name", "-r", "--real", "-u", "--user", "-z", "--zero"),
        },
        source=f"id ({_CU}); operands are user names",
    ),
    "whoami": Program(options=HELP, source=f"whoami ({_CU})"),
    "groups": Program(options=HELP, source=f"groups ({_CU}); operands are user names"),
    "uname": Program(
        options={
            **HELP,
            **flags("-a", "--all", "-s", "--kernel-name", "-n", "--nodename", "-r"),
            **flags("--kernel-release", "-v", "--kernel-version", "-m", "--machine", "-p"),
            **flags("--processor", "-i", "--hardware-platform", "-o", "--operating-system"),
        },
        source=f"uname ({_CU})",
    ),
    "nproc": Program(
        options={**HELP, **flags("--all"), **values("--ignore")}, source=f"nproc ({_CU})"
    ),
    "tty": Program(options={**HELP, **flags("-s", "--silent", "--quiet")}, source=f"tty ({_CU})"),
    "hostname": Program(
        options={
            **flags("-h", "--help", "-V", "--version", "-a", "--alias", "-A", "--all-fqdns"),
            **flags("-d", "--domain", "-f", "--fqdn", "--long", "-i", "--ip-address", "-I"),
            **flags("--all-ip-addresses", "-s", "--short", "-y", "--yp", "--nis"),
            # `-F`/`--file FILE` and `-b`/`--boot` set the host name: left out (ask).
        },
        understood_operand=no_operand,  # `hostname NAME` sets the host name
        source="hostname (net-tools 2.10, hostname 3.23 --help); no operand",
    ),
    "mktemp": Program(
        options={
            **HELP,
            **flags("-d", "--directory", "-u", "--dry-run", "-q", "--quiet", "-t"),
            **values("--suffix"),
            **valued("write", "-p"),
            "--tmpdir": Opt(takes=True, optional=True, role="write"),
        },
        operands="write",
        source=f"mktemp ({_CU})",
    ),
    "printenv": Program(
        options={**HELP, **flags("-0", "--null")},
        source=f"printenv ({_CU}); operands are variable names (environment.py)",
    ),
    "ps": _PS,
    "pgrep": Program(
        options={
            **_PS_HELP,
            **flags("-l", "--list-name", "-a", "--list-full", "-v", "--inverse", "-w"),
            **flags("--lightweight", "-c", "--count", "-f", "--full", "-i", "--ignore-case"),
            **flags("-n", "--newest", "-o", "--oldest", "-x", "--exact", "-L"),
            **flags("--logpidfile", "-A", "--ignore-ancestors"),
            **values("-d", "--delimiter", "-g", "--pgroup", "-G", "--group", "-O", "--older"),
            **values("-P", "--parent", "-s", "--session", "-t", "--terminal", "-u", "--euid"),
            **values("-U", "--uid", "-r", "--runstates", "--cgroup", "--ns", "--nslist"),
            **valued("read", "-F", "--pidfile"),
        },
        source=f"pgrep ({_PROCPS} --help); operands are patterns",
    ),
    "free": Program(
        options={
            **flags("--help", "-V", "--version", "-b", "--bytes", "--kilo", "--mega"),
            **flags("--giga", "--tera", "--peta", "-k", "--kibi", "-m", "--mebi", "-g"),
            **flags("--gibi", "--tebi", "--pebi", "-h", "--human", "--si", "-l", "--lohi"),
            **flags("-t", "--total", "-v", "--committed", "-w", "--wide"),
            **values("-s", "--seconds", "-c", "--count"),
        },
        source=f"free ({_PROCPS} --help)",
    ),
    "uptime": Program(
        options={**_PS_HELP, **flags("-p", "--pretty", "-s", "--since")},
        source=f"uptime ({_PROCPS} --help)",
    ),
}
