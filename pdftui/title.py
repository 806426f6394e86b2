"""A document's title: the metadata title when it looks real, else the first page's largest text.

:func:`clean_title` turns down junk metadata titles ("Untitled", "Microsoft Word - x.doc",
file names, identifiers) for the file stem; :func:`title_on_first_page` keeps the metadata
title when the first page shows it, else takes the page's largest text (a wrapped title
of up to 3 lines).
"""

from __future__ import annotations

import re

from pdftui.document import Page
from pdftui.page_text import join_lines, normalize_text
from pdftui.text import strip_control

_JUNK_TITLES = {
    "untitled", "untitled document", "title", "document", "none", "unknown", "no title",
    "notitle", "default", "slide 1", "presentation", "powerpoint presentation", "doc",
    "pdf", "new document", "layout 1", "page 1", "microsoft word", "word document",
}
_APP_PREFIX_RE = re.compile(
    r"^\s*(microsoft\s+(word|powerpoint|excel)|word|powerpoint|excel)\s*-\s*", re.IGNORECASE
)
_FILENAME_RE = re.compile(
    r"^(?:.*[\\/])?[^\\/]+\.(pdf|docx?|dotx?|rtf|odt|tex|dvi|ps|eps|indd|qxd|qxp|txt|html?|xlsx?|pptx?|pages|key|ai|cdr|pub|fm|wpd|xml)$",
    re.IGNORECASE,
)


def clean_title(meta_title: str | None, stem: str) -> str:
    """Metadata title when it looks like a real title, else the file stem."""
    t = normalize_text(strip_control(meta_title or "", keep_newlines=False, keep_tabs=False))
    t = t.replace("\n", " ").strip()
    t = _APP_PREFIX_RE.sub("", t).strip()
    if (
        not t
        or len(t) >= 300
        or t.lower().strip(" .") in _JUNK_TITLES
        or _FILENAME_RE.match(t)
        or t.lower() == stem.lower()
        or re.match(r"^(arxiv:|doi:|https?://|www\.|isbn|issn)", t, re.IGNORECASE)
        or not any(c.isalpha() for c in t)
        or re.fullmatch(r"[\w-]*\d[\w-]*", t) and " " not in t and not t.isalpha()  # ids like "a1b2_c3"
    ):
        return stem
    return t


_ID_LINE_RE = re.compile(r"^(arxiv:|doi:|https?://|[a-z-]+(\.[a-z]+)?/\d{7})", re.IGNORECASE)


def _squashed(text: str) -> str:
    return re.sub(r"\W+", "", text.casefold())


def title_on_first_page(meta_title: str, first: Page, is_stem: bool = False) -> str:
    """The metadata title when the first page shows it; else the first page's largest
    text (up to 3 consecutive lines of that size: a wrapped title), when there is one.
    Word exports often carry a stale metadata title ("System Model" on Dynamo); with no
    usable metadata (``is_stem``: the file name stands in) the largest text must be at
    least two words."""
    if not first.lines or (not is_stem and _squashed(meta_title)[:40]
                           in _squashed(first.text[:4000])):
        return meta_title
    # horizontal lines only (the arXiv stamp runs up the margin), no identifiers
    cands = [ln for ln in first.lines if (ln.x1 - ln.x0) >= (ln.y1 - ln.y0)
             and not _ID_LINE_RE.match(ln.text.strip())]
    biggest = max((ln.size for ln in cands), default=0.0)
    weight: dict[float, int] = {}
    for ln in cands:
        weight[round(ln.size, 1)] = weight.get(round(ln.size, 1), 0) + len(ln.text)
    body = max(weight, key=weight.get, default=0.0)
    # a title stands out: larger than the body text, or the page is a title page where
    # the largest text is short
    if biggest <= 0 or (biggest < 1.15 * body and weight[round(biggest, 1)] > 150):
        return meta_title
    picked: list[str] = []
    for ln in cands:
        if abs(ln.size - biggest) < 0.5:
            picked.append(ln.text.strip())
        elif picked:
            break
    title = strip_control(join_lines([t for t in picked[:3] if t]), keep_newlines=False,
                          keep_tabs=False).rstrip("∗*†‡ ")
    letters = sum(c.isalpha() for c in title)
    if is_stem and (letters < 6 or len(title.split()) < 2):
        return meta_title
    if 3 <= letters and len(title) <= 200:
        return title
    return meta_title
