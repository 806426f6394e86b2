"""Bibliographic metadata of one PDF: authors, year, arXiv id and DOI.

Read from the PDF's info dictionary, its file name and the text of its first pages (and,
for a DOI, a "Cite this article" line on the last page). Every value is either found in
the document or left empty: nothing is guessed.

- ``arxiv_id``: the arXiv stamp printed in the margin of page 1 (``arXiv:1706.03762v5
  [cs.CL] 12 Jun 2017``) first, then the file name (``1706.03762v5-x.pdf``,
  ``arxiv-hep-ph-9412269.pdf``), then a single ``arXiv:`` id on page 1. New style
  ``YYMM.NNNN(N)`` ids are checked for a real month; old style ``archive/YYMMNNN`` ids
  (``quant-ph/9508027``) are accepted for the archives arXiv had. Stored without version.
- ``doi``: the info dictionary (title, subject, keywords), then pages 1-2, then a
  "Cite this article" line on the last page; the shape is checked (``10.NNNN/suffix``,
  trailing punctuation removed).
- ``year``: the paper's year, not the file's: an arXiv id's year (its first version); else
  publication and copyright lines of page 1 (``Published 5 June 2017``, ``Copyright 2007
  ACM``, ``© 2021``), a journal citation (``JCAP10(2008)003``), a date line (``June 30,
  1905``, ``2021/12/29``); then a year in the file name (``nakamoto-2008-bitcoin.pdf``:
  the publication year the person who kept the file wrote down); last the PDF creation
  date (the file's date, not the paper's: the Bitcoin paper's PDF was made in 2009),
  unless the producer is a tool that re-saves old papers (PDFium, Ghostscript
  re-distillations are kept).
- ``authors``: the info dictionary's author when it is sane (names, not "Administrator" or
  a copyright notice) and not just the first of the names on page 1; else the lines of
  page 1 between the title and the abstract, set in the font of the first name found,
  with e-mail addresses, affiliations, footnote marks and superscript numbers removed.

:func:`read_metadata` works on an open PyMuPDF document (the extraction worker's);
:func:`metadata_of_file` opens one (the metadata-only pass over cached documents).
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass

from .document import Metadata
from .text import strip_control

#: Bump when the rules below or the title rules (:mod:`pdftui.title`) change: cached
#: metadata of an older version is read again, and the title with it (first pages only; no
#: re-extraction, no re-embedding).
METADATA_VERSION = 6  # 2: CN article numbers (ISSN (year)); 3: copyright runs, subtitles;
#   4: section headings of a reference card are not authors; 5: titles read again (wrapped
#   titles of any length, one-word and body-size titles), names with a non-ASCII capital;
#   6: a year in the file name before the PDF creation date
#: Pages read from the start of the document.
FIRST_PAGES = 2
#: A first page with more text than this (characters) is not read line by line for author
#: names (font details of a page that dense cost seconds; the extractor draws the same line).
MAX_LINE_CHARS = 50_000

_OLD_ARCHIVES = (
    "acc-phys|adap-org|alg-geom|ao-sci|astro-ph|atom-ph|bayes-an|chao-dyn|chem-ph|cmp-lg|"
    "comp-gas|cond-mat|cs|dg-ga|funct-an|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|math|"
    "mtrl-th|nlin|nucl-ex|nucl-th|patt-sol|physics|plasm-ph|q-alg|q-bio|q-fin|quant-ph|"
    "solv-int|supr-con|stat")
_NEW_ID = r"(?P<new>(?P<yy>\d{2})(?P<mm>\d{2})\.(?P<num>\d{4,5}))(?:v\d+)?"
_OLD_ID = rf"(?P<old>(?P<arch>{_OLD_ARCHIVES})(?:\.[A-Z]{{2}})?/(?P<oyy>\d{{2}})(?P<omm>\d{{2}})\d{{3}})(?:v\d+)?"
_STAMP_RE = re.compile(rf"arXiv:\s*(?:{_NEW_ID}|{_OLD_ID})\s*(?:\[[\w.\-]+\])?\s+\d{{1,2}}\s+[A-Z][a-z]{{2}}\s+\d{{4}}")
_ARXIV_TEXT_RE = re.compile(rf"arXiv:\s*(?:{_NEW_ID}|{_OLD_ID})")
_NAME_NEW_RE = re.compile(r"(?<![\d.])(?P<new>(?P<yy>\d{2})(?P<mm>\d{2})\.(?P<num>\d{4,5}))(?:v\d+)?(?![\d])")
_NAME_OLD_RE = re.compile(
    rf"(?<![a-z])(?P<arch>{_OLD_ARCHIVES})[-_./](?P<num>(?P<oyy>\d{{2}})(?P<omm>\d{{2}})\d{{3}})(?!\d)",
    re.IGNORECASE)

_DOI_RE = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)")
_DOI_LABEL_RE = re.compile(r"(?:doi\s*[:.]?\s*|doi\.\s*org/|dx\.doi\.org/)\s*(10\.\d{4,9}/[^\s\"<>]+)",
                           re.IGNORECASE)
_CITE_RE = re.compile(r"cite this article", re.IGNORECASE)

_MONTHS = ("jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|"
           "april|june|july|august|september|october|november|december")
_YEAR = r"(1[6-9]\d\d|20\d\d)"
#: (weight, pattern) for a year on page 1: publication and copyright lines beat dates.
_YEAR_RULES: tuple[tuple[int, re.Pattern], ...] = (
    (9, re.compile(rf"\bpublished\b[^\n]{{0,40}}?{_YEAR}\b", re.I)),
    (9, re.compile(rf"\b\d{{1,4}}\s?\({_YEAR}\)\s?\d+\s?[–-]\s?\d+")),   # 1 (2020) 57-81
    (9, re.compile(rf"\b\d{{4}}-\d{{3}}[\dX]\s?[（(]\s?{_YEAR}\s?[)）]")),   # ISSN (year): CN articles
    # a copyright run such as "1986 - 1993, 1998, 2004": the whole run is captured and
    # its latest year taken (see _COPYRIGHT_WEIGHT)
    (8, re.compile(rf"(?:©|\(c\)|copyright)\s*((?:{_YEAR}\s*(?:[-–,]\s*)?)+)\b", re.I)),
    (8, re.compile(rf"\b[A-Z]{{2,6}}\s?\d{{1,2}}\s?\({_YEAR}\)\s?\d{{3}}")),   # JCAP10(2008)003
    (7, re.compile(rf"\b(?:appeared in|reprinted|proceedings|journal|bulletin|transactions)"
                   rf"[^\n]{{0,120}}?\b{_YEAR}\b", re.I)),
    (6, re.compile(rf"\b(?:accepted|received|submitted|draft)\b[^\n]{{0,40}}?{_YEAR}\b", re.I)),
    (5, re.compile(rf"\b(?:{_MONTHS})\.?,?\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?{_YEAR}\b", re.I)),
    (5, re.compile(rf"\b\d{{1,2}}\.?\s+(?:{_MONTHS})\.?,?\s+{_YEAR}\b", re.I)),
    (5, re.compile(rf"\b{_YEAR}[/-](?:0[1-9]|1[0-2])[/-](?:[0-2]\d|3[01])\b")),
    (4, re.compile(rf"\b(?:ICLR|ICML|NeurIPS|NIPS|ACL|EMNLP|NAACL|CVPR|ICCV|ECCV|SOSP|OSDI|"
                   rf"NSDI|SIGMOD|VLDB|KDD|AAAI|IJCAI|Interspeech|ICASSP)\s*'?{_YEAR}\b")),
)
_COPYRIGHT_WEIGHT = 8
#: Producers that re-save old papers: their creation date is the file's, not the paper's.
_RESAVERS_RE = re.compile(r"pdfium|chrome|skia|quartz|microsoft: print to pdf|ilovepdf", re.I)


@dataclass(slots=True)
class _Line:
    """One visual line of a first page: text, top, font and size of its main span."""

    text: str
    y0: float
    y1: float
    x0: float
    font: str
    size: float


# ---------------------------------------------------------------------------- arXiv id
def _valid_new(yy: str, mm: str, num: str) -> bool:
    """A new-style id names a real month (April 2007 on) with 4 digits until 2014, 5 after."""
    y, m = int(yy), int(mm)
    if not 1 <= m <= 12 or (y, m) < (7, 4):
        return False
    return len(num) == (4 if y < 15 else 5)


def _valid_old(yy: str, mm: str) -> bool:
    y, m = int(yy), int(mm)
    return 1 <= m <= 12 and (y >= 91 or y <= 7)


def _arxiv_of(m: re.Match) -> str:
    """The id (no version) of a match of one of the id patterns, or '' when not valid."""
    d = m.groupdict()
    if d.get("new"):
        return d["new"] if _valid_new(d["yy"], d["mm"], d["num"]) else ""
    if d.get("old"):
        return d["old"] if _valid_old(d["oyy"], d["omm"]) else ""
    return ""


def find_arxiv_id(file_name: str, pages: list[str]) -> str:
    """The document's arXiv id without version ('' when none): the stamp on pages 1-2,
    then the file name, then a single distinct ``arXiv:`` id on page 1."""
    for text in pages[:FIRST_PAGES]:
        for m in _STAMP_RE.finditer(text):
            if got := _arxiv_of(m):
                return got
    stem = os.path.basename(file_name)
    for m in _NAME_NEW_RE.finditer(stem):
        if _valid_new(m["yy"], m["mm"], m["num"]):
            return m["new"]
    for m in _NAME_OLD_RE.finditer(stem):
        if _valid_old(m["oyy"], m["omm"]):
            return f"{m['arch'].lower()}/{m['num']}"
    found = {got for m in _ARXIV_TEXT_RE.finditer(pages[0] if pages else "")
             if (got := _arxiv_of(m))}
    return found.pop() if len(found) == 1 else ""


def arxiv_year(arxiv_id: str) -> int | None:
    """The year of an arXiv id's first version (``1706.03762`` -> 2017,
    ``quant-ph/9508027`` -> 1995), None for ''."""
    m = re.search(r"(\d{2})\d{2}(?:\.\d{4,5}|\d{3})$", arxiv_id)
    if not m:
        return None
    yy = int(m.group(1))
    return 1900 + yy if yy >= 91 else 2000 + yy


# ---------------------------------------------------------------------------- DOI
def clean_doi(raw: str) -> str:
    """A DOI with the punctuation that ends a sentence or a bracket removed; '' when the
    rest is not ``10.NNNN/suffix`` with a suffix holding a letter or digit."""
    doi = raw.strip().rstrip(".,;:")
    while doi and doi[-1] in ")]}" and doi.count(doi[-1]) > doi.count({")": "(", "]": "[",
                                                                        "}": "{"}[doi[-1]]):
        doi = doi[:-1].rstrip(".,;:")
    m = re.fullmatch(r"10\.\d{4,9}/(\S+)", doi)
    if not m or not re.search(r"[A-Za-z0-9]", m.group(1)) or len(doi) > 200:
        return ""
    return doi


def find_doi(info: dict, pages: list[str], last_page: str = "") -> str:
    """The document's own DOI ('' when none): info dictionary, pages 1-2 (a labelled DOI
    first), then a "Cite this article" line on ``last_page``."""
    for key in ("doi", "subject", "keywords", "title"):
        for m in _DOI_RE.finditer(str(info.get(key) or "")):
            if doi := clean_doi(m.group(1)):
                return doi
    for text in pages[:FIRST_PAGES]:
        for rx in (_DOI_LABEL_RE, _DOI_RE):
            for m in rx.finditer(text):
                if doi := clean_doi(m.group(1)):
                    return doi
    for m in _CITE_RE.finditer(last_page):
        for near in _DOI_RE.finditer(last_page, max(0, m.start() - 200), m.end() + 400):
            if doi := clean_doi(near.group(1)):
                return doi
    return ""


# ---------------------------------------------------------------------------- year
def _pdf_date_year(info: dict) -> int | None:
    """The year of the PDF's creation date (``D:20070814...``), unless a re-saving tool
    made the file (then it is the file's year, not the paper's)."""
    if _RESAVERS_RE.search(f"{info.get('producer') or ''} {info.get('creator') or ''}"):
        return None
    m = re.match(r"(?:D:)?((?:19|20)\d\d)", str(info.get("creationDate") or "").strip())
    return int(m.group(1)) if m else None


#: A year standing alone in a file name ("nakamoto-2008-bitcoin.pdf"), not part of a
#: number ("2005.07143", "20081").
_NAME_YEAR_RE = re.compile(r"(?:^|[-_ ])((?:1[6-9]|20)\d\d)(?=[-_ ]|\.pdf$)", re.IGNORECASE)


def file_name_year(file_name: str, max_year: int = 2100) -> int | None:
    """The year a file name holds as a word of its own (``google-2003-file-system.pdf``
    -> 2003), None when none or several different ones."""
    years = {int(y) for y in _NAME_YEAR_RE.findall(os.path.basename(file_name))}
    years = {y for y in years if y <= max_year}
    return years.pop() if len(years) == 1 else None


def find_year(arxiv_id: str, pages: list[str], info: dict, max_year: int = 2100,
              file_name: str = "") -> int | None:
    """The paper's year (None when not found): arXiv id, then the strongest year line on
    page 1 (ties: the earliest in the text; copyright lines: the latest year they name,
    a manual revised until 2022 is from 2022), then a year in ``file_name``
    (:func:`file_name_year`), then the PDF creation date."""
    if arxiv_id:
        return arxiv_year(arxiv_id)
    text = " ".join((pages[0] if pages else "").split())
    best: tuple[int, int, int] | None = None   # (weight, -position, year)
    for weight, rx in _YEAR_RULES:
        for m in rx.finditer(text):
            if weight == _COPYRIGHT_WEIGHT:   # the latest year of every copyright run
                years = [int(y) for y in re.findall(_YEAR, m.group(1))]
                year = max((y for y in years if y <= max_year), default=0)
                order = year                  # "© 1986-1993 ... © 2004-2022": 2022
            else:
                year = int(m.group(m.lastindex or 1))
                order = -m.start()            # other rules: the first in the text
            if 1600 <= year <= max_year:
                cand = (weight, order, year)
                best = cand if best is None or cand > best else best
    if best is not None:
        return best[2]
    return file_name_year(file_name, max_year) or _pdf_date_year(info)


# ---------------------------------------------------------------------------- authors
_MARKS = "∗*†‡§¶‖⋄♦♣♠♥♮⋆★☆✝✉#⊥⊤⁰¹²³⁴⁵⁶⁷⁸⁹·•∙◦"
_MARK_RE = re.compile(rf"[{re.escape(_MARKS)}]|[\u0370-\u03ff]|\d+|\(\s*\)")
_SPLIT_RE = re.compile(r"\s*(?:,|;|&|\band\b|\|)\s*")
#: Words that make a line an affiliation, an address or a note, never a name.
_NOT_NAME = frozenset("""
university universit universidad universidade università université universitat institute
institut instituto department dept departamento laboratory laboratories lab labs research
inc inc. corp corporation company college school center centre faculty foundation
technologies technology google microsoft facebook meta deepmind openai amazon amazon.com
salesforce tencent nvidia ibm intel apple baidu alibaba huawei yahoo! yahoo brain ai
street avenue road box suite floor campus city view park hall usa china germany france
japan uk canada italy belgium israel netherlands switzerland spain india korea australia
mexico poland abstract introduction keywords contents editor equal contribution
contributions corresponding author authors email e-mail preprint draft published
accepted received submitted copyright license journal conference proceedings volume
vol issue pages page arxiv version edition manual guide package documentation team
project open access review article research letter report technical appendix the of for
in on with by to from at via
""".split())
#: A subtitle ("An Interactive Plotting Program"), never a name ("A." is an initial).
_ARTICLES = frozenset(("A", "An", "The"))
_PARTICLES = frozenset("de da di del della der den van von le la du dos das y bin al el ter".split())
_STOP_RE = re.compile(
    r"^\s*(?:abstract|a\s?b\s?s\s?t\s?r\s?a\s?c\s?t|summary|keywords|index terms|"
    r"contents|table of contents|a\s?r\s?t\s?i\s?c\s?l\s?e|(?:\d+\.?|i\.)?\s*introduction|"
    r"background|摘\s*要)\b", re.IGNORECASE)
_NAME_TOKEN_RE = re.compile(r"^(?:[A-Z][\w'’\-]*\.?|(?:[A-Z]\.-?)+[A-Z]?\.?)$")


_SPACING_ACCENTS = {"¨": "\u0308", "´": "\u0301", "`": "\u0300", "ˆ": "\u0302", "˜": "\u0303",
                    "¸": "\u0327", "ˇ": "\u030c", "˘": "\u0306", "˚": "\u030a"}
_ACCENT_RE = re.compile(f"([{''.join(_SPACING_ACCENTS)}])\\s?([A-Za-zı])")


def fix_accents(text: str) -> str:
    """Join the spacing accents that TeX PDFs print before a letter (``J¨urgen``,
    ``F´ısica``) with it (``Jürgen``, ``Física``)."""
    def join(m: re.Match) -> str:
        letter = "i" if m.group(2) == "ı" else m.group(2)
        return unicodedata.normalize("NFC", letter + _SPACING_ACCENTS[m.group(1)])
    return _ACCENT_RE.sub(join, text)


def _strip_marks(text: str) -> str:
    """``text`` with footnote marks, superscript numbers and Greek affiliation letters
    turned into separators (``Qiang Wang1, Bei Li1`` -> ``Qiang Wang| Bei Li|``)."""
    text = unicodedata.normalize("NFKC", fix_accents(text))
    return _MARK_RE.sub("|", text)


def _latin_caps(word: str) -> str:
    """``word`` with each non-ASCII capital letter as ``A`` (``Łukasz`` -> ``Aukasz``), so
    the ASCII patterns of names take every alphabet's capitals."""
    return "".join("A" if c.isupper() and not c.isascii() else c for c in word)


