"""Robustness, third pass (stores and names): damaged caches and user-data files, full
disks, file names that collide once decoded, and names pdftui shows taken back.

Real PDFs built with PyMuPDF (tests/builders.py), the real CLI in subprocesses and real
SQLite files; damage is real bytes written into copies, full disks are SQLite's
``max_page_count`` or ``RLIMIT_FSIZE`` in a subprocess.
"""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from pdftui.corpus import safe_name

from . import builders
from .harness import cli


def _docs(folder, cache, data) -> dict[str, dict]:
    r = cli("docs", folder, "--cache-dir", cache, "--data-dir", data, "--json", timeout=90)
    assert r.rc == 0, r.err
    return {d["doc"]: d for d in json.loads(r.out)["documents"]}


def _hit_docs(folder, cache, data, word) -> set[str]:
    r = cli("search", folder, word, "--mode", "keyword", "--cache-dir", cache,
            "--data-dir", data, "--json", timeout=90)
    assert r.rc == 0, r.err
    return {h["doc"] for h in json.loads(r.out)["hits"]}


# --------------------------------------------------------------------------- names


def test_safe_name_keeps_distinct_names_distinct():
    undecodable = os.fsdecode(b"caf\xe9.pdf")
    names = [undecodable, "caf\\xe9.pdf", "caf\\\\xe9.pdf", "a\\b.pdf", "bell\x07.pdf",
             "bell\\x07.pdf", "tab\t.pdf", "rtl\u202e.pdf", "plain.pdf", "caf\u00e9.pdf"]
    shown = [safe_name(n) for n in names]
    assert len(set(shown)) == len(names), shown
    assert safe_name(undecodable) == "caf\\xe9.pdf"
    assert safe_name("plain.pdf") == "plain.pdf" and safe_name("caf\u00e9.pdf") == "caf\u00e9.pdf"
    from pdftui.text import clean_text
    assert all(clean_text(s) == s for s in shown)   # shown exactly as stored


def test_undecodable_name_and_its_escaped_form_are_two_documents(tmp_path):
    folder, cache, data = builders.build_colliding_names(tmp_path)
    for run in range(2):
        r = cli("index", folder, "--cache-dir", cache, "--no-embed", "--json", timeout=90)
        assert r.rc == 0, r.err
        s = json.loads(r.out)
        assert s["documents"] == 3
        assert s["indexed"] == (3 if run == 0 else 0), s   # nothing re-extracted
        docs = _docs(folder, cache, data)
        assert len(docs) == 3, list(docs)
        assert _hit_docs(folder, cache, data, "undecodablebyte") == {"caf\\xe9.pdf"}
        assert _hit_docs(folder, cache, data, "literalescape") == {"caf\\\\xe9.pdf"}
        assert _hit_docs(folder, cache, data, "bellcontrol") == {"bell\\x07.pdf"}


def test_every_shown_name_is_taken_back_by_read_and_mark(tmp_path):
    folder, cache, data = builders.build_colliding_names(tmp_path)
    for doc in _docs(folder, cache, data):
        r = cli("read", folder, doc, "--cache-dir", cache, timeout=90)
        assert r.rc == 0, (doc, r.err)
        r = cli("mark", folder, doc, "keep", "--cache-dir", cache, "--data-dir", data,
                timeout=90)
        assert r.rc == 0, (doc, r.err)
        assert doc in r.out
    assert {d: v["mark"] for d, v in _docs(folder, cache, data).items()} == {
        "caf\\xe9.pdf": "keep", "caf\\\\xe9.pdf": "keep", "bell\\x07.pdf": "keep"}
    # the real byte name, as a shell passes it, names the same document
    real = os.path.join(os.fsencode(folder), b"caf\xe9.pdf")
    r = cli("read", folder, os.fsdecode(real), "--cache-dir", cache, timeout=90)
    assert r.rc == 0 and "undecodablebyte" in r.out, r.err


# --------------------------------------------------------------------------- damaged stores


def _two_docs(tmp_path):
    folder = tmp_path / "f"
    folder.mkdir()
    builders.make_pdf(folder / "one.pdf", ["alphaword on the first page", "more alphaword"])
    builders.make_pdf(folder / "two.pdf", ["betaword on the first page"])
    cache, data = tmp_path / "cache", tmp_path / "data"
    r = cli("index", folder, "--cache-dir", cache, "--no-embed", timeout=90)
    assert r.rc == 0, r.err
    return folder, cache, data


