"""The options a program's `--help` lists: a small linear reader per help style.

`help_options(text, style)` returns `{option: arity}` with arity `"flag"`, `"value"` (a
required value) or `"optional"` (`--color[=WHEN]`). Styles:

- `gnu`: GNU getopt_long / argp help and git's parse-options `-h` (`  -A, --after-context=NUM`,
  `      --color[=WHEN]`, `    -u, --untracked-files[=<mode>]`, `    --format <fmt>`);
- `python`: CPython's own help (`-c cmd : program passed in as string`);
- `find`: findutils' expression list (`-name PATTERN -newer FILE -delete`);
- `man`: a man page rendered as text (git's: `       -U<n>, --unified=<n>`,
  `       --[no-]rename-empty`), its option lines indented by seven spaces;
- `cobra`: Go programs built on cobra and pflag (docker, kubectl). pflag's own usage lines
  (`  -f, --filter filter   Filter …`: a lower-case type name after one blank is a value;
  `--keys string[="x"]` or `--flag[=x]` an optional one) and kubectl's template
  (`    -A, --all-namespaces=false:`: a default of `false` or `true` is a flag, any other
  default a value).

Every reader walks each line once, character by character: no regular expression, so no
backtracking on whatever a program prints.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["Arity", "HelpStyle", "help_options"]

Arity = Literal["flag", "value", "optional"]
HelpStyle = Literal["gnu", "python", "find", "man", "cobra"]

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_?@#.+")
_ARG_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-[]/|:.")


def _is_arg(token: str) -> bool:
    """`NUM`, `FILE`, `<pattern>`, `[-/]MODE`: a value placeholder, not a word of prose."""
    if token.startswith("<"):
        return True
    return bool(token) and any(c.isupper() for c in token) and all(c in _ARG_CHARS for c in token)


def _gnu_line(line: str, out: dict[str, Arity]) -> None:
    text = line.lstrip(" \t")
    if len(line) - len(text) == 0 or not text.startswith("-"):
        return
    found: dict[str, Arity] = {}
    _gnu_entry(text, found)
    # "Mandatory arguments to long options are mandatory for short options too":
    # `-A, --after-context=NUM` gives `-A` the long option's value.
    names = list(found)
    if len(names) == 2 and found[names[1]] == "value" and names[1].startswith("--"):
        found[names[0]] = "value"
    for name, arity in found.items():
        out.setdefault(name, arity)


def _gnu_entry(text: str, out: dict[str, Arity]) -> None:
    i = 0
    n = len(text)
    while i < n and text[i] == "-":
        start = i
        while i < n and text[i] == "-":
            i += 1
        while i < n and text[i] in _NAME_CHARS:
            i += 1
        name = text[start:i]
        arity: Arity = "flag"
        if name == "--" and text.startswith("[no-]", i):  # git: `--[no-]rename-empty`
            j = i + 5
            while j < n and text[j] in _NAME_CHARS:
                j += 1
            name = "--" + text[i + 5 : j]
            out.setdefault("--no-" + name[2:], "flag")
            i = j
        if i < n and text[i] in "<{":  # `-U<n>`, `--diff-algorithm={…}`
            while i < n and text[i] not in " ,":
                i += 1
            arity = "value"
        elif i < n and text[i] == "[":
            close = text.find("]", i)
            i = n if close < 0 else close + 1
            arity = "optional"
        elif i < n and text[i] == "=":
            end = i + 1
            while end < n and text[end] not in " ,":
                end += 1
            # `--check=quiet` spells one value in full: the option may take others.
            arity = "value" if _is_arg(text[i + 1 : end]) else "optional"
            i = end
        elif i + 1 < n and text[i] == " " and text[i + 1] != " ":
            end = i + 1
            while end < n and text[end] not in " ,":
                end += 1
            if _is_arg(text[i + 1 : end]):
                i = end
                arity = "value"
        if name.endswith("."):
            return  # prose that mentions an option: `… than --index-url.`
        if name.strip("-") and not _placeholder(name):
            out.setdefault(name, arity)
        if text.startswith(" --", i) and not name.startswith("--"):
            i += 1  # git's man pages: `-1 --base, -2 --ours`
        elif text.startswith(", ", i):
            i += 2
        elif text.startswith("  --", i) and not name.startswith("--"):
            i += 2  # GNU patch: `-p NUM  --strip=NUM  Strip …`
        elif text.startswith(",", i) and i + 1 < n and text[i + 1] == "-":
            i += 1
        else:
            return


def _placeholder(name: str) -> bool:
    """`-NUM` (head, grep), `--GTYPE-group-format` (diff): a stand-in, not an option name."""
    if name.startswith("--"):
        return any(c.isupper() for c in name)
    return len(name) > 2 and name[1:].isupper()


def _python_line(line: str, out: dict[str, Arity]) -> None:
    if not line.startswith("-"):
        return
    head, sep, _ = line.partition(" : ")
    if not sep:
        head, sep, _ = line.partition(": ")
    if not sep:
        return
    parts = head.split()
    if not parts:
        return
    name = parts[0]
    if name == "-":
        return
    out.setdefault(name, "value" if len(parts) > 1 else "flag")


def _find_text(text: str, out: dict[str, Arity]) -> None:
    words = text.split()
    for k, word in enumerate(words):
        if not word.startswith("-") or len(word) < 3 or word.startswith("--"):
            continue
        name = word.rstrip(",")
        if name.endswith(".") or not all(c in _NAME_CHARS for c in name[1:]):
            continue
        if not name[1:2].islower():
            continue
        nxt = words[k + 1] if k + 1 < len(words) else ""
        takes = bool(nxt) and nxt[0] not in "-(!" and not nxt.startswith("EXPR")
        out.setdefault(name, "value" if takes else "flag")


def _cobra_line(line: str, out: dict[str, Arity]) -> None:
    text = line.lstrip(" \t")
    if len(line) - len(text) == 0 or not text.startswith("-"):
        return
    i = 0
    n = len(text)
    names: list[str] = []
    arity: Arity = "flag"
    while i < n and text[i] == "-":
        start = i
        while i < n and text[i] == "-":
            i += 1
        while i < n and text[i] in _NAME_CHARS and text[i] != ".":
            i += 1
        names.append(text[start:i])
        if text.startswith(", -", i):
            i += 2
            continue
        break
    if i < n and text[i] == "=":  # kubectl: `--name=DEFAULT:`, the line ends with `:`
        if not text.rstrip().endswith(":"):
            return
        default = text[i + 1 :].rstrip()[:-1]
        arity = "flag" if default in ("false", "true") else "value"
    elif text.startswith("[=", i):  # pflag: an optional value, `--detach-keys[="x"]`
        arity = "optional"
    elif text.startswith(" ", i) and not text.startswith("  ", i):
        end = i + 1
        while end < n and text[end] != " ":
            end += 1
        word, bracket, _ = text[i + 1 : end].partition("[=")  # `string[="x"]`: optional
        if not (word.replace("-", "").isalnum() and word.islower()) or not (
            end == n or text.startswith("  ", end)
        ):
            return  # prose that starts with an option, not an option line
        arity = "optional" if bracket else "value"
    elif i < n and not text.startswith("  ", i):
        return
    for name in names:
        if name.strip("-"):
            out.setdefault(name, arity)


def help_options(text: str, style: HelpStyle = "gnu") -> dict[str, Arity]:
    """Every option `text` (a program's help output) lists, with its arity."""
    out: dict[str, Arity] = {}
    if style == "find":
        _find_text(text, out)
        return out
    for line in text.splitlines():
        if style == "man":
            if line.startswith("       -") and not line.startswith("        "):
                _gnu_line(line, out)
        elif style == "python":
            _python_line(line, out)
        elif style == "cobra":
            _cobra_line(line, out)
        else:
            _gnu_line(line, out)
    return out
