"""Shell-command analysis: the simple commands bash would run, or why that is not known.

`analyze(command)` is pure and total: for any input it returns a `ShellAnalysis`, never
raises. The pipeline (see docs/shell.md for why):

1. guards — type, length, control and invisible characters, backslash-newline;
2. parse with tree-sitter-bash; any error node makes the command opaque;
3. walk every node, evaluating words statically (`parse`, `words`);
4. look through wrappers (`wrappers`, `programs/`) and re-analyse `bash -c` strings;
5. flag what still hides code: dangerous environment assignments, arithmetic on quoted
   code, dynamic redirect targets.

Opaque reasons are data on the result; the caller turns them into ASK, never ALLOW.
`cross_check` (a second parser, bashlex) is separate because it is slow; the execute
assessment runs it only on commands that would otherwise be allowed without a person.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from safehold.errors import value_kind
from safehold.policy.decision import Reason
from safehold.policy.shell.heredocs import (
    MAX_HEREDOC_LENGTH,
    code_text,
    data_bodies,
    skipped_dashes,
    spell_dashes,
)
from safehold.policy.shell.locations import MAX_DIRS, chdir_move
from safehold.policy.shell.parse import (
    SHELL_KEYWORDS,
    Loop,
    RawCommand,
    RawRedirect,
    Walk,
    parse_tree,
    plain_heredoc_walk,
    plain_words,
    uncovered_bytes,
    walk_script,
)
from safehold.policy.shell.programs.environment import (
    DECLARATION_BUILTINS,
    NAME_SETTERS,
    declared_names,
    exported_names,
    exports_all,
    imported_setting,
    is_dangerous_env,
    is_dangerous_setting,
    names_set,
)
from safehold.policy.shell.programs.files import STDIN_COPIERS, copies_stdin
from safehold.policy.shell.programs.interpreters import program_family
from safehold.policy.shell.programs.runners import chdir_values
from safehold.policy.shell.programs.shells import SHELLS
from safehold.policy.shell.programs.step import Unwrapped, program_name
from safehold.policy.shell.sandboxed import code_paths
from safehold.policy.shell.words import Word
from safehold.policy.shell.wrappers import unwrap

__all__ = [
    "MAX_COMMAND_LENGTH",
    "MAX_HEREDOC_LENGTH",
    "MAX_INPUT_LENGTH",
    "Redirect",
    "ShellAnalysis",
    "SimpleCommand",
    "Word",
    "analyze",
    "is_dangerous_env",
]

MAX_COMMAND_LENGTH = 10_000
"""Longer commands are opaque: nobody reviews them, and parse time grows with length.

