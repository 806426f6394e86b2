"""A section's best passage: how much of the query two neighbouring blocks of it hold.

A section's keyword score (BM25 over its own text) counts the query's words wherever they
stand in it; a reader's description of what a section does ("how the servers agree on a
new one after the old one dies") shares few words with it, and the section that answers
tends to hold them together, in one paragraph or two, where a neighbour holds the same
words scattered. The hybrid section search reorders the first sections of each document
by this share (:func:`.run.add_passages`; the figures are in bench/README.md).

Blocks are the extractor's text blocks in reading order, each given as the set of the
query's terms it holds (:func:`holder` over the index stems :func:`.keyword.tokenize_many`
finds with ``only``); weights are the query terms' rarity (:func:`.keyword.term_weights`).
Nothing here touches SQLite.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .keyword import Term

#: Blocks in one passage: a paragraph and the next (a column or page break splits one).
WINDOW = 2


def held(stems: set[str], terms: Sequence[Term]) -> set[str]:
    """The query terms (``str(term)``) that a block holding index stems ``stems`` holds."""
    return {str(t) for t in terms if any(t.matches(x) for x in stems)}


def holder(terms: Sequence[Term]):
    """``stems -> frozenset of str(term)``: :func:`held` for many blocks of one query (an
    exact term looked up, a prefix term matched), memoised by the block's stems."""
    exact: dict[str, set[str]] = {}
    for t in terms:
        if not t.prefix:   # the word, and its closed-up spellings (Term.joined)
            for x in (t.text, *t.joined):
                exact.setdefault(x, set()).add(str(t))
    prefixed = [t for t in terms if t.prefix]
    memo: dict[frozenset[str], frozenset[str]] = {}

    def got(stems: set[str]) -> frozenset[str]:
        key = frozenset(stems)
        out = memo.get(key)
        if out is None:
            out = memo[key] = frozenset(
                {s for x in key if x in exact for s in exact[x]} |
                {str(t) for t in prefixed if any(t.matches(x) for x in key)})
        return out
    return got


def best_share(blocks: Sequence[frozenset[str]], terms: Sequence[Term],
               weights: Mapping[str, float], window: int = WINDOW,
               given: frozenset[str] = frozenset()) -> float:
    """The largest share, over every run of ``window`` consecutive ``blocks`` (each the
    set of the query terms it holds, ``str(term)``: :func:`held`), of the query's rarity
    mass the run holds: the sum of ``weights[str(term)]`` over the terms it holds / the
    sum over all ``terms``; in [0, 1], 0 for no blocks or no weight. Terms in ``given``
    (the name of a document the query names, which its sections need not repeat) count
    as held by every block."""
    total = math.fsum(weights.get(str(t), 0.0) for t in terms)
    if not blocks or total <= 0:
        return 0.0
    best = 0.0
    for i in range(max(1, len(blocks) - window + 1)):
        got = given.union(*blocks[i:i + window])
        if got:
            best = max(best, math.fsum(weights.get(t, 0.0) for t in got))
    return best / total
