"""Hits: the first keys of a ranked run made into what the user sees (:class:`Hit`), with
each arm's rank, the arms' contributions, the excerpt, the section path and the page
label; :class:`SearchResult` one search's hits with its coverage."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..hidden_text import HiddenSpan, locate
from ..store.reader import (HiddenRow, PageText, any_ocr, read_block_texts, read_hidden,
                            read_pages)
from . import keyword
from .arms import KeywordArm, Ranked, SemanticArm
from .corpus_view import CorpusView
from .coverage import Coverage
from .excerpt import MAX_CHARS, cap, choose
from .modes import Granularity, Mode
from .run import Arm, Contribution, Factor, Key, Weights
from .semantic import VectorMatrix


#: The lists of each arm a hybrid hit's contributions come from.
ARM_LISTS = {"keyword": frozenset({Arm.KEYWORD}),
             "semantic": frozenset({Arm.SEMANTIC, Arm.SECTION_BODY, Arm.SECTION_HEAD})}


@dataclass
class Hit:
    """One ranked hit. Page hits have ``section`` etc. None; section hits fill them.

    ``ocr`` is true when the hit's text (any page of a section hit) was recognised by OCR
    from a scan, so its words may hold recognition errors."""

    rank: int
    doc: str
    page: int
    page_label: str   # the printed label, else the page number as text
    score: float
    keyword_rank: int | None
    semantic_rank: int | None
    excerpt: str
    section_path: str = ""
    section: str | None = None
    start_page: int | None = None
    end_page: int | None = None
    section_id: int | None = None
    ocr: bool = False
    arms: tuple[Contribution, ...] = ()
    factors: tuple[Factor, ...] = ()
    cosine: float | None = None
    #: The hidden text (:class:`pdftui.hidden_text.HiddenSpan`) of the hit's page (a page
    #: hit: placed in the page's text) or section (not placed): never in ``excerpt``.
    hidden_text: list[HiddenSpan] = field(default_factory=list)

    def counted(self, arm: str) -> bool:
        """Did ``arm`` ("keyword" or "semantic", whose section lists are the body and head
        lists) add to this hybrid hit's fused score? Its rank may show though it did not:
        beyond the lists fused, or a term lookup's semantic rank (weight 0)."""
        arms = ARM_LISTS[arm]
        return any(c.arm in arms and c.score > 0 for c in self.arms)

    def to_json(self) -> dict:
        """The hit as a JSON-ready dict (section keys only for section hits). ``arms``:
        ``[{"arm", "rank", "weight", "score"}]``, what each arm added to ``score``
        (:class:`.run.Contribution`; ``score`` = their sum times each of ``factors``
        ``[{"name", "factor"}]``); ``cosine``: the page's semantic score (None when the
        semantic arm did not rank it)."""
        d = {"rank": self.rank, "doc": self.doc, "page": self.page,
             "page_label": self.page_label, "score": round(self.score, 6),
             "keyword_rank": self.keyword_rank, "semantic_rank": self.semantic_rank,
             "excerpt": self.excerpt, "section_path": self.section_path, "ocr": self.ocr,
             "arms": [c.to_json() for c in self.arms],
             "factors": [f.to_json() for f in self.factors],
             "cosine": None if self.cosine is None else round(self.cosine, 6),
             "hidden_text": [h.to_json() for h in self.hidden_text]}
        if self.section is not None:
            d.update(section=self.section, start_page=self.start_page, end_page=self.end_page,
                     section_id=self.section_id)
        return d



def counted_in(hit: dict, arm: str) -> bool:
    """:meth:`Hit.counted` of a hit as :meth:`Hit.to_json` gives it (a hit without
    ``arms``, of keyword or semantic mode, counts its own arm)."""
    arms = hit.get("arms")
    if not arms:
        return True
    names = {a.value for a in ARM_LISTS[arm]}
    return any(c.get("arm") in names and (c.get("score") or 0) > 0 for c in arms)


