"""The user-data store: marks, notes and clips found by content hash and by path, across
rename, edit, cache deletion and two processes writing at once; sessions and history; a
damaged data file reported and never overwritten."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pymupdf as fitz
import pytest

from pdftui.index import index_folder
from pdftui.library import Library
from pdftui.triage.store import (DB_NAME, Clip, DocKey, Mark, ReaderPosition, Session,
                                 TriageStore, TriageStoreError, default_data_dir)

from .conftest import REPO, SMALL_DOCS, copy_docs

A, B = SMALL_DOCS[0], SMALL_DOCS[2]


def _triage(folder, cache_dir, store) -> dict:
    """Index ``folder`` (text only) and look up every document's triage, as the TUI does."""
    index_folder(folder, cache_dir, embed=False)
    lib = Library(folder, cache_dir)
    try:
        docs = [(d.doc, d.sha256) for d in lib.documents()]
    finally:
        lib.close()
    assert all(sha for _, sha in docs)
    return store.lookup(folder, docs)


def _key(folder, doc) -> DocKey:
    return DocKey.of(folder, doc, hashlib.sha256((folder / doc).read_bytes()).hexdigest())


@pytest.fixture
def store(tmp_path):
    s = TriageStore(tmp_path / "data")
    yield s
    s.close()


def test_mark_note_clip_round_trip(store, tmp_path):
    key = DocKey.of(tmp_path, "a.pdf", "ab" * 32)
    assert store.get(key).empty
    store.set_mark(key, Mark.KEEP)
    store.set_note(key, "read §3 first")
    clip = store.add_clip(key, Clip("Attention is a function", 3, "iii", "3.2 Attention"))
    assert clip.id is not None and clip.created_at > 0 and clip.page_ref == "p. iii"
    t = store.get(key)
    assert (t.mark, t.note) == (Mark.KEEP, "read §3 first")
    assert [(c.text, c.page, c.page_label, c.section) for c in t.clips] == [
        ("Attention is a function", 3, "iii", "3.2 Attention")]
    # a mark does not touch the note; NONE clears the mark only
    store.set_mark(key, Mark.NONE)
    assert store.get(key).note == "read §3 first" and store.get(key).mark is Mark.NONE
    assert store.delete_clip(key, clip.id) and not store.get(key).clips
    with pytest.raises(ValueError):
        store.add_clip(key, Clip("x", 0))


def test_mark_parse():
    assert Mark.parse("to_read") is Mark.TO_READ and Mark.parse(" To Read ") is Mark.TO_READ
    assert Mark.parse("KEEP") is Mark.KEEP
    with pytest.raises(ValueError, match="one of: none, to-read, keep, skip"):
        Mark.parse("maybe")


def test_marks_survive_rename_edit_and_cache_deletion(tmp_path, store):
    folder = copy_docs(tmp_path / "papers", [A, B])
    cache = tmp_path / "cache"
    _triage(folder, cache, store)
    store.set_mark(_key(folder, A), Mark.KEEP)
    store.set_note(_key(folder, A), "the CMB paper")
    store.add_clip(_key(folder, A), Clip("ultralight bosons", 2, "2", "Introduction"))
    store.set_mark(_key(folder, B), Mark.SKIP)

    # rename + move into a subfolder: found by content hash
    (folder / "sub").mkdir()
    os.rename(folder / A, folder / "sub" / "renamed.pdf")
    got = _triage(folder, cache, store)
    assert got["sub/renamed.pdf"].mark is Mark.KEEP
    assert got["sub/renamed.pdf"].note == "the CMB paper"
    assert got["sub/renamed.pdf"].clips[0].text == "ultralight bosons"
    assert got[B].mark is Mark.SKIP

    # edit in place (new bytes, same path): found by path
    with fitz.open(folder / "sub" / "renamed.pdf") as doc:
        doc.set_metadata({"title": "edited"})
        doc.save(folder / "edited.tmp")
    os.replace(folder / "edited.tmp", folder / "sub" / "renamed.pdf")
    got = _triage(folder, cache, store)
    assert got["sub/renamed.pdf"].mark is Mark.KEEP and got["sub/renamed.pdf"].note

    # the lookup adopted the new hash, so a later rename of the edited file still finds it
    os.rename(folder / "sub" / "renamed.pdf", folder / "again.pdf")
    got = _triage(folder, cache, store)
    assert got["again.pdf"].mark is Mark.KEEP

    # the whole cache deleted: nothing lost (the data lives elsewhere)
    shutil.rmtree(cache)
    got = _triage(folder, cache, store)
    assert got["again.pdf"].mark is Mark.KEEP and got[B].mark is Mark.SKIP
    assert not (cache / DB_NAME).exists() and (store.path.parent != cache)


