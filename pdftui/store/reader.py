"""What the search service, the reader and the library read from the cache.

Every function takes the cache connection (:attr:`pdftui.store.database.Cache.db`) and
returns typed rows; nothing here writes. Pages are 1-based; block ordinals 0-based in
reading order; ``content_id`` is ``contents.id``, a section id ``sections.id``.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from dataclasses import dataclass
from typing import NamedTuple

from ..document import Metadata, Section, last_page


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


def parse_authors(raw: str | None) -> tuple[str, ...]:
    """The stored JSON list of names (``metadata.authors``) as a tuple (() when absent or
    damaged)."""
    try:
        names = json.loads(raw or "[]")
    except ValueError:
        return ()
    return tuple(n for n in names if isinstance(n, str)) if isinstance(names, list) else ()


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
            out[cid] = Metadata(parse_authors(authors), year, arxiv_id or "", doi or "", version)
    return out


def content_metadata(db: sqlite3.Connection, content_id: int) -> Metadata | None:
    """The stored :class:`~pdftui.document.Metadata` of one content, None when not read
    yet."""
    row = db.execute(
        "SELECT authors, year, arxiv_id, doi, version FROM metadata WHERE content_id=?",
        (content_id,)).fetchone()
    if row is None:
        return None
    return Metadata(parse_authors(row[0]), row[1], row[2], row[3], row[4])


def title_and_first_page(db: sqlite3.Connection, content_id: int) -> tuple[str, str] | None:
    """``(title, text of page 1)`` of a content ('' for either when missing), None when
    there is no such content."""
    row = db.execute(
        "SELECT c.title, p.text FROM contents c LEFT JOIN pages p ON p.content_id = c.id"
        " AND p.number = 1 WHERE c.id = ?", (content_id,)).fetchone()
    return None if row is None else (row[0] or "", row[1] or "")


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


def read_embedding_fingerprints(db: sqlite3.Connection, model_id: str) -> dict[int, str]:
    """``{content_id: "<contents.sha256>/<weights hash>"}`` of every content with embedding
    progress for ``model_id``: changes when a content id is given to another file's
    content or its units are embedded again with other weights."""
    return {int(c): f"{s}/{w}" for c, s, w in db.execute(
        "SELECT e.content_id, c.sha256, e.weights_hash FROM embeddings e"
        " JOIN contents c ON c.id = e.content_id WHERE e.model_id = ?", (model_id,))}


def read_cache_id(db: sqlite3.Connection) -> str | None:
    """The cache's identity (``meta`` key ``cache_id``: a random id given when the cache
    was made or its layout last changed), None when it has none or cannot be read."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'cache_id'").fetchone()
    except sqlite3.Error:
        return None
    return str(row[0]) if row else None


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


