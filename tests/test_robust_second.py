"""Robustness, second pass: hostile page labels, files replaced while indexed, vanishing
folders, read-only and full caches, non-UTF-8 terminals, annotations, very long blocks.

Real PDFs built with PyMuPDF, the real CLI in subprocesses and a real SQLite cache; the
builders are shared with ``bench/robust.py`` (tests/builders.py).
"""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from pdftui.store.database import Cache
from pdftui.corpus import sha256_file
from pdftui.extract import extract_document
from pdftui.index import index_folder
from pdftui.page_labels import LabelRule, page_labels

from . import builders, harness
from .conftest import shared_file
from .harness import cli


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
    pdf = builders.build_hostile_labels(tmp_path / "labels.pdf")
    ex = extract_document(pdf)
    assert [p.label for p in ex.pages] == ["1", "2", "3"]
    assert "labelword pageone" in ex.pages[0].text


def test_hostile_page_labels_through_the_cli(tmp_path):
    folder = tmp_path / "lab"
    builders.build_hostile_labels(folder / "labels.pdf")
    builders.build_hostile_labels(folder / "letters.pdf", style="A", prefix="P" * 5000)
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
    race = builders.build_replace_race(tmp_path)
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
    race = builders.build_replace_race(tmp_path)
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


# --------------------------------------------------------------------------- reading never writes


def _warned(r, *needles: str) -> None:
    lines = [ln for ln in r.err.splitlines() if ln.strip() and not ln.startswith("pdftui: extracted")]
    assert len(lines) == 1 and lines[0].startswith("pdftui: warning: the index cannot be updated"), r.err
    for n in needles:
        assert n in lines[0], lines[0]


def _read_commands(folder, cache) -> list:
    return [cli("search", folder, "octave", "--mode", "keyword", "--cache-dir", cache, "--json"),
            cli("read", folder, "debian-octave-refcard-a4.pdf", "--cache-dir", cache),
            cli("read", folder, "debian-octave-refcard-a4.pdf", "--sections", "--cache-dir",
                cache)]


@pytest.fixture
def octave(tmp_path):
    folder = tmp_path / "octave"
    folder.mkdir()
    src = shared_file(builders.CORPUS / "debian-octave-refcard-a4.pdf")
    (folder / src.name).write_bytes(src.read_bytes())
    return folder


def test_read_only_cache_still_answers(tmp_path, octave):
    cache, ro = tmp_path / "cache", tmp_path / "ro"
    assert cli("index", octave, "--no-embed", "--cache-dir", cache).rc == 0
    if not harness.mount_read_only(cache, ro):
        pytest.skip("cannot mount here (needs root with CAP_SYS_ADMIN)")
    try:
        builders.make_pdf(octave / "new.pdf", ["a newer file"])
        r = cli("index", octave, "--no-embed", "--cache-dir", ro)
        assert r.rc == 2 and "read-only" in r.err and "Traceback" not in r.err
        search, page, sections = _read_commands(octave, ro)
        for r in (search, page, sections):
            assert r.rc == 0, r.err
            _warned(r, "read-only")
        assert json.loads(search.out)["hits"]
        assert "Octave" in page.out and "Starting Octave" in sections.out
    finally:
        harness.unmount(ro)


def test_full_disk_still_answers_and_is_named(tmp_path, octave):
    disk = tmp_path / "disk"
    if not harness.mount_tmpfs(disk, 3072):
        pytest.skip("cannot mount here (needs root with CAP_SYS_ADMIN)")
    try:
        cache = disk / "cache"
        assert cli("index", octave, "--no-embed", "--cache-dir", cache).rc == 0
        harness.fill_disk(disk)
        builders.tiny_corpus(octave / "more", 20, prefix="more", pages=5)
        r = cli("index", octave, "--no-embed", "--cache-dir", cache)
        assert r.rc == 2 and "the disk is full" in r.err and "Traceback" not in r.err, r.err
        search, page, sections = _read_commands(octave, cache)
        for r in (search, page, sections):
            assert r.rc == 0, r.err
            _warned(r, "the disk is full")
        assert json.loads(search.out)["hits"]
    finally:
        harness.unmount(disk)


# --------------------------------------------------------------------------- output encodings


