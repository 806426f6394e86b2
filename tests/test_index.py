"""The index engine on real PDFs and a real SQLite cache: change detection, crash safety,
concurrency and the CLI summary."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest


from pdftui.index import index_folder
from pdftui.store.database import Cache
from pdftui.store.schema import SCHEMA_VERSION
from pdftui.store.tokenizer import fts_text

from .conftest import SMALL_DOCS, TRICKY, copy_docs, corpus_pdf, shared_file


def _counts(cache_dir: Path) -> dict[str, int]:
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    out = {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
           for t in ("contents", "files", "pages", "blocks", "sections", "units")}
    out["fts"] = db.execute("SELECT count(*) FROM pages_fts_instance").fetchone()[0]
    db.close()
    return out


def _content_ids(cache_dir: Path, root: Path) -> dict[str, int]:
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    rows = db.execute("SELECT doc, content_id FROM files WHERE root=?",
                      (os.path.realpath(root),)).fetchall()
    db.close()
    return dict(rows)


def _start_until_units(cmd: list[str], cache_dir: Path) -> subprocess.Popen:
    """Start ``cmd`` and return once it has committed its first embedding units (or 120 s)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    db_path = cache_dir / "index.sqlite3"
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.3)
        try:
            db = sqlite3.connect(db_path, timeout=5)
            n = db.execute("SELECT count(*) FROM units").fetchone()[0]
            db.close()
        except sqlite3.Error:
            n = 0
        if n > 0:
            break
    return proc


def test_index_then_unchanged(small_folder, cache_dir):
    s = index_folder(small_folder, cache_dir, embed=False)
    assert (s.documents, s.indexed, s.unchanged, s.skipped) == (3, 3, 0, [])
    assert s.pages == 4 + 3 + 5
    again = index_folder(small_folder, cache_dir, embed=False)
    assert (again.indexed, again.unchanged) == (0, 3)


def test_touch_reindexes_nothing(small_folder, cache_dir):
    index_folder(small_folder, cache_dir, embed=False)
    before = _content_ids(cache_dir, small_folder)
    p = small_folder / SMALL_DOCS[0]
    os.utime(p, ns=(time.time_ns(), time.time_ns() + 10**9))
    s = index_folder(small_folder, cache_dir, embed=False)
    assert (s.indexed, s.unchanged) == (0, 3)
    assert _content_ids(cache_dir, small_folder) == before


def test_rename_rekeys_without_extraction(small_folder, cache_dir):
    index_folder(small_folder, cache_dir, embed=False)
    before = _content_ids(cache_dir, small_folder)
    (small_folder / "moved").mkdir()
    os.rename(small_folder / SMALL_DOCS[0], small_folder / "moved" / "renamed.pdf")
    s = index_folder(small_folder, cache_dir, embed=False)
    assert s.indexed == 0 and s.removed == 1
    after = _content_ids(cache_dir, small_folder)
    assert after["moved/renamed.pdf"] == before[SMALL_DOCS[0]]
    assert SMALL_DOCS[0] not in after


def test_edit_replaces_every_row_and_delete_removes_them(small_folder, cache_dir):
    index_folder(small_folder, cache_dir, embed=False)
    target = small_folder / SMALL_DOCS[0]
    old_cid = _content_ids(cache_dir, small_folder)[SMALL_DOCS[0]]
    shutil.copy(corpus_pdf("texlive-lppl-license.pdf"), target)  # same name, new content
    s = index_folder(small_folder, cache_dir, embed=False)
    assert s.indexed == 1 and s.indexed_docs == [SMALL_DOCS[0]]
    new_cid = _content_ids(cache_dir, small_folder)[SMALL_DOCS[0]]
    assert new_cid != old_cid
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    for table in ("pages", "blocks", "outline", "sections", "units"):
        assert db.execute(f"SELECT count(*) FROM {table} WHERE content_id=?",
                          (old_cid,)).fetchone()[0] == 0
    # the FTS index no longer knows the old text: a word only the old paper had
    hits = db.execute("SELECT count(*) FROM pages_fts WHERE pages_fts MATCH 'bosonic'").fetchone()
    assert hits[0] == 0
    db.close()
    target.unlink()
    s = index_folder(small_folder, cache_dir, embed=False)
    assert s.removed == 1 and s.documents == 2 and s.removed_docs == [SMALL_DOCS[0]]
    assert s.to_json()["removed_docs"] == [SMALL_DOCS[0]] and s.indexed_docs == []
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    assert db.execute("SELECT count(*) FROM pages WHERE content_id=?", (new_cid,)).fetchone()[0] == 0
    db.close()


