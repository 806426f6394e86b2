"""Reference entries: a document's reference list split into entries, each parsed into
fields (authors' surnames and given names, "et al.", year, title, venue, arXiv id, DOI)
with its page and printed label.

Input is the stored blocks of the sections titled "References" / "Bibliography"
(:func:`is_reference_heading`), in reading order, so no PDF is
read again. Running heads and feet of the list's pages are dropped first: a page-edge block
whose text recurs at another page's edge (whole, or opening a block there), or that opens
or ends with its page's number. Splitting (:func:`split_entries`) knows three styles:

- labelled: each entry opens with ``[12]``, ``[Vas+17]`` or ``12.`` (most of a list's
  blocks do, or the labels count up as they run in: a column set as one block);
- hanging indent: an entry's first line sits at its column's left edge and the lines after
  it are indented (the blocks of one column compared by their left ``x0``);
- one block per entry: neither of the above; a block that opens in lower case, with a
  bare year, a DOI or a journal's volume, or follows a hyphen, a comma or the year after
  the names, continues the entry before it.

Author-year entries set as running text are cut where ``Surname, I., ..., Year.`` or
``Surname II, ... Year.`` starts. An entry that repeats the names of the one before it
(``(1982a), Title``, ``———, Title``) is an entry of its own with their authors.

Fields (:func:`parse_entry`) come from the usual shapes ``Authors. Year. Title. Venue.``,
``Authors (Year). Title. Venue.``, ``Authors. Title. Venue, Year.``,
``Authors, "Title," Venue, Year``, ``Names (Year), Title, Journal, Volume, pp.`` and
``Given Surname, Given Surname, and Given Surname, Title, Journal Volume (Year)`` (a title
ended by a comma runs to the first part that reads as a venue, a publisher, an edition or
a volume); an entry none of them fits keeps its raw text and no field that was not read
(no invented title or author). Work is bounded on hostile text: at most
:data:`MAX_ENTRIES` entries per document, each parsed on its first :data:`PARSE_CHARS`
characters and stored up to :data:`MAX_RAW_CHARS`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from .metadata import clean_doi, fix_accents
from .text import clean_text

#: The parser's version: a content whose stored entries were read by another is read again
#: from its stored blocks (no PDF is opened).
REFERENCES_VERSION = 6
#: Most entries kept per document.
MAX_ENTRIES = 10_000
#: Longest raw entry text kept, in characters.
MAX_RAW_CHARS = 4_000
#: Characters of an entry the field parser reads.
PARSE_CHARS = 1_500
#: Most characters of blocks read from one document's reference sections.
MAX_LIST_CHARS = 2_000_000


@dataclass(frozen=True, slots=True)
class RefBlock:
    """One stored block of a reference section: page (1-based), left edge (points), text."""

    page: int
    x0: float
    text: str


@dataclass(frozen=True, slots=True)
class Reference:
    """One entry of a reference list. ``ordinal`` is its 0-based place in the document's
    list; ``page`` the page (1-based) it starts on; ``label`` the printed label
    (``[12]``, ``Vaswani et al., 2017``; '' when none); ``raw`` its text (control
    characters removed, hyphenated line breaks joined). ``authors`` are surnames in printed
    order; ``year`` None, and strings '' when not read."""

    ordinal: int
    page: int
    label: str
    raw: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    title: str = ""
    venue: str = ""
    arxiv_id: str = ""
    doi: str = ""
    given: tuple[str, ...] = ()
    et_al: bool = False

    @property
    def first_author(self) -> str:
        """The first author's surname ('' when not read)."""
        return self.authors[0] if self.authors else ""

    def to_json(self) -> dict:
        """The entry's fields as the CLI's ``--json`` prints them (without ``match``)."""
        return {"page": self.page, "label": self.label, "raw": self.raw,
                "authors": list(self.authors), "year": self.year, "title": self.title,
                "venue": self.venue, "arxiv_id": self.arxiv_id, "doi": self.doi,
                "given": list(self.given), "et_al": self.et_al}


@dataclass(frozen=True, slots=True)
class _Line:
    """One line of a reference list; ``inner``: a block's second or later line."""

    page: int
    x0: float
    text: str
    inner: bool = False


@dataclass(slots=True)
class _Entry:
    page: int
    label: str
    lines: list[str] = field(default_factory=list)
    chars: int = 0

    def add(self, text: str) -> None:
        if self.chars < MAX_RAW_CHARS * 2:
            self.lines.append(text)
            self.chars += len(text)


# ----------------------------------------------------------------------------- splitting
_BRACKET_RE = re.compile(r"^\s*\[([A-Za-z0-9+.\-]{1,12})\]\s*")
_NUMBER_RE = re.compile(r"^\s*(\d{1,4})\.\s+(?=\S)")
_FURNITURE_RE = re.compile(r"^\s*(\d{1,4}|page \d+( of \d+)?)\s*$", re.I)
_HEADING_RE = re.compile(r"^\s*([0-9A-Z]{1,3}\.?\s+)?(references|bibliography|works cited|"
                         r"literature cited|references and notes|literatur|"
                         r"literaturverzeichnis|références)\s*$", re.I)
_HEAD_PREFIX_RE = re.compile(r"^\s*([0-9A-Z]{1,3}\.?\s+)?(references|bibliography)\s+"
                             r"(?=\[|1\.\s)", re.I)
#: What a line opening with a "References" heading can start with (a cheap test first).
_HEAD_STARTS = frozenset("RrBb0123456789ABCDEFGHIJ ")
#: Two x0 values this close (points) are one edge.
_EDGE = 2.5
#: A continuation line is indented by at most this (points) from its column's edge.
_INDENT = 40.0


def is_reference_heading(title: str) -> bool:
    """Is a section title the heading of a reference list ("References", "7
    Bibliography")? (The rule of :func:`pdftui.search.references.is_references_title`,
    here so the index step does not import the search package.)"""
    return bool(_HEADING_RE.match(title or ""))


def split_entries(blocks: Sequence[RefBlock]) -> list[tuple[int, str, str]]:
    """The entries of a reference list as ``(page, label, text)`` in order, from its blocks
    in reading order (the heading and bare page numbers are skipped). At most
    :data:`MAX_ENTRIES` entries."""
    lines = _without_running_lines(_lines(blocks))
    if not lines:
        return []
    style = _style(lines)
    if style == "bracket":
        entries = _split_labelled(lines, _BRACKET_RE, "[{}]")
    elif style == "number":
        entries = _split_labelled(lines, _NUMBER_RE, "{}.")
    else:
        return [(e.page, e.label, _join(e.lines)) for e in _split_indent(lines)[:MAX_ENTRIES]]
    out = [(e.page, e.label, piece) for e in entries for piece in _grouped(_join(e.lines))]
    return out[:MAX_ENTRIES]


#: The particles of surnames (``van Merrienboer``, ``de Bruijn``), as a regex alternation.
_PARTICLES_ALT = "van|von|de|der|den|da|di|del|la|le|du|dos|ter|ten"
_G_CAP = "A-ZÀ-ÞĀ-ſ"
_G_NAME = rf"[{_G_CAP}][^\s,;.\[\]()]*(?:\s[\u0300-\u036f][^\s,;.\[\]()]*)*"
_G_INITS = rf"(?:\s[{_G_CAP}]){{1,3}}"
#: Where a further work starts inside one labelled entry (several works grouped under one
#: label, as JCAP and physics journals print them): after a ``[SPIRES]``-like tag, a
#: sentence's end, a semicolon or a page number, a ``Surname I I`` list with its year
#: (``... 483 565 [SPIRES] Riess A G et al, 1998 Astrophys. J. ...``).
_GROUPED_RE = re.compile(
    rf"(?<=[\].;\d]\s)(?={_G_NAME}{_G_INITS}(?:\set\sal|(?:,\s{_G_NAME}{_G_INITS})*"
    rf"(?:,?\sand\s{_G_NAME}{_G_INITS})?),\s(?:1[89]|20)\d\d[a-z]?\s)")


