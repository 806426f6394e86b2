"""The BM25 idf: the always-positive Lucene form, one definition for every caller.

``idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))`` (Robertson-Sparck Jones with Lucene's
``1 +``, so a term held by more than half of the N documents still weighs more than 0).
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def idf(n: int, df: int | float) -> float:
    """The Lucene idf of a term held by ``df`` of ``n`` documents (units)."""
    return math.log1p((n - df + 0.5) / (df + 0.5))


def idfs(n: int, dfs: Iterable[int | float]) -> list[float]:
    """:func:`idf` of each document frequency of ``dfs``, in order."""
    return [idf(n, d) for d in dfs]
