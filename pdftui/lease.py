"""One embedder per cache: a lease row in the cache, kept alive by a heartbeat.

The process that embeds for a model holds the lease ``embed:<model id>``; a second process
(the TUI while ``pdftui index`` runs, or the other way round) that finds it held *follows*:
it shows the holder's published progress instead of embedding the same units, and takes
the lease over when the holder finishes, is killed (its pid is gone, on this host) or stops
beating (no heartbeat for :data:`LEASE_TTL_S`: suspended with Ctrl-Z, another host, a hung
process). The holder checks the lease before committing each batch, so after a takeover
it stops and follows in turn: each unit is embedded once.

An index run of a folder also holds ``index:<folder>`` (:func:`index_lease_name`) while it
runs, publishing (documents extracted, documents to extract); nobody waits for that one, it
only lets a search say "an index is in progress" (:func:`live_holder`).

The lease's SQL lives in the store (:meth:`pdftui.store.leases.LeaseStore.take_lease` and
friends); this module holds the policy: who is live, the heartbeat thread, the waiting.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable

from .store.database import Cache
from .store.leases import LeaseRow

#: Seconds between heartbeats of the holder.
HEARTBEAT_S = 2.0
#: Seconds without a heartbeat after which a holder is presumed gone.
LEASE_TTL_S = 20.0


def embed_lease_name(model_id: str) -> str:
    """The lease of embedding with ``model_id`` (one embedder per cache and model)."""
    return f"embed:{model_id}"


def index_lease_name(root: str) -> str:
    """The lease an index run of the folder ``root`` holds while it runs, publishing the
    documents it extracted and has to extract: a search can then say an index is in
    progress. Informational: a second run of the folder goes on without it."""
    return f"index:{root}"


def pid_alive(pid: int) -> bool:
    """True when process ``pid`` exists on this host (signal 0 probes without killing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def is_live(row: LeaseRow, now: float | None = None, ttl: float = LEASE_TTL_S) -> bool:
    """Whether the holder of ``row`` still counts: a heartbeat within ``ttl`` seconds and,
    on this host, a process that exists."""
    now = time.time() if now is None else now
    if now - row.heartbeat > ttl:
        return False
    if row.host == socket.gethostname() and not pid_alive(row.pid):
        return False
    return True


def live_holder(cache_dir, name: str) -> LeaseRow | None:
    """The lease ``name`` of the cache at ``cache_dir`` when a live process holds it
    (:func:`is_live`): e.g. ``pdftui index`` embedding while this process searches. None
    when nobody does, when the holder is gone, or when the cache cannot be read."""
    from .errors import CacheError

    try:
        cache = Cache(cache_dir, read_only_ok=True)
        try:
            row = cache.lease(name)
        finally:
            cache.close()
    except (CacheError, OSError, sqlite3.Error):
        return None
    return row if row is not None and is_live(row) else None


class Lease:
    """The lease ``name`` in the cache at ``cache_dir``, seen from this process.

    ``take()`` returns None when the lease is ours (then a daemon thread beats every
    :data:`HEARTBEAT_S` seconds, publishing ``progress()`` = (units done, units total)),
    else the live holder's :class:`~pdftui.store.leases.LeaseRow`. ``held`` turns False when a
    heartbeat finds the lease taken over. ``release()`` gives it up (idempotent). Each
    thread that calls these uses its own connection (SQLite connections are per thread).
    """

    def __init__(self, cache_dir, name: str, progress: Callable[[], tuple[int, int]] =
                 lambda: (0, 0), ttl: float = LEASE_TTL_S) -> None:
        self.cache_dir = cache_dir
        self.name = name
        self.progress = progress
        self.ttl = ttl
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.held = False
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    def _row(self) -> LeaseRow:
        done, total = self.progress()
        return LeaseRow(self.name, self.holder, os.getpid(), socket.gethostname(),
                        time.time(), done, total)

    def take(self, cache: Cache) -> LeaseRow | None:
        """Take the lease if it is free (or its holder is gone); see the class doc."""
        other = cache.take_lease(self._row(), lambda row: not is_live(row, ttl=self.ttl))
        if other is None and not self.held:
            self.held = True
            self._stop.clear()
            self._beat = threading.Thread(target=self._heartbeat, name="pdftui-lease",
                                          daemon=True)
            self._beat.start()
        return other

    def still_held(self, cache: Cache) -> bool:
        """True when the stored lease is still ours (checked before each commit)."""
        row = cache.lease(self.name)
        self.held = self.held and row is not None and row.holder == self.holder
        return self.held

    def current(self, cache: Cache) -> LeaseRow | None:
        """The stored lease (anyone's), or None."""
        return cache.lease(self.name)

    def _heartbeat(self) -> None:
        cache = Cache(self.cache_dir)
        try:
            while not self._stop.wait(HEARTBEAT_S):
                done, total = self.progress()
                if not cache.renew_lease(self.name, self.holder, time.time(), done, total):
                    self.held = False
                    return
        except Exception:  # noqa: BLE001 - a lost heartbeat only lets another take over
            return
        finally:
            cache.close()

    def release(self, cache: Cache) -> None:
        """Stop the heartbeat and delete the lease if it is still ours."""
        self._stop.set()
        if self._beat is not None:
            self._beat.join(HEARTBEAT_S + 1)
            self._beat = None
        if self.held:
            self.held = False
            cache.release_lease(self.name, self.holder)
