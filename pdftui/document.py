"""Plain data shapes that flow from extraction to the cache, sections and search.

Nothing here touches PyMuPDF, SQLite or Textual; every other module shares these shapes.
Pages are 1-based everywhere. Coordinates are PDF points (1/72 inch) in the page's
unrotated space, origin top-left, as PyMuPDF reports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
    or the font name carries a bold suffix (``-Bold``, ``.B``, ``Bold``...).
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


@dataclass(slots=True)
class Page:
    """One page: 1-based ``number``, printed ``label`` ('' when the PDF has no labels).

    ``ocr`` is true when the page had no text layer and its text was recognised from its
    image (Tesseract): the words may hold recognition errors.
    """

    number: int
    label: str
    text: str
    blocks: list[Block] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    width: float = 0.0
    height: float = 0.0
    ocr: bool = False


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
    outrank its subsections by containing their words.
    """

    ordinal: int
    level: int
    title: str
    path: str
    start_page: int
    start_block: int
    end_page: int
    end_block: int
    text: str
    source: str
    own_chars: int = -1

    @property
    def own_text(self) -> str:
        """The section's text before its first subsection (all of it when ``own_chars`` < 0)."""
        return self.text if self.own_chars < 0 else self.text[: self.own_chars]


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
