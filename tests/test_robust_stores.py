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
