"""The program table's vocabulary: options, arity and the role of every operand and value.

A `Program` says, as data, what a program does with the words it is given: which options
take a value, and whether each operand or option value is a file it reads, writes,
deletes or changes permissions of, a program or shell string it runs, a network
destination, or local data it uploads. `roles_of` reads a command's words with that
table; `assess` checks each role against the right list (see docs/shell.md, "Roles").
Family modules (`files`, `network`, `archives`, `git`, …) hold the tables.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from safehold.policy.shell.words import Word

__all__ = [
    "FETCHES_CODE",
    "MAY_BE_OPTION",
    "NAMES_FROM_INPUT",
    "OPTIONS_FILE",
    "PARSERS",
    "PERM_TREE",
    "ROLES",
    "UNPACKS",
    "WRITES_ANYWHERE",
    "HostAsk",
    "Opt",
    "Parser",
    "Program",
    "Reading",
    "Resolved",
    "Role",
    "RoleUse",
    "Setting",
    "first_operand",
    "is_remote",
    "option_values",
    "read_roles",
    "resolve_option",
    "roles_of",
]

# The word a script's computed file name stands for: not static, so judged as unknown.
_COMPUTED = Word("$(computed by the script)", False)

Role = Literal[
    "read", "write", "delete", "perm", "exec", "network", "upload", "send", "cwd", "mount",
    "remote",
]  # fmt: skip
"""`send`: a destination that receives local data (`git push URL`, `scp f host:`); `remote`:
a repository git fetches from, by a remote's name (a word without `:`, `/` or `@`: the URL
configured in the protected `.git/config`, as a bare `git fetch` uses, or a local
repository) or by a URL (judged as `network`); `cwd`: a
directory the program's relative paths are relative to (`tar -C DIR`, `make -C DIR`);
`mount`: a host path a container sees and may change (`docker run -v SRC:DST`)."""
ROLES: tuple[Role, ...] = (
    "read", "write", "delete", "perm", "exec", "network", "upload", "send", "cwd", "mount",
    "remote",
)  # fmt: skip


Parser = Literal["getopt_long", "getopt", "git", "argparse", "pflag", "exact"]
"""How a program's own parser reads option words, which decides abbreviations:

- `getopt_long`: GNU getopt_long / argp: short clusters (`-rf`, `-ofile`), `--long=value`,
  and any unique prefix of a long option (`--regex` for `--regexp`);
- `getopt`: POSIX getopt: short clusters only, no long options, no abbreviations;
- `git`: git's parse-options: like `getopt_long` (unique prefixes of long options);
- `argparse`: Python's argparse / optparse: unique prefixes of long options (`allow_abbrev`);
- `pflag`: Go's spf13/pflag, under cobra (`gh`, `docker`, `kubectl`): short clusters (`-it`,
  `-nkube-system`), `-s=value` (the `=` is not part of the value), `--long=value`,
  `--flag=true`/`=false` for a flag, long names in full (no abbreviations);
- `exact`: every option word is spelled in full (Go's flag package, most hand-written
  parsers): no clusters, no prefixes.
