"""Turn one PDF file into an :class:`~pdftui.document.Extraction`.

Runs inside a worker process (PyMuPDF is not thread-safe). :func:`extract_document`
never raises for a bad file: every failure becomes ``Extraction(skip_reason=...)``.

Skip reasons (exact strings)::

    "empty file"          0 bytes
    "not a PDF"           no ``%PDF-`` in the first 1024 bytes (HTML or gzip renamed .pdf),
                          or PyMuPDF says ``is_pdf`` is false
    "password protected"  needs a user password (owner-only encryption is indexed)
    "damaged"             open raises, or the file opens "repaired" with 0 pages
    "0 pages"             valid structure whose page tree is empty
    "permission denied"   EACCES while opening/reading
    "not a regular file"  FIFO, directory, device, socket (checked with os.stat first;
                          a FIFO is never opened, since opening it would block)
    "file not found"      path vanished between the scan and the extraction
    "read error"          any other OSError while reading the header

Text pipeline per page
----------------------
1. One ``TextPage`` is built per page with ``TEXT_PRESERVE_WHITESPACE |
   TEXT_MEDIABOX_CLIP`` (ligatures are *not* preserved, so MuPDF expands them; NFKC
   catches the rest). Plain text is extracted first (cheap) and feeds the garbage
   statistics.
2. Slow-page guard: "dict" extraction costs roughly 10 µs per glyph span, plain text
   ~40 ns per char (made/16: 200 000 one-glyph spans -> dict 2 s, text 0.01 s). When the
   plain text of a page is longer than ``page_timeout_s * 10_000`` characters (50 000 at
   the default), or building the TextPage alone took more than half the budget, the page
   falls back to "blocks" extraction: same block texts and bboxes, but no per-line font
   information (``Page.lines`` is empty for that page and a note names the page).
3. Blocks are put in reading order: a page is treated as two-column only when at least
   20 % of its characters sit in blocks entirely left of the page's vertical midline and
   20 % entirely right of it; then each band between full-width blocks reads left column
   (top to bottom) then right column. Blocks whose lines alternate between the columns
   (made/03 p1) are split first. Single-column pages keep MuPDF's order.
4. Lines are normalised (:func:`normalize_text`) and joined inside a block by a space,
   repairing line-end hyphenation (see :func:`join_lines`); a block that continues the
   previous block's paragraph across a column break is glued to it
   (:func:`merge_continued_blocks`). Page text = blocks joined by a blank line.
5. Soft hyphens that a simple (WinAnsi) font draws as ``-`` are recovered from the
   content stream: words the stream spells with U+00AD are un-hyphenated in the page
   text (made/02 ``hy-phen`` -> ``hyphen``).
6. Form widget values that are not already in the page text become an extra block.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from pdftui import ocr, tables as table_rows
from pdftui.document import Block, Extraction, Line, OutlineEntry, Page
from pdftui.corpus import safe_name
from pdftui.page_labels import MAX_LABEL_CHARS, page_labels, rules_from_pymupdf
from pdftui.text_quality import TextStats, font_unmappable, text_quality
from pdftui.text import _ANSI_RE, MAX_NOTE_CHARS, MAX_NOTES, MAX_TITLE_CHARS, clip, strip_control

__all__ = ["extract_document", "normalize_text", "strip_control", "join_lines"]

# --------------------------------------------------------------------------- text utils

# zero-width and invisible format characters removed by normalisation
_INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff\u180e\u200e\u200f\ufffd\u034f\u2061\u2062\u2063\u2064"
_INVISIBLE_RE = re.compile("[" + re.escape(_INVISIBLE) + "]")
_NORM_CTRL_RE = re.compile(
    "[" + re.escape("".join(chr(c) for c in range(0x20) if c not in (0x09, 0x0A, 0x0D))
                    + "\x7f" + "".join(chr(c) for c in range(0x80, 0xA0))
                    + "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069") + "]"
)
_HSPACE_RE = re.compile(r"[^\S\n]+")


def normalize_text(s: str) -> str:
    """Normalise text for indexing, display and queries (one line or many).

    NFKC (ligatures U+FB00-FB06 -> letters, fullwidth -> ASCII, Arabic presentation forms
    -> base letters, NFD accents -> precomposed), then removes soft hyphens, zero-width
    and other invisible format characters, U+FFFD, control characters (C0 except
    ``\\t\\n\\r``, C1, DEL) and ANSI escape sequences; runs of horizontal whitespace
    (including tabs and NBSP) collapse to one space, ``\\r\\n``/``\\r`` become ``\\n``.
    Leading/trailing whitespace of the whole string is stripped. Line-end hyphenation is
    *not* handled here (see :func:`join_lines`). Never raises for a ``str``.
    """
    if not s:
        return ""
    if "\x1b" in s or "\x9b" in s:
        s = _ANSI_RE.sub("", s)
    s = unicodedata.normalize("NFKC", s)
    s = _INVISIBLE_RE.sub("", s)
    s = _NORM_CTRL_RE.sub("", s)
    if "\r" in s:
        s = s.replace("\r\n", "\n").replace("\r", "\n")
    s = _HSPACE_RE.sub(" ", s)
    return s.strip()


_HYPHENS = ("-", "\u2010", "\u2011")
_LEAD_PUNCT = "([{\"'\u201c\u2018\u00ab<"


def _join_hyphenated(prev: str, nxt: str) -> str:
    """Join ``prev`` (ending in a hyphen) with the following line ``nxt``."""
    head, _, last = prev.rpartition(" ")
    frag = last[:-1].lstrip(_LEAD_PUNCT)
    if not frag:  # a free-standing dash at the line end: keep it, keep the space
        return prev + " " + nxt
    first = nxt[0]
    if (
        len(frag) >= 2
        and frag.isalpha()
        and (frag.islower() or frag[1:].islower())   # "zeppe-", "Sim-" (sentence start)
        and first.isalpha()
        and first.islower()
        and not any(h in frag for h in _HYPHENS)
    ):
        return prev[:-1] + nxt  # line-break artefact: zeppe- + linophile
    return prev + nxt  # real hyphen: state-of-the- + art, n- + octanal, 10- + 20


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


def _is_cjk(c: str) -> bool:
    o = ord(c)
    return (
        0x3040 <= o <= 0x30FF  # hiragana, katakana
        or 0x3400 <= o <= 0x4DBF
        or 0x4E00 <= o <= 0x9FFF  # CJK unified ideographs
        or 0xF900 <= o <= 0xFAFF
        or 0x3000 <= o <= 0x303F  # CJK punctuation
        or 0xFF01 <= o <= 0xFF60
        or 0x20000 <= o <= 0x2FA1F
    )


def join_lines(lines: list[str]) -> str:
    """Join the visual lines of one block into a paragraph.

    Lines are expected to be normalised already except for a *trailing* soft hyphen,
    which marks a discretionary break and is joined directly. A trailing ``-``/U+2010
    is treated as a line-break artefact (hyphen dropped, words glued) when the fragment
    before it is >= 2 letters, lowercase after the first ("zeppe-", "Sim-"), with no other
    hyphen, and the next line starts
    with a lowercase letter; otherwise the hyphen is kept and the lines are glued without
    a space (``state-of-the-art``, ``n-octanal``, ``10-20``). Other lines are joined by a
    single space.
    """
    out = ""
    for raw in lines:
        soft = raw.rstrip().endswith("\u00ad")
        ln = normalize_text(raw) if ("\u00ad" in raw or "\x1b" in raw) else raw.strip()
        if not ln:
            continue
        if not out:
            out = ln
        elif out.endswith("\u00ad"):
            out = out[:-1] + ln
        elif out.endswith(_HYPHENS):
            out = _join_hyphenated(out, ln)
        elif _is_cjk(out[-1]) and _is_cjk(ln[0]):
            out = out + ln  # CJK text has no spaces between words or wrapped lines
        else:
            out = out + " " + ln
        if soft:
            out += "\u00ad"
    return out.rstrip("\u00ad")


# --------------------------------------------------------------------------- layout helpers

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


class _RawBlock:
    """A block under construction: bbox plus its lines (text, bbox, font, size, bold)."""

    __slots__ = ("x0", "y0", "x1", "y1", "lines", "chars")

    def __init__(self, x0, y0, x1, y1, lines):
        self.x0, self.y0, self.x1, self.y1 = x0, y0, x1, y1
        self.lines = lines  # list of (raw_text, (x0,y0,x1,y1), font, size, bold)
        self.chars = sum(len(t[0]) for t in lines)


def _blocks_from_dict(tp, need_alnum: bool = False) -> list[_RawBlock]:
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
            lines.append((text, tuple(ln["bbox"]), font, size, bold))
        if lines:
            x0, y0, x1, y1 = b["bbox"]
            out.append(_RawBlock(x0, y0, x1, y1, lines))
    return out


def _table_records(page, raw_blocks: list[_RawBlock]) -> tuple[list[_RawBlock], int]:
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
        rows = [_RawBlock(*got[1][i], [(text, got[1][i], font, size, False)])
                for i, text in recs]
        out: list[_RawBlock] = []
        for rb in raw_blocks:
            keep = [ln for ln in rb.lines if not grid.holds(ln[1])]
            if len(keep) < len(rb.lines):
                if keep:
                    out.append(_RawBlock(rb.x0, rb.y0, rb.x1, rb.y1, keep))
                if rows:
                    out.extend(rows)
                    rows = []
            else:
                out.append(rb)
        raw_blocks = out
        made += len(recs)
    return raw_blocks, made


def _blocks_from_blocks(tp) -> list[_RawBlock]:
    out = []
    for x0, y0, x1, y1, text, _no, btype in tp.extractBLOCKS():
        if btype != 0 or not text.strip():
            continue
        lines = [(t, (x0, y0, x1, y1), "", 0.0, False) for t in text.split("\n") if t.strip()]
        out.append(_RawBlock(x0, y0, x1, y1, lines))
    return out


def _side(x0: float, x1: float, mid: float, tol: float) -> str:
    left = x1 <= mid + tol
    right = x0 >= mid - tol
    if left and not right:
        return "L"
    if right and not left:
        return "R"
    return "S"


def _reading_order(blocks: list[_RawBlock], px0: float, width: float) -> list[_RawBlock]:
    """Order blocks column by column when the page is clearly two-column, else as is."""
    if len(blocks) < 2 or width <= 0:
        return blocks
    mid = px0 + width / 2
    tol = width * 0.02
    # split blocks whose lines alternate between the two columns (no line crosses mid)
    split: list[_RawBlock] = []
    for b in blocks:
        if len(b.lines) >= 2 and _side(b.x0, b.x1, mid, tol) == "S":
            sides = [_side(ln[1][0], ln[1][2], mid, tol) for ln in b.lines]
            if "S" not in sides and "L" in sides and "R" in sides:
                for want in ("L", "R"):
                    ls = [ln for ln, sd in zip(b.lines, sides) if sd == want]
                    split.append(
                        _RawBlock(
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
    bands: list[tuple[list[_RawBlock], list[_RawBlock]]] = [([], []) for _ in range(len(spanning) + 1)]
    for b, s in zip(split, sides):
        if s == "S":
            continue
        k = sum(1 for sp in spanning if sp.y0 <= b.y0)  # band index
        bands[k][0 if s == "L" else 1].append(b)
    ordered: list[_RawBlock] = []
    for k, (lft, rgt) in enumerate(bands):
        ordered.extend(sorted(lft, key=lambda b: b.y0))
        ordered.extend(sorted(rgt, key=lambda b: b.y0))
        if k < len(spanning):
            ordered.append(spanning[k])
    return ordered


# soft hyphen drawn by a simple-font byte 0xAD: MuPDF reports it as '-'
_MIDWORD_HYPHEN_RE = re.compile(r"[^\W\d_]-[^\W\d_]")
_LITERAL_RE = re.compile(rb"\((?:\\.|[^\\()])*\)", re.DOTALL)
_HEX_RE = re.compile(rb"<([0-9A-Fa-f\s]+)>")
_TJ_ARRAY_RE = re.compile(rb"\[([^\]]*)\]\s*TJ", re.DOTALL)
_ESC_MAP = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}
_HEX_AD_RE = re.compile(rb"<(?:[0-9A-Fa-f]{2}|\s)*[aA][dD]")
_SOFT_WORD_RE = re.compile(r"[^\W\d_]+(?:\u00ad[^\W\d_]+)+")


def _decode_literal(tok: bytes) -> bytes:
    body = tok[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i : i + 1]
        if c == b"\\" and i + 1 < len(body):
            n = body[i + 1 : i + 2]
            if n in _ESC_MAP:
                out += _ESC_MAP[n]
                i += 2
            elif n.isdigit():
                j = i + 1
                while j < len(body) and j < i + 4 and body[j : j + 1] in b"01234567":
                    j += 1
                out.append(int(body[i + 1 : j], 8) & 0xFF)
                i = j
            else:
                out += n
                i += 2
        else:
            out += c
            i += 1
    return bytes(out)


def _soft_hyphen_words(stream: bytes) -> set[str]:
    """Words spelt with byte 0xAD (WinAnsi soft hyphen) in a page content stream."""
    words: set[str] = set()
    chunks: list[bytes] = []
    for arr in _TJ_ARRAY_RE.findall(stream):  # TJ arrays: glue string pieces together
        parts = [_decode_literal(m.group(0)) for m in _LITERAL_RE.finditer(arr)]
        parts += [bytes.fromhex(h.decode().replace(" ", "").replace("\n", "")) if len(h.strip()) % 2 == 0 else b""
                  for h in _HEX_RE.findall(arr)]
        chunks.append(b"".join(parts))
    chunks += [_decode_literal(m.group(0)) for m in _LITERAL_RE.finditer(stream)]
    for h in _HEX_RE.findall(stream):
        h = re.sub(rb"\s", b"", h)
        if len(h) % 2 == 0:
            chunks.append(bytes.fromhex(h.decode()))
    for c in chunks:
        if b"\xad" in c:
            for w in _SOFT_WORD_RE.findall(c.decode("cp1252", errors="replace")):
                words.add(w)
    return words


def _fix_soft_hyphens(page, text_sample: str) -> dict[str, str]:
    """Map ``hy-phen`` -> ``hyphen`` for words the content stream spells with 0xAD."""
    if not _MIDWORD_HYPHEN_RE.search(text_sample):
        return {}
    try:
        stream = page.read_contents()
    except Exception:  # noqa: BLE001
        return {}
    if len(stream) > 2_000_000 or not (
        b"\xad" in stream or b"\\255" in stream or _HEX_AD_RE.search(stream)
    ):
        return {}
    return {w.replace("\u00ad", "-"): w.replace("\u00ad", "") for w in _soft_hyphen_words(stream)}


# --------------------------------------------------------------------------- title

_JUNK_TITLES = {
    "untitled", "untitled document", "title", "document", "none", "unknown", "no title",
    "notitle", "default", "slide 1", "presentation", "powerpoint presentation", "doc",
    "pdf", "new document", "layout 1", "page 1", "microsoft word", "word document",
}
_APP_PREFIX_RE = re.compile(
    r"^\s*(microsoft\s+(word|powerpoint|excel)|word|powerpoint|excel)\s*-\s*", re.IGNORECASE
)
_FILENAME_RE = re.compile(
    r"^(?:.*[\\/])?[^\\/]+\.(pdf|docx?|dotx?|rtf|odt|tex|dvi|ps|eps|indd|qxd|qxp|txt|html?|xlsx?|pptx?|pages|key|ai|cdr|pub|fm|wpd|xml)$",
    re.IGNORECASE,
)


def _open_pdf(p: Path, data: bytes | None = None):
    """Open a PDF with PyMuPDF: from ``data`` when given (the bytes already read), else
    from the path; a path MuPDF cannot take as UTF-8 (non-UTF-8 bytes held as surrogates)
    is opened from its bytes instead."""
    import pymupdf

    if data is not None:
        return pymupdf.open(stream=data, filetype="pdf")
    name = str(p)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        with open(p, "rb") as fh:
            return pymupdf.open(stream=fh.read(), filetype="pdf")
    return pymupdf.open(name, filetype="pdf")


def count_pages(path: str | os.PathLike) -> int | None:
    """The page count PyMuPDF sees in the file at ``path``, or None when it cannot be
    opened as a PDF (or needs a password). Cheap: no page is parsed."""
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    try:
        with _open_pdf(Path(os.fspath(path))) as doc:
            return None if doc.needs_pass or not doc.is_pdf else doc.page_count
    except Exception:  # noqa: BLE001 - damaged, unreadable: no count
        return None


def _clean_title(meta_title: str | None, stem: str) -> str:
    """Metadata title when it looks like a real title, else the file stem."""
    t = normalize_text(strip_control(meta_title or "", keep_newlines=False, keep_tabs=False))
    t = t.replace("\n", " ").strip()
    t = _APP_PREFIX_RE.sub("", t).strip()
    if (
        not t
        or len(t) >= 300
        or t.lower().strip(" .") in _JUNK_TITLES
        or _FILENAME_RE.match(t)
        or t.lower() == stem.lower()
        or re.match(r"^(arxiv:|doi:|https?://|www\.|isbn|issn)", t, re.IGNORECASE)
        or not any(c.isalpha() for c in t)
        or re.fullmatch(r"[\w-]*\d[\w-]*", t) and " " not in t and not t.isalpha()  # ids like "a1b2_c3"
    ):
        return stem
    return t


_ID_LINE_RE = re.compile(r"^(arxiv:|doi:|https?://|[a-z-]+(\.[a-z]+)?/\d{7})", re.IGNORECASE)


def _squashed(text: str) -> str:
    return re.sub(r"\W+", "", text.casefold())


def _title_on_first_page(meta_title: str, first: Page, is_stem: bool = False) -> str:
    """The metadata title when the first page shows it; else the first page's largest
    text (up to 3 consecutive lines of that size: a wrapped title), when there is one.
    Word exports often carry a stale metadata title ("System Model" on Dynamo); with no
    usable metadata (``is_stem``: the file name stands in) the largest text must be at
    least two words."""
    if not first.lines or (not is_stem and _squashed(meta_title)[:40]
                           in _squashed(first.text[:4000])):
        return meta_title
    # horizontal lines only (the arXiv stamp runs up the margin), no identifiers
    cands = [ln for ln in first.lines if (ln.x1 - ln.x0) >= (ln.y1 - ln.y0)
             and not _ID_LINE_RE.match(ln.text.strip())]
    biggest = max((ln.size for ln in cands), default=0.0)
    weight: dict[float, int] = {}
    for ln in cands:
        weight[round(ln.size, 1)] = weight.get(round(ln.size, 1), 0) + len(ln.text)
    body = max(weight, key=weight.get, default=0.0)
    # a title stands out: larger than the body text, or the page is a title page where
    # the largest text is short
    if biggest <= 0 or (biggest < 1.15 * body and weight[round(biggest, 1)] > 150):
        return meta_title
    picked: list[str] = []
    for ln in cands:
        if abs(ln.size - biggest) < 0.5:
            picked.append(ln.text.strip())
        elif picked:
            break
    title = strip_control(join_lines([t for t in picked[:3] if t]), keep_newlines=False,
                          keep_tabs=False).rstrip("∗*†‡ ")
    letters = sum(c.isalpha() for c in title)
    if is_stem and (letters < 6 or len(title.split()) < 2):
        return meta_title
    if 3 <= letters and len(title) <= 200:
        return title
    return meta_title


# --------------------------------------------------------------------------- outline

_REF_RE = re.compile(r"^\s*\[\s*(\d+)\s+\d+\s+R")


def _dest_is_broken(doc, item_xref: int, page_xrefs: set[int]) -> bool:
    """True when the outline item's explicit destination targets nothing or a non-page.

    MuPDF maps ``[null /XYZ ...]`` and references to missing objects to page 1; the raw
    /Dest (or /A /D of a GoTo action) array is inspected to catch that.
    """
    if item_xref <= 0:
        return False
    try:
        kind, val = doc.xref_get_key(item_xref, "Dest")
        if kind in ("null",):
            kind, val = doc.xref_get_key(item_xref, "A/D")
        if kind != "array":
            return False  # named destinations: PyMuPDF resolves them (page 0 if missing)
        body = val.strip()[1:].lstrip()
        if body.startswith("null"):
            return True
        m = _REF_RE.match(val)
        if m:
            return int(m.group(1)) not in page_xrefs
        return False  # integer page numbers (seen in some producers): trust PyMuPDF
    except Exception:  # noqa: BLE001
        return False


def _outline(doc, page_count: int, matrices: dict[int, object], notes: list[str]) -> tuple[list[OutlineEntry], int]:
    """Validated, level-normalised outline entries plus the number dropped."""
    try:
        toc = doc.get_toc(simple=False)
    except Exception as exc:  # noqa: BLE001
        notes.append(f"outline unreadable: {type(exc).__name__}")
        return [], 0
    if not toc:
        return [], 0
    page_xrefs: set[int] = set()
    try:
        page_xrefs = {doc.page_xref(i) for i in range(page_count)}
    except Exception:  # noqa: BLE001
        page_xrefs = set()
    entries: list[OutlineEntry] = []
    dropped = 0
    stack: list[tuple[int, int]] = []  # (original level, normalised level)
    for item in toc:
        try:
            level, title, page = int(item[0]), item[1], int(item[2])
            link = item[3] if len(item) > 3 and isinstance(item[3], dict) else {}
        except Exception:  # noqa: BLE001
            dropped += 1
            continue
        title = normalize_text(strip_control(title or "", keep_newlines=False, keep_tabs=False)).replace("\n", " ")
        if not title or not (1 <= page <= page_count):
            dropped += 1
            continue
        if page_xrefs and _dest_is_broken(doc, int(link.get("xref", 0) or 0), page_xrefs):
            dropped += 1
            continue
        y, x = _dest_y(doc, page, link, matrices), _dest_x(doc, page, link, matrices)
        while stack and stack[-1][0] >= level:
            stack.pop()
        norm = stack[-1][1] + 1 if stack else 1
        stack.append((level, norm))
        entries.append(OutlineEntry(level=norm, title=title, page=page, y=y,
                                    x=x if y is not None else None))
    return entries, dropped


def _dest_point(doc, page: int, link: dict, matrices: dict[int, object]):
    """``(point, page height or None)`` of an outline destination in top-left page
    coordinates, or None for other kinds or no point.

    PyMuPDF reports explicit GoTo destinations already converted (top-left), but named
    destinations (``kind`` LINK_NAMED, e.g. LaTeX/hyperref ``section.1``) in raw PDF
    coordinates (origin bottom-left); those are converted with the page's transformation
    matrix (cached in ``matrices``).
    """
    import pymupdf

    to = link.get("to")
    if to is None:
        return None
    kind = link.get("kind")
    if kind == pymupdf.LINK_NAMED:
        mat = matrices.get(page - 1)
        if mat is None:
            pg = doc[page - 1]
            mat = (pg.transformation_matrix, pg.rect.height)
            matrices[page - 1] = mat
        return pymupdf.Point(to) * mat[0], mat[1]
    if kind == pymupdf.LINK_GOTO:
        mat = matrices.get(page - 1)
        return pymupdf.Point(to), (mat[1] if mat else None)
    return None


def _dest_x(doc, page: int, link: dict, matrices: dict[int, object]) -> float | None:
    """Destination x (the heading's column) in points, or None when the PDF gives none
    (0) or it is off the page."""
    try:
        got = _dest_point(doc, page, link, matrices)
        if got is None:
            return None
        x = float(got[0].x)
        return round(x, 2) if 0.0 < x < doc[page - 1].rect.width else None
    except Exception:  # noqa: BLE001
        return None


def _dest_y(doc, page: int, link: dict, matrices: dict[int, object]) -> float | None:
    """Destination y in top-left page coordinates, or None (absent, or off the page)."""
    import pymupdf

    try:
        got = _dest_point(doc, page, link, matrices)
        if got is None:
            return None
        point, height = got
        y = float(point.y)
        if link.get("kind") == pymupdf.LINK_GOTO and y == 0.0:
            return None  # MuPDF reports an absent /XYZ top as 0
        if height is not None and not (0.0 <= y <= height):
            return None
        return round(y, 2)
    except Exception:  # noqa: BLE001
        return None


# --------------------------------------------------------------------------- main entry

_FLAGS = None


def _text_flags() -> int:
    global _FLAGS
    if _FLAGS is None:
        import pymupdf

        _FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
    return _FLAGS


def _skip(stem: str, reason: str, note: str | None = None, page_count: int = 0) -> Extraction:
    return Extraction(title=stem, page_count=page_count, skip_reason=reason, notes=[note] if note else [])


def extract_document(path: str | os.PathLike, *, page_timeout_s: float = 5.0,
                     data: bytes | None = None, heartbeat: str | None = None,
                     ocr_known: dict[int, bytes] | None = None,
                     tables: bool | None = None) -> Extraction:
    """Extract text, layout lines, outline and metadata title from one PDF.

    Args:
        path: file to read. Must be a regular file; checked with ``os.stat`` before any
            open so FIFOs/devices never block the worker.
        data: the file's bytes, when the caller has read them (then the path is not
            opened again, so what is extracted is exactly what was hashed).
        page_timeout_s: per-page time budget in seconds. MuPDF calls cannot be
            interrupted, so it is enforced *before* the expensive step: pages whose
            plain text exceeds ``page_timeout_s * 10_000`` characters, or whose TextPage
            took more than half the budget to build, use the cheap "blocks" extraction
            (no font info). A page that still overruns the budget gets a note. Scanned
            pages without text are OCR'd (see :mod:`pdftui.ocr`, which has its own limits).
        heartbeat: a file touched after each OCR'd page (progress for the indexer), or None.
        ocr_known: ``{page: encoded OCR result}`` from an earlier extraction of these bytes
            with the same :data:`pdftui.ocr.SETTINGS` (those pages are not recognised again).
        tables: replace the text of ruled tables by one block per row, "Header: value; ..."
            (see :mod:`pdftui.tables`); None: yes unless ``PDFTUI_TABLES=0`` (the old way,
            for bench/tables.py).

    Returns:
        An :class:`Extraction`. For an indexed file ``skip_reason`` is None, ``pages``
        holds one :class:`Page` per physical page (1-based ``number``; ``label`` '' when
        the PDF defines no page labels; blocks in reading order with bboxes in points,
        origin top-left; ``lines`` with font/size/bold for the heading detector),
        ``outline`` holds validated entries (invalid ones counted in
        ``outline_dropped``), ``text_quality`` is "ok", "no text layer" (no page has
        text: scanned, or blank) or "unreliable" (garbage text layer; pages are still
        returned). ``sections`` is left empty (see ``pdftui.sections``). For a skipped
        file only ``title`` (file stem), ``skip_reason`` and ``notes`` are meaningful.

    Never raises for a bad file (OS errors and MuPDF errors become skip reasons or
    notes); programming errors inside a page are caught per page and noted.
    """
    p = Path(os.fspath(path))
    if tables is None:
        tables = os.environ.get("PDFTUI_TABLES", "1") != "0"
    # the fallback title: a display-safe file stem (non-UTF-8 bytes as \xNN, no controls)
    stem = normalize_text(strip_control(safe_name(p.stem or p.name), keep_newlines=False,
                                        keep_tabs=False)) or "untitled"
    if data is not None:
        if not data:
            return _skip(stem, "empty file")
        if b"%PDF-" not in data[:1024]:
            return _skip(stem, "not a PDF")
        return _extract_checked(p, stem, page_timeout_s, data, heartbeat, ocr_known, tables)
    refused = _refusal_by_header(p, stem)   # without opening anything that could block
    if refused is not None:
        return refused
    return _extract_checked(p, stem, page_timeout_s, None, heartbeat, ocr_known, tables)


def _refusal_by_header(p: Path, stem: str) -> Extraction | None:
    """The skip of a path that is missing, unreadable, no regular file, empty or without
    a PDF header (``os.stat`` first, so a FIFO or a device never blocks); None when it may
    be opened."""
    try:
        st = os.stat(p)
    except FileNotFoundError:
        return _skip(stem, "file not found")
    except PermissionError:
        return _skip(stem, "permission denied")
    except OSError as exc:
        return _skip(stem, "read error", exc.strerror or type(exc).__name__)
    if not stat.S_ISREG(st.st_mode):
        return _skip(stem, "not a regular file")
    if st.st_size == 0:
        return _skip(stem, "empty file")
    try:
        with open(p, "rb") as fh:
            head = fh.read(1024)
    except PermissionError:
        return _skip(stem, "permission denied")
    except OSError as exc:
        if exc.errno == errno.EACCES:
            return _skip(stem, "permission denied")
        return _skip(stem, "read error", exc.strerror or type(exc).__name__)
    if not head:
        return _skip(stem, "empty file")
    if b"%PDF-" not in head:
        return _skip(stem, "not a PDF")
    return None


def _extract_checked(p: Path, stem: str, page_timeout_s: float, data: bytes | None,
                     heartbeat: str | None = None,
                     ocr_known: dict[int, bytes] | None = None,
                     tables: bool = True) -> Extraction:
    """:func:`_extract_pdf` with its strings bounded and every error a skip reason."""
    try:
        return bound_strings(_extract_pdf(p, stem, page_timeout_s, data, heartbeat,
                                          ocr_known, tables))
    except PermissionError:
        return _skip(stem, "permission denied")
    except Exception as exc:  # noqa: BLE001 - last line of defence: never raise
        return _skip(stem, "damaged", f"extraction failed: {type(exc).__name__}: {str(exc)[:200]}")


def _extract_pdf(p: Path, stem: str, page_timeout_s: float, data: bytes | None = None,
                 heartbeat: str | None = None,
                 ocr_known: dict[int, bytes] | None = None,
                 find_tables: bool = True) -> Extraction:
    """Open ``p`` (or ``data``) with PyMuPDF and extract it (:func:`extract_document`'s
    contract); a file PyMuPDF cannot open or refuses becomes a skip reason."""
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    pymupdf.TOOLS.reset_mupdf_warnings()
    try:
        doc = _open_pdf(p, data)
    except PermissionError:
        return _skip(stem, "permission denied")
    except Exception as exc:  # noqa: BLE001 - FileDataError and friends
        return _skip(stem, "damaged", f"{type(exc).__name__}: {str(exc)[:200]}")
    try:
        refused = _refusal(doc, stem)
        if refused is not None:
            return refused
        return _extract_open(doc, p, stem, page_timeout_s, heartbeat, ocr_known, find_tables)
    finally:
        try:
            doc.close()
        except Exception:  # noqa: BLE001
            pass


def _refusal(doc, stem: str) -> Extraction | None:
    """The skip of an opened file that is no PDF, needs a password or has no pages; None
    when it can be extracted."""
    if not doc.is_pdf:
        return _skip(stem, "not a PDF")
    if doc.needs_pass:
        return _skip(stem, "password protected")
    if doc.page_count == 0:
        if doc.is_repaired:
            return _skip(stem, "damaged", "no pages could be recovered")
        return _skip(stem, "0 pages")
    return None


@dataclass
class _PageRun:
    """What every page of one document's extraction reads and adds to: the open document,
    its page labels, the text flags, the time budget (seconds), the text statistics, the
    font verdicts, the page matrices (for outline targets) and the OCR budget."""

    doc: object
    labels: list[str]
    flags: int
    page_timeout_s: float
    find_tables: bool
    budget: object
    stats: TextStats = field(default_factory=TextStats)
    font_cache: dict[int, bool] = field(default_factory=dict)
    matrices: dict[int, object] = field(default_factory=dict)

    @property
    def max_dict_chars(self) -> int:
        """Plain-text length (characters) above which a page skips the font-aware pass."""
        return int(self.page_timeout_s * 10_000)


@dataclass
class _Tally:
    """What the page loop counts for the document's notes (1-based page numbers)."""

    empty_pages: int = 0
    fallback_pages: list[int] = field(default_factory=list)
    slow_pages: list[int] = field(default_factory=list)
    failed_pages: list[int] = field(default_factory=list)
    widget_values: int = 0
    annotations: int = 0
    table_pages: list[tuple[int, int]] = field(default_factory=list)   # (page, rows)


