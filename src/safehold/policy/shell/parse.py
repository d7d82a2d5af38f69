"""Walk a tree-sitter-bash tree into the simple commands and redirections bash would run.

The walk visits every node, so commands nested in `$(...)`, backticks, `<(...)`,
subshells, groups, loop and `if` bodies, functions, `${x:-$(...)}`, arithmetic and
unquoted heredoc bodies are all found. Anything the walker does not model is reported as
an opaque reason, never skipped.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Final

import tree_sitter_bash
from tree_sitter import Language, Node, Parser, Tree

from safehold.policy._memo import remember
from safehold.policy.shell.heredocs import skipped_text
from safehold.policy.shell.locations import Dir, Location
from safehold.policy.shell.words import Word, evaluate_word

__all__ = [
    "SHELL_KEYWORDS",
    "Loop",
    "RawCommand",
    "RawRedirect",
    "Walk",
    "forget_trees",
    "is_plain_text",
    "parse_tree",
    "plain_heredoc_walk",
    "plain_words",
    "uncovered_bytes",
    "uncovered_text",
    "walk_script",
]

# Bash's reserved words that open, continue or close a compound command.
SHELL_KEYWORDS = frozenset(
    {
        "{",
        "}",
        "!",
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "for",
        "while",
        "until",
        "do",
        "done",
        "case",
        "esac",
        "in",
        "select",
        "function",
    }
)

# Text bash reads as one simple command of literal words: blanks and characters that are
# never special to bash's parser (no quote, `$`, glob, brace, `~`, comment, operator or
# newline). Word characters and blanks are disjoint classes, so matching is linear.
_PLAIN_WORD = r"[A-Za-z0-9_./=:,+@%^-]+"
_PLAIN_COMMAND = re.compile(rf"[ \t]*{_PLAIN_WORD}(?:[ \t]+{_PLAIN_WORD})*[ \t]*")
# First words that make bash read the rest differently: reserved words, declaration
# builtins (their words are assignments) and the builtins that move the shell.
_NOT_PLAIN_FIRST = SHELL_KEYWORDS | {
    "time",
    "coproc",
    "export",
    "declare",
    "typeset",
    "local",
    "readonly",
    "unset",
    "cd",
    "pushd",
    "popd",
    "builtin",
    "command",
}


def is_plain_text(text: str) -> bool:
    """True when `text` is blanks and literal words only: bash splits it at blanks."""
    return _PLAIN_COMMAND.fullmatch(text) is not None


def plain_words(text: str) -> tuple[str, ...] | None:
    """The words of `text` when bash reads it as one command of literal words, else None.

    For such text bash's reading is a split at blanks (`git status`, `npm test`,
    `ls -la src`), so the parser and the tree walk have nothing to add; anything else
    returns None and takes the full parse.
    """
    if not is_plain_text(text):
        return None
    words = tuple(text.split())
    first = words[0]
    if first in _NOT_PLAIN_FIRST or "=" in first or first[0] == "-":
        # `X=1 cmd` assigns, `export A=b` declares; a dash-led first word is rare and the
        # full parse reads some of them its own way (`- x=y`), so they take that path.
        return None
    return words


# A heredoc delimiter of word characters only, quoted whole (`'PY'`, `"EOF"`).
_PLAIN_DELIMITER = re.compile(r"""'[A-Za-z_][A-Za-z0-9_]*'|"[A-Za-z_][A-Za-z0-9_]*\"""")
_PLAIN_TARGET = re.compile(_PLAIN_WORD)
_HEAD_CHARS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+@%^-' \t"
)
_BLANKS = (" ", "\t")


