"""Reference entries: a document's reference list split into entries, each parsed into
fields (authors' surnames, year, title, venue, arXiv id, DOI) with its page and printed
label.

Input is the stored blocks of the sections titled "References" / "Bibliography"
(:func:`is_reference_heading`), in reading order, so no PDF is
read again. Splitting (:func:`split_entries`) knows three styles:

- labelled: each entry opens with ``[12]``, ``[Vas+17]`` or ``12.`` (most of a list's
  blocks do);
- hanging indent: an entry's first line sits at its column's left edge and the lines after
  it are indented (the blocks of one column compared by their left ``x0``);
- one block per entry: neither of the above; a block that opens in lower case or follows a
  hyphen continues the entry before it.

Fields (:func:`parse_entry`) come from the usual shapes ``Authors. Year. Title. Venue.``,
``Authors (Year). Title. Venue.``, ``Authors. Title. Venue, Year.`` and
``Authors, "Title," Venue, Year``; an entry none of them fits keeps its raw text and no
field that was not read (no invented title or author). Work is bounded on hostile text:
at most :data:`MAX_ENTRIES` entries per document, each parsed on its first
:data:`PARSE_CHARS` characters and stored up to :data:`MAX_RAW_CHARS`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from .metadata import clean_doi, fix_accents
from .text import clean_text

#: The parser's version: a content whose stored entries were read by another is read again
#: from its stored blocks (no PDF is opened).
REFERENCES_VERSION = 5
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

    @property
    def first_author(self) -> str:
        """The first author's surname ('' when not read)."""
        return self.authors[0] if self.authors else ""

    def to_json(self) -> dict:
        """The entry's fields as the CLI's ``--json`` prints them (without ``match``)."""
        return {"page": self.page, "label": self.label, "raw": self.raw,
                "authors": list(self.authors), "year": self.year, "title": self.title,
                "venue": self.venue, "arxiv_id": self.arxiv_id, "doi": self.doi}


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


_G_CAP = "A-ZÀ-ÞŁŚŻØ"
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
    aside, at the edge of another page."""
    edges: dict[int, list[int]] = {}   # page -> indices of its first and last blocks
    for i, b in enumerate(lines):
        if not b.inner:
            got = edges.setdefault(b.page, [i, i])
            got[1] = i
    pages: dict[str, set[int]] = {}
    for page, ends in edges.items():
        for i in set(ends):
            if len(lines[i].text) <= 160:
                pages.setdefault(_DIGITS_RE.sub("", lines[i].text), set()).add(page)
    running = {k for k, p in pages.items() if len(p) >= 2}
    drop = {i for ends in edges.values() for i in set(ends)
            if _DIGITS_RE.sub("", lines[i].text) in running}
    if not drop:
        return lines
    out: list[_Line] = []
    skip = False
    for i, b in enumerate(lines):
        if not b.inner:
            skip = i in drop
        if not skip:
            out.append(b)
    return out


_DIGITS_RE = re.compile(r"\d+")


def _style(lines: list[_Line]) -> str:
    """"bracket", "number" or "indent": the label style a fifth of the list's first 40
    blocks open with."""
    head = [b for b in lines if not b.inner][:40]   # the list's start, before any figure
    n = len(head)
    brackets = sum(1 for b in lines[:200] if _BRACKET_RE.match(b.text)
                   or _RUN_IN_RE.search(b.text))
    numbers = sum(1 for b in head if _NUMBER_RE.match(b.text))
    first = _BRACKET_RE.match(lines[0].text)
    if brackets >= max(2, 0.2 * n) or (first and first.group(1) == "1"):
        return "bracket"
    if numbers >= max(2, 0.2 * n) and _sequential(lines):
        return "number"
    return "indent"


def _sequential(lines: list[_Line]) -> bool:
    """Do the ``12.`` labels (opening a line or run in after a sentence) mostly count up by
    one (a numbered list, not years or pages)?"""
    nums: list[int] = []
    for b in lines[:200]:
        if m := _NUMBER_RE.match(b.text):
            nums.append(int(m.group(1)))
        nums += [int(r.group(1)) for r in _RUN_IN_NUMBER_RE.finditer(b.text)]
    ups = sum(1 for a, b in zip(nums, nums[1:]) if b == a + 1)
    return ups >= 0.6 * max(1, len(nums) - 1)


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


_RUN_IN_NUMBER_RE = re.compile(r"(?<=[.;)]\s)(\d{1,4})\.\s(?=[A-ZÀ-ÞŁŚŻ])")


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
        if b.inner:
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
_AY_NAME = r"[A-ZÀ-ÞŁŚŻ][\w'’€\-]+(?:\s[A-ZÀ-ÞŁŚŻ][\w'’€\-]+)?"
_AY_INITS = r"(?:[A-Z]\.\s?-?)+[A-Z]?\.?"
_AUTHOR_YEAR_START_RE = re.compile(
    rf"(?<=[.)]\s)(?=(?:{_AY_NAME},\s{_AY_INITS},?\s(?:and\s|&\s)?)+(?:et\sal\.,?\s)?"
    rf"\(?(?:19|20)\d\d[a-z]?\)?[.,]"
    rf"|(?:{_AY_NAME},\s{_AY_INITS},\s?)+(?:{_AY_NAME},?)?\s*$)")


def _run_in_author_year(text: str) -> list[str]:
    """``text`` cut before each author-year entry that starts inside it (one piece when
    none does)."""
    return _cut_at(_AUTHOR_YEAR_START_RE, text)


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


def _continues(before: str, text: str) -> bool:
    """Does a block continue the entry whose last line is ``before``?"""
    if not before:
        return False
    return (text[:1].islower() or before.endswith(("-", ",", "and", "&", ":"))
            or not before.endswith((".", ")", "]")) and not before[-1:].isdigit())


_HYPHEN_RE = re.compile(r"(?<=[a-z])-$")


def _join(lines: list[str]) -> str:
    """An entry's lines as one string: a line ending in a hyphen after a lower-case letter
    joins the next line's lower-case word without it (``rep-`` + ``resentations``)."""
    out = ""
    for line in lines:
        if out.endswith("-") and _HYPHEN_RE.search(out) and line[:1].islower():
            out = out[:-1] + line
        else:
            out = f"{out} {line}" if out else line
    out = " ".join(out.split())
    return out[:MAX_RAW_CHARS]


