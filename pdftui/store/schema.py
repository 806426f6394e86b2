"""The index cache's schema: one SQLite file that many folders and many processes use.

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
  holding the term with their counts, a packed array (:mod:`pdftui.store.postings`): what the
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
- ``reference_entries``: each content's reference list, one row per entry
  (:mod:`pdftui.references`: page, label, raw text, surnames as a JSON list, year, title,
  venue, arXiv id, DOI, given names as a JSON list parallel to the surnames, whether it
  printed "et al."); ``references_read``: the ``REFERENCES_VERSION`` that read a
  content's list (a content without a current row is read again from its stored blocks).
- ``citation_links``: per root folder, which entry (``citing`` content, ``ordinal``) is
  which content of the folder (``cited``) (:mod:`pdftui.citations`); ``citation_state``:
  the contents of the folder the links were computed with, each with a fingerprint of
  what matching reads of it, so a change re-matches only what it touches.
- ``leases``: who is indexing a folder or embedding for a model right now, with a
  heartbeat and the progress it published (:mod:`pdftui.lease`), so a second process
  follows instead of embedding again. Kept in a file of its own, ``leases.sqlite3``
  (:mod:`pdftui.store.leases`), so that taking a lease is no change to the index; the
  table in this file is left from older versions and unused.

BM25 statistics are per document: :mod:`pdftui.store.text_index` reads each term's rows and
counts from ``postings`` and scores each document's pages with that document's own
page count, document frequencies and average page length (``pages.n_tokens``), so adding or
removing unrelated PDFs never changes a document's internal page ranking.

Concurrency: WAL journal, a 60 s busy timeout, and every write in a short ``BEGIN IMMEDIATE``
transaction; a content is inserted whole in one transaction (never half-indexed) and a
content that another process inserted first is simply reused (``sha256`` is UNIQUE).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from ..errors import CacheError

SCHEMA_VERSION = 11  # 2: sections.own_chars; 3: metadata; 4: pages.ocr, contents.ocr_missing;
#   5: identifiers and words; 6: ocr_pages; 7: pages_ocr (partial index of OCR'd pages);
#   8: postings (per-row term counts of both FTS tables);
#   9: reference_entries, references_read, citation_links, citation_state
#   10: hidden_text, contents.hidden_skipped (issue 33: text a reader cannot see)
#   11: reference_entries.given, reference_entries.et_al (BibTeX of reference entries)

#: The FTS5 tokenizer of both FTS tables, and of every query tokenised to match them
#: (:mod:`pdftui.store.tokenizer`) and of the postings' counts (:mod:`pdftui.store.postings`):
#: the index and the query must agree token for token.
TOKENIZER = "porter unicode61 remove_diacritics 2"
#: The same without stemming: the words of a query as typed (prefixes, phrases).
PLAIN_TOKENIZER = "unicode61 remove_diacritics 2"

SCHEMA = f"""
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
    postings INTEGER NOT NULL DEFAULT 0,
    hidden_skipped INTEGER NOT NULL DEFAULT 0
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
    text, content='', tokenize='{TOKENIZER}');
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
CREATE TABLE IF NOT EXISTS hidden_text(
    content_id INTEGER NOT NULL,
    page INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    kind TEXT NOT NULL,
    block INTEGER,
    instruction INTEGER NOT NULL DEFAULT 0,
    text TEXT NOT NULL,
    PRIMARY KEY(content_id, page, ordinal)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS hidden_instruction ON hidden_text(content_id) WHERE instruction = 1;
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
    title, text, content='', tokenize='{TOKENIZER}');
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
CREATE TABLE IF NOT EXISTS reference_entries(
    content_id INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    page INTEGER NOT NULL,
    label TEXT NOT NULL,
    raw TEXT NOT NULL,
    authors TEXT NOT NULL DEFAULT '[]',
    year INTEGER,
    title TEXT NOT NULL DEFAULT '',
    venue TEXT NOT NULL DEFAULT '',
    arxiv_id TEXT NOT NULL DEFAULT '',
    doi TEXT NOT NULL DEFAULT '',
    given TEXT NOT NULL DEFAULT '[]',
    et_al INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY(content_id, ordinal)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS references_read(
    content_id INTEGER PRIMARY KEY,
    version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS citation_links(
    root TEXT NOT NULL,
    citing INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    cited INTEGER NOT NULL,
    PRIMARY KEY(root, citing, ordinal, cited)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS citation_links_cited ON citation_links(root, cited);
CREATE TABLE IF NOT EXISTS citation_state(
    root TEXT NOT NULL,
    content_id INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    PRIMARY KEY(root, content_id)
) WITHOUT ROWID;
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
LEASES = """
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


def split_sql(script: str) -> list[str]:
    """The statements of a script of ``;\n``-separated statements, blank ones dropped."""
    return [s.strip() for s in script.split(";\n") if s.strip()]


def user_version(db: sqlite3.Connection) -> int:
    """The layout version a cache file holds (``PRAGMA user_version``; 0 for a new file)."""
    return db.execute("PRAGMA user_version").fetchone()[0]


def migrate(db: sqlite3.Connection, where: Path, fill_extras: Callable[[], None]) -> None:
    """Bring an older layout up to ``SCHEMA_VERSION`` (or start a cache afresh), inside the
    caller's write transaction; ``fill_extras`` fills the identifier and word tables from
    the cached text (the step to v5). Raises :class:`CacheError` for a cache of a newer
    pdftui (``where`` names it), which is never emptied: another process may be using it."""
    version = user_version(db)
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise CacheError(
            f"the cache at {where} was made by a newer pdftui (layout {version},"
            f" this one reads {SCHEMA_VERSION}); upgrade pdftui or use another"
            " --cache-dir")
    version, fill = _upgrade(db, version)
    if version not in (0, SCHEMA_VERSION):
        _drop_layout(db)
    for stmt in split_sql(SCHEMA):
        db.execute(stmt)
    db.execute(LEASES)
    if fill:
        fill_extras()
    new_cache_id(db)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


def new_cache_id(db: sqlite3.Connection) -> None:
    """Give the cache a new random identity (``meta`` key ``cache_id``), inside the
    caller's write transaction: a made or migrated cache is never taken for the one a
    vector snapshot (:mod:`pdftui.store.vector_snapshot`) was built from."""
    import uuid

    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('cache_id', ?)",
               (uuid.uuid4().hex,))


def has_cache_id(db: sqlite3.Connection) -> bool:
    """Does the cache have its identity (:func:`new_cache_id`)?"""
    return db.execute("SELECT 1 FROM meta WHERE key = 'cache_id'").fetchone() is not None


def _upgrade(db: sqlite3.Connection, version: int) -> tuple[int, bool]:
    """The in-place steps from ``version`` on: ``(version reached, the identifier and word
    tables must be filled)``. A layout no step starts from is left as it is."""
    fill = False
    if version == 1:
        # v1 -> v2: sections gain own_chars (-1 = whole text, which is what v1
        # indexed); embeddings are kept, contents re-extract (EXTRACTOR_VERSION)
        db.execute("ALTER TABLE sections ADD COLUMN own_chars INTEGER"
                   " NOT NULL DEFAULT -1")
        version = 2
    if version == 2:
        # v2 -> v3: the metadata table (created by SCHEMA); rows are filled lazily
        version = 3
    if version == 3:
        # v3 -> v4: pages say whether their text came from OCR; contents count
        # scanned pages left without text for want of Tesseract
        for table, column in (("pages", "ocr"), ("contents", "ocr_missing")):
            _add_int_column(db, table, column)
        version = 4
    if version == 4:
        # v4 -> v5: identifier and word tables, filled from the cached text
        # (nothing is extracted or embedded again)
        fill = True
        version = 5
    return _upgrade_from_5(db, version), fill


def _upgrade_from_5(db: sqlite3.Connection, version: int) -> int:
    """:func:`_upgrade`'s steps from v5 on; returns the version reached."""
    if version == 5:
        # v5 -> v6: the ocr_pages table (created by SCHEMA), filled by later extractions
        version = 6
    if version == 6:
        # v6 -> v7: the pages_ocr partial index (created by SCHEMA), so counting a
        # folder's OCR'd pages reads no page text (the document list at 10,000
        # documents read every page row: seconds before the first paint)
        version = 7
    if version == 7:
        # v7 -> v8: the postings table (created by SCHEMA) and contents.postings (1
        # once a content's postings are written). Nothing is filled here: the
        # next index fills them a content at a time (fill_postings), and until
        # then the keyword arm reads those contents from FTS5's instance table
        _add_int_column(db, "contents", "postings")
        version = 8
    if version == 8:
        # v8 -> v9: the reference and citation tables (created by SCHEMA). Nothing is
        # filled here: the next index reads each content's reference list from its
        # stored blocks (no PDF is opened) and links the folder's entries
        version = 9
    # --- v9 -> v10 (issue 33, hidden text) -------------------------------------------
    if version == 9:
        # the hidden_text table (created by SCHEMA) and contents.hidden_skipped (1 when
        # hidden text was left out of the page text); contents extracted before hold no
        # hidden runs and re-extract (EXTRACTOR_VERSION 26)
        _add_int_column(db, "contents", "hidden_skipped")
        version = 10
    if version == 10:
        # reference entries gain their authors' given names and "et al."; their lists are
        # read again from the stored blocks (REFERENCES_VERSION 6), no PDF is opened
        # (a table made by SCHEMA after these steps, from an older layout, has them)
        have = {r[1] for r in db.execute("PRAGMA table_info(reference_entries)")}
        if have and "given" not in have:
            db.execute("ALTER TABLE reference_entries ADD COLUMN given TEXT NOT NULL"
                       " DEFAULT '[]'")
        if have:
            _add_int_column(db, "reference_entries", "et_al")
        version = SCHEMA_VERSION
    return version


def _add_int_column(db: sqlite3.Connection, table: str, column: str) -> None:
    """Add ``column INTEGER NOT NULL DEFAULT 0`` to ``table`` unless it has it already."""
    have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
    if column not in have:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} INTEGER"
                   " NOT NULL DEFAULT 0")


def _drop_layout(db: sqlite3.Connection) -> None:
    """Drop every table and view of an older layout: the cache is derived data, so it
    starts afresh (FTS shadow tables go with their FTS table)."""
    for (name, kind) in db.execute(
        "SELECT name, type FROM sqlite_master WHERE type IN ('table','view') "
        "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts_%'"
    ).fetchall():
        db.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
