"""The hybrid recipes (pdftui/search/recipe.py): pure functions over hand-made arms and
signals, real numbers (no PDF, no model, no SQLite)."""

from __future__ import annotations

import pytest

from pdftui.search import recipe
from pdftui.search.arms import KeywordArm, SemanticArm
from pdftui.search.config import RankingConfig
from pdftui.search.run import Arm
from pdftui.search.signals import Signals

CFG = RankingConfig()


def _arms(kw_keys, sem_keys, share=1.0):
    kw = KeywordArm(list(kw_keys), [1.0] * len(kw_keys), [share] * len(kw_keys), share)
    sem = SemanticArm(list(sem_keys), first_unit_weight=0.1)
    return kw, sem


def test_hybrid_pages_of_a_few_documents_is_weighted_rrf_of_the_two_arms():
    kw, sem = _arms([("a", 1), ("b", 1)], [("b", 1), ("a", 2)])
    got, weights = recipe.hybrid_pages(kw, sem, Signals(few=True), CFG, depth=100)
    assert got.keys == [("b", 1), ("a", 2), ("a", 1)]   # 2 / 62 > 1 / 61
    assert got.scores[("b", 1)] == pytest.approx(1 / 62 + 2 / 61)
    assert got.scores[("a", 1)] == pytest.approx(1 / 61)
    assert weights.k == 60 and weights.keyword == 1.0 and weights.semantic == 2.0
    assert weights.coverage_power is None and weights.few   # no gate among a few documents
    assert [c.arm for c in got.evidence[("b", 1)]] == [Arm.KEYWORD, Arm.SEMANTIC]


def test_the_coverage_gate_scales_keyword_contributions_by_the_rarity_share():
    kw, sem = _arms([("a", 1)], [("b", 1)], share=0.5)
    got, weights = recipe.hybrid_pages(kw, sem, Signals(few=True), CFG, depth=100)
    assert weights.coverage_power is None
    folder = Signals(few=False)
    cfg = CFG.updated({"lists.arms_agree": False})
    got, weights = recipe.hybrid_pages(kw, sem, folder, cfg, depth=100)
    assert weights.coverage_power == 2.0
    assert got.scores[("a", 1)] == pytest.approx(0.25 / 61)


def test_a_reference_page_keeps_ref_weight_of_its_score_unless_citations_are_asked():
    kw, sem = _arms([("a", 9), ("a", 1)], [("a", 9), ("a", 1)])
    refs = Signals(few=True, reference_page=lambda key: key == ("a", 9))
    got, _w = recipe.hybrid_pages(kw, sem, refs, CFG, depth=100)
    assert got.keys == [("a", 1), ("a", 9)]
    assert got.scores[("a", 9)] == pytest.approx(0.9 * 3 / 61)
    asked = Signals(few=True, reference_page=refs.reference_page, citation_query=True)
    got, _w = recipe.hybrid_pages(kw, sem, asked, CFG, depth=100)
    assert got.keys == [("a", 9), ("a", 1)]


def test_hybrid_sections_demote_the_opening_and_a_reference_list():
    kw, sem = _arms([("a", 1), ("a", 2), ("a", 3)], [("a", 1), ("a", 2), ("a", 3)])
    sig = Signals(opening=lambda key: key == ("a", 1),
                  reference_section=lambda key: key == ("a", 2))
    got, weights = recipe.hybrid_sections(kw, sem, sig, CFG, depth=100)
    assert got.scores[("a", 1)] == pytest.approx(0.75 * 3 / 61)
    assert got.scores[("a", 2)] == pytest.approx(0.75 * 3 / 62)   # one overview factor
    assert got.keys == [("a", 3), ("a", 1), ("a", 2)]
    assert weights.reference == 0.75


def test_single_arm_pins_a_rare_identifier_and_keeps_what_the_restriction_admits():
    kw, sem = _arms([("a", 1), ("b", 1), ("c", 1)], [])
    sig = Signals(tiers={"c": 0}, keep=lambda key: key[0] != "b")
    got = recipe.single_arm(Arm.KEYWORD, kw, sem, sig, CFG)
    assert got.keys == [("c", 1), ("a", 1)]


def test_a_term_lookup_in_section_search_is_the_keyword_arms_without_reference_lists():
    """Two or three words one section holds ("vector clocks"): both semantic section
    lists fuse at weight 0, so the keyword order stands, and a reference list (which
    names works, it explains no term) is left out unless citations are asked for;
    otherwise the unit list (weight 2) and the head list (1) join the keyword list."""
    kw = KeywordArm([("r", 9), ("a", 1), ("b", 1)], [1.0] * 3, [1.0] * 3, 1.0)
    sem = SemanticArm([("b", 1), ("a", 1)], first_unit_weight=None)
    sem.units, sem.heads = [("b", 1), ("a", 1)], [("b", 1), ("a", 1)]
    refs = dict(reference_section=lambda key: key == ("r", 9))
    cfg = CFG.updated({"lists.arms_agree": False})
    got, weights = recipe.hybrid_sections(kw, sem, Signals(term_lookup=True, **refs), cfg,
                                          depth=100)
    assert got.keys == [("a", 1), ("b", 1)] and weights.semantic == 0.0
    got, _w = recipe.hybrid_sections(kw, sem, Signals(term_lookup=True, citation_query=True,
                                                      **refs), cfg, depth=100)
    assert got.keys[0] == ("r", 9)
    got, weights = recipe.hybrid_sections(kw, sem, Signals(**refs), cfg, depth=100)
    assert got.keys[:2] == [("b", 1), ("a", 1)] and weights.semantic == 2.0
