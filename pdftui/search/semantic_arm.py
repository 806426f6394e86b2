"""The semantic arm of one query: pages by cosine, or sections by their units and head
units, as a :class:`.arms.SemanticArm`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import naming, restrict, section_semantic
from .fusion import PLAIN
from .arms import KeywordArm, SemanticArm
from .config import RankingConfig
from .corpus_view import CorpusView
from .modes import Granularity, Mode
from .plan import Plan
from .semantic import VectorMatrix


def semantic_arm(c: Plan, kw: KeywordArm, m: VectorMatrix, qv: np.ndarray,
                 embed: Callable[[str], np.ndarray], view: CorpusView, o: RankingConfig
                 ) -> SemanticArm:
    """Pages by cosine (``(1 - A) x best unit + A x first unit``, A =
    1 - the keyword arm's best coverage in hybrid mode,
    ``semantic.first_unit`` in semantic mode); hybrid pages of a folder
    plus ``semantic.doc_context`` x the best unit of the page's document), or sections by
    their units and head units. ``qv`` is the query vector, ``embed`` embeds the query
    without a document's name (:func:`unnamed_queries`)."""
    docs_of = c.docs_of
    # the less of the query's rarity mass any page holds (a described,
    # vocabulary-mismatched query), the more the page's head counts;
    # inside one document a page head is no better than its body
    # semantic mode: a fixed A (without it, held-out lookups lost .030 MRR in that mode)
    qc = kw.best_rarity_share if c.mode is Mode.HYBRID and not c.few else 1.0
    a = (1.0 - qc if c.mode is Mode.HYBRID else o.semantic.first_unit) \
        if o.lists.page_head else 0.0
    # hybrid pages of a folder: a page's document context (its best unit) counts too
    dw = o.semantic.doc_context \
        if c.mode is Mode.HYBRID and c.granularity is Granularity.PAGE and not c.few else 0.0
    ranked = m.rank_pages(qv, c.contents, round(a, 4), dw)   # A to 4 places, as measured
    if c.res.active and len(ranked):
        ranked = ranked.restrict(c.res.page_mask(m.page_content, m.page_number))
    # the best cosine of any unit on a page searched (and admitted)
    arm = SemanticArm(first_unit_weight=a, best=ranked.best_cosine(), docs_of=docs_of)
    if c.granularity is Granularity.PAGE:
        # hybrid fuses the first ``depth`` pages only; ranks and best units of shown
        # hits beyond them are looked up when the hits are made
        arm.pages, arm.cut = ranked, c.depth < len(ranked)
        arm.keys = [(d, page) for cid, page in ranked.keys(c.depth)
                    for d in docs_of.get(cid, ())]
    else:
        alt = unnamed_queries(c, kw.named, embed) if kw.named else []
        section_lists(m, qv, view, docs_of, c.res, c.depth, arm, o, alt)
    return arm


def unnamed_queries(c: Plan, named: dict[int, frozenset[str]],
                    embed: Callable[[str], np.ndarray]
                    ) -> list[tuple[np.ndarray, np.ndarray]]:
    """``[(content ids, query vector)]``: for the documents the query names, the query
    without the words naming them (:func:`.naming.without_names`), embedded (one
    query embedding per distinct set of naming words); none when nothing is left."""
    groups: dict[frozenset[str], list[int]] = {}
    for cid, held in named.items():
        groups.setdefault(held, []).append(cid)
    out = []
    for held, cids in groups.items():
        rest = naming.without_names(c.q.semantic_text, held)
        if rest is not None:
            out.append((np.array(sorted(cids), dtype=np.int64), embed(rest)))
    return out