def test_swapped_files_keep_their_own_marks(tmp_path, store):
    folder = copy_docs(tmp_path / "papers", [A, B])
    cache = tmp_path / "cache"
    _triage(folder, cache, store)
    store.set_mark(_key(folder, A), Mark.KEEP)
    store.set_mark(_key(folder, B), Mark.SKIP)
    os.rename(folder / A, folder / "tmp.pdf")
    os.rename(folder / B, folder / A)
    os.rename(folder / "tmp.pdf", folder / B)
    got = _triage(folder, cache, store)
    # the bytes moved, so the marks follow them, not the names
    assert got[A].mark is Mark.SKIP and got[B].mark is Mark.KEEP


_WRITER = textwrap.dedent("""
    import sys
    from pdftui.triage.store import Clip, DocKey, Mark, TriageStore
    data, root, who = sys.argv[1], sys.argv[2], sys.argv[3]
    s = TriageStore(data)
    for i in range(40):
        own = DocKey.of(root, f"{who}-{i}.pdf", f"{who}{i:04d}".ljust(64, "0"))
        s.set_mark(own, Mark.KEEP if who == "a" else Mark.TO_READ)
        s.set_note(own, f"note {who} {i}")
        shared = DocKey.of(root, f"shared-{i}.pdf", f"s{i:04d}".ljust(64, "0"))
        if who == "a":
            s.set_mark(shared, Mark.KEEP)
        else:
            s.set_note(shared, f"shared note {i}")
        s.add_clip(shared, Clip(f"clip {who} {i}", i + 1))
    s.close()
""")


def test_two_processes_writing_at_once_lose_nothing(tmp_path):
    data, root = tmp_path / "data", tmp_path / "papers"
    root.mkdir()
    TriageStore(data).close()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(data), str(root), who],
                              env=env, stderr=subprocess.PIPE, text=True) for who in "ab"]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    with TriageStore(data) as s:
        for i in range(40):
            for who, mark in (("a", Mark.KEEP), ("b", Mark.TO_READ)):
                t = s.get(DocKey.of(root, f"{who}-{i}.pdf", f"{who}{i:04d}".ljust(64, "0")))
                assert (t.mark, t.note) == (mark, f"note {who} {i}")
            t = s.get(DocKey.of(root, f"shared-{i}.pdf", f"s{i:04d}".ljust(64, "0")))
            # one record per document: neither writer's field overwrote the other's
            assert (t.mark, t.note) == (Mark.KEEP, f"shared note {i}")
            assert sorted(c.text for c in t.clips) == [f"clip a {i}", f"clip b {i}"]
        assert len(s.marked()) == 120


