"""The shared index cache: one SQLite file that many folders and many processes use.

Layout (``SCHEMA_VERSION`` is kept in ``PRAGMA user_version``):

- ``contents``: one row per distinct PDF *content* (keyed by SHA-256 of the bytes). Extraction,
  pages, blocks, outline, sections and embeddings hang off a content id, so a renamed, moved or
  touched file, or the same file in two folders, is never extracted or embedded twice.
- ``files``: one row per (root folder, document path relative to it) with the (size, mtime_ns)
  seen last and the content it points to, or a file-level skip reason ("permission denied").
  ``doc`` is the document's identity everywhere in pdftui.
- ``pages`` + ``pages_fts``: page text and its FTS5 index (porter + unicode61, diacritics
  removed). ``pages_fts`` is contentless; its rowid is ``pages.id``. ``pages.ocr`` is 1 for
  a scanned page whose text was recognised by OCR; ``contents.ocr_missing`` counts scanned
  pages left without text that a later index will OCR (Tesseract not installed, the OCR
  budget spent, a busy machine): such a content is re-extracted by the next index that can.
- ``ocr_pages``: each OCR'd page's recognised text (zlib'd JSON, :func:`pdftui.ocr.encode`)
  by the SHA-256 of the document's bytes, the OCR settings and the page, so a
  re-extraction (an extractor upgrade, pages pending after a spent budget) OCRs only the
  pages not recognised yet.
- ``postings``: per granularity (``kind``: pages 0, sections 1), term and content, the rows
  holding the term with their counts, a packed array (:mod:`pdftui.postings`): what the
  keyword arm reads instead of every occurrence in the fts5vocab instance tables.
- ``blocks``: paragraph-sized text blocks with bounding boxes (points), for excerpts.
- ``outline``: the validated outline; ``sections`` + ``sections_fts``: sections (outline or
  detector) with their whole text (subsections included, for reading), indexed by title and
  the section's *own* text, its first ``own_chars`` characters (up to its first subsection;
  -1 = all), so a parent never collects its subsections' term counts.
- ``metadata``: authors (JSON list), year, arXiv id and DOI of a content
  (:mod:`pdftui.metadata`), with the ``METADATA_VERSION`` that read them; a content without
  a current row is read again from its first pages, without re-extraction or re-embedding,
  and its title (``contents.title``, :mod:`pdftui.title`) with it.
- ``page_idents`` / ``section_idents``: the identifiers of each page and section
  (:mod:`pdftui.identifiers`: ``1706.03762``, ``C++``, ``3.2.1``) with their counts, which
  the word tokenizer splits or drops; the keyword arm matches them as typed.
- ``words``: each content's distinct surface words (case-folded letters, 3-30 long), the
  vocabulary typo suggestions are drawn from (document frequency = contents holding it).
- ``units``: embedding units (character ranges of a page's text) with float32 vectors, per
  model, plus one head unit per section (page ``SECTION_HEAD_PAGE`` = 0, ordinal = the
  section's ordinal); ``embeddings``: per (content, model) progress, so an interrupted run resumes.
- ``leases``: who is embedding for a model right now, with a heartbeat and the progress it
  published (:mod:`pdftui.lease`), so a second process follows instead of embedding again.

BM25 statistics are per document: :mod:`pdftui.search.keyword` reads each term's rows and
counts from ``postings`` and scores each document's pages with that document's own
page count, document frequencies and average page length (``pages.n_tokens``), so adding or
removing unrelated PDFs never changes a document's internal page ranking.

Concurrency: WAL journal, a 60 s busy timeout, and every write in a short ``BEGIN IMMEDIATE``
transaction; a content is inserted whole in one transaction (never half-indexed) and a
content that another process inserted first is simply reused (``sha256`` is UNIQUE).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from . import postings
from .document import Extraction, Metadata
from .identifiers import identifiers_in
from .ocr import SETTINGS as OCR_SETTINGS
from .errors import CacheError

SCHEMA_VERSION = 8  # 2: sections.own_chars; 3: metadata; 4: pages.ocr, contents.ocr_missing;
#   5: identifiers and words; 6: ocr_pages; 7: pages_ocr (partial index of OCR'd pages);
#   8: postings (per-row term counts of both FTS tables)
#: Bump when extraction output changes: contents extracted by an older version are redone.
EXTRACTOR_VERSION = 23  # 7, 9, 10: numbering; 8: floats; 11, 12: heading column; 13: number block;
#   14: page labels built by pdftui (bounded), hashes of the bytes extracted; 15: annotations;
#   16: OCR of scanned pages; 17: ruled table rows as records, numbered OCR headings;
#   18: bookmarks sharing a point or pointing at no block placed by their titles;
#   19: an unlisted "References" heading over a reference list starts a section;
#   20: arXiv stamps, figure letters and a stray first number are not headings;
#   21: a numbered heading repeated on its page as a label fills its numbering gap;
#   22: no lowercase unnumbered heading before a numbered document's first number;
#   23: no unnumbered heading between consecutive appendix numbers (A.1 -> A.2)
#: ``units.page`` of a section's head unit (``units.ordinal`` = ``sections.ordinal``): the
#: first embedding unit of the section's own text, from its heading. Page units are >= 1.
SECTION_HEAD_PAGE = 0
#: Page units of a document averaged into its head vector (the hybrid document-level arm:
#: the document's opening, title and abstract for a paper); embedded first (index.py).
HEAD_UNITS = 4
#: Characters of a section's own text offered to its head unit (cut to the model's tokens).
SECTION_HEAD_CHARS = 1200
DB_NAME = "index.sqlite3"
BUSY_TIMEOUT_MS = 60_000

_TOKENIZER = "porter unicode61 remove_diacritics 2"

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS contents(
    id INTEGER PRIMARY KEY,
    sha256 TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    title TEXT NOT NULL,
    page_count INTEGER NOT NULL,
    skip_reason TEXT,
    text_quality TEXT NOT NULL,
    outline_dropped INTEGER NOT NULL DEFAULT 0,
    notes TEXT NOT NULL DEFAULT '[]',
    n_tokens INTEGER NOT NULL DEFAULT 0,
    extractor_version INTEGER NOT NULL,
    indexed_at REAL NOT NULL,
    ocr_missing INTEGER NOT NULL DEFAULT 0,
    postings INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS files(
    root TEXT NOT NULL,
    doc TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    content_id INTEGER REFERENCES contents(id),
    skip_reason TEXT,
    seen_at REAL NOT NULL,
    PRIMARY KEY(root, doc)
);
CREATE INDEX IF NOT EXISTS files_content ON files(content_id);
CREATE TABLE IF NOT EXISTS pages(
    id INTEGER PRIMARY KEY,
    content_id INTEGER NOT NULL REFERENCES contents(id),
    number INTEGER NOT NULL,
    label TEXT NOT NULL,
    text TEXT NOT NULL,
    n_tokens INTEGER NOT NULL,
    ocr INTEGER NOT NULL DEFAULT 0,
    UNIQUE(content_id, number)
);
CREATE INDEX IF NOT EXISTS pages_ocr ON pages(content_id) WHERE ocr = 1;
CREATE VIRTUAL TABLE IF NOT EXISTS pages_fts USING fts5(
    text, content='', tokenize='{_TOKENIZER}');
CREATE VIRTUAL TABLE IF NOT EXISTS pages_fts_instance USING fts5vocab(pages_fts, 'instance');
CREATE TABLE IF NOT EXISTS postings(
    kind INTEGER NOT NULL,
    term TEXT NOT NULL,
    content_id INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY(kind, term, content_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS postings_content ON postings(content_id);
CREATE TABLE IF NOT EXISTS blocks(
    content_id INTEGER NOT NULL,
    page INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    x0 REAL NOT NULL, y0 REAL NOT NULL, x1 REAL NOT NULL, y1 REAL NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY(content_id, page, ordinal)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outline(
    content_id INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    level INTEGER NOT NULL,
    title TEXT NOT NULL,
    page INTEGER NOT NULL,
    y REAL,
    PRIMARY KEY(content_id, ordinal)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sections(
    id INTEGER PRIMARY KEY,
    content_id INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    level INTEGER NOT NULL,
    title TEXT NOT NULL,
    path TEXT NOT NULL,
    start_page INTEGER NOT NULL,
    start_block INTEGER NOT NULL,
    end_page INTEGER NOT NULL,
    end_block INTEGER NOT NULL,
    text TEXT NOT NULL,
    source TEXT NOT NULL,
    n_tokens INTEGER NOT NULL,
    own_chars INTEGER NOT NULL DEFAULT -1,
    UNIQUE(content_id, ordinal)
);
CREATE VIRTUAL TABLE IF NOT EXISTS sections_fts USING fts5(
    title, text, content='', tokenize='{_TOKENIZER}');
CREATE VIRTUAL TABLE IF NOT EXISTS sections_fts_instance USING fts5vocab(sections_fts, 'instance');
CREATE TABLE IF NOT EXISTS ocr_pages(
    sha256 TEXT NOT NULL,
    settings TEXT NOT NULL,
    number INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY(sha256, settings, number)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS metadata(
    content_id INTEGER PRIMARY KEY,
    version INTEGER NOT NULL,
    authors TEXT NOT NULL DEFAULT '[]',
    year INTEGER,
    arxiv_id TEXT NOT NULL DEFAULT '',
    doi TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS page_idents(
    content_id INTEGER NOT NULL,
    page_id INTEGER NOT NULL,
    ident TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY(ident, page_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS page_idents_content ON page_idents(content_id);
CREATE TABLE IF NOT EXISTS section_idents(
    content_id INTEGER NOT NULL,
    section_id INTEGER NOT NULL,
    col TEXT NOT NULL,
    ident TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY(ident, section_id, col)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS section_idents_content ON section_idents(content_id);
CREATE TABLE IF NOT EXISTS words(
    word TEXT NOT NULL,
    content_id INTEGER NOT NULL,
    PRIMARY KEY(word, content_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS words_content ON words(content_id);
CREATE TABLE IF NOT EXISTS units(
    id INTEGER PRIMARY KEY,
    content_id INTEGER NOT NULL,
    model_id TEXT NOT NULL,
    page INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    vector BLOB NOT NULL,
    UNIQUE(content_id, model_id, page, ordinal)
);
CREATE TABLE IF NOT EXISTS embeddings(
    content_id INTEGER NOT NULL,
    model_id TEXT NOT NULL,
    weights_hash TEXT NOT NULL,
    units_total INTEGER NOT NULL,
    units_done INTEGER NOT NULL,
    PRIMARY KEY(content_id, model_id)
) WITHOUT ROWID;
"""