# ----------------------------------------------------------------------------- fields
_ARXIV_RE = re.compile(r"(?:arXiv[:\s]*|arxiv\.org/(?:abs|pdf)/|abs/|CoRR[,\s]+abs/)"
                       r"(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?", re.I)
_DOI_RE = re.compile(r"(?:doi[:\s]*|doi\.org/)?\b(10\.\d{4,9}/[^\s\"<>]+)", re.I)
_YEAR_RE = re.compile(r"(?<![\d./:])((?:1[89]\d|20[0-3])\d)([a-z]?)(?![\d/])")
_QUOTED_RE = re.compile(r"[\"“”‘’'`]{1,2}(.{8,300}?)[,.]?[\"“”’']{1,2}")
_URL_RE = re.compile(r"https?://\S+|www\.\S+")
_DIGIT_RE = re.compile(r"\d")
_NOT_LETTER_RE = re.compile(r"[\W\d_]")
#: Words after which a period does not end a sentence of an entry.
_ABBREV = frozenset("""vol no pp proc conf int intl eds ed trans j univ dept inc ltd
jr sr st dr mr ms vs cf fig eq sec ch nat acad sci natl assoc comput mach ieee acm adv
eng soc phys rev lett math stat appl res lab tech rep""".split())
_NAME_WORD_RE = re.compile(r"^[A-ZÀ-ÞŁŚŻ][\w'’.\-]*$|^(van|von|de|der|den|da|di|del|la|le|"
                           r"du|dos|das|ter|ten|al|bin|ibn|y|and|&|et|al\.|others)$", re.I)
_INITIALS_RE = re.compile(r"^(?:[A-Z]\.?-?\s?){1,4}$")


def parse_entry(text: str, page: int, ordinal: int = 0, label: str = "") -> Reference:
    """One entry's fields from its text (see the module doc for the shapes read). Fields
    not found are left empty; the label, when the list printed none, is made from the
    first author and year (``Vaswani et al., 2017``) once both are read."""
    raw = text[:MAX_RAW_CHARS]
    body = _join_broken_doi(_normal_text(raw[:PARSE_CHARS]))
    arxiv = _arxiv(body)
    doi = _doi(body)
    authors, year, title, venue = _shape(body)
    if not label and authors and year:
        label = _author_year_label(authors, year)
    return Reference(ordinal, page, label, raw, tuple(authors), year, title, venue, arxiv, doi)


