"""What indexing writes to the cache: files, contents (pages, blocks, outline, sections,
both FTS indexes, postings, identifiers, words), metadata and OCR results; and what it
reads to plan that work.

:class:`ContentWriter` is a part of :class:`pdftui.store.database.Cache` (it uses the
connection ``db``, ``write()`` and ``dir`` that class provides). Every change is one short
``BEGIN IMMEDIATE`` transaction; a content is inserted whole or not at all.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import ContextManager

from ..cache import EXTRACTOR_VERSION, SECTION_HEAD_CHARS, SECTION_HEAD_PAGE
from ..document import Extraction, Metadata
from ..identifiers import identifiers_in
from ..ocr import SETTINGS as OCR_SETTINGS
from .tokenizer import count_tokens, fts_text, surface_words


def _head_source(title: str, text: str, own_chars: int) -> tuple[str, str]:
    """What a section's head unit is made from: its title and the start of its own text."""
    own = text if own_chars < 0 else text[:own_chars]
    return title, own[:SECTION_HEAD_CHARS]



@dataclass
class _Previous:
    """What an older extraction of a content held that a new one may keep: its page texts
    by number, its embedding units, and each section's head source by ordinal."""

    texts: dict[int, str] = field(default_factory=dict)
    units: list[tuple] = field(default_factory=list)
    heads: dict[int, tuple[str, str]] = field(default_factory=dict)

    @classmethod
    def of(cls, db: sqlite3.Connection, content_id: int) -> _Previous:
        """What content ``content_id`` holds now (before it is replaced)."""
        return cls(
            dict(db.execute("SELECT number, text FROM pages WHERE content_id=?",
                            (content_id,))),
            db.execute("SELECT model_id, page, ordinal, char_start, char_end, vector FROM units"
                       " WHERE content_id=?", (content_id,)).fetchall(),
            {o: _head_source(t, x, n) for o, t, x, n in db.execute(
                "SELECT ordinal, title, text, own_chars FROM sections WHERE content_id=?",
                (content_id,))})

    def kept_units(self, cid: int, ex: Extraction) -> list[tuple]:
        """The unit rows (for content ``cid``) still valid for ``ex``: those of pages whose
        text did not change, and section heads made from the same title and opening."""
        same = {p.number for p in ex.pages if self.texts.get(p.number) == p.text}
        # a section head is kept by what it is made from, whatever its ordinal
        # (a heading added or dropped before it shifts the ordinals)
        head_vecs = {(u[0], self.heads[u[2]]): u for u in self.units
                     if u[1] == SECTION_HEAD_PAGE and u[2] in self.heads}
        keep = [(cid, *u) for u in self.units if u[1] != SECTION_HEAD_PAGE and u[1] in same]
        models = {u[0] for u in self.units}
        for s in ex.sections:
            src = _head_source(s.title, s.text, s.own_chars)
            for model_id in models:
                u = head_vecs.get((model_id, src))
                if u is not None:
                    keep.append((cid, model_id, SECTION_HEAD_PAGE, s.ordinal, *u[3:]))
        return keep


def _insert_pages(db: sqlite3.Connection, cid: int, ex: Extraction, index_text: bool) -> int:
    """Insert the pages (and their FTS rows when ``index_text``) and blocks of ``ex`` for
    content ``cid``; returns the pages' token count."""
    n_tokens_total = 0
    for page in ex.pages:
        n_tok = count_tokens(page.text) if index_text else 0
        n_tokens_total += n_tok
        pid = db.execute(
            "INSERT INTO pages(content_id, number, label, text, n_tokens, ocr)"
            " VALUES(?,?,?,?,?,?)",
            (cid, page.number, page.label, page.text, n_tok, int(page.ocr)),
        ).lastrowid
        if index_text and page.text.strip():
            db.execute("INSERT INTO pages_fts(rowid, text) VALUES(?, ?)",
                       (pid, fts_text(page.text)))
        db.executemany(
            "INSERT INTO blocks(content_id, page, ordinal, x0, y0, x1, y1, text)"
            " VALUES(?,?,?,?,?,?,?,?)",
            [(cid, page.number, i, b.x0, b.y0, b.x1, b.y1, b.text)
             for i, b in enumerate(page.blocks)],
        )
        if page.hidden:
            db.executemany(
                "INSERT INTO hidden_text(content_id, page, ordinal, kind, block,"
                " instruction, text) VALUES(?,?,?,?,?,?,?)",
                [(cid, page.number, i, h.kind, h.block, int(h.instruction), h.text)
                 for i, h in enumerate(page.hidden)])
    return n_tokens_total


