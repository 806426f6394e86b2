"""Text quality: is a document's text layer usable, missing (a scan) or garbage?

Running character statistics of the raw extracted text (:class:`TextStats`), a check of
the fonts MuPDF cannot map to Unicode (:func:`font_unmappable`), and the verdict
(:func:`text_quality`): "ok", "no text layer" (needs OCR) or "unreliable".
Nothing here imports PyMuPDF (the ``doc`` passed in is a ``pymupdf.Document``).
"""

from __future__ import annotations

import re

__all__ = ["TextStats", "font_unmappable", "text_quality"]

_BAD_CHAR_RE = re.compile(
    "[" + re.escape("".join(chr(c) for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)) + "\ufffd") + "]"
)
_WS_RE = re.compile(r"\s+")
_NON_ALNUM_RE = re.compile(r"[\W_]+")
_LATIN_TOKEN_RE = re.compile(r"[0-9A-Za-z\u00c0-\u024f]{4,}")
_LOWER_UPPER_RE = re.compile(r"[a-z\u00df-\u00ff\u0101-\u017f][A-Z\u00c0-\u00de\u0100-\u017e]")


def _junk_token(tok: str) -> bool:
    """A Latin token that no language writes: case flips inside, digits inside letters."""
    flips = len(_LOWER_UPPER_RE.findall(tok))
    if flips >= 2:
        return True
    if flips == 1 and any(c.isdigit() for c in tok[1:]) and not tok.isupper():
        return True
    return False


class TextStats:
    """Running character statistics of the RAW extracted text of a document."""

    __slots__ = ("chars", "bad", "letters", "tokens", "junk", "font_bad_chars")

    def __init__(self) -> None:
        self.chars = 0  # non-whitespace characters
        self.bad = 0  # control characters and U+FFFD
        self.letters = 0  # Unicode letters and digits
        self.tokens = 0  # Latin tokens of >= 4 chars
        self.junk = 0  # of which look like shifted/garbled code points
        self.font_bad_chars = 0  # chars on pages whose every font lacks a Unicode mapping

    def add(self, raw: str, *, fonts_unmappable: bool) -> None:
        n = len(_WS_RE.sub("", raw))
        self.chars += n
        self.bad += len(_BAD_CHAR_RE.findall(raw))
        self.letters += len(_NON_ALNUM_RE.sub("", raw))
        toks = _LATIN_TOKEN_RE.findall(raw)
        self.tokens += len(toks)
        self.junk += sum(1 for t in toks if _junk_token(t))
        if fonts_unmappable:
            self.font_bad_chars += n

    def verdict(self) -> str | None:
        """Return a reason string when the text layer looks like garbage, else None."""
        if self.chars == 0:
            return None
        bad = self.bad / self.chars
        if bad > 0.25:
            return f"{bad:.0%} of the characters are control codes or unknown glyphs"
        if self.font_bad_chars / self.chars > 0.5:
            return "fonts have no usable Unicode mapping"
        if self.chars >= 200 and self.letters / self.chars < 0.35:
            return f"only {self.letters / self.chars:.0%} of the characters are letters or digits"
        if self.tokens >= 20 and self.junk / self.tokens > 0.2:
            return f"{self.junk / self.tokens:.0%} of the words look like shifted code points"
        return None


_MEANINGLESS_GLYPH_RE = re.compile(r"^(?!uni[0-9A-Fa-f]{4}|u[0-9A-Fa-f]{4,6}$)[A-Za-z_.]{0,6}\d+$")


def font_unmappable(doc, xref: int, ftype: str, encoding: str, cache: dict[int, bool]) -> bool:
    """True when MuPDF cannot map this font's codes to Unicode (text will be glyph ids).

    Type3/simple fonts without /ToUnicode whose /Differences glyph names are mostly
    meaningless (``g1``, ``a12``): MuPDF then guesses, e.g. made/05 ``abcab`` -> ``ab ab``.
    """
    hit = cache.get(xref)
    if hit is not None:
        return hit
    result = False
    try:
        if xref > 0 and doc.xref_get_key(xref, "ToUnicode")[0] == "null":
            # Type0 fonts are left to the text statistics: MuPDF often maps Identity-H/V
            # CID fonts through the embedded font (real/cjk-japanese-vertical-writing).
            if ftype != "Type0":
                kind, diff = doc.xref_get_key(xref, "Encoding/Differences")
                if kind == "array":
                    names = re.findall(r"/([^\s/\[\]]+)", diff)
                    if names:
                        bad = sum(1 for n in names if _MEANINGLESS_GLYPH_RE.match(n))
                        result = bad / len(names) > 0.5
    except Exception:  # noqa: BLE001 - broken font dicts are not our problem here
        result = False
    cache[xref] = result
    return result


def text_quality(stats: TextStats, n: int, empty_pages: int, ocr_done: bool,
                 ocr_missing: bool, notes: list[str]) -> str:
    """The text quality of a document of ``n`` pages, ``empty_pages`` of them without
    text: "unreliable" when :meth:`TextStats.verdict` finds garbage, "no text layer" when
    no page has text (or under 10 % of 3+ pages do, with little text) and no page was
    OCR'd (``ocr_done``), else "ok". Appends the reason (and empty-page or unmapped-glyph
    counts) to ``notes``; the "needs OCR" note is left out when OCR is pending
    (``ocr_missing``: :mod:`pdftui.ocr` says so itself)."""
    quality = "ok"
    text_pages = n - empty_pages
    verdict = stats.verdict()
    if verdict:
        quality = "unreliable"
        notes.append(f"text layer looks garbled ({verdict})")
    elif text_pages == 0 or (stats.chars == 0 and not ocr_done):
        quality = "no text layer"
        if not ocr_missing:
            notes.append("no extractable text: scanned or blank pages (needs OCR)")
    elif (empty_pages and n >= 3 and text_pages / n < 0.1 and stats.chars < 20 * n
          and not ocr_done):
        quality = "no text layer"
        notes.append(f"only {text_pages} of {n} pages have text (scanned document?)")
    elif empty_pages:
        notes.append(f"{empty_pages} of {n} pages have no text")
    if quality == "ok" and stats.chars and stats.bad / stats.chars > 0.02:
        notes.append(f"{stats.bad / stats.chars:.0%} of the characters could not be mapped"
                     " to Unicode")
    return quality