"""
PARSERS: tuple[Parser, ...] = ("getopt_long", "getopt", "git", "argparse", "pflag", "exact")


@dataclass(frozen=True, slots=True)
class Setting:
    """What one setting given as an option's value does (`ssh -o IdentityFile=F`, `cargo
    --config K=V`): the files or hosts it names, each in a role, and a mode it switches on
    (`ssh -o ForwardAgent=yes`: `forward`). A reader returns None for a setting it does not
    understand (an unknown key, a key that loads code): the command is not understood."""

    uses: tuple[tuple[Role, str], ...] = ()
    mode: str | None = None
    # False: the uses are judged, and the command is not understood all the same
    # (`cargo --config FILE`: FILE is read, and the settings in it are unseen).
    understood: bool = True


@dataclass(frozen=True, slots=True)
class Opt:
    """One option: whether it takes a value, the value's role, and a mode it switches on.

    `optional`: the value is optional (getopt's `::`): only a glued value (`--opt=V`, `-oV`)
    is the option's; a separate next word is not consumed (`tar --checkpoint`, `perl -C`),
    except by argparse's `nargs="?"`, which takes a next word that is no option
    (`pytest --debug FILE`: `_optional_takes`).
    """

    takes: bool = False
    optional: bool = False
    role: Role | None = None
    mode: str | None = None
    script: bool = False  # the value is the program's script (`sed -e S`, `awk --source S`)
    # The words after the value are the arguments of what it names, not the program's own
    # (`python -m MOD ARGS…`, `python -c CODE ARGS…`): reading stops there.
    ends: bool = False
    # The value is a command whose words run up to one of these words, inclusive
    # (`find -exec CMD ARG… ;` or `… {} +`): they are the command's, not the program's own
    # options (the command itself is analysed by the program's step).
    until: frozenset[str] = frozenset()
    # The name the option's value is reported under when spelled otherwise: `gh pr create
    # -F FILE` is `--body-file FILE` (a file to upload), not curl's `-F name=@file` form.
    long: str = ""
    # The value is `KEY=VALUE` (or `KEY`) and, for these keys, VALUE has this role rather
    # than `role` (kubectl's `-o jsonpath-file=F` reads F; `-o json` names nothing).
    keyed: Mapping[str, Role] = field(default_factory=dict)
    # How many words the value is: `jq --rawfile NAME FILE` takes 2, and `role` is the
    # last one's (a glued `--opt=V` is the first; the rest follow it).
    count: int = 1
    # The value is a list: given as the next word, the static words after it up to the
    # next option word (or `@`) are its items too, not operands (`zip -x PAT PAT -r A`).
    # A computed word ends the list: it may expand to an option.
    items: bool = False
    # Files the option makes the program use though no word names them, each in a role:
    # `curl -n` reads `~/.netrc` (and sends the credentials it finds there).
    implies: tuple[tuple[Role, str], ...] = ()
    # The value is a setting read by this function (see `Setting`); a computed value, or
    # one it returns None for, is not understood.
    setting: Callable[[str], Setting | None] | None = None
    # The value names the backup the program keeps of each file it overwrites, which is
    # written too: `suffix`, FILE+VALUE (coreutils' `cp -S SUFFIX`; in a destination
    # directory, DIR/SOURCE+VALUE); `sed`, FILE+VALUE or, when VALUE holds `*`, VALUE in
    # FILE's directory with each `*` replaced by FILE's base name (GNU sed's `-i'bak/*'`).
    backup: Literal["", "suffix", "sed"] = ""


@dataclass(frozen=True, slots=True)
class HostAsk:
    """Why a (sub)command asks when nothing confines it although every word is understood:
    what it does happens where the analysis cannot look (`docker exec`: a command in a
    container of unknown confinement, through a daemon that is root on the host). `code`
    is the reason code, `why` the sentence after the command."""

    code: str
    why: str


