"""The data of the reference parser: a stored block of a reference section
(:class:`RefBlock`), one parsed entry (:class:`Reference`), the parser's version and the
limits that bound its work on hostile text."""

from __future__ import annotations

from dataclasses import dataclass


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
