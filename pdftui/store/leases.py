"""Leases: who is embedding for a model right now (:mod:`pdftui.lease` keeps the rules;
this is their table).

:class:`LeaseStore` is a part of :class:`pdftui.store.database.Cache`. The ``leases`` table
is created on first use too (:data:`pdftui.store.schema.LEASES`), so a cache made before it
existed needs no schema bump.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import ContextManager

from .schema import LEASES


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
    """The ``leases`` table (a part of :class:`pdftui.store.database.Cache`)."""

    db: sqlite3.Connection

    def write(self) -> ContextManager[sqlite3.Connection]:
        """A write transaction: :meth:`pdftui.store.database.Cache.write` (the class this
        is a part of)."""
        raise NotImplementedError

    def take_lease(self, mine: LeaseRow, is_free: Callable[[LeaseRow], bool]) -> LeaseRow | None:
        """Take the lease ``mine.name`` for ``mine`` unless another holder has it and
        ``is_free(row)`` says it is still live. Returns None when the lease is ours now,
        else the live holder's row. One ``BEGIN IMMEDIATE``, so two takers never both win."""
        with self.write() as db:
            db.execute(LEASES)
            row = self._lease(mine.name)
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
        with self.write() as db:
            cur = db.execute("UPDATE leases SET heartbeat=?, units_done=?, units_total=?"
                             " WHERE name=? AND holder=?",
                             (now, units_done, units_total, name, holder))
            return cur.rowcount == 1

    def release_lease(self, name: str, holder: str) -> None:
        """Give the lease up (only if ``holder`` holds it)."""
        with self.write() as db:
            db.execute(LEASES)
            db.execute("DELETE FROM leases WHERE name=? AND holder=?", (name, holder))

    def lease(self, name: str) -> LeaseRow | None:
        """The lease ``name`` as stored, or None (no holder, or a cache without leases)."""
        try:
            return self._lease(name)
        except sqlite3.OperationalError:   # no leases table yet
            return None

    def _lease(self, name: str) -> LeaseRow | None:
        row = self.db.execute("SELECT name, holder, pid, host, heartbeat, units_done,"
                              " units_total FROM leases WHERE name=?", (name,)).fetchone()
        return LeaseRow(*row) if row else None

