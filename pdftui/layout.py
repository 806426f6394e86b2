"""The blocks of one page in reading order: font-aware blocks, ruled tables, two columns, floats.

MuPDF gives blocks with their lines (text, bbox, font, size, bold); :func:`blocks_from_dict`
keeps them (:func:`blocks_from_blocks` is the cheap pass without fonts), :func:`table_records`
turns each ruled table into one block per row (:mod:`pdftui.tables`), :func:`reading_order`
reads a clearly two-column page column by column (at least 20 % of the characters entirely
left of the midline and 20 % entirely right; bands between full-width blocks), and
:func:`blocks_and_lines` makes the typed :class:`~pdftui.document.Block` /
:class:`~pdftui.document.Line` with normalised text. :func:`merge_continued_blocks` glues a
paragraph continued across a column break, moving a float (a table or figure with its
caption) out of the sentence first (:func:`float_order`). Stage 3-4 of
:mod:`pdftui.extract`'s pipeline.
"""

from __future__ import annotations

import re

from pdftui import tables as table_rows
from pdftui.document import Block, Line
from pdftui.page_text import join_lines, normalize_text

_TERMINAL = ".!?:;\u2026\"'\u201d\u2019)]"
CONTINUATION_MIN_CHARS = 80
"""A block this long (or longer) whose text stops mid-sentence may continue in the next."""


def continues(prev: str, nxt: str) -> bool:
    """Does block text ``nxt`` continue the paragraph ``prev`` across a column break?

    True when ``prev`` is body text (>= :data:`CONTINUATION_MIN_CHARS` characters) that
    stops mid-sentence (no terminal punctuation; a trailing hyphenation fragment counts as
    mid-word) and ``nxt`` starts with a lowercase letter. Headings, captions and list items
    start upper-case or with a digit or a symbol, so they are never glued to the text above.
    """
    prev, nxt = prev.rstrip(), nxt.lstrip()
    if len(prev) < CONTINUATION_MIN_CHARS or not nxt or not (nxt[0].isalpha()
                                                            and nxt[0].islower()):
        return False
    return not prev.endswith(tuple(_TERMINAL))


#: A figure or table caption ("Table 1:", "Fig. 3.", "Algorithm 2 -").
CAPTION_RE = re.compile(
    r"^(?:fig(?:ure)?|table|tab|algorithm|listing)\.?\s*(?:[0-9]+|[A-Z]\.?[0-9]*|[IVX]+)"
    r"\s*[.:|\-\u2014\u2013]", re.I)
#: Blocks a float (a table or figure with its caption) may take between a paragraph and
#: its continuation.
FLOAT_MAX_BLOCKS = 3


_WORD_START = re.compile(r"^[a-z]{2,}(?:[\s,;:.)]|$)")


def _prose_end(text: str) -> bool:
    """Does ``text`` read as running prose that stops on a word (not a table row of
    numbers or names, not a legend)? Letters >= 75% of its last 300 characters, at most
    35% of its last 30 words capitalised or symbolic."""
    t = text.rstrip()
    chars = [c for c in t[-300:] if not c.isspace()]
    if not chars or sum(c.isalpha() for c in chars) < 0.75 * len(chars):
        return False
    words = t.split()[-30:]
    if sum(w[0].isupper() or not w[0].isalpha() for w in words) > 0.35 * len(words):
        return False  # a table row, a legend or a title: mostly capitals and symbols
    return words[-1].rstrip(",-\u2010").isalpha()


def _word_start(text: str) -> bool:
    """Does ``text`` start with a lowercase word (not a URL, a DOI or a symbol)?"""
    t = text.lstrip()
    return bool(_WORD_START.match(t)) and not t.startswith(("http", "www", "doi"))


def float_order(blocks: list[Block]) -> list[int]:
    """Reading order with floats moved out of sentences: when a paragraph stops
    mid-sentence and, after at most ``FLOAT_MAX_BLOCKS`` blocks that include a caption
    (a table or figure placed at the top of the next column), a block continues it
    (:func:`continues`), the continuation is moved up to follow the paragraph and the
    float comes after it. Returns a permutation of ``range(len(blocks))``."""
    order = list(range(len(blocks)))
    i = 0
    while i < len(order) - 2:
        a = blocks[order[i]].text
        for k in range(2, FLOAT_MAX_BLOCKS + 2):
            j = i + k
            if j >= len(order):
                break
            between = [blocks[order[m]].text.lstrip() for m in range(i + 1, j)]
            if _prose_end(a) and _word_start(blocks[order[j]].text) and \
                    continues(a, blocks[order[j]].text) and any(
                    CAPTION_RE.match(t) for t in between) and not any(
                    continues(a, t) for t in between):
                order.insert(i + 1, order.pop(j))
                break
        i += 1
    return order