Quoted heredoc bodies (data, see `heredocs`) do not count: they may add `MAX_HEREDOC_LENGTH`."""
MAX_INPUT_LENGTH = MAX_COMMAND_LENGTH + MAX_HEREDOC_LENGTH
"""Longer input is an immediate ASK (`input-too-large`), before any parsing."""
MAX_ARGV_WORDS = 4096
"""Longer argv lists are opaque (checked before the list is copied)."""
_BASE_DIRS: frozenset[str | None] = frozenset({"."})
# Builtins that set a variable named by an argument (`read PATH`, `declare -n r=PATH`).
_NAME_BUILTINS = frozenset(NAME_SETTERS) | {"declare", "typeset", "local"}
MAX_SCRIPT_DEPTH = 3
"""How many `bash -c` / `eval` layers are re-analysed before the rest is opaque."""

_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&", "&>|"})
_READ_OPS = frozenset({"<", "<&"})
# Harmless device files: redirecting to them touches no file the policy guards.
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_ALLOWED_CONTROL = frozenset("\t\n")
_STDIN_REDIRECTS = frozenset({"<", "<<", "<<-", "<<<", "<>", "<&"})
_RESERVED = SHELL_KEYWORDS | {"[[", "]]", "((", "))", "(", ")", "coproc", "time"}
# Builtins that take a variable name or an arithmetic expression as an argument: bash
# evaluates an array subscript there, so `read 'a[$(cmd)]'` runs `cmd`.
_SUBSCRIPT_BUILTINS = frozenset(
    {
        "printf", "read", "declare", "typeset", "local", "export", "readonly", "test", "[",
        "let", "unset", "getopts", "wait", "mapfile", "readarray", "shift", "return", "exit",
        "ulimit", "caller", "break", "continue", "source", ".",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Redirect:
    """A redirection target and what it does to the file (`<` reads, the rest write)."""

    target: str
    access: Literal["read", "write"]
    op: str = ">"
    dirs: tuple[str | None, ...] = (".",)
    """Where a relative target lands (see `SimpleCommand.dirs`)."""
    writer: str = field(default="", compare=False)
    """The program whose output the redirection takes (empty: a compound's redirection)."""
    literal: bool = field(default=False, compare=False)
    """The output is text the command spells out: a static heredoc or herestring body that a
    program copies byte for byte (`cat`, `tee`: `files.STDIN_COPIERS`), so a script written
    this way is as visible as a heredoc script (see `flows`)."""
    body: str = field(default="", compare=False)
    """The static text the writer copies from its standard input, byte for byte or not
    (`flows` reads the command lines in it); empty when it copies none."""
    altered: bool = field(default=False, compare=False)
    """The writer changes or picks from the text it copies (`cat -n`, `dd count=1`): what
    it writes is in no word of the command."""


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One program bash would run: argv after wrapper stripping, plus the wrapper chain.

    `wrappers` holds, outermost first, each wrapper's words from the wrapper onward
    (`("sudo", "rm", "-rf", "x")` for `sudo rm -rf x`), so rules can match any layer.
    `dynamic` lists argv indices whose value bash computes at run time.
    """

    argv: tuple[str, ...]
    wrappers: tuple[tuple[str, ...], ...] = ()
    assignments: tuple[str, ...] = ()
    dynamic: frozenset[int] = frozenset()
    stdin_fed: bool = False
    pipes: tuple[tuple[int, int], ...] = ()
    words: tuple[Word, ...] = ()
    wrapper_words: tuple[tuple[Word, ...], ...] = ()
    dirs: tuple[str | None, ...] = (".",)
    """The directories the command may run in, relative to the call's base (`.`), the home
    directory (`~/…`) or absolute; `None` when a `cd` went somewhere computed."""
    stdio: tuple[tuple[str, str], ...] = ()
    """(descriptor, operator) of every redirection the command runs under, its own and its
    compound's (`("2", ">")` for `2>/dev/null`; the descriptor is empty when unwritten)."""
    loops: tuple[tuple[int, Loop], ...] = ()
    """Indices of `words` that are exactly `"$VAR"` of an enclosing `for VAR in WORDS`
    nothing else sets, with that loop (`parse.Loop`)."""
    copied: tuple[str, bool] | None = field(default=None, compare=False, repr=False)
    """(text, byte for byte) when the program copies a static heredoc or herestring body
    into the files it writes (`tee F <<'EOF'`: `files.STDIN_COPIERS`)."""

    program: str = field(init=False, compare=False, repr=False)
    """The program's basename (`/bin/rm` is `rm`); empty for a command with no program.
    Worked out once, from `words`, when the command is made (the checks read it often)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "program", program_name(self.words[0]) if self.words else "")


@dataclass(frozen=True, slots=True)
class ShellAnalysis:
    """What a command runs: its simple commands, redirections, and anything not understood.

    `opaque` is empty exactly when every program bash would run is statically known.
    `grant_argvs` is the command as parsed (before wrapper stripping, with redirections and
    operators) — the exact thing an "always" answer is recorded for.
    """

    commands: tuple[SimpleCommand, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    opaque: tuple[Reason, ...] = ()
    grant_argvs: tuple[tuple[str, ...], ...] = ()
    fork_bombs: tuple[str, ...] = ()
    dynamic_redirects: bool = False
    scripts: tuple[str, ...] = ()
    code: tuple[str, ...] = ()
    """Visible code no analysis reads (inline `python -c` code, heredoc scripts): allowed in
    auto mode only inside the sandbox, and scanned for denied paths (docs/decisions.md).
    Assignment values that name a path are scanned the same way (`RM='cat ~/.ssh/id_rsa'
    make clean`), as text a program may run or open."""
    expanded: tuple[str, ...] = ()
    """Text bash expands outside the commands' words: the bodies of unquoted heredocs and
    the values of assignments (`T=$GITHUB_TOKEN cmd`, `env T=… cmd`, `T=…;`). What they
    expand reaches the command as data (see `effects.expanded_effects`)."""


def _reason(code: str, rule: str, message: str) -> Reason:
    return Reason(code=code, rule=rule, message=message)


def _show(text: str, limit: int = 60) -> str:
    text = text.replace("`", "'")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _too_large(text: str) -> Reason | None:
    if len(text) <= MAX_INPUT_LENGTH:
        return None
    return _reason(
        "input-too-large",
        "max-input",
        f"the command is {len(text)} characters long; over {MAX_INPUT_LENGTH} is not read",
    )


def _guard(text: str) -> Reason | None:
    if len(text) > MAX_COMMAND_LENGTH:
        return _reason(
            "command-too-long",
            "max-length",
            f"the command is {len(text)} characters long; over {MAX_COMMAND_LENGTH} "
            "is not analysed",
        )
    plain = text.isascii() and text.replace("\t", "").replace("\n", "").isprintable()
    for ch in () if plain else text:  # the per-character check only for unusual text
        if ch in _ALLOWED_CONTROL or (" " <= ch < "\x7f"):
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") or (cat == "Zs" and ch != " "):
            return _reason(
                "control-character",
                "input-guard",
                f"the command contains the invisible or control character U+{ord(ch):04X}, "
                "which shells and parsers read differently",
            )
    if "\\\n" in text:
        return _reason(
            "line-continuation",
            "input-guard",
            "the command contains a backslash-newline line continuation, which parsers "
            "are known to read differently from bash",
        )
    return None


@dataclass(slots=True)
class _Acc:
    commands: list[SimpleCommand]
    redirects: list[Redirect]
    opaque: list[Reason]
    fork_bombs: list[str]
    scripts: list[str]
    dynamic_redirects: bool = False
    code: list[str] = field(default_factory=list)
    # Heredoc bodies bash passes unexpanded (quoted, verified): a program reading one on
    # stdin reads exactly this text.
    static_bodies: set[str] = field(default_factory=set)
    # Heredoc bodies bash expands, and assignment values that are not literal text.
    expanded: list[str] = field(default_factory=list)
    # Variables the script exported so far (`export A=1`), with their values (None: not
    # known): later programs see them.
    exported: list[tuple[str, Word | None]] = field(default_factory=list)

    def add_opaque(self, reason: Reason) -> None:
        if reason not in self.opaque:
            self.opaque.append(reason)


def analyze(command: str | Sequence[str]) -> ShellAnalysis:
    """Analyse a shell command string (bash syntax) or an argv list; never raises."""
    if type(command) is str:  # a subclass could hash or compare in surprising ways
        return _analyze_text(command)
    return _analyze_safely(command)


@functools.lru_cache(maxsize=1024)
def _analyze_text(command: str) -> ShellAnalysis:
    # A pure function of the text and its result is immutable: agents repeat commands
    # (`git status`, `npm test`), so remembering recent ones is free correctness-wise.
    return _analyze_safely(command)


def _analyze_safely(command: object) -> ShellAnalysis:
    try:
        return _analyze(command)
    except Exception as exc:  # INVARIANT: analysis is total; a bug here means opaque, not allow
        return ShellAnalysis(
            opaque=(
                _reason(
                    "analysis-error",
                    "analyzer",
                    f"the command could not be analysed ({type(exc).__name__})",
                ),
            )
        )


def _analyze(command: object) -> ShellAnalysis:
    acc = _Acc([], [], [], [], [])
    if isinstance(command, str):
        too_large = _too_large(command)
        if too_large is not None:
            return ShellAnalysis(opaque=(too_large,))
        if not command.strip():
            return ShellAnalysis(
                opaque=(_reason("empty-command", "command", "the command is empty"),)
            )
        grant = _analyze_script(command, acc, depth=0, layers=(), assigns=(), dirs=_BASE_DIRS)
    elif isinstance(command, Sequence) and not isinstance(command, bytes | bytearray):
        # Measure before copying: `range(10**12)` is a Sequence too.
        if len(command) > MAX_ARGV_WORDS:
            return ShellAnalysis(
                opaque=(
                    _reason(
                        "command-too-long",
                        "max-length",
                        f"the argv list has {len(command)} words; over {MAX_ARGV_WORDS} is "
                        "not analysed",
                    ),
                )
            )
        argv = list(command)
        if not argv or not all(isinstance(a, str) for a in argv) or not argv[0].strip():
            return ShellAnalysis(
                opaque=(
                    _reason(
                        "invalid-command",
                        "command",
                        "an argv command must be a non-empty list of strings",
                    ),
                )
            )
        if sum(len(a) for a in argv) > MAX_COMMAND_LENGTH or any("\x00" in a for a in argv):
            return ShellAnalysis(
                opaque=(
                    _reason(
                        "command-too-long",
                        "max-length",
                        "the argv list is too long or contains a NUL character",
                    ),
                )
            )
        words = tuple(Word(a, True) for a in argv)
        raw = RawCommand(words, (), (), False, ())
        _emit(raw, acc, depth=0, layers=(), assigns=())
        grant = (tuple(argv),)
    else:
        return ShellAnalysis(
            opaque=(
                _reason(
                    "invalid-command",
                    "command",
                    f"the command is {value_kind(command)}, not a string or argv list",
                ),
            )
        )
    return ShellAnalysis(
        commands=tuple(acc.commands),
        redirects=tuple(acc.redirects),
        opaque=tuple(acc.opaque),
        grant_argvs=grant,
        fork_bombs=tuple(acc.fork_bombs),
        dynamic_redirects=acc.dynamic_redirects,
        scripts=tuple(acc.scripts),
        code=tuple(dict.fromkeys(acc.code)),
        expanded=tuple(dict.fromkeys(acc.expanded)),
    )


def _analyze_script(
    text: str,
    acc: _Acc,
    *,
    depth: int,
    layers: tuple[tuple[Word, ...], ...],
    assigns: tuple[tuple[str, Word], ...],
    dirs: frozenset[str | None],
) -> tuple[tuple[str, ...], ...]:
    too_large = _too_large(text)
    if too_large is not None:
        acc.add_opaque(too_large)
        return ()
    plain = plain_words(text)
    if plain is not None and _guard(text) is None:
        # One command of literal words: what the parse and walk below would find, without
        # them (tests/properties check the two agree).
        acc.scripts.append(text)
        words = tuple(Word(w, True) for w in plain)
        _emit(
            RawCommand(words, (), (), False, (), dirs=dirs),
            acc,
            depth=depth,
            layers=layers,
            assigns=assigns,
        )
        return (plain,)
    shaped = plain_heredoc_walk(text, dirs)
    if shaped is not None:
        # One command of literal words reading a quoted heredoc: what the parse, the body's
        # verification and the walk below would find, without them (tests/properties
        # check the two agree).
        code, walk = shaped
        guard = _guard(code)
        if guard is not None:
            acc.add_opaque(guard)
            return ()
        acc.scripts.append(code)
        static = {r.heredoc for r in walk.redirects if r.heredoc is not None}
        return _take_walk(walk, static, acc, depth=depth, layers=layers, assigns=assigns)
    long_guard = _guard(text) if len(text) > MAX_COMMAND_LENGTH and "<<" not in text else None
    if long_guard is not None:
        # No heredoc body to leave out: too long as it stands, without parsing 1 MiB first.
        acc.add_opaque(long_guard)
        return ()
    src = text.encode("utf-8", "surrogatepass")
    root = parse_tree(src)
    dashes, skipped_bytes = skipped_dashes(root, src)
    if dashes:  # `python - <<'PY'`: keep the `-` the parser dropped
        src = spell_dashes(src, dashes)
        text = src.decode("utf-8", "surrogatepass")
        root = parse_tree(src)
        skipped_bytes = uncovered_bytes(root, src)
    # Quoted heredoc bodies are data: the guards and the second parser read the rest.
    bodies, mismatch = data_bodies(root, src)
    code = code_text(text, src, bodies)
    guard = _guard(code)
    if guard is None and mismatch:
        guard = _reason(
            "heredoc-mismatch",
            "heredoc",
            "the parser ends a quoted heredoc where bash does not (a line like `EOF ` or an "
            "indented `EOF`), so the commands around it cannot be read with certainty",
        )
    if guard is None and "\x00" in text:
        guard = _reason("control-character", "input-guard", "the command contains a NUL")
    if guard is not None:
        acc.add_opaque(guard)
        return ()
    acc.scripts.append(code)
    if root.has_error:
        acc.add_opaque(
            _reason("unparseable", "parser", f"`{_show(text)}` is not valid bash syntax")
        )
        return ()
    if skipped_bytes is not None:
        skipped = skipped_bytes.decode("utf-8", "replace")
        acc.add_opaque(
            _reason(
                "unparsed-text",
                "parser",
                f"the parser skipped `{_show(skipped.strip())}`, which bash would read",
            )
        )
        return ()
    walk = walk_script(root, src, dirs)
    # A body the verified quoted set holds as often as the walk saw it is static text.
    quoted = Counter(src[b.start : b.end].decode("utf-8", "replace") for b in bodies)
    seen = Counter(r.heredoc for r in walk.redirects if r.heredoc is not None)
    static = {t for t, n in quoted.items() if seen[t] == n}
    return _take_walk(walk, static, acc, depth=depth, layers=layers, assigns=assigns)


def _take_walk(
    walk: Walk,
    static: set[str],
    acc: _Acc,
    *,
    depth: int,
    layers: tuple[tuple[Word, ...], ...],
    assigns: tuple[tuple[str, Word], ...],
) -> tuple[tuple[str, ...], ...]:
    """Add what a script's walk found to `acc` (`static`: its verified quoted heredoc
    bodies); the script's grant argvs."""
    acc.static_bodies.update(static)
    # A body bash reads unquoted at least once expands `$NAME` (and runs `$(…)`: walked).
    acc.expanded.extend(
        dict.fromkeys(
            r.heredoc for r in walk.redirects if r.heredoc is not None and r.heredoc not in static
        )
    )
    for code, rule, message in walk.opaque:
        acc.add_opaque(_reason(code, rule, message))
    if walk.saw_arithmetic and walk.saw_quoted_code:
        acc.add_opaque(
            _reason(
                "arithmetic-code",
                "arithmetic",
                "arithmetic evaluation next to quoted `$(...)` text can run that text as code",
            )
        )
    if walk.evaluated_text is not None:
        shown = walk.evaluated_text if len(walk.evaluated_text) <= 60 else "…"
        acc.add_opaque(
            _reason(
                "arithmetic-code",
                "arithmetic",
                f"`{shown}` evaluates the value a variable holds as an arithmetic expression "
                "(or a prompt): a value such as `a[$(cmd)]`, read or computed at run time, "
                "runs cmd",
            )
        )
    acc.fork_bombs.extend(name for name, calls in walk.functions.items() if calls >= 2)
    _check_assignments(walk.bare_assignments, acc)
    _check_set_names(walk.set_names, acc)
    if any(exports_all(tuple(w.text for w in raw.words)) for raw in walk.commands):
        acc.exported.extend(walk.bare_assignments)  # `set -a; FOO=x; make`
    _collect_redirects(walk, acc)
    for raw in walk.commands:
        _emit(raw, acc, depth=depth, layers=layers, assigns=assigns)
    return _grant_argvs(walk)


