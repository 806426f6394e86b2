"""The pdftui App: a search box, and corpus | results | reader panes over the search service.

Wiring (DESIGN.md): workers do the work and post messages, the app routes them.

- indexing: :func:`pdftui.index.index_folder` in a thread worker; progress arrives as
  coalescing :class:`~.messages.IndexProgress` messages; the corpus pane and the current
  search are refreshed as documents land, so search works from the first indexed document;
- watching: ``watchfiles.awatch`` in its own worker; changes start another indexing run;
- searching: :class:`pdftui.search.service.SearchService` in an exclusive async worker (a
  newer query cancels the older one) with a short debounce while typing; a result is shown
  only if the box, mode, granularity and scope still match the request (never stale);
- reading: cache reads in thread workers through :class:`~.data.LibraryGate`.

An error in any worker becomes a notification. Every binding has an ``id`` so a keymap
(``PdftuiApp(keymap={"mode.keyword": "K"})`` or env ``PDFTUI_KEYMAP="mode.keyword=K,..."``)
can remap it. Importing this module does not import fastembed: the model is loaded by the
service at the first semantic or hybrid query.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Static, TextArea
from textual.widgets.input import Selection
from textual.worker import Worker, WorkerState

from ..errors import CacheError, user_message
from ..text import clean_text
from ..versions import version_groups
from .actions import (OPENERS, bindings, full_keymap, help_groups, key_label,
                      palette_actions)
from .compare_view import CompareScreen, author_year, hit_key
from .corpus_pane import CorpusPane, DocList, title_keys
from .data import LibraryGate
from .failures import FailureHandler
from .dialogs import ConfirmQuitScreen
from .help_screen import HelpScreen
from .messages import (DocumentsLoaded, DocumentVersions, FolderChanged, FolderPresence, HitHighlighted,
                       IndexFinished, IndexProgress, OpenDocument, OpenHit, PaneFocused,
                       ScopeChanged, SearchDone, SearchRequest, SessionLoaded)
from .reader_pane import ReaderBody, ReaderPane, ReadRequest
from .results_pane import HitTable, ResultsPane
from .triage_ui import TriageMixin

if TYPE_CHECKING:
    from ..search.hits import Hit

MODES = ("keyword", "semantic", "hybrid")
PANES = ("search", "corpus", "results", "reader")
TAB_PANES = ("corpus", "results", "reader")
#: Hits per search in the results pane.
TOP_K = 20
#: Seconds of quiet typing before a search-as-you-type runs.
DEBOUNCE_S = 0.25
#: Seconds between looks at a folder that vanished (and while watching, for it vanishing).
FOLDER_POLL_S = 1.0


def _keymap_from_env() -> dict[str, str]:
    out = {}
    for item in os.environ.get("PDFTUI_KEYMAP", "").split(","):
        if "=" in item:
            k, v = item.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def _pdf_filter(change, path: str) -> bool:
    name = os.path.basename(path)
    if name.startswith(".") or name.endswith("~"):
        return False
    return name.lower().endswith(".pdf") or os.path.isdir(path) or "." not in name


class QueryInput(Input):
    """The search box: Up / Down walk the folder's query history; left, it shows the
    start of its query (not the end, where the cursor was)."""

    BINDINGS = [
        Binding("up", "app.history(1)", "Older query", show=False, id="search.history_older"),
        Binding("down", "app.history(-1)", "Newer query", show=False,
                id="search.history_newer"),
    ]

    def _on_blur(self, event) -> None:
        super()._on_blur(event)
        self.cursor_position = 0   # scrolls the view back to the query's first word


class PdftuiApp(FailureHandler, TriageMixin, App):
    """Search and read a folder of PDFs: ``PdftuiApp(folder, cache_dir=..., model=...).run()``.

    Keyword-only arguments for tests and embedding: ``index`` (bring the cache up to date in
    the background, default True), ``watch`` (follow changes of the folder, default True),
    ``show_timings`` (elapsed ms in the coverage line; default: env ``PDFTUI_HIDE_TIMINGS``
    unset), ``service`` (a ready :class:`~pdftui.search.service.SearchService` to share),
    ``keymap`` (binding id -> key), ``data_dir`` (the user data: marks, notes, session;
    default ``$PDFTUI_DATA_DIR`` or the platform user data dir).
    """

    CSS_PATH = "pdftui.tcss"
    TITLE = "pdftui"
    ENABLE_COMMAND_PALETTE = True
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-medium"), (150, "-wide")]

    #: Keys that work everywhere (from :data:`~.actions.ACTIONS`). The footer shows only the
    #: few that matter in the focused pane (the panes repeat theirs), so it fits in 80 columns.
    BINDINGS = bindings("app")

    mode: reactive[str] = reactive("hybrid", init=False)
    granularity: reactive[str] = reactive("page", init=False)
    view: reactive[str] = reactive("results", init=False)

    def __init__(self, folder: str | os.PathLike = ".", cache_dir: str | os.PathLike | None = None,
                 model: str | None = None, *, index: bool = True, watch: bool = True,
                 show_timings: bool | None = None, service=None,
                 keymap: dict[str, str] | None = None, debounce: float = DEBOUNCE_S,
                 data_dir: str | os.PathLike | None = None) -> None:
        super().__init__()
        self._init_triage(data_dir)
        self.scope_mark: str | None = None   # "keep" / "to-read": the scope follows marks
        self.root = os.path.realpath(os.fspath(folder))
        self._pane_pending: str | None = None   # see show_pane
        self._key_buffer: list[events.Key] | None = None   # see _route_key, _flush_keys
        self._opener_key = ""   # the last opener's key, for _flush_keys's hint
        self.cache_dir = cache_dir
        self.model = model
        self.do_index = index
        self.do_watch = watch
        self.show_timings = (not os.environ.get("PDFTUI_HIDE_TIMINGS")) if show_timings is None \
            else show_timings
        self.service = service
        self._own_service = service is None
        self._service_lock = asyncio.Lock()
        self.gate = LibraryGate(self.root, cache_dir)
        self.debounce = debounce
        self.scope: tuple[str, ...] = ()
        self.documents: list = []
        self._docs_loaded = False   # the first documents load has arrived
        self._keymap = full_keymap({**_keymap_from_env(), **(keymap or {})})
        self._debounce_timer: Timer | None = None
        self._rerun_timer: Timer | None = None
        self._cancel_index = None
        self._indexing = False
        self._reindex = False
        self._index_status = ""
        self._last_docs_done = -1
        self._search_serial = 0
        self.top_k = TOP_K   # hits asked for; ``m`` asks for more
        self._last_key: SearchRequest | None = None
        self._last_typing = False
        self._search_job: tuple[Worker, SearchRequest] | None = None   # the newest search, its key
        self._reader_from_compare: tuple | None = None  # (hit key, list): Esc returns there
        #: The request key of the result (or failure) on screen.
        self.shown_key: SearchRequest | None = None
        self._semantic_ready = False
        self._restore_hit: tuple[str, int] | None = None   # the session's (doc, page)
        self.sub_title = clean_text(Path(self.root).name)

    # -- layout ---------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="top"):
            yield QueryInput(placeholder="search all PDFs (Enter; ↑ earlier queries)…",
                             id="query", compact=True, select_on_focus=False)
            yield Static("", id="mode-badge", markup=False)
        yield Static("", id="status", markup=False)
        with Horizontal(id="main", classes="view-results"):
            yield CorpusPane(id="corpus", classes="pane")
            yield ResultsPane(id="results", classes="pane")
            yield ReaderPane(self.gate, id="reader", classes="pane")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        if self._keymap:
            self.set_keymap(self._keymap)
        self.query_one(ResultsPane).show_timings = self.show_timings
        self._update_badge()
        self._update_status()
        self.query_one("#query", Input).focus()
        self._set_folder_first(True)
        self.load_session()
        self.load_documents()
        self.watch_triage()   # marks and notes another process writes show up here too
        if self.do_index:
            self.start_index()
        if self.do_watch:
            self.watch_folder()

    def get_driver_class(self):
        """Textual's driver, reading Esc + a key typed quickly as both (:mod:`.keys`)."""
        from .keys import driver_class

        return driver_class(super().get_driver_class())

    @property
    def main_screen(self) -> Screen:
        """The screen holding the panes (the bottom of the stack)."""
        return self.screen_stack[0]

    # -- workers --------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="documents", exit_on_error=False)
    def load_documents(self) -> None:
        """Read the document list from the cache (thread) and post it."""
        from ..embed import resolve_model_name   # the name only: no embedder imported

        model_id = resolve_model_name(self.model)
        docs = self.gate.run(lambda lib: lib.documents(model_id))
        # per-document names here, in the thread: the UI thread only shows the list's
        # first rows before it paints; the version groups (seconds at 10,000 documents)
        # only fold hits, so they follow the list
        self.post_message(DocumentsLoaded(docs, title_keys(docs)))
        self.post_message(DocumentVersions(docs, version_groups(docs)))

    def start_index(self) -> None:
        """Bring the cache up to date with the folder in the background."""
        if self._indexing:
            self._reindex = True
            return
        import threading

        self._indexing = True
        self._cancel_index = threading.Event()
        self._index_worker(self._cancel_index)

    @work(thread=True, group="index", exit_on_error=False)
    def _index_worker(self, cancel) -> None:
        from ..index import index_folder

        def progress(p) -> None:
            self.post_message(IndexProgress(replace(p)))

        summary = index_folder(self.root, self.cache_dir, self.model, embed=True,
                               progress=progress, cancel=cancel)   # raises: _index_failed
        self.post_message(IndexFinished(summary))

    def _index_failed(self, worker: Worker, error: BaseException) -> None:
        """The index worker raised: a cache that cannot be written (read-only location,
        full disk) leaves reading working; anything else is an indexing failure."""
        self.post_message(IndexFinished(None, user_message(error),
                                        read_only=isinstance(error, CacheError)))

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_folder(self) -> None:
        """Follow the folder with watchfiles; PDF changes start another indexing run.

        A folder that vanishes (deleted, unmounted) is reported (:class:`FolderPresence`)
        and looked for every :data:`FOLDER_POLL_S` seconds; when it is back it is watched
        and indexed again."""
        from watchfiles import awatch

        self._stop_watch = stop = asyncio.Event()
        while not stop.is_set():
            if not os.path.isdir(self.root):
                self.post_message(FolderPresence(False))
                while not os.path.isdir(self.root) and not stop.is_set():
                    try:
                        await asyncio.wait_for(stop.wait(), FOLDER_POLL_S)
                    except asyncio.TimeoutError:
                        pass
                if stop.is_set():
                    return
                self.post_message(FolderPresence(True))
            try:
                async for changes in awatch(self.root, watch_filter=_pdf_filter, debounce=700,
                                            stop_event=stop, recursive=True,
                                            rust_timeout=int(FOLDER_POLL_S * 1000),
                                            yield_on_timeout=True):
                    if not os.path.isdir(self.root):
                        break
                    if changes:
                        self.post_message(FolderChanged(sorted(p for _, p in changes)))
            except (FileNotFoundError, OSError):
                await asyncio.sleep(FOLDER_POLL_S)   # gone while the watch was being set up

    async def get_service(self):
        """The search service, created on first use (the import runs off the UI thread)."""
        async with self._service_lock:
            if self.service is None:
                def make():
                    from ..search.service import SearchService

                    return SearchService(self.root, cache_dir=self.cache_dir, model=self.model)

                self.service = await asyncio.to_thread(make)
            return self.service

    def search_key(self) -> SearchRequest:
        """What a search for the current state would ask."""
        return SearchRequest(self.query_one("#query", Input).value.strip(), self.mode,
                             self.granularity, self.scope)

    def run_search(self, keep_cursor: bool = False, typing: bool = False) -> None:
        """Search for the box's text now (an older search is cancelled). ``typing``: a
        search as you type, whose unfinished last word is a prefix and which keeps the
        list on screen (and its cursor) until the new one is ready."""
        if self._debounce_timer is not None:
            self._debounce_timer.stop()
            self._debounce_timer = None
        key = self.search_key()
        self.schedule_session_save()
        if key.query and self.scope_mark and not self.scope:
            self.workers.cancel_group(self, "search")
            self._search_job = None
            self._set_folder_first(False)
            self._last_key, self.shown_key = key, key
            self.query_one(ResultsPane).show_message(
                f"no document is marked {self.scope_mark} yet (* changes the scope)")
            return
        if not key.query:
            self.workers.cancel_group(self, "search")
            self._search_job = None
            self._last_key = None
            self.shown_key = None
            self.query_one(ResultsPane).clear()
            self._set_folder_first(True)
            return
        was_typing = self._last_typing
        self._set_folder_first(False)
        if self._last_key is None or self._last_key.query != key.query:
            self.top_k = TOP_K   # a new query starts with the first page of hits
        self._last_key = key
        self._last_typing = typing
        self.shown_key = None   # what is on screen no longer answers the request
        results = self.query_one(ResultsPane)
        # while typing (and on the Enter that ends it) the old list stays on screen until
        # the new one replaces it: no "searching…" flash between keystrokes
        if results.result is None or not (keep_cursor or typing or was_typing):
            results.show_message(f"searching ({key.mode})…")
        self._search_job = (self._search_worker(key, keep_cursor, typing), key)

    @work(exclusive=True, group="search", exit_on_error=False)
    async def _search_worker(self, key: SearchRequest, keep_cursor: bool,
                             typing: bool = False) -> None:
        from ..search.query import as_you_type

        query, mode, granularity, scope = key.query, key.mode, key.granularity, key.scope
        top_k = self.top_k
        if typing:
            query = as_you_type(query)
        service = await self.get_service()
        # an error raised here ends in _search_failed (FailureHandler)
        if mode != "keyword" and not self._semantic_ready:
            # the first semantic search loads the model (a second or more over SSH):
            # show keyword hits meanwhile, so the screen answers within a blink
            quick = await service.search(query, mode="keyword", granularity=granularity,
                                         top_k=top_k, docs=list(scope) or None)
            self.post_message(SearchDone(key, quick, True, keep_cursor, typing))
        result = await service.search(query, mode=mode, granularity=granularity,
                                      top_k=top_k, docs=list(scope) or None)
        if mode != "keyword":
            self._semantic_ready = True
        self.post_message(SearchDone(key, result, False, keep_cursor, typing))

    # -- message routing ------------------------------------------------------------------
    FAILURE_HANDLERS = {"index": "_index_failed", "search": "_search_failed",
                        "triage-load": "_triage_load_failed",
                        "session-load": "_session_load_failed"}

    def _search_failed(self, worker: Worker, error: BaseException) -> None:
        """The newest search raised: the results pane and a notification say why (an
        older search's failure is not news)."""
        job = self._search_job
        if job is None or job[0] is not worker:
            return
        self._search_job = None
        self.shown_key = job[1]
        self.query_one(ResultsPane).show_message(f"search failed: {user_message(error)}")
        self.report_failure("Search failed", error, timeout=None)

    @on(SearchDone)
    def _search_done(self, event: SearchDone) -> None:
        key, keep_cursor = event.request, event.keep_cursor
        results = next(iter(self.query(ResultsPane)), None)
        if self._exit or results is None or not results.children:
            return  # the app is closing: the panes are going (or gone with their screen)
        if key != self.search_key():
            return  # stale: the box, mode, granularity or scope changed since
        if event.typing and not self._last_typing:
            return  # a search-as-you-type result landing after Enter asked for the words
        results.scope_label = self._scope_label(key.scope)
        if event.provisional:
            results.set_result(event.result, keep_cursor=keep_cursor)
            # the mode asked for (a restored hybrid must not look lost), not "keyword"
            results.border_title = f"Results · {key.mode} (semantic loading) · {key.granularity}"
            results.show_message(f"keyword hits · loading the embedding model for {key.mode}…")
            return
        self.shown_key = key
        results.more_available = len(event.result.hits) >= self.top_k
        results.set_result(event.result, keep_cursor=keep_cursor)
        if self._restore_hit is not None:   # a reopened session: the cursor on the hit read
            results.select(*self._restore_hit)
            self._restore_hit = None

    @on(SessionLoaded)
    def _session_loaded(self, event: SessionLoaded) -> None:
        """Reopening a folder: the last query, mode, granularity, scope and reader
        position come back."""
        # queries run while it loaded stay newest
        self.history = self.history + [q for q in event.history if q not in self.history]
        s = event.session
        self._session_restored = True
        if s is not None and s.export_path and not self.last_export:
            self.last_export = s.export_path   # where the next export is offered
        if s is None or self._user_acted:
            # keys pressed while it loaded win: never overwrite what was typed or focused
            return
        self._restoring = True
        try:
            if s.mode in MODES:
                self.set_reactive(PdftuiApp.mode, s.mode)
            if s.granularity in ("page", "section"):
                self.set_reactive(PdftuiApp.granularity, s.granularity)
            self._update_badge()
            if s.scope and s.scope[0].startswith("mark:"):
                self.scope_mark = s.scope[0][5:]
                self._apply_mark_scope(search=False)
            elif s.scope:
                self.scope = tuple(sorted(s.scope))
                self.query_one(CorpusPane).scope = set(self.scope)
            box = self.query_one("#query", Input)
            with box.prevent(Input.Changed):
                box.value = s.query
            box.cursor_position = len(box.value)
            if s.query:
                if s.reader is not None:
                    self._restore_hit = (s.reader.doc, s.reader.page)
                self.run_search()
            if s.reader is not None:
                r = s.reader
                self.query_one(ReaderPane).request(ReadRequest(
                    r.doc, "section" if r.view == "section" else "page", r.page,
                    section_id=r.section_id, scroll="offset", offset=r.scroll))
            self._update_status()
            if s.query:
                self.show_pane("results")
            elif s.reader is not None:
                self.show_pane("reader")
        finally:
            self._restoring = False

    @on(ReaderPane.ViewShown)
    def _reader_view_shown(self, event) -> None:
        self.schedule_session_save()

    @on(DocumentsLoaded)
    def _documents_loaded(self, event: DocumentsLoaded) -> None:
        self.documents = event.documents
        self._docs_loaded = True
        self.load_triage()
        names = event.names if event.names is not None else title_keys(event.documents)
        self.query_one(CorpusPane).set_documents(event.documents, names)
        results = self.query_one(ResultsPane)
        # the loader's DocumentVersions follows: until then the groups of the last list
        # (computing them here took 1.8 s of the UI thread at 10,000 documents)
        versions = event.versions if event.versions is not None else results.versions
        results.set_documents(event.documents, names, versions)

    @on(DocumentVersions)
    def _document_versions(self, event: DocumentVersions) -> None:
        if event.documents is self.documents:   # not a list an older load replaced
            self.query_one(ResultsPane).set_versions(event.versions)
        self._update_status()

    @on(IndexProgress)
    def _index_progress(self, message: IndexProgress) -> None:
        event = message.progress
        if event.phase == "scan":
            self._index_status = "scanning folder…"
        elif event.phase == "check":
            self._index_status = f"checking {event.docs_total} PDFs against the index…"
        elif event.phase == "postings":
            self._index_status = (f"updating the keyword index {event.docs_done}/"
                                  f"{event.docs_total}…")
        elif event.phase == "verify":
            self._index_status = "checking embeddings…"
        elif event.phase == "done":
            self._index_status = ""   # said at once: the run's summary follows
        elif event.phase == "extract":
            self._index_status = (f"indexing {event.docs_done}/{event.docs_total}: "
                                  f"{clean_text(event.current)}")
            if event.docs_done != self._last_docs_done:
                self._last_docs_done = event.docs_done
                self.load_documents()
                self._schedule_rerun()
        elif event.phase == "embed":
            self._index_status = event.embed_status()
            self._schedule_rerun(docs=True)
        self._update_status()

    @on(IndexFinished)
    def _index_finished(self, event: IndexFinished) -> None:
        self._indexing = False
        self._last_docs_done = -1
        if event.error and not os.path.isdir(self.root):
            self._index_status = "folder gone"   # the watcher says so, and looks for it
        elif event.error and event.read_only:
            self._index_status = "index cannot be updated: showing it as it is"
            self.notify(clean_text(event.error), title="Index read-only", severity="warning",
                        timeout=6)
        elif event.error:   # the reason stays in the status line after the toast fades
            reason = clean_text((event.error.strip().splitlines() or [""])[0])
            self._index_status = f"indexing failed: {reason}"
            self.notify(clean_text(event.error), title="Indexing failed", severity="error",
                        timeout=10)
        else:
            s = event.summary
            self._index_status = ""
            if s is not None and (s.indexed or s.removed):
                self.notify(f"indexed {s.indexed}, removed {s.removed} · {s.pages} pages",
                            title="Index updated", timeout=3)
        self.load_documents()
        if self._last_key is not None:
            self.run_search(keep_cursor=True)
        self._update_status()
        if self._reindex:
            self._reindex = False
            self.start_index()

    @on(FolderChanged)
    def _folder_changed(self, event: FolderChanged) -> None:
        self.start_index()

    @on(FolderPresence)
    def _folder_presence(self, event: FolderPresence) -> None:
        if event.present:
            self._index_status = ""
            self.notify("the folder is back: indexing it again", title="Folder", timeout=3)
            self.start_index()
        else:
            if self._cancel_index is not None:
                self._cancel_index.set()
            self._index_status = "folder gone"
            self.notify("the folder is gone: searches cover nothing until it is back",
                        title="Folder gone", severity="warning", timeout=6)
        self._update_status()
        if self._last_key is not None:
            self.run_search(keep_cursor=True)

    @on(ScopeChanged)
    def _scope_changed(self, event: ScopeChanged) -> None:
        self.scope_mark = None   # a scope picked by hand
        self.scope = tuple(event.docs)
        self._update_status()
        self.run_search()

    @on(PaneFocused)
    def _pane_focused(self, event: PaneFocused) -> None:
        # a stale message (the focus moved on since it was posted, or a pane is still
        # to be focused) must not bring back the pane it names
        if self.screen_stack and self.screen is self.main_screen \
                and self._pane_pending is None and self._current_pane() == event.name:
            self.view = event.name

    @on(HitHighlighted)
    def _hit_highlighted(self, event: HitHighlighted) -> None:
        pass

    @on(OpenDocument)
    def _open_document(self, event: OpenDocument) -> None:
        self._reader_from_compare = None
        self.query_one(ReaderPane).open_document(event.doc)
        self.show_pane("reader")

    @on(OpenHit)
    def _open_hit(self, event: OpenHit) -> None:
        self._reader_from_compare = None
        self.open_hit(event.hit)

    def open_hit(self, hit: Hit) -> None:
        """Show ``hit`` in the reader and move there."""
        results = self.query_one(ResultsPane)
        reader = self.query_one(ReaderPane)
        reader.open_hit(hit, results.pattern, results.hits)
        self.show_pane("reader")

    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        self._reader_from_compare = None
        if self._debounce_timer is not None:
            self._debounce_timer.stop()
        if not event.value.strip():
            self.run_search()
            return
        self._debounce_timer = self.set_timer(self.debounce, self._debounced)

    def _debounced(self) -> None:
        self._debounce_timer = None
        if self.search_key() != self._last_key:
            self.run_search(typing=True)

    @on(Input.Submitted, "#query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        if not event.value.strip():   # Enter in the empty box: to the list on screen
            self.show_pane("corpus" if self.folder_first else "results")
            return
        self.remember_query(event.value)
        if self.search_key() != self._last_key or self._debounce_timer is not None or \
                self._last_typing:
            self.run_search()
        if event.value.strip():
            self.show_pane("results")

    def _schedule_rerun(self, docs: bool = False) -> None:
        """Refresh the search (and the document list) at most about once a second while
        indexing, so new documents appear in the results as they land."""
        if self._rerun_timer is not None:
            return

        def fire() -> None:
            self._rerun_timer = None
            if docs:
                self.load_documents()
            if self._last_key is not None and self.screen is self.main_screen:
                self.run_search(keep_cursor=True)

        self._rerun_timer = self.set_timer(1.0, fire)

    # -- status ---------------------------------------------------------------------------
    def _update_badge(self) -> None:
        badge = Text()
        for m in MODES:
            style = "bold reverse" if m == self.mode else "dim"
            badge.append(f" {m} ", style=style)
        badge.append(f" {self.granularity}s", style="dim")
        self.query_one("#mode-badge", Static).update(badge)

    def _update_status(self) -> None:
        docs = self.documents
        ready = sum(1 for d in docs if d.status in ("indexed", "embedding"))
        skipped = sum(1 for d in docs if d.status not in ("indexed", "embedding", "queued"))
        queued = sum(1 for d in docs if d.status == "queued")
        out = Text()
        if not docs and not self._docs_loaded:
            out.append("loading the documents…", style="bold")
        else:
            out.append(f"{ready} documents", style="bold")
        if queued:
            out.append(f" · {queued} queued")
        if skipped:
            out.append(f" · {skipped} skipped")
        embedding = [d for d in docs if d.status == "embedding"]
        if embedding:
            out.append(f" · {len(embedding)} embedding")
        if self._index_status:
            out.append(" · ")
            out.append(Text(self._index_status, style="italic"))
        if self.scope_mark:
            out.append(" · scope: ", style="bold")
            out.append(f"marked {self.scope_mark} ({len(self.scope)})")
            out.append("  (* next · x clears)", style="dim")
        elif self.scope:
            out.append(" · scope: ", style="bold")
            out.append(self._scope_names(self.size.width - out.cell_len - 14))
            out.append("  (x clears)", style="dim")
        self.query_one("#status", Static).update(out)

    def _scope_label(self, scope: tuple[str, ...]) -> str:
        """The coverage line's name of the search scope ``scope``: "scope: marked keep",
        "scope: <the document's title>", "scope: 3 documents", or "" for the whole folder
        (the status line names the documents)."""
        if not scope:
            return ""
        if self.scope_mark:
            return f"scope: marked {self.scope_mark}"
        return "scope: " + (self._scope_names(30) if len(scope) == 1
                            else f"{len(scope)} documents")

    def _scope_names(self, room: int) -> str:
        """The scoped documents by title (file name where titles collide), the first two
        and "+N", cut to ``room`` columns so the status line's hint stays on screen."""
        titles = self.query_one(ResultsPane).names
        names = ", ".join(clean_text(titles.get(d) or Path(d).name) for d in self.scope[:2])
        more = f" +{len(self.scope) - 2}" if len(self.scope) > 2 else ""
        room = max(8, room - len(more))
        return (names if len(names) <= room else names[: room - 1] + "…") + more

    # -- views ----------------------------------------------------------------------------
    @property
    def folder_first(self) -> bool:
        """True until a query runs: the documents take the results' place."""
        return self.query_one("#main").has_class("-folder")

    def _set_folder_first(self, on: bool) -> None:
        main = self.query_one("#main")
        if main.has_class("-folder") == on:
            return
        main.set_class(on, "-folder")
        if on and self.view == "results":
            self.view = "corpus"
        elif not on and self.view == "corpus" and not self.query_one(CorpusPane).has_focus_within:
            self.view = "results"

    def watch_view(self, view: str) -> None:
        main = self.query_one("#main")
        for name in ("corpus", "results", "reader"):
            main.set_class(name == view, f"view-{name}")

    def show_pane(self, name: str) -> None:
        """Make pane ``name`` current (shown on narrow screens) and focus it."""
        if name == "search":
            self._pane_pending = None
            self.focus_box()
            return
        if name == "results" and self.folder_first:
            name = "corpus"   # no query yet: the documents stand in for the results
        self.view = name
        pane = self.query_one(
            {"corpus": CorpusPane, "results": ResultsPane, "reader": ReaderPane}[name])
        # the focus moves after the refresh that shows the pane; until then the pane
        # asked for is the current one, so the next key of a burst (Tab Tab Tab) starts
        # from it and not from the widget that still holds the focus
        self._pane_pending = name

        def focus(tries: int = 5) -> None:   # only the last pane asked for (not "/" since)
            if self._pane_pending != name:
                return
            pane.focus_main()
            landed = self.focused is not None and pane in self.focused.ancestors_with_self
            if landed or not tries:
                self._pane_pending = None
            else:   # the pane was not shown yet (a loaded machine): after the next refresh
                self.call_after_refresh(focus, tries - 1)
        self.call_after_refresh(focus)

    def _current_pane(self) -> str:
        focused = self.focused
        if self._pane_pending is not None:
            return self._pane_pending
        if focused is None:
            return self.view
        if focused.id == "query":
            return "search"
        for node in focused.ancestors_with_self:
            if isinstance(node, CorpusPane):
                return "corpus"
            if isinstance(node, ResultsPane):
                return "results"
            if isinstance(node, ReaderPane):
                return "reader"
        return self.view

    # -- actions --------------------------------------------------------------------------
    def action_focus_search(self) -> None:
        """Focus the search box (at once, not after a refresh: see :meth:`on_event`)."""
        self.focus_box()

    async def on_event(self, event: events.Event) -> None:
        """Route a key before Textual forwards it, so that no key of a burst is lost or
        reordered.

        Textual forwards each key to the widget focused *when the app reads it*, and a
        key the widget does not take itself (Ctrl+U, Backspace, Esc: bindings) is run
        only when it has bubbled back up to the app, after the printable keys read
        since: "/", a query and Ctrl+U quickly cleared the query typed after it. So on
        the main screen every key meant for the search box is handled here, in the order
        read: "/" focuses the box at once, printable keys are typed into it, and the
        box's bindings (then the app's) run at once. Outside the box a printable key is
        a command of the focused pane or nothing (a hint says so): never typed into the
        box, never both (:meth:`_route_key`).
        """
        if isinstance(event, events.Key) and not event.is_forwarded:
            self._user_acted = True
            if await self._route_key(event):
                return
        await super().on_event(event)

    def focus_box(self) -> None:
        """Focus the search box now, its text selected (the next key typed replaces it)."""
        box = self.query_one("#query", Input)
        self._pane_pending = None   # a pane focus still queued must not take the box's
        if self.screen is self.main_screen:
            self.screen.set_focus(box)
        else:
            box.focus()
        box.selection = Selection(0, len(box.value))

    async def _route_key(self, event: events.Key) -> bool:
        """True when ``event`` was handled here (see :meth:`on_event`)."""
        if self._key_buffer is not None:   # a field opened by an earlier key: held for it
            self._key_buffer.append(event)
            event.stop()
            return True
        if not self.screen_stack:
            return False
        if self.screen is not self.main_screen:   # a dialog: its fields keep the order too
            focused = self.focused
            return await self._field_key(focused, event) if isinstance(focused, Input) \
                else False
        if self._pane_pending is not None:
            # a pane asked for by an earlier key of this burst (Esc in the box) takes the
            # focus now, so this key goes there and not to the box it leaves
            pane = {"corpus": CorpusPane, "results": ResultsPane,
                    "reader": ReaderPane}[self._pane_pending]
            self.query_one(pane).focus_main()
        focused = self.focused
        box = self.query_one("#query", Input)
        if focused is box:
            return await self._box_key(box, event)
        if isinstance(focused, Input):      # the documents filter
            return await self._field_key(focused, event)
        if isinstance(focused, TextArea):
            return False
        active = self.screen.active_bindings
        keys = [event.key, *event.aliases]
        bound = next((active[k] for k in keys if k in active), None)
        if bound is not None and bound.binding.id == "search.focus" and bound.enabled:
            self.focus_box()
            return True
        if bound is not None and bound.enabled and bound.binding.id in OPENERS:
            # f, a, g, e open a field (a filter box, a dialog) that takes the focus only
            # later: the keys read until then are held and typed into it, in order
            event.stop()
            self._key_buffer = []
            self._opener_key = event.character or event.key
            await self.run_action(bound.binding.action, bound.node)
            self.call_after_refresh(self._flush_keys)
            return True
        if bound is None and event.is_printable:
            # no command of this pane: said, not typed into the box (that replaced the
            # query, and a word typed outside the box ran half of its letters as commands)
            self.notify(f"{clean_text(event.character or '')!r} is no key here · / search"
                        " · ? keys", timeout=2)
            event.stop()
            return True
        return False

    async def _flush_keys(self, tries: int = 10) -> None:
        """Type the keys held since an opener (:data:`OPENERS`) into the text field it
        opened, once one has the focus (after up to ``tries`` refreshes). When no text
        field took it (the opener had nothing to act on: "a" with nothing to attach a note
        to, "g" with no page; or its dialog starts on a list), the other keys run where
        the focus is, but the printable ones are dropped with a hint: they were typed as
        text and never run as commands ("a2 pink" switched the mode and the
        granularity)."""
        if not isinstance(self.focused, (Input, TextArea)) and tries:
            self.call_after_refresh(self._flush_keys, tries - 1)
            return
        held, self._key_buffer = self._key_buffer or [], None
        dropped = 0
        for event in held:
            if isinstance(self.focused, Input):
                await self._field_key(self.focused, event)
            elif isinstance(self.focused, TextArea) and (event.is_printable
                                                         or event.key == "enter"):
                self.focused.insert("\n" if event.key == "enter" else event.character)
            elif event.is_printable:
                dropped += 1
            elif not await self._check_bindings(event.key, priority=True):
                await self._check_bindings(event.key)
        if dropped:
            self.notify(f"{self._opener_key!r} opened no text field: the {dropped} "
                        f"key{'s' if dropped != 1 else ''} typed after it ran no command.",
                        timeout=3)

    async def _field_key(self, field: Input, event: events.Key) -> bool:
        """Handle a key of a focused text field here, in the order keys arrive: a
        printable key is typed (as Textual's Input does), any other runs the field's
        bindings, then its screen's and the app's, at once."""
        if event.is_printable:
            selection = field.selection
            if selection.is_empty:
                field.insert_text_at_cursor(event.character)
            else:
                field.replace(event.character, *selection)
            event.stop()
            return True
        return await self._check_bindings(event.key, priority=True) or \
            await self._check_bindings(event.key)

    async def _box_key(self, box: Input, event: events.Key) -> bool:
        """Handle a key of the focused search box here, in the order keys arrive."""
        if not box.value and event.character in ("?", "/"):
            # no query starts with them: in the empty box (the first screen) "?" is the
            # help and "/" (the search key) is already where it leads
            if event.character == "?":
                self.action_help()
            return True
        return await self._field_key(box, event)

    def action_pane(self, delta: int) -> None:
        """Next / previous pane (in other screens: next / previous widget)."""
        if self.screen is not self.main_screen:
            if delta > 0:
                self.screen.focus_next()
            else:
                self.screen.focus_previous()
            return
        current = self._current_pane()
        if current == "search":   # Tab leaves the box for the results
            self.show_pane("results" if delta > 0 else "corpus")
            return
        # the box is not in the cycle ("/" goes there): a Tab never lands in it, where
        # the keys typed next would edit the query
        panes = ("corpus", "reader") if self.folder_first else TAB_PANES
        if current not in panes:
            current = "corpus"
        i = panes.index(current)
        self.show_pane(panes[(i + delta) % len(panes)])

    def action_back(self) -> None:
        """Reader (or documents, or the search box) -> results; a reader opened from the
        compare view -> compare."""
        current = self._current_pane()
        if current == "reader" and self._reader_from_compare is not None:
            (key, mode), self._reader_from_compare = self._reader_from_compare, None
            self.show_pane("results")
            self.action_compare(start_key=key, focus_mode=mode)  # back to that row
        elif current in ("reader", "corpus", "search"):
            if current == "search" and self._debounce_timer is not None:
                self._debounce_timer.stop()   # Esc right after typing: the results of
                self._debounced()             # what was typed, not the folder
            reader = self.query_one(ReaderPane)
            if current == "reader" and reader.stepped_to is not None:
                # n / N moved on in the reader: the list follows to the hit reached
                self.query_one(ResultsPane).select(*reader.stepped_to)
                reader.stepped_to = None
            # the box is left for the results, so single keys act again; Esc never goes
            # *into* the box (keys typed next would edit the query): "/" does that
            self.show_pane("results")

    def action_hit(self, delta: int) -> None:
        """Next / previous hit (in the reader: in the open document)."""
        if self._current_pane() == "reader":
            self.query_one(ReaderPane).step_hit(delta)
        else:
            self.query_one(ResultsPane).move(delta)

    def action_more_hits(self) -> None:
        """``m``: ask for :data:`TOP_K` more hits of the current query."""
        if self._last_key is None:
            self.notify("Type a query first.", timeout=2)
            return
        results = self.query_one(ResultsPane)
        if not results.more_available:
            self.notify(f"all {len(results.hits)} hits are shown", timeout=2)
            return
        self.top_k += TOP_K
        results.show_message(f"fetching up to {self.top_k} hits…")
        self.run_search(keep_cursor=True)

    def action_mode(self, mode: str) -> None:
        """Switch to keyword / semantic / hybrid ranking."""
        self.mode = mode

    def watch_mode(self, mode: str) -> None:
        self._update_badge()
        self.schedule_session_save()
        if self._last_key is not None or self.search_key().query:
            self.run_search()

    def action_clear_scope(self) -> None:
        """Search the whole folder again, from any pane."""
        if self.scope_mark:
            self.scope_mark = None
            self.scope = ()
            corpus = self.query_one(CorpusPane)
            corpus.scope = set()
            corpus._rebuild()
            self._update_status()
            self.run_search()
            return
        self.query_one(CorpusPane).action_clear_scope()

    def action_scope_marked(self) -> None:
        """``*``: search only the documents marked keep, then those to read, then the
        whole folder again (the scope follows the marks as they change)."""
        order = (None, "keep", "to-read")
        self.scope_mark = order[(order.index(self.scope_mark) + 1) % len(order)] \
            if self.scope_mark in order else "keep"
        self._apply_mark_scope()
        self.notify(f"searching documents marked {self.scope_mark}" if self.scope_mark
                    else "searching the whole folder", timeout=2)

    def _apply_mark_scope(self, search: bool = True) -> None:
        """Make the scope the documents with mark :attr:`scope_mark` (or the folder)."""
        marks = self.marks()
        docs = tuple(sorted(d for d, m in marks.items() if m == self.scope_mark)) \
            if self.scope_mark else ()
        changed = docs != self.scope
        self.scope = docs
        corpus = self.query_one(CorpusPane)
        corpus.scope = set(docs)
        corpus._rebuild()
        self._update_status()
        if search and (changed or not self.scope_mark):
            self.run_search()

    def action_granularity(self, to: str | None = None) -> None:
        """Rank ``to`` ("page" / "section"; None: the other one)."""
        self.granularity = to or ("section" if self.granularity == "page" else "page")

    def watch_granularity(self, granularity: str) -> None:
        self.refresh_bindings()   # the footer offers the other granularity
        self._update_badge()
        if self._last_key is not None or self.search_key().query:
            self.run_search()

    def action_compare(self, start_key: tuple | None = None,
                       focus_mode: str | None = None) -> None:
        """Keyword, semantic and hybrid lists side by side (cursor on ``start_key``, else
        on the results' current hit); a hit opened from there returns there on Esc."""
        query = self.search_key().query
        if not query:
            self.notify("Type a query first.", timeout=2)
            return
        if start_key is None:
            hit = self.query_one(ResultsPane).current_hit()
            start_key = hit_key(hit) if hit else None

        def done(result) -> None:
            if result:
                hit, mode = result
                self.open_hit(hit)
                self._reader_from_compare = (hit_key(hit), mode)

        results = self.query_one(ResultsPane)
        labels = {d: author_year(info) for d, info in results.infos.items()}
        self.push_screen(CompareScreen(self.get_service, query, self.scope, self.granularity,
                                       10, focus_mode or self.mode, self.show_timings,
                                       start_key, results.names, labels), done)

    def action_suggestion(self) -> None:
        """Search again with each misspelt word replaced by its first suggestion."""
        result = self.query_one(ResultsPane).result
        sugg = result.suggestions if result is not None else {}
        box = self.query_one("#query", Input)
        if not sugg or self.shown_key is None or self.shown_key.query != box.value.strip():
            self.notify("No spelling suggestion for this query.", timeout=2)
            return
        import re

        text = box.value
        for word, alts in sugg.items():
            text = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", lambda _m, a=alts[0]: a, text,
                          flags=re.IGNORECASE)
        box.value = text
        self.run_search()

    def action_help(self) -> None:
        """Show every key."""
        self.push_screen(HelpScreen(help_groups(self._keymap)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("mode", "granularity", "compare", "hit", "focus_search", "back") and \
                self.screen is not self.main_screen:
            return False
        if action == "granularity" and parameters:
            return parameters[0] != self.granularity   # "p Sections" only in pages
        return True

    def get_system_commands(self, screen: Screen):
        """The palette lists every action of the table (Ctrl+P), then Textual's own."""
        seen = set()
        for a in palette_actions():
            if a.palette in seen or (a.id.startswith("granularity") and
                                     a.action == f"granularity('{self.granularity}')"):
                continue
            seen.add(a.palette)
            yield SystemCommand(a.palette, f"key {key_label(a, self._keymap)}",
                                lambda a=a: self._run_table_action(a))
        for command in super().get_system_commands(screen):
            if command.title not in seen:   # Textual's own "Quit" is ours already
                yield command

    def unsaved_work(self) -> list[str]:
        """What quitting now would lose or interrupt, one phrase each (empty: nothing, so
        ``q`` quits without asking)."""
        out = []
        if self._indexing:
            out.append("indexing is running (it resumes next time)")
        if self.triage_gate.error is not None:
            out.append("marks, notes and this session cannot be saved: "
                       + clean_text(user_message(self.triage_gate.error))[:120])
        busy = [w for w in self.workers if w.group in ("triage", "export")
                and w.state in (WorkerState.PENDING, WorkerState.RUNNING)]
        if busy:
            out.append("a mark, note or export is still being written")
        return out

    async def action_request_quit(self) -> None:
        """``q``: quit, asking first when something would be lost (Ctrl+Q never asks)."""
        lost = self.unsaved_work()
        if not lost:
            await self.action_quit()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.call_later(self.action_quit)

        self.push_screen(ConfirmQuitScreen(lost), answered)

    def _run_table_action(self, action) -> None:
        """Run a table action in its pane's namespace (from the palette)."""
        namespace = {"reader": ReaderBody, "documents": CorpusPane, "doclist": DocList,
                     "results": ResultsPane}
        widget = namespace.get(action.pane)
        target = self.main_screen.query_one(widget) if widget else None
        view = {"documents": "corpus", "doclist": "corpus"}.get(action.pane, action.pane)
        if view in TAB_PANES and self.screen is self.main_screen:
            self.view = view   # shown first (on a narrow screen), so focus can land there
            if action.pane == "doclist":
                self.call_after_refresh(target.focus)
        self.call_after_refresh(self.run_action, action.action, target)

    async def action_quit(self) -> None:
        """Save the session, stop the background work and quit (Ctrl+Q, or ``q`` once
        confirmed)."""
        await self.save_session_final()
        self._stop_background()
        self.exit()

    def _stop_background(self) -> None:
        if self._cancel_index is not None:
            self._cancel_index.set()
        stop = getattr(self, "_stop_watch", None)
        if stop is not None:
            stop.set()

    async def on_unmount(self) -> None:
        self._stop_background()
        if self._own_service and self.service is not None:
            close = getattr(self.service, "close", None)
            if close:
                await asyncio.to_thread(close)
        await asyncio.to_thread(self.gate.close)
        await asyncio.to_thread(self._close_triage)


__all__ = ["PdftuiApp", "HitTable", "ReaderBody"]
