"""The user-data file's SQL: marks, notes, clipped passages, sessions and query history
(:mod:`pdftui.triage.store` holds the rules: how a document's record is found, what a
session holds).

One SQLite file (``triage.sqlite3``); WAL journal, a 60 s busy timeout, every write one
short ``BEGIN IMMEDIATE`` transaction. The schema version is ``PRAGMA user_version``; a
file that cannot be read (damaged, not a database, made by a newer pdftui, unreadable)
raises :class:`TriageStoreError` with a one-line message and is never written, moved or
replaced. A record row is ``(id, sha256, root, doc)``; times are seconds since the epoch.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import TriageStoreError
from .transactions import begin_immediate

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 60_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records(
    id INTEGER PRIMARY KEY,
    sha256 TEXT NOT NULL DEFAULT '',
    root TEXT NOT NULL,
    doc TEXT NOT NULL,
    mark TEXT NOT NULL DEFAULT 'none',
    note TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS records_sha ON records(sha256);
CREATE INDEX IF NOT EXISTS records_path ON records(root, doc);
CREATE TABLE IF NOT EXISTS clips(
    id INTEGER PRIMARY KEY,
    record_id INTEGER NOT NULL,
    page INTEGER NOT NULL,
    page_label TEXT NOT NULL DEFAULT '',
    section TEXT NOT NULL DEFAULT '',
    text TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS clips_record ON clips(record_id);
CREATE TABLE IF NOT EXISTS sessions(
    root TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS history(
    id INTEGER PRIMARY KEY,
    root TEXT NOT NULL,
    query TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS history_root ON history(root, id);
"""


def storage_message(path: Path, exc: BaseException, verb: str = "write") -> str:
    """The user-data file's error in the user's words: damaged, the disk full (or the file
    size limit reached), read-only, else SQLite's words; always naming the file and
    saying it was left as it is."""
    from ..cache import unwritable_reason
    from .integrity import is_damage

    if is_damage(exc):
        return (f"the user data file {path} is damaged ({exc}); it was left as it is"
                " (marks, notes and clips cannot be read from it)")
    text = str(exc)
    if any(w in text for w in ("full", "disk I/O", "readonly", "read-only", "unable to open")) \
            or isinstance(exc, OSError):
        return (f"cannot {verb} the user data file {path}: {unwritable_reason(path.parent, exc)};"
                " nothing was changed")
    return f"cannot {verb} the user data file {path}: {exc}; nothing was changed"