@pytest.fixture(scope="module")
def accents(tmp_path_factory):
    base = tmp_path_factory.mktemp("enc")
    folder = base / "enc"
    builders.make_pdf(folder.mkdir() or folder / "café.pdf",
                    ["café naïve 東京 — “quoted” encword", "second page encword"],
                    toc=[[1, "Überblick · eins", 1], [1, "Zwei", 2]])
    cache = base / "cache"
    assert cli("index", folder, "--no-embed", "--cache-dir", cache).rc == 0
    return folder, cache


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_cli_never_raises_on_the_output_encoding(accents, encoding):
    folder, cache = accents
    env = {"PYTHONIOENCODING": encoding}
    runs = [cli("search", folder, "encword", "--mode", "keyword", "--cache-dir", cache, env=env),
            cli("search", folder, "encword", "--mode", "keyword", "--granularity", "section",
                "--cache-dir", cache, env=env),
            cli("read", folder, "café.pdf", "--cache-dir", cache, env=env),
            cli("read", folder, "café.pdf", "--sections", "--cache-dir", cache, env=env),
            cli("index", folder, "--no-embed", "--cache-dir", cache, env=env)]
    for r in runs:
        assert r.rc == 0 and "Traceback" not in r.err, r.err
    assert "encword" in runs[0].out and "Zwei" in runs[3].out


@pytest.mark.parametrize("encoding", ["latin-1", "ascii", "utf-8"])
def test_json_output_is_exact_on_any_encoding(accents, encoding):
    folder, cache = accents
    env = {"PYTHONIOENCODING": encoding}
    r = cli("search", folder, "encword", "--mode", "keyword", "--json", "--cache-dir", cache,
            env=env)
    assert r.rc == 0, r.err
    if encoding != "utf-8":
        assert r.out.isascii()
    assert any("café naïve" in h["excerpt"] for h in json.loads(r.out)["hits"])
    r = cli("read", folder, "café.pdf", "--json", "--cache-dir", cache, env=env)
    assert r.rc == 0 and "café naïve" in json.loads(r.out)["text"]


@pytest.mark.parametrize("env", [{"TERM": "dumb"}, {"LC_ALL": "C", "PYTHONUTF8": "0"},
                                 {"PYTHONIOENCODING": "latin-1"},
                                 {"LC_ALL": "", "LANG": "en_US.ISO-8859-1"}])
def test_tui_refuses_a_terminal_it_cannot_draw_on(accents, env):
    folder, cache = accents
    r = cli(folder, "--cache-dir", cache, env=env, timeout=60)
    assert r.rc == 2 and not r.hung
    assert r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and "pdftui search" in lines[0] and "UTF-8" in lines[0]
    assert "\x1b" not in r.err


def test_tui_refuses_to_run_without_a_terminal(accents):
    """Run with its output to a file and no keyboard (the README's last set-up step in a
    script), the TUI drew into the file and waited for keys forever at a core's full use
    (fresh-user trial); it says it needs a terminal and exits."""
    folder, cache = accents
    r = cli(folder, "--cache-dir", cache, env={"TERM": "xterm-256color", "LC_ALL": "C.UTF-8"},
            timeout=60)
    assert r.rc == 2 and not r.hung
    assert r.out == "" and "\x1b" not in r.err
    assert "needs a terminal" in r.err and "pdftui search" in r.err


# --------------------------------------------------------------------------- annotations, long blocks


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    base = tmp_path_factory.mktemp("made")
    folder = base / "made"
    builders.build_annotated(folder / "annotated.pdf")
    builders.build_long_block(folder / "long.pdf")
    cache = base / "cache"
    assert cli("index", folder, "--no-embed", "--cache-dir", cache).rc == 0
    return folder, cache


def _hits(folder, cache, query, *extra):
    r = cli("search", folder, query, "--mode", "keyword", "--json", "--cache-dir", cache, *extra)
    assert r.rc == 0, r.err
    return json.loads(r.out)


@pytest.mark.parametrize("word, page, label", [
    ("stickynoteword", 2, "Note (Alice): stickynoteword"),
    ("highlightcommentword", 1, "Comment on highlight: highlightcommentword"),
    ("freetextword", 1, "freetextword in a box")])
