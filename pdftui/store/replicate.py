"""Copies of one cached content under another hash, for bench/scale.py's folders of 1,000
and 10,000 documents (vectors copied, never recomputed)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from .database import Cache
from .tokenizer import fts_text


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
    hidden text, outline and sections of content ``args["old"]`` in ``src`` copied to ``args["cid"]``;
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
    db.execute("INSERT INTO hidden_text(content_id, page, ordinal, kind, block, instruction,"
               " text) SELECT :cid, page, ordinal, kind, block, instruction, text"
               " FROM src.hidden_text WHERE content_id = :old AND page NOT IN"
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