def test_same_pdf_in_two_folders_is_extracted_once(tmp_path, cache_dir):
    a = copy_docs(tmp_path / "a", SMALL_DOCS[:1])
    b = copy_docs(tmp_path / "b", SMALL_DOCS[:1])
    assert index_folder(a, cache_dir, embed=False).indexed == 1
    s = index_folder(b, cache_dir, embed=False)
    assert (s.indexed, s.unchanged) == (0, 1)
    assert _counts(cache_dir)["contents"] == 1


def test_discovery_rules(tmp_path, cache_dir):
    root = tmp_path / "tree"
    copy_docs(root / "sub", SMALL_DOCS[:1])
    shutil.copy(corpus_pdf(SMALL_DOCS[1]), root / "UPPER.PDF")
    copy_docs(root / ".hidden", SMALL_DOCS[2:3])
    (root / "sub" / "loop").symlink_to(root)  # a symlink loop
    (root / "alias.pdf").symlink_to(root / "UPPER.PDF")  # same real file twice
    os.mkfifo(root / "fifo.pdf")
    (root / "folder.pdf").mkdir()
    s = index_folder(root, cache_dir, embed=False)
    docs = set(_content_ids(cache_dir, root))
    assert f"sub/{SMALL_DOCS[0]}" in docs and ("UPPER.PDF" in docs or "alias.pdf" in docs)
    assert not any(".hidden" in d for d in docs)
    assert {"doc": "fifo.pdf", "reason": "not a regular file"} in s.skipped
    assert s.indexed == 2