def is_name(piece: str) -> bool:
    """True when ``piece`` looks like a person's name: 2-5 words, each capitalised (in
    any alphabet: ``Łukasz Kaiser``) or an initial such as ``J.`` / ``J.C.``, or a
    particle such as ``van``, the last one a word of two letters or more, and no
    affiliation word."""
    words = piece.split()
    if not 2 <= len(words) <= 5 or len(piece) > 60 or words[0] in _ARTICLES:
        return False
    for w in words:
        if w.lower().strip(".") in _NOT_NAME:
            return False
        if w.lower() not in _PARTICLES and not _NAME_TOKEN_RE.match(_latin_caps(w)):
            return False
    last = words[-1].strip(".")
    return len(last) >= 2 and "." not in last and sum(c.isalpha() for c in piece) >= 4


def _tidy(name: str) -> str:
    """A name as printed, with 'By', 'and' and stray punctuation removed, all-capital
    words title-cased (``WILLIAM P. THURSTON`` -> ``William P. Thurston``)."""
    name = re.sub(r"^(?:by|and)\s+", "", name.strip(" .,;:-"), flags=re.I).strip()
    words = [w.capitalize() if w.isupper() and len(w.strip(".")) > 2 else w
             for w in name.split()]
    return " ".join(words)


def names_in(text: str) -> list[str]:
    """The person names of one author line, in order (``[]`` when any part that is not
    a mark or a lone letter fails :func:`is_name`: an affiliation or prose line)."""
    if "@" in text or "http" in text.lower() or "www." in text.lower():
        return []
    out: list[str] = []
    for piece in _SPLIT_RE.split(_strip_marks(text)):
        piece = re.sub(r"(?:\s+[a-z])+$", "", piece.strip())   # 'Jie Zhou a' -> 'Jie Zhou'
        piece = _tidy(piece)
        if not piece or len(piece.strip(" .")) <= 1:
            continue
        if not is_name(piece):
            if " " in piece:     # an affiliation, a sentence: not an author line
                return []
            continue             # one glued word ('JeffRasley'): skip it, keep the rest
        out.append(piece)
    return out


