"""The keyword arm of one query: stage-1 BM25 ranks fused across documents, as a
:class:`.arms.KeywordArm` (with each key's coverage, the keyword evidence, the head-field
list and the documents the query names)."""

from __future__ import annotations

from . import evidence, keyword
from .arms import KeywordArm
from .config import RankingConfig
from .corpus_view import CorpusView
from .head_field import head_list, head_masks, held_df
from .modes import Granularity, Mode
from .plan import Plan, identifier_query

#: A query term held by at most this many of the texts searched may name a document,
#: whatever ``sections.name_df`` allows (a name is held by its own document and by the few
#: citing it; in a small folder every share is large).
NAME_MIN_DOCS = 3


def keyword_arm(c: Plan, kw: keyword.KeywordIndex, view: CorpusView, o: RankingConfig
                ) -> KeywordArm:
    """Stage 1: per-document BM25 ranks fused across documents (:func:`.keyword.
    fuse_arrays`), the first ``depth`` keys (all of them for an identifier query in
    keyword mode, which re-sorts the whole list), each key's coverage of the query's
    rarity mass, the keyword evidence and the head-field list."""
    ranking = kw.rank(c.terms, c.contents, c.granularity.rows,
                      proximity=o.keyword.proximity, window=o.keyword.proximity_window,
                      doc_proximity=1.0 if o.lists.doc_proximity else 0.0)
    ranking = keyword.restrict(ranking, c.res.keep_rows, c.res.drop_rows)
    scope = keyword.Scope.of(ranking, c.by_doc)
    # a scope the user narrowed to a few documents (--doc, doc:), not a small folder
    narrowed = len(c.by_doc) < sum(d.reason is None for d in view.docs)
    strength = 1.0 if evidence.rare_identifier(ranking, scope) else \
        evidence.keyword_strength(ranking, scope, o.few_docs if narrowed else 0)
    fl = keyword.fuse_arrays(ranking, scope,
                            doc_weight=1.0 if o.lists.document_order else 0.0)
    n = len(fl) if c.mode is Mode.KEYWORD and identifier_query(c.q) else c.depth
    rows = fl.row[:n]
    names = [fl.names[i] for i in fl.doc[:n].tolist()]
    second = kw.numbers(c.granularity.rows, ranking.pos[rows]) \
        if c.granularity is Granularity.PAGE else \
        ranking.ids[rows]
    # computed for sections too: the adaptive semantic page score reads it
    named, shares = named_documents(ranking, c, view, o) \
        if c.granularity is Granularity.SECTION and o.lists.named_docs and not c.few \
        else ({}, {})
    extra = head_masks(ranking, named) if named else None
    cov = keyword.row_rarity_share(ranking, scope, extra)
    head = [x for x in head_list(ranking, c.by_doc, c.terms, view.heads,
                                  o.field_share)
            if c.res.page_ok(c.by_doc[x[0][0]], x[0][1])] \
        if c.granularity is Granularity.PAGE and o.lists.head_field and not c.few else []
    return KeywordArm(list(zip(names, second.tolist())), fl.score[:n].tolist(),
                      cov[rows].tolist(), float(cov.max()) if len(fl) else 0.0,
                      strength, fl, ranking, head, named, shares)


def named_documents(ranking, c: Plan, view: CorpusView, o: RankingConfig
                    ) -> tuple[dict[int, frozenset[str]], dict[str, float]]:
    """``({content: the query terms its head holds}, {doc: its head's share of the
    query's rarity mass})`` of the documents the query names: their head (title,
    byline) holds at least ``name_share`` of the query's rarity mass, but
    not every query term (a head holding them all summarises the document; it does not
    name it), and one of the terms it holds is a name: at most ``name_df`` of the texts
    searched hold it (or ``NAME_MIN_DOCS``). "paxos" in "how does paxos choose a
    value" names Paxos Made Simple; its sections' text need not repeat it. "llama"
    names LLaMA in "what corpora and mixture proportions LLaMA was pretrained on"
    though its four other words are rarer: 9 of 105 texts say "llama". "put" and
    "slide" in seminar's opening do not name it for "put two columns side by side on
    one slide": most texts say "put", 14 of 105 "slide"."""
    listed = head_list(ranking, c.by_doc, c.terms, view.heads, o.sections.name_share)
    if not listed:
        return {}, {}
    heads = view.heads.terms({c.by_doc[d] for (d, _p), _s in listed}, c.terms)
    every = {str(t) for t in c.terms}
    named = {cid: held for cid, held in heads.items() if held and not every <= held}
    if o.sections.name_df < 1:
        # a name is a word few of the texts searched hold ("mapreduce", "paxos"; not
        # "put" or "slide" of seminar's byline, nor "data" of MapReduce's title)
        most = max(NAME_MIN_DOCS, o.sections.name_df * len(c.by_doc))
        rare = {k for k, d in held_df(ranking).items() if d <= most}
        names = {t for held in named.values() for t in held if t in rare}
        named = {cid: held for cid, held in named.items() if held & names}
    return named, {d: share for (d, _p), share in listed if c.by_doc[d] in named}