@dataclass
class SearchResult:
    """Hits plus coverage (:class:`.coverage.Coverage`: what was searched, the notes; None
    for a result no search made)."""

    query: str
    mode: Mode
    granularity: Granularity
    coverage: Coverage | None
    elapsed_ms: float
    hits: list[Hit] = field(default_factory=list)
    suggestions: dict[str, list[str]] = field(default_factory=dict)
    weak: bool = False
    weights: Weights | None = None

    def to_json(self) -> dict:
        """``{"query", "mode", "granularity", "coverage", "elapsed_ms", "hits",
        "suggestions", "weak", "fusion"}``; ``suggestions`` maps each query word no document
        holds to its closest indexed words; ``weak`` is True when no arm has real evidence;
        ``fusion`` the weights in force of a hybrid search (:class:`.run.Weights`), else
        None."""
        return {"query": self.query, "mode": self.mode, "granularity": self.granularity,
                "coverage": self.coverage.to_json() if self.coverage is not None else {},
                "elapsed_ms": round(self.elapsed_ms, 1),
                "hits": [h.to_json() for h in self.hits], "suggestions": self.suggestions,
                "weak": self.weak,
                "fusion": self.weights.to_json() if self.weights is not None else None}



class HitMaker:
    """Makes the hits of one ranked query over a corpus view ``view``, the keyword index
    ``kwi`` (page numbers of stage-1 rows) and the unit matrix ``m`` (None before any
    semantic search)."""

    def __init__(self, view: CorpusView, kwi: keyword.KeywordIndex,
                 m: VectorMatrix | None):
        self.view, self.kw, self._matrix, self.db = view, kwi, m, view.db

    def _keyword_ranks(self, kw: KeywordArm, granularity: Granularity, top: list
                       ) -> dict[Key, int]:
        """``{key: keyword rank}`` (1-based, in the whole stage-1 list) of the keys fed to
        fusion and of each shown key beyond them."""
        kr = {k: i for i, k in enumerate(kw.keys, start=1)}
        fl, ranking = kw.fused, kw.ranking
        if fl is None or len(kw.keys) >= len(fl):
            return kr
        for (doc, key), _s in top:
            if (doc, key) in kr or doc not in fl.names:
                continue
            at = np.flatnonzero(fl.doc == fl.names.index(doc))
            rows = fl.row[at]
            second = self.kw.numbers(granularity.rows, ranking.pos[rows]) \
                if granularity is Granularity.PAGE else \
                ranking.ids[rows]
            hit = at[second == key]
            if len(hit):
                kr[(doc, key)] = int(hit[0]) + 1
        return kr

    def _semantic_ranks(self, sem: SemanticArm, top: list) -> dict[Key, int]:
        """``{key: semantic rank}`` (1-based, over every ranked page or section) of the
        keys fed to fusion and of each shown key the list fed to fusion was too short to
        hold."""
        sr = {k: i for i, k in enumerate(sem.keys, start=1)}
        if sem.sections is not None and len(sem.keys) < len(sem.sections):
            for key, _s in top:
                if key not in sr:
                    r = sem.sections.rank_of(sem.scope, *key)
                    if r is not None:
                        sr[key] = r
        ranked, docs_of, m = sem.pages, sem.docs_of, self._matrix
        want = {k for k, _s in top} - set(sr)
        if not sem.cut or not want or m is None or ranked is None or not len(ranked):
            return sr
        n_docs = np.zeros(int(m.page_content.max()) + 1, dtype=np.int64)
        cids = np.fromiter(docs_of, dtype=np.int64, count=len(docs_of))
        lens = np.fromiter(map(len, docs_of.values()), dtype=np.int64, count=len(docs_of))
        inside = cids < len(n_docs)
        n_docs[cids[inside]] = lens[inside]
        keys_per_page = n_docs[m.page_content]
        for d, page in want:   # a shown key's document: its content, if searched
            cid = self.view.content_of(d)
            cid = cid if cid in docs_of and d in docs_of[cid] else None
            p = m.page_index(cid, page) if cid is not None else -1
            if p < 0 or not np.isfinite(ranked.score[p]):
                continue
            before = int(keys_per_page[ranked.before(p)].sum())
            sr[(d, page)] = before + docs_of[cid].index(d) + 1
        return sr

    def hits(self, ranked: Ranked, granularity: Granularity, top_k: int) -> list[Hit]:
        """The first ``top_k`` keys of the fused run as hits: each arm's rank (beyond
        the part fed to fusion too), the arms' contributions, excerpts and paths."""
        top = ranked.run.pairs(top_k)
        kr = self._keyword_ranks(ranked.keyword, granularity, top)
        sr = self._semantic_ranks(ranked.semantic, top)
        make = self._page_hit if granularity is Granularity.PAGE else self._section_hit
        hits: list[Hit] = []
        for rank, (key, score) in enumerate(top, start=1):
            h = make(ranked, key, rank, score, kr.get(key), sr.get(key))
            if h is not None:
                h.arms = ranked.run.evidence.get(key, ())
                h.factors = ranked.run.factors.get(key, ())
                hits.append(h)
        return hits

    def _page_hit(self, ranked: Ranked, key: Key, rank: int, score: float,
                  kw_rank: int | None, sem_rank: int | None) -> Hit:
        """One page hit: its label, excerpt (under the best unit when only the semantic
        arm found it), section path, OCR flag and page cosine."""
        doc, page = key
        cid = self.view.cid_of(doc)
        info = read_pages(self.db, cid, [page]).get(page) or PageText(page, "", "")
        blocks = self.view.prose_blocks(cid, page)
        unit_span = cosine = None
        pages, m = ranked.semantic.pages, self._matrix
        if pages is not None and m is not None:
            p = m.page_index(cid, page)
            if p >= 0 and np.isfinite(pages.score[p]):
                cosine = float(pages.score[p])
                if kw_rank is None and sem_rank is not None:
                    unit_span = m.span(cid, pages.best_unit(p))
        bi, excerpt = choose(blocks, ranked.terms, unit_span, info.text,
                             next_blocks=[b for b in self.view.prose_blocks(cid, page + 1)
                                          if b][:3],
                             phrases=ranked.query.phrases,
                             section_starts=self.view.section_starts(cid, page),
                             section_titles=self.view.section_titles(cid, page),
                             head=self.view.head_text(cid))
        hidden = self._hidden(cid, page, page)
        if bi < 0:
            excerpt = cap("\n\n".join(b for b in blocks if b) if hidden else info.text,
                          MAX_CHARS)
        return Hit(rank, doc, page, info.label or str(page), score, kw_rank, sem_rank, excerpt,
                   self.view.section_path_at(cid, page, max(bi, 0)),
                   ocr=any_ocr(self.db, cid, page, page), cosine=cosine,
                   hidden_text=locate(info.text, hidden))

    def _hidden(self, cid: int, first: int, last: int, within=None) -> list[HiddenRow]:
        """The hidden runs of pages ``first``..``last`` of content ``cid`` (only those
        in section ``within`` when given); read only for a content that has some."""
        positions = self.view.hidden(cid)
        if not positions or not any(first <= p <= last for p, _b in positions):
            return []
        rows = read_hidden(self.db, cid, first, last)
        if within is not None:
            rows = [r for r in rows if r.block is not None and within.contains(r.page, r.block)]
        return rows

    def _section_blocks(self, cid: int, span) -> list[str]:
        """The texts of content ``cid``'s blocks inside ``span`` (a :class:`Section` or
        its own span), running headers and footers left out, at most 400 read."""
        furniture, hidden = self.view.furniture(cid), self.view.hidden(cid)
        return [b.text for b in read_block_texts(self.db, cid, span.start_page,
                                                 span.end_page, limit=400)
                if span.contains(b.page, b.ordinal) and (b.page, b.ordinal) not in furniture
                and (b.page, b.ordinal) not in hidden]

    def _section_hit(self, ranked: Ranked, key: Key, rank: int, score: float,
                     kw_rank: int | None, sem_rank: int | None) -> Hit | None:
        """One section hit, its excerpt from the section's own text (up to its first
        subsection), which is what ranked it, or from its subsections' when its own text
        is its heading alone ("4.2 Insights and Overview: ZeRO-R" over 4.2.1-4.2.3); None
        when the section is gone."""
        doc, sid = key
        cid = self.view.cid_of(doc)
        secs = self.view.sections(cid)
        k = next((i for i, s in enumerate(secs) if s.id == sid), None)
        if k is None:
            return None
        sec = secs[k]
        sp = sec.start_page
        own = sec.own_span(secs[k + 1] if k + 1 < len(secs) else None)
        blocks = self._section_blocks(cid, own)
        if len(blocks) <= 1 and own is not sec:
            blocks = self._section_blocks(cid, sec)
        _bi, excerpt = choose(blocks, ranked.terms, phrases=ranked.query.phrases,
                              head=self.view.head_text(cid))
        got = read_pages(self.db, cid, [sp]).get(sp)
        label = (got.label if got is not None else "") or str(sp)
        hidden = self._hidden(cid, sp, sec.end_page, within=sec)
        return Hit(rank, doc, sp, label, score, kw_rank, sem_rank, excerpt, sec.path,
                   sec.title, sp, max(sec.last_page, sp), sid,
                   ocr=any_ocr(self.db, cid, sp, sec.end_page),
                   hidden_text=locate("", hidden))

