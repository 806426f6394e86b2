"""Page furniture: the running headers, running footers and page numbers a document
repeats at the edges of its pages ("Published as a conference paper at ICLR 2018",
"Paxos Made Simple 3", "12").

They are part of each page's text (a page search may match them, and ``read --page``
shows the page as printed), but not of its prose: an excerpt that opens with the running
header, or a section's paragraph cut in two by the page number between its pages, reads
wrong. :func:`detect` finds them from a document's blocks; :func:`blanked` and
:func:`tidy` leave them out of excerpts and of a section read whole.

The rule is the usual one of layout analysis: a short block among a page's first or
last :data:`EDGE` blocks is furniture when its text, digits ignored, recurs in that
place on at least :data:`SHARE` of the pages (and :data:`MIN_PAGES` pages), or on
:data:`FOLIO_PAGES` pages with a different page number at one end (a head naming the
chapter or section, which recurs only on its pages), or
when it is only a page number. Nothing here reads SQLite or a PDF.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

EDGE = 2            # blocks at each end of a page looked at
MIN_PAGES = 3       # a running line recurs on at least this many pages
FOLIO_PAGES = 2     # ... a head with a page number at one end, with different numbers
SHARE = 0.3         # ... and on at least this share of the document's pages
MAX_CHARS = 160     # longer blocks are prose, never furniture

_PAGE_NUMBER_RE = re.compile(
    r"^\s*[-–—]?\s*(page\s+)?(\d{1,4}|[ivx]{1,5})(\s*(/|of)\s*\d{1,4})?\s*[-–—]?\s*$", re.I)
_SENTENCE_END = tuple(".!?:;)]}\"'”’")


def line_key(text: str) -> str:
    """``text`` compared across pages: lower case, digits as ``#``, spaces collapsed
    ("Paxos Made Simple 3" and "Paxos Made Simple 4" are one running line)."""
    return " ".join(re.sub(r"\d+", "#", text.lower()).split())


def page_number(text: str) -> bool:
    """True for a block that is only a page number ("12", "- 3 -", "Page 4 of 9", "xii")."""
    return bool(_PAGE_NUMBER_RE.match(text))


@dataclass(frozen=True)
class Furniture:
    """The furniture of one document: ``blocks`` its ``(page, ordinal)`` positions
    (pages 1-based, ordinals as stored) and ``lines`` the running lines found."""

    blocks: frozenset[tuple[int, int]] = frozenset()
    lines: frozenset[str] = frozenset()

    def __contains__(self, pos: object) -> bool:
        return pos in self.blocks


def _edges(rows: Iterable[tuple[int, int, str]]) -> dict[int, list[tuple[int, str]]]:
    """``{page: [(ordinal, text)]}`` of the first and last :data:`EDGE` non-empty blocks
    of each page (rows in reading order)."""
    pages: dict[int, list[tuple[int, str]]] = {}
    for page, ordinal, text in rows:
        if text.strip():
            pages.setdefault(page, []).append((ordinal, text))
    return {p: (bs if len(bs) <= 2 * EDGE else bs[:EDGE] + bs[-EDGE:])
            for p, bs in pages.items()}


def detect(rows: Iterable[tuple[int, int, str]]) -> Furniture:
    """The furniture of a document from its blocks ``[(page, ordinal, text)]`` in reading
    order (every page). Pages with one block (a slide, a figure page) count towards the
    share but their block is never a running line."""
    edges = _edges(rows)
    n = len(edges)
    seen: Counter[str] = Counter()
    folios: dict[str, set[str]] = {}   # key -> its texts (a running head's number changes)
    for bs in edges.values():
        keys = {line_key(t): t.strip() for _o, t in bs if len(t) <= MAX_CHARS}
        seen.update(keys.keys())
        for k, t in keys.items():
            folios.setdefault(k, set()).add(t)
    need = max(MIN_PAGES, SHARE * n)
    lines = {k for k, c in seen.items() if c >= need and any(ch.isalpha() for ch in k)}
    # a head that changes with the chapter ("12 Chapter 3. Debian Developer's Duties",
    # "3.2. Administrative Duties 13") recurs on that chapter's pages only: its folio, a
    # number at one end that differs from page to page, says what it is; so does the same
    # head where the folio stood apart
    folio = {k for k, c in seen.items()
             if len(folios[k]) >= FOLIO_PAGES and _with_folio(k)}
    lines |= folio | {k for k in seen if f"# {k}" in folio or f"{k} #" in folio}
    lines = frozenset(lines)
    out = set()
    for page, bs in edges.items():
        if len(bs) < 2:
            continue
        for ordinal, text in bs:
            if len(text) <= MAX_CHARS and (line_key(text) in lines or page_number(text)):
                out.add((page, ordinal))
    return Furniture(frozenset(out), lines)


def _with_folio(key: str) -> bool:
    """Could the line ``key`` (:func:`line_key`) be a running head with its page number: a
    number at its start or end and two words or more ("# chapter #. duties"; not a lone
    "table #")?"""
    words = [w for w in key.split() if any(ch.isalpha() for ch in w)]
    return (key.startswith("# ") or key.endswith(" #")) and len(words) >= 2


def blanked(blocks: Sequence[str], page: int, furniture: Furniture) -> list[str]:
    """The block texts of ``page`` (all of them, in stored order) with its furniture
    replaced by '' (block indices stay those of the page)."""
    return ["" if (page, i) in furniture else b for i, b in enumerate(blocks)]


def tidy(paragraphs: Sequence[str], positions: Sequence[tuple[int, int]],
         furniture: Furniture) -> tuple[list[str], list[tuple[int, int]]]:
    """A section read whole without its furniture: ``paragraphs`` (one per block) and their
    ``(page, ordinal)`` ``positions`` without the furniture blocks, and a paragraph that a
    page break cut mid-sentence joined to its continuation on the next page (the first
    ends without a sentence's end, the next starts with a lower-case letter); the joined
    paragraph keeps the first's position. Lists of equal length in, equal length out."""
    out: list[str] = []
    pos: list[tuple[int, int]] = []
    for text, at in zip(paragraphs, positions):
        if at in furniture:
            continue
        if out and pos[-1][0] != at[0] and _cut(out[-1], text):
            prev = out[-1].rstrip()
            out[-1] = prev[:-1] + text.lstrip() if prev.endswith("-") and prev[-2:-1].isalpha() \
                else prev + " " + text.lstrip()
            continue
        out.append(text)
        pos.append(at)
    return out, pos


def _cut(prev: str, text: str) -> bool:
    """Does ``prev`` stop mid-sentence and ``text`` carry it on?"""
    a, b = prev.rstrip(), text.lstrip()
    return bool(a and b) and not a.endswith(_SENTENCE_END) and b[0].islower() and "\n" not in a


__all__ = ["Furniture", "blanked", "detect", "line_key", "page_number", "tidy"]
