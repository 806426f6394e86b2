"""Thread-safe access to the cache's read side for the TUI's thread workers."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from ..library import Library

T = TypeVar("T")


class LibraryGate:
    """One :class:`pdftui.library.Library`, opened lazily, used by one thread at a time.

    Thread workers call :meth:`run` with a function of the library; the lock keeps the
    single SQLite connection from being used by two threads at once. ``delay_s`` (seconds,
    0 in the product) holds each call that long before it runs, as a loaded machine
    would: the tests type keys while the readers' workers are slow.
    """

    def __init__(self, root: str | os.PathLike, cache_dir: str | os.PathLike | None = None):
        self.root = root
        self.cache_dir = cache_dir
        self._lock = threading.Lock()
        self._lib: Library | None = None
        self.delay_s = 0.0

    def run(self, fn: Callable[[Library], T]) -> T:
        """``fn(library)`` under the lock (call from a worker thread, never the UI thread)."""
        with self._lock:
            if self.delay_s > 0:
                time.sleep(self.delay_s)
            if self._lib is None:
                self._lib = Library(self.root, self.cache_dir)
            return fn(self._lib)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            if self._lib is not None:
                self._lib.close()
                self._lib = None


class TriageGate:
    """The user-data store (:class:`pdftui.triage.store.TriageStore`), opened lazily by the
    first worker that needs it; its own lock makes it safe to share between threads.

    :meth:`run` raises :class:`pdftui.triage.store.TriageStoreError` when the file cannot be
    read or written (the message is one line for the user); the exception is kept in
    :attr:`error` so the app can say that marks and notes cannot be saved.
    """

    def __init__(self, data_dir: str | os.PathLike | None = None):
        self.data_dir = data_dir
        self._lock = threading.Lock()
        self._store = None
        self.error: Exception | None = None   # the last TriageStoreError, if any

    def run(self, fn):
        """``fn(store)`` (call from a worker thread, never the UI thread)."""
        from ..triage.store import TriageStore, TriageStoreError

        try:
            with self._lock:
                if self._store is None:
                    self._store = TriageStore(self.data_dir)
            return fn(self._store)
        except TriageStoreError as exc:
            self.error = exc   # kept: quitting says marks and notes cannot be saved
            raise

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
