"""The fusion steps of a ranking run (pdftui/search/run.py): pure functions, real numbers."""

import pytest

from pdftui.search import run
from pdftui.search.run import Arm

A, B, C, D = ("a.pdf", 1), ("b.pdf", 3), ("c.pdf", 2), ("d.pdf", 1)


def test_rrf_sums_weighted_reciprocal_ranks_and_records_each_arm():
    got = run.rrf([(Arm.KEYWORD, [A, B, A], 1.0), (Arm.SEMANTIC, [B, C], 2.0)], k=60)
    assert got.keys == [A, B, C]                       # first met, list by list
    assert got.scores[A] == pytest.approx(1 / 61)      # the repeated A counts once
    assert got.scores[B] == pytest.approx(1 / 62 + 2 / 61)
    assert [(c.arm, c.rank, c.weight) for c in got.evidence[B]] == [
        (Arm.KEYWORD, 2, 1.0), (Arm.SEMANTIC, 1, 2.0)]
    assert sum(c.score for c in got.evidence[B]) == pytest.approx(got.scores[B])


def test_the_coverage_gate_scales_each_keyword_contribution():
    base = run.rrf([(Arm.KEYWORD, [A, B], 1.0), (Arm.SEMANTIC, [B], 2.0)])
    got = run.gate_keyword(base, [A, B], [1.0, 0.5], 1.0, 2.0)
    assert got.scores[A] == pytest.approx(1 / 61)              # full coverage: unchanged
    assert got.scores[B] == pytest.approx(0.25 / 62 + 2 / 61)  # 0.5 ** 2 of 1/62
    kw = next(c for c in got.evidence[B] if c.arm is Arm.KEYWORD)
    assert kw.weight == pytest.approx(0.25) and kw.score == pytest.approx(0.25 / 62)
    assert base.scores[B] == pytest.approx(1 / 62 + 2 / 61)   # the input run is unchanged


def test_order_breaks_equal_scores_by_the_better_arm_place():
    got = run.rrf([(Arm.KEYWORD, [A, B], 1.0), (Arm.SEMANTIC, [B, A], 1.0)])
    assert got.scores[A] == got.scores[B]
    assert run.order(got, [A, B], [B, A]).keys == [A, B]   # tie on min place: keyword's
    got = run.rrf([(Arm.KEYWORD, [C, D], 1.0), (Arm.SEMANTIC, [A], 3.0)])
    assert run.order(got, [C, D], [A]).keys == [A, C, D]


def test_demote_pin_keep_and_single():
    base = run.order(run.rrf([(Arm.KEYWORD, [A, B, C], 1.0)]), [A, B, C], [])
    down = run.demote(base, {A}, 0.9, "reference list")
    assert down.keys == [B, C, A] and down.scores[A] == pytest.approx(0.9 / 61)
    assert down.factors[A] == (run.Factor("reference list", 0.9),)
    pinned = run.pin(down, {"c.pdf": 0, "a.pdf": 1}, "identifier")
    assert pinned.keys == [C, A, B]
    assert run.keep(pinned, lambda k: k != A).keys == [C, B]
    one = run.single(Arm.SEMANTIC, [D, A])
    assert one.pairs() == [(D, pytest.approx(1 / 61)), (A, pytest.approx(1 / 62))]
    assert one.evidence[A][0].rank == 2


def test_a_section_collects_from_three_listed_subsections_not_from_one():
    s1, s2, s3, s4 = ("g.pdf", 11), ("g.pdf", 12), ("g.pdf", 13), ("g.pdf", 21)
    par, lone, far = ("g.pdf", 10), ("g.pdf", 20), ("h.pdf", 1)
    parent = {s1: par, s2: par, s3: par, s4: lone}.get
    keys = [s1, far, s4, s2, s3, par, lone]
    base = run.order(run.rrf([(Arm.SEMANTIC, keys, 1.0)]), [], keys)
    got = run.add_subsections(base, parent, 0.2, children=3, depth=30)
    assert got.scores[lone] == base.scores[lone]      # one listed subsection lifts nothing
    # 1/66 + 0.2 x (1/61 + 1/64 + 1/65) would pass s1 (1/61): it stops just below it
    assert base.scores[par] + 0.2 * (1 / 61 + 1 / 64 + 1 / 65) > 1 / 61
    assert got.scores[par] < got.scores[s1] and got.scores[par] == pytest.approx(1 / 61)
    c = got.evidence[par][-1]
    assert (c.arm, c.rank, c.weight) == (Arm.SUBSECTIONS, 1, 0.2)
    assert c.score == pytest.approx(got.scores[par] - base.scores[par])
    assert run.order(got, [], keys).keys[:3] == [s1, par, far]
    small = run.add_subsections(base, parent, 0.01, children=3, depth=30)
    assert small.scores[par] == pytest.approx(1 / 66 + 0.01 * (1 / 61 + 1 / 64 + 1 / 65))
    assert run.add_subsections(base, parent, 0.2, children=3, depth=4).scores[par] == \
        base.scores[par]                              # its subsections beyond the depth


