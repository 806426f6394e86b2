"""The reader pane's widgets: its scrolling text (:class:`ReaderBody`), the image of the
page (:class:`ReaderImage`) and the table of contents beside the text (:class:`TocList`).
Each holds the reader's keys and runs them on the :class:`~.reader_pane.ReaderPane` that
holds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import Widget
from textual.widgets import OptionList

from ..document import Section
from .actions import bindings
from .page_view import PageView
from .render import literal, page_ref

if TYPE_CHECKING:
    from .reader_pane import ReaderPane


def reader_of(node: Widget) -> ReaderPane | None:
    """The reader pane holding ``node`` (None outside one)."""
    from .reader_pane import ReaderPane   # the pane imports this module

    return next((a for a in node.ancestors if isinstance(a, ReaderPane)), None)


class HangingIndent(Visual):
    """``content`` drawn ``base`` columns in, its wrapped lines ``hang`` columns further
    (a contents entry's continuation read as a new entry when it began at the margin);
    ``tail`` (``tail_w`` columns, right-aligned) at the right end of the first line."""

    def __init__(self, content: Content, base: int, hang: int = 2,
                 tail: Content | None = None, tail_w: int = 0) -> None:
        self.content, self.base, self.hang = content, base, hang
        self.tail, self.tail_w = tail, tail_w if tail is not None else 0

    def get_optimal_width(self, rules, container_width: int) -> int:
        return self.content.get_optimal_width(rules, container_width) + self.base + \
            self.hang + self.tail_w

    def get_height(self, rules, width: int) -> int:
        return self.content.get_height(rules, max(1, width - self.base - self.hang
                                                  - self.tail_w))

    def render_strips(self, width: int, height: int | None, style, options) -> list[Strip]:
        inner = width - self.base - self.hang - self.tail_w
        if inner <= 0:
            return []
        blank = style.rich_style
        out = []
        for i, strip in enumerate(self.content.render_strips(inner, None, style, options)):
            left = self.base if i == 0 else self.base + self.hang
            right = max(0, width - left - strip.cell_length)
            parts = [Strip.blank(left, blank), strip]
            if i == 0 and self.tail is not None and self.tail_w:
                tail = self.tail.render_strips(self.tail_w, 1, style, options)[0]
                parts.append(Strip.blank(right - tail.cell_length, blank))
                parts.append(tail)
            else:
                parts.append(Strip.blank(right, blank))
            out.append(Strip.join(parts))
        return out


class TocText(Text):
    """A contents entry's text (``.plain`` as it reads: indent, title, page) shown with a
    hanging indent (its first ``base`` characters are the level's indent) and its last
    ``tail`` characters, the page, right-aligned on its first line
    (:class:`HangingIndent`)."""

    base = 0
    tail = 0

    def visualize(self) -> Visual:
        """The Textual visual of this text (the Visual protocol)."""
        end = len(self.plain) - self.tail
        return HangingIndent(Content.from_rich_text(self[self.base:end]), self.base,
                             tail=Content.from_rich_text(self[end:]), tail_w=self.tail)


def toc_prompt(section: Section, label: str = "", page_w: int = 0) -> Text:
    """A table-of-contents entry: the title indented by its level, its page right-aligned
    at the end of its first line (``page_w`` columns, the widest page of the list); a
    title longer than the list is wide goes on over the next lines, indented under its
    first (never cut: the list is narrow beside the text, 24 columns at 160), and never
    pushes its page onto a line of its own ("Parameter Sharing" / "8")."""
    level = min(max(0, int(section.level or 1) - 1), 6)
    ref = page_ref(section.start_page, label)
    out = TocText("  " * level, overflow="fold")
    out.base = len(out.plain)
    out.append_text(literal(section.title or "(untitled)",
                            style="bold" if level == 0 else ""))
    width = max(page_w, len(ref))
    out.append(f" {ref:>{width}}", style="dim")
    out.tail = width + 1
    return out


#: Keys the contents list keeps for itself (moving through it, Enter reads the entry).
_LIST_KEYS = frozenset({"up", "down", "pageup", "pagedown", "home", "end", "enter"})


class TocList(OptionList):
    """The document's table of contents (outline or detected sections); Enter reads the
    highlighted section, Esc goes back to the text, ``t`` hides the list.

    The reader's other keys (← → [ ] v i g y ...) work here as in the text, so none of
    them falls through to the search box; ↑ ↓ PgUp PgDn Home End move through the list.
    """

    BINDINGS = [Binding("escape", "leave", "Text", id="toc.leave"),
                Binding("enter", "select", "Read section", id="toc.read"),
                Binding("down", "cursor_down", "Move", key_display="↑↓", id="toc.move")] + [
        b for b in bindings("reader") if not set(b.key.split(",")) & _LIST_KEYS]

    @property
    def reader(self) -> ReaderPane | None:
        """The reader pane holding this list."""
        return reader_of(self)

    def action_pane(self, name: str) -> None:
        """Run the reader pane's action ``name``."""
        if self.reader is not None:
            getattr(self.reader, f"action_{name}")()

    def action_leave(self) -> None:
        """Back to the text, the list stays shown."""
        if self.reader is not None:
            self.reader.focus_main()


class ReaderBody(VerticalScroll, can_focus=True):
    """The scrolling text of the reader, holding the reader's keys."""

    BINDINGS = bindings("reader")

    def action_pane(self, name: str) -> None:
        """Run the reader pane's action ``name``."""
        self.user_moved()
        getattr(self.reader, f"action_{name}")()

    @property
    def reader(self) -> ReaderPane | None:
        """The reader pane holding this body."""
        return reader_of(self)

    def on_resize(self, _event: events.Resize) -> None:
        if self.reader is not None:
            self.reader.keep_placed()

    def user_moved(self) -> None:
        """The reader scrolled the text: a later resize keeps the position, not the match."""
        if self.reader is not None:
            self.reader.forget_placed()

    # the handlers below only note the move (Textual runs Widget's own handler too)
    def on_mouse_scroll_down(self, _event: events.MouseScrollDown) -> None:
        self.user_moved()

    def on_mouse_scroll_up(self, _event: events.MouseScrollUp) -> None:
        self.user_moved()

    def on_scroll_to(self, _message) -> None:
        self.user_moved()

    def on_scroll_up(self, _message) -> None:
        self.user_moved()

    def on_scroll_down(self, _message) -> None:
        self.user_moved()

    def action_scroll_up(self) -> None:
        self.user_moved()
        super().action_scroll_up()

    def action_scroll_down(self) -> None:
        self.user_moved()
        super().action_scroll_down()

    def action_scroll_home(self) -> None:
        self.user_moved()
        super().action_scroll_home()

    def action_scroll_end(self) -> None:
        self.user_moved()
        super().action_scroll_end()

    def action_page_up(self) -> None:
        self.user_moved()
        super().action_page_up()

    def action_page_down(self) -> None:
        self.user_moved()
        super().action_page_down()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if round(old_value) != round(new_value) and self.reader is not None:
            self.reader.follow_scroll()

    def top_paragraph(self) -> int:
        """Index of the first paragraph visible at the top (0 when none)."""
        y = self.scroll_y
        for i, w in enumerate(self.query(".para")):
            if w.virtual_region.bottom > y:
                return i
        return 0


class ReaderImage(PageView):
    """The image view of the reader, holding the reader's keys (pages, sections, ``i``)
    and its own (zoom, pan)."""

    BINDINGS = bindings("reader") + bindings("image")

    def action_pane(self, name: str) -> None:
        """Run the reader pane's action ``name``."""
        pane = reader_of(self)
        if pane is not None:
            getattr(pane, f"action_{name}")()
