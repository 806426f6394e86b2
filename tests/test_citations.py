"""Citation links on made papers citing each other (tests/builders.py
:func:`build_citing_folder`): which entries are which folder documents (versions all,
a follow-up never), kept current incrementally, and the commands ``refs``, ``cited-by``,
``similar``, ``docs --sort cited`` and the export's "Cites" line."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from click.testing import CliRunner

from pdftui.cli import main
from pdftui.index import index_folder
from .builders import build_citing_folder

HARMONIC = ["arxiv-2001.00017v1-harmonic.pdf", "arxiv-2001.00017v2-harmonic.pdf"]


def _cli(*args) -> str:
    r = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


@pytest.fixture
def citing(tmp_path):
    folder = build_citing_folder(tmp_path / "papers")
    cache = tmp_path / "cache"
    index_folder(folder, cache, embed=False)
    return folder, cache


def _refs(folder, cache, doc) -> list[dict]:
    return json.loads(_cli("refs", folder, doc, "--json", "--cache-dir", cache))["references"]


def test_refs_json_links_same_work_and_all_versions_not_a_follow_up(citing):
    folder, cache = citing
    out = json.loads(_cli("refs", folder, "dense.pdf", "--json", "--cache-dir", cache))
    assert out["doc"] == "dense.pdf"
    refs = out["references"]
    assert set(refs[0]) == {"page", "label", "raw", "authors", "year", "title", "venue",
                            "arxiv_id", "doi", "match", "matches", "given", "et_al"}
    assert [(r["match"], r["matches"]) for r in refs] == [
        ("lattice.pdf", ["lattice.pdf"]),
        (None, []),                            # the follow-up "... II: Extensions"
        (HARMONIC[1], HARMONIC),               # arXiv id: the newest version stands for both
        (None, [])]
    assert refs[0]["authors"] == ["Lovelace", "Babbage"] and refs[0]["year"] == 2019
    assert refs[0]["title"] == "Gradient lattices for sparse retrieval"
    assert refs[0]["page"] == 2
    assert refs[2]["title"] == "Harmonic indexing at scale"   # hyphenated break joined


def test_numbered_list_and_another_paper_of_the_same_author(citing):
    folder, cache = citing
    refs = _refs(folder, cache, "survey.pdf")
    assert [r["label"] for r in refs] == ["[1]", "[2]", "[3]", "[4]", "[5]"]
    assert [r["match"] for r in refs] == ["lattice.pdf", "dense.pdf", HARMONIC[1], None, None]
    assert refs[1]["doi"] == "10.5555/lattice.2021.7"
    assert refs[4]["year"] == 1918


def test_cited_by_lists_citing_papers_with_page(citing):
    folder, cache = citing
    out = json.loads(_cli("cited-by", folder, "lattice.pdf", "--json", "--cache-dir", cache))
    assert [(c["doc"], c["page"]) for c in out["cited_by"]] == [
        (HARMONIC[1], 2), ("dense.pdf", 2), ("survey.pdf", 2)]
    # either version names the work: both are cited by dense and survey
    for doc in HARMONIC:
        out = json.loads(_cli("cited-by", folder, doc, "--json", "--cache-dir", cache))
        assert [c["doc"] for c in out["cited_by"]] == ["dense.pdf", "survey.pdf"]


def test_docs_sort_cited_and_count(citing):
    folder, cache = citing
    docs = json.loads(_cli("docs", folder, "--json", "--sort", "cited", "--cache-dir", cache,
                           "--data-dir", folder.parent / "data"))["documents"]
    assert [(d["doc"], d["cited_by"]) for d in docs][:3] == [
        ("lattice.pdf", 3), (HARMONIC[0], 2), (HARMONIC[1], 2)]
    text = _cli("docs", folder, "--sort", "cited", "--cache-dir", cache,
                "--data-dir", folder.parent / "data")
    assert "cited by 3" in text


def test_links_follow_the_folder_incrementally(tmp_path):
    folder = build_citing_folder(tmp_path / "papers")
    cache = tmp_path / "cache"
    shutil.move(folder / "lattice.pdf", tmp_path / "lattice.pdf")
    index_folder(folder, cache, embed=False)
    assert _refs(folder, cache, "dense.pdf")[0]["match"] is None
    shutil.move(tmp_path / "lattice.pdf", folder / "lattice.pdf")   # completes the entry
    index_folder(folder, cache, embed=False)
    assert _refs(folder, cache, "dense.pdf")[0]["match"] == "lattice.pdf"
    (folder / "dense.pdf").unlink()   # its entries and links go with it
    index_folder(folder, cache, embed=False)
    db = sqlite3.connect(cache / "index.sqlite3")
    try:
        n_entries = db.execute("SELECT COUNT(*) FROM reference_entries").fetchone()[0]
        cited = {r[0] for r in db.execute("SELECT cited FROM citation_links")}
    finally:
        db.close()
    assert n_entries == 5 + 1                     # survey's and harmonic v2's
    out = json.loads(_cli("cited-by", folder, "lattice.pdf", "--json", "--cache-dir", cache))
    assert [c["doc"] for c in out["cited_by"]] == [HARMONIC[1], "survey.pdf"]
    assert len(cited) == 3                        # lattice and both harmonic versions


def test_refs_bibtex_escaped_with_eprint_and_doi(citing):
    folder, cache = citing
    bib = _cli("refs", folder, "dense.pdf", "--format", "bibtex", "--cache-dir", cache)
    assert bib.count("\n@") + bib.startswith("@") == 4
    # each entry's type from its venue (pdftui.triage.bibtex), the arXiv one @misc
    assert "@inproceedings{lovelace2019gradient," in bib and "lovelace2021gradient," in bib
    assert "eprint = {2001.00017}" in bib and "archivePrefix = {arXiv}" in bib
    assert "@article{turing1950computing," in bib and "journal = {Mind}" in bib
    bib = _cli("refs", folder, "survey.pdf", "--format", "bibtex", "--cache-dir", cache)
    assert "doi = {10.5555/lattice.2021.7}" in bib
    assert bib == _cli("refs", folder, "survey.pdf", "--format", "bibtex", "--cache-dir",
                       cache)   # stable citekeys


def test_similar_by_shared_references(citing):
    folder, cache = citing
    out = json.loads(_cli("similar", folder, "dense.pdf", "--json", "--cache-dir", cache))
    top = out["similar"][0]
    assert top["doc"] == "survey.pdf"
    assert top["shared_references"] == 2 and "2 shared references" in top["why"]


def test_export_says_which_exported_papers_each_cites(citing):
    folder, cache = citing
    md = _cli("export", folder, "--marked", "all", "--cache-dir", cache,
              "--data-dir", folder.parent / "data")
    survey = md.split("A Survey of Lattice Retrieval Methods", 1)[1].split("###", 1)[0]
    # by title (eleventh trial: the reading list named the cited papers by file)
    assert ("- Cites: Harmonic Indexing at Scale; Dense Lattice Transformers for "
            "Retrieval; Gradient Lattices for Sparse Retrieval") in survey, survey
    js = json.loads(_cli("export", folder, "--marked", "all", "--format", "json",
                         "--cache-dir", cache, "--data-dir", folder.parent / "data"))
    dense = next(d for d in js["documents"] if d["doc"] == "dense.pdf")
    assert dense["cites"] == [HARMONIC[1], "lattice.pdf"]


def test_an_older_cache_gains_references_without_re_extraction(tmp_path):
    folder = build_citing_folder(tmp_path / "papers")
    cache = tmp_path / "cache"
    index_folder(folder, cache, embed=False)
    db = sqlite3.connect(cache / "index.sqlite3")   # the layout before reference tables
    for table in ("reference_entries", "references_read", "citation_links",
                  "citation_state"):
        db.execute(f"DROP TABLE {table}")
    db.execute("PRAGMA user_version = 8")
    db.commit()
    db.close()
    summary = index_folder(folder, cache, embed=False)
    assert summary.indexed == 0 and summary.unchanged == 5   # no PDF extracted again
    assert _refs(folder, cache, "dense.pdf")[0]["match"] == "lattice.pdf"


def test_a_cache_of_layout_10_reads_given_names_again_from_stored_blocks(tmp_path):
    """A cache whose entries were read before they kept given names and "et al." (layout
    10, REFERENCES_VERSION 5) gains them on the next index, read again from the stored
    blocks: no PDF is extracted again."""
    folder = build_citing_folder(tmp_path / "papers")
    cache = tmp_path / "cache"
    index_folder(folder, cache, embed=False)
    db = sqlite3.connect(cache / "index.sqlite3")
    for column in ("given", "et_al"):
        db.execute(f"ALTER TABLE reference_entries DROP COLUMN {column}")
    db.execute("UPDATE references_read SET version = 5")
    db.execute("PRAGMA user_version = 10")
    db.commit()
    db.close()
    summary = index_folder(folder, cache, embed=False)
    assert summary.indexed == 0 and summary.unchanged == 5   # no PDF extracted again
    refs = _refs(folder, cache, "dense.pdf")
    assert refs[0]["authors"] == ["Lovelace", "Babbage"] and refs[0]["given"] == ["A.", "C."]
    assert refs[0]["et_al"] is False and refs[0]["match"] == "lattice.pdf"
    survey = _refs(folder, cache, "survey.pdf")
    assert survey[0]["given"] == ["Ada", "Charles"]


def test_hostile_reference_text_is_bounded_and_shown_as_text(tmp_path):
    import pymupdf

    folder = tmp_path / "papers"
    folder.mkdir()
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 80), "Hostile References Paper", fontsize=16)
    page = doc.new_page()
    page.insert_text((72, 60), "References", fontsize=13)
    lines = ["[1] \x1b[31mEvil\x1b[0m [bold]Markup[/bold]. A title here. Venue, 2001.",
             "[2] " + "longword " * 60]
    y = 80
    for line in lines:
        page.insert_text((72, y), line, fontsize=6)
        y += 10
    for n in range(3, 60):
        page.insert_text((72, y), f"[{n}] A. Writer. Title {n}. Venue, 2001.", fontsize=5)
        y += 7
    doc.set_toc([[1, "References", 2]])
    doc.save(folder / "hostile.pdf")
    doc.close()
    cache = tmp_path / "cache"
    index_folder(folder, cache, embed=False)
    out = _cli("refs", folder, "hostile.pdf", "--cache-dir", cache)
    assert "\x1b" not in out and "[bold]Markup[/bold]" in out
    refs = _refs(folder, cache, "hostile.pdf")
    assert refs[0]["label"] == "[1]" and "\x1b" not in refs[0]["raw"]
    bib = _cli("refs", folder, "hostile.pdf", "--format", "bibtex", "--cache-dir", cache)
    assert "\x1b" not in bib
