"""What the search reads of one folder at one data version, built once per version.

A :class:`CorpusView` is made by :func:`read_view` whenever the cache's
``PRAGMA data_version`` moves (any commit by another connection, e.g. an index run) and
is swapped whole: the engine never resets its parts. What it holds is looked up lazily,
per content, and kept for the view's life: the folder's documents, each content's
sections, titles, parents, furniture, reference-list pages, heads, section-unit maps, the
scope lists and the embedding states.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..document import Section, innermost
from ..furniture import Furniture, blanked
from ..library import read_furniture, read_page_blocks
from ..sections import PAGES_SOURCE
from ..store.citations import read_references
from ..store.reader import (hidden_positions, page_sectioned_contents, read_block_texts, read_bracketed_blocks,
                            read_embedding_states, read_file_states, read_section_keys, read_sections,
                            read_vocabulary)
from ..ocr import pending_note
from ..corpus import doc_matches
from . import references, section_semantic, suggest
from .head_field import HeadIndex, head_text
from .section_units import block_positions, unit_map
from .semantic import VectorMatrix, release_freed

#: The skip reason of a document being indexed: counted in the total, not searched.
QUEUED = "queued for indexing"


@dataclass(frozen=True)
class FolderDoc:
    """One document of the folder: its name, its content id (None until indexed) and why
    it is not searched (None when searchable)."""

    doc: str
    content_id: int | None
    reason: str | None


@dataclass(frozen=True)
class Lookups:
    """The lookups every query over one list of searchable documents reads: ``{doc:
    content}``, the content ids, and ``{content: [doc, ...]}`` in list order."""

    docs: list[FolderDoc]
    by_doc: dict[str, int]
    contents: set[int]
    docs_of: dict[int, list[str]]

    @classmethod
    def of(cls, docs: list[FolderDoc]) -> "Lookups":
        """The lookups of ``docs`` (searchable: each has a content id)."""
        docs_of: dict[int, list[str]] = {}
        for d in docs:
            docs_of.setdefault(d.content_id, []).append(d.doc)
        return cls(docs, {d.doc: d.content_id for d in docs},
                   {d.content_id for d in docs}, docs_of)


class _Memo:
    """The lazy per-content lookups of one view (dropped with it, never reset)."""

    def __init__(self) -> None:
        self.sections: dict[int, list[Section]] = {}
        self.unit_maps: dict[int, tuple] = {}        # content -> (units, map or None)
        self.opening: dict[int, frozenset[int]] = {}
        self.parents: dict[int, dict[int, tuple[int, int]]] = {}
        self.ref_pages: dict[int, frozenset[int]] = {}
        self.titles: dict[int, dict[int, str]] = {}
        self.kinds: dict[tuple, frozenset[int]] = {}
        self.furniture: dict[int, Furniture] = {}
        self.hidden: dict[int, dict[tuple[int, int], str]] = {}
        self.page_sectioned: frozenset[int] | None = None
        self.head_texts: dict[int, str] = {}
        self.scopes: dict = {}
        self.section_index: tuple | None = None      # (matrix, contents, SectionUnits)
        self.head_ids: tuple | None = None           # (section matrix, ids)
        self.embedding: dict | None = None
        self.vocab: tuple | None = None              # (contents, Vocabulary)
        self.by_doc: dict[str, int | None] | None = None


@dataclass(frozen=True)
class CorpusView:
    """One folder's documents at data version ``version`` over connection ``db``; every
    other lookup is read on first use and kept while the view lives."""

    version: int | None
    db: sqlite3.Connection
    model_id: str
    docs: list[FolderDoc]
    memo: _Memo = field(default_factory=_Memo, repr=False, compare=False)
    heads: HeadIndex = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "heads", HeadIndex(self.blocks_first_page))

    # -- documents and scopes ---------------------------------------------------------------
    def cached(self, key, make):
        """``make()`` once per ``key`` while the view lives (keys holding a list's ``id``
        keep the list in the value, so the id is never reused while cached)."""
        got = self.memo.scopes.get(key)
        if got is None:
            if len(self.memo.scopes) > 64:   # many scopes: start over, never grow
                self.memo.scopes = {}
            got = self.memo.scopes[key] = make()
        return got

    def scope(self, docs: str | list[str] | None) -> list[FolderDoc]:
        """The documents ``docs`` names (patterns; None or empty: all), the same list
        object for the same patterns while the view lives."""
        if docs is None or docs == "" or docs == []:
            return self.docs
        pats = (docs,) if isinstance(docs, str) else tuple(docs)

        def pick() -> list[FolderDoc]:
            # a pattern that is a document's own name names it alone: "paper[1].pdf"
            # (a scope of marked documents, say) does not also admit "paper1.pdf"
            names = {d.doc for d in self.docs}
            exact = {p for p in pats if p in names}
            rest = [p for p in pats if p not in exact]
            return [d for d in self.docs
                    if d.doc in exact or any(doc_matches(d.doc, p) for p in rest)]
        return self.cached(("scope", pats), pick)

    def searchable(self, scope: list[FolderDoc]) -> list[FolderDoc]:
        """The documents of ``scope`` that can be searched (no skip reason), cached."""
        return self.cached(("searchable", id(scope)), lambda: (
            scope, [d for d in scope if d.reason is None]))[1]

    def lookups(self, searchable: list[FolderDoc]) -> Lookups:
        """:class:`Lookups` of a searchable list, cached while the list object is."""
        got = self.cached(("view", id(searchable)), lambda: Lookups.of(searchable))
        return got if got.docs is searchable else Lookups.of(searchable)

    def cid_of(self, doc: str) -> int:
        """The content id of a document of the folder (KeyError when unknown)."""
        if self.memo.by_doc is None:
            self.memo.by_doc = {d.doc: d.content_id for d in self.docs}
        return self.memo.by_doc[doc]

    def content_of(self, doc: str) -> int | None:
        """The content id of a document of the folder (None when unknown or not indexed)."""
        try:
            return self.cid_of(doc)
        except KeyError:
            return None

    def embedding_states(self) -> dict:
        """``{content: embedding state}`` of the view's model, read once."""
        if self.memo.embedding is None:
            self.memo.embedding = read_embedding_states(self.db, self.model_id)
        return self.memo.embedding

    def vocabulary(self, contents: frozenset[int]) -> suggest.Vocabulary:
        """The indexed words of ``contents`` with their counts, read once per set."""
        if self.memo.vocab is None or self.memo.vocab[0] != contents:
            self.memo.vocab = (contents, suggest.Vocabulary.from_counts(
                read_vocabulary(self.db, set(contents))))
        return self.memo.vocab[1]

    # -- sections ---------------------------------------------------------------------------
    def sections(self, cid: int) -> list[Section]:
        """The sections of content ``cid`` in document order (no text), cached."""
        got = self.memo.sections.get(cid)
        if got is None:
            got = self.memo.sections[cid] = read_sections(self.db, cid)
        return got

    def section_path_at(self, cid: int, page: int, block: int) -> str:
        """Path of the innermost section of content ``cid`` enclosing (page, block)."""
        sec = innermost(self.sections(cid), page, max(block, 0))
        return sec.path if sec is not None else ""

    def section_starts(self, cid: int, page: int) -> set[int]:
        """Indexes (block ordinals) of the blocks of page ``page`` (1-based) of content
        ``cid`` where a section starts."""
        return {s.start_block for s in self.sections(cid) if s.start_page == page}

    def section_titles(self, cid: int, page: int) -> dict[int, str]:
        """Titles of the sections of content ``cid`` whose heading is on page ``page``
        (1-based), by the index of the block where each starts (the innermost when two
        start at one block); key -1: the section the page opens inside, its heading on an
        earlier page ("" when none)."""
        secs = self.sections(cid)
        out = {s.start_block: s.title for s in secs if s.start_page == page}
        before = innermost(secs, page, 0)   # one starting on the page starts at block 0
        out[-1] = before.title if before is not None and before.start_page < page else ""
        return out

    def titles_by_id(self, cid: int) -> dict[int, str]:
        """``{section id: title}`` of content ``cid``, cached."""
        got = self.memo.titles.get(cid)
        if got is None:
            got = self.memo.titles[cid] = {s.id: s.title for s in self.sections(cid)}
        return got

    def titled_ids(self, cid: int, is_kind: Callable[[str], bool]) -> frozenset[int]:
        """Ids of content ``cid``'s sections whose title ``is_kind`` accepts, cached per
        kind."""
        got = self.memo.kinds.get((cid, is_kind))
        if got is None:
            got = self.memo.kinds[(cid, is_kind)] = frozenset(
                sid for sid, title in self.titles_by_id(cid).items() if is_kind(title))
        return got

    def parents(self, cid: int) -> dict[int, tuple[int, int]]:
        """``{section id: (id, level) of the section directly enclosing it}`` of one
        content (top-level sections left out), cached."""
        got = self.memo.parents.get(cid)
        if got is None:
            got, stack = {}, []
            for s in self.sections(cid):
                while stack and stack[-1].level >= s.level:
                    stack.pop()
                if stack:
                    got[s.id] = (stack[-1].id, stack[-1].level)
                stack.append(s)
            self.memo.parents[cid] = got
        return got

    def opening(self, cid: int | None) -> frozenset[int]:
        """Ids of content ``cid``'s sections starting in its opening that are its first
        section or titled as a summary, as :meth:`unit_map` found them (empty before)."""
        return self.memo.opening.get(cid, frozenset())

    # -- pages ------------------------------------------------------------------------------
    def blocks(self, cid: int, page: int) -> list[str]:
        """The block texts of one page in reading order (empty past the last page)."""
        return read_page_blocks(self.db, cid, page)

    def blocks_first_page(self, cid: int) -> list[str]:
        """The block texts of content ``cid``'s first page."""
        return self.blocks(cid, 1)

    def furniture(self, cid: int) -> Furniture:
        """The running headers, footers and page numbers of content ``cid``
        (:func:`pdftui.furniture.detect`), cached."""
        got = self.memo.furniture.get(cid)
        if got is None:
            got = self.memo.furniture[cid] = read_furniture(self.db, cid)
        return got

    def page_sectioned(self) -> frozenset[int]:
        """Ids of the contents without headings, whose sections are their pages
        (:func:`pdftui.sections.page_sections`), read once."""
        if self.memo.page_sectioned is None:
            self.memo.page_sectioned = page_sectioned_contents(self.db, PAGES_SOURCE)
        return self.memo.page_sectioned

    def hidden(self, cid: int) -> dict[tuple[int, int], str]:
        """``{(page, block): kind}`` of content ``cid``'s hidden text blocks
        (:mod:`pdftui.hidden_text`), read once."""
        got = self.memo.hidden.get(cid)
        if got is None:
            got = self.memo.hidden[cid] = hidden_positions(self.db, cid)
        return got

    def prose_blocks(self, cid: int, page: int) -> list[str]:
        """The block texts of one page with its furniture and its hidden text blanked
        (indices kept): what an excerpt is chosen from (an excerpt never takes text a
        reader cannot see; the hit carries it apart, labelled)."""
        out = blanked(self.blocks(cid, page), page, self.furniture(cid))
        hidden = self.hidden(cid)
        if hidden:
            out = ["" if (page, i) in hidden else t for i, t in enumerate(out)]
        return out

    def head_text(self, cid: int) -> str:
        """Content ``cid``'s head field (:func:`.head_field.head_text`), read once."""
        if cid not in self.memo.head_texts:
            self.memo.head_texts[cid] = head_text(self.blocks(cid, 1))
        return self.memo.head_texts[cid]

    def reference_pages(self, cid: int) -> frozenset[int]:
        """Page numbers of content ``cid`` that are reference lists
        (:func:`.references.is_reference_page`), cached."""
        got = self.memo.ref_pages.get(cid)
        if got is None:
            spans = [(s.start_page, s.end_page) for s in self.sections(cid)
                     if references.is_references_title(s.title)]
            pages: dict[int, list[str]] = {}
            if spans:
                lo, hi = min(a for a, _ in spans), max(b for _, b in spans)
                rows = read_block_texts(self.db, cid, lo, hi)
            else:
                rows = read_bracketed_blocks(self.db, cid)
            for b in rows:
                pages.setdefault(b.page, []).append(b.text)
            if not spans:   # numbered entries only: the pages holding some, in full
                pages = {p: self.blocks(cid, p) for p in pages}
            entries = self._entry_chars(cid) if spans else {}
            got = frozenset(p for p, blocks in pages.items() if references.is_reference_page(
                blocks, any(a <= p <= b for a, b in spans), entries.get(p, 0)))
            self.memo.ref_pages[cid] = got
        return got

    def _entry_chars(self, cid: int) -> dict[int, int]:
        """``{page: characters of the reference entries starting on it}`` from the parsed
        entries the index stored ({} when it stored none)."""
        out: dict[int, int] = {}
        for ref in read_references(self.db, cid):
            out[ref.page] = out.get(ref.page, 0) + len(ref.raw)
        return out

    # -- section units ----------------------------------------------------------------------
    def unit_map(self, m: VectorMatrix, cid: int):
        """:func:`.section_units.unit_map` of content ``cid`` over ``m``'s units, cached
        while its unit count stays; notes the sections of its opening (:meth:`opening`)."""
        c = m._contents.get(cid)
        n_units = len(c.pages) if c is not None else 0
        got = self.memo.unit_maps.get(cid)
        if got is not None and got[0] == n_units:
            return got[1]
        # read, not cached: the section index visits every content, and holding every
        # content's Section objects (~100 MB at 10,000 documents) for the few hits'
        # paths would be the search process's largest Python structure
        secs = self.memo.sections.get(cid) or read_sections(self.db, cid)
        if not n_units or not secs:
            self.memo.unit_maps[cid] = (n_units, None)
            return None
        out, opening = unit_map(c.pages, c.spans, secs, block_positions(self.db, cid))
        self.memo.unit_maps[cid] = (n_units, out)
        self.memo.opening[cid] = opening
        return out

    def section_index(self, m: VectorMatrix, docs_of: dict
                      ) -> section_semantic.SectionUnits:
        """Every section's units over the contents searched so far, as one
        :class:`.section_semantic.SectionUnits`; rebuilt when a new content is searched."""
        got = self.memo.section_index
        want = set(docs_of)
        if got is not None and got[0] is m.matrix and want <= got[1]:
            return got[2]
        cover = want | (got[1] if got is not None and got[0] is m.matrix else set())
        parts = []
        for i, cid in enumerate(sorted(cover)):
            one = self.unit_map(m, cid)
            if one is not None:
                parts.append((cid, int(np.searchsorted(m.unit_content, cid)), one))
            if i % 256 == 255:   # each content's pages and blocks were read and dropped
                release_freed()
        su = section_semantic.SectionUnits.build(parts)
        release_freed()
        self.memo.section_index = (m.matrix, cover, su)
        return su

    def section_head_ids(self, m: VectorMatrix) -> np.ndarray:
        """sections.id of each row of ``m.section_matrix`` (-1 when none), from one read of
        the sections table, kept while the matrix is."""
        got = self.memo.head_ids
        if got is not None and got[0] is m.section_matrix:
            return got[1]
        rows = read_section_keys(self.db)
        code = rows[:, 0] * (1 << 32) + rows[:, 1]
        want = m.section_content * (1 << 32) + m.section_ordinal
        at = np.minimum(np.searchsorted(code, want), max(len(code) - 1, 0))
        sids = np.full(len(want), -1, dtype=np.int64)
        if len(code):
            hit = code[at] == want
            sids[hit] = rows[at[hit], 2]
        self.memo.head_ids = (m.section_matrix, sids)
        return sids


def read_view(db: sqlite3.Connection, root: str | os.PathLike, version: int | None,
              model_id: str) -> CorpusView:
    """The view of folder ``root`` at data ``version``: its documents with their skip
    reasons (queued for indexing, no text layer, OCR pending, ...)."""
    docs = []
    for f in read_file_states(db, root):
        reason = f.file_reason or f.content_reason
        quality, missing = f.text_quality, f.ocr_missing
        if f.content_id is None and not reason:
            reason = QUEUED   # being indexed: counted in the total, not searched
        elif not reason and quality and quality != "ok":
            reason = (pending_note(missing) if missing and quality == "no text layer"
                      else quality)
        docs.append(FolderDoc(f.doc, f.content_id, reason))
    return CorpusView(version, db, model_id, docs)
