"""Which embedding units lie inside which section, and where a section's text runs.

A section is ranked by the units with at least half their characters inside its *own*
text (its heading block up to the next heading of any level): :func:`unit_map`. Positions
inside a document are ``page * PAGE_STRIDE + character offset`` in the page text.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from ..cache import HEAD_UNITS
from ..document import Section
from ..store.reader import read_block_texts, read_pages
from ..sections import is_summary_title
from .excerpt import block_spans

#: Positions inside a document are ``page * PAGE_STRIDE + character offset`` (no page holds
#: this many characters).
PAGE_STRIDE = 10_000_000


def units_inside(us: np.ndarray, ue: np.ndarray, a: int, b: int) -> np.ndarray:
    """Indexes of the units (positions ``us[i]`` .. ``ue[i]``) with at least half their
    characters inside ``a`` .. ``b``, else of every unit overlapping it."""
    inside = np.minimum(ue, b) - np.maximum(us, a)
    hit = np.flatnonzero(inside * 2 >= (ue - us))
    if not len(hit):
        hit = np.flatnonzero((us < b) & (ue > a))
    return hit


def block_ranges(secs: list[Section], sid: int, whole: bool
                 ) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``[((page, block), (page, block))]``, first inclusive, last exclusive: the own
    text of section ``sid`` of ``secs`` (in document order; up to the next heading of any
    level) and, ``whole``, the own text of each of its subsections, one range each (a
    passage does not run across a heading); [] when ``sid`` is not among them."""
    at = next((i for i, s in enumerate(secs) if s.id == sid), None)
    if at is None:
        return []
    out = []
    j = at
    while j == at or (whole and j < len(secs) and secs[j].level > secs[at].level):
        end = secs[j + 1].start if j + 1 < len(secs) else (secs[j].end_page, 1 << 30)
        out.append((secs[j].start, end))
        j += 1
    return out


def block_positions(db: sqlite3.Connection, cid: int):
    """``pos(page, block) -> int``: where block ``block`` (0-based) of ``page`` starts
    in content ``cid``, as ``page * PAGE_STRIDE + character offset`` in its page text
    (a block past the page's last: the page's end). Pages are read once, when asked."""
    texts = {n: p.text for n, p in read_pages(db, cid).items()}
    blocks: dict[int, list[str]] = {}
    for b in read_block_texts(db, cid):
        blocks.setdefault(b.page, []).append(b.text)
    starts_of: dict[int, list[int]] = {}

    def pos(page: int, block: int) -> int:
        st = starts_of.get(page)
        if st is None:
            st = [a for a, _b in block_spans(texts.get(page, ""), blocks.get(page, []))]
            starts_of[page] = st
        off = st[block] if 0 <= block < len(st) else len(texts.get(page, ""))
        return page * PAGE_STRIDE + min(off, PAGE_STRIDE - 1)

    return pos


def unit_map(pages: np.ndarray, spans: np.ndarray, secs: list[Section], pos
             ) -> tuple[tuple | None, frozenset[int]]:
    """``((section ids, levels, start pages, segment starts, unit indexes), opening)`` of
    one content whose units sit on ``pages`` at character ``spans`` (n, 2): for each
    section, the units inside its own text (from its heading's block to the next heading of
    any level), as one flat array cut into segments (None when no section holds a unit);
    ``opening`` the ids of the sections starting in the document's opening (its first
    ``HEAD_UNITS`` units) that are its first section or titled as a summary. ``pos`` is
    :func:`block_positions` of the content."""
    n_units = len(pages)
    big = PAGE_STRIDE
    us = pages.astype(np.int64) * big + spans[:, 0]
    ue = pages.astype(np.int64) * big + spans[:, 1]
    sids, levels, sps, seg, idx = [], [], [], [], []
    # the document's opening: its first HEAD_UNITS units (its head vector's text)
    head_end = int(ue[min(HEAD_UNITS, n_units) - 1])
    opening = set()
    for k, sec in enumerate(secs):
        a = pos(*sec.start)
        b = pos(*sec.end)
        if a < head_end and (k == 0 or is_summary_title(sec.title)):
            opening.add(sec.id)
        if b <= a:   # no text of its own: the rest of its start page (Section.contains)
            b = (sec.start_page + 1) * big
        if k + 1 < len(secs):
            # up to the next heading of any level: a parent is ranked by its own text,
            # not again by its subsections' (they are hits of their own)
            nxt = pos(*secs[k + 1].start)
            if a < nxt < b:
                b = nxt
        hit = units_inside(us, ue, a, b)
        if not len(hit):
            continue
        sids.append(sec.id)
        levels.append(sec.level)
        sps.append(sec.start_page)
        seg.append(len(idx))
        idx.extend(hit.tolist())
    out = (np.array(sids, dtype=np.int64), np.array(levels), np.array(sps),
           np.array(seg, dtype=np.int64),
           np.array(idx, dtype=np.int64)) if sids else None
    return out, frozenset(opening)
