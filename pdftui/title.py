"""A document's title: the metadata title when it looks real, else the first page's title.

:func:`clean_title` turns down junk metadata titles ("Untitled", "Microsoft Word - x.doc",
file names, identifiers) for the file stem; :func:`title_on_first_page` keeps the metadata
title when the first page shows it, else takes the page's largest text (a title wrapped
over several lines: the lines of that size that follow each other closely, a byline of
that size excepted), unless that text is a person's name under a smaller title (a byline set larger
than the title). A page where no text stands out by size (an AMS paper sets its title in
bold capitals at the body size) gives its first bold, centred line above the prose, when
the metadata has no title. :func:`document_title` is the whole rule, as the extractor
and the metadata re-read of cached documents apply it.
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
#: Lines (visual rows) of one size a wrapped title may take, and its characters at most.
MAX_TITLE_ROWS = 8
MAX_TITLE_LEN = 300
#: CJK ideographs, kana and hangul: a title of 4 of them is a phrase, not one word.
_WIDE_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
#: A section heading or a page furniture line, never a title set at the body size.
_HEADING_RE = re.compile(r"^\s*(?:\d|[ivx]+\.\s|abstract\b|contents\b|introduction\b|summary\b)",
                         re.IGNORECASE)


def _squashed(text: str) -> str:
    return re.sub(r"\W+", "", text.casefold())


def document_title(meta_title: str | None, stem: str, first: Page | None) -> str:
    """The title of a document whose info dictionary says ``meta_title``, whose file stem
    is ``stem`` and whose first page is ``first`` (None: no page): :func:`clean_title`,
    then :func:`title_on_first_page`."""
    title = clean_title(meta_title, stem)
    return title_on_first_page(title, first, title == stem) if first is not None else title


def title_on_first_page(meta_title: str, first: Page, is_stem: bool = False) -> str:
    """The metadata title when the first page shows it; else the first page's largest
    text (the lines of that size that follow each other: a wrapped title), when there is
    one. Word exports often carry a stale metadata title ("System Model" on Dynamo); with
    no usable metadata (``is_stem``: the file name stands in) the largest text must be
    two words or more (or one word over a byline, as "Tilings" over its authors), and a
    page where nothing stands out by size may give a bold title set at the body size."""
    if not first.lines or (not is_stem and _squashed(meta_title)[:40]
                           in _squashed(first.text[:4000])):
        return meta_title
    # horizontal lines only (the arXiv stamp runs up the margin), no identifiers
    cands = [ln for ln in first.lines if (ln.x1 - ln.x0) >= (ln.y1 - ln.y0)
             and not _ID_LINE_RE.match(ln.text.strip())]
    run = _standout_run(cands)
    if run is None:
        run = _body_size_title(cands, first) if is_stem else []
    title = _joined(run)
    above = _title_above_a_name(cands, title, run)
    if above:
        title, run = above
    letters = sum(c.isalpha() for c in title)
    if is_stem and (letters < 6 or not _enough_words(title, cands, run)):
        return meta_title
    if 3 <= letters and len(title) <= MAX_TITLE_LEN:
        return title
    return meta_title


def _pt(ln) -> float:
    """A line's size rounded to 0.1 pt (sizes are compared rounded)."""
    return round(ln.size, 1)


def _weights(cands: list) -> dict[float, int]:
    """Characters per size (0.1 pt) among ``cands``."""
    weight: dict[float, int] = {}
    for ln in cands:
        weight[_pt(ln)] = weight.get(_pt(ln), 0) + len(ln.text)
    return weight


def _standout_run(cands: list) -> list | None:
    """The lines of the largest text when it stands out: larger than the body text (the
    size with the most characters) by 15 %, or the page is a title page where the
    largest text is short; None when nothing stands out (a page set in one size)."""
    weight = _weights(cands)
    if not weight:
        return None
    biggest, body = max(weight), max(weight, key=weight.get)
    if biggest <= 0 or (biggest < 1.15 * body and weight[biggest] > 150):
        return None
    return _title_run(cands, max(ln.size for ln in cands if _pt(ln) == biggest))