def _check_assignments(assigns: Sequence[tuple[str, Word]], acc: _Acc) -> None:
    for name, value in assigns:
        if not value.static:
            acc.expanded.append(value.text)
        if code_paths(value.text):
            # A value naming a path reaches programs as text they may run or open
            # (`RM='cat ~/.ssh/id_rsa' make clean`): scanned for denied paths like code.
            acc.code.append(value.text)
        if is_dangerous_setting(name.split("[", 1)[0], value):
            acc.add_opaque(
                _reason(
                    "dangerous-env",
                    name,
                    f"setting `{_show(name)}` can make programs run other code",
                )
            )


def _check_set_names(names: Sequence[str], acc: _Acc) -> None:
    """Opaque when a loop, `${NAME:=…}` or arithmetic sets such a variable (`for PATH in …`)."""
    for name in names:
        if is_dangerous_env(name):
            acc.add_opaque(
                _reason(
                    "dangerous-env",
                    name,
                    f"the script sets `{_show(name)}`, which can make programs run other code",
                )
            )


def _collect_redirects(walk: Walk, acc: _Acc) -> None:
    # A redirection's dirs may be rewritten after its command was recorded (`cd` in a
    # compound): the target word itself is the one shared object.
    owners = {id(r.target): raw for raw in walk.commands for r in raw.redirects if r.target}
    for r in walk.redirects:
        redirect = _redirect(r, acc, owners.get(id(r.target)))
        if redirect is None:
            continue
        # The same target written by two writers, or with two texts, is two writes: each is
        # judged (`cat > f <<'EOF'` does not hide `curl URL > f`, nor a body another).
        if not any(_same_write(redirect, seen) for seen in acc.redirects):
            acc.redirects.append(redirect)