def _cut_at(pattern: "re.Pattern[str]", text: str) -> list[str]:
    """``text`` cut before each match of ``pattern``, the pieces stripped, empty ones
    dropped; ``[text]`` when nothing matches."""
    cuts = [m.start() for m in pattern.finditer(text)]
    if not cuts:
        return [text]
    bounds = [0, *cuts, len(text)]
    return [text[a:b].strip() for a, b in zip(bounds, bounds[1:]) if text[a:b].strip()]


def _grouped(text: str) -> list[str]:
    """An entry's text cut before each further work grouped under its label (see
    :data:`_GROUPED_RE`); one piece when it holds one work."""
    return _cut_at(_GROUPED_RE, text)


def _lines(blocks: Sequence[RefBlock]) -> list[_Line]:
    """The blocks as lines (heading, empty lines
    and page numbers dropped, at most :data:`MAX_LIST_CHARS` characters)."""
    out: list[_Line] = []
    total = 0
    for b in blocks:
        for i, line in enumerate(clean_text(b.text, keep_newlines=True).split("\n")):
            if line[:1] in _HEAD_STARTS:
                line = _HEAD_PREFIX_RE.sub("", line)
            line = line.strip()
            if not line or _FURNITURE_RE.match(line) or _HEADING_RE.match(line):
                continue
            total += len(line)
            if total > MAX_LIST_CHARS:
                return out
            out.append(_Line(b.page, b.x0, line, i > 0))
    return out


def _without_running_lines(lines: list[_Line]) -> list[_Line]:
    """``lines`` without the running heads and feet of the list's pages: the first or last
    block of a page (its first line at most 160 characters) whose text recurs, digits
    aside, at the edge of another page, whole or opening a block there (then cut from
    it: a head joined to the text under it), or a one-line such block that opens or ends
    with its page's number (``Title Suppressed Due to Excessive Length 7``, ``8 L.
    Beveridge, L. Zhang``, ``... PeerJ Comput. Sci., DOI 10.7717/peerj-cs.118 14/16``)."""
    edges: dict[int, list[int]] = {}   # page -> indices of its first and last blocks
    for i, b in enumerate(lines):
        if not b.inner:
            got = edges.setdefault(b.page, [i, i])
            got[1] = i
    ends = sorted({i for got in edges.values() for i in got})
    keys = {i: _DIGITS_RE.sub("#", lines[i].text) for i in ends}
    pages: dict[str, set[int]] = {}
    for i in ends:
        if len(lines[i].text) <= 160:
            pages.setdefault(keys[i], set()).add(lines[i].page)
    cuts = _joined_heads(lines, ends, keys, pages)
    running = {k for k, p in pages.items() if len(p) >= 2}
    drop = {i for i in ends if keys[i] in running or _numbered_edge(lines, i)}
    if not drop and not cuts:
        return lines
    out: list[_Line] = []
    skip = False
    for i, b in enumerate(lines):
        if not b.inner:
            skip = i in drop
        if i in cuts:
            b = _Line(b.page, b.x0, b.text[cuts[i]:].lstrip(), b.inner)
        if not skip and b.text:
            out.append(b)
    return out


def _joined_heads(lines: list[_Line], ends: list[int], keys: dict[int, str],
                  pages: dict[str, set[int]]) -> dict[int, int]:
    """``{line index: characters to cut}`` of the page-edge lines that open with the text
    of a short page-edge block of another page (24 characters or more; digits aside):
    a running head joined to the text under it. Each head found is added to ``pages``
    with the page it was found on."""
    heads: dict[str, list[str]] = {}   # a key's first 12 characters -> keys
    for k in pages:
        if len(k) >= 24:
            heads.setdefault(k[:12], []).append(k)
    cuts: dict[int, int] = {}
    for i in ends:
        for k in heads.get(keys[i][:12], ()):
            if keys[i].startswith(k + " ") and lines[i].page not in pages[k]:
                m = re.match(r"\d+".join(map(re.escape, k.split("#"))), lines[i].text)
                if m:
                    cuts[i] = m.end()
                    pages[k].add(lines[i].page)
                    break
    return cuts


_DIGITS_RE = re.compile(r"\d+")


def _numbered_edge(lines: list[_Line], i: int) -> bool:
    """Is block ``i`` (a page's first or last) one short line that opens or ends with its
    page's number (a running head or foot)?"""
    b = lines[i]
    if len(b.text) > 120 or (i + 1 < len(lines) and lines[i + 1].inner):
        return False
    n = str(b.page)
    words = b.text.split()
    last = words[-1].split("/")[0] if words[-1][:1].isdigit() else words[-1]
    return len(words) >= 3 and (words[0] == n or last == n)


def _style(lines: list[_Line]) -> str:
    """"bracket", "number" or "indent": the label style a fifth of the list's first 40
    blocks open with, or that numbers the list's entries in sequence where they run on
    in few blocks (a column set as one block: ``References 1. Kudsk KA ... 2. Geerts``)."""
    head = [b for b in lines if not b.inner][:40]   # the list's start, before any figure
    n = len(head)
    brackets = sum(1 for b in lines[:200] if _BRACKET_RE.match(b.text)
                   or _RUN_IN_RE.search(b.text))
    numbers = sum(1 for b in head if _NUMBER_RE.match(b.text))
    first = _BRACKET_RE.match(lines[0].text)
    if brackets >= max(2, 0.2 * n) or (first and first.group(1) == "1"):
        return "bracket"
    counted = _counted_numbers(lines)
    if _sequential(counted) and (numbers >= max(2, 0.2 * n) or
                                 _ups(counted) >= max(5, 0.5 * n)):
        return "number"
    return "indent"


def _counted_numbers(lines: list[_Line]) -> list[int]:
    """The ``12.`` labels of the list's first 200 lines, opening a line or run in after a
    sentence, in order."""
    nums: list[int] = []
    for b in lines[:200]:
        if m := _NUMBER_RE.match(b.text):
            nums.append(int(m.group(1)))
        nums += [int(r.group(1)) for r in _RUN_IN_NUMBER_RE.finditer(b.text)]
    return nums


def _ups(nums: list[int]) -> int:
    """How many of ``nums`` are one more than the number before them."""
    return sum(1 for a, b in zip(nums, nums[1:]) if b == a + 1)


def _sequential(nums: list[int]) -> bool:
    """Do the labels mostly count up by one (a numbered list, not years or pages)?"""
    return _ups(nums) >= 0.6 * max(1, len(nums) - 1)


def _split_labelled(lines: list[_Line], rx: re.Pattern, fmt: str) -> list[_Entry]:
    """Entries of a labelled list: a new one at each line opening with a label; text
    before the first label is dropped."""
    out: list[_Entry] = []
    for b in lines:
        for text, label in _run_in(b.text, rx, out[-1].label if out else "",
                                   _RUN_IN_RE if rx is _BRACKET_RE else _RUN_IN_NUMBER_RE):
            if label:
                out.append(_Entry(b.page, fmt.format(label)))
            if out and text:
                out[-1].add(text)
    return out


#: A ``[n]`` label inside a line, after any word (``... 1068 [3] Ehlers``, ``.../ [102]``);
#: :func:`_run_in` takes it only when it is the number the list expects next.
_RUN_IN_RE = re.compile(r"(?<=\S\s)\[(\d{1,4})\]\s")


