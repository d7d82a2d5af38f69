"""Side by side with another checkout: alternating child processes, one per side a round.

A benchmark that offers `--baseline SRC` runs itself again as `SCRIPT --json --n N`, once
with this checkout's `src` and once with SRC first on `PYTHONPATH`, round after round, so
load on a shared machine hits both columns alike. The child prints its rows as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

__all__ = ["THIS_SRC", "alternate"]

THIS_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def _child(script: str, src: str, n: int) -> list[list[Any]]:
    out = subprocess.run(
        [sys.executable, script, "--json", "--n", str(n)],
        env={**os.environ, "PYTHONPATH": src},
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows: list[list[Any]] = json.loads(out)
    return rows


def alternate(
    script: str, baseline: str, rounds: int, n: int
) -> tuple[list[list[list[Any]]], list[list[list[Any]]]]:
    """(this side's runs, the baseline's runs): each run is the rows one child printed."""
    this: list[list[list[Any]]] = []
    base: list[list[list[Any]]] = []
    for _ in range(rounds):
        this.append(_child(script, THIS_SRC, n))
        base.append(_child(script, baseline, n))
    return this, base
