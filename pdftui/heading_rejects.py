"""Hard rules of the heading detector: candidate rows that are never headings (captions,
running headers and footers, page numbers, math, addresses, author lists, contents
entries, code, figure and table letters, text repeated on its page), each with its reason.

Used by :mod:`pdftui.heading_features`; rows are :class:`~pdftui.heading_rows.CandidateRow`.
Units: ``y`` in PDF points from the top of the page.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass

from pdftui.document import Page
from pdftui.heading_rows import TOC_LINE as _TOC_LINE
from pdftui.heading_rows import WORD3 as _WORD3
from pdftui.heading_rows import CandidateRow
from pdftui.heading_text import NUMBER_ONLY as _NUMBER_ONLY
from pdftui.heading_text import is_arxiv_stamp, normalise_title, numbering, strip_number

__all__ = [
    "BARE_NUMBER",
    "REPEATED_ON_PAGE",
    "Repeats",
    "is_contents_entry",
    "AUTHOR_LIST",
    "is_formula_fragment",
    "lead_reason",
    "reject_reason",
    "repeat_key",
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
#: faces that set formulas: TeX's math italic, symbols, extensions, the AMS and
#: Euler fonts, and OpenType math faces ("LatinModernMath", "STIXMath", "CambriaMath")
_MATH_FACE = re.compile(r"^(?:cmmi|cmsy|cmex|cmbsy|cmmib|msam|msbm|eufm|eusm|rsfs|stmary|"
                        r"wasy|lmmath|lmsy|lmmi)|math", re.I)
#: an operator between spaces, or a product or relation sign
_MATH_OPERATOR = re.compile(r"\s[+=<>−]\s|[·×≤≥∈∑∫√∝≈]")
#: a label that is a decimal number below one ("0.6 ImageNet 5shot", a plot's tick)
_DECIMAL_LABEL = re.compile(r"^0\.\d")
#: the label of a theorem-like block or exercise, not a heading ("Exercise", "Lemma 3.1")
_THEOREM_LABEL = re.compile(r"^(?:exercise|theorem|lemma|corollary|proposition|claim|"
                            r"conjecture|proof|definition|remark)\b\s*[\d.:]*\s*(?:\(.*\))?\.?$",
                            re.I)
#: a page number opening or ending a row: "6 Chapter 2. Applying", "Contents 12"
_FOLIO_ENDS = re.compile(r"^(\d{1,4})\s+\D.*$|^.*\D\s+(\d{1,4})$")
#: bare page numbers in the bands of this many pages fix the printed page numbering
FOLIO_PAGES = 3


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
    #: the printed page number minus the page's 0-based index, when bare page numbers
    #: in the bands agree on it (:func:`_folio_offset`)
    folio_offset: int | None = None


def _in_band(r: CandidateRow, h: float) -> bool:
    """Whether row ``r`` lies in the top or bottom tenth of a page ``h`` points high."""
    return r.y0 < 0.1 * h or r.y1 > 0.9 * h


#: what a repeat key leaves out: all but letters and digits of any script
_NOT_WORD = re.compile(r"[\W_]+")
#: numbers (arabic or roman) that a running header's page or chapter number changes
_KEY_NUMBER = re.compile(r"\b[0-9ivxlc]+\b")


def repeat_key(text: str) -> str:
    """The key under which a row's text repeats: lower-case NFKC, letters of any script
    (a Chinese row keeps its characters, not only its Latin words: "2∙10 多Agent 学习"
    is not "Agent" repeated on its page), numbers and punctuation left out."""
    text = unicodedata.normalize("NFKC", text).lower()
    return " ".join(_KEY_NUMBER.sub("", _NOT_WORD.sub(" ", text)).split())


def repeats(rows: list[CandidateRow], pages: list[Page]) -> Repeats:
    """Running headers and footers: the same digit-free text in the top/bottom band on >= 3
    pages (or on >= 2 pages of a short document); and texts repeated anywhere."""
    band: dict[str, set[int]] = defaultdict(set)
    anywhere: dict[str, set[int]] = defaultdict(set)
    keys: list[str] = []
    for r in rows:
        key = repeat_key(r.text)
        keys.append(key)
        if _in_band(r, pages[r.page].height or 792.0):
            band[key].add(r.page)
        anywhere[key].add(r.page)
    n_pages = len(pages)
    # a contents entry ("1 Introduction  1") does not make its heading a repeated label
    page_dups = Counter((r.page, k or r.text.strip()) for r, k in zip(rows, keys)
                        if not is_contents_entry(r))
    return Repeats(keys, band, anywhere, page_dups, 3 if n_pages > 4 else 2, n_pages,
                   _folio_offset(rows, pages))



#: the reject reason of a heading number alone on its row ("4.1.2", "APPENDIX 6")
BARE_NUMBER = "bare number"
#: the reject reason of a row whose text recurs on its page (a table cell, a figure label)
REPEATED_ON_PAGE = "repeated on the page (table cell, label)"


def is_contents_entry(r: CandidateRow) -> bool:
    """Whether row ``r`` is an entry of a printed table of contents: two words or more
    ending in a page number after dot leaders, after a wide space or printed apart (on a
    contents page, after a title that ends in a number itself)."""
    t = r.text.strip()
    if len(t.split()) < 2 or not (_TOC_LINE.search(t) or (r.tail_apart and r.contents_page)):
        return False   # a title ending in a number: "Differences between versions 4 and 5  29"
    label, _ = numbering(t)
    if label and not _TOC_LINE.search(strip_number(t)):
        return False
    return bool(_TOC_DOTS.search(t)) or r.tail_apart or r.contents_page or \
        re.search(r"\S\s{3,}\d{1,4}\s*$", r.text) is not None


#: a row set this much larger than body text is set as a heading: after its number, a
#: command's name is its title ("8 \\arrayrulecolor" in 14.5 pt over 10 pt), not a
#: listing's line ("35 \\else")
TITLE_SIZE = 1.15


def reject_reason(r: CandidateRow, key: str, h: float, rep: Repeats,
                  body_size: float = 0.0) -> str:
    """Why row ``r`` (its repeat key ``key``, on a page ``h`` points high; body text set
    in ``body_size`` points, 0 when unknown) is never a heading in this corpus, or ''
    when it may be one: by its text (:func:`_text_reason`), by where it recurs (running
    headers, text repeated on its page), as a line of code or data after a number (not
    when set ``TITLE_SIZE`` times larger than body text) or as a contents entry."""
    t = r.text.strip()
    label, depth = numbering(t)
    body_t = strip_number(t) if label else t
    reason = _text_reason(r, t, label, depth, body_t)
    if reason:
        return reason
    if _in_band(r, h) and key and (len(rep.band.get(key, ())) >= rep.rep_min or (
            len(rep.band[key]) >= 2 and _has_folio(t, r.page, rep.folio_offset))):
        # with its page number, a running header of a chapter of two pages ("6 Chapter 2.
        # Applying to Become a Member", "8 Chapter 2. ...")
        return "running header/footer"
    if key and len(rep.anywhere[key]) >= max(rep.rep_min, 0.5 * rep.n_pages) \
            and rep.n_pages >= 3:
        return "repeated"
    if _NUMBER_ONLY.match(t) or _NUMBER_WORD.match(normalise_title(t)):
        return BARE_NUMBER
    if label and _CODE_AFTER_NUMBER.match(body_t.strip()) \
            and not (body_size and r.size >= TITLE_SIZE * body_size):
        return "code or data"
    if is_contents_entry(r):
        return "table-of-contents line"
    if rep.page_dups[(r.page, key or t)] > 1:
        return REPEATED_ON_PAGE
    return ""


#: the reject reason that a row's text after its run-in lead may give alone: the
#: paragraph's citations ("[20, 17]", "(col. 1, 2)") read as an author list's numbers
AUTHOR_LIST = "author list/affiliation"


def lead_reason(r: CandidateRow, lead: str) -> str:
    """Why the run-in lead ``lead`` opening row ``r`` is never a heading: the row's own
    reject reason, unless the row is rejected as an author list (``AUTHOR_LIST``), which
    the paragraph after the lead may make it ("Implementation details. As standard
    practice [20, 17], we"): then the reason the lead's text alone gives
    (:func:`_text_reason`), '' when the lead may be a heading. A URL or a year after a
    lead is a reference's or a field's ("Retinopathy Analysis. Springer ..., 2023, doi:
    ...", "Correspondence: ...@gmail.com")."""
    if r.rejected != AUTHOR_LIST:
        return r.rejected
    t = lead.strip()
    label, depth = numbering(t)
    return _text_reason(r, t, label, depth, strip_number(t) if label else t)


def _text_reason(r: CandidateRow, t: str, label: str, depth: int, body_t: str) -> str:
    """Why the text ``t`` of row ``r`` (numbering ``label`` of ``depth``, ``body_t`` the
    text after it) is never a heading, or ''."""
    letters = sum(c.isalpha() for c in t)
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
    if is_math(r.font, body_t) or _DECIMAL_LABEL.match(label) or is_formula_fragment(t):
        return "math"
    if _THEOREM_LABEL.match(t):
        return "theorem or exercise label"
    if (t.count(",") >= 3 and depth < 2) or re.search(r"[∗†‡§¶]|\*\s*,|\d\s*,\s*\d", body_t):
        # a numbered heading may list things ("5.9 Moving, removing, renaming, ...");
        # an affiliation is numbered by a footnote digit, never "5.9"
        return AUTHOR_LIST
    return ""


def is_math(font: str, text: str) -> bool:
    """Whether a row set mostly in ``font`` with ``text`` (its numbering stripped) is a
    formula: set in a math face (TeX's CMMI, CMSY, CMEX, the AMS symbols, a "Math" face),
    or an operator between spaces ("O W + N · log", "1 Q + IdLp") with fewer than two
    words of three letters."""
    if _MATH_FACE.search(font):
        return True
    return bool(_MATH_OPERATOR.search(text)) and len(_WORD3.findall(text)) < 2


#: names a formula writes in letters ("N W log", "2 2 dx"): functions and differentials
_MATH_NAMES = frozenset("log ln lg exp sin cos tan lim max min sup inf det arg mod dx dy dz "
                        "dt du dv ds dp dq".split())
#: what only a formula writes among letters: a function of one letter or more ("P(x)",
#: "(x;y)"), an operator between two terms ("x+y", "a=b"), a math sign
_FORMULA_MARK = re.compile(r"\([a-zA-Z](?:[,;][a-zA-Z])*\)|\w[=+<>−]\w|[−·×≤≥∈∑∫√∝≈]")


def _math_token(tok: str) -> bool:
    """Whether one whitespace-separated token reads as a piece of a formula: no letters
    ("2", "+", "(1)"), one letter with digits or marks ("W1", "p", "H;"), a name a
    formula writes in letters ("log", "dx"), or letters run together with a function's
    brackets or an operator ("P(x)logP(x)dx", "(x)xdx;"); a path or code ("source/format",
    "Argv[", "{pre,post}{inst,rm}") is not."""
    letters = [c for c in tok if c.isalpha()]
    if len(letters) <= 1:
        return True
    if tok.strip(".,;:").lower() in _MATH_NAMES:
        return True
    return bool(_FORMULA_MARK.search(tok))


def _formula_sign(tok: str) -> bool:
    """Whether a token is surely a formula's: a name a formula writes ("log", "dx"), a
    function of a letter ("P(x)"), an operator ("+", "x=y")."""
    return tok.strip(".,;:").lower() in _MATH_NAMES or bool(_FORMULA_MARK.search(tok)) \
        or tok in ("+", "=", "<", ">", "−", "-")


def is_formula_fragment(text: str) -> bool:
    """Whether ``text`` is a line of a displayed formula, not a heading: two tokens or
    more, each a piece of a formula (:func:`_math_token`), one of them with a letter and
    one surely a formula's (:func:`_formula_sign`): "N C W log", "Z P(x)logP(x)dx +",
    "2 2 dx", "0 p (x)xdx;". A heading holds a word ("3.2 L2 loss", "A.2 UI"), no
    formula sign ("2 C++") or names alone (gnuplot's command "Dx, dy, dz")."""
    toks = text.split()
    names = sum(t.strip(".,;:").lower() in _MATH_NAMES for t in toks)
    return len(toks) >= 2 and all(_math_token(t) for t in toks) and names < len(toks) \
        and any(c.isalpha() for c in text) and any(_formula_sign(t) for t in toks)


def _has_folio(t: str, page_index: int, offset: int | None) -> bool:
    """Whether ``t`` opens or ends with its page's printed number (``offset`` + the
    page's 0-based index): a running header such as "6 Chapter 2. Applying to Become a
    Member" on a chapter of two pages."""
    if offset is None:
        return False
    m = _FOLIO_ENDS.match(t)
    return m is not None and int(m.group(1) or m.group(2)) == offset + page_index


def _folio_offset(rows: list[CandidateRow], pages: list[Page]) -> int | None:
    """The printed page number minus the 0-based page index that the bare numbers in
    the pages' top or bottom bands agree on (on ``FOLIO_PAGES`` pages or more), else
    None."""
    offsets: Counter[int] = Counter()
    for r in rows:
        t = r.text.strip()
        if t.isdigit() and len(t) <= 4 and _in_band(r, pages[r.page].height or 792.0):
            offsets[int(t) - r.page] += 1
    if not offsets:
        return None
    offset, n = offsets.most_common(1)[0]
    return offset if n >= FOLIO_PAGES else None