@pytest.mark.parametrize("how", ["random", "truncate", "replace"])
def test_index_moves_a_damaged_cache_aside_and_rebuilds_it(tmp_path, how):
    folder, cache, data = _two_docs(tmp_path)
    db = cache / "index.sqlite3"
    builders.damage_file(db, how)
    damaged = db.read_bytes()
    r = cli("index", folder, "--cache-dir", cache, "--no-embed", "--json", timeout=90)
    assert r.rc == 0, r.err
    assert json.loads(r.out)["indexed"] == 2
    lines = [ln for ln in r.err.splitlines() if "damaged" in ln]
    assert len(lines) == 1 and "moved it to index.sqlite3.damaged-" in lines[0], r.err
    kept = [p for p in cache.iterdir() if p.name.startswith("index.sqlite3.damaged-")
            and not p.name.endswith(("-wal", "-shm"))]
    assert len(kept) == 1 and kept[0].read_bytes() == damaged   # moved, never deleted
    assert _hit_docs(folder, cache, data, "alphaword") == {"one.pdf"}
    assert _hit_docs(folder, cache, data, "betaword") == {"two.pdf"}
    r = cli("index", folder, "--cache-dir", cache, "--no-embed", "--json", timeout=90)
    assert r.rc == 0 and json.loads(r.out)["unchanged"] == 2 and "damaged" not in r.err


def test_user_data_commands_work_without_a_usable_cache(tmp_path):
    folder, cache, data = _two_docs(tmp_path)
    r = cli("mark", folder, "one.pdf", "keep", "--note", "read first", "--cache-dir", cache,
            "--data-dir", data, timeout=90)
    assert r.rc == 0, r.err
    builders.damage_file(cache / "index.sqlite3", "truncate")
    docs = _docs(folder, cache, data)
    assert {d: v["mark"] for d, v in docs.items()} == {"one.pdf": "keep", "two.pdf": "none"}
    assert docs["one.pdf"]["note"] == "read first"
    r = cli("mark", folder, "two.pdf", "skip", "--cache-dir", cache, "--data-dir", data,
            timeout=90)
    assert r.rc == 0 and "two.pdf: skip" in r.out, r.err
    assert f"pdftui index {folder}" in r.err   # says what to run
    r = cli("export", folder, "--format", "json", "--cache-dir", cache, "--data-dir", data,
            timeout=90)
    assert r.rc == 0, r.err
    assert "one.pdf" in r.out and "read first" in r.out
    r = cli("clips", folder, "one.pdf", "--cache-dir", cache, "--data-dir", data, timeout=90)
    assert r.rc == 0 and "no clips" in r.out, r.err
    # the marks made without the index are found once it is rebuilt
    assert cli("index", folder, "--cache-dir", cache, "--no-embed", timeout=90).rc == 0
    assert {d: v["mark"] for d, v in _docs(folder, cache, data).items()} == {
        "one.pdf": "keep", "two.pdf": "skip"}


def test_a_damaged_user_data_file_is_named_as_such_and_left_alone(tmp_path):
    folder, cache, data = _two_docs(tmp_path)
    builders.user_data_with_marks(data, folder, ["one.pdf"])
    path = data / "triage.sqlite3"
    builders.damage_file(path, "pages")
    before = path.read_bytes()
    for cmd in (["docs", folder], ["export", folder],
                ["mark", folder, "two.pdf", "keep"]):
        r = cli(*cmd, "--cache-dir", cache, "--data-dir", data, timeout=90)
        assert r.rc == 1, (cmd, r.err)
        assert "user data file" in r.err and "cannot use the cache" not in r.err, r.err
    assert path.read_bytes() == before
    assert {p.name for p in data.iterdir()} <= {"triage.sqlite3", "triage.sqlite3-wal",
                                                 "triage.sqlite3-shm"}
    assert _hit_docs(folder, cache, data, "alphaword") == {"one.pdf"}   # search needs none


# --------------------------------------------------------------------------- full disks


