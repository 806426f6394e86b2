"""OCR of scanned pages (Tesseract through PyMuPDF): the scans of ../shared/tricky/real are
searchable by their words, marked as OCR everywhere, and bounded in time; without
Tesseract they are flagged with the way to get OCR and re-extracted once it is installed."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
from concurrent.futures import ProcessPoolExecutor

import pytest

from pdftui import ocr
from pdftui.index import index_folder
from pdftui.index.extraction import DOC_TIMEOUT_S
from pdftui.library import Library
from pdftui.search.engine import Engine
from pdftui.tui.corpus_pane import status_text

from .conftest import TRICKY
from .test_tricky import tricky_cache  # noqa: F401 - the session's indexed tricky files

REAL = TRICKY / "real"
FLAJOLET = "scanned-flajolet-probabilistic-counting-28pages.pdf"
JBIG2 = "scanned-jbig2-rotated-270.pdf"
LISP = "scanned-lisp2-garbage-collector-2pages.pdf"
TINY = "scan-with-tiny-text-layer.pdf"

pytestmark = [
    pytest.mark.skipif(not REAL.is_dir(), reason="no ../shared/tricky"),
    pytest.mark.skipif(not ocr.available(), reason="Tesseract is not installed"),
]


def test_flajolet_scan_found_by_its_words_and_marked_ocr(tricky_cache):  # noqa: F811
    cache, _ = tricky_cache
    eng = Engine(REAL, cache)
    try:
        res = eng.search("probabilistic counting", mode="keyword")
        assert res.hits and res.hits[0].doc == FLAJOLET, [h.doc for h in res.hits]
        top = res.to_json()["hits"][0]
        assert top["ocr"] is True
        assert "probabilistic" in top["excerpt"].lower()
        # a document with a real text layer is not marked
        other = eng.search("pdf.js", mode="keyword")
        assert other.hits and other.hits[0].doc == TINY and other.hits[0].ocr is False
        # sections are cut from OCR text too, and section hits carry the mark
        sec = eng.search("probabilistic counting", mode="keyword", granularity="section")
        assert sec.hits and sec.hits[0].doc == FLAJOLET and sec.hits[0].ocr is True
    finally:
        eng.close()


def test_scanned_documents_indexed_with_ocr_status(tricky_cache):  # noqa: F811
    cache, _ = tricky_cache
    lib = Library(REAL, cache)
    try:
        info = {d.doc: d for d in lib.documents()}
        for name, pages in ((FLAJOLET, 28), (LISP, 2), (JBIG2, 1)):
            assert info[name].status == "indexed", (name, info[name])
            assert info[name].ocr_pages == pages
            assert "OCR" in status_text(info[name]).plain
        assert info[TINY].ocr_pages == 0 and "OCR" not in status_text(info[TINY]).plain
        page = lib.page(FLAJOLET, 1)
        assert page.to_json()["ocr"] is True and "COUNTING" in page.text.upper()
        assert lib.page(TINY, 1).to_json()["ocr"] is False
        assert lib.sections(FLAJOLET)
    finally:
        lib.close()


def test_rotated_scan_is_read_upright_with_unrotated_boxes(tricky_cache):  # noqa: F811
    """The JBIG2 scan has /Rotate 270: rendered as displayed, Tesseract reads it upright;
    its blocks lie in the page's unrotated space (792 x 612 points), like all blocks."""
    cache, _ = tricky_cache
    lib = Library(REAL, cache)
    try:
        text = lib.page(JBIG2, 1).text
        assert "Doesn't" in text and "Work" in text, text
        boxes = lib.blocks(JBIG2, 1)
        assert boxes and all(0 <= x0 < x1 <= 792.5 and 0 <= y0 < y1 <= 612.5
                             for x0, y0, x1, y1, _t in boxes), boxes
    finally:
        lib.close()


def test_ocr_text_reaches_the_semantic_arm(tmp_path):
    folder = tmp_path / "scans"
    folder.mkdir()
    shutil.copy2(REAL / LISP, folder / LISP)
    shutil.copy2(REAL / TINY, folder / TINY)
    summary = index_folder(folder, tmp_path / "cache")
    assert summary.indexed == 2 and summary.embedding_pending == 0
    eng = Engine(folder, tmp_path / "cache")
    try:
        res = eng.search("reclaiming unused memory words in a list processor",
                         mode="semantic")
        assert res.hits and res.hits[0].doc == LISP and res.hits[0].ocr is True
    finally:
        eng.close()


