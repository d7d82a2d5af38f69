"""Properties of shell-command assessment, named like theorems.

Verdicts are ordered DENY > ASK > ALLOW (`Verdict.strictness`). Commands are drawn from a
vocabulary of complete simple commands (benign and dangerous), so `a OP b` always means
"a, then b" to bash.
"""

from __future__ import annotations

import shlex
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safehold.policy.config import SafetyConfig
from safehold.policy.decision import Verdict
from safehold.policy.paths import CompiledPolicy, compile_policy
from safehold.policy.shell import MAX_COMMAND_LENGTH, ShellAnalysis, analyze
from safehold.policy.shell.assess import assess_command

AUTO = SafetyConfig().with_mode("auto")
REVIEW = SafetyConfig()

PROGRAMS = (
    "git", "ls", "rm", "cat", "curl", "sh", "bash", "echo", "shutdown", "mkfs.ext4", "dd",
    "chmod", "nc", "python3", "npm", "grep", "cp", "/bin/rm", "history",
)  # fmt: skip
ARGS = (
    "status", "-rf", "-r", "/", "~", "~/.ssh/id_rsa", ".env", "-R", "777", "of=/dev/sda",
    "-e", "/bin/sh", "x", "src", "-c", "test", "-la", "$HOME", '"$X"', "*.py", "shutdown",
    "'a b'", "--force", "--", "/usr/include",
)  # fmt: skip
REDIRECTS = ("", "", "", " > out.txt", " > ~/.bashrc", " > /dev/sda", " < .env", " 2>&1")
OPERATORS = (" && ", " || ", "; ", " | ", "\n", " & ")
WRAPPERS = ("nice ", "timeout 5 ", "nohup ", "time ", "command ", "env ", "sudo ", "xargs ")


@st.composite
def simple_commands(draw: st.DrawFn) -> str:
    """One complete simple command over the vocabulary, maybe with a redirection."""
    words = [draw(st.sampled_from(PROGRAMS))]
    words += draw(st.lists(st.sampled_from(ARGS), max_size=4))
    return " ".join(words) + draw(st.sampled_from(REDIRECTS))


def commands() -> st.SearchStrategy[str]:
    """A simple command, or a pipeline / list of them."""
    return st.one_of(
        simple_commands(),
        st.tuples(simple_commands(), st.sampled_from(OPERATORS), simple_commands()).map("".join),
    )


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> CompiledPolicy:
    ws = tmp_path_factory.mktemp("ws")
    (ws / "src").mkdir()
    (ws / ".env").write_text("x")
    return compile_policy(AUTO, str(ws))


def verdict(command: object, policy: CompiledPolicy, config: SafetyConfig = AUTO) -> Verdict:
    review = compile_policy(config, policy.workspace)
    return assess_command(command, config=config, policy=review).verdict


def at_least(stricter: Verdict, than: Verdict) -> bool:
    return stricter.strictness >= than.strictness


@given(simple_commands(), st.sampled_from(OPERATORS), simple_commands())
def test_compound_is_at_least_as_strict_as_each_part(
    policy: CompiledPolicy, a: str, op: str, b: str
) -> None:
    whole = verdict(a + op + b, policy)
    assert at_least(whole, verdict(a, policy)), (a, op, b)
    assert at_least(whole, verdict(b, policy)), (a, op, b)


@given(commands(), st.sampled_from(("subst", "subshell", "bash-c", "env", "group")))
def test_nesting_never_loosens_a_verdict(policy: CompiledPolicy, c: str, how: str) -> None:
    wrapped = {
        "subst": f"echo $({c})",
        "subshell": f"( {c} )",
        "bash-c": f"bash -c {shlex.quote(c)}",
        "env": f"env X=1 {c}",
        "group": f"{{ {c}; }}",
    }[how]
    assert at_least(verdict(wrapped, policy), verdict(c, policy)), wrapped


@given(simple_commands(), st.sampled_from(WRAPPERS))
def test_deny_survives_any_wrapper(policy: CompiledPolicy, c: str, wrapper: str) -> None:
    if verdict(c, policy) is Verdict.DENY:
        assert verdict(wrapper + c, policy) is Verdict.DENY, wrapper + c


_QUOTABLE = [w for w in (*PROGRAMS, *ARGS) if not set(w) & set("~*$'\"{ ")]


@st.composite
def requoted(draw: st.DrawFn) -> tuple[str, str]:
    """A command of static words and the same command with one word quoted differently."""
    words = [draw(st.sampled_from(PROGRAMS[:-1]))]
    words += draw(st.lists(st.sampled_from(_QUOTABLE), max_size=4))
    i = draw(st.integers(0, len(words) - 1))
    word = words[i]
    style = draw(st.sampled_from(("shlex", "single", "double", "backslash")))
    if style == "shlex":
        quoted = shlex.quote(word) if shlex.quote(word) != word else f"'{word}'"
    elif style == "single":
        quoted = f"'{word}'"
    elif style == "double":
        quoted = f'"{word}"'
    else:
        k = draw(st.integers(0, len(word) - 1))
        quoted = word[:k] + "\\" + word[k:]
    other = [*words[:i], quoted, *words[i + 1 :]]
    return " ".join(words), " ".join(other)


