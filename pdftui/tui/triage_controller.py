"""The main screen's triage side: marks, notes, clips, export, open in the viewer, the last session
and the query history (the user data of :mod:`pdftui.triage.store`).

:class:`TriageController` is held by :class:`~pdftui.tui.main_screen.MainScreen` (its
workers run there); the app's triage keys call it. Every store call
runs on one dedicated thread (:meth:`TriageController.triage_call`), in the order the keys were
pressed, so "+" then "-" always ends as skip; the UI thread never touches SQLite. A user
data file that cannot be read is reported once; the app goes on without marks and says
so when quitting would lose something.

Marks, notes and clips belong to works (:mod:`pdftui.triage.works`): the versions of one
paper share them, so ``+`` on a row folded as "v5 v7" marks both files, and every row of
either shows the mark. Exports are offered in the folder pdftui was started from, then
where the last one went (:func:`~.dialogs.export_dir`), never the documents folder unless
chosen.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from textual.timer import Timer
from textual.worker import Worker

from ..text import clean_text
from .messages import SessionLoaded, TriageChanged

if TYPE_CHECKING:
    from ..triage.store import DocKey, DocTriage, Session, TriageStore
    from ..triage.works import Works
    from .data import TriageGate
    from .dialogs import ExportRequest
    from .main_screen import MainScreen

T = TypeVar("T")

#: Seconds of quiet before the session (query, mode, scope, reader) is saved.
SESSION_SAVE_S = 1.0
#: How often (seconds) the user data file is checked for marks and notes written by
#: another process (a second TUI on the same data dir, ``pdftui mark``).
TRIAGE_POLL_S = 2.0
#: Mark values by action argument, with the words a notification uses.
MARK_WORDS = {"keep": "keep", "to-read": "to read", "skip": "skip", "none": "no mark"}


#: What the triage keys need, said when the pane in use has nothing to act on.
NEEDS_DOCUMENT = "select a hit or a document, or open a page in the reader first"


class TriageController:
    """Marks, notes, clips, export, viewer, session and history for the main screen
    ``screen``; ``triage_gate``: the user data store's gate (:class:`~.data.TriageGate`,
    the app's)."""

    def __init__(self, screen: MainScreen, triage_gate: TriageGate) -> None:
        self.screen = screen
        self.triage_gate = triage_gate
        self.by_doc: dict[str, DocTriage] = {}   # doc -> its work's mark, note and clips
        self.works: Works = {}   # doc -> its work (versions of one paper share one)
        #: the folder pdftui was started from: where an export is first offered
        self.start_dir = os.getcwd()
        self.history: list[str] = []         # newest first
        self._history_pos = -1
        self._history_draft = ""
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pdftui-triage")
        self._session_timer: Timer | None = None
        self.restoring = False   # the last session is being put back (nothing to save)
        self.session_restored = False
        self.user_acted = False   # a key was pressed before the last session came back
        self._reported = False   # reading the user data failed and was said
        self.triage_version: int | None = None   # the store's data_version last seen
        self.last_export = ""   # the file last exported to (kept in the session)
        self.last_clipboard = ""   # what "open in viewer" copied with no display

    @property
    def root(self) -> str:
        """The folder (its real path)."""
        return self.screen.app.root

    def _run(self, work: Callable[[], Awaitable], **kw) -> Worker:
        """Run the coroutine function ``work`` (no arguments: bind them with
        :func:`functools.partial`) as a worker of the screen (errors: its
        :class:`~.failures.FailureHandler`). A function, not a coroutine: a worker
        cancelled before it starts (an exclusive group, the app closing) then leaves no
        coroutine never awaited."""
        return self.screen.run_worker(work, exit_on_error=False, **kw)

    # -- the store, on its own thread ------------------------------------------------------
    async def triage_call(self, fn: Callable[[TriageStore], T]) -> T:
        """``fn(store)`` on the triage thread (FIFO); raises what the store raises."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, lambda: self.triage_gate.run(fn))

    def _doc_key(self, doc: str) -> DocKey:
        from ..triage.store import DocKey

        info = next((d for d in self.screen.folder.documents if d.doc == doc), None)
        return DocKey.of(self.root, doc, getattr(info, "sha256", "") if info else "")

    def work_docs(self, doc: str) -> list[str]:
        """The files of ``doc``'s work (``[doc]`` for a paper in one version)."""
        from ..triage.works import siblings

        return siblings(self.works, doc)

    def _work_keys(self, doc: str) -> list[DocKey]:
        return [self._doc_key(d) for d in self.work_docs(doc)]

    async def _work_triage(self, keys: list[DocKey]) -> DocTriage:
        """The merged triage of one work's files, read on the triage thread."""
        from ..triage.works import merge

        return await self.triage_call(lambda s: merge([(k.doc, s.get(k)) for k in keys]))

    def load_failed(self, worker: Worker, error: BaseException) -> None:
        """Marks and notes cannot be read: said once, the app goes on without them."""
        from .folder_sync import UNTIL_DISMISSED_S

        if not self._reported:   # stays until dismissed: marks shown are not the user's
            self._reported = True
            self.screen.report_failure("Reading marks and notes failed", error,
                                       timeout=UNTIL_DISMISSED_S)

    def session_load_failed(self, worker: Worker, error: BaseException) -> None:
        """The last session cannot be read: said (once for the user data), the app starts
        afresh."""
        from .folder_sync import UNTIL_DISMISSED_S

        self._reported = True
        self.screen.report_failure("Reading the last session failed", error,
                                   timeout=UNTIL_DISMISSED_S)

    def load_triage(self) -> None:
        """Read the marks, notes and clips of the folder's documents (after a documents
        load)."""
        self._run(self._load_triage, group="triage-load", exclusive=True)

    async def _load_triage(self) -> None:
        from ..triage.works import merge_works, works_of

        documents = list(self.screen.folder.documents)
        docs = [(d.doc, getattr(d, "sha256", "")) for d in documents]
        triage = await self.triage_call(lambda s: s.lookup(self.root, docs))
        works = await asyncio.to_thread(works_of, documents)   # 0.5 s at 10,000 documents
        self.works = works
        self.by_doc = merge_works(triage, works)
        self._show_marks()

    def watch_triage(self) -> None:
        """Reload the marks, notes and clips when another process changes them: every
        :data:`TRIAGE_POLL_S` seconds the store's data version is read on the triage
        thread (never the UI thread); a change reloads them (:meth:`load_triage`)."""
        self.screen.set_interval(TRIAGE_POLL_S, self._poll_triage)

    async def _poll_triage(self) -> None:
        if not self.screen.folder.documents:
            return
        try:
            version = await self.triage_call(lambda s: s.data_version())
        except Exception:  # noqa: BLE001 - an unusable store is reported by its own calls
            return
        if self.triage_version is not None and version != self.triage_version:
            self.load_triage()
        self.triage_version = version

    def marks(self) -> dict[str, str]:
        """doc -> mark value, for the documents that have one."""
        return {doc: t.mark.value for doc, t in self.by_doc.items() if t.mark.value != "none"}

    def _show_marks(self) -> None:
        from .corpus_pane import CorpusPane
        from .results_pane import ResultsPane

        marks = self.marks()
        self.screen.query_one(CorpusPane).set_marks(marks)
        self.screen.query_one(ResultsPane).set_marks(marks)
        if self.screen.scope_mark:
            self.screen.apply_mark_scope()

    def changed(self, event: TriageChanged) -> None:
        """A mark, note or clip was stored (``event.triage``: its work's): shown on every
        file of the work, and said."""
        for doc in self.work_docs(event.doc):
            self.by_doc[doc] = event.triage
        self._show_marks()
        if event.message:
            self.screen.notify(event.message, timeout=2.5)

    # -- which document ---------------------------------------------------------------------
    def current_document(self) -> tuple[str, int] | None:
        """``(doc, page)`` the triage keys act on, by the pane in use: the reader's page,
        the documents pane's highlighted document (page 1), the results' current hit; from
        elsewhere (the search box, the palette) the current hit, else the reader's page.
        None when that pane has nothing (an empty reader, no hits): never a document the
        user cannot see."""
        from .corpus_pane import CorpusPane
        from .reader_pane import ReaderPane
        from .results_pane import ResultsPane

        screen = self.screen
        pane = screen.current_pane()
        reader_pane = screen.query_one(ReaderPane)
        reader = reader_pane.view
        if pane == "reader":
            return (reader.request.doc, reader_pane.page_shown()) if reader is not None \
                else None
        if pane == "corpus":
            doc = screen.query_one(CorpusPane).current_doc()
            return (doc, 1) if doc else None
        hit = screen.query_one(ResultsPane).current_hit()
        if hit is not None:
            return hit.doc, hit.page or 1
        if reader is not None and pane != "results":
            return reader.request.doc, reader.page
        return None

    def _title(self, doc: str) -> str:
        info = next((d for d in self.screen.folder.documents if d.doc == doc), None)
        return clean_text((info.title if info else "") or doc)

    # -- marks, notes, clips ------------------------------------------------------------------
    def mark(self, value: str) -> None:
        """Mark the current document keep / to-read / skip, or clear its mark."""
        cur = self.current_document()
        if cur is None:
            self.screen.notify(f"Nothing to mark here: {NEEDS_DOCUMENT}.", timeout=3)
            return
        self._run(partial(self._mark, cur[0], value), name="Marking", group="triage")

    async def _mark(self, doc: str, value: str) -> None:
        from ..triage.store import Mark

        keys = self._work_keys(doc)
        await self.triage_call(lambda s: s.mark_work(keys, Mark(value)))
        triage = await self._work_triage(keys)
        versions = f" ({len(keys)} versions)" if len(keys) > 1 else ""
        self.screen.post_message(TriageChanged(
            doc, triage, f"{MARK_WORDS[value]}: {self._title(doc)[:60]}{versions}"))

    def note(self) -> None:
        """Edit the current document's note (its clipped passages shown below)."""
        from .note_editor import NoteScreen

        cur = self.current_document()
        if cur is None:
            self.screen.notify(f"Nothing to attach a note to: {NEEDS_DOCUMENT}.", timeout=3)
            return
        doc = cur[0]
        old = self.by_doc.get(doc)
        note = old.note if old else ""

        def done(edit) -> None:
            if edit is not None and (edit.text != note or edit.deleted):
                self._run(partial(self._save_note, doc,
                                  edit.text if edit.text != note else None, edit.deleted),
                          name="Saving the note", group="triage")

        self.screen.app.push_screen(
            NoteScreen(self._title(doc), note, list(old.clips) if old else []), done)

    async def _save_note(self, doc: str, text: str | None, deleted: tuple[int, ...] = ()
                         ) -> None:
        """Store the note ``text`` (None: unchanged) and delete the clips ``deleted``
        (their ids) of ``doc``'s work; says what was done."""
        keys = self._work_keys(doc)
        gone = 0
        for cid in deleted:
            gone += bool(await self.triage_call(
                lambda s, cid=cid: s.delete_work_clip(keys, cid)))
        if text is not None:
            await self.triage_call(lambda s: s.note_work(keys, text))
        triage = await self._work_triage(keys)
        said = ["note saved"] if text is not None else []
        if gone:
            said.append(f"{gone} clip{'s' if gone != 1 else ''} deleted")
        self.screen.post_message(TriageChanged(doc, triage, ", ".join(said)))

    def clip(self) -> None:
        """In the reader: clip the paragraph in focus, with its page and section, into the
        document's notes."""
        from .reader_pane import ReaderPane

        reader = self.screen.query_one(ReaderPane)
        para = reader.current_paragraph()
        if para is None:
            self.screen.notify("Open a page in the reader to clip from it.", timeout=2)
            return
        self._run(partial(self._clip, *para), name="Clipping", group="triage")

    async def _clip(self, doc: str, text: str, page: int, section: str) -> None:
        from ..triage.store import Clip

        label = await asyncio.to_thread(self.screen.app.gate.run,
                                        lambda lib: lib.page_label(doc, page))
        key = self._doc_key(doc)
        clip = Clip(text, page, label or "", section)
        held = await self._work_triage(self._work_keys(doc))
        if any(c.text == text and c.page == page for c in held.clips):
            # a second y on the same paragraph (the page header had moved on, the focus
            # had not) went into the notes and the exports twice: third trial
            self.screen.notify(f"already clipped: this paragraph of {clip.page_ref}",
                               timeout=3)
            return
        await self.triage_call(lambda s: s.add_clip(key, clip))
        triage = await self._work_triage(self._work_keys(doc))
        first = " ".join(text.split())[:50]
        self.screen.post_message(TriageChanged(
            doc, triage, f"clipped {clip.page_ref}: “{first}…” into the notes"))

    # -- export ----------------------------------------------------------------------------
    def export(self) -> None:
        """Export the marked documents, or all of them (a dialog picks format, which
        documents and file)."""
        from .dialogs import ExportScreen, export_dir

        def done(req: ExportRequest | None) -> None:
            if req is not None:
                self._run(partial(self._export, req), name="Export", group="export")

        self.screen.app.push_screen(ExportScreen(
            Path(self.root).name,
            where=export_dir(self.start_dir, self.last_export, str(self.root)),
            last_export=self.last_export), done)

    async def _export(self, req: ExportRequest) -> None:
        def work() -> int:
            from ..triage.export import export_folder

            text, n = export_folder(self.root, req.fmt, req.marked, self.screen.app.cache_dir,
                                    self.triage_gate.data_dir)
            if n == 0:   # an empty list written silently (thirteenth trial): nothing
                return 0
            tmp = req.path + ".part"
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            os.replace(tmp, req.path)
            return n

        n = await asyncio.to_thread(work)
        if n == 0:
            self.screen.notify("No documents to export: nothing is marked that way; no file "
                               "written (Documents: all documents exports every one).",
                               title="Export", severity="warning", timeout=8)
            return
        self.last_export = req.path   # offered next time, also after a restart
        self.schedule_session_save()
        from .dialogs import EXPORT_FORMATS

        label = next(lbl for v, lbl, _e in EXPORT_FORMATS if v == req.fmt)
        self.screen.notify(f"{n} document{'s' if n != 1 else ''} written to "
                           f"{clean_text(req.path)} as {label}", title="Exported",
                           timeout=8)

    # -- the viewer --------------------------------------------------------------------------
    def open_viewer(self) -> None:
        """Open the current hit's (or the reader's) page in the user's PDF viewer; with no
        display, copy ``path#page=N`` to the clipboard (OSC 52) and show it."""
        cur = self.current_document()
        if cur is None:
            self.screen.notify("No page here to open.", timeout=2)
            return
        held = self.screen.app.keys.hold_keys()   # they act on its dialog, if it opens one
        self._run(partial(self._open_viewer, *cur, held), name="Opening the viewer",
                  group="viewer")

    async def _open_viewer(self, doc: str, page: int, held: int = 0) -> None:
        from ..triage.viewer import open_at_page

        # the path as the folder was given (a symbolic link is not resolved)
        path = os.path.join(getattr(self.screen.app, "given_root", self.root), doc)
        try:
            # a bad $PDFTUI_VIEWER raises ViewerError: FailureHandler says so
            launch = await asyncio.to_thread(open_at_page, path, page)
            started = self._viewer_outcome(launch)
        finally:
            self.screen.app.keys.release_keys(held)
        if started:
            error = await asyncio.to_thread(launch.error)
            if error:
                self.screen.notify(clean_text(error), title="Viewer failed",
                                   severity="error", timeout=8)

    def _viewer_outcome(self, launch) -> bool:
        """Say what ``launch`` (:func:`pdftui.triage.viewer.open_at_page`) did: the
        viewer started (True), or the path's dialog, or why not."""
        from .dialogs import CopyPathScreen

        notify = self.screen.notify
        if not launch.started:
            if launch.clipboard:
                # OSC 52 cannot be confirmed (tmux drops it by default): the path is
                # also shown, to be selected by hand
                self.screen.app.copy_to_clipboard(launch.clipboard)
                self.last_clipboard = launch.clipboard
                reason = launch.message.split(": copied ")[0]
                self.screen.app.push_screen(CopyPathScreen(reason, launch.clipboard))
            else:
                notify(clean_text(launch.message), severity="warning", timeout=6)
            return False
        notify(clean_text(launch.message), timeout=3)
        return True

    # -- session and history -------------------------------------------------------------------
    def load_session(self) -> None:
        """Read the folder's last session and query history (at start)."""
        self._run(self._load_session, group="session-load")

    async def _load_session(self) -> None:
        session = await self.triage_call(lambda s: s.session(self.root))
        history = await self.triage_call(lambda s: s.history(self.root, 200))
        self.screen.post_message(SessionLoaded(session, history))

    def current_session(self) -> Session:
        """The session to save now (:class:`pdftui.triage.store.Session`)."""
        from ..triage.store import ReaderPosition, Session
        from .reader_pane import ReaderPane
        from .reader_widgets import ReaderBody

        screen = self.screen
        reader = screen.query_one(ReaderPane).view
        position = None
        if reader is not None:
            section = reader.section_id if reader.request.kind == "section" else None
            position = ReaderPosition(reader.request.doc, reader.page, section,
                                      reader.request.kind,
                                      int(screen.query_one(ReaderBody).scroll_y))
        scope = (f"mark:{screen.scope_mark}",) if screen.scope_mark else tuple(screen.scope)
        return Session(screen.query_one("#query").value.strip(), screen.mode,
                       screen.granularity, scope, position, self.last_export)

    def schedule_session_save(self) -> None:
        """Save the session after :data:`SESSION_SAVE_S` of quiet."""
        if self.restoring or not self.session_restored:
            return
        if self._session_timer is not None:
            self._session_timer.stop()
        self._session_timer = self.screen.set_timer(SESSION_SAVE_S, self._save_session_now)

    def _save_session_now(self) -> None:
        self._session_timer = None
        app = self.screen.app
        if app._exit or not app.screen_stack:
            return   # closing: action_quit saves the last state
        session = self.current_session()
        self._run(partial(self._save_session, session), group="session", exclusive=True)

    async def _save_session(self, session: Session) -> bool:
        try:
            await self.triage_call(lambda s: s.save_session(self.root, session))
        except Exception:  # noqa: BLE001 - said when quitting (unsaved_work)
            return False
        return True

    async def save_session_final(self) -> None:
        """Save the session now (on quit), off the UI thread."""
        if self._session_timer is not None:
            self._session_timer.stop()
            self._session_timer = None
        if self.session_restored and self.screen.app.screen_stack:
            await self._save_session(self.current_session())

    def remember_query(self, query: str) -> None:
        """Add ``query`` to the folder's history (memory at once, the store in order)."""
        query = query.strip()
        if not query:
            return
        self.history = [query] + [q for q in self.history if q != query]
        self._history_pos = -1
        self._run(partial(self._add_history, query), group="triage")

    async def _add_history(self, query: str) -> None:
        try:
            await self.triage_call(lambda s: s.add_history(self.root, query))
        except Exception:  # noqa: BLE001 - the in-memory history still works
            pass

    def step_history(self, delta: int) -> None:
        """Up (+1: older) / Down (-1: newer) in the search box walk the folder's queries,
        passing over the one the box holds; below the newest, the text being typed comes
        back; text typed over a recalled query starts the walk again from it."""
        box = self.screen.query_one("#query")
        if not self.history:
            return
        if self._history_pos != -1 and box.value != self.history[self._history_pos]:
            self._history_pos = -1   # text typed over a recalled query: a new walk
        if self._history_pos == -1:
            self._history_draft = box.value
        pos = self._history_pos + delta
        # a query the box holds already is no step (Up first showed the query there)
        while 0 <= pos < len(self.history) and self.history[pos] == box.value.strip():
            pos += delta
        pos = max(-1, min(len(self.history) - 1, pos))
        if pos == self._history_pos or (pos >= 0 and self.history[pos] == box.value.strip()):
            return
        self._history_pos = pos
        box.value = self._history_draft if pos == -1 else self.history[pos]
        box.cursor_position = len(box.value)

    def close(self) -> None:
        """Wait for the store calls queued, then close the store (on the app's unmount)."""
        self._pool.shutdown(wait=True)
        self.triage_gate.close()
