"""The documents pane's list: a virtual list over the shown documents.

:class:`DocList` holds the shown documents (a list of ``DocumentInfo``, in order) and a
function making one row (``info -> rich Text``); it builds and renders only the rows on
screen (Textual's line API: ``render_line``), so 10,000 documents cost what 40 do when the
list is set, sorted, filtered or repainted. It looks and answers like the ``OptionList``
it replaced (same keys, styles, wrap-around up / down, click to open, hover) and keeps
that API's reading side for its callers and tests: ``option_count``, ``highlighted``,
``get_option_at_index(i)`` (``.id`` the document, ``.prompt`` its row Text) and
``get_option_index(doc)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import visualize

from .actions import bindings

#: Rendered rows kept (a screen is ~50; focus and hover styles count apart).
STRIP_CACHE = 512


@dataclass(frozen=True, slots=True)
class DocRow:
    """One row as ``OptionList.get_option_at_index`` gave it: ``id`` the document path,
    ``prompt`` the row's Text."""

    id: str
    prompt: Text


class DocList(ScrollView, can_focus=True):
    """The document list. Set with :meth:`set_rows`; Enter (or a click) posts
    :class:`Selected`, a move of the cursor :class:`Highlighted`, Space :class:`Toggled`
    (the pane shows the scope as a "●": no check boxes, they cost three columns and read
    as ticked on a monochrome terminal)."""

    ALLOW_SELECT = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "cursor_down", "Down", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("enter", "select", "Select", show=False),
        Binding("home", "first", "First", show=False),
        Binding("pagedown", "page_down", "Page Down", show=False),
        Binding("pageup", "page_up", "Page Up", show=False),
        Binding("up", "cursor_up", "Up", show=False),
        *bindings("doclist"),
    ]
    # OptionList's own look, under this widget's names
    DEFAULT_CSS = """
    DocList {
        height: auto;
        max-height: 100%;
        color: $foreground;
        overflow-x: hidden;
        border: tall $border-blurred;
        padding: 0 1;
        background: $surface;
        & > .doc-list--row-highlighted {
            color: $block-cursor-blurred-foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            border: tall $border;
            background-tint: $foreground 5%;
            & > .doc-list--row-highlighted {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
        & > .doc-list--row-highlighted {
            color: $foreground;
            background: $block-cursor-blurred-background;
        }
        & > .doc-list--row-hover {
            background: $block-hover-background;
        }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "doc-list--row", "doc-list--row-highlighted", "doc-list--row-hover"}

    #: The index of the highlighted row, None when the list is empty.
    highlighted: reactive[int | None] = reactive(None)
    _hover: reactive[int | None] = reactive(None)

    class Highlighted(Message):
        """The cursor moved to row ``index``, document ``doc``."""

        def __init__(self, doc: str, index: int) -> None:
            super().__init__()
            self.doc, self.index = doc, index

    class Selected(Message):
        """Enter (or a click) on row ``index``, document ``doc``."""

        def __init__(self, doc: str, index: int) -> None:
            super().__init__()
            self.doc, self.index = doc, index

    class Toggled(Message):
        """Space on a document: ``doc`` goes in or out of the scope."""

        def __init__(self, doc: str) -> None:
            super().__init__()
            self.doc = doc

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._docs: Sequence[Any] = ()
        self._row: Callable[[Any], Text] = lambda info: Text(str(info.doc))
        self._ids: dict[str, int] | None = None          # doc -> index, built when asked
        self._prompts: LRUCache[int, Text] = LRUCache(STRIP_CACHE)
        self._strips: LRUCache[tuple, Strip] = LRUCache(STRIP_CACHE)

    # -- data -----------------------------------------------------------------------------
    def set_rows(self, docs: Sequence[Any], row: Callable[[Any], Text],
                 highlight: int | None = None, top: bool = False) -> None:
        """Show ``docs`` (``DocumentInfo``-like: ``.doc`` is the id), each row made by
        ``row(info)`` when it comes on screen; highlight row ``highlight`` (clamped; None:
        the first). ``top`` scrolls back to the top first (a new filter); otherwise the
        scroll position stays and moves only as far as showing the cursor needs."""
        self._docs, self._row, self._ids = docs, row, None
        self._prompts.clear()
        self._strips.clear()
        self._update_virtual_size()
        if top:
            self.scroll_to(y=0, animate=False, immediate=True)
        self.highlighted = (highlight or 0) if docs else None
        self.scroll_to_highlight()
        self.refresh()

    @property
    def option_count(self) -> int:
        """The number of rows."""
        return len(self._docs)

    def info_at(self, index: int) -> Any:
        """The ``DocumentInfo`` of row ``index`` (IndexError outside the list)."""
        if not 0 <= index < len(self._docs):
            raise IndexError(index)
        return self._docs[index]

    def prompt_at(self, index: int) -> Text:
        """The Text of row ``index``, made once while it stays in the cache."""
        text = self._prompts.get(index)
        if text is None:
            text = self._row(self.info_at(index))
            self._prompts[index] = text
        return text

    def get_option_at_index(self, index: int) -> DocRow:
        """Row ``index`` as ``OptionList`` gave it: ``.id`` and ``.prompt``."""
        return DocRow(self.info_at(index).doc, self.prompt_at(index))

    def get_option_index(self, doc: str) -> int:
        """The row of document ``doc`` (KeyError when it is not shown)."""
        if self._ids is None:
            self._ids = {d.doc: i for i, d in enumerate(self._docs)}
        return self._ids[doc]

    @property
    def highlighted_doc(self) -> str | None:
        """The highlighted document, or None."""
        if self.highlighted is None or not self._docs:
            return None
        return self._docs[self.highlighted].doc

    # -- rendering ------------------------------------------------------------------------
    def _update_virtual_size(self) -> None:
        size = Size(self.scrollable_content_region.width, len(self._docs))
        if size != self.virtual_size:
            self.virtual_size = size
            self._scroll_update(size)

    def _on_resize(self) -> None:
        self._strips.clear()
        self._update_virtual_size()

    def notify_style_update(self) -> None:
        self._strips.clear()
        self.refresh()
        super().notify_style_update()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._update_virtual_size()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the widget: the row under it, styled as OptionList styles its
        options (highlighted, hovered or plain), with the row index as the click meta."""
        index = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if not 0 <= index < len(self._docs):
            return Strip.blank(width, self.get_visual_style("doc-list--row").rich_style)
        if index == self.highlighted:
            style = self.get_visual_style("doc-list--row", "doc-list--row-highlighted")
        elif index == self._hover:
            style = self.get_visual_style("doc-list--row", "doc-list--row-hover")
        else:
            style = self.get_visual_style("doc-list--row")
        key = (index, style, width)
        strip = self._strips.get(key)
        if strip is None:
            visual = visualize(self, self.prompt_at(index), markup=False)
            strip = visual.to_strips(self, visual, width, None, style)[0]
            strip = strip.extend_cell_length(width, style.rich_style).apply_meta(
                {"option": index})
            self._strips[key] = strip
        return strip

    def scroll_to_highlight(self, top: bool = False) -> None:
        """Scroll as little as shows the highlighted row (to the top with ``top``)."""
        if self.highlighted is None or not self.is_mounted:
            return
        self._update_virtual_size()
        self.scroll_to_region(Region(0, self.highlighted, self.scrollable_content_region.width,
                                     1), force=True, animate=False, top=top, immediate=True)

    def validate_highlighted(self, highlighted: int | None) -> int | None:
        if highlighted is None or not self._docs:
            return None
        return max(0, min(highlighted, len(self._docs) - 1))

    def watch_highlighted(self, highlighted: int | None) -> None:
        if highlighted is None:
            return
        self.scroll_to_highlight()
        self.post_message(self.Highlighted(self._docs[highlighted].doc, highlighted))

    def on_show(self) -> None:
        self.scroll_to_highlight()

    # -- mouse ----------------------------------------------------------------------------
    async def _on_click(self, event: events.Click) -> None:
        """A click highlights the row and opens it, as OptionList's did."""
        index = event.style.meta.get("option")
        if index is not None and 0 <= index < len(self._docs):
            self.highlighted = index
            self.action_select()

    def _on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover = event.style.meta.get("option")

    def _on_leave(self, _: events.Leave) -> None:
        self._hover = None

    # -- actions --------------------------------------------------------------------------
    def action_cursor_down(self) -> None:
        """The next row (from the last: the first)."""
        self._step(1)

    def action_cursor_up(self) -> None:
        """The previous row (from the first: the last)."""
        self._step(-1)

    def _step(self, direction: int) -> None:
        n = len(self._docs)
        if not n:
            return
        if self.highlighted is None:
            self.highlighted = 0 if direction > 0 else n - 1
        else:
            self.highlighted = (self.highlighted + direction) % n

    def action_first(self) -> None:
        """The first row."""
        if self._docs:
            self.highlighted = 0

    def action_last(self) -> None:
        """The last row."""
        if self._docs:
            self.highlighted = len(self._docs) - 1

    def action_page_down(self) -> None:
        """A screen of rows down (no cursor: the last row)."""
        if self.highlighted is None:
            self.action_last()
        else:
            self._move_page(1)

    def action_page_up(self) -> None:
        """A screen of rows up (no cursor: the first row)."""
        if self.highlighted is None:
            self.action_first()
        else:
            self._move_page(-1)

    def _move_page(self, direction: int) -> None:
        if self._docs:
            height = self.scrollable_content_region.height
            self.highlighted = (self.highlighted or 0) + direction * height   # clamped

    def action_select(self) -> None:
        """Open the highlighted document (posts :class:`Selected`)."""
        if self.highlighted is not None and self._docs:
            self.post_message(self.Selected(self._docs[self.highlighted].doc,
                                            self.highlighted))

    def action_toggle(self) -> None:
        """Put the highlighted document in the scope, or take it out."""
        if self.highlighted is not None and self._docs:
            self.post_message(self.Toggled(self._docs[self.highlighted].doc))