def plain_heredoc_words(script: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The words of `script`, and its output redirection as the analysis spells it
    (`(">out.txt",)` or none), when bash reads it as one command of literal words whose
    stdin is a quoted heredoc with its body left out (`code_text`); else None.

    The shape is `WORDS [> FILE | >> FILE] <<'DELIM'` (or `<<-`, or `"DELIM"`), a newline,
    and the delimiter line, nothing else: `python3 '-' <<'PY'` + `\nPY`, or
    `cat > notes.md <<'EOF'` + `\nEOF`, once the body is set aside. `WORDS` are plain
    words (`plain_words`) and the lone `'-'` that `quote_lone_dashes` spells, `FILE` one
    plain word, and each operator follows a blank (so no word is a descriptor number, as
    in `2>` or `2<<`): bash's reading is a split at blanks, as for plain words, and the
    quoted delimiter makes the body (already verified by bash's rule and left out) data
    that nothing expands.
    """
    head, newline, tail = script.partition("\n")
    at = head.find("<<")
    if not newline or at < 0:
        return None
    before, after = head[:at], head[at + 2 :]
    strip_tabs = after.startswith("-")
    delimiter = after[1:] if strip_tabs else after
    delimiter = delimiter.strip(" \t")
    if _PLAIN_DELIMITER.fullmatch(delimiter) is None or not before.endswith(_BLANKS):
        return None
    end = tail[:-1] if tail.endswith("\n") else tail
    if (end.lstrip("\t") if strip_tabs else end) != delimiter[1:-1]:
        return None
    redirects: tuple[str, ...] = ()
    gt = before.find(">")
    if gt >= 0:
        before, target = before[:gt], before[gt + 1 :]
        op = ">"
        if target.startswith(">"):
            op, target = ">>", target[1:]
        target = target.strip(" \t")
        if not before.endswith(_BLANKS) or _PLAIN_TARGET.fullmatch(target) is None:
            return None
        redirects = (op + target,)
    if not before.strip(" \t") or any(ch not in _HEAD_CHARS for ch in before):
        return None
    words = tuple("-" if w == "'-'" else w for w in before.split())
    if any("'" in w for w in words) or plain_words(" ".join(words)) != words:
        return None
    return words, redirects


def plain_heredoc_walk(text: str, dirs: frozenset[Dir]) -> tuple[str, Walk] | None:
    """What parsing `text`, verifying its heredoc and walking the tree would find, without
    them, when `text` is `WORDS [> FILE | >> FILE] <<'DELIM'`, a body, and the delimiter
    line (`python3 - <<'PY'` … `PY`, `cat > notes.md <<'EOF'` … `EOF`); else None.

    Returns the text the guards and the second parser read (`heredocs.code_text` of the
    text as `quote_lone_dashes` spells it) and the walk. Taken only where bash's rule for
    the body's end and tree-sitter's scanner cannot differ: `<<` (not `<<-`), the
    delimiter line last, a body that starts with a visible ASCII character (the scanner
    drops leading blanks), no backslash before a newline (the scanner steps over both),
    no line that starts with the delimiter after any blanks or other invisible characters
    (the scanner ends the body at a line that only starts with it), and no NUL or lone
    surrogate. tests/properties hold it to the full parse's analysis.
    """
    head, newline, rest = text.partition("\n")
    at = head.find("<<")
    if not newline or at < 0 or head[at + 2 : at + 3] == "-" or "\x00" in text:
        return None
    delimiter = head[at + 2 :].strip(" \t")
    if _PLAIN_DELIMITER.fullmatch(delimiter) is None:
        return None
    name = delimiter[1:-1]
    trail = "\n" if rest.endswith("\n") else ""
    body = rest[: len(rest) - len(trail)]
    if not body.endswith("\n" + name):
        return None
    body = body[: len(body) - len(name)]  # ends with the newline before the delimiter line
    first = body[0]
    if not "!" <= first <= "~" or "\\\n" in body or _line_start(name).search(body):
        return None
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return None
    before = head[:at]
    lead = before.rstrip(" \t")
    if lead.endswith((" -", "\t-")) and ">" not in lead:
        # tree-sitter drops a lone `-` just before `<<`; the analysis reads it as `'-'`.
        before = f"{lead[:-1]}'-'{before[len(lead) :]}"
    code = f"{before}{head[at:]}\n{name}{trail}"
    shape = plain_heredoc_words(code)
    if shape is None:
        return None
    words, outputs = shape
    redirects: list[RawRedirect] = []
    for output in outputs:
        op = ">>" if output.startswith(">>") else ">"
        target = output[len(op) :]
        if target.startswith("-"):
            return None
        redirects.append(RawRedirect(op, Word(target, True), None, None, dirs))
    redirects.append(RawRedirect("<<", None, None, body, dirs))
    command = RawCommand(tuple(Word(w, True) for w in words), (), tuple(redirects), True, (),
                         "command", dirs)  # fmt: skip
    return code, Walk(commands=[command], redirects=redirects)


@functools.lru_cache(maxsize=64)
def _line_start(name: str) -> re.Pattern[str]:
    """A line that starts with `name` after characters that are not visible ASCII (linear:
    the run's class and `name`'s first character, a letter or `_`, are disjoint)."""
    return re.compile(rf"(?m)^[^!-~\n]*{name}")


# Deeper nesting than this is not something a person wrote; stop before Python's stack.
MAX_DEPTH = 60

_WORD_NODES = frozenset(
    {
        "word",
        "number",
        "raw_string",
        "ansi_c_string",
        "string",
        "translated_string",
        "concatenation",
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
    }
)
_REDIRECT_NODES = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_STDIN_OPS = frozenset({"<", "<<", "<<-", "<<<", "<>", "<&"})
_ARITH_NODES = frozenset({"arithmetic_expansion", "c_style_for_statement"})
_MOVES = frozenset({"cd", "pushd", "popd", "builtin", "command"})
_LOOP_NODES = frozenset({"for_statement", "while_statement", "select_statement"})
# Tokens that change what a command list means; part of the exact command a grant names.
_OPERATORS = frozenset({"&&", "||", ";", ";;", ";&", ";;&", "|", "|&", "&"}) | SHELL_KEYWORDS


@dataclass(frozen=True, slots=True)
class RawRedirect:
    """A redirection as written: operator, target word (None for heredocs), heredoc body."""

    op: str
    target: Word | None
    fd: str | None = None
    heredoc: str | None = None
    dirs: frozenset[Dir] = frozenset({"."})


@dataclass(frozen=True, slots=True)
class RawCommand:
    """A simple command before wrapper stripping."""

    words: tuple[Word, ...]
    assignments: tuple[tuple[str, Word], ...]
    redirects: tuple[RawRedirect, ...]
    stdin_fed: bool
    pipes: tuple[tuple[int, int], ...]
    kind: str = "command"
    dirs: frozenset[Dir] = frozenset({"."})
    loops: tuple[tuple[Word, Loop], ...] = ()
    """Words that are exactly `"$VAR"` of an enclosing `for VAR in WORDS` (see `Loop`)."""


@dataclass(frozen=True, slots=True)
class Loop:
    """`for NAME in WORDS; do …; done` whose NAME nothing else in the script sets.

    `words`: the loop's words as written (a glob among them is expanded by the caller);
    `dirs`: where the loop runs, so where bash expands them.
    """

    name: str
    words: tuple[Word, ...]
    dirs: frozenset[Dir]


@dataclass(slots=True)
class Walk:
    """What one walk found."""

    commands: list[RawCommand] = field(default_factory=list)
    redirects: list[RawRedirect] = field(default_factory=list)
    opaque: list[tuple[str, str, str]] = field(default_factory=list)
    functions: dict[str, int] = field(default_factory=dict)
    bare_assignments: list[tuple[str, Word]] = field(default_factory=list)
    # Variables the script sets without an assignment word: a `for`/`select` loop's
    # variable, `${NAME:=…}` / `${NAME=…}`, an arithmetic `NAME=…`, `NAME+=…`, `NAME++`.
    set_names: list[str] = field(default_factory=list)
    saw_arithmetic: bool = False
    saw_quoted_code: bool = False
    # The first expansion or builtin that evaluates a variable's value as arithmetic or a
    # prompt (`${a[$x]}`, `let n=$x`, `${x@P}`): see `_EVALUATING_NODES`.
    evaluated_text: str | None = None
    operators: list[str] = field(default_factory=list)
    _pipeline_ids: int = 0
    _root: Node | None = None
    # Variable names the script may set other than as one `for` loop's variable (see
    # `_names_set`), found on the first loop.
    _set_names: Counter[str] | None = None

    def opaque_reason(self, code: str, rule: str, message: str) -> None:
        """Record that something bash would run is not statically known."""
        if (code, rule, message) not in self.opaque:
            self.opaque.append((code, rule, message))


@dataclass(frozen=True, slots=True)
class _Ctx:
    stdin_fed: bool = False
    pipes: tuple[tuple[int, int], ...] = ()
    depth: int = 0
    redirects: tuple[RawRedirect, ...] = ()
    # Where a redirect puts argument words that follow its target (see `_redirect`).
    extra: list[Node] | None = None
    extra_words: tuple[Node, ...] = ()
    # The directories this scope may be in; shared by sequential siblings, copied for
    # subshells (see `locations`).
    loc: Location = field(default_factory=Location)
    # The `for` loops this scope is the body of, innermost last.
    loops: tuple[Loop, ...] = ()


_LANGUAGE: Final = Language(tree_sitter_bash.language())
_local = threading.local()


def _parser() -> Parser:
    """This thread's parser: a tree-sitter parser holds mutable parse state and is not made
    to be shared between threads, and two sessions may decide at once (the ACP agent, the
    hook server). A parser is cheap; each thread builds its own on first use.
    """
    parser: Parser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = Parser(_LANGUAGE)
    return parser


# The last few trees this thread parsed, by source: a decision in auto mode parses the same
# script for the analysis and again for the second opinion (`crosscheck`). Parsing is a pure
# function of the bytes and nothing edits a tree, so a tree parsed once serves both. Per
# thread (a tree is not made to be read by two threads at once), and only for sources up to
# `_REMEMBERED_SOURCE` bytes, so a huge script's tree is not held on to.
_REMEMBERED_TREES = 4
_REMEMBERED_SOURCE = 65_536


def parse_tree(src: bytes) -> Node:
    """Parse bash source; the caller checks `has_error`.

    The parser reads `shielded(src)`, which has the same length and differs only where
    tree-sitter-bash's scanner would crash: every offset of the tree is an offset of `src`.
    """
    trees: OrderedDict[bytes, Tree] | None = getattr(_local, "trees", None)
    if trees is None:
        trees = _local.trees = OrderedDict()
    tree = trees.get(src)
    if tree is None:
        tree = _parser().parse(shielded(src))
        if len(src) <= _REMEMBERED_SOURCE:
            remember(trees, src, tree, _REMEMBERED_TREES)
    return tree.root_node


def shielded(src: bytes) -> bytes:
    """`src` with each character that tree-sitter-bash's scanner would pass to C's
    `isdigit` outside its domain replaced by as many `%` as it has bytes.

    The scanner's brace-range rule (`{1..5}`, tree-sitter-bash 0.25.1 `src/scanner.c`,
    `brace_start`) calls `isdigit(lexer->lookahead)` on the character after `{` and its
    digits, and after `{DIGITS..` and its digits. `lookahead` is a Unicode code point;
    `isdigit` is defined only for `unsigned char` values, and glibc looks the code point
    up in a 384-entry table, so a character from U+0100 on reads far past it
    (`echo {<U+A8411>}` crashed the process with SIGSEGV). Only the character in that one
    place is replaced, by bytes of the same count, so offsets stay those of `src`. `%` is
    a character of a word that is no digit, no `.` and no part of a name, as the
    character it stands for: the tree reads the same, and every word's text is taken
    from `src`. Linear: each `{` looks only at the digits after it.
    """
    start = src.find(b"{")
    if start < 0:
        return src
    out: bytearray | None = None
    end = len(src)
    while start >= 0:
        at = _after_digits(src, start + 1)
        if at < end and src[at] < 0x80 and src.startswith(b"..", at):
            at = _after_digits(src, at + 2)
        if at < end and src[at] >= 0x80:
            stop = at + 1
            while stop < end and 0x80 <= src[stop] <= 0xBF:  # UTF-8 continuation bytes
                stop += 1
            if out is None:
                out = bytearray(src)
            out[at:stop] = b"%" * (stop - at)
        start = src.find(b"{", start + 1)
    return src if out is None else bytes(out)


def _after_digits(src: bytes, at: int) -> int:
    while at < len(src) and 0x30 <= src[at] <= 0x39:
        at += 1
    return at


def forget_trees() -> None:
    """Drop this thread's remembered trees (a benchmark's "cold": a text never seen)."""
    _local.trees = OrderedDict()


def _text(node: Node, src: bytes) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def uncovered_text(root: Node, src: bytes) -> str | None:
    """Source text outside every token, other than blanks; None when there is none.

    tree-sitter silently skips what it treats as "extras"; bash does not skip anything but
    blanks and comments. A skipped backslash (`\\ git`, `$(\\<TAB>x)`) is a word bash
    reads and the parse does not contain.
    """
    gap = uncovered_bytes(root, src)
    return None if gap is None else gap.decode("utf-8", "replace")


def uncovered_bytes(root: Node, src: bytes) -> bytes | None:
    """`uncovered_text` as the bytes of `src`."""
    for _node, _pos, gap in skipped_text(root, src):
        if gap.strip(b" \t\n"):
            return gap
    return None


def walk_script(root: Node, src: bytes, dirs: frozenset[Dir] = frozenset({"."})) -> Walk:
    """Collect every simple command, redirection and opaque construct below `root`.

    `dirs` is where the script starts (a `bash -c` script starts where its shell ran).
    """
    out = Walk(_root=root)
    _walk(root, src, out, _Ctx(loc=Location(dirs)))
    return out


def _walk(node: Node, src: bytes, out: Walk, ctx: _Ctx) -> None:
    if ctx.depth > MAX_DEPTH:
        out.opaque_reason(
            "nesting-too-deep", "max-depth", f"the command nests deeper than {MAX_DEPTH} levels"
        )
        return
    kind = node.type
    if not node.is_named:
        if kind in _OPERATORS:
            out.operators.append(kind)
        return
    if node.is_error or node.is_missing:
        out.opaque_reason("unparseable", "parser", "the command could not be parsed")
        return
    if kind in _ARITH_NODES or kind == "test_command":
        # `[[ $x -eq 1 ]]`, `[ -v "$x" ]` evaluate array subscripts held in variables too.
        out.saw_arithmetic = True
    elif kind == "expansion" and _text(node, src).startswith("${!"):
        out.saw_arithmetic = True  # `${!x}` with x='a[$(cmd)]' runs cmd
    if kind in _EVALUATING_NODES and out.evaluated_text is None:
        text = _text(node, src)
        if _evaluates_values(kind, text):
            out.evaluated_text = text
    if not node.child_count:
        if kind in ("raw_string", "string_content", "word"):
            text = _text(node, src)
            if "$(" in text or "`" in text:
                out.saw_quoted_code = True
        return
    deeper = _Ctx(
        ctx.stdin_fed, ctx.pipes, ctx.depth + 1, ctx.redirects, loc=ctx.loc, loops=ctx.loops
    )
    if kind == "command":
        _command(node, src, out, deeper, ctx.extra_words)
    elif kind in ("declaration_command", "unset_command"):
        _declaration(node, src, out, deeper)
    elif kind == "variable_assignment":
        name, value = _assignment(node, src)
        out.bare_assignments.append((name, value))
        _walk_children(node, src, out, deeper)
    elif kind == "pipeline":
        _pipeline(node, src, out, deeper)
    elif kind == "redirected_statement":
        _redirected(node, src, out, deeper)
    elif kind in _REDIRECT_NODES:
        _redirect(node, src, out, deeper)
    elif kind == "function_definition":
        name_node = node.child_by_field_name("name")
        before = len(out.commands)
        # The body runs where and when the function is called: a `cd` in it moves the
        # caller to a directory not known here.
        body = _Ctx(ctx.stdin_fed, ctx.pipes, ctx.depth + 1, ctx.redirects, loc=ctx.loc.copy())
        _walk_children(node, src, out, body)
        if body.loc.dirs != ctx.loc.dirs:
            ctx.loc.unknown()
        if name_node is not None:
            name = evaluate_word(name_node, src).text
            calls = sum(1 for c in out.commands[before:] if c.words and c.words[0].text == name)
            out.functions[name] = max(out.functions.get(name, 0), calls)
    elif kind in ("command_substitution", "process_substitution"):
        _walk_children(node, src, out, _Ctx(False, (), ctx.depth + 1, loc=ctx.loc.copy()))
    elif kind == "subshell":
        sub = _Ctx(ctx.stdin_fed, ctx.pipes, ctx.depth + 1, ctx.redirects, loc=ctx.loc.copy())
        _walk_children(node, src, out, sub)
    elif kind == "expansion" or kind in _ARITH_SETTERS:
        # `${NAME:=x}`, `(( NAME=1 ))`: the expansion or the arithmetic sets NAME.
        target = (_default_assignment if kind == "expansion" else _arithmetic_target)(node, src)
        if target is not None:
            out.set_names.append(target)
        _walk_children(node, src, out, deeper)
    elif kind in _LOOP_NODES:
        name_node = node.child_by_field_name("variable")
        if name_node is not None:  # `for NAME in …`, `select NAME in …` set NAME
            out.set_names.append(_text(name_node, src))
        # A later iteration runs the body's first commands where its `cd` went.
        before_dirs = ctx.loc.dirs
        loop = _loop(node, src, out, ctx) if kind == "for_statement" else None
        if loop is None:
            _walk_children(node, src, out, deeper)
        else:
            body = dataclasses.replace(deeper, loops=(*ctx.loops, loop))
            for child in node.children:
                _walk(child, src, out, body if child.type == "do_group" else deeper)
        if ctx.loc.dirs != before_dirs:
            ctx.loc.unknown()
    elif kind == "list":
        _list(node, src, out, deeper)
    elif kind == "compound_statement" and node.children and node.children[0].type == "((":
        out.saw_arithmetic = True
        _walk_children(node, src, out, deeper)
    else:
        _walk_children(node, src, out, deeper)


# Where bash evaluates the value a variable holds as an arithmetic expression (or expands
# it as a prompt), so that a value such as `a[$(cmd)]`, read at run time, runs `cmd`
# (bash manual, "Shell Arithmetic": "the value of a variable is evaluated as an arithmetic
# expression when it is referenced"; "Arrays": an indexed array's subscript is an
# arithmetic expression; "Shell Parameter Expansion": `${parameter:offset:length}`, the
# indirection of `${!name}` and the prompt expansion of `${parameter@P}`; "Bash
# Builtins": `let`, `declare -i`, `unset name[subscript]`, `test -v name[subscript]`).
# `$(( ))`, `(( ))` and `[[ ]]` are read apart (`saw_arithmetic`, and the second parser).
_EVALUATING_NODES = frozenset(
    {"expansion", "command", "declaration_command", "unset_command", "test_command"}
)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_SPECIAL_PARAMETERS = frozenset("@*#?-$!0123456789")


def _names_something(text: str) -> bool:
    """True when arithmetic `text` refers to a variable or expands something (not only
    numbers and operators)."""
    return any(c.isalpha() or c in "_$`" for c in text)


def _subscript_names(text: str) -> bool:
    """True when a `name[subscript]` in `text` has a subscript that refers to a variable."""
    at = text.find("[")
    while at >= 0:
        end = text.find("]", at)
        inner = text[at + 1 : end if end >= 0 else len(text)]
        if inner not in ("@", "*") and _names_something(inner):
            return True
        if end < 0:
            return False
        at = text.find("[", end)
    return False


def _expansion_evaluates(text: str) -> bool:
    """True when the `${…}` expansion `text` evaluates a value as arithmetic or a prompt."""
    body = text[2:-1] if text.startswith("${") and text.endswith("}") else text[2:]
    if body.startswith("#") and len(body) > 1:
        body = body[1:]  # `${#a[i]}`: the length of an element; i is still evaluated
    indirect = body.startswith("!")
    body = body[1:] if indirect else body
    n = 0
    while n < len(body) and body[n] in _NAME_CHARS:
        n += 1
    if n == 0 and body[:1] in _SPECIAL_PARAMETERS:
        n = 1
    after = body[n:]
    if indirect and after not in ("*", "@", "[@]", "[*]"):
        return True  # `${!x}`: the variable x names, `a[$(cmd)]` included
    if after.startswith("["):
        end = after.find("]")
        if _subscript_names(after[: end + 1] if end >= 0 else after):
            return True
        after = after[end + 1 :] if end >= 0 else ""
    if after == "@P":
        return True
    if after.startswith(":") and after[1:2] not in ("-", "=", "?", "+", ""):
        return _names_something(after[1:])  # `${s:x:1}`: offset and length
    return False


def _subscripted_name(word: str) -> bool:
    """True when `word` (quotes aside) is `name[subscript]` whose subscript refers to a
    variable: a name a builtin assigns, tests or unsets, evaluating the subscript."""
    word = word.strip("'\"")
    n = 0
    while n < len(word) and word[n] in _NAME_CHARS:
        n += 1
    return n > 0 and word[n : n + 1] == "[" and _subscript_names(word[n:])


def _evaluates_values(kind: str, text: str) -> bool:
    """True when the node (of `kind`, spelled `text`) evaluates a variable's value."""
    if kind == "expansion":
        return _expansion_evaluates(text)
    words = text.split()
    head, rest = (words[0], words[1:]) if words else ("", [])
    integer = any(w.startswith(("-", "+")) and "i" in w for w in rest)
    if kind == "declaration_command" and head in ("declare", "typeset", "local") and integer:
        return True
    if head == "let":
        return _names_something(" ".join(rest))
    if head in ("unset", "read", "mapfile", "readarray", "declare", "typeset", "local"):
        return any(_subscripted_name(w) for w in rest)
    # `test -v NAME`, `[ -v NAME ]`, `[[ -v NAME ]]`, `printf -v NAME`
    return any(w == "-v" and _subscripted_name(n) for w, n in zip(words, rest, strict=False))