@dataclass(frozen=True, slots=True)
class Program:
    """What a program (or one of its subcommands, or one of its modes) does with its words.

    Operands are the words that are neither options nor option values. `skip` leading
    operands are not files (`chmod MODE`, `grep PATTERN`) unless an option in `unskip` gave
    them (`grep -e PAT`). The first and last operand can have their own role (`cp SRC… DST`:
    `last="write"`). A mode set by an option (`sed -i`, `find -delete`, `tar -x`) replaces
    the operand roles with the mode's `Program`. `keyvalue` holds `key=PATH` operands
    (`dd of=`). `subcommands` are matched on the first operand (`git push`, `docker run`).
    """

    options: Mapping[str, Opt] = field(default_factory=dict)
    operands: Role | None = None
    first: Role | None = None
    last: Role | None = None
    skip: int = 0
    unskip: frozenset[str] = frozenset()
    modes: Mapping[str, Program] = field(default_factory=dict)
    keyvalue: Mapping[str, Role] = field(default_factory=dict)
    subcommands: Mapping[str, Program] = field(default_factory=dict)
    # Options are only recognised before the first operand (`find`'s expressions, `ssh`'s
    # remote command, `xargs`' inner command), not anywhere as GNU getopt allows.
    options_first: bool = False
    # Words from this operand on are another command, analysed on its own (`docker run
    # IMAGE CMD…`): operands past this count are not the program's own.
    stop_at: int | None = None
    # Operands end at the first option-like word (`find ROOTS… EXPRESSION`).
    leading_operands: bool = False
    # The first word may be an option cluster without its dash (`tar czf a.tgz dir`).
    bundled_first: bool = False
    # `host:path` operands are remote (`scp`, `rsync`): local sources of a remote
    # destination are uploads; the remote side is a network destination.
    remote_copy: bool = False
    # Roles the program has on words it is not given: `tar -x` writes into the current
    # directory (`.`), `patch` writes files named inside the patch (computed: `None`).
    implicit: tuple[tuple[Role, str | None], ...] = ()
    # Files named inside the program's script (`sed 'w out'`, `awk '{print > "f"}'`): a
    # function from the script text to (role, path) pairs.
    script_files: Callable[[str], list[tuple[Role, str | None]]] | None = None
    # The operand `-` stands for file names read from standard input (`python -m
    # py_compile -`): names nobody saw, each a computed path in this role.
    stdin_names: Role | None = None
    # How the program's parser reads option words (abbreviations, clusters): see `Parser`.
    parser: Parser = "getopt_long"
    # Where the option list comes from: the program and version whose `--help` or man page
    # it was taken from ("GNU grep 3.11"). Empty: the list is not (yet) complete.
    source: str = ""
    # Long options the program accepts that the table leaves out on purpose (they ask): a
    # word that names one, or is a prefix of one, is not read as a table option by prefix
    # (`pip install --python X`: pip's own `--python`, not `--python-version`).
    left_out: frozenset[str] = frozenset()
    # The (sub)command downloads packages and runs code that comes with them: install and
    # build scripts (`pip install`, `npm install`, `cargo build`). Read as the mode
    # `FETCHES_CODE`; unconfined it asks (security-model rule 3: downloaded code).
    fetches_code: bool = False
    # The (sub)command writes files its input names below the directory of its `implicit`
    # write (an archive's members: `tar -x`, `unzip`). Read as the mode `UNPACKS`; without
    # the sandbox every entry below that directory is judged as written (`assess`), since
    # a member may be `.git/hooks/pre-commit`.
    unpacks: bool = False
    # `REV:PATH` operands name PATH in the repository (`git show HEAD:.env` prints the
    # committed `.env`): PATH is read (judged by the path policy).
    rev_paths: bool = False
    # `NAME=VALUE` operands set variables the program's own code runs (make's `CC=…`,
    # `SHELL=…`): each is not understood.
    variable_operands: bool = False
    # The words after `--` go unread to another program (`gh repo clone R -- --depth 1`
    # passes them to `git clone`, where `-c core.fsmonitor=CMD` runs a command): each is
    # not understood.
    forwards_rest: bool = False
    # Unconfined, the (sub)command asks for this reason though it is understood: see `HostAsk`.
    host_ask: HostAsk | None = None
    # Files named after the URLs the program fetches (`curl -O URL`, `wget URL`): a function
    # of the command's role uses (its URL operands, an output directory) and its modes,
    # giving each file written (a computed word where the server names it). Writes.
    url_names: Callable[[Sequence[RoleUse], frozenset[str]], list[Word]] | None = None
    # Files the program writes named after its operands, a function of the role uses and
    # the modes as `url_names` is (`gzip f` writes `f.gz`, `gunzip f.gz` writes `f`). Writes.
    siblings: Callable[[Sequence[RoleUse], frozenset[str]], list[Word]] | None = None
    # Which operands the program is understood with; every other operand is not
    # understood (`date MMDDhhmm` sets the clock, `hostname NAME` the host name, `ps eww`
    # shows other processes' environments). None: every operand is.
    understood_operand: Callable[[Word], bool] | None = None


@dataclass(frozen=True, slots=True)
class RoleUse:
    """One word a command uses in one role: `("write", Word(".git/config"))`."""

    role: Role
    word: Word
    option: str = ""


# Parsers that take any unique prefix of a long option (`--regex` for `--regexp`).
_PREFIXES: frozenset[Parser] = frozenset({"getopt_long", "git", "argparse"})
# Parsers that read `-abc` as the cluster `-a -b -c` (and `-ofile` as `-o file`).
_CLUSTERS: frozenset[Parser] = frozenset({"getopt_long", "getopt", "git", "argparse", "pflag"})


@dataclass(frozen=True, slots=True)
class Resolved:
    """An option word as the program's parser reads it.

    `flags`: the options the word spells, in order (one, or each letter of a cluster);
    `value`: a value glued to the last of them (`--out=F`, `-oF`), else None; `takes`: the
    last option wants the next word as its value (a required value not glued on).
    `unknown`: the word does not resolve (an unknown name, an ambiguous prefix, an
    unknown letter in a cluster, a value given to an option that takes none).
    """

    flags: tuple[tuple[str, Opt], ...] = ()
    value: str | None = None
    takes: bool = False
    unknown: bool = False


_UNKNOWN = Resolved(unknown=True)
_BOOLS = frozenset(
    {"1", "t", "T", "true", "TRUE", "True", "0", "f", "F", "false", "FALSE", "False"}
)


