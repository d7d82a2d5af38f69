"""find: every primary of GNU findutils 4.9 (`find --help`, find(1)), with its value's role.

The roots come first and are read (`leading_operands`); then come the primaries. Tests
whose value is a file (`-newer F`, `-samefile F`) read it; `-fprint F` and its kin write
it; `-delete` deletes what is found (a mode); `-exec`/`-ok` run a command, which the step
in `runners` analyses word by word (here it is marked `exec`, never none). Every primary
is spelled in full (`exact`): find takes no abbreviations and no clusters.
"""

from __future__ import annotations

from safehold.policy.shell.programs.table import Opt, Program
from safehold.policy.shell.programs.vocab import HELP, flags, names_from, valued, values
from safehold.policy.shell.words import Word

__all__ = ["FIND", "find_roots_at"]

# `-newerXY REF`: X and Y among a (access), B (birth), c (change), m (modify); Y = t reads
# REF as a date, any other Y as a file whose time is compared.
_NEWER_XY = {
    f"-newer{x}{y}": Opt(takes=True, role=None if y == "t" else "read")
    for x in "aBcm"
    for y in "aBcmt"
}
# The command's words run to `;` or `+` (find(1), ACTIONS): they are not primaries.
_EXEC = Opt(takes=True, role="exec", until=frozenset({";", "+"}))

FIND = Program(
    options={
        **HELP,
        **flags("-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3"),
        **values("-D"),
        # Operators and positional or global options.
        **flags("-not", "-and", "-or", "-a", "-o", "-daystart", "-follow", "-nowarn"),
        **flags("-warn", "-depth", "-d", "-mount", "-noleaf", "-xdev"),
        **flags("-ignore_readdir_race", "-noignore_readdir_race"),
        **values("-regextype", "-maxdepth", "-mindepth"),
        **names_from("-files0-from"),
        # Tests.
        **flags("-empty", "-false", "-true", "-nouser", "-nogroup", "-readable"),
        **flags("-writable", "-executable"),
        **values("-amin", "-atime", "-cmin", "-ctime", "-mmin", "-mtime", "-used"),
        **values("-context", "-fstype", "-gid", "-group", "-uid", "-user", "-inum"),
        **values("-links", "-perm", "-size", "-type", "-xtype"),
        **values("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"),
        **values("-regex", "-iregex", "-lname", "-ilname"),
        **valued("read", "-newer", "-anewer", "-cnewer", "-samefile"),
        **_NEWER_XY,
        # Actions.
        "-delete": Opt(mode="delete"),
        **flags("-print", "-print0", "-ls", "-prune", "-quit"),
        **values("-printf"),
        **valued("write", "-fprint", "-fprint0", "-fprintf", "-fls"),
        **dict.fromkeys(("-exec", "-execdir", "-ok", "-okdir"), _EXEC),
    },
    operands="read",
    leading_operands=True,
    modes={"delete": Program(operands="delete")},
    parser="exact",
    source="find (GNU findutils 4.9.0 --help, find(1))",
)


def find_roots_at(words: tuple[Word, ...], start: int = 1) -> int:
    """The index of find's first root (or of its expression, given none): past the leading
    options as GNU findutils' `process_leading_options` reads them: `-H`, `-L`, `-P`, `-D
    LIST`, a word starting with `-O`, and a `--`, which ends them (`find -- DIR -delete`)."""
    k = start
    while k < len(words) and words[k].static:
        t = words[k].text
        if t == "--":
            return k + 1
        if t in ("-H", "-L", "-P") or t.startswith("-O"):
            k += 1
        elif t == "-D":
            k += 2
        else:
            break
    return k