def test_the_documents_own_order_adds_a_falling_share_to_their_pages():
    """Issue 18: a page gains ``weight / (k + its document's place)``, documents placed
    by their best page; the factors of a demoted page scale the gain too, so a score stays
    the sum of its contributions times its factors."""
    a1, a2, b1, c1 = ("a.pdf", 1), ("a.pdf", 2), ("b.pdf", 1), ("c.pdf", 1)
    base = run.rrf([(Arm.SEMANTIC, [a1, b1, c1, a2], 1.0)])
    base = run.demote(base, {c1}, 0.5, "reference list")   # c1 now last: a, b, c placed
    got = run.add_document_order(base, 0.18, 10)
    assert got.scores[a1] == pytest.approx(1 / 61 + 0.18 / 11)
    assert got.scores[a2] == pytest.approx(1 / 64 + 0.18 / 11)
    assert got.scores[b1] == pytest.approx(1 / 62 + 0.18 / 12)
    assert got.scores[c1] == pytest.approx(0.5 * (1 / 63 + 0.18 / 13))
    # a2 (1/64 + 0.18/11) passes b1 (1/62 + 0.18/12): the first document's pages gather
    assert got.keys == [a1, a2, b1, c1]
    c = got.evidence[b1][-1]
    assert (c.arm, c.rank, c.weight, c.k) == (Arm.DOCUMENT_ORDER, 2, 0.18, 10)
    assert c.score == pytest.approx(0.18 / 12)


def test_the_first_places_hold_the_first_documents():
    """The first ``places`` keys hold the best key of each of the first ``docs``
    documents: a missing one takes the last of those places, the keys it passes move down
    one place; a demoted key neither stands for its document nor moves."""
    a = [("a.pdf", p) for p in range(1, 6)]
    b1, c1, c2 = ("b.pdf", 1), ("c.pdf", 1), ("c.pdf", 2)
    keys = a[:3] + [b1] + a[3:] + [c1, c2]
    base = run.order(run.rrf([(Arm.SEMANTIC, keys, 1.0)]), [], keys)
    got = run.share_places(base, 3, 5, "first 5 hold 3 documents")
    assert got.keys == a[:3] + [b1, c1] + a[3:] + [c2]
    assert got.factors[c1] == (run.Factor("first 5 hold 3 documents", 1.0),)
    assert got.scores == base.scores and not got.factors.get(a[3])
    assert run.share_places(base, 2, 5, "x").keys == base.keys   # a and b are shown
    # c's best key is a demoted reference page: c's next key stands for it
    down = run.demote(base, {c1}, 0.9, "reference list")
    assert run.share_places(down, 3, 5, "x").keys[:5] == a[:3] + [b1, c2]


def test_keyword_ranks_stand_in_for_the_semantic_arm_in_documents_not_embedded():
    """A first index embeds documents one by one: a pending document's keyword keys gain
    ``weight / (k + keyword rank)`` as an arm of their own; embedded documents' keys and
    keys the keyword list does not hold gain nothing."""
    base = run.rrf([(Arm.KEYWORD, [B, A, C], 1.0), (Arm.SEMANTIC, [A], 2.0)])
    got = run.add_stand_in(base, [B, A, C, B], {"b.pdf", "d.pdf"}, 2.0)
    assert got.scores[B] == pytest.approx(1 / 61 + 2 / 61)
    assert got.scores[A] == base.scores[A] and got.scores[C] == base.scores[C]
    assert D not in got.scores
    c = got.evidence[B][-1]
    assert (c.arm, c.rank, c.weight, c.score) == (Arm.STAND_IN, 1, 2.0, pytest.approx(2 / 61))
    assert run.add_stand_in(base, [B], set(), 2.0) is base
