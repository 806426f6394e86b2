"""Hard rules of the heading detector: candidate rows that are never headings (captions,
running headers and footers, page numbers, math, addresses, author lists, contents
entries, code, figure and table letters, text repeated on its page), each with its reason.

Used by :mod:`pdftui.heading_features`; rows are :class:`~pdftui.heading_rows.CandidateRow`.
Units: ``y`` in PDF points from the top of the page.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from pdftui.document import Page
from pdftui.heading_rows import TOC_LINE as _TOC_LINE
from pdftui.heading_rows import WORD3 as _WORD3
from pdftui.heading_rows import CandidateRow
from pdftui.heading_text import NUMBER_ONLY as _NUMBER_ONLY
from pdftui.heading_text import is_arxiv_stamp, normalise_title, numbering, strip_number

__all__ = [
    "REPEATED_ON_PAGE",
    "Repeats",
    "is_contents_entry",
    "reject_reason",
    "repeats",
]

_CAPTION = re.compile(
    r"^(?:fig(?:ure)?|table|tab|algorithm|alg|listing|plate|exhibit|chart|scheme|equation|eq)"
    r"\.?\s*(?:[0-9]+|[A-Z]\.?[0-9]*|[IVX]+)\s*[.:|\-—–]",
    re.I,
)
_CAPTION_BARE = re.compile(r"^(?:fig(?:ure)?|table|tab|algorithm)\.?\s*[0-9]+[a-z]?\s*$", re.I)
_TOC_DOTS = re.compile(r"(?:\.\s?){4,}\s*\d+\s*$|(?:\.\s){2,}\s*\d+\s*$")
#: a number spelled out, as a chapter's "CHAPTER" / "ONE" print it on two rows
_NUMBER_WORD = re.compile(r"^(chapter|one|two|three|four|five|six|seven|eight|nine|ten|"
                          r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|"
                          r"eighteen|nineteen|twenty)$")
#: after a row's number, what opens a line of code or data, not a title ("35 \else",
#: "55 #1\endcsname", '1.0 "second column" 3.0')
_CODE_AFTER_NUMBER = re.compile(r"^[\\}#<>\"'$%&|\[=(+*/~^_]")
_URL_EMAIL = re.compile(r"@|https?:|www\.|\.com\b|\.org\b|\.edu\b|doi\s*:", re.I)


@dataclass(frozen=True, slots=True)
class Repeats:
    """Where each row's digit-free text recurs: ``keys[i]`` is row i's key; ``band`` /
    ``anywhere`` the pages holding a key in the top or bottom tenth / anywhere;
    ``page_dups`` counts (page, key) pairs; a key on ``rep_min`` pages repeats."""

    keys: list[str]
    band: dict[str, set[int]]
    anywhere: dict[str, set[int]]
    page_dups: Counter[tuple[int, str]]
    rep_min: int
    n_pages: int


def _in_band(r: CandidateRow, h: float) -> bool:
    """Whether row ``r`` lies in the top or bottom tenth of a page ``h`` points high."""
    return r.y0 < 0.1 * h or r.y1 > 0.9 * h


def repeats(rows: list[CandidateRow], pages: list[Page]) -> Repeats:
    """Running headers and footers: the same digit-free text in the top/bottom band on >= 3
    pages (or on >= 2 pages of a short document); and texts repeated anywhere."""
    band: dict[str, set[int]] = defaultdict(set)
    anywhere: dict[str, set[int]] = defaultdict(set)
    keys: list[str] = []
    for r in rows:
        key = re.sub(r"\b[0-9ivxlc]+\b", "", normalise_title(r.text)).strip()
        keys.append(key)
        if _in_band(r, pages[r.page].height or 792.0):
            band[key].add(r.page)
        anywhere[key].add(r.page)
    n_pages = len(pages)
    # a contents entry ("1 Introduction  1") does not make its heading a repeated label
    page_dups = Counter((r.page, k or r.text.strip()) for r, k in zip(rows, keys)
                        if not is_contents_entry(r))
    return Repeats(keys, band, anywhere, page_dups, 3 if n_pages > 4 else 2, n_pages)



#: the reject reason of a row whose text recurs on its page (a table cell, a figure label)
REPEATED_ON_PAGE = "repeated on the page (table cell, label)"


def is_contents_entry(r: CandidateRow) -> bool:
    """Whether row ``r`` is an entry of a printed table of contents: two words or more
    ending in a page number after dot leaders, after a wide space or printed apart."""
    t = r.text.strip()
    if len(t.split()) < 2 or not _TOC_LINE.search(t):
        return False
    label, _ = numbering(t)
    if label and not _TOC_LINE.search(strip_number(t)):
        return False
    return bool(_TOC_DOTS.search(t)) or r.tail_apart or r.contents_page or \
        re.search(r"\S\s{3,}\d{1,4}\s*$", r.text) is not None


def reject_reason(r: CandidateRow, key: str, h: float, rep: Repeats) -> str:
    """Why row ``r`` (its repeat key ``key``, on a page ``h`` points high) is never a
    heading in this corpus, or '' when it may be one."""
    t = r.text.strip()
    letters = sum(c.isalpha() for c in t)
    label, _ = numbering(t)
    body_t = strip_number(t) if label else t
    if len(t) > 200:
        return "long"
    if letters < 2 or letters < 0.5 * len(t.replace(" ", "")):
        return "digits/math"
    if _CAPTION.match(t) or _CAPTION_BARE.match(t):
        return "caption"
    if _URL_EMAIL.search(t):
        return "url/email"
    if is_arxiv_stamp(t):
        return "arXiv stamp"
    if len(t.split()) >= 2 and not _WORD3.search(body_t) and not label[:1].isdigit():
        # "R s a", "G T A A C A G", "P R F1 P R F1": a figure's axis or panel letters, a
        # table's column heads (a manual's "cd" or "if" is a heading, an arabic-numbered
        # "5 To do's" too)
        return "figure or table letters"
    if key and len(rep.band.get(key, ())) >= rep.rep_min and _in_band(r, h):
        return "running header/footer"
    if key and len(rep.anywhere[key]) >= max(rep.rep_min, 0.5 * rep.n_pages) \
            and rep.n_pages >= 3:
        return "repeated"
    if t.count(",") >= 3 or re.search(r"[∗†‡§¶]|\*\s*,|\d\s*,\s*\d", body_t):
        return "author list/affiliation"
    if _NUMBER_ONLY.match(t) or _NUMBER_WORD.match(normalise_title(t)):
        return "bare number"
    if label and _CODE_AFTER_NUMBER.match(body_t.strip()):
        return "code or data"
    if is_contents_entry(r):
        return "table-of-contents line"
    if rep.page_dups[(r.page, key or t)] > 1:
        return REPEATED_ON_PAGE
    return ""