def _long(program: Program, name: str) -> tuple[str, Opt, bool] | None:
    """The long option `name` names: itself, or the one option it is a unique prefix of,
    and whether that reading is certain. A prefix is certain only in a complete table
    (`Program.source`) when no option the table leaves out (`Program.left_out`) starts with
    it too: otherwise the program may have an option of that name, or the prefix may be
    ambiguous there (`npm --glob`: npm's `--global`, not the table's `--globalconfig`)."""
    options, parser = program.options, program.parser
    opt = options.get(name)
    if opt is not None:
        return name, opt, True
    if parser not in _PREFIXES:
        return None
    matches = [k for k in options if k.startswith(name) and k.startswith("--")]
    if len(matches) == 1:
        certain = bool(program.source) and not any(k.startswith(name) for k in program.left_out)
        return matches[0], options[matches[0]], certain
    if parser == "git" and name.startswith("--no-"):
        # git's parse-options: every flag `--X` has its negation `--no-X` (also abbreviated).
        found = _long(program, "--" + name[5:])
        if found is not None and not found[1].takes:
            return found
    return None  # unknown, or an ambiguous prefix: either way the parser's reading is unknown


def resolve_option(program: Program, text: str) -> Resolved:
    """How `program`'s parser reads the option word `text` (it starts with `-`).

    Exact names first; then, by `program.parser`: `--name=value`; a unique prefix of a long
    option (getopt_long, git, argparse); a cluster of short options where every letter is
    known and a letter that takes a value takes the rest of the word. An optional value
    (`Opt.optional`) is the option's only when glued. Anything else is `unknown`.
    """
    opts = program.options
    opt = opts.get(text)
    if opt is not None:
        return Resolved(((text, opt),), None, opt.takes and not opt.optional)
    parser = program.parser
    name, eq, value = text.partition("=")
    if eq and (
        parser not in ("getopt", "pflag")
        or text.startswith("--")
        or (parser == "pflag" and name in opts)
    ):
        # `--out=F` (and `-out=F` for parsers that spell long options with one dash;
        # pflag reads `-r=false` and `-F=v` as one option and its value, and `-Fk=v` as
        # the cluster `-F` `k=v`, below).
        found = _long(program, name) if name.startswith("--") else None
        if found is None and name in opts:
            found = name, opts[name], True
        if found is not None and not found[1].takes and parser == "pflag":
            # pflag's boolean flags take `=true`/`=false` (Go's strconv.ParseBool spellings).
            return Resolved((found[:2],), None, False) if value in _BOOLS else _UNKNOWN
        # No option is named `-vx`: a parser that reads clusters reads `-vx=1` as `-v`
        # with the value `x=1` (awk's `-vNAME=VALUE`), below.
        glued = found is None and name[1:2] != "-" and parser in _CLUSTERS
        if not glued:
            if found is None or not found[1].takes:
                return _UNKNOWN  # an unknown option, or a value for one that takes none
            # An uncertain prefix is still read (its value judged) but not understood.
            return Resolved((found[:2],), value, False, not found[2])
    if text.startswith("--"):
        found = _long(program, text)
        if found is None:
            return _UNKNOWN
        takes = found[1].takes and not found[1].optional
        return Resolved((found[:2],), None, takes, not found[2])
    if parser not in _CLUSTERS or len(text) < 3:
        return _UNKNOWN
    # A cluster of short options: `-rf`, `-avz`, `-ofile`, `-voProxyCommand=x`.
    # An unknown letter makes the word unknown; the letters that are known are still read
    # (their modes, a value glued to one), so what is understood is judged in any case.
    flags: list[tuple[str, Opt]] = []
    missing = False
    for k in range(1, len(text)):
        letter = "-" + text[k]
        short = opts.get(letter)
        if short is None:
            missing = True
            continue
        flags.append((letter, short))
        if short.takes:
            rest = text[k + 1 :]
            if parser == "pflag" and rest.startswith("="):
                rest = rest[1:]  # pflag: `-F=x=@f` gives `-F` the value `x=@f`
            if rest:
                return Resolved(tuple(flags), rest, False, missing)
            return Resolved(tuple(flags), None, not short.optional, missing)
    return Resolved(tuple(flags), None, False, missing) if flags else _UNKNOWN


def option_values(
    program: Program, words: tuple[Word, ...], names: Collection[str]
) -> list[tuple[str, Word]]:
    """The values the options `names` are given in `words` (argv, program first), each
    with the option's name, read with `program`'s parser: `-o V`, `-oV`, `--opt=V`, the end
    of a cluster (`-voKey=V`), a unique prefix (`--mod=4755`). Words after `--` are none."""
    out: list[tuple[str, Word]] = []
    for i, w in enumerate(words[1:], 1):
        if w.static and w.text == "--":
            break
        if not (w.static and w.text.startswith("-")):
            continue
        resolved = resolve_option(program, w.text)
        if not resolved.flags or resolved.flags[-1][0] not in names:
            continue
        name = resolved.flags[-1][0]
        if resolved.value is not None:
            out.append((name, Word(resolved.value, w.static, w.splits, w.home)))
        elif resolved.takes and i + 1 < len(words):
            out.append((name, words[i + 1]))
    return out


