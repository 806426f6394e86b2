"""Reading what the cache holds for one folder: documents, pages, outline and sections.

This is the read side shared by ``pdftui read`` and the TUI's corpus and reader panes. It
never opens a PDF: everything comes from the cache that :func:`pdftui.index.index_folder`
keeps current. Pages are 1-based.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass

from .cache import Cache


@dataclass(slots=True)
class DocumentInfo:
    """One document of the folder as the cache knows it.

    ``status`` is "indexed", "embedding" (text searchable, vectors partial), "skipped"
    (``reason`` says why), "no text layer" or "unreliable". ``embedded`` is the fraction
    of units embedded for the model asked about (0.0-1.0; 1.0 when not asked).
    """

    doc: str
    title: str
    pages: int
    status: str
    reason: str = ""
    embedded: float = 1.0
    content_id: int | None = None


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

    def to_json(self) -> dict:
        """``{"doc", "title", "start_page", "end_page", "text"}`` plus path and id."""
        return {"doc": self.doc, "title": self.title, "start_page": self.start_page,
                "end_page": self.end_page, "text": self.text, "section_path": self.path,
                "section_id": self.section_id}


class NotFound(LookupError):
    """A document, page or section that the folder's index does not hold (message for users)."""


class Library:
    """The read side of the cache for one root folder.

    ``root`` is the folder (made real with ``os.path.realpath``). One instance owns one
    SQLite connection; use it from one thread at a time.
    """

    def __init__(self, root: str | os.PathLike, cache_dir: str | os.PathLike | None = None):
        self.root = os.path.realpath(os.fspath(root))
        self.cache = Cache(cache_dir)
        self.db: sqlite3.Connection = self.cache.db

    def close(self) -> None:
        """Close the connection."""
        self.cache.close()

    def documents(self, model_id: str | None = None) -> list[DocumentInfo]:
        """Every document of the folder in ``doc`` order, with status and page count."""
        rows = self.db.execute(
            "SELECT f.doc, f.skip_reason, c.id, c.title, c.page_count, c.skip_reason,"
            " c.text_quality FROM files f LEFT JOIN contents c ON c.id = f.content_id"
            " WHERE f.root = ? ORDER BY f.doc", (self.root,),
        ).fetchall()
        emb: dict[int, float] = {}
        if model_id:
            for cid, total, done in self.db.execute(
                "SELECT content_id, units_total, units_done FROM embeddings WHERE model_id=?",
                (model_id,),
            ):
                emb[cid] = (done / total) if total else 1.0
        out = []
        for doc, freason, cid, title, pages, creason, quality in rows:
            if cid is None or creason:
                out.append(DocumentInfo(doc, title or os.path.basename(doc), pages or 0,
                                        "skipped", freason or creason or "", 0.0, cid))
                continue
            if quality != "ok":
                out.append(DocumentInfo(doc, title, pages, quality, quality, 0.0, cid))
                continue
            frac = emb.get(cid, 0.0) if model_id else 1.0
            status = "indexed" if frac >= 1.0 else "embedding"
            out.append(DocumentInfo(doc, title, pages, status, "", frac, cid))
        return out

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
            "SELECT text, label FROM pages WHERE content_id=? AND number=?", (cid, number)
        ).fetchone()
        if not row:
            raise NotFound(f"{doc} has no page {number} (it has {self.page_count(doc)})")
        title = f"page {number}" + (f" ({row[1]})" if row[1] and row[1] != str(number) else "")
        return SectionText(doc, title, number, number, row[0])

    def page_label(self, doc: str, number: int) -> str:
        """The printed page label of page ``number`` ('' when none)."""
        row = self.db.execute(
            "SELECT label FROM pages WHERE content_id=? AND number=?",
            (self.content_id(doc), number),
        ).fetchone()
        return row[0] if row else ""

    def blocks(self, doc: str, number: int) -> list[tuple[float, float, float, float, str]]:
        """Text blocks of a page in reading order: ``(x0, y0, x1, y1, text)`` in points."""
        return self.db.execute(
            "SELECT x0, y0, x1, y1, text FROM blocks WHERE content_id=? AND page=?"
            " ORDER BY ordinal", (self.content_id(doc), number),
        ).fetchall()

    def sections(self, doc: str) -> list[dict]:
        """The document's sections in order: dicts with id, ordinal, level, title, path,
        start_page, start_block, end_page, end_block, source."""
        cid = self.content_id(doc)
        cols = ("id", "ordinal", "level", "title", "path", "start_page", "start_block",
                "end_page", "end_block", "source")
        return [dict(zip(cols, r)) for r in self.db.execute(
            f"SELECT {', '.join(cols)} FROM sections WHERE content_id=? ORDER BY ordinal",
            (cid,))]

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
            k = key.strip()
            for sql, arg in (
                ("title = ?", k),
                ("lower(title) LIKE lower(?) || '%'", k),
                ("lower(title) LIKE '%' || lower(?) || '%'", k),
                ("lower(path) LIKE '%' || lower(?) || '%'", k),
            ):
                row = self.db.execute(
                    f"SELECT {cols} FROM sections WHERE content_id=? AND {sql}"
                    " ORDER BY ordinal LIMIT 1", (cid, arg),
                ).fetchone()
                if row:
                    break
        if row is None:
            raise NotFound(f"no section {key!r} in {doc}")
        sid, title, path, start, end, end_block, text = row
        if end_block == 0 and end > start:
            end -= 1  # the section stops before the first block of end_page
        return SectionText(doc, title, start, end, text, path, sid)

    def section_at(self, doc: str, page: int, block: int = 0) -> SectionText | None:
        """The innermost section that holds block ``block`` of ``page``, or None."""
        cid = self.content_id(doc)
        row = self.db.execute(
            "SELECT id FROM sections WHERE content_id=?"
            " AND (start_page < ? OR (start_page = ? AND start_block <= ?))"
            " AND (end_page > ? OR (end_page = ? AND end_block > ?))"
            " ORDER BY level DESC, ordinal DESC LIMIT 1",
            (cid, page, page, block, page, page, block),
        ).fetchone()
        return self.section(doc, row[0]) if row else None