def test_missing_folder_is_one_line_exit_2(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pdftui.cli", "index", str(tmp_path / "nope")],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "not found" in r.stderr


def test_cli_json_summary(small_folder, cache_dir):
    r = subprocess.run([sys.executable, "-m", "pdftui.cli", "index", str(small_folder),
                        "--cache-dir", str(cache_dir), "--no-embed", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert {k: d[k] for k in ("documents", "indexed", "unchanged", "skipped", "pages")} == {
        "documents": 3, "indexed": 3, "unchanged": 0, "skipped": [], "pages": 12}
    assert {"units", "elapsed_s"} <= set(d)


def test_embeddings_resume_after_kill(small_folder, cache_dir):
    """kill -9 during embedding leaves a healthy cache; the next run finishes the job."""
    cmd = [sys.executable, "-m", "pdftui.cli", "index", str(small_folder),
           "--cache-dir", str(cache_dir), "--json"]
    proc = _start_until_units(cmd, cache_dir)
    db_path = cache_dir / "index.sqlite3"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    c = Cache(cache_dir)
    assert c.integrity_check() == "ok"
    c.close()
    first = _counts(cache_dir)
    s = index_folder(small_folder, cache_dir)
    assert s.embedding_pending == 0
    final = _counts(cache_dir)
    assert final["contents"] == 3 and final["pages"] == 12
    assert final["units"] >= first["units"]
    db = sqlite3.connect(db_path)
    dup = db.execute("SELECT count(*) FROM (SELECT content_id, model_id, page, ordinal, count(*) c"
                     " FROM units GROUP BY 1,2,3,4 HAVING c > 1)").fetchone()[0]
    done = db.execute("SELECT count(*) FROM embeddings WHERE units_done = units_total").fetchone()[0]
    db.close()
    assert dup == 0 and done == 3


def test_two_concurrent_indexers(small_folder, cache_dir):
    cmd = [sys.executable, "-m", "pdftui.cli", "index", str(small_folder),
           "--cache-dir", str(cache_dir), "--no-embed", "--json"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        assert "locked" not in err
    counts = _counts(cache_dir)
    assert counts["contents"] == 3 and counts["files"] == 3 and counts["pages"] == 12


def test_extraction_timeout_skips_only_that_document(tmp_path, cache_dir, monkeypatch):
    """A document that overruns the per-document budget is skipped with its reason, its
    worker is killed, and the other documents are still indexed."""
    import pdftui.index.extraction as index_mod

    folder = copy_docs(tmp_path / "docs", SMALL_DOCS[:1])
    shutil.copy(shared_file(TRICKY / "real" / "many-pages-lwarp-manual-1370pages.pdf"),
                folder / "big.pdf")
    monkeypatch.setattr(index_mod, "DOC_TIMEOUT_S", 1.0)
    s = index_folder(folder, cache_dir, embed=False, workers=1)
    assert {"doc": "big.pdf", "reason": "damaged (extraction timed out)"} in s.skipped
    assert _content_ids(cache_dir, folder)[SMALL_DOCS[0]] is not None


def test_extractor_upgrade_keeps_embeddings_of_unchanged_pages(tmp_path, cache_dir, monkeypatch):
    """Re-extraction after an EXTRACTOR_VERSION bump replaces text rows but keeps the
    vectors of pages whose text is the same, so nothing is re-embedded."""
    import pdftui.store.writer as writer_mod
    import pdftui.index as index_mod

    folder = copy_docs(tmp_path / "docs", SMALL_DOCS[:1])
    first = index_folder(folder, cache_dir)
    assert first.units > 0 and first.embedding_pending == 0
    monkeypatch.setattr(writer_mod, "EXTRACTOR_VERSION", writer_mod.EXTRACTOR_VERSION + 1)
    monkeypatch.setattr(index_mod, "EXTRACTOR_VERSION", writer_mod.EXTRACTOR_VERSION)
    again = index_folder(folder, cache_dir)
    assert again.indexed == 1 and again.units == 0 and again.embedding_pending == 0
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    version, = db.execute("SELECT extractor_version FROM contents").fetchone()
    n_units, = db.execute("SELECT count(*) FROM units").fetchone()
    db.close()
    assert version == writer_mod.EXTRACTOR_VERSION and n_units == first.units


def test_index_runs_when_stderr_has_no_file_descriptor(small_folder, cache_dir, monkeypatch):
    """Inside the TUI, sys.stderr is a capture object whose fileno() is -1; starting the
    worker processes must not fail with "bad value(s) in fds_to_keep"."""
    import io
    import multiprocessing.resource_tracker as rt

    class Capture(io.StringIO):
        def fileno(self):
            return -1

    tracker = rt._resource_tracker
    if getattr(tracker, "_pid", None) is not None:  # start it afresh in this test
        monkeypatch.setattr(rt, "_resource_tracker", rt.ResourceTracker())
        monkeypatch.setattr(rt, "ensure_running", rt._resource_tracker.ensure_running)
    monkeypatch.setattr(sys, "stderr", Capture())
    s = index_folder(small_folder, cache_dir, embed=False)
    assert s.indexed == 3


def test_no_embed_reports_what_still_needs_embedding(small_folder, cache_dir):
    s = index_folder(small_folder, cache_dir, embed=False)
    assert s.embedding_pending == 3 and s.units == 0


def test_ctrl_c_during_embedding_exits_cleanly_and_resume_counts_done_units(tmp_path,
                                                                             cache_dir):
    """SIGINT while embedding: the one-line message, no onnxruntime abort noise, exit 130;
    the next run's progress ends with every unit counted. A 25-page review joins the small
    folder so that embedding outlasts the first committed batch (its 12 pages alone
    finished before the signal landed)."""
    small_folder = copy_docs(tmp_path / "papers", [
        *SMALL_DOCS, "aiopen-2020-gnn-review-of-methods-and-applications.pdf"])
    cmd = [sys.executable, "-m", "pdftui.cli", "index", str(small_folder),
           "--cache-dir", str(cache_dir)]
    # the signal goes as soon as the child reports its first embedded units (its own
    # progress line), not after polling the cache, which a loaded machine can delay
    # a child of a process started in the background inherits SIGINT ignored, and Python
    # then installs no KeyboardInterrupt handler: give it the terminal's default
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen_lines = []
    for line in proc.stderr:
        seen_lines.append(line)
        if re.search(r"embedded [1-9]\d*/", line):
            break
    proc.send_signal(signal.SIGINT)
    _out, rest = proc.communicate(timeout=120)
    err = "".join(seen_lines) + rest
    assert proc.returncode == 130, err
    assert "interrupted" in err and "terminate called" not in err and "Traceback" not in err
    seen = []
    s = index_folder(small_folder, cache_dir, progress=seen.append)
    embeds = [p for p in seen if p.phase == "embed"]
    assert s.embedding_pending == 0
    if embeds:  # the interrupted run may have finished the last content already
        totals = [p.units_total for p in embeds]
        assert totals == sorted(totals)  # grows only while documents are still extracted
        assert embeds[-1].units_done == embeds[-1].units_total


def test_schema_v1_cache_migrates_and_keeps_its_embeddings(tmp_path, cache_dir):
    """A cache written by schema v1 (sections without own_chars) is migrated in place:
    the column is added, page vectors are kept, and the next index re-extracts (extractor
    version bump) embedding only the section head units v1 did not have; the section FTS
    then holds own text. (It also holds the fix for a re-extracted content reusing its old
    id while the old one was queued for embedding: stale units were written into it and the
    new content was never embedded.)"""
    folder = copy_docs(tmp_path / "docs", SMALL_DOCS[2:3])
    first = index_folder(folder, cache_dir)
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    db.execute("UPDATE contents SET extractor_version = extractor_version - 1")
    db.execute("ALTER TABLE sections DROP COLUMN own_chars")
    db.execute("DELETE FROM units WHERE page = 0")   # v1 had no section head units
    # v1 indexed each section's whole text
    db.execute("INSERT INTO sections_fts(sections_fts) VALUES('delete-all')")
    for sid, title, text in db.execute("SELECT id, title, text FROM sections").fetchall():
        db.execute("INSERT INTO sections_fts(rowid, title, text) VALUES(?,?,?)",
                   (sid, fts_text(title), fts_text(text)))
    db.execute("PRAGMA user_version=1")
    db.commit()
    n_sections = db.execute("SELECT count(*) FROM sections").fetchone()[0]
    db.close()
    again = index_folder(folder, cache_dir)
    # page vectors kept; only the new section head units are embedded
    assert again.indexed == 1 and again.units == n_sections and again.embedding_pending == 0
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION   # v1 -> v2 -> ...
    assert db.execute("SELECT count(*) FROM metadata").fetchone()[0] == 1     # filled lazily
    assert db.execute("SELECT count(*) FROM units").fetchone()[0] == first.units
    parent, = db.execute("SELECT id FROM sections WHERE title LIKE '3 %Proposed%'").fetchone()
    child, = db.execute("SELECT id FROM sections WHERE title LIKE '3.2 %'").fetchone()
    hits = {r for (r,) in db.execute(
        "SELECT rowid FROM sections_fts WHERE sections_fts MATCH 'Res2Net'")}
    db.close()
    assert child in hits and parent not in hits   # the parent no longer holds 3.2's words


def test_extractor_upgrade_keeps_section_heads_whose_ordinal_moved(tmp_path, cache_dir):
    """A detector change that adds or drops a heading shifts the ordinals of the sections
    after it; their head vectors are kept by what they are made from (title and opening
    text), not by ordinal, and the summary says how many vectors were kept."""
    folder = copy_docs(tmp_path / "docs", SMALL_DOCS[2:3])
    first = index_folder(folder, cache_dir)
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    db.execute("UPDATE contents SET extractor_version = extractor_version - 1")
    db.execute("UPDATE sections SET ordinal = ordinal + 100")
    db.execute("UPDATE units SET ordinal = ordinal + 100 WHERE page = 0")
    db.commit()
    db.close()
    again = index_folder(folder, cache_dir)
    assert again.indexed == 1 and again.units == 0 and again.units_kept == first.units
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    heads = db.execute("SELECT count(*) FROM units WHERE page = 0 AND ordinal < 100"
                       ).fetchone()[0]
    assert heads == db.execute("SELECT count(*) FROM sections").fetchone()[0] > 0
    db.close()


def test_fast_pipeline_embeds_openings_first_and_switching_plans_re_embeds(tmp_path,
                                                                            cache_dir):
    from pdftui.embed import PLAN_2, Embedder
    from pdftui.index.embedding import EmbedPipeline

    folder = copy_docs(tmp_path / "two", SMALL_DOCS[:2])
    reports = []
    fast = EmbedPipeline(int8=True, plan=PLAN_2, batch_units=4)
    s = index_folder(folder, cache_dir, pipeline=fast, progress=reports.append)
    assert s.units > 0 and s.tokens_embedded > 0 and s.embedding_pending == 0
    embeds = [p for p in reports if p.phase == "embed"]
    assert embeds[-1].docs_done == embeds[-1].docs_total == 2
    assert embeds[-1].units_done == embeds[-1].units_total == s.units
    assert any(p.eta_s is not None for p in embeds) and "documents done" in embeds[-1].embed_note()
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    whash = Embedder(None, cache_dir, int8=True).weights_hash
    assert {r[0] for r in db.execute("SELECT weights_hash FROM embeddings")} == \
        {PLAN_2.identity(whash)}
    # both documents' openings (their first page units) came before any other unit
    rows = db.execute("SELECT content_id, page, ordinal FROM units WHERE page > 0"
                      " ORDER BY id").fetchall()
    first_two = {}
    for i, (cid, page, ordinal) in enumerate(rows):
        first_two.setdefault(cid, []).append(i)
    openings = [ids[:4] for ids in first_two.values()]
    assert max(max(o) for o in openings) < min(
        i for ids in first_two.values() for i in ids[4:])
    db.close()
    # the earlier plan is another identity: everything is embedded again
    again = index_folder(folder, cache_dir, pipeline=EmbedPipeline(int8=True))
    assert again.units > 0 and again.embedding_pending == 0


def _vectors_by_content(cache_dir: Path) -> dict[tuple[str, int, int], bytes]:
    """``{(content sha256, page, ordinal): vector bytes}`` of a cache's units."""
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    try:
        return {(sha, page, ordinal): vec for sha, page, ordinal, vec in db.execute(
            "SELECT c.sha256, u.page, u.ordinal, u.vector FROM units u"
            " JOIN contents c ON c.id = u.content_id")}
    finally:
        db.close()


def test_two_fresh_indexes_give_identical_vectors_whatever_the_batches(tmp_path):
    """A unit's vector depends on its text alone: indexing the same documents together,
    or one first and the others later with other batch sizes (other run-mates for every
    unit), stores the same bytes for every unit (the int8 copy quantizes activations per
    onnxruntime run, so shared runs made two fresh indexes differ)."""
    from pdftui.index.embedding import EmbedPipeline

    docs = SMALL_DOCS[:3]
    together = copy_docs(tmp_path / "together", docs)
    a = tmp_path / "cache-a"
    index_folder(together, a, pipeline=EmbedPipeline(int8=True))
    apart = copy_docs(tmp_path / "apart", docs[2:])
    b = tmp_path / "cache-b"
    index_folder(apart, b, pipeline=EmbedPipeline(int8=True, batch_units=7))
    copy_docs(apart, docs[:2])
    index_folder(apart, b, pipeline=EmbedPipeline(int8=True, batch_units=23))
    va, vb = _vectors_by_content(a), _vectors_by_content(b)
    assert len(va) > 100 and va.keys() == vb.keys()
    assert [k for k in va if va[k] != vb[k]] == []


def test_v6_cache_gains_the_ocr_page_index_and_keeps_everything(tmp_path, cache_dir):
    """Schema 6 -> 7 adds only the ``pages_ocr`` partial index: nothing is re-extracted
    or re-embedded, and the document list counts OCR'd pages through it."""
    from pdftui.library import Library

    folder = copy_docs(tmp_path / "docs", SMALL_DOCS[:1])
    index_folder(folder, cache_dir, embed=False)
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    db.execute("DROP INDEX pages_ocr")
    db.execute("UPDATE pages SET ocr = 1 WHERE number <= 2")   # as if OCR'd
    db.execute("PRAGMA user_version=6")
    db.commit()
    before = db.execute("SELECT count(*), max(indexed_at) FROM contents").fetchone()
    db.close()
    lib = Library(folder, cache_dir)
    try:
        (info,) = lib.documents()
        assert info.ocr_pages == 2
        plan = " ".join(str(r) for r in lib.db.execute(
            "EXPLAIN QUERY PLAN SELECT content_id, count(*) FROM pages WHERE ocr = 1"
            " GROUP BY content_id"))
        assert "pages_ocr" in plan
        assert lib.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert lib.db.execute("SELECT count(*), max(indexed_at) FROM contents").fetchone() \
            == before
    finally:
        lib.close()


def test_a_cache_of_a_newer_pdftui_is_refused_and_never_emptied(tmp_path, cache_dir):
    """A newer layout (another process's pdftui, upgraded) is not 'an older layout to
    start afresh': opening it raises CacheError and every row stays."""
    import pytest

    from pdftui.errors import CacheError

    folder = copy_docs(tmp_path / "docs", SMALL_DOCS[:1])
    index_folder(folder, cache_dir, embed=False)
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.commit()
    pages = db.execute("SELECT count(*) FROM pages").fetchone()[0]
    db.close()
    with pytest.raises(CacheError, match="newer pdftui"):
        Cache(cache_dir)
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    assert db.execute("SELECT count(*) FROM pages").fetchone()[0] == pages > 0
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    db.close()


def test_progress_says_when_the_unit_total_is_still_growing_and_fits_a_status_line():
    """Fresh-user finding: the log said "embedded 0/30 units" while the total grew to
    1,429 (a document's units are counted when its turn comes), and the TUI's status
    ("embedding 192/1429 units, 3/8 documents done, ETA 15 s, following the embedder of
    pid 1234 on host") was cut at 80 columns."""
    from pdftui.index.report import Progress

    early = Progress("embed", docs_total=6, docs_planned=1, units_total=30)
    assert early.units_text() == "0/30+"
    final = Progress("embed", docs_total=6, docs_planned=6, units_total=367, units_done=128,
                     docs_done=2, eta_s=41.0)
    assert final.units_text() == "128/367"
    assert final.embed_status() == "embedding 2/6 documents, ETA 41 s"
    other = Progress("embed", units_total=1429, units_done=192,
                     following="pid 1234 on a-very-long-host-name.example.org")
    assert other.embed_status() == "embedding: another pdftui runs it, 192/1429 units"
    assert Progress("extract", docs_total=6, units_total=5).units_text() == "0/5"


def test_eta_counts_tokens_left_not_units(tmp_path, cache_dir):
    """The ETA divides the model tokens left by the tokens per second measured: on a made
    folder of one document of long pages and one of one-line pages, after the long
    document's units at a steady speed the ETA is the short document's tokens at that
    speed (a unit count would predict as many seconds per one-line unit as per window)."""
    from pdftui.embed import Embedder
    from pdftui.index.embedding import EmbedRate

    from .builders import make_pdf

    lines = "\n".join(f"topic{i} measured carefully here" for i in range(60))
    make_pdf(tmp_path / "long.pdf", [lines, lines], height=1000, fontsize=6)
    make_pdf(tmp_path / "short.pdf", [f"note {i}" for i in range(12)])
    s = index_folder(tmp_path, cache_dir)
    emb = Embedder(None, cache_dir)
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    rows = db.execute("SELECT f.doc, p.text, u.char_start, u.char_end FROM units u"
                      " JOIN files f ON f.content_id = u.content_id JOIN pages p ON"
                      " p.content_id = u.content_id AND p.number = u.page").fetchall()
    db.close()
    tokens = {doc: sum(emb.model_tokens([t[a:b] for d, t, a, b in rows if d == doc]))
              for doc in ("long.pdf", "short.pdf")}
    units = {doc: sum(1 for r in rows if r[0] == doc) for doc in tokens}
    assert tokens["long.pdf"] > 10 * tokens["short.pdf"] and units["short.pdf"] >= 12
    now = [0.0]
    rate = EmbedRate(clock=lambda: now[0])
    rate.update(0)                          # the first batch (model load) starts the clock
    speed = 1000.0                          # tokens per second
    now[0] += tokens["long.pdf"] / speed
    rate.update(tokens["long.pdf"])
    total = sum(tokens.values())
    assert rate.eta(tokens["short.pdf"], 2, 2, total) == pytest.approx(
        tokens["short.pdf"] / speed)
    # contents not planned yet count at the mean tokens per planned content
    assert rate.eta(tokens["short.pdf"], 2, 4, total) == pytest.approx(
        (tokens["short.pdf"] + total) / speed)
    assert s.tokens_embedded >= total     # section head units come on top


def test_embed_progress_reports_tokens(tmp_path, cache_dir):
    """The embed reports carry the tokens planned and done; at the end all are done and
    they are the tokens the model ran (``tokens_embedded``)."""
    folder = copy_docs(tmp_path / "one", SMALL_DOCS[:1])
    reports = []
    s = index_folder(folder, cache_dir, progress=reports.append)
    embeds = [p for p in reports if p.phase == "embed" and not p.following]
    assert embeds[-1].tokens_done == embeds[-1].tokens_total == s.tokens_embedded > 0
    done = [p.tokens_done for p in embeds]
    assert done == sorted(done)
