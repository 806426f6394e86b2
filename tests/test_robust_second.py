"""Robustness, second pass: hostile page labels, files replaced while indexed, vanishing
folders, read-only and full caches, non-UTF-8 terminals, annotations, very long blocks.

Real PDFs built with PyMuPDF, the real CLI in subprocesses and a real SQLite cache; the
builders are shared with ``bench/robust.py``.
"""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from pdftui.cache import Cache
from pdftui.corpus import sha256_file
from pdftui.extract import extract_document
from pdftui.index import index_folder
from pdftui.page_labels import LabelRule, page_labels

from .test_robust import cli, robust


# --------------------------------------------------------------------------- page labels


def test_page_labels_follow_the_pdf_numbering_styles():
    rules = [LabelRule(0, "r", "", 1), LabelRule(3, "D", "", 1), LabelRule(5, "A", "App-", 1),
             LabelRule(33, "a", "", 26)]
    got = page_labels(rules, 35)
    assert got[:6] == ["i", "ii", "iii", "1", "2", "App-A"]
    assert got[30] == "App-Z" and got[31] == "App-AA" and got[32] == "App-BB"
    assert got[33:] == ["z", "aa"]
    assert page_labels([], 2) == ["", ""]


def test_page_labels_too_long_fall_back_to_the_page_number():
    assert page_labels([LabelRule(0, "r", "", 99_999_999_999)], 3) == ["1", "2", "3"]
    assert page_labels([LabelRule(0, "A", "", 99_999_999_999)], 2) == ["1", "2"]
    assert page_labels([LabelRule(0, "D", "x" * 40, 1)], 2) == ["1", "2"]
    # the longest roman numeral that fits is kept
    assert page_labels([LabelRule(0, "R", "", 3888)], 1) == ["MMMDCCCLXXXVIII"]


def test_hostile_page_label_start_is_extracted_at_once(tmp_path):
    pdf = robust.build_hostile_labels(tmp_path / "labels.pdf")
    ex = extract_document(pdf)
    assert [p.label for p in ex.pages] == ["1", "2", "3"]
    assert "labelword pageone" in ex.pages[0].text


def test_hostile_page_labels_through_the_cli(tmp_path):
    folder = tmp_path / "lab"
    robust.build_hostile_labels(folder / "labels.pdf")
    robust.build_hostile_labels(folder / "letters.pdf", style="A", prefix="P" * 5000)
    cache = tmp_path / "cache"
    r = cli("index", folder, "--cache-dir", cache, "--no-embed", timeout=60)
    assert r.rc == 0 and not r.hung, r.err
    r = cli("search", folder, "labelword", "--mode", "keyword", "--cache-dir", cache, "--json",
            timeout=60)
    assert r.rc == 0 and not r.hung, r.err
    assert len(r.out) < 20_000
    hits = json.loads(r.out)["hits"]
    assert {h["page_label"] for h in hits} <= {"1", "2", "3"} and len(hits) == 6
    db = sqlite3.connect(cache / "index.sqlite3")
    try:
        assert db.execute("SELECT max(length(label)) FROM pages").fetchone()[0] <= 32
    finally:
        db.close()


def test_every_string_from_a_pdf_is_bounded(tmp_path):
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((20, 40), "boundword")
    doc.set_toc([[1, "T" * 20_000, 1]])
    path = tmp_path / "long.pdf"
    doc.save(path)
    doc.close()
    ex = extract_document(path)
    assert ex.outline and len(ex.outline[0].title) <= 300
    assert all(len(n) <= 300 for n in ex.notes)


# --------------------------------------------------------------------------- content identity


def _texts(cache_dir, root) -> dict[str, str]:
    db = sqlite3.connect(os.path.join(cache_dir, "index.sqlite3"))
    try:
        return {doc: text for doc, text in db.execute(
            "SELECT f.doc, group_concat(p.text, ' ') FROM files f JOIN pages p"
            " ON p.content_id = f.content_id WHERE f.root = ? GROUP BY f.doc",
            (os.path.realpath(root),))}
    finally:
        db.close()


def test_file_replaced_while_indexing_is_stored_under_its_own_hash(tmp_path):
    race = robust.build_replace_race(tmp_path)
    old_sha = sha256_file(race["target"])
    cache_dir = tmp_path / "cache"
    done = []

    def progress(p):   # after the first filler: the target is queued, not read yet
        if p.phase == "extract" and p.docs_done == 1 and not done:
            done.append(1)
            os.replace(race["new"], race["target"])

    index_folder(race["folder"], cache_dir, embed=False, progress=progress, workers=1)
    assert done
    texts = _texts(cache_dir, race["folder"])
    assert "replacementnewword" in texts["target.pdf"]
    cache = Cache(cache_dir)
    try:
        held = cache.content_by_sha(old_sha)
        new_sha = cache.db.execute(
            "SELECT c.sha256 FROM files f JOIN contents c ON c.id=f.content_id"
            " WHERE f.doc='target.pdf'").fetchone()[0]
    finally:
        cache.close()
    assert held is None            # nothing stored under the hash of the file that was queued
    assert new_sha == sha256_file(race["target"])
    # the original's copy elsewhere is extracted as itself, never served the new text
    index_folder(race["other"], cache_dir, embed=False)
    texts = _texts(cache_dir, race["other"])
    assert "targetoldword" in texts["copy.pdf"]
    assert "replacementnewword" not in texts["copy.pdf"]
    # and the next run on the first folder finds it unchanged
    s = index_folder(race["folder"], cache_dir, embed=False)
    assert s.indexed == 0 and s.unchanged == 3


def test_a_poisoned_cache_is_detected_and_repaired(tmp_path):
    race = robust.build_replace_race(tmp_path)
    cache_dir = tmp_path / "cache"
    # what an older pdftui stored: the replacement's text under the original's hash
    cache = Cache(cache_dir)
    try:
        cache.insert_content(sha256_file(race["copy"]), race["copy"].stat().st_size,
                             extract_document(race["new"]))
    finally:
        cache.close()
    s = index_folder(race["other"], cache_dir, embed=False)
    assert any("re-extracted" in n["note"] for n in s.notes)
    texts = _texts(cache_dir, race["other"])
    assert "targetoldword" in texts["copy.pdf"]
    assert "replacementnewword" not in texts["copy.pdf"]
