"""The section vector: a section read as a whole by the semantic arm.

A section's vector is the normalised mean of the embedding units inside its own text (the
units :func:`.section_units.unit_map` gives it), so nothing is embedded again: its cosine
with the query is ``sum of the units' cosines / |sum of the unit vectors|`` (the query
vector is unit length; the cosines are the ones the best-unit list already computed). The
norms depend on the index alone and are computed once per :class:`.section_semantic.
SectionUnits` (one pass over its units in blocks). Where the best unit ranks a section by
its one passage closest to the query, the mean ranks it by what the whole section is about:
a section described by what it does ("how the servers agree on a new coordinator") rather
than by words one of its sentences shares with the query.
"""

from __future__ import annotations

import threading

import numpy as np

from .quantized import Int8Matrix
from .section_semantic import DocScope, Keys, SectionUnits, _expand

#: Units dequantised per block when the norms are computed (bounds the memory: this many
#: rows of float32 vectors).
BLOCK_UNITS = 16_384

_memo: list = [None, None, None]   # (SectionUnits, Int8Matrix, norms): the last computed
_lock = threading.Lock()


def sum_norms(su: SectionUnits, matrix: Int8Matrix) -> np.ndarray:
    """``|sum of the unit vectors|`` of each section of ``su`` (float32, one per section),
    the units read from ``matrix`` (the unit matrix ``su.idx`` indexes). Kept for the last
    ``(su, matrix)`` pair, so a warm search computes nothing."""
    with _lock:
        if _memo[0] is su and _memo[1] is matrix:
            return _memo[2]
    n = len(su.sid)
    sums = np.zeros((n, matrix.shape[1]), dtype=np.float32)
    # the section owning each place of idx
    owner = np.repeat(np.arange(n), np.diff(np.append(su.seg, len(su.idx))))
    for a in range(0, len(su.idx), BLOCK_UNITS):
        rows = su.idx[a:a + BLOCK_UNITS]
        vec = (matrix.codes[rows].astype(np.float32) - 128.0) * matrix.scales[rows, None]
        _add_rows(sums, owner[a:a + BLOCK_UNITS], vec)
    norms = np.linalg.norm(sums, axis=1).astype(np.float32)
    with _lock:
        _memo[:] = [su, matrix, norms]
    return norms


def _add_rows(sums: np.ndarray, owner: np.ndarray, vec: np.ndarray) -> None:
    """``sums[owner[i]] += vec[i]`` for every i; ``owner`` is sorted (one run per section)."""
    starts = np.flatnonzero(np.concatenate([[True], owner[1:] != owner[:-1]]))
    sums[owner[starts]] += np.add.reduceat(vec, starts, axis=0)


def mean_cosines(su: SectionUnits, sims: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """Each section's cosine with the query through its normalised mean vector: the sum
    of its units' cosines ``sims`` (every unit's, as the unit matrix orders them) over
    ``norms`` (:func:`sum_norms`); 0 for a section whose units sum to nothing."""
    total = np.add.reduceat(sims[su.idx].astype(np.float32), su.seg)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(norms > 0, total / norms, 0.0).astype(np.float32)


def vector_list(su: SectionUnits, sims: np.ndarray, norms: np.ndarray, scope: DocScope,
                ok: np.ndarray | None) -> Keys:
    """Sections of the scope by the cosine of their section vector (:func:`mean_cosines`),
    ties as :func:`.section_semantic.unit_list` breaks them (the deeper, then earlier,
    section, then the scope's content order); ``ok`` (boolean by section, or None) leaves
    sections out."""
    if not len(su.sid):
        z = np.zeros(0, dtype=np.int64)
        return Keys(z, z)
    score = mean_cosines(su, sims, norms)
    keep = scope.holds(su.content)
    if ok is not None:
        keep &= ok
    sel = np.flatnonzero(keep)
    order = sel[np.lexsort((sel, scope.pos[su.content[sel]], su.start[sel], -su.level[sel],
                            -score[sel]))]
    return _expand(su.content[order], su.sid[order], scope)
