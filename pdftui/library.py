"""Reading what the cache holds for one folder: documents, pages, outline and sections.

This is the read side shared by ``pdftui read`` and the TUI's corpus and reader panes. It
never opens a PDF: everything comes from the cache that :func:`pdftui.index.index_folder`
keeps current. Pages are 1-based.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from .errors import NotFound
from .furniture import Furniture, detect
from .hidden_text import HiddenSpan, locate
from .document import Metadata, Section, innermost, last_page
from .ocr import pending_note
from .store import reader
from .store.database import Cache
from .store.reader import parse_authors, read_block_texts, read_sections, stored_metadata


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
    #: The document holds hidden text (:mod:`pdftui.hidden_text`) that reads like an
    #: instruction to a machine reader ("ignore all previous instructions ...").
    hidden_instructions: bool = False

    def to_json(self) -> dict:
        """``{"doc", "title", "authors", "year", "arxiv_id", "doi", "pages", "status",
        "hidden_instructions"}`` (plus ``reason`` when skipped, OCR counts when any)."""
        d = {"doc": self.doc, "title": self.title, "authors": list(self.authors),
             "year": self.year, "arxiv_id": self.arxiv_id, "doi": self.doi,
             "pages": self.pages, "status": self.status}
        if self.reason:
            d["reason"] = self.reason
        if self.ocr_pages:
            d["ocr_pages"] = self.ocr_pages   # pages whose text was recognised by OCR
        if self.ocr_pending:
            d["ocr_pending"] = self.ocr_pending   # scanned pages the next index will OCR
        d["hidden_instructions"] = self.hidden_instructions
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
        row = reader.title_and_first_page(db, cid)
        if row is None:
            continue
        title, page1 = row
        title, page1 = row[0] or "", row[1] or ""
        m = _ABSTRACT_RE.search(page1, 0, HEAD_CHARS)
        head = page1[: m.start() if m else HEAD_CHARS]
        got = stored.get(cid)
        year = got.year if got is not None and got.year else \
            _year_of(page1, (docs_of or {}).get(cid, []))
        out[cid] = DocumentMeta(cid, title, tuple(got.authors) if got is not None else (),
                                year, head)
    return out


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
    #: The hidden runs of its pages (:class:`pdftui.store.reader.HiddenRow`, page order):
    #: a page's all, a section's those its text holds.
    hidden: list = field(default_factory=list)

    def hidden_spans(self) -> list[HiddenSpan]:
        """The hidden runs placed in ``text`` (:func:`pdftui.hidden_text.locate`)."""
        return locate(self.text, self.hidden)

    def to_json(self) -> dict:
        """``{"doc", "title", "start_page", "end_page", "text"}`` plus path, id, ``ocr``
        (true when some of the text was recognised by OCR from a scan) and
        ``hidden_text``: ``[{"kind", "label", "text", "start", "end", "instruction"}]``,
        the runs a reader of the PDF cannot see, with their character range in ``text``
        (None when hidden text is not indexed)."""
        return {"doc": self.doc, "title": self.title, "start_page": self.start_page,
                "end_page": self.end_page, "text": self.text, "section_path": self.path,
                "section_id": self.section_id, "ocr": self.ocr,
                "hidden_text": [h.to_json() for h in self.hidden_spans()]}


#: Leading heading numbers: "3", "3.2.", "A.1", "B.", "IV.", "Chapter 4", "Appendix A".
_NUMBERING_RE = re.compile(
    r"^\s*(?:(?:chapter|section|appendix)\s+)?"
    r"(?:[0-9]+(?:\.[0-9a-z]+)*\.?|[a-z](?:\.[0-9]+)+\.?|[a-z]\.|[ivxlc]+\.|[a-z](?=\s*$))\s*",
    re.IGNORECASE)


class AuthorNames(Sequence[str]):
    """The names of a stored JSON list (:func:`pdftui.store.reader.parse_authors`), parsed
    when first read: the document list of a large folder is shown long before any row's
    authors are (one JSON parse per document was a tenth of the list's query at 10,000
    documents). Compares equal to the tuple of its names."""

    __slots__ = ("_raw", "_names")

    def __init__(self, raw: str | None):
        self._raw = raw
        self._names: tuple[str, ...] | None = None

    def names(self) -> tuple[str, ...]:
        """The names as a tuple (parsed once)."""
        got = self._names
        if got is None:   # two threads may both parse it: the same tuple either way
            got = self._names = parse_authors(self._raw)
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



def read_furniture(db: sqlite3.Connection, content_id: int) -> Furniture:
    """The running headers, footers and page numbers of one content
    (:func:`pdftui.furniture.detect` over all its blocks)."""
    return detect((b.page, b.ordinal, b.text) for b in read_block_texts(db, content_id))


def read_page_blocks(db: sqlite3.Connection, content_id: int, page: int) -> list[str]:
    """The block texts of one page (1-based) in reading order (empty past the last page)."""
    return [b.text for b in read_block_texts(db, content_id, page, page)]



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
        rows = reader.read_documents(self.db, self.root)
        # every OCR'd page of the cache from the partial index ``pages_ocr`` (no page
        # row is read); the folder's contents pick theirs below
        ocr_pages = reader.ocr_page_counts(self.db)
        emb = reader.embedded_fractions(self.db, model_id) if model_id else {}
        flagged = reader.instruction_contents(self.db)
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
            out[-1].hidden_instructions = cid in flagged
            _set_metadata(out[-1], *md)
        return out

    def metadata(self, doc: str) -> Metadata:
        """The document's :class:`~pdftui.document.Metadata` (empty when not read yet);
        raises :class:`NotFound`."""
        got = reader.content_metadata(self.db, self.content_id(doc))
        return Metadata() if got is None else got

    def content_id(self, doc: str) -> int:
        """The content id of ``doc``; raises :class:`NotFound`."""
        cid = reader.file_content_id(self.db, self.root, doc)
        if cid is None:
            raise NotFound(f"no indexed document {doc!r} in {self.root}")
        return cid

    def title(self, doc: str) -> str:
        """The document's title (metadata title or file stem)."""
        got = reader.content_title(self.db, self.content_id(doc))
        return doc if got is None else got

    def page_count(self, doc: str) -> int:
        """Number of pages of ``doc``."""
        got = reader.content_page_count(self.db, self.content_id(doc))
        return 0 if got is None else got

    def page(self, doc: str, number: int) -> SectionText:
        """Page ``number`` (1-based) of ``doc`` as plain text; raises :class:`NotFound`."""
        row = reader.read_page(self.db, self.content_id(doc), number)
        if not row:
            raise NotFound(f"{doc} has no page {number} (it has {self.page_count(doc)})")
        text, label, ocr = row
        title = f"page {number}" + (f" ({label})" if label and label != str(number) else "")
        return SectionText(doc, title, number, number, text, ocr=ocr,
                           hidden=self.hidden(doc, number, number))

    def hidden(self, doc: str, first: int, last: int) -> list:
        """The hidden runs (:class:`pdftui.store.reader.HiddenRow`) of pages
        ``first``..``last`` (1-based) of ``doc``, in page order."""
        return reader.read_hidden(self.db, self.content_id(doc), first, last)

    def page_label(self, doc: str, number: int) -> str:
        """The printed page label of page ``number`` ('' when none)."""
        return reader.page_label(self.db, self.content_id(doc), number)

    def page_labels(self, doc: str) -> list[str]:
        """The printed label of every page, page 1 first ('' where it has none)."""
        rows = reader.page_labels(self.db, self.content_id(doc))
        out = [""] * (rows[-1][0] if rows else 0)
        for number, label in rows:
            out[number - 1] = label or ""
        return out

    def blocks(self, doc: str, number: int) -> list[tuple[float, float, float, float, str]]:
        """Text blocks of a page in reading order: ``(x0, y0, x1, y1, text)`` in points."""
        return reader.page_block_boxes(self.db, self.content_id(doc), number)

    def sections(self, doc: str) -> list[Section]:
        """The document's sections in document order, without their text (see
        :func:`read_sections`). Raises :class:`NotFound`."""
        return read_sections(self.db, self.content_id(doc))

    def section(self, doc: str, key: str | int) -> SectionText:
        """A whole section by id (int or digits) or title (exact, then case-insensitive
        prefix, then substring). Raises :class:`NotFound`."""
        cid = self.content_id(doc)
        row = None
        if isinstance(key, int) or (isinstance(key, str) and key.isdigit()):
            row = reader.section_row(self.db, cid, int(key))
        if row is None and isinstance(key, str):
            row = self._match_title(cid, key)
        if row is None:
            raise NotFound(f"no section {key!r} in {doc}")
        sid, title, path, start, end, end_block, text = row
        last = last_page(start, end, end_block)
        runs = [h for h in reader.read_hidden(self.db, cid, start, last) if h.text in text]
        return SectionText(doc, title, start, last, text, path, sid,
                           ocr=self.ocr_in(cid, start, last), hidden=runs)

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
        return reader.any_ocr(self.db, cid, first, last)

    def _match_title(self, cid: int, key: str):
        """The first section whose title matches ``key``: equal ignoring case, then equal
        once leading numbering ("3.2", "A.1", "IV.") is dropped from both, then a title
        starting with it, then one containing it (outline order decides among equals)."""
        rows = reader.section_rows(self.db, cid)
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
