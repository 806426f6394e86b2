"""Robustness: hostile file trees, unusable cache locations, kill -9, concurrent use,
changes between CLI calls and untrusted text, on real PDFs and a real SQLite cache.

The builders and expectations (``tests/builders.py``) and the CLI runner and cache judges
(``tests/harness.py``) are shared with ``bench/robust.py`` (which prints the same
checks as a table). Heavy cases are marked ``slow``: run them with ``pytest -m slow``.
"""

from __future__ import annotations

import json
import re
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from pdftui.errors import CacheError
from pdftui.store.database import Cache
from pdftui.index import index_folder

from . import builders, harness
from .conftest import needs_shared
from .harness import cli
from .invariants import assert_well_ranked



def _one_line_error(r, *needles: str) -> None:
    lines = [ln for ln in r.err.strip().splitlines() if ln.strip()]
    assert r.rc == 2, (r.rc, r.err)
    assert len(lines) == 1 and lines[0].startswith("pdftui: "), r.err
    assert "Traceback" not in r.err
    for n in needles:
        assert n in lines[0], lines[0]


# --------------------------------------------------------------------------- cache location


def test_cache_never_changes_the_mode_of_an_existing_folder(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o755)
    Cache(shared).close()
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    fresh = tmp_path / "fresh" / "cache"
    Cache(fresh).close()
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700


@pytest.fixture
def one_pdf(tmp_path) -> Path:
    folder = tmp_path / "one"
    folder.mkdir()
    builders.make_pdf(folder / "x.pdf", ["cache location word"])
    return folder


def test_cache_path_that_is_a_file_is_one_line_exit_2(tmp_path, one_pdf):
    afile = tmp_path / "cache-file"
    afile.write_text("not a folder")
    _one_line_error(cli("index", one_pdf, "--no-embed", "--cache-dir", afile),
                    "is a file, not a folder")
    _one_line_error(cli("index", one_pdf, "--no-embed", env={"PDFTUI_CACHE_DIR": str(afile)}),
                    "is a file, not a folder")
    _one_line_error(cli("search", one_pdf, "word", "--mode", "keyword", "--cache-dir", afile),
                    "is a file")
    _one_line_error(cli("index", one_pdf, "--no-embed", "--cache-dir", afile / "sub"),
                    "Not a directory")
    with pytest.raises(CacheError, match="is a file"):
        Cache(afile)


def test_garbage_cache_file_is_one_line_exit_2(tmp_path, one_pdf):
    cache = tmp_path / "garbage"
    cache.mkdir()
    (cache / "index.sqlite3").write_bytes(b"this is not SQLite at all" * 100)
    # a search does not rebuild it (`index` moves it aside: tests/test_robust_stores.py)
    _one_line_error(cli("search", one_pdf, "x", "--mode", "keyword", "--cache-dir", cache),
                    "cache")


def test_full_disk_is_one_line_exit_2(tmp_path):
    """RLIMIT_FSIZE stands in for a full disk: SQLite's write fails mid-index."""
    import resource

    folder = tmp_path / "many"
    builders.tiny_corpus(folder, 30, prefix="full", pages=5)

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))

    r = cli("index", folder, "--no-embed", "--cache-dir", tmp_path / "c", preexec_fn=small_files)
    _one_line_error(r, "cannot write the cache")


def _nobody_or_skip():
    if not harness.as_nobody():
        pytest.skip("needs root and an unprivileged user (nobody) to drop to")


@pytest.fixture
def open_tmp():
    """A folder outside pytest's basetemp, traversable by anyone: a pytest session that
    starts meanwhile sets its basetemp root back to mode 0700, which locks the unprivileged
    user out mid-test ("folder not found")."""
    import tempfile

    d = Path(tempfile.mkdtemp(prefix="pdftui-nobody-"))
    os.chmod(d, 0o755)
    yield d
    harness.rmtree(d)


