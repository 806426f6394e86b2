"""Postings: for each indexed term, the rows of one content holding it, with term counts.

The keyword arm needs, per query term, every page (or section) holding it and how often:
per-document BM25 reads nothing else. FTS5 answers that only through its ``fts5vocab``
instance table, one row per *occurrence* with positions decoded (a common stem has 10^5-10^6
occurrences at 10,000 documents), so the cache also keeps the counts themselves: one
``postings`` row per (granularity, term, content) whose ``data`` is a packed array of
:data:`RECORD` ``(code, tf)``, ``code = row id * 2 + 1 when the column is the title``
(sections only; pages have one text column) and ``tf`` the occurrences there. Reading a
term is one index range scan returning one short blob per content that holds it.

The counts come from FTS5's own tokenizer run over the same strings the FTS tables index
(an in-memory FTS5 table with the cache's tokenizer, read back through ``fts5vocab``), so
they equal what the instance table holds, token for token: inverted files with in-posting
term frequencies (Zobel & Moffat, "Inverted files for text search engines", ACM Computing
Surveys 2006), the layout every search engine reads BM25 from.
"""

from __future__ import annotations

import sqlite3
import threading

import numpy as np

from .schema import TOKENIZER
from .tokenizer import fts_text

#: One posting: ``code`` (row id * 2 + title flag) and ``tf``, little-endian uint32 each.
RECORD = np.dtype([("code", "<u4"), ("tf", "<u4")])
#: ``postings.kind`` of page rows (``pages_fts``) and of section rows (``sections_fts``).
PAGES, SECTIONS = 0, 1
#: The largest row id a code can hold (``code`` is a uint32).
MAX_ROW = (1 << 31) - 1

_local = threading.local()


def kind_of(granularity: str) -> int:
    """``postings.kind`` of a keyword granularity ("pages" or "sections")."""
    return PAGES if granularity == "pages" else SECTIONS


def fts_rows(db: sqlite3.Connection, kind: int, where: str, args: tuple
             ) -> list[tuple[int, str, str]]:
    """``[(row id, title, text)]`` of the page (``kind`` :data:`PAGES`) or section rows
    ``where`` selects, as their FTS rows index them (:func:`fts_text`; a section's own
    text; pages have no title: ``""``): what :func:`build` and :func:`offsets` take."""
    if kind == PAGES:
        return [(pid, "", fts_text(text)) for pid, text in db.execute(
            f"SELECT id, text FROM pages WHERE {where}", args)]
    return [(sid, fts_text(title), fts_text(text if own < 0 else text[:own]))
            for sid, title, text, own in db.execute(
                f"SELECT id, title, text, own_chars FROM sections WHERE {where}", args)]


def _stage() -> sqlite3.Connection:
    """This thread's in-memory contentless FTS5 table (title, text) with the cache's
    tokenizer, and its fts5vocab instance table."""
    db = getattr(_local, "db", None)
    if db is None:
        db = sqlite3.connect(":memory:", isolation_level=None)
        db.execute("CREATE VIRTUAL TABLE s USING fts5(title, text, content='',"
                   f" tokenize='{TOKENIZER}')")
        db.execute("CREATE VIRTUAL TABLE sv USING fts5vocab(s, 'instance')")
        _local.db = db
    return db


def build(rows: list[tuple[int, str, str]]) -> list[tuple[str, bytes]]:
    """The postings of one content's rows, ``[(term, packed RECORD array)]`` by term.

    ``rows`` are ``(row id, title, text)`` exactly as inserted into the FTS table (already
    :func:`pdftui.store.tokenizer.fts_text`; pages pass ``""`` as the title; :func:`fts_rows`).
    Each array is sorted by code. Raises ``ValueError`` for a row id outside ``0 .. MAX_ROW``.
    """
    if not rows:
        return []
    if any(not 0 <= r <= MAX_ROW for r, _t, _x in rows):
        raise ValueError(f"row id outside 0..{MAX_ROW}")
    db = _stage()
    db.execute("BEGIN")
    try:
        db.executemany("INSERT INTO s(rowid, title, text) VALUES(?,?,?)", rows)
        got = db.execute("SELECT term, doc * 2 + (col = 'title'), count(*) FROM sv"
                         " GROUP BY term, doc, col ORDER BY term, doc, col").fetchall()
    finally:
        db.execute("ROLLBACK")
    return _pack(got)


def _pack(got: list[tuple[str, int, int]]) -> list[tuple[str, bytes]]:
    """``[(term, code, tf)]`` sorted by term and code -> one packed array per term."""
    if not got:
        return []
    terms = [t for t, _c, _n in got]
    arr = np.empty(len(got), dtype=RECORD)
    arr["code"] = [c for _t, c, _n in got]
    arr["tf"] = [n for _t, _c, n in got]
    starts = [0] + [i for i in range(1, len(terms)) if terms[i] != terms[i - 1]]
    ends = starts[1:] + [len(terms)]
    return [(terms[a], arr[a:b].tobytes()) for a, b in zip(starts, ends)]


def unpack(blobs: list[bytes]) -> np.ndarray:
    """``(n, 3)`` int64 ``[row id, tf, 1 when the title]`` of the packed arrays ``blobs``
    (one per content), concatenated in the order given."""
    if not blobs:
        return np.zeros((0, 3), dtype=np.int64)
    arr = np.frombuffer(b"".join(blobs), dtype=RECORD)
    code = arr["code"].astype(np.int64)
    return np.stack([code >> 1, arr["tf"].astype(np.int64), code & 1], axis=1)


def offsets(rows: list[tuple[int, str, str]], terms: list[str]) -> list[np.ndarray]:
    """Per indexed term of ``terms``: int64 keys ``code * 2**24 + token offset`` of its
    every occurrence in ``rows`` (``(row id, title, text)`` as :func:`build` takes them),
    the positions FTS5's instance table holds for those rows (adjacency over a few rows)."""
    if not rows or not terms:
        return [np.zeros(0, dtype=np.int64) for _ in terms]
    db = _stage()
    db.execute("BEGIN")
    try:
        db.executemany("INSERT INTO s(rowid, title, text) VALUES(?,?,?)", rows)
        return [np.array([k for (k,) in db.execute(
            "SELECT (doc * 2 + (col = 'title')) * 16777216 + offset FROM sv WHERE term = ?",
            (t,))], dtype=np.int64) for t in terms]
    finally:
        db.execute("ROLLBACK")