#: A ``12.`` label run in after a sentence, before a name, or before the comma or dashes
#: that stand for the names of the entry before (AMS: ``30. , Tropical geometry ...``).
_RUN_IN_NUMBER_RE = re.compile(r"(?<=[.;)]\s)(\d{1,4})\.\s(?=[A-ZÀ-ÞĀ-ſ]|,\s|[—–_-]{2})")


def _run_in(text: str, rx: re.Pattern, last: str, inner: re.Pattern
            ) -> list[tuple[str, str]]:
    """A line as ``(text, label)`` pieces: a label opening it, then each ``[n]`` inside it
    that numbers the next entry (lists set as running text); '' for no new label."""
    out: list[tuple[str, str]] = []
    m = rx.match(text)
    label, at = (m.group(1), m.end()) if m else ("", 0)
    expect = _next_number(label or last)
    for r in inner.finditer(text, at):
        if expect is not None and int(r.group(1)) == expect:
            out.append((text[at:r.start()].strip(), label))
            label, at, expect = r.group(1), r.end(), expect + 1
    out.append((text[at:].strip(), label))
    return out


def _next_number(label: str) -> int | None:
    digits = label.strip("[].")
    return int(digits) + 1 if digits.isdigit() else None


def _split_indent(lines: list[_Line]) -> list[_Entry]:
    """Entries of an unlabelled list: by hanging indent where the list has one, else one
    per block (a block opening in lower case, or after a hyphen or comma, continues). A
    block's inner lines continue it."""
    edges = _column_edges(lines)
    hanging = _has_indent(lines, edges)
    out: list[_Entry] = []
    for b, edge in zip(lines, edges):
        first, *more = _run_in_author_year(b.text)
        if more:   # entries set as running text: the first piece ends or starts one
            b = _Line(b.page, b.x0, first, b.inner)
        if out and _DITTO_RE.match(b.text):   # "(1982a), Title": the same authors again
            start = _has_year(out[-1])
        elif b.inner:
            start = False
        elif hanging:
            start = b.x0 - edge <= _EDGE
        else:
            start = not _continues(out[-1].lines[-1] if out else "", b.text)
        if start or not out:
            out.append(_Entry(b.page, ""))
        out[-1].add(b.text)
        for piece in more:
            out.append(_Entry(b.page, ""))
            out[-1].add(piece)
    return out


#: Where an author-year entry starts inside running text: after a sentence's end, a list
#: of ``Surname, I.`` names followed by a year (``... Proc. ICLR. Atwood, J., Towsley, D.,
#: 2016. Diffusion...``), or such a list running to the line's end, its year on the next
#: line (``... NIPS 1-9. Borgwardt, K.M., Ong, C.S., Sch€onauer,``; ``€`` is how some
#: PDFs set an umlaut).
_AY_NAME = r"[A-ZÀ-ÞĀ-ſ][\w'’€\-]+(?:\s[A-ZÀ-ÞĀ-ſ][\w'’€\-]+)?"
_AY_INITS = r"(?:[A-Z]\.\s?-?)+[A-Z]?\.?"
#: Vancouver names run in (PeerJ: ``... DOI 10.1093/nar/25.17.3389. Alvarez-Ponce D,
#: Aguade M, Rozas J. 2009. Network-level ...``): ``Surname II`` names, then the year
#: after a period, or names running to the line's end (the rest on the next line).
_AY_VNAME = (rf"(?:(?:{_PARTICLES_ALT})\s)*[A-ZÀ-ÞĀ-ſ][\w'’€\-]+"
             r"(?:\s[A-ZÀ-ÞĀ-ſ][\w'’€\-]+)?\s[A-Z]{1,3}")
_AUTHOR_YEAR_START_RE = re.compile(
    rf"(?<=[.)]\s)(?=(?:{_AY_NAME},\s{_AY_INITS},?\s(?:and\s|&\s)?)+(?:et\sal\.,?\s)?"
    rf"\(?(?:19|20)\d\d[a-z]?\)?[.,]"
    rf"|(?:{_AY_NAME},\s{_AY_INITS},\s?)+(?:{_AY_NAME},?)?\s*$)")
_VANCOUVER_YEAR_START_RE = re.compile(
    rf"(?<=[.)]\s)(?=(?:{_AY_VNAME},\s)*{_AY_VNAME}(?:,\set\sal)?\.\s(?:19|20)\d\d[a-z]?\."
    rf"(?:\s|$)|(?:{_AY_VNAME},\s)+(?:{_AY_VNAME}\.?|{_AY_NAME})?\s*$)")
#: What a line holding a Vancouver name has (a cheap test before the pattern above).
_VANCOUVER_HINT_RE = re.compile(r"[a-z’'] [A-Z]{1,3}(?:,|\.\s(?:19|20)\d\d)")


def _run_in_author_year(text: str) -> list[str]:
    """``text`` cut before each author-year entry that starts inside it (one piece when
    none does): ``Surname, I.`` lists, or Vancouver ``Surname II`` ones."""
    pieces = _cut_at(_AUTHOR_YEAR_START_RE, text)
    if not _VANCOUVER_HINT_RE.search(text):
        return pieces
    return [p for piece in pieces for p in _cut_at(_VANCOUVER_YEAR_START_RE, piece)]


def _column_edges(lines: list[_Line]) -> list[float]:
    """Each line's column edge: the least ``x0`` on its page within :data:`_INDENT` to the
    left of it (the column's flush-left lines)."""
    by_page: dict[int, list[float]] = {}
    for b in lines:
        if not b.inner:
            by_page.setdefault(b.page, []).append(b.x0)
    out = []
    for b in lines:
        near = [x for x in by_page.get(b.page, ()) if b.x0 - _INDENT <= x <= b.x0]
        out.append(min(near, default=b.x0))
    return out


def _has_indent(lines: list[_Line], edges: list[float]) -> bool:
    """Does at least a fifth of the list sit indented from its column's edge (a hanging
    indent), while at least a fifth sits on it?"""
    outer = [(b, e) for b, e in zip(lines, edges) if not b.inner]
    indented = sum(1 for b, e in outer if _EDGE < b.x0 - e <= _INDENT)
    flush = len(outer) - indented
    return indented >= 0.2 * len(outer) and flush >= 0.2 * len(outer)


#: An entry that repeats the authors of the one before it (their names not printed again):
#: ``(1982a), Title, ...``, ``———, Title``, or ``, Title`` (the dashes lost in the text).
_DITTO_RE = re.compile(r"^(?:\((?:1[89]|20)\d\d[a-z]?\)[,.]|[—–_-]{2,}[.,]?|,)\s")


def _has_year(entry: _Entry) -> bool:
    """Does the entry's text so far hold a year (its authors and year read)?"""
    return any(_YEAR_RE.search(line) for line in entry.lines)


def _continues(before: str, text: str) -> bool:
    """Does a block continue the entry whose last line is ``before``: it opens in lower
    case, with a bare year (``2008. Title``), a DOI or a journal's volume and pages
    (``Bioinformatics 21(5):676–679``), or ``before`` ends without a sentence's end, or at
    the year after the names (``Lipman DJ. 1997.``: the title is still to come)."""
    if not before:
        return False
    return (text[:1].islower() or before.endswith(("-", ",", "and", "&", ":"))
            or not before.endswith((".", ")", "]")) and not before[-1:].isdigit()
            or bool(_YEAR_AFTER_NAMES_RE.search(before[-12:]))
            or bool(_CONTINUATION_START_RE.match(text)))


#: What opens a block that only continues an entry: a bare year after the names of a line
#: before, an identifier, a journal's volume and pages.
_CONTINUATION_START_RE = re.compile(
    r"(?:\(?(?:1[89]|20)\d\d[a-z]?\)?[.,]\s|doi\b|https?://|arxiv\b|pmid\b|isbn\b"
    r"|[A-Z][^\d]{0,60}?\s\d+(?:\s?\(\w+\))?:\s?\w*\d+[–-])", re.I)


