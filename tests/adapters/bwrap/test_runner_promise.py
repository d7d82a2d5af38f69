"""The runner keeps the policy's promise: a decision for the sandbox never runs without it.

A `confined` ALLOW holds only because safehold's sandbox confines the command. Given that
decision, `run_sandboxed` refuses to run the command unconfined (`sandbox.mode = "none"`)
and never falls back when bwrap is missing; it refuses a decision that is not an ALLOW.
The commands only create a marker file, so a run that should not happen is visible.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from safehold import SafetyConfig, ToolCall, ToolKind
from safehold.adapters.bwrap import run_sandboxed, run_sandboxed_sync
from safehold.errors import SandboxError, SandboxUnavailable
from safehold.policy.decision import Decision, Verdict
from safehold.policy.engine import evaluate
from tests.adapters.bwrap.conftest import make_config

# Inline code: auto mode allows it only in the sandbox. It creates `marker` in the cwd.
INLINE = 'python3 -c \'import subprocess; open("marker", "w").close()\''


def confined_allow(config: SafetyConfig, ws: Path) -> Decision:
    call = ToolCall("bash", {"command": INLINE}, ToolKind.EXECUTE)
    decision = evaluate(config.with_mode("auto"), call, workspace=str(ws), runner="sandbox")
    assert decision.verdict is Verdict.ALLOW and decision.confined
    return decision


def test_a_confined_allow_is_not_run_without_the_sandbox(ws: Path) -> None:
    decision = confined_allow(make_config(), ws)
    bare = make_config(mode="none")
    with pytest.raises(SandboxError, match="allowed only because safehold's sandbox confines"):
        run_sandboxed_sync(INLINE, cwd=str(ws), config=bare, decision=decision)
    assert not (ws / "marker").exists()


async def test_the_async_runner_refuses_it_too(ws: Path) -> None:
    decision = confined_allow(make_config(), ws)
    with pytest.raises(SandboxError, match=r"sandbox\.mode is `none`"):
        await run_sandboxed(INLINE, cwd=str(ws), config=make_config(mode="none"), decision=decision)
    assert not (ws / "marker").exists()


def test_a_missing_bwrap_never_falls_back(ws: Path) -> None:
    config = make_config(bwrap_path=str(ws / "no-such-bwrap"))
    decision = confined_allow(config, ws)
    with pytest.raises(SandboxUnavailable, match="bwrap_path"):
        run_sandboxed_sync(INLINE, cwd=str(ws), config=config, decision=decision)
    assert not (ws / "marker").exists()


@pytest.mark.parametrize("verdict", [Verdict.ASK, Verdict.DENY])
def test_a_decision_that_is_not_an_allow_is_not_run(ws: Path, verdict: Verdict) -> None:
    with pytest.raises(ValueError, match=f"the decision is {verdict.value}, not allow"):
        run_sandboxed_sync(
            INLINE, cwd=str(ws), config=make_config(mode="none"), decision=Decision(verdict)
        )
    assert not (ws / "marker").exists()


def test_a_plain_allow_may_run_without_the_sandbox(ws: Path) -> None:
    """An ALLOW the host would give too promises nothing about confinement."""
    result = run_sandboxed_sync(
        "touch marker",
        cwd=str(ws),
        config=make_config(mode="none"),
        decision=Decision(Verdict.ALLOW),
    )
    assert result.exit_code == 0 and not result.sandboxed
    assert (ws / "marker").exists()


@pytest.mark.sandbox
def test_a_confined_allow_runs_in_the_sandbox(ws: Path) -> None:
    config = make_config()
    result = asyncio.run(
        run_sandboxed(INLINE, cwd=str(ws), config=config, decision=confined_allow(config, ws))
    )
    assert result.exit_code == 0 and result.sandboxed
    assert (ws / "marker").exists()
