"""Features of candidate heading rows: style against the document's body text (bold,
face, size), numbering, white space above, wording and how rare the row's style is;
aligned with ``FEATURE_NAMES`` and scored by :mod:`pdftui.headings`.

Rows are :class:`~pdftui.heading_rows.CandidateRow`; :func:`annotate` fills each row's
``feats`` and its hard-reject reason (:func:`pdftui.heading_rejects.reject_reason`).
Units: ``y`` and ``size`` in PDF points.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from pdftui.document import Page
from pdftui.heading_rejects import reject_reason, repeats
from pdftui.heading_rows import CandidateRow, font_key, is_bold
from pdftui.heading_text import NUMBER_ONLY as _NUMBER_ONLY
from pdftui.heading_text import numbering, strip_number

__all__ = ["FEATURE_NAMES", "annotate"]

FEATURE_NAMES = [
    "bold_vs_body",  # row is bold (span flag bit 16 or font-name suffix), body text is not
    "font_differs",  # dominant font face differs from the body's majority face
    "size_up",  # (size / body_size - 1) * 4, clipped to [0, 3]
    "size_down",  # size smaller than body by > 7%
    "numbered",  # "3.2", "A.1", "Chapter 4", "IV." prefix
    "numbered_styled",  # numbered AND (bold or other face or bigger)
    "depth",  # numbering depth, 0 when unnumbered, clipped to 3
    "gap_above",  # white space above / body line pitch, clipped to [0, 4]
    "alone_in_block",  # the row is its whole block
    "first_in_block",
    "short",  # <= 10 words
    "log_words",
    "title_case",  # share of words (> 3 letters) that are capitalised
    "all_caps",
    "ends_punct",  # ends with . : , ;
    "run_in",  # bold prefix followed by body text on the same line
    "starts_lower",
    "style_rarity",  # -log share of document characters set in this style / 4
    "first_page_top",  # page 1, top 45%: title, authors, affiliations
    "digit_share",
    "style_numbered_share",  # share of this style's rows that are numbered, short, capitalised
]


@dataclass(frozen=True, slots=True)
class _Body:
    """The document's body text: the style (face, size in points, bold) most characters are
    set in, how many characters each style sets, and the body's line pitch in points."""

    face: str
    size: float
    bold: bool
    pitch: float
    style_chars: Counter[tuple[str, float, bool]]
    total_chars: int