def section_lists(m: VectorMatrix, qv: np.ndarray, view: CorpusView, docs_of: dict,
                  res: restrict.Restriction, depth: int, arm: SemanticArm, o: RankingConfig,
                  alt=()) -> None:
    """Fill ``arm`` with the semantic section arm: it has two lists, units inside the
    section and the section's head unit; hybrid fuses both (``arm.units``,
    ``arm.heads``, their first ``depth`` keys) with the keyword list; the arm's own
    order (``arm.keys``: its rank column and semantic mode) is their weighted RRF,
    kept whole as arrays in ``arm.sections`` for the ranks of shown hits. ``alt``
    (:func:`unnamed_queries`): the units and head units of those contents are read
    against that query vector instead of ``qv`` (one product over their rows)."""
    scope = section_semantic.DocScope.of(docs_of)
    if not len(m.unit_content) or m.matrix.shape[1] != qv.shape[0]:
        z = np.zeros(0, dtype=np.int64)
        units = section_semantic.Keys(z, z)
    else:
        su = view.section_index(m, docs_of)
        sims = m.similarities(qv)
        if alt:
            sims = sims.copy()
            for cids, q2 in alt:
                rows = np.flatnonzero(np.isin(m.unit_content, cids))
                got = m.similarities_of(q2, rows)
                sims[rows] = np.maximum(sims[rows], got) if o.lists.named_max else got
        units = section_semantic.unit_list(su, sims, scope, rows_ok(res, su.sid))
    final = units
    if o.lists.section_heads:
        cont, ordinal, sid, sims = section_head_scores(m, qv, scope, view)
        for cids, q2 in alt:
            sims = rescore_heads(m, q2, cids, sims, scope, view.section_head_ids(m),
                                 o.lists.named_max)
        ok = rows_ok(res, sid)
        if ok is not None:
            cont, ordinal, sid, sims = cont[ok], ordinal[ok], sid[ok], sims[ok]
        heads = section_semantic.head_list(cont, ordinal, sid, sims, scope)
        arm.units = units.keys(scope.names, depth)
        arm.heads = heads.keys(scope.names, depth)
        final = section_semantic.rrf(units, heads, o.semantic.weight, PLAIN, o.k)
    arm.sections, arm.scope = final, scope
    arm.keys = final.keys(scope.names, depth)


def section_head_scores(m: VectorMatrix, q: np.ndarray, scope, view: CorpusView):
    """``(content, ordinal, section id, cosine)`` arrays of the section head units of
    the contents in ``scope`` (a :class:`.section_semantic.DocScope`): one product over
    every head unit, no work per content."""
    sims = m.section_head_sims(q)
    if not len(sims):
        z = np.zeros(0, dtype=np.int64)
        return z, z, z, np.zeros(0, dtype=np.float32)
    sids = view.section_head_ids(m)
    keep = np.flatnonzero((sids >= 0) & scope.holds(m.section_content))
    return m.section_content[keep], m.section_ordinal[keep], sids[keep], sims[keep]


def rescore_heads(m: VectorMatrix, q: np.ndarray, cids: np.ndarray, sims: np.ndarray,
                  scope, sids: np.ndarray, keep_max: bool) -> np.ndarray:
    """``sims`` (as :func:`section_head_scores` returns them) with the head units of
    contents ``cids`` scored against ``q`` instead (the better of both, ``keep_max``)."""
    keep = np.flatnonzero((sids >= 0) & scope.holds(m.section_content))
    sel = np.flatnonzero(np.isin(m.section_content[keep], cids))
    if not len(sel):
        return sims
    rows = keep[sel]
    out = np.array(sims, dtype=np.float32, copy=True)
    got = m.similarities_of(q, rows, heads=True)
    out[sel] = np.maximum(out[sel], got) if keep_max else got
    return out


def rows_ok(res: restrict.Restriction, ids: np.ndarray) -> np.ndarray | None:
    """Vectorised :meth:`.restrict.Restriction.row_ok` over row ids (None: all)."""
    if res.keep_rows is None and not res.drop_rows:
        return None

    def arr(rows) -> np.ndarray:
        return np.fromiter(rows, dtype=np.int64, count=len(rows))

    ok = np.ones(len(ids), dtype=bool)
    if res.keep_rows is not None:
        ok &= np.isin(ids, arr(res.keep_rows))
    if res.drop_rows:
        ok &= ~np.isin(ids, arr(res.drop_rows))
    return ok
