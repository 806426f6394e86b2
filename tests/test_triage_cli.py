"""``pdftui docs``, ``pdftui mark`` and ``pdftui export`` on real corpus papers."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from .conftest import copy_docs

ATTENTION = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"
ECAPA = "arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf"


def _run(*args, env_extra=None):
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "pdftui.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=300, env=env)


@pytest.fixture
def folder(tmp_path):
    return copy_docs(tmp_path / "papers", [ATTENTION, ECAPA])


def test_mark_and_docs_json(folder, tmp_path):
    data, cache = tmp_path / "data", tmp_path / "cache"
    r = _run("mark", folder, "arxiv-1706*", "keep", "--note", "the transformer",
             "--cache-dir", cache, "--data-dir", data)
    assert r.returncode == 0, r.stderr
    assert "keep" in r.stdout
    r = _run("mark", folder, str(folder / ECAPA), "to-read", "--cache-dir", cache, "--json",
             env_extra={"PDFTUI_DATA_DIR": str(data)})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"doc": ECAPA, "docs": [ECAPA], "mark": "to-read",
                                    "note": "", "clips": 0}
    r = _run("docs", folder, "--json", "--cache-dir", cache, "--data-dir", data)
    assert r.returncode == 0, r.stderr
    docs = {d["doc"]: d for d in json.loads(r.stdout)["documents"]}
    a = docs[ATTENTION]
    assert set(a) >= {"doc", "title", "authors", "year", "arxiv_id", "doi", "pages", "status",
                      "mark", "note"}
    assert (a["mark"], a["note"], a["arxiv_id"], a["year"]) == (
        "keep", "the transformer", "1706.03762", 2017)
    assert a["authors"][0] == "Ashish Vaswani" and a["pages"] == 15
    assert docs[ECAPA]["mark"] == "to-read" and docs[ECAPA]["note"] == ""
    # the human table names the mark and the first author
    r = _run("docs", folder, "--cache-dir", cache, "--data-dir", data)
    assert r.returncode == 0 and "keep" in r.stdout and "Vaswani" in r.stdout


def test_a_note_replaced_by_mark_is_printed_and_add_note_appends(folder, tmp_path):
    """Third trial: ``mark --note`` replaced an existing note without a word. The
    replaced text is printed on stderr; ``--add-note`` adds a paragraph instead;
    both at once is a usage error that changes nothing."""
    data, cache = tmp_path / "data", tmp_path / "cache"
    base = ("--cache-dir", cache, "--data-dir", data)
    assert _run("mark", folder, ECAPA, "keep", "--note", "first", *base).returncode == 0
    r = _run("mark", folder, ECAPA, "keep", "--add-note", "second", "--json", *base)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["note"] == "first\n\nsecond" and r.stderr == ""
    r = _run("mark", folder, ECAPA, "keep", "--note", "third", "--json", *base)
    assert json.loads(r.stdout)["note"] == "third"
    assert "replaced the note, which was: first" in r.stderr and "second" in r.stderr
    r = _run("mark", folder, ECAPA, "skip", "--note", "x", "--add-note", "y", *base)
    assert r.returncode == 2 and "not both" in r.stderr
    r = _run("mark", folder, ECAPA, "keep", "--json", *base)
    assert json.loads(r.stdout)["note"] == "third"


def test_mark_errors(folder, tmp_path):
    data, cache = tmp_path / "data", tmp_path / "cache"
    r = _run("mark", folder, "nope.pdf", "keep", "--cache-dir", cache, "--data-dir", data)
    assert r.returncode == 2 and "no indexed document" in r.stderr
    r = _run("mark", folder, "arxiv-*", "keep", "--cache-dir", cache, "--data-dir", data)
    assert r.returncode == 2 and "matches 2 documents" in r.stderr
    r = _run("mark", folder, ECAPA, "maybe", "--cache-dir", cache, "--data-dir", data)
    assert r.returncode == 2
    data.mkdir()
    (data / "triage.sqlite3").write_bytes(b"garbage" * 50)
    r = _run("mark", folder, ECAPA, "keep", "--cache-dir", cache, "--data-dir", data)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1
    assert "left as it is" in r.stderr
    assert (data / "triage.sqlite3").read_bytes() == b"garbage" * 50


def test_export_formats_from_the_cli(folder, tmp_path):
    import csv
    import io

    import bibtexparser

    data, cache = tmp_path / "data", tmp_path / "cache"
    assert _run("mark", folder, ATTENTION, "keep", "--note", "read [this](http://x) first",
                "--cache-dir", cache, "--data-dir", data).returncode == 0
    base = ("--cache-dir", cache, "--data-dir", data)
    r = _run("export", folder, "--format", "bibtex", *base)
    assert r.returncode == 0, r.stderr
    [entry] = bibtexparser.loads(r.stdout).entries
    assert entry["ID"] == "vaswani2017attention" and entry["eprint"] == "1706.03762"
    assert entry["file"] == str(folder / ATTENTION)
    r = _run("export", folder, "--marked", "keep", *base)
    assert r.returncode == 0 and "### 1. Attention Is All You Need" in r.stdout
    assert "\\[this\\](http\\://x)" in r.stdout
    out = tmp_path / "list.csv"
    r = _run("export", folder, "--marked", "all", "--format", "csv", "-o", out, *base)
    assert r.returncode == 0 and "wrote 2 documents" in r.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert {row["mark"] for row in rows} == {"keep", "none"}
    r = _run("export", folder, "--marked", "skip", "--format", "json", *base)
    assert r.returncode == 0 and json.loads(r.stdout) == {"documents": []}
    assert "no documents marked skip" in r.stderr


def test_search_hits_carry_mark_and_note(folder, tmp_path):
    data, cache = tmp_path / "data", tmp_path / "cache"
    base = ("--cache-dir", cache, "--data-dir", data)
    assert _run("mark", folder, ATTENTION, "keep", "--note", "n1", *base).returncode == 0
    r = _run("search", folder, "scaled dot-product attention", "--mode", "keyword", "--json",
             *base)
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)["hits"]
    marked = [h for h in hits if h["doc"] == ATTENTION]
    assert marked and all((h["mark"], h["note"]) == ("keep", "n1") for h in marked)
    assert all(h["mark"] == "none" for h in hits if h["doc"] != ATTENTION)


V7 = "arxiv-1706.03762v7-attention-is-all-you-need.pdf"


def test_versions_of_one_paper_are_one_work_for_mark_docs_clips_and_export(tmp_path):
    """Trial on the two Transformer versions: ``mark FOLDER attention keep`` refused
    ("matches 2 documents"), a mark on v7 left v5 unmarked, and BibTeX gave
    ``vaswani2017attentiona`` / ``b`` (``b`` even when only v7 was exported). The two
    files are one work: a pattern naming only them names it, the mark holds for both
    (each still listed), and the export has one entry, ``vaswani2017attention``, under
    the newest version."""
    import bibtexparser

    folder = copy_docs(tmp_path / "papers", [ATTENTION, V7, ECAPA])
    base = ("--cache-dir", tmp_path / "cache", "--data-dir", tmp_path / "data")
    r = _run("mark", folder, "attention", "keep", "--note", "read v7", "--json", *base)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"doc": V7, "docs": [ATTENTION, V7], "mark": "keep",
                                    "note": "read v7", "clips": 0}
    r = _run("mark", folder, "arxiv-*", "keep", *base)     # two works: still ambiguous
    assert r.returncode == 2 and "matches 3 documents" in r.stderr
    r = _run("docs", folder, "--json", *base)
    docs = {d["doc"]: d for d in json.loads(r.stdout)["documents"]}
    assert len(docs) == 3                                   # every file listed
    assert [(docs[d]["mark"], docs[d]["note"]) for d in (ATTENTION, V7)] == [
        ("keep", "read v7")] * 2
    assert docs[ATTENTION]["versions"] == [V7] and docs[ECAPA]["versions"] == []
    table = _run("docs", folder, *base, env_extra={"COLUMNS": "200"}).stdout
    assert "3 documents (2 works" in table and "· 1 keep" in table
    # one row a work (fourth trial: two keep rows of one paper, first and second of
    # --sort cited), its other file named under it
    # seventh trial: led by v5 while mark, clips and export name v7: the newest leads
    assert table.count("keep") == 2 and f"other version: {ATTENTION}" in table, table
    for marked in ("keep", "all"):
        r = _run("export", folder, "--format", "bibtex", "--marked", marked, *base)
        assert r.returncode == 0, r.stderr
        entries = bibtexparser.loads(r.stdout).entries
        ids = {e["file"]: e["ID"] for e in entries}
        assert ids[str(folder / V7)] == "vaswani2017attention", ids
        assert str(folder / ATTENTION) not in ids
    r = _run("export", folder, "--format", "json", *base)
    [work] = json.loads(r.stdout)["documents"]
    assert work["doc"] == V7 and work["versions"] == [ATTENTION, V7]
    # clearing by one file's name clears the work
    assert _run("mark", folder, ATTENTION, "none", *base).returncode == 0
    r = _run("docs", folder, "--json", *base)
    assert {d["mark"] for d in json.loads(r.stdout)["documents"]} == {"none"}


def test_marks_stored_per_file_the_old_way_hold_for_the_work(tmp_path):
    """A user-data file written before works (a mark on v7's record alone, clips on each
    file's): read both ways, the mark holds for v5 too, the clips of both files are the
    work's, and a new mark replaces the old one on every file."""
    from pdftui.library import Library
    from pdftui.triage.store import Clip, DocKey, Mark, TriageStore

    folder = copy_docs(tmp_path / "papers", [ATTENTION, V7])
    cache, data = tmp_path / "cache", tmp_path / "data"
    base = ("--cache-dir", cache, "--data-dir", data)
    assert _run("index", folder, "--no-embed", "--cache-dir", cache).returncode == 0
    lib = Library(folder, cache)
    sha = {d.doc: d.sha256 for d in lib.documents()}
    lib.close()
    with TriageStore(data) as old:     # what pdftui wrote per file before
        old.set_mark(DocKey.of(folder, V7, sha[V7]), Mark.KEEP)
        old.add_clip(DocKey.of(folder, ATTENTION, sha[ATTENTION]), Clip("from v5", 3, "3"))
        old.add_clip(DocKey.of(folder, V7, sha[V7]), Clip("from v7", 4, "4"))
    r = _run("docs", folder, "--json", *base)
    docs = {d["doc"]: d for d in json.loads(r.stdout)["documents"]}
    assert docs[ATTENTION]["mark"] == docs[V7]["mark"] == "keep"
    r = _run("clips", folder, "attention", "--json", *base)
    assert r.returncode == 0, r.stderr
    assert [(c["text"], c["doc"]) for c in json.loads(r.stdout)["clips"]] == [
        ("from v5", ATTENTION), ("from v7", V7)]
    r = _run("export", folder, "--format", "markdown", *base)
    assert r.stdout.count("### 1. Attention Is All You Need") == 1
    assert f"- Other version: {ATTENTION}\n" in r.stdout
    assert _run("mark", folder, ATTENTION, "skip", *base).returncode == 0
    with TriageStore(data) as store:
        assert store.get(DocKey.of(folder, V7, sha[V7])).mark is Mark.SKIP
        assert store.get(DocKey.of(folder, ATTENTION, sha[ATTENTION])).mark is Mark.SKIP
    r = _run("clips", folder, V7, "--delete", "1", "--yes", "--json", *base)
    assert [c["text"] for c in json.loads(r.stdout)["clips"]] == ["from v7"]
    # fifth trial: a work whose clips are all of v5, listed under v7 (its newest file),
    # gave v5's page as v7's: the clip names its file
    _run("clips", folder, V7, "--delete", "1", "--yes", *base)
    with TriageStore(data) as store:
        store.add_clip(DocKey.of(folder, ATTENTION, sha[ATTENTION]), Clip("v5 only", 6, "6"))
    lines = _run("clips", folder, *base).stdout.splitlines()
    assert lines[0].startswith(V7) and lines[1].endswith(f"p. 6 · {ATTENTION}"), lines


def test_a_csv_export_of_a_formula_title_and_note_runs_nothing(tmp_path):
    """Issue 33: a PDF titled ``=HYPERLINK(...)`` with a note ``@SUM(...)`` exported to
    CSV: both cells start with ``'``, so a spreadsheet shows them as text."""
    import csv
    import io

    import pymupdf

    folder = tmp_path / "papers"
    folder.mkdir()
    title = '=HYPERLINK("http://evil.example","click")'
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), title, fontsize=18)
    for n in range(12):
        page.insert_text((72, 140 + 18 * n), "Plain words of a paper body that a reader "
                         f"can see, line {n}, long enough to count as text.", fontsize=10)
    doc.set_metadata({"title": title})
    doc.save(folder / "formula.pdf")
    doc.close()
    base = ("--cache-dir", tmp_path / "cache", "--data-dir", tmp_path / "data")
    assert _run("mark", folder, "formula", "keep", "--note", "@SUM(A1:A9)",
                *base).returncode == 0
    r = _run("export", folder, "--format", "csv", *base)
    assert r.returncode == 0, r.stderr
    [row] = list(csv.DictReader(io.StringIO(r.stdout)))
    assert row["title"] == "'" + title and row["note"] == "'@SUM(A1:A9)"