def _optional_takes(
    program: Program, resolved: Resolved, words: Sequence[Word], i: int
) -> bool | None:
    """Whether an option with an optional value, given none glued on, takes the next word
    `words[i + 1]` all the same: argparse's `nargs="?"` does when the word is no option
    (`pytest --debug FILE` writes FILE; getopt's `::` never does). None when that is not
    known: argparse drops a `--` and may take the word after it (`--debug -- FILE`)."""
    if (
        program.parser != "argparse"
        or resolved.takes
        or resolved.value is not None
        or not resolved.flags
        or not resolved.flags[-1][1].optional
        or i + 1 >= len(words)
    ):
        return False
    following = words[i + 1]
    if not following.static:
        return True  # a computed word: taken as the value, judged in its role
    if following.text == "--":
        return None if i + 2 < len(words) else False
    return not following.text.startswith("-") or following.text == "-"


def first_operand(program: Program, words: Sequence[Word]) -> tuple[Word | None, frozenset[str]]:
    """The first operand of `words` (argv, program first) and the names of the options
    given anywhere before `--`, read with `program`'s parser (`jq -r -f F`: `F`, with `-r`
    and `-f`). Subcommands and modes are not looked at."""
    first: Word | None = None
    given: set[str] = set()
    options_done = False
    i = 1
    while i < len(words):
        w = words[i]
        if not options_done and w.static and w.text == "--":
            options_done = True
        elif not options_done and w.static and w.text.startswith("-") and w.text != "-":
            resolved = resolve_option(program, w.text)
            given.update(name for name, _ in resolved.flags)
            if resolved.flags and (resolved.takes or _optional_takes(program, resolved, words, i)):
                i += resolved.flags[-1][1].count
            elif resolved.flags and resolved.value is not None:
                i += resolved.flags[-1][1].count - 1
        elif first is None:
            first = w
        i += 1
    return first, frozenset(given)


@dataclass(frozen=True, slots=True)
class Reading:
    """A command read with its program's table: each word's role, the modes switched on,
    and the option words (and subcommands) the table does not account for."""

    uses: tuple[RoleUse, ...]
    modes: frozenset[str]
    unknown: tuple[str, ...] = ()
    # The `HostAsk` of each (sub)command the words reach (`docker exec`), outermost first.
    asks: tuple[HostAsk, ...] = ()
    # The words that are the program's script (`sed -e S`, `awk PROGRAM`): an `Opt.script`
    # value, or the first operand of a table with `skip` when no option gave the script.
    scripts: tuple[Word, ...] = ()


def roles_of(program: Program, words: tuple[Word, ...]) -> tuple[list[RoleUse], set[str]]:
    """The role of each word of `words` (argv, program first) and the modes switched on.

    `read_roles` also gives the option words that did not resolve.
    """
    reading = read_roles(program, words)
    return list(reading.uses), set(reading.modes)


FETCHES_CODE = "fetches-code"
"""The mode a `Program(fetches_code=True)` reading reports."""

NAMES_FROM_INPUT = "names-from-input"
"""The mode of an option whose value is a file (or `-`, standard input) listing more file
names the program then reads (`tar -T LIST`, `sort --files0-from=LIST`, `zip -@`, git's
`--pathspec-from-file`): names nobody saw, each a computed path (unconfined: asked)."""

UNPACKS = "unpacks"
"""The mode a `Program(unpacks=True)` reading reports (see `Program.unpacks`)."""

PERM_TREE = "perm-tree"
"""The mode of an option that makes a permission change reach every entry below a
directory operand (`chmod -R`, `--recursive`): without the sandbox every entry below it is
judged as changed (`check_trees`), since one may be `.git/hooks/pre-commit` or `.env`."""

OPTIONS_FILE = "options-file"
"""The mode of an option whose value holds more of the program's options, commands or
destinations (`curl -K FILE`, `wget --config FILE`, `wget -e CMD`, `wget -i URLS`): files
they write, send or run and hosts they reach are not seen, so unconfined the command is not
understood. The file itself is still read."""


MAY_BE_OPTION = "may-be-option"
"""The mode of a reading where a word computed at run time (`"$X"`, `$(cmd)`, a glob, an
xargs placeholder) stands before `--` in a program with options that read, write, run or
switch something, or that its table leaves out so that they ask: bash may expand it to
`-f FILE` or `--output=FILE` (argument injection), which the program then reads as that
option. Unconfined, such a command is not understood."""

