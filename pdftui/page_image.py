"""Page images: one page of a PDF rendered by PyMuPDF as PNG bytes, sized to fit a box of
pixels, with an optional rectangle (the hit's block) outlined in red.

The reader's image view shows figures, tables and equations that text extraction flattens.
Rendering is blocking work (tens of milliseconds to a second for a dense page), so callers
run it in a worker; results are kept in a small in-process LRU cache keyed by the file's
identity (path, size, mtime), the page, the box and the outline, so stepping back and forth
through pages renders each once.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass

from .errors import PageImageError

#: Rendered pages kept in memory (a 1,000 x 1,300 px PNG is ~100-300 kB).
CACHE_PAGES = 32
#: Largest side of a rendered page, pixels (bounds memory whatever the pane reports).
MAX_SIDE_PX = 2400


@dataclass(frozen=True)
class Zoom:
    """How much of a page fills the box: ``scale`` 0 fits the whole page; otherwise the
    page is ``scale`` box widths wide (1.0: the page's width fills the box, 2.0: half of
    it does) and the box shows the part whose top-left corner is at ``left``, ``top``
    (fractions of the page's width and height, clamped so the box stays on the page)."""

    scale: float = 0.0
    left: float = 0.0
    top: float = 0.0
    #: place the box on the outlined block (a little above it) instead of left / top
    on_outline: bool = False


FIT_PAGE = Zoom()


@dataclass(frozen=True)
class PageImage:
    """One rendered page (or the part of it a :class:`Zoom` shows): PNG bytes, the pixel
    size they hold, and the part of the page shown as fractions ``(x0, y0, x1, y1)`` of
    its width and height."""

    png: bytes
    width: int   # pixels
    height: int  # pixels
    shown: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)


_lock = threading.Lock()
_cache: OrderedDict[tuple, PageImage] = OrderedDict()


def fit_zoom(page_w: float, page_h: float, box_w: int, box_h: int) -> float:
    """The zoom (pixels per PDF point) that fits a ``page_w x page_h``-point page inside a
    ``box_w x box_h``-pixel box keeping its aspect ratio, capped so that neither side
    exceeds ``MAX_SIDE_PX``. Degenerate sizes give zoom 1.0."""
    if page_w <= 0 or page_h <= 0 or box_w <= 0 or box_h <= 0:
        return 1.0
    zoom = min(box_w / page_w, box_h / page_h)
    return max(0.05, min(zoom, MAX_SIDE_PX / max(page_w, page_h)))


def zoom_clip(page_w: float, page_h: float, box_w: int, box_h: int, zoom: Zoom,
              outline: tuple[float, float, float, float] | None = None,
              ) -> tuple[float, tuple[float, float, float, float] | None]:
    """``(pixels per point, clip)`` for showing ``zoom`` of a ``page_w x page_h``-point
    page in a ``box_w x box_h``-pixel box; ``clip`` is the rectangle of the page shown
    (points), None for the whole page. The clip never leaves the page: ``left`` / ``top``
    are clamped so the box is filled as far as the page reaches. With
    ``zoom.on_outline`` and an ``outline`` (points), the block starts a tenth of the box
    below its top edge and at its left edge."""
    if zoom.scale <= 0 or page_w <= 0 or page_h <= 0 or box_w <= 0 or box_h <= 0:
        return fit_zoom(page_w, page_h, box_w, box_h), None
    factor = zoom.scale * box_w / page_w
    clip_w = min(page_w, box_w / factor)
    clip_h = min(page_h, box_h / factor)
    left, top = zoom.left * page_w, zoom.top * page_h
    if zoom.on_outline and outline is not None:
        left, top = outline[0] - 0.05 * clip_w, outline[1] - 0.1 * clip_h
    x0 = max(0.0, min(left, page_w - clip_w))
    y0 = max(0.0, min(top, page_h - clip_h))
    # the same part of the page, in at most MAX_SIDE_PX pixels a side
    factor *= min(1.0, MAX_SIDE_PX / max(box_w, box_h))
    return factor, (x0, y0, x0 + clip_w, y0 + clip_h)


def render_page(path: str, page: int, box_w: int, box_h: int,
                outline: tuple[float, float, float, float] | None = None,
                zoom: Zoom = FIT_PAGE) -> PageImage:
    """Render page ``page`` (1-based) of the PDF at ``path`` to fit ``box_w x box_h`` pixels
    (``zoom``: the whole page, or the part of it :func:`zoom_clip` chooses); ``outline`` is
    a rectangle ``(x0, y0, x1, y1)`` in PDF points of the unrotated page (as the cache's
    blocks store it) drawn as a red frame. The file is never modified.

    Raises PageImageError when the file cannot be opened or the page does not exist."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise PageImageError(f"cannot read {os.path.basename(path)}: {exc.strerror}") from exc
    key = (path, st.st_size, st.st_mtime_ns, page, box_w, box_h, outline, zoom)
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    image = _render(path, page, box_w, box_h, outline, zoom)
    with _lock:
        _cache[key] = image
        while len(_cache) > CACHE_PAGES:
            _cache.popitem(last=False)
    return image


def _render(path: str, page: int, box_w: int, box_h: int,
            outline: tuple[float, float, float, float] | None, zoom: Zoom) -> PageImage:
    from .mupdf import pymupdf

    try:
        doc = pymupdf.open(path)
    except Exception as exc:  # noqa: BLE001 - PyMuPDF raises several kinds
        raise PageImageError(f"cannot open {os.path.basename(path)}: {exc}") from exc
    try:
        if doc.needs_pass:
            raise PageImageError("the PDF is encrypted")
        if not 1 <= page <= doc.page_count:
            raise PageImageError(f"page {page} is not in 1..{doc.page_count}")
        pg = doc[page - 1]
        if outline is not None:
            _draw_outline(pg, outline)
        rect = pg.rect  # rotation applied: the page as it is shown
        factor, clip = zoom_clip(rect.width, rect.height, box_w, box_h, zoom,
                                 _shown_rect(pg, outline))
        pix = pg.get_pixmap(matrix=pymupdf.Matrix(factor, factor), alpha=False,
                            clip=pymupdf.Rect(*clip) if clip else None)
        shown = (0.0, 0.0, 1.0, 1.0) if clip is None else (
            clip[0] / rect.width, clip[1] / rect.height,
            clip[2] / rect.width, clip[3] / rect.height)
        return PageImage(pix.tobytes("png"), pix.width, pix.height, shown)
    except PageImageError:
        raise
    except Exception as exc:  # noqa: BLE001 - a damaged page
        raise PageImageError(f"page {page} cannot be rendered: {exc}") from exc
    finally:
        doc.close()


def _draw_outline(pg, outline: tuple[float, float, float, float]) -> None:
    """Frame ``outline`` on the in-memory page (the document is never saved)."""
    from .mupdf import pymupdf

    x0, y0, x1, y1 = outline
    if x1 <= x0 or y1 <= y0:
        return
    rect = pymupdf.Rect(x0 - 2, y0 - 2, x1 + 2, y1 + 2)
    pg.draw_rect(rect, color=(0.85, 0.1, 0.1), width=1.5, overlay=True)


def _shown_rect(pg, outline: tuple[float, float, float, float] | None):
    """``outline`` (points of the unrotated page) as the page is shown (rotation applied)."""
    if outline is None:
        return None
    from .mupdf import pymupdf

    r = pymupdf.Rect(*outline) * pg.rotation_matrix
    return (r.x0, r.y0, r.x1, r.y1)
