"""Reading pages and whole sections from the cache (``Library`` and ``pdftui read``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from pdftui.index import index_folder
from pdftui.library import Library, NotFound

from .conftest import copy_docs, corpus_pdf

ATTENTION = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"


@pytest.fixture
def attention_folder(tmp_path, cache_dir):
    folder = copy_docs(tmp_path / "papers", [ATTENTION])
    index_folder(folder, cache_dir, embed=False)
    return folder


def _read(folder, cache_dir, *args):
    r = subprocess.run([sys.executable, "-m", "pdftui.cli", "read", str(folder), *args,
                        "--cache-dir", str(cache_dir)], capture_output=True, text=True,
                       timeout=120)
    return r


def test_read_section_spanning_pages_starts_at_heading_and_stops_before_next(
        attention_folder, cache_dir):
    r = _read(attention_folder, cache_dir, ATTENTION, "--section", "3.2 Attention", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["title"] == "3.2 Attention"
    assert d["start_page"] == 3 and d["end_page"] >= 4
    assert d["text"].startswith("3.2 Attention")
    assert "Scaled Dot-Product Attention" in d["text"]  # its subsection, on page 4
    assert "3.3 Position-wise Feed-Forward Networks" not in d["text"]
    assert "3.1 Encoder and Decoder Stacks" not in d["text"]


def test_read_page_and_errors(attention_folder, cache_dir):
    r = _read(attention_folder, cache_dir, ATTENTION, "--page", "1")
    assert r.returncode == 0 and "Attention Is All You Need" in r.stdout
    r = _read(attention_folder, cache_dir, ATTENTION, "--page", "99")
    assert r.returncode == 2 and "no page 99" in r.stderr
    r = _read(attention_folder, cache_dir, "nope.pdf", "--page", "1")
    assert r.returncode == 2 and "no indexed document" in r.stderr


def test_library_documents_and_section_at(attention_folder, cache_dir):
    lib = Library(attention_folder, cache_dir)
    try:
        docs = lib.documents()
        assert [d.doc for d in docs] == [ATTENTION]
        assert docs[0].pages == 15 and docs[0].status == "indexed"
        sec = lib.section_at(ATTENTION, 4)
        assert sec is not None and "3.2" in sec.path
        with pytest.raises(NotFound):
            lib.section(ATTENTION, "no such heading anywhere")
    finally:
        lib.close()


def test_sections_follow_an_edit(attention_folder, cache_dir):
    """After the PDF is replaced, the old sections are gone and the new ones are read."""
    target = attention_folder / ATTENTION
    shutil.copy(corpus_pdf("arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf"), target)
    index_folder(attention_folder, cache_dir, embed=False)
    lib = Library(attention_folder, cache_dir)
    try:
        titles = [s.title for s in lib.sections(ATTENTION)]
        assert "3.2 Attention" not in titles
        with pytest.raises(NotFound):
            lib.section(ATTENTION, "3.2 Attention")
    finally:
        lib.close()


def test_section_titles_match_with_or_without_numbering(tmp_path, cache_dir):
    """v7 of the paper has outline titles without numbers ("Attention"): "3.2 Attention"
    still finds it, and a bare "Attention" prefers the heading over the paper's title."""
    v7 = "arxiv-1706.03762v7-attention-is-all-you-need.pdf"
    folder = copy_docs(tmp_path / "papers", [ATTENTION, v7])
    index_folder(folder, cache_dir, embed=False)
    lib = Library(folder, cache_dir)
    try:
        assert lib.section(v7, "3.2 Attention").title == "Attention"
        assert lib.section(v7, "3.2 Attention").start_page == 3
        assert lib.section(ATTENTION, "Attention").title == "3.2 Attention"
        assert lib.section(ATTENTION, "attention is all").title.startswith("Attention Is All")
    finally:
        lib.close()


def test_read_lists_sections(attention_folder, cache_dir):
    r = _read(attention_folder, cache_dir, ATTENTION, "--sections")
    assert r.returncode == 0, r.stderr
    assert any(line.split()[-2:] == ["3.2", "Attention"] for line in r.stdout.splitlines())


def test_read_numbers_sections_per_document_accepts_data_dir_and_sets_headings_apart(
        attention_folder, cache_dir, tmp_path):
    """Fresh-user findings: ``--section 412`` took database-wide ids, ``read`` rejected
    ``--data-dir``, and the plain text glued a heading to its first sentence."""
    r = _read(attention_folder, cache_dir, ATTENTION, "--sections", "--json",
              "--data-dir", str(tmp_path / "data"))
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [row["number"] for row in rows] == list(range(1, len(rows) + 1))
    n = next(row["number"] for row in rows if row["title"] == "3.2 Attention")
    r = _read(attention_folder, cache_dir, ATTENTION, "--sections")
    assert any(line.split()[0] == str(n) and line.endswith("3.2 Attention")
               for line in r.stdout.splitlines()), r.stdout
    r = _read(attention_folder, cache_dir, ATTENTION, "--section", str(n))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[2] == "3.2 Attention" and lines[3] == ""   # the heading on its own line
    assert lines[4].startswith("An attention function")
    r = _read(attention_folder, cache_dir, ATTENTION, "--section", str(len(rows) + 1))
    assert r.returncode == 2 and f"it has {len(rows)}" in r.stderr


def test_author_names_parse_when_first_read():
    """Library.documents() leaves each document's stored author list unparsed until read;
    read, it is the tuple of names (a damaged list: no names)."""
    from pdftui.library import AuthorNames

    names = AuthorNames('["Ashish Vaswani", "Noam Shazeer", 3]')
    assert names._names is None
    assert names == ("Ashish Vaswani", "Noam Shazeer") and names[0] == "Ashish Vaswani"
    assert list(names) == ["Ashish Vaswani", "Noam Shazeer"] and len(names) == 2
    assert names != ("Ashish Vaswani",) and names != ["Ashish Vaswani", "Noam Shazeer"]
    assert AuthorNames("{damaged") == () and not AuthorNames("{damaged")
