"""Bounded memo tables for the pure steps of a decision (see docs/decisions.md, "Speed").

A memo is a plain dict used first-in, first-out: once it holds `size` entries, storing one
more drops the oldest. Dropping only one keeps the number of live objects steady, so a run
of first-time decisions does not keep waking the garbage collector.
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["remember"]

K = TypeVar("K")
V = TypeVar("V")


def remember(memo: dict[K, V], key: K, value: V, size: int) -> None:
    """Store `value` under `key`, first dropping the oldest entry when `memo` is full."""
    if len(memo) >= size:
        try:
            del memo[next(iter(memo))]
        except (KeyError, RuntimeError, StopIteration):
            # Another thread changed the memo first; it stays bounded by the check below.
            if len(memo) >= 2 * size:
                memo.clear()
    memo[key] = value