def _default_assignment(node: Node, src: bytes) -> str | None:
    """NAME of `${NAME:=value}` or `${NAME=value}` (and `${NAME[i]:=value}`), which assign
    value to NAME when it is unset (or empty); else None (bash manual, "Shell Parameter
    Expansion")."""
    named = [c for c in node.children if c.is_named]
    operator = node.child_by_field_name("operator")
    if not named or operator is None or operator.type not in (":=", "="):
        return None
    first = named[0]
    if first.type == "subscript":
        inner = first.child_by_field_name("name")
        first = inner if inner is not None else first
    return _text(first, src) if first.type == "variable_name" else None


# Arithmetic that assigns (bash manual, "Shell Arithmetic"): `NAME=…`, `NAME op=…`,
# `NAME++`, `++NAME`, `NAME--`, `--NAME`.
_ARITH_SETTERS = frozenset({"binary_expression", "postfix_expression", "unary_expression"})
_ARITH_ASSIGN = frozenset(
    {"=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", "&=", "^=", "|=", "++", "--"}
)
# Where a `binary_expression` is arithmetic (`(( … ))`, `$(( … ))`, `for (( … ))`), and
# where it is not (`[[ a = b ]]` compares).
_ARITH_CONTEXTS = frozenset({"arithmetic_expansion", "c_style_for_statement"})


