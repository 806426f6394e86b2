"""The reader pane: a page, or the whole section that encloses it, with the query highlighted.

It opens on a hit's page with the hit's block in view (marked with a bar at its left) and
the query's words highlighted. ``←``/``→`` step pages; PageDown/PageUp scroll a screen and
step to the next/previous page (section, in a section view) at the end/start of one (a
pager's habit); ``[``/``]`` go to
the previous/next section; ``v`` toggles between the page and the whole enclosing section
(breadcrumb "p. 7-9 / 15 · 3 Model > 3.2 Attention"); ``g`` jumps to a page; ``n``/``N``
(app bindings) go to the next/previous hit in this document.

All cache reads run in a thread worker (:class:`~pdftui.tui.data.LibraryGate`); the worker
posts :class:`ReaderPane.Loaded` and only the UI thread touches widgets. What is read
(:mod:`.read_view`), the pane's widgets (:mod:`.reader_widgets`) and the go-to-page dialog
(:mod:`.goto_page`) are modules of their own.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..document import innermost
from ..hidden_text import HiddenSpan, label
from ..headings import split_heading
from ..text import clean_text
from .failures import FailureHandler
from .goto_page import GoToPageScreen, label_of, page_for
from .messages import PaneFocused
from .page_view import PageShot
from .read_view import ReadRequest, ReadView, heading_starts, load_view, prose_from
from .reader_widgets import ReaderBody, ReaderImage, TocList, toc_prompt
from .results_pane import short_section
from .render import hidden_line, highlight, literal, page_ref

if TYPE_CHECKING:
    from ..search.hits import Hit



#: What the reader says while nothing is open (true before a query too: no hit yet).
NOTHING_OPEN = ("Nothing open: Enter reads the document (or hit) under the cursor; "
                "/ searches.")


def page_rule(view: ReadView, index: int) -> Text | None:
    """The dim rule "── p. 7 ──" put before paragraph ``index`` of a section view when it
    is the first on a new page, else None."""
    pos = view.para_pos
    if view.request.kind != "section" or not pos or not 0 < index < len(pos):
        return None
    page = pos[index][0]
    if page == pos[index - 1][0]:
        return None
    return Text(f"── p. {page_ref(page, label_of(view.labels, page))} ──", style="dim")


#: A reader narrower than this (columns) shows its contents list instead of the text while
#: the list has the focus, and hides it otherwise.
SLIM_WIDTH = 72


class ReaderPane(FailureHandler, Vertical):
    """A page or a whole section of one document, with terms highlighted."""

    @dataclass
    class Loaded(Message):
        """A page or section finished loading in the worker."""

        serial: int
        view: ReadView

    @dataclass
    class ViewShown(Message):
        """A page or section is on screen (the app saves the session)."""

        view: ReadView

    def __init__(self, gate, **kwargs) -> None:
        super().__init__(**kwargs)
        self.gate = gate
        self.view: ReadView | None = None
        self._placed: ReadView | None = None   # placed by us, not moved by the reader since
        self._landed: ReadView | None = None   # the last view scrolled to its place
        self.pattern: re.Pattern[str] | None = None
        self.hits: list[Hit] = []
        #: The index in ``hits`` of the hit opened or stepped to last (None: none)
        self.hit_at: int | None = None
        self.stepped_to: tuple[str, int] | None = None  # (doc, page) reached with n / N
        self.top_page: int | None = None   # a section view: the page at the top of the screen
        #: the search (its request) on screen when what the reader shows was chosen (a
        #: hit opened, a document picked): Tab to the reader follows a newer one
        self.search_seen: object | None = None
        self.toc_shown = False
        self._toc_doc: str | None = None   # the document the contents list shows
        self._focus_toc = False            # focus the contents once the view is loaded
        self._serial = 0
        self._pending: ReadRequest | None = None   # the newest request, until it is shown
        self.opened_hit: Hit | None = None   # the page hit opened last (← comes back to it)
        self._load_job = None   # the worker of the newest request
        self.border_title = "Reader"

    def compose(self) -> ComposeResult:
        yield Static(Text(NOTHING_OPEN, style="dim"), id="reader-head")
        with Horizontal(id="reader-split"):
            yield TocList(id="toc")
            yield ReaderBody(id="reader-body")
            yield ReaderImage(id="reader-image")

    # -- opening --------------------------------------------------------------------------
    def open_hit(self, hit: Hit, pattern: re.Pattern[str] | None, hits: list[Hit]) -> None:
        """Show ``hit``: its page (or its section, for a section hit) with the hit block in
        view; ``hits`` are the current result's hits (for n / N inside this document)."""
        self.pattern = pattern
        self.stepped_to = None
        doc = hit.doc
        if self.view is None or self.view.request.doc != doc:
            self.toc_shown = False   # the contents were of the document read before
        self.set_hits(hits, pattern, doc)
        self.hit_at = next((i for i, h in enumerate(self.hits) if h is hit), None)
        kind = "section" if hit.section is not None else "page"
        self.opened_hit = hit if kind == "page" and hit.excerpt else None
        self.request(ReadRequest(doc, kind, hit.page or 1, hit.excerpt or "",
                                 section_id=hit.section_id))

    def set_hits(self, hits: list[Hit], pattern: re.Pattern[str] | None,
                 doc: str | None = None) -> None:
        """Take the hits of ``doc`` (default: the document shown) among ``hits`` (a
        result's) for n / N, in page order, and highlight by ``pattern``."""
        self.pattern = pattern
        if doc is None:
            doc = self.view.request.doc if self.view is not None else None
        self.hits = sorted((h for h in hits if h.doc == doc),
                           key=lambda h: (h.page or 0, h.rank or 0))
        self.hit_at = None

    def open_document(self, doc: str, page: int = 1, entry: str = "") -> None:
        """Show ``doc`` from page 1 with its table of contents as a browsable list
        (focused, so ↓ and Enter pick a section at once), or at ``page`` (1-based; a
        citing entry's page) without it, scrolled to the paragraph holding ``entry`` (the
        entry's text) and marked as a hit is."""
        self.pattern = None
        self.stepped_to = None
        self.opened_hit = None
        self.hits = []
        self.hit_at = None
        self.toc_shown = page == 1 and not entry
        self._focus_toc = self.toc_shown
        self.request(ReadRequest(doc, "page", page, entry, scroll="target" if entry
                                 else "top"))

    @property
    def switching(self) -> bool:
        """Is another document (or the first) on its way to the screen? The keys for the
        reader wait for it (:meth:`.key_router.KeyRouter.reader_ready`): "Tab g" read as
        the reader followed the results to another paper asked for a page of the paper
        it left (1-34 on Big Bird's 42 pages). Pages of the document shown do not count:
        their turns add up (:meth:`step_page`)."""
        ahead = self._pending
        return ahead is not None and (self.view is None or ahead.doc != self.view.request.doc)

    def request(self, req: ReadRequest) -> None:
        """Load ``req`` in a worker; the newest request wins."""
        self._serial += 1
        self._pending = req
        self._load_job = self._load(self._serial, req, self.pattern)

    @work(thread=True, exclusive=True, group="reader", exit_on_error=False)
    def _load(self, serial: int, req: ReadRequest, pattern) -> None:
        def load(lib):
            # a request overtaken while it waited for the library is not loaded at all:
            # twenty ``]`` pressed under load cost one load, not twenty in a row
            return load_view(lib, req, pattern) if serial == self._serial else None

        view = self.gate.run(load)   # raises: _load_failed
        if view is not None:
            self.post_message(self.Loaded(serial, view))

    FAILURE_HANDLERS = {"reader": "_load_failed"}

    def _load_failed(self, worker, error: BaseException) -> None:
        """The newest load raised (a document gone, a page it no longer has): a
        notification says why; an older load's failure is not news."""
        if worker is self._load_job:
            self._pending = None
            self.report_failure("Reader", error, timeout=None)
            self.app.keys.reader_ready()

    @on(Loaded)
    async def _loaded(self, event: Loaded) -> None:
        event.stop()
        if event.serial != self._serial:
            return  # a newer request is on its way
        self._pending = None
        await self._show_view(event.view)
        self.app.keys.reader_ready()   # the keys read while it came run now, on it

    async def _show_view(self, view: ReadView) -> None:
        self.view = view
        self.top_page = None
        kind = view.request.kind
        self.border_title = f"Reader · {kind}"
        self._update_head()
        body = self.query_one(ReaderBody)
        await body.remove_children()
        widgets = []
        headings = heading_starts(view)
        for i, para in enumerate(view.paragraphs):
            split = split_heading(para, headings[i]) \
                if i in headings and "\n" not in para else None
            if i in view.hidden:   # text a reader of the PDF cannot see: labelled, dimmed
                text = hidden_line(HiddenSpan(view.hidden[i], para), None, len(para))
            elif split is not None:   # the heading on its own line above its paragraph
                text = literal(split[0], style="bold")
                text.append("\n")
                text.append_text(literal(split[1]))
            else:
                text = literal(para, keep_newlines=True)
            highlight(text, self.pattern)
            w = Static(text, markup=False,
                       classes="para -short" if len(para) < 40 and "\n" not in para else "para")
            if i in view.hidden:
                w.add_class("-hidden")
            if i == view.target:
                w.add_class("-hit")
            rule = page_rule(view, i)
            if rule is not None:
                widgets.append(Static(rule, markup=False, classes="page-rule"))
            widgets.append(w)
        if not widgets:
            widgets.append(Static(Text("(this page has no text)", style="dim"), classes="para"))
        await body.mount_all(widgets)
        if view.note:
            self.notify(view.note, title="Reader", timeout=3)
        self._fill_toc()
        self.call_after_refresh(self._scroll, view)
        self.post_message(self.ViewShown(view))
        if self.has_class("-image"):
            self._show_image()

    def _scroll(self, view: ReadView) -> None:
        if view is not self.view:   # a later view was shown before this deferred call ran:
            return                  # its own scroll is the one that counts
        self._scroll_into_place(view)
        self._landed = view
        if view.request.scroll in ("bottom", "before", "target"):
            # the first layout may still change the text's height (a scroll bar appearing
            # re-wraps the paragraphs): place it again once that layout has run
            self.call_after_refresh(self._scroll_again, view)
        # name the section on screen once the (deferred) scroll has landed, even when
        # the scroll position did not change (no scroll event)
        self.call_after_refresh(lambda: self.call_after_refresh(self.follow_scroll))

    def _scroll_again(self, view: ReadView) -> None:
        if view is self.view:
            self._scroll_into_place(view)

    def keep_placed(self) -> None:
        """The body was resized: a view still where it was placed (the reader has not
        scrolled or stepped since) is placed again once the new width's layout has run, since a long
        paragraph re-wrapped to another width moves its match by hundreds of lines."""
        if self._placed is not None and self._placed is self.view:
            self.call_after_refresh(self._scroll_again, self.view)

    def forget_placed(self) -> None:
        """The reader moved: resizes no longer place the view again."""
        self._placed = None

    def _scroll_into_place(self, view: ReadView) -> None:
        body = self.query_one(ReaderBody)
        self._place(view, body)
        self._placed = view

    def _place(self, view: ReadView, body: "ReaderBody") -> None:
        how = view.request.scroll
        if how == "offset":
            body.scroll_to(y=view.request.offset, animate=False)
            return
        if how == "before" and view.stop is not None:
            # the parent's own text fills the screen, ending where the subsection we
            # came from begins
            paras = list(body.query(".para"))
            if view.stop < len(paras):
                y = paras[view.stop].virtual_region.y - body.scrollable_content_region.height
                body.scroll_to(y=max(0, y), animate=False)
                return
        if how in ("bottom", "before"):
            body.scroll_end(animate=False)
        elif how == "target" and view.target is not None:
            paras = list(body.query(".para"))
            if 0 <= view.target < len(paras):
                para = paras[view.target]
                body.scroll_to_widget(para, animate=False, top=True)
                line = self._match_line(para, view.paragraphs[view.target])
                if line > body.size.height // 2:   # deep inside a very long paragraph
                    body.scroll_to(y=para.virtual_region.y + line - body.size.height // 3,
                                   animate=False)
                return
            body.scroll_home(animate=False)
        else:
            body.scroll_home(animate=False)

    def _match_line(self, para: Widget, text: str) -> int:
        """The wrapped line (0-based) of the first query match in paragraph ``para``
        whose text is ``text``; 0 when there is no match."""
        m = self.pattern.search(text) if self.pattern is not None else None
        if m is None or m.start() < 200:
            return 0
        width = max(10, para.content_region.width or para.size.width or 80)
        head = Text(clean_text(text[:m.start()], keep_newlines=True))
        return max(0, len(head.wrap(self.app.console, width)) - 1)

    def follow_scroll(self) -> None:
        """In a page view, name the section of the paragraph at the top of the screen
        (the page may hold the end of one section and the start of others); in a section
        view, name the page at the top ("p. 7 of 4-11")."""
        v = self.view
        if v is not None and v.request.kind == "section" and v.para_pos:
            top = self.query_one(ReaderBody).top_paragraph()
            page = v.para_pos[min(top, len(v.para_pos) - 1)][0]
            if page != self.top_page:
                self.top_page = page
                self._update_head()
            return
        if v is None or v.request.kind != "page" or not v.sections or v is not self._landed:
            # a view not yet scrolled to its place: the body's top still says where the
            # old one was, and a ``]`` read meanwhile counted from a section never shown
            return
        body = self.query_one(ReaderBody)
        paras = list(body.query(".para"))
        if v.request.scroll == "target" and v.target is not None and 0 <= v.target < len(paras):
            r = paras[v.target].virtual_region
            if r.y < body.scroll_y + body.size.height and r.bottom > body.scroll_y:
                # the paragraph we were sent to is on screen: its section is named (this
                # also runs before the first scroll to it, so restore rather than keep)
                if v.home_section[0] != v.section_id:
                    v.section_id, v.section_path = v.home_section
                    self._update_head()
                return
        best = innermost(v.sections, v.page, body.top_paragraph())
        if best is not None and best.id != v.section_id:
            v.section_path, v.section_id = best.path, best.id
            self._update_head()

    # -- table of contents ----------------------------------------------------------------
    def _fill_toc(self) -> None:
        """Put the open document's sections in the contents list (when it changed), show
        or hide the list, and highlight the section being read."""
        v = self.view
        toc = self.query_one(TocList)
        if v is None:
            return
        if self._toc_doc != v.request.doc:
            self._toc_doc = v.request.doc
            with toc.prevent(OptionList.OptionHighlighted):
                toc.clear_options()
                refs = [page_ref(s.start_page, label_of(v.labels, s.start_page))
                        for s in v.sections]
                page_w = max(map(len, refs), default=0)
                toc.add_options([Option(toc_prompt(sec, label_of(v.labels, sec.start_page),
                                                   page_w), id=str(sec.id))
                                 for sec in v.sections])
        toc.set_class(self.toc_shown and bool(v.sections), "-shown")
        self._sync_toc(force=True)
        if self._focus_toc:
            self._focus_toc = False
            if v.sections:
                # only while the reader still has the focus: a load finishing after the
                # user moved on (Tab, then "f" in the documents) must not pull the focus
                # back here, where the keys typed next ran the reader's commands ("g")
                if self.has_focus_within:
                    self.screen.set_focus(toc)
            else:
                self.notify("This document has no table of contents: ← → turn pages.",
                            timeout=3)

    def _sync_toc(self, force: bool = False) -> None:
        """Highlight the section being read in the contents list (scrolled into view);
        while the list has the focus only a new view (``force``) moves the highlight, so
        that browsing it is left alone."""
        v = self.view
        toc = self.query_one(TocList)
        if v is None or v.section_id is None or not toc.option_count or (
                toc.has_focus and not force):
            return
        try:
            index = toc.get_option_index(str(v.section_id))
        except Exception:  # noqa: BLE001 - a section of another document
            return
        with toc.prevent(OptionList.OptionHighlighted):
            toc.highlighted = index
        if toc.has_class("-shown"):
            # a hidden list has no size to scroll in: scroll once it is laid out
            toc.call_after_refresh(toc.scroll_to_highlight, top=False)

    def show_toc(self, shown: bool = True, focus: bool = False) -> None:
        """Show (and maybe focus) or hide the contents list."""
        self.toc_shown = shown
        v = self.view
        toc = self.query_one(TocList)
        toc.set_class(shown and v is not None and bool(v.sections), "-shown")
        if shown and focus and toc.option_count:
            self._sync_toc()
            self.screen.set_focus(toc)   # now: the keys read next ("t" ↓ Enter) go there
        elif not shown:
            self.focus_main()

    def action_toc(self) -> None:
        """``t``: show the table of contents and move into it; with it shown (focused or
        not; in a slim reader: focused), hide it."""
        v = self._need_view()
        if v is None:
            return
        toc = self.query_one(TocList)
        # a slim reader shows the list only while it has the focus: "t" brings it back
        if self.toc_shown and toc.has_class("-shown") and \
                (toc.has_focus or not self.has_class("-slim")):
            self.show_toc(False)
            return
        if not v.sections:
            self.notify("This document has no table of contents.", timeout=2)
            return
        self.show_toc(True, focus=True)

    @on(OptionList.OptionSelected, "#toc")
    def _toc_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter in the contents: read that section, the whole of it (section view), from
        its start."""
        event.stop()
        v = self.view
        sec = next((x for x in (v.sections if v else []) if str(x.id) == event.option.id),
                   None)
        if sec is None:
            return
        self.request(ReadRequest(v.request.doc, "section", sec.start_page,
                                 section_id=sec.id, scroll="top"))
        self.focus_main()

    @on(OptionList.OptionHighlighted, "#toc")
    def _toc_highlighted(self, event) -> None:
        event.stop()

    def _update_head(self) -> None:
        """The head's two lines, the title and :meth:`breadcrumb_text`, each cut to the
        pane's width (one that wrapped pushed the page line out of the head)."""
        v = self.view
        width = max(10, (self.size.width or 80) - 2)
        title = v.title or v.request.doc
        head = literal(title if len(title) <= width else title[: width - 1] + "…",
                       style="bold")
        head.append("\n")
        head.append_text(self.breadcrumb_text())
        head.no_wrap, head.overflow = True, "ellipsis"
        self.query_one("#reader-head", Static).update(head)
        self._sync_toc()

    def on_resize(self, event: events.Resize) -> None:
        """A new width: the head drawn for it (the section path as long as it fits); a
        reader narrower than :data:`SLIM_WIDTH` shows its contents list alone while it is
        in use (beside the text it left 15 columns for the text at 160x48)."""
        self.set_class(event.size.width < SLIM_WIDTH, "-slim")
        if self.view is not None:
            self._update_head()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        if isinstance(event.widget, TocList):
            self._toc_open(False)

    def _toc_open(self, open_: bool) -> None:
        """The contents list has the focus (``open_``) or not: a slim reader shows it
        alone then, and its border says how to get back to the text."""
        self.set_class(open_, "-toc-open")
        self.border_subtitle = "contents · Enter reads · t: the text" \
            if open_ and self.has_class("-slim") else ""

    def breadcrumb(self) -> str:
        """"p. 7-9 / 15 · 3 Model Architecture > 3.2 Attention" (plain text)."""
        return self.breadcrumb_text().plain

    def page_shown(self) -> int | None:
        """The page (1-based) the reader shows: in a section view the page at the top of
        the screen (``o`` had opened the section's first page, p. 30, with p. 32 on
        screen), else the page read; None when nothing is open."""
        v = self.view
        if v is None:
            return None
        top = self.top_page if v.request.kind == "section" else None
        return top if top is not None and v.start_page <= top <= v.end_page else v.page

    def breadcrumb_text(self) -> Text:
        """The breadcrumb as literal text."""
        v = self.view
        if v is None:
            return Text("")
        first = page_ref(v.start_page, label_of(v.labels, v.start_page))
        if v.request.kind == "section" and v.end_page != v.start_page:
            where = f"p. {first}-{page_ref(v.end_page, label_of(v.labels, v.end_page))}" \
                f" / {v.pages}"
            top = self.top_page
            if top is not None and v.start_page <= top <= v.end_page:
                where = f"p. {page_ref(top, label_of(v.labels, top))} of {where[3:]}"
        elif v.request.kind == "section":
            where = f"p. {first} / {v.pages}"
        else:
            where = f"p. {page_ref(v.page, v.label)} / {v.pages}"
        out = Text(where, style="bold")
        if v.ocr:  # the words were recognised from a scan and may be misread
            out.append(" · OCR", style="bold italic")
            where += " · OCR"
        n_hits = len(self.hits)
        # on a page of a hit: which one of them ("hit 2 of 5"), n / N step from there
        at = self.hit_at + 1 if self.hit_at is not None and v.request.kind == "section" \
            else next((i for i, h in enumerate(self.hits, 1) if h.page == v.page), 0)
        hits = "" if not n_hits else f"  (hit {at} of {n_hits} in this document)" if at \
            else f"  ({n_hits} hit{'s' if n_hits != 1 else ''} in this document)"
        width = (self.size.width or 80) - 4   # border and padding
        if v.section_path:
            out.append(" · ")
            # fit the path to the line, keeping its innermost titles ("… > 6.2.4 Reads");
            # the path goes before the hit count, which shrinks or goes when room is short
            if hits and width - len(where) - 3 - len(hits) < min(len(v.section_path), 30):
                hits = f"  (hit {at} of {n_hits})" if at else \
                    f"  ({n_hits} hits)" if n_hits != 1 else "  (1 hit)"
                if width - len(where) - 3 - len(hits) < min(len(v.section_path), 20):
                    hits = ""
            room = width - len(where) - 3 - len(hits)
            out.append(literal(short_section(v.section_path, max(12, room)), style="italic"))
        if hits:
            out.append(hits, style="dim")
        return out

    # -- actions --------------------------------------------------------------------------
    def _need_view(self) -> ReadView | None:
        if self.view is None:
            self.notify(NOTHING_OPEN, timeout=2)
        return self.view

    def step_page(self, delta: int, scroll: str = "top") -> None:
        """Show the page ``delta`` pages away (page view)."""
        v = self._need_view()
        if v is None:
            return
        ahead = self._pending   # turns pressed faster than pages load add up
        start = ahead.page if ahead is not None and ahead.kind == "page" \
            and ahead.doc == v.request.doc else v.page
        target = start + delta
        if not 1 <= target <= v.pages:
            self.notify("first page" if target < 1 else "last page", timeout=1.5)
            return
        hit = self.opened_hit
        if delta < 0 and scroll == "top" and hit is not None and hit.doc == v.request.doc \
                and hit.page == target:
            # back on the page of the hit opened: its block in view and marked again
            # (turning forward reads on from a page's top)
            self.request(ReadRequest(v.request.doc, "page", target, hit.excerpt or ""))
            return
        self.request(ReadRequest(v.request.doc, "page", target, scroll=scroll))

    def action_next_page(self) -> None:
        """Next page."""
        self.step_page(+1)

    def action_prev_page(self) -> None:
        """Previous page."""
        self.step_page(-1)

    def _in_section_view(self) -> bool:
        return self.view is not None and self.view.request.kind == "section"

    def action_page_down(self) -> None:
        """Scroll a screen; at the end of the page (section), go to the next page
        (section): a whole-section view stays a section view."""
        if self.has_class("-image"):   # zoomed in: a box lower, at the bottom the next page
            if not self.query_one(ReaderImage).pan(0.0, 1.0):
                self.step_page(+1)
            return
        body = self.query_one(ReaderBody)
        if body.scroll_y >= body.max_scroll_y:
            if self._in_section_view():
                self._section_step(+1, continuous=True)
            else:
                self.step_page(+1)
        else:
            body.scroll_page_down(animate=False)

    def action_page_up(self) -> None:
        """Scroll a screen back; at the top of the page (section), go to the end of the
        previous page (section)."""
        if self.has_class("-image"):
            if not self.query_one(ReaderImage).pan(0.0, -1.0):
                self.step_page(-1, scroll="bottom")
            return
        body = self.query_one(ReaderBody)
        if body.scroll_y <= 0:
            if self._in_section_view():
                self._section_step(-1, scroll="bottom", continuous=True)
            else:
                self.step_page(-1, scroll="bottom")
        else:
            body.scroll_page_up(animate=False)

    def _section_step(self, delta: int, scroll: str = "top", continuous: bool = False) -> None:
        """Show the section ``delta`` places away in outline order (``]``/``[``).

        ``continuous`` (PgDn/PgUp at a section's edge) reads on through the text instead:
        forward it skips the subsections the shown section already held, so nothing is
        read twice; backward into a parent it shows the parent ending where this section
        begins (its own text), not at the end of its last subsection.
        """
        v = self._need_view()
        if v is None:
            return
        if not v.sections:
            self.notify("This document has no sections.", timeout=2)
            return
        ids = [s.id for s in v.sections]
        cur_id = v.section_id if continuous else self._section_asked(v)
        if cur_id in ids:
            i = ids.index(cur_id) + delta
        else:  # before the first section
            i = 0 if delta > 0 else -1
        before = None
        if continuous and v.section_id in ids:
            cur = v.sections[ids.index(v.section_id)]
            if delta > 0:
                i = next((j for j in range(i, len(ids)) if v.sections[j].start >= cur.end),
                         len(ids))
            elif i >= 0 and v.sections[i].end > cur.start:
                before, scroll = cur.id, "before"  # the previous one is our parent
        if not 0 <= i < len(ids):
            self.notify("last section" if delta > 0 else "first section", timeout=1.5)
            return
        s = v.sections[i]
        if v.request.kind == "section":
            self.request(ReadRequest(v.request.doc, "section", s.start_page,
                                     section_id=s.id, scroll=scroll, before=before))
        else:
            self.request(ReadRequest(v.request.doc, "page", s.start_page,
                                     block=s.start_block))

    def _section_asked(self, v: ReadView) -> int | None:
        """The section a ``]`` / ``[`` counts from: the one asked for last when its load
        is still pending (steps pressed faster than sections load add up, as page turns
        do), else the one shown."""
        ahead = self._pending
        if ahead is None or ahead.doc != v.request.doc:
            return v.section_id
        if ahead.section_id is not None:
            return ahead.section_id
        if ahead.kind == "page" and ahead.block is not None:
            return next((s.id for s in v.sections if s.start_page == ahead.page
                         and s.start_block == ahead.block), v.section_id)
        return v.section_id

    def action_next_section(self) -> None:
        """Next section."""
        self._section_step(+1)

    def action_prev_section(self) -> None:
        """Previous section."""
        self._section_step(-1)

    def action_toggle_view(self) -> None:
        """Toggle between the page and the whole section that encloses it."""
        v = self._need_view()
        if v is None:
            return
        body = self.query_one(ReaderBody)
        top = body.top_paragraph()
        if v.request.kind == "page" and v.section_id is not None:
            # the section the breadcrumb names (it follows the scrolling), at the
            # paragraph on top of the screen
            self.request(ReadRequest(v.request.doc, "section", v.page,
                                     excerpt=v.request.excerpt, section_id=v.section_id,
                                     block=top))
        elif v.request.kind == "page":
            block = v.target if v.target is not None else 0
            self.request(ReadRequest(v.request.doc, "section", v.page,
                                     excerpt=v.request.excerpt, block=block))
        elif v.para_pos and 0 <= top < len(v.para_pos):
            # the page being read (the paragraph on top of the screen), not the first
            page, block = v.para_pos[top]
            self.request(ReadRequest(v.request.doc, "page", page, block=block))
        else:
            self.request(ReadRequest(v.request.doc, "page", v.page, excerpt=v.request.excerpt))

    def action_toggle_image(self) -> None:
        """Toggle between the text and an image of the page (the hit's block framed)."""
        if self._need_view() is None:
            return
        self.toggle_class("-image")
        if self.has_class("-image"):
            self._show_image()
        self.focus_main()   # now: the keys read next ("i" "z") go to the view shown

    def image_shot(self) -> PageShot | None:
        """The page the image view shows: the page read (in a section, the page of the
        paragraph on top of the screen), with the target block framed when it is there."""
        v = self.view
        if v is None:
            return None
        page = v.page
        if v.request.kind == "section":
            top = self.query_one(ReaderBody).top_paragraph()
            page = v.para_pos[top][0] if v.para_pos and 0 <= top < len(v.para_pos) \
                else v.start_page
        outline = v.target_box[1] if v.target_box and v.target_box[0] == page else None
        path = os.path.join(getattr(self.app, "root", ""), v.request.doc)
        label = v.label if page == v.page else ""
        return PageShot(path, page, label, outline)

    def _show_image(self) -> None:
        shot = self.image_shot()
        if shot is not None:
            how = self.view.request.scroll if self.view is not None else "target"
            self.query_one(ReaderImage).show(shot, at=how if how in ("top", "bottom")
                                             else "target")

    def action_goto(self) -> None:
        """Ask for a page (its number or its printed label) and go there."""
        v = self._need_view()
        if v is None:
            return

        def go(text: str | None) -> None:
            if text is None:
                return
            n = page_for(text, v.pages, v.labels)
            if n is None:
                self.notify(f"no page {clean_text(text)[:20]!r} (1-{v.pages}"
                            + (", or a printed label)" if self._labelled(v) else ")"),
                            severity="warning", timeout=2)
                return
            self.request(ReadRequest(v.request.doc, "page", n, scroll="top"))

        self.app.push_screen(GoToPageScreen(v.pages, v.page, label_of(v.labels, v.page),
                                            self._labelled(v)), go)

    @staticmethod
    def _labelled(v: ReadView) -> bool:
        """Does some page of the view's document carry a label other than its number?"""
        return any(lab and lab != str(n) for n, lab in enumerate(v.labels, 1))

    def step_hit(self, delta: int) -> None:
        """Go to the next (``delta`` > 0) or previous hit in this document, wrapping
        around: from the hit opened last in a section view (section hits in their order:
        stepping by the page scrolled to had gone 4-6, 11, 2, 3-4 twice), else from the
        page shown."""
        v = self._need_view()
        if v is None:
            return
        if not self.hits:
            self.notify("No hits of this search in this document (Enter on a hit in the "
                        "results opens it).", timeout=2)
            return
        at, wrapped = self._next_hit(v, delta)
        if at is None:
            self.notify("no other hit in this document", timeout=1.5)
            return
        if wrapped:
            self.notify(f"wrapped to the {'first' if delta > 0 else 'last'} hit in this "
                        f"document ({len(self.hits)} hits)", timeout=1.5)
        hit = self.hits[at]
        self.hit_at = at
        self.stepped_to = (v.request.doc, hit.page or 1)
        kind = "section" if hit.section is not None else v.request.kind
        self.request(ReadRequest(v.request.doc, kind, hit.page or 1, hit.excerpt or "",
                                 section_id=hit.section_id))

    def _next_hit(self, v: ReadView, delta: int) -> tuple[int | None, bool]:
        """``(index in self.hits, wrapped)`` of the hit ``delta`` steps on (None: no
        other one)."""
        n = len(self.hits)
        if self.hit_at is not None and v.request.kind == "section":
            at = (self.hit_at + delta) % n
            return (None, False) if at == self.hit_at else (at, not 0 <= self.hit_at + delta < n)
        page = v.page
        pages = [h.page or 0 for h in self.hits]
        ahead = [i for i, p in enumerate(pages) if (p > page if delta > 0 else p < page)]
        if ahead:
            return (ahead[0] if delta > 0 else ahead[-1]), False
        at = 0 if delta > 0 else n - 1
        return (None, False) if pages[at] == page else (at, True)

    def current_paragraph(self) -> tuple[str, str, int, str] | None:
        """The paragraph a clip takes: the hit's (marked with a bar) while it is on
        screen, else the first one at the top of the screen; ``(doc, text, page, section
        path)`` with its own page in a section view, or None when nothing is open."""
        v = self.view
        if v is None or not v.paragraphs:
            return None
        body = self.query_one(ReaderBody)
        paras = list(body.query(".para"))
        index = body.top_paragraph()
        if v.target is not None and 0 <= v.target < len(paras):
            r = paras[v.target].virtual_region
            if r.y < body.scroll_y + body.size.height and r.bottom > body.scroll_y:
                index = v.target
        index = prose_from(v.paragraphs, max(0, min(index, len(v.paragraphs) - 1)))
        page = v.page
        if v.request.kind == "section" and v.para_pos and index < len(v.para_pos):
            page = v.para_pos[index][0]
        para = v.paragraphs[index]
        headings = heading_starts(v)
        split = split_heading(para, headings[index]) \
            if index in headings and "\n" not in para else None
        if split is not None:   # as the reader shows it: the heading on its own line
            para = f"{split[0]}\n{split[1]}"
        if index in v.hidden:   # a clip never takes hidden text unlabelled
            para = f"{label(v.hidden[index])} {para}"
        return v.request.doc, clean_text(para, keep_newlines=True), page, v.section_path

    def focus_main(self) -> None:
        """Focus the text or the page image (used when the pane becomes current)."""
        widget = self.query_one(ReaderImage if self.has_class("-image") else ReaderBody)
        self.screen.set_focus(widget)   # now, not after the keys already queued

    def on_descendant_focus(self, event) -> None:
        self._toc_open(isinstance(event.widget, TocList))
        self.post_message(PaneFocused("reader"))
