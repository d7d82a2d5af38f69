"""Bounded memo tables for the pure steps of a decision (see docs/decisions.md, "Speed").

A memo is an `OrderedDict` used first-in, first-out: once it holds `size` entries, storing
one more drops the oldest (`popitem(last=False)`, constant time; a plain dict would scan
past the holes its deletions leave). Dropping one at a time keeps the number of live
objects steady, so a run of first-time decisions does not keep waking the garbage collector.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

__all__ = ["remember"]

K = TypeVar("K")
V = TypeVar("V")


def remember(memo: OrderedDict[K, V], key: K, value: V, size: int) -> None:
    """Store `value` under `key`, first dropping the oldest entry when `memo` is full."""
    if len(memo) >= size:
        # try/except, not `contextlib.suppress`: this runs on every miss of every memo,
        # and a context manager costs a call and an exit frame more.
        try:  # noqa: SIM105
            memo.popitem(last=False)
        except KeyError:  # another thread may have emptied it first
            pass
    memo[key] = value