def _arithmetic_target(node: Node, src: bytes) -> str | None:
    """The variable an arithmetic assignment or increment sets, else None."""
    operator = node.child_by_field_name("operator")
    if operator is None or operator.type not in _ARITH_ASSIGN:
        return None
    target = node.child_by_field_name("left")
    if target is None:
        target = next((c for c in node.children if c.is_named), None)
    if target is not None and target.type == "subscript":
        target = target.child_by_field_name("name")
    if target is None or target.type not in ("variable_name", "word"):
        return None
    parent = node.parent
    while parent is not None:
        kind = parent.type
        if kind in _ARITH_CONTEXTS or (
            kind == "compound_statement" and parent.children and parent.children[0].type == "(("
        ):
            return _text(target, src)
        if kind in ("test_command", "command", "program"):
            return None
        parent = parent.parent
    return None


def _list(node: Node, src: bytes, out: Walk, ctx: _Ctx) -> None:
    prev: Node | None = None
    for child in node.children:
        if child.type == "&&" and prev is not None and _ends_with_cd(prev, ctx.loc):
            # `cd X && cmd`: cmd runs in X or not at all.
            new = ctx.loc.last_new
            if new is not None:
                ctx.loc.dirs = new
        _walk(child, src, out, ctx)
        if child.is_named:
            prev = child


