"""Reference entries and citation links in the cache (every SQL statement about them).

:class:`CitationStore` is a part of :class:`pdftui.store.database.Cache` (the index writes
through it); the module functions read, given a connection (the CLI, the TUI). Entries are
per content (:mod:`pdftui.references`); links are per root folder, from an entry (citing
content, ordinal) to a content of that folder (:mod:`pdftui.citations`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import ContextManager

from ..references import Reference
from ..text import clean_text


class CitationStore:
    """Writes of reference entries, links and link state (a part of
    :class:`pdftui.store.database.Cache`)."""

    db: sqlite3.Connection

    def write(self) -> ContextManager[sqlite3.Connection]:
        """A write transaction (:meth:`pdftui.store.database.Cache.write`)."""
        raise NotImplementedError

    def references_missing(self, root: str, version: int) -> list[int]:
        """Content ids of ``root`` with searchable text whose reference list was not read,
        or was read by another ``REFERENCES_VERSION`` than ``version``."""
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT c.id FROM files f JOIN contents c ON c.id = f.content_id"
            " LEFT JOIN references_read r ON r.content_id = c.id"
            " WHERE f.root = ? AND c.skip_reason IS NULL AND c.text_quality = 'ok'"
            " AND (r.content_id IS NULL OR r.version != ?) ORDER BY c.id", (root, version))]

    def set_references_many(self, lists: Iterable[tuple[int, list[Reference]]],
                            version: int) -> None:
        """Store (replace) the reference entries of several contents, ``(content id,
        entries)`` pairs read by ``version``, in one transaction."""
        with self.write():
            for content_id, refs in lists:
                self.set_references(content_id, refs, version)

    def set_references(self, content_id: int, refs: list[Reference], version: int) -> None:
        """Store (replace) one content's reference entries, read by ``version``."""
        with self.write() as db:
            db.execute("DELETE FROM reference_entries WHERE content_id = ?", (content_id,))
            db.executemany(
                "INSERT INTO reference_entries(content_id, ordinal, page, label, raw, authors,"
                " year, title, venue, arxiv_id, doi, given, et_al)"
                " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [(content_id, r.ordinal, r.page, r.label, r.raw,
                  json.dumps(list(r.authors), ensure_ascii=False), r.year, r.title,
                  r.venue, r.arxiv_id, r.doi, json.dumps(list(r.given), ensure_ascii=False),
                  int(r.et_al)) for r in refs])
            db.execute("INSERT OR REPLACE INTO references_read(content_id, version)"
                       " VALUES(?, ?)", (content_id, version))

    def citation_state(self, root: str) -> dict[int, str]:
        """``{content id: fingerprint}`` the links of ``root`` were last computed with."""
        return dict(self.db.execute(
            "SELECT content_id, fingerprint FROM citation_state WHERE root = ?", (root,)))

    def update_links(self, root: str, dropped: Iterable[int],
                     links: Iterable[tuple[int, int, int]], state: dict[int, str]) -> None:
        """In one transaction: forget the links of ``root`` from or to the ``dropped``
        contents, add ``links`` (``(citing, ordinal, cited)``) and record ``state`` (the
        fingerprints of the contents now matched, replacing the root's old state)."""
        with self.write() as db:
            for cid in dropped:
                db.execute("DELETE FROM citation_links WHERE root = ? AND (citing = ?"
                           " OR cited = ?)", (root, cid, cid))
            db.executemany("INSERT OR IGNORE INTO citation_links(root, citing, ordinal, cited)"
                           " VALUES(?,?,?,?)", [(root, *link) for link in links])
            db.execute("DELETE FROM citation_state WHERE root = ?", (root,))
            db.executemany("INSERT INTO citation_state(root, content_id, fingerprint)"
                           " VALUES(?,?,?)", [(root, c, f) for c, f in state.items()])


def _json_strings(text: str) -> tuple[str, ...]:
    """A stored JSON list of strings as a tuple (() when it is not one; strings holding a
    character that does not print are cleaned, :func:`pdftui.text.clean_text`)."""
    try:
        got = json.loads(text)
    except (ValueError, TypeError):
        return ()
    if not isinstance(got, list):
        return ()
    names = tuple(map(str, got))
    return names if "".join(names).isprintable() else tuple(map(clean_text, names))


def _reference(row) -> Reference:
    """A :class:`Reference` from a ``reference_entries`` row (ordinal on); ``given`` is
    () unless it holds one string per surname."""
    ordinal, page, label, raw, authors, year, title, venue, arxiv_id, doi, given, et_al = row
    names = _json_strings(authors)
    givens = _json_strings(given)
    return Reference(ordinal, page, clean_text(label), clean_text(raw), names, year,
                     clean_text(title), clean_text(venue), arxiv_id, doi,
                     givens if len(givens) == len(names) else (), bool(et_al))


