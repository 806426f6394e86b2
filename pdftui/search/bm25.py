"""The BM25 idf: the always-positive Lucene form, one definition for every caller.

``idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))`` (Robertson-Sparck Jones with Lucene's
``1 +``, so a term held by more than half of the N documents still weighs more than 0).
The ratio is written once (:func:`_odds`); :func:`idf` takes its logarithm on Python
floats, :func:`idf_array` on numpy arrays (each keeps its own rounding of ``log1p``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np


def _odds(n, df):
    """``(N - df + 0.5) / (df + 0.5)``, for numbers or numpy arrays alike."""
    return (n - df + 0.5) / (df + 0.5)


def idf(n: int, df: int | float) -> float:
    """The Lucene idf of a term held by ``df`` of ``n`` documents (units)."""
    return math.log1p(_odds(n, df))


def idfs(n: int, dfs: Iterable[int | float]) -> list[float]:
    """:func:`idf` of each document frequency of ``dfs``, in order."""
    return [idf(n, d) for d in dfs]


def idf_array(n: int | np.ndarray, df: np.ndarray) -> np.ndarray:
    """:func:`idf` element-wise over numpy arrays (float64): ``df`` documents holding the
    term out of ``n`` (a number, or an array as long as ``df``)."""
    return np.log1p(_odds(n, df))