def _file_size_limit(limit: int):
    """A preexec_fn: the child's files cannot grow past ``limit`` bytes (EFBIG)."""
    import resource

    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_mark_that_fails_on_a_full_disk_changes_nothing(tmp_path):
    """RLIMIT_FSIZE in the subprocess: the user data file and its log cannot grow past
    60 KB; the note does not fit, so neither the note nor the mark is applied."""
    folder, cache, data = _two_docs(tmp_path)
    assert cli("mark", folder, "one.pdf", "skip", "--cache-dir", cache, "--data-dir", data,
               timeout=90).rc == 0
    r = cli("mark", folder, "one.pdf", "keep", "--note", "n" * 100_000, "--cache-dir", cache,
            "--data-dir", data, timeout=90, preexec_fn=_file_size_limit(60_000))
    assert r.rc == 1, r.err
    assert "limit" in r.err or "disk is full" in r.err, r.err
    assert "nothing was changed" in r.err
    db = sqlite3.connect(data / "triage.sqlite3")
    assert db.execute("SELECT mark, note FROM records").fetchall() == [("skip", "")]


def test_reading_user_data_needs_no_free_space(tmp_path):
    """With no room to create even the 32 KB shared-memory file, docs and export read the
    marks (the user data opened read-only, no side files made)."""
    folder, cache, data = _two_docs(tmp_path)
    assert cli("mark", folder, "one.pdf", "keep", "--cache-dir", cache, "--data-dir", data,
               timeout=90).rc == 0
    r = cli("docs", folder, "--json", "--cache-dir", cache, "--data-dir", data, timeout=90,
            preexec_fn=_file_size_limit(10_000))
    assert r.rc == 0, r.err
    assert {d["doc"]: d["mark"] for d in json.loads(r.out)["documents"]}["one.pdf"] == "keep"
    r = cli("export", folder, "--format", "json", "--cache-dir", cache, "--data-dir", data,
            timeout=90, preexec_fn=_file_size_limit(10_000))
    assert r.rc == 0 and "one.pdf" in r.out, r.err
    assert sorted(p.name for p in data.iterdir()) == ["triage.sqlite3"]


def test_the_int8_model_copy_on_a_full_disk_says_so(tmp_path):
    """The int8 build writes its fp32 intermediates past a 10 MB file size limit: the
    error says so in words (it was ONNX Runtime's INVALID_PROTOBUF) and no model.onnx is
    left under the final name."""
    import subprocess
    import sys

    code = ("import pathlib, sys\nfrom pdftui.embed.model import int8_model\n"
            "try:\n    int8_model(pathlib.Path(sys.argv[1]))\n"
            "except Exception as exc:\n    print(exc)\n")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "c")], capture_output=True,
                       text=True, timeout=300, preexec_fn=_file_size_limit(10_000_000),
                       cwd=builders.REPO)
    assert "INVALID_PROTOBUF" not in r.stdout
    assert "file size limit" in r.stdout or "disk is full" in r.stdout, r.stdout + r.stderr
    assert not (tmp_path / "c" / "models" / "all-MiniLM-L6-v2-int8" / "model.onnx").exists()


def test_a_reading_process_checks_its_cache_once_and_index_always(tmp_path):
    """A long-lived reading process (the search service, the TUI) keeps the write-ahead log
    non-empty with its own connection, so "unclean" held on its every command and each
    warm search paid a quick_check (0.38 s of 0.70 s on the corpus). A file found sound is
    not checked again by a reading run of the same process; ``index`` always checks, and
    another file (a cache moved aside and rebuilt) is checked again."""
    from pdftui.errors import CacheDamaged
    from pdftui.store.integrity import check_cache

    folder, cache, _data = _two_docs(tmp_path)
    db = cache / "index.sqlite3"
    keep = sqlite3.connect(db)            # an open writer: the log stays non-empty
    keep.execute("CREATE TABLE IF NOT EXISTS probe (x)")
    keep.execute("INSERT INTO probe VALUES (1)")
    keep.commit()
    assert os.path.getsize(f"{db}-wal") > 0
    assert check_cache(cache, db.name, full=False, rebuild=False) is None   # checked: sound
    builders.damage_file(db, "random")
    assert check_cache(cache, db.name, full=False, rebuild=False) is None   # not again
    with pytest.raises(CacheDamaged):
        check_cache(cache, db.name, full=True, rebuild=False)               # index: always
    keep.close()
    fresh = tmp_path / "fresh.sqlite3"
    fresh.write_bytes(db.read_bytes())
    os.replace(fresh, db)                                                   # another file
    open(f"{db}-wal", "ab").write(b"x" * 10)
    with pytest.raises(CacheDamaged):
        check_cache(cache, db.name, full=False, rebuild=False)
