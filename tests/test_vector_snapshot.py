"""The vector snapshot (pdftui.store.vector_snapshot): a cold engine maps the vectors an
earlier one built instead of reading every unit from SQLite, and answers exactly as
without it; changed, deleted, damaged or unwritable: it falls back to SQLite."""

import os
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from pdftui.index import index_folder
from pdftui.search.engine import Engine
from pdftui.search.semantic import VectorMatrix
from pdftui.store import vector_snapshot as vs

from . import harness
from .conftest import SMALL_DOCS, corpus_pdf, shared_index

QUERIES = [("dark matter in the cosmic microwave background", "semantic"),
           ("speaker verification embeddings", "hybrid"),
           ("how to plot a graph", "semantic"),
           ("attention channel", "hybrid")]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return shared_index(tmp_path_factory, "vecsnap", SMALL_DOCS)


@pytest.fixture
def own(base, tmp_path) -> tuple[Path, Path]:
    """``(folder, cache)``: a copy of the indexed folder and its cache (no snapshot)."""
    folder, cache = base
    mine = (tmp_path / "papers", tmp_path / "cache")
    shutil.copytree(folder, mine[0])
    shutil.copytree(cache, mine[1], ignore=shutil.ignore_patterns(vs.FOLDER))
    db = sqlite3.connect(mine[1] / "index.sqlite3")   # the copy's files are the new folder's
    for table in ("files", "citation_links", "citation_state"):
        db.execute(f"UPDATE {table} SET root = ?", (os.path.realpath(mine[0]),))
    db.commit()
    db.close()
    return mine


def _answers(folder, cache, snapshot: bool = True):
    """``(answers to QUERIES, the engine's VectorMatrix)`` of a fresh engine."""
    e = Engine(folder, cache)
    if not snapshot:
        e._matrix = VectorMatrix(e.model_id)
    try:
        got = [[(h.doc, h.page, h.score, h.keyword_rank, h.semantic_rank, h.section_path,
                 h.cosine, h.excerpt)
                for h in e.search(q, mode=mode, top_k=20).hits]
               + [(h.doc, h.section_path, h.score)
                  for h in e.search(q, mode=mode, granularity="section", top_k=10).hits]
               for q, mode in QUERIES]
        m = e.matrix()
        m.wait_snapshot()
        return got, m
    finally:
        e.close()


def _snapshot(cache: Path) -> Path:
    found = list((cache / vs.FOLDER).glob("*.vsnap"))
    assert len(found) == 1
    return found[0]


def test_a_second_engine_maps_the_snapshot_and_answers_alike(own):
    folder, cache = own
    plain, m0 = _answers(folder, cache, snapshot=False)
    assert not (cache / vs.FOLDER).exists() and m0.contents_read == len(SMALL_DOCS)
    first, m1 = _answers(folder, cache)
    assert m1.contents_read == len(SMALL_DOCS) and m1.contents_mapped == 0
    assert _snapshot(cache).stat().st_size > 0
    second, m2 = _answers(folder, cache)
    assert m2.contents_read == 0 and m2.units_read == 0
    assert m2.contents_mapped == len(SMALL_DOCS)
    # one copy of the mapped codes in memory (queries on the mapping took 2-3 % longer)
    assert np.array_equal(m2.matrix.codes, m2._snapshot.codes)
    assert not np.shares_memory(m2.matrix.codes, m2._snapshot.codes)
    assert any(plain) and plain == first == second


def test_changed_and_deleted_documents_are_read_again(own, monkeypatch):
    folder, cache = own
    _answers(folder, cache)
    before = _snapshot(cache).stat().st_mtime_ns
    (folder / SMALL_DOCS[0]).unlink()   # deleted
    shutil.copyfile(corpus_pdf("arxiv-1512.03385-resnet.pdf"), folder / SMALL_DOCS[1])
    index_folder(folder, cache_dir=cache, embed=True)
    monkeypatch.setattr(VectorMatrix, "snapshot_interval", 0.0)
    got, m = _answers(folder, cache)
    assert m.contents_mapped == 1 and m.contents_read == 1   # SMALL_DOCS[2]; the new one
    plain, _ = _answers(folder, cache, snapshot=False)
    assert got == plain
    assert _snapshot(cache).stat().st_mtime_ns != before   # written anew
    again, m = _answers(folder, cache)
    assert again == plain and m.contents_read == 0 and m.contents_mapped == 2


