"""Embedding units (pdftui.embed.units.split_units): character spans from the tokenizer alone,
no model. The spans of a real corpus page are held against the ones the earlier code gave
(``Embedder.units`` then ``str.find`` for the offsets), so the units and their vectors stay
the same."""

from __future__ import annotations

import pymupdf
import pytest

import numpy as np

from pdftui.embed import (PLAN_1, PLAN_2, PLAN_3, PLAN_4, PLAN_5, PLAN_6, PLAN_7, PLAN_8,
                          PLAN_9, PLAN_10, Embedder, split_units)
from pdftui.embed.pairs import head_tiles, pair_spans, pair_vector
from pdftui.embed.units import tile_spans
from pdftui.index.embedding import page_unit_head
from pdftui.embed.model import default_tokenizer

from .conftest import corpus_pdf

#: Page 4 of "Attention Is All You Need" (v7): its text length, then the spans the earlier
#: code gave for plan 1 (overlapping windows), plan 2 (equal tiles), and section heads of
#: the first 2,000 characters at 128 tokens (plan 2) and 256 tokens (plan 1).
PAGE_CHARS = 2508
PAGE_SPANS_PLAN_1 = [(0, 1132), (879, 2051), (1334, 2507)]
PAGE_SPANS_PLAN_2 = [(0, 856), (857, 1693), (1694, 2507)]
HEAD_SPANS_128 = [(0, 510), (511, 960), (961, 1513), (1514, 2000)]
HEAD_SPANS_256 = [(0, 1132), (840, 2000)]
#: The same page and head cut by plan 3 (equal windows sharing ~16 tokens), as the code
#: that embedded the corpus for bench/quality.py cut them.
PAGE_SPANS_PLAN_3 = [(0, 900), (834, 1775), (1656, 2507)]
HEAD_SPANS_PLAN_3 = [(0, 585), (498, 1022), (920, 1559), (1452, 2000)]


@pytest.fixture(scope="module")
def tokenizer():
    return default_tokenizer()


@pytest.fixture(scope="module")
def page_text() -> str:
    with pymupdf.open(corpus_pdf("arxiv-1706.03762v7-attention-is-all-you-need.pdf")) as doc:
        text = doc[3].get_text()
    assert len(text) == PAGE_CHARS, "PyMuPDF extracts this page differently now"
    return text


def tokens(tokenizer, text: str) -> int:
    return len(tokenizer.encode(text, add_special_tokens=False).ids)


def test_a_corpus_page_gives_the_spans_the_earlier_code_gave(tokenizer, page_text) -> None:
    assert split_units(page_text, tokenizer, 254) == PAGE_SPANS_PLAN_1
    assert split_units(page_text, tokenizer, 254, overlap=False) == PAGE_SPANS_PLAN_2
    head = page_text[:2000]
    assert split_units(head, tokenizer, 126, overlap=False) == HEAD_SPANS_128
    assert split_units(head, tokenizer, 254) == HEAD_SPANS_256
    assert split_units(page_text, tokenizer, 254, overlap=False, shared=16) == \
        PAGE_SPANS_PLAN_3
    assert split_units(head, tokenizer, 126, overlap=False, shared=16) == HEAD_SPANS_PLAN_3


def test_the_embedder_cuts_with_the_models_budget(tmp_path, page_text) -> None:
    emb = Embedder(None, tmp_path, int8=False)  # tokenizer only: no model is loaded
    assert emb.unit_spans(page_text) == PAGE_SPANS_PLAN_1
    assert emb.unit_spans(page_text, PLAN_2) == PAGE_SPANS_PLAN_2
    assert emb.unit_spans(page_text[:2000], PLAN_2, PLAN_2.head_tokens) == HEAD_SPANS_128
    assert emb.units(page_text, PLAN_1) == [page_text[s:e] for s, e in PAGE_SPANS_PLAN_1]
    assert emb.unit_spans(page_text, PLAN_3) == PAGE_SPANS_PLAN_3
    assert emb.unit_spans(page_text[:2000], PLAN_3, PLAN_3.head_tokens) == HEAD_SPANS_PLAN_3
    assert not emb.loaded


def test_blank_and_short_text(tokenizer) -> None:
    assert split_units("", tokenizer, 254) == []
    assert split_units(" \n\t ", tokenizer, 254) == []
    text = "  Attention Is All You Need.\n  "
    assert split_units(text, tokenizer, 254) == [(0, len(text))]  # whitespace kept whole