def merge_continued_blocks(blocks: list[Block], lines: list[Line]
                           ) -> tuple[list[Block], list[Line]]:
    """Glue each block that continues the previous one's paragraph (:func:`continues`,
    e.g. "keeping a persis-" | "tent TCP connection" at a column break) into it: text
    joined as wrapped lines are (hyphenation repaired), bbox the union; ``lines`` get
    their new block indexes. Blocks are in reading order; pages are never crossed. A
    table or figure between a paragraph and its continuation is moved after the joined
    paragraph first (:func:`float_order`)."""
    if len(blocks) < 2:
        return blocks, lines
    order = float_order(blocks)
    if order != list(range(len(blocks))):
        position = {old: new for new, old in enumerate(order)}
        blocks = [blocks[i] for i in order]
        for ln in lines:
            if 0 <= ln.block < len(position):
                ln.block = position[ln.block]
    out: list[Block] = []
    new_index: list[int] = []
    for b in blocks:
        if out and continues(out[-1].text, b.text):
            a = out[-1]
            out[-1] = Block(join_lines([a.text, b.text]), min(a.x0, b.x0), min(a.y0, b.y0),
                            max(a.x1, b.x1), max(a.y1, b.y1))
        else:
            out.append(b)
        new_index.append(len(out) - 1)
    if len(out) == len(blocks):
        return blocks, lines
    for ln in lines:
        if 0 <= ln.block < len(new_index):
            ln.block = new_index[ln.block]
    return out, lines


_BOLD_NAME_RE = re.compile(
    r"(bold|black|heavy|semibold|demibold|demi\b|extrabold|ultrabold|[-,.]b$|[-,.]bd$|cmbx|cmb\d|sfbx|bx\d|-medi\b)",
    re.IGNORECASE,
)


_BOLD_CACHE: dict[tuple[str, bool], bool] = {}


def _is_bold(font: str, flags: int) -> bool:
    key = (font, bool(flags & 16))
    hit = _BOLD_CACHE.get(key)
    if hit is None:
        hit = key[1] or bool(_BOLD_NAME_RE.search(font))
        if len(_BOLD_CACHE) < 10_000:
            _BOLD_CACHE[key] = hit
    return hit


#: an italic face by its name ("Times-Italic", "NimbusRomNo9L-ReguItal", "LMRoman10-Italic")
_ITALIC_NAME_RE = re.compile(r"italic|oblique|ital\b|-it$|-bi$|cmti|cmsl|cmbxti", re.IGNORECASE)


def _lead_kind(font: str, flags: int) -> tuple[bool, bool]:
    """(bold, italic) of a span by its flags and face name."""
    return _is_bold(font, flags), bool(flags & 2) or bool(_ITALIC_NAME_RE.search(font))


def styled_lead(spans: list[dict]) -> str:
    """The run-in lead of a line: its opening spans set bold (an italic word inside them
    too: "Identity *vs.* Projection Shortcuts.") or italic when text neither bold nor of
    the lead's kind follows them on the line, plain text among it ("Residual Dropout." |
    " We apply dropout";
    a bold lead before an emphasised word: "Group-wise computation." | " *Group
    convolutions* have been"); '' when the line opens plain, is styled throughout or the
    lead has no two letters. ``spans`` are MuPDF's span dicts (text, font, flags)."""
    kind: tuple[bool, bool] | None = None
    lead: list[str] = []
    for i, s in enumerate(spans):
        if not s["text"].strip():
            lead.append(s["text"])
            continue
        k = _lead_kind(s["font"], s["flags"])
        if kind is None:
            if not any(k):
                return ""
            kind = k
        if kind[0] and k[0]:   # a bold lead goes on in bold, italic or not
            lead.append(s["text"])
            continue
        if k != kind:
            plain = any(x["text"].strip() and not any(_lead_kind(x["font"], x["flags"]))
                        for x in spans[i:])
            if k[0] or (any(k) and not kind[0]) or not plain:
                return ""
            text = "".join(lead).strip()
            return text if sum(c.isalpha() for c in text) >= 2 else ""
        lead.append(s["text"])
    return ""


def _opens_bold(spans: list[dict]) -> bool:
    """Whether the first span of a line holding text is bold (a lead set bold, not
    italic)."""
    first = next((s for s in spans if s["text"].strip()), None)
    return first is not None and _is_bold(first["font"], first["flags"])


