"""The key router: every key the app reads is routed here first, so that no key of a burst
is lost or reordered.

Textual forwards each key to the widget focused *when the app reads it*, and a key the
widget does not take itself (Ctrl+U, Backspace, Esc: bindings) is run only when it has
bubbled back up to the app, after the printable keys read since: "/", a query and Ctrl+U
quickly cleared the query typed after it. So on the main screen every key meant for the
search box is handled here, in the order read: "/" focuses the box at once, printable keys
are typed into it, and the box's bindings (then the app's) run at once. Outside the box a
printable key is a command of the focused pane or nothing (a hint says so): never typed
into the box, never both. A key that opens a text field (:data:`~.actions.OPENERS`) holds
the keys read after it until the field has the focus, then types them there. Enter on
a list whose choice opens the reader (the hits, the documents) or in the search box
likewise holds the keys read after it until the pane it leads to has the focus
(:meth:`KeyRouter.pane_shown`): the choice travels as messages, and a Tab read meanwhile
moved on from where the focus was, not from where it was going. The keys read before the
last session is back (its mode, granularity, scope and focus) wait for it
(:meth:`KeyRouter.session_back`): typed at launch, they had dropped that session.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import events
from textual.widgets import Input, TextArea

from ..text import clean_text
from .actions import OPENERS

#: Escape then a key read together ("Esc f" typed fast, or sent in one burst) reach the
#: app as one key: the terminal parser reads ESC + a character as Alt+character, ESC f /
#: ESC b as Ctrl+Right / Left and ESC Tab as Shift+Tab, and drops the Esc of ESC Enter,
#: so "e Esc f" left the export dialog open, "Esc Tab" from the filter went backwards and
#: "a text Esc Tab" left the note editor open. pdftui binds no Alt key: an Alt+character
#: is Esc then the character (:func:`as_typed`), ESC f / ESC b are left to that rule, and
#: ESC Tab / ESC Enter read as the two keys (a terminal's own Shift+Tab is ESC [ Z).
ESCAPE_PAIRS = ("\x1bf", "\x1bb")


def unbind_escape_pairs() -> None:
    """Fix Textual's table of terminal sequences for :data:`ESCAPE_PAIRS` (once, before
    the app reads keys): ESC f / ESC b out of it, ESC Tab and ESC Enter as Esc and the
    key."""
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
    from textual.keys import Keys

    for seq in ESCAPE_PAIRS:
        ANSI_SEQUENCES_KEYS.pop(seq, None)
    ANSI_SEQUENCES_KEYS["\x1b\t"] = (Keys.Escape, Keys.Tab)
    ANSI_SEQUENCES_KEYS["\x1b\r"] = (Keys.Escape, Keys.Enter)


def as_typed(event: events.Key) -> list[events.Key] | None:
    """The keys typed where a terminal's bytes read as another key, else None: an
    Alt+character key is ``[Esc, the key]``; Ctrl+J (LF) is ``[Enter]``, as readline
    reads it (an Enter typed before the app put the terminal in raw mode arrives as LF,
    the line mode's ICRNL: "query Enter Down Down Enter" typed at launch never opened
    the reader)."""
    if event.key == "ctrl+j":
        return [events.Key("enter", "\r")]
    if not event.key.startswith("alt+") or not event.character or \
            len(event.character) != 1:
        return None
    key = event.key.removeprefix("alt+")
    return [events.Key("escape", "\x1b"), events.Key(key, event.character)]

#: Seconds the keys typed after Enter in the search box wait for its answer at most.
SEARCH_HOLD_S = 5.0
#: Seconds after the restored session moved the focus to a pane in which the first keys,
#: if text, still go to the search box (they were typed as the app opened: the move comes
#: with the first paint, and a query typed 0.6 s after it, 1.1 s after launch, ran as the
#: results pane's commands, "a" opening the note editor).
LAUNCH_TYPING_S = 1.5
#: Seconds the keys read at launch wait for the last session at most (it is back in
#: tens of milliseconds; a session store another process holds must not keep them).
SESSION_HOLD_S = 2.0

#: Keys that leave the reader (another pane, the search box, back, quit): they need not
#: wait for the document it is loading (:meth:`KeyRouter.reader_ready`).
LEAVING_KEYS = frozenset({"tab", "shift+tab", "escape", "slash", "ctrl+q"})

#: Where Enter moves the focus to another pane: the lists whose choice opens in the
#: reader (the hits, the documents) and the search box (its query's results).
MOVERS = frozenset({"hits", "doc-list", "query"})

if TYPE_CHECKING:
    from .app import PdftuiApp


class KeyRouter:
    """Routes the keys of ``app`` (see the module docstring); the app calls :meth:`route`
    for each key it reads before Textual forwards it."""

    def __init__(self, app: PdftuiApp) -> None:
        self.app = app
        self._key_buffer: list[events.Key] | None = None   # see route, _flush_keys
        self._opener_key = ""   # the last opener's key, for _flush_keys's hint
        self._moving = 0   # the serial of an Enter whose pane change is on its way, or 0
        self._serial = 0
        #: the serial of an Enter in the search box whose answer is on its way, or 0
        self._await_search = 0
        self._keyed = False   # a key has reached the main screen's panes or box
        #: the keys read before the last session came back (None: it is back)
        self._before_session: list[events.Key] | None = []
        #: the keys for the reader read while it switched documents (reader_ready)
        self._for_reader: list[events.Key] = []

    def held_for_session(self, event: events.Key) -> bool:
        """Hold ``event`` when the last session is not back yet (True: held, to be read
        again by :meth:`session_back`). Keys typed at launch had dropped the session's
        mode, granularity and scope: a key pressed while it loaded wins over it."""
        if self._before_session is None:
            return False
        self._before_session.append(event)
        event.stop()
        return True

    def hold_typed(self, sent: str) -> None:
        """Hold the keys of ``sent`` (what the terminal sent before the app read it:
        :mod:`.typeahead`) ahead of any key held since, for :meth:`session_back`."""
        from . import typeahead

        if self._before_session is not None:
            self._before_session[:0] = typeahead.keys_of(sent)
        else:
            self._repost(typeahead.keys_of(sent))

    def session_back(self) -> None:
        """The last session is restored (or none came back in :data:`SESSION_HOLD_S`):
        the keys held since launch run now, in order, from the state it left."""
        held, self._before_session = self._before_session, None
        if held:
            self._repost(held)

    async def route(self, event: events.Key) -> bool:
        """True when ``event`` was handled here (Textual must not forward it)."""
        app = self.app
        if self._key_buffer is not None:   # a field opened by an earlier key: held for it
            self._key_buffer.append(event)
            event.stop()
            return True
        if not app.screen_stack:
            return False
        main = app.main_screen
        if app.screen is main and event.key == "enter" and app.focused is not None \
                and app.focused.id in MOVERS:
            # the choice reaches the main screen as messages: hold what follows until the
            # reader it opens has the focus (pane_shown), else a few refreshes
            self._serial += 1
            self._key_buffer, self._moving = [], self._serial
            app.call_after_refresh(self._release, self._serial, 10)
            if app.focused.id == "query":   # the box's Enter runs here, at once
                # and the keys after it act on its answer, not on the list it replaces
                # ("query Enter Down Down Enter" opened the last answer's #3)
                self._await_search = serial = self._serial
                app.set_timer(SEARCH_HOLD_S, lambda: self._search_waited(serial))
                return await self._box_key(app.focused, event)
            return False
        if app.screen is not main:   # a dialog: its fields keep the order too
            focused = app.focused
            if isinstance(focused, Input):
                return await self._field_key(focused, event)
            return await self._dialog_key(event)
        focused = app.focused
        box = next(iter(main.query("#query").results(Input)), None)
        if box is None:   # the main screen is closing (a key queued before quit)
            return False
        if focused is None and event.is_printable:
            # keys read before the screen focused anything (at launch, the box not yet
            # focused): text, so a query ("linear attention" typed at launch ran "e",
            # the export, and lost "lin"; tenth check)
            main.set_focus(box)
            focused = box
        if focused is not box and self._typed_at_launch(event):
            # text typed as the app opened is a query, though the restored session moved
            # the focus to a pane just before it was read ("linear attention" typed at
            # launch ran as the documents pane's commands: e opened the export dialog)
            main.focus_box(select=True)
            focused = box
        self._keyed = True
        if focused is box:
            return await self._box_key(box, event)
        if isinstance(focused, Input):      # the documents filter
            return await self._field_key(focused, event)
        if isinstance(focused, TextArea):
            return False
        if main.current_pane() == "reader" and (self._for_reader or (
                main.reader_switching() and event.key not in LEAVING_KEYS)):
            if not self._for_reader:   # a load that never lands must not keep them
                self.app.set_timer(SEARCH_HOLD_S, self.reader_ready)
            self._for_reader.append(event)   # for the document coming, not the one leaving
            event.stop()
            return True
        return await self._pane_key(event)

    def hold_keys(self) -> int:
        """Hold the keys read from now on until :meth:`release_keys` with the serial
        returned (or :data:`SEARCH_HOLD_S`): for a key whose outcome comes from a worker
        and may be a dialog ("o": the viewer, else the path's dialog; the "l" read after
        it opened "More like this" under that dialog)."""
        self._serial += 1
        serial = self._serial
        self._key_buffer, self._moving = [], serial
        self.app.set_timer(SEARCH_HOLD_S, lambda: self._release(serial, 0))
        return serial

    def release_keys(self, serial: int) -> None:
        """The outcome of :meth:`hold_keys` ``serial`` is on screen: the keys held run
        after the next refresh, where the focus is then (in its dialog)."""
        self.app.call_after_refresh(self._release, serial, 0)

    def reader_ready(self) -> None:
        """The reader shows the document it was switching to (or failed to): the keys
        held for it run now, in order."""
        held, self._for_reader = self._for_reader, []
        if held:
            self._repost(held)

    def pane_shown(self) -> None:
        """A pane took the focus (:meth:`.main_screen.MainScreen.show_pane`): the keys
        held since an Enter that was moving the focus run now, from there."""
        if self._moving:
            self.app.call_later(self._release, self._moving, 0)

    def _typed_at_launch(self, event: events.Key) -> bool:
        """Is ``event`` text typed at launch: a printable key read within
        :data:`LAUNCH_TYPING_S` after the restored session moved the focus to a pane,
        before any other key reached the main screen?"""
        moved = getattr(self.app.main_screen, "restored_focus_at", None)
        return not self._keyed and event.is_printable and moved is not None and \
            time.monotonic() - moved < LAUNCH_TYPING_S

    def search_landed(self) -> None:
        """The answer of the search box's Enter is on screen (or failed, or there was
        nothing to search): the keys held since run now."""
        serial, self._await_search = self._await_search, 0
        if serial:
            self.app.call_later(self._release, serial, 0)

    def _search_waited(self, serial: int) -> None:
        """:data:`SEARCH_HOLD_S` after the box's Enter: the keys held run now, answer or
        not (a search that never lands must not keep them)."""
        if self._await_search == serial:
            self.search_landed()

    def _release(self, serial: int, tries: int) -> None:
        """Run the keys held since a moving Enter (see :meth:`route`): now when ``tries``
        is 0 (the pane is shown), else after ``tries`` more refreshes unless
        :meth:`pane_shown` came first (an Enter that opened nothing: a group row). An
        Enter in the search box waits for its answer instead (:meth:`search_landed`)."""
        if self._moving != serial or self._await_search == serial:
            return
        if tries:
            self.app.call_after_refresh(self._release, serial, tries - 1)
            return
        held, self._key_buffer, self._moving = self._key_buffer or [], None, 0
        self._repost(held)

    def _repost(self, held: list[events.Key]) -> None:
        """Post the keys ``held`` again, in order, ahead of any key read after them."""
        for old in held:
            event = events.Key(old.key, old.character)
            event.set_sender(self.app)
            self.app.post_message(event)

    async def _dialog_key(self, event: events.Key) -> bool:
        """A bound key of a dialog outside its text fields: run now, and the keys read
        after it held for a refresh (then posted again, in order), so that each acts
        where the one before left the focus: "b Esc Shift+Tab" lost the Shift+Tab to the
        closing dialog, and "Enter Down Enter" on the export's format list ran Down
        before the list it opened had the focus (fourth trial)."""
        app = self.app
        active = app.screen.active_bindings
        bound = next((active[k] for k in (event.key, *event.aliases) if k in active), None)
        if bound is None or not bound.enabled:
            return False
        event.stop()
        self._serial += 1
        self._key_buffer, self._moving = [], self._serial
        if not await app._check_bindings(event.key, priority=True):
            await app._check_bindings(event.key)
        app.call_after_refresh(self._release, self._serial, 0)
        return True

    async def _pane_key(self, event: events.Key) -> bool:
        """A key of a pane of the main screen (the focus outside the text fields)."""
        app = self.app
        active = app.screen.active_bindings
        keys = [event.key, *event.aliases]
        bound = next((active[k] for k in keys if k in active), None)
        if bound is not None and bound.binding.id == "search.focus" and bound.enabled:
            app.main_screen.focus_box()
            return True
        if bound is not None and bound.enabled and bound.binding.id in OPENERS:
            # f, a, g, e open a field (a filter box, a dialog) that takes the focus only
            # later: the keys read until then are held and typed into it, in order
            event.stop()
            self._key_buffer = []
            self._opener_key = event.character or event.key
            await app.run_action(bound.binding.action, bound.node)
            app.call_after_refresh(self._flush_keys)
            return True
        if bound is not None and bound.enabled:
            # every bound key runs now, in the order read, through the bindings as
            # bubbling would reach them (a skipped action passes on to the next): left to
            # bubble up, "k" ran after a "/" read behind it had focused the box ("k /"
            # lost the keyword mode), and a mark run at once while the arrows before it
            # still waited marked the row the cursor had left ("Down Down +")
            event.stop()
            return await app._check_bindings(event.key, priority=True) or \
                await app._check_bindings(event.key)
        if bound is None and event.is_printable:
            # no command of this pane: said, not typed into the box (that replaced the
            # query, and a word typed outside the box ran half of its letters as commands)
            app.notify(f"{clean_text(event.character or '')!r} is no key here · / search"
                       " · ? keys", timeout=2)
            event.stop()
            return True
        return False

    async def _flush_keys(self, tries: int = 10, in_dialog: bool | None = None) -> None:
        """Type the keys held since an opener (:data:`OPENERS`) into the text field it
        opened, once one has the focus (after up to ``tries`` refreshes). When no text
        field took it (the opener had nothing to act on: "a" with nothing to attach a note
        to, "g" with no page; or its dialog starts on a list), the other keys run where
        the focus is, but the printable ones are dropped with a hint: they were typed as
        text and never run as commands ("a2 pink" switched the mode and the
        granularity)."""
        app = self.app
        if in_dialog is None:
            if not isinstance(app.focused, (Input, TextArea)) and tries:
                app.call_after_refresh(self._flush_keys, tries - 1)
                return
            in_dialog = app.screen is not app.main_screen
        held, self._key_buffer = self._key_buffer or [], None
        dropped = 0
        for i, event in enumerate(held):
            if in_dialog and app.screen is app.main_screen:
                # a held key (Esc) closed the dialog the opener opened: the keys after
                # it are the pane's again ("e Esc k" lost the k)
                self._repost(held[i:])
                break
            focused = app.focused
            if isinstance(focused, Input):
                await self._field_key(focused, event)
                if app.focused is not focused and held[i + 1:]:
                    # a key of the field left it (Down from the documents filter to
                    # the list): the rest are keys of where the focus went, routed
                    # again ("f alibi Down +" had dropped the "+": fifth trial), after
                    # a refresh: the field's own messages (the filter's Changed) first
                    app.call_after_refresh(self._repost, held[i + 1:])
                    break
            elif isinstance(focused, TextArea) and (event.is_printable
                                                    or event.key == "enter"):
                focused.insert("\n" if event.key == "enter" else event.character)
            elif event.is_printable:
                dropped += 1
            else:
                if not await app._check_bindings(event.key, priority=True):
                    await app._check_bindings(event.key)
                if held[i + 1:]:   # it may move the focus (Enter opening a list): the
                    # next key acts after a refresh, where the focus went
                    self._key_buffer = held[i + 1:]
                    app.call_after_refresh(self._flush_keys, 0, in_dialog)
                    break
        if dropped:
            app.notify(f"{self._opener_key!r} opened no text field: the {dropped} "
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
        return await self.app._check_bindings(event.key, priority=True) or \
            await self.app._check_bindings(event.key)

    async def _box_key(self, box: Input, event: events.Key) -> bool:
        """Handle a key of the focused search box here, in the order keys arrive."""
        if not box.value and event.character == "/":
            # "/" (the search key) is already where it leads; "?" is text like any other
            # character (a query may start with it; F1 is the help in the box)
            return True
        return await self._field_key(box, event)