#: An entry's text ending at the year printed after its names (``Lipman DJ. 1997.``,
#: ``Hinton, G. (2012a).``).
_YEAR_AFTER_NAMES_RE = re.compile(r"(?:\b[A-Z]{1,3}\.?|\bal\.),?\s\(?(?:1[89]|20)\d\d[a-z]?\)?\.$")


_HYPHEN_RE = re.compile(r"(?<=[a-z])-$")


def _join(lines: list[str]) -> str:
    """An entry's lines as one string: a line ending in a hyphen after a lower-case letter
    joins the next line's lower-case word without it (``rep-`` + ``resentations``), and a
    capitalised one with it (``Grabska-`` + ``Barwinska``)."""
    out = ""
    for line in lines:
        if out.endswith("-") and _HYPHEN_RE.search(out) and line[:1].islower():
            out = out[:-1] + line
        elif out.endswith("-") and out[-2:-1].isalpha() and line[:1].isupper():
            out += line   # a hyphenated name or compound broken there: Grabska-Barwinska
        else:
            out = f"{out} {line}" if out else line
    out = " ".join(out.split())
    return out[:MAX_RAW_CHARS]


# ----------------------------------------------------------------------------- fields
_ARXIV_RE = re.compile(r"(?:arXiv[:\s]*|arxiv\.org/(?:abs|pdf)/|abs/|CoRR[,\s]+abs/)"
                       r"(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7}|\d{8,9}(?!\d))(?:v\d+)?",
                       re.I)
_DOI_RE = re.compile(r"(?:doi[:\s]*|doi\.org/)?\b(10\.\d{4,9}/[^\s\"<>]+)", re.I)
#: A year: four digits 1800-2039 that are no part of a longer number, a decimal or an
#: identifier (``1810.12885``, ``abs/1810``).
_YEAR_RE = re.compile(r"(?<![\d./:])((?:1[89]\d|20[0-3])\d)([a-z]?)(?![\d/]|\.\d)")
_QUOTED_RE = re.compile(r"[\"“”‘’'`]{1,2}(.{8,300}?)[,.]?[\"“”’']{1,2}")
_URL_RE = re.compile(r"https?://\S+|www\.\S+")
_DIGIT_RE = re.compile(r"\d")
_NOT_LETTER_RE = re.compile(r"[\W\d_]")
#: Words after which a period does not end a sentence of an entry.
_ABBREV = frozenset("""vol no pp proc conf int intl eds ed trans j univ dept inc ltd
jr sr st dr mr ms vs cf fig eq sec ch nat acad sci natl assoc comput mach ieee acm adv
eng soc phys rev lett math stat appl res lab tech rep""".split())
#: 1-6 words each opening with a letter (any case: particles, a letter split from its word
#: as in ``Ł ukasz``) and made of word characters, apostrophes, periods and hyphens.
#: After the first word, none is a title's word (``Chow quotients of Grassmannians``).
_TITLE_WORDS = (r"(?-i:of|the|for|in|on|with|to|from|by|at|an|a|is|are|via|using|towards|"
                r"through|into|how|what|why)(?:\s|$)")
_NAME_PIECE_RE = re.compile(rf"[A-ZÀ-ÞĀ-ſ][\w'’.\-]*(?:\s+(?!{_TITLE_WORDS})"
                            r"[A-ZÀ-ÞĀ-ſ][\w'’.\-]*){0,5}", re.I)
#: A surname opening with an elided particle (``d’Ascoli``, ``dell’Orco``).
_ELIDED_RE = re.compile(r"[a-z]{1,4}['’][A-ZÀ-ÞĀ-ſ]")
_INITIALS_RE = re.compile(r"^(?:[A-Z]\.?-?\s?){1,4}$")


def parse_entry(text: str, page: int, ordinal: int = 0, label: str = "") -> Reference:
    """One entry's fields from its text (see the module doc for the shapes read). Fields
    not found are left empty; the label, when the list printed none, is made from the
    first author and year (``Vaswani et al., 2017``) once both are read."""
    raw = text[:MAX_RAW_CHARS]
    body = _join_broken_doi(_normal_text(raw[:PARSE_CHARS]))
    doi = _doi(body)
    arxiv = _arxiv(body) or _arxiv_of_doi(doi)
    names, year, title, venue = _shape(body)
    authors = tuple(surname for surname, _given in names)
    if not label and authors and year:
        label = _author_year_label(authors, year)
    return Reference(ordinal, page, label, raw, authors, year, title, venue, arxiv, doi,
                     tuple(given for _surname, given in names),
                     bool(names) and _has_et_al(body, title))


#: "et al." (also ``et. al.``, ``et al,``) or "and others" in an author list.
_ET_AL_ONLY_RE = re.compile(r"\bet\.?\s*al\b|\band\s+others\b", re.I)


def _has_et_al(body: str, title: str) -> bool:
    """Does the entry print "et al." / "and others" before its title (its whole text
    when no title was read)?"""
    if " al" not in body and "others" not in body:
        return False
    at = body.find(title[:30]) if title else -1
    head = body[:at] if at > 0 else body[:300]
    return bool(_ET_AL_ONLY_RE.search(head))


#: A combining accent set apart from its letter by a space (``C ́el ́erier``: the mark
#: printed before the letter it sits on); moved after that letter so NFC composes them.
_LOOSE_MARK_RE = re.compile(r"\s([\u0300-\u036f])([^\W\d_])")
#: A combining accent (what the two patterns below look for).
_MARK_RE = re.compile(r"[\u0300-\u036f]")
#: A combining accent set apart by a space after the letter it sits on, before no letter
#: (``L’Abbe ́ KA``): joined to that letter.
_TRAILING_MARK_RE = re.compile(r"(?<=[^\W\d_])\s([\u0300-\u036f])(?![^\W\d_])")
#: ``€`` between letters: how some PDFs set an umlaut (``Sch€onauer``); the diaeresis.
_EURO_UMLAUT_RE = re.compile(r"(?<=[^\W\d_])€([aeiouAEIOU])")


def _normal_text(text: str) -> str:
    """``text`` with its accents joined to their letters (NFC; see :data:`_LOOSE_MARK_RE`,
    :data:`_EURO_UMLAUT_RE`, :func:`fix_accents`); ASCII text without a backquote (the one
    ASCII spacing accent) is returned as it is."""
    if text.isascii():
        return fix_accents(text) if "`" in text else text
    if _MARK_RE.search(text):
        text = _TRAILING_MARK_RE.sub(r"\1", _LOOSE_MARK_RE.sub(r"\2\1", text))
        text = text.replace("ı\u0308", "ï").replace("ı\u0301", "í")
    if "€" in text:
        text = _EURO_UMLAUT_RE.sub(lambda m: m.group(1) + "\u0308", text)
    return fix_accents(unicodedata.normalize("NFC", text))


def _arxiv(text: str) -> str:
    low = text.lower()
    if "arxiv" not in low and "abs/" not in low:   # all that _ARXIV_RE can match
        return ""
    m = _ARXIV_RE.search(text)
    if not m:
        return ""
    got = m.group(1)   # an id printed without its dot (arXiv:14091259) gets it back
    return f"{got[:4]}.{got[4:]}" if got.isdigit() else got


#: A DOI that ends the entry, broken after one of its dots at a line end
#: (``10.48550/arXiv. 1912.01703.``): the part after the break is not a bare year.
_BROKEN_DOI_RE = re.compile(
    r"(10\.\d{4,9}/\S*?\.)\s+(?!(?:1[89]|20)\d\d\.?\s*$)([\w./\-]+)\s*$")


