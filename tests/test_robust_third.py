"""Robustness, third pass (extraction): decompression bombs skipped by their inflated
size, and quitting (SIGTERM, Ctrl-C) ending the extraction workers at once.

Real PDFs built with PyMuPDF (tests/builders.py), the real CLI in subprocesses and a real
SQLite cache.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from pdftui.index import index_folder

from . import builders

MIB = 1 << 20


def _folder(base: Path, bomb_bytes: int, pages: int = 1) -> Path:
    folder = base / "docs"
    folder.mkdir(parents=True)
    builders.make_pdf(folder / "normal.pdf", ["the quillwort grows by the pond"])
    builders.build_inflation_bomb(folder / "bomb.pdf", bomb_bytes, pages=pages)
    return folder


def test_a_decompression_bomb_is_skipped_by_its_cap_and_kept_skipped(tmp_path):
    """A 100 MB-inflated page (250 KB on disk) is skipped with the cap it broke, the
    normal file beside it is indexed, and the next run does not extract the bomb again."""
    folder = _folder(tmp_path, 100 * MIB)
    cache = tmp_path / "cache"
    s = index_folder(folder, cache, embed=False, workers=1)
    reasons = {sk["doc"]: sk["reason"] for sk in s.skipped}
    assert "page cap" in reasons["bomb.pdf"] and "16 MiB" in reasons["bomb.pdf"]
    assert s.indexed_docs == ["normal.pdf"]
    again = index_folder(folder, cache, embed=False, workers=1)
    assert again.indexed == 0 and {sk["doc"] for sk in again.skipped} == {"bomb.pdf"}


def test_a_form_xobject_drawn_many_times_counts_once_per_use(tmp_path):
    """A 1 MB Form XObject drawn 200 times (4 KB on disk) is 200 MB for MuPDF to
    interpret: skipped by the page cap (it was counted once, 1 MB, and extracted for
    minutes); the same form drawn 3 times is indexed."""
    from pdftui.extract import extract_document

    bomb = extract_document(builders.build_xobject_bomb(tmp_path / "forms.pdf",
                                                        1 * MIB, 200))
    assert bomb.skip_reason is not None and "page 1 content over the 16 MiB page cap" \
        in bomb.skip_reason
    fine = extract_document(builders.build_xobject_bomb(tmp_path / "three.pdf", 1 * MIB, 3))
    assert fine.skip_reason is None and "formcoverword" in fine.pages[0].text


def test_an_lzw_bomb_is_counted_without_being_decoded(tmp_path):
    """A content stream of LZW data decoding to 1 GiB (0.8 MB on disk), extracted in a
    process limited to 1.5 GiB of address space: skipped by the page cap, its size counted
    from the codes (MuPDF decoded it whole: the worker ran out of memory instead)."""
    import json

    path = builders.build_lzw_bomb(tmp_path / "lzw.pdf", 1 << 30)
    code = (
        "import json, resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))\n"
        "from pdftui.extract import extract_document\n"
        "ex = extract_document(sys.argv[1])\n"
        "print(json.dumps(ex.skip_reason))\n")
    r = subprocess.run([sys.executable, "-c", code, os.fspath(path)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    reason = json.loads(r.stdout.strip().splitlines()[-1])
    assert reason == "too large when inflated (page 1 content over the 16 MiB page cap)"


def test_lzw_size_counts_what_mupdf_decodes(tmp_path):
    """The LZW length count equals MuPDF's decoded length (a 3 MB run of spaces)."""
    import pymupdf

    from pdftui.extraction_budget import lzw_size

    doc = pymupdf.open(builders.build_lzw_bomb(tmp_path / "small.pdf", 3 * MIB))
    xref = doc[0].get_contents()[1]
    assert lzw_size(doc.xref_stream_raw(xref), 1 << 30) == len(doc.xref_stream(xref)) > 3e6


def _start_index(folder: Path, cache: Path, err) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "pdftui.cli", "index", "--no-embed", "--cache-dir",
           os.fspath(cache), os.fspath(folder)]
    # SIGINT's default disposition: a process started in the background (CI's run under
    # nohup ... &) hands its children SIGINT ignored, and Python then installs no
    # KeyboardInterrupt handler, so the index ran on and exited 0 (or outlasted the wait)
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _workers(pid: int) -> list[psutil.Process]:
    """The extraction worker processes under ``pid`` (spawned by multiprocessing)."""
    try:
        kids = psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    out = []
    for k in kids:
        try:
            if "spawn_main" in " ".join(k.cmdline()):
                out.append(k)
        except psutil.Error:
            pass
    return out


def _wait_for(cond, limit_s: float = 120.0):
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError("condition not reached")


def _cpu(p: psutil.Process) -> float:
    """User CPU seconds of ``p`` (0 once it is gone)."""
    try:
        return p.cpu_times().user
    except psutil.Error:
        return 0.0