def test_docs_table_shows_what_json_has_at_80_columns(folder, tmp_path):
    """Fresh-user finding: ``pdftui docs`` printed less than ``--json`` (no ids, the file
    name cut to "arxiv-1706.03762v5-attenti…", the status column taken by "indexed" on
    every row). At 80 columns each document now shows its mark, year, pages, whole file
    name, title with first authors and arXiv id, its note, and the status when it is not
    simply indexed; a last line counts the marks."""
    data, cache = tmp_path / "data", tmp_path / "cache"
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf" * 10)
    base = ("--cache-dir", cache, "--data-dir", data)
    assert _run("mark", folder, ATTENTION, "keep", "--note", "the transformer",
                *base).returncode == 0
    r = _run("docs", folder, *base, env_extra={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(len(ln) for ln in lines) <= 80, lines
    at = next(i for i, ln in enumerate(lines) if ATTENTION in ln)
    row = lines[at].split("│")
    assert [c.strip() for c in row[:3]] == ["keep", "2017", "15"], lines[at]
    cell = " ".join(ln.split("│")[-1].strip() for ln in lines[at:at + 4])
    assert "Attention Is All You Need · Vaswani et al. · arXiv 1706.03762" in cell, cell
    assert "note: the transformer" in cell
    broken = next(i for i, ln in enumerate(lines) if "broken.pdf" in ln)
    assert any("status: skipped" in ln for ln in lines[broken:broken + 3]), lines
    assert not any("status:" in ln for ln in lines[at:at + 4])
    assert lines[-1] == "3 documents · 1 keep · 1 not fully indexed (see status)"


def test_clips_are_listed_and_deleted_only_when_asked_for(folder, tmp_path):
    """Fresh-user finding: a clip could not be deleted. ``pdftui clips FOLDER DOC`` lists
    them numbered; ``--delete N`` deletes one, and without ``--yes`` it asks (on a
    terminal) or refuses (a script): nothing is deleted by accident."""
    from pdftui.triage.store import Clip, DocKey, TriageStore

    data, cache = tmp_path / "data", tmp_path / "cache"
    base = ("--cache-dir", cache, "--data-dir", data)
    assert _run("mark", folder, ATTENTION, "keep", *base).returncode == 0
    with TriageStore(data) as store:
        key = DocKey.of(folder, ATTENTION)
        store.add_clip(key, Clip("The first passage.", 2, "2", "1 Introduction"))
        store.add_clip(key, Clip("The second passage.", 3, "iii", ""))
    r = _run("clips", folder, "attention", *base)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["  1  p. 2 · 1 Introduction", "     The first passage.",
                                     "  2  p. iii", "     The second passage."]
    r = _run("clips", folder, "attention", "--delete", "1", *base)   # no terminal, no --yes
    assert r.returncode == 2 and "add --yes" in r.stderr and not r.stdout
    r = _run("clips", folder, "attention", "--delete", "3", "--yes", *base)
    assert r.returncode == 2 and "no clip 3" in r.stderr
    with TriageStore(data) as store:
        assert len(store.get(DocKey.of(folder, ATTENTION)).clips) == 2
    r = _run("clips", folder, "attention", "--delete", "1", "--yes", "--json", *base)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [c["text"] for c in out["deleted"]] == ["The first passage."]
    assert [(c["number"], c["text"]) for c in out["clips"]] == [(1, "The second passage.")]
    with TriageStore(data) as store:
        assert [c.text for c in store.get(DocKey.of(folder, ATTENTION)).clips] == [
            "The second passage."]


def test_clips_without_doc_lists_every_documents_clips(folder, tmp_path):
    """Fresh-user finding: ``pdftui clips FOLDER`` asked for a DOC. Without one it lists
    the clips of every document under its name (numbered as ``clips FOLDER DOC`` numbers
    them); ``--delete`` still needs DOC."""
    from pdftui.triage.store import Clip, DocKey, TriageStore

    data, cache = tmp_path / "data", tmp_path / "cache"
    base = ("--cache-dir", cache, "--data-dir", data)
    r = _run("clips", folder, *base)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"no clips in {folder}"
    with TriageStore(data) as store:
        store.add_clip(DocKey.of(folder, ATTENTION),
                       Clip("The first passage.", 2, "2", "1 Introduction"))
        store.add_clip(DocKey.of(folder, ATTENTION), Clip("The second passage.", 3, "iii", ""))
        store.add_clip(DocKey.of(folder, ECAPA), Clip("An ECAPA passage.", 1, "1", ""))
    r = _run("clips", folder, *base)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        f"{ATTENTION} · 2 clips", "  1  p. 2 · 1 Introduction", "     The first passage.",
        "  2  p. iii", "     The second passage.", "",
        f"{ECAPA} · 1 clip", "  1  p. 1", "     An ECAPA passage.", "",
        "3 clips in 2 documents"]
    r = _run("clips", folder, "--json", *base)
    assert r.returncode == 0, r.stderr
    docs = json.loads(r.stdout)["documents"]
    assert [(d["doc"], [c["number"] for c in d["clips"]]) for d in docs] == [
        (ATTENTION, [1, 2]), (ECAPA, [1])]
    assert docs[1]["clips"][0]["text"] == "An ECAPA passage."
    r = _run("clips", folder, "--delete", "1", "--yes", *base)
    assert r.returncode == 2 and "--delete needs DOC" in r.stderr
    with TriageStore(data) as store:
        assert len(store.get(DocKey.of(folder, ATTENTION)).clips) == 2


def test_docs_to_a_pipe_never_cuts_a_file_name_in_two(tmp_path):
    """Fresh-user finding: ``pdftui docs`` into a pipe (rich's 80 columns) folded long
    file names (``…representations.pd`` / ``f``), so ``grep`` for a name missed it. To a
    pipe the table is as wide as the longest name needs."""
    long_name = "arxiv-2005.07143-ecapa-tdnn-speaker-verification-with-a-much-longer-name.pdf"
    folder = copy_docs(tmp_path / "papers", [ECAPA])
    os.rename(folder / ECAPA, folder / long_name)
    r = _run("docs", folder, "--cache-dir", tmp_path / "cache", "--data-dir", tmp_path / "d",
             env_extra={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    assert any(long_name in line for line in r.stdout.splitlines()), r.stdout
