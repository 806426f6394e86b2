"""Keeping the main screen in step with the folder: indexing runs, the folder watch and the
document list.

- indexing: :func:`pdftui.index.index_folder` in a thread worker; progress arrives as
  coalescing :class:`~.messages.IndexProgress` messages; the documents pane and the
  current search are refreshed as documents land, so search works from the first indexed
  document;
- watching: ``watchfiles.awatch`` in its own worker; changes start another indexing run; a
  folder that vanishes is reported and looked for until it is back;
- the document list: read from the cache in a thread worker, posted as
  :class:`~.messages.DocumentsLoaded` (then its version groups).

:class:`FolderSync` is held by :class:`~.main_screen.MainScreen`; its workers run on the
screen and post their messages there, whose handlers call back here.
"""

from __future__ import annotations

import asyncio
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from textual.timer import Timer
from textual.worker import Worker

from ..errors import CacheError, user_message
from ..text import clean_text
from ..versions import version_groups
from .corpus_pane import CorpusPane, title_keys
from .messages import (CitedCounts, DocumentsLoaded, DocumentVersions, FolderChanged,
                       FolderPresence, IndexFinished, IndexProgress)
from .results_pane import ResultsPane

if TYPE_CHECKING:
    from watchfiles import Change

    from ..index import Progress
    from ..library import DocumentInfo
    from .main_screen import MainScreen

#: Seconds between looks at a folder that vanished (and while watching, for it vanishing).
FOLDER_POLL_S = 1.0
#: A notification's timeout for what stays until the user dismisses it (a day, seconds).
UNTIL_DISMISSED_S = 86_400.0


def _pdf_filter(change: Change, path: str) -> bool:
    name = os.path.basename(path)
    if name.startswith(".") or name.endswith("~"):
        return False
    return name.lower().endswith(".pdf") or os.path.isdir(path) or "." not in name


