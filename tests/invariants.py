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


def assert_well_parsed(query) -> None:
    """Check a :class:`~pdftui.search.query.Query`: loose words are single tokens without
    quotes, phrases hold two or more words and no quote, exclusions are not blank, every
    field is a known one with a value, and the keyword text is the words then the phrases.

    Raises:
        AssertionError: naming the first broken property.
    """
    from pdftui.search.query import FieldName

    for w in query.words:
        assert w and not any(c.isspace() for c in w) and '"' not in w, f"word {w!r}"
    for p in query.phrases:
        assert len(p.split()) >= 2 and '"' not in p, f"phrase {p!r}"
    for e in query.excluded:
        assert e.strip() and '"' not in e, f"exclusion {e!r}"
    for f in query.fields:
        assert isinstance(f.name, FieldName) and f.value.strip(), f"field {f!r}"
    assert query.text == " ".join(query.words + query.phrases), "text is words + phrases"


def assert_outline_well_formed(outline, page_count: int) -> None:
    """Check outline entries (:class:`~pdftui.document.OutlineEntry`): titles are not
    blank, pages are inside 1..``page_count``, levels are >= 1, and no entry is listed
    twice (the same path of titles, page and position; two subsections of one name under
    different parents are two entries).

    Raises:
        AssertionError: naming the first broken property.
    """
    keys = []
    path: list[tuple[int, str]] = []
    for e in outline:
        assert e.title.strip(), f"blank outline title {e!r}"
        assert 1 <= e.page <= page_count, f"outline page {e.page} outside 1..{page_count}"
        assert e.level >= 1, f"outline level {e.level}"
        while path and path[-1][0] >= e.level:
            path.pop()
        path.append((e.level, e.title))
        keys.append((tuple(path), e.page, e.y))
    dups = sorted({k for k in keys if keys.count(k) > 1})
    assert not dups, f"outline entries listed twice: {dups[:3]}"


def assert_sections_well_formed(sections) -> None:
    """Check sections (:class:`~pdftui.document.Section`): ordinals are 0..n-1 in order,
    each ends at or after its start, starts are in document order, and a section's own
    text is a prefix of its text.

    Raises:
        AssertionError: naming the first broken property.
    """
    assert [s.ordinal for s in sections] == list(range(len(sections))), "ordinals 0..n-1"
    starts = [(s.start_page, s.start_block) for s in sections]
    assert starts == sorted(starts), "sections out of document order"
    for s in sections:
        assert (s.end_page, s.end_block) >= (s.start_page, s.start_block), f"{s.title!r} ends early"
        assert s.text.startswith(s.own_text), f"{s.title!r}: own text is not its prefix"