def _ends_with_cd(node: Node, loc: Location) -> bool:
    """True when `node` succeeding means the last `cd` walked succeeded."""
    if node.type in ("command", "redirected_statement"):
        return node.start_byte == loc.last_cd_at
    if node.type == "list":
        ops = [c.type for c in node.children if not c.is_named]
        named = [c for c in node.children if c.is_named and c.type != "comment"]
        return ops == ["&&"] and bool(named) and _ends_with_cd(named[-1], loc)
    return False


def _walk_children(node: Node, src: bytes, out: Walk, ctx: _Ctx) -> None:
    for child in node.children:
        _walk(child, src, out, ctx)


def _walk_value(node: Node, src: bytes, out: Walk, ctx: _Ctx) -> None:
    # An assignment that belongs to a command: walk its value (for `$(...)`) without
    # recording it again as a bare shell assignment.
    if node.type == "variable_assignment":
        _walk_children(node, src, out, ctx)
    else:
        _walk(node, src, out, ctx)


def _assignment(node: Node, src: bytes) -> tuple[str, Word]:
    name_node = node.child_by_field_name("name")
    value_node = node.child_by_field_name("value")
    name = _text(name_node, src) if name_node is not None else _text(node, src)
    if value_node is None:
        return name, Word("", True)
    return name, evaluate_word(value_node, src)