#: A DOI broken at a line end right after its slash (``10.1016/ S0140-6736(99)04149-5``):
#: no DOI ends with its slash.
_SLASH_DOI_RE = re.compile(r"(10\.\d{4,9}/)\s+(?=[\w(])")


def _join_broken_doi(text: str) -> str:
    """``text`` with a DOI broken at a line end after a dot joined again, when what
    follows the break runs to the end of the entry (see :data:`_BROKEN_DOI_RE`), and one
    broken after its slash (:data:`_SLASH_DOI_RE`)."""
    if "10." not in text:
        return text
    return _SLASH_DOI_RE.sub(r"\1", _BROKEN_DOI_RE.sub(r"\1\2", text))


def _arxiv_of_doi(doi: str) -> str:
    """The arXiv id of an arXiv DOI (``10.48550/arXiv.2211.02701``), else ''."""
    if not doi.lower().startswith("10.48550/arxiv."):
        return ""
    m = _NEW_ARXIV_ID_RE.fullmatch(doi[15:])
    return m.group(1) if m else ""


_NEW_ARXIV_ID_RE = re.compile(r"(\d{4}\.\d{4,5})(?:v\d+)?")


def _doi(text: str) -> str:
    if "10." not in text:
        return ""
    for m in _DOI_RE.finditer(text):
        if doi := clean_doi(m.group(1)):
            return doi
    return ""


def _author_year_label(authors: Sequence[str], year: int) -> str:
    if len(authors) == 1:
        return f"{authors[0]}, {year}"
    if len(authors) == 2:
        return f"{authors[0]} and {authors[1]}, {year}"
    return f"{authors[0]} et al., {year}"


def _shape(body: str) -> _Fields:
    """``(surnames, year, title, venue)`` of an entry's text, empty where not read."""
    text = _URL_RE.sub(" ", body) if "http" in body or "www." in body else body
    years = _years(text)
    if ditto := _DITTO_RE.match(text):   # the authors of the entry before, not printed
        return _after_ditto(ditto.group(0), text[ditto.end():], years)
    quoted = _QUOTED_RE.search(text)
    authors = _names(text[:quoted.start()]) if quoted and \
        text[:quoted.start()].rstrip().endswith((",", ".", ":")) else []
    if authors:
        year = int(years[-1].group(1)) if years else None
        return authors, year, _tidy_title(quoted.group(1)), _venue(text[quoted.end():])
    inverted = _inverted_prefix(text)
    if inverted is not None:
        return _after_authors(*inverted, years)
    sentences = _sentences(text)
    if not sentences:
        return [], None, "", ""
    head = sentences[0]
    authors = _names(_strip_year(head))
    rest = sentences[1:]
    if not authors and (listed := _comma_names(text)):
        return _after_comma_names(*listed, years)
    if not authors and ":" in head:   # "Kudsk KA, Fabian TC: Title. Journal 1994"
        names, _colon, title = head.partition(":")
        authors = _names(names)
        head, rest = names, [title.strip(), *rest]
    if not authors and (vancouver := _VANCOUVER_LIST_RE.match(text)):
        return _after_vancouver(_names(vancouver.group(1)), text[vancouver.end():], years)
    if not authors:
        return _names_then_year(text) or (
            [], int(years[-1].group(1)) if years else None, "", "")
    year = _year_after_authors(head, rest)
    if year is not None and rest and _is_year(rest[0]):
        rest = rest[1:]
    title, rest = _first_title(rest)
    if year is None and years:
        year = _year_after_title(text, title, years)
    return authors, year, title, _venue(" ".join(rest)) if title else ""


def _year_after_title(text: str, title: str, years: list[re.Match]) -> int:
    """The first year printed after ``title`` in ``text`` (a year in a title, ``2016
    update``, or in matter after the entry, ``Cite this article as: ... 2010``, is not
    the entry's); the last year when there is no title."""
    at = text.find(title[-20:]) + len(title[-20:]) if title else -1
    after = [m for m in years if m.start() >= at and not _in_page_range(text, m)] \
        if at > 0 else []
    return int((after[0] if after else years[-1]).group(1))


def _in_page_range(text: str, m: re.Match) -> bool:
    """Is the year-like number ``m`` a page of a range (``15(1):1929–1958``)?"""
    before, after = text[max(0, m.start() - 2):m.start()], text[m.end():m.end() + 2]
    return (before[-1:] in ("-", "–") and before[:1].isdigit()) or \
        (after[:1] in ("-", "–") and after[1:2].isdigit())


#: Particles before a surname, in lower case or capitalised (``Van Durme, B.``).
_PARTICLE = rf"(?:(?i:{_PARTICLES_ALT})\s+)*"
_SURNAME = _PARTICLE + r"[A-ZÀ-ÞĀ-ſ][\w'’\-]+"
_CAP = "A-ZÀ-ÞĀ-ſ"
_INITS = f"(?:[{_CAP}](?![\\w’'])\\.?\\s?-?\\s?)*[{_CAP}](?![\\w’'])\\.?"
_ONE = f"({_SURNAME}),\\s+{_INITS}"
_INVERTED_RE = re.compile(
    f"^{_ONE}((?:[,;]\\s+(?:and\\s+|AND\\s+|&\\s+)?{_SURNAME},\\s+{_INITS})*)"
    f"(?:,?\\s+(?:and|AND|&)\\s+{_SURNAME},\\s+{_INITS})?(?:,?\\s+et\\.?\\s*al\\.?)?")
_NAME_IN_LIST_RE = re.compile(f"({_SURNAME}),\\s+({_INITS})")
_LEAD_YEAR_RE = re.compile(r"^[\s,.]*\(?((?:1[89]\d|20[0-3])\d)[a-z]?\)?[.,:]?\s+")


def _inverted_prefix(text: str) -> tuple[list[_Name], str] | None:
    """``(names, rest)`` when ``text`` opens with a ``Surname, I.`` author list (``Ba,
    J. L., Kiros, J. R., and Hinton, G. E.``), else None."""
    m = _INVERTED_RE.match(text)
    if not m or "," not in m.group(0):
        return None
    names = [(n.group(1), _given(n.group(2))) for n in _NAME_IN_LIST_RE.finditer(m.group(0))]
    rest = text[m.end():]
    if not rest[:1] in (".", ",", " ", "(", ":") and rest:
        return None
    return names, rest


def _after_authors(authors: list[_Name], rest: str, years: list[re.Match]
                   ) -> _Fields:
    """The fields of an entry whose authors are read, from the text after them: an
    optional year, then title sentence, then venue."""
    rest = rest.lstrip(" .,:")
    y = _LEAD_YEAR_RE.match(" " + rest)
    year = int(y.group(1)) if y else (int(years[-1].group(1)) if years else None)
    if y:
        rest = (" " + rest)[y.end():]
    sentences = _sentences(rest)
    if sentences and _is_year(sentences[0]):   # PeerJ: ``Whelan S. 2013. Title.``
        sentences.pop(0)
    title, sentences = _first_title(sentences)
    return authors, year, title, _venue(" ".join(sentences)) if title else ""


_NAMES_YEAR_RE = re.compile(r"^(?P<names>[^()\d]{2,300}?),?\s\(?(?P<year>(?:1[89]\d|20[0-3])\d)"
                            r"[a-z]?\)?[,.]?\s*(?P<rest>.*)$", re.S)
_IN_VENUE_RE = re.compile(r",\s+[Ii]n\s|\.\s+In\s")


