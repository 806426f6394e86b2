"""What the reader shows: a :class:`ReadRequest` (a page or a section of a document) is
read from the cache into a :class:`ReadView` (its paragraphs, the target paragraph of a
hit, the sections and where each paragraph sits). Runs in the reader's worker thread: no
Textual here.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field, replace

from ..document import Section
from ..furniture import tidy
from ..preformat import keep_lines, paragraph_positions
from ..text import clean_text
from .render import count_matches


def _collapse(s: str) -> str:
    return " ".join(clean_text(s).split())


#: The shorter start of an excerpt looked for when its first 80 characters are not found.
SHORT_PROBE = 40


def _find_probe(flat: list[str], probe: str) -> int | None:
    """The paragraph of ``flat`` (collapsed) that starts with ``probe``, else holds it,
    else where it begins when it crosses a paragraph break; None when absent."""
    for i, p in enumerate(flat):
        if p.startswith(probe):
            return i
    for i, p in enumerate(flat):
        if probe in p:
            return i
    joined, starts, at = [], [], 0
    for p in flat:
        starts.append(at)
        joined.append(p)
        at += len(p) + 1
    found = " ".join(joined).find(probe)
    return bisect.bisect_right(starts, found) - 1 if found >= 0 else None


def find_target(paragraphs: list[str], excerpt: str = "",
                pattern: re.Pattern[str] | None = None) -> int | None:
    """Index of the paragraph that holds ``excerpt`` (a hit's block; an excerpt that runs
    on into the next paragraph: the one it starts in), else of the first paragraph with
    the most query matches, else None."""
    key = _collapse(excerpt).strip().strip("…").strip()   # a centred excerpt opens with …
    flat = [_collapse(p) for p in paragraphs] if key else []
    # its first 80 characters, then its first 40 (a reference entry whose page text
    # breaks a word across lines: "Al-" / "berti" for "Alberti")
    for probe in dict.fromkeys((key[:80], key[:SHORT_PROBE])) if key else ():
        found = _find_probe(flat, probe)
        if found is not None:
            return found
    if pattern is not None:
        counts = [count_matches(p, pattern) for p in paragraphs]
        if counts and max(counts) > 0:
            return counts.index(max(counts))
    return None


def heading_starts(view: "ReadView") -> dict[int, str]:
    """Paragraph index -> the title of the section that begins at that paragraph (its
    start block), for the paragraphs of ``view`` whose (page, block) is known."""
    starts = {(s.start_page, s.start_block): s.title or "" for s in view.sections}
    if view.request.kind == "section":
        positions = view.para_pos or []
    else:
        positions = [(view.page, b) for b in range(len(view.paragraphs))]
    return {i: starts[pos] for i, pos in enumerate(positions) if pos in starts}


@dataclass
class ReadRequest:
    """What to show: a page (``kind="page"``) or a section (``kind="section"``)."""

    doc: str
    kind: str = "page"
    page: int = 1
    excerpt: str = ""
    section_id: int | None = None
    block: int | None = None
    scroll: str = "target"  # "target", "top", "bottom", "before" (see ``before``) or
    #                          "offset" (``offset`` lines from the top: a resumed session)
    before: int | None = None  # section id: end the screen where this subsection starts
    offset: int = 0


@dataclass
class ReadView:
    """A loaded page or section, ready to render."""

    request: ReadRequest
    title: str
    pages: int
    page: int
    label: str
    start_page: int
    end_page: int
    paragraphs: list[str]
    target: int | None
    section_path: str = ""
    section_id: int | None = None
    sections: list[Section] = field(default_factory=list)  # in document order, no text
    note: str = ""
    stop: int | None = None  # paragraph where ``request.before`` starts (None: not found)
    para_pos: list[tuple[int, int]] | None = None  # section view: (page, block) of each
    home_section: tuple[int | None, str] = (None, "")  # (id, path) of the target's section
    ocr: bool = False  # some of the text shown was recognised by OCR from a scan
    target_box: tuple[int, tuple[float, float, float, float]] | None = None  # (page, rect)
    labels: list[str] = field(default_factory=list)  # printed page labels, page 1 first
    hidden: dict[int, str] = field(default_factory=dict)  # paragraph -> hidden text kind

    def __post_init__(self) -> None:
        self.home_section = (self.section_id, self.section_path)


def load_view(lib, req: ReadRequest, pattern: re.Pattern[str] | None) -> ReadView:
    """Read what ``req`` asks for from a :class:`pdftui.library.Library` (worker thread):
    its section (a section request whose section is found), else its page."""
    doc = req.doc
    pages = lib.page_count(doc)
    page = max(1, min(req.page, pages or 1))
    note = ""
    if req.kind == "section":
        sec = _requested_section(lib, req, page, pattern)
        if sec is not None:
            return _section_view(lib, req, sec, pages, page, pattern)
        note = "no section holds this page; showing the page"
        req = replace(req, kind="page")
    return _page_view(lib, req, pages, page, pattern, note)


def _requested_section(lib, req: ReadRequest, page: int, pattern: re.Pattern[str] | None):
    """The section ``req`` names (by id), else the one holding its target block on
    ``page``; None when no section holds it."""
    if req.section_id is not None:
        return lib.section(req.doc, req.section_id)
    block = req.block
    if block is None:
        blocks = [b[4] for b in lib.blocks(req.doc, page)]
        block = find_target(blocks, req.excerpt, pattern) or 0
    return lib.section_at(req.doc, page, block)


def _section_view(lib, req: ReadRequest, sec, pages: int, page: int,
                  pattern: re.Pattern[str] | None) -> ReadView:
    """The view of section ``sec``: its paragraphs, the target paragraph (the block the
    page view was on, else the excerpt's), where a subsection's text begins
    (``req.before``) and the target's box on its page."""
    doc = req.doc
    sections = lib.sections(doc)
    paragraphs = [p for p in sec.text.split("\n\n") if p.strip()] or [sec.text]
    para_pos = paragraph_positions(lib, doc, sec.section_id, sections, len(paragraphs))
    paragraphs = keep_lines(lib, doc, paragraphs, para_pos)
    if para_pos:   # without running heads and page numbers, a cut paragraph joined
        paragraphs, para_pos = tidy(paragraphs, para_pos, lib.furniture(doc))
    target = None
    if req.block is not None and para_pos and (req.page, req.block) in para_pos:
        target = para_pos.index((req.page, req.block))  # where the page view was
    if target is None:
        target = find_target(paragraphs, req.excerpt, pattern)
    stop = None
    if req.before is not None:
        # the subsection's heading paragraph, after the parent's own text
        child = lib.section(doc, req.before).text.split("\n\n")[0].strip()
        stop = next((k for k in range(1, len(paragraphs))
                     if paragraphs[k].strip() == child), None)
    box = None
    if para_pos and target is not None and 0 <= target < len(para_pos):
        bpage, bno = para_pos[target]
        rows = lib.blocks(doc, bpage)
        box = (bpage, tuple(rows[bno][:4])) if bno < len(rows) else None
    hidden = _hidden_paragraphs(lib, doc, sec.start_page, sec.end_page, para_pos or [])
    return ReadView(req, lib.title(doc), pages, page, lib.page_label(doc, page),
                    sec.start_page, sec.end_page, paragraphs, target, sec.path,
                    sec.section_id, sections, stop=stop, para_pos=para_pos,
                    ocr=sec.ocr, target_box=box, labels=lib.page_labels(doc), hidden=hidden)


def _hidden_paragraphs(lib, doc: str, first: int, last: int,
                       positions: list[tuple[int, int]]) -> dict[int, str]:
    """``{paragraph index: hidden kind}`` of the paragraphs at ``positions`` ((page,
    block) of each) that are hidden text blocks of pages ``first``..``last``."""
    kinds = {(h.page, h.block): h.kind for h in lib.hidden(doc, first, last)
             if h.block is not None}
    if not kinds:
        return {}
    return {i: kinds[pos] for i, pos in enumerate(positions) if pos in kinds}


def _page_view(lib, req: ReadRequest, pages: int, page: int,
               pattern: re.Pattern[str] | None, note: str) -> ReadView:
    """The view of ``page``: its blocks (its text's paragraphs when it has none), the
    target block (``req.block``, else the excerpt's) and the section holding it."""
    doc = req.doc
    rows = lib.blocks(doc, page)
    blocks = [b[4] for b in rows]
    paragraphs = blocks or [p for p in lib.page(doc, page).text.split("\n\n") if p.strip()]
    target = req.block if req.block is not None and req.block < len(paragraphs) else \
        find_target(paragraphs, req.excerpt, pattern)
    if blocks:
        paragraphs = keep_lines(lib, doc, paragraphs, [(page, b) for b in range(len(blocks))])
    sec = lib.section_at(doc, page, target or 0)
    box = (page, tuple(rows[target][:4])) if rows and target is not None \
        and 0 <= target < len(rows) else None
    hidden = _hidden_paragraphs(lib, doc, page, page,
                                [(page, b) for b in range(len(blocks))])
    return ReadView(req, lib.title(doc), pages, page, lib.page_label(doc, page), page, page,
                    paragraphs, target, sec.path if sec else "",
                    sec.section_id if sec else None, lib.sections(doc), note,
                    ocr=lib.ocr_in(lib.content_id(doc), page, page),
                    target_box=box, labels=lib.page_labels(doc), hidden=hidden)



#: A block of fewer words is a heading, a figure's label or an axis tick, not a passage a
#: clip should take; and how many blocks on a clip looks for the paragraph after it.
CLIP_MIN_WORDS = 8
CLIP_LOOKAHEAD = 12


def prose_from(paragraphs: list[str], index: int) -> int:
    """``index``, or the first block after it (within :data:`CLIP_LOOKAHEAD`) holding at
    least :data:`CLIP_MIN_WORDS` words when ``paragraphs[index]`` is shorter: a heading
    ("2.2 Choosing a Value") or a figure's labels ("GFS master", "60") at the top of the
    screen clip the paragraph that follows them. ``index`` itself when none is longer."""
    for j in range(index, min(len(paragraphs), index + CLIP_LOOKAHEAD)):
        if len(paragraphs[j].split()) >= CLIP_MIN_WORDS:
            return j
    return index

