"""The plain-words shortcut reads exactly what the full parse reads.

`git status` and `npm test` skip tree-sitter and the tree walk: a text of literal words
and blanks has one reading, a split at blanks. These properties hold the shortcut to that
claim: for every text it takes, the analysis equals the full parse's, and it never takes a
text bash would read as anything but one command of literal words.
"""

from __future__ import annotations

import shlex
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from safehold.policy.shell import MAX_COMMAND_LENGTH, ShellAnalysis
from safehold.policy.shell import analysis as analysis_module
from safehold.policy.shell.analysis import _analyze_safely
from safehold.policy.shell.assess import _plain_words
from safehold.policy.shell.crosscheck import disagreement
from safehold.policy.shell.parse import plain_heredoc_walk, plain_heredoc_words, plain_words
from tests.strategies import examples

# Programs, builtins and keywords with their own handling, and words of every plain shape.
FIRST = (
    "git", "npm", "ls", "rm", "cat", "sh", "bash", "python3", "sudo", "env", "timeout",
    "nice", "xargs", "eval", "exec", "source", ".", "time", "coproc", "if", "then", "fi",
    "for", "do", "done", "in", "function", "export", "declare", "local", "readonly", "unset",
    "cd", "pushd", "popd", "builtin", "command", "read", "printf", "mapfile", "kill", "nc",
    "/bin/rm", "./x.sh", "-", "--", "X=1", "PATH=/tmp", "=x", "a=b=c", "%1", "^x", "@x",
    "docker", "kubectl", "curl", "tar", "chmod", "dd", "find", "awk", "sed", "git-receive-pack",
)  # fmt: skip
ARGS = (
    "status", "-rf", "-r", "/", "-", "--", "-c", "-e", "-la", "src", ".env", "x=y",
    "of=/dev/sda", "if=/etc/shadow", "PATH=/tmp", "-e/bin/sh", "-1", "-0001", "-9",
    "/etc/passwd", "..", "../..", "a:b", "a,b", "+x", "u+s", "@file", "-d@.env", "%x",
    "^y", "build/out", "-C", "/", "HEAD~1", "test", "config", "--global", "-v", "PATH",
    "BASH_ENV", "-i", "s/a/b/", "install", "push", "apt-get", "-y", "install", "{}",
    "x" * (MAX_COMMAND_LENGTH // 2), "y" * MAX_COMMAND_LENGTH,
)  # fmt: skip
BLANKS = st.sampled_from((" ", "  ", "\t", " \t"))


@st.composite
def plain_texts(draw: st.DrawFn) -> str:
    words = [draw(st.sampled_from(FIRST))]
    words += draw(st.lists(st.sampled_from(ARGS), max_size=6))
    text = draw(st.sampled_from(("", " ", "\t")))
    for i, word in enumerate(words):
        text += (draw(BLANKS) if i else "") + word
    return text + draw(st.sampled_from(("", " ", "\t ")))


def _full_parse(text: str) -> object:
    with mock.patch.object(analysis_module, "plain_words", lambda _text: None):
        return _analyze_safely(text)


@settings(max_examples=examples(400), deadline=None)
@given(plain_texts())
def test_the_shortcut_finds_what_the_full_parse_finds(text: str) -> None:
    assert _analyze_safely(text) == _full_parse(text)


@settings(max_examples=examples(200), deadline=None)
@given(plain_texts())
def test_the_shortcut_wrapped_in_a_shell_string_finds_the_same(text: str) -> None:
    # `bash -c 'git status'` reaches the shortcut one level down, with the outer layers.
    outer = f"timeout 5 bash -c '{text}'"
    assert _analyze_safely(outer) == _full_parse(outer)


@given(st.text(alphabet=st.sampled_from("ab -=$'\"`\\;|&<>(){}[]*?~#!\n\t.x/"), max_size=20))
def test_the_shortcut_takes_only_literal_words(text: str) -> None:
    words = plain_words(text)
    if words is None:
        return
    assert words == tuple(text.split())
    special = set("$'\"`\\;|&<>(){}[]*?~#!\n")
    assert not special & set(text)
    assert "=" not in words[0]


# Dash-led first words: the generator can draw them, but not reliably in one run.
DASH_LED = ["- x=y", "-- x=y", "- rm -rf /", "-x=1 y", "--x", "- -", "-\tx=y z"]


def test_dash_led_first_words_read_as_the_full_parse_reads_them() -> None:
    for text in DASH_LED:
        assert _analyze_safely(text) == _full_parse(text), text


# -- plain words with a quoted heredoc: a second opinion without bashlex -----------------

DELIMITERS = ("EOF", "PY", "_x", "A1", "EOF2", "'EOF", "E-F", "$X", "E F", "")
HEREDOC_WORDS = ("python3", "python", "cat", "node", "-", "'-'", "x", "-c", "a=b", "if", "'a'")
OPERATORS = ("<<", "<<-", "<< ", "<<- ", "<<\t", " <<", "<<<", "< <")
# Output redirections before the heredoc, and near misses (a descriptor, `>|`, `&>`, a
# computed, quoted or second target, a word glued to the operator).
REDIRECTS = ("", "", " > out.txt", " >> log", " >f", " 2> f", "2", " >| f", " > $x", " > a > b",
             " > 'q'", " &> f", " > -")  # fmt: skip


@st.composite
def heredoc_texts(draw: st.DrawFn) -> str:
    """`WORDS <<'DELIM'`, a body, the delimiter line: the shape and its near misses."""
    words = [draw(st.sampled_from(FIRST[:12] + HEREDOC_WORDS))]
    words += draw(st.lists(st.sampled_from(HEREDOC_WORDS + ARGS[:20]), max_size=3))
    delimiter = draw(st.sampled_from(DELIMITERS))
    quote = draw(st.sampled_from(("'", '"', "", "\\")))
    opener = f"{quote}{delimiter}{quote if quote != chr(92) else ''}"
    redirect = draw(st.sampled_from(REDIRECTS))
    operator = draw(st.sampled_from(OPERATORS))
    body = draw(st.sampled_from(("x = 1", "print('$(id)')", "", "`ls`", "\tx", "EOF ", "PY")))
    end = draw(st.sampled_from((delimiter, "\t" + delimiter, delimiter + " ", "X")))
    tail = draw(st.sampled_from(("", "\n", "\n\n", "\nls", " ")))
    return f"{' '.join(words)}{redirect} {operator}{opener}\n{body}\n{end}{tail}"


@settings(max_examples=examples(400), deadline=None)
@given(heredoc_texts())
def test_the_heredoc_shortcut_agrees_with_bashlex_wherever_it_answers(text: str) -> None:
    _agrees_with_bashlex(text)


def _agrees_with_bashlex(text: str) -> None:
    # Where `_plain_words` stands in for bashlex, bashlex (given what it is given) agrees:
    # the shortcut can never turn a disagreement (an ASK in auto mode) into agreement.
    analysis = _analyze_safely(text)
    assert isinstance(analysis, ShellAnalysis)
    if not analysis.scripts:
        return
    script = analysis.scripts[0]
    if _plain_words(script, analysis):
        disagreement.cache_clear()
        found = disagreement(script)
        for _ in range(3):
            if found is None or "_Overrun" not in found:
                break
            # bashlex ran past its time budget on a loaded machine (the worker thread got no
            # CPU): a fact about the machine, not an answer about the text. Ask again.
            disagreement.cache_clear()
            found = disagreement(script)
        assert found is None, script


@given(st.text(alphabet=st.sampled_from("ab2 -='\"`\\$;|&<>(){}\n\tP"), max_size=24))
def test_the_heredoc_shortcut_takes_only_its_shape(text: str) -> None:
    shape = plain_heredoc_words(text)
    if shape is None:
        return
    words, redirects = shape
    head, _, tail = text.partition("\n")
    assert "\n" not in tail.rstrip("\n") and tail.count("\n") <= 1
    before = head[: head.index("<<")]
    assert before[-1] in " \t"  # no descriptor glued to the operator (`2<<`)
    if redirects:
        before, _, target = before.partition(">")
        assert before[-1] in " \t"
        assert redirects in ((">" + target.strip(" \t"),), (">>" + target[1:].strip(" \t"),))
    assert not set(before) & set('$"`\\;|&<>(){}\n')
    assert words == tuple("-" if w == "'-'" else w for w in before.split())
    assert "=" not in words[0] and not words[0].startswith("-")


def test_the_heredoc_shortcut_spares_bashlex_for_the_typical_snippet() -> None:
    text = "python3 - <<'PY'\nimport json\nprint(json.dumps({'a': 1}))\nPY"
    analysis = _analyze_safely(text)
    assert isinstance(analysis, ShellAnalysis)
    assert analysis.scripts == ("python3 '-' <<'PY'\nPY",)
    assert _plain_words(analysis.scripts[0], analysis)
    # Not for an unquoted delimiter (its body is code) nor a second command.
    cat = _analyze_safely("cat > notes.md <<'EOF'\n$(id) `ls`\nEOF")
    assert isinstance(cat, ShellAnalysis)
    assert _plain_words(cat.scripts[0], cat)
    for other in (
        "python3 - <<PY\nx\nPY",
        "python3 - <<'PY'\nx\nPY\nls",
        "cat <<'A' <<'B'\nA\nB",
        "cat 2<<'EOF'\nx\nEOF",
        "cat > $HOME/x <<'EOF'\nx\nEOF",
    ):
        again = _analyze_safely(other)
        assert isinstance(again, ShellAnalysis)
        assert not _plain_words(again.scripts[0], again), other


@st.composite
def shaped_heredoc_texts(draw: st.DrawFn) -> str:
    """Texts of the shortcut's shape itself, redirections included: most take it."""
    words = [draw(st.sampled_from(("cat", "python3", "python", "tee", "node", "sort", "wc")))]
    words += draw(
        st.lists(st.sampled_from(("-", "'-'", "-n", "x.txt", "a=b", "src/app.py")), max_size=3)
    )
    redirect = draw(st.sampled_from(("", " > out.txt", " >> log.md", " >out", " > -", " > a=b")))
    operator = draw(st.sampled_from(("<<", "<< ", "<<-", "<<\t")))
    delimiter = draw(st.sampled_from(("EOF", "PY", "END_1", "x")))
    quote = draw(st.sampled_from(("'", '"')))
    body = draw(st.sampled_from(("$(id) `ls` ${x}", "a\\\nb", "", "'\"", "EOFX")))
    end = ("\t" if operator == "<<-" and draw(st.booleans()) else "") + delimiter
    tail = draw(st.sampled_from(("", "\n")))
    return f"{' '.join(words)}{redirect} {operator}{quote}{delimiter}{quote}\n{body}\n{end}{tail}"


@settings(max_examples=examples(200), deadline=None)
@given(shaped_heredoc_texts())
def test_the_heredoc_shortcut_agrees_with_bashlex_on_its_own_shape(text: str) -> None:
    _agrees_with_bashlex(text)


# -- the analysis of plain words with a quoted heredoc, without the parser ---------------

# Body lines near the scanner's edges: blank or invisible lead-ins, the delimiter at a
# line's start (alone, indented, glued to more text, after `\r` or a Unicode space),
# backslashes before newlines, expansions a quoted body keeps as text, non-ASCII text.
BODY_LINES = (
    "import json", "print('$(id)')", "x = r'\\w+'", "`ls`", "  x = 1", "\tx", "a\\\\",
    "x = '中文'", "$HOME", "# coding: utf-8", "'''", "x\r", "EOFX = 1", "PYX", "END_1",
)  # fmt: skip
ODD_LINES = (
    "", " ", "\t", "EOF", "PY", " PY", "\tEOF", "PY ", "PY\r", "x\\", "\\", "\u3000PY",
    "\u180ePY", "\xa0EOF", "\x85PY", "y = '\udc80'", "nul\x00", "END_1 ",
)  # fmt: skip


def _mostly(draw: st.DrawFn, usual: tuple[str, ...], odd: tuple[str, ...]) -> str:
    """One of `usual`, or now and then one of `odd` (so most texts take the shortcut)."""
    return draw(st.sampled_from(odd if draw(st.integers(0, 19)) == 0 else usual))


@st.composite
def heredoc_bodies(draw: st.DrawFn) -> str:
    """Texts of the heredoc shape, and its near misses in the head, the body and the end."""
    words = [draw(st.sampled_from(("cat", "python3", "python", "tee", "sh", "bash", "node")))]
    words += draw(
        st.lists(st.sampled_from(("-", "'-'", "-n", "--", "x.txt", "a=b", "%x", "-c")), max_size=3)
    )
    redirect = _mostly(draw, ("", " > out.txt", " >> log.md", " >out"), (" > -", " 2> f", " >"))
    operator = _mostly(draw, ("<<", "<< ", "<<\t"), ("<<-", "<<<", "<"))
    delimiter = draw(st.sampled_from(("EOF", "PY", "END_1", "x")))
    quote = _mostly(draw, ("'", '"'), ("", "\\"))
    after = _mostly(draw, ("", " ", "\t"), (" # c", " | sh", "x"))
    count = draw(st.integers(0, 5))
    lines = [_mostly(draw, BODY_LINES, ODD_LINES) for _ in range(count)]
    end = _mostly(draw, (delimiter,), ("\t" + delimiter, delimiter + " ", " " + delimiter))
    tail = _mostly(draw, ("", "\n"), ("\n\n", "\nls", " "))
    head = f"{' '.join(words)}{redirect} {operator}{quote}{delimiter}{quote}{after}"
    return "\n".join((head, *lines, end)) + tail


def _full_heredoc_parse(text: str) -> object:
    with mock.patch.object(analysis_module, "plain_heredoc_walk", lambda *_: None):
        return _analyze_safely(text)


@settings(max_examples=examples(600), deadline=None)
@given(heredoc_bodies())
def test_the_heredoc_walk_finds_what_the_full_parse_finds(text: str) -> None:
    assert _analyze_safely(text) == _full_heredoc_parse(text)


@settings(max_examples=examples(200), deadline=None)
@given(heredoc_bodies())
def test_the_heredoc_walk_in_a_shell_script_finds_the_same(text: str) -> None:
    # `bash -c '…'` reaches the shortcut one level down (`sh <<'EOF'` does as well).
    outer = "timeout 5 bash -c " + shlex.quote(text)
    assert _analyze_safely(outer) == _full_heredoc_parse(outer)


@given(st.text(alphabet=st.sampled_from("ab -'\"\\$<>|\n\t\r\x00EOF"), max_size=30))
def test_the_heredoc_walk_takes_only_its_shape(text: str) -> None:
    shaped = plain_heredoc_walk(text, frozenset({"."}))
    if shaped is None:
        return
    code, walk = shaped
    head, _, rest = text.partition("\n")
    delimiter = head[head.index("<<") + 2 :].strip(" \t")[1:-1]
    lines = rest.split("\n")
    if lines[-1] == "":
        lines.pop()
    # bash's rule: the body ends at the first line that is exactly the delimiter, and the
    # shortcut takes it only as the last line, after a body no line of which starts with it.
    assert lines[-1] == delimiter and len(lines) >= 2
    assert not any(line.strip(" \t\r").startswith(delimiter) for line in lines[:-1])
    assert "\x00" not in text and "\\\n" not in rest
    assert len(walk.commands) == 1
    assert walk.commands[0].redirects[-1].heredoc == "\n".join(lines[:-1]) + "\n"
    assert code.endswith("\n" + delimiter + ("\n" if text.endswith("\n") else ""))


def test_the_heredoc_walk_takes_the_typical_snippet() -> None:
    text = "python3 - <<'PY'\nimport json\nprint(json.dumps({'a': 1}))\nPY\n"
    shaped = plain_heredoc_walk(text, frozenset({"."}))
    assert shaped is not None
    assert shaped[0] == "python3 '-' <<'PY'\nPY\n"
    assert _analyze_safely(text) == _full_heredoc_parse(text)
    for other in (
        "python3 - <<'PY'\nPYTHONPATH = 1\nPY",  # tree-sitter ends the body early
        "python3 - <<'PY'\n  x\nPY",  # tree-sitter leaves the leading blanks out
        "python3 - <<'PY'\nx\\\nPY\nPY",
        "python3 - <<-'PY'\nx\n\tPY",
        "python3 - <<PY\nx\nPY",
        "python3 - <<'PY'\nx\nPY\nls",
    ):
        assert plain_heredoc_walk(other, frozenset({"."})) is None, other
        assert _analyze_safely(other) == _full_heredoc_parse(other), other


# -- scripts of plain words inside a command: bashlex's opinion is known -----------------


@settings(max_examples=examples(400), deadline=None)
@given(plain_texts())
def test_bashlex_agrees_on_every_text_of_plain_words(text: str) -> None:
    # `_conclude` does not ask bashlex about a script of plain words inside a command
    # (`py_compile` of `python3 -m py_compile "$f"`): it would agree.
    if plain_words(text) is None:
        return
    disagreement.cache_clear()
    assert disagreement(text) is None, text


def test_a_plain_script_inside_a_command_is_not_asked_about() -> None:
    text = 'for f in src/*.py; do python3 -m py_compile "$f"; done'
    analysis = _analyze_safely(text)
    assert isinstance(analysis, ShellAnalysis)
    assert analysis.scripts[1:] == ("py_compile",)
    disagreement.cache_clear()
    assert disagreement("py_compile") is None