_CARRY_RE = re.compile(r",\s*([A-Z][\w'’\-]+)\s*$")


def _carry(text: str) -> tuple[str, str]:
    """An author line ending in a first name whose surname starts the next line
    (``..., Avinash`` / ``Lakshman, ...``): the line without it, and the word."""
    m = _CARRY_RE.search(_latin_caps(text))   # same length: positions hold in ``text``
    word = text[m.start(1):m.end(1)] if m else ""
    if not m or word.lower() in _NOT_NAME:
        return text, ""
    return text[: m.start()], word


def _line_rows(page, flags: int = 0) -> list[_Line]:
    """A page's lines top to bottom, left to right within a row; a line whose spans
    are far apart (authors set side by side) is split at the gap with ``|``."""
    lines: list[_Line] = []
    for b in page.get_text("dict", flags=flags)["blocks"]:
        for ln in b.get("lines", ()):
            spans = [s for s in ln.get("spans", ()) if s["text"]]
            inked = [s for s in spans if s["text"].strip()]
            if not inked:
                continue
            main = max(inked, key=lambda s: len(s["text"].strip()) * s["size"])
            text, prev = "", None
            for s in spans:
                if not s["text"].strip():
                    text += s["text"]
                    continue
                if prev is not None and s["bbox"][0] - prev["bbox"][2] > 2 * s["size"]:
                    text += " | "
                # a superscript (affiliation number or letter, footnote mark) separates names
                text += " | " if s["size"] < 0.8 * main["size"] else s["text"]
                prev = s
            x0, y0, _x1, y1 = ln["bbox"]
            lines.append(_Line(strip_control(text, keep_newlines=False, keep_tabs=False),
                               y0, y1, x0, main["font"], round(main["size"], 1)))
    lines.sort(key=lambda ln: (round(ln.y0 / 3), ln.x0))
    return lines