@pytest.mark.parametrize("damage", ["truncated", "garbage", "shapes", "dtype", "empty"])
def test_a_damaged_snapshot_is_ignored_and_replaced(own, damage):
    folder, cache = own
    plain, _ = _answers(folder, cache)
    path = _snapshot(cache)
    data = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"PDTVSNP1" + bytes(range(256)) * 40)
    elif damage == "shapes":   # the index says more units than the file holds
        path.write_bytes(data.replace(b'"shape": [', b'"shape": [9', 1))
    elif damage == "dtype":    # the codes said to be float32 (same offsets)
        assert b'"dtype": "|u1"' in data
        path.write_bytes(data.replace(b'"dtype": "|u1"', b'"dtype": "<f4"', 1))
    else:
        path.write_bytes(b"")
    got, m = _answers(folder, cache)
    assert got == plain and m.contents_mapped == 0 and m.contents_read == len(SMALL_DOCS)
    assert _snapshot(cache).read_bytes() == data   # replaced by a good one
    _, m = _answers(folder, cache)
    assert m.contents_mapped == len(SMALL_DOCS)


def test_a_snapshot_of_another_cache_is_not_used(own, tmp_path):
    """A cache made anew (another ``cache_id``) never takes an old snapshot's vectors,
    even with the same content ids and unit counts."""
    folder, cache = own
    plain, _ = _answers(folder, cache)
    other = tmp_path / "other"
    shutil.copytree(cache, other)
    db = sqlite3.connect(other / "index.sqlite3")
    db.execute("UPDATE meta SET value = 'another' WHERE key = 'cache_id'")
    db.commit()
    db.close()
    got, m = _answers(folder, other)
    assert got == plain and m.contents_mapped == 0


def test_no_snapshot_where_it_cannot_be_written(own):
    folder, cache = own
    (cache / vs.FOLDER).write_bytes(b"a file where the folder would be")
    plain, _ = _answers(folder, cache, snapshot=False)
    got, m = _answers(folder, cache)
    assert got == plain and m.contents_read == len(SMALL_DOCS)
    assert not any(p.suffix == ".tmp" for p in cache.rglob("*"))


def test_a_read_only_cache_answers_without_a_snapshot(own, tmp_path):
    folder, cache = own
    ro = tmp_path / "ro"
    if not harness.mount_read_only(cache, ro):
        pytest.skip("cannot mount here (needs root with CAP_SYS_ADMIN)")
    try:
        plain, _ = _answers(folder, ro, snapshot=False)
        got, m = _answers(folder, ro)
        assert got == plain and m.contents_read == len(SMALL_DOCS)
        assert not (ro / vs.FOLDER).exists()
    finally:
        harness.unmount(ro)


def test_every_cache_has_an_identity_and_a_new_cache_a_new_one(tmp_path):
    """``meta.cache_id``: given when a cache is made, given once to a cache made without
    one, never the same for two caches made apart (a snapshot keys on it)."""
    from pdftui.store.database import Cache
    from pdftui.store.reader import read_cache_id

    a, b = Cache(tmp_path / "a"), Cache(tmp_path / "b")
    ids = read_cache_id(a.db), read_cache_id(b.db)
    assert all(ids) and ids[0] != ids[1]
    with a.write() as db:
        db.execute("DELETE FROM meta WHERE key = 'cache_id'")
    a.close()
    a = Cache(tmp_path / "a")
    again = read_cache_id(a.db)
    assert again and again not in ids
    a.close()
    a = Cache(tmp_path / "a")
    assert read_cache_id(a.db) == again   # kept once given
    a.close()
    b.close()
