"""Candidate heading rows: each visual row of a page (lines on one baseline of a block; a
number printed apart is merged with its title), with its box, dominant style and bold
share, and whether its page is a printed table of contents.

The heading detector (:mod:`pdftui.headings`) scores these rows; the features and hard
rejects are in :mod:`pdftui.heading_features` and :mod:`pdftui.heading_rejects`.
Units: ``y`` and boxes are PDF points from the top of the page; ``size`` is in points.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from pdftui.document import Line, Page
from pdftui.heading_text import NUMBER_ONLY as _NUMBER_ONLY
from pdftui.heading_text import numbering

__all__ = [
    "CONTENTS_PAGE_ROWS",
    "TOC_LINE",
    "WORD3",
    "CandidateRow",
    "font_key",
    "is_bold",
    "rows_of_document",
]

_SUBSET = re.compile(r"^[A-Z]{6}\+")
_BOLD_NAME = re.compile(r"bold|black|heavy|demi|semibold|medi|[-.,]b$|[-.,]bd|^cmbx|^cmb\d|bx\d", re.I)
#: a contents entry: dot leaders before a page number, or a page number set apart at the
#: end (a heading may end in a number: "4.2 Convergence of Algorithm 1")
TOC_LINE = re.compile(r"(?:\.\s?){4,}\s*\d+\s*$|\D\s+\d{1,4}\s*$")
#: rows ending in a number on one page (and half its rows of words) that make it a
#: contents page
CONTENTS_PAGE_ROWS = 5
#: a word of three letters or more (CJK ideographs count as letters)
WORD3 = re.compile(r"[^\W\d_]{3,}")


@dataclass(slots=True)
class CandidateRow:
    """A candidate heading: one visual row (lines on the same baseline of one block,
    plus a number printed apart from its title). Coordinates in points from the top."""

    page: int  # index into pages
    order: int  # index among the page's rows
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    block: int
    font: str
    size: float
    bold_frac: float
    n_block_rows: int = 1
    first_in_block: bool = True
    #: the row ends in a number printed apart from the text before it (a contents
    #: entry's page number), not one ending the text ("Proof of Theorem 1")
    tail_apart: bool = False
    #: the row is on a page of a printed table of contents (CONTENTS_PAGE_ROWS rows or
    #: more ending in a number)
    contents_page: bool = False
    #: the row's run-in lead: its opening words set bold or italic before plain text on
    #: the row (:func:`row_lead`), else ''
    lead: str = ""
    #: the lead is set bold (else italic, or there is none)
    lead_bold: bool = False
    #: the row's opening words set in another face than the plain text after them,
    #: neither bold nor italic ("Background" of "Background Recent guidelines ..."), and
    #: that face (without its subset prefix); a run-in lead only in a face of the
    #: document's headings (:mod:`pdftui.heading_run_in`)
    face_lead: str = ""
    face_lead_font: str = ""
    #: the next row of the page is a sentence of body text (body face and size, not
    #: bold, ``OPENS_TEXT_WORDS`` lower-case words or more): the row opens a paragraph
    #: (:func:`pdftui.heading_features.annotate`)
    opens_text: bool = False
    feats: list[float] = field(default_factory=list)
    rejected: str = ""


def font_key(font: str) -> str:
    return _SUBSET.sub("", font)


def is_bold(ln: Line) -> bool:
    return bool(ln.bold) or bool(_BOLD_NAME.search(font_key(ln.font)))


def _continues_row(cur: list[Line], ln: Line) -> bool:
    """Whether line ``ln`` continues the row ``cur``: on the same baseline, to its right,
    in the same block (or after a number printed as a block of its own)."""
    prev = cur[-1]
    same_base = abs(ln.y0 - prev.y0) < 2.5 or abs(ln.y1 - prev.y1) < 2.5
    number_apart = _NUMBER_ONLY.match(" ".join(c.text for c in cur)) is not None
    return same_base and ln.x0 >= prev.x0 and (ln.block == prev.block or number_apart)


def row_lead(lines: list[Line]) -> str:
    """The run-in lead of a row made of ``lines``: the first line's own lead
    (:attr:`Line.lead`), else its opening lines when they are bold and plain lines follow
    on the row ("Disentangled attention." | "The disentangled attention ..."); else ''."""
    if lines[0].lead:
        return lines[0].lead
    k = 0
    while k < len(lines) and is_bold(lines[k]):
        k += 1
    return " ".join(ln.text.strip() for ln in lines[:k]) if 0 < k < len(lines) else ""


def _row_of(pi: int, lines: list[Line]) -> CandidateRow | None:
    """The row made of ``lines`` (on page index ``pi``): its text, box, dominant style
    (by characters, the number of a numbered heading not counted) and bold share."""
    text = " ".join(ln.text.strip() for ln in lines if ln.text.strip())
    if not text:
        return None
    chars: Counter[tuple[str, float]] = Counter()
    bold_chars = total = 0
    for ln in lines:
        n = len(ln.text.strip())
        if not _NUMBER_ONLY.match(ln.text):
            chars[(font_key(ln.font), round(ln.size * 2) / 2)] += n
        bold_chars += n if is_bold(ln) else 0
        total += n
    if not chars:
        for ln in lines:
            chars[(font_key(ln.font), round(ln.size * 2) / 2)] += len(ln.text.strip())
    (font, size), _ = chars.most_common(1)[0]
    last, before = lines[-1], lines[-2] if len(lines) > 1 else None
    tail_apart = before is not None and last.text.strip().isdigit() and \
        last.x0 - before.x1 > 1.5 * max(size, 1.0)
    return CandidateRow(
        page=pi,
        order=0,
        text=text,
        x0=min(ln.x0 for ln in lines),
        y0=min(ln.y0 for ln in lines),
        x1=max(ln.x1 for ln in lines),
        y1=max(ln.y1 for ln in lines),
        block=lines[0].block,
        font=font,
        size=size,
        bold_frac=bold_chars / total if total else 0.0,
        tail_apart=tail_apart,
        lead=row_lead(lines),
        lead_bold=lines[0].lead_bold if lines[0].lead else is_bold(lines[0]),
        face_lead=lines[0].face_lead,
        face_lead_font=font_key(lines[0].face_lead_font) if lines[0].face_lead else "",
    )


#: the most words of a title merged with the number above it
TITLE_MAX_WORDS = 15


def _merge_numbers_above(rows: list[CandidateRow]) -> list[CandidateRow]:
    """Rows with a number on its own row right above its title ("Chapter 4" / "Sets and
    Maps") merged into one row (the number's row, with the title's style). A row opening
    with its own arabic number has no number above it ("x." ending a paragraph over
    "28. THE RATE FOR A SOURCE ..."), and a row of more than ``TITLE_MAX_WORDS`` words is
    a paragraph's first line, no title ("APPENDIX 5" / "Let S1 be any ...")."""
    merged: list[CandidateRow] = []
    for r in rows:
        if merged:
            p = merged[-1]
            if (
                _NUMBER_ONLY.match(p.text)
                and not _NUMBER_ONLY.match(r.text)
                and not numbering(r.text)[0][:1].isdigit()
                and len(r.text.split()) <= TITLE_MAX_WORDS
                and 0 <= r.y0 - p.y1 < 2.5 * max(p.size, r.size)
                and r.x0 < p.x1 + 200
                and p.x0 < r.x1
            ):
                p.text = f"{p.text.strip()} {r.text}"
                p.x1, p.y1 = max(p.x1, r.x1), r.y1
                p.font, p.size, p.bold_frac = r.font, r.size, max(p.bold_frac, r.bold_frac)
                p.block = r.block
                continue
        merged.append(r)
    return merged


def _rows_of_page(pi: int, page: Page) -> list[CandidateRow]:
    """The candidate rows of ``page`` (index ``pi``) in reading order, numbered, each
    knowing how many rows its block holds and whether it is the block's first."""
    groups: list[list[Line]] = []
    for ln in page.lines:
        if not ln.text.strip():
            continue
        if groups and _continues_row(groups[-1], ln):
            groups[-1].append(ln)
        else:
            groups.append([ln])
    rows = [r for g in groups if (r := _row_of(pi, g)) is not None]
    merged = _merge_numbers_above(rows)
    counts = Counter(r.block for r in merged)
    seen: set[int] = set()
    for i, r in enumerate(merged):
        r.order = i
        r.n_block_rows = counts[r.block]
        r.first_in_block = r.block not in seen
        seen.add(r.block)
    return merged



def rows_of_document(pages: list[Page]) -> list[CandidateRow]:
    """Every page's candidate rows in reading order, each marked ``contents_page`` when
    its page is a printed table of contents (``CONTENTS_PAGE_ROWS`` rows of two words or
    more ending in a number, and half of them)."""
    rows: list[CandidateRow] = []
    for pi, page in enumerate(pages):
        page_rows = _rows_of_page(pi, page)
        worded = [r for r in page_rows if len(WORD3.findall(r.text)) >= 2]
        ending = sum(1 for r in worded if TOC_LINE.search(r.text.strip()))
        for r in page_rows:
            r.contents_page = ending >= max(CONTENTS_PAGE_ROWS, 0.5 * len(worded))
        rows.extend(page_rows)
    return rows
