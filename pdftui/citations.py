"""Citation links: which reference entries of a folder's documents are documents of the
same folder.

An entry is a document (a *work*: preprint and published version, arXiv v5 and v7 alike)
when, in order (:func:`matches`):

1. its arXiv id (version dropped) or DOI equals the document's; or
2. its title is the document's title (:func:`same_title`: equal after normalising, or a
   :class:`difflib.SequenceMatcher` ratio >= :data:`TITLE_RATIO`; when the entry's title was
   not read, the document's whole title inside the entry's text), AND its first author's
   surname is the document's first author's, AND its year lies within one year of the
   document's (or of its arXiv id's year, the preprint's; up to :data:`LATER_YEARS` after
   it for an exactly equal title, a journal version); or
3. the same first author and the same year, and both titles open with the same
   :data:`OPENING_WORDS` words (a report cited under its working title).

A follow-up or another paper by the same authors has another title, so it is not matched;
a document whose title is shorter than :data:`MIN_TITLE_WORDS` words is matched by
identifier only. Precision is preferred over recall: every condition must hold.

Pure functions over :class:`Target` and :class:`pdftui.references.Reference` values; the
index step that stores links incrementally is :mod:`pdftui.index.citations`.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .references import Reference

#: Version of the matching rule: part of each document's fingerprint, so a change re-links.
MATCHER_VERSION = 1
#: Least SequenceMatcher ratio of two normalised titles that are one title.
TITLE_RATIO = 0.92
#: A document title with fewer words is matched by arXiv id or DOI only.
MIN_TITLE_WORDS = 3
#: An entry whose title equals a document's exactly may be dated this many years after it
#: (the journal version of a preprint: Shor's factoring paper, 1995 and 1997).
LATER_YEARS = 3
#: Two titles that differ but share this many opening words, with the same first author
#: and the same year, are one work (a report cited under its working title).
OPENING_WORDS = 3
#: Characters of an entry's raw text searched for a document's title.
RAW_CHARS = 800


@dataclass(frozen=True, slots=True)
class Target:
    """A document of the folder as matching reads it: content id, title, authors (names
    in printed order), year, arXiv id (no version), DOI."""

    content_id: int
    title: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    arxiv_id: str = ""
    doi: str = ""

    def fingerprint(self, references_version: int) -> str:
        """What matching reads of this document, as one string (a change re-links it)."""
        first = self.authors[0] if self.authors else ""
        return "|".join(str(x) for x in (MATCHER_VERSION, references_version, self.title,
                                          first, self.year, self.arxiv_id, self.doi))


_WORD_RE = re.compile(r"[a-z0-9]+")
#: Latin letters Unicode does not decompose into a base letter and an accent.
_LETTERS = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D",
                          "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ı": "i"})
_COMBINING_RE = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def norm(s: str) -> str:
    """``s`` lower-cased, accents removed, every run of characters other than ASCII
    letters and digits one space."""
    if not s.isascii():
        s = _COMBINING_RE.sub("", unicodedata.normalize("NFKD", s.translate(_LETTERS)))
    return " ".join(_WORD_RE.findall(s.lower()))


def surname_key(name: str) -> str:
    """The last word of a name or surname, normalised (``Bart van Merriënboer`` and ``van
    Merrienboer`` -> ``merrienboer``)."""
    words = norm(name).split()
    return words[-1] if words else ""


def _bare_arxiv(arxiv_id: str) -> str:
    return re.sub(r"v\d+$", "", arxiv_id.strip().lower())


def _arxiv_year(arxiv_id: str) -> int | None:
    m = re.search(r"(\d{2})\d{2}(?:\.\d{4,5}|\d{3})$", arxiv_id)
    if not m:
        return None
    yy = int(m.group(1))
    return 1900 + yy if yy >= 91 else 2000 + yy


@dataclass(slots=True)
class TargetIndex:
    """Documents looked up by arXiv id, DOI and the first two words of their title
    (``first_words``: the first words of those, so that an entry's text is looked up at
    them only)."""

    by_arxiv: dict[str, list[Target]] = field(default_factory=dict)
    by_doi: dict[str, list[Target]] = field(default_factory=dict)
    by_start: dict[str, list[Target]] = field(default_factory=dict)
    titles: dict[int, str] = field(default_factory=dict)
    first_words: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, targets: Iterable[Target]) -> TargetIndex:
        """The index of ``targets``."""
        out = cls()
        for t in targets:
            if t.arxiv_id:
                out.by_arxiv.setdefault(_bare_arxiv(t.arxiv_id), []).append(t)
            if t.doi:
                out.by_doi.setdefault(t.doi.lower(), []).append(t)
            words = norm(t.title).split()
            if len(words) >= MIN_TITLE_WORDS:
                out.titles[t.content_id] = " ".join(words)
                out.by_start.setdefault(" ".join(words[:2]), []).append(t)
                out.first_words.add(words[0])
        return out


def matches(ref: Reference, index: TargetIndex) -> list[int]:
    """Content ids of the documents in ``index`` that entry ``ref`` cites (see the module
    doc), sorted; [] when none."""
    found: set[int] = set()
    if ref.arxiv_id:
        found.update(t.content_id for t in index.by_arxiv.get(_bare_arxiv(ref.arxiv_id), ()))
    if ref.doi:
        found.update(t.content_id for t in index.by_doi.get(ref.doi.lower(), ()))
    raw = norm(ref.raw[:RAW_CHARS])
    words = raw.split()
    first = index.first_words
    starts = {f"{w} {words[i + 1]}" for i, w in enumerate(words[:-1]) if w in first}
    for start in starts:
        for t in index.by_start.get(start, ()):
            if t.content_id not in found and _same_work(ref, raw, t, index.titles[t.content_id]):
                found.add(t.content_id)
    return sorted(found)


def _same_work(ref: Reference, raw: str, t: Target, title: str) -> bool:
    """Title, first author and year agree (module doc, rule 2)."""
    if ref.arxiv_id and t.arxiv_id and _bare_arxiv(ref.arxiv_id) != _bare_arxiv(t.arxiv_id):
        return False   # both name an arXiv id, and another one
    if not _same_first_author(ref, raw, t):
        return False
    if same_title(ref.title, raw, title):
        later = LATER_YEARS if norm(ref.title) == title else 1
        return _year_agrees(ref.year, t, later)
    return _same_opening(ref.title, title) and ref.year is not None and ref.year == t.year


def same_title(entry_title: str, entry_raw: str, title: str) -> bool:
    """Is ``title`` (normalised) the entry's title (its parsed title, else a whole-word
    part of its normalised text ``entry_raw``)?"""
    if entry_title:
        e = norm(entry_title)
        if e == title:
            return True
        return difflib.SequenceMatcher(None, e, title, autojunk=False).ratio() >= TITLE_RATIO
    return f" {title} " in f" {entry_raw} "


def _same_opening(entry_title: str, title: str) -> bool:
    """Do two titles of at least :data:`OPENING_WORDS` + 2 words share their first
    :data:`OPENING_WORDS` words (a report cited under its working title: "Improving
    language understanding with unsupervised learning")?"""
    e, t = norm(entry_title).split(), title.split()
    n = OPENING_WORDS
    return len(e) >= n + 2 and len(t) >= n + 2 and e[:n] == t[:n]


def _same_first_author(ref: Reference, raw: str, t: Target) -> bool:
    """The entry's first surname is the document's first author's (when the entry's
    authors were not read: that surname opens the entry's text)."""
    if not t.authors:
        return False
    want = surname_key(t.authors[0])
    if not want:
        return False
    if ref.authors:
        return surname_key(ref.authors[0]) == want
    return want in raw.split()[:4]


def _year_agrees(year: int | None, t: Target, later: int = 1) -> bool:
    """Is ``year`` from one before the document's (or its arXiv id's) year to ``later``
    years after it (None on either side agrees: a missing year is no evidence against)?"""
    years = [y for y in (t.year, _arxiv_year(t.arxiv_id)) if y]
    if year is None or not years:
        return True
    return min(years) - 1 <= year <= max(years) + later


def link(entries: dict[int, Sequence[Reference]], index: TargetIndex
         ) -> list[tuple[int, int, int]]:
    """``[(citing content, ordinal, cited content)]`` for every entry of ``entries``
    (``{citing content: entries}``) that is a document of ``index``; an entry never links
    to the document it belongs to."""
    out: list[tuple[int, int, int]] = []
    for citing, refs in entries.items():
        for ref in refs:
            out.extend((citing, ref.ordinal, cited) for cited in matches(ref, index)
                       if cited != citing)
    return out
