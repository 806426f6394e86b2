"""The text of one page: normalisation, line joining, soft hyphens, form values, annotations.

:func:`normalize_text` is the one normalisation of text for indexing, display and queries
(NFKC, invisible and control characters removed, whitespace collapsed); :func:`join_lines`
joins the visual lines of a block into a paragraph, repairing line-end hyphenation. Soft
hyphens that a simple (WinAnsi) font draws as ``-`` are recovered from the page's content
stream (:func:`soft_hyphen_fixes`: made/02 ``hy-phen`` -> ``hyphen``). Form widget values
and annotation texts that the page does not draw become extra blocks
(:func:`add_form_values`, :func:`annotation_blocks`). Stage 4-6 of
:mod:`pdftui.extract`'s pipeline.
"""

from __future__ import annotations

import re
import unicodedata

from pdftui.document import Block, Line
from pdftui.text import _ANSI_RE, clip, strip_control

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


#: Characters at the end of the joined text that line joining looks at (the last word's
#: hyphenation fragment); a longer word is judged by its last characters.
_TAIL_CHARS = 64


def _hyphen_join(prev: str, nxt: str) -> tuple[int, str]:
    """How to join the text ending ``prev`` (its last characters, ending in a hyphen) with
    the next line ``nxt``: ``(characters to drop from the end, separator)``."""
    last = prev.rpartition(" ")[2]
    frag = last[:-1].lstrip(_LEAD_PUNCT)
    if not frag:  # a free-standing dash at the line end: keep it, keep the space
        return 0, " "
    first = nxt[0]
    if (
        len(frag) >= 2
        and frag.isalpha()
        and (frag.islower() or frag[1:].islower())   # "zeppe-", "Sim-" (sentence start)
        and first.isalpha()
        and first.islower()
        and not any(h in frag for h in _HYPHENS)
    ):
        return 1, ""  # line-break artefact: zeppe- + linophile
    return 0, ""  # real hyphen: state-of-the- + art, n- + octanal, 10- + 20


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
    parts: list[str] = []
    tail = ""   # the last _TAIL_CHARS characters joined so far
    for raw in lines:
        soft = raw.rstrip().endswith("\u00ad")
        ln = normalize_text(raw) if ("\u00ad" in raw or "\x1b" in raw) else raw.strip()
        if not ln:
            continue
        drop, sep = 0, " "
        if not parts:
            sep = ""
        elif tail.endswith("\u00ad"):
            drop, sep = 1, ""
        elif tail.endswith(_HYPHENS):
            drop, sep = _hyphen_join(tail, ln)
        elif _is_cjk(tail[-1]) and _is_cjk(ln[0]):
            sep = ""  # CJK text has no spaces between words or wrapped lines
        if drop:
            _drop_last(parts)
            tail = tail[:-1]
        mark = "\u00ad" if soft else ""
        parts += [sep, ln, mark]
        tail = (tail + sep + ln + mark)[-_TAIL_CHARS:]
    return "".join(parts).rstrip("\u00ad")


def _drop_last(parts: list[str]) -> None:
    """Drop the last character of the text ``parts`` join to (empty parts skipped)."""
    while parts and not parts[-1]:
        parts.pop()
    if parts:
        parts[-1] = parts[-1][:-1]


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


def soft_hyphen_fixes(page, text_sample: str) -> dict[str, str]:
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


def add_form_values(page, blocks: list[Block], lines: list[Line], with_lines: bool) -> int:
    """Append the page's form field values not already in its text as one block (and
    lines); returns how many were added (0 on any error: the text stays as it was)."""
    from .mupdf import pymupdf

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
