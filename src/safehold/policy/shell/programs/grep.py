"""grep: every option of GNU grep 3.8 (`grep --help`), with its value's role.

The first operand is the pattern unless `-e PAT` or `-f FILE` gave one (`unskip`); the
other operands are files it reads. `-f FILE` and `--exclude-from FILE` read a file; the
values of `--include`/`--exclude`/`--exclude-dir` are globs on names, not files. `-NUM`
(`grep -5`) is the context count spelled as an option (`DIGITS`).
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Program
from safehold.policy.shell.programs.vocab import DIGITS, HELP, flags, optional, valued, values

__all__ = ["PROGRAMS"]

_GREP = Program(
    options={
        **HELP,
        **DIGITS,
        **flags("-E", "--extended-regexp", "-F", "--fixed-strings", "-G", "--basic-regexp"),
        **flags("-P", "--perl-regexp", "-i", "--ignore-case", "--no-ignore-case", "-y"),
        **flags("-w", "--word-regexp", "-x", "--line-regexp", "-z", "--null-data", "-s"),
        **flags("--no-messages", "-v", "--invert-match", "-V", "-b", "--byte-offset", "-n"),
        **flags("--line-number", "--line-buffered", "-H", "--with-filename", "-h"),
        **flags("--no-filename", "-o", "--only-matching", "-q", "--quiet", "--silent", "-a"),
        **flags("--text", "-I", "-r", "--recursive", "-R", "--dereference-recursive", "-L"),
        **flags("--files-without-match", "-l", "--files-with-matches", "-c", "--count"),
        **flags("-T", "--initial-tab", "-Z", "--null", "--no-group-separator", "-U"),
        **flags("--binary"),
        **values("-e", "--regexp", "-m", "--max-count", "--label", "--binary-files", "-d"),
        **values("--directories", "-D", "--devices", "--include", "--exclude"),
        **values("--exclude-dir", "-A", "--after-context", "-B", "--before-context", "-C"),
        **values("--context", "--group-separator"),
        **valued("read", "-f", "--file", "--exclude-from"),
        **optional("--color", "--colour"),
    },
    operands="read",
    skip=1,
    unskip=frozenset({"-e", "--regexp", "-f", "--file"}),
    source="GNU grep 3.8 --help",
)

PROGRAMS: dict[str, Program] = {"grep": _GREP, "egrep": _GREP, "fgrep": _GREP}
