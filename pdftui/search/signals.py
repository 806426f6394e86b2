"""The signals a hybrid recipe reads besides the two arms, as one typed :class:`Signals`.

:func:`gather` computes them for one query from its plan, its arms and the corpus view:
plain values where they are known before fusion (the phrase list, the identifier tiers,
a fields-only query's listing), and lookups over keys where they are asked of the fused
run only (a section's title or opening, a page's reference list): they read the corpus view on demand, so a recipe asks only about the keys it
places. The recipe (:mod:`.recipe`) never touches SQLite.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from . import keyword, references, restrict
from .fusion import rrf_score
from .arms import KeywordArm
from .config import RankingConfig
from .corpus_view import CorpusView, FolderDoc
from .excerpt import held_terms
from .modes import Granularity, Mode
from .plan import Plan, identifier_query
from .run import Arm, Key, Run
from ..sections import is_closing_title


def _never(_key: Key) -> bool:
    return False


def _no_titles(_keys: Sequence[Key]) -> list[Key]:
    return []


@dataclass(frozen=True)
class Signals:
    """What one query's recipe reads besides its arms.

    Values: ``pending`` the searched documents not embedded yet; ``few`` the scope is
    searched as one document set; ``term_lookup`` a hybrid query of at most
    ``short_terms`` terms some page (section) holds all of; ``phrase`` the keyword arm's pages
    holding such a lookup as a phrase, in keyword order; ``citation_query`` the query asks
    for citations (:mod:`.references`); ``identifier`` identifiers carry the query and
    ``tiers`` ``{doc: tier}`` of a rare identifier's documents (None: none); ``listing``
    the hits of a query made only of fields (None otherwise); ``restricted`` a
    restriction is active, ``has_text`` the query has text to search for, ``top_k`` the
    hits shown.

    Lookups: ``reference_page(key)`` the page is a reference list;
    ``reference_section(key)`` the section is titled as a reference list; ``opening(key)``
    the section starts its document's opening and is its first section or a summary;
    ``closing(key)`` the section is titled as a closing summary ("Conclusions");
    ``titled(keys)`` the keys whose title holds the query terms their document's head does
    not; ``keep(key)`` the restriction admits the key (None: no restriction)."""

    pending: frozenset[str] = frozenset()
    few: bool = False
    term_lookup: bool = False
    phrase: tuple[Key, ...] = ()
    citation_query: bool = False
    identifier: bool = False
    tiers: Mapping[str, int] | None = None
    listing: list | None = None
    restricted: bool = False
    has_text: bool = True
    top_k: int = 0
    reference_page: Callable[[Key], bool] = _never
    reference_section: Callable[[Key], bool] = _never
    opening: Callable[[Key], bool] = _never
    closing: Callable[[Key], bool] = _never
    titled: Callable[[Sequence[Key]], list[Key]] = _no_titles
    keep: Callable[[Key], bool] | None = None


def gather(c: Plan, kw: KeywordArm, text: str, kwi: keyword.KeywordIndex,
           view: CorpusView, o: RankingConfig) -> Signals:
    """The signals of one query (``text`` as searched) planned as ``c``, whose keyword arm
    is ``kw``, over the keyword index ``kwi`` and the corpus view ``view``."""
    q, res, by_doc, rows = c.q, c.res, c.by_doc, c.granularity.rows
    lookup = term_lookup(c, kw, o)
    phrase = phrase_keys(c, kw, kwi) if c.mode is Mode.HYBRID and o.lists.phrase and \
        c.granularity is Granularity.PAGE and len(c.terms) > 1 and lookup else []
    ident = identifier_query(q)
    tiers = identifier_tiers(kwi, c.terms, c.granularity, by_doc) \
        if c.mode is not Mode.SEMANTIC and ident else None
    listing = field_listing(view, c.granularity, c.searchable, res, o.k) \
        if not q.text.strip() and q.fields else None

    def titled_as(is_kind: Callable[[str], bool]) -> Callable[[Key], bool]:
        return lambda key: key[0] in by_doc and \
            key[1] in view.titled_ids(by_doc[key[0]], is_kind)

    return Signals(
        c.pending, c.few, lookup, tuple(phrase), references.citation_query(text), ident,
        tiers, listing, res.active, bool(q.text.strip()), c.top_k,
        reference_page=lambda key: key[1] in view.reference_pages(view.cid_of(key[0])),
        reference_section=titled_as(references.is_references_title),
        opening=lambda key: key[1] in view.opening(by_doc.get(key[0])),
        closing=titled_as(is_closing_title),
        titled=lambda keys: titled_keys(c, keys, view, o.field_share),
        keep=(lambda k: k[0] in by_doc and res.key_ok(by_doc[k[0]], rows, k[1]))
        if res.active else None)


#: A page holds every term of the query when its share of the query's rarity mass is 1
#: (to float rounding: a sum of the held terms' weights over the sum of all of them).
ALL_HELD = 1.0 - 1e-9


def term_lookup(c: Plan, kw: KeywordArm, o: RankingConfig) -> bool:
    """Is this hybrid query of a folder a term lookup: at most ``short_terms`` terms
    ("frame skipping", "vector clocks"), every one of them on one page (section)? The
    embedding of two or three words is a weak reading of them (MiniLM puts "frame
    skipping" near beamer's slide frames, "vector clocks" near Einstein's clocks),
    while the page or section holding the term is the answer (bench/short.py,
    bench/section_short_heldout.json). Inside a few documents the semantic neighbours
    are the document's own pages: not one."""
    return not c.few and 0 < len(c.terms) <= o.short_terms \
        and kw.best_rarity_share >= ALL_HELD


def phrase_keys(c: Plan, kw: KeywordArm, kwi: keyword.KeywordIndex) -> list[Key]:
    """The keyword arm's pages (in its order) holding the query's words adjacent and in
    order (:meth:`.keyword.KeywordIndex.phrase_rows`)."""
    text = " ".join(c.q.loose) if c.q.loose else c.q.text
    rows = kwi.phrase_rows("pages", text)
    if not rows:
        return []
    held = kwi.page_keys(rows)
    return [(d, p) for d, p in kw.keys if (c.by_doc.get(d), p) in held]


def titled_keys(c: Plan, keys: Sequence[Key], view: CorpusView, share: float
                ) -> list[Key]:
    """The section keys of ``keys`` whose title holds at least ``share`` of the query
    terms its document's head (title, authors) does not hold, and two of them (or the
    only one): "5.2 Leader election" for "how does raft elect a leader", "2.2 Choosing a
    Value" for "how does paxos choose a value". The section's text and its embedding may
    tell of the matter less densely than a general section beside it; its title states
    it."""
    if not c.terms:
        return []
    keys = list(keys)
    titles = [view.titles_by_id(c.by_doc[doc]).get(sid, "")
              if doc in c.by_doc else "" for doc, sid in keys]
    stems = keyword.tokenize_many(titles, list(c.terms))
    cids = {c.by_doc[d] for d, _s in keys if d in c.by_doc}
    heads = view.heads.terms(cids, list(c.terms))
    out = []
    for key, title, st in zip(keys, titles, stems):
        naming = heads.get(c.by_doc.get(key[0]), frozenset())
        need = {k for k, t in enumerate(c.terms) if str(t) not in naming}
        least = max(min(len(need), 2), math.ceil(share * len(need)))
        if need and len(need & held_terms(st, c.terms, title)) >= least:
            out.append(key)
    return out


def identifier_tiers(kwi: keyword.KeywordIndex, terms: list[keyword.Term],
                     granularity: Granularity,
                     by_doc: dict[str, int]) -> dict[str, int] | None:
    """Hits of a rare identifier first: when an identifier term of the query is held
    by at most ``max(5, 10%)`` of the documents searched, the documents holding it
    lead the list (the ones whose own name or first page holds it first, tier 0: the
    paper itself before the papers citing it, tier 1), each in its fused order; a
    semantic look-alike (``1706.03791`` for ``1706.03762``) never outranks an exact
    match. ``{doc: tier}``, None when no such identifier."""
    idents = [t for t in terms if t.ident]
    if not idents:
        return None
    limit = max(5, len(by_doc) // 10)
    own: set[str] = set()
    holding: set[str] = set()
    for t in idents:
        rows = kwi.term_rows(granularity.rows, t)
        keys = kwi.page_keys(r for r, _c, _n in rows) if granularity is Granularity.PAGE else \
            kwi.section_keys(r for r, _c, _n in rows)
        cids = {c for c, _p in keys}
        docs = {d for d, c in by_doc.items() if c in cids}
        if not docs or len(docs) > limit:
            continue
        holding |= docs
        first = {c for c, p in keys if p == 1}
        own |= {d for d in docs if by_doc[d] in first or t.text in d.casefold()}
    if not holding:
        return None
    return {d: 0 if d in own else 1 for d in holding}


def field_listing(view: CorpusView, granularity: Granularity, searchable: list[FolderDoc],
                  res: restrict.Restriction, k: int) -> list:
    """Hits of a query made only of fields: each admitted document's first page (or
    the pages opening its matching sections), in field-match order; for section
    search its matching sections, else its first section; each scores
    ``1 / (k + its document's place)``."""
    out = []
    for rank, d in enumerate(searchable, start=1):
        secs = view.sections(d.content_id)
        if granularity is Granularity.SECTION:
            keys = [(d.doc, s.id) for s in secs if res.row_ok(s.id)]
            if res.keep_rows is None:
                keys = keys[:1]
        elif res.keep_pages is not None:
            keys = sorted((d.doc, p) for c, p in res.keep_pages if c == d.content_id)
        else:
            keys = [(d.doc, 1)]
        if granularity is Granularity.PAGE:
            keys = [key for key in keys if res.page_ok(d.content_id, key[1])]
        out.extend((key, rrf_score(rank, k)) for key in keys)
    return out
