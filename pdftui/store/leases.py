"""Leases: who is indexing a folder or embedding for a model right now (:mod:`pdftui.lease`
keeps the rules; this is their table).

:class:`LeaseStore` is a part of :class:`pdftui.store.database.Cache`. Its ``leases``
table lives in a file of its own beside the index, ``leases.sqlite3`` (:data:`LEASES_DB`):
taking, renewing and giving up a lease commits nothing to the index itself, so a run that
finds nothing to do leaves the index's ``PRAGMA data_version`` as it was and a warm
reader (the search service, the TUI) keeps what it has loaded. Leases are ephemeral: a
damaged leases file is replaced, a location that cannot take it means no lease (a lease
is informational: nothing stops for want of one).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .integrity import is_damage
from .schema import LEASES
from .transactions import begin_immediate

#: The leases file's name, in the cache folder.
LEASES_DB = "leases.sqlite3"
#: Milliseconds a lease write waits for another writer of the leases file.
LEASES_BUSY_MS = 10_000


@dataclass(frozen=True)
class LeaseRow:
    """One lease: who holds ``name`` (``holder`` token, ``pid`` on ``host``), its last
    heartbeat (seconds since the epoch) and the progress it published (units)."""

    name: str
    holder: str
    pid: int
    host: str
    heartbeat: float
    units_done: int
    units_total: int


class LeaseStore:
    """The ``leases`` table in :data:`LEASES_DB` (a part of
    :class:`pdftui.store.database.Cache`, whose ``dir`` it lives in)."""

    dir: Path
    _lease_conn: sqlite3.Connection | None = None

    def _leases_db(self, create: bool) -> sqlite3.Connection | None:
        """The leases file's connection, opened (and the file made, when ``create``) on
        first use; None when it does not exist and ``create`` is False. Raises
        ``sqlite3.Error`` / ``OSError`` when it cannot be opened."""
        if self._lease_conn is not None:
            return self._lease_conn
        path = Path(self.dir) / LEASES_DB
        if not create and not path.exists():
            return None
        conn = sqlite3.connect(path, timeout=LEASES_BUSY_MS / 1000, isolation_level=None,
                               check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout={LEASES_BUSY_MS}")
            conn.execute(LEASES)
        except sqlite3.Error:
            conn.close()
            raise
        self._lease_conn = conn
        return conn

    @contextlib.contextmanager
    def _lease_write(self) -> Iterator[sqlite3.Connection]:
        """A ``BEGIN IMMEDIATE`` transaction on the leases file; a damaged file is
        replaced by a new one first (its leases were ephemeral)."""
        try:
            db = self._leases_db(create=True)
            begin_immediate(db, LEASES_BUSY_MS)
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            self._replace_leases()
            db = self._leases_db(create=True)
            begin_immediate(db, LEASES_BUSY_MS)
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise

    def _replace_leases(self) -> None:
        """Drop a damaged leases file (and its journal) so the next use makes a new one."""
        self.close_leases()
        for suffix in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(Path(self.dir) / f"{LEASES_DB}{suffix}")

    def close_leases(self) -> None:
        """Close the leases file's connection (idempotent)."""
        conn, self._lease_conn = self._lease_conn, None
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()

    def take_lease(self, mine: LeaseRow, is_free: Callable[[LeaseRow], bool]) -> LeaseRow | None:
        """Take the lease ``mine.name`` for ``mine`` unless another holder has it and
        ``is_free(row)`` says it is still live. Returns None when the lease is ours now,
        else the live holder's row. One ``BEGIN IMMEDIATE``, so two takers never both win."""
        with self._lease_write() as db:
            row = self._lease(db, mine.name)
            if row is not None and row.holder != mine.holder and not is_free(row):
                return row
            db.execute("INSERT OR REPLACE INTO leases(name, holder, pid, host, heartbeat,"
                       " units_done, units_total) VALUES(?,?,?,?,?,?,?)",
                       (mine.name, mine.holder, mine.pid, mine.host, mine.heartbeat,
                        mine.units_done, mine.units_total))
            return None

    def renew_lease(self, name: str, holder: str, now: float, units_done: int,
                    units_total: int) -> bool:
        """Heartbeat: stamp ``now`` and the progress on the lease if ``holder`` still holds
        it; False when it was taken over (or released)."""
        with self._lease_write() as db:
            cur = db.execute("UPDATE leases SET heartbeat=?, units_done=?, units_total=?"
                             " WHERE name=? AND holder=?",
                             (now, units_done, units_total, name, holder))
            return cur.rowcount == 1

    def release_lease(self, name: str, holder: str) -> None:
        """Give the lease up (only if ``holder`` holds it)."""
        with self._lease_write() as db:
            db.execute("DELETE FROM leases WHERE name=? AND holder=?", (name, holder))

    def lease(self, name: str) -> LeaseRow | None:
        """The lease ``name`` as stored, or None (no holder, no leases file, or one that
        cannot be read)."""
        try:
            db = self._leases_db(create=False)
            return self._lease(db, name) if db is not None else None
        except (sqlite3.Error, OSError):
            return None

    @staticmethod
    def _lease(db: sqlite3.Connection, name: str) -> LeaseRow | None:
        row = db.execute("SELECT name, holder, pid, host, heartbeat, units_done,"
                         " units_total FROM leases WHERE name=?", (name,)).fetchone()
        return LeaseRow(*row) if row else None
