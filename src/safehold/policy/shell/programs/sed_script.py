r"""Read a sed script the way GNU sed does, in one pass: which commands run code, which files.

A regular expression cannot find sed's `e` command safely: whether an `e` is a command, a
flag of `s`, or a letter in a regex, a replacement or `a`/`i`/`c` text depends on everything
before it, and the backtracking patterns that tried (`s(.)(?:\\.|(?!\1).)*\1…`) took minutes
on a 1,200-character `c\` text. This scanner follows GNU sed's own reader
(`compile.c`: addresses, `!`, one command letter, its argument) and never looks back, so its
work is linear in the script's length.

Anything it does not recognise makes the script `unknown`, which the caller treats like code:
sed refuses such a script, and a wrong guess here must not become an allow.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SedScript", "read_sed_script"]

# Commands without an argument (GNU: `l`, `L`, `q`, `Q` take an optional number).
_BARE = frozenset("=dDgGhHnNpPxzF")
_NUMBER_ARG = frozenset("lLqQ")
_TEXT = frozenset("aic")
_LABEL = frozenset("btT")
_FILE_READ = frozenset("rR")
_FILE_WRITE = frozenset("wW")
_S_FLAGS = frozenset("gpiImMe0123456789")
_BLANKS = " \t"
# Commands whose argument is the rest of the line: text, file names, a shell command, a comment.
_TO_END_OF_LINE = _TEXT | _FILE_READ | _FILE_WRITE | frozenset("e#")


@dataclass(frozen=True, slots=True)
class SedScript:
    """What a sed script does beyond editing its input stream.

    `runs_code`: an `e` command or the `e` flag of `s` (GNU sed runs a shell command).
    `reads` / `writes`: files named by `r`/`R` and `w`/`W` or the `w` flag of `s`.
    `unknown`: the script is not one this reader understands (treat it like code).
    `texts`: the text the script puts into its output: each `s` replacement and each
    `a`/`i`/`c` text, as spelled (escapes and `\\1` left as they are).
    `maps`: a `y` command, which turns the input's characters into others (its output text
    is spelled nowhere).
    """

    runs_code: bool = False
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    unknown: bool = False
    texts: tuple[str, ...] = ()
    maps: bool = False


class _Reader:
    """A cursor over the script; every method advances and never rewinds."""

    __slots__ = ("i", "n", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.n = len(text)

    def peek(self) -> str:
        return self.text[self.i] if self.i < self.n else ""

    def take(self) -> str:
        ch = self.peek()
        self.i += 1 if ch else 0
        return ch

    def skip(self, chars: str) -> None:
        while self.i < self.n and self.text[self.i] in chars:
            self.i += 1

    def digits(self) -> bool:
        start = self.i
        while self.i < self.n and self.text[self.i].isdigit():
            self.i += 1
        return self.i > start

    def rest_of_line(self, *, skip_blanks: bool = False) -> str:
        if skip_blanks:
            self.skip(_BLANKS)
        end = self.text.find("\n", self.i)
        end = self.n if end < 0 else end
        out = self.text[self.i : end]
        self.i = end
        return out

    def delimited(self, delim: str, *, regex: bool = False) -> bool:
        """Skip to just after the next unescaped `delim`; False when it is not found.

        In a regex, GNU sed reads a bracket expression whole (`s/[/]/x/` is valid). A
        bracket holding the delimiter or a newline is refused (False) rather than guessed:
        with that refused, sed's reading and a reading blind to brackets end at the same
        delimiter, so no other difference between them can hide a command.
        """
        text, n = self.text, self.n
        while self.i < n:
            ch = text[self.i]
            self.i += 1
            if ch == "\\":
                self.i += 1  # the escaped character, whatever it is (`\/`, `\n`, `\\`)
            elif ch == delim:
                return True
            elif ch == "[" and regex and not self._bracket(delim):
                return False
        return False

    def _bracket(self, delim: str) -> bool:
        """Skip a bracket expression after its `[`; False if it holds `delim` or never ends."""
        text, n = self.text, self.n
        j = self.i
        if j < n and text[j] == "^":
            j += 1
        if j < n and text[j] == "]":
            j += 1  # a `]` first is a member, not the end
        while j < n and text[j] != "]":
            ch = text[j]
            if ch == delim or ch == "\n":
                return False
            if ch == "[" and j + 1 < n and text[j + 1] in ":.=":
                close = text.find(text[j + 1] + "]", j + 2)  # `[:alpha:]`, `[.-.]`, `[=a=]`
                if close < 0 or delim in text[j:close] or "\n" in text[j:close]:
                    return False
                j = close + 2
                continue
            j += 1
        if j >= n:
            return False
        self.i = j + 1
        return True


def read_sed_script(text: str) -> SedScript:
    """Scan a GNU sed script (the `-e` parts joined by newlines) in linear time."""
    r = _Reader(text)
    runs = maps = False
    reads: list[str] = []
    writes: list[str] = []
    texts: list[str] = []
    while True:
        r.skip(_BLANKS + "\n;")
        if r.i >= r.n:
            break
        if not _address(r):
            return SedScript(unknown=True)
        r.skip(_BLANKS)
        while r.peek() == "!":
            r.take()
            r.skip(_BLANKS)
        cmd = r.take()
        if cmd == "{":
            continue  # a block's first command may follow at once: `/x/{p;d}`
        if cmd in _TO_END_OF_LINE:
            # The argument runs to the end of the line, so nothing else can follow.
            arg = _text(r) if cmd in _TEXT else r.rest_of_line(skip_blanks=True)
            if cmd in _TEXT:
                texts.append(arg)
            elif cmd in _FILE_READ:
                reads.append(arg)
            elif cmd in _FILE_WRITE:
                writes.append(arg)
            runs = runs or cmd == "e"
            continue
        if cmd in _LABEL or cmd in (":", "v"):
            # `read_label` ends the label and nothing more: the next command may follow
            # at once, after a blank, `}` or `#` too (`:a e id` runs `id`).
            _label(r)
            continue
        if cmd in _NUMBER_ARG:
            r.skip(_BLANKS)
            r.digits()
        elif cmd in ("s", "y"):
            delim = r.take()
            if delim in ("", "\n", "\\"):
                return SedScript(unknown=True)
            # `s/REGEX/REPLACEMENT/`; `y/SOURCE/DEST/` has no regex.
            if not r.delimited(delim, regex=cmd == "s"):
                return SedScript(unknown=True)
            start = r.i
            if not r.delimited(delim):
                return SedScript(unknown=True)
            texts.append(r.text[start : r.i - 1])
            maps = maps or cmd == "y"
            if cmd == "s":
                flags = _s_flags(r, writes)
                runs = runs or "e" in flags
        elif cmd != "}" and cmd not in _BARE:
            return SedScript(unknown=True)
        if not _end_of_command(r):
            return SedScript(unknown=True)
    return SedScript(runs, tuple(reads), tuple(writes), texts=tuple(texts), maps=maps)


def _address(r: _Reader) -> bool:
    """Skip `ADDR[,ADDR2]`; False on a regex address that never ends."""
    if not _one_address(r, second=False):
        return False
    r.skip(_BLANKS)
    if r.peek() == ",":
        r.take()
        r.skip(_BLANKS)
        if r.peek() in ("+", "~"):
            r.take()
            r.digits()
        elif not _one_address(r, second=True):
            return False
    return True


def _one_address(r: _Reader, *, second: bool) -> bool:
    ch = r.peek()
    if ch.isdigit():
        r.digits()
        if r.peek() == "~":  # `first~step`
            r.take()
            r.digits()
    elif ch == "$":
        r.take()
    elif ch in ("/", "\\"):
        r.take()
        delim = "/" if ch == "/" else r.take()
        if delim in ("", "\n", "\\") or not r.delimited(delim, regex=True):
            return False
        while r.peek() in ("I", "M"):
            r.take()
    elif second:
        return False  # `1,` with nothing after it
    return True


def _text(r: _Reader) -> str:
    """`a`/`i`/`c` text: one line, or (after `\\`) lines while each ends in a backslash."""
    r.skip(_BLANKS)
    start = r.i
    if r.peek() == "\\":
        r.take()
        if r.peek() == "\n":
            r.take()
    while r.i < r.n:
        ch = r.take()
        if ch == "\\":
            r.take()  # an escaped character, including the newline that continues the text
        elif ch == "\n":
            break
    return r.text[start : r.i]


# GNU sed 4.9 `read_label` (compile.c), for `:`, `b`, `t`, `T` and `v`: blanks before the
# label are skipped; the label ends at a blank, a newline, `;`, `}` or `#` (left unread).
_LABEL_ENDS = _BLANKS + "\n;}#"


def _label(r: _Reader) -> None:
    r.skip(_BLANKS)
    while r.i < r.n and r.peek() not in _LABEL_ENDS:
        r.take()


def _s_flags(r: _Reader, writes: list[str]) -> str:
    """The flags after `s///`; GNU `mark_subst_opts` skips blanks before each one."""
    flags = []
    while True:
        r.skip(_BLANKS)
        ch = r.peek()
        if ch in _S_FLAGS and ch:
            flags.append(r.take())
        elif ch == "w":
            r.take()
            r.skip(_BLANKS)
            writes.append(r.rest_of_line())
            break
        else:
            break
    return "".join(flags)


def _end_of_command(r: _Reader) -> bool:
    r.skip(_BLANKS)
    return r.peek() in ("", "\n", ";", "}", "#")