def _names_then_year(text: str) -> _Fields | None:
    """The fields of ``Names (Year), Title, in Venue``, ``Names. Year. Title. Journal``
    and ``Names, Year Journal Volume Page`` (physics, no title): the names and the year;
    the title when an ``in`` marks where it ends, else as :func:`_comma_title` reads it.
    None when the text does not open that way."""
    m = _NAMES_YEAR_RE.match(text)
    if not m:
        return None
    authors = _names(m.group("names"))
    if not authors:
        return None
    rest = m.group("rest")
    cut = _IN_VENUE_RE.search(rest)
    if cut:
        title, venue = _tidy_title(rest[:cut.start()]), _venue(rest[cut.end():])
    else:   # "Title, Journal, 17, pp. 1-9" or "Title. Journal 30(3):642-653"
        title, venue = _comma_title(rest)
    if not title or not _title_like(title):
        title, venue = "", ""
    return authors, int(m.group("year")), title, venue


def _comma_names(text: str) -> tuple[list[_Name], str] | None:
    """``(names, rest)`` of an entry opening with given-name-first names parted by commas
    and ended by a comma (``Louis J. Billera, Susan P. Holmes, and Karen Vogtmann,
    Geometry of ...``; ``S. Pinker, The Language Instinct: ...``): the list ends at its
    ``and`` name, followed by a capitalised part without a year (the title, maybe of one
    word: ``Triangulations``), or before the first part that is no name, which must then
    read as a title's start (:func:`_title_start`). None otherwise."""
    parts = text.split(", ", 60)
    names: list[_Name] = []
    for i, part in enumerate(parts[:-1]):
        last = part.startswith(("and ", "& "))
        pieces = [p for p in _AND_RE.split(part.split(" ", 1)[1] if last else part) if p]
        if not all(_given_first(p) for p in pieces):
            if last or not names or not _title_start(part):
                return None
            return names, ", ".join(parts[i:])
        names += [_surname(p) for p in pieces]
        if last or len(pieces) > 1:   # after "and Name" the title, though of one word
            after = parts[i + 1]
            return (names, ", ".join(parts[i + 1:])) if after[:1].isupper() and \
                not _YEAR_RE.search(after) else None
    return None


_AND_RE = re.compile(r"\s+(?:and|&)\s+")
#: A word of a name printed given names first: an initial (``J.``, ``J.-P.``, ``Yu.``), a
#: capitalised word with a lower-case letter, a particle or a suffix.
_GIVEN_WORD_RE = re.compile(r"(?:[A-ZÀ-ÞĀ-ſ][a-z]?\.(?:-?[A-ZÀ-ÞĀ-ſ]\.)*"
                            r"|[A-ZÀ-ÞĀ-ſ][\w'’\-]*[a-zà-ÿ][\w'’\-]*"
                            r"|van|von|de|der|den|da|di|del|la|le|du|dos|ter|ten|Jr\.|II|III)")


def _given_first(piece: str) -> bool:
    """Is ``piece`` one name printed given names first (``Louis J. Billera``, ``P. van
    Emde Boas``): 2-5 name words, the last a surname with a lower-case letter?"""
    words = piece.split()
    if not 2 <= len(words) <= 5 or not all(_GIVEN_WORD_RE.fullmatch(w) for w in words):
        return False
    last = next((w for w in reversed(words) if w not in ("Jr.", "II", "III")), "")
    return not last.endswith(".") and any(c.islower() for c in last) and last[:1].isupper()


def _title_start(part: str) -> bool:
    """Does a comma-separated part read as a title's start (two words or more, a word of
    three lower-case letters or more among them, no year)?"""
    words = part.split()
    return len(words) >= 2 and any(w.isalpha() and w.islower() and len(w) >= 3
                                   for w in words) and not _YEAR_RE.search(part)


def _after_ditto(mark: str, rest: str, years: list[re.Match]) -> _Fields:
    """The fields of an entry that repeats the authors of the one before it: after
    ``(1982a),`` the title as :func:`_comma_title` reads it; after ``———.`` and a year as
    :func:`_after_authors` does, else as :func:`_after_comma_names` does (no names: the
    list gives them)."""
    if mark.startswith("("):
        title, venue = _comma_title(rest)
        return [], int(_YEAR_RE.search(mark).group(1)), \
            title if _title_like(title) else "", venue
    if _LEAD_YEAR_RE.match(" " + rest):
        return _after_authors([], rest, years)
    return _after_comma_names([], rest, years)


def _after_comma_names(authors: list[_Name], rest: str, years: list[re.Match]) -> _Fields:
    """The fields of an entry after its comma-ended names (see :func:`_comma_names`):
    the title and venue as :func:`_comma_title` reads them, the year the first one in
    parentheses (``Math. Z. 264 (2010)``), else the last one printed."""
    title, venue = _comma_title(rest)
    paren = _PAREN_YEAR_RE.search(rest)
    year = int(paren.group(1)) if paren else (int(years[-1].group(1)) if years else None)
    return authors, year, title if _title_like(title) else "", venue


def _comma_title(rest: str) -> tuple[str, str]:
    """``(title, venue)`` of the text after an entry's names and year where commas part
    the title from the venue (``Logical reversibility of computation, IBM J. Res.
    Develop., 17, pp. 525–532``): the title runs to the first comma-separated part that
    reads as a venue (:func:`_venue_part`), cut before a sentence that reads as one;
    without such a part, a first sentence of 3+ words followed by another (``Title.
    Journal 30(3):642-653``). ``("", "")`` when neither is found, or the title would
    read as a venue."""
    parts = rest.split(", ")
    k = next((i for i in range(1, min(len(parts), 12)) if _venue_part(parts, i)), 0)
    if k:
        title, venue = _title_sentence(", ".join(parts[:k])), ", ".join(parts[k:])
    else:
        sentences = _sentences(rest)
        if len(sentences) < 2 or len(sentences[0].split()) < 3:
            return "", ""
        title, venue = sentences[0], " ".join(sentences[1:])
    if _abbreviations(title) >= 2 or _NOT_TITLE_RE.match(title):
        return "", ""
    return _tidy_title(title), _venue(venue)


#: Words of a venue, a publisher or a kind of publication (a comma-separated part holding
#: one is no part of a title).
_VENUE_PART_RE = re.compile(
    r"^(?:in\s|pp?\.|pages?\b|vol\b|vol\.|volume\b|no\.|chapter\b|ch\.|\d)|\b(?:press|publishers?|"
    r"springer|verlag|wiley|elsevier|addison|kluwer|birkh|academic|university|univ\.|"
    r"proceedings|journal|conference|symposium|workshop|transactions|letters|lecture|"
    r"notes in|series|monographs|texts|studies in|handbook|advances in|preprint|to appear|"
    r"submitted|in press|technical|report|thesis|arxiv|eds?\.|edition|personal)\b", re.I)
#: A title that is no title (what some entries print where one would be).
_NOT_TITLE_RE = re.compile(r"(?:personal communication|preprint|to appear|in preparation|"
                           r"unpublished|submitted)\b", re.I)
#: An abbreviated word of a venue (``J.``, ``Phys.``, ``Comput.``).
_ABBREVIATION_RE = re.compile(r"\b[A-Z][a-z]{0,7}\.(?=[\s,]|$)")


def _abbreviations(text: str) -> int:
    """How many abbreviated words (``J.``, ``Rev.``) ``text`` holds."""
    return len(_ABBREVIATION_RE.findall(text))


def _venue_part(parts: list[str], i: int) -> bool:
    """Does comma-separated part ``i`` of an entry's tail read as its venue: venue or
    publisher words, two abbreviated words (or one and a number), a year alone, or a
    name followed by a volume number (``Science, 261``)?"""
    part = parts[i].strip()
    n = _abbreviations(part)
    return bool(_VENUE_PART_RE.search(part)) or n >= 2 or (n and _DIGIT_RE.search(part)) \
        or _is_year(part) or (i + 1 < len(parts) and len(part.split()) <= 6 and
                              bool(_VOLUME_RE.match(parts[i + 1].strip())))


