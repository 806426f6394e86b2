"""The heading detector: headings of a PDF without an outline, from the look of its lines.

Each visual row of a page (lines on one baseline of a block; a number printed apart is
merged with its title) is a candidate; hard rules drop rows that are never headings
(captions, running headers and footers, page numbers, math, addresses, author lists), a
logistic score over style and wording features (``FEATURE_NAMES``, fitted weights
``WEIGHTS`` / ``BIAS``, cut at ``THRESHOLD``) keeps the rest or not, and the numbering of
the kept ones is checked (:mod:`pdftui.heading_sequence`: :func:`rescue_in_sequence`,
:func:`drop_out_of_sequence`). The
result is a list of :class:`~pdftui.document.OutlineEntry`, the same shape as an outline,
so :mod:`pdftui.sections` builds sections from either.

Also here: what a heading's text looks like (its numbering, its normalised title and when
two titles are the same heading), shared with the sections builder and the bench.

Units: ``y`` and bboxes are PDF points from the top of the page; ``size`` is in points.
Nothing here imports PyMuPDF or Textual.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from pdftui.document import Line, OutlineEntry, Page
from pdftui.heading_sequence import (RESCUE_MIN_SCORE, assign_levels, drop_out_of_sequence,
                                     rescue_by_style, rescue_in_sequence,
                                     rescue_unnumbered_style)

__all__ = [
    "BIAS",
    "FEATURE_NAMES",
    "THRESHOLD",
    "WEIGHTS",
    "candidate_rows",
    "detect_headings",
    "is_number_only",
    "split_heading",
    "normalise_title",
    "numbering",
    "squash_title",
    "strip_number",
    "titles_match",
]

# --------------------------------------------------------------------------------------
# Heading text: normalised titles, fuzzy matching, numbering
# --------------------------------------------------------------------------------------

_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def normalise_title(text: str) -> str:
    """Lower-case NFKC text with every run of non-alphanumerics collapsed to one space."""
    text = unicodedata.normalize("NFKC", text).lower()
    return _NON_ALNUM.sub(" ", text).strip()


def squash_title(text: str) -> str:
    """:func:`normalise_title` without its spaces."""
    return normalise_title(text).replace(" ", "")


def titles_match(a: str, b: str, threshold: float = 0.8) -> bool:
    """True when two titles are the same heading: equal ignoring case/punctuation/spaces,
    one a prefix of the other (>= 60% of the longer), or difflib ratio >= ``threshold``."""
    sa, sb = squash_title(a), squash_title(b)
    if not sa or not sb:
        return False
    if sa == sb:
        return True
    short, long_ = (sa, sb) if len(sa) <= len(sb) else (sb, sa)
    if long_.startswith(short) and len(short) >= 0.6 * len(long_) and len(short) >= 3:
        return True
    return SequenceMatcher(None, sa, sb, autojunk=False).ratio() >= threshold


# Numbering patterns. Depth is the number of dotted components ("3.2" -> 2).
_NUM_ARABIC = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,4})\.?(?=\s+\S|$)")
_NUM_LETTER = re.compile(r"^([A-Z](?:\.\d{1,2}){0,4})\.?(?=\s+\S|$)")
#: "§ 3." (a section sign before the number): label "§3"
_NUM_SECTION_SIGN = re.compile(r"^§\s*(\d{1,3}(?:\.\d{1,2}){0,3})\.?(?=\s+\S|$)")
_NUM_ROMAN = re.compile(r"^([IVXLC]{1,6})\.(?=\s+\S|$)")
_NUM_WORD = re.compile(
    r"^(?:chapter|section|part|appendix|lecture|lesson|article)\s+([0-9]{1,3}|[IVXLC]{1,6}|[A-Z])\b",
    re.I,
)
_NUMBER_PREFIX = re.compile(
    r"^\s*(?:§\s*(?=\d))?(?:(?:chapter|section|part|appendix)\s+)?(?:\d{1,2}(?:\.\d{1,2})*|[A-Z](?:\.\d{1,2})*|[IVXLC]{1,6})\.?\s+",
    re.I,
)
_NUMBER_ONLY = re.compile(
    r"^\s*(?:§\s*(?=\d))?(?:(?:chapter|section|part|appendix)\s+)?(?:\d{1,2}(?:\.\d{1,2})*|[A-Z](?:\.\d{1,2})*|[IVXLC]{1,6})\.?\s*$",
    re.I,
)
_CAPTION = re.compile(
    r"^(?:fig(?:ure)?|table|tab|algorithm|alg|listing|plate|exhibit|chart|scheme|equation|eq)"
    r"\.?\s*(?:[0-9]+|[A-Z]\.?[0-9]*|[IVX]+)\s*[.:|\-—–]",
    re.I,
)
_CAPTION_BARE = re.compile(r"^(?:fig(?:ure)?|table|tab|algorithm)\.?\s*[0-9]+[a-z]?\s*$", re.I)
#: a contents entry: dot leaders before a page number, or a page number set apart at the
#: end (a heading may end in a number: "4.2 Convergence of Algorithm 1")
_TOC_LINE = re.compile(r"(?:\.\s?){4,}\s*\d+\s*$|\D\s+\d{1,4}\s*$")
_TOC_DOTS = re.compile(r"(?:\.\s?){4,}\s*\d+\s*$|(?:\.\s){2,}\s*\d+\s*$")
#: rows ending in a number on one page (and half its rows of words) that make it a
#: contents page
CONTENTS_PAGE_ROWS = 5
#: a number spelled out, as a chapter's "CHAPTER" / "ONE" print it on two rows
_NUMBER_WORD = re.compile(r"^(chapter|one|two|three|four|five|six|seven|eight|nine|ten|"
                          r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|"
                          r"eighteen|nineteen|twenty)$")
#: after a row's number, what opens a line of code or data, not a title ("35 \else",
#: "55 #1\endcsname", '1.0 "second column" 3.0')
_CODE_AFTER_NUMBER = re.compile(r"^[\\}#<>\"'$%&|\[=(+*/~^_]")
_URL_EMAIL = re.compile(r"@|https?:|www\.|\.com\b|\.org\b|\.edu\b|doi\s*:", re.I)
_SUBSET = re.compile(r"^[A-Z]{6}\+")
#: the arXiv stamp printed sideways in a preprint's margin ("arXiv:2302.13971v1 [cs.CL] 27 Feb
#: 2023"), not a heading
_ARXIV_STAMP = re.compile(r"^arxiv:\s*\S", re.I)
#: a word of three letters or more (CJK ideographs count as letters)
_WORD3 = re.compile(r"[^\W\d_]{3,}")
_BOLD_NAME = re.compile(r"bold|black|heavy|demi|semibold|medi|[-.,]b$|[-.,]bd|^cmbx|^cmb\d|bx\d", re.I)


def is_arxiv_stamp(text: str) -> bool:
    """Whether ``text`` is the arXiv stamp printed sideways in a preprint's margin
    ("arXiv:2302.13971v1 [cs.CL] 27 Feb 2023"): set large, but neither a heading nor
    the title."""
    return bool(_ARXIV_STAMP.match(text.strip()))


def numbering(text: str) -> tuple[str, int]:
    """(numbering label, depth) of a heading-like line, ('', 0) when unnumbered.

    "3.2 Attention" -> ("3.2", 2); "A.1 Proofs" -> ("A.1", 2); "IV. Results" -> ("IV", 1);
    "Chapter 4 Sets" -> ("4", 1); "§ 3. Theory" -> ("§3", 1). A single capital letter counts only when followed by a
    capitalised word ("A Proofs"), since "A model" is a sentence.
    """
    t = text.strip()
    m = _NUM_SECTION_SIGN.match(t)
    if m:
        return "§" + m.group(1), m.group(1).count(".") + 1
    m = _NUM_WORD.match(t)
    if m:
        return m.group(1), 1
    m = _NUM_ARABIC.match(t)
    if m:
        label = m.group(1)
        return label, label.count(".") + 1
    m = _NUM_ROMAN.match(t)
    if m:
        return m.group(1), 1
    m = _NUM_LETTER.match(t)
    if m:
        label = m.group(1)
        rest = t[m.end():].strip()
        if "." in label or (rest[:1].isupper() and not rest.lower().startswith(("a ", "an ", "the "))):
            return label, label.count(".") + 1
    return "", 0


def split_heading(paragraph: str, title: str) -> tuple[str, str] | None:
    """``(heading, rest)`` when ``paragraph`` opens with the section title ``title``
    followed by its text ("2.5 Chunk Size Chunk size is ..." -> "2.5 Chunk Size",
    "Chunk size is ..."), compared with whitespace collapsed and case folded; else None."""
    text, head = " ".join(paragraph.split()), " ".join(title.split())
    n = len(head)
    if not head or len(text) <= n + 1 or text[n] != " " or \
            text[:n].casefold() != head.casefold():
        return None
    return text[:n], text[n + 1:]


def is_number_only(text: str) -> bool:
    """True when ``text`` is a heading number and nothing else ("4.1.2", "Chapter IV")."""
    return _NUMBER_ONLY.match(text) is not None


def strip_number(text: str) -> str:
    """``text`` without a leading heading number ("3.2 Attention" -> "Attention")."""
    return _NUMBER_PREFIX.sub("", text)


# --------------------------------------------------------------------------------------
# Candidate rows, features and the score
# --------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Row:
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
    feats: list[float] = field(default_factory=list)
    rejected: str = ""


def _font_key(font: str) -> str:
    return _SUBSET.sub("", font)


def _is_bold(ln: Line) -> bool:
    return bool(ln.bold) or bool(_BOLD_NAME.search(_font_key(ln.font)))


def _continues_row(cur: list[Line], ln: Line) -> bool:
    """Whether line ``ln`` continues the row ``cur``: on the same baseline, to its right,
    in the same block (or after a number printed as a block of its own)."""
    prev = cur[-1]
    same_base = abs(ln.y0 - prev.y0) < 2.5 or abs(ln.y1 - prev.y1) < 2.5
    number_apart = _NUMBER_ONLY.match(" ".join(c.text for c in cur)) is not None
    return same_base and ln.x0 >= prev.x0 and (ln.block == prev.block or number_apart)


def _row_of(pi: int, lines: list[Line]) -> _Row | None:
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
            chars[(_font_key(ln.font), round(ln.size * 2) / 2)] += n
        bold_chars += n if _is_bold(ln) else 0
        total += n
    if not chars:
        for ln in lines:
            chars[(_font_key(ln.font), round(ln.size * 2) / 2)] += len(ln.text.strip())
    (font, size), _ = chars.most_common(1)[0]
    last, before = lines[-1], lines[-2] if len(lines) > 1 else None
    tail_apart = before is not None and last.text.strip().isdigit() and \
        last.x0 - before.x1 > 1.5 * max(size, 1.0)
    return _Row(
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
    )


def _merge_numbers_above(rows: list[_Row]) -> list[_Row]:
    """Rows with a number on its own row right above its title ("Chapter 4" / "Sets and
    Maps") merged into one row (the number's row, with the title's style)."""
    merged: list[_Row] = []
    for r in rows:
        if merged:
            p = merged[-1]
            if (
                _NUMBER_ONLY.match(p.text)
                and not _NUMBER_ONLY.match(r.text)
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


def _rows_of_page(pi: int, page: Page) -> list[_Row]:
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


def _body_style(rows: list[_Row], pages: list[Page]) -> _Body:
    """The body style of ``pages`` and its line pitch (the median distance between
    consecutive rows of the body face in one block; 1.2 x the body size when none)."""
    style_chars: Counter[tuple[str, float, bool]] = Counter()
    for page in pages:
        for ln in page.lines:
            n = len(ln.text.strip())
            style_chars[(_font_key(ln.font), round(ln.size * 2) / 2, _is_bold(ln))] += n
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


@dataclass(frozen=True, slots=True)
class _Repeats:
    """Where each row's digit-free text recurs: ``keys[i]`` is row i's key; ``band`` /
    ``anywhere`` the pages holding a key in the top or bottom tenth / anywhere;
    ``page_dups`` counts (page, key) pairs; a key on ``rep_min`` pages repeats."""

    keys: list[str]
    band: dict[str, set[int]]
    anywhere: dict[str, set[int]]
    page_dups: Counter[tuple[int, str]]
    rep_min: int
    n_pages: int


def _in_band(r: _Row, h: float) -> bool:
    """Whether row ``r`` lies in the top or bottom tenth of a page ``h`` points high."""
    return r.y0 < 0.1 * h or r.y1 > 0.9 * h


def _repeats(rows: list[_Row], pages: list[Page]) -> _Repeats:
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
    return _Repeats(keys, band, anywhere, page_dups, 3 if n_pages > 4 else 2, n_pages)


def _numbered_styles(rows: list[_Row]) -> tuple[Counter[tuple], Counter[tuple]]:
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


#: the reject reason of a row whose text recurs on its page (a table cell, a figure label)
REPEATED_ON_PAGE = "repeated on the page (table cell, label)"


def is_contents_entry(r: _Row) -> bool:
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


def _reject_reason(r: _Row, key: str, h: float, rep: _Repeats) -> str:
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


def _gap_above(prev: _Row | None, r: _Row, pitch: float) -> float:
    """White space above ``r`` in body line pitches (2 at a page or column start)."""
    if prev is None or prev.y1 > r.y0 + 1:  # first row, or a column break
        return 2.0
    return (r.y0 - prev.y1) / pitch


def _row_features(r: _Row, h: float, gap: float, body: _Body,
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


def _features(rows: list[_Row], pages: list[Page]) -> None:
    """Compute ``row.feats`` (aligned with FEATURE_NAMES) and hard ``row.rejected``."""
    body = _body_style(rows, pages)
    rep = _repeats(rows, pages)
    style_rows, style_num = _numbered_styles(rows)
    prev_by_page: dict[int, _Row] = {}
    for r, key in zip(rows, rep.keys):
        h = pages[r.page].height or 792.0
        r.rejected = _reject_reason(r, key, h, rep) or r.rejected
        gap = _gap_above(prev_by_page.get(r.page), r, body.pitch)
        prev_by_page[r.page] = r
        r.feats = _row_features(r, h, gap, body, style_rows, style_num)


def candidate_rows(pages: list[Page]) -> list[_Row]:
    """All candidate rows of the document with features and hard-reject reasons."""
    rows: list[_Row] = []
    for pi, page in enumerate(pages):
        page_rows = _rows_of_page(pi, page)
        worded = [r for r in page_rows if len(_WORD3.findall(r.text)) >= 2]
        ending = sum(1 for r in worded if _TOC_LINE.search(r.text.strip()))
        for r in page_rows:
            r.contents_page = ending >= max(CONTENTS_PAGE_ROWS, 0.5 * len(worded))
        rows.extend(page_rows)
    _features(rows, pages)
    return rows


# Fitted weights (`python bench/sections.py --fit --loader extract`): logistic regression
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


def _wraps(head: _Row, r: _Row) -> bool:
    """Whether row ``r`` is the next line of the styled heading ``head`` (a heading wrapped
    onto a second line: the same style, right below it, unnumbered; in the same block, or
    opening the next one under the heading's span, as MuPDF splits a centred heading)."""
    return (
        head.page == r.page
        and (head.block == r.block
             or (r.first_in_block and r.x0 < head.x1 and head.x0 < r.x1))
        and r.order == head.order + 1
        and bool(head.feats[0] or head.feats[1] or head.feats[2] > 0)
        and r.font == head.font
        and r.size == head.size
        and abs(r.bold_frac - head.bold_frac) < 0.2
        and len(head.text) + len(r.text) <= 200
        and not numbering(r.text)[1]
        and not head.text.rstrip().endswith((".", ":"))
        and r.y0 - head.y1 < 0.8 * r.size
    )


_ABSTRACT = re.compile(r"^(abstract|summary)$")
#: headings of a first page that are not its title block
_FRONT_HEADING = re.compile(r"^(abstract|summary|contents|table of contents|keywords|"
                            r"index terms|preface|foreword|introduction)$")
#: the least score of an unnumbered row that a style of kept headings can rescue
LOOSE_MIN_SCORE = 0.2
#: the least score of a numbered row that a style of numbered headings can rescue
STYLE_MIN_SCORE = 0.5


def _loose(r: _Row, score: float) -> bool:
    """Whether ``r`` (under the threshold, unnumbered) may still be a heading by its
    style: alone in its block, at most 15 words, not ending a sentence."""
    t = r.text.strip()
    return score >= LOOSE_MIN_SCORE and r.n_block_rows == 1 and len(t.split()) <= 15 \
        and not t.endswith((".", ",", ";")) and not numbering(t)[1]


#: a first page with fewer characters is a title page
TITLE_PAGE_CHARS = 400


def _drop_title_block(found: list[tuple[_Row, str, int]], rows: list[_Row],
                      pages: list[Page]) -> list[tuple[_Row, str, int]]:
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


def detect_headings(pages: list[Page]) -> list[OutlineEntry]:
    """Headings found by a scored detector over ``page.lines``.

    Each candidate row (lines on one baseline of a block; a number printed apart is
    merged with its title) gets the features in ``FEATURE_NAMES``; rows failing a hard
    rule (caption, running header/footer, page number, digits/math, url/email, author
    list, > 200 chars) are dropped; the rest are kept when the logistic score
    ``sigmoid(BIAS + WEIGHTS . feats) >= THRESHOLD``; then the numbering is checked:
    near misses that fill a numbering gap are kept (:func:`rescue_in_sequence`; a
    numbered row whose text recurs on its page is one when it scores at least
    ``RESCUE_MIN_SCORE``: "3 BERT" above Figure 1's box "BERT") and
    headings that break it are dropped (:func:`drop_out_of_sequence`). A kept row directly followed by a
    same-style row of the same block (a wrapped heading) absorbs it. Levels come from
    numbering depth, else from the style's rank. ``y`` is the row's top in points.
    """
    rows = candidate_rows(pages)
    found: list[tuple[_Row, str, int]] = []
    near: list[tuple[_Row, str, int]] = []   # numbered rows scoring just under THRESHOLD
    near_style: list[tuple[_Row, str, int]] = []   # numbered, >= STYLE_MIN_SCORE
    loose: list[tuple[_Row, float]] = []   # unnumbered rows alone in their block, under it
    prev_kept: _Row | None = None
    for r in rows:
        if r.rejected:
            prev_kept = None
            if r.rejected == REPEATED_ON_PAGE and numbering(r.text)[0][:1].isdigit() \
                    and _score(r.feats) >= RESCUE_MIN_SCORE:
                # "3 BERT" over Figure 1's box "BERT": kept if its number fills the gap
                near.append((r, *numbering(r.text)))
            continue
        if prev_kept is not None and _wraps(prev_kept, r):
            prev_kept.text = f"{prev_kept.text} {r.text}"
            prev_kept.order = r.order
            continue
        prev_kept = None
        score = _score(r.feats)
        if score >= THRESHOLD or (score >= RESCUE_MIN_SCORE and pages[r.page].ocr
                                  and numbering(r.text)[0][:1].isdigit()):
            # on a page read by OCR the style features are blind (one font, no bold,
            # sizes estimated from line heights): a row numbered "1.", "4.2" near the
            # threshold counts (the numbering check below still applies)
            label, depth = numbering(r.text)
            found.append((r, label, depth))
            prev_kept = r
        elif score >= RESCUE_MIN_SCORE and numbering(r.text)[1]:
            near.append((r, *numbering(r.text)))
            near_style.append((r, *numbering(r.text)))
        elif score >= STYLE_MIN_SCORE and numbering(r.text)[1]:
            near_style.append((r, *numbering(r.text)))
        elif _loose(r, score):
            if _ABSTRACT.match(normalise_title(r.text)) and score >= 0.5:
                found.append((r, "", 0))   # "ABSTRACT" centred on page 1
                prev_kept = r
            else:
                loose.append((r, score))
    found = rescue_in_sequence(found, near)
    found = rescue_by_style(found, near_style)
    found = rescue_unnumbered_style(found, loose, RESCUE_MIN_SCORE)
    found = drop_out_of_sequence(found)
    found = _drop_title_block(found, rows, pages)
    levels = assign_levels(found)
    return [
        OutlineEntry(level=lvl, title=" ".join(r.text.split()), page=pages[r.page].number,
                     y=r.y0, x=r.x0)
        for (r, _, _), lvl in zip(found, levels)
    ]
