"""Postings (per-row term counts in the cache) rank exactly as FTS5's instance table did."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from pdftui.store import postings
from pdftui.store.database import Cache
from pdftui.store.replicate import replicate_content
from pdftui.store.tokenizer import fts_text
from pdftui.index import index_folder
from pdftui.search.keyword import parse_query
from pdftui.store.text_index import KeywordIndex

from .conftest import SHARED, SMALL_DOCS, shared_file
from pdftui.store.schema import SCHEMA_VERSION

#: Queries beyond the graded ones: prefixes, compounds, phrases' words, CJK, identifiers.
SYNTAX = ["fin*", "attent*", "verif*", "feedforward", "speakerverification", "dark matter",
          "multi-head attention", "天气", "x-vector", "1706.03762", "the of and", "zzqx"]
FIELDS = ("ids", "pos", "content", "score", "mask", "doc_content", "doc_tfm")


def _queries() -> list[str]:
    data = json.loads(shared_file(SHARED / "eval" / "queries.json").read_text())
    return [q["query"] for q in data["queries"]] + SYNTAX


def _differences(db: sqlite3.Connection, queries: list[str]) -> list[tuple[str, str, str]]:
    """``[(query, granularity, field)]`` where the postings and the instance table give
    different rankings (all of them, scoped to one content too)."""
    new, old = KeywordIndex(db), KeywordIndex(db)
    old.postings = False
    first = db.execute("SELECT min(id) FROM contents").fetchone()[0]
    out = []
    for q in queries:
        terms = parse_query(q)
        for kind in ("pages", "sections"):
            for scope in (None, {first}):
                a, b = new.rank(terms, scope, kind), old.rank(terms, scope, kind)
                out.extend((q, kind, f) for f in FIELDS
                           if not np.array_equal(getattr(a, f), getattr(b, f)))
    return out


@pytest.fixture
def indexed(small_indexed):
    return small_indexed


def test_postings_rank_every_query_as_the_instance_table_did(indexed):
    _folder, cache_dir = indexed
    cache = Cache(cache_dir)
    try:
        n = cache.db.execute("SELECT count(*) FROM postings").fetchone()[0]
        assert n > 1000
        assert _differences(cache.db, _queries()) == []
        # and they are not trivially equal: a query holds rows and scores
        r = KeywordIndex(cache.db).rank(parse_query("speaker verification"), None, "pages")
        assert len(r.ids) > 3 and r.score.max() > 0
    finally:
        cache.close()


def test_postings_hold_the_counts_fts5_indexed():
    rows = [(7, "", fts_text("Attention, attention: the attention layer.")),
            (9, fts_text("Attention"), fts_text("layers of layer"))]
    got = dict(postings.build(rows))
    arr = {t: postings.unpack([b]).tolist() for t, b in got.items()}
    assert arr["attent"] == [[7, 3, 0], [9, 1, 1]]   # row, tf, title
    assert arr["layer"] == [[7, 1, 0], [9, 2, 0]]
    with pytest.raises(ValueError):
        postings.build([(postings.MAX_ROW + 1, "", "x")])


def test_postings_follow_their_content_and_migrate(indexed, tmp_path):
    folder, cache_dir = indexed
    src = cache_dir / "index.sqlite3"
    cache = Cache(tmp_path / "copy")
    try:
        cid = replicate_content(cache, src, 1, "copy-1", [2])
        kinds = {k for (k,) in cache.db.execute(
            "SELECT DISTINCT kind FROM postings WHERE content_id = ?", (cid,))}
        assert kinds == {postings.PAGES, postings.SECTIONS}
        assert _differences(cache.db, SYNTAX + ["dark matter halo"]) == []
        cache.delete_content(cid)
        assert cache.db.execute("SELECT count(*) FROM postings").fetchone()[0] == 0
    finally:
        cache.close()
    # a schema-7 cache (no postings) opens at once; its contents rank from FTS5 until the
    # next index writes their postings, a content at a time (half written: both ways)
    db = sqlite3.connect(src)
    before = db.execute("SELECT count(*), sum(length(data)) FROM postings").fetchone()
    db.execute("DROP TABLE postings")
    db.execute("CREATE TABLE c2 AS SELECT * FROM contents")
    db.execute("DROP TABLE contents")
    db.execute("ALTER TABLE c2 DROP COLUMN postings")
    db.execute("ALTER TABLE c2 RENAME TO contents")
    db.execute("PRAGMA user_version = 7")
    db.commit()
    db.close()
    cache = Cache(cache_dir)
    try:
        assert cache.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert cache.db.execute("SELECT count(*) FROM postings").fetchone()[0] == 0
        assert _differences(cache.db, SYNTAX) == []
        missing = cache.postings_missing(str(folder.resolve()))
        assert len(missing) == len(SMALL_DOCS)
        cache.fill_postings(missing[0])
        assert cache.postings_missing(str(folder.resolve())) == missing[1:]
        assert _differences(cache.db, SYNTAX + ["dark matter halo"]) == []
    finally:
        cache.close()
    index_folder(folder, cache_dir, embed=False)
    cache = Cache(cache_dir)
    try:
        assert cache.postings_missing(str(folder.resolve())) == []
        assert cache.db.execute("SELECT count(*), sum(length(data)) FROM postings"
                                ).fetchone() == before
        assert _differences(cache.db, SYNTAX) == []
    finally:
        cache.close()