#: A volume after a journal's or a series' name (``Science, 261``, ``..., vol. 25``).
_VOLUME_RE = re.compile(r"\d|(?:vol\b|vol\.|volume\b|no\.)", re.I)


#: A journal's volume and pages (``273:31–53``, ``5(2):86``).
_VOLUME_PAGES_RE = re.compile(r"\d+\s?(?:\(\w+\))?:\s?\w*\d")


def _title_sentence(title: str) -> str:
    """``title`` cut before a sentence of it that reads as a venue (``Is quantum
    mechanics useful? Philos. Trans. Roy. Soc. London Ser. A``) or as a publisher's name
    (up to four capitalised words: ``... Creates Language. Viking``)."""
    for m in _AFTER_MARK_RE.finditer(title):
        tail = title[m.end():]
        words = tail.split()
        if _abbreviations(tail) >= 2 or _VENUE_PART_RE.search(tail) or \
                _VOLUME_PAGES_RE.search(tail) or \
                len(words) <= 4 and all(w[:1].isupper() for w in words):
            return title[:m.start()]
    return title


def _years(text: str) -> list[re.Match]:
    """The years printed in ``text``, not those inside an arXiv id or DOI."""
    found = list(_YEAR_RE.finditer(text))
    if not found or ("/" not in text and "xiv" not in text.lower()):
        return found
    return [m for m in found if not _in_id(text, m.start())]


def _in_id(text: str, at: int) -> bool:
    """Is position ``at`` inside an arXiv id or DOI (whose digits look like years)?"""
    before = text[max(0, at - 12):at].lower()
    return "10." in before[-8:] or "arxiv" in before or "abs/" in before or "/" in before[-2:]


_PAREN_YEAR_RE = re.compile(r"\(((?:1[89]\d|20[0-3])\d)[a-z]?\)")
_BARE_YEAR_RE = re.compile(r"^\(?((?:1[89]\d|20[0-3])\d)[a-z]?\)?$")


#: A Vancouver author list ending in a period (``Harris JJ, Jolivet R, Attwell D.``,
#: ``Fraiman D, Chialvo DR, et al.``): its last initials' period ends the sentence.
_VANCOUVER_NAME = (rf"(?:(?:{_PARTICLES_ALT})\s)*[A-ZÀ-ÞĀ-ſ][\w'’\-]*"
                   r"(?:\s[A-Za-zÀ-ÿ][\w'’\-]+){0,3}\s[A-Z](?:\s?[A-Z]){0,2}")
_VANCOUVER_LIST_RE = re.compile(
    rf"^({_VANCOUVER_NAME}(?:,\s{_VANCOUVER_NAME}){{0,30}}(?:,?\set\sal)?)\.\s+(?=\S)")


def _after_vancouver(authors: list[_Name], rest: str, years: list[re.Match]
                     ) -> _Fields:
    """``(surnames, year, title, venue)`` of a Vancouver entry after its author list:
    title, then journal, then ``2012;75(5):762-77`` (the year the first after the title)."""
    sentences = _sentences(rest)
    lead = None
    if sentences and _is_year(sentences[0]):   # PeerJ: ``Whelan S. 2013. Title.``
        lead = _YEAR_RE.search(sentences.pop(0))
    title, sentences = _first_title(sentences)
    after = " ".join(sentences)
    later = _years(after)
    if lead is not None:
        later = [lead]
    year = int(later[0].group(1)) if later else (int(years[-1].group(1)) if years else None)
    return authors, year, title, _venue(after) if title else ""


def _strip_year(head: str) -> str:
    """The author part of a first sentence with a trailing ``(2014a)`` removed."""
    return _PAREN_YEAR_RE.sub("", head).strip().rstrip(",")


def _is_year(sentence: str) -> bool:
    return bool(_BARE_YEAR_RE.match(sentence.strip().rstrip(".")))


def _year_after_authors(head: str, rest: list[str]) -> int | None:
    """The year printed right after the authors: ``Name (2014a).`` or ``Name. 2017.``."""
    m = _PAREN_YEAR_RE.search(head)
    if m:
        return int(m.group(1))
    if rest and _is_year(rest[0]):
        return int(_BARE_YEAR_RE.match(rest[0].strip().rstrip("."))[1])
    return None




def _sentences(text: str) -> list[str]:
    """``text`` cut at each period, question or exclamation mark that ends a sentence: not
    after an initial (``Yann N.``), an abbreviation (``Proc.``) or inside a number."""
    out: list[str] = []
    held: list[str] = []   # pieces of a sentence whose period did not end it
    for piece in _AFTER_MARK_RE.split(text.strip()):
        held.append(piece)
        if piece.endswith("."):
            bare = piece[piece.rfind(" ") + 1:-1].lstrip("([{,")
            if _is_initial(bare) or bare.lower() in _ABBREV:
                continue
        sentence = " ".join(held)
        held = []
        if sentence.endswith((".", "?", "!")):
            sentence = sentence.rstrip(".").strip()
        if sentence:
            out.append(sentence)
    if held:
        out.append(" ".join(held))
    return out


#: The spaces after a sentence mark (a candidate sentence end).
_AFTER_MARK_RE = re.compile(r"(?<=[.?!])\s+")


def _is_initial(word: str) -> bool:
    """``N``, ``J.-P``, ``A.-r`` style initials (the period after them does not end a
    sentence)."""
    return len(word) <= 6 and bool(_INITIAL_RE.fullmatch(word))


_INITIAL_RE = re.compile(r"[A-ZÀ-ÞĀ-ſ](?:\.-?[A-ZÀ-ÞĀ-ſa-z]){0,2}")


_ET_AL_RE = re.compile(r"\bet\.?\s*al\b\.?|\band others\b|\(eds?\.?\)|\beds?\.$|"
                       r",?\s*\beditors?$", re.I)
_NAME_SPLIT_RE = re.compile(r",|;|\band\b|&")


def _names(part: str) -> list[_Name]:
    """``(surname, given)`` of each name of an author part (``Ba, J. L., Kiros, J. R., and
    Hinton, G. E`` or ``Jimmy Lei Ba, Jamie Ryan Kiros, and Geoffrey E Hinton``; given ''
    where none is printed); [] when it does not read as names."""
    part = part.strip().rstrip(",.;:")
    if not part or len(part) > 1200 or _THREE_DIGITS_RE.search(part):
        return []
    low = part.lower()
    if "et" in low or "other" in low or "ed" in low:   # all that _ET_AL_RE can match
        part = _ET_AL_RE.sub("", part)
    pieces = [p for p in map(str.strip, _NAME_SPLIT_RE.split(part))
              if p and p.rstrip(".").lower() not in _SUFFIXES]
    if not pieces or not all(_name_piece(p) for p in pieces):
        return []
    if _inverted(pieces):
        return [(_clean_surname(p), _given(pieces[i + 1]) if i + 1 < len(pieces) and
                 _INITIALS_RE.match(pieces[i + 1]) else "")
                for i, p in enumerate(pieces) if not _INITIALS_RE.match(p)]
    if all(_VANCOUVER_RE.match(p) for p in pieces):
        return [(_clean_surname(m.group(1)), _spread_initials(m.group(2)))
                for m in map(_VANCOUVER_RE.match, pieces)]
    return [_surname(p) for p in pieces]


#: Three digits anywhere (an author part holds at most two: ``(2014)`` is cut before).
_THREE_DIGITS_RE = re.compile(r"\d\D*\d\D*\d")


#: One author: ``(surname, given names or initials as printed, '' when none)``.
_Name = tuple[str, str]
#: What an entry's shape gives: ``(names, year, title, venue)``, empty where not read.
_Fields = tuple[list[_Name], int | None, str, str]


