"""Restriction: which documents, pages and sections a parsed query admits, for every arm.

A :class:`~.query.Query`'s fields, phrases and exclusions never change how the arms rank;
they decide what the arms may return:

- document fields (``title:``, ``author:``, ``year:``, ``doc:``) keep the documents whose
  metadata (:func:`pdftui.library.read_metadata`, the one accessor) matches, before any
  arm runs; ``-field:value`` drops them;
- ``section:WORD`` keeps the sections whose title holds the word (section search) or the
  pages inside them (page search);
- a quoted phrase keeps the rows holding it, words adjacent and in order (an FTS5 phrase);
- ``-word`` / ``-"a phrase"`` drops the rows holding it (a page's text; a section's title,
  own text or a subsection's text, what reading it whole shows) from every list of every
  arm: the keyword list, the semantic page and section lists, and the head-field list
  (page 1 of a document whose byline names the query). The final list of any mode and
  granularity therefore holds no page or section holding an excluded word or phrase
  (:meth:`Restriction.key_ok` is the last check).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from ..doc_pattern import doc_pattern_matches
from ..library import DocumentMeta
from ..store.protocols import TextIndex
from .keyword import join_pairs, parse_query, tokenize
from .query import Field, FieldName, Query

@dataclass
class Restriction:
    """What a query admits. Row ids are pages.id (page search) or sections.id; ``pages``
    sets are ``(content id, page number)`` keys for the semantic page arm."""

    keep_rows: set[int] | None = None
    drop_rows: set[int] = field(default_factory=set)
    keep_pages: set[tuple[int, int]] | None = None
    drop_pages: set[tuple[int, int]] = field(default_factory=set)
    excluded: int = 0

    def row_ok(self, rid: int) -> bool:
        """May the row (page or section id) be listed?"""
        return (self.keep_rows is None or rid in self.keep_rows) and rid not in self.drop_rows

    def page_ok(self, cid: int, page: int) -> bool:
        """May page ``page`` (1-based) of content ``cid`` be listed?"""
        key = (cid, page)
        return (self.keep_pages is None or key in self.keep_pages) and key not in self.drop_pages

    def key_ok(self, cid: int, kind: str, key: int) -> bool:
        """May the hit key be listed: page ``key`` (1-based) of content ``cid`` when
        ``kind`` is "pages", else section id ``key``?"""
        return self.page_ok(cid, key) if kind == "pages" else self.row_ok(key)

    def page_mask(self, page_content, page_number):
        """Vectorised :meth:`page_ok`: boolean array over pages given as two int64 arrays
        (content id, 1-based page number; :mod:`.semantic`'s page arrays)."""
        import numpy as np

        from .semantic import PAGE_CODE

        code = page_content * PAGE_CODE + page_number

        def codes(keys) -> np.ndarray:
            return np.fromiter((c * PAGE_CODE + p for c, p in keys), dtype=np.int64,
                               count=len(keys))

        ok = np.ones(len(code), dtype=bool)
        if self.keep_pages is not None:
            ok &= np.isin(code, codes(self.keep_pages))
        if self.drop_pages:
            ok &= ~np.isin(code, codes(self.drop_pages))
        return ok

    @property
    def active(self) -> bool:
        """True when it removes anything."""
        return self.keep_rows is not None or bool(self.drop_rows or self.drop_pages)


def _fold(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", s.casefold())
                   if not unicodedata.combining(c))


def _words_match(value: str, text: str, stem: bool) -> bool:
    """Every word of ``value`` (``word*``: a prefix) is a word of ``text`` (with ``stem``,
    two adjacent words also written closed up: "big bird" is in "BigBird: ...",
    :func:`.keyword.join_pairs`)."""
    have = set(tokenize(text, stem=stem))
    want = join_pairs(parse_query(value, stopwords=False), value, have.__contains__) \
        if stem else None
    if stem:
        return bool(want) and all(t.held_in(have) for t in want)
    words = [_fold(w) for w in value.split()]
    plain = set(tokenize(text, stem=False))
    return bool(words) and all(
        any(h.startswith(w.rstrip("*")) for h in plain) if w.endswith("*") else
        all(t in plain for t in tokenize(w, stem=False)) for w in words)


def field_score(f: Field, doc: str, meta: DocumentMeta | None) -> float | None:
    """How well one document matches one (positive) field: None = not at all; else a
    score, higher first (a title match scores its share of the title's words)."""
    if f.name == FieldName.DOC:
        return 1.0 if doc_pattern_matches(doc, f.value) else None
    if meta is None:
        return None
    if f.name == FieldName.TITLE:
        if not _words_match(f.value, meta.title, stem=True):
            return None
        return len(parse_query(f.value, False)) / max(1, len(tokenize(meta.title)))
    if f.name == FieldName.AUTHOR:
        names = "; ".join(meta.authors) if meta.authors else meta.head
        return 1.0 if _words_match(f.value, names, stem=False) else None
    if f.name == FieldName.YEAR and f.years is not None:
        lo, hi = f.years
        y = meta.year
        ok = y is not None and (lo is None or y >= lo) and (hi is None or y <= hi)
        return 1.0 if ok else None
    return 1.0   # section: is applied to rows, not documents


def admit_docs(query: Query, docs: dict[str, int], meta: dict[int, DocumentMeta]
               ) -> list[str]:
    """The documents (``{doc: content id}``) the query's document fields admit, best
    field match first (ties: content id, then name). All of them when it has none."""
    doc_fields = [f for f in query.fields if f.name != FieldName.SECTION]
    if not doc_fields:
        return list(docs)
    scored = []
    for d, cid in docs.items():
        total = 0.0
        ok = True
        for f in doc_fields:
            s = field_score(f, d, meta.get(cid))
            if (s is None) != f.negated:
                ok = False
                break
            total += 0.0 if f.negated else s
        if ok:
            scored.append((-total, cid, d))
    return [d for _s, _c, d in sorted(scored)]


def build(query: Query, kw: TextIndex, kind: str, section_spans,
          ancestors=lambda ids: set()) -> Restriction:
    """The row restriction of a query for one granularity (``kind`` "pages" or
    "sections"). ``section_spans(ids)`` gives ``[(id, content, start page, last page)]``
    of sections (for ``section:`` in page search); ``ancestors(ids)`` the ids of the
    sections enclosing the given ones: a section whose subsection holds an excluded word
    shows it when read whole, so it is excluded too."""
    r = Restriction()
    keep: set[int] | None = None
    for phrase in query.phrases:
        got = kw.phrase_rows(kind, phrase)
        keep = got if keep is None else keep & got
    for f in query.fields:
        if f.name != FieldName.SECTION:
            continue
        sids = kw.title_rows(f.value)
        if kind == "sections":
            rows = sids
        else:
            keys = {(cid, p) for _s, cid, sp, lp in section_spans(sids)
                    for p in range(sp, lp + 1)}
            rows = kw.page_ids(keys)
        if f.negated:
            r.drop_rows |= rows
        else:
            keep = rows if keep is None else keep & rows
    excl: set[int] = set()
    excl_pages: set[int] = set()
    for text in query.excluded:
        excl |= kw.rows_holding(kind, text)
        if kind == "sections":   # the pages too: semantic evidence
            excl_pages |= kw.rows_holding("pages", text)
    if kind == "sections" and excl:
        excl |= ancestors(excl)
    r.drop_rows |= excl
    r.keep_rows = keep
    if kind == "pages":
        r.keep_pages = kw.page_keys(keep) if keep is not None else None
        r.drop_pages = kw.page_keys(r.drop_rows)
    else:
        r.drop_pages = kw.page_keys(excl_pages)
    r.excluded = len(excl)
    return r
