"""What one command assessment has found so far, and the per-command facts its checks share.

`_Findings` collects the denials and asks of step 3 (`assess`); `_place` tells, once per
command, the directories it may run in and the role of each word (`programs`); `_once`
makes a check once per decision when the host's pass follows the sandbox's
(`paths.looked_checks`).
"""

from __future__ import annotations

import operator
import posixpath
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar, cast

from safehold.policy._memo import remember
from safehold.policy.decision import Reason, Verdict
from safehold.policy.shell.analysis import ShellAnalysis, SimpleCommand
from safehold.policy.shell.locations import PHYSICAL, resolve_chdir, resolve_dir
from safehold.policy.shell.programs import module_command, program_for
from safehold.policy.shell.programs.interpreters import program_family
from safehold.policy.shell.programs.runners import WRAPPER_ROLES, chdir_values
from safehold.policy.shell.programs.step import program_name
from safehold.policy.shell.programs.table import (
    Program,
    Role,
    RoleUse,
    roles_of,
)
from safehold.policy.shell.roles import Finding
from safehold.policy.shell.words import Word

if TYPE_CHECKING:
    from safehold.policy.paths import CompiledPolicy

_CD = frozenset({"cd", "pushd"})


@dataclass(slots=True)
class _Findings:
    deny: list[Reason]
    ask: list[Reason]
    grantable: bool = True
    # Per command (by identity): its directories and roles, computed once per assessment.
    places: dict[int, tuple[list[str | None], list[RoleUse], frozenset[str]]] = field(
        default_factory=dict
    )
    # Whether a bare word names an existing file, looked up once per assessment.
    exists: dict[str, bool] = field(default_factory=dict)
    # The user's `[[programs]]` tables, by name (None: none declared).
    declared: Mapping[str, Program] | None = None
    # `find … | xargs PROG` consumers (by identity): the root words, whether PROG reads
    # or changes the files below them, and whether xargs splits names at blanks.
    listed: dict[int, tuple[tuple[Word, ...], Literal["read", "write"], bool]] = field(
        default_factory=dict
    )
    # This decision's memo of checks (`paths.looked_checks`), when a second pass of the
    # same decision will read it: the host's pass after a sandboxed pass that cannot tell
    # the host's view (`_same_on_host` False, remembered in `same_on_host`).
    memo: dict[object, object] | None = None
    same_on_host: bool | None = None
    # What only a run on the host asks, found by a sandboxed pass (a loop with too many
    # values to judge one by one: computed in the sandbox, an ASK on the host).
    host_asks: list[Reason] = field(default_factory=list)

    def add(self, bucket: list[Reason], reason: Reason) -> None:
        if reason not in bucket:
            bucket.append(reason)


def _sorted(reasons: list[Reason]) -> tuple[Reason, ...]:
    return tuple(sorted(set(reasons), key=lambda r: (r.code, r.rule, r.message)))


def _show(cmd: SimpleCommand | tuple[Word, ...]) -> str:
    words = cmd.words if isinstance(cmd, SimpleCommand) else cmd
    text = " ".join(w.text for w in words).replace("`", "'")
    return text if len(text) <= 80 else text[:79] + "…"


def _inside(path: str, root: str) -> bool:
    root = posixpath.normpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")


def _place(
    cmd: SimpleCommand, base: str, policy: CompiledPolicy, found: _Findings
) -> tuple[list[str | None], list[RoleUse], frozenset[str]]:
    """`_command_dirs` and the command's modes, once per command per assessment."""
    known = found.places.get(id(cmd))
    if known is None:
        known = _command_dirs(cmd, base, policy, found.declared)
        found.places[id(cmd)] = known
    return known


