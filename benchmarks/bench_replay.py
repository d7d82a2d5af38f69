"""Replay speed: the 11,619 real agent commands written as audit records by a `Gate`, then
decided again by `safehold.replay.replay` under a tightened policy.

Usage: python benchmarks/bench_replay.py (the corpus is found as bench_agent_commands finds it;
without it, this says so and exits 0). Prints decisions per second for the replay: records
read from the log, each call rebuilt and decided.
"""

from __future__ import annotations

import gzip
import json
import tempfile
import time
from pathlib import Path

from bench_agent_commands import corpus_path

from safehold import SafetyConfig
from safehold.audit import JsonlFileSink
from safehold.policy.approval import Gate
from safehold.policy.calls import ToolCall, ToolKind
from safehold.policy.sessions import SessionPolicies
from safehold.replay import log_files, read_records, replay


def main() -> None:
    corpus = corpus_path()
    if corpus is None:
        print("agent-commands.jsonl.gz not found (set SAFEHOLD_AGENT_COMMANDS); nothing to measure")
        return
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        commands = [json.loads(line)["command"] for line in f if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        log = Path(tmp) / "audit.jsonl"
        policies = SessionPolicies(SafetyConfig(mode="auto"))  # type: ignore[call-arg]
        policies.open("s", str(ws))
        with JsonlFileSink(log) as sink:
            gate = Gate(policies, audit=sink)
            started = time.perf_counter()
            for n, command in enumerate(commands):
                gate.decide("s", ToolCall("bash", {"command": command}, ToolKind.EXECUTE, f"c{n}"))
            recorded = time.perf_counter() - started
        tighter = SafetyConfig.model_validate(
            {"mode": "auto", "command_rules": [{"pattern": "git push", "decision": "deny"}]}
        )
        started = time.perf_counter()
        report = replay(read_records(log_files(log)), tighter)
        took = time.perf_counter() - started
    n = len(report.replayed)
    print(
        f"recorded {len(commands)} decisions in {recorded:.2f} s ({len(commands) / recorded:.0f}/s)"
    )
    print(
        f"replayed {n} decisions in {took:.2f} s: {n / took:.0f} decisions/s "
        f"({len(report.changed('tighter'))} tighter, {len(report.changed('looser'))} looser, "
        f"{len(report.skipped)} skipped)"
    )


if __name__ == "__main__":
    main()