def _squash(s: str) -> str:
    return re.sub(r"\W+", "", unicodedata.normalize("NFKC", s)).casefold()


_BOLD_FONT_RE = re.compile(r"bold|black|heavy|medi|semibold|demi|cmbx|\.b\b|-b\b", re.I)


def _title_bottom(lines: list[_Line], title: str, height: float) -> int:
    """Index of the first line below the title (0 when the title is not found in the top
    half of the page)."""
    key = _squash(title)
    end = 0
    sig: tuple[str, float] | None = None
    if len(key) >= 4:
        for i, ln in enumerate(lines):
            sq = _squash(ln.text)
            if ln.y0 > height / 2:
                break
            if len(sq) >= 3 and sq in key and sig in (None, (ln.font, ln.size)):
                end, sig = i + 1, (ln.font, ln.size)
            elif end and len(sq) > 3:
                break
    if end == 0:     # the title is the file name: take the first bold line near the top
        for i, ln in enumerate(lines):
            if ln.y0 > height / 3:
                break
            if _BOLD_FONT_RE.search(ln.font) and not ln.text.lstrip().startswith("arXiv:"):
                return i + 1
    return end


#: Lines of other text between two name lines beyond which the "names" are section
#: headings (a reference card's "Starting Octave" ... "Getting Help", each over its
#: commands), not authors: an author's affiliation and address take a few lines.
HEADING_GAP = 15


