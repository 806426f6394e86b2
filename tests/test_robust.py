"""Robustness: hostile file trees, unusable cache locations, kill -9, concurrent use,
changes between CLI calls and untrusted text, on real PDFs and a real SQLite cache.

The builders and expectations are shared with ``bench/robust.py`` (which prints the same
checks as a table). Heavy cases are marked ``slow``: run them with ``pytest -m slow``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sqlite3
import stat
import sys
import threading
import time
from pathlib import Path

import pytest

from pdftui.cache import Cache, CacheError
from pdftui.index import index_folder

from .conftest import REPO

_spec = importlib.util.spec_from_file_location("pdftui_bench_robust", REPO / "bench" / "robust.py")
robust = importlib.util.module_from_spec(_spec)
sys.modules["pdftui_bench_robust"] = robust
_spec.loader.exec_module(robust)

cli = robust.cli


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
    robust.make_pdf(folder / "x.pdf", ["cache location word"])
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
    _one_line_error(cli("index", one_pdf, "--no-embed", "--cache-dir", cache), "cache")


def test_full_disk_is_one_line_exit_2(tmp_path):
    """RLIMIT_FSIZE stands in for a full disk: SQLite's write fails mid-index."""
    import resource

    folder = tmp_path / "many"
    robust.tiny_corpus(folder, 30, prefix="full", pages=5)

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))

    r = cli("index", folder, "--no-embed", "--cache-dir", tmp_path / "c", preexec_fn=small_files)
    _one_line_error(r, "cannot write the cache")


def _nobody_or_skip():
    if not robust.as_nobody():
        pytest.skip("needs root and an unprivileged user (nobody) to drop to")


def test_read_only_cache_locations_as_non_root(tmp_path, one_pdf):
    _nobody_or_skip()
    ro = tmp_path / "ro"
    ro.mkdir()
    os.chmod(ro, 0o555)
    rodb = tmp_path / "rodb"
    assert cli("index", one_pdf, "--no-embed", "--cache-dir", rodb).rc == 0
    os.chmod(rodb, 0o777)
    os.chmod(rodb / "index.sqlite3", 0o644)
    robust.open_up(tmp_path)
    env = {"HOME": str(tmp_path)}
    _one_line_error(cli("index", one_pdf, "--no-embed", "--cache-dir", ro, nobody=True, env=env),
                    "not writable")
    _one_line_error(cli("index", one_pdf, "--no-embed", "--cache-dir", ro / "sub", nobody=True,
                        env=env), "ermission denied")
    _one_line_error(cli("index", one_pdf, "--no-embed", "--cache-dir", rodb, nobody=True,
                        env=env), "read-only")
