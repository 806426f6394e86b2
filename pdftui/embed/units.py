"""Embedding units: how a page's text is cut into windows the model can read whole.

A model reads at most a fixed number of tokens, so a long page is cut into windows of at
most that many tokens, each a substring of the page given by its character offsets (the
units table stores them, and excerpts and the reader map a semantic hit back to its place on
the page with them). :func:`split_units` is pure: text and a tokenizer in, character spans
out, so it is tested without a model. A :class:`UnitPlan` says how a page is cut (windows
with or without overlap, or units that follow the paragraphs) and how long a section's head
unit is; it is part of the embeddings' identity (another plan re-embeds).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from tokenizers import Tokenizer

from .model import DEFAULT_MAX_TOKENS

__all__ = ["DEFAULT_PLAN", "PLAN_1", "PLAN_2", "PLAN_3", "PLAN_4", "PLAN_5", "PLAN_6",
           "PLAN_7", "PLAN_8", "PLAN_9", "PLAN_10", "PLAN_11", "PLAN_12",
           "UnitPlan",
           "paragraph_spans", "replace_surrogates",
           "split_units", "tile_spans"]

_SURROGATES = re.compile("[\ud800-\udfff]")

#: ``find(hi, lo, step)``: the first cut point from token ``hi`` towards ``lo``, or None.
Finder = Callable[[int, int, int], "int | None"]


@dataclass(frozen=True, slots=True)
class UnitPlan:
    """How a page is cut into embedding units, and a section's head unit made.

    ``overlap``: windows of the model's full length advancing by about 3/4 of a window
    (~25 % overlap: plan 1) instead of the fewest windows of about equal length spread over
    the page; these share about ``shared`` tokens (a number of tokens) with each neighbour
    (0: they tile the page without overlap, plan 2). ``head_tokens``: a section head unit
    is the first unit of the section's own text, from its heading, cut the same way with
    at most ``head_tokens`` tokens (special tokens included; at most the model's limit).
    ``version`` is part of the embeddings' identity. ``paragraphs``: units follow the text
    instead (:func:`paragraph_spans`): cut where paragraphs end (a paragraph longer than
    the model's length where sentences end), neighbours merged while they fit, each
    section's heading starting a unit (so its head unit is a page unit, embedded once),
    table-like paragraphs units of their own; ``target``: neighbours are merged only
    while the unit holds fewer than ``target`` tokens (0: while they fit). ``fill``: a
    paragraph that does not fit whole is cut where a sentence ends, so each unit is filled
    up to the model's length (units end at paragraph ends only where a heading or a
    table-like paragraph follows), not ended before it. ``tables``: table-like paragraphs
    are units of their own (False: they are cut and merged as prose is, with their
    caption and the text around them). ``head_min`` (a number of tokens; 0: off): a
    section head that runs on past the page unit from its heading (its section crosses
    a page end) is that page unit when it holds at least ``head_min`` tokens, so it is
    embedded once. ``tiles`` (a number of tokens, special tokens included; 0: off): a page
    is cut into tiles of at most ``tiles`` tokens without overlap, each section heading
    starting one (:func:`tile_spans`), and only the tiles run through the model; its units
    are the pairs of neighbouring tiles, each vector the normalised sum of its two tiles'
    (:mod:`pdftui.embed.pairs`), and a section head is the pair of the section's first two
    tiles (no model run where they are page tiles). ``tile_heads`` (with ``tiles``): tiles
    start at section headings (False: tiles ignore them, and a section head is the pair
    from the tile holding its heading); ``weigh``: a pair's vector weighs each tile's by
    its tokens (a short tile counts for less).
    """

    version: int
    overlap: bool
    head_tokens: int
    shared: int = 0
    paragraphs: bool = False
    target: int = 0
    fill: bool = False
    tables: bool = True
    head_min: int = 0
    soft: bool = False
    tiles: int = 0
    tile_heads: bool = True
    weigh: bool = False

    def identity(self, weights_hash: str) -> str:
        """The ``embeddings.weights_hash`` value for vectors of these weights and this plan
        (plan 1 keeps the bare hash, so caches made before plans existed stay valid)."""
        return weights_hash if self.version == 1 else f"{weights_hash}+units{self.version}"


#: Overlapping full windows, full-window section heads (the product's plan).
PLAN_1 = UnitPlan(1, overlap=True, head_tokens=DEFAULT_MAX_TOKENS)
#: Candidates measured against plan 1 (bench/index.py, bench/quality.py; figures in
#: bench/README.md "Embedding"): equal windows without overlap (plan 2) or sharing about
#: 16 tokens with each neighbour (plan 3), 128-token section heads.
PLAN_2 = UnitPlan(2, overlap=False, head_tokens=128)
PLAN_3 = UnitPlan(3, overlap=False, head_tokens=128, shared=16)
#: Units that follow the text: paragraphs merged up to the model's length (plan 4), or
#: only up to about half of it (plan 5); section heads are page units where they coincide.
PLAN_4 = UnitPlan(4, overlap=False, head_tokens=DEFAULT_MAX_TOKENS, paragraphs=True)
PLAN_5 = UnitPlan(5, overlap=False, head_tokens=DEFAULT_MAX_TOKENS, paragraphs=True,
                  target=128)
#: Units that follow the text, filled: plan 4's cuts at headings and table-like
#: paragraphs, but between them the text tiled in units of the model's full length, each
#: ending where a sentence (or paragraph) ends.
PLAN_6 = UnitPlan(6, overlap=False, head_tokens=DEFAULT_MAX_TOKENS, paragraphs=True,
                  fill=True)
#: Plan 6 with table-like paragraphs in the units around them.
PLAN_7 = UnitPlan(7, overlap=False, head_tokens=DEFAULT_MAX_TOKENS, paragraphs=True,
                  fill=True, tables=False)
#: Plan 7 whose section heads crossing a page end are the page unit from their heading
#: when it holds at least half a window.
PLAN_8 = UnitPlan(8, overlap=False, head_tokens=DEFAULT_MAX_TOKENS, paragraphs=True,
                  fill=True, tables=False, head_min=DEFAULT_MAX_TOKENS // 2)
#: Plan 8 whose units start at a heading only when the unit before it holds at least half
#: a window (else the heading stays inside a unit and its head unit is embedded apart).
PLAN_9 = UnitPlan(9, overlap=False, head_tokens=DEFAULT_MAX_TOKENS, paragraphs=True,
                  fill=True, tables=False, head_min=DEFAULT_MAX_TOKENS // 2, soft=True)
#: Tiles of half the model's length, embedded once, searched as pairs of neighbours: plan
#: 1's geometry (full windows advancing by half a window) from one pass over the text;
#: section heads are pairs of page tiles (tiles start at headings).
PLAN_10 = UnitPlan(10, overlap=False, head_tokens=DEFAULT_MAX_TOKENS,
                   tiles=DEFAULT_MAX_TOKENS // 2)
#: Plan 10 whose tiles ignore headings (a section head is the pair from the tile holding
#: its heading) and whose pairs weigh each tile by its tokens.
PLAN_11 = UnitPlan(11, overlap=False, head_tokens=DEFAULT_MAX_TOKENS,
                   tiles=DEFAULT_MAX_TOKENS // 2, tile_heads=False, weigh=True)
#: Plan 10 whose pairs weigh each tile by its tokens (a heading's short tile counts less).
PLAN_12 = UnitPlan(12, overlap=False, head_tokens=DEFAULT_MAX_TOKENS,
                   tiles=DEFAULT_MAX_TOKENS // 2, weigh=True)
DEFAULT_PLAN = PLAN_1


def replace_surrogates(text: str) -> str:
    """``text`` with lone surrogates (unencodable in UTF-8) replaced one-for-one by U+FFFD.

    The length is unchanged, so character offsets into the result are offsets into ``text``.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _SURROGATES.sub("\ufffd", text)


def split_units(text: str, tokenizer: Tokenizer, budget: int, *, overlap: bool = True,
                shared: int = 0, plan: UnitPlan | None = None,
                cuts: Iterable[int] = ()) -> list[tuple[int, int]]:
    """Character spans ``[(start, end)]`` of ``text``'s embedding units, in order.

    ``budget`` is the most tokens a unit may hold, special tokens (and a passage prefix)
    not counted; ``tokenizer`` is a ``tokenizers.Tokenizer`` without truncation or padding.
    Returns ``[]`` for empty or whitespace-only text and ``[(0, len(text))]`` when the text
    fits (or cannot be tokenized); otherwise windows of at most ``budget`` tokens: with
    ``overlap`` advancing by about 3/4 of a window (~25 % overlap), else the fewest windows
    of about equal length spread over the text, each sharing about ``shared`` tokens with
    its neighbours (0: they tile the text without overlap). Cuts fall where the
    tokenizer's offsets show a whitespace gap (else at a pre-token / word boundary, else
    anywhere); a window starts at its first token and ends with its last token, and the last
    one ends at the text's last token. A ``plan`` with ``paragraphs`` cuts by
    :func:`paragraph_spans` instead (``cuts``: character offsets where a unit must start,
    e.g. the page's section headings), even when the text fits. Never raises on odd text
    (control characters, CJK, lone surrogates, very long words).
    """
    if not text or not text.strip():
        return []
    clean = replace_surrogates(text)
    try:
        enc = tokenizer.encode(clean, add_special_tokens=False)
    except Exception:  # noqa: BLE001 - the tokenizer must never stop indexing
        return [(0, len(text))]
    offsets = enc.offsets
    n = len(offsets)
    if plan is not None and plan.paragraphs and n:
        find = _boundary_finder(offsets, enc.word_ids)
        tokens = paragraph_spans(clean, offsets, budget, find, target=plan.target,
                                 cuts=cuts, fill=plan.fill, tables=plan.tables,
                                 soft=plan.soft)
        spans = _fit(clean, tokenizer, offsets, tokens, budget)
        return [(s, e) for s, e in spans if text[s:e].strip()] or [(0, len(text))]
    if n <= budget:
        return [(0, len(text))]
    find = _boundary_finder(offsets, enc.word_ids)
    if overlap:
        tokens = _overlapping(n, budget, find)
    elif shared > 0:
        tokens = _spaced(n, budget, min(shared, budget // 2), find)
    else:
        tokens = _tile(n, budget, find)
    spans = _fit(clean, tokenizer, offsets, tokens, budget)
    return [(s, e) for s, e in spans if text[s:e].strip()] or [(0, len(text))]


def tile_spans(text: str, tokenizer: Tokenizer, budget: int, cuts: Iterable[int] = ()
               ) -> list[tuple[int, int]]:
    """Character spans ``[(start, end)]`` of tiles cutting ``text`` without overlap, in
    order: the text is parted at each character offset of ``cuts`` (a tile starts at the
    first token starting there or after; e.g. the page's section headings), and each part
    cut into the fewest tiles of at most ``budget`` tokens (special tokens not counted) of
    about equal length, at whitespace or word boundaries (:func:`_tile`). ``[]`` for blank
    text, ``[(0, len(text))]`` when it cannot be tokenized. Never raises on odd text."""
    if not text or not text.strip():
        return []
    clean = replace_surrogates(text)
    try:
        enc = tokenizer.encode(clean, add_special_tokens=False)
    except Exception:  # noqa: BLE001 - the tokenizer must never stop indexing
        return [(0, len(text))]
    offsets = enc.offsets
    n = len(offsets)
    if not n:
        return [(0, len(text))]
    find = _boundary_finder(offsets, enc.word_ids)
    starts = [a for a, _b in offsets]
    bounds = sorted({0, n} | {bisect.bisect_left(starts, c) for c in cuts})
    tokens: list[tuple[int, int]] = []
    for a, b in zip(bounds, bounds[1:]):
        def part_find(hi: int, lo: int, step: int, a: int = a) -> int | None:
            got = find(hi + a, lo + a, step)
            return None if got is None else got - a
        tokens += [(a + s, a + e) for s, e in _tile(b - a, budget, part_find)]
    spans = _fit(clean, tokenizer, offsets, tokens, budget)
    return [(s, e) for s, e in spans if text[s:e].strip()] or [(0, len(text))]


_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SENTENCE_END = frozenset(".!?")


def paragraph_spans(text: str, offsets: list[tuple[int, int]], budget: int, find: Finder, *,
                    target: int = 0, cuts: Iterable[int] = (), fill: bool = False,
                    tables: bool = True, soft: bool = False) -> list[tuple[int, int]]:
    """Token spans ``[(s, e)]`` of units that follow ``text``'s paragraphs (separated by a
    blank line), given the tokens' character ``offsets``: each paragraph a piece, one longer
    than ``budget`` tokens cut into pieces where sentences end (a token after '.', '!' or
    '?' and a space; else at the word boundary ``find`` sees, else anywhere); then
    neighbouring pieces merged while the unit stays within ``budget`` (and, with
    ``target``, while it holds fewer than ``target`` tokens). A piece starting at or after
    one of the character offsets ``cuts`` (before the next piece) starts a unit, and a
    table-like paragraph (:func:`_tabular`) is never merged. With ``fill``, the
    paragraphs between two such starts are one run cut by :func:`_sentence_pieces` (each
    unit as long as the budget allows, ending where a sentence or paragraph ends); with
    ``fill`` and not ``tables``, a table-like paragraph is prose. The spans tile tokens
    ``[0, len(offsets))`` in order."""
    if fill:
        return _filled(text, offsets, budget, find, cuts, tables, soft)
    pieces = [(s, e, own) for s, e, own in _paragraph_tokens(text, offsets)
              for s, e in _sentence_pieces(s, e, text, offsets, budget, find)]
    starts = [offsets[s][0] for s, _e, _own in pieces]
    forced = {bisect.bisect_left(starts, c) for c in cuts}
    units: list[list] = []
    for k, (s, e, own) in enumerate(pieces):
        if units:
            last = units[-1]
            full = e - last[0] > budget or (target and last[1] - last[0] >= target)
            if not (k in forced or own or last[2] or full):
                last[1] = e
                continue
        units.append([s, e, own])
    units[0][0], units[-1][1] = 0, len(offsets)
    return [(s, e) for s, e, _own in units]


def _filled(text: str, offsets: list[tuple[int, int]], budget: int, find: Finder,
            cuts: Iterable[int], tables: bool = True, soft: bool = False
            ) -> list[tuple[int, int]]:
    """:func:`paragraph_spans` with ``fill``: runs of paragraphs from one forced start
    (a ``cuts`` offset; with ``tables``, a table-like paragraph or the paragraph after
    one) to the next, each cut into units of at most ``budget`` tokens. ``soft``: a
    ``cuts`` offset starts a unit only when the unit before it would hold more than
    half the budget (:func:`_sentence_pieces`'s ``heads``)."""
    paras = _paragraph_tokens(text, offsets)
    if not tables:
        paras = [(s, e, False) for s, e, _own in paras]
    starts = [offsets[s][0] for s, _e, _own in paras]
    forced = {bisect.bisect_left(starts, c) for c in cuts}
    heads: set[int] = set()
    if soft:
        heads = {paras[k][0] for k in forced if 0 < k < len(paras)}
        forced = set()
    runs: list[list[int]] = []
    for k, (s, e, own) in enumerate(paras):
        if runs and not (k in forced or own or paras[k - 1][2]):
            runs[-1][1] = e
        else:
            runs.append([s, e])
    firsts = {s for s, _e, _own in paras}
    out = [p for s, e in runs
           for p in _sentence_pieces(s, e, text, offsets, budget, find, firsts, heads)]
    out[0], out[-1] = (0, out[0][1]), (out[-1][0], len(offsets))
    return out


def _paragraph_tokens(text: str, offsets: list[tuple[int, int]]
                      ) -> list[tuple[int, int, bool]]:
    """``[(first token, end token, table-like)]`` of each paragraph holding tokens, tiling
    the tokens: a token belongs to the paragraph its first character is in."""
    bounds = [0] + [m.end() for m in _PARAGRAPH_BREAK.finditer(text)]
    token_starts = [a for a, _b in offsets]
    firsts = sorted({bisect.bisect_left(token_starts, b) for b in bounds} | {0})
    out = []
    for k, s in enumerate(firsts):
        e = firsts[k + 1] if k + 1 < len(firsts) else len(offsets)
        if e > s:
            out.append((s, e, _tabular(text[offsets[s][0]:offsets[e - 1][1]])))
    return out


def _tabular(paragraph: str) -> bool:
    """Whether a paragraph reads as a table rather than prose: eight words or more, and
    most of them numbers (40 % or more hold a digit) or "Header: value; Header: value"
    records (tables.py writes ruled tables' rows so)."""
    words = paragraph.split()
    if len(words) < 8:
        return False
    numeric = sum(any(c.isdigit() for c in w) for w in words)
    return numeric >= 0.4 * len(words) or (paragraph.count(": ") >= 3
                                           and paragraph.count("; ") >= 2)


def _sentence_pieces(s: int, e: int, text: str, offsets: list[tuple[int, int]], budget: int,
                     find: Finder, firsts: frozenset[int] | set[int] = frozenset(),
                     heads: frozenset[int] | set[int] = frozenset()
                     ) -> list[tuple[int, int]]:
    """Tokens ``[s, e)`` as pieces of at most ``budget`` tokens, each ending before the
    first token of ``heads`` (a heading's first) past half the budget, else at the last
    sentence end (or before a token of ``firsts``: a paragraph's first) that fits (when
    the piece keeps at least a quarter of the budget), else at a word boundary, else at
    the budget."""
    pieces = []
    while True:
        head = min((h for h in heads if s + budget // 2 < h <= min(e - 1, s + budget)),
                   default=None)
        if head is not None:
            pieces.append((s, head))
            s = head
            continue
        if e - s <= budget:
            break
        cut = None
        for i in range(s + budget, s + budget // 4, -1):
            prev = text[offsets[i - 1][0]:offsets[i - 1][1]]
            if i in firsts or (prev[-1:] in _SENTENCE_END
                               and offsets[i][0] > offsets[i - 1][1]):
                cut = i
                break
        cut = cut or find(s + budget, s + budget // 2, -1) or s + budget
        pieces.append((s, cut))
        s = cut
    pieces.append((s, e))
    return pieces


def _boundary_finder(offsets: list[tuple[int, int]], word_ids: list[int | None]) -> Finder:
    """``find(hi, lo, step)``: the first token index from ``hi`` towards ``lo`` (inclusive,
    by ``step``) that starts after whitespace, else the first that starts a new pre-token."""
    n = len(offsets)

    def strong(i: int) -> bool:  # token i follows whitespace (or dropped characters)
        return offsets[i][0] > offsets[i - 1][1]

    def weak(i: int) -> bool:  # token i starts a new pre-token (word or punctuation)
        return word_ids[i] != word_ids[i - 1] or word_ids[i] is None

    def find(hi: int, lo: int, step: int) -> int | None:
        for test in (strong, weak):
            for i in range(hi, lo + step, step):
                if 0 < i < n and test(i):
                    return i
        return None

    return find


def _overlapping(n: int, budget: int, find: Finder) -> list[tuple[int, int]]:
    """Token spans of windows of at most ``budget`` tokens advancing by about 3/4 of a
    window; the last one as large as allowed, ending at token ``n``."""
    stride = max(1, (budget * 3) // 4)
    spans: list[tuple[int, int]] = []
    s = 0
    while n - s > budget:
        limit = s + budget  # window is tokens [s, e)
        e = find(limit, s + budget // 2, -1) or limit
        spans.append((s, e))
        target = min(s + stride, e - 1)
        nxt = max(find(target, max(s + 1, s + budget // 4), -1) or target, s + 1)
        if n - nxt <= budget:
            first = n - budget
            fs = find(first, min(n - 1, first + budget // 4), 1) or first
            spans.append((max(fs, s + 1), n))
            return spans
        s = nxt
    spans.append((s, n))
    return spans


def _tile(n: int, budget: int, find: Finder) -> list[tuple[int, int]]:
    """Token spans ``[(s, e)]`` tiling ``n`` tokens in the fewest windows of at most
    ``budget`` tokens, of about equal length, each cut at the boundary ``find(hi, lo, -1)``
    finds at or before the equal share (within 1/8 of a window), else at the share itself."""
    spans: list[tuple[int, int]] = []
    s = 0
    while n - s > budget:
        k = -(-(n - s) // budget)               # windows still needed
        hi = min(s + budget, s + -(-(n - s) // k))
        e = find(hi, max(s + 1, hi - budget // 8), -1) or hi
        spans.append((s, e))
        s = e
    spans.append((s, n))
    return spans


def _spaced(n: int, budget: int, shared: int, find: Finder) -> list[tuple[int, int]]:
    """Token spans of the fewest windows of at most ``budget`` tokens, of about equal
    length, spread evenly from token 0 to token ``n`` so that neighbours share ``shared``
    tokens; each start moves back (else forward) and each end back or forward to a
    boundary ``find`` sees within ``shared // 2`` tokens, so neighbours share about
    ``shared`` tokens and at least half of it, and each window stays within ``budget``."""
    k = -(-(n - shared) // (budget - shared))
    length = -(-(n + (k - 1) * shared) // k)
    step = (n - length) / (k - 1)
    slack = max(1, shared // 2)
    spans: list[tuple[int, int]] = []
    for i in range(k):
        s0 = round(i * step)
        if i == 0:
            s = 0
        else:
            lo = max(spans[-1][0] + 1, s0 - slack, n - budget if i == k - 1 else 0)
            s = find(s0, lo, -1) or find(s0 + 1, min(s0 + slack, spans[-1][1] - 1), 1) or s0
        if i == k - 1:
            e = n
        else:
            e0 = s0 + length
            e = find(min(s + budget, e0 + slack), e0 - slack, -1) or min(s + budget, e0)
        spans.append((s, e))
    return spans


def _fit(clean: str, tokenizer: Tokenizer, offsets: list[tuple[int, int]],
         tokens: list[tuple[int, int]], budget: int) -> list[tuple[int, int]]:
    """Character spans of the token windows ``tokens``, each shrunk until re-tokenising its
    text alone gives at most ``budget`` tokens (a window cut inside a word can give more
    tokens than its slice did, with other tokenizers than WordPiece)."""
    def chars(s: int, e: int) -> tuple[int, int]:
        start = offsets[s][0]
        return start, max(offsets[e - 1][1], start)

    spans = [chars(s, e) for s, e in tokens]
    try:
        encoded = tokenizer.encode_batch([clean[a:b] for a, b in spans],
                                         add_special_tokens=False)
        for k, ((s, e), enc) in enumerate(zip(tokens, encoded)):
            count = len(enc.ids)
            for _ in range(20):
                if count <= budget or e - s <= 1:
                    break
                e = max(s + 1, e - (count - budget) - 1)
                spans[k] = chars(s, e)
                a, b = spans[k]
                count = len(tokenizer.encode(clean[a:b], add_special_tokens=False).ids)
    except Exception:  # noqa: BLE001 - keep the windows as cut
        pass
    return spans
