"""The shared invariants (tests/invariants.py) reject what they are meant to reject: each
check is run once on a well-formed value and once on a broken one."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from pdftui.document import OutlineEntry, Section
from pdftui.search.query import parse

from .invariants import (
    assert_outline_well_formed,
    assert_sections_well_formed,
    assert_well_parsed,
    assert_well_ranked,
)


def outline() -> list[OutlineEntry]:
    return [OutlineEntry(1, "Methods", 1), OutlineEntry(2, "Bleeding", 1),
            OutlineEntry(1, "Devices", 2), OutlineEntry(2, "Bleeding", 2)]


def test_outline_invariant():
    assert_outline_well_formed(outline(), 2)  # one name under two parents: two entries
    broken = [*outline(), OutlineEntry(2, "Bleeding", 2)]   # a cycle repeats an entry
    with pytest.raises(AssertionError, match="twice"):
        assert_outline_well_formed(broken, 2)
    with pytest.raises(AssertionError, match="outside"):
        assert_outline_well_formed(outline(), 1)
    with pytest.raises(AssertionError, match="blank"):
        assert_outline_well_formed([OutlineEntry(1, " ", 1)], 1)


def sections() -> list[Section]:
    return [Section(0, 1, "Intro", "Intro", 1, 0, 1, 3, "Intro\n\nText", "outline", 5),
            Section(1, 1, "Method", "Method", 1, 3, 2, 4, "Method", "outline")]


def test_sections_invariant():
    assert_sections_well_formed(sections())
    a, b = sections()
    with pytest.raises(AssertionError, match="ordinals"):
        assert_sections_well_formed([a, replace(b, ordinal=3)])
    with pytest.raises(AssertionError, match="order"):
        assert_sections_well_formed([replace(b, ordinal=0), replace(a, ordinal=1)])
    with pytest.raises(AssertionError, match="ends early"):
        assert_sections_well_formed([replace(a, end_page=1, end_block=0, start_block=2)])


def test_query_invariant():
    assert_well_parsed(parse('dropout "exact phrase" -skip title:attention'))
    with pytest.raises(AssertionError, match="word"):
        assert_well_parsed(replace(parse("dropout"), words=("two words",)))
    with pytest.raises(AssertionError, match="phrase"):
        assert_well_parsed(replace(parse("dropout"), phrases=('"quoted"',)))


def hit(rank: int, doc: str, page: int) -> SimpleNamespace:
    return SimpleNamespace(rank=rank, doc=doc, page=page, keyword_rank=rank,
                           semantic_rank=None, section=None, section_id=None)


def test_ranking_invariant():
    good = SimpleNamespace(hits=[hit(1, "a.pdf", 1), hit(2, "b.pdf", 3)])
    assert_well_ranked(good, scope=["a.pdf", "b.pdf"])
    with pytest.raises(AssertionError, match="1..n"):
        assert_well_ranked(SimpleNamespace(hits=[hit(1, "a.pdf", 1), hit(3, "b.pdf", 3)]))
    with pytest.raises(AssertionError, match="twice"):
        assert_well_ranked(SimpleNamespace(hits=[hit(1, "a.pdf", 1), hit(2, "a.pdf", 1)]))
    with pytest.raises(AssertionError, match="scope"):
        assert_well_ranked(good, scope=["a.pdf"])