def _alive(procs: list[psutil.Process]) -> list[psutil.Process]:
    out = []
    for p in procs:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


def _quit_while_extracting(tmp_path: Path, sig: int) -> tuple[int, str, list]:
    """Index a folder holding a slow file (16 pages of 12 MB of text operators each, under
    the page and document caps: about a minute of extraction, so the signal always comes
    while a worker extracts it), send ``sig`` once a worker runs, and return (exit code,
    stderr, workers left)."""
    folder = _folder(tmp_path, 12 * MIB, pages=16)
    cache = tmp_path / "cache"
    err_path = tmp_path / "stderr.txt"
    with open(err_path, "wb") as err:
        proc = _start_index(folder, cache, err)
        try:
            seen: dict[int, psutil.Process] = {}

            def extracting() -> bool:   # workers listed afresh: one may start after another
                seen.update((w.pid, w) for w in _workers(proc.pid))
                return any(_cpu(w) > 0.5 for w in _alive(list(seen.values())))
            _wait_for(extracting)
            workers = list(seen.values())
            proc.send_signal(sig)
            code = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    left = []
    if _alive(workers):   # the parent-watch thread may take a moment: wait, then judge
        try:
            psutil.wait_procs(_alive(workers), timeout=5)
        except psutil.Error:
            pass
        left = _alive(workers)
    return code, err_path.read_text(errors="replace"), left


def test_sigterm_ends_index_and_its_workers(tmp_path):
    """SIGTERM to ``pdftui index`` while a worker extracts a slow file ends the command
    and its workers (before, the worker ran on to the document's time limit)."""
    code, err, left = _quit_while_extracting(tmp_path, signal.SIGTERM)
    assert code == 143, err
    assert left == []


def test_ctrl_c_prints_no_worker_traceback_and_the_index_resumes(tmp_path):
    """SIGINT (Ctrl-C) ends the index with one line: no worker's KeyboardInterrupt
    traceback, no leaked semaphore warning; the next run completes."""
    code, err, left = _quit_while_extracting(tmp_path, signal.SIGINT)
    assert code == 130, err
    assert "Traceback" not in err and "leaked semaphore" not in err, err
    assert left == []
    (tmp_path / "docs" / "bomb.pdf").unlink()
    s = index_folder(tmp_path / "docs", tmp_path / "cache", embed=False, workers=1)
    assert s.skipped == [] and s.indexed + s.unchanged == 1


def test_a_search_while_two_indexers_stored_nothing_gives_the_indexing_answer(
        small_folder, cache_dir, tmp_path):
    """One index run holds the folder's lease before extracting, a second has queued the
    documents (counted in the total) and neither has stored any: a search answers
    "nothing is indexed yet" (error kind "indexing"), not "searched 0 of 3"."""
    import json

    from pdftui.corpus import check_folder
    from pdftui.store.database import Cache

    from .harness import cli
    from .test_cli import _held_index_run

    other, go = _held_index_run(small_folder, cache_dir, tmp_path, "scan")
    try:
        cache = Cache(cache_dir)   # the second indexer's queue, as index_folder writes it
        try:
            cache.add_pending(check_folder(small_folder),
                              sorted(p.name for p in small_folder.glob("*.pdf")))
        finally:
            cache.close()
        r = cli("search", small_folder, "dark matter", "--cache-dir", cache_dir, "--json")
        assert r.rc == 1, r.out + r.err
        err = json.loads(r.out)["error"]
        assert err["kind"] == "indexing" and "nothing is indexed yet" in err["message"]
    finally:
        go.touch()
        other.wait(120)


def test_a_document_without_headings_is_searched_page_by_page_in_section_mode(tmp_path):
    """A PDF with no outline and no heading: section search finds its word (it found
    nothing while page search did), the hit names the page as its section, and the
    coverage names the document searched page by page (a fresh user could not tell which
    one the note meant)."""
    import json

    from .harness import cli

    folder = tmp_path / "docs"
    folder.mkdir()
    builders.make_pdf(folder / "plain.pdf", ["just some running words about a fernbrake",
                                             "and more words on the next page of prose"])
    cache, data = tmp_path / "cache", tmp_path / "data"
    r = cli("search", folder, "fernbrake", "--mode", "keyword", "--granularity", "section",
            "--cache-dir", cache, "--data-dir", data, "--json", timeout=120)
    assert r.rc == 0, r.err
    out = json.loads(r.out)
    assert [(h["doc"], h["section"], h["page"]) for h in out["hits"]] == \
        [("plain.pdf", "page 1", 1)]
    assert "1 document without headings, searched page by page: plain.pdf" in \
        out["coverage"]["note"]
    r = cli("read", folder, "plain.pdf", "--sections", "--cache-dir", cache, "--data-dir",
            data, "--json", timeout=60)
    assert [s["title"] for s in json.loads(r.out)] == ["page 1", "page 2"]