def face_lead(spans: list[dict]) -> tuple[str, str]:
    """``(lead, face)``: the opening spans of a line set in one face, neither bold nor
    italic, when plain text in another face follows them on the line ("Background" in
    the face of a journal's headings | " Recent guidelines ..."); ``('', '')`` when the
    line opens bold or italic (:func:`styled_lead`), is in one face throughout or the lead
    has no two letters. Whether such a lead heads its paragraph depends on its face being
    a face of the document's headings (:mod:`pdftui.heading_run_in`)."""
    face = None
    lead: list[str] = []
    for i, s in enumerate(spans):
        if not s["text"].strip():
            lead.append(s["text"])
            continue
        styled = any(_lead_kind(s["font"], s["flags"]))
        if face is None:
            if styled:
                return "", ""
            face = s["font"]
        if s["font"] != face:
            text = "".join(lead).strip()
            if styled:
                return "", ""
            ok = sum(c.isalpha() for c in text) >= 2 and \
                "".join(x["text"] for x in spans[i:]).strip()
            return (text, face) if ok else ("", "")
        lead.append(s["text"])
    return "", ""


class RawBlock:
    """A block under construction: bbox plus its lines (text, bbox, font, size, bold,
    run-in lead: :func:`styled_lead`, then whether the line opens bold and its face lead
    and that face: :func:`face_lead`)."""

    __slots__ = ("x0", "y0", "x1", "y1", "lines", "chars")

    def __init__(self, x0, y0, x1, y1, lines):
        self.x0, self.y0, self.x1, self.y1 = x0, y0, x1, y1
        self.lines = lines  # list of (raw_text, (x0,y0,x1,y1), font, size, bold, lead,
        #                       (opens bold, face lead, its face))
        self.chars = sum(len(t[0]) for t in lines)


def blocks_from_dict(tp, need_alnum: bool = False) -> list[RawBlock]:
    """Blocks of a TextPage (or of its ``extractDICT`` dict). ``need_alnum`` drops lines
    without a letter or digit (OCR reads specks of a scan as ``'``, ``~`` or ``|``)."""
    out = []
    for b in (tp if isinstance(tp, dict) else tp.extractDICT())["blocks"]:
        if b.get("type", 0) != 0:
            continue
        lines = []
        for ln in b.get("lines", ()):
            spans = ln.get("spans", ())
            if not spans:
                continue
            text = "".join(s["text"] for s in spans)
            if not text.strip() or (need_alnum and not any(c.isalnum() for c in text)):
                continue
            weight: dict[tuple[str, float, bool], int] = {}
            for s in spans:
                n = len(s["text"].strip())
                if n:
                    key = (s["font"], round(s["size"], 2), _is_bold(s["font"], s["flags"]))
                    weight[key] = weight.get(key, 0) + n
            font, size, bold = max(weight, key=weight.get) if weight else ("", 0.0, False)
            lines.append((text, tuple(ln["bbox"]), font, size, bold, styled_lead(spans),
                          (_opens_bold(spans), *face_lead(spans))))
        if lines:
            x0, y0, x1, y1 = b["bbox"]
            out.append(RawBlock(x0, y0, x1, y1, lines))
    return out


def table_records(page, raw_blocks: list[RawBlock]) -> tuple[list[RawBlock], int]:
    """The page's blocks with each ruled table's lines replaced by one block per table row,
    "Header: value; Header: value" (:mod:`pdftui.tables`), placed where the table's first
    line was; returns (blocks, rows made). Pages that :func:`pdftui.tables.table_drawings`
    turns down are returned as they are."""
    boxes = [ln[1] for rb in raw_blocks for ln in rb.lines]
    paths = table_rows.table_drawings(page, boxes, [rb.lines[0][0] for rb in raw_blocks
                                                    if rb.lines])
    if paths is None:
        return raw_blocks, 0
    made = 0
    for grid in table_rows.grids(paths, boxes):
        inside = [ln for rb in raw_blocks for ln in rb.lines if grid.holds(ln[1])]
        got = table_rows.fill(grid, [(normalize_text(ln[0]), ln[1]) for ln in inside],
                              join=join_lines)
        recs = table_rows.records(got[0]) if got else []
        if not recs:
            continue
        font, size = inside[0][2], inside[0][3]
        rows = [RawBlock(*got[1][i], [(text, got[1][i], font, size, False, "", (False, "", ""))])
                for i, text in recs]
        out: list[RawBlock] = []
        for rb in raw_blocks:
            keep = [ln for ln in rb.lines if not grid.holds(ln[1])]
            if len(keep) < len(rb.lines):
                if keep:
                    out.append(RawBlock(rb.x0, rb.y0, rb.x1, rb.y1, keep))
                if rows:
                    out.extend(rows)
                    rows = []
            else:
                out.append(rb)
        raw_blocks = out
        made += len(recs)
    return raw_blocks, made


