"""A reference list split into entries (:func:`split_entries`), from the stored blocks
of the sections titled "References" / "Bibliography" (:func:`is_reference_heading`) in
reading order.

Running heads and feet of the list's pages are dropped first: a page-edge block
whose text recurs at another page's edge (whole, or opening a block there), or that opens
or ends with its page's number. Splitting knows three styles:

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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..text import clean_text
from .names import _PARTICLES_ALT
from .reference import MAX_ENTRIES, MAX_LIST_CHARS, MAX_RAW_CHARS, RefBlock
from .years import _YEAR_RE


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