@given(requoted(), st.sampled_from((AUTO, REVIEW)))
def test_requoting_a_static_word_never_changes_the_verdict(
    policy: CompiledPolicy, pair: tuple[str, str], config: SafetyConfig
) -> None:
    plain, quoted = pair
    assert [c.argv for c in analyze(plain).commands] == [c.argv for c in analyze(quoted).commands]
    assert verdict(plain, policy, config) is verdict(quoted, policy, config), pair


SHELLISH = st.text(
    alphabet=st.sampled_from([*"ab rm-/~.$(){}[]<>|&;'\"`\\\n\t#*?=!%:@,^", "\x0b", "é"]),
    max_size=300,
)


@settings(deadline=None)
@given(st.one_of(SHELLISH, st.text(max_size=300)))
def test_opaque_never_allows(policy: CompiledPolicy, text: str) -> None:
    analysis = analyze(text)
    assert isinstance(analysis, ShellAnalysis)
    for config in (AUTO, REVIEW):
        result = assess_command(
            text, config=config, policy=compile_policy(config, policy.workspace)
        )
        if analysis.opaque:
            assert result.verdict is not Verdict.ALLOW
            assert not result.skip_approval
            assert result.grant_key is None


@contextmanager
def fails_if_it_hangs(seconds: int) -> Iterator[None]:
    """Raise in the test after `seconds` of wall time: a hang detector, not a measurement."""

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s: treated as a hang")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# Each example is a few tens of milliseconds; one that runs for a minute has hung. The guard
# is per example, so the test scales with the hypothesis profile.
@settings(deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("a $(`'\"\\|;&{}<>~\n")), min_size=1, max_size=200),
    st.integers(MAX_COMMAND_LENGTH - 200, MAX_COMMAND_LENGTH),
)
def test_analysis_is_total_and_bounded_up_to_the_length_limit(chunk: str, size: int) -> None:
    text = (chunk * (size // len(chunk) + 1))[:size]
    with fails_if_it_hangs(60):
        assert isinstance(analyze(text), ShellAnalysis)


@given(st.from_type(object) | st.lists(st.one_of(st.text(), st.integers(), st.none())))
def test_analysis_never_raises_on_non_strings(thing: object) -> None:
    result = analyze(thing)  # type: ignore[arg-type]
    assert isinstance(result, ShellAnalysis)


def test_the_vocabulary_reaches_every_verdict(policy: CompiledPolicy) -> None:
    # Guards the properties above against a vocabulary that only ever asks.
    seen = {verdict(c, policy) for c in ("git status", "rm -rf /", "sudo ls", "ls src")}
    assert seen == {Verdict.ALLOW, Verdict.ASK, Verdict.DENY}


def test_tree_fixture_is_used(policy: CompiledPolicy) -> None:
    assert Path(policy.workspace, ".env").exists()
    assert verdict("cat .env", policy) is Verdict.DENY


def _texts_match_words(analysis: ShellAnalysis) -> bool:
    return all(
        cmd.argv == tuple(w.text for w in cmd.words)
        and cmd.wrappers == tuple(tuple(w.text for w in layer) for layer in cmd.wrapper_words)
        for cmd in analysis.commands
    )


@given(commands(), st.sampled_from(("", "for f in a ~/.ssh; do ", "find . -exec ", "xargs ")))
def test_a_commands_texts_are_its_words_texts(c: str, around: str) -> None:
    """`argv` and `wrappers` spell `words` and `wrapper_words` exactly: the checks that
    look for `/tmp`, `..` or `://` in a command read the joined texts instead of each word
    (`assess._same_on_host`, `findings._reads_links`, `check_code._check_spelled_urls`)."""
    text = {"": c, "find . -exec ": f"find . -exec {c} {{}} +", "xargs ": f"ls | xargs {c}"}.get(
        around, f"{around}{c.replace('x', chr(34) + '$f' + chr(34))}; done"
    )
    assert _texts_match_words(analyze(text))


def test_every_corpus_commands_texts_are_its_words_texts() -> None:
    import tomllib

    corpus = Path(__file__).resolve().parents[1] / "corpus"
    seen = 0
    for path in sorted(corpus.glob("*.toml")):
        for group in tomllib.loads(path.read_text(encoding="utf-8"))["group"]:
            for case in group["cases"]:
                text = case["command"].replace("{{LONG}}", "x")
                assert _texts_match_words(analyze(text)), text
                seen += 1
    assert seen > 1000


@given(st.text(alphabet="/a.~ ", max_size=8), st.text(alphabet="/a.~ ", max_size=8))
def test_spellings_join_as_posixpath_does(directory: str, path: str) -> None:
    """`findings._spellings` joins without `posixpath.join`'s checks, to the same text."""
    import posixpath

    from safehold.policy.shell.findings import _spellings

    expected = [path] if path.startswith(("/", "~")) else [posixpath.join(directory, path)]
    assert _spellings(path, [directory, None]) == expected