def _insert_sections(db: sqlite3.Connection, cid: int, ex: Extraction,
                     index_text: bool) -> list[int]:
    """Insert the sections of ``ex`` for content ``cid`` (and their FTS rows, by title and
    own text, when ``index_text``); returns their row ids in order."""
    section_ids = []
    for s in ex.sections:
        sid = db.execute(
            "INSERT INTO sections(content_id, ordinal, level, title, path, start_page,"
            " start_block, end_page, end_block, text, source, n_tokens, own_chars)"
            " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (cid, s.ordinal, s.level, s.title, s.path, s.start_page, s.start_block,
             s.end_page, s.end_block, s.text, s.source,
             count_tokens(s.title + " " + s.own_text) if index_text else 0,
             s.own_chars),
        ).lastrowid
        section_ids.append(sid)
        if index_text:
            db.execute("INSERT INTO sections_fts(rowid, title, text) VALUES(?,?,?)",
                       (sid, fts_text(s.title), fts_text(s.own_text)))
    return section_ids



def _storable(s: str) -> str:
    """``s`` as text SQLite accepts: a title taken from a non-UTF-8 file name carries lone
    surrogates (``os.fsdecode``), which become ``\\xNN`` like :func:`corpus.safe_name`."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace") \
            if _only_escapes(s) else s.encode("utf-8", "backslashreplace").decode("utf-8")


def _only_escapes(s: str) -> bool:
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in s)



class ContentWriter:
    """The files and contents of the cache: what indexing writes and reads back to plan
    its work (a part of :class:`pdftui.store.database.Cache`)."""

    db: sqlite3.Connection
    dir: Path

    def write(self) -> ContextManager[sqlite3.Connection]:
        """A write transaction: :meth:`pdftui.store.database.Cache.write` (the class this
        is a part of)."""
        raise NotImplementedError

    # -- derived rows ---------------------------------------------------------------------
    def _fill_extras(self) -> None:
        """Fill ``page_idents``, ``section_idents`` and ``words`` for every indexed
        content from its cached page and section text (schema migration to v5)."""
        cids = [c for (c,) in self.db.execute(
            "SELECT id FROM contents WHERE skip_reason IS NULL AND text_quality = 'ok'")]
        for cid in cids:
            pages = self.db.execute("SELECT id, text FROM pages WHERE content_id=?",
                                    (cid,)).fetchall()
            secs = [(sid, title, text if own < 0 else text[:own])
                    for sid, title, text, own in self.db.execute(
                        "SELECT id, title, text, own_chars FROM sections WHERE content_id=?",
                        (cid,))]
            self._index_extras(cid, pages, secs)

    def _write_postings(self, cid: int) -> None:
        """(Re)write the ``postings`` rows of content ``cid`` from its cached page and
        section text, tokenised as its FTS rows were (in a txn)."""
        from . import postings   # numpy: only when postings are written

        db = self.db
        db.execute("DELETE FROM postings WHERE content_id = ?", (cid,))
        for kind in (postings.PAGES, postings.SECTIONS):
            rows = postings.fts_rows(db, kind, "content_id = ?", (cid,))
            db.executemany("INSERT INTO postings(kind, term, content_id, data)"
                           " VALUES(?,?,?,?)",
                           [(kind, term, cid, data) for term, data in postings.build(rows)])
        db.execute("UPDATE contents SET postings = 1 WHERE id = ?", (cid,))

    def postings_missing(self, root: str) -> list[int]:
        """Ids of the indexed contents of ``root``'s files whose postings are not written
        yet (a cache made before schema 8), in id order."""
        return [c for (c,) in self.db.execute(
            "SELECT DISTINCT c.id FROM contents c JOIN files f ON f.content_id = c.id"
            " WHERE f.root = ? AND c.postings = 0 AND c.skip_reason IS NULL"
            " AND c.text_quality = 'ok' ORDER BY c.id", (root,))]

    def fill_postings(self, content_id: int) -> None:
        """Write the postings of one content still without them (its own transaction;
        nothing when another process wrote them first or the content is gone)."""
        with self.write() as db:
            row = db.execute("SELECT postings FROM contents WHERE id = ?",
                             (content_id,)).fetchone()
            if row is not None and not row[0]:
                self._write_postings(content_id)

    def _index_extras(self, cid: int, pages: list[tuple[int, str]],
                      sections: list[tuple[int, str, str]]) -> None:
        """Write the identifiers of ``pages`` ``[(page id, text)]`` and ``sections``
        ``[(section id, title, own text)]`` and the content's surface words (in a txn)."""
        db = self.db
        words: set[str] = set()
        rows = []
        for pid, text in pages:
            rows.extend((cid, pid, i, n) for i, n in identifiers_in(text).items())
            words.update(surface_words(text))
        db.executemany("INSERT OR REPLACE INTO page_idents(content_id, page_id, ident, n)"
                       " VALUES(?,?,?,?)", rows)
        srows = []
        for sid, title, own in sections:
            for col, text in (("title", title), ("text", own)):
                srows.extend((cid, sid, col, i, n) for i, n in identifiers_in(text).items())
        db.executemany("INSERT OR REPLACE INTO section_idents(content_id, section_id, col,"
                       " ident, n) VALUES(?,?,?,?,?)", srows)
        db.executemany("INSERT OR IGNORE INTO words(word, content_id) VALUES(?,?)",
                       [(w, cid) for w in sorted(words)])

    # -- files and contents ---------------------------------------------------------------
    def files(self, root: str) -> dict[str, sqlite3.Row]:
        """The ``files`` rows of one root folder, by ``doc``."""
        self.db.row_factory = sqlite3.Row
        try:
            rows = self.db.execute("SELECT * FROM files WHERE root = ?", (root,)).fetchall()
        finally:
            self.db.row_factory = None
        return {r["doc"]: r for r in rows}

    def content_by_sha(self, sha256: str) -> tuple[int, int] | None:
        """``(content_id, extractor_version)`` of the content with this hash, or None."""
        row = self.db.execute(
            "SELECT id, extractor_version FROM contents WHERE sha256 = ?", (sha256,)
        ).fetchone()
        return (row[0], row[1]) if row else None

    def ocr_results(self, sha256: str, settings: str) -> dict[int, bytes]:
        """``{page: encoded OCR result}`` kept for the bytes with this hash, recognised with
        these OCR ``settings`` (:data:`pdftui.ocr.SETTINGS`); {} when none."""
        return dict(self.db.execute(
            "SELECT number, data FROM ocr_pages WHERE sha256 = ? AND settings = ?",
            (sha256, settings)).fetchall())

    def ocr_missing(self, content_id: int) -> int:
        """Scanned pages of a content left without text that a later index will OCR
        (Tesseract missing, the OCR budget spent, a busy machine; 0 if none)."""
        row = self.db.execute("SELECT ocr_missing FROM contents WHERE id = ?",
                              (content_id,)).fetchone()
        return int(row[0]) if row else 0

    def set_file(self, root: str, doc: str, size: int, mtime_ns: int,
                 content_id: int | None, skip_reason: str | None = None) -> None:
        """Point ``(root, doc)`` at a content (or record a file-level skip), then drop any
        content no file points to any more."""
        with self.write() as db:
            old = db.execute(
                "SELECT content_id FROM files WHERE root = ? AND doc = ?", (root, doc)
            ).fetchone()
            db.execute(
                "INSERT INTO files(root, doc, size, mtime_ns, content_id, skip_reason, seen_at)"
                " VALUES(?,?,?,?,?,?,?) ON CONFLICT(root, doc) DO UPDATE SET"
                " size=excluded.size, mtime_ns=excluded.mtime_ns,"
                " content_id=excluded.content_id, skip_reason=excluded.skip_reason,"
                " seen_at=excluded.seen_at",
                (root, doc, size, mtime_ns, content_id, skip_reason, time.time()),
            )
            if old and old[0] is not None and old[0] != content_id:
                self._collect(old[0])

    def add_pending(self, root: str, docs: list[str]) -> None:
        """Record new documents that are queued for extraction (content and reason NULL,
        size and mtime -1 so a later run never takes them for unchanged), so that searches
        during a first index count them in the total. Existing rows are left alone."""
        if not docs:
            return
        with self.write() as db:
            db.executemany(
                "INSERT OR IGNORE INTO files(root, doc, size, mtime_ns, content_id,"
                " skip_reason, seen_at) VALUES(?,?,-1,-1,NULL,NULL,?)",
                [(root, d, time.time()) for d in docs])

    def touch_file(self, root: str, doc: str, size: int, mtime_ns: int) -> None:
        """Record a new (size, mtime_ns) for a file whose content did not change."""
        with self.write() as db:
            db.execute(
                "UPDATE files SET size=?, mtime_ns=?, seen_at=? WHERE root=? AND doc=?",
                (size, mtime_ns, time.time(), root, doc),
            )

    def remove_files(self, root: str, docs: list[str]) -> None:
        """Forget documents that are gone from ``root``; their rows go with them."""
        if not docs:
            return
        with self.write() as db:
            for doc in docs:
                row = db.execute(
                    "SELECT content_id FROM files WHERE root=? AND doc=?", (root, doc)
                ).fetchone()
                db.execute("DELETE FROM files WHERE root=? AND doc=?", (root, doc))
                if row and row[0] is not None:
                    self._collect(row[0])

    def _collect(self, content_id: int) -> None:
        """Delete a content and every row of it when no file points to it (in a txn)."""
        if self.db.execute(
            "SELECT 1 FROM files WHERE content_id = ? LIMIT 1", (content_id,)
        ).fetchone():
            return
        self.delete_content(content_id)

    def delete_content(self, content_id: int) -> None:
        """Delete every row of one content: pages, FTS, blocks, outline, sections, units.

        FTS rows are deleted only for a content whose text was indexed (a contentless FTS5
        table corrupts itself when asked to delete a row it never held: a scan replaced
        by its OCR'd version, an unreliable text layer re-extracted)."""
        with self.write() as db:
            indexed = db.execute(
                "SELECT 1 FROM contents WHERE id = ? AND skip_reason IS NULL"
                " AND text_quality = 'ok'", (content_id,)).fetchone() is not None
            for pid, text in db.execute(
                "SELECT id, text FROM pages WHERE content_id = ? AND ?", (content_id, indexed)
            ).fetchall():
                if not text.strip():
                    continue  # never inserted
                db.execute(
                    "INSERT INTO pages_fts(pages_fts, rowid, text) VALUES('delete', ?, ?)",
                    (pid, fts_text(text)),
                )
            for sid, title, text, own in db.execute(
                "SELECT id, title, text, own_chars FROM sections WHERE content_id = ? AND ?",
                (content_id, indexed),
            ).fetchall():
                db.execute(
                    "INSERT INTO sections_fts(sections_fts, rowid, title, text)"
                    " VALUES('delete', ?, ?, ?)",
                    (sid, fts_text(title), fts_text(text if own < 0 else text[:own])),
                )
            db.execute("DELETE FROM ocr_pages WHERE sha256 ="
                       " (SELECT sha256 FROM contents WHERE id = ?)", (content_id,))
            for table in ("pages", "blocks", "outline", "sections", "units", "embeddings",
                          "metadata", "page_idents", "section_idents", "words", "postings",
                          "reference_entries", "references_read", "citation_state",
                          "hidden_text"):
                db.execute(f"DELETE FROM {table} WHERE content_id = ?", (content_id,))
            db.execute("DELETE FROM citation_links WHERE citing = ? OR cited = ?",
                       (content_id, content_id))
            db.execute("DELETE FROM contents WHERE id = ?", (content_id,))

    def forget_content(self, content_id: int) -> None:
        """Drop a content found not to be what its hash says (a file replaced while it was
        extracted by an older pdftui): every file pointing to it goes back to "queued"
        with size -1, so the next run hashes and extracts it again."""
        with self.write() as db:
            db.execute("UPDATE files SET content_id=NULL, size=-1, mtime_ns=-1, skip_reason=NULL"
                       " WHERE content_id=?", (content_id,))
            self.delete_content(content_id)

    def content_pages(self, content_id: int) -> tuple[int, str | None]:
        """``(page_count, skip_reason)`` of a content ((0, None) when there is none)."""
        row = self.db.execute("SELECT page_count, skip_reason FROM contents WHERE id=?",
                              (content_id,)).fetchone()
        return (row[0], row[1]) if row else (0, None)

    def insert_content(self, sha256: str, size: int, ex: Extraction) -> int:
        """Insert one extracted content whole, in one transaction; returns its id.

        If another process inserted the same content first, that row's id is returned and
        nothing is written twice. A content of an older ``EXTRACTOR_VERSION`` is replaced;
        the embedding units of its pages whose text did not change, and the head units of
        its sections whose title and opening text did not change, are kept, so an extractor
        upgrade does not re-embed the corpus.
        """
        with self.write() as db:
            found = self.content_by_sha(sha256)
            if found and found[1] == EXTRACTOR_VERSION and not (
                    ex.ocr_missing < self.ocr_missing(found[0])) \
                    and self.hidden_skipped(found[0]) == ex.hidden_skipped:
                return found[0]
            old = _Previous.of(db, found[0]) if found else _Previous()
            if found:
                self.delete_content(found[0])
            cur = db.execute(
                "INSERT INTO contents(sha256, size, title, page_count, skip_reason,"
                " text_quality, outline_dropped, notes, n_tokens, extractor_version,"
                " indexed_at, ocr_missing, hidden_skipped) VALUES(?,?,?,?,?,?,?,?,0,?,?,?,?)",
                (sha256, size, _storable(ex.title), ex.page_count, ex.skip_reason,
                 ex.text_quality,
                 ex.outline_dropped, json.dumps(ex.notes), EXTRACTOR_VERSION, time.time(),
                 ex.ocr_missing, int(ex.hidden_skipped)),
            )
            cid = cur.lastrowid
            index_text = ex.skip_reason is None and ex.text_quality == "ok"
            n_tokens_total = _insert_pages(db, cid, ex, index_text)
            db.executemany(
                "INSERT INTO outline(content_id, ordinal, level, title, page, y)"
                " VALUES(?,?,?,?,?,?)",
                [(cid, i, e.level, e.title, e.page, e.y) for i, e in enumerate(ex.outline)],
            )
            section_ids = _insert_sections(db, cid, ex, index_text)
            db.execute("UPDATE contents SET n_tokens=? WHERE id=?", (n_tokens_total, cid))
            if ex.metadata is not None:
                self.set_metadata(cid, ex.metadata)
            if index_text:
                self._write_postings(cid)
                self._index_extras(
                    cid, db.execute("SELECT id, text FROM pages WHERE content_id=?",
                                    (cid,)).fetchall(),
                    [(sid, s.title, s.own_text) for sid, s in zip(section_ids, ex.sections)])
            if old.units and index_text:
                db.executemany(
                    "INSERT INTO units(content_id, model_id, page, ordinal, char_start,"
                    " char_end, vector) VALUES(?,?,?,?,?,?,?)", old.kept_units(cid, ex))
            db.executemany(
                "INSERT OR REPLACE INTO ocr_pages(sha256, settings, number, data)"
                " VALUES(?,?,?,?)",
                [(sha256, OCR_SETTINGS, n, data) for n, data in ex.ocr_results.items()])
            return cid

    # -- metadata -------------------------------------------------------------------------
    def set_metadata(self, content_id: int, md: Metadata, title: str | None = None) -> None:
        """Store (replace) the metadata of one content, and its title when ``title`` is
        given (read again with the metadata: no re-extraction)."""
        with self.write() as db:
            if title is not None:
                db.execute("UPDATE contents SET title = ? WHERE id = ?",
                           (_storable(title), content_id))
            db.execute(
                "INSERT OR REPLACE INTO metadata(content_id, version, authors, year, arxiv_id,"
                " doi) VALUES(?,?,?,?,?,?)",
                (content_id, md.version, json.dumps([_storable(a) for a in md.authors],
                                                    ensure_ascii=False),
                 md.year, _storable(md.arxiv_id), _storable(md.doi)))

    def missing_metadata(self, root: str, version: int) -> list[tuple[int, str, str]]:
        """``(content_id, doc, title)`` of the indexed contents of ``root`` whose metadata
        is missing or older than ``version`` (one doc per content)."""
        return self.db.execute(
            "SELECT c.id, MIN(f.doc), c.title FROM files f JOIN contents c ON c.id = f.content_id"
            " LEFT JOIN metadata m ON m.content_id = c.id"
            " WHERE f.root = ? AND c.skip_reason IS NULL AND (m.content_id IS NULL"
            " OR m.version < ?) GROUP BY c.id ORDER BY c.id", (root, version)).fetchall()

    def content_states(self, root: str) -> list[tuple[str, str | None, str, int]]:
        """``[(doc, skip reason, text quality, pages missing OCR)]`` of every document of
        ``root`` that has a content, by document name."""
        return self.db.execute(
            "SELECT f.doc, c.skip_reason, c.text_quality, c.ocr_missing FROM files f"
            " JOIN contents c ON c.id = f.content_id WHERE f.root = ? ORDER BY f.doc", (root,)
        ).fetchall()

    def hidden_skipped(self, content_id: int) -> bool | None:
        """Was the content's hidden text left out of its page text (the setting
        ``PDFTUI_HIDDEN_TEXT=skip`` at extraction)? None: no such content."""
        row = self.db.execute("SELECT hidden_skipped FROM contents WHERE id=?",
                              (content_id,)).fetchone()
        return bool(row[0]) if row else None

    def extractor_version(self, content_id: int) -> int | None:
        """The ``EXTRACTOR_VERSION`` a content was extracted with (None: no such content)."""
        row = self.db.execute("SELECT extractor_version FROM contents WHERE id=?",
                              (content_id,)).fetchone()
        return row[0] if row else None