def test_without_tesseract_flagged_then_ocrd_once_installed(tmp_path, monkeypatch):
    folder = tmp_path / "scans"
    folder.mkdir()
    shutil.copy2(REAL / LISP, folder / LISP)
    cache = tmp_path / "cache"
    empty = tmp_path / "no-tessdata"
    empty.mkdir()
    monkeypatch.setenv("TESSDATA_PREFIX", str(empty))   # a machine without Tesseract data
    monkeypatch.setattr(ocr, "_TESSDATA", [])
    first = index_folder(folder, cache, embed=False)
    assert {"doc": LISP, "note": ocr.MISSING_NOTE} in first.notes
    lib = Library(folder, cache)
    try:
        (info,) = lib.documents()
        assert info.status == "no text layer" and info.reason == ocr.MISSING_NOTE
        assert "install tesseract-ocr" in status_text(info).plain
    finally:
        lib.close()
    eng = Engine(folder, cache)
    try:
        cov = eng.search("garbage collector", mode="keyword").coverage
        assert {"doc": LISP, "reason": ocr.MISSING_NOTE} in [s.to_json() for s in cov.skipped]
    finally:
        eng.close()
    monkeypatch.delenv("TESSDATA_PREFIX")
    monkeypatch.setattr(ocr, "_TESSDATA", [])
    again = index_folder(folder, cache, embed=False)
    assert again.indexed == 1 and not again.notes          # re-extracted, now with OCR
    lib = Library(folder, cache)
    try:
        (info,) = lib.documents()
        assert info.status == "indexed" and info.ocr_pages == 2
    finally:
        lib.close()
    assert index_folder(folder, cache, embed=False).indexed == 0  # and only once


def _children() -> set[str]:
    """Process ids of this process's children (Linux /proc)."""
    out: set[str] = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as fh:
            out.update(fh.read().split())
    return out


def _in_worker(fn, *args):
    """``fn(*args)`` in a freshly spawned process, where the indexer runs OCR (its extraction
    workers are spawned). OCR forks a child per page; forked from this test process, whose
    other threads (left by earlier tests: embedder pools, workers) may hold native locks at
    that instant, a child can block until the wall-clock backstop."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(fn, *args).result(timeout=900)


def _limits_case() -> dict:
    """In a worker: the two limits' kinds, whether children were left, the spent budget."""
    import pymupdf

    doc = pymupdf.open(REAL / FLAJOLET)
    out = {}
    try:
        before = _children()
        for name, kw in (("wall", {"wall_s": 0.05}), ("cpu", {"cpu_s": 1})):
            try:                                   # a page takes 2-3 CPU s
                ocr.recognise(doc[0], 0, **kw)
                out[name] = "finished"
            except ocr.OcrTimeout as exc:
                out[name] = exc.kind
            out[name + "_left"] = sorted(_children() - before)
        spent = ocr.Budget(limit_s=0.0)
        out["spent"] = (spent.page(doc, 0, 0), spent.over, spent.pending,
                        " ".join(spent.notes(str)))
    finally:
        doc.close()
    return out


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_page_limits_kill_the_recognition():
    """The wall-clock backstop and the CPU-second limit each kill the child (and reap it);
    a spent document budget leaves the page pending, with a note."""
    got = _in_worker(_limits_case)
    assert got["wall"] == "wall" and got["wall_left"] == []
    assert got["cpu"] == "cpu" and got["cpu_left"] == []
    page, over, pending, notes = got["spent"]
    assert page is None and over == [1] and pending == 1
    assert "pending for the next index" in notes


def _heartbeat_case(beat: str) -> tuple:
    import pymupdf

    doc = pymupdf.open(REAL / JBIG2)
    try:
        budget = ocr.Budget(heartbeat=beat)
        page = budget.page(doc, 0, 0)
        return page is not None, budget.done, os.path.exists(beat), list(budget.results), \
            budget.cpu_s
    finally:
        doc.close()


def test_each_ocrd_page_beats_the_heartbeat(tmp_path):
    """The indexer's document timeout counts from the last heartbeat, so a long scan that
    makes progress page by page is never killed as hung (index._idle_s)."""
    from pdftui.index.extraction import _idle_s

    beat = tmp_path / "beat"
    recognised, done, beaten, results, cpu_s = _in_worker(_heartbeat_case, str(beat))
    assert recognised and done == [] and beaten
    assert results == [1] and cpu_s > 0
    assert _idle_s(DOC_TIMEOUT_S + 100, str(beat)) < 5
    assert _idle_s(DOC_TIMEOUT_S + 100, str(tmp_path / "none")) == DOC_TIMEOUT_S + 100