def _same_write(a: Redirect, b: Redirect) -> bool:
    return a == b and (a.writer, a.literal, a.body, a.altered) == (
        b.writer,
        b.literal,
        b.body,
        b.altered,
    )


def _literal_output(raw: RawCommand | None, acc: _Acc) -> tuple[str, tuple[str, bool] | None]:
    """The program a redirection belongs to, and the static text it copies from its
    standard input, with whether byte for byte (`_copied`).

    Only a program that copies its standard input (`cat` with no operand, `tee`:
    `files.STDIN_COPIERS`) reading a static heredoc body counts as spelled out: `echo` and
    `printf` may turn escapes into other text (`printf '\x72\x6d'`).
    """
    if raw is None or not raw.words:
        return "", None
    words = raw.words
    # The program behind wrappers is the writer (`nice curl URL > f`, `env cat > f`).
    entries = unwrap(words, stdin_fed=raw.stdin_fed) if len(words) > 1 else []
    if len(entries) == 1 and entries[0].words:
        words = entries[0].words
    name = program_name(words[0])
    return name, _copied(name, words, raw, acc)


def _copied(
    program: str, words: Sequence[Word], raw: RawCommand, acc: _Acc
) -> tuple[str, bool] | None:
    """(text, byte for byte) when `words` copy a static stdin body into what they write."""
    if program not in STDIN_COPIERS:
        return None
    how = copies_stdin(program, words)
    body = None if how is None else _stdin_body(raw, acc)
    return None if body is None or how is None else (body, how)


