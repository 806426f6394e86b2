"""The reader's image view: the current page rendered by PyMuPDF (pdftui.page_image) and
shown with textual-image, which picks the terminal's graphics protocol (kitty graphics,
sixel, inside tmux too) and falls back to Unicode half-blocks. The hit's block is outlined.

textual-image asks the terminal for its cell size in pixels when it is first imported, which
is only possible before Textual takes the terminal over: this module is imported with the
reader pane, before the app starts. That query fails on some terminals (a pty that reports
0 columns divides by zero inside textual-image): then a common cell size is assumed, and if
textual-image cannot load at all the image view says why instead of the app failing to
start. Rendering runs in a thread worker, sized to the pane.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static
from pdftui.errors import user_message
from pdftui.page_image import FIT_PAGE, PageImage, Zoom, render_page
from pdftui.text import clean_text

from . import typeahead
from .failures import FailureHandler


#: Cell size assumed when the terminal does not report one (pixels; xterm's default font).
DEFAULT_CELL = (10, 20)
#: The zoom levels ``z`` steps through: the whole page, its width, half its width.
ZOOM_LEVELS = (0.0, 1.0, 2.0)
ZOOM_NAMES = {0.0: "whole page", 1.0: "page width", 2.0: "2x width"}
#: How far one pan key moves, as a fraction of what the box shows.
PAN_STEP = 1 / 3


def _image_backend():
    """``(Image widget class, get_cell_size, "")``, or ``(None, None, reason)`` when
    textual-image cannot be loaded here."""
    typeahead.save()   # its terminal queries read the input: keys typed so far first
    try:
        from textual_image import _terminal

        # its queries' answers are read with the keys typed meanwhile kept
        _terminal.capture_terminal_response = typeahead.capture_response

        try:
            _terminal.get_cell_size()
        except Exception:  # noqa: BLE001 - a terminal that reports no usable size
            _terminal.get_cell_size._result = _terminal.CellSize(*DEFAULT_CELL)
        from textual_image.widget import Image, get_cell_size
    except Exception as exc:  # noqa: BLE001 - the view degrades, the app still starts
        return None, None, user_message(exc)
    return Image, get_cell_size, ""


Image, get_cell_size, IMAGE_ERROR = _image_backend()

#: The image view's second line where the terminal draws images with Unicode half-blocks
#: (a 22x16 thumbnail at 80x24, no text readable): how to get a readable page.
HALF_BLOCK_HINT = ("no graphics in this terminal, so the page is a thumbnail: o opens it "
                   "in your PDF viewer; a terminal with kitty graphics or sixel shows it "
                   "sharp here")


def sharp_images() -> bool:
    """True when textual-image draws pixels here (kitty graphics or sixel), False when it
    falls back to Unicode characters (half-blocks) or cannot load."""
    if Image is None:
        return False
    from textual_image.renderable import Image as auto
    from textual_image.renderable.sixel import Image as sixel
    from textual_image.renderable.tgp import Image as kitty

    return auto in (sixel, kitty)


@dataclass(frozen=True)
class PageShot:
    """What the image view shows: a file's page and the block to outline (PDF points)."""

    path: str
    page: int  # 1-based
    label: str = ""
    outline: tuple[float, float, float, float] | None = None