class _Guard:
    """The file's re-entrant lock, turning any ``sqlite3.Error`` raised while it is held
    into a :class:`TriageStoreError` (:func:`storage_message`): a damaged or full
    user-data file is reported as such, never as a broken cache."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.RLock()

    def __enter__(self) -> "_Guard":
        self._lock.acquire()
        return self

    def __exit__(self, kind, exc, tb) -> None:
        self._lock.release()
        if isinstance(exc, sqlite3.Error):
            raise TriageStoreError(storage_message(self.path, exc, "read")) from exc


def _begin_immediate(db: sqlite3.Connection, path: Path) -> None:
    """BEGIN IMMEDIATE (:func:`.transactions.begin_immediate`); a failure is a
    :class:`TriageStoreError`."""
    try:
        begin_immediate(db, BUSY_TIMEOUT_MS)
    except sqlite3.Error as exc:
        raise TriageStoreError(storage_message(path, exc)) from exc


class UserDataFile:
    """One connection to the user-data file ``path`` in folder ``folder``, guarded by
    ``lock`` (re-entrant; an SQLite error under it becomes :class:`TriageStoreError`), so
    it may be shared by threads. Raises :class:`TriageStoreError` when the file cannot be
    read or the folder cannot be made.

    ``read_only``: for a command that only reads (``docs``, ``export``, a search's marks):
    the file is opened ``mode=ro`` (``immutable=1`` when its side files cannot be made,
    e.g. on a full disk, and no write-ahead log is pending), nothing is created, and a
    missing file reads as empty; writes raise :class:`TriageStoreError`."""

    def __init__(self, folder: Path, path: Path, read_only: bool = False):
        self.dir, self.path = folder, path
        self.lock = _Guard(path)
        self.read_only = read_only
        if read_only:
            self.db = self._connect_read_only()
            return
        try:
            if self.dir.exists() and not self.dir.is_dir():
                raise TriageStoreError(f"user data location {self.dir} is a file, not a folder")
            if not self.dir.is_dir():
                self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            if self.path.exists() and not os.access(self.path, os.R_OK):
                raise TriageStoreError(f"cannot read the user data file {self.path} "
                                       "(permission denied); it was left as it is")
            self.db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000,
                                      isolation_level=None, check_same_thread=False)
        except OSError as exc:
            raise TriageStoreError(f"cannot use the user data folder {self.dir}: "
                                   f"{exc.strerror or exc}") from exc
        except sqlite3.Error as exc:
            raise TriageStoreError(f"cannot open the user data file {self.path}: {exc}") from exc
        try:
            self._open()
        except BaseException:
            self.db.close()
            raise

    def _connect_read_only(self) -> sqlite3.Connection:
        """The read-only connection (see the class); an empty in-memory file when there is
        none on disk or it holds nothing yet."""
        from urllib.parse import quote

        if self.path.is_file() and not os.access(self.path, os.R_OK):
            raise TriageStoreError(f"cannot read the user data file {self.path} "
                                   "(permission denied); it was left as it is")
        if not self.path.is_file() or self.path.stat().st_size == 0:
            return self._empty()
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        pending = os.path.exists(f"{self.path}-wal") and os.path.getsize(f"{self.path}-wal")
        last: sqlite3.Error | None = None
        had = {side for side in ("-wal", "-shm") if os.path.exists(f"{self.path}{side}")}
        for extra in ("",) if pending else ("", "&immutable=1"):
            db = sqlite3.connect(uri + extra, uri=True, timeout=BUSY_TIMEOUT_MS / 1000,
                                 isolation_level=None, check_same_thread=False)
            try:
                self.db = db
                self._check_version()
                if db.execute("PRAGMA user_version").fetchone()[0] == 0:
                    db.close()
                    return self._empty()
                return db
            except TriageStoreError as exc:
                db.close()
                if not isinstance(exc.__cause__, sqlite3.OperationalError) \
                        or "malformed" in str(exc):
                    raise
                last = exc.__cause__
                self._remove_new_side_files(had)
            except BaseException:
                db.close()
                raise
        raise TriageStoreError(storage_message(self.path, last, "read"))

    def _remove_new_side_files(self, had: set[str]) -> None:
        """Remove the ``-wal`` / ``-shm`` a failed read-only open left (SQLite made them
        and could not size them: no room): an empty log, a shared-memory file short of
        its first 32 KB region (one in use is never shorter); never one that was there
        before."""
        for side, room in (("-wal", 0), ("-shm", 32 * 1024)):
            name = f"{self.path}{side}"
            try:
                if side not in had and os.path.getsize(name) <= max(0, room - 1):
                    os.unlink(name)
            except OSError:
                pass

    def _empty(self) -> sqlite3.Connection:
        """An in-memory user-data file with the schema (nothing on disk to read)."""
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        db.executescript(_SCHEMA)
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        return db

    def _check_version(self) -> int:
        """The file's schema version, once it is known to be ours and not newer; raises
        :class:`TriageStoreError` (the file left as it is) otherwise."""
        try:
            self.db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.Error as exc:
            from .integrity import is_damage

            if is_damage(exc):
                raise TriageStoreError(storage_message(self.path, exc, "read")) from exc
            raise TriageStoreError(f"cannot read the user data file {self.path} ({exc}); "
                                   "it was left as it is") from exc
        if version > SCHEMA_VERSION:
            raise TriageStoreError(f"the user data file {self.path} was written by a newer "
                                   f"pdftui (schema {version}); it was left as it is")
        if version == 0 and tables:
            raise TriageStoreError(f"{self.path} is not a pdftui user data file; "
                                   "it was left as it is")
        return version

    def _open(self) -> None:
        """Check the file is ours and readable before anything writes to it, then migrate."""
        version = self._check_version()
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            if version < SCHEMA_VERSION:
                with self.write() as db:
                    if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                        for stmt in (s.strip() for s in _SCHEMA.split(";\n")):
                            if stmt:
                                db.execute(stmt)
                        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.Error as exc:
            raise TriageStoreError(storage_message(self.path, exc, "use")) from exc

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self.lock:
            try:
                self.db.close()
            except sqlite3.Error:
                pass

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction under the lock; re-entrant; any SQLite error
        rolls it back whole and becomes :class:`TriageStoreError` (:func:`storage_message`:
        "the disk is full"...). A read-only file raises at once, changing nothing."""
        with self.lock:
            if self.read_only:
                raise TriageStoreError(f"the user data file {self.path} was opened for"
                                       " reading only")
            if self.db.in_transaction:
                yield self.db
                return
            _begin_immediate(self.db, self.path)
            try:
                yield self.db
                self.db.execute("COMMIT")
            except BaseException as exc:
                if self.db.in_transaction:
                    try:
                        self.db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                if isinstance(exc, sqlite3.Error):
                    raise TriageStoreError(storage_message(self.path, exc)) from exc
                raise

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: changes when another connection commits."""
        with self.lock:
            return self.db.execute("PRAGMA data_version").fetchone()[0]

    # -- records ---------------------------------------------------------------------------
    def records_by_hash(self, sha256: str, root: str, doc: str) -> Iterator[tuple]:
        """Record rows with this content hash: the one at ``(root, doc)`` first, then those
        with this ``doc``, then the most recently changed."""
        return self.db.execute(
            "SELECT id, sha256, root, doc FROM records WHERE sha256=? ORDER BY"
            " (root=? AND doc=?) DESC, (doc=?) DESC, updated_at DESC, id DESC",
            (sha256, root, doc, doc))

    def records_at(self, root: str, doc: str) -> Iterator[tuple]:
        """Record rows at this path, the most recently changed first."""
        return self.db.execute(
            "SELECT id, sha256, root, doc FROM records WHERE root=? AND doc=?"
            " ORDER BY updated_at DESC, id DESC", (root, doc))

    def record_keys(self) -> Iterator[tuple[str, str, str]]:
        """``(sha256, root, doc)`` of every record."""
        return self.db.execute("SELECT sha256, root, doc FROM records")

    def records(self, mark: str | None = None) -> list[tuple[int, str, str, str]]:
        """``(id, root, doc, sha256)`` of every record (``mark`` given: with that mark
        value), most recently changed first."""
        sql = "SELECT id, root, doc, sha256 FROM records"
        args: tuple = ()
        if mark is not None:
            sql, args = sql + " WHERE mark=?", (mark,)
        return self.db.execute(sql + " ORDER BY updated_at DESC, id DESC", args).fetchall()

    def insert_record(self, sha256: str, root: str, doc: str, now: float) -> int:
        """A new empty record (in a write transaction); returns its id."""
        return self.db.execute(
            "INSERT INTO records(sha256, root, doc, created_at, updated_at)"
            " VALUES(?,?,?,?,?)", (sha256, root, doc, now, now)).lastrowid

    def touch_record(self, record_id: int, sha256: str, root: str, doc: str,
                     now: float) -> None:
        """Set a record's hash, path and change time (in a write transaction)."""
        self.db.execute("UPDATE records SET sha256=?, root=?, doc=?, updated_at=? WHERE id=?",
                        (sha256, root, doc, now, record_id))

    def move_records(self, rows: list[tuple[str, str, str, int]]) -> None:
        """Set ``(sha256, root, doc)`` of each record ``id`` of ``rows`` (in a write
        transaction), leaving its change time."""
        self.db.executemany("UPDATE records SET sha256=?, root=?, doc=? WHERE id=?", rows)

    def record(self, record_id: int) -> tuple[str, str, float]:
        """``(mark value, note, updated_at)`` of a record."""
        return self.db.execute(
            "SELECT mark, note, updated_at FROM records WHERE id=?", (record_id,)).fetchone()

    def clips(self, record_id: int) -> list[tuple[int, int, str, str, str, float]]:
        """``(id, page, page label, section, text, created_at)`` of a record's clips,
        oldest first."""
        return self.db.execute(
            "SELECT id, page, page_label, section, text, created_at FROM clips"
            " WHERE record_id=? ORDER BY created_at, id", (record_id,)).fetchall()

    def set_mark(self, record_id: int, mark: str) -> None:
        """Set a record's mark value (in a write transaction)."""
        self.db.execute("UPDATE records SET mark=? WHERE id=?", (mark, record_id))

    def set_note(self, record_id: int, note: str) -> None:
        """Set a record's note (in a write transaction)."""
        self.db.execute("UPDATE records SET note=? WHERE id=?", (note, record_id))

    def insert_clip(self, record_id: int, page: int, page_label: str, section: str,
                    text: str, now: float) -> int:
        """Add a clip to a record (in a write transaction; ``page`` 1-based); its id."""
        return self.db.execute(
            "INSERT INTO clips(record_id, page, page_label, section, text, created_at)"
            " VALUES(?,?,?,?,?,?)", (record_id, page, page_label, section, text, now)).lastrowid

    def delete_clip(self, record_id: int, clip_id: int) -> bool:
        """Delete one clip of a record (in a write transaction); False when none."""
        return self.db.execute("DELETE FROM clips WHERE id=? AND record_id=?",
                               (clip_id, record_id)).rowcount > 0

    # -- sessions and history --------------------------------------------------------------
    def session_state(self, root: str) -> str | None:
        """The saved session of folder ``root`` (its JSON text), or None."""
        with self.lock:
            row = self.db.execute("SELECT state FROM sessions WHERE root=?",
                                  (root,)).fetchone()
        return None if row is None else row[0]

    def save_session(self, root: str, state: str) -> None:
        """Save folder ``root``'s session (JSON text), replacing the previous one."""
        with self.write() as db:
            db.execute(
                "INSERT INTO sessions(root, state, updated_at) VALUES(?,?,?)"
                " ON CONFLICT(root) DO UPDATE SET state=excluded.state,"
                " updated_at=excluded.updated_at", (root, state, time.time()))

    def add_history(self, root: str, query: str, limit: int) -> None:
        """Append ``query`` to folder ``root``'s history (a repeat moves to the end), then
        keep only its newest ``limit`` queries."""
        with self.write() as db:
            db.execute("DELETE FROM history WHERE root=? AND query=?", (root, query))
            db.execute("INSERT INTO history(root, query, at) VALUES(?,?,?)",
                       (root, query, time.time()))
            db.execute("DELETE FROM history WHERE root=? AND id NOT IN (SELECT id FROM"
                       " history WHERE root=? ORDER BY id DESC LIMIT ?)", (root, root, limit))

    def history(self, root: str, limit: int) -> list[str]:
        """Folder ``root``'s queries, newest first, at most ``limit``."""
        with self.lock:
            return [q for (q,) in self.db.execute(
                "SELECT query FROM history WHERE root=? ORDER BY id DESC LIMIT ?",
                (root, limit))]