def _redirect(r: RawRedirect, acc: _Acc, owner: RawCommand | None = None) -> Redirect | None:
    if r.target is None:
        return None  # heredoc / herestring: data, no file
    op = r.op
    text = r.target.text
    if op in (">&", "<&", "&>") and r.target.static and (text.isdigit() or text == "-"):
        return None  # fd duplication or close, `2>&1`
    if not r.target.static and not r.target.home:
        acc.dynamic_redirects = True
        acc.add_opaque(
            _reason(
                "dynamic-redirect",
                f"{op} {_show(text)}",
                f"the redirection target `{_show(text)}` is computed at run time",
            )
        )
        return None
    if op == "<<<":
        return None
    if op in _READ_OPS:
        access: Literal["read", "write"] = "read"
    elif op in _WRITE_OPS:
        access = "write"
    else:
        acc.add_opaque(
            _reason("unknown-construct", op, f"redirection operator `{op}` is not understood")
        )
        return None
    if text in _HARMLESS_TARGETS:
        return None
    writer, copied = _literal_output(owner, acc) if access == "write" else ("", None)
    body, exact = copied if copied is not None else ("", False)
    altered = copied is not None and not exact
    return Redirect(text, access, op, _sorted_dirs(r.dirs), writer, exact, body, altered)