#: A combining accent set apart from its letter by a space (``C ́el ́erier``: the mark
#: printed before the letter it sits on); moved after that letter so NFC composes them.
_LOOSE_MARK_RE = re.compile(r"\s([\u0300-\u036f])([^\W\d_])")
#: ``€`` between letters: how some PDFs set an umlaut (``Sch€onauer``); the diaeresis.
_EURO_UMLAUT_RE = re.compile(r"(?<=[^\W\d_])€([aeiouAEIOU])")


def _normal_text(text: str) -> str:
    """``text`` with its accents joined to their letters (NFC; see :data:`_LOOSE_MARK_RE`,
    :data:`_EURO_UMLAUT_RE`, :func:`fix_accents`); ASCII text without a backquote (the one
    ASCII spacing accent) is returned as it is."""
    if text.isascii():
        return fix_accents(text) if "`" in text else text
    text = _LOOSE_MARK_RE.sub(r"\2\1", text)
    if "€" in text:
        text = _EURO_UMLAUT_RE.sub(lambda m: m.group(1) + "\u0308", text)
    return fix_accents(unicodedata.normalize("NFC", text))


def _arxiv(text: str) -> str:
    low = text.lower()
    if "arxiv" not in low and "abs/" not in low:   # all that _ARXIV_RE can match
        return ""
    m = _ARXIV_RE.search(text)
    return m.group(1) if m else ""


#: A DOI that ends the entry, broken after one of its dots at a line end
#: (``10.48550/arXiv. 1912.01703.``): the part after the break is not a bare year.
_BROKEN_DOI_RE = re.compile(
    r"(10\.\d{4,9}/\S*?\.)\s+(?!(?:1[89]|20)\d\d\.?\s*$)([\w./\-]+)\s*$")


def _join_broken_doi(text: str) -> str:
    """``text`` with a DOI broken at a line end after a dot joined again, when what
    follows the break runs to the end of the entry (see :data:`_BROKEN_DOI_RE`)."""
    if "10." not in text:
        return text
    return _BROKEN_DOI_RE.sub(r"\1\2", text)


def _doi(text: str) -> str:
    if "10." not in text:
        return ""
    for m in _DOI_RE.finditer(text):
        if doi := clean_doi(m.group(1)):
            return doi
    return ""


def _author_year_label(authors: list[str], year: int) -> str:
    if len(authors) == 1:
        return f"{authors[0]}, {year}"
    if len(authors) == 2:
        return f"{authors[0]} and {authors[1]}, {year}"
    return f"{authors[0]} et al., {year}"


def _shape(body: str) -> tuple[list[str], int | None, str, str]:
    """``(surnames, year, title, venue)`` of an entry's text, empty where not read."""
    text = _URL_RE.sub(" ", body) if "http" in body or "www." in body else body
    years = [m for m in _YEAR_RE.finditer(text) if not _in_id(text, m.start())]
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
    if year is None and years:
        year = int(years[-1].group(1))
    title = _tidy_title(rest[0]) if rest else ""
    if title and not _title_like(title):
        title = ""
    venue = _venue(" ".join(rest[1:])) if title else ""
    return authors, year, title, venue


_PARTICLE = r"(?:(?:van|von|de|der|den|da|di|del|la|le|du|dos|ter|ten)\s+)*"
_SURNAME = _PARTICLE + r"[A-ZÀ-ÞŁŚŻ][\w'’\-]+"
_CAP = "A-ZÀ-ÞŁŚŻ"
_INITS = f"(?:[{_CAP}](?![\\w’'])\\.?\\s?-?\\s?)*[{_CAP}](?![\\w’'])\\.?"
_ONE = f"({_SURNAME}),\\s+{_INITS}"
_INVERTED_RE = re.compile(
    f"^{_ONE}((?:,\\s+(?:and\\s+|AND\\s+|&\\s+)?{_SURNAME},\\s+{_INITS})*)"
    f"(?:,?\\s+(?:and|AND|&)\\s+{_SURNAME},\\s+{_INITS})?(?:,?\\s+et\\s+al\\.?)?")
_NAME_IN_LIST_RE = re.compile(f"({_SURNAME}),\\s+{_INITS}")
_LEAD_YEAR_RE = re.compile(r"^[\s,.]*\(?((?:1[89]\d|20[0-3])\d)[a-z]?\)?[.,:]?\s+")