def _extract_open(doc, p: Path, stem: str, page_timeout_s: float, heartbeat: str | None,
                  ocr_known: dict[int, bytes] | None, find_tables: bool) -> Extraction:
    """Pages, notes, text quality, outline, title and metadata of an opened PDF."""
    n = doc.page_count
    notes: list[str] = []
    if doc.is_repaired:
        notes.append("file was damaged and has been repaired; text may be incomplete")
    try:
        title = _clean_title(doc.metadata.get("title") if doc.metadata else "", stem)
    except Exception:  # noqa: BLE001
        title = stem
    try:  # built here, not by Page.get_label: a hostile /St makes that explode
        labels = page_labels(rules_from_pymupdf(doc.get_page_labels()), n)
    except Exception:  # noqa: BLE001
        labels = [""] * n
    run = _PageRun(doc, labels, _text_flags(), page_timeout_s, find_tables,
                   ocr.Budget(limit_s=ocr.doc_budget_s(), heartbeat=heartbeat,
                              known=dict(ocr_known or {})))
    tally = _Tally()
    pages = [_page_or_failure(run, i, tally, notes) for i in range(n)]
    _loop_notes(tally, run.budget, page_timeout_s, notes)
    _xfa_note(doc, notes)
    budget = run.budget
    quality = text_quality(run.stats, n, tally.empty_pages, bool(budget.done),
                           bool(budget.missing), notes)
    outline, dropped = _outline(doc, n, run.matrices, notes)
    if dropped:
        notes.append(f"{dropped} outline entr{'y' if dropped == 1 else 'ies'} dropped (empty title or invalid target)")
    _mupdf_warning_note(notes)
    if pages:
        title = _title_on_first_page(title, pages[0], title == stem)
    try:
        from .metadata import read_metadata

        metadata = read_metadata(doc, p.name, title)
    except Exception:  # noqa: BLE001 - metadata must not lose the document
        metadata = None
    return Extraction(title=title, page_count=n, pages=pages, outline=outline,
                      outline_dropped=dropped, sections=[], skip_reason=None,
                      text_quality=quality, notes=notes, metadata=metadata,
                      ocr_missing=budget.pending, ocr_results=budget.results)


