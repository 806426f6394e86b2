"""RRF arithmetic and the stage-1 tie-break, on hand-made rank lists."""

import math

import pytest

from pdftui.search import fusion


def test_rrf_score_arithmetic():
    assert fusion.rrf_score(1) == pytest.approx(1 / 61)
    assert fusion.rrf_score(3, k=10, weight=0.5) == pytest.approx(0.5 / 13)
    with pytest.raises(ValueError):
        fusion.rrf_score(0)


def test_rrf_contributions_add():
    s = fusion.rrf([["a", "b", "c"], ["b", "d"]])
    assert s["a"] == pytest.approx(1 / 61)
    assert s["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert s["c"] == pytest.approx(1 / 63)
    assert s["d"] == pytest.approx(1 / 62)
    assert fusion.order(s) == ["b", "a", "d", "c"]


def test_rrf_weights_and_duplicates():
    s = fusion.rrf([["a", "a", "b"], ["b"]], weights=[1.0, 0.25])
    assert s["a"] == pytest.approx(1 / 61)          # repeated item counts once, at its best
    assert s["b"] == pytest.approx(1 / 63 + 0.25 / 61)
    with pytest.raises(ValueError):
        fusion.rrf([["a"]], weights=[1.0, 2.0])


def test_order_breaks_ties_by_tiebreak_then_insertion():
    s = {"x": 0.5, "y": 0.5, "z": 0.5, "w": 0.9}
    assert fusion.order(s, {"y": 2.0, "z": 1.0}) == ["w", "y", "z", "x"]
    assert fusion.order(s) == ["w", "x", "y", "z"]


def test_rarity_coverage():
    cov = fusion.rarity_coverage({"d1": ["rare", "common"], "d2": ["common"],
                                  "d3": ["common", "common"]})
    n = 3
    assert cov["d1"] == pytest.approx(math.log(1 + n / 1) + math.log(1 + n / 3))
    assert cov["d2"] == pytest.approx(math.log(1 + n / 3))
    assert cov["d3"] == cov["d2"]                     # distinct terms only
    assert fusion.rarity_coverage({}) == {}


def test_fuse_per_document_bands_and_tiebreak():
    per_doc = {"A": ["a1", "a2", "a3"], "B": ["b1"], "C": ["c1", "c2"]}
    out = fusion.fuse_per_document(per_doc, tiebreak={"A": 1.0, "B": 3.0, "C": 2.0})
    items = [i for i, _ in out]
    # band 1 = every document's best item, ordered by the document tie-break
    assert items == ["b1", "c1", "a1", "c2", "a2", "a3"]
    scores = dict(out)
    assert scores["b1"] == scores["a1"] == pytest.approx(1 / 61)
    assert scores["a3"] == pytest.approx(1 / 63)


def test_fuse_per_document_item_tiebreak_and_stability():
    per_doc = {"A": ["a1"], "B": ["b1"]}
    assert [i for i, _ in fusion.fuse_per_document(per_doc)] == ["a1", "b1"]
    out = fusion.fuse_per_document(per_doc, item_tiebreak={"b1": (1.0, 0.0)})
    assert [i for i, _ in out] == ["b1", "a1"]