def _inverted_prefix(text: str) -> tuple[list[str], str] | None:
    """``(surnames, rest)`` when ``text`` opens with a ``Surname, I.`` author list (``Ba,
    J. L., Kiros, J. R., and Hinton, G. E.``), else None."""
    m = _INVERTED_RE.match(text)
    if not m or "," not in m.group(0):
        return None
    names = [n.group(1) for n in _NAME_IN_LIST_RE.finditer(m.group(0))]
    rest = text[m.end():]
    if not rest[:1] in (".", ",", " ", "(", ":") and rest:
        return None
    return names, rest


def _after_authors(authors: list[str], rest: str, years: list[re.Match]
                   ) -> tuple[list[str], int | None, str, str]:
    """The fields of an entry whose authors are read, from the text after them: an
    optional year, then title sentence, then venue."""
    rest = rest.lstrip(" .,:")
    y = _LEAD_YEAR_RE.match(" " + rest)
    year = int(y.group(1)) if y else (int(years[-1].group(1)) if years else None)
    if y:
        rest = (" " + rest)[y.end():]
    sentences = _sentences(rest)
    lead = None
    if sentences and _is_year(sentences[0]):   # PeerJ: ``Whelan S. 2013. Title.``
        lead = _YEAR_RE.search(sentences.pop(0))
    title = _tidy_title(sentences[0]) if sentences else ""
    if title and not _title_like(title):
        title = ""
    venue = _venue(" ".join(sentences[1:])) if title else ""
    return authors, year, title, venue


_NAMES_YEAR_RE = re.compile(r"^(?P<names>[^()\d]{2,300}?),?\s\(?(?P<year>(?:1[89]\d|20[0-3])\d)"
                            r"[a-z]?\)?[,.]?\s*(?P<rest>.*)$", re.S)
_IN_VENUE_RE = re.compile(r",\s+[Ii]n\s|\.\s+In\s")


def _names_then_year(text: str) -> tuple[list[str], int, str, str] | None:
    """The fields of ``Names (Year), Title, in Venue``, ``Names. Year. Title. Journal``
    and ``Names, Year Journal Volume Page`` (physics, no title): the names and the year;
    the title when an ``in`` marks where it ends, or when a sentence of 3+ words is
    followed by another. None when the text does not open that way."""
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
    else:   # "Title. Journal 30(3):642-653": a title of 3+ words, then more
        sentences = _sentences(rest)
        title, venue = (_tidy_title(sentences[0]), _venue(" ".join(sentences[1:]))) \
            if len(sentences) >= 2 and len(sentences[0].split()) >= 3 else ("", "")
    if not title or not _title_like(title):
        title, venue = "", ""
    return authors, int(m.group("year")), title, venue


def _in_id(text: str, at: int) -> bool:
    """Is position ``at`` inside an arXiv id or DOI (whose digits look like years)?"""
    before = text[max(0, at - 12):at].lower()
    return "10." in before[-8:] or "arxiv" in before or "abs/" in before or "/" in before[-2:]


_PAREN_YEAR_RE = re.compile(r"\(((?:1[89]\d|20[0-3])\d)[a-z]?\)")
_BARE_YEAR_RE = re.compile(r"^\(?((?:1[89]\d|20[0-3])\d)[a-z]?\)?$")


#: A Vancouver author list ending in a period (``Harris JJ, Jolivet R, Attwell D.``,
#: ``Fraiman D, Chialvo DR, et al.``): its last initials' period ends the sentence.
_VANCOUVER_NAME = r"[A-ZÀ-ÞŁŚŻ][\w'’\-]*(?:\s[A-Za-zÀ-ÿ][\w'’\-]+){0,3}\s[A-Z](?:\s?[A-Z]){0,2}"
_VANCOUVER_LIST_RE = re.compile(
    rf"^({_VANCOUVER_NAME}(?:,\s{_VANCOUVER_NAME}){{0,30}}(?:,?\set\sal)?)\.\s+(?=\S)")