def read_references(db: sqlite3.Connection, content_id: int) -> list[Reference]:
    """One content's reference entries in list order ([] when none or not read yet)."""
    return [_reference(r) for r in db.execute(
        "SELECT ordinal, page, label, raw, authors, year, title, venue, arxiv_id, doi,"
        " given, et_al FROM reference_entries WHERE content_id = ? ORDER BY ordinal",
        (content_id,))]


def references_of(db: sqlite3.Connection, content_ids: Iterable[int]
                  ) -> dict[int, list[Reference]]:
    """``{content id: entries}`` of several contents (those without entries absent)."""
    out: dict[int, list[Reference]] = {}
    for cid in content_ids:
        got = read_references(db, cid)
        if got:
            out[cid] = got
    return out


def read_links_from(db: sqlite3.Connection, root: str, citing: int) -> dict[int, list[int]]:
    """``{ordinal: [cited content id, ...]}``: which entries of ``citing`` are documents of
    ``root``."""
    out: dict[int, list[int]] = {}
    for ordinal, cited in db.execute(
            "SELECT ordinal, cited FROM citation_links WHERE root = ? AND citing = ?"
            " ORDER BY ordinal, cited", (root, citing)):
        out.setdefault(ordinal, []).append(cited)
    return out


def read_links_to(db: sqlite3.Connection, root: str, cited: Iterable[int]
                  ) -> list[tuple[int, int, int, str, str]]:
    """``[(citing content, ordinal, page, label, raw)]`` of the entries of ``root`` that
    are any of the ``cited`` contents (one work's versions), by citing content and
    ordinal (label and raw text cleaned for display)."""
    ids = sorted(set(cited))
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    return [(c, o, p, clean_text(label), clean_text(raw)) for c, o, p, label, raw in db.execute(
        "SELECT DISTINCT l.citing, l.ordinal, e.page, e.label, e.raw FROM citation_links l"
        " JOIN reference_entries e ON e.content_id = l.citing AND e.ordinal = l.ordinal"
        f" WHERE l.root = ? AND l.cited IN ({marks}) ORDER BY l.citing, l.ordinal",
        (root, *ids))]


def reference_keys(db: sqlite3.Connection, content_ids: Iterable[int]
                   ) -> list[tuple[int, int, str, str, str]]:
    """``[(content, ordinal, arXiv id, DOI, title)]`` of every entry of the contents: what
    bibliographic coupling compares."""
    ids = sorted(set(content_ids))
    out: list[tuple[int, int, str, str, str]] = []
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        out += [tuple(r) for r in db.execute(
            "SELECT content_id, ordinal, arxiv_id, doi, title FROM reference_entries"
            f" WHERE content_id IN ({','.join('?' * len(chunk))})", chunk)]
    return out


def read_all_links(db: sqlite3.Connection, root: str) -> list[tuple[int, int, int]]:
    """Every link of ``root``: ``[(citing, ordinal, cited)]``."""
    return [tuple(r) for r in db.execute(
        "SELECT citing, ordinal, cited FROM citation_links WHERE root = ?", (root,))]


def reference_blocks(db: sqlite3.Connection, content_id: int,
                     spans: list[tuple[int, int, int, int]]) -> list[tuple[int, float, str]]:
    """``[(page, x0, text)]`` of the blocks inside ``spans`` (``(start page, start block,
    end page, end block)``, the end exclusive, as sections store them), in reading
    order."""
    out: list[tuple[int, float, str]] = []
    for sp, sb, ep, eb in spans:
        for page, ordinal, x0, text in db.execute(
                "SELECT page, ordinal, x0, text FROM blocks WHERE content_id = ?"
                " AND page BETWEEN ? AND ? ORDER BY page, ordinal", (content_id, sp, ep)):
            if (sp, sb) <= (page, ordinal) < (ep, eb):
                out.append((page, x0, text))
    return out


def head_vectors(db: sqlite3.Connection, model_id: str) -> dict[int, list[bytes]]:
    """``{content id: [float32 vector blob, ...]}`` of every content's section head units
    (page ``SECTION_HEAD_PAGE``) and page-1 units for ``model_id``: what a document vector
    is averaged from."""
    from ..cache import SECTION_HEAD_PAGE

    out: dict[int, list[bytes]] = {}
    for cid, blob in db.execute(
            "SELECT content_id, vector FROM units WHERE model_id = ? AND page IN (?, 1)",
            (model_id, SECTION_HEAD_PAGE)):
        out.setdefault(cid, []).append(blob)
    return out
