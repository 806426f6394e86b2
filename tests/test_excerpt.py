"""Excerpt choice on real page blocks: the paragraph that holds the match."""

from __future__ import annotations

from pdftui.search.excerpt import MIN_CHARS, choose, grow
from pdftui.search.keyword import parse_query


def test_a_match_in_a_short_block_is_shown_with_its_paragraph():
    """A term found only in a heading or a one-letter line used to be the whole excerpt
    ('C', 'relu'); it is now shown with the blocks that follow it."""
    blocks = ["Intro text that does not hold the query term at all, but is long enough to be"
              " a paragraph of its own in the page.", "C", "The interface is written in the"
              " language named above and compiled with the usual tool chain on every system."]
    i, text = choose(blocks, parse_query("C"))
    assert i == 1 and text.startswith("C The interface") and len(text) >= MIN_CHARS


def test_grow_goes_backwards_at_the_end_of_a_page():
    blocks = ["A long closing paragraph of the page, well over the minimum size of an excerpt"
              " so that it can stand alone.", "15 Bugs"]
    assert grow(blocks, 1).endswith("15 Bugs") and grow(blocks, 1).startswith("A long")
    assert grow(blocks, 0) == blocks[0]