def _check_gaps(nodes: list[Node], src: bytes, out: Walk) -> None:
    # Bash needs blank space between two words. Where tree-sitter put two words side by
    # side (`'r'\m`, `$"x"`), it split one bash word in two: the parse cannot be trusted.
    for left, right in itertools.pairwise(nodes):
        gap = src[left.end_byte : right.start_byte]
        if not gap or gap.strip(b" \t"):
            out.opaque_reason(
                "ambiguous-word-boundary",
                "parser",
                f"word boundary near `{_text(left, src)}{_text(right, src)}` is ambiguous",
            )


def _command(node: Node, src: bytes, out: Walk, ctx: _Ctx, extra_words: tuple[Node, ...]) -> None:
    words: list[Word] = []
    word_nodes: list[Node] = []
    assignments: list[tuple[str, Word]] = []
    redirects: list[RawRedirect] = list(ctx.redirects)
    inline: list[Node] = []
    loops: list[tuple[Word, Loop]] = []
    joins: tuple[tuple[int, int], ...] = ()
    for child in node.children:
        kind = child.type
        if kind == "variable_assignment":
            assignments.append(_assignment(child, src))
            word_nodes.append(child)
        elif kind == "command_name" or kind in _WORD_NODES:
            words.append(evaluate_word(child, src))
            word_nodes.append(child)
            loop = _loop_reference(child, src, ctx.loops)
            if loop is not None:
                loops.append((words[-1], loop))
        elif kind in _REDIRECT_NODES:
            made, joined = _redirect(
                child, src, out, _Ctx(ctx.stdin_fed, ctx.pipes, ctx.depth, (), inline, loc=ctx.loc)
            )
            redirects += made
            joins += joined
            continue
        elif kind == "comment":
            continue
        elif child.is_named:
            out.opaque_reason(
                "unknown-construct", kind, f"`{_text(child, src)}` is not understood here"
            )
        else:
            # An operator token inside a command (`$` before a string, `=~`): bash would
            # read it differently from a plain word.
            out.opaque_reason(
                "unknown-construct", kind, f"`{_text(child, src)}` is not understood here"
            )
        _walk_value(child, src, out, ctx)
    _check_gaps(word_nodes, src, out)
    for extra in (*inline, *extra_words):
        words.append(evaluate_word(extra, src))
    stdin = ctx.stdin_fed or any(r.op in _STDIN_OPS for r in redirects)
    out.commands.append(
        RawCommand(
            tuple(words), tuple(assignments), tuple(redirects), stdin, (*ctx.pipes, *joins),
            "command", ctx.loc.dirs, tuple(loops),
        )
    )  # fmt: skip
    if words and words[0].text in _MOVES and words[0].static:
        ctx.loc.apply(tuple(words), node.start_byte)


# Builtins that set a variable named by a word (`read f`, `printf -v f`, `declare f`), or
# run text as commands that may (`eval`, `source`, `trap`'s handlers, an `alias`'s text);
# bash manual, "Shell Builtin Commands".
_SETS_NAMES = frozenset(
    {
        "read", "mapfile", "readarray", "printf", "getopts", "declare", "typeset", "local",
        "export", "readonly", "unset", "let", "eval", "source", ".", "builtin", "command",
        "wait", "coproc", "trap", "alias",
    }
)  # fmt: skip


def _loop(node: Node, src: bytes, out: Walk, ctx: _Ctx) -> Loop | None:
    """The `for NAME in WORDS` of `node` when nothing else in the script can set NAME.

    None (the body's `"$NAME"` stays computed) when the loop has no `in` list (it walks
    `"$@"`), when NAME is set or named anywhere else (an assignment, another loop, an
    arithmetic or `${NAME:=…}` expansion, a function body), or when the script runs a
    builtin that sets a variable named by a word.
    """
    name_node = node.child_by_field_name("variable")
    if name_node is None or len(ctx.loc.dirs) != 1 or None in ctx.loc.dirs:
        return None
    name = _text(name_node, src)
    values = node.children_by_field_name("value")
    if not any(c.type == "in" for c in node.children) or not values:
        return None
    if out._set_names is None:
        out._set_names = _names_set(out._root, src) if out._root is not None else Counter()
    if out._set_names.get(name, 0) != 1 or out._set_names.get("", 0):
        return None
    return Loop(name, tuple(evaluate_word(v, src) for v in values), ctx.loc.dirs)