def _emit(
    raw: RawCommand,
    acc: _Acc,
    *,
    depth: int,
    layers: tuple[tuple[Word, ...], ...],
    assigns: tuple[tuple[str, Word], ...],
) -> None:
    _check_assignments(raw.assignments, acc)
    if raw.kind == "declaration":
        _check_subscript_code(raw.words, acc)
        _check_named_variables(raw.words, acc)
        acc.exported.extend(exported_names(raw.words))
        acc.commands.append(_simple(Unwrapped((), raw.words), raw, layers, assigns))
        return
    if not raw.words:
        return
    for entry in unwrap(raw.words, stdin_fed=raw.stdin_fed):
        acc.code.extend(entry.code)
        for code, rule, message in entry.opaque:
            if code == "program-from-stdin" and _stdin_script(
                raw, entry, acc, depth=depth, layers=layers, assigns=assigns
            ):
                continue
            acc.add_opaque(_reason(code, rule, message))
        _check_assignments(entry.assignments, acc)
        if entry.script is not None:
            shell, script = entry.script
            if depth >= MAX_SCRIPT_DEPTH:
                acc.add_opaque(
                    _reason(
                        "nesting-too-deep",
                        f"{shell} -c",
                        f"`{shell}` scripts nest deeper than {MAX_SCRIPT_DEPTH} levels",
                    )
                )
                continue
            _analyze_script(
                script,
                acc,
                depth=depth + 1,
                layers=(*layers, *entry.layers),
                assigns=(*assigns, *raw.assignments, *entry.assignments),
                dirs=_script_dirs(raw.dirs, entry.layers),
            )
            continue
        if entry.words and entry.words[0].static and entry.words[0].text in _RESERVED:
            # `time { rm x; }`: tree-sitter reads `time` as a program with arguments; bash
            # reads a keyword before a compound command. A reserved word as a program name
            # means the parse went wrong.
            acc.add_opaque(
                _reason(
                    "reserved-word",
                    entry.words[0].text,
                    f"`{entry.words[0].text}` is a shell keyword where a program name was "
                    "expected; the command is not understood",
                )
            )
        if entry.words and _guard(entry.words[0].text) is not None:
            # `$'\x07...'` decodes to a program name nobody can read back reliably.
            acc.add_opaque(
                _reason(
                    "control-character",
                    "command-name",
                    f"the program name `{_show(entry.words[0].text)!r}` contains control "
                    "characters",
                )
            )
        _check_subscript_code(entry.words, acc)
        _check_named_variables(entry.words, acc)
        if entry.words and entry.words[0].static:
            acc.exported.extend(exported_names(entry.words))
        _check_imported(entry, (*assigns, *raw.assignments, *entry.assignments), acc)
        if entry.words or entry.layers:
            words = entry.words
            copied = _copied(program_name(words[0]), words, raw, acc) if words else None
            acc.commands.append(_simple(entry, raw, layers, assigns, copied))