def _parallel_case() -> tuple:
    import pymupdf

    doc = pymupdf.open(REAL / LISP)
    try:
        both = ocr.recognise_many([doc[0], doc[1]], 0, parallel=2)
        alone = ocr.recognise(doc[1], 0)
    finally:
        doc.close()
    return {k: (v if isinstance(v, ocr.Recognised) else repr(v)) for k, v in both.items()}, alone


def test_pages_recognised_in_parallel_match_one_by_one():
    both, alone = _in_worker(_parallel_case)
    assert all(isinstance(r, ocr.Recognised) for r in both.values()), both
    assert both[1].page == alone.page and "garbage" in json.dumps(both[0].page).lower()


def test_ocr_pending_when_the_budget_is_spent_then_done_by_the_next_index(
        tmp_path, monkeypatch):
    """A scan whose pages did not fit the OCR budget is not cached as empty for good: it is
    flagged as pending (status, notes, JSON) and the next index OCRs it."""
    folder = tmp_path / "scans"
    folder.mkdir()
    shutil.copy2(REAL / LISP, folder / LISP)
    cache = tmp_path / "cache"
    monkeypatch.setenv("PDFTUI_OCR_BUDGET_S", "0")   # read by the extraction workers
    first = index_folder(folder, cache, embed=False)
    assert {"doc": LISP, "note": ocr.pending_note(2)} in first.notes
    lib = Library(folder, cache)
    try:
        (info,) = lib.documents()
        assert info.status == "no text layer" and info.reason == ocr.pending_note(2)
        assert info.to_json()["ocr_pending"] == 2
        assert "OCR pending for 2 page(s)" in status_text(info).plain
    finally:
        lib.close()
    monkeypatch.delenv("PDFTUI_OCR_BUDGET_S")
    again = index_folder(folder, cache, embed=False)
    assert again.indexed == 1 and not again.notes
    lib = Library(folder, cache)
    try:
        (info,) = lib.documents()
        assert info.status == "indexed" and info.ocr_pages == 2 and info.ocr_pending == 0
    finally:
        lib.close()
    assert index_folder(folder, cache, embed=False).indexed == 0   # and only once


def _reuse_case() -> tuple:
    """In a worker: a first extraction, then two with earlier results and no budget left."""
    from pdftui.extract import extract_document

    first = extract_document(REAL / LISP)
    os.environ["PDFTUI_OCR_BUDGET_S"] = "0"
    again = extract_document(REAL / LISP, ocr_known={1: first.ocr_results[1]})
    full = extract_document(REAL / LISP, ocr_known=first.ocr_results)
    return first, again, full


def test_an_extraction_reuses_the_pages_already_recognised():
    """Pages recognised by an earlier extraction of the same bytes are not OCR'd again
    (an extractor upgrade, or the pages after a spent budget): with no budget left at all,
    every page still gets its text."""
    first, again, full = _in_worker(_reuse_case)
    assert sorted(first.ocr_results) == [1, 2] and first.ocr_missing == 0
    assert again.pages[0].text == first.pages[0].text and again.pages[0].ocr
    assert again.ocr_missing == 1 and not again.pages[1].text   # page 2 left pending
    assert [p.text for p in full.pages] == [p.text for p in first.pages]
    assert full.ocr_missing == 0 and any("recognised by an earlier index" in n
                                         for n in full.notes)


def _blank_scan_case(path: str) -> tuple:
    """In a worker: extract a one-page PDF whose page is a white scan (an image, no text)."""
    import pymupdf

    from pdftui.extract import extract_document

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 850, 1100), False)
    pix.set_rect(pix.irect, (255, 255, 255))
    page.insert_image(page.rect, pixmap=pix)
    doc.save(path)
    out = extract_document(path)
    again = extract_document(path, ocr_known=out.ocr_results)
    return out.pages[0].text, sorted(out.ocr_results), out.notes, again.notes


def test_a_scan_recognised_without_a_word_is_recognised_again_and_said(tmp_path):
    """An OCR result without a word is cached for good, so it is not taken from one try (a
    transient empty result once left a real scan without text): the page is recognised a
    second time, and a page blank twice is kept and named in the document's notes. A later
    extraction does not reuse an empty result (a cache written before this rule)."""
    text, results, notes, again = _in_worker(_blank_scan_case, str(tmp_path / "blank.pdf"))
    assert text == "" and results == [1]
    assert "OCR found no text on 1 scanned page(s), twice: 1" in notes
    assert "OCR found no text on 1 scanned page(s), twice: 1" in again
    assert not any("earlier index" in n for n in again)
