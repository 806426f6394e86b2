"""The pdftui App: its default screen is :class:`~.main_screen.MainScreen` (the search box,
the documents | results | reader panes, the status line); the app holds what is not one
screen's: the folder's settings, the search service, the keys and keymap, the key router,
the help, the command palette and quitting.

Every binding has an ``id`` so a keymap (``PdftuiApp(keymap={"mode.keyword": "K"})`` or
env ``PDFTUI_KEYMAP="mode.keyword=K,..."``) can remap it. The keys are bound here (the
table of :mod:`.actions`); the actions of the main screen's keys call its methods. Importing
this module does not import fastembed: the model is loaded by the service at the first
semantic or hybrid query.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import App, SystemCommand
from textual.screen import Screen
from textual.widgets import Input

from ..text import clean_text
from .actions import (bindings, full_keymap, help_groups, key_label, keymap_from_env,
                      palette_actions)
from .corpus_pane import CorpusPane, DocList
from .data import LibraryGate, TriageGate
from .dialogs import ConfirmQuitScreen
from .help_screen import HelpScreen
from .key_router import KeyRouter, as_typed, unbind_escape_pairs
from .main_screen import TAB_PANES, MainScreen
from .reader_widgets import ReaderBody
from .results_pane import ResultsPane

if TYPE_CHECKING:
    from textual.driver import Driver

    from ..search.service import SearchService
    from .actions import Action

#: Seconds of quiet typing before a search-as-you-type runs.
DEBOUNCE_S = 0.25


#: A notification shown at most this many seconds is a passing note (see ``_on_notify``).
PASSING_NOTE_S = 30


class PdftuiApp(App):
    """Search and read a folder of PDFs: ``PdftuiApp(folder, cache_dir=..., model=...).run()``.

    Keyword-only arguments for tests and embedding: ``index`` (bring the cache up to date in
    the background, default True), ``watch`` (follow changes of the folder, default True),
    ``show_timings`` (elapsed ms in the coverage line; default: env ``PDFTUI_HIDE_TIMINGS``
    unset), ``service`` (a ready :class:`~pdftui.search.service.SearchService` to share),
    ``keymap`` (binding id -> key), ``debounce`` (seconds of quiet typing before a search
    as you type), ``data_dir`` (the user data: marks, notes, session; default
    ``$PDFTUI_DATA_DIR`` or the platform user data dir).
    """

    CSS_PATH = "pdftui.tcss"
    TITLE = "pdftui"
    ENABLE_COMMAND_PALETTE = True
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-medium"), (150, "-wide")]

    #: Keys that work everywhere (from :data:`~.actions.ACTIONS`). The footer shows only the
    #: few that matter in the focused pane (the panes repeat theirs), so it fits in 80 columns.
    BINDINGS = bindings("app")

    def __init__(self, folder: str | os.PathLike = ".", cache_dir: str | os.PathLike | None = None,
                 model: str | None = None, *, index: bool = True, watch: bool = True,
                 show_timings: bool | None = None, service: SearchService | None = None,
                 keymap: dict[str, str] | None = None, debounce: float = DEBOUNCE_S,
                 data_dir: str | os.PathLike | None = None) -> None:
        super().__init__()
        self.root = os.path.realpath(os.fspath(folder))
        #: the folder as it was given (absolute, symbolic links kept): the paths shown
        #: to the user to open or copy name the files the way the user knows them
        self.given_root = os.path.abspath(os.fspath(folder))
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
        self.triage_gate = TriageGate(data_dir)   # the user data (marks, notes, session)
        self._keymap = full_keymap({**keymap_from_env(), **(keymap or {})})
        self.keys = KeyRouter(self)
        unbind_escape_pairs()   # Esc f / Esc b / Esc Tab read fast: Esc, then the key
        self._main_screen: MainScreen | None = None   # made when the app starts
        self.sub_title = clean_text(Path(self.root).name)

    def _on_notify(self, event) -> None:
        """One passing note at a time: a new one replaces the information notes still
        shown (two stacked notes covered six lines of the reader at 80x24); warnings,
        errors and notes that stay until dismissed are kept."""
        for old in list(self._notifications):
            if old.severity == "information" and old.timeout <= PASSING_NOTE_S:
                self._unnotify(old, refresh=False)
        super()._on_notify(event)

    def get_default_screen(self) -> MainScreen:
        """The main screen, the bottom of the screen stack."""
        self._main_screen = MainScreen(self.triage_gate)
        return self._main_screen

    def on_mount(self) -> None:
        if self._keymap:
            self.set_keymap(self._keymap)

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, reading Esc + a key typed quickly as both (:mod:`.keys`)."""
        from .keys import driver_class

        return driver_class(super().get_driver_class())

    @property
    def main_screen(self) -> MainScreen:
        """The screen holding the panes (the bottom of the stack; also while the app
        closes, when the stack is gone)."""
        return self._main_screen if self._main_screen is not None else self.screen_stack[0]

    async def get_service(self) -> SearchService:
        """The search service, created on first use (the import runs off the UI thread)."""
        async with self._service_lock:
            if self.service is None:
                def make() -> SearchService:
                    from ..search.service import SearchService

                    return SearchService(self.root, cache_dir=self.cache_dir, model=self.model)

                self.service = await asyncio.to_thread(make)
            return self.service

    async def on_event(self, event: events.Event) -> None:
        """Route a key before Textual forwards it, so that no key of a burst is lost or
        reordered (:class:`~.key_router.KeyRouter`)."""
        if isinstance(event, events.Key) and not event.is_forwarded:
            if not self.screen_stack:   # the app is closing: a key queued before is dropped
                return
            parts = as_typed(event)
            if parts is not None:   # Esc and a key read as one, LF read for Enter
                for part in parts:
                    part.set_sender(self)
                    await self.on_event(part)
                return
            if self.keys.held_for_session(event):   # until the last session is back
                return
            self.main_screen.triage.user_acted = True
            if await self.keys.route(event):
                return
        await super().on_event(event)

    # -- the keys' actions (see :mod:`.actions`) -------------------------------------------
    def action_focus_search(self) -> None:
        """Focus the search box (at once, not after a refresh: see :mod:`.key_router`)."""
        self.main_screen.focus_box()

    def action_pane(self, delta: int) -> None:
        """Next / previous pane (in other screens: next / previous widget)."""
        if self.screen is not self.main_screen:
            if delta > 0:
                self.screen.focus_next()
            else:
                self.screen.focus_previous()
            return
        self.main_screen.next_pane(delta)

    def action_back(self) -> None:
        """Back: reader (or documents, or the search box) -> results (or compare)."""
        self.main_screen.back()

    def action_hit(self, delta: int) -> None:
        """Next / previous hit (in the reader: in the open document)."""
        self.main_screen.step_hit(delta)

    def action_more_hits(self) -> None:
        """``m``: more hits of the current query."""
        self.main_screen.more_hits()

    def action_mode(self, mode: str) -> None:
        """Switch to keyword / semantic / hybrid ranking."""
        self.main_screen.mode = mode

    def action_granularity(self, to: str | None = None) -> None:
        """Rank ``to`` ("page" / "section"; None: the other one)."""
        screen = self.main_screen
        screen.granularity = to or ("section" if screen.granularity == "page" else "page")

    def action_clear_scope(self) -> None:
        """Search the whole folder again, from any pane."""
        self.main_screen.clear_scope()

    def action_scope_marked(self) -> None:
        """``*``: the scope cycles through marked keep, to read and the whole folder."""
        self.main_screen.scope_marked()

    def action_compare(self) -> None:
        """Keyword, semantic and hybrid lists side by side."""
        self.main_screen.compare()

    def action_suggestion(self) -> None:
        """Search the suggested spelling."""
        self.main_screen.suggestion()

    def action_history(self, delta: int) -> None:
        """Up (+1: older) / Down (-1: newer) in the search box: the folder's queries."""
        self.main_screen.triage.step_history(delta)

    def action_mark(self, value: str) -> None:
        """Mark the current document keep / to-read / skip, or clear its mark."""
        self.main_screen.triage.mark(value)

    def action_note(self) -> None:
        """Edit the current document's note."""
        self.main_screen.triage.note()

    def action_clip(self) -> None:
        """In the reader: clip the paragraph in focus into the document's notes."""
        self.main_screen.triage.clip()

    def action_open_viewer(self) -> None:
        """Open the current page in the user's PDF viewer."""
        self.main_screen.triage.open_viewer()

    def action_export(self) -> None:
        """Export the marked documents, or all of them (a dialog)."""
        self.main_screen.triage.export()

    def action_citations(self, kind: str) -> None:
        """A citation list of the current document: its references, the papers citing it,
        or more like it (:mod:`.citations_screen`)."""
        self.main_screen.open_citations(kind)

    def action_help(self) -> None:
        """Show every key."""
        self.push_screen(HelpScreen(help_groups(self._keymap)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("mode", "granularity", "compare", "hit", "focus_search", "back") and \
                self.screen is not self.main_screen:
            return False
        if action == "focus_search" and isinstance(self.focused, Input):
            return False   # "/" types a slash in a text field: the footer does not offer it
        if action == "granularity" and parameters:
            return parameters[0] != self.main_screen.granularity   # "p Sections" in pages
        return True

    # -- the command palette --------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The palette lists every action of the table (Ctrl+P), then Textual's own."""
        seen = set()
        granularity = self.main_screen.granularity
        for a in palette_actions():
            if a.palette in seen or (a.id.startswith("granularity") and
                                     a.action == f"granularity('{granularity}')"):
                continue
            seen.add(a.palette)
            yield SystemCommand(a.palette, f"key {key_label(a, self._keymap)}",
                                lambda a=a: self._run_table_action(a))
        for command in super().get_system_commands(screen):
            if command.title not in seen:   # Textual's own "Quit" is ours already
                yield command

    def _run_table_action(self, action: Action) -> None:
        """Run a table action in its pane's namespace (from the palette)."""
        namespace = {"reader": ReaderBody, "documents": CorpusPane, "doclist": DocList,
                     "results": ResultsPane}
        widget = namespace.get(action.pane)
        main = self.main_screen
        target = main.query_one(widget) if widget else None
        view = {"documents": "corpus", "doclist": "corpus"}.get(action.pane, action.pane)
        if view in TAB_PANES and self.screen is main:
            main.view = view   # shown first (on a narrow screen), so focus can land there
            if action.pane == "doclist":
                self.call_after_refresh(target.focus)
        self.call_after_refresh(self.run_action, action.action, target)

    # -- quitting -------------------------------------------------------------------------
    async def action_request_quit(self) -> None:
        """``q``: quit, asking first when something would be lost (Ctrl+Q never asks)."""
        lost = self.main_screen.unsaved_work()
        if not lost:
            await self.action_quit()
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.call_later(self.action_quit)

        self.push_screen(ConfirmQuitScreen(lost), answered)

    async def action_quit(self) -> None:
        """Save the session, stop the background work and quit (Ctrl+Q, or ``q`` once
        confirmed)."""
        await self.main_screen.triage.save_session_final()
        self.main_screen.folder.stop()
        self.exit()

    async def on_unmount(self) -> None:
        main = self._main_screen
        if main is not None:
            main.folder.stop()
        if self._own_service and self.service is not None:
            close = getattr(self.service, "close", None)
            if close:
                await asyncio.to_thread(close)
        await asyncio.to_thread(self.gate.close)
        if main is not None:
            await asyncio.to_thread(main.triage.close)


__all__ = ["PdftuiApp"]