def _script_dirs(
    dirs: frozenset[str | None], layers: tuple[tuple[Word, ...], ...]
) -> frozenset[str | None]:
    """Where a script a wrapper runs starts: where the shell was, and where each wrapper's
    own `-C DIR` moves it (`env -C .git sh -c 'echo x > config'` writes `.git/config`;
    `find -execdir sh -c …` runs it in a folder not known here). The shell's directory
    stays a candidate, as for a program the wrapper runs (`assess`)."""
    out = set(dirs)
    for layer in layers:
        for value in chdir_values(layer):
            out |= {chdir_move(d, value) for d in list(out)}
    if len(out) > MAX_DIRS:
        return frozenset({None})
    return frozenset(out)


def _stdin_body(raw: RawCommand, acc: _Acc) -> str | None:
    """The program text a command reads on stdin when a static heredoc or herestring gives it."""
    last = None
    for r in raw.redirects:
        if r.op in _STDIN_REDIRECTS and r.fd in (None, "0"):
            last = r  # the last redirection of stdin wins, over a pipe too
    if last is None:
        return None
    if last.op == "<<<":
        return last.target.text if last.target is not None and last.target.static else None
    body = last.heredoc
    if last.op not in ("<<", "<<-") or body is None:
        return None
    if body in acc.static_bodies or not any(ch in body for ch in "$`\\"):
        return body
    return None  # an unquoted body expands `$(...)`: computed code


def _stdin_script(
    raw: RawCommand,
    entry: Unwrapped,
    acc: _Acc,
    *,
    depth: int,
    layers: tuple[tuple[Word, ...], ...],
    assigns: tuple[tuple[str, Word], ...],
) -> bool:
    """Handle a program reading its code from a visible heredoc; False if it is not one.

    A shell's heredoc script is read like `sh -c SCRIPT`; another interpreter's is visible
    code no analysis reads (`heredoc-script`), judged as the agent's own script file.
    """
    body = _stdin_body(raw, acc)
    if body is None or not entry.words:
        return False
    name = program_family(program_name(entry.words[0]))
    if name in SHELLS:
        if depth >= MAX_SCRIPT_DEPTH:
            return False
        _analyze_script(
            body,
            acc,
            depth=depth + 1,
            layers=(*layers, *entry.layers, entry.words),
            assigns=(*assigns, *raw.assignments, *entry.assignments),
            dirs=_script_dirs(raw.dirs, entry.layers),
        )
        return True
    acc.code.append(body)
    acc.add_opaque(
        _reason(
            "heredoc-script",
            name,
            f"`{name}` runs the program in a heredoc, which is not analysed",
        )
    )
    return True


