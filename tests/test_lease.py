"""One embedder per cache: the lease (pdftui/lease.py) and two real processes on one cache.

Runs on PDFs made by tests/pdfs.py with the shipped model (no ../shared needed)."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time

from pdftui.store.database import Cache
from pdftui.store.leases import LeaseRow
from pdftui.embed import resolve_model_name
from pdftui.index import index_folder
from pdftui.lease import Lease, embed_lease_name, is_live

from .conftest import REPO
from .pdfs import make_many


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_a_live_lease_is_refused_a_dead_or_silent_one_is_taken_over(tmp_path):
    cache = Cache(tmp_path / "c")
    try:
        a, b = Lease(cache.dir, "embed:m"), Lease(cache.dir, "embed:m")
        assert a.take(cache) is None and a.held
        other = b.take(cache)
        assert other is not None and other.holder == a.holder and not b.held
        a.release(cache)
        assert cache.lease("embed:m") is None
        assert b.take(cache) is None and b.held  # free once released
        b.release(cache)
        host = socket.gethostname()
        dead = LeaseRow("embed:m", "x", _dead_pid(), host, time.time(), 5, 9)
        assert not is_live(dead)                    # killed: taken over at once
        silent = LeaseRow("embed:m", "y", os.getpid(), host, time.time() - 60, 5, 9)
        assert not is_live(silent)                  # no heartbeat for a minute
        assert is_live(LeaseRow("embed:m", "z", os.getpid(), host, time.time(), 5, 9))
        cache.take_lease(dead, lambda row: True)
        c = Lease(cache.dir, "embed:m")
        assert c.take(cache) is None and cache.lease("embed:m").holder == c.holder
        # the old holder's heartbeat (or its check before a commit) finds it lost
        assert not cache.renew_lease("embed:m", "x", time.time(), 6, 9)
        c.release(cache)
    finally:
        cache.close()


def test_heartbeat_publishes_the_holders_progress(tmp_path, monkeypatch):
    import pdftui.lease as lease_mod

    monkeypatch.setattr(lease_mod, "HEARTBEAT_S", 0.05)
    cache = Cache(tmp_path / "c")
    try:
        done = [3]
        a = Lease(cache.dir, "embed:m", progress=lambda: (done[0], 40))
        assert a.take(cache) is None
        done[0] = 17
        end = time.monotonic() + 10
        while cache.lease("embed:m").units_done != 17 and time.monotonic() < end:
            time.sleep(0.05)
        row = cache.lease("embed:m")
        assert (row.units_done, row.units_total) == (17, 40)
        a.release(cache)
    finally:
        cache.close()


def _index_cmd(folder, cache) -> list[str]:
    return [sys.executable, "-m", "pdftui.cli", "index", str(folder), "--cache-dir", str(cache),
            "--json"]


def _wait_lease(cache_dir, min_done: int = 1, timeout: float = 120.0) -> LeaseRow:
    name = embed_lease_name(resolve_model_name(None))
    end = time.monotonic() + timeout
    cache = Cache(cache_dir)
    try:
        while time.monotonic() < end:
            row = cache.lease(name)
            if row is not None and row.units_done >= min_done:
                return row
            time.sleep(0.1)
    finally:
        cache.close()
    raise AssertionError("no process took the embedding lease")


def _stored_units(cache_dir) -> int:
    db = sqlite3.connect(cache_dir / "index.sqlite3")
    try:
        return db.execute("SELECT count(*) FROM units").fetchone()[0]
    finally:
        db.close()


def _extracted(tmp_path, n: int):
    """A folder of ``n`` made documents, extracted (not embedded) into a fresh cache."""
    folder = make_many(tmp_path / "many", n)
    cache = tmp_path / "cache"
    s = index_folder(folder, cache, embed=False)
    assert s.indexed == n
    return folder, cache


def test_two_processes_embed_each_unit_once(tmp_path):
    """A second `pdftui index` started while the first embeds follows it: the units the
    two runs embedded add up to the units stored, and the second says it followed."""
    folder, cache = _extracted(tmp_path, 36)   # ~600 units: the second starts in time
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    first = subprocess.Popen(_index_cmd(folder, cache), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        held = _wait_lease(cache)
        assert held.pid == first.pid
        second = subprocess.run(_index_cmd(folder, cache), capture_output=True, text=True,
                                env=env, timeout=900)
        out1, err1 = first.communicate(timeout=900)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0 and second.returncode == 0, (err1, second.stderr)
    s1, s2 = json.loads(out1), json.loads(second.stdout)
    assert s1["embedding_pending"] == 0 and s2["embedding_pending"] == 0
    stored = _stored_units(cache)
    assert stored > 100
    assert s1["units"] + s2["units"] == stored, (s1["units"], s2["units"], stored)
    assert any("followed the embedder of pid" in n["note"] for n in s2["notes"]), s2["notes"]


def test_a_killed_embedder_is_taken_over_at_once(tmp_path):
    """kill -9 of the holder: the next run takes the lease over without waiting for the
    heartbeat to expire and embeds only what the killed one had not committed."""
    folder, cache = _extracted(tmp_path, 20)   # ~340 units: the kill lands mid-way
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    first = subprocess.Popen(_index_cmd(folder, cache), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=env)
    try:
        _wait_lease(cache, min_done=16)
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
    kept = _stored_units(cache)
    s = index_folder(folder, cache)
    assert s.embedding_pending == 0
    assert s.units == _stored_units(cache) - kept   # only what the killed run left
    assert not any("followed" in n["note"] for n in s.notes)  # the dead holder is not waited for


def test_a_run_with_nothing_to_do_commits_nothing_to_the_index(tmp_path):
    """Every ``pdftui search`` brings the index up to date first; with nothing to do, its
    run's lease was still written to the index, so a warm reader (the search service)
    saw the index change and read its view and vectors again on every search (0.5 s of a
    warm section search on the corpus). The leases live in their own file: the index's
    ``data_version`` seen by another connection stays as it was, and the lease is still
    taken (another run sees the holder)."""
    folder = tmp_path / "f"
    make_many(folder, 2)
    cache = tmp_path / "c"
    index_folder(folder, cache, embed=False)
    watcher = sqlite3.connect(cache / "index.sqlite3")
    before = watcher.execute("PRAGMA data_version").fetchone()[0]
    index_folder(folder, cache, embed=False)
    assert watcher.execute("PRAGMA data_version").fetchone()[0] == before
    c = Cache(cache)
    try:
        lease = Lease(cache, "index:test")
        assert lease.take(c) is None and c.lease("index:test").holder == lease.holder
        assert watcher.execute("PRAGMA data_version").fetchone()[0] == before
        lease.release(c)
        assert c.lease("index:test") is None
    finally:
        c.close()
        watcher.close()


def test_a_damaged_leases_file_is_replaced(tmp_path):
    """Leases are ephemeral: random bytes in the leases file cost nothing but the file."""
    cache = tmp_path / "c"
    c = Cache(cache)
    try:
        lease = Lease(cache, "index:test")
        assert lease.take(c) is None
        c.close_leases()
        (cache / "leases.sqlite3").write_bytes(b"not a database at all " * 300)
        assert c.lease("index:test") is None
        assert Lease(cache, "index:other").take(c) is None
        assert c.lease("index:other") is not None
    finally:
        c.close()