class PageView(FailureHandler, Vertical, can_focus=True):
    """A page as an image, with a one-line caption (page and how it is drawn)."""

    @dataclass
    class Rendered(Message):
        """A page image finished rendering in the worker."""

        serial: int
        shot: PageShot
        image: PageImage

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.shot: PageShot | None = None
        self.shown: PageShot | None = None  # the shot whose image is on screen
        self.zoom: Zoom = FIT_PAGE
        #: the part of the page on screen, fractions (x0, y0, x1, y1) of its size
        self.part: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)
        self._serial = 0
        self._render_job = None   # the worker of the newest render

    def compose(self) -> ComposeResult:
        yield Static(Text("", style="dim"), id="page-image-head", markup=False)
        if Image is not None:
            yield Image(None, id="page-image")

    def show(self, shot: PageShot, at: str = "target") -> None:
        """Render ``shot`` in a worker at the pane's size; the newest request wins. A new
        page keeps the zoom and, zoomed in, starts at ``at``: "target" (the outlined
        block, else the top), "top" or "bottom"."""
        if self.shot is None or (shot.path, shot.page) != (self.shot.path, self.shot.page):
            self.zoom = Zoom(self.zoom.scale, 0.0, 1.0 if at == "bottom" else 0.0,
                             on_outline=at == "target" and shot.outline is not None)
        self.shot = shot
        self._request_render()

    def _request_render(self) -> None:
        shot = self.shot
        if shot is None:
            return
        self._serial += 1
        if Image is None:
            self._caption(f"page images are not available here ({IMAGE_ERROR})")
            return
        cell = get_cell_size()
        cols = max(10, self.size.width or 80)
        rows = max(5, (self.size.height or 24) - 1)
        self._caption(f"page {shot.page}{_label(shot)} · rendering…")
        self._render_job = self._render_page(self._serial, shot, cols * cell.width,
                                             rows * cell.height, self.zoom)

    def set_zoom(self, scale: float) -> None:
        """Show the page at zoom ``scale`` (see :class:`pdftui.page_image.Zoom`), keeping
        the top-left corner of what is shown (from the whole page: at the hit's block)."""
        x0, y0 = self.part[0], self.part[1]
        self.zoom = Zoom(scale, x0, y0, on_outline=scale > 0 and self.shot is not None
                         and self.shot.outline is not None and self.part == (0, 0, 1, 1))
        self._request_render()

    def cycle_zoom(self) -> None:
        """The next zoom level (whole page -> page width -> 2x width -> whole page)."""
        levels = ZOOM_LEVELS
        i = levels.index(self.zoom.scale) if self.zoom.scale in levels else 0
        self.set_zoom(levels[(i + 1) % len(levels)])

    def pan(self, dx: float, dy: float) -> bool:
        """Move what is shown by ``dx`` / ``dy`` box widths / heights (clamped to the
        page); False when it cannot move that way (the whole page, or an edge)."""
        x0, y0, x1, y1 = self.part
        left = min(max(0.0, x0 + dx * (x1 - x0)), 1.0 - (x1 - x0))
        top = min(max(0.0, y0 + dy * (y1 - y0)), 1.0 - (y1 - y0))
        if self.zoom.scale <= 0 or (abs(left - x0) < 1e-6 and abs(top - y0) < 1e-6):
            return False
        self.zoom = Zoom(self.zoom.scale, left, top)
        self.part = (left, top, left + x1 - x0, top + y1 - y0)   # before the render lands
        self._request_render()
        return True

    def action_zoom(self) -> None:
        """``z``: the next zoom level."""
        self.cycle_zoom()

    def action_pan(self, dx: float, dy: float) -> None:
        """Arrow keys: move a third of the box (zoomed in)."""
        self.pan(dx * PAN_STEP, dy * PAN_STEP)

    def action_pan_to(self, edge: str) -> None:
        """Home / End: the top / bottom of the page (zoomed in)."""
        self.pan(0.0, -1e9 if edge == "top" else 1e9)

    @work(thread=True, exclusive=True, group="page-image", exit_on_error=False)
    def _render_page(self, serial: int, shot: PageShot, box_w: int, box_h: int,
                     zoom: Zoom) -> None:
        image = render_page(shot.path, shot.page, box_w, box_h, shot.outline,
                            zoom)  # _render_failed
        self.post_message(self.Rendered(serial, shot, image))

    FAILURE_HANDLERS = {"page-image": "_render_failed"}

    def _render_failed(self, worker, error: BaseException) -> None:
        """The newest render raised (PageImageError: the file gone or unreadable, the page
        out of range): the caption says why, in place of the image."""
        if worker is not self._render_job or self.shot is None:
            return
        self.query_one("#page-image", Image).image = None
        self._caption(f"page {self.shot.page}: {user_message(error)}")

    @on(Rendered)
    def _rendered(self, event: Rendered) -> None:
        event.stop()
        if event.serial != self._serial:
            return  # a newer page is on its way
        widget = self.query_one("#page-image", Image)
        from PIL import Image as PILImage

        widget.image = PILImage.open(io.BytesIO(event.image.png))
        self.shown = event.shot
        self.part = event.image.shown
        if self.zoom.scale > 0:   # panning goes on from where the block put the box
            self.zoom = Zoom(self.zoom.scale, self.part[0], self.part[1])
        framed = " · hit outlined" if event.shot.outline else ""
        self._caption(f"page {event.shot.page}{_label(event.shot)}{framed}"
                      f"{_zoom_caption(self.zoom, self.part)} · z zoom · i text")

    def _caption(self, line: str) -> None:
        text = Text(clean_text(line), style="dim")
        if not sharp_images():
            text.append("\n" + HALF_BLOCK_HINT, style="bold")
        self.query_one("#page-image-head", Static).update(text)


def _label(shot: PageShot) -> str:
    """`` (p. 7)`` when the page has a printed label other than its number."""
    return f" (p. {shot.label})" if shot.label and shot.label != str(shot.page) else ""


def _zoom_caption(zoom: Zoom, part: tuple[float, float, float, float]) -> str:
    """`` · page width, 25-60% ↑↓`` (how much of the page is shown, top to bottom)."""
    if zoom.scale <= 0:
        return ""
    name = ZOOM_NAMES.get(zoom.scale, f"{zoom.scale:g}x width")
    return f" · {name}, {round(100 * part[1])}-{round(100 * part[3])}% ↑↓"