class FolderSync:
    """The folder's indexing runs, its watch and its document list, for ``screen``."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.documents: list[DocumentInfo] = []
        self.docs_loaded = False   # the first documents load has arrived
        self.indexing = False
        self._reindex = False
        self._cancel_index: threading.Event | None = None
        self.index_status = ""   # what the status line says of indexing ("" nothing)
        self._last_docs_done = -1
        self._rerun_timer: Timer | None = None
        self._stop_watch: asyncio.Event | None = None

    @property
    def root(self) -> str:
        """The folder (its real path)."""
        return self.screen.app.root

    # -- the document list -------------------------------------------------------------
    def load_documents(self) -> None:
        """Read the document list from the cache (thread) and post it."""
        self.screen.run_worker(self._load_documents, thread=True, exclusive=True,
                               group="documents", exit_on_error=False)

    def _load_documents(self) -> None:
        from ..embed import resolve_model_name   # the name only: no embedder imported

        app = self.screen.app
        model_id = resolve_model_name(app.model)
        docs = app.gate.run(lambda lib: lib.documents(model_id))
        # per-document names here, in the thread: the UI thread only shows the list's
        # first rows before it paints; the version groups (seconds at 10,000 documents)
        # only fold hits, so they follow the list
        self.screen.post_message(DocumentsLoaded(docs, title_keys(docs)))
        self.screen.post_message(DocumentVersions(docs, version_groups(docs)))
        from ..citation_graph import CitationGraph

        counts = app.gate.run(lambda lib: CitationGraph.read(lib, docs).cited_counts())
        self.screen.post_message(CitedCounts(docs, counts))

    def documents_failed(self, worker: Worker, error: BaseException) -> None:
        """The document list cannot be read (a damaged or unreadable cache): said at once
        in the status line, which keeps it, and in a notification that stays until
        dismissed; the screen stops saying it is loading."""
        self.docs_loaded = True
        self._cache_unusable(error)

    def _cache_unusable(self, error: BaseException) -> None:
        """Say that the cache cannot be used and what to run (status line and a lasting
        notification); said once per reason."""
        import shlex

        from ..errors import CacheDamaged
        from ..store.integrity import is_damage

        self.docs_loaded = True   # no list is coming: stop saying it is loading
        if isinstance(error, CacheDamaged) or is_damage(error):
            status = (f"cache damaged: run `pdftui index {shlex.quote(self.root)}` to"
                      " rebuild it")
            message = user_message(error)
            if "pdftui index" not in message:
                message += f"; {status}"
        else:
            status = f"cannot read the index: {(user_message(error).splitlines() or [''])[0]}"
            message = user_message(error)
        if self.index_status != clean_text(status):
            self.index_status = clean_text(status)
            self.screen.notify(clean_text(message), title="Cache unusable", severity="error",
                               timeout=UNTIL_DISMISSED_S, markup=False)
        self.screen.update_status()

    def documents_loaded(self, event: DocumentsLoaded) -> None:
        """A document list arrived: the panes show it, the marks are read for it."""
        self.documents = event.documents
        self.docs_loaded = True
        self.screen.triage.load_triage()
        names = event.names if event.names is not None else title_keys(event.documents)
        self.screen.query_one(CorpusPane).set_documents(event.documents, names)
        results = self.screen.query_one(ResultsPane)
        # the loader's DocumentVersions follows: until then the groups of the last list
        # (computing them here took 1.8 s of the UI thread at 10,000 documents)
        versions = event.versions if event.versions is not None else results.versions
        results.set_documents(event.documents, names, versions)

    def document_versions(self, event: DocumentVersions) -> None:
        """The version groups of a document list arrived."""
        if event.documents is self.documents:   # not a list an older load replaced
            self.screen.query_one(ResultsPane).set_versions(event.versions)
            self.screen.query_one(CorpusPane).set_versions(event.versions)
        self.screen.update_status()

    # -- indexing ------------------------------------------------------------------------
    def start_index(self) -> None:
        """Bring the cache up to date with the folder in the background."""
        if self.indexing:
            self._reindex = True
            return
        self.indexing = True
        self._cancel_index = threading.Event()
        cancel = self._cancel_index
        self.screen.run_worker(lambda: self._index(cancel), thread=True, group="index",
                               exit_on_error=False)

    def _index(self, cancel: threading.Event) -> None:
        from ..index import index_folder

        app = self.screen.app

        def progress(p: Progress) -> None:
            self.screen.post_message(IndexProgress(replace(p)))

        from ..cache import DB_NAME, default_cache_dir
        from ..store.integrity import check_cache

        where = Path(app.cache_dir).expanduser() if app.cache_dir else default_cache_dir()
        # after an unclean state only (a left-over write-ahead log): raises CacheDamaged
        check_cache(where, DB_NAME, full=False, rebuild=False, folder=self.root)
        summary = index_folder(self.root, app.cache_dir, app.model, embed=True,
                               progress=progress, cancel=cancel)   # raises: index_failed
        self.screen.post_message(IndexFinished(summary))

    def index_failed(self, worker: Worker, error: BaseException) -> None:
        """The index worker raised: a cache that cannot be written (read-only location,
        full disk) leaves reading working; anything else is an indexing failure."""
        from ..errors import CacheDamaged
        from ..store.integrity import is_damage

        if isinstance(error, CacheDamaged) or is_damage(error):
            self.indexing = False
            self._cache_unusable(error)
            return
        self.screen.post_message(IndexFinished(None, user_message(error),
                                               read_only=isinstance(error, CacheError)))

    def index_progress(self, event: Progress) -> None:
        """Say how far the indexing run is; new documents show up as they land."""
        if event.phase == "scan":
            self.index_status = "scanning folder…"
        elif event.phase == "check":
            self.index_status = f"checking {event.docs_total} PDFs against the index…"
        elif event.phase == "postings":
            self.index_status = (f"updating the keyword index {event.docs_done}/"
                                 f"{event.docs_total}…")
        elif event.phase == "verify":
            self.index_status = "checking embeddings…"
        elif event.phase == "done":
            self.index_status = ""   # said at once: the run's summary follows
        elif event.phase == "extract":
            self.index_status = (f"indexing {event.docs_done}/{event.docs_total}: "
                                 f"{clean_text(event.current)}")
            if event.docs_done != self._last_docs_done:
                self._last_docs_done = event.docs_done
                self.load_documents()
                self._schedule_rerun()
        elif event.phase == "embed":
            self.index_status = event.embed_status()
            self._schedule_rerun(docs=True)
        self.screen.update_status()

    def index_finished(self, event: IndexFinished) -> None:
        """An indexing run ended: its outcome said, the list and the search refreshed."""
        self.indexing = False
        self._last_docs_done = -1
        notify = self.screen.notify
        if event.error and not os.path.isdir(self.root):
            self.index_status = "folder gone"   # the watcher says so, and looks for it
        elif event.error and event.read_only:
            self.index_status = "index cannot be updated: showing it as it is"
            notify(clean_text(event.error), title="Index read-only", severity="warning",
                   timeout=6)
        elif event.error:   # the reason stays in the status line after the toast fades
            reason = clean_text((event.error.strip().splitlines() or [""])[0])
            self.index_status = f"indexing failed: {reason}"
            notify(clean_text(event.error), title="Indexing failed", severity="error",
                   timeout=10)
        else:
            s = event.summary
            self.index_status = ""
            if s is not None and (s.indexed or s.removed):
                notify(f"indexed {s.indexed}, removed {s.removed} · {s.pages} pages",
                       title="Index updated", timeout=3)
        self.load_documents()
        if self.screen.last_key is not None:
            self.screen.run_search(keep_cursor=True)
        self.screen.update_status()
        if self._reindex:
            self._reindex = False
            self.start_index()

    def _schedule_rerun(self, docs: bool = False) -> None:
        """Refresh the search (and the document list) at most about once a second while
        indexing, so new documents appear in the results as they land."""
        if self._rerun_timer is not None:
            return

        def fire() -> None:
            self._rerun_timer = None
            if docs:
                self.load_documents()
            if self.screen.last_key is not None and self.screen.app.screen is self.screen:
                self.screen.run_search(keep_cursor=True)

        self._rerun_timer = self.screen.set_timer(1.0, fire)

    # -- the watch -----------------------------------------------------------------------
    def watch_folder(self) -> None:
        """Follow the folder with watchfiles; PDF changes start another indexing run.

        A folder that vanishes (deleted, unmounted) is reported (:class:`FolderPresence`)
        and looked for every :data:`FOLDER_POLL_S` seconds; when it is back it is watched
        and indexed again."""
        self.screen.run_worker(self._watch, exclusive=True, group="watch",
                               exit_on_error=False)

    async def _watch(self) -> None:
        from watchfiles import awatch

        self._stop_watch = stop = asyncio.Event()
        while not stop.is_set():
            if not os.path.isdir(self.root):
                self.screen.post_message(FolderPresence(False))
                while not os.path.isdir(self.root) and not stop.is_set():
                    try:
                        await asyncio.wait_for(stop.wait(), FOLDER_POLL_S)
                    except asyncio.TimeoutError:
                        pass
                if stop.is_set():
                    return
                self.screen.post_message(FolderPresence(True))
            try:
                async for changes in awatch(self.root, watch_filter=_pdf_filter, debounce=700,
                                            stop_event=stop, recursive=True,
                                            rust_timeout=int(FOLDER_POLL_S * 1000),
                                            yield_on_timeout=True):
                    if not os.path.isdir(self.root):
                        break
                    if changes:
                        self.screen.post_message(
                            FolderChanged(sorted(p for _, p in changes)))
            except (FileNotFoundError, OSError):
                await asyncio.sleep(FOLDER_POLL_S)   # gone while the watch was being set up

    def folder_presence(self, event: FolderPresence) -> None:
        """The folder vanished or came back: said; indexing stops or starts again."""
        if event.present:
            self.index_status = ""
            self.screen.notify("the folder is back: indexing it again", title="Folder",
                               timeout=3)
            self.start_index()
        else:
            if self._cancel_index is not None:
                self._cancel_index.set()
            self.index_status = "folder gone"
            self.screen.notify("the folder is gone: searches cover nothing until it is back",
                               title="Folder gone", severity="warning", timeout=6)
        self.screen.update_status()
        if self.screen.last_key is not None:
            self.screen.run_search(keep_cursor=True)

    def stop(self) -> None:
        """Cancel the indexing run and end the watch (on quit)."""
        if self._cancel_index is not None:
            self._cancel_index.set()
        if self._stop_watch is not None:
            self._stop_watch.set()
