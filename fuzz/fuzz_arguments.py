"""Property fuzz harness for tool-call arguments (issue 13: calls judged by what they show).

Properties checked on every input (any failure is a crash atheris reports and minimises):

1. totality: `evaluate` never raises and always returns a verdict, whatever the arguments
   (nested mappings and lists, odd strings, numbers, bytes) and whatever the declared kind;
2. a planted secret is never missed: the same arguments with `~/.ssh/id_rsa` (in one of
   its spellings) put under a neutral key at a random place are DENY, or an ASK because
   the arguments were too large to search, for every kind; never ALLOW.

Run longer with `python fuzz/fuzz_arguments.py -atheris_runs=200000`; CI runs
`python fuzz/fuzz_arguments.py -atheris_runs=3000`.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import atheris

with atheris.instrument_imports(include=["safehold"]):
    from safehold.policy.calls import ToolCall, ToolKind
    from safehold.policy.config import SafetyConfig
    from safehold.policy.decision import Verdict
    from safehold.policy.engine import evaluate

_HOME = Path(tempfile.mkdtemp(prefix="safehold-fuzz-home-"))
(_HOME / ".ssh").mkdir()
(_HOME / ".ssh" / "id_rsa").write_text("key")
_WS = _HOME / "ws"
_WS.mkdir()
(_WS / "main.py").write_text("print(1)\n")
os.environ["HOME"] = str(_HOME)

_AUTO = SafetyConfig().with_mode("auto")
_KINDS = list(ToolKind)
_KEYS = ["path", "x", "args", "options", "file", "q", "content", "url", "items", "0", "cmd"]
_NEUTRAL = ["x", "args", "options", "value", "target_ref", "note", "payload"]
_SECRETS = [
    "~/.ssh/id_rsa",
    f"{_HOME}/.ssh/id_rsa",
    "$HOME/.ssh/id_rsa",
    "../.ssh/id_rsa",
    f"file://{_HOME}/.ssh/id_rsa",
    f"see {_HOME}/.ssh/id_rsa now",
]


def _value(fdp: atheris.FuzzedDataProvider, depth: int) -> Any:
    pick = fdp.ConsumeIntInRange(0, 6 if depth < 6 else 3)
    if pick == 0:
        return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 40))
    if pick == 1:
        return fdp.ConsumeInt(4)
    if pick == 2:
        return fdp.ConsumeBool() if fdp.ConsumeBool() else None
    if pick == 3:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 16))
    if pick in (4, 5):
        return {
            fdp.PickValueInList(_KEYS): _value(fdp, depth + 1)
            for _ in range(fdp.ConsumeIntInRange(0, 4))
        }
    return [_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))]


def _plant(value: Any, secret: str, fdp: atheris.FuzzedDataProvider, depth: int = 0) -> Any:
    """`value` with `{neutral_key: secret}` put somewhere inside (a copy)."""
    key = fdp.PickValueInList(_NEUTRAL)
    if isinstance(value, dict) and value and depth < 8 and fdp.ConsumeBool():
        inner = fdp.PickValueInList(sorted(value))
        return {**value, inner: _plant(value[inner], secret, fdp, depth + 1)}
    if isinstance(value, list) and value and depth < 8 and fdp.ConsumeBool():
        i = fdp.ConsumeIntInRange(0, len(value) - 1)
        return [*value[:i], _plant(value[i], secret, fdp, depth + 1), *value[i + 1 :]]
    if isinstance(value, dict):
        return {**value, key: secret}
    return {key: secret, "items": value}


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    kind = fdp.PickValueInList(_KINDS)
    arguments = _value(fdp, 0)
    if not isinstance(arguments, dict):
        arguments = {"items": arguments}
    name = fdp.ConsumeUnicodeNoSurrogates(12) or "tool"
    try:
        decision = evaluate(_AUTO, ToolCall(name, arguments, kind), workspace=str(_WS))
    except Exception as exc:  # totality
        raise AssertionError(f"evaluate raised {exc!r} on {arguments!r}") from exc
    assert decision.verdict in (Verdict.ALLOW, Verdict.ASK, Verdict.DENY)
    secret = fdp.PickValueInList(_SECRETS)
    planted = _plant(arguments, secret, fdp)
    for k in _KINDS:
        got = evaluate(_AUTO, ToolCall(name, planted, k), workspace=str(_WS))
        codes = {r.code for r in got.reasons}
        too_large = got.verdict is Verdict.ASK and "arguments-too-large" in codes
        assert got.verdict is Verdict.DENY or too_large, (k, secret, planted, got)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