def _command_dirs(
    cmd: SimpleCommand,
    base: str,
    policy: CompiledPolicy,
    declared: Mapping[str, Program] | None = None,
) -> tuple[list[str | None], list[RoleUse], frozenset[str]]:
    """Absolute directories `cmd` may run in (None: computed), its roles and modes.

    The walk's `cd` chain, then `env -C DIR`, `sudo -D DIR`, `git -C DIR` and the
    program's own `-C DIR` (`tar`, `make`), which move its relative paths.
    """
    # A pure function of the command, `base` and the home directory (no I/O). Analyses are
    # cached per command text, so a repeated command brings the same `cmd` object: it is
    # remembered by identity, the entry keeping `cmd` alive so its id is not reused.
    home = policy.home
    if _reads_links(cmd):
        # A physical directory or a `-C DIR` that climbs is resolved through the links on
        # the way (`resolve_chdir`): never remembered across decisions, a link may change.
        return _command_dirs_of(cmd, base, home, declared)
    known = _DIRS.get(id(cmd))
    if (
        known is not None
        and known[0] is cmd
        and known[1] == base
        and known[2] == home
        and known[6] is declared
    ):
        return list(known[3]), list(known[4]), known[5]
    if declared is None:
        dirs, uses, modes = _command_dirs_by_value(cmd, base, home)
    else:
        dirs, uses, modes = _command_dirs_of(cmd, base, home, declared)
    entry = (cmd, base, home, tuple(dirs), tuple(uses), modes, declared)
    remember(_DIRS, id(cmd), entry, _DIRS_SIZE)
    return dirs, uses, modes


def _reads_links(cmd: SimpleCommand) -> bool:
    """True when where `cmd` runs depends on links: a `PHYSICAL` directory of its `cd`
    chain, or a word holding `..` (a `-C DIR` that climbs)."""
    if any(d is not None and d.startswith(PHYSICAL) for d in cmd.dirs):
        return True
    # `argv` and `wrappers` are the words' texts; NUL (in no word) keeps them apart.
    return ".." in "\0".join(cmd.argv) or any(".." in "\0".join(w) for w in cmd.wrappers)


def _command_dirs_by_value(
    cmd: SimpleCommand, base: str, home: str
) -> tuple[list[str | None], list[RoleUse], frozenset[str]]:
    """`_command_dirs_of` remembered by the command's words, not its identity.

    A command seen before in another text (`git status` in `git status && ls`) has equal
    words but new word objects, and the checks match a role to its word by identity
    (`u.word is w`). So the memo keeps, for each role, the position of its word among the
    command's words (or the word itself when the table made it, as `--out=F`'s `F`), and
    hands back roles holding this command's own words. The key includes which positions
    hold one and the same object, so identity between words is the same as computed.
    """
    flat = [*cmd.words, *(w for layer in cmd.wrapper_words for w in layer)]
    first: dict[int, int] = {}
    shape = tuple([first.setdefault(id(w), k) for k, w in enumerate(flat)])
    key = (cmd.words, cmd.wrapper_words, cmd.dirs, base, home, shape)
    held = _DIRS_BY_VALUE.get(key)
    if held is None:
        dirs, uses, modes = _command_dirs_of(cmd, base, home, None)
        spots = tuple((u.role, first.get(id(u.word)), u.word, u.option) for u in uses)
        remember(_DIRS_BY_VALUE, key, (tuple(dirs), spots, modes), _DIRS_SIZE)
        return dirs, uses, modes
    dirs_held, spots, modes = held
    roles = [
        RoleUse(role, word if at is None else flat[at], option) for role, at, word, option in spots
    ]
    return list(dirs_held), roles, modes


_DIRS: OrderedDict[
    int,
    tuple[
        SimpleCommand,
        str,
        str,
        tuple[str | None, ...],
        tuple[RoleUse, ...],
        frozenset[str],
        Mapping[str, Program] | None,
    ],
] = OrderedDict()
_DIRS_SIZE = 1024
_DIRS_BY_VALUE: OrderedDict[
    tuple[object, ...],
    tuple[
        tuple[str | None, ...],
        tuple[tuple[Role, int | None, Word, str], ...],
        frozenset[str],
    ],
] = OrderedDict()


def _command_dirs_of(
    cmd: SimpleCommand, base: str, home: str, declared: Mapping[str, Program] | None = None
) -> tuple[list[str | None], list[RoleUse], frozenset[str]]:
    dirs: list[str | None] = []
    for d in cmd.dirs:
        full = resolve_dir(d, base, home)
        if full not in dirs:
            dirs.append(full)
    moves: list[Word] = [w for layer in cmd.wrapper_words for w in chdir_values(layer)]
    uses, modes = _roles(cmd, declared)
    for layer in cmd.wrapper_words:
        # A wrapper's own options can name files (`time -o FILE cmd`): their roles count.
        table = WRAPPER_ROLES.get(program_name(layer[0])) if layer else None
        if table is not None:
            uses += [u for u in roles_of(table, layer)[0] if u.option]
    moves += [u.word for u in uses if u.role == "cwd"]
    for word in moves:
        if not (word.static or word.home):
            dirs.append(None)
            continue
        for d in list(dirs):
            if d is not None:
                moved = resolve_chdir(word.text, d, home)  # chdir(2): `..` after links
                if moved not in dirs:
                    dirs.append(moved)
    return dirs, uses, modes


