"""The embedding units of the cache: each content's vectors per model and how far its
embedding got, as the indexer plans, stores and resumes them.

:class:`EmbeddingStore` is a part of :class:`pdftui.store.database.Cache` (it uses the
connection ``db`` and ``write()`` that class provides). Units are character ranges of a
page's text (pages 1-based) or a section's head unit (page ``SECTION_HEAD_PAGE``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import ContextManager

from ..cache import SECTION_HEAD_PAGE


class EmbeddingStore:
    """Embedding progress and units (a part of :class:`pdftui.store.database.Cache`)."""

    db: sqlite3.Connection

    def write(self) -> ContextManager[sqlite3.Connection]:
        """A write transaction: :meth:`pdftui.store.database.Cache.write` (the class this
        is a part of)."""
        raise NotImplementedError

    def embedding_state(self, content_id: int, model_id: str) -> tuple[str, int, int] | None:
        """``(weights_hash, units_total, units_done)`` for a content and model, or None."""
        row = self.db.execute(
            "SELECT weights_hash, units_total, units_done FROM embeddings"
            " WHERE content_id=? AND model_id=?", (content_id, model_id),
        ).fetchone()
        return tuple(row) if row else None  # type: ignore[return-value]

    def unembedded(self, root: str, model_id: str, weights_hash: str | None) -> list[int]:
        """Content ids of ``root`` with searchable text whose embeddings for ``model_id``
        are missing, partial, made with other weights (``weights_hash`` None: that check is
        skipped) or without section head units, smallest contents first."""
        rows = self.db.execute(
            "SELECT DISTINCT c.id FROM files f JOIN contents c ON c.id = f.content_id"
            " LEFT JOIN embeddings e ON e.content_id = c.id AND e.model_id = ?"
            " WHERE f.root = ? AND c.skip_reason IS NULL AND c.text_quality = 'ok'"
            " AND (e.content_id IS NULL OR e.units_done < e.units_total"
            " OR (? IS NOT NULL AND e.weights_hash != ?)"
            " OR (EXISTS (SELECT 1 FROM sections s WHERE s.content_id = c.id) AND NOT EXISTS"
            "     (SELECT 1 FROM units u WHERE u.content_id = c.id AND u.model_id = ?"
            "      AND u.page = ?)))"
            " ORDER BY c.size",
            (model_id, root, weights_hash, weights_hash, model_id, SECTION_HEAD_PAGE),
        ).fetchall()
        return [r[0] for r in rows]

    def content_stamp(self, content_id: int) -> float | None:
        """The content's ``indexed_at`` (it tells a re-extracted content that reuses an id
        from the one planned), or None when the content is gone."""
        row = self.db.execute("SELECT indexed_at FROM contents WHERE id=?",
                              (content_id,)).fetchone()
        return row[0] if row else None

    def unit_keys(self, content_id: int, model_id: str) -> set[tuple[int, int]]:
        """``{(page, ordinal)}`` of the units stored for a content and model."""
        return {(p, o) for p, o in self.db.execute(
            "SELECT page, ordinal FROM units WHERE content_id=? AND model_id=?",
            (content_id, model_id))}

    def drop_embeddings(self, content_id: int, model_id: str) -> None:
        """Delete a content's units and embedding state for one model (another model
        identity: they are embedded again)."""
        with self.write() as db:
            db.execute("DELETE FROM units WHERE content_id=? AND model_id=?",
                       (content_id, model_id))
            db.execute("DELETE FROM embeddings WHERE content_id=? AND model_id=?",
                       (content_id, model_id))

    def page_texts(self, content_id: int) -> list[tuple[int, str]]:
        """``[(page number, text)]`` of a content, in page order."""
        return self.db.execute("SELECT number, text FROM pages WHERE content_id=?"
                               " ORDER BY number", (content_id,)).fetchall()

    def section_texts(self, content_id: int) -> list[tuple[int, str, str, int]]:
        """``[(ordinal, title, text, own_chars)]`` of a content's sections, in order."""
        return self.db.execute("SELECT ordinal, title, text, own_chars FROM sections"
                               " WHERE content_id=? ORDER BY ordinal", (content_id,)).fetchall()

    def section_starts(self, content_id: int) -> list[tuple[int, int]]:
        """``[(start page, start block)]`` of a content's sections (page 1-based, block
        the 0-based ordinal of its heading block on that page)."""
        return self.db.execute("SELECT start_page, start_block FROM sections WHERE"
                               " content_id=? ORDER BY ordinal", (content_id,)).fetchall()

    def heads_missing(self, content_id: int, model_id: str) -> bool:
        """True when the content has sections but no section head unit for the model."""
        return bool(self.db.execute(
            "SELECT EXISTS (SELECT 1 FROM sections WHERE content_id=?) AND NOT EXISTS"
            " (SELECT 1 FROM units WHERE content_id=? AND model_id=? AND page=?)",
            (content_id, content_id, model_id, SECTION_HEAD_PAGE)).fetchone()[0])

    def plan_embeddings(self, content_id: int, model_id: str, weights_hash: str,
                        units_total: int, units_done: int) -> bool:
        """Record how many units a content has for a model and how many are stored; False
        (nothing written) when the content is gone."""
        with self.write() as db:
            if not db.execute("SELECT 1 FROM contents WHERE id=?", (content_id,)).fetchone():
                return False
            db.execute(
                "INSERT INTO embeddings(content_id, model_id, weights_hash, units_total,"
                " units_done) VALUES(?,?,?,?,?) ON CONFLICT(content_id, model_id) DO UPDATE"
                " SET units_total=excluded.units_total, units_done=excluded.units_done",
                (content_id, model_id, weights_hash, units_total, units_done),
            )
        return True

    def store_units(self, model_id: str, rows: list[tuple[int, float, tuple, bytes]],
                    keep: Callable[[], bool]) -> set[tuple[int, float]] | None:
        """Store embedded units in one write transaction.

        ``rows``: ``(content id, stamp, (page, ordinal, char start, char end, ...), vector
        bytes)``; a row whose content changed since it was planned (its ``indexed_at`` is no
        longer ``stamp``) or went away is dropped. ``keep()`` is asked inside the
        transaction (the embedding lease still ours?): when False nothing is written and
        None returned. Returns the ``(content id, stamp)`` keys found dead.
        """
        with self.write() as db:
            if not keep():
                return None
            alive = {key: bool(db.execute(
                "SELECT 1 FROM contents WHERE id=? AND indexed_at=?", key).fetchone())
                for key in {(r[0], r[1]) for r in rows}}
            db.executemany(
                "INSERT OR IGNORE INTO units(content_id, model_id, page, ordinal,"
                " char_start, char_end, vector) VALUES(?,?,?,?,?,?,?)",
                [(cid, model_id, u[0], u[1], u[2], u[3], vec)
                 for cid, stamp, u, vec in rows if alive[(cid, stamp)]])
            for cid, _stamp in (k for k, ok in alive.items() if ok):
                db.execute(
                    "UPDATE embeddings SET units_done=(SELECT count(*) FROM units"
                    " WHERE content_id=? AND model_id=?) WHERE content_id=? AND model_id=?",
                    (cid, model_id, cid, model_id))
        return {k for k, ok in alive.items() if not ok}

