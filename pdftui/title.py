"""A document's title: the metadata title when it looks real, else the first page's largest text.

:func:`clean_title` turns down junk metadata titles ("Untitled", "Microsoft Word - x.doc",
file names, identifiers) for the file stem; :func:`title_on_first_page` keeps the metadata
title when the first page shows it, else takes the page's largest text (a wrapped title
of up to 3 lines), unless that text is a person's name under a smaller title (a byline
set larger than the title).
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
    title = _largest_text(cands, biggest)
    above = _title_above_a_name(cands, title, biggest, body)
    if above:
        title = above
    letters = sum(c.isalpha() for c in title)
    if is_stem and (letters < 6 or len(title.split()) < 2):
        return meta_title
    if 3 <= letters and len(title) <= 200:
        return title
    return meta_title


def _largest_text(cands: list, size: float, before: float | None = None) -> str:
    """The first run of lines of ``size`` (0.5 pt) among ``cands`` (up to 3: a wrapped
    title), joined, footnote marks dropped; only lines above ``before`` (y, points) when
    given."""
    picked: list[str] = []
    for ln in cands:
        if before is not None and ln.y0 >= before:
            break
        if abs(ln.size - size) < 0.5:
            picked.append(ln.text.strip())
        elif picked:
            break
    return strip_control(join_lines([t for t in picked[:3] if t]), keep_newlines=False,
                         keep_tabs=False).rstrip("∗*†‡ ")


def _title_above_a_name(cands: list, title: str, biggest: float, body: float) -> str:
    """When the largest text ``title`` is a person's name (a byline set larger than the
    title, as the German colortbl manual's "David Carlisle" under "The colortbl
    package"), the largest text above it that stands out from the body (1.15 x) and is
    not a name; '' when there is none (the name stays: a page may be a person's)."""
    from .metadata import is_name

    if not is_name(title):
        return ""
    top = next((ln.y0 for ln in cands if abs(ln.size - biggest) < 0.5), None)
    above = [ln for ln in cands if top is not None and ln.y1 <= top + 1
             and ln.size >= 1.15 * body and abs(ln.size - biggest) >= 0.5]
    if not above:
        return ""
    got = _largest_text(cands, max(ln.size for ln in above), before=top)
    # a title is a few words (not a notice or a running header of a sentence)
    ok = sum(c.isalpha() for c in got) >= 3 and len(got) <= 100 and not _sentence(got)
    return got if ok and not is_name(got) else ""


def _sentence(text: str) -> bool:
    """Prose rather than a title: 12 words or more, or a full stop inside."""
    return len(text.split()) >= 12 or bool(re.search(r"\w\.\s+[A-Z]", text))
