"""The replication builder behind bench/scale.py, on a small real cache."""

from __future__ import annotations

import sqlite3

from pdftui.store.database import Cache
from pdftui.store.replicate import replicate_content
from pdftui.index import index_folder
from pdftui.search.service import SearchService

from .conftest import SMALL_DOCS, copy_docs


def test_replicas_copy_vectors_and_get_their_own_statistics(tmp_path):
    src = tmp_path / "src"
    folder = copy_docs(tmp_path / "papers", SMALL_DOCS[:1])   # the 4-page outlined paper
    index_folder(folder, src)
    dst, root = tmp_path / "dst", tmp_path / "library"
    root.mkdir()
    sdb = sqlite3.connect(src / "index.sqlite3")
    (cid, pages), = sdb.execute("SELECT id, page_count FROM contents").fetchall()
    cache = Cache(dst)
    whole = replicate_content(cache, src / "index.sqlite3", cid, "copy-0", [])
    part = replicate_content(cache, src / "index.sqlite3", cid, "copy-1", [2, 3])
    cache.set_file(str(root), "copy0/a.pdf", 1, 0, whole)
    cache.set_file(str(root), "copy1/a.pdf", 1, 1, part)
    cache.close()
    ddb = sqlite3.connect(dst / "index.sqlite3")
    n_units = sdb.execute("SELECT count(*) FROM units").fetchone()[0]
    assert ddb.execute("SELECT count(*) FROM units WHERE content_id=?", (whole,)).fetchone()[0] \
        == n_units
    assert ddb.execute("SELECT vector FROM units WHERE content_id=? ORDER BY id LIMIT 1",
                       (whole,)).fetchone() == sdb.execute(
        "SELECT vector FROM units ORDER BY id LIMIT 1").fetchone()
    kept = [n for (n,) in ddb.execute("SELECT number FROM pages WHERE content_id=?"
                                      " ORDER BY number", (part,))]
    assert kept == [n for n in range(1, pages + 1) if n not in (2, 3)]
    assert not ddb.execute("SELECT 1 FROM units WHERE content_id=? AND page IN (2, 3)",
                           (part,)).fetchone()
    done, total = ddb.execute("SELECT units_done, units_total FROM embeddings"
                              " WHERE content_id=?", (part,)).fetchone()
    assert done == total > 0
    ddb.close()
    sdb.close()
    # both copies are searchable; the copy without pages 2-3 has its own page statistics
    svc = SearchService(root, dst)
    try:
        r = svc.search_sync("dark matter", "keyword")
        assert r.coverage.searched == 2 and {h.doc for h in r.hits} == \
            {"copy0/a.pdf", "copy1/a.pdf"}
        assert not any(h.doc == "copy1/a.pdf" and h.page in (2, 3) for h in r.hits)
        assert svc.search_sync("dark matter", "hybrid").coverage.semantic_searched == 2
    finally:
        svc.close()


def _replicas(tmp_path, n: int):
    """``(root, cache)``: ``n`` copies of the 4-page outlined paper, each missing a page."""
    src = tmp_path / "src"
    index_folder(copy_docs(tmp_path / "papers", SMALL_DOCS[:1]), src)
    dst, root = tmp_path / "dst", tmp_path / "library"
    root.mkdir()
    sdb = sqlite3.connect(src / "index.sqlite3")
    (cid, _pages), = sdb.execute("SELECT id, page_count FROM contents").fetchall()
    sdb.close()
    cache = Cache(dst)
    for k in range(n):
        new = replicate_content(cache, src / "index.sqlite3", cid, f"copy-{k}", [2 + k % 3])
        cache.set_file(str(root), f"copy{k}/a.pdf", 1, k, new)
    cache.close()
    return root, dst


def test_section_index_keeps_no_sections_of_contents_not_shown(tmp_path):
    """The semantic section arm maps every content's sections to its units once, but
    keeps the Section lists only of the hits' contents (not of the whole folder), and
    ranks as it does with every content's sections cached."""
    root, dst = _replicas(tmp_path, 4)
    svc = SearchService(root, dst)
    try:
        eng = svc._get_engine()
        got = eng.search("dark matter halo", "semantic", "section", top_k=1)
        hit_cids = {eng.view.cid_of(h.doc) for h in got.hits}
        assert len(eng.view.memo.unit_maps) == 4   # every content's units mapped
        assert set(eng.view.memo.sections) <= hit_cids and len(hit_cids) == 1
        eng.view = None                            # start over, every content's sections
        eng.refresh()                            # cached before the arm runs
        for cid in {eng.view.cid_of(d.doc) for d in eng._docs}:
            eng.view.sections(cid)
        again = eng.search("dark matter halo", "semantic", "section", top_k=1)
        assert [h.to_json() for h in again.hits] == [h.to_json() for h in got.hits]
    finally:
        svc.close()