def test_annotation_text_is_found_on_its_page_and_shown_as_such(made, word, page, label):
    folder, cache = made
    hits = _hits(folder, cache, word)["hits"]
    assert [(h["doc"], h["page"]) for h in hits] == [("annotated.pdf", page)]
    assert label in hits[0]["excerpt"]
    assert hits[0]["excerpt"].count("freetextword") <= 1   # a drawn box is not added twice


def test_excerpt_of_a_very_long_block_holds_the_match(made):
    folder, cache = made
    d = _hits(folder, cache, builders.LONG_BLOCK_WORD)
    ex = d["hits"][0]["excerpt"]
    assert builders.LONG_BLOCK_WORD in ex and ex.startswith("… ") and len(ex) <= 2100
    r = cli("search", folder, builders.LONG_BLOCK_WORD, "--mode", "keyword", "--cache-dir", cache)
    assert builders.LONG_BLOCK_WORD in r.out.replace("│", "").replace(" ", "") or \
        builders.LONG_BLOCK_WORD in r.out


def test_variation_selectors_are_stripped_for_display():
    from pdftui.text import clean_text

    assert clean_text("ok \u2714\ufe0f done \u263a\ufe0e") == "ok \u2714 done \u263a"


def test_query_truncation_is_said(made):
    folder, cache = made
    long_query = "annotatedbody " + "x" * 1200
    note = _hits(folder, cache, long_query)["coverage"].get("note", "")
    assert "cut to its first 1,000 characters" in note
    many = " ".join(f"term{i:02d}word" for i in range(40)) + " annotatedbody"
    note = _hits(folder, cache, many)["coverage"].get("note", "")
    assert "only its first 32 of 41 terms were searched" in note
    assert "cut" not in _hits(folder, cache, "annotatedbody")["coverage"].get("note", "")


def test_a_vanished_folder_searches_nothing_and_says_so(tmp_path):
    from pdftui.search.service import SearchService

    folder = tmp_path / "gone"
    builders.make_pdf(folder.mkdir() or folder / "a.pdf", ["vanishword here"])
    index_folder(folder, tmp_path / "cache", embed=False)
    svc = SearchService(folder, cache_dir=tmp_path / "cache")
    try:
        assert svc.search_sync("vanishword", mode="keyword").hits
        (folder / "a.pdf").unlink()
        folder.rmdir()
        res = svc.search_sync("vanishword", mode="keyword")
        assert res.hits == [] and res.coverage.searched == 0
        assert "the folder is gone: nothing was searched" in res.coverage.note
    finally:
        svc.close()


def test_docs_mark_and_export_answer_from_a_read_only_cache(tmp_path, octave):
    cache, ro, data = tmp_path / "cache", tmp_path / "ro", tmp_path / "data"
    assert cli("index", octave, "--no-embed", "--cache-dir", cache).rc == 0
    if not harness.mount_read_only(cache, ro):
        pytest.skip("cannot mount here (needs root with CAP_SYS_ADMIN)")
    try:
        builders.make_pdf(octave / "new.pdf", ["a newer file"])
        doc = "debian-octave-refcard-a4.pdf"
        r = cli("mark", octave, doc, "keep", "--note", "café note", "--cache-dir", ro,
                "--data-dir", data)
        assert r.rc == 0, r.err
        _warned(r, "read-only")
        env = {"PYTHONIOENCODING": "latin-1"}
        docs = cli("docs", octave, "--json", "--cache-dir", ro, "--data-dir", data, env=env)
        assert docs.rc == 0 and docs.out.isascii(), docs.err
        _warned(docs, "read-only")
        got = {d["doc"]: d for d in json.loads(docs.out)["documents"]}
        assert got[doc]["mark"] == "keep" and got[doc]["note"] == "café note"
        for fmt in ("markdown", "bibtex", "csv", "json"):
            r = cli("export", octave, "--format", fmt, "--cache-dir", ro, "--data-dir", data,
                    env=env)
            assert r.rc == 0 and "Traceback" not in r.err, (fmt, r.err)
            _warned(r, "read-only")
            assert "Octave" in r.out
    finally:
        harness.unmount(ro)
