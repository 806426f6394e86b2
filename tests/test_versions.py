"""Versions of one paper and their hits folded (pdftui.versions: shared by the TUI's rows
and `pdftui search`)."""

from __future__ import annotations

from types import SimpleNamespace

from pdftui.search.hits import Hit
from pdftui.versions import fold_versions, other_versions, version_groups

V5 = "arxiv-1706.03762v5-attention.pdf"
V7 = "arxiv-1706.03762v7-attention.pdf"


def _hit(doc: str, page: int, rank: int, section: str | None = None) -> Hit:
    return Hit(rank, doc, page, str(page), 1.0 / (60 + rank), None, None, "",
               section=section)


def _groups():
    return version_groups([SimpleNamespace(doc=d, title="Attention Is All You Need")
                           for d in (V5, V7)])


def test_hits_of_versions_at_one_place_fold_and_name_each_other():
    hits = [_hit(V7, 4, 1), _hit("other.pdf", 4, 2), _hit(V5, 4, 3), _hit(V5, 9, 4)]
    folds = fold_versions(hits, _groups())
    assert [(f.hit, f.folded, f.versions) for f in folds] == [
        (0, [2], ["v7", "v5"]), (1, [], []), (3, [], [])]
    others = other_versions(hits, _groups())
    assert others[0] == [{"rank": 3, "doc": V5, "version": "v5"}]
    assert others[2] == [{"rank": 1, "doc": V7, "version": "v7"}]
    assert others[1] == [] and others[3] == []


def test_section_hits_fold_only_under_one_section_title():
    """A section hit's place is its page and its title without its number: v5 numbers
    "3.2 Attention", v7's outline says "Attention" (they showed as two rows: fresh-user
    trial); another title on the same page is another place."""
    hits = [_hit(V7, 4, 1, "Attention"), _hit(V5, 4, 2, "3.2 Attention"),
            _hit(V5, 5, 3, "Training"), _hit(V7, 5, 4, "Training"),
            _hit(V5, 4, 5, "3.2.1 Scaled Dot-Product Attention")]
    assert [f.versions for f in fold_versions(hits, _groups())] == [
        ["v7", "v5"], ["v5", "v7"], []]


def test_a_section_of_two_versions_folds_whatever_its_pages():
    """Fifth trial: in section mode v5's "1 Introduction" (p. 1-2) and v7's
    "Introduction" (p. 2) were two rows, the paper took 3 of the first 4: versions shift
    pages, so a section hit's place is its title alone. One paper's two sections of one
    title stay two rows; untitled sections compare by page."""
    hits = [_hit(V5, 1, 1, "1 Introduction"), _hit(V7, 2, 2, "Introduction"),
            _hit(V5, 4, 3, "3.2.1 Scaled Dot-Product Attention"),
            _hit(V7, 5, 4, "Scaled Dot-Product Attention"),
            _hit(V5, 9, 5, "Results"), _hit(V5, 12, 6, "Results"),
            _hit(V7, 13, 7, "Results"), _hit(V5, 3, 8, ""), _hit(V7, 4, 9, "")]
    folds = fold_versions(hits, _groups())
    assert [(f.hit, f.folded) for f in folds] == [
        (0, [1]), (2, [3]), (4, [6]), (5, []), (7, []), (8, [])]