def test_read_only_cache_locations_as_non_root(open_tmp):
    _nobody_or_skip()
    tmp_path = open_tmp
    one_pdf = tmp_path / "one"
    builders.make_pdf(one_pdf.mkdir() or one_pdf / "x.pdf", ["cache location word"])
    ro = tmp_path / "ro"
    ro.mkdir()
    os.chmod(ro, 0o555)
    rodb = tmp_path / "rodb"
    assert cli("index", one_pdf, "--no-embed", "--cache-dir", rodb).rc == 0
    os.chmod(rodb, 0o777)
    os.chmod(rodb / "index.sqlite3", 0o644)
    harness.open_up(tmp_path)
    env = {"HOME": str(tmp_path)}
    _one_line_error(cli("index", one_pdf, "--no-embed", "--cache-dir", ro, nobody=True, env=env),
                    "not writable")
    _one_line_error(cli("index", one_pdf, "--no-embed", "--cache-dir", ro / "sub", nobody=True,
                        env=env), "ermission denied")
    _one_line_error(cli("index", one_pdf, "--no-embed", "--cache-dir", rodb, nobody=True,
                        env=env), "read-only")


# --------------------------------------------------------------------------- hostile trees


@pytest.fixture(scope="module")
def hostile_tree(tmp_path_factory):
    """The hostile tree of tests/builders.py, indexed once (in-process, no embeddings)."""
    base = tmp_path_factory.mktemp("hostile")
    root, cases, one_of = builders.build_hostile_tree(base)
    cache = base / "cache"
    t0 = time.monotonic()
    summary = index_folder(root, cache, embed=False)
    return root, cases, one_of, cache, summary, time.monotonic() - t0


def test_hostile_tree_every_name_indexed_or_skipped_with_its_reason(hostile_tree):
    root, cases, one_of, cache, summary, seconds = hostile_tree
    reported = {s["doc"]: s["reason"] for s in summary.skipped}
    db = harness.cache_db(cache)
    wrong = []
    for c in cases:
        state, cid = harness.doc_state(db, str(root), c.doc)
        if c.kind == "absent":
            ok = state == "missing"
        elif c.kind == "indexed":
            ok = state == "ok" and bool(harness.fts_pages(db, cid, c.word))
        else:
            ok = state == c.kind and reported.get(c.doc) == c.kind
        if not ok:
            wrong.append((c.doc, c.kind, state, reported.get(c.doc)))
    for group in one_of:
        listed = [d for d in group if harness.doc_state(db, str(root), d)[0] != "missing"]
        if len(listed) != 1:
            wrong.append((group, "exactly one", listed, None))
    db.close()
    assert wrong == []
    # the sparse 4 GB file of zeros is judged from its first KiB
    assert seconds < 30


def test_hostile_names_round_trip_through_read(hostile_tree):
    root, _cases, _one_of, cache, _s, _t = hostile_tree
    for doc in ("-leading-dash.pdf", "[bold]red[/] [link=x]y [red on white]z.pdf",
                "$HOME $(echo pwned) ${x}.pdf", "new\nline.pdf", "folder.pdf/in-folder.pdf"):
        r = cli("read", root, "--cache-dir", cache, "--json", "--", doc)
        assert r.rc == 0, (doc, r.err)
        assert "tree word" in json.loads(r.out)["text"]


def test_hostile_tree_summary_output_is_clean(hostile_tree):
    root, _cases, _one_of, cache, _s, _t = hostile_tree
    r = cli("index", root, "--cache-dir", cache, "--no-embed")
    assert r.rc == 0, r.err
    assert harness.unsafe_bytes(r.out + r.err) == []
    assert "skipped fifo.pdf: not a regular file" in r.out
    assert "folder.pdf:" not in r.out  # a folder named .pdf is walked, not skipped


def test_non_utf8_names_are_indexed(hostile_tree):
    root, cases, _one_of, cache, _s, _t = hostile_tree
    db = harness.cache_db(cache)
    got = {c.doc: harness.doc_state(db, str(root), c.doc)[0] for c in cases if "\\x" in c.doc}
    db.close()
    assert got and set(got.values()) == {"ok"}, got