#: The lease table (see :mod:`pdftui.lease`); also created on first use in a cache made
#: before it existed, so no schema bump (and no re-index) is needed.
_LEASES = """
CREATE TABLE IF NOT EXISTS leases(
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    heartbeat REAL NOT NULL,
    units_done INTEGER NOT NULL DEFAULT 0,
    units_total INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID
"""


@dataclass(frozen=True)
class LeaseRow:
    """One lease: who holds ``name`` (``holder`` token, ``pid`` on ``host``), its last
    heartbeat (seconds since the epoch) and the progress it published (units)."""

    name: str
    holder: str
    pid: int
    host: str
    heartbeat: float
    units_done: int
    units_total: int


def default_cache_dir() -> Path:
    """The cache folder: ``$PDFTUI_CACHE_DIR`` if set, else the platform user cache dir.

    Uses platformdirs (``~/.cache/pdftui`` on Linux, honouring ``XDG_CACHE_HOME``).
    """
    env = os.environ.get("PDFTUI_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("pdftui", appauthor=False))


_CJK_RE = re.compile(
    "([\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f])"
)
_TOKEN_RE = re.compile(r"\w+")


def fts_text(text: str) -> str:
    """The text as it is fed to FTS5: NFKC, and each CJK character made its own token.

    unicode61 treats a run of CJK characters as one token, so "天气" would never match inside
    "今天天气很好"; spacing CJK characters out indexes them as unigrams (queries get the
    same treatment and become phrases). Deterministic: deleting a row re-derives the same
    tokens from the stored page text.
    """
    text = unicodedata.normalize("NFKC", text)
    return _CJK_RE.sub(r" \1 ", text)


def fts_rows(db: sqlite3.Connection, kind: int, where: str, args: tuple
             ) -> list[tuple[int, str, str]]:
    """``[(row id, title, text)]`` of the page (``kind`` :data:`pdftui.postings.PAGES`) or
    section rows ``where`` selects, as their FTS rows index them (:func:`fts_text`; a
    section's own text; pages have no title: ``""``)."""
    if kind == postings.PAGES:
        return [(pid, "", fts_text(text)) for pid, text in db.execute(
            f"SELECT id, text FROM pages WHERE {where}", args)]
    return [(sid, fts_text(title), fts_text(text if own < 0 else text[:own]))
            for sid, title, text, own in db.execute(
                f"SELECT id, title, text, own_chars FROM sections WHERE {where}", args)]


_WORD_RE = re.compile(r"[^\W\d_]{3,30}")


def surface_words(text: str) -> set[str]:
    """The distinct case-folded words of ``text`` kept for typo suggestions: runs of 3-30
    letters (NFKC), no CJK (a CJK run is no word)."""
    return {w for w in _WORD_RE.findall(unicodedata.normalize("NFKC", text).casefold())
            if not _CJK_RE.search(w)}


def _head_source(title: str, text: str, own_chars: int) -> tuple[str, str]:
    """What a section's head unit is made from: its title and the start of its own text."""
    own = text if own_chars < 0 else text[:own_chars]
    return title, own[:SECTION_HEAD_CHARS]


def count_tokens(text: str) -> int:
    """Approximate FTS5 unicode61 token count of ``fts_text(text)`` (for BM25 lengths)."""
    return len(_TOKEN_RE.findall(fts_text(text)))


@dataclass
class _Previous:
    """What an older extraction of a content held that a new one may keep: its page texts
    by number, its embedding units, and each section's head source by ordinal."""

    texts: dict[int, str] = field(default_factory=dict)
    units: list[tuple] = field(default_factory=list)
    heads: dict[int, tuple[str, str]] = field(default_factory=dict)

    @classmethod
    def of(cls, db: sqlite3.Connection, content_id: int) -> _Previous:
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


class Cache:
    """A connection to the shared index cache.

    ``Cache(cache_dir)`` creates the folder (mode 0700) and the database if needed and
    migrates the schema. One ``Cache`` object is one SQLite connection, usable from the
    thread that created it only (open one per thread). Raises :class:`CacheError` when the
    location is unusable.
    """

    def __init__(self, cache_dir: str | os.PathLike | None = None, *,
                 read_only_ok: bool = False):
        self.dir = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
        self.path = self.dir / DB_NAME
        self._lock = threading.RLock()
        #: True when the cache was opened for reading only (``read_only_ok`` and a location
        #: that cannot take writes); ``read_only_reason`` then says why.
        self.read_only = False
        self.read_only_reason = ""
        if read_only_ok and self.path.is_file() and not self._writable():
            self._open_read_only()
            return
        try:
            self._open_writable()
        except CacheError:
            if not (read_only_ok and self.path.is_file()):
                raise
            self.close()
            self._open_read_only()   # a full disk: the index can still be read

    def _open_writable(self) -> None:
        """Create the folder and database if needed, open them and migrate the schema."""
        self.db = None
        try:
            if self.dir.exists() and not self.dir.is_dir():
                raise CacheError(f"cache location {self.dir} is a file, not a folder")
            if not self.dir.is_dir():
                self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
                try:  # only a folder we created: never re-mode a folder the user gave us
                    os.chmod(self.dir, 0o700)
                except OSError:
                    pass
            if not os.access(self.dir, os.W_OK | os.X_OK):
                why = unwritable_reason(self.dir)
                raise CacheError(f"cache folder {self.dir} is not writable"
                                 + ("" if why == "the folder is not writable" else f" ({why})"))
            if self.path.exists() and not os.access(self.path, os.R_OK | os.W_OK):
                raise CacheError(f"cache database {self.path} is read-only")
            self.db = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                check_same_thread=False,
            )
            self.db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=OFF")
            self._migrate()
        except CacheError:
            raise
        except (OSError, sqlite3.Error) as exc:
            import errno

            storage = (errno.ENOSPC, errno.EROFS, errno.EFBIG, errno.EDQUOT)
            if getattr(exc, "errno", None) in storage or (
                    isinstance(exc, sqlite3.Error) and _STORAGE_RE.search(str(exc))):
                raise CacheError(f"cannot use the cache at {self.dir}: "
                                 f"{unwritable_reason(self.dir, exc)}") from exc
            raise CacheError(f"cannot use the cache at {self.dir}: {exc}") from exc

    def _writable(self) -> bool:
        """True when both the folder and the database file can take writes."""
        return os.access(self.dir, os.W_OK | os.X_OK) and os.access(self.path, os.R_OK | os.W_OK)

    def _open_read_only(self) -> None:
        """Open the existing database for reading only (a finished index on a read-only
        mount, or a cache of another user): ``mode=ro``, else ``immutable=1`` when the WAL
        index cannot be created there. Raises :class:`CacheError` when it cannot be read or
        has another layout (it cannot be migrated without writing)."""
        from urllib.parse import quote

        self.read_only = True
        self.read_only_reason = unwritable_reason(self.dir)
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        try:
            for extra in ("", "&immutable=1"):
                self.db = sqlite3.connect(uri + extra, uri=True, isolation_level=None,
                                          timeout=BUSY_TIMEOUT_MS / 1000,
                                          check_same_thread=False)
                try:
                    version = self.db.execute("PRAGMA user_version").fetchone()[0]
                    self.db.execute("SELECT count(*) FROM files").fetchone()
                    break
                except sqlite3.Error:
                    self.db.close()
                    if extra:
                        raise
        except sqlite3.Error as exc:
            raise CacheError(f"cannot read the cache at {self.dir}: {exc}") from exc
        if version != SCHEMA_VERSION:
            self.db.close()
            raise CacheError(f"the cache at {self.dir} is read-only and of an older layout;"
                             " index once where it can be written")

    # -- schema ---------------------------------------------------------------------------
    def _migrate(self) -> None:
        """Bring an older layout up to ``SCHEMA_VERSION`` (or start a cache afresh).
        Raises :class:`CacheError` for a cache of a newer pdftui, which is never
        emptied: another process may be using it."""
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        with self.write():
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION:
                return
            if version > SCHEMA_VERSION:
                raise CacheError(
                    f"the cache at {self.dir} was made by a newer pdftui (layout {version},"
                    f" this one reads {SCHEMA_VERSION}); upgrade pdftui or use another"
                    " --cache-dir")
            fill = False
            if version == 1:
                # v1 -> v2: sections gain own_chars (-1 = whole text, which is what v1
                # indexed); embeddings are kept, contents re-extract (EXTRACTOR_VERSION)
                self.db.execute("ALTER TABLE sections ADD COLUMN own_chars INTEGER"
                                " NOT NULL DEFAULT -1")
                version = 2
            if version == 2:
                # v2 -> v3: the metadata table (created below); rows are filled lazily
                version = 3
            if version == 3:
                # v3 -> v4: pages say whether their text came from OCR; contents count
                # scanned pages left without text for want of Tesseract
                for table, column in (("pages", "ocr"), ("contents", "ocr_missing")):
                    have = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
                    if column not in have:
                        self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} INTEGER"
                                        " NOT NULL DEFAULT 0")
                version = 4
            if version == 4:
                # v4 -> v5: identifier and word tables, filled from the cached text
                # (nothing is extracted or embedded again)
                fill = True
                version = 5
            if version == 5:
                # v5 -> v6: the ocr_pages table (created below), filled by later extractions
                version = 6
            if version == 6:
                # v6 -> v7: the pages_ocr partial index (created below), so counting a
                # folder's OCR'd pages reads no page text (the document list at 10,000
                # documents read every page row: seconds before the first paint)
                version = 7
            if version == 7:
                # v7 -> v8: the postings table (created below) and contents.postings (1
                # once a content's postings are written). Nothing is filled here: the
                # next index fills them a content at a time (fill_postings), and until
                # then the keyword arm reads those contents from FTS5's instance table
                have = {r[1] for r in self.db.execute("PRAGMA table_info(contents)")}
                if "postings" not in have:
                    self.db.execute("ALTER TABLE contents ADD COLUMN postings INTEGER"
                                    " NOT NULL DEFAULT 0")
                version = SCHEMA_VERSION
            if version not in (0, SCHEMA_VERSION):
                # An older layout: the cache is derived data, so start afresh.
                for (name, kind) in self.db.execute(
                    "SELECT name, type FROM sqlite_master WHERE type IN ('table','view') "
                    "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts_%'"
                ).fetchall():
                    self.db.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
            for stmt in _split_sql(_SCHEMA):
                self.db.execute(stmt)
            self.db.execute(_LEASES)
            if fill:
                self._fill_extras()
            self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

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
        db = self.db
        db.execute("DELETE FROM postings WHERE content_id = ?", (cid,))
        for kind in (postings.PAGES, postings.SECTIONS):
            rows = fts_rows(db, kind, "content_id = ?", (cid,))
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

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A ``BEGIN IMMEDIATE`` transaction: commits on success, rolls back on error.

        Waits up to the busy timeout for another writer; re-entrant within one thread.
        """
        with self._lock:
            if self.db.in_transaction:
                yield self.db
                return
            _begin_immediate(self.db)
            try:
                yield self.db
                self.db.execute("COMMIT")
            except BaseException as exc:
                if self.db.in_transaction:
                    try:
                        self.db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                if isinstance(exc, sqlite3.OperationalError) and _STORAGE_RE.search(str(exc)):
                    raise CacheError(f"cannot write the cache at {self.dir}: "
                                     f"{unwritable_reason(self.dir, exc)}") from exc
                raise

    def close(self) -> None:
        """Close the connection (idempotent)."""
        try:
            if self.db is not None:
                self.db.close()
        except sqlite3.Error:
            pass

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: changes when another connection commits."""
        return self.db.execute("PRAGMA data_version").fetchone()[0]

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
                          "metadata", "page_idents", "section_idents", "words", "postings"):
                db.execute(f"DELETE FROM {table} WHERE content_id = ?", (content_id,))
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
                    ex.ocr_missing < self.ocr_missing(found[0])):
                return found[0]
            old = _Previous.of(db, found[0]) if found else _Previous()
            if found:
                self.delete_content(found[0])
            cur = db.execute(
                "INSERT INTO contents(sha256, size, title, page_count, skip_reason,"
                " text_quality, outline_dropped, notes, n_tokens, extractor_version,"
                " indexed_at, ocr_missing) VALUES(?,?,?,?,?,?,?,?,0,?,?,?)",
                (sha256, size, _storable(ex.title), ex.page_count, ex.skip_reason,
                 ex.text_quality,
                 ex.outline_dropped, json.dumps(ex.notes), EXTRACTOR_VERSION, time.time(),
                 ex.ocr_missing),
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

    # -- leases ---------------------------------------------------------------------------
    def take_lease(self, mine: LeaseRow, is_free: Callable[[LeaseRow], bool]) -> LeaseRow | None:
        """Take the lease ``mine.name`` for ``mine`` unless another holder has it and
        ``is_free(row)`` says it is still live. Returns None when the lease is ours now,
        else the live holder's row. One ``BEGIN IMMEDIATE``, so two takers never both win."""
        with self.write() as db:
            db.execute(_LEASES)
            row = self._lease(mine.name)
            if row is not None and row.holder != mine.holder and not is_free(row):
                return row
            db.execute("INSERT OR REPLACE INTO leases(name, holder, pid, host, heartbeat,"
                       " units_done, units_total) VALUES(?,?,?,?,?,?,?)",
                       (mine.name, mine.holder, mine.pid, mine.host, mine.heartbeat,
                        mine.units_done, mine.units_total))
            return None

    def renew_lease(self, name: str, holder: str, now: float, units_done: int,
                    units_total: int) -> bool:
        """Heartbeat: stamp ``now`` and the progress on the lease if ``holder`` still holds
        it; False when it was taken over (or released)."""
        with self.write() as db:
            cur = db.execute("UPDATE leases SET heartbeat=?, units_done=?, units_total=?"
                             " WHERE name=? AND holder=?",
                             (now, units_done, units_total, name, holder))
            return cur.rowcount == 1

    def release_lease(self, name: str, holder: str) -> None:
        """Give the lease up (only if ``holder`` holds it)."""
        with self.write() as db:
            db.execute(_LEASES)
            db.execute("DELETE FROM leases WHERE name=? AND holder=?", (name, holder))

    def lease(self, name: str) -> LeaseRow | None:
        """The lease ``name`` as stored, or None (no holder, or a cache without leases)."""
        try:
            return self._lease(name)
        except sqlite3.OperationalError:   # no leases table yet
            return None

    def _lease(self, name: str) -> LeaseRow | None:
        row = self.db.execute("SELECT name, holder, pid, host, heartbeat, units_done,"
                              " units_total FROM leases WHERE name=?", (name,)).fetchone()
        return LeaseRow(*row) if row else None

    # -- embeddings -----------------------------------------------------------------------
    def embedding_state(self, content_id: int, model_id: str) -> tuple[str, int, int] | None:
        """``(weights_hash, units_total, units_done)`` for a content and model, or None."""
        row = self.db.execute(
            "SELECT weights_hash, units_total, units_done FROM embeddings"
            " WHERE content_id=? AND model_id=?", (content_id, model_id),
        ).fetchone()
        return tuple(row) if row else None  # type: ignore[return-value]

    def content_states(self, root: str) -> list[tuple[str, str | None, str, int]]:
        """``[(doc, skip reason, text quality, pages missing OCR)]`` of every document of
        ``root`` that has a content, by document name."""
        return self.db.execute(
            "SELECT f.doc, c.skip_reason, c.text_quality, c.ocr_missing FROM files f"
            " JOIN contents c ON c.id = f.content_id WHERE f.root = ? ORDER BY f.doc", (root,)
        ).fetchall()

    def extractor_version(self, content_id: int) -> int | None:
        """The ``EXTRACTOR_VERSION`` a content was extracted with (None: no such content)."""
        row = self.db.execute("SELECT extractor_version FROM contents WHERE id=?",
                              (content_id,)).fetchone()
        return row[0] if row else None

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

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` result ("ok" when healthy)."""
        return self.db.execute("PRAGMA integrity_check").fetchone()[0]


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


#: Free space below which the disk holding the cache counts as full, bytes.
FULL_DISK_BYTES = 1 << 20


def unwritable_reason(folder: str | os.PathLike, exc: BaseException | None = None) -> str:
    """Why ``folder`` cannot take writes, in words: "the disk is full (N KiB free)",
    "the file system is read-only", "the file size limit (ulimit -f) is reached",
    "the folder is not writable", else the error itself. Never raises."""
    import errno

    err = getattr(exc, "errno", None)
    try:
        st = os.statvfs(folder)
        if err == errno.ENOSPC or st.f_bavail * st.f_frsize < FULL_DISK_BYTES:
            return f"the disk is full ({st.f_bavail * st.f_frsize // 1024} KiB free)"
        if err == errno.EROFS or st.f_flag & os.ST_RDONLY:
            return "the file system is read-only"
    except OSError:
        pass
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        if soft != resource.RLIM_INFINITY and (exc is None or err == errno.EFBIG
                                               or "disk I/O" in str(exc)):
            return f"the file size limit (ulimit -f, {soft // 1024} KiB) is reached"
    except (ImportError, OSError, ValueError):
        pass
    if not os.access(folder, os.W_OK | os.X_OK):
        return "the folder is not writable"
    return f"{exc} (disk full or read-only?)" if exc is not None else "it cannot be written"


#: sqlite3 errors that mean the cache location cannot take writes (not a bug of ours).
_STORAGE_RE = re.compile(r"full|disk I/O|readonly|read-only|unable to open|out of memory", re.I)


def _begin_immediate(db: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE, retrying past the busy timeout's rare early SQLITE_BUSY."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            db.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _split_sql(script: str) -> list[str]:
    return [s.strip() for s in script.split(";\n") if s.strip()]


def replicate_content(cache: Cache, source: Path, content_id: int, sha256: str,
                      drop_pages: list[int]) -> int:
    """Copy one content of the cache file ``source`` into ``cache`` under a new ``sha256``,
    without the pages ``drop_pages`` (1-based; their blocks and page units go too), and
    return the new content id. Outline, sections and section head units are copied whole;
    vectors are copied, never recomputed; both FTS indexes are filled from the copied
    text, so BM25 statistics are the copy's own. For bench/scale.py's folders of 1,000 and
    10,000 documents. Raises ``KeyError`` when ``content_id`` is not in ``source``.
    """
    db = cache.db
    if not any(r[1] == "src" for r in db.execute("PRAGMA database_list")):
        db.execute("ATTACH DATABASE ? AS src", (str(source),))
        db.create_function("pdftui_fts_text", 1, fts_text, deterministic=True)
    drop = json.dumps(sorted(set(drop_pages)))
    keep_page = "number NOT IN (SELECT value FROM json_each(:drop))"
    with cache.write():
        row = db.execute("SELECT size, title, page_count, skip_reason, text_quality,"
                         " outline_dropped, notes, extractor_version FROM src.contents"
                         " WHERE id = ?", (content_id,)).fetchone()
        if row is None:
            raise KeyError(content_id)
        cid = db.execute(
            "INSERT INTO contents(sha256, size, title, page_count, skip_reason, text_quality,"
            " outline_dropped, notes, n_tokens, extractor_version, indexed_at)"
            " VALUES(?,?,?,?,?,?,?,?,0,?,?)", (sha256, *row, time.time())).lastrowid
        args = {"cid": cid, "old": content_id, "drop": drop}
        searchable = row[3] is None and row[4] == "ok"
        _copy_text(db, args, keep_page, searchable)
        _copy_vectors(db, args)
        if searchable:
            cache._write_postings(cid)
    return cid


def _copy_text(db, args: dict, keep_page: str, searchable: bool) -> None:
    """:func:`replicate_content`'s text rows: pages (those ``keep_page`` keeps), blocks,
    outline and sections of content ``args["old"]`` in ``src`` copied to ``args["cid"]``;
    both FTS indexes filled from the copy when it is ``searchable``."""
    db.execute("INSERT INTO pages(content_id, number, label, text, n_tokens) SELECT :cid,"
               f" number, label, text, n_tokens FROM src.pages WHERE content_id = :old"
               f" AND {keep_page} ORDER BY number", args)
    if searchable:
        db.execute("INSERT INTO pages_fts(rowid, text) SELECT id, pdftui_fts_text(text)"
                   " FROM pages WHERE content_id = :cid AND trim(text) != ''", args)
    db.execute("INSERT INTO blocks SELECT :cid, page, ordinal, x0, y0, x1, y1, text"
               " FROM src.blocks WHERE content_id = :old AND page NOT IN"
               " (SELECT value FROM json_each(:drop))", args)
    db.execute("INSERT INTO outline SELECT :cid, ordinal, level, title, page, y"
               " FROM src.outline WHERE content_id = :old", args)
    db.execute("INSERT INTO sections(content_id, ordinal, level, title, path, start_page,"
               " start_block, end_page, end_block, text, source, n_tokens, own_chars)"
               " SELECT :cid, ordinal, level, title, path, start_page, start_block,"
               " end_page, end_block, text, source, n_tokens, own_chars FROM src.sections"
               " WHERE content_id = :old ORDER BY ordinal", args)
    if searchable:
        db.execute("INSERT INTO sections_fts(rowid, title, text) SELECT id,"
                   " pdftui_fts_text(title), pdftui_fts_text(CASE WHEN own_chars < 0"
                   " THEN text ELSE substr(text, 1, own_chars) END) FROM sections"
                   " WHERE content_id = :cid", args)


def _copy_vectors(db, args: dict) -> None:
    """:func:`replicate_content`'s embedding units (document-level units and those of the
    pages kept), their embedding rows recounted, and the copy's token count."""
    db.execute("INSERT INTO units(content_id, model_id, page, ordinal, char_start,"
               " char_end, vector) SELECT :cid, model_id, page, ordinal, char_start,"
               " char_end, vector FROM src.units WHERE content_id = :old AND (page = 0"
               " OR page NOT IN (SELECT value FROM json_each(:drop))) ORDER BY id", args)
    db.execute("INSERT INTO embeddings SELECT :cid, e.model_id, e.weights_hash,"
               " (SELECT count(*) FROM units u WHERE u.content_id = :cid AND"
               "  u.model_id = e.model_id), (SELECT count(*) FROM units u WHERE"
               "  u.content_id = :cid AND u.model_id = e.model_id)"
               " FROM src.embeddings e WHERE e.content_id = :old", args)
    db.execute("UPDATE contents SET n_tokens = (SELECT coalesce(sum(n_tokens), 0) FROM"
               " pages WHERE content_id = :cid) WHERE id = :cid", args)