def test_overlapping_windows_cover_the_text_within_the_budget(tokenizer) -> None:
    text = " ".join(f"word{i} sits here." for i in range(600))
    budget = 100
    spans = split_units(text, tokenizer, budget)
    assert len(spans) > 3
    for (s0, e0), (s1, e1) in zip(spans, spans[1:]):
        assert s0 < s1 < e0 < e1            # each window starts inside its predecessor
        assert text[s1 - 1].isspace()       # and at a word
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(tokens(tokenizer, text[s:e]) <= budget for s, e in spans)


def test_tiles_leave_no_gap_and_are_about_equal(tokenizer) -> None:
    text = "\n".join(f"Line {i}: the quick brown fox jumps." for i in range(300))
    budget = 120
    spans = split_units(text, tokenizer, budget, overlap=False)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    for (_, e0), (s1, _) in zip(spans, spans[1:]):
        assert e0 <= s1 and not text[e0:s1].strip()   # only whitespace between tiles
    sizes = [tokens(tokenizer, text[s:e]) for s, e in spans]
    assert max(sizes) <= budget and max(sizes) - min(sizes) <= budget // 8 + 2


@pytest.mark.parametrize("shared", [16, 40])
def test_spaced_windows_share_tokens_with_their_neighbours_and_are_about_equal(
        tokenizer, shared) -> None:
    """Plan 3's windows: the fewest of at most ``budget`` tokens, spread from the first
    word to the last, each starting at a word inside its predecessor so that neighbours
    share at least half of ``shared`` tokens and at most ``shared`` plus a boundary's
    slack on each side."""
    text = " ".join(f"word{i} sits here." for i in range(600))
    budget = 100
    spans = split_units(text, tokenizer, budget, overlap=False, shared=shared)
    n = tokens(tokenizer, text)
    assert len(spans) == -(-(n - shared) // (budget - shared))   # the fewest windows
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    for (s0, e0), (s1, e1) in zip(spans, spans[1:]):
        assert s0 < s1 < e0 < e1 and text[s1 - 1].isspace()
        assert shared // 2 <= tokens(tokenizer, text[s1:e0]) <= 2 * shared
    sizes = [tokens(tokenizer, text[s:e]) for s, e in spans]
    assert max(sizes) <= budget and max(sizes) - min(sizes) <= shared + 4


@pytest.mark.parametrize("text", [
    "\x00\x01\x02 control \x07\x1b[0m" * 200,
    "漢字かな混じり文" * 800,
    "a" * 20_000,
    "word " * 3 + "z" * 20_000 + " end",
    "lone \ud800 surrogate " * 300,
    "🙂" * 3000,
], ids=["control", "cjk", "one-long-word", "long-word-inside", "surrogates", "emoji"])
@pytest.mark.parametrize("plan", [PLAN_1, PLAN_2, PLAN_3, PLAN_4, PLAN_5, PLAN_6, PLAN_7,
                                  PLAN_9],
                         ids=["plan1", "plan2", "plan3", "plan4", "plan5", "plan6", "plan7",
                              "plan9"])
def test_odd_text_never_raises_and_every_span_fits(tokenizer, text, plan) -> None:
    spans = split_units(text, tokenizer, 126, overlap=plan.overlap, shared=plan.shared,
                        plan=plan)
    assert spans and spans == sorted(spans)
    for s, e in spans:
        assert 0 <= s < e <= len(text) and text[s:e].strip()
        assert tokens(tokenizer, text[s:e].replace("\ud800", "\ufffd")) <= 126


PROSE = ("The engine keeps its tables in pages of fixed size. A lookup reads one page per level "
         "of the tree. Range scans walk the leaves in order, and writes split full nodes. ")


def _paragraph_text() -> tuple[str, list[str]]:
    paras = ["1 Introduction", PROSE * 2, "Short line.", PROSE * 9,
             "Model BLEU 2014 28.4 41.8 3.3 10 18 2.3 1.0 7.5 12", PROSE, "Last words here."]
    return "\n\n".join(paras), paras


def test_plan_4_units_follow_paragraphs_and_sentences(tokenizer) -> None:
    """Plan 4 cuts where paragraphs end, merges neighbours while they fit, cuts a
    paragraph longer than the budget where a sentence ends, gives a table-like paragraph
    a unit of its own, and tiles the text without overlap."""
    text, paras = _paragraph_text()
    spans = split_units(text, tokenizer, 126, plan=PLAN_4)
    units = [text[s:e] for s, e in spans]
    starts = {sum(len(p) + 2 for p in paras[:k]) for k in range(len(paras))}
    assert all(tokens(tokenizer, u) <= 126 for u in units)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    for (s, e), (s2, _e2) in zip(spans, spans[1:]):
        assert e < s2 and not text[e:s2].strip()           # tiles: no overlap, no gap
    for s, _e in spans:   # every unit starts a paragraph, else a sentence
        assert s in starts or text[:s].rstrip()[-1] in ".!?"
    assert units[0] == "\n\n".join(paras[:3])             # short neighbours merged
    assert paras[4] in units                               # the table-like one, alone
    assert len(units) == 6 and units[-1].endswith("Last words here.")


def test_plan_4_starts_a_unit_at_each_heading_even_when_the_page_fits(tokenizer) -> None:
    text = "2 Methods\n\nWe measure twice.\n\n2.1 Data\n\nThe data come from a survey."
    assert split_units(text, tokenizer, 126, plan=PLAN_4) == [(0, len(text))]
    at = text.index("2.1 Data")
    spans = split_units(text, tokenizer, 126, plan=PLAN_4, cuts=[0, at])
    assert [text[s:e] for s, e in spans] == [text[:at].rstrip(), text[at:]]


def test_plan_5_merges_neighbours_only_up_to_its_target(tokenizer) -> None:
    text = "\n\n".join([PROSE * 2] * 4)     # four paragraphs of 74 tokens
    four = split_units(text, tokenizer, 254, plan=PLAN_4)
    five = split_units(text, tokenizer, 254, plan=PLAN_5)
    assert len(four) == 2 and len(five) == 2
    assert [tokens(tokenizer, text[s:e]) for s, e in four] == [222, 74]
    assert [tokens(tokenizer, text[s:e]) for s, e in five] == [148, 148]


def _tiles_at_sentences(text: str, spans: list[tuple[int, int]], paras: list[str]) -> None:
    starts = {sum(len(p) + 2 for p in paras[:k]) for k in range(len(paras))}
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    for (s, e), (s2, _e2) in zip(spans, spans[1:]):
        assert e < s2 and not text[e:s2].strip()           # tiles: no overlap, no gap
    for s, _e in spans:   # every unit starts a paragraph, else a sentence
        assert s in starts or text[:s].rstrip()[-1] in ".!?"


def test_plan_6_fills_each_unit_up_to_the_budget_at_sentence_ends(tokenizer) -> None:
    """Plan 6 cuts as plan 4 does at headings and table-like paragraphs, but fills each
    unit between them with whole sentences up to the budget, across paragraph ends: a
    paragraph that does not fit whole no longer ends the unit before it."""
    text, paras = _paragraph_text()
    spans = split_units(text, tokenizer, 126, plan=PLAN_6)
    units = [text[s:e] for s, e in spans]
    counts = [tokens(tokenizer, u) for u in units]
    _tiles_at_sentences(text, spans, paras)
    assert counts == [116, 122, 123, 51, 26, 41]
    assert units[0].startswith("\n\n".join(paras[:3]))  # heading, short line, then more
    assert paras[4] in units                               # the table-like one, alone
    text = "\n\n".join([PROSE * 2] * 4)     # four paragraphs of 74 tokens
    four = split_units(text, tokenizer, 254, plan=PLAN_4)
    six = split_units(text, tokenizer, 254, plan=PLAN_6)
    assert [tokens(tokenizer, text[s:e]) for s, e in four] == [222, 74]
    assert [tokens(tokenizer, text[s:e]) for s, e in six] == [245, 51]


def test_plan_6_starts_a_unit_at_each_heading(tokenizer) -> None:
    text = "2 Methods\n\nWe measure twice.\n\n2.1 Data\n\nThe data come from a survey."
    at = text.index("2.1 Data")
    spans = split_units(text, tokenizer, 126, plan=PLAN_6, cuts=[0, at])
    assert [text[s:e] for s, e in spans] == [text[:at].rstrip(), text[at:]]


def test_plan_7_keeps_table_like_paragraphs_with_their_neighbours(tokenizer) -> None:
    text, paras = _paragraph_text()
    spans = split_units(text, tokenizer, 126, plan=PLAN_7)
    units = [text[s:e] for s, e in spans]
    _tiles_at_sentences(text, spans, paras)
    assert [tokens(tokenizer, u) for u in units] == [116, 122, 123, 118]
    assert paras[4] in units[-1] and units[-1].endswith("Last words here.")


def test_plan_8_is_plan_7_with_page_unit_heads() -> None:
    assert (PLAN_8.fill, PLAN_8.tables, PLAN_8.head_min) == (True, False, 128)
    assert (PLAN_7.fill, PLAN_7.tables, PLAN_7.head_min) == (True, False, 0)


class _Counter:
    def model_tokens(self, texts: list[str]) -> list[int]:
        return [len(t.split()) + 2 for t in texts]


def test_a_head_crossing_a_page_end_takes_the_page_unit_from_its_heading() -> None:
    """Under ``head_min`` a section head running on past the page unit from its heading
    (the section crosses a page end) is that unit when it holds at least ``head_min``
    tokens, else the head as cut."""
    unit = "3 Results\n\n" + "word " * 60
    first = unit + "and the next page goes on"
    starts = {unit[:24]: [unit, "3 Results elsewhere " + "x " * 80]}
    assert page_unit_head(first, starts, _Counter(), 60) == unit
    assert page_unit_head(first, starts, _Counter(), 100) == first
    assert page_unit_head(unit, starts, _Counter(), 60) == unit     # the same text
    assert page_unit_head("Other\n\ntext", starts, _Counter(), 1) == "Other\n\ntext"


def test_plan_9_starts_a_unit_at_a_heading_only_past_half_a_unit(tokenizer) -> None:
    """Plan 9 cuts at a heading only when the unit before it would hold more than half
    the budget; a heading nearer the unit's start stays inside it (no short unit)."""
    short = "2 Methods\n\nWe measure twice.\n\n2.1 Data\n\nThe data come from a survey."
    at = short.index("2.1 Data")
    assert split_units(short, tokenizer, 126, plan=PLAN_9, cuts=[0, at]) == \
        [(0, len(short))]
    text = "2 Methods\n\n" + PROSE * 2 + "\n\n2.1 Data\n\n" + PROSE
    at = text.index("2.1 Data")
    spans = split_units(text, tokenizer, 126, plan=PLAN_9, cuts=[0, at])
    assert [text[s:e] for s, e in spans] == [text[:at].rstrip(), text[at:].rstrip()]
    assert (PLAN_9.fill, PLAN_9.tables, PLAN_9.head_min, PLAN_9.soft) == \
        (True, False, 128, True)


# ---------------------------------------------------------------- plan 10: tile pairs


def test_tiles_of_a_corpus_page_are_half_windows_and_pairs_are_their_unions(
        tmp_path, tokenizer, page_text) -> None:
    """Plan 10 cuts the page into tiles of at most 126 tokens (128 with the special
    tokens) without overlap; its units are the pairs of neighbours, each from a tile's
    start to the next one's end: windows of up to 252 tokens advancing by one tile."""
    emb = Embedder(None, tmp_path, int8=False)  # tokenizer only
    tiles = emb.tile_spans(page_text, PLAN_10)
    assert tiles == tile_spans(page_text, tokenizer, 126)
    assert len(tiles) == 5 and tiles[0][0] == 0 and tiles[-1][1] == len(page_text.rstrip())
    for (_s0, e0), (s1, _e1) in zip(tiles, tiles[1:]):
        assert e0 <= s1 and not page_text[e0:s1].strip()
    assert all(100 <= tokens(tokenizer, page_text[s:e]) <= 126 for s, e in tiles)
    pairs = pair_spans(tiles)
    assert pairs == [(tiles[i][0], tiles[i + 1][1], (i, i + 1)) for i in range(4)]
    assert emb.unit_spans(page_text, PLAN_10) == [(s, e) for s, e, _k in pairs]
    assert all(tokens(tokenizer, page_text[s:e]) <= 254 for s, e, _k in pairs)
    assert not emb.loaded


def test_tile_plans_have_their_own_identity_and_are_not_the_default() -> None:
    from pdftui.embed import DEFAULT_PLAN, PLAN_11, PLAN_12

    plans = (PLAN_1, PLAN_10, PLAN_11, PLAN_12)
    assert len({p.identity("h") for p in plans}) == 4 and DEFAULT_PLAN is PLAN_1
    assert PLAN_10.tiles == PLAN_11.tiles == PLAN_12.tiles == 128
    assert (PLAN_10.tile_heads, PLAN_10.weigh) == (True, False)
    assert (PLAN_11.tile_heads, PLAN_11.weigh) == (False, True)
    assert (PLAN_12.tile_heads, PLAN_12.weigh) == (True, True)


def test_a_page_of_one_tile_is_its_own_unit_and_no_tile_none() -> None:
    assert pair_spans([(3, 40)]) == [(3, 40, (0,))]
    assert pair_spans([]) == []
    assert pair_spans([(0, 10), (11, 20), (21, 30)]) == [(0, 20, (0, 1)), (11, 30, (1, 2))]


def test_tiles_start_at_the_cuts(tokenizer, page_text) -> None:
    """A cut (a section heading's offset, at a word) starts a tile; the tiles before and
    after it still fit and leave no text out."""
    cut = page_text.index("3.2.1\nScaled")   # the heading 3.2.1, 79 tokens in
    plain = tile_spans(page_text, tokenizer, 126)
    assert cut not in [s for s, _e in plain]
    tiles = tile_spans(page_text, tokenizer, 126, cuts=[cut])
    assert cut in [s for s, _e in tiles] and len(tiles) == len(plain) == 5
    assert tiles[0][0] == 0 and tiles[-1][1] == len(page_text.rstrip())
    for (_s0, e0), (s1, _e1) in zip(tiles, tiles[1:]):
        assert e0 <= s1 and not page_text[e0:s1].strip()
    assert all(tokens(tokenizer, page_text[s:e]) <= 126 for s, e in tiles)
    assert tile_spans("", tokenizer, 126) == [] and tile_spans("  \n", tokenizer, 126) == []


def test_a_pair_vector_is_the_normalised_sum_of_its_tiles() -> None:
    a = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    b = np.array([0.0, 1.0, 0.0], dtype=np.float32)
    v = pair_vector(np.stack([a, b]))
    assert v.dtype == np.float32 and v.shape == (3,)
    assert np.allclose(v, [2 ** -0.5, 2 ** -0.5, 0]) and abs(np.linalg.norm(v) - 1) < 1e-6
    assert np.allclose(pair_vector(np.stack([b])), b)    # one tile: its own vector
    assert np.allclose(pair_vector(np.stack([a, a])), a)


def test_a_section_head_is_the_pair_of_its_first_two_tiles() -> None:
    """``head_tiles``: the first two tiles starting inside the section's own text, on its
    start page from its heading on, then on the next page while its text runs on."""
    tiles = [(0, 100), (101, 200), (201, 300), (301, 400)]
    nxt = [(0, 90), (91, 180)]
    assert head_tiles(tiles, 101, 250, 400, nxt) == [(0, 1), (0, 2)]
    assert head_tiles(tiles, 101, 60, 400, nxt) == [(0, 1)]          # a short section
    assert head_tiles(tiles, 301, 99, 400, nxt) == [(0, 3)]          # ends with the page
    assert head_tiles(tiles, 301, 150, 400, nxt) == [(0, 3), (1, 0)]  # runs on
    assert head_tiles(tiles, 301, 150, 400, []) == [(0, 3)]          # the last page
    assert head_tiles(tiles, 450, 10, 460, nxt) == []                # not found: apart


@pytest.mark.parametrize("text", [
    "\x00\x01\x02 control \x07\x1b[0m" * 200,
    "漢字かな混じり文" * 800,
    "a" * 20_000,
    "lone \ud800 surrogate " * 300,
], ids=["control", "cjk", "one-long-word", "surrogates"])
def test_odd_text_never_stops_tiling_and_every_tile_fits(tokenizer, text) -> None:
    tiles = tile_spans(text, tokenizer, 126, cuts=[len(text) // 3, len(text) // 2])
    assert tiles and tiles == sorted(tiles)
    for (s, e), nxt in zip(tiles, tiles[1:] + [(len(text), len(text))]):
        assert 0 <= s < e <= nxt[0] and text[s:e].strip()
        assert tokens(tokenizer, text[s:e].replace("\ud800", "\ufffd")) <= 126


def test_tiles_that_ignore_headings_give_the_head_the_tile_holding_its_heading() -> None:
    """Plan 11: a heading inside a tile; the head is that tile and the next one."""
    tiles = [(0, 100), (101, 200), (201, 300), (301, 400)]
    assert head_tiles(tiles, 150, 200, 400, [], holding=True) == [(0, 1), (0, 2)]
    assert head_tiles(tiles, 150, 30, 400, [], holding=True) == [(0, 1)]
    assert head_tiles(tiles, 350, 120, 400, [(0, 90)], holding=True) == [(0, 3), (1, 0)]
    assert head_tiles(tiles, 101, 150, 400, [], holding=True) == [(0, 1), (0, 2)]


def test_a_weighed_pair_counts_a_short_tile_for_less() -> None:
    a = np.array([1.0, 0.0], dtype=np.float32)
    b = np.array([0.0, 1.0], dtype=np.float32)
    v = pair_vector(np.stack([a, b]), [120, 40])
    assert np.allclose(v, np.array([3.0, 1.0]) / np.sqrt(10.0))
    assert np.allclose(pair_vector(np.stack([a, b]), [7, 7]), pair_vector(np.stack([a, b])))