def test_non_utf8_names_are_listed_safely(hostile_tree):
    """Whatever extraction makes of them, non-UTF-8 names are listed once, as \\xNN text,
    and the index run goes on (it crashed on storing the surrogate title before)."""
    root, cases, _one_of, cache, summary, _t = hostile_tree
    db = harness.cache_db(cache)
    docs = [d for (d,) in db.execute("SELECT doc FROM files WHERE doc LIKE '%\\x%'")]
    titles = [t for (t,) in db.execute(
        "SELECT c.title FROM files f JOIN contents c ON c.id = f.content_id"
        " WHERE f.doc LIKE '%\\x%'")]
    db.close()
    # control characters are \\xNN too (NN < 80): the undecodable bytes are 80-ff
    docs = [d for d in docs if re.search(r"\\x[89a-f][0-9a-f]", d)]
    assert sorted(docs) == ["latin1-caf\\xe9-\\xff.pdf", "sub-\\xe9\\xe8/inner.pdf"]
    # titles come from the first page, or the \\xNN file name: storable UTF-8 either way
    assert titles and all(t and t.encode("utf-8") for t in titles)
    assert summary.documents >= len(cases) - 4


def test_title_from_file_name_has_no_control_characters(tmp_path):
    from pdftui.extract import extract_document

    p = tmp_path / "esc-\x1b[31mred\x1b[0m-\x07bell.pdf"
    builders.make_pdf(p, ["some words here"])
    title = extract_document(p).title
    assert harness.unsafe_bytes(title) == [], repr(title)