def _page_or_failure(run: _PageRun, i: int, tally: _Tally, notes: list[str]) -> Page:
    """Page ``i + 1``; an empty page when its extraction raised (one bad page must not
    lose the document; the first three failures get a note). A page over the time budget
    (OCR aside) is counted slow."""
    t0 = time.perf_counter()
    try:
        page = _extract_page(run, i, tally, t0)
    except Exception as exc:  # noqa: BLE001 - one bad page must not lose the document
        tally.failed_pages.append(i + 1)
        page = Page(i + 1, "", "")
        tally.empty_pages += 1
        if len(tally.failed_pages) <= 3:
            notes.append(f"page {i + 1}: text extraction failed ({type(exc).__name__})")
    if time.perf_counter() - t0 > run.page_timeout_s and not page.ocr:
        tally.slow_pages.append(i + 1)
    return page


def _extract_page(run: _PageRun, i: int, tally: _Tally, t0: float) -> Page:
    """One page (0-based index ``i``): its text layer (or OCR of a scan), blocks in reading
    order with their lines, form field values and annotations. ``t0``: when the page's
    work began (``time.perf_counter()``)."""
    doc = run.doc
    page = doc[i]
    prect = page.rect
    run.matrices[i] = (page.transformation_matrix, prect.height)
    label = strip_control(run.labels[i], keep_newlines=False, keep_tabs=False)
    tp = page.get_textpage(flags=run.flags)
    t_tp = time.perf_counter() - t0
    raw = tp.extractText()
    unmappable = False
    if raw.strip():
        fonts = page.get_fonts()
        if fonts:
            unmappable = all(
                font_unmappable(doc, f[0], f[2], f[5], run.font_cache) for f in fonts
            )
    run.stats.add(raw, fonts_unmappable=unmappable)
    scan = run.budget.page(doc, i, run.flags) if not raw.strip() else None
    raw_blocks, with_lines = _raw_blocks(run, page, tp, raw, scan, t_tp, i + 1, tally)
    del tp
    raw_blocks = _reading_order(raw_blocks, prect.x0, prect.width)
    soft = _fix_soft_hyphens(page, raw) if "-" in raw else {}
    blocks, lines = _blocks_and_lines(raw_blocks, soft, with_lines)
    blocks, lines = merge_continued_blocks(blocks, lines)
    tally.widget_values += _add_form_values(page, blocks, lines, with_lines)
    for ablock in annotation_blocks(page, "\n".join(b.text for b in blocks)):
        blocks.append(ablock)
        tally.annotations += 1
    text = "\n\n".join(b.text for b in blocks)
    if not text:
        tally.empty_pages += 1
    elif scan is not None:
        run.budget.done.append(i + 1)
    return Page(i + 1, label, text, blocks, lines, round(prect.width, 2),
                round(prect.height, 2), ocr=scan is not None and bool(text))


