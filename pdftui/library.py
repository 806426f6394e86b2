"""Reading what the cache holds for one folder: documents, pages, outline and sections.

This is the read side shared by ``pdftui read`` and the TUI's corpus and reader panes. It
never opens a PDF: everything comes from the cache that :func:`pdftui.index.index_folder`
keeps current. Pages are 1-based.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from .store.database import Cache
from .errors import NotFound
from .furniture import Furniture, detect
from .document import Metadata, Section, innermost, last_page
from .ocr import pending_note


@dataclass(slots=True)
class DocumentInfo:
    """One document of the folder as the cache knows it.

    ``status`` is "indexed", "embedding" (text searchable, vectors partial), "queued" (found,
    text not extracted yet), "skipped" (``reason`` says why), "no text layer" or
    "unreliable" (``reason`` says "no text layer (OCR: install tesseract-ocr)" when the
    scanned pages could have been OCR'd with Tesseract installed). ``embedded`` is the
    fraction of units embedded for the model asked about (0.0-1.0; 1.0 when not asked).
    ``ocr_pages`` counts pages whose text was recognised by OCR, ``ocr_pending`` scanned
    pages still waiting for it.
    """

    doc: str
    title: str
    pages: int
    status: str
    reason: str = ""
    embedded: float = 1.0
    content_id: int | None = None
    #: SHA-256 hex digest of the file's bytes ('' while queued): with ``doc`` it is the
    #: key of the user's marks and notes (:class:`pdftui.triage.store.DocKey`).
    sha256: str = ""
    #: Bibliographic metadata (:mod:`pdftui.metadata`): names in printed order, the
    #: paper's year (None when not found), arXiv id without version, DOI; empty = unknown.
    #: ``authors`` from :meth:`Library.documents` is an :class:`AuthorNames` (a sequence
    #: parsed when first read).
    authors: Sequence[str] = ()
    year: int | None = None
    arxiv_id: str = ""
    doi: str = ""
    ocr_pages: int = 0
    #: Scanned pages still without text that the next index will OCR (Tesseract missing,
    #: the OCR budget spent, a busy machine).
    ocr_pending: int = 0

    def to_json(self) -> dict:
        """``{"doc", "title", "authors", "year", "arxiv_id", "doi", "pages", "status"}``
        (plus ``reason`` when skipped)."""
        d = {"doc": self.doc, "title": self.title, "authors": list(self.authors),
             "year": self.year, "arxiv_id": self.arxiv_id, "doi": self.doi,
             "pages": self.pages, "status": self.status}
        if self.reason:
            d["reason"] = self.reason
        if self.ocr_pages:
            d["ocr_pages"] = self.ocr_pages   # pages whose text was recognised by OCR
        if self.ocr_pending:
            d["ocr_pending"] = self.ocr_pending   # scanned pages the next index will OCR
        return d


@dataclass(frozen=True, slots=True)
class DocumentMeta:
    """What the query fields (``title:``, ``author:``, ``year:``) read about one content.

    ``authors`` are names as printed; ``year`` the publication year or None; ``head`` the
    opening of page 1 up to its abstract (at most ``HEAD_CHARS`` characters), where a
    paper prints its authors: ``author:`` falls back to it when ``authors`` is empty.
    """

    content_id: int
    title: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    head: str = ""


HEAD_CHARS = 1500
_ABSTRACT_RE = re.compile(r"\babstract\b", re.I)
_ARXIV_ID_RE = re.compile(r"arXiv:([0-2]\d)(0[1-9]|1[0-2])\.\d{4,5}")
_COPYRIGHT_RE = re.compile(r"(?:©|\(c\)|copyright)\s*((?:19|20)\d\d)\b", re.I)
_NAME_YEAR_RE = re.compile(r"(?<![\d.])((?:19[5-9]|20[0-4])\d)(?![\d.])")
_NAME_ARXIV_RE = re.compile(r"(?<!\d)([0-2]\d)(0[1-9]|1[0-2])\.\d{4,5}(?!\d)")


def _year_of(page1: str, docs: list[str]) -> int | None:
    """The publication year read from page 1 (the yymm of its arXiv id: the first
    version's month, not the stamp's date of a later version; then a copyright line),
    else from a file name (the yymm of an arXiv id, or a year)."""
    m = _ARXIV_ID_RE.search(page1)
    if m:
        return 2000 + int(m.group(1))
    m = _COPYRIGHT_RE.search(page1)
    if m:
        return int(m.group(1))
    for doc in docs:
        name = os.path.basename(doc)
        m = _NAME_ARXIV_RE.search(name)
        if m:
            return 2000 + int(m.group(1))
        m = _NAME_YEAR_RE.search(name)
        if m:
            return int(m.group(1))
    return None


def read_metadata(db: sqlite3.Connection, content_ids: set[int] | list[int],
                  docs_of: dict[int, list[str]] | None = None) -> dict[int, DocumentMeta]:
    """``{content_id: DocumentMeta}`` for the given contents (the one accessor the query
    fields read document metadata through): authors and year as :mod:`pdftui.metadata`
    stored them, else the year from page 1 or a file name; ``head`` (page 1 up to its
    abstract) is where ``author:`` looks when no authors are stored. ``docs_of`` names
    each content's files (for a year in a file name)."""
    out: dict[int, DocumentMeta] = {}
    stored = stored_metadata(db, content_ids)   # pdftui.metadata's authors and year
    for cid in sorted(content_ids):
        row = db.execute(
            "SELECT c.title, p.text FROM contents c LEFT JOIN pages p ON p.content_id = c.id"
            " AND p.number = 1 WHERE c.id = ?", (cid,)).fetchone()
        if row is None:
            continue
        title, page1 = row[0] or "", row[1] or ""
        m = _ABSTRACT_RE.search(page1, 0, HEAD_CHARS)
        head = page1[: m.start() if m else HEAD_CHARS]
        got = stored.get(cid)
        year = got.year if got is not None and got.year else \
            _year_of(page1, (docs_of or {}).get(cid, []))
        out[cid] = DocumentMeta(cid, title, tuple(got.authors) if got is not None else (),
                                year, head)
    return out


def read_vocabulary(db: sqlite3.Connection, content_ids: set[int]) -> dict[str, int]:
    """``{word: number of the given contents holding it}`` from the ``words`` table (the
    surface words typo suggestions are drawn from)."""
    ids = sorted(content_ids)
    out: dict[str, int] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        for w, n in db.execute("SELECT word, count(*) FROM words WHERE content_id IN"
                               f" ({','.join('?' * len(chunk))}) GROUP BY word", chunk):
            out[w] = out.get(w, 0) + n
    return out


def section_spans(db: sqlite3.Connection, section_ids: set[int]
                  ) -> list[tuple[int, int, int, int]]:
    """``[(section id, content id, start page, last page)]`` of the given sections."""
    ids = sorted(section_ids)
    out = []
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        out.extend((sid, cid, sp, last_page(sp, ep, eb)) for sid, cid, sp, ep, eb in db.execute(
            "SELECT id, content_id, start_page, end_page, end_block FROM sections"
            f" WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    return out


_SECTION_COLS = ("id", "ordinal", "level", "title", "path", "start_page", "start_block",
                 "end_page", "end_block", "source", "own_chars")


def read_sections(db: sqlite3.Connection, content_id: int) -> list[Section]:
    """The sections of one content in document order (by start, then ordinal), without
    their text: ``text`` is '' (:meth:`Library.section` reads a section's text)."""
    return [Section(**dict(zip(_SECTION_COLS, r))) for r in db.execute(
        f"SELECT {', '.join(_SECTION_COLS)} FROM sections WHERE content_id=?"
        " ORDER BY start_page, start_block, ordinal", (content_id,))]


@dataclass(slots=True)
class SectionText:
    """A page or a whole section as plain text (``pdftui read --json`` prints this)."""

    doc: str
    title: str
    start_page: int
    end_page: int
    text: str
    path: str = ""
    section_id: int | None = None
    ocr: bool = False

    def to_json(self) -> dict:
        """``{"doc", "title", "start_page", "end_page", "text"}`` plus path, id and ``ocr``
        (true when some of the text was recognised by OCR from a scan)."""
        return {"doc": self.doc, "title": self.title, "start_page": self.start_page,
                "end_page": self.end_page, "text": self.text, "section_path": self.path,
                "section_id": self.section_id, "ocr": self.ocr}


#: Leading heading numbers: "3", "3.2.", "A.1", "B.", "IV.", "Chapter 4", "Appendix A".
_NUMBERING_RE = re.compile(
    r"^\s*(?:(?:chapter|section|appendix)\s+)?"
    r"(?:[0-9]+(?:\.[0-9a-z]+)*\.?|[a-z](?:\.[0-9]+)+\.?|[a-z]\.|[ivxlc]+\.|[a-z](?=\s*$))\s*",
    re.IGNORECASE)


def _authors(raw: str | None) -> tuple[str, ...]:
    """The stored JSON list of names as a tuple (() when absent or damaged)."""
    try:
        names = json.loads(raw or "[]")
    except ValueError:
        return ()
    return tuple(n for n in names if isinstance(n, str)) if isinstance(names, list) else ()


class AuthorNames(Sequence[str]):
    """The names of a stored JSON list (:func:`_authors`), parsed when first read: the
    document list of a large folder is shown long before any row's authors are (one JSON
    parse per document was a tenth of the list's query at 10,000 documents). Compares
    equal to the tuple of its names."""

    __slots__ = ("_raw", "_names")

    def __init__(self, raw: str | None):
        self._raw = raw
        self._names: tuple[str, ...] | None = None

    def names(self) -> tuple[str, ...]:
        """The names as a tuple (parsed once)."""
        got = self._names
        if got is None:   # two threads may both parse it: the same tuple either way
            got = self._names = _authors(self._raw)
        return got

    def __getitem__(self, i):
        return self.names()[i]

    def __len__(self) -> int:
        return len(self.names())

    def __iter__(self):
        return iter(self.names())

    def __eq__(self, other) -> bool:
        if isinstance(other, AuthorNames):
            other = other.names()
        return self.names() == other if isinstance(other, tuple) else NotImplemented

    __hash__ = None   # compared like the tuple it stands for, but not a key

    def __repr__(self) -> str:
        return repr(self.names())


def _set_metadata(info: DocumentInfo, authors, year, arxiv_id, doi) -> None:
    """Fill ``info``'s metadata fields from a ``metadata`` row (all None: not read yet);
    the authors are parsed when first read (:class:`AuthorNames`)."""
    info.authors = AuthorNames(authors) if authors and authors != "[]" else ()
    info.year = year
    info.arxiv_id = arxiv_id or ""
    info.doi = doi or ""


def stored_metadata(db: sqlite3.Connection, content_ids) -> dict[int, Metadata]:
    """``{content_id: Metadata}`` of the given contents as the index stored it (authors,
    year, arXiv id, DOI; :mod:`pdftui.metadata`); contents not read yet are absent."""
    ids = sorted(set(content_ids))
    out: dict[int, Metadata] = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        for cid, authors, year, arxiv_id, doi, version in db.execute(
                "SELECT content_id, authors, year, arxiv_id, doi, version FROM metadata"
                f" WHERE content_id IN ({','.join('?' * len(chunk))})", chunk):
            out[cid] = Metadata(_authors(authors), year, arxiv_id or "", doi or "", version)
    return out


@dataclass(frozen=True, slots=True)
class FileState:
    """One file of a folder as the search service scopes it.

    ``doc`` is its path relative to the root; ``content_id`` None while it is queued for
    indexing; ``file_reason`` / ``content_reason`` why the file or its content was skipped
    (None when not); ``text_quality`` "ok", "no text layer", "unreliable"... (None while
    queued); ``ocr_missing`` the scanned pages still waiting for OCR (None while queued).
    """

    doc: str
    content_id: int | None
    file_reason: str | None
    content_reason: str | None
    text_quality: str | None
    ocr_missing: int | None


def read_file_states(db: sqlite3.Connection, root: str) -> list[FileState]:
    """Every file of folder ``root`` (a real path), by content id then ``doc``."""
    return [FileState(*r) for r in db.execute(
        "SELECT f.doc, f.content_id, f.skip_reason, c.skip_reason, c.text_quality,"
        " c.ocr_missing FROM files f LEFT JOIN contents c ON c.id = f.content_id"
        " WHERE f.root = ? ORDER BY f.content_id, f.doc", (root,))]


@dataclass(frozen=True, slots=True)
class PageText:
    """One page's printed label ('' when none) and plain text; ``number`` is 1-based."""

    number: int
    label: str
    text: str


def read_pages(db: sqlite3.Connection, content_id: int,
               numbers: list[int] | None = None) -> dict[int, PageText]:
    """``{number: PageText}`` of the given pages (1-based) of one content, or of all of its
    pages when ``numbers`` is None; numbers past its last page are absent."""
    if numbers is None:
        rows = db.execute("SELECT number, label, text FROM pages WHERE content_id=?",
                          (content_id,))
    elif not numbers:
        return {}
    else:
        q = ",".join("?" * len(numbers))
        rows = db.execute(
            f"SELECT number, label, text FROM pages WHERE content_id=? AND number IN ({q})",
            (content_id, *numbers))
    return {n: PageText(n, label, text) for n, label, text in rows}


def any_ocr(db: sqlite3.Connection, content_id: int, first: int, last: int) -> bool:
    """Does any page ``first``..``last`` (1-based, inclusive) of one content hold text
    recognised by OCR?"""
    return db.execute(
        "SELECT 1 FROM pages WHERE content_id=? AND number BETWEEN ? AND ? AND ocr=1"
        " LIMIT 1", (content_id, first, last)).fetchone() is not None


@dataclass(frozen=True, slots=True)
class BlockText:
    """One text block: its 1-based page, its 0-based ordinal (reading order) and text."""

    page: int
    ordinal: int
    text: str


def read_block_texts(db: sqlite3.Connection, content_id: int, first: int | None = None,
                     last: int | None = None, limit: int | None = None) -> list[BlockText]:
    """The blocks of pages ``first``..``last`` (1-based, inclusive; every page when None)
    of one content in reading order (page, then ordinal), at most ``limit`` of them."""
    sql = "SELECT page, ordinal, text FROM blocks WHERE content_id=?"
    args: list = [content_id]
    if first is not None:
        sql += " AND page BETWEEN ? AND ?"
        args += [first, first if last is None else last]
    sql += " ORDER BY page, ordinal"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    return [BlockText(*r) for r in db.execute(sql, args)]


def read_furniture(db: sqlite3.Connection, content_id: int) -> Furniture:
    """The running headers, footers and page numbers of one content
    (:func:`pdftui.furniture.detect` over all its blocks)."""
    return detect((b.page, b.ordinal, b.text) for b in read_block_texts(db, content_id))


def read_page_blocks(db: sqlite3.Connection, content_id: int, page: int) -> list[str]:
    """The block texts of one page (1-based) in reading order (empty past the last page)."""
    return [b.text for b in read_block_texts(db, content_id, page, page)]


def read_bracketed_blocks(db: sqlite3.Connection, content_id: int) -> list[BlockText]:
    """The blocks of one content that open with '[' (numbered reference entries such as
    "[12] A. Author..."), in reading order."""
    return [BlockText(*r) for r in db.execute(
        "SELECT page, ordinal, text FROM blocks WHERE content_id=? AND text LIKE '[%'"
        " ORDER BY page, ordinal", (content_id,))]


def read_section_keys(db: sqlite3.Connection) -> "np.ndarray":
    """``(n, 3)`` int64 ``[content id, sections.ordinal, sections.id]`` of every section,
    in (content, ordinal) order, streamed into the array (no tuple per row)."""
    import numpy as np

    return np.fromiter(itertools.chain.from_iterable(db.execute(
        "SELECT content_id, ordinal, id FROM sections ORDER BY content_id, ordinal")),
        dtype=np.int64).reshape(-1, 3)


@dataclass(frozen=True, slots=True)
class EmbeddingState:
    """How far one content's embedding for one model got: units embedded of its total."""

    units_done: int
    units_total: int

    @property
    def complete(self) -> bool:
        """Every unit embedded."""
        return self.units_done >= self.units_total


def read_embedding_states(db: sqlite3.Connection, model_id: str) -> dict[int, EmbeddingState]:
    """``{content_id: EmbeddingState}`` of every content with embedding progress for
    ``model_id``."""
    return {int(c): EmbeddingState(int(d), int(t)) for c, d, t in db.execute(
        "SELECT content_id, units_done, units_total FROM embeddings WHERE model_id = ?",
        (model_id,))}


def dominant_weights_hash(db: sqlite3.Connection, model_id: str) -> str | None:
    """The weights hash (as stored: "sha256[+suffix]") that made most of the cache's units
    for ``model_id``; None when nothing is embedded with it."""
    row = db.execute(
        "SELECT weights_hash FROM embeddings WHERE model_id=? GROUP BY weights_hash"
        " ORDER BY sum(units_done) DESC LIMIT 1", (model_id,)).fetchone()
    return str(row[0]) if row else None


@dataclass(slots=True)
class UnitColumns:
    """The embedding units of one content for one model as columns, in (page, ordinal)
    order: 1-based ``pages`` (``cache.SECTION_HEAD_PAGE`` for section head units),
    character ranges ``starts``/``ends`` in the page text, float32 ``vectors`` blobs and
    ``ordinals`` (a section head's: its section's ordinal)."""

    pages: list[int]
    starts: list[int]
    ends: list[int]
    vectors: list[bytes]
    ordinals: list[int]


def read_units(db: sqlite3.Connection, content_id: int, model_id: str) -> UnitColumns:
    """Every embedding unit of one content for ``model_id`` (:class:`UnitColumns`)."""
    rows = db.execute(
        "SELECT page, char_start, char_end, vector, ordinal FROM units"
        " WHERE content_id = ? AND model_id = ? ORDER BY page, ordinal",
        (content_id, model_id)).fetchall()
    if not rows:
        return UnitColumns([], [], [], [], [])
    return UnitColumns(*(list(col) for col in zip(*rows)))



class Library:
    """The read side of the cache for one root folder.

    ``root`` is the folder (made real with ``os.path.realpath``). One instance owns one
    SQLite connection; use it from one thread at a time.
    """

    def __init__(self, root: str | os.PathLike, cache_dir: str | os.PathLike | None = None):
        self.root = os.path.realpath(os.fspath(root))
        self.cache = Cache(cache_dir, read_only_ok=True)
        self.db: sqlite3.Connection = self.cache.db
        self._furniture: dict[int, Furniture] = {}

    def close(self) -> None:
        """Close the connection."""
        self.cache.close()

    def documents(self, model_id: str | None = None) -> list[DocumentInfo]:
        """Every document of the folder in ``doc`` order, with status, page count and
        metadata (authors, year, arXiv id, DOI; empty until read)."""
        rows = self.db.execute(
            "SELECT f.doc, f.skip_reason, c.id, c.title, c.page_count, c.skip_reason,"
            " c.text_quality, c.sha256, c.ocr_missing, m.authors, m.year, m.arxiv_id, m.doi"
            " FROM files f LEFT JOIN contents c ON c.id = f.content_id"
            " LEFT JOIN metadata m ON m.content_id = c.id"
            " WHERE f.root = ? ORDER BY f.doc", (self.root,),
        ).fetchall()
        # every OCR'd page of the cache from the partial index ``pages_ocr`` (no page
        # row is read); the folder's contents pick theirs below
        ocr_pages = dict(self.db.execute(
            "SELECT content_id, count(*) FROM pages WHERE ocr = 1 GROUP BY content_id"
        ).fetchall())
        emb: dict[int, float] = {}
        if model_id:
            for cid, total, done in self.db.execute(
                "SELECT content_id, units_total, units_done FROM embeddings WHERE model_id=?",
                (model_id,),
            ):
                emb[cid] = (done / total) if total else 1.0
        out = []
        for doc, freason, cid, title, pages, creason, quality, sha, missing, *md in rows:
            if cid is None and not freason:
                out.append(DocumentInfo(doc, os.path.basename(doc), 0, "queued", "", 0.0))
                continue
            if cid is None or creason:
                out.append(DocumentInfo(doc, title or os.path.basename(doc), pages or 0,
                                        "skipped", freason or creason or "", 0.0, cid,
                                        sha or ""))
                continue
            if quality != "ok":
                reason = pending_note(missing) if missing and quality == "no text layer" \
                    else quality
                out.append(DocumentInfo(doc, title, pages, quality, reason, 0.0, cid, sha,
                                        ocr_pending=missing))
            else:
                frac = emb.get(cid, 0.0) if model_id else 1.0
                status = "indexed" if frac >= 1.0 else "embedding"
                out.append(DocumentInfo(doc, title, pages, status, "", frac, cid, sha,
                                        ocr_pages=ocr_pages.get(cid, 0), ocr_pending=missing))
            _set_metadata(out[-1], *md)
        return out

    def metadata(self, doc: str) -> Metadata:
        """The document's :class:`~pdftui.document.Metadata` (empty when not read yet);
        raises :class:`NotFound`."""
        row = self.db.execute(
            "SELECT authors, year, arxiv_id, doi, version FROM metadata WHERE content_id=?",
            (self.content_id(doc),)).fetchone()
        if row is None:
            return Metadata()
        return Metadata(_authors(row[0]), row[1], row[2], row[3], row[4])

    def content_id(self, doc: str) -> int:
        """The content id of ``doc``; raises :class:`NotFound`."""
        row = self.db.execute(
            "SELECT content_id FROM files WHERE root=? AND doc=?", (self.root, doc)
        ).fetchone()
        if not row or row[0] is None:
            raise NotFound(f"no indexed document {doc!r} in {self.root}")
        return row[0]

    def title(self, doc: str) -> str:
        """The document's title (metadata title or file stem)."""
        row = self.db.execute("SELECT title FROM contents WHERE id=?",
                              (self.content_id(doc),)).fetchone()
        return row[0] if row else doc

    def page_count(self, doc: str) -> int:
        """Number of pages of ``doc``."""
        row = self.db.execute("SELECT page_count FROM contents WHERE id=?",
                              (self.content_id(doc),)).fetchone()
        return row[0] if row else 0

    def page(self, doc: str, number: int) -> SectionText:
        """Page ``number`` (1-based) of ``doc`` as plain text; raises :class:`NotFound`."""
        cid = self.content_id(doc)
        row = self.db.execute(
            "SELECT text, label, ocr FROM pages WHERE content_id=? AND number=?", (cid, number)
        ).fetchone()
        if not row:
            raise NotFound(f"{doc} has no page {number} (it has {self.page_count(doc)})")
        title = f"page {number}" + (f" ({row[1]})" if row[1] and row[1] != str(number) else "")
        return SectionText(doc, title, number, number, row[0], ocr=bool(row[2]))

    def page_label(self, doc: str, number: int) -> str:
        """The printed page label of page ``number`` ('' when none)."""
        row = self.db.execute(
            "SELECT label FROM pages WHERE content_id=? AND number=?",
            (self.content_id(doc), number),
        ).fetchone()
        return row[0] if row else ""

    def page_labels(self, doc: str) -> list[str]:
        """The printed label of every page, page 1 first ('' where it has none)."""
        rows = self.db.execute(
            "SELECT number, label FROM pages WHERE content_id=? ORDER BY number",
            (self.content_id(doc),)).fetchall()
        out = [""] * (rows[-1][0] if rows else 0)
        for number, label in rows:
            out[number - 1] = label or ""
        return out

    def blocks(self, doc: str, number: int) -> list[tuple[float, float, float, float, str]]:
        """Text blocks of a page in reading order: ``(x0, y0, x1, y1, text)`` in points."""
        return self.db.execute(
            "SELECT x0, y0, x1, y1, text FROM blocks WHERE content_id=? AND page=?"
            " ORDER BY ordinal", (self.content_id(doc), number),
        ).fetchall()

    def sections(self, doc: str) -> list[Section]:
        """The document's sections in document order, without their text (see
        :func:`read_sections`). Raises :class:`NotFound`."""
        return read_sections(self.db, self.content_id(doc))

    def section(self, doc: str, key: str | int) -> SectionText:
        """A whole section by id (int or digits) or title (exact, then case-insensitive
        prefix, then substring). Raises :class:`NotFound`."""
        cid = self.content_id(doc)
        cols = "id, title, path, start_page, end_page, end_block, text"
        row = None
        if isinstance(key, int) or (isinstance(key, str) and key.isdigit()):
            row = self.db.execute(
                f"SELECT {cols} FROM sections WHERE content_id=? AND id=?", (cid, int(key))
            ).fetchone()
        if row is None and isinstance(key, str):
            row = self._match_title(cid, cols, key)
        if row is None:
            raise NotFound(f"no section {key!r} in {doc}")
        sid, title, path, start, end, end_block, text = row
        last = last_page(start, end, end_block)
        return SectionText(doc, title, start, last, text, path, sid,
                           ocr=self.ocr_in(cid, start, last))

    def furniture(self, doc: str) -> Furniture:
        """The running headers, footers and page numbers of ``doc``
        (:func:`pdftui.furniture.detect`), read once per content. Raises :class:`NotFound`."""
        cid = self.content_id(doc)
        got = self._furniture.get(cid)
        if got is None:
            got = self._furniture[cid] = read_furniture(self.db, cid)
        return got

    def ocr_in(self, cid: int, first: int, last: int) -> bool:
        """Does any page ``first``..``last`` (1-based) of content ``cid`` hold OCR text?"""
        return any_ocr(self.db, cid, first, last)

    def _match_title(self, cid: int, cols: str, key: str):
        """The first section whose title matches ``key``: equal ignoring case, then equal
        once leading numbering ("3.2", "A.1", "IV.") is dropped from both, then a title
        starting with it, then one containing it (outline order decides among equals)."""
        rows = self.db.execute(
            f"SELECT {cols} FROM sections WHERE content_id=? ORDER BY ordinal", (cid,)
        ).fetchall()
        k = " ".join(key.split()).casefold()
        bare = _NUMBERING_RE.sub("", k)
        tests = (
            lambda t: t == k,
            lambda t: bool(bare) and _NUMBERING_RE.sub("", t) == bare,
            lambda t: t.startswith(k),
            lambda t: k in t,
        )
        for test in tests:
            for r in rows:
                if test(" ".join(r[1].split()).casefold()):
                    return r
        return None

    def section_at(self, doc: str, page: int, block: int = 0) -> SectionText | None:
        """The innermost section that holds block ``block`` of 1-based ``page``
        (:func:`pdftui.document.innermost`, the rule that names a search hit's section),
        or None."""
        sec = innermost(self.sections(doc), page, block)
        return self.section(doc, sec.id) if sec is not None else None
