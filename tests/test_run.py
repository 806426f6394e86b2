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


def test_head_field_adds_to_the_run():
    base = run.rrf([(Arm.KEYWORD, [A, B], 1.0)])
    got = run.add_head(base, [(C, 1.0), (A, 0.5)], 1.0)
    assert got.keys == [A, B, C]                               # C joins the run
    assert got.scores[C] == pytest.approx(1 / 61)
    assert got.scores[A] == pytest.approx(1 / 61 + 0.25 / 62)
    assert [c.arm for c in got.evidence[C]] == [Arm.HEAD]


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


def test_a_named_documents_sections_are_a_list_of_their_own():
    """Issue 18: the sections of a document the query names, in the run's order, gain
    ``weight x share^2 / (k + their place in that document)``; other documents' keys are
    untouched, and the named document's best key may pass another document's."""
    r1, p1, p2, s1 = ("raft.pdf", 7), ("paxos.pdf", 4), ("paxos.pdf", 2), ("spanner.pdf", 9)
    base = run.order(run.rrf([(Arm.SEMANTIC, [r1, p1, s1, p2], 1.0)]), [], [])
    got = run.add_named(base, {"paxos.pdf": 0.8}, 1.0, 60)
    assert got.keys == [p1, p2, r1, s1]             # the named paper's sections gather
    assert got.scores[p1] == pytest.approx(1 / 62 + 0.64 / 61)
    assert got.scores[p2] == pytest.approx(1 / 64 + 0.64 / 62)
    assert got.scores[r1] == base.scores[r1] and got.scores[s1] == base.scores[s1]
    c = got.evidence[p2][-1]
    assert (c.arm, c.rank, c.weight, c.k) == (Arm.NAMED, 2, pytest.approx(0.64), 60)
    assert run.add_named(base, {}, 1.0, 60) is base


def test_the_document_both_arms_rank_first_leads():
    """described-014 ("how much of written English is predictable and could be dropped"):
    both arms rank Shannon's paper first (keyword p. 5, semantic p. 15), yet a GPT-2
    page that is 7th and 16th in them led the fused list. Now the agreed document's
    best fused page leads; on the development set the two arms agree on 48 of 82 page
    queries and the agreed document is graded 3 in all of them."""
    shannon5, shannon15, gpt2 = ("shannon.pdf", 5), ("shannon.pdf", 15), ("gpt2.pdf", 6)
    fused = run.rrf([(Arm.KEYWORD, [shannon5, gpt2], 0.1),
                     (Arm.SEMANTIC, [shannon15, gpt2], 1.0)])
    fused = run._resorted(fused, {gpt2: 0.047, shannon15: 0.044, shannon5: 0.019})
    got = run.agreed_first(fused, "agree")
    assert got.keys == [shannon15, gpt2, shannon5]
    assert got.scores == fused.scores                       # scores are left as they are
    assert [f.name for f in got.factors[shannon15]] == ["agree"]
    # the arms' first documents differ: nothing moves
    other = run.rrf([(Arm.KEYWORD, [gpt2, shannon5], 1.0), (Arm.SEMANTIC, [shannon15], 1.0)])
    other = run._resorted(other, {shannon5: 0.05, gpt2: 0.04, shannon15: 0.03})
    assert run.agreed_first(other, "agree").keys == [shannon5, gpt2, shannon15]


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