def test_unreadable_data_file_is_reported_and_left_alone(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    junk = b"this is not a database, but it is the user's file\n" * 100
    (data / DB_NAME).write_bytes(junk)
    with pytest.raises(TriageStoreError) as err:
        TriageStore(data)
    msg = str(err.value)
    assert "\n" not in msg and str(data / DB_NAME) in msg and "left as it is" in msg
    assert (data / DB_NAME).read_bytes() == junk
    assert sorted(p.name for p in data.iterdir()) == [DB_NAME]


def test_foreign_or_newer_database_is_left_alone(tmp_path):
    import sqlite3

    for name, sql, needle in (("foreign", "CREATE TABLE t(x)", "not a pdftui"),
                              ("newer", "PRAGMA user_version=99", "newer pdftui")):
        data = tmp_path / name
        data.mkdir()
        con = sqlite3.connect(data / DB_NAME)
        con.execute(sql)
        con.commit()
        con.close()
        before = (data / DB_NAME).read_bytes()
        with pytest.raises(TriageStoreError, match=needle):
            TriageStore(data)
        assert (data / DB_NAME).read_bytes() == before


def test_session_and_history(store, tmp_path):
    root = tmp_path / "papers"
    root.mkdir()
    assert store.session(root) is None
    s = Session("why 64 MB chunks", "keyword", "section", ("a.pdf", "b.pdf"),
                ReaderPosition("a.pdf", 7, 42, "section", 12))
    store.save_session(root, s)
    assert store.session(root) == s
    assert store.session(str(root) + "/") == s       # the same folder, named differently
    store.save_session(root, Session(query="second"))
    assert store.session(root) == Session(query="second")
    for q in ("raft", "paxos", "  ", "raft"):
        store.add_history(root, q)
    assert store.history(root) == ["raft", "paxos"]
    assert store.history(tmp_path) == []


def test_data_dir_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("PDFTUI_DATA_DIR", str(tmp_path / "here"))
    assert default_data_dir() == tmp_path / "here"
    monkeypatch.delenv("PDFTUI_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir() == tmp_path / "xdg" / "pdftui"


def test_lookup_of_a_large_folder_matches_one_get_per_document(tmp_path, store):
    """lookup() reads the store once and queries only the documents it has a record of:
    for a folder of 3,000 names (a real one and made-up ones, marks found by hash, by path
    through a symlinked root, or not at all) it answers what get() answers for each."""
    folder = copy_docs(tmp_path / "papers", SMALL_DOCS[:1])
    real = sorted(p.name for p in folder.iterdir())[0]
    link = tmp_path / "link"
    link.symlink_to(folder)
    sha = hashlib.sha256((folder / real).read_bytes()).hexdigest()
    docs = [(real, sha)] + [(f"more/p{i:05d}.pdf", f"{i:064x}") for i in range(3000)]
    store.set_mark(DocKey.of(folder, "elsewhere.pdf", sha), Mark.KEEP)          # by hash
    store.set_mark(DocKey.of(folder, "more/p00007.pdf", ""), Mark.TO_READ)      # by path
    store.set_note(DocKey.of(folder, "more/p02999.pdf", f"{2999:064x}"), "read me")
    got = store.lookup(link, docs)
    assert len(got) == len(docs)
    assert got[real].mark == Mark.KEEP and got["more/p00007.pdf"].mark == Mark.TO_READ
    assert got["more/p02999.pdf"].note == "read me"
    for doc, s in docs[:50] + docs[-50:]:
        assert got[doc] == store.get(DocKey.of(folder, doc, s))


def test_marks_follow_a_file_moved_into_another_folder(tmp_path, store):
    """README ("Where data lives"): marks follow the file's content, not the folder: a
    file moved out of one folder into another keeps its mark, note and clips there."""
    folder = copy_docs(tmp_path / "papers", [A, B])
    cache = tmp_path / "cache"
    _triage(folder, cache, store)
    store.set_mark(_key(folder, A), Mark.KEEP)
    store.set_note(_key(folder, A), "the CMB paper")
    store.add_clip(_key(folder, A), Clip("ultralight bosons", 2, "2", "Introduction"))
    other = tmp_path / "elsewhere"
    other.mkdir()
    shutil.move(folder / A, other / "moved.pdf")
    got = _triage(other, cache, store)
    assert got["moved.pdf"].mark is Mark.KEEP and got["moved.pdf"].note == "the CMB paper"
    assert [c.text for c in got["moved.pdf"].clips] == ["ultralight bosons"]
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "Marks follow the file's content" in readme