def _after_vancouver(authors: list[str], rest: str, years: list[re.Match]
                     ) -> tuple[list[str], int | None, str, str]:
    """``(surnames, year, title, venue)`` of a Vancouver entry after its author list:
    title, then journal, then ``2012;75(5):762-77`` (the year the first after the title)."""
    sentences = _sentences(rest)
    lead = None
    if sentences and _is_year(sentences[0]):   # PeerJ: ``Whelan S. 2013. Title.``
        lead = _YEAR_RE.search(sentences.pop(0))
    title = _tidy_title(sentences[0]) if sentences else ""
    if title and not _title_like(title):
        title = ""
    after = " ".join(sentences[1:])
    later = [m for m in _YEAR_RE.finditer(after) if not _in_id(after, m.start())]
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
    """``N``, ``J.-P`` style initials (the period after them does not end a
    sentence)."""
    return len(word) <= 6 and bool(_INITIAL_RE.fullmatch(word))


_INITIAL_RE = re.compile(r"[A-ZÀ-ÞŁŚŻ](?:\.-?[A-ZÀ-ÞŁŚŻ]){0,2}")


_ET_AL_RE = re.compile(r"\bet\s+al\b\.?|\band others\b|\(eds?\.?\)|\beds?\.$", re.I)
_NAME_SPLIT_RE = re.compile(r",|;|\band\b|&")


def _names(part: str) -> list[str]:
    """Surnames of an author part (``Ba, J. L., Kiros, J. R., and Hinton, G. E`` or
    ``Jimmy Lei Ba, Jamie Ryan Kiros, and Geoffrey E Hinton``); [] when it does not read
    as names."""
    part = part.strip().rstrip(",.;:")
    if not part or len(part) > 600 or len(_DIGIT_RE.findall(part)) > 2:
        return []
    low = part.lower()
    if "et" in low or "other" in low or "ed" in low:   # all that _ET_AL_RE can match
        part = _ET_AL_RE.sub("", part)
    pieces = [p.strip() for p in _NAME_SPLIT_RE.split(part) if p.strip()]
    if not pieces or not all(_name_piece(p) for p in pieces):
        return []
    if _inverted(pieces):
        return [_clean_surname(p) for p in pieces if not _INITIALS_RE.match(p)]
    if all(_VANCOUVER_RE.match(p) for p in pieces):
        return [_clean_surname(_VANCOUVER_RE.match(p).group(1)) for p in pieces]
    return [_surname(p) for p in pieces]


#: A Vancouver name: surname words, then the initials in capitals without periods
#: (``Raichle ME``, ``Ponce-Alvarez A``, ``O’Malley KF``, ``Sachs R K``).
_VANCOUVER_RE = re.compile(r"^([A-ZÀ-ÞŁŚŻ][\w'’\-]*(?:\s[A-Za-zÀ-ÿ][\w'’\-]+)*)"
                           r"\s([A-ZÀ-ÞŁŚŻ](?:\s?[A-ZÀ-ÞŁŚŻ]){0,2})$")


def _name_piece(piece: str) -> bool:
    """Does a piece read as one name: 1-6 name-like words (letters, broken accents and
    particles in lower case allowed), the last one capitalised (the surname, or
    initials)?"""
    words = piece.split()
    return 1 <= len(words) <= 6 and all(_NAME_WORD_RE.match(w) for w in words) and \
        not words[-1][:1].islower()


def _inverted(pieces: list[str]) -> bool:
    """``Surname, I.`` order: the second piece (and every other one) is initials only."""
    return len(pieces) >= 2 and bool(_INITIALS_RE.match(pieces[1])) and \
        not _INITIALS_RE.match(pieces[0])


def _surname(name: str) -> str:
    """The surname of a name in given-name-first order: its last word that is not initials
    or a suffix (``Jr.``), with its particles (``van Merrienboer``)."""
    words = [w for w in name.split() if w.rstrip(".").lower() not in ("jr", "sr", "ii", "iii")]
    if not words:
        return ""
    i = len(words) - 1
    while i > 0 and words[i - 1].lower() in ("van", "von", "de", "der", "den", "da", "di",
                                             "del", "la", "le", "du", "dos", "ter", "ten"):
        i -= 1
    return _clean_surname(" ".join(words[i:]))


def _clean_surname(s: str) -> str:
    return s.strip().strip(".,")


def _tidy_title(title: str) -> str:
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
    reading order (see :func:`split_entries`, :func:`parse_entry`)."""
    return [parse_entry(text, page, i, label)
            for i, (page, label, text) in enumerate(split_entries(blocks))]