def _check_named_variables(words: tuple[Word, ...], acc: _Acc) -> None:
    """Opaque when `read PATH`, `printf -v PATH`, `declare -n r=PATH`, `export 'PATH=…'`,
    `let PATH=1` set such a variable."""
    if not words or not words[0].static:
        return
    if words[0].text in DECLARATION_BUILTINS or words[0].text == "let":
        for name, why in declared_names(words):
            acc.add_opaque(_reason("dangerous-env", name, f"`{words[0].text}` {why}"))
    if words[0].text not in _NAME_BUILTINS:
        return
    for name in names_set(tuple(w.text for w in words)):
        if not name or is_dangerous_env(name.split("[", 1)[0]) or "$" in name:
            acc.add_opaque(
                _reason(
                    "dangerous-env",
                    name or words[0].text,
                    f"`{words[0].text}` sets `{_show(name)}`, which can make programs run "
                    "other code",
                )
            )


def _check_imported(entry: Unwrapped, assigns: Sequence[tuple[str, Word]], acc: _Acc) -> None:
    """Opaque when a program that takes its environment as settings (`make`) gets a
    variable set in front of it or exported before it (`FOO=x make`, `export FOO=x; make`)."""
    if not entry.words or not (assigns or acc.exported):
        return
    program = program_name(entry.words[0])
    for name, value in (*assigns, *acc.exported):
        if imported_setting(program, name.split("[", 1)[0], value):
            acc.add_opaque(
                _reason(
                    "dangerous-env",
                    name,
                    f"`{program}` takes the variable `{_show(name)}` as a setting, which "
                    "its rules may run",
                )
            )


def _check_subscript_code(words: tuple[Word, ...], acc: _Acc) -> None:
    """Opaque when a builtin gets a name like `a[$(cmd)]`: bash runs `cmd` evaluating it."""
    if not words or not words[0].static or program_name(words[0]) != words[0].text:
        return  # `/usr/bin/printf` is not the builtin
    if words[0].text not in _SUBSCRIPT_BUILTINS:
        return
    for w in words[1:]:
        subscript = w.text.partition("[")[2]
        if "$(" in subscript or "`" in subscript:
            acc.add_opaque(
                _reason(
                    "arithmetic-code",
                    words[0].text,
                    f"`{words[0].text}` evaluates the subscript in `{_show(w.text)}`, which "
                    "runs the command inside it",
                )
            )
            return


def _simple(
    entry: Unwrapped,
    raw: RawCommand,
    layers: tuple[tuple[Word, ...], ...],
    assigns: tuple[tuple[str, Word], ...],
    copied: tuple[str, bool] | None = None,
) -> SimpleCommand:
    all_layers = (*layers, *entry.layers)
    all_assigns = (*assigns, *raw.assignments, *entry.assignments)
    return SimpleCommand(
        argv=tuple(w.text for w in entry.words),
        wrappers=tuple(tuple(w.text for w in layer) for layer in all_layers),
        assignments=tuple(f"{n}={v.text}" for n, v in all_assigns),
        dynamic=frozenset(i for i, w in enumerate(entry.words) if not w.static),
        stdin_fed=raw.stdin_fed,
        pipes=raw.pipes,
        words=entry.words,
        wrapper_words=all_layers,
        dirs=_sorted_dirs(raw.dirs),
        stdio=tuple((r.fd or "", r.op) for r in raw.redirects),
        loops=tuple(
            (k, loop) for k, w in enumerate(entry.words) for lw, loop in raw.loops if w is lw
        )
        if raw.loops
        else (),
        copied=copied,
    )


def _sorted_dirs(dirs: frozenset[str | None]) -> tuple[str | None, ...]:
    if len(dirs) == 1:
        return tuple(dirs)
    return tuple(sorted(dirs, key=lambda d: (d is None, d or "")))


def _grant_argvs(walk: Walk) -> tuple[tuple[str, ...], ...]:
    out: list[tuple[str, ...]] = []
    for raw in walk.commands:
        parts = [f"{n}={v.text}" for n, v in raw.assignments]
        parts.extend(w.text for w in raw.words)
        for r in raw.redirects:
            target = r.target.text if r.target is not None else (r.heredoc or "")
            parts.append(f"{r.fd or ''}{r.op}{target}")
        out.append(tuple(parts))
    out.extend((f"{n}={v.text}",) for n, v in walk.bare_assignments)
    if walk.operators:
        out.append(("<operators>", *walk.operators))
    return tuple(out)
