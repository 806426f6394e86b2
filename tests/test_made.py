"""The core pipeline on PDFs made by ``tests/pdfs.py``: runs anywhere, no ``../shared``.

Index (text and embeddings with the shipped model), the three search modes, sections from
an outline and from the heading detector, page labels, reading, and the CLI's JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pdftui.index import index_folder
from pdftui.library import Library
from pdftui.search import SearchService

from .pdfs import PDFS


@pytest.fixture(scope="module")
def made_index(tmp_path_factory):
    from .pdfs import make_pdfs

    base = tmp_path_factory.mktemp("made-index")
    folder = make_pdfs(base / "papers")
    (folder / "broken.pdf").write_bytes(b"this is not a pdf at all")
    cache = base / "cache"
    summary = index_folder(folder, cache)
    service = SearchService(folder, cache_dir=cache)
    yield folder, cache, summary, service
    service.close()


def test_every_made_pdf_is_indexed_and_embedded(made_index):
    _folder, _cache, summary, _svc = made_index
    assert summary.indexed == len(PDFS)
    assert summary.skipped == [{"doc": "broken.pdf", "reason": "not a PDF"}]
    assert summary.embedding_pending == 0 and summary.units > 0


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
def test_each_mode_finds_the_page_that_answers(made_index, mode):
    _folder, _cache, _summary, service = made_index
    query = {"keyword": "zorvane anchorage", "semantic": "how the steel wires of the main cable are spun",
             "hybrid": "zorvane anchorage concrete"}[mode]
    res = service.search_sync(query, mode=mode, top_k=5)
    assert res.hits, res.to_json()
    top = res.hits[0]
    assert (top.doc, top.page) == ("bridges.pdf", 2), res.to_json()
    assert [h.rank for h in res.hits] == list(range(1, len(res.hits) + 1))
    assert res.coverage.searched == len(PDFS) and res.coverage.total == len(PDFS) + 1


def test_sections_from_outline_and_from_headings(made_index):
    folder, cache, _summary, _svc = made_index
    lib = Library(folder, cache)
    try:
        titles = [s.title for s in lib.sections("bridges.pdf")]
        # the text above the first outline entry (the title) is a section of its own
        assert titles == ["Suspension Bridges: A Field Guide", "1 Introduction", "2 Cables",
                          "2.1 Anchorages", "3 Decks", "4 Maintenance"]
        cables = lib.section("bridges.pdf", "2 Cables")
        assert "catenary" in cables.text and "zorvane" in cables.text  # holds 2.1
        detected = [s.title for s in lib.sections("orchards.pdf")]
        assert "1 Soil and planting" in detected and "2 Pruning and harvest" in detected
        assert [lib.page_label("orchards.pdf", n) for n in (1, 2, 3)] == ["i", "1", "2"]
    finally:
        lib.close()


def test_cli_search_json_on_made_pdfs(made_index):
    folder, cache, _summary, _svc = made_index
    r = subprocess.run([sys.executable, "-m", "pdftui.cli", "search", str(folder), "quillet",
                        "--mode", "keyword", "--cache-dir", str(cache), "--json"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)["hits"]
    assert [(h["doc"], h["page"], h["page_label"]) for h in hits[:1]] == [
        ("orchards.pdf", 2, "1")]