def authors_on_page(lines: list[_Line], title: str, height: float) -> list[str]:
    """The author names printed on a first page between the title and the abstract (or
    the introduction), in reading order. Only lines set in the font and size of the
    first name line count (affiliations and addresses are set apart). ``[]`` when two
    such lines are more than :data:`HEADING_GAP` lines of other text apart: they are
    the section headings of a card or manual set over their body text."""
    start = _title_bottom(lines, title, height)
    if start == 0:
        return []
    found: list[str] = []
    sig: tuple[str, float] | None = None
    prose = skipped = 0
    carry = ""
    for ln in lines[start:]:
        if _STOP_RE.match(ln.text) or ln.y0 > 0.6 * height:
            break
        if sig is not None and (ln.font, ln.size) != sig:
            skipped += 1
            continue
        text, word = _carry(ln.text)
        names = names_in(f"{carry} {text}" if carry else text)
        carry = word if names else ""
        if names:
            if found and skipped > HEADING_GAP:
                return []
            skipped = 0
            sig = sig or (ln.font, ln.size)
            found.extend(n for n in names if n not in found)
        elif found and ln.text.rstrip().endswith(":"):
            break   # "Major contributors (alphabetic order):": another list begins
        elif len(ln.text) > 60:
            prose += 1
            if prose >= 2:
                break
    return found


