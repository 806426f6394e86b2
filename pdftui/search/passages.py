"""A section's best passage: how much of the query two neighbouring blocks of it hold.

A section's keyword score (BM25 over its own text) counts the query's words wherever they
stand in it; a reader's description of what a section does ("how the servers agree on a
new one after the old one dies") shares few words with it, and the section that answers
tends to hold them together, in one paragraph or two, where a neighbour holds the same
words scattered. The hybrid section search reorders the first sections of each document
by this share (:func:`.run.add_passages`; the figures are in bench/README.md).

Blocks are the extractor's text blocks in reading order, each given as the set of the
query's index stems it holds (:func:`.keyword.tokenize_many` with ``only``); weights are
the query terms' rarity (:func:`.keyword.term_weights`). Nothing here touches SQLite.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .keyword import Term

#: Blocks in one passage: a paragraph and the next (a column or page break splits one).
WINDOW = 2


def held(stems: set[str], terms: Sequence[Term]) -> set[str]:
    """The query terms (``str(term)``) that a block holding index stems ``stems`` holds."""
    return {str(t) for t in terms if any(t.matches(s) for s in stems)}


def best_share(blocks: Sequence[set[str]], terms: Sequence[Term],
               weights: Mapping[str, float], window: int = WINDOW,
               given: frozenset[str] = frozenset()) -> float:
    """The largest share, over every run of ``window`` consecutive ``blocks`` (each the
    set of index stems it holds), of the query's rarity mass the run holds: the sum of
    ``weights[str(term)]`` over the terms it holds / the sum over all ``terms``; in [0, 1],
    0 for no blocks or no weight. Terms in ``given`` (``str(term)``: the name of a
    document the query names, which its sections need not repeat) count as held by
    every block."""
    total = math.fsum(weights.get(str(t), 0.0) for t in terms)
    if not blocks or total <= 0:
        return 0.0
    per = [held(b, terms) | given for b in blocks]
    best = 0.0
    for i in range(max(1, len(per) - window + 1)):
        got = set().union(*per[i:i + window])
        best = max(best, math.fsum(weights.get(t, 0.0) for t in got))
    return best / total
