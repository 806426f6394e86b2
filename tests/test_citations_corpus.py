"""Citation links on real corpus papers: BERT cites both versions of the Transformer paper,
the Transformer cites ResNet, and no paper is linked to a paper it does not cite."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pdftui.cli import main
from pdftui.index import index_folder
from .conftest import copy_docs

V5 = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"
V7 = "arxiv-1706.03762v7-attention-is-all-you-need.pdf"
BERT = "arxiv-1810.04805-bert.pdf"
RESNET = "arxiv-1512.03385-resnet.pdf"
GAN = "arxiv-1406.2661-generative-adversarial-nets.pdf"


def _json(*args) -> dict:
    r = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert r.exit_code == 0, r.stdout
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def papers(tmp_path_factory):
    base = tmp_path_factory.mktemp("cite-corpus")
    folder = copy_docs(base / "papers", [V5, V7, BERT, RESNET, GAN])
    index_folder(folder, base / "cache", embed=False)
    return folder, base / "cache"


def test_bert_cites_the_transformer_in_both_versions(papers):
    folder, cache = papers
    refs = _json("refs", folder, BERT, "--json", "--cache-dir", cache)["references"]
    assert len(refs) >= 55
    linked = [r for r in refs if r["match"]]
    assert [(r["match"], r["matches"], r["page"]) for r in linked] == [(V7, [V5, V7], 11)]
    vaswani = linked[0]
    assert vaswani["authors"][0] == "Vaswani" and vaswani["year"] == 2017
    assert vaswani["title"] == "Attention is all you need"
    assert vaswani["label"] == "Vaswani et al., 2017"


def test_transformer_cites_resnet_and_counts(papers):
    folder, cache = papers
    out = _json("cited-by", folder, RESNET, "--json", "--cache-dir", cache)
    assert sorted(c["doc"] for c in out["cited_by"]) == [V5, V7]
    assert {c["page"] for c in out["cited_by"]} == {11}
    docs = _json("docs", folder, "--json", "--sort", "cited", "--cache-dir", cache,
                 "--data-dir", folder.parent / "data")["documents"]
    counts = {d["doc"]: d["cited_by"] for d in docs}
    # the two versions are one citing work: ResNet is cited once; nobody here cites BERT
    assert counts == {V5: 1, V7: 1, RESNET: 1, BERT: 0, GAN: 0}


def test_attention_reference_list_fields(papers):
    folder, cache = papers
    refs = _json("refs", folder, V7, "--json", "--cache-dir", cache)["references"]
    assert [r["label"] for r in refs[:3]] == ["[1]", "[2]", "[3]"]
    assert len(refs) == 40
    assert refs[0]["authors"] == ["Ba", "Kiros", "Hinton"] and refs[0]["arxiv_id"] == "1607.06450"
    assert all(r["year"] for r in refs)


def test_a_pattern_naming_only_versions_of_one_work_names_its_newest(papers):
    """Trial finding: ``cited-by FOLDER attention`` (and ``refs``, ``similar``, ``read``)
    refused "matches 2 documents" for the two Transformer versions, which ``mark``
    already takes as one work. They now read the newest version; a pattern naming two
    works is still refused."""
    folder, cache = papers
    out = _json("cited-by", folder, "attention", "--json", "--cache-dir", cache)
    assert out["doc"] == V7
    refs = _json("refs", folder, "attention", "--json", "--cache-dir", cache)
    assert refs["doc"] == V7 and any(r["match"] == RESNET for r in refs["references"])
    page = _json("read", folder, "attention", "--page", "1", "--json", "--cache-dir", cache)
    assert page["doc"] == V7
    r = CliRunner().invoke(main, ["read", str(folder), "attention", "--page", "1",
                                  "--cache-dir", str(cache)])
    assert f"using the newest, {V7} (also {V5})" in r.stderr   # says which, names the other
    r = CliRunner().invoke(main, ["refs", str(folder), "arxiv-1", "--json",
                                  "--cache-dir", str(cache)])
    assert r.exit_code == 2 and "matches" in r.output


def _fill(cache_dir, monkeypatch, parallel_min: int, cancel=None) -> tuple[dict, list]:
    """Forget the stored reference lists of a copy of ``cache_dir``, read them again with
    the pool used from ``parallel_min`` contents on (chunks of 2); ``(read, stored rows)``."""
    import shutil
    import sqlite3

    from pdftui.index import citations as step
    from pdftui.store.database import Cache

    work = cache_dir.parent / f"cache-fill-{parallel_min}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(cache_dir, work)
    db = sqlite3.connect(work / "index.sqlite3")
    root = db.execute("SELECT DISTINCT root FROM files").fetchone()[0]
    db.execute("DELETE FROM references_read")
    db.execute("DELETE FROM reference_entries")
    db.commit()
    monkeypatch.setattr(step, "PARALLEL_MIN_CONTENTS", parallel_min)
    monkeypatch.setattr(step, "CHUNK_CONTENTS", 2)
    monkeypatch.setattr(step.os, "cpu_count", lambda: 2)
    cache = Cache(work)
    read: dict = {}
    try:
        assert step.fill_references(cache, root, cancel, read) == 5
    finally:
        cache.close()
    rows = db.execute("SELECT * FROM reference_entries ORDER BY content_id, ordinal").fetchall()
    db.close()
    shutil.rmtree(work)
    return read, rows


def test_reference_lists_parsed_in_worker_processes_are_the_same(papers, monkeypatch):
    _, cache = papers
    here = _fill(cache, monkeypatch, 10_000)
    pooled = _fill(cache, monkeypatch, 1)
    assert len(here[1]) >= 150 and len(here[0]) == 5
    assert pooled == here


def test_a_failing_pool_falls_back_to_parsing_in_process(papers, monkeypatch):
    from concurrent.futures import Future

    from pdftui.index import citations as step

    class Broken:
        """A pool whose second job fails and whose third cannot be submitted."""

        def __init__(self, *args, **kwargs):
            self.jobs = 0

        def submit(self, fn, *args):
            self.jobs += 1
            if self.jobs == 3:
                raise RuntimeError("pool broken")
            job = Future()
            if self.jobs == 2:
                job.set_exception(RuntimeError("worker died"))
            else:
                job.set_result(fn(*args))
            return job

        def shutdown(self, wait=True, cancel_futures=False):
            pass

    _, cache = papers
    here = _fill(cache, monkeypatch, 10_000)
    monkeypatch.setattr(step, "ProcessPoolExecutor", Broken)
    assert _fill(cache, monkeypatch, 1) == here


def test_a_cancel_stops_the_pool_between_chunks(papers, monkeypatch):
    import threading

    class AfterOne(threading.Event):
        """Set from its second look on (after the first chunk)."""

        looks = 0

        def is_set(self) -> bool:
            self.looks += 1
            return self.looks > 1

    _, cache = papers
    here = _fill(cache, monkeypatch, 10_000)
    read, rows = _fill(cache, monkeypatch, 1, AfterOne())
    first = sorted(here[0])[:2]
    assert read == {c: here[0][c] for c in first}
    assert rows == [r for r in here[1] if r[0] in first]
