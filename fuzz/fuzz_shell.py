"""Property fuzz harness for shell analysis and command assessment.

Properties checked on every input (any failure is a crash atheris reports and minimises):

1. totality: `analyze` and `assess_command` never raise, whatever the text;
2. opaque never allows: an opaque analysis is never ALLOW, never skips approval and never
   gets a grant key, in auto or review mode;
3. round trip: a fully static, wrapper-free analysis re-analyses to the same argvs when
   every word is re-quoted with single quotes (or the re-quoted text is opaque).

Inputs are raw text, or a command from tests/corpus/commands.toml with fuzz bytes spliced
in, so mutations start from real commands. Run longer with
`python fuzz/fuzz_shell.py -atheris_runs=200000 -dict=fuzz/shell.dict`; CI runs
`python fuzz/fuzz_shell.py -atheris_runs=3000`.
"""

from __future__ import annotations

import sys
import tempfile
import tomllib
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["safehold"]):
    from safehold.policy.config import SafetyConfig
    from safehold.policy.decision import Verdict
    from safehold.policy.paths import compile_policy
    from safehold.policy.shell import analyze
    from safehold.policy.shell.assess import _read_python, assess_command
    from safehold.policy.shell.sandboxed import SANDBOXED_CODE, runs_sandboxed

_CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "commands.toml"
_SEEDS = [
    case["command"]
    for group in tomllib.loads(_CORPUS.read_text(encoding="utf-8"))["group"]
    for case in group["cases"]
    if "{{LONG}}" not in case["command"]
]
_WORKSPACE = tempfile.mkdtemp(prefix="safehold-fuzz-shell-")
_AUTO = SafetyConfig().with_mode("auto")
_CONFIGS = [
    _AUTO,
    SafetyConfig(),
    _AUTO.replace(sandbox=_AUTO.sandbox.model_copy(update={"mode": "none"})),
]
_POLICIES = [(c, compile_policy(c, _WORKSPACE)) for c in _CONFIGS]


def _text(fdp: atheris.FuzzedDataProvider) -> str:
    if fdp.ConsumeBool():
        return str(fdp.ConsumeUnicodeNoSurrogates(300))
    seed = _SEEDS[fdp.ConsumeIntInRange(0, len(_SEEDS) - 1)]
    at = fdp.ConsumeIntInRange(0, len(seed))
    return seed[:at] + str(fdp.ConsumeUnicodeNoSurrogates(40)) + seed[at:]


def _quote(word: str) -> str:
    # Always single-quote: `shlex.quote("y=")` leaves `y=`, which bash reads as an
    # assignment, not as the command `y=` it was.
    return "'" + word.replace("'", "'\\''") + "'"


def test_one_input(data: bytes) -> None:
    """Check the three properties on one input."""
    fdp = atheris.FuzzedDataProvider(data)
    text = _text(fdp)
    analysis = analyze(text)
    for config, policy in _POLICIES:
        result = assess_command(text, config=config, policy=policy)
        # The layer contract: visible code no analysis reads (SANDBOXED_CODE) may run unasked
        # only inside the sandbox; any other opaque reason, or no sandbox, never allows.
        # Unconfined, inline Python the reader understands is visible code (issue 26): what
        # stays opaque after reading it is what must not run unasked.
        seen = analysis if runs_sandboxed(config) else _read_python(analysis, policy, _WORKSPACE)
        codes = {r.code for r in seen.opaque}
        if seen.opaque and (not runs_sandboxed(config) or codes - SANDBOXED_CODE):
            assert result.verdict is not Verdict.ALLOW, (text, result)
            assert not result.skip_approval, (text, result)
        if analysis.opaque:
            assert result.grant_key is None, (text, result)
    static = all(
        not c.wrappers and not c.assignments and all(w.static for w in c.words)
        for c in analysis.commands
    )
    if analysis.opaque or not static or analysis.redirects or not analysis.commands:
        return
    argvs = [c.argv for c in analysis.commands]
    again = analyze("\n".join(" ".join(_quote(w) for w in a) for a in argvs))
    if not again.opaque:
        assert sorted(c.argv for c in again.commands) == sorted(argvs), (text, argvs)


def main() -> None:
    """Entry point: `python fuzz/fuzz_shell.py [libFuzzer flags]`."""
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
