"""The keyword arm of one query: stage-1 BM25 ranks fused across documents, as a
:class:`.arms.KeywordArm` (with each key's coverage and the keyword evidence)."""

from __future__ import annotations

from . import evidence, keyword
from .arms import KeywordArm
from .config import RankingConfig
from .corpus_view import CorpusView
from .modes import Granularity, Mode
from .plan import Plan, identifier_query

def keyword_arm(c: Plan, kw: keyword.KeywordIndex, view: CorpusView, o: RankingConfig
                ) -> KeywordArm:
    """Stage 1: per-document BM25 ranks fused across documents (:func:`.keyword.
    fuse_arrays`), the first ``depth`` keys (all of them for an identifier query in
    keyword mode, which re-sorts the whole list), each key's coverage of the query's
    rarity mass and the keyword evidence."""
    # a near pair counts as one more term, weight 1 (Metzler & Croft's sequential
    # dependence, unweighted); a window of 0 tokens: no pairs
    near = 1.0 if o.keyword.proximity_window > 0 else 0.0
    ranking = kw.rank(c.terms, c.contents, c.granularity.rows,
                      title_weight=o.keyword.title_weight,
                      proximity=near, window=o.keyword.proximity_window, doc_proximity=near)
    ranking = keyword.restrict(ranking, c.res.keep_rows, c.res.drop_rows)
    scope = keyword.Scope.of(ranking, c.by_doc)
    # a scope the user narrowed to a few documents (--doc, doc:), not a small folder
    narrowed = len(c.by_doc) < sum(d.reason is None for d in view.docs)
    strength = 1.0 if evidence.rare_identifier(ranking, scope) else \
        evidence.keyword_strength(ranking, scope, o.few_docs if narrowed else 0)
    fl = keyword.fuse_arrays(ranking, scope)
    n = len(fl) if c.mode is Mode.KEYWORD and identifier_query(c.q) else c.depth
    rows = fl.row[:n]
    names = [fl.names[i] for i in fl.doc[:n].tolist()]
    second = kw.numbers(c.granularity.rows, ranking.pos[rows]) \
        if c.granularity is Granularity.PAGE else \
        ranking.ids[rows]
    cov = keyword.row_rarity_share(ranking, scope)
    return KeywordArm(list(zip(names, second.tolist())), fl.score[:n].tolist(),
                      cov[rows].tolist(), float(cov.max()) if len(fl) else 0.0,
                      strength, fl, ranking)
