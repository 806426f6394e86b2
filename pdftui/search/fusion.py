"""Rank fusion: reciprocal rank fusion (RRF) and the content tie-break.

Pure functions over plain Python values; nothing here touches SQLite, numpy or Textual.

RRF (Cormack, Clarke & Buettcher, "Reciprocal Rank Fusion outperforms Condorcet and
individual Rank Learning Methods", SIGIR 2009): an item's fused score is the sum over the
lists that contain it of ``weight / (k + rank)``, rank 1-based, ``k = 60``. Scores from
different lists (or different per-document BM25 indexes) are never compared, only ranks.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

K = 60
"""The RRF constant of Cormack et al. (2009)."""

PLAIN = 1.0
"""Plain RRF's weight: every list but the semantic arm's fuses at it."""

T = TypeVar("T", bound=Hashable)


def rrf_score(rank: int, k: int = K, weight: float = 1.0) -> float:
    """``weight / (k + rank)`` for a 1-based ``rank``; raises ValueError when rank < 1."""
    if rank < 1:
        raise ValueError(f"ranks are 1-based, got {rank}")
    return weight / (k + rank)


def rrf(lists: Sequence[Sequence[T]], k: int = K,
        weights: Sequence[float] | None = None) -> dict[T, float]:
    """Fuse ranked lists: ``{item: sum of weight_i / (k + rank_i)}`` over the lists holding it.

    ``lists[i]`` is best-first (its first item has rank 1); an item repeated inside one list
    counts at its first (best) position only. ``weights`` defaults to 1.0 per list.
    """
    if weights is None:
        weights = [1.0] * len(lists)
    if len(weights) != len(lists):
        raise ValueError("one weight per list")
    scores: dict[T, float] = {}
    for ranked, w in zip(lists, weights):
        seen: set[T] = set()
        for i, item in enumerate(ranked, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + rrf_score(i, k, w)
    return scores


def order(scores: Mapping[T, float], tiebreak: Mapping[T, Sequence[float] | float] | None = None
          ) -> list[T]:
    """Items by descending score; equal scores by descending ``tiebreak`` value(s).

    Remaining ties keep the mapping's insertion order (stable sort), so the caller decides
    the last resort; pdftui never lets it be the document path.
    """
    def key(item: T):
        tb = tiebreak.get(item, 0.0) if tiebreak is not None else 0.0
        tb_t = tuple(-x for x in tb) if isinstance(tb, (tuple, list)) else (-tb,)
        return (-scores[item],) + tb_t

    return sorted(scores, key=key)


def rarity_coverage(doc_terms: Mapping[Hashable, Iterable[str]]) -> dict[Hashable, float]:
    """Rarity-weighted coverage of each document: ``sum over its distinct matched terms of
    log(1 + N / df)``, with N = number of documents in ``doc_terms`` (documents that matched
    anything) and df = number of those documents containing the term.

    ``doc_terms`` maps a document to the query terms it contains. A document matching more
    of the query, and rarer parts of it, scores higher. Used to order documents whose best
    pages tie at the same per-document rank after stage-1 RRF (the tie-break of the
    reference corpus search; ordering those ties by per-document BM25 instead is worse,
    since BM25 from different per-document indexes is not comparable).
    """
    sets = {d: set(ts) for d, ts in doc_terms.items()}
    n = len(sets)
    df: dict[str, int] = {}
    for ts in sets.values():
        for t in ts:
            df[t] = df.get(t, 0) + 1
    # sorted: a float sum over a set would depend on the process's string hash seed
    return {d: math.fsum(math.log(1.0 + n / df[t]) for t in sorted(ts))
            for d, ts in sets.items()}


def fuse_per_document(per_doc: Mapping[Hashable, Sequence[T]],
                      tiebreak: Mapping[Hashable, Sequence[float] | float] | None = None,
                      item_tiebreak: Mapping[T, Sequence[float] | float] | None = None,
                      k: int = K) -> list[tuple[T, float]]:
    """Stage-1 fusion: one cross-corpus list from per-document ranked lists.

    ``per_doc[doc]`` is that document's own best-first list of items (pages or sections)
    ranked with document-local statistics. Each item gets ``1 / (k + its rank in its own
    document)``, so every document's best item lands in rank band 1, the second-best ones in
    band 2, and so on. Inside a band, items are ordered by their document's ``tiebreak``
    (e.g. :func:`rarity_coverage`), then by ``item_tiebreak`` when given, then by the
    iteration order of ``per_doc`` (callers pass a content-derived order, never paths).

    Returns ``[(item, score)]`` best first.
    """
    entries = []
    for pos, (doc, items) in enumerate(per_doc.items()):
        dtb = tiebreak.get(doc, 0.0) if tiebreak is not None else 0.0
        dtb_t = tuple(dtb) if isinstance(dtb, (tuple, list)) else (dtb,)
        for rank, item in enumerate(items, start=1):
            itb = item_tiebreak.get(item, 0.0) if item_tiebreak is not None else 0.0
            itb_t = tuple(itb) if isinstance(itb, (tuple, list)) else (itb,)
            entries.append((rank, tuple(-x for x in dtb_t), tuple(-x for x in itb_t), pos,
                            item))
    entries.sort(key=lambda e: e[:4])
    return [(e[4], rrf_score(e[0], k)) for e in entries]