def blocks_from_blocks(tp) -> list[RawBlock]:
    out = []
    for x0, y0, x1, y1, text, _no, btype in tp.extractBLOCKS():
        if btype != 0 or not text.strip():
            continue
        lines = [(t, (x0, y0, x1, y1), "", 0.0, False, "", (False, "", ""))
                 for t in text.split("\n")
                 if t.strip()]
        out.append(RawBlock(x0, y0, x1, y1, lines))
    return out


def _side(x0: float, x1: float, mid: float, tol: float) -> str:
    left = x1 <= mid + tol
    right = x0 >= mid - tol
    if left and not right:
        return "L"
    if right and not left:
        return "R"
    return "S"


def reading_order(blocks: list[RawBlock], px0: float, width: float) -> list[RawBlock]:
    """Order blocks column by column when the page is clearly two-column, else as is."""
    if len(blocks) < 2 or width <= 0:
        return blocks
    mid = px0 + width / 2
    tol = width * 0.02
    # split blocks whose lines alternate between the two columns (no line crosses mid)
    split: list[RawBlock] = []
    for b in blocks:
        if len(b.lines) >= 2 and _side(b.x0, b.x1, mid, tol) == "S":
            sides = [_side(ln[1][0], ln[1][2], mid, tol) for ln in b.lines]
            if "S" not in sides and "L" in sides and "R" in sides:
                for want in ("L", "R"):
                    ls = [ln for ln, sd in zip(b.lines, sides) if sd == want]
                    split.append(
                        RawBlock(
                            min(ln[1][0] for ln in ls), min(ln[1][1] for ln in ls),
                            max(ln[1][2] for ln in ls), max(ln[1][3] for ln in ls), ls,
                        )
                    )
                continue
        split.append(b)
    total = sum(b.chars for b in split) or 1
    sides = [_side(b.x0, b.x1, mid, tol) for b in split]
    left = sum(b.chars for b, s in zip(split, sides) if s == "L")
    right = sum(b.chars for b, s in zip(split, sides) if s == "R")
    if left < 0.2 * total or right < 0.2 * total:
        return blocks  # single column (or unclear): keep MuPDF's order
    spanning = sorted((b for b, s in zip(split, sides) if s == "S"), key=lambda b: b.y0)
    bands: list[tuple[list[RawBlock], list[RawBlock]]] = [([], []) for _ in range(len(spanning) + 1)]
    for b, s in zip(split, sides):
        if s == "S":
            continue
        k = sum(1 for sp in spanning if sp.y0 <= b.y0)  # band index
        bands[k][0 if s == "L" else 1].append(b)
    ordered: list[RawBlock] = []
    for k, (lft, rgt) in enumerate(bands):
        ordered.extend(sorted(lft, key=lambda b: b.y0))
        ordered.extend(sorted(rgt, key=lambda b: b.y0))
        if k < len(spanning):
            ordered.append(spanning[k])
    return ordered


def blocks_and_lines(raw_blocks: list[RawBlock], soft: dict[str, str], with_lines: bool
                      ) -> tuple[list[Block], list[Line]]:
    """Blocks with normalised, joined text (soft-hyphen words mended by ``soft``) and,
    ``with_lines``, their lines for the heading detector; a block whose text is empty is
    dropped with its lines."""
    blocks: list[Block] = []
    lines: list[Line] = []
    for rb in raw_blocks:
        norm_lines = []
        for text, bbox, font, size, bold, lead, (lead_bold, flead, fface) in rb.lines:
            soft_end = text.rstrip().endswith("\u00ad")
            t = normalize_text(text)
            if not t:
                continue
            norm_lines.append(t + ("\u00ad" if soft_end else ""))
            if with_lines:
                lines.append(
                    Line(t, bbox[0], bbox[1], bbox[2], bbox[3], font, float(size), bool(bold),
                         len(blocks), normalize_text(lead) if lead else "",
                         bool(lead) and lead_bold,
                         normalize_text(flead) if flead else "", fface if flead else "")
                )
        btext = join_lines(norm_lines)
        if soft:
            for k, v in soft.items():
                btext = btext.replace(k, v)
        if btext:
            blocks.append(Block(btext, rb.x0, rb.y0, rb.x1, rb.y1))
        elif with_lines:  # drop lines of a block that vanished
            while lines and lines[-1].block == len(blocks):
                lines.pop()
    return blocks, lines