def _raw_blocks(run: _PageRun, page, tp, raw: str, scan, t_tp: float, number: int,
                tally: _Tally) -> tuple[list[_RawBlock], bool]:
    """``(raw blocks, with lines)`` of page ``number`` (1-based): from the OCR text page
    ``scan`` when the page was recognised; the cheap "blocks" pass (no font info, no
    lines) for a page too dense (``raw`` longer than ``max_dict_chars``) or too slow
    (its TextPage took ``t_tp`` seconds, over half the budget); else the font-aware pass,
    with ruled tables as one block per row when ``find_tables``."""
    if scan is not None:
        return _blocks_from_dict(scan, need_alnum=True), True
    if len(raw) > run.max_dict_chars or t_tp > run.page_timeout_s / 2:
        raw_blocks = _blocks_from_blocks(tp)
        tally.fallback_pages.append(number)
        return raw_blocks, False
    raw_blocks = _blocks_from_dict(tp)
    if run.find_tables:
        raw_blocks, n_rows = _table_records(page, raw_blocks)
        if n_rows:
            tally.table_pages.append((number, n_rows))
    return raw_blocks, True


def _blocks_and_lines(raw_blocks: list[_RawBlock], soft: dict[str, str], with_lines: bool
                      ) -> tuple[list[Block], list[Line]]:
    """Blocks with normalised, joined text (soft-hyphen words mended by ``soft``) and,
    ``with_lines``, their lines for the heading detector; a block whose text is empty is
    dropped with its lines."""
    blocks: list[Block] = []
    lines: list[Line] = []
    for rb in raw_blocks:
        norm_lines = []
        for text, bbox, font, size, bold in rb.lines:
            soft_end = text.rstrip().endswith("\u00ad")
            t = normalize_text(text)
            if not t:
                continue
            norm_lines.append(t + ("\u00ad" if soft_end else ""))
            if with_lines:
                lines.append(
                    Line(t, bbox[0], bbox[1], bbox[2], bbox[3], font, float(size), bool(bold), len(blocks))
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


def _add_form_values(page, blocks: list[Block], lines: list[Line], with_lines: bool) -> int:
    """Append the page's form field values not already in its text as one block (and
    lines); returns how many were added (0 on any error: the text stays as it was)."""
    import pymupdf

    try:
        if page.first_widget is None:
            return 0
        have = "\n".join(b.text for b in blocks).casefold()
        vals = []
        rects = []
        for w in page.widgets():
            v = w.field_value
            if w.field_type in (pymupdf.PDF_WIDGET_TYPE_CHECKBOX, pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON,
                                pymupdf.PDF_WIDGET_TYPE_BUTTON, pymupdf.PDF_WIDGET_TYPE_SIGNATURE):
                continue
            if isinstance(v, (list, tuple)):
                v = " ".join(str(x) for x in v)
            v = normalize_text(strip_control(str(v or ""))).replace("\n", " ")
            if v and v.casefold() not in have and v not in vals:
                vals.append(v)
                rects.append(w.rect)
        if not vals:
            return 0
        r = rects[0]
        for rr in rects[1:]:
            r = r | rr
        if with_lines:
            for v, rr in zip(vals, rects):
                lines.append(Line(v, rr.x0, rr.y0, rr.x1, rr.y1, "", 0.0, False, len(blocks)))
        blocks.append(Block(" ".join(vals), r.x0, r.y0, r.x1, r.y1))
        return len(vals)
    except Exception:  # noqa: BLE001
        return 0


def _loop_notes(tally: _Tally, budget, page_timeout_s: float, notes: list[str]) -> None:
    """The notes the page loop's counts make (dense, slow, failed pages; annotations and
    form values added; OCR; table rows)."""
    if tally.fallback_pages:
        notes.append(f"{len(tally.fallback_pages)} very dense page(s) extracted without font info: {_pagelist(tally.fallback_pages)}")
    if tally.slow_pages:
        notes.append(f"{len(tally.slow_pages)} page(s) took longer than {page_timeout_s:g} s: {_pagelist(tally.slow_pages)}")
    if len(tally.failed_pages) > 3:
        notes.append(f"{len(tally.failed_pages)} pages failed: {_pagelist(tally.failed_pages)}")
    if tally.annotations:
        notes.append(f"{tally.annotations} annotation(s) (notes, comments) added to the page text")
    if tally.widget_values:
        notes.append(f"{tally.widget_values} form field value(s) added to the page text")
    notes.extend(budget.notes(_pagelist))
    table_pages = tally.table_pages
    if table_pages:
        notes.append(f"{sum(n for _p, n in table_pages)} table row(s) as records on"
                     f" {len(table_pages)} page(s): {_pagelist([p for p, _n in table_pages])}")


def _xfa_note(doc, notes: list[str]) -> None:
    """Say so when the PDF is an XFA form (its filled-in content is not page text)."""
    try:
        if doc.xref_get_key(doc.pdf_catalog(), "AcroForm/XFA")[0] != "null":
            notes.append("XFA form: content filled in by the form engine is not in the page text")
    except Exception:  # noqa: BLE001
        pass


def _mupdf_warning_note(notes: list[str]) -> None:
    """The first of MuPDF's warnings for this document, as a note."""
    import pymupdf

    try:
        warns = pymupdf.TOOLS.mupdf_warnings()
        if warns:
            first = strip_control(warns.splitlines()[0], keep_newlines=False)[:160]
            notes.append(f"MuPDF warnings: {first}")
    except Exception:  # noqa: BLE001
        pass


#: Annotation kinds whose text is not drawn on the page, and how a reader is told what it is.
_ANNOT_LABELS = {"Text": "Note", "Highlight": "Comment on highlight",
                 "Underline": "Comment on underline", "StrikeOut": "Comment on strike-out",
                 "Squiggly": "Comment on underline", "FreeText": "Text box",
                 "Square": "Comment", "Circle": "Comment", "Ink": "Comment",
                 "Polygon": "Comment", "PolyLine": "Comment", "Line": "Comment",
                 "Stamp": "Stamp", "Caret": "Comment", "FileAttachment": "Attachment note"}
#: Longest annotation text kept, in characters.
MAX_ANNOT_CHARS = 4000


def annotation_blocks(page, page_text: str, limit: int = 200) -> list[Block]:
    """The text of a page's annotations (sticky notes, comments on highlights, text boxes
    ...) that the page text does not already hold, one :class:`Block` each at the
    annotation's rectangle, labelled with its kind and author: ``"Note (Alice): ..."``.
    At most ``limit`` annotations, each cut to :data:`MAX_ANNOT_CHARS`. Never raises."""
    out: list[Block] = []
    try:
        have = page_text.casefold()
        for annot in page.annots():
            kind = annot.type[1] if annot.type else ""
            label = _ANNOT_LABELS.get(kind)
            info = annot.info or {}
            text = normalize_text(strip_control(clip(info.get("content") or "", MAX_ANNOT_CHARS)))
            text = text.replace("\n", " ")
            if not label or not text or text.casefold() in have:
                continue   # FreeText is drawn, and so already in the page text
            author = normalize_text(strip_control(clip(info.get("title") or "", 60),
                                                  keep_newlines=False))
            r = annot.rect
            head = f"{label} ({author})" if author else label
            out.append(Block(f"{head}: {text}", r.x0, r.y0, r.x1, r.y1))
            if len(out) >= limit:
                break
    except Exception:  # noqa: BLE001 - a broken annotation must not lose the page
        pass
    return out


def bound_strings(ex: Extraction) -> Extraction:
    """``ex`` with every string taken from the PDF other than page text bounded (in place):
    the title and outline titles to :data:`~pdftui.text.MAX_TITLE_CHARS`, page labels to
    :data:`~pdftui.page_labels.MAX_LABEL_CHARS` (a longer one becomes the page number),
    notes to :data:`~pdftui.text.MAX_NOTE_CHARS` each and :data:`~pdftui.text.MAX_NOTES`
    in all. Page text is not cut (excerpts and the reader window it)."""
    ex.title = clip(ex.title, MAX_TITLE_CHARS)
    for e in ex.outline:
        e.title = clip(e.title, MAX_TITLE_CHARS)
    for pg in ex.pages:
        if len(pg.label) > MAX_LABEL_CHARS:
            pg.label = str(pg.number)
    notes = [clip(n, MAX_NOTE_CHARS) for n in ex.notes[:MAX_NOTES]]
    if len(ex.notes) > MAX_NOTES:
        notes.append(f"{len(ex.notes) - MAX_NOTES} more notes not kept")
    ex.notes = notes
    return ex


def _pagelist(nums: list[int], limit: int = 10) -> str:
    s = ", ".join(str(x) for x in nums[:limit])
    return s + (", ..." if len(nums) > limit else "")
