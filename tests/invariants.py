"""Invariants every search answer must hold, shared by the suites (they can fail: each names
the property a wrong answer breaks)."""

from __future__ import annotations

from collections.abc import Iterable


def assert_well_ranked(result, scope: Iterable[str] | None = None) -> None:
    """Check a :class:`~pdftui.search.SearchResult`: ranks are 1..n without gaps or repeats,
    pages are 1-based, each arm's rank is a positive integer or absent, no (doc, page) or
    section appears twice, and every hit's document is inside ``scope`` when one is given.

    Raises:
        AssertionError: naming the first broken property.
    """
    hits = result.hits
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1)), "ranks must be 1..n"
    for h in hits:
        assert h.page >= 1, f"page {h.page} is not 1-based"
        for arm in (h.keyword_rank, h.semantic_rank):
            assert arm is None or arm >= 1, f"arm rank {arm}"
    keys = [(h.doc, h.section_id if h.section is not None else h.page) for h in hits]
    assert len(keys) == len(set(keys)), "a hit is listed twice"
    if scope is not None:
        allowed = set(scope)
        outside = [h.doc for h in hits if h.doc not in allowed]
        assert not outside, f"hits outside the scope: {outside}"
