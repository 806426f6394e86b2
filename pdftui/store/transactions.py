"""Write transactions shared by the index cache and the user-data file."""

from __future__ import annotations

import sqlite3
import time


def begin_immediate(db: sqlite3.Connection, timeout_ms: int) -> None:
    """``BEGIN IMMEDIATE``, retrying every 0.05 s past the rare early SQLITE_BUSY until
    ``timeout_ms`` milliseconds have passed. Raises the last ``sqlite3.OperationalError``
    when the database stays locked, and any other error at once."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        try:
            db.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