def _names_set(root: Node, src: bytes) -> Counter[str]:
    """How often the script spells each name other than as `$NAME` or `${NAME}`: in a
    `for` header, an assignment, `read NAME`, `{NAME}>f`, `(( NAME=1 ))`, `${NAME:=x}`,
    or any text at all. The key "" counts what may set a variable without spelling it
    (`read`, `eval`, `source`, declarations, function definitions)."""
    text = src.decode("utf-8", "replace")
    # Every identifier, less those that are `$NAME` or `${NAME}`: each such NAME is itself
    # a whole identifier match (`$` and `{` end any match before them), so the difference
    # counts exactly the other spellings.
    out = Counter(_IDENTIFIER.findall(text))
    out.subtract(a or b for a, b in _REFERENCE.findall(text))
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if (kind == "command_name" and _may_set_names(node, src)) or kind in (
            "declaration_command",
            "unset_command",
            "function_definition",
        ):
            out[""] += 1
        elif kind == "for_statement" and node.child_count and node.children[0].type == "select":
            out[""] += 1  # `select NAME in …` also sets REPLY to the line it reads
        stack.extend(node.children)
    return out


def _may_set_names(node: Node, src: bytes) -> bool:
    """The command name as bash reads it (`\\read`, `'read'` and `re''ad` are `read`) is a
    builtin of `_SETS_NAMES`, or is computed (it may be one)."""
    raw = src[node.start_byte : node.end_byte].decode("utf-8", "replace")
    if _PLAIN_NAME.fullmatch(raw) is not None:
        return raw in _SETS_NAMES  # no quote, escape, expansion or glob: bash reads it as is
    name = evaluate_word(node, src)
    return not name.static or name.text in _SETS_NAMES


_PLAIN_NAME = re.compile(r"[A-Za-z0-9_./+-]+")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_REFERENCE = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})")


def _loop_reference(node: Node, src: bytes, loops: tuple[Loop, ...]) -> Loop | None:
    """The loop whose variable the word `node` is, spelled `"$NAME"` or `"${NAME}"`."""
    if not loops or node.type != "string":
        return None
    text = _text(node, src)
    for loop in reversed(loops):
        if text in (f'"${loop.name}"', f'"${{{loop.name}}}"'):
            return loop
    return None


def _declaration(node: Node, src: bytes, out: Walk, ctx: _Ctx) -> None:
    # export / declare / local / readonly / typeset / unset: a builtin whose assignments
    # change the shell's variables (and so what later commands do).
    words: list[Word] = []
    nodes: list[Node] = []
    for child in node.children:
        if not child.is_named:
            words.append(Word(_text(child, src), True))
            nodes.append(child)
        elif child.type == "variable_assignment":
            name, value = _assignment(child, src)
            out.bare_assignments.append((name, value))
            words.append(Word(f"{name}={value.text}", value.static))
            nodes.append(child)
        elif child.type == "variable_name" or child.type in _WORD_NODES:
            words.append(evaluate_word(child, src))
            nodes.append(child)
        elif child.type in _REDIRECT_NODES or child.type == "comment":
            pass
        else:
            out.opaque_reason(
                "unknown-construct", child.type, f"`{_text(child, src)}` is not understood here"
            )
        _walk_value(child, src, out, ctx)
    _check_gaps(nodes, src, out)
    out.commands.append(
        RawCommand(
            tuple(words), (), ctx.redirects, ctx.stdin_fed, ctx.pipes, "declaration", ctx.loc.dirs
        )
    )


def _pipeline(node: Node, src: bytes, out: Walk, ctx: _Ctx) -> int:
    """Walk a pipeline's stages; its id (`RawCommand.pipes`)."""
    out._pipeline_ids += 1
    pid = out._pipeline_ids
    stage = 0
    last = next((c for c in reversed(node.children) if c.is_named and c.type != "comment"), None)
    for child in node.children:
        if child.type in ("|", "|&"):
            out.operators.append(child.type)
            stage += 1
            continue
        # Every stage of a pipeline runs in a subshell: its `cd` stays there. Except the
        # last, with `shopt -s lastpipe` (bash manual, "Pipelines"), which may be set where
        # the analysis cannot see it: the last stage's directories may stay.
        sub = _Ctx(
            ctx.stdin_fed or stage > 0,
            (*ctx.pipes, (pid, stage)),
            ctx.depth,
            ctx.redirects,
            loc=ctx.loc.copy(),
            loops=ctx.loops,
        )
        _walk(child, src, out, sub)
        if child is last:
            ctx.loc.merge(sub.loc)
    return pid


# A redirection's own record, and the pipe stages its command is the first stage of (a
# heredoc's line continues `cat <<'EOF' | rev > F`: tree-sitter nests `| rev > F` in it).
_Made = tuple[tuple[RawRedirect, ...], tuple[tuple[int, int], ...]]


