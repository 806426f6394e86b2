"""Plain data shapes that flow from extraction to the cache, sections and search.

Nothing here touches PyMuPDF, SQLite or Textual; every other module shares these shapes.
Pages are 1-based everywhere. Coordinates are PDF points (1/72 inch) in the page's
unrotated space, origin top-left, as PyMuPDF reports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace


@dataclass(slots=True)
class Block:
    """A paragraph-sized text block of one page, in reading order.

    ``text`` is normalised (NFKC, soft hyphens removed, line-end hyphenation joined,
    control characters stripped); lines inside the block are joined by single spaces.
    """

    text: str
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(slots=True)
class Line:
    """One visual line with its dominant font, used only by the heading detector.

    Not stored in the cache. ``block`` is the index of the enclosing :class:`Block` in
    ``Page.blocks``; ``size`` is in points; ``bold`` is true when the span flags say bold
    or the font name carries a bold suffix (``-Bold``, ``.B``, ``Bold``...); ``lead`` is
    the line's run-in lead: its opening words set bold or italic before plain text on the
    same line ("Residual Dropout." of "Residual Dropout. We apply ..."), else ''; ``lead_bold``
    whether that lead is set bold (else italic); ``face_lead``
    its opening words set in another face than the plain text after them, neither bold
    nor italic ("Background" of "Background Recent guidelines ...", in the face of the
    journal's headings), and ``face_lead_font`` that face, else ''.
    """

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    font: str
    size: float
    bold: bool
    block: int
    lead: str = ""
    lead_bold: bool = False
    face_lead: str = ""
    face_lead_font: str = ""


@dataclass(slots=True)
class HiddenText:
    """A run of text on a page that a reader cannot see (:mod:`pdftui.hidden_text`).

    ``kind`` is a :class:`pdftui.hidden_text.HiddenKind` value ("invisible", "tiny",
    "background", "off-page"); ``text`` normalised as a block's; ``block`` the index of the
    page block holding it (hidden runs are the page's last blocks), or None when hidden
    text is not indexed (then it is in no block and not in the page text);
    ``instruction`` is true when it reads like an instruction to a machine reader.
    """

    kind: str
    text: str
    block: int | None = None
    instruction: bool = False


@dataclass(slots=True)
class Page:
    """One page: 1-based ``number``, printed ``label`` ('' when the PDF has no labels).

    ``ocr`` is true when the page had no text layer and its text was recognised from its
    image (Tesseract): the words may hold recognition errors. ``hidden`` holds the runs
    of text a reader cannot see (:class:`HiddenText`), in page order.
    """

    number: int
    label: str
    text: str
    blocks: list[Block] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0
    ocr: bool = False
    hidden: list[HiddenText] = field(default_factory=list)


@dataclass(slots=True)
class OutlineEntry:
    """A validated outline (bookmark) entry or a detected heading.

    ``page`` is 1-based and in range; ``y`` is the destination's vertical position in
    points from the top of the page, or None when the PDF does not give one; ``x`` the
    heading's left edge in points (detected headings; None for outline entries), which
    tells the columns of a two-column page apart.
    """

    level: int
    title: str
    page: int
    y: float | None = None
    x: float | None = None


#: A position in a document: (1-based page, block index on that page), ordered as tuples.
Pos = tuple[int, int]


@dataclass(slots=True)
class Section:
    """A contiguous stretch of a document that starts at a heading.

    The section runs from block ``start_block`` of ``start_page`` (inclusive) to block
    ``end_block`` of ``end_page`` (exclusive; ``end_block`` may equal the number of blocks
    on ``end_page`` meaning "to the end of that page"). ``path`` joins the titles of the
    enclosing sections with " > ". ``source`` is "outline" or "detected". ``text`` is the
    whole section, subsections included (what a reader shows); its first ``own_chars``
    characters are the section's *own* text, up to its first subsection's heading (the
    whole text when it has none), which the keyword index ranks so that a parent does not
    outrank its subsections by containing their words. ``id`` is the cache's row id
    (None before the section is stored). Read from the cache for navigation, ``text``
    and ``source`` may be left empty.

    A section is *empty* when its end is not after its start (a heading located at the
    same block as the next heading of its level, e.g. an outline whose entries all point
    at the top of one page). An empty section still holds the rest of its start page
    (:meth:`contains`), so that page is named after it rather than after nothing.
    """

    ordinal: int
    level: int
    title: str
    path: str
    start_page: int
    start_block: int
    end_page: int
    end_block: int
    text: str = ""
    source: str = ""
    own_chars: int = -1
    id: int | None = None

    @property
    def own_text(self) -> str:
        """The section's text before its first subsection (all of it when ``own_chars`` < 0)."""
        return self.text if self.own_chars < 0 else self.text[: self.own_chars]

    @property
    def start(self) -> Pos:
        """``(start_page, start_block)``: the heading's block, inclusive."""
        return (self.start_page, self.start_block)

    @property
    def end(self) -> Pos:
        """``(end_page, end_block)``: the first block after the section (exclusive)."""
        return (self.end_page, self.end_block)

    @property
    def empty(self) -> bool:
        """Does the section end where (or before) it starts?"""
        return self.end <= self.start

    @property
    def last_page(self) -> int:
        """The last page holding the section's text (1-based): the end is exclusive, so
        an end at block 0 of a later page means the section stopped on the page before."""
        return last_page(self.start_page, self.end_page, self.end_block)

    def contains(self, page: int, block: int) -> bool:
        """Does block ``block`` of 1-based ``page`` lie in the section (subsections
        included)? ``start <= (page, block) < end``; an empty section holds the rest of
        its start page (from its start block on)."""
        pos = (page, block)
        if pos < self.start:
            return False
        return pos < self.end or (self.empty and page == self.start_page)

    def own_span(self, following: "Section | None") -> "Section":
        """This section cut where its own text ends: at ``following``'s start (the next
        section in document order) when that lies strictly inside it, i.e. before its
        first subsection; else the section itself."""
        if following is not None and self.start < following.start < self.end:
            return replace(self, end_page=following.start_page,
                           end_block=following.start_block)
        return self

    def to_json(self) -> dict:
        """The section as ``pdftui read --sections --json`` prints it: id, ordinal,
        level, title, path, start_page, start_block, end_page, end_block (exclusive),
        source, last_page."""
        return {"id": self.id, "ordinal": self.ordinal, "level": self.level,
                "title": self.title, "path": self.path, "start_page": self.start_page,
                "start_block": self.start_block, "end_page": self.end_page,
                "end_block": self.end_block, "source": self.source,
                "last_page": self.last_page}


def last_page(start_page: int, end_page: int, end_block: int) -> int:
    """The last page a section from ``start_page`` to the exclusive end (``end_page``,
    ``end_block``) has text on: the page before ``end_page`` when the end is at its block
    0 (and the section started earlier), else ``end_page``."""
    return end_page - 1 if end_block == 0 and end_page > start_page else end_page


def innermost(sections: "Sequence[Section]", page: int, block: int) -> Section | None:
    """The innermost of ``sections`` (in document order: by start, then ordinal) that
    :meth:`~Section.contains` block ``block`` of 1-based ``page``: the latest-starting one
    (a nested section starts after its parent; an empty one yields to a later heading on
    its page). None when none does."""
    pos = (page, block)
    best = None
    for s in sections:
        if s.start > pos:
            break
        if s.contains(page, block):
            best = s
    return best


@dataclass(slots=True)
class Extraction:
    """Everything extracted from one PDF file.

    ``skip_reason`` is None for an indexed document, else a plain reason such as
    "not a PDF", "password protected", "damaged", "0 pages", "empty file",
    "permission denied". ``text_quality`` is "ok", "no text layer" (needs OCR) or
    "unreliable" (garbage text layer); pages are still listed for the last two.
    ``metadata`` holds authors, year, arXiv id and DOI (None when not read).
    A scanned document whose pages were OCR'd is "ok" (its pages say ``ocr``);
    ``ocr_missing`` counts scanned pages left without text that a later index will OCR
    (Tesseract not installed, the OCR budget spent, a busy machine); the document is
    extracted again then. ``ocr_results`` holds each OCR'd page's recognised text
    (``{page: bytes}`` as :func:`pdftui.ocr.encode` makes it), kept in the cache so that a
    later extraction of the same bytes reuses it.
    """

    title: str
    page_count: int
    pages: list[Page] = field(default_factory=list)
    outline: list[OutlineEntry] = field(default_factory=list)
    outline_dropped: int = 0
    sections: list[Section] = field(default_factory=list)
    skip_reason: str | None = None
    text_quality: str = "ok"
    notes: list[str] = field(default_factory=list)
    metadata: "Metadata | None" = None
    ocr_missing: int = 0
    ocr_results: dict[int, bytes] = field(default_factory=dict)
    #: True when hidden text was left out of the page text (``PDFTUI_HIDDEN_TEXT=skip``):
    #: its runs are still in each page's ``hidden``, with no block.
    hidden_skipped: bool = False
    #: True when ``title`` was read from the document (its info dictionary or its first
    #: page), False when its file name stands in.
    title_read: bool = False


@dataclass(slots=True, frozen=True)
class Metadata:
    """Bibliographic metadata of one document (see :mod:`pdftui.metadata`).

    ``authors`` in the order printed; ``year`` the paper's year (None when not found);
    ``arxiv_id`` without version (``1706.03762``, ``quant-ph/9508027``; '' when none);
    ``doi`` as ``10.NNNN/suffix`` ('' when none); ``version`` the
    :data:`pdftui.metadata.METADATA_VERSION` that read it. Empty means not found.
    """

    authors: tuple[str, ...] = ()
    year: int | None = None
    arxiv_id: str = ""
    doi: str = ""
    version: int = 0