def _given(text: str) -> str:
    """The initials after a ``Surname,`` as printed, spaces normalised, a trailing comma
    dropped, and the last initial's period given back where the end of the author list
    took it (``Hinton, G. E`` -> ``G. E.``)."""
    given = " ".join(text.split()).strip(" ,;")
    return given + "." if given[-1:].isupper() else given


def _spread_initials(initials: str) -> str:
    """Vancouver initials printed run together (``ME``, ``R K``) as ``M. E.``, ``R. K.``."""
    return " ".join(f"{c}." for c in initials if not c.isspace())


#: A Vancouver name: surname words, then the initials in capitals without periods
#: (``Raichle ME``, ``Ponce-Alvarez A``, ``O’Malley KF``, ``Sachs R K``).
_VANCOUVER_RE = re.compile(rf"^((?:(?:{_PARTICLES_ALT})\s)*"
                           r"[A-ZÀ-ÞĀ-ſ][\w'’\-]*(?:\s[A-Za-zÀ-ÿ][\w'’\-]+)*)"
                           r"\s([A-ZÀ-ÞĀ-ſ](?:\s?[A-ZÀ-ÞĀ-ſ]){0,2})$")


def _name_piece(piece: str) -> bool:
    """Does a piece read as one name: 1-6 name-like words (letters, broken accents and
    particles in lower case allowed), the last one capitalised (the surname, or
    initials), none a title's word (``of``, ``for``; a group's leading ``the`` aside)?"""
    last = piece[piece.rfind(" ") + 1:]
    return bool(_NAME_PIECE_RE.fullmatch(piece)) and \
        (not last[:1].islower() or bool(_ELIDED_RE.match(last)))


def _inverted(pieces: list[str]) -> bool:
    """``Surname, I.`` order: the second piece (and every other one) is initials only."""
    return len(pieces) >= 2 and bool(_INITIALS_RE.match(pieces[1])) and \
        not _INITIALS_RE.match(pieces[0])


def _surname(name: str) -> _Name:
    """``(surname, given)`` of a name in given-name-first order: the surname its last word
    that is not initials or a suffix (``Jr.``), with its particles (``van Merrienboer``);
    the given names the words before it."""
    words = name.split()
    while words and words[-1].rstrip(".").lower() in _SUFFIXES:
        words.pop()
    if not words:
        return "", ""
    i = len(words) - 1
    for j in range(1, i):   # a lower-case particle before several words: P. van Emde Boas
        if words[j] in _PARTICLES:
            i = j
            break
    else:
        while i > 0 and words[i - 1].lower() in _PARTICLES:
            i -= 1
    given = " ".join(words[:i]).strip(",;")
    if " " in given:   # a letter split from its word: Ł ukasz
        given = _SPLIT_LETTER_RE.sub(r"\1", given)
    return _clean_surname(" ".join(words[i:])), given


#: A capital letter set apart from the rest of its word (``Ł ukasz``, ``Ond rej``).
_SPLIT_LETTER_RE = re.compile(r"\b([A-ZÀ-ÞĀ-ſ]) (?=[a-zß-ÿ]{2,}\b)")


_SUFFIXES = frozenset(("jr", "sr", "ii", "iii"))
_PARTICLES = frozenset(("van", "von", "de", "der", "den", "da", "di", "del", "la", "le",
                        "du", "dos", "ter", "ten"))


def _clean_surname(s: str) -> str:
    return s.strip().strip(".,")


def _first_title(sentences: list[str]) -> tuple[str, list[str]]:
    """``(title, the sentences after it)`` from an entry's sentences after its names and
    year: the first sentence ('' when it does not read as a title), with the next one as
    its subtitle when it ends in a question mark and the next reads as no venue, with
    more to follow (``What is important ...? An international comparison of user views.
    BMC Health Serv Res 2005``)."""
    if not sentences:
        return "", []
    title, rest = sentences[0], sentences[1:]
    if title.endswith("?") and len(rest) >= 2 and _title_start(rest[0]) \
            and len(rest[0].split()) >= 3 and not _VENUE_PART_RE.search(rest[0]) \
            and not _abbreviations(rest[0]) and not _DIGIT_RE.search(rest[0]):
        title, rest = f"{title} {rest[0]}", rest[1:]
    title = _tidy_title(_title_sentence(_TITLE_TAIL_RE.sub("", title)))
    return (title if _title_like(title) else ""), rest


#: What follows a book's title after a comma (``Semigroups for Delay Equations, volume 10
#: of Research Notes in Mathematics``): volume, pages, chapter, edition.
_TITLE_TAIL_RE = re.compile(r",\s(?:volume|vol\.|pp\.|pages|chapter|ch\.|no\.)\s?\d+"
                            r"(?:[-–]\d+)?(?:[.,;]|\s+(?:of|in)\b).*$|,\s(?:volume|vol\.|pp\.|"
                            r"pages|chapter|ch\.|no\.)\s?\d+(?:[-–]\d+)?$"
                            r"|,\s(?:\w+\s)?(?:ed|edn|edition)\.?$", re.I)


def _tidy_title(title: str) -> str:
    """A title without quotes and end punctuation, nor a book's volume, pages or edition
    after a comma (:data:`_TITLE_TAIL_RE`), at most 300 characters."""
    if "," in title:
        title = _TITLE_TAIL_RE.sub("", title)
    return title.strip().strip("\"“”'’,.").strip()[:300]


def _title_like(title: str) -> bool:
    """Does a sentence read as a title (3 to 300 characters, some letters, not a venue
    or a page range alone)?"""
    letters = len(title) - len(_NOT_LETTER_RE.findall(title))
    if len(title) < 3 or letters < 3 or letters < 0.5 * len(title):
        return False
    return not _VENUE_WORD_RE.match(title)


_VENUE_WORD_RE = re.compile(r"(in|proceedings|proc|arxiv|preprint|journal)\b", re.I)
_IN_RE = re.compile(r"^\s*(In:?\s+)")
_PAGES_RE = re.compile(r"\d+\s*[–-]\s*\d")
_BEFORE_PAGES_RE = re.compile(r"[,.\s]*(pp\.?|pages?)?\s*$")


def _venue(rest: str) -> str:
    """The venue of the text after the title: leading ``In``, trailing pages, year and
    punctuation removed; '' when nothing is left."""
    v = rest.strip()
    if v.startswith("In"):
        v = _IN_RE.sub("", v)
    if pages := _PAGES_RE.search(v):   # the first page range and all after it
        v = _BEFORE_PAGES_RE.sub("", v[:pages.start()])
    v = " ".join(_YEAR_RE.sub("", v).split()).strip(" ,.;:()")
    return v[:200] if len(v) - len(_NOT_LETTER_RE.findall(v)) >= 2 else ""


def read_references(blocks: Sequence[RefBlock]) -> list[Reference]:
    """A document's reference entries, parsed, from the blocks of its reference sections in
    reading order (see :func:`split_entries`, :func:`parse_entry`). An entry that repeats
    the authors of the one before it without printing them (``(1982a), Title``) takes
    theirs."""
    out: list[Reference] = []
    for i, (page, label, text) in enumerate(split_entries(blocks)):
        ref = parse_entry(text, page, i, label)
        if out and not ref.authors and out[-1].authors and _DITTO_RE.match(text):
            ref = _same_authors(ref, out[-1])
        out.append(ref)
    return out


def _same_authors(ref: Reference, before: Reference) -> Reference:
    """``ref`` with the authors of ``before`` (and a label made of them and its year when
    the list prints none)."""
    label = ref.label or (_author_year_label(before.authors, ref.year) if ref.year else "")
    return replace(ref, authors=before.authors, given=before.given, et_al=before.et_al,
                   label=label)