def test_unreadable_file_and_folder_as_non_root(open_tmp):
    """As an unprivileged user: an unreadable file and folder are reported 'permission
    denied' and indexing goes on."""
    _nobody_or_skip()
    tmp_path = open_tmp
    root = builders.build_unreadable_tree(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    os.chown(cache, *harness.nobody_ids())
    harness.open_up(tmp_path)
    r = cli("index", root, "--cache-dir", cache, "--no-embed", "--json", nobody=True,
            env={"HOME": str(cache)})
    assert r.rc == 0 and "Traceback" not in r.err, r.err
    s = json.loads(r.out)
    got = {d["doc"]: d["reason"] for d in s["skipped"]}
    want = {k: v for k, v in builders.UNREADABLE_EXPECT.items() if v != "indexed"}
    assert got == want
    assert s["indexed"] == 1
    # the text summary says it plainly too
    r = cli("index", root, "--cache-dir", cache, "--no-embed", nobody=True,
            env={"HOME": str(cache)})
    assert "skipped locked.pdf: permission denied" in r.out
    assert "skipped lockeddir/: permission denied" in r.out


# --------------------------------------------------------------------------- kill -9


def _check_kill_loop(tmp_path, times: int, embed: bool, small: int) -> None:
    folder = builders.kill_folder(tmp_path, small=small)
    res = harness.kill_loop(folder, tmp_path / "cache", times, embed=embed,
                           max_delay=10.0 if embed else 2.0)
    final = res["final"]
    assert final.rc == 0 and not final.crashed and not final.locked, final.err
    assert res["integrity"] == "ok"
    assert not any(res["dups"].values()), res["dups"]  # nothing indexed twice, no orphans
    assert res["orphans_alive"] == 0, res["left"]  # workers of a killed indexer exit
    assert harness.same_index(res["snapshot"], res["reference"]) == []  # nothing missing
    assert res["kills"] >= 1
    if embed:
        assert json.loads(final.out)["embedding_pending"] == 0


def test_kill_9_three_times_then_a_normal_run(tmp_path):
    _check_kill_loop(tmp_path, 3, embed=False, small=10)


@pytest.mark.slow
def test_kill_9_ten_times_with_embedding_then_a_normal_run(tmp_path):
    _check_kill_loop(tmp_path, 10, embed=True, small=40)


# --------------------------------------------------------------------------- concurrency


def test_indexer_and_searcher_on_one_cache(tmp_path):
    """An indexer and a searcher on one cache at once: no 'database is locked', no
    duplicate rows. A search while the indexer runs searches what it has indexed so far
    (or, before it has indexed anything, answers the error kind "indexing"); a search
    after it finds the folder."""
    folder = tmp_path / "conc"
    builders.tiny_corpus(folder, 40, prefix="conc", pages=2)
    cache = tmp_path / "cache"
    import subprocess

    cmd = [sys.executable, "-m", "pdftui.cli"]
    indexer = subprocess.Popen([*cmd, "index", str(folder), "--cache-dir", str(cache),
                                "--no-embed", "--json"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    searches = [cli("search", folder, "common", "--mode", "keyword", "--cache-dir", cache,
                    "--json") for _ in range(3)]
    out, err = indexer.communicate(timeout=300)
    assert indexer.returncode == 0, err
    for r in [harness.Run(0, out, err, 0), *searches]:
        assert not r.locked and "Traceback" not in r.err, r.err
        got = json.loads(r.out.splitlines()[-1])
        assert r.rc == 0 or (r.rc == 1 and got["error"]["kind"] == "indexing"), r.err
    after = cli("search", folder, "common", "--mode", "keyword", "--cache-dir", cache, "--json")
    assert after.rc == 0 and json.loads(after.out.splitlines()[-1])["hits"]
    db = harness.cache_db(cache)
    assert not any(harness.duplicates(db).values())
    assert db.execute("SELECT count(*) FROM files").fetchone()[0] == 40
    db.close()


# --------------------------------------------------------------------------- changes


def test_changes_between_cli_calls_never_show_stale_text(tmp_path):
    seq = harness.ChangeSeq(tmp_path, tmp_path / "cache")
    seq.run()
    assert seq.problems == []
    assert all(not r.crashed and not r.locked for r in seq.runs)


# --------------------------------------------------------------------------- untrusted text


@pytest.fixture(scope="module")
def untrusted(tmp_path_factory):
    base = tmp_path_factory.mktemp("untrusted")
    folder, doc = builders.build_untrusted(base)
    cache = base / "cache"
    r = cli("index", folder, "--cache-dir", cache, "--no-embed")
    return folder, doc, cache, r


def test_untrusted_index_output_is_clean(untrusted):
    _folder, _doc, _cache, r = untrusted
    assert r.rc == 0, r.err
    assert harness.unsafe_bytes(r.out + r.err) == []


@pytest.mark.parametrize("query", ["untrustedword", "bold", "red", "Intro", "link"])
@pytest.mark.parametrize("granularity", ["page", "section"])
def test_untrusted_search_output_is_clean_and_literal(untrusted, query, granularity):
    folder, _doc, cache, _r = untrusted
    r = cli("search", folder, query, "--mode", "keyword", "--granularity", granularity,
            "--cache-dir", cache)
    assert r.rc == 0, r.err
    assert harness.unsafe_bytes(r.out + r.err) == []
    if query == "untrustedword" and granularity == "page":
        assert "[bold]" in r.out  # markup shown as text, not applied


@pytest.mark.parametrize("how", [[], ["--page", "3"], ["--section", "Intro"], ["--json"]])
def test_untrusted_read_output_is_clean_and_literal(untrusted, how):
    folder, doc, cache, _r = untrusted
    r = cli("read", folder, *how, "--cache-dir", cache, "--", doc)
    assert r.rc == 0, r.err
    assert harness.unsafe_bytes(r.out + r.err) == []
    if not how:
        assert "[bold]" in r.out and "[link=x]" in r.out and "[/]" in r.out
    if how[:1] == ["--page"]:
        assert builders.LONG_WORD in r.out  # a 10,000-character word survives whole


def test_untrusted_stored_text_has_no_control_characters(untrusted):
    _folder, _doc, cache, _r = untrusted
    db = harness.cache_db(cache)
    rows = [t for (t,) in db.execute("SELECT text FROM pages UNION ALL SELECT title FROM"
                                     " sections UNION ALL SELECT title FROM outline")]
    db.close()
    assert rows and all(harness.unsafe_bytes(t) == [] for t in rows), rows


# --------------------------------------------------------------------------- hostile queries


def _hostile_queries() -> list[str]:
    txt = [ln.split("\t", 1)[0] for ln in
           (builders.TRICKY / "queries" / "hostile_queries.txt").read_text().splitlines()
           if ln and not ln.startswith("#")]
    js = [q["query"] for q in
          json.loads((builders.TRICKY / "queries" / "hostile_queries.json").read_text())]
    return list(dict.fromkeys(txt + js))


@needs_shared(builders.TRICKY / "queries")
def test_hostile_queries_through_the_cli(untrusted):
    folder, _doc, cache, _r = untrusted
    queries = [q for q in _hostile_queries() if "\n" not in q and "\r" not in q]
    for gran in ("page", "section"):
        r = cli("search", folder, "-", "--mode", "keyword", "--granularity", gran,
                "--cache-dir", cache, "--json", stdin="\n".join(queries) + "\n")
        assert r.rc == 0 and "Traceback" not in r.err, r.err
        answers = [json.loads(line) for line in r.out.splitlines()]
        assert len(answers) == len(queries)
        assert all([h["rank"] for h in a["hits"]] == list(range(1, len(a["hits"]) + 1))
                   for a in answers)
    # a query that starts with '-' after '--', and in the text table
    r = cli("search", folder, "--mode", "keyword", "--cache-dir", cache, "--", "-dead")
    assert r.rc == 0, r.err


def test_any_text_as_a_query_never_raises(untrusted):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from pdftui.search.service import SearchService

    folder, _doc, cache, _r = untrusted
    svc = SearchService(folder, cache_dir=cache)

    @settings(max_examples=150, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.text(max_size=200), st.sampled_from(["page", "section"]))
    def run(q, gran):
        res = svc.search_sync(q, mode="keyword", granularity=gran, top_k=5)
        assert_well_ranked(res)

    try:
        run()
    finally:
        svc.close()


# --------------------------------------------------------------------------- many files


def _progress_run(folder, cache):
    seen = []
    gaps = []
    last = [time.monotonic()]

    def report(p):
        now = time.monotonic()
        if p.phase == "extract":
            gaps.append(now - last[0])
            last[0] = now
            seen.append((p.docs_done, p.docs_total))

    s = index_folder(folder, cache, embed=False, progress=report)
    return s, seen, gaps


def _check_progress(s, seen, gaps, n):
    assert s.documents == n and s.indexed == n and s.skipped == []
    totals = {t for _d, t in seen}
    assert totals == {n}
    done = [d for d, _t in seen]
    assert done == sorted(done) and done[-1] == n  # honest: reaches the total, never back
    assert max(gaps[1:], default=0) < 10  # responsive: a report at least every few seconds


def test_progress_is_honest_on_150_small_pdfs(tmp_path):
    folder = tmp_path / "many"
    builders.tiny_corpus(folder, 150, prefix="m", per_dir=10)
    s, seen, gaps = _progress_run(folder, tmp_path / "cache")
    _check_progress(s, seen, gaps, 150)


@pytest.mark.slow
def test_3000_small_pdfs_in_30_folders(tmp_path):
    folder = tmp_path / "many"
    builders.tiny_corpus(folder, 3000, prefix="m", per_dir=100)
    t0 = time.monotonic()
    s, seen, gaps = _progress_run(folder, tmp_path / "cache")
    _check_progress(s, seen, gaps, 3000)
    again = index_folder(folder, tmp_path / "cache", embed=False)
    assert again.unchanged == 3000 and again.indexed == 0
    db = harness.cache_db(tmp_path / "cache")
    assert not any(harness.duplicates(db).values())
    db.close()
    print(f"3000 PDFs indexed in {time.monotonic() - t0:.1f} s")