def _redirected(node: Node, src: bytes, out: Walk, ctx: _Ctx) -> None:
    redirects: list[RawRedirect] = []
    joins: tuple[tuple[int, int], ...] = ()
    body: Node | None = None
    extra: list[Node] = []
    for child in node.children:
        if child.type in _REDIRECT_NODES:
            made, joined = _redirect(
                child, src, out, _Ctx(ctx.stdin_fed, ctx.pipes, ctx.depth, (), extra, loc=ctx.loc)
            )
            redirects += made
            joins += joined
        elif body is None and child.is_named and child.type != "comment":
            body = child
        elif child.type != "comment":
            _walk(child, src, out, ctx)
    if body is not None:
        stdin = ctx.stdin_fed or any(r.op in _STDIN_OPS for r in redirects)
        if extra and body.type != "command":
            out.opaque_reason(
                "unknown-construct", "redirect", "words after a redirection are not understood"
            )
        sub = _Ctx(
            stdin,
            (*ctx.pipes, *joins),
            ctx.depth,
            (*ctx.redirects, *redirects),
            None,
            tuple(extra),
            ctx.loc,
            ctx.loops,
        )
        before_dirs = ctx.loc.dirs
        _walk(body, src, out, sub)
        if ctx.loc.dirs != before_dirs:
            # tree-sitter hangs `> f` of `cd / && echo x > f` on the whole list: the file
            # may be opened in any directory the body went through.
            dirs = before_dirs | ctx.loc.dirs
            for k, r in enumerate(out.redirects):
                if r in redirects:
                    out.redirects[k] = RawRedirect(r.op, r.target, r.fd, r.heredoc, dirs)


def _redirect(node: Node, src: bytes, out: Walk, ctx: _Ctx) -> _Made:
    """Record a redirection (and walk what it holds); the records of the command's own
    redirections, and the pipe stages a heredoc's line makes its command the first of.
    Commands nested in it (a heredoc line's `| rev > F`, `&& python3 x.py`) record their
    own redirections, which are theirs, not this command's."""
    kind = node.type
    op = ""
    fd: str | None = None
    target: Word | None = None
    for child in node.children:
        if not child.is_named and not op and child.type not in ("heredoc_start",):
            op = child.type
    descriptor = node.child_by_field_name("descriptor")
    if descriptor is not None:
        fd = _text(descriptor, src)
    if kind == "heredoc_redirect":
        return _heredoc(node, src, out, ctx, op or "<<")
    dest_nodes = node.children_by_field_name("destination")
    if kind == "herestring_redirect":
        dest_nodes = [c for c in node.named_children if c.type in _WORD_NODES]
        op = "<<<"
    if not dest_nodes:
        out.opaque_reason(
            "unknown-construct", "redirect", f"redirection `{_text(node, src)}` is not understood"
        )
    else:
        target = evaluate_word(dest_nodes[0], src)
        _walk(dest_nodes[0], src, out, ctx)
        # `cmd >out a b`: tree-sitter hangs the words after the target on the redirect;
        # to bash they are arguments of the command.
        _check_gaps(dest_nodes, src, out)
        extra = ctx.extra if ctx.extra is not None else None
        for word_node in dest_nodes[1:]:
            if extra is None:
                out.opaque_reason(
                    "unknown-construct",
                    "redirect",
                    f"words after redirection `{_text(node, src)}` are not understood",
                )
                break
            extra.append(word_node)
        for word_node in dest_nodes[1:]:
            _walk(
                word_node,
                src,
                out,
                _Ctx(ctx.stdin_fed, ctx.pipes, ctx.depth, ctx.redirects, loc=ctx.loc),
            )
    made = RawRedirect(op, target, fd, None, ctx.loc.dirs)
    out.redirects.append(made)
    return (made,), ()


def _heredoc(node: Node, src: bytes, out: Walk, ctx: _Ctx, op: str) -> _Made:
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    quoted = start is not None and any(q in _text(start, src) for q in "'\"\\")
    body_text = ""
    joins: tuple[tuple[int, int], ...] = ()
    # tree-sitter nests the rest of the heredoc's line here: the command's own further
    # redirections (`cat <<'EOF' > f`) until an operator, then other commands.
    own: list[RawRedirect] = []
    ours = True
    for child in node.children:
        if not child.is_named and child.type in _LINE_OPERATORS:
            ours = False
        if child.type == "heredoc_body":
            body_text = _text(child, src)
            if not quoted:
                # An unquoted heredoc body expands `$(...)` and backticks: walk them.
                before = len(out.commands)
                _walk_children(child, src, out, _Ctx(False, (), ctx.depth + 1, loc=ctx.loc.copy()))
                found = len(out.commands) > before
                # tree-sitter does not parse backticks in a heredoc body; never trust a
                # body that bash would expand code in but the parse shows none.
                if "`" in body_text or ("$(" in body_text and not found):
                    out.opaque_reason(
                        "heredoc-substitution",
                        "heredoc",
                        "the heredoc body runs command substitutions that are not analysed",
                    )
        elif ours and child.type in _REDIRECT_NODES:
            own += _redirect(child, src, out, ctx)[0]
        elif child.type == "pipeline" and child.children and child.children[0].type in _PIPES:
            # The rest of the heredoc's line is nested here: `| rev > F` makes the
            # heredoc's command the first stage of that pipeline.
            joins += ((_pipeline(child, src, out, _nested(ctx)), 0),)
        elif child.is_named and child.type not in ("heredoc_start", "heredoc_end"):
            # The rest of the heredoc's line (`&& rm x`) is nested here.
            _walk(child, src, out, _nested(ctx))
    heredoc = RawRedirect(op, None, None, body_text, ctx.loc.dirs)
    out.redirects.append(heredoc)
    return (*own, heredoc), joins


_PIPES = frozenset({"|", "|&"})
_LINE_OPERATORS = frozenset({"&&", "||", ";", "&", "|", "|&"})


def _nested(ctx: _Ctx) -> _Ctx:
    """The context of the commands nested in a heredoc's line: not the heredoc command's
    redirections or argument words."""
    return _Ctx(ctx.stdin_fed, ctx.pipes, ctx.depth, (), None, (), ctx.loc, ctx.loops)