_JUNK_AUTHOR_RE = re.compile(
    r"^(?:admin(?:istrator)?|user|owner|author|unknown|anonymous|default|root|guest|"
    r"[\w.]+\.(?:dvi|tex|doc|docx))$|copyright|©|licen[cs]e|rights|@|https?:", re.I)


def authors_from_info(author: str) -> list[str]:
    """Names from the info dictionary's ``/Author`` when it is sane ('' when not):
    split on ``;``, ``,``, ``and``, ``&``; marks removed; every part must be a name."""
    author = strip_control(author or "", keep_newlines=False, keep_tabs=False).strip()
    if not author or _JUNK_AUTHOR_RE.search(author):
        return []
    out = []
    for piece in _SPLIT_RE.split(_MARK_RE.sub(" ", unicodedata.normalize("NFKC", author))):
        piece = _tidy(piece)
        if not piece:
            continue
        if not is_name(piece):
            if out:     # 'Diego Ongaro, John Ousterhout; Stanford University'
                break
            return []
        out.append(piece)
    return out


def _surname(name: str) -> str:
    return _squash(name.split()[-1]) if name.split() else ""


def choose_authors(info_names: list[str], page_names: list[str]) -> list[str]:
    """The info dictionary's names unless the page shows more names that begin with
    the same first author (the info holding only the first author), else the page's."""
    if info_names and page_names and len(page_names) > len(info_names) \
            and _surname(page_names[0]) == _surname(info_names[0]):
        return page_names
    return info_names or page_names