WRITES_ANYWHERE = "writes-anywhere"
"""The mode of an option that lets a program write where its input says, not only under
the directory it writes into (`tar -x -P`: absolute member names and `..`; `unzip -:`):
each written name is a computed path (unconfined: asked)."""


def read_roles(program: Program, words: tuple[Word, ...]) -> Reading:
    """`words` (argv, program first) read with `program`'s table: see `Reading`."""
    asks: list[HostAsk] = []
    scripts: list[Word] = []
    uses, modes, unknown = _read(program, words, asks, scripts)
    return Reading(tuple(uses), frozenset(modes), tuple(unknown), tuple(asks), tuple(scripts))


# The first character of a computed word's text that bash may expand to anything, an
# option included: an expansion, a glob, a brace list, or a placeholder the analysis puts
# for words read at run time (`<stdin words>`, xargs's `-I %`, find's `{}`).
_EXPANDS_FIRST = frozenset("$`*?[{<%")


def _may_be_option(word: Word, program: Program) -> bool:
    """Whether the computed `word`, read where `program` still reads options, may expand
    to an option that matters (`MAY_BE_OPTION`). A word that starts with a literal
    character (`src/$X`, `./$f`) or `~` cannot start with `-`."""
    text = word.text
    if word.home or (text and text[0] not in _EXPANDS_FIRST and len(text) > 2):
        return False
    return bool(program.left_out) or any(
        o.role or o.mode or o.script or o.implies or o.setting or o.until or o.ends
        for o in program.options.values()
    )


def _old_style(program: Program, words: tuple[Word, ...]) -> tuple[Word, ...]:
    """`tar cfC A.tar DIR src`: the first word is a cluster without its dash, and each of
    its letters that takes a value takes the next word in turn (tar's old-style options),
    not the rest of the cluster (`tar cfz a.tgz src` writes `a.tgz`)."""
    rest = list(words[2:])
    out: list[Word] = []
    for letter in words[1].text:
        out.append(Word("-" + letter, True))
        opt = program.options.get("-" + letter)
        if opt is not None and opt.takes and not opt.optional and rest:
            out.append(rest.pop(0))
    return (words[0], *out, *rest)


