"""Preformatted blocks (code, syntax summaries, tables) kept as the lines they were
printed in, for the reader.

The cache stores each block as one paragraph (its lines joined: what search and the
units index), which reflows a gnuplot syntax summary or a table laid out with spaces
into prose. :func:`preformatted_blocks` reads the page's lines again from the PDF with
PyMuPDF and gives, for the stored blocks that look preformatted, their text line by line
with each line's indent and its spans' columns kept (in characters of the block's
median width). A block looks preformatted when most of its characters are set in a
monospaced font (span flag 8, or a Courier / Mono font), or when it has three or more
rows and most of them are short (under half the block's width) or hold cells apart
(spans on one row separated by a gap of three characters or more). Nothing stored
changes, so nothing is re-extracted or re-embedded. Runs in a worker thread (PyMuPDF).
"""

from __future__ import annotations

import os
import re
import unicodedata
from statistics import median
from .furniture import tidy

_MONO_RE = re.compile(r"courier|mono|cour\b|consol|menlo|typewriter|\bcmtt|lmmono|nimbusmon",
                      re.IGNORECASE)
_WORD_RE = re.compile(r"\W+")


def _is_mono(span: dict) -> bool:
    return bool(span.get("flags", 0) & 8) or bool(_MONO_RE.search(span.get("font", "")))


def _rows(lines: list[dict]) -> list[list[dict]]:
    """The spans of ``lines`` grouped into visual rows (same baseline, 2 pt), top first,
    each row's spans left to right."""
    spans = [s for ln in lines for s in ln.get("spans", ()) if s.get("text", "").strip()]
    spans.sort(key=lambda s: (round(s["origin"][1]), s["bbox"][0]))
    rows: list[list[dict]] = []
    for s in spans:
        if rows and abs(rows[-1][0]["origin"][1] - s["origin"][1]) <= 2:
            rows[-1].append(s)
        else:
            rows.append([s])
    return [sorted(r, key=lambda s: s["bbox"][0]) for r in rows]


def _char_width(rows: list[list[dict]]) -> float:
    widths = [(s["bbox"][2] - s["bbox"][0]) / len(s["text"]) for r in rows for s in r
              if len(s["text"]) >= 2]
    return max(1.0, median(widths)) if widths else 5.0


def _looks_preformatted(rows: list[list[dict]], x0: float, x1: float, cw: float) -> bool:
    chars = [(len(s["text"].strip()), _is_mono(s)) for r in rows for s in r]
    total = sum(n for n, _m in chars) or 1
    if len(rows) >= 2 and sum(n for n, m in chars if m) / total > 0.6:
        return True
    if len(rows) < 3:
        return False
    width = max(1.0, x1 - x0)
    short = sum(1 for r in rows if r[-1]["bbox"][2] - r[0]["bbox"][0] < width / 2)
    cells = sum(1 for r in rows if any(b["bbox"][0] - a["bbox"][2] >= 3 * cw
                                       for a, b in zip(r, r[1:])))
    return short / len(rows) > 0.6 or cells / len(rows) > 0.6


def _layout(rows: list[list[dict]], x0: float, cw: float) -> str:
    """The rows as text lines, each span at its column (never overlapping the last)."""
    out = []
    for r in rows:
        line = ""
        for s in r:
            col = max(0, round((s["bbox"][0] - x0) / cw))
            text = unicodedata.normalize("NFKC", s["text"]).rstrip()   # ligatures
            if line:
                col = max(col, len(line) + (1 if not line.endswith(" ") else 0))
            line = line.ljust(col) + (text.lstrip() if line else text)
        out.append(line.rstrip())
    common = min((len(x) - len(x.lstrip()) for x in out if x.strip()), default=0)
    return "\n".join(x[common:] for x in out)