class SqliteVectorIndex:
    """The cache's embedding units as a :class:`pdftui.store.protocols.VectorIndex`: the
    functions above over one connection."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def embedding_states(self, model_id: str) -> dict[int, EmbeddingState]:
        """:func:`read_embedding_states`."""
        return read_embedding_states(self.db, model_id)

    def units(self, content_id: int, model_id: str) -> UnitColumns:
        """:func:`read_units`."""
        return read_units(self.db, content_id, model_id)

    def dominant_weights_hash(self, model_id: str) -> str | None:
        """:func:`dominant_weights_hash`."""
        return dominant_weights_hash(self.db, model_id)


# -- one folder's documents (pdftui.library.Library) ------------------------------------------
class DocumentRow(NamedTuple):
    """One file of a folder with its content and metadata as stored (content fields None
    while the file is queued; metadata fields None until read). A tuple: the document
    list of a large folder unpacks 10,000 of them."""

    doc: str
    file_reason: str | None
    content_id: int | None
    title: str | None
    page_count: int | None
    content_reason: str | None
    text_quality: str | None
    sha256: str | None
    ocr_missing: int | None
    authors: str | None
    year: int | None
    arxiv_id: str | None
    doi: str | None


def read_documents(db: sqlite3.Connection, root: str) -> list[DocumentRow]:
    """Every file of folder ``root`` (a real path), by ``doc``."""
    return [DocumentRow._make(r) for r in db.execute(
        "SELECT f.doc, f.skip_reason, c.id, c.title, c.page_count, c.skip_reason,"
        " c.text_quality, c.sha256, c.ocr_missing, m.authors, m.year, m.arxiv_id, m.doi"
        " FROM files f LEFT JOIN contents c ON c.id = f.content_id"
        " LEFT JOIN metadata m ON m.content_id = c.id"
        " WHERE f.root = ? ORDER BY f.doc", (root,),
    ).fetchall()]


def ocr_page_counts(db: sqlite3.Connection) -> dict[int, int]:
    """``{content_id: pages whose text was recognised by OCR}`` of the whole cache, from
    the partial index ``pages_ocr`` (no page row is read)."""
    return dict(db.execute(
        "SELECT content_id, count(*) FROM pages WHERE ocr = 1 GROUP BY content_id"
    ).fetchall())


def embedded_fractions(db: sqlite3.Connection, model_id: str) -> dict[int, float]:
    """``{content_id: units embedded / units}`` (0.0-1.0; 1.0 for a content without
    units) of every content with embedding progress for ``model_id``."""
    return {cid: (done / total) if total else 1.0 for cid, total, done in db.execute(
        "SELECT content_id, units_total, units_done FROM embeddings WHERE model_id=?",
        (model_id,))}


def file_content_id(db: sqlite3.Connection, root: str, doc: str) -> int | None:
    """The content id of ``doc`` in folder ``root``, None when unknown or queued."""
    row = db.execute(
        "SELECT content_id FROM files WHERE root=? AND doc=?", (root, doc)
    ).fetchone()
    return row[0] if row else None


def content_title(db: sqlite3.Connection, content_id: int) -> str | None:
    """The stored title of a content (None: no such content)."""
    row = db.execute("SELECT title FROM contents WHERE id=?", (content_id,)).fetchone()
    return row[0] if row else None


def content_page_count(db: sqlite3.Connection, content_id: int) -> int | None:
    """The page count of a content (None: no such content)."""
    row = db.execute("SELECT page_count FROM contents WHERE id=?", (content_id,)).fetchone()
    return row[0] if row else None


def read_page(db: sqlite3.Connection, content_id: int, number: int
              ) -> tuple[str, str, bool] | None:
    """``(text, label, recognised by OCR)`` of page ``number`` (1-based), None past the
    last page."""
    row = db.execute(
        "SELECT text, label, ocr FROM pages WHERE content_id=? AND number=?",
        (content_id, number)).fetchone()
    return (row[0], row[1], bool(row[2])) if row else None


def page_label(db: sqlite3.Connection, content_id: int, number: int) -> str:
    """The printed label of page ``number`` (1-based; '' when none)."""
    row = db.execute(
        "SELECT label FROM pages WHERE content_id=? AND number=?", (content_id, number),
    ).fetchone()
    return row[0] if row else ""


def page_labels(db: sqlite3.Connection, content_id: int) -> list[tuple[int, str]]:
    """``[(page number, printed label)]`` of every page of a content, in page order."""
    return db.execute(
        "SELECT number, label FROM pages WHERE content_id=? ORDER BY number",
        (content_id,)).fetchall()


def page_block_boxes(db: sqlite3.Connection, content_id: int, number: int
                     ) -> list[tuple[float, float, float, float, str]]:
    """Text blocks of page ``number`` in reading order: ``(x0, y0, x1, y1, text)`` in
    points."""
    return db.execute(
        "SELECT x0, y0, x1, y1, text FROM blocks WHERE content_id=? AND page=?"
        " ORDER BY ordinal", (content_id, number),
    ).fetchall()


#: The columns :func:`section_row` and :func:`section_rows` return, in order.
SECTION_TEXT_COLS = "id, title, path, start_page, end_page, end_block, text"


def section_row(db: sqlite3.Connection, content_id: int, section_id: int) -> tuple | None:
    """The :data:`SECTION_TEXT_COLS` of one section of a content, None when it has no
    such section."""
    return db.execute(
        f"SELECT {SECTION_TEXT_COLS} FROM sections WHERE content_id=? AND id=?",
        (content_id, section_id)).fetchone()


def section_rows(db: sqlite3.Connection, content_id: int) -> list[tuple]:
    """The :data:`SECTION_TEXT_COLS` of every section of a content, in outline order."""
    return db.execute(
        f"SELECT {SECTION_TEXT_COLS} FROM sections WHERE content_id=? ORDER BY ordinal",
        (content_id,)).fetchall()


@dataclass(frozen=True, slots=True)
class HiddenRow:
    """One stored hidden run (:class:`pdftui.document.HiddenText`) of a page: 1-based
    ``page``, ``kind``, the page ``block`` holding it (None: not in the page text),
    ``instruction``, ``text``."""

    page: int
    kind: str
    block: int | None
    instruction: bool
    text: str


def read_hidden(db: sqlite3.Connection, content_id: int, first: int, last: int
                ) -> list[HiddenRow]:
    """The hidden runs of pages ``first``..``last`` (1-based) of a content, in page
    order."""
    return [HiddenRow(p, k, b, bool(i), t) for p, k, b, i, t in db.execute(
        "SELECT page, kind, block, instruction, text FROM hidden_text WHERE content_id=?"
        " AND page BETWEEN ? AND ? ORDER BY page, ordinal", (content_id, first, last))]


def hidden_positions(db: sqlite3.Connection, content_id: int) -> dict[tuple[int, int], str]:
    """``{(page, block): kind}`` of a content's hidden runs (block -1: a run that is no
    page block, hidden text not indexed)."""
    return {(p, -1 if b is None else b): k for p, b, k in db.execute(
        "SELECT page, block, kind FROM hidden_text WHERE content_id=?", (content_id,))}


def instruction_contents(db: sqlite3.Connection) -> set[int]:
    """Ids of the contents with hidden text that reads like an instruction to a machine
    reader (the partial index ``hidden_instruction``)."""
    return {r[0] for r in db.execute(
        "SELECT DISTINCT content_id FROM hidden_text WHERE instruction = 1")}


def page_sectioned_contents(db: sqlite3.Connection, source: str) -> frozenset[int]:
    """Ids of the contents whose sections are of ``source`` (the one section per page of a
    document without headings: :data:`pdftui.sections.PAGES_SOURCE`)."""
    return frozenset(r[0] for r in db.execute(
        "SELECT DISTINCT content_id FROM sections WHERE source = ?", (source,)))
