"""Read an awk program the way awk's lexer does, in one pass: what it runs, opens and reads.

A scan that does not know awk's string literals resets at a `;`, `}` or newline inside one
(`print "id;" | "sh"`), and so misses the pipe after it. This reader splits the program into
tokens first (string literals with their escapes, regular expression literals, comments to
the end of the line), linearly and without looking back, and every question is then asked
of the tokens:

- `runs_code`: a pipe (`print | "sh"`, `"cmd" | getline`, gawk's `|&` coprocess), a call of
  `system` (or of any name ending in it), or an `@` before a name: gawk's indirect call
  (`@f()` calls any function, built-ins included), `@load` (native code) and `@include`;
- `network`: a string that names one of gawk's network special files (`/inet/…`,
  `/inet4/…`, `/inet6/…`: "Using gawk for Network Programming");
- `argv`: the program changes `ARGV` or `ARGC` (an assignment, `++`, `delete`, `getline`
  into them, or either handed to a function that may change it) or names gawk's `SYMTAB`:
  the files awk reads are then not the operands on the command line;
- `files`: the files a `print`/`printf` writes (`> "f"`, `>> "f"`) and a `getline` reads
  (`< "f"`); None for a name computed at run time;
- `unknown`: the lexer's reading is not certain (an unterminated string or regular
  expression, a bracket expression holding `/`, where awks differ): treat it like code.

Whether a `/` starts a regular expression or divides follows awk's grammar: it divides
right after an operand (a name, a number, a string, a regular expression, `)` or `]`, `++`
or `--`), and starts a regular expression anywhere else, including right after the `)` of
`if (…)`, `while (…)` and `for (…)`, where a statement begins.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from safehold.policy.shell.programs.table import Role

__all__ = ["AwkProgram", "read_awk_program"]

_BLANKS = " \t\r\f\v"
# Multi-character operators, longest first (POSIX awk and gawk's lexer).
_OPERATORS = ("**=", "**", "^=", "+=", "-=", "*=", "/=", "%=", "==", "<=", ">=", "!=", "!~",
              "++", "--", "&&", "||", "|&", ">>")  # fmt: skip
_ASSIGNMENTS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "^=", "**=", "++", "--"})
# gawk's keywords (awkgram.y `tokentab`) after which an expression may begin: a `/` there
# starts a regular expression. `getline` is not one: what may follow it is a variable.
_KEYWORDS = frozenset(
    {"BEGIN", "END", "BEGINFILE", "ENDFILE", "function", "func", "if", "else", "while", "for",
     "do", "break", "continue", "next", "nextfile", "exit", "return", "delete", "print",
     "printf", "in", "switch", "case", "default"}
)  # fmt: skip
_CONTROL = frozenset({"if", "while", "for", "switch"})
# Built-in functions that change none of their arguments: `ARGV[1]` handed to them is read.
# Any other call may change an argument (`sub(/a/, "b", ARGV[1])`, `split(s, ARGV)`, a
# user function given the array `ARGV`).
_PURE_CALLS = frozenset(
    {"length", "substr", "index", "sprintf", "toupper", "tolower", "int", "sqrt", "exp",
     "log", "sin", "cos", "atan2", "rand", "srand", "close", "fflush", "strftime", "mktime",
     "systime", "and", "or", "xor", "lshift", "rshift", "compl", "strtonum", "gensub",
     "typeof", "isarray"}
)  # fmt: skip
# Where the file name of a redirection ends: the statement, or the parenthesis around it.
_NAME_ENDS = frozenset({";", "\n", "{", "}", ")", ""})
_STATEMENT_ENDS = frozenset({";", "\n", "{", "}"})
# A newline after these does not end the statement (POSIX awk grammar: `newline_opt`).
_CONTINUES = frozenset({",", "&&", "||", "{", "do", "else"})
_NETWORK = ("/inet/", "/inet4/", "/inet6/")
_STANDARD = frozenset({"/dev/stdout", "/dev/stderr", "-"})

# Token kinds: a name, a number, a string (text between the quotes, escapes as written), a
# regular expression, or an operator or punctuation character (its text).
_NAME, _NUMBER, _STRING, _REGEX, _OP = "name", "number", "string", "regex", "op"


@dataclass(frozen=True, slots=True)
class AwkProgram:
    """What an awk program does beyond reading its operands: see the module docstring."""

    runs_code: bool = False
    network: bool = False
    argv: bool = False
    files: tuple[tuple[Role, str | None], ...] = ()
    unknown: bool = False


@functools.lru_cache(maxsize=64)  # the step and the table read the same program
def read_awk_program(text: str) -> AwkProgram:
    """Read an awk program (see the module docstring) in time linear in its length."""
    tokens, certain = _tokens(text)
    files = _files(tokens)
    if not certain:
        files.append(("write", None))  # a redirection the reading may have missed
    return AwkProgram(
        runs_code=_runs(tokens),
        network=any(k == _STRING and t.startswith(_NETWORK) for k, t in tokens),
        argv=_changes_argv(tokens),
        files=tuple(files),
        unknown=not certain,
    )


def _tokens(text: str) -> tuple[list[tuple[str, str]], bool]:
    """The program's tokens, and whether the lexer's reading of them is certain.

    An uncertain spot is read the most literal way (a string or regular expression ends at
    the line's end, a bracket does not hide a `/`) and the rest is read on, so the work is
    the same whatever the text.
    """
    out: list[tuple[str, str]] = []
    certain = True
    parens: list[bool] = []  # per open `(`: whether it holds an if/while/for condition
    divides = False  # a `/` here divides (an operand just ended)
    n = len(text)
    i = 0
    while i < n:
        ch = text[i]
        if ch in _BLANKS:
            i += 1
            continue
        if ch == "\\":
            # A backslash-newline continues the line; any other is no awk token.
            if text.startswith("\n", i + 1) or text.startswith("\r\n", i + 1):
                i += 2 if text[i + 1] == "\n" else 3
                continue
            certain = False
            i += 1
            continue
        if ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch == '"' or (ch == "/" and not divides):
            end, closed = _literal_end(text, i + 1, ch)
            certain = certain and closed
            out.append((_STRING if ch == '"' else _REGEX, text[i + 1 : end]))
            i = end + 1
            divides = True
            continue
        if ch.isalpha() or ch == "_":
            start = i
            while i < n and (text[i].isalnum() or text[i] == "_"):
                i += 1
            word = text[start:i]
            out.append((_NAME, word))
            divides = word not in _KEYWORDS
            continue
        if ch.isdigit() or (ch == "." and text[i + 1 : i + 2].isdigit()):
            start = i
            while i < n and (text[i].isalnum() or text[i] == "."):
                i += 1
            out.append((_NUMBER, text[start:i]))
            divides = True
            continue
        op = next((o for o in _OPERATORS if text.startswith(o, i)), ch)
        i += len(op)
        if op == "(":
            parens.append(bool(out) and out[-1][0] == _NAME and out[-1][1] in _CONTROL)
        elif op == ")":
            control = parens.pop() if parens else False
            out.append((_OP, op))
            divides = not control  # after `if (…)` a statement, maybe `/re/ {…}`, begins
            continue
        out.append((_OP, op))
        divides = op in (")", "]", "++", "--")
    return out, certain


def _literal_end(text: str, i: int, close: str) -> tuple[int, bool]:
    """Where a string (`close` is `"`) or a regular expression (`/`) from `i` ends, and
    whether it is closed for certain.

    A backslash escapes the next character; a backslash-newline continues a string (in a
    regular expression gawk refuses it). A bare newline or the end comes first in an
    unterminated literal. gawk reads a bracket expression whole (`/[/]/` is one regular
    expression); other awks end it at the first `/`: a bracket holding `/` (or a newline)
    is not guessed at, the expression is read to its first `/`, and the reading is
    uncertain.
    """
    n = len(text)
    start = i
    while i < n:
        ch = text[i]
        if ch == "\\":
            if close == "/" and text.startswith("\n", i + 1):
                return i + 1, False
            i += 2
            continue
        if ch == close:
            return i, True
        if ch == "\n":
            return i, False
        if ch == "[" and close == "/":
            end = _bracket_end(text, i + 1)
            if end < 0:
                return _plain_regex_end(text, start), False
            i = end + 1
            continue
        i += 1
    return n, False


def _plain_regex_end(text: str, i: int) -> int:
    """The first unescaped `/` or newline from `i` (or the end): a reading blind to brackets."""
    n = len(text)
    while i < n and text[i] not in "/\n":
        i += 2 if text[i] == "\\" else 1
    return min(i, n)


def _bracket_end(text: str, i: int) -> int:
    """Index of the `]` closing a bracket expression from `i`; -1 if it holds `/` or `\\n`."""
    n = len(text)
    if text.startswith("^", i):
        i += 1
    if text.startswith("]", i):
        i += 1  # a `]` first is a member
    while i < n:
        ch = text[i]
        if ch in "/\n":
            return -1
        if ch == "]":
            return i
        if ch == "\\":
            i += 2
            continue
        if ch == "[" and text[i + 1 : i + 2] in (":", ".", "="):
            # `[:alpha:]`, `[.-.]`, `[=a=]`: read to its closing pair, never past a `/`.
            close = text[i + 1] + "]"
            i += 2
            while i < n and not text.startswith(close, i):
                if text[i] in "/\n":
                    return -1
                i += 1
            i += 2
            continue
        i += 1
    return -1


def _runs(tokens: list[tuple[str, str]]) -> bool:
    n = len(tokens)
    for k, (kind, text) in enumerate(tokens):
        after = tokens[k + 1] if k + 1 < n else ("", "")
        if kind == _OP and text in ("|", "|&"):
            return True  # awk has no `|` but a pipe to or from a command
        if kind == _OP and text == "@" and after[0] == _NAME:
            return True
        if kind == _NAME and text.endswith("system"):
            j = k + 1
            while j < n and tokens[j] == (_OP, "\n"):
                j += 1  # newlines before the `(` too, in case an awk reads past them
            if j < n and tokens[j] == (_OP, "("):
                return True
    return False


def _changes_argv(tokens: list[tuple[str, str]]) -> bool:
    """True when the program may change `ARGV` or `ARGC` (see the module docstring)."""
    calls: list[bool] = []  # per open `(`: whether it is a call that may change arguments
    n = len(tokens)
    for k, (kind, text) in enumerate(tokens):
        before = tokens[k - 1] if k else ("", "")
        if kind == _OP and text == "(":
            callee = before[1] if before[0] == _NAME else ""
            calls.append(bool(callee) and callee not in _KEYWORDS and callee not in _PURE_CALLS)
            continue
        if kind == _OP and text == ")":
            if calls:
                calls.pop()
            continue
        if kind != _NAME or text not in ("ARGV", "ARGC", "SYMTAB"):
            continue
        if text == "SYMTAB" or any(calls) or before[1] in ("++", "--", "getline", "delete"):
            return True
        j = k + 1
        if text == "ARGV":
            if j >= n or tokens[j] != (_OP, "["):
                if before != (_NAME, "in"):
                    return True  # the whole array, not `k in ARGV`: maybe changed
                continue
            depth = 0
            while j < n:
                if tokens[j] == (_NAME, "ARGV"):
                    return True  # `ARGV[ARGV[1]]`: not read twice (linear work)
                depth += {"[": 1, "]": -1}.get(tokens[j][1], 0) if tokens[j][0] == _OP else 0
                j += 1
                if depth == 0:
                    break
            if depth:
                return True
        after = tokens[j] if j < n else ("", "")
        if after[1] in _ASSIGNMENTS or after == (_NAME, "in"):
            return True
    return False


def _files(tokens: list[tuple[str, str]]) -> list[tuple[Role, str | None]]:
    """Files `print > F`, `print >> F` write and `getline < F` reads; None: computed."""
    out: list[tuple[Role, str | None]] = []
    printing = getting = False
    n = len(tokens)
    for k, (kind, text) in enumerate(tokens):
        if kind == _OP and text in _STATEMENT_ENDS:
            # A newline after `,`, `&&`, `||`, `{` continues the statement.
            if not (text == "\n" and k and tokens[k - 1][1] in _CONTINUES):
                printing = getting = False
            continue
        if kind == _NAME and text in ("print", "printf"):
            printing = True
        elif kind == _NAME and text == "getline":
            getting = True
        elif kind == _OP and ((printing and text in (">", ">>")) or (getting and text == "<")):
            role: Role = "write" if text != "<" else "read"
            name = tokens[k + 1] if k + 1 < n else ("", "")
            end = tokens[k + 2][1] if k + 2 < n else ""
            literal = name[0] == _STRING and end in _NAME_ENDS and "\\" not in name[1]
            if not literal:
                out.append((role, None))  # `print > ENVIRON["HOME"] "/.bashrc"`, `"d/" f`
            elif name[1] not in _STANDARD and not name[1].startswith(_NETWORK):
                out.append((role, name[1]))
    return out