def _read(
    program: Program,
    words: tuple[Word, ...],
    asks: list[HostAsk] | None = None,
    script_words: list[Word] | None = None,
) -> tuple[list[RoleUse], set[str], list[str]]:
    if asks is not None and program.host_ask is not None:
        asks.append(program.host_ask)
    if program.bundled_first and len(words) > 1 and words[1].static and words[1].text.isalpha():
        words = _old_style(program, words)
    uses: list[RoleUse] = []
    scripts: list[Word] = []
    modes: set[str] = set()
    unknown: list[str] = []
    operands: list[Word] = []
    backups: list[tuple[str, Opt, Word]] = []
    first_operand_at = -1
    unknown_at_operand = 0
    operands_done = False
    unskipped = False
    dashdash = False
    i = 1
    options_done = False
    while i < len(words):
        w = words[i]
        t = w.text
        if program.leading_operands and w.static and t == "--" and not operands:
            # find(1): `--` ends the leading options (`-H`, `-L`, `-D`, `-O`) only; the
            # roots and the expression follow it (`find -- DIR -delete` deletes). Past the
            # roots it is no primary: unknown, as any other word.
            if not dashdash:
                dashdash = True
                i += 1
                continue
        elif not options_done and w.static and t == "--":
            options_done = True
            i += 1
            if program.forwards_rest:
                # Another program's words (`gh repo clone R -- GITFLAGS…`): not understood.
                unknown.extend(x.text for x in words[i:])
                break
            continue
        if options_done or not w.static or not t.startswith("-") or t == "-":
            if not options_done and not w.static and _may_be_option(w, program):
                modes.add(MAY_BE_OPTION)
            if program.leading_operands and (operands_done or t in ("(", "!", ")")):
                operands_done = True
                i += 1
                continue
            if not operands:
                first_operand_at = i
                unknown_at_operand = len(unknown)
            operands.append(w)
            if program.options_first:
                options_done = True
            if program.stop_at is not None and len(operands) > program.stop_at:
                break
            i += 1
            continue
        operands_done = operands_done or (program.leading_operands and bool(operands))
        resolved = resolve_option(program, t)
        if resolved.unknown:
            # Not understood: reported, so that unconfined the command asks. An unknown
            # word is read as a flag, so a value it may take counts as an operand (checked
            # as a path); the known letters of a cluster are still read.
            unknown.append(t)
            if not resolved.flags:
                i += 1
                continue
        for flag, opt in resolved.flags:
            # Every flag of a cluster can switch a mode: `sed -ni`, `rsync -av --delete`.
            if opt.mode:
                modes.add(opt.mode)
            if flag in program.unskip:
                unskipped = True
            uses.extend(RoleUse(role, Word(path, True), flag) for role, path in opt.implies)
        name, opt = resolved.flags[-1]
        after = _optional_takes(program, resolved, words, i)
        if after is None:
            unknown.append(t)  # `--debug -- F`: argparse may take `F` as the value
        elif after:
            resolved = Resolved(resolved.flags, None, True, resolved.unknown)
        if resolved.value is not None:
            holder: Word | None = Word(resolved.value, w.static, w.splits, w.home)
            i += 1
            if opt.count > 1:  # `--opt=NAME VALUE`: the rest of the value follows
                holder = words[min(i + opt.count - 2, len(words) - 1)]
                i += opt.count - 1
        elif resolved.takes and i + 1 < len(words):
            holder = words[min(i + opt.count, len(words) - 1)]
            i += 1 + opt.count
            if opt.until:
                while i <= len(words) and not (
                    words[i - 1].static and words[i - 1].text in opt.until
                ):
                    i += 1
            if opt.items:
                while (
                    i < len(words) and words[i].static and not words[i].text.startswith(("-", "@"))
                ):
                    i += 1
        else:
            holder = None
            i += 1
        if holder is not None:
            key, eq, keyed = holder.text.partition("=")
            keyed_role = opt.keyed.get(key) if holder.static and eq else None
            if opt.keyed and not holder.static:
                # A computed value may name a file: the word in a file role (it asks).
                uses.append(RoleUse(next(iter(opt.keyed.values())), holder, opt.long or name))
            elif keyed_role is not None:
                # `-o jsonpath-file=F`: F is a file in the key's role.
                uses.append(
                    RoleUse(
                        keyed_role, Word(keyed, True, holder.splits, holder.home), opt.long or name
                    )
                )
            elif opt.role is not None:
                uses.append(RoleUse(opt.role, holder, opt.long or name))
            if opt.setting is not None:
                setting = opt.setting(holder.text) if holder.static else None
                if setting is None or not setting.understood:
                    unknown.append(f"{name} {holder.text}")
                if setting is not None:
                    uses.extend(
                        RoleUse(r, Word(x, True), opt.long or name) for r, x in setting.uses
                    )
                    if setting.mode:
                        modes.add(setting.mode)
            if opt.backup:
                backups.append((opt.long or name, opt, holder))
            if opt.script:
                scripts.append(holder)
            if opt.ends:
                break  # the rest are the code's own arguments (`python -c CODE ARG…`)
    spec = program
    if operands and spec.subcommands and operands[0].static:
        sub = spec.subcommands.get(operands[0].text)
        if sub is not None:
            inner, inner_modes, inner_unknown = _read(
                sub, words[first_operand_at:], asks, script_words
            )
            # The words after the subcommand are its own: only the options before it are
            # the program's to resolve (`git -C d log --oneline`).
            return uses + inner, modes | inner_modes, unknown[:unknown_at_operand] + inner_unknown
        # A subcommand the table does not list: its options are its own, not the
        # program's, so only the subcommand is reported (options before it still count).
        unknown = [*unknown[:unknown_at_operand], operands[0].text]
    elif operands and spec.subcommands:
        unknown.append(operands[0].text)  # a computed subcommand

    for mode in sorted(modes):
        if mode in spec.modes:
            spec = spec.modes[mode]
            if asks is not None and spec.host_ask is not None:
                asks.append(spec.host_ask)  # `ssh -R`: the mode itself asks unconfined
            break
    if spec is not program and spec.options:
        # A mode can change what an option's value is (`tar -x -f A` reads A).
        uses = [
            RoleUse(spec.options[u.option].role or u.role, u.word, u.option)
            if u.option in spec.options
            else u
            for u in uses
        ]
    skip = 0 if unskipped else spec.skip
    if skip and operands:
        scripts.append(operands[0])
    if script_words is not None and program.script_files is not None:
        script_words.extend(scripts)
    if program.script_files is not None:
        for script in scripts:
            if script.static:
                # A file the script computes (awk `print > ENVIRON["HOME"] "/x"`) is a
                # computed word: an unknown path, asked when nothing confines it.
                uses.extend(
                    RoleUse(role, Word(path, True) if path is not None else _COMPUTED, "script")
                    for role, path in program.script_files(script.text)
                )
    paths = operands[skip:]
    for k, w in enumerate(paths):
        if spec.variable_operands and "=" in w.text:
            unknown.append(w.text)  # make `CC=cmd`: a variable its recipes may run
            continue
        if spec.understood_operand is not None and not spec.understood_operand(w):
            unknown.append(w.text)  # `hostname NAME`: an operand that changes the system
        if w.static and "=" in w.text and spec.keyvalue:
            key, _, value = w.text.partition("=")
            role = spec.keyvalue.get(key)
            if role is not None:
                uses.append(RoleUse(role, Word(value, w.static, w.splits, w.home), key + "="))
            continue
        if spec.stdin_names is not None and w.static and w.text == "-":
            uses.append(RoleUse(spec.stdin_names, _COMPUTED))
            continue
        if spec.rev_paths and w.static and ":" in w.text:
            rev, _, rev_path = w.text.partition(":")
            if rev_path:
                uses.append(RoleUse("read", Word(rev_path, True), "REV:PATH"))
            if not rev and rev_path[1:2] == ":" and rev_path[:1] in "0123":
                # `:N:PATH` names PATH at stage N of the index (gitrevisions(7)).
                uses.append(RoleUse("read", Word(rev_path[2:], True), "REV:PATH"))
        role = spec.operands
        if k == 0 and spec.first is not None:
            role = spec.first
        if k == len(paths) - 1 and len(paths) > 1 and spec.last is not None:
            role = spec.last
        if role is not None:
            uses.append(RoleUse(role, w))
    for option, opt, named in backups:
        uses.extend(_backups(option, opt, named, uses))
    if spec.remote_copy:
        uses = _remote_roles(uses, paths)
    uses.extend(
        RoleUse(role, Word(text, True) if text is not None else Word("<computed>", False, True))
        for role, text in spec.implicit
    )
    if spec.url_names is not None:
        uses.extend(RoleUse("write", w, "url-name") for w in spec.url_names(uses, frozenset(modes)))
    if spec.siblings is not None:
        uses.extend(RoleUse("write", w, "sibling") for w in spec.siblings(uses, frozenset(modes)))
    if NAMES_FROM_INPUT in modes:
        uses.append(RoleUse("read", _COMPUTED, "names"))
    if WRITES_ANYWHERE in modes:
        uses.append(RoleUse("write", _COMPUTED, "names"))
    if spec.fetches_code or program.fetches_code:
        modes.add(FETCHES_CODE)
    if spec.unpacks:
        modes.add(UNPACKS)
    return uses, modes, unknown


