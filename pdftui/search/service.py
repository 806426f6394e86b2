"""The search service the TUI and the CLI share (no Textual here).

``SearchService(root, cache_dir=None, model=None)``:

- ``await service.search(query, mode="hybrid", granularity="page", top_k=10, docs=None)``
  returns a :class:`.hits.SearchResult`. Blocking work runs on one worker thread that owns
  its own :class:`.engine.Engine` (its SQLite connection, the in-memory vector matrix and
  the embedding model, loaded lazily, on the first semantic or hybrid search, so
  keyword-only use never imports fastembed). A newer ``search`` call supersedes older
  ones: an older call raises ``asyncio.CancelledError`` as soon as its worker reaches the
  next stage boundary (or at once if it is still queued), and never returns stale
  results.
- ``service.search_sync(...)``: the same, blocking (CLI, bench).
- ``service.close()``.

How a search ranks: docs/ranking.md.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from .config import RankingConfig
from .engine import Engine
from .hits import SearchResult


class Superseded(Exception):
    """Raised inside the worker when a newer search has started."""


class SearchService:
    """Async search over one folder's cached index; see the module docstring."""

    def __init__(self, root: str | os.PathLike, cache_dir: str | os.PathLike | None = None,
                 model: str | None = None, config: RankingConfig | None = None):
        self.root = os.path.realpath(os.fspath(root))
        self.cache_dir = cache_dir
        self.model = model
        self.config = config
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pdftui-search")
        self._engine: Engine | None = None
        self._gens: dict[str, int] = {}   # caller -> its newest call's number
        self._lock = threading.Lock()
        #: seconds each search waits on the worker before it runs (0 in the product; the
        #: tests slow the worker as a loaded machine would)
        self.delay_s = 0.0

    def _get_engine(self) -> Engine:
        if self._engine is None:
            self._engine = Engine(self.root, self.cache_dir, self.model, self.config)
        return self._engine

    def _current(self, caller: str, gen: int) -> bool:
        return self._gens.get(caller) == gen

    def _run(self, call: tuple[str, int] | None, query, mode, granularity, top_k,
             docs) -> SearchResult:
        def check() -> None:
            if call is not None and not self._current(*call):
                raise Superseded()

        if self.delay_s > 0:
            time.sleep(self.delay_s)
        check()
        return self._get_engine().search(query, mode, granularity, top_k, docs, check)

    async def search(self, query: str, mode: str = "hybrid", granularity: str = "page",
                     top_k: int = 10, docs: str | list[str] | None = None,
                     caller: str = "results") -> SearchResult:
        """Search without blocking the event loop. A newer call of the same ``caller``
        (the results list, the compare view, ...) cancels this one
        (``asyncio.CancelledError``); other callers' calls do not. Raises ValueError for a
        bad mode/granularity and :class:`pdftui.cache.CacheError` for an unusable cache."""
        with self._lock:
            gen = self._gens.get(caller, 0) + 1
            self._gens[caller] = gen
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(self._executor, self._run, (caller, gen), query, mode,
                                   granularity, top_k, docs)
        try:
            result = await fut
        except Superseded:
            raise asyncio.CancelledError() from None
        except asyncio.CancelledError:
            with self._lock:
                if self._current(caller, gen):
                    self._gens[caller] = gen + 1  # stop the worker at its next stage boundary
            raise
        if not self._current(caller, gen):
            raise asyncio.CancelledError()
        return result

    def search_sync(self, query: str, mode: str = "hybrid", granularity: str = "page",
                    top_k: int = 10, docs: str | list[str] | None = None) -> SearchResult:
        """Blocking search (on the service's worker thread)."""
        return self._executor.submit(self._run, None, query, mode, granularity, top_k,
                                     docs).result()

    def warm(self) -> None:
        """Load the vector matrix and the model now (optional; the first search does it)."""
        def go() -> None:
            e = self._get_engine()
            e.refresh()
            e.matrix()
            e.embed_query("warm up")
        self._executor.submit(go).result()

    def close(self) -> None:
        """Close the connection and stop the worker thread (idempotent)."""
        def go() -> None:
            if self._engine is not None:
                self._engine.close()
                self._engine = None
        try:
            self._executor.submit(go).result()
        except RuntimeError:
            pass
        self._executor.shutdown(wait=False)
