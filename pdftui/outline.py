"""A PDF's outline (bookmarks), validated: entries with an empty title or a target that is
no page are dropped, levels are normalised, and each entry's point on its page (x, y in
top-left page coordinates) is kept when the PDF gives one (:func:`read_outline`).
"""

from __future__ import annotations

import re

from pdftui.document import OutlineEntry
from pdftui.page_text import normalize_text
from pdftui.text import strip_control

_REF_RE = re.compile(r"^\s*\[\s*(\d+)\s+\d+\s+R")


def _dest_is_broken(doc, item_xref: int, page_xrefs: set[int]) -> bool:
    """True when the outline item's explicit destination targets nothing or a non-page.

    MuPDF maps ``[null /XYZ ...]`` and references to missing objects to page 1; the raw
    /Dest (or /A /D of a GoTo action) array is inspected to catch that.
    """
    if item_xref <= 0:
        return False
    try:
        kind, val = doc.xref_get_key(item_xref, "Dest")
        if kind in ("null",):
            kind, val = doc.xref_get_key(item_xref, "A/D")
        if kind != "array":
            return False  # named destinations: PyMuPDF resolves them (page 0 if missing)
        body = val.strip()[1:].lstrip()
        if body.startswith("null"):
            return True
        m = _REF_RE.match(val)
        if m:
            return int(m.group(1)) not in page_xrefs
        return False  # integer page numbers (seen in some producers): trust PyMuPDF
    except Exception:  # noqa: BLE001
        return False


def read_outline(doc, page_count: int, matrices: dict[int, object], notes: list[str]) -> tuple[list[OutlineEntry], int]:
    """Validated, level-normalised outline entries plus the number dropped."""
    try:
        toc = doc.get_toc(simple=False)
    except RecursionError:
        # PyMuPDF walks the outline recursively: one nested thousands of levels deep
        notes.append("outline unreadable (nested too deep): sections come from the "
                     "headings found on the pages")
        return [], 0
    except Exception as exc:  # noqa: BLE001
        notes.append(f"outline unreadable ({type(exc).__name__}): sections come from the "
                     "headings found on the pages")
        return [], 0
    if not toc:
        return [], 0
    page_xrefs: set[int] = set()
    try:
        page_xrefs = {doc.page_xref(i) for i in range(page_count)}
    except Exception:  # noqa: BLE001
        page_xrefs = set()
    entries: list[OutlineEntry] = []
    dropped = 0
    stack: list[tuple[int, int]] = []  # (original level, normalised level)
    for item in toc:
        try:
            level, title, page = int(item[0]), item[1], int(item[2])
            link = item[3] if len(item) > 3 and isinstance(item[3], dict) else {}
        except Exception:  # noqa: BLE001
            dropped += 1
            continue
        title = normalize_text(strip_control(title or "", keep_newlines=False, keep_tabs=False)).replace("\n", " ")
        if not title or not (1 <= page <= page_count):
            dropped += 1
            continue
        if page_xrefs and _dest_is_broken(doc, int(link.get("xref", 0) or 0), page_xrefs):
            dropped += 1
            continue
        y, x = _dest_y(doc, page, link, matrices), _dest_x(doc, page, link, matrices)
        while stack and stack[-1][0] >= level:
            stack.pop()
        norm = stack[-1][1] + 1 if stack else 1
        stack.append((level, norm))
        entries.append(OutlineEntry(level=norm, title=title, page=page, y=y,
                                    x=x if y is not None else None))
    return entries, dropped


def _dest_point(doc, page: int, link: dict, matrices: dict[int, object]):
    """``(point, page height or None)`` of an outline destination in top-left page
    coordinates, or None for other kinds or no point.

    PyMuPDF reports explicit GoTo destinations already converted (top-left), but named
    destinations (``kind`` LINK_NAMED, e.g. LaTeX/hyperref ``section.1``) in raw PDF
    coordinates (origin bottom-left); those are converted with the page's transformation
    matrix (cached in ``matrices``).
    """
    from .mupdf import pymupdf

    to = link.get("to")
    if to is None:
        return None
    kind = link.get("kind")
    if kind == pymupdf.LINK_NAMED:
        mat = matrices.get(page - 1)
        if mat is None:
            pg = doc[page - 1]
            mat = (pg.transformation_matrix, pg.rect.height)
            matrices[page - 1] = mat
        return pymupdf.Point(to) * mat[0], mat[1]
    if kind == pymupdf.LINK_GOTO:
        mat = matrices.get(page - 1)
        return pymupdf.Point(to), (mat[1] if mat else None)
    return None


def _dest_x(doc, page: int, link: dict, matrices: dict[int, object]) -> float | None:
    """Destination x (the heading's column) in points, or None when the PDF gives none
    (0) or it is off the page."""
    try:
        got = _dest_point(doc, page, link, matrices)
        if got is None:
            return None
        x = float(got[0].x)
        return round(x, 2) if 0.0 < x < doc[page - 1].rect.width else None
    except Exception:  # noqa: BLE001
        return None


def _dest_y(doc, page: int, link: dict, matrices: dict[int, object]) -> float | None:
    """Destination y in top-left page coordinates, or None (absent, or off the page)."""
    from .mupdf import pymupdf

    try:
        got = _dest_point(doc, page, link, matrices)
        if got is None:
            return None
        point, height = got
        y = float(point.y)
        if link.get("kind") == pymupdf.LINK_GOTO and y == 0.0:
            return None  # MuPDF reports an absent /XYZ top as 0
        if height is not None and not (0.0 <= y <= height):
            return None
        return round(y, 2)
    except Exception:  # noqa: BLE001
        return None
