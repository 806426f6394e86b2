"""Choosing the excerpt of a hit: the paragraph-sized block that holds the match.

Pure functions over block texts plus one helper that tokenises many blocks at once with the
index's own tokenizer (:func:`pdftui.search.keyword.tokenize_many`), so "holds the match"
means exactly what the keyword arm matched (porter stems, prefixes, CJK unigrams).

Rules (issue 3 item 5): the block with the most distinct query terms wins, skipping blocks
under ``MIN_CHARS`` characters (headings, captions, page numbers) unless nothing longer
matches; for a semantic-only hit the block overlapping the best embedding unit's character
range most (ties: more query terms, then earlier). A block shorter than ``MIN_CHARS`` is
shown with the blocks that follow it (:func:`grow`). The text is capped near ``MAX_CHARS``
characters at a word boundary, with an ellipsis.
"""

from __future__ import annotations

from collections.abc import Sequence

from .keyword import Term, tokenize_many

MIN_CHARS = 80
MAX_CHARS = 2000
#: Characters shown before the match when a long block's excerpt is centred on it (short,
#: so that a display cut to a few lines still shows the match).
LEAD_CHARS = 120


def cap(text: str, limit: int = MAX_CHARS, around: int | None = None) -> str:
    """``text`` with whitespace runs collapsed, cut at a word boundary near ``limit``
    characters (an ellipsis marks the cut). ``around``: a character offset in ``text``
    (the match) that the window must hold; the window then starts about
    :data:`LEAD_CHARS` before it (an ellipsis marks that cut too), so a match deep inside a very
    long block is shown, not the block's opening."""
    if around is not None and around > LEAD_CHARS and len(text) > limit:
        start = text.rfind(" ", 0, max(0, around - LEAD_CHARS)) + 1
        return "… " + cap(text[start:], limit)
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    if cut < limit * 0.8:
        cut = limit
    return text[:cut].rstrip() + " …"


def block_spans(page_text: str, blocks: Sequence[str]) -> list[tuple[int, int]]:
    """Character range of each block inside the page text, ``[(start, end)]``.

    Blocks are searched for in order; a block not found verbatim gets the range between
    its neighbours (an empty range at the running position).
    """
    spans = []
    pos = 0
    for b in blocks:
        i = page_text.find(b, pos) if b else -1
        if i < 0:
            spans.append((pos, pos))
        else:
            spans.append((i, i + len(b)))
            pos = i + len(b)
    return spans


def matched_terms(block_stems: set[str], terms: Sequence[Term]) -> int:
    """How many distinct query terms a block's stems contain (prefix terms by prefix)."""
    n = 0
    for t in terms:
        if t.prefix:
            if any(s.startswith(t.text) for s in block_stems):
                n += 1
        elif t.text in block_stems:
            n += 1
    return n


def match_offset(text: str, terms: Sequence[Term]) -> int | None:
    """Character offset of the first word of ``text`` that a query term matches (a word
    starting with the term's stem, case-insensitively; a stem whose last letter the
    stemmer changed, "happi" for "happy", is tried without it), or None."""
    import re

    best = None
    low = text.casefold()
    for t in terms:
        stem = t.text.casefold()
        for probe in (stem, stem[:-1] if len(stem) > 4 else None):
            if not probe:
                continue
            m = re.search(r"(?<!\w)" + re.escape(probe), low)
            if m:
                best = m.start() if best is None else min(best, m.start())
                break
    return best


def _capped(text: str, terms: Sequence[Term]) -> str:
    """:func:`cap` of a chosen block, centred on the match when the block is long."""
    return cap(text, around=match_offset(text, terms) if len(text) > MAX_CHARS else None)


def grow(blocks: Sequence[str], i: int, min_chars: int = MIN_CHARS) -> str:
    """Block ``i``'s text, joined with the blocks after it (then before it, at the end of
    the page) until it holds ``min_chars`` characters: a match in a heading, a one-letter
    line or a caption is shown with the paragraph it belongs to, not alone."""
    text = blocks[i].strip()
    j = i + 1
    while len(text) < min_chars and j < len(blocks):
        if blocks[j].strip():
            text = f"{text} {blocks[j].strip()}"
        j += 1
    j = i - 1
    while len(text) < min_chars and j >= 0:
        if blocks[j].strip():
            text = f"{blocks[j].strip()} {text}"
        j -= 1
    return text


def choose(blocks: Sequence[str], terms: Sequence[Term],
           unit_span: tuple[int, int] | None = None, page_text: str | None = None,
           stems: Sequence[set[str]] | None = None) -> tuple[int, str]:
    """The excerpt of one page: ``(block index, capped plain text)``; ``(-1, "")`` when the
    page has no blocks.

    ``unit_span`` (with ``page_text``) is the best embedding unit's char range, for hits
    that only the semantic arm found. ``stems`` are the blocks' stem sets if already known.
    """
    if not blocks:
        return -1, ""
    if stems is None:
        stems = tokenize_many(list(blocks), list(terms)) if terms else [set() for _ in blocks]
    counts = [matched_terms(s, terms) for s in stems]
    long_ = [len(b.strip()) >= MIN_CHARS for b in blocks]
    if unit_span is not None and page_text is not None:
        spans = block_spans(page_text, blocks)
        a, b = unit_span
        overlap = [max(0, min(b, e) - max(a, s)) for s, e in spans]
        cands = [i for i in range(len(blocks)) if overlap[i] > 0 and long_[i]] or \
            [i for i in range(len(blocks)) if overlap[i] > 0]
        if cands:
            best = max(cands, key=lambda i: (counts[i], overlap[i], -i))
            return best, _capped(grow(blocks, best), terms)
    pool = [i for i in range(len(blocks)) if long_[i]]
    if not pool or max(counts[i] for i in pool) == 0 and max(counts) > 0:
        pool = list(range(len(blocks)))
    best = max(pool, key=lambda i: (counts[i], -i))
    return best, _capped(grow(blocks, best), terms)