def _roles(
    cmd: SimpleCommand, declared: Mapping[str, Program] | None = None
) -> tuple[list[RoleUse], frozenset[str]]:
    family = program_family(cmd.program) if cmd.words else ""
    program = program_for(family) if cmd.words else None
    if program is None and declared and cmd.words:
        program = declared.get(cmd.program)  # a `[[programs]]` table
    if program is None:
        return [], frozenset()
    uses, modes = roles_of(program, cmd.words)
    module = module_command(cmd.words, declared) if family == "python" else None
    if module is not None and module[2] is not None:
        # `python -m pytest --junit-xml=F`: the module's words have the module's roles.
        inner, modes = roles_of(module[2], module[1])
        uses += inner
    return uses, frozenset(modes)


def _cd_dirs(analysis: ShellAnalysis) -> tuple[list[str], bool]:
    """Directories (relative to the call's base) the commands may run in, and whether one is
    computed at run time. For `policy.locations`, which spells paths for the person."""
    dirs: list[str] = []
    unknown = False
    every: list[tuple[str | None, ...]] = [c.dirs for c in analysis.commands]
    every += [r.dirs for r in analysis.redirects]
    for item in every:
        for d in item:
            if d is None:
                unknown = True
            elif d not in dirs:
                dirs.append(d)
    return dirs or ["."], unknown


def _spellings(path: str, dirs: Sequence[str | None]) -> list[str]:
    if path.startswith(("/", "~")):
        return [path]
    # `posixpath.join(d, path)` for a `path` not starting with `/`, without its checks.
    return [d + path if not d or d[-1] == "/" else d + "/" + path for d in dirs if d is not None]


_T = TypeVar("_T")


def _once(
    memo: dict[object, object],
    key: tuple[object, ...],
    alive: tuple[object, ...],
    found: _Findings,
    check: Callable[..., _T],
    *args: object,
    size: int | None = None,
) -> _T:
    """`check(*args, found)`, made once per decision for `key` (`paths.looked_checks`).

    `key` holds everything the check reads, so a second pass of the same decision (the
    host's, after the sandbox's) whose key is equal gets the same findings: they are
    recorded apart, then added to `found` as the check would add them (`_Findings.add`
    keeps one of each; grantability only goes from True to False). `alive`: objects the
    key names by identity, kept alive with the entry and compared on every use. `size`:
    `memo` is a bounded table kept across decisions (`remember`), for a check that reads
    nothing but its key: no file, a pure function of the command's words by value.
    """
    held = cast("_Held | None", memo.get(key))
    if held is None or any(map(operator.is_not, held[0], alive)):  # as long as each other
        deny, ask, grantable = found.deny, found.ask, found.grantable
        found.deny, found.ask, found.grantable = [], [], True
        try:
            made = check(*args, found)
            held = (alive, tuple(found.deny), tuple(found.ask), found.grantable, made)
        finally:
            found.deny, found.ask, found.grantable = deny, ask, grantable
        if size is None:
            memo[key] = held
        else:
            remember(cast("OrderedDict[object, object]", memo), key, held, size)
    for reason in held[1]:
        found.add(found.deny, reason)
    for reason in held[2]:
        found.add(found.ask, reason)
    if not held[3]:
        found.grantable = False
    return cast("_T", held[4])


# A check made once (`_once`): the objects its key names, its denials and asks, whether it
# left the command grantable, and what it returned.
_Held = tuple[tuple[object, ...], tuple[Reason, ...], tuple[Reason, ...], bool, object]


def _add(found: _Findings, finding: Finding) -> None:
    found.add(found.deny if finding.verdict is Verdict.DENY else found.ask, finding.reason)
    if not finding.grantable:
        found.grantable = False
