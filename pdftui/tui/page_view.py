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
from pdftui.page_image import PageImage, render_page
from pdftui.text import clean_text

from .failures import FailureHandler


#: Cell size assumed when the terminal does not report one (pixels; xterm's default font).
DEFAULT_CELL = (10, 20)


def _image_backend():
    """``(Image widget class, get_cell_size, "")``, or ``(None, None, reason)`` when
    textual-image cannot be loaded here."""
    try:
        from textual_image import _terminal

        try:
            _terminal.get_cell_size()
        except Exception:  # noqa: BLE001 - a terminal that reports no usable size
            _terminal.get_cell_size._result = _terminal.CellSize(*DEFAULT_CELL)
        from textual_image.widget import Image, get_cell_size
    except Exception as exc:  # noqa: BLE001 - the view degrades, the app still starts
        return None, None, user_message(exc)
    return Image, get_cell_size, ""


Image, get_cell_size, IMAGE_ERROR = _image_backend()


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
        self._serial = 0
        self._render_job = None   # the worker of the newest render

    def compose(self) -> ComposeResult:
        yield Static(Text("", style="dim"), id="page-image-head", markup=False)
        if Image is not None:
            yield Image(None, id="page-image")

    def show(self, shot: PageShot) -> None:
        """Render ``shot`` in a worker at the pane's size; the newest request wins."""
        self.shot = shot
        self._serial += 1
        if Image is None:
            self._caption(f"page images are not available here ({IMAGE_ERROR})")
            return
        cell = get_cell_size()
        cols = max(10, self.size.width or 80)
        rows = max(5, (self.size.height or 24) - 1)
        self._caption(f"page {shot.page}{_label(shot)} · rendering…")
        self._render_job = self._render_page(self._serial, shot, cols * cell.width,
                                             rows * cell.height)

    @work(thread=True, exclusive=True, group="page-image", exit_on_error=False)
    def _render_page(self, serial: int, shot: PageShot, box_w: int, box_h: int) -> None:
        image = render_page(shot.path, shot.page, box_w, box_h, shot.outline)  # _render_failed
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
        framed = " · hit outlined" if event.shot.outline else ""
        self._caption(f"page {event.shot.page}{_label(event.shot)}{framed} · i: text")

    def _caption(self, line: str) -> None:
        self.query_one("#page-image-head", Static).update(Text(clean_text(line), style="dim"))


def _label(shot: PageShot) -> str:
    """`` (p. 7)`` when the page has a printed label other than its number."""
    return f" (p. {shot.label})" if shot.label and shot.label != str(shot.page) else ""