def _body_style(rows: list[CandidateRow], pages: list[Page]) -> _Body:
    """The body style of ``pages`` and its line pitch (the median distance between
    consecutive rows of the body face in one block; 1.2 x the body size when none)."""
    style_chars: Counter[tuple[str, float, bool]] = Counter()
    for page in pages:
        for ln in page.lines:
            n = len(ln.text.strip())
            style_chars[(font_key(ln.font), round(ln.size * 2) / 2, is_bold(ln))] += n
    total_chars = sum(style_chars.values()) or 1
    if style_chars:
        (face, size, bold), _ = style_chars.most_common(1)[0]
    else:
        face, size, bold = "", 10.0, False
    size = size or 10.0
    pitches: list[float] = []
    for a, b in zip(rows, rows[1:]):
        if a.page == b.page and a.block == b.block and a.font == face:
            d = b.y0 - a.y0
            if 0 < d < 3 * size:
                pitches.append(d)
    pitches.sort()
    pitch = pitches[len(pitches) // 2] if pitches else 1.2 * size
    return _Body(face, size, bold, pitch, style_chars, total_chars)



def _numbered_styles(rows: list[CandidateRow]) -> tuple[Counter[tuple], Counter[tuple]]:
    """Rows per style (face, size, bold) and, of them, the numbered short capitalised ones:
    "I. INTRODUCTION" in small capitals is smaller than body text, but its style is the
    numbered headings' style."""
    style_rows: Counter[tuple] = Counter()
    style_num: Counter[tuple] = Counter()
    for r in rows:
        st = (r.font, r.size, r.bold_frac >= 0.8)
        style_rows[st] += 1
        lab, _ = numbering(r.text)
        if lab and len(r.text.split()) <= 15 and not r.text.rstrip().endswith("."):
            rest = [c for c in strip_number(r.text) if c.isalpha()]
            if rest and rest[0].isupper():
                style_num[st] += 1
    return style_rows, style_num



def _gap_above(prev: CandidateRow | None, r: CandidateRow, pitch: float) -> float:
    """White space above ``r`` in body line pitches (2 at a page or column start)."""
    if prev is None or prev.y1 > r.y0 + 1:  # first row, or a column break
        return 2.0
    return (r.y0 - prev.y1) / pitch


def _row_features(r: CandidateRow, h: float, gap: float, body: _Body,
                  style_rows: Counter[tuple], style_num: Counter[tuple]) -> list[float]:
    """Row ``r``'s features, aligned with :data:`FEATURE_NAMES`."""
    t = r.text.strip()
    digits = sum(c.isdigit() for c in t)
    words = t.split()
    label, depth = numbering(t)
    body_t = strip_number(t) if label else t
    bold = r.bold_frac >= 0.8
    long_words = [w for w in body_t.split() if sum(c.isalpha() for c in w) > 3]
    title_case = (
        sum(w[0].isupper() for w in long_words) / len(long_words) if long_words else 0.5
    )
    alpha = [c for c in body_t if c.isalpha()]
    first_alpha = alpha[0] if alpha else "A"
    styled = bold and not body.bold or r.font != body.face or r.size > body.size * 1.07
    share = body.style_chars.get((r.font, r.size, bold), 0) / body.total_chars
    return [
        1.0 if bold and not body.bold else 0.0,
        1.0 if r.font != body.face else 0.0,
        min(3.0, max(0.0, (r.size / body.size - 1.0) * 4.0)),
        1.0 if r.size < body.size * 0.93 else 0.0,
        1.0 if label else 0.0,
        1.0 if label and styled else 0.0,
        float(min(depth, 3)),
        min(4.0, max(0.0, gap)),
        1.0 if r.n_block_rows == 1 else 0.0,
        1.0 if r.first_in_block else 0.0,
        1.0 if len(words) <= 10 else 0.0,
        math.log1p(len(words)),
        title_case,
        1.0 if len(alpha) >= 4 and all(c.isupper() for c in alpha) else 0.0,
        1.0 if t[-1:] in ".:,;" and not _NUMBER_ONLY.match(t) else 0.0,
        1.0 if 0.1 < r.bold_frac < 0.8 else 0.0,
        1.0 if first_alpha.islower() else 0.0,
        min(8.0, -math.log(max(share, 1e-6))) / 4.0,
        1.0 if r.page == 0 and r.y0 < 0.45 * h else 0.0,
        digits / max(1, len(t.replace(" ", ""))),
        style_num[(r.font, r.size, bold)] / (style_rows[(r.font, r.size, bold)] + 2),
    ]


#: monospaced faces (a line of code or a command, when set in body size and not bold)
_MONOSPACE = re.compile(r"mono|courier|typewriter|consol|menlo|nimbusmon|"
                        r"^(?:cm|lm|sf|ec)s?l?tt|^tt\d|code", re.I)


def _code_reason(r: CandidateRow, body: _Body) -> str:
    """Why row ``r`` is code, not a heading: set in a monospaced face, not bold, and no
    larger than body text ("R CMD BATCH foo.R &", "3 columns: x y yerror"); else ''."""
    if _MONOSPACE.search(r.font) and r.bold_frac < 0.5 and r.size <= body.size * 1.07:
        return "code"
    return ""


#: lower-case words of a row of body text that make it a sentence (not a table's row)
OPENS_TEXT_WORDS = 3
_LOWER_WORD = re.compile(r"(?<![\w-])[a-z]{2,}(?![\w-])")


def _mark_opens_text(rows: list[CandidateRow]) -> None:
    """Set ``row.opens_text`` when the next row of its page is body text (features: not
    bold, body face, not smaller) holding ``OPENS_TEXT_WORDS`` lower-case words, or a
    line of a code listing (a monospaced face, not bold: a literate program's
    "Macros" over "68 \\def\\csarg#1#2{...}")."""
    for r, nxt in zip(rows, rows[1:]):
        prose = not nxt.feats[0] and not nxt.feats[1] and not nxt.feats[3] \
            and len(_LOWER_WORD.findall(nxt.text)) >= OPENS_TEXT_WORDS
        listing = bool(_MONOSPACE.search(nxt.font)) and nxt.bold_frac < 0.5
        r.opens_text = nxt.page == r.page and (prose or listing)


def annotate(rows: list[CandidateRow], pages: list[Page]) -> None:
    """Compute ``row.feats`` (aligned with FEATURE_NAMES), hard ``row.rejected`` and
    ``row.opens_text``."""
    body = _body_style(rows, pages)
    rep = repeats(rows, pages)
    style_rows, style_num = _numbered_styles(rows)
    prev_by_page: dict[int, CandidateRow] = {}
    for r, key in zip(rows, rep.keys):
        h = pages[r.page].height or 792.0
        r.rejected = reject_reason(r, key, h, rep, body.size) or _code_reason(r, body) \
            or r.rejected
        gap = _gap_above(prev_by_page.get(r.page), r, body.pitch)
        prev_by_page[r.page] = r
        r.feats = _row_features(r, h, gap, body, style_rows, style_num)
    _mark_opens_text(rows)

