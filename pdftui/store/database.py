"""The connection to the shared index cache: opening it (writable, else read-only), its
schema migrated, and the short write transactions every change goes through.

:class:`Cache` is the one object the indexer, the search service and the reader hold: its
methods come from :class:`~pdftui.store.writer.ContentWriter` (files and contents),
:class:`~pdftui.store.embeddings.EmbeddingStore` (embedding units) and
:class:`~pdftui.store.leases.LeaseStore` (who is indexing or embedding now, in a file of
its own).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..cache import (BUSY_TIMEOUT_MS, DB_NAME, STORAGE_RE, default_cache_dir, storage_error,
                     unwritable_reason)
from ..errors import CacheError
from . import schema
from .integrity import damaged, is_damage
from .embeddings import EmbeddingStore
from .leases import LeaseStore
from .transactions import begin_immediate
from .citations import CitationStore
from .writer import ContentWriter


class Cache(ContentWriter, EmbeddingStore, LeaseStore, CitationStore):
    """A connection to the shared index cache.

    ``Cache(cache_dir)`` creates the folder (mode 0700) and the database if needed and
    migrates the schema. One ``Cache`` object is one SQLite connection, usable from the
    thread that created it only (open one per thread). Raises :class:`CacheError` when the
    location is unusable.
    """

    def __init__(self, cache_dir: str | os.PathLike | None = None, *,
                 read_only_ok: bool = False):
        self.dir = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
        self.path = self.dir / DB_NAME
        self._lock = threading.RLock()
        #: True when the cache was opened for reading only (``read_only_ok`` and a location
        #: that cannot take writes); ``read_only_reason`` then says why.
        self.read_only = False
        self.read_only_reason = ""
        if read_only_ok and self.path.is_file() and not self._writable():
            self._open_read_only()
            return
        try:
            self._open_writable()
        except CacheError:
            if not (read_only_ok and self.path.is_file()):
                raise
            self.close()
            self._open_read_only()   # a full disk: the index can still be read

    def _open_writable(self) -> None:
        """Create the folder and database if needed, open them and migrate the schema."""
        self.db = None
        try:
            if self.dir.exists() and not self.dir.is_dir():
                raise CacheError(f"cache location {self.dir} is a file, not a folder")
            if not self.dir.is_dir():
                self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
                try:  # only a folder we created: never re-mode a folder the user gave us
                    os.chmod(self.dir, 0o700)
                except OSError:
                    pass
            if not os.access(self.dir, os.W_OK | os.X_OK):
                why = unwritable_reason(self.dir)
                raise CacheError(f"cache folder {self.dir} is not writable"
                                 + ("" if why == "the folder is not writable" else f" ({why})"))
            if self.path.exists() and not os.access(self.path, os.R_OK | os.W_OK):
                raise CacheError(f"cache database {self.path} is read-only")
            self.db = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                check_same_thread=False,
            )
            self.db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=OFF")
            self._migrate()
        except CacheError:
            raise
        except (OSError, sqlite3.Error) as exc:
            import errno

            storage = (errno.ENOSPC, errno.EROFS, errno.EFBIG, errno.EDQUOT)
            if getattr(exc, "errno", None) in storage or (
                    isinstance(exc, sqlite3.Error) and STORAGE_RE.search(str(exc))):
                raise storage_error("use", self.dir, exc) from exc
            if is_damage(exc):
                raise damaged(self.dir, str(exc)) from exc
            raise CacheError(f"cannot use the cache at {self.dir}: {exc}") from exc

    def _writable(self) -> bool:
        """True when both the folder and the database file can take writes."""
        return os.access(self.dir, os.W_OK | os.X_OK) and os.access(self.path, os.R_OK | os.W_OK)

    def _open_read_only(self) -> None:
        """Open the existing database for reading only (a finished index on a read-only
        mount, or a cache of another user): ``mode=ro``, else ``immutable=1`` when the WAL
        index cannot be created there. Raises :class:`CacheError` when it cannot be read or
        has another layout (it cannot be migrated without writing)."""
        from urllib.parse import quote

        self.read_only = True
        self.read_only_reason = unwritable_reason(self.dir)
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        try:
            for extra in ("", "&immutable=1"):
                self.db = sqlite3.connect(uri + extra, uri=True, isolation_level=None,
                                          timeout=BUSY_TIMEOUT_MS / 1000,
                                          check_same_thread=False)
                try:
                    version = self.db.execute("PRAGMA user_version").fetchone()[0]
                    self.db.execute("SELECT count(*) FROM files").fetchone()
                    break
                except sqlite3.Error:
                    self.db.close()
                    if extra:
                        raise
        except sqlite3.Error as exc:
            if is_damage(exc):
                raise damaged(self.dir, str(exc)) from exc
            raise CacheError(f"cannot read the cache at {self.dir}: {exc}") from exc
        if version != schema.SCHEMA_VERSION:
            self.db.close()
            raise CacheError(f"the cache at {self.dir} is read-only and of an older layout;"
                             " index once where it can be written")

    def _migrate(self) -> None:
        """Bring an older layout up to ``SCHEMA_VERSION`` (or start a cache afresh), in one
        write transaction (:func:`pdftui.store.schema.migrate`). Raises
        :class:`CacheError` for a cache of a newer pdftui, which is never emptied."""
        if schema.user_version(self.db) == schema.SCHEMA_VERSION:
            if not schema.has_cache_id(self.db):   # a cache made before it had one
                with self.write():
                    if not schema.has_cache_id(self.db):
                        schema.new_cache_id(self.db)
            return
        with self.write():
            schema.migrate(self.db, self.dir, self._fill_extras)

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A ``BEGIN IMMEDIATE`` transaction: commits on success, rolls back on error.

        Waits up to the busy timeout for another writer; re-entrant within one thread.
        """
        with self._lock:
            if self.db.in_transaction:
                yield self.db
                return
            begin_immediate(self.db, BUSY_TIMEOUT_MS)
            try:
                yield self.db
                self.db.execute("COMMIT")
            except BaseException as exc:
                if self.db.in_transaction:
                    try:
                        self.db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                if isinstance(exc, sqlite3.OperationalError) and STORAGE_RE.search(str(exc)):
                    raise storage_error("write", self.dir, exc) from exc
                raise

    def close(self) -> None:
        """Close the connection and the leases file's (idempotent)."""
        self.close_leases()
        try:
            if self.db is not None:
                self.db.close()
        except sqlite3.Error:
            pass

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: changes when another connection commits."""
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` result ("ok" when healthy)."""
        return self.db.execute("PRAGMA integrity_check").fetchone()[0]