def _body_size_title(cands: list, first: Page) -> list:
    """The title of a page where nothing stands out by size (AMS style: bold capitals at
    the body size): the first bold line centred on the page in its top 40 %, above any
    line of prose and not a heading, with its wrapped lines; [] when there is none."""
    width = first.width or max((ln.x1 for ln in cands), default=0.0)
    for i, ln in enumerate(cands):
        if ln.y0 > 0.4 * (first.height or 792.0):
            break
        mid = (ln.x0 + ln.x1) / 2
        if ln.bold and abs(mid - width / 2) < 0.05 * width and not _HEADING_RE.match(ln.text):
            return _title_run(cands[i:], ln.size)
        if len(ln.text) > 60:
            break
    return []


def _title_run(cands: list, size: float, before: float | None = None) -> list:
    """The first run of lines of ``size`` (0.5 pt) among ``cands``: a title wrapped over
    up to :data:`MAX_TITLE_ROWS` rows and :data:`MAX_TITLE_LEN` characters. The run ends
    at a line of another size, a gap wider than a line, or a byline in another weight
    set at the title's size (:func:`_continues`); only lines above ``before`` (y,
    points) when given."""
    picked: list = []
    rows = chars = 0
    for ln in cands:
        if before is not None and ln.y0 >= before:
            break
        if abs(ln.size - size) >= 0.5:
            if picked:
                break
            continue
        new_row = not picked or ln.y0 >= picked[-1].y1 - 1
        if picked and not _continues(picked, ln, new_row):
            break
        rows += new_row
        chars += len(ln.text.strip()) + 1
        if rows > MAX_TITLE_ROWS or chars > MAX_TITLE_LEN + 1:
            break
        picked.append(ln)
    return picked


def _continues(picked: list, ln, new_row: bool) -> bool:
    """Does ``ln`` carry on the title of ``picked``: on a new row, no wider gap above
    it than a line's height, and not a byline set in another weight (regular names
    under a bold title); a subtitle in another weight carries on."""
    from .metadata import names_in

    last = picked[-1]
    if new_row and ln.y0 - last.y1 > (last.y1 - last.y0):
        return False
    return ln.bold == picked[0].bold or not names_in(ln.text)


def _joined(lines: list) -> str:
    """The text of a title's lines, joined, control characters and footnote marks
    dropped."""
    return strip_control(join_lines([t for ln in lines if (t := ln.text.strip())]),
                         keep_newlines=False, keep_tabs=False).rstrip("∗*†‡ ")


def _enough_words(title: str, cands: list, run: list) -> bool:
    """Is ``title`` (no metadata to confirm it) more than a stray word: two words or
    more, four CJK characters or more, or one word over a byline (the line after its
    run holds person names, as "Tilings" over "Federico Ardila")?"""
    from .metadata import names_in

    if len(title.split()) >= 2 or len(_WIDE_RE.findall(title)) >= 4:
        return True
    after = next((i + 1 for i, ln in enumerate(cands) if run and ln is run[-1]), len(cands))
    return after < len(cands) and bool(names_in(cands[after].text))


def _title_above_a_name(cands: list, title: str, run: list) -> tuple[str, list] | None:
    """When the largest text ``title`` (lines ``run``) is a person's name (a byline set
    larger than the title, as the German colortbl manual's "David Carlisle" under "The
    colortbl package"), the largest text above it that stands out from the body (1.15 x)
    and is not a name, with its lines; None when there is none (the name stays: a page
    may be a person's)."""
    from .metadata import is_name

    if not run or not is_name(title):
        return None
    weight = _weights(cands)
    body = max(weight, key=weight.get)
    top = run[0].y0
    above = [ln for ln in cands if ln.y1 <= top + 1
             and ln.size >= 1.15 * body and abs(ln.size - run[0].size) >= 0.5]
    if not above:
        return None
    got = _title_run(cands, max(ln.size for ln in above), before=top)
    text = _joined(got)
    # a title is a few words (not a notice or a running header of a sentence)
    ok = sum(c.isalpha() for c in text) >= 3 and len(text) <= 100 and not _sentence(text)
    return (text, got) if ok and not is_name(text) else None


def _sentence(text: str) -> bool:
    """Prose rather than a title: 12 words or more, or a full stop inside."""
    return len(text.split()) >= 12 or bool(re.search(r"\w\.\s+[A-Z]", text))