# ---------------------------------------------------------------------------- document
def read_metadata(doc, file_name: str, title: str) -> Metadata:
    """The metadata of an open PyMuPDF document (``doc``), whose file is called
    ``file_name`` and whose title (as the extractor chose it) is ``title``.

    Reads the info dictionary and the first :data:`FIRST_PAGES` pages (plus the last
    page's text for a DOI). Never raises for a damaged page: what cannot be read is left
    empty.
    """
    info = {k: v for k, v in (doc.metadata or {}).items() if isinstance(v, str)}
    texts: list[str] = []
    first_lines: list[_Line] = []
    height = 792.0
    for i in range(min(FIRST_PAGES, doc.page_count)):
        try:
            page = doc[i]
            texts.append(page.get_text())
            if i == 0 and len(texts[0]) <= MAX_LINE_CHARS:
                height = page.rect.height or height
                first_lines = _line_rows(page)
        except Exception:  # noqa: BLE001 - one bad page must not lose the rest
            texts.append("")
    last = ""
    if doc.page_count > FIRST_PAGES:
        try:
            last = doc[doc.page_count - 1].get_text()
        except Exception:  # noqa: BLE001
            last = ""
    arxiv_id = find_arxiv_id(file_name, texts)
    authors = choose_authors(authors_from_info(info.get("author", "")),
                             authors_on_page(first_lines, title, height))
    return Metadata(authors=tuple(authors), year=find_year(arxiv_id, texts, info,
                                                         file_name=file_name),
                    arxiv_id=arxiv_id, doi=find_doi(info, texts, last),
                    version=METADATA_VERSION)


def metadata_of_file(path: str | os.PathLike, title: str) -> Metadata:
    """:func:`read_metadata` of the PDF at ``path`` (opened and closed here). Returns an
    empty :class:`Metadata` (of this version) when the file cannot be opened."""
    from .mupdf import pymupdf

    try:
        doc = pymupdf.open(os.fspath(path))
    except Exception:  # noqa: BLE001 - missing, damaged: nothing to read
        return Metadata(version=METADATA_VERSION)
    try:
        if doc.needs_pass:
            return Metadata(version=METADATA_VERSION)
        return read_metadata(doc, os.path.basename(os.fspath(path)), title)
    except Exception:  # noqa: BLE001
        return Metadata(version=METADATA_VERSION)
    finally:
        doc.close()