def _backups(option: str, opt: Opt, value: Word, uses: list[RoleUse]) -> list[RoleUse]:
    """The backups `option VALUE` names (`Opt.backup`): one write per file the command
    writes, and per source in a destination directory; computed when a word is."""
    targets = [u.word for u in uses if u.role == "write" and u.option != option]
    sources = [u.word for u in uses if u.role in ("read", "delete") and not u.option]
    out: list[RoleUse] = []
    for target in targets:
        if not (value.static and target.static):
            out.append(RoleUse("write", _COMPUTED, option))
            continue
        names = [target.text]
        if opt.backup == "suffix":
            names += [f"{target.text.rstrip('/')}/{posixpath.basename(s.text.rstrip('/'))}"
                      for s in sources if s.static]  # fmt: skip
        for name in names:
            if opt.backup == "sed" and "*" in value.text:
                head, base = posixpath.split(name)
                backup = posixpath.join(head, value.text.replace("*", base))
            else:
                backup = name + value.text
            out.append(RoleUse("write", Word(backup, True, target.splits, target.home), option))
    return out


def is_remote(word: Word) -> bool:
    """`host:path`, `user@host:path`, `rsync://…`: a remote operand of scp/rsync."""
    t = word.text
    if t.startswith(("/", ".", "~")) or ("://" in t and not t.startswith(("rsync://", "scp://"))):
        return False
    head = t.split("/", 1)[0]
    return ":" in head or t.startswith(("rsync://", "scp://"))


def _remote_roles(uses: list[RoleUse], paths: list[Word]) -> list[RoleUse]:
    if not paths:
        return uses
    dest = paths[-1]
    out: list[RoleUse] = []
    for use in uses:
        if use.option or not any(use.word is p for p in paths):
            out.append(use)
        elif is_remote(use.word):
            out.append(RoleUse("send" if use.word is dest else "network", use.word))
        elif is_remote(dest) and use.word is not dest:
            out.append(RoleUse("upload", use.word))
        else:
            out.append(use)
    return out
