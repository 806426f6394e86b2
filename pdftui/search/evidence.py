"""Weak answers: does any arm hold real evidence for a query, or are the hits just nearest?

Two signals, one per arm, both comparable across queries (neither compares BM25 scores of
different documents):

- keyword: 1 when a listed row holds a rare identifier of the query as typed
  (:func:`rare_identifier`); else the best listed row's share of the query's rarity mass
  held by *rare* terms:
  ``sum idf(t) over the row's terms t held by at most RARE_SHARE of the documents /
  sum idf(t) over all query terms`` (idf as in :func:`.keyword.query_rarity_share`; a term
  found nowhere has the largest idf, so random letters or a typo pull it down). A page
  holding the query's distinctive words scores near 1; one matching only words found
  everywhere ("results", "model") scores 0.
- semantic: the best cosine between the query vector and any embedding unit in scope.
- vocabulary: the share of the query's content words (letters, not function words) that
  some page of the index holds. The embedding model maps any string somewhere, and
  random letters can land as near a page as a question in the reader's own words does:
  a query most of whose words the folder never uses has no semantic evidence, whatever
  its cosine (the figures are in bench/README.md).

A result is strong when the vocabulary share is at least ``KNOWN_MIN`` and the keyword
signal reaches ``KEYWORD_MIN`` or the semantic one ``SEMANTIC_MIN`` (an arm that did not
run gives no evidence); else it is weak. The thresholds are calibrated by bench/quality.py
on the graded dev queries (which should not be weak) and on
tests/fixtures/nonsense_queries.txt (which should), over a grid of the three.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import bm25, keyword
from .keyword import Ranking, Scope, _key_df, distinct, mask_sums

RARE_SHARE = 0.5
KEYWORD_MIN = 0.8
SEMANTIC_MIN = 0.34
KNOWN_MIN = 0.8
KEYWORD_ALONE_MIN = 0.4
"""Keyword mode has no semantic evidence to lean on: its own, lower threshold (the keyword
signal alone separates the dev and nonsense sets less well; bench/quality.py prints it)."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """The strongest evidence of each arm (None: the arm did not run), the share of the
    query's words the folder knows, and the verdict."""

    keyword: float | None
    semantic: float | None
    weak: bool
    known: float = 1.0

    def to_json(self) -> dict:
        """``{"keyword", "semantic", "known"}`` rounded to 4 places (None when the arm did
        not run)."""
        r = lambda v: None if v is None else round(v, 4)  # noqa: E731
        return {"keyword": r(self.keyword), "semantic": r(self.semantic),
                "known": r(self.known)}


def keyword_strength(ranking: Ranking, docs, few: int = 0) -> float:
    """The best row's rare share of the query's idf mass (see the module docstring), in
    [0, 1]; 0.0 when nothing matched. ``docs`` maps the documents searched to contents
    (or is a :class:`.keyword.Scope` of them). Within ``few`` documents or fewer (pass
    it for a scope the user narrowed the folder to) a word's share of the documents says nothing of its rarity
    ("leader" in Raft alone is in every document searched): every term counts, so the
    signal is the share of the query's idf mass the best row holds."""
    n = len(docs.names) if isinstance(docs, Scope) else len(docs)
    keys = ranking.keys
    if not n or not ranking.terms or not len(ranking.ids):
        return 0.0
    sc = docs if isinstance(docs, Scope) else Scope.of(ranking, docs)
    df = _key_df(ranking, sc).tolist()
    idf = bm25.idfs(n, df)
    total = math.fsum(idf[keys.index(str(t))] for t in ranking.terms) or 1.0
    rare = [w if d <= RARE_SHARE * n or n <= few else 0.0 for w, d in zip(idf, df)]
    return float(mask_sums(distinct(ranking.mask), rare).max()) / total


def rare_identifier(ranking: Ranking, docs) -> bool:
    """True when a listed row holds an identifier term of the query (one matched as typed:
    :mod:`pdftui.identifiers`) that at most ``RARE_SHARE`` of the documents searched hold.
    An arXiv id, a DOI or a version string found exactly is an answer, whatever share of
    the query's idf mass its word stems ("1706", "03762") leave unmatched; ``docs`` as for
    :func:`keyword_strength`."""
    n = len(docs.names) if isinstance(docs, Scope) else len(docs)
    if not n or not len(ranking.ids) or not any(t.ident for t in ranking.terms):
        return False
    sc = docs if isinstance(docs, Scope) else Scope.of(ranking, docs)
    df = _key_df(ranking, sc).tolist()
    return any(t.ident and 0 < df[ranking.keys.index(str(t))] <= RARE_SHARE * n
               for t in ranking.terms)


def judge(keyword: float | None, semantic: float | None, known: float = 1.0,
          keyword_min: float = KEYWORD_MIN, semantic_min: float = SEMANTIC_MIN,
          known_min: float = KNOWN_MIN) -> Evidence:
    """The verdict: weak unless the folder knows most of the query's words (``known``, a
    share in [0, 1]) and some arm's evidence reaches its threshold."""
    strong = known >= known_min and (
        (keyword is not None and keyword >= keyword_min) or
        (semantic is not None and semantic >= semantic_min))
    return Evidence(keyword, semantic, not strong, known)


def known_share(q, kw) -> float:
    """The share of the query's content words (letters, not common function words)
    whose stem some page holds; identifiers count when some page holds them; 1.0 for
    a query without such words. ``q`` a parsed :class:`.query.Query`, ``kw`` the
    :class:`.keyword.KeywordIndex`."""
    toks = [t for w in q.loose + q.phrases for t in keyword.tokenize(w, stem=False)
            if t.isalpha() and t not in keyword.STOPWORDS]
    n = len(toks) + len(q.identifiers)
    if not n:
        return 1.0
    known = sum(1 for t in toks if (s := keyword.tokenize(t)) and kw.has_stem(s[0]))
    known += sum(1 for i in q.identifiers if kw.has_ident(i))
    return known / n
