"""The heading detector: headings of a PDF without an outline, from the look of its lines.

Each visual row of a page (lines on one baseline of a block; a number printed apart is
merged with its title; :mod:`pdftui.heading_rows`) is a candidate; hard rules drop rows
that are never headings (captions, running headers and footers, page numbers, math,
addresses, author lists; :mod:`pdftui.heading_rejects`), a logistic score over style and
wording features (``FEATURE_NAMES`` in :mod:`pdftui.heading_features`, fitted weights
``WEIGHTS`` / ``BIAS``, cut at ``THRESHOLD``) keeps the rest or not, and the numbering of
the kept ones is checked (:mod:`pdftui.heading_sequence`: :func:`rescue_in_sequence`,
:func:`drop_out_of_sequence`). The result is a list of
:class:`~pdftui.document.OutlineEntry`, the same shape as an outline, so
:mod:`pdftui.sections` builds sections from either.

What a heading's text looks like (its numbering, its normalised title and when two titles
are the same heading) is in :mod:`pdftui.heading_text`, re-exported here.

Units: ``y`` and bboxes are PDF points from the top of the page; ``size`` is in points.
Nothing here imports PyMuPDF or Textual.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from pdftui.document import OutlineEntry, Page
from pdftui.heading_features import FEATURE_NAMES, annotate
from pdftui.heading_openers import opener_rows, rescue_openers
from pdftui.heading_rejects import REPEATED_ON_PAGE, is_contents_entry
from pdftui.heading_rows import CONTENTS_PAGE_ROWS, CandidateRow, rows_of_document
from pdftui.heading_run_in import run_in_heads
from pdftui.heading_sequence import (RESCUE_MIN_SCORE, assign_levels, drop_isolated_letters,
                                     drop_off_caps_sequence, drop_out_of_sequence,
                                     drop_restarted_lists,
                                     is_caps_numbered, rescue_by_style, rescue_caps_sequence,
                                     rescue_in_sequence, rescue_loose_group,
                                     rescue_roman_gaps, rescue_unnumbered_style)
from pdftui.heading_text import (ABSTRACT_WORDS, is_arxiv_stamp, is_number_only,
                                 join_wrapped, normalise_title, numbering, split_heading,
                                 squash_title, strip_number, titles_match)

__all__ = [
    "BIAS",
    "CONTENTS_PAGE_ROWS",
    "FEATURE_NAMES",
    "REPEATED_ON_PAGE",
    "THRESHOLD",
    "WEIGHTS",
    "candidate_rows",
    "detect_headings",
    "is_arxiv_stamp",
    "is_contents_entry",
    "is_number_only",
    "join_wrapped",
    "split_heading",
    "normalise_title",
    "numbering",
    "squash_title",
    "strip_number",
    "titles_match",
]

#: the row type of the detector (kept under its old name for :mod:`pdftui.heading_sequence`)
CandidateRow = CandidateRow
#: a candidate heading: (row, numbering label, numbering depth)
Candidate = tuple[CandidateRow, str, int]


def candidate_rows(pages: list[Page]) -> list[CandidateRow]:
    """All candidate rows of the document with features and hard-reject reasons."""
    rows = rows_of_document(pages)
    annotate(rows, pages)
    return rows


# in numpy (L2 1e-3, 3000 full-batch gradient steps, positives re-weighted to balance) over
# the non-rejected candidate rows of the 47 corpus PDFs that have an outline, a row labelled
# positive when its text matches (titles_match) an outline entry of the same page; the
# detector never sees the outline. Split by document (md5(file name) % 3 == 0 held out):
# 33 train documents (45,435 rows, 1,587 positives), 14 validation documents. THRESHOLD is
# the value in (0.5 .. 0.95) maximising the whole detector's train F1. Micro P/R/F1 at page
# tolerance 0 against the outline entries printed on their page (figures: bench/README.md).
WEIGHTS: list[float] = [
    +2.283,  # bold_vs_body
    +1.001,  # font_differs
    +0.627,  # size_up
    -1.806,  # size_down
    +0.881,  # numbered
    -0.245,  # numbered_styled
    +1.800,  # depth
    +0.577,  # gap_above
    +0.177,  # alone_in_block
    -0.155,  # first_in_block
    +0.923,  # short
    -1.698,  # log_words
    -0.205,  # title_case
    +1.388,  # all_caps
    -0.791,  # ends_punct
    -0.054,  # run_in
    -0.565,  # starts_lower
    +0.131,  # style_rarity
    -0.450,  # first_page_top
    -0.299,  # digit_share
    +0.362,  # style_numbered_share
]
BIAS = -0.829
THRESHOLD = 0.9


def _score(feats: list[float]) -> float:
    z = BIAS + sum(w * f for w, f in zip(WEIGHTS, feats))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


#: what opens a list item, never a heading's second line ("• Shortage of staff")
_BULLETS = ("•", "◦", "▪", "‣", "·", "*", "-", "–", "—")


def _wraps(head: CandidateRow, r: CandidateRow) -> bool:
    """Whether row ``r`` is the next line of the styled heading ``head`` (a heading wrapped
    onto a second line: the same style, right below it, unnumbered; in the same block, or
    opening the next one under the heading's span, as MuPDF splits a centred heading).
    Styled: bold, another face or larger than body text, or in capitals both lines; a
    list item's bullet opens no second line; a heading in capitals goes on in capitals
    ("RESULTS" over "Search results" in the same face are two headings)."""
    caps = bool(head.feats[13]) and r.text.isupper()   # "III. PREDICTION MODEL" | "DATA SETS"
    return (
        head.page == r.page
        and (head.block == r.block
             or (r.first_in_block and r.x0 < head.x1 and head.x0 < r.x1))
        and r.order == head.order + 1
        and bool(head.feats[0] or head.feats[1] or head.feats[2] > 0 or caps)
        and r.font == head.font
        and r.size == head.size
        and abs(r.bold_frac - head.bold_frac) < 0.2
        and len(head.text) + len(r.text) <= 200
        and not numbering(r.text)[1]
        and not r.text.lstrip().startswith(_BULLETS)
        and not (head.feats[13] and any(c.islower() for c in r.text))
        and not head.text.rstrip().endswith((".", ":"))
        and r.y0 - head.y1 < 0.8 * r.size
    )


_ABSTRACT = re.compile(rf"^({ABSTRACT_WORDS})$")
#: headings of a first page that are not its title block
_FRONT_HEADING = re.compile(rf"^({ABSTRACT_WORDS}|contents|table of contents|keywords|"
                            r"index terms|preface|foreword|introduction)$")
#: the least score of an unnumbered row that a style of kept headings can rescue
LOOSE_MIN_SCORE = 0.2
#: the least score of a numbered row that a style of numbered headings can rescue
STYLE_MIN_SCORE = 0.5
#: the least score of a roman-numbered row that a gap in the kept roman numbers can
#: rescue (:func:`pdftui.heading_sequence.rescue_roman_gaps`)
GAP_MIN_SCORE = 0.3


def _loose(r: CandidateRow, score: float) -> bool:
    """Whether ``r`` (under the threshold, unnumbered) may still be a heading by its
    style: alone in its block, at most 15 words, not ending a sentence."""
    t = r.text.strip()
    return score >= LOOSE_MIN_SCORE and r.n_block_rows == 1 and len(t.split()) <= 15 \
        and not t.endswith((".", ",", ";")) and not numbering(t)[1]


#: a first page with fewer characters is a title page
TITLE_PAGE_CHARS = 400


def _drop_title_block(found: list[tuple[CandidateRow, str, int]], rows: list[CandidateRow],
                      pages: list[Page]) -> list[tuple[CandidateRow, str, int]]:
    """Without the first page's title block: unnumbered rows of page 1 above its
    "Abstract" or first numbered heading (title, authors); without either, those set
    in the page's largest size in its top 45% (the title, over one line or two); on a
    title page (under ``TITLE_PAGE_CHARS`` characters), all but "Contents" and the like."""
    first = [f for f in found if f[0].page == 0]
    if not first:
        return found
    anchor = next((f[0] for f in first if f[2] or
                   _ABSTRACT.match(normalise_title(strip_number(f[0].text)))), None)
    first = [f for f in first if not _FRONT_HEADING.match(normalise_title(f[0].text))]
    if len(pages) > 1 and len(pages[0].text) < TITLE_PAGE_CHARS:
        # a title page: what is set apart on it is title, authors, release ("R Core
        # Team" looks lettered like an appendix)
        drop = {id(f[0]) for f in first}
    elif anchor is not None:
        drop = {id(f[0]) for f in first if not f[2] and f[0].order < anchor.order
                and f[0].y0 < anchor.y0}
    else:
        h = pages[0].height or 792.0
        top = max((r.size for r in rows if r.page == 0 and not r.rejected
                   and sum(c.isalpha() for c in r.text) >= 3), default=0.0)
        drop = {id(f[0]) for f in first if not f[2] and f[0].size >= top - 0.5
                and f[0].y0 < 0.45 * h}
    return [f for f in found if id(f[0]) not in drop]



@dataclass(slots=True)
class _Pools:
    """The rows sorted by their score: kept (``found``), numbered near misses that may fill
    a numbering gap (``near``), numbered rows that a style of numbered headings may rescue
    (``near_style``), unnumbered rows alone in their block under the threshold (``loose``,
    with their score), numbered rows scoring at least ``GAP_MIN_SCORE`` that only a gap in
    roman numbering can rescue (``low``), numbered capitals rows of any score that a
    sequence of them can rescue (``caps``: :func:`pdftui.heading_sequence.is_caps_numbered`),
    and the rows joined to a kept heading as its second line (``joined``, by ``id``)."""

    found: list[Candidate] = field(default_factory=list)
    near: list[Candidate] = field(default_factory=list)
    near_style: list[Candidate] = field(default_factory=list)
    loose: list[tuple[CandidateRow, float]] = field(default_factory=list)
    low: list[Candidate] = field(default_factory=list)
    caps: list[Candidate] = field(default_factory=list)
    joined: set[int] = field(default_factory=set)

    def filed(self) -> set[int]:
        """The ``id`` of every row in a pool or joined to a heading."""
        ids = {id(r) for pool in (self.found, self.near, self.near_style, self.low,
                                  self.caps) for r, _l, _d in pool}
        return ids | {id(r) for r, _s in self.loose} | self.joined


def _kept(r: CandidateRow, score: float, ocr: bool) -> bool:
    """Whether ``r`` is a heading by its score: at least ``THRESHOLD``; on a page read by
    OCR, whose style features are blind (one font, no bold, sizes estimated from line
    heights), an arabic-numbered row ("1.", "4.2") at ``RESCUE_MIN_SCORE`` or more (the
    numbering check still applies)."""
    return score >= THRESHOLD or (score >= RESCUE_MIN_SCORE and ocr
                                  and numbering(r.text)[0][:1].isdigit())


def _file_row(r: CandidateRow, score: float, ocr: bool, pools: _Pools) -> bool:
    """File the not rejected row ``r`` (with its ``score``) into ``pools``; True when it
    is kept as a heading or may still be one by its number (so a wrapped second line may
    join it: "A. Prediction Model for Multidimensional Scientific Data" | "Sets")."""
    label, depth = numbering(r.text)
    if _kept(r, score, ocr):
        pools.found.append((r, label, depth))
        return True
    if is_caps_numbered(r):
        pools.caps.append((r, label, depth))
        if depth and score < GAP_MIN_SCORE:   # numbered: a wrapped second line joins it
            return True
    if score >= RESCUE_MIN_SCORE and depth:
        pools.near.append((r, label, depth))
        pools.near_style.append((r, label, depth))
        return True
    if score >= STYLE_MIN_SCORE and depth:
        pools.near_style.append((r, label, depth))
        return True
    if score >= GAP_MIN_SCORE and depth:
        pools.low.append((r, label, depth))
        return True
    if _loose(r, score):
        if _ABSTRACT.match(normalise_title(r.text)) and score >= 0.5:
            pools.found.append((r, "", 0))   # "ABSTRACT" centred on page 1
            return True
        pools.loose.append((r, score))
    return False


def _repeated_numbered(r: CandidateRow) -> bool:
    """A rejected row that may still be a heading: numbered in arabic, rejected only for
    its text recurring on the page ("3 BERT" over Figure 1's box "BERT"), scoring at
    least ``RESCUE_MIN_SCORE``; kept if its number fills a gap."""
    return r.rejected == REPEATED_ON_PAGE and numbering(r.text)[0][:1].isdigit() \
        and _score(r.feats) >= RESCUE_MIN_SCORE


#: the most times a heading's text is found on its page (two appendices' "MS COCO")
RECURRING_HEADING = 2


def _recurring_headings(rows: list[CandidateRow]) -> set[int]:
    """The ``id`` of rejected rows that are headings all the same: rejected only for
    their text recurring on the page, at most ``RECURRING_HEADING`` times, kept by their
    score (``THRESHOLD``), opening a paragraph of body text (``opens_text``: a figure's
    label opens none) and with no other recurring row on their baseline (a table's cells
    recur side by side: GPT-2's "English reference" | "GPT-2 French translation"): two
    appendices' "MS COCO" on one page."""
    recurring = [r for r in rows if r.rejected == REPEATED_ON_PAGE]
    texts = Counter((r.page, normalise_title(r.text)) for r in recurring)
    out = set()
    for r in recurring:
        if texts[(r.page, normalise_title(r.text))] <= RECURRING_HEADING and r.opens_text \
                and _score(r.feats) >= THRESHOLD \
                and not any(q is not r and q.page == r.page and abs(q.y0 - r.y0) < 2.0
                            for q in recurring):
            out.add(id(r))
    return out


def _sort_rows(rows: list[CandidateRow], pages: list[Page]) -> _Pools:
    """The rows in reading order filed into :class:`_Pools` (the rejected ones left out
    but for headings whose text recurs on their page: :func:`_recurring_headings`); a
    kept row directly followed by its wrapped second line (:func:`_wraps`) absorbs it."""
    pools = _Pools()
    prev_kept: CandidateRow | None = None
    recurring = _recurring_headings(rows)
    for r in rows:
        if r.rejected and id(r) not in recurring:
            prev_kept = None
            if _repeated_numbered(r):
                pools.near.append((r, *numbering(r.text)))
            elif is_caps_numbered(r):   # "APPENDIX 6" going on from appendices in capitals
                pools.caps.append((r, *numbering(r.text)))
            continue
        if prev_kept is not None and _wraps(prev_kept, r):
            prev_kept.text = join_wrapped(prev_kept.text, r.text)
            pools.joined.add(id(r))
            prev_kept.order = r.order
            # a third line is measured from the second ("A Derivations of Post-Norm" |
            # "Transformer and Pre-Norm" | "Transformer")
            prev_kept.x1, prev_kept.y1 = max(prev_kept.x1, r.x1), max(prev_kept.y1, r.y1)
            if r.block == prev_kept.block:   # the block holds one heading less row
                prev_kept.n_block_rows -= 1
            continue
        kept = _file_row(r, _score(r.feats), pages[r.page].ocr, pools)
        prev_kept = r if kept else None
    return pools


def _checked(pools: _Pools, rows: list[CandidateRow], pages: list[Page]) -> list[Candidate]:
    """The kept headings after the numbering and style checks: near misses filling a
    numbering gap or in a style of headings come back; numbered list items, letters
    without siblings and numbers breaking the sequence go, and so does the first page's
    title block. A sequence of numbered capitals rows comes back first, so that the
    numbering check measures the rest against it; block openers in the style of a heading
    found (:mod:`pdftui.heading_openers`) come back after the other rescues."""
    found = rescue_caps_sequence(pools.found, pools.caps)
    found = rescue_in_sequence(found, pools.near)
    found = rescue_by_style(found, pools.near_style)
    found = rescue_roman_gaps(found, pools.near_style + pools.low)
    found = rescue_unnumbered_style(found, pools.loose, RESCUE_MIN_SCORE)
    found = rescue_loose_group(found, pools.loose, RESCUE_MIN_SCORE)
    found = rescue_openers(found, opener_rows(rows, pages, pools.filed()))
    found = drop_restarted_lists(found)
    found = drop_isolated_letters(found, len(pages))
    found = drop_off_caps_sequence(found)
    found = drop_out_of_sequence(found)
    return _drop_title_block(found, rows, pages)


def detect_headings(pages: list[Page], run_in: bool = True) -> list[OutlineEntry]:
    """Headings found by a scored detector over ``page.lines``.

    Each candidate row (lines on one baseline of a block; a number printed apart is
    merged with its title) gets the features in ``FEATURE_NAMES``; rows failing a hard
    rule (caption, running header/footer, page number, digits/math, url/email, author
    list, > 200 chars) are dropped; the rest are kept when the logistic score
    ``sigmoid(BIAS + WEIGHTS . feats) >= THRESHOLD``; then the numbering is checked:
    near misses that fill a numbering gap are kept (:func:`rescue_in_sequence`; a
    numbered row whose text recurs on its page is one when it scores at least
    ``RESCUE_MIN_SCORE``: "3 BERT" above Figure 1's box "BERT") and headings that break
    it are dropped (:func:`drop_out_of_sequence`). A kept row directly followed by a
    same-style row of the same block (a wrapped heading) absorbs it. Levels come from
    numbering depth, else from the style's rank. ``y`` is the row's top in points.
    With ``run_in``, run-in headings (a bold or italic lead-in opening a paragraph:
    :mod:`pdftui.heading_run_in`) are headings too, one level below all the others.
    """
    rows = candidate_rows(pages)
    found = _checked(_sort_rows(rows, pages), rows, pages)
    levels = assign_levels(found)
    entries = [
        (r.page, r.order, OutlineEntry(level=lvl, title=" ".join(r.text.split()),
                                       page=pages[r.page].number, y=r.y0, x=r.x0))
        for (r, _, _), lvl in zip(found, levels)
    ]
    if run_in:
        faces = frozenset(r.font for r, _l, _d in found) - {_body_face(rows)}
        entries += _run_in_entries(rows, {id(f[0]) for f in found}, pages,
                                   max(levels, default=0) + 1, faces)
    entries.sort(key=lambda e: (e[0], e[1]))
    return [e for _, _, e in entries]


def _body_face(rows: list[CandidateRow]) -> str:
    """The face most of the rows' characters are set in (body text)."""
    chars: Counter[str] = Counter()
    for r in rows:
        chars[r.font] += len(r.text)
    return chars.most_common(1)[0][0] if chars else ""


def _run_in_entries(rows: list[CandidateRow], kept: set[int], pages: list[Page],
                    level: int, faces: frozenset[str]) -> list[tuple[int, int, OutlineEntry]]:
    """The run-in headings (:func:`pdftui.heading_run_in.run_in_heads`; a lead set apart
    by its face alone counts in ``faces``, the faces of the kept headings other than the
    body text's) of rows not
    kept as headings, as ``(page index, row order, entry)`` at ``level`` (below every
    other heading: a run-in section runs to the next heading of any kind); the title is
    the lead without its closing stop or colon."""
    return [
        (r.page, r.order, OutlineEntry(level=level,
                                       title=" ".join(lead.split()).rstrip(" .:—–"),
                                       page=pages[r.page].number, y=r.y0, x=r.x0))
        for r, lead in run_in_heads(rows, faces) if id(r) not in kept
    ]
