"""Block openers: headings at body size on a line of their own that open the block of the
paragraph below them (MuPDF puts "Inclusion criteria" and its paragraph in one block),
so the detector's rows alone in their block (:func:`pdftui.headings._loose`) never see
them.

An opener is a candidate row that the score did not keep and that

* opens its block, or sits under another such row of its block ("METHODS" over "Search
  strategy and identification of studies");
* is set apart from its paragraph by style: bold, or another face than body text that is
  not monospaced or italic (code, a book title), and not smaller than body text;
* reads like a title: unnumbered, 1 to ``OPENER_MAX_WORDS`` words, a capital first, no
  closing stop, comma, colon, question mark or hyphen, no run-in lead, no table cells
  (words set apart on its baseline: "Parser  Training  WSJ 23 F1");
* is followed in its block by prose (not bold, ``PROSE_WORDS`` lower-case words or more,
  not a continuation starting in lower case) or by another opener in its style; or, bold,
  goes on as the run-in lead of the row below (the title wrapped, the paragraph after it).

:func:`rescue_openers` keeps the openers set in the style (face, size, bold) of a heading
already found: a journal's second-level headings in its first level's face ("Data
extraction" in the face of "RESULTS"), a paper's bold paragraph headings in the bold of
its numbered ones ("Comparing Synthesizers with Dynamic Convolutions" under "4.1 ...").
Units: points.
"""

from __future__ import annotations

import re

from pdftui.document import Page
from pdftui.heading_rows import CandidateRow
from pdftui.heading_text import join_wrapped, numbering

__all__ = ["OPENER_MAX_WORDS", "PROSE_WORDS", "opener_rows", "rescue_openers"]

#: the most words of an opener
OPENER_MAX_WORDS = 12
#: lower-case words of the row below an opener that make it prose
PROSE_WORDS = 3
#: faces that set code or an emphasis, never a heading at body size
_NOT_HEADING_FACE = re.compile(r"mono|courier|typewriter|consol|menlo|nimbusmon|"
                               r"^(?:cm|lm|sf|ec)s?l?tt|^tt\d|code|ital|obli|^cmti|^cmsl",
                               re.I)
_LOWER_WORD = re.compile(r"(?<![\w-])[a-z]{2,}(?![\w-])")
#: a gap between words on one baseline wider than this many sizes splits table cells
CELL_GAP = 1.5

Candidate = tuple[CandidateRow, str, int]


def _style(r: CandidateRow) -> tuple:
    return (r.font, r.size, r.bold_frac >= 0.8)


def _styled(r: CandidateRow) -> bool:
    """Set apart from body text: bold (``feats[0]``, most of the row) or another face
    (``feats[1]``) that sets no code or emphasis; not smaller (``feats[3]``)."""
    other_face = bool(r.feats[1]) and not _NOT_HEADING_FACE.search(r.font)
    return (bool(r.feats[0]) and r.bold_frac >= 0.8 or other_face) and not r.feats[3]


def _cells(r: CandidateRow, page: Page) -> bool:
    """Whether the row's words on its baseline are table cells (a gap wider than
    ``CELL_GAP`` times the size between two of its lines)."""
    lines = sorted((ln for ln in page.lines if ln.block == r.block and abs(ln.y0 - r.y0) < 2.5
                    and ln.text.strip()), key=lambda ln: ln.x0)
    return any(b.x0 - a.x1 > CELL_GAP * r.size for a, b in zip(lines, lines[1:]))


def _title_like(r: CandidateRow, page: Page, text: str | None = None) -> bool:
    """The row (with the text ``text``, by default its own) reads like a title and is
    styled as one (see the module docstring)."""
    t = (r.text if text is None else text).strip()
    words = t.split()
    return (not r.rejected and not r.lead and _styled(r)
            and 1 <= len(words) <= OPENER_MAX_WORDS and t[:1].isupper()
            and not t.endswith((".", ",", ";", ":", "?", "-"))
            and not numbering(t)[1] and not _cells(r, page))


def _prose(r: CandidateRow) -> bool:
    """A row of running text: not bold, not opening in lower case (a title's
    continuation), ``PROSE_WORDS`` lower-case words or more."""
    t = r.text.strip()
    return r.bold_frac < 0.8 and not t[:1].islower() \
        and len(_LOWER_WORD.findall(t)) >= PROSE_WORDS


def _title_end(r: CandidateRow, nxt: CandidateRow | None) -> str:
    """The end of a bold title wrapped onto the next row of its block, where it opens
    that row as a run-in lead before the paragraph ("Synthetic Attention is competitive
    even without Dot" | "Product Attention On all evaluated tasks ..."); else ''. A lead
    closing on a stop or colon ends a run-in heading ("Applying the virtual memory and
    paging technique to" | "other GPU workloads. The idea ...") or is one ("Data
    analysis" | "Firing rate. MUAs are ...")."""
    if nxt is None or nxt.page != r.page or nxt.block != r.block or r.bold_frac < 0.8 \
            or nxt.lead.rstrip().endswith((".", ":", "—", "–")):
        return ""   # a lead closing on a stop: a run-in heading wrapped, or one of its own
    return nxt.lead.strip()


def opener_rows(rows: list[CandidateRow], pages: list[Page],
                filed: set[int]) -> list[CandidateRow]:
    """The openers among ``rows`` (all candidate rows in reading order), leaving out the
    rows whose ``id`` is in ``filed`` (kept, pooled by another rescue, or joined to a
    heading as its second line). A bold title wrapped onto the row below, whose end
    opens that row as a run-in lead, gets that end back in its text (:func:`_title_end`:
    the rest of that row is the paragraph)."""
    ends = [_title_end(r, rows[i + 1] if i + 1 < len(rows) else None)
            for i, r in enumerate(rows)]
    like = [_title_like(r, pages[r.page]) for r in rows]
    opener = [False] * len(rows)
    for i in range(len(rows) - 1, -1, -1):   # from the end: whether the next row opens
        r, nxt = rows[i], rows[i + 1] if i + 1 < len(rows) else None
        if id(r) in filed or nxt is None or nxt.page != r.page or nxt.block != r.block:
            continue   # alone in its block: a loose row, no opener
        if ends[i]:
            ok = _title_like(r, pages[r.page], join_wrapped(r.text, ends[i]))
            followed = True
        else:
            ok = like[i]
            followed = _prose(nxt) or (opener[i + 1] and _style(nxt) == _style(r))
        opens = r.first_in_block or (i > 0 and rows[i - 1].block == r.block and like[i - 1])
        opener[i] = ok and opens and followed
    out: list[CandidateRow] = []
    for i, r in enumerate(rows):
        if opener[i]:
            if ends[i]:
                r.text = join_wrapped(r.text, ends[i])
            out.append(r)
    return out


def rescue_openers(found: list[Candidate], openers: list[CandidateRow]) -> list[Candidate]:
    """Add the ``openers`` (:func:`opener_rows`) set in the style (face, size, bold) of a
    heading in ``found``; rows ordered by (page, order)."""
    styles = {_style(r) for r, _l, _d in found}
    have = {(r.page, r.order) for r, _l, _d in found}
    out = list(found)
    for r in openers:
        if _style(r) in styles and (r.page, r.order) not in have:
            out.append((r, "", 0))
            have.add((r.page, r.order))
    out.sort(key=lambda f: (f[0].page, f[0].order))
    return out