def preformatted_blocks(path: str, page: int,
                        blocks: list[tuple[float, float, float, float, str]]
                        ) -> dict[int, str]:
    """Block index -> its text as printed lines, for the ``blocks`` of ``page``
    (1-based; ``(x0, y0, x1, y1, text)`` in points as the cache stores them) that look
    preformatted. A block whose words differ from the PDF's lines in its box (the file
    changed since it was indexed, OCR text) is left out, and so is any page that cannot be
    read: ``{}``, never an error."""
    from .mupdf import pymupdf

    from .page_text import normalize_text

    try:
        with pymupdf.open(path) as doc:
            if not 1 <= page <= doc.page_count:
                return {}
            lines = [ln for b in doc[page - 1].get_text("dict")["blocks"]
                     if b.get("type", 0) == 0 for ln in b.get("lines", ())]
    except Exception:  # noqa: BLE001 - a reader nicety, never an error
        return {}
    out = {}
    for i, (x0, y0, x1, y1, text) in enumerate(blocks):
        inside = [ln for ln in lines
                  if x0 - 1 <= (ln["bbox"][0] + ln["bbox"][2]) / 2 <= x1 + 1
                  and y0 - 1 <= (ln["bbox"][1] + ln["bbox"][3]) / 2 <= y1 + 1]
        rows = _rows(inside)
        if len(rows) < 2:
            continue
        printed = "".join(normalize_text(s["text"]) for r in rows for s in r)
        if _WORD_RE.sub("", printed).casefold() != _WORD_RE.sub("", text).casefold():
            continue
        cw = _char_width(rows)
        if _looks_preformatted(rows, x0, x1, cw):
            out[i] = _layout(rows, x0, cw)
    return out


def paragraph_positions(lib, doc: str, section_id: int | None, sections: list,
                        n: int) -> list[tuple[int, int]] | None:
    """``(page, block)`` of each paragraph of a section's text (its non-empty blocks from
    its start to its end), or None when they do not line up with the ``n`` paragraphs."""
    s = next((x for x in sections if x.id == section_id), None)
    if s is None:
        return None
    out = []
    for page in range(s.start_page, s.end_page + 1):
        for b, row in enumerate(lib.blocks(doc, page)):
            if s.contains(page, b) and row[4].strip():
                out.append((page, b))
    return out if len(out) == n else None


def keep_lines(lib, doc: str, paragraphs: list[str],
               positions: list[tuple[int, int]] | None) -> list[str]:
    """``paragraphs`` with those that are preformatted blocks (code, syntax summaries,
    tables: :func:`pdftui.preformat.preformatted_blocks`) as their printed lines;
    ``positions``: the (page, block) of each paragraph (None: left as they are)."""
    if not positions:
        return paragraphs
    path = os.path.join(lib.root, doc)
    out = list(paragraphs)
    for page in sorted({p for p, _b in positions}):
        pre = preformatted_blocks(path, page, lib.blocks(doc, page))
        for i, pos in enumerate(positions):
            if pos[0] == page and pos[1] in pre:
                out[i] = pre[pos[1]]
    return out


def kept_text(lib, out) -> str:
    """The text of ``out`` (a :class:`pdftui.library.SectionText`: a page or a whole
    section of ``out.doc``, paragraphs apart by blank lines) with its preformatted blocks
    as their printed lines (:func:`keep_lines`) and, for a section, without its running
    headers and page numbers, a paragraph a page break cut joined (:func:`pdftui.furniture.
    tidy`); unchanged where its paragraphs do not line up with the stored blocks. PyMuPDF
    reads the PDF again: call it off the UI thread."""
    paragraphs = [p for p in out.text.split("\n\n") if p.strip()]
    if not paragraphs:
        return out.text
    if out.section_id is not None:
        positions = paragraph_positions(lib, out.doc, out.section_id,
                                        lib.sections(out.doc), len(paragraphs))
    else:
        page = out.start_page
        blocks = [b for b, row in enumerate(lib.blocks(out.doc, page)) if row[4].strip()]
        positions = [(page, b) for b in blocks] if len(blocks) == len(paragraphs) else None
    if not positions:
        return out.text
    kept = keep_lines(lib, out.doc, paragraphs, positions)
    if out.section_id is not None:   # a section read whole: without running heads, page numbers
        kept, _ = tidy(kept, positions, lib.furniture(out.doc))
    return "\n\n".join(kept)
