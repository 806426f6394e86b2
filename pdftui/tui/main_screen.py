"""The main screen: a search box, and documents | results | reader panes over the search
service, with the mode badge, the status line and the footer.

Wiring (DESIGN.md): workers do the work and post messages, the screen routes them.

- searching: :class:`pdftui.search.service.SearchService` in an exclusive async worker (a
  newer query cancels the older one) with a short debounce while typing; a result is shown
  only if the box, mode, granularity and scope still match the request (never stale);
- the folder (indexing, watching, the document list): :class:`~.folder_sync.FolderSync`;
- marks, notes, clips, export, the session and the query history:
  :class:`~.triage_controller.TriageController`;
- reading: cache reads in thread workers of the reader pane.

An error in any worker becomes a notification (:class:`~.failures.FailureHandler`). The
keys are bound on the app (:mod:`.actions`), whose actions call this screen's methods.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from textual import _time, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Static
from textual.widgets.input import Selection
from textual.worker import Worker, WorkerState

from ..errors import user_message
from ..text import clean_text
from . import typeahead
from .compare_view import CompareScreen, author_year, hit_key
from .corpus_pane import CorpusPane
from .failures import FailureHandler
from .folder_sync import FolderSync
from .key_router import SESSION_HOLD_S
from .messages import (CitedCounts, DocumentsLoaded, DocumentVersions, FolderChanged, FolderPresence,
                       HitHighlighted, IndexFinished, IndexProgress, OpenDocument, OpenHit,
                       PaneFocused, ScopeChanged, SearchDone, SearchRequest, SessionLoaded,
                       TriageChanged)
from .read_view import ReadRequest
from .reader_pane import ReaderPane
from .results_pane import ResultsPane
from .status_line import MODES, mode_badge, scope_label, status_text
from .triage_controller import TriageController

if TYPE_CHECKING:
    from textual.events import Blur

    from ..search.hits import Hit
    from ..triage.store import Session
    from .app import PdftuiApp
    from .data import TriageGate

PANES = ("search", "corpus", "results", "reader")
TAB_PANES = ("corpus", "results", "reader")
#: Where Tab stops, in order (Shift+Tab: backwards): the box, then the panes left to right.
TAB_STOPS = ("search", "corpus", "results", "reader")
#: Hits per search in the results pane.
TOP_K = 20
#: The pane widgets by name.
PANE_CLASSES = {"corpus": CorpusPane, "results": ResultsPane, "reader": ReaderPane}


class QueryInput(Input):
    """The search box: Up / Down walk the folder's query history; left, it shows the
    start of its query (not the end, where the cursor was)."""

    BINDINGS = [
        Binding("enter", "submit", "Search", show=True, id="search.submit"),
        Binding("up", "app.history(1)", "Earlier queries", show=True, key_display="↑",
                id="search.history_older"),
        Binding("down", "app.history(-1)", "Newer query", show=False,
                id="search.history_newer"),
    ]

    def _on_blur(self, event: Blur) -> None:
        super()._on_blur(event)
        # scrolls the view back to the query's first word; a Blur handled after the box
        # took the focus back ("Esc / ↑" typed fast) must not move the cursor: the keys
        # typed next went to the start, before a query just recalled
        if self.screen.focused is not self:
            self.cursor_position = 0


class MainScreen(FailureHandler, Screen):
    """The panes, the search box and the status line of the app (its default screen).

    ``triage_gate``: the user data (marks, notes, session), see :class:`~.data.TriageGate`.
    """

    app: PdftuiApp

    mode: reactive[str] = reactive("hybrid", init=False)
    granularity: reactive[str] = reactive("page", init=False)
    view: reactive[str] = reactive("results", init=False)

    FAILURE_HANDLERS = {"index": "folder.index_failed", "search": "_search_failed",
                        "documents": "folder.documents_failed",
                        "triage-load": "triage.load_failed",
                        "session-load": "triage.session_load_failed"}

    def __init__(self, triage_gate: TriageGate) -> None:
        super().__init__()
        self.triage = TriageController(self, triage_gate)
        self.folder = FolderSync(self)
        self.scope_mark: str | None = None   # "keep" / "to-read": the scope follows marks
        self.scope: tuple[str, ...] = ()
        self._debounce_timer: Timer | None = None
        self.top_k = TOP_K   # hits asked for; ``m`` asks for more
        self.last_key: SearchRequest | None = None   # the search asked last
        self.last_typing = False
        self._search_job: tuple[Worker, SearchRequest] | None = None   # the newest search, its key
        self._reader_from_compare: tuple | None = None  # (hit key, list): Esc returns there
        #: Tab reached the reader while a search ran: it follows that search's answer
        self._follow_pending = False
        #: (the pane "/" left, the box's text then): Esc with the text unchanged goes back
        self._box_from: tuple[str, str] | None = None
        #: The request key of the result (or failure) on screen.
        self.shown_key: SearchRequest | None = None
        self._semantic_ready = False
        #: the session's search and the (doc, page) it read: its answer's cursor goes there
        self._restore_hit: tuple[SearchRequest, str, int] | None = None
        self._mark_scope_at = 0.0   # when "*" last set the scope (Textual's clock)
        #: when the restored session moved the focus to a pane (time.monotonic), or None
        self.restored_focus_at: float | None = None

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
            yield ReaderPane(self.app.gate, id="reader", classes="pane")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        app = self.app
        self.query_one(ResultsPane).show_timings = app.show_timings
        self.update_badge()
        self.update_status()
        box = self.query_one("#query", Input)
        box.focus()
        typed, keys = typeahead.take()   # typed while the app started: read once the
        if typed or keys:                # last session is back, as keys read then
            app.keys.hold_typed(typed + keys)
        app.set_timer(SESSION_HOLD_S, app.keys.session_back)
        self._set_folder_first(True)
        self.triage.load_session()
        self.folder.load_documents()
        self.triage.watch_triage()   # marks and notes another process writes show up too
        if app.do_index:
            self.folder.start_index()
        if app.do_watch:
            self.folder.watch_folder()

    def on_screen_resume(self) -> None:
        """A dialog closed: the footer shows the keys of the pane that has the focus now
        (the focus may have moved under the dialog: a hit opened from the compare view)."""
        self.call_after_refresh(self.refresh_bindings)

    # -- searching ------------------------------------------------------------------------
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
        self.triage.schedule_session_save()
        if key.query and self.scope_mark and not self.scope:
            self.app.workers.cancel_group(self, "search")
            self._search_job = None
            self._set_folder_first(False)
            self.last_key, self.shown_key = key, key
            self.query_one(ResultsPane).show_message(
                f"no document is marked {self.scope_mark} yet (* changes the scope)")
            return
        if not key.query:
            self.app.workers.cancel_group(self, "search")
            self._search_job = None
            self.last_key = None
            self.shown_key = None
            self.query_one(ResultsPane).clear()
            self._set_folder_first(True)
            return
        was_typing = self.last_typing
        self._set_folder_first(False)
        if self.last_key is None or self.last_key.query != key.query:
            self.top_k = TOP_K   # a new query starts with the first page of hits
        self.last_key = key
        self.last_typing = typing
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
        service = await self.app.get_service()
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

    def _search_failed(self, worker: Worker, error: BaseException) -> None:
        """The newest search raised: the results pane and a notification say why (an
        older search's failure is not news)."""
        job = self._search_job
        if job is None or job[0] is not worker:
            return
        self._search_job = None
        self.shown_key = job[1]
        self.app.keys.search_landed()
        self.query_one(ResultsPane).show_message(f"search failed: {user_message(error)}")
        self.report_failure("Search failed", error, timeout=None)

    @on(SearchDone)
    def _search_done(self, event: SearchDone) -> None:
        key, keep_cursor = event.request, event.keep_cursor
        results = next(iter(self.query(ResultsPane)), None)
        if self.app._exit or results is None or not results.children:
            return  # the app is closing: the panes are going (or gone with their screen)
        if key != self.search_key():
            return  # stale: the box, mode, granularity or scope changed since
        if event.typing and not self.last_typing:
            return  # a search-as-you-type result landing after Enter asked for the words
        results.scope_label = scope_label(key.scope, self.scope_mark, results.names,
                                          results.versions)
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
            restored, doc, page = self._restore_hit
            self._restore_hit = None
            if key == restored:   # not on a query typed before the session's answer came
                results.select(doc, page)
        self.app.keys.search_landed()   # keys typed after Enter act on this answer
        if self._follow_pending:   # "query Enter Tab" typed at once: the reader follows
            self._follow_pending = False
            if self.current_pane() == "reader":
                self.follow_results()
        reader = self.query_one(ReaderPane)
        seen = reader.search_seen
        if reader.view is not None and seen is not None and seen.query == key.query \
                and seen != key:
            # the same words in another mode, granularity or scope ("p" with a page
            # open): n / N step through this answer's hits, not the last one's
            reader.set_hits(results.hits, results.pattern)
            reader.search_seen = key

    @on(Input.Changed, "#query")
    def _query_changed(self, event: Input.Changed) -> None:
        self._reader_from_compare = None
        self._restore_hit = None   # typed: a new answer's cursor starts at its first hit
        if self._debounce_timer is not None:
            self._debounce_timer.stop()
        if not event.value.strip():
            self.run_search()
            return
        self._debounce_timer = self.set_timer(self.app.debounce, self._debounced)

    def _debounced(self) -> None:
        self._debounce_timer = None
        if self.search_key() != self.last_key:
            self.run_search(typing=True)

    @on(Input.Submitted, "#query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        if not event.value.strip():   # Enter in the empty box: to the list on screen
            self.app.keys.search_landed()   # nothing to wait for
            self.show_pane("corpus" if self.folder_first else "results")
            return
        self.triage.remember_query(event.value)
        # asked again by the user: Tab to the reader follows its answer, also when the
        # reader opened a document while the same words were on screen (it stayed there)
        self.query_one(ReaderPane).search_seen = None
        if self.search_key() != self.last_key or self._debounce_timer is not None or \
                self.last_typing:
            self.run_search()
        elif self.shown_key == self.search_key():
            self.app.keys.search_landed()   # its answer is the one on screen
        if event.value.strip():
            self.show_pane("results")

    # -- the session ----------------------------------------------------------------------
    @on(SessionLoaded)
    def _session_loaded(self, event: SessionLoaded) -> None:
        """Reopening a folder: the last query, mode, granularity, scope and reader
        position come back; then the keys typed meanwhile run, from there."""
        self._restore_session(event)
        self.app.keys.session_back()

    def _restore_session(self, event: SessionLoaded) -> None:
        triage = self.triage
        # queries run while it loaded stay newest
        triage.history = triage.history + [q for q in event.history
                                           if q not in triage.history]
        s = event.session
        triage.session_restored = True
        if s is not None and s.export_path and not triage.last_export:
            triage.last_export = s.export_path   # where the next export is offered
        if s is None or triage.user_acted:
            # keys pressed while it loaded win: never overwrite what was typed or focused
            return
        triage.restoring = True
        try:
            self._restore_search(s)
            if s.reader is not None:
                r = s.reader
                reader = self.query_one(ReaderPane)
                reader.search_seen = self.search_key()   # read with the restored search
                reader.request(ReadRequest(
                    r.doc, "section" if r.view == "section" else "page", r.page,
                    section_id=r.section_id, scroll="offset", offset=r.scroll))
            self.update_status()
            if s.query:
                self.show_pane("results")
            elif s.reader is not None:
                self.show_pane("reader")
            if s.query or s.reader is not None:   # text typed right after is a query
                self.restored_focus_at = time.monotonic()   # (key_router)
        finally:
            triage.restoring = False

    def _restore_search(self, s: Session) -> None:
        """Put back the session ``s``'s mode, granularity, scope and query (and run it)."""
        if s.mode in MODES:
            self.set_reactive(MainScreen.mode, s.mode)
        if s.granularity in ("page", "section"):
            self.set_reactive(MainScreen.granularity, s.granularity)
        self.update_badge()
        if s.scope and s.scope[0].startswith("mark:"):
            self.scope_mark = s.scope[0][5:]
            self.apply_mark_scope(search=False)
        elif s.scope:
            self.scope = tuple(sorted(s.scope))
            self.query_one(CorpusPane).scope = set(self.scope)
        box = self.query_one("#query", Input)
        with box.prevent(Input.Changed):
            box.value = s.query
        box.cursor_position = len(box.value)
        if s.query:
            if s.reader is not None:
                self._restore_hit = (self.search_key(), s.reader.doc, s.reader.page)
            self.run_search()

    @on(ReaderPane.ViewShown)
    def _reader_view_shown(self, event: ReaderPane.ViewShown) -> None:
        self.triage.schedule_session_save()

    @on(TriageChanged)
    def _triage_changed(self, event: TriageChanged) -> None:
        self.triage.changed(event)

    # -- the folder -----------------------------------------------------------------------
    @on(DocumentsLoaded)
    def _documents_loaded(self, event: DocumentsLoaded) -> None:
        self.folder.documents_loaded(event)

    @on(CitedCounts)
    def _cited_counts(self, event: CitedCounts) -> None:
        if event.documents is self.folder.documents:   # not a list a newer load replaced
            self.query_one(CorpusPane).set_cited(event.counts)

    @on(DocumentVersions)
    def _document_versions(self, event: DocumentVersions) -> None:
        self.folder.document_versions(event)

    @on(IndexProgress)
    def _index_progress(self, message: IndexProgress) -> None:
        self.folder.index_progress(message.progress)

    @on(IndexFinished)
    def _index_finished(self, event: IndexFinished) -> None:
        self.folder.index_finished(event)

    @on(FolderChanged)
    def _folder_changed(self, event: FolderChanged) -> None:
        self.folder.start_index()

    @on(FolderPresence)
    def _folder_presence(self, event: FolderPresence) -> None:
        self.folder.folder_presence(event)

    # -- what the panes say ---------------------------------------------------------------
    @on(ScopeChanged)
    def _scope_changed(self, event: ScopeChanged) -> None:
        if event.time < self._mark_scope_at:
            # stale: "*" set the marked scope since it was posted ("x *" typed fast: the
            # cleared scope arrived after it, and searches ignored the marked one)
            return
        self.scope_mark = None   # a scope picked by hand
        self.scope = tuple(event.docs)
        self.update_status()
        self.run_search()

    @on(PaneFocused)
    def _pane_focused(self, event: PaneFocused) -> None:
        # a stale message (the focus moved on since it was posted, or a pane is still
        # to be focused) must not bring back the pane it names
        if self.app.screen_stack and self.app.screen is self \
                and self.current_pane() == event.name:
            self.view = event.name

    @on(HitHighlighted)
    def _hit_highlighted(self, event: HitHighlighted) -> None:
        pass

    @on(OpenDocument)
    def _open_document(self, event: OpenDocument) -> None:
        self._reader_from_compare = None
        self._follow_pending = False   # a document chosen outranks a search's answer
        reader = self.query_one(ReaderPane)
        reader.search_seen = self.shown_key
        if event.page > 1 or event.entry:   # a citing entry's page
            reader.open_document(event.doc, event.page, event.entry)
        else:
            reader.open_document(event.doc)
        self.show_pane("reader")

    def open_citations(self, kind: str) -> None:
        """Show citation list ``kind`` (:class:`.citations_screen.ListKind` value) of the
        document the triage keys act on; Enter there opens the chosen paper here."""
        from .citations_screen import CitationsScreen, ListKind
        from .triage_controller import NEEDS_DOCUMENT

        cur = self.triage.current_document()
        if cur is None:
            self.notify(f"No document here: {NEEDS_DOCUMENT}.", timeout=3)
            return
        doc = cur[0]
        info = next((d for d in self.folder.documents if d.doc == doc), None)

        def opened(choice: tuple[str, int, str] | None) -> None:
            if choice is not None:
                self.post_message(OpenDocument(*choice))

        self.app.push_screen(CitationsScreen(ListKind(kind), doc,
                                             (info.title if info else "") or doc), opened)

    @on(OpenHit)
    def _open_hit(self, event: OpenHit) -> None:
        self._reader_from_compare = None
        self.open_hit(event.hit)

    def open_hit(self, hit: Hit) -> None:
        """Show ``hit`` in the reader and move there."""
        results = self.query_one(ResultsPane)
        reader = self.query_one(ReaderPane)
        self._follow_pending = False
        reader.open_hit(hit, results.pattern, results.hits)
        reader.search_seen = self.shown_key
        self.show_pane("reader")

    # -- status ---------------------------------------------------------------------------
    def update_badge(self) -> None:
        """Show the mode and the granularity beside the search box."""
        self.query_one("#mode-badge", Static).update(mode_badge(self.mode, self.granularity))

    def update_status(self) -> None:
        """Show the documents, the indexing state and the scope in the status line."""
        folder = self.folder
        results = self.query_one(ResultsPane)
        self.query_one("#status", Static).update(status_text(
            folder.documents, folder.docs_loaded, folder.index_status, self.scope,
            self.scope_mark, results.names, self.app.size.width, results.versions))

    def unsaved_work(self) -> list[str]:
        """What quitting now would lose or interrupt, one phrase each (empty: nothing, so
        ``q`` quits without asking)."""
        out = []
        if self.folder.indexing:
            out.append("indexing is running (it resumes next time)")
        gate = self.triage.triage_gate
        if gate.error is not None:
            out.append("marks, notes and this session cannot be saved: "
                       + clean_text(user_message(gate.error))[:120])
        busy = [w for w in self.app.workers if w.group in ("triage", "export")
                and w.state in (WorkerState.PENDING, WorkerState.RUNNING)]
        if busy:
            out.append("a mark, note or export is still being written")
        return out

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
        """Make pane ``name`` current (shown on narrow screens) and focus it, now: the
        next key read, however soon, goes to that pane. (A focus deferred to the next
        refresh left the keys read meanwhile to the pane being left, and a deferral queued
        while a dialog was on top died with the dialog, leaving the focus nowhere.)"""
        if name == "search":
            self.focus_box(select=False)
            return
        if name == "results" and self.folder_first:
            name = "corpus"   # no query yet: the documents stand in for the results
        self.view = name
        # the pane's widget takes the focus at once (a hidden pane's widget can take it:
        # it is shown at the next refresh), on this screen even under a dialog
        self.query_one(PANE_CLASSES[name]).focus_main()
        self.app.keys.pane_shown()   # keys held for this move run now (key_router)

    def reader_switching(self) -> bool:
        """Is the reader loading another document than the one it shows?"""
        return self.query_one(ReaderPane).switching

    def current_pane(self) -> str:
        """The pane in use: "search", "corpus", "results" or "reader"."""
        focused = self.focused
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

    def focus_box(self, select: bool = True) -> None:
        """Focus the search box now. ``select`` (``/``): its text selected, so the next
        key typed replaces it; otherwise (Tab) the caret at its end, nothing selected
        ("Tab k" had replaced the query with "k" and searched for it)."""
        box = self.query_one("#query", Input)
        left = self.current_pane()
        if left in ("reader", "corpus", "results"):
            self._box_from = (left, box.value)
        self.set_focus(box)
        end = len(box.value)
        box.selection = Selection(0, end) if select else Selection.cursor(end)

    # -- what the app's keys do -----------------------------------------------------------
    def next_pane(self, delta: int) -> None:
        """Next / previous stop of Tab / Shift+Tab: the search box, the documents, the
        results and the reader (:data:`TAB_STOPS`; before a query the documents stand in
        for the results). Nothing else is a stop: the documents filter, the contents list
        and the note's clips are reached by their own keys."""
        current = self.current_pane()
        stops = tuple(p for p in TAB_STOPS if not (self.folder_first and p == "results"))
        if current not in stops:
            current = "corpus"
        name = stops[(stops.index(current) + delta) % len(stops)]
        if name == "reader":
            self.follow_results()
        self.show_pane(name)

    def follow_results(self) -> None:
        """The reader, reached by Tab, follows a search run since it was filled (it
        showed the page read before and said "No hits in this document"): it opens the
        selected hit, or, while that search still runs, the selected hit of its answer
        when it lands ("query Enter Tab" typed at once showed the previous query's
        paper). The same search run again (the folder changed) only hands it the new
        hits, for n / N."""
        results = self.query_one(ResultsPane)
        reader = self.query_one(ReaderPane)
        key = self.shown_key
        if key is None and self.last_key is not None and not self.folder_first:
            self._follow_pending = True   # the answer on its way: followed when it lands
            return
        if results.result is None or key is None or self.folder_first:
            return
        if reader.search_seen == key:
            reader.set_hits(results.hits, results.pattern)
            return
        reader.search_seen = key
        hit = results.current_hit()
        if hit is not None:
            reader.open_hit(hit, results.pattern, results.hits)

    def back(self) -> None:
        """Reader (or documents, or the search box) -> results; a reader opened from the
        compare view -> compare; the search box whose text is as "/" found it -> the pane
        "/" was pressed in."""
        current = self.current_pane()
        if current == "reader" and self._reader_from_compare is not None:
            (key, mode), self._reader_from_compare = self._reader_from_compare, None
            self.show_pane("results")
            self.compare(start_key=key, focus_mode=mode)  # back to that row
        elif current == "search" and self._box_from is not None and \
                self._box_from[1] == self.query_one("#query", Input).value:
            self.show_pane(self._box_from[0])   # "/" then Esc: back where "/" was pressed
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

    def step_hit(self, delta: int) -> None:
        """Next / previous hit (in the reader: in the open document)."""
        if self.current_pane() == "reader":
            self.query_one(ReaderPane).step_hit(delta)
        else:
            self.query_one(ResultsPane).move(delta)

    def more_hits(self) -> None:
        """``m``: ask for :data:`TOP_K` more hits of the current query."""
        if self.last_key is None:
            self.notify("Type a query first.", timeout=2)
            return
        results = self.query_one(ResultsPane)
        if not results.more_available:
            self.notify(f"all {len(results.hits)} hits are shown", timeout=2)
            return
        self.top_k += TOP_K
        results.show_message(f"fetching up to {self.top_k} hits…")
        self.run_search(keep_cursor=True)

    def watch_mode(self, mode: str) -> None:
        self.update_badge()
        self.triage.schedule_session_save()
        if self.last_key is not None or self.search_key().query:
            self.run_search()

    def clear_scope(self) -> None:
        """Search the whole folder again, from any pane."""
        if self.scope_mark:
            self.scope_mark = None
            self.scope = ()
            corpus = self.query_one(CorpusPane)
            corpus.scope = set()
            corpus._rebuild()
            self.update_status()
            self.run_search()
            return
        self.query_one(CorpusPane).action_clear_scope()

    def scope_marked(self) -> None:
        """``*``: search only the documents marked keep, then those to read, then the
        whole folder again (the scope follows the marks as they change)."""
        order = (None, "keep", "to-read")
        self.scope_mark = order[(order.index(self.scope_mark) + 1) % len(order)] \
            if self.scope_mark in order else "keep"
        self.apply_mark_scope()
        self.notify(f"searching documents marked {self.scope_mark}" if self.scope_mark
                    else "searching the whole folder", timeout=2)

    def apply_mark_scope(self, search: bool = True) -> None:
        """Make the scope the documents with mark :attr:`scope_mark` (or the folder)."""
        self._mark_scope_at = _time.get_time()   # scope messages posted before are stale
        marks = self.triage.marks()
        docs = tuple(sorted(d for d, m in marks.items() if m == self.scope_mark)) \
            if self.scope_mark else ()
        changed = docs != self.scope
        self.scope = docs
        corpus = self.query_one(CorpusPane)
        corpus.scope = set(docs)
        corpus._rebuild()
        self.update_status()
        if search and (changed or not self.scope_mark):
            self.run_search()

    def watch_granularity(self, granularity: str) -> None:
        self.app.refresh_bindings()   # the footer offers the other granularity
        self.update_badge()
        if self.last_key is not None or self.search_key().query:
            self.run_search()

    def compare(self, start_key: tuple | None = None, focus_mode: str | None = None) -> None:
        """Keyword, semantic and hybrid lists side by side (cursor on ``start_key``, else
        on the results' current hit); a hit opened from there returns there on Esc."""
        query = self.search_key().query
        if not query:
            self.notify("Type a query first.", timeout=2)
            return
        if start_key is None:
            hit = self.query_one(ResultsPane).current_hit()
            start_key = hit_key(hit) if hit else None

        def done(result: tuple[Hit, str] | None) -> None:
            if result:
                hit, mode = result
                self.open_hit(hit)
                self._reader_from_compare = (hit_key(hit), mode)

        app = self.app
        results = self.query_one(ResultsPane)
        labels = {d: author_year(info) for d, info in results.infos.items()}
        app.push_screen(CompareScreen(app.get_service, query, self.scope, self.granularity,
                                      10, focus_mode or self.mode, app.show_timings,
                                      start_key, results.names, labels, results.versions),
                        done)

    def suggestion(self) -> None:
        """Search again with each misspelt word replaced by its first suggestion."""
        result = self.query_one(ResultsPane).result
        sugg = result.suggestions if result is not None else {}
        box = self.query_one("#query", Input)
        if not sugg or self.shown_key is None or self.shown_key.query != box.value.strip():
            self.notify("No spelling suggestion for this query.", timeout=2)
            return
        text = box.value
        for word, alts in sugg.items():
            text = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", lambda _m, a=alts[0]: a, text,
                          flags=re.IGNORECASE)
        box.value = text
        self.run_search()
