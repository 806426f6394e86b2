"""bench/quality.py's strict section metric (eval README "Metrics", issue 32): a section hit
counts when its document, its start page and at least half of its title's words (numbering
aside) match a labelled section, and each labelled section gains once."""

from __future__ import annotations

import sys

import pytest

from .conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import quality  # noqa: E402  (bench/quality.py)

LEADER = {"doc": "raft.pdf", "title": "5.2 Leader election", "start_page": 5, "grade": 3}


def test_a_parent_starting_on_the_same_page_does_not_count():
    parent = [("raft.pdf", 5, "5 The Raft consensus algorithm")]
    assert quality.section_metrics(parent, [LEADER]) == {"section_mrr": 0.0,
                                                         "section_ndcg": 0.0}
    both = parent + [("raft.pdf", 5, "5.2 Leader Election")]
    assert quality.section_metrics(both, [LEADER])["section_mrr"] == 0.5


def test_the_title_must_hold_half_of_the_labelled_words_numbering_aside():
    assert quality.same_title("Leader election", "5.2 Leader election")
    assert quality.same_title("5.2. Electing a leader", "5.2 Leader election")  # "leader"
    assert not quality.same_title("5.3 Log replication", "5.2 Leader election")
    assert not quality.same_title(None, "5.2 Leader election")
    for numbered, bare in (("A.6 Ablations", "Ablations"), ("§ 1. Scope", "Scope"),
                           ("II. ELECTRODYNAMICAL PART", "Electrodynamical part"),
                           ("V-D Speed", "Speed"), ("3.2.1. Scaled Dot-Product Attention",
                                                    "Scaled dot-product attention")):
        assert quality.title_words(numbered) == quality.title_words(bare), numbered
    # a bare title is kept whole: "Analysis" is a word, not numbering
    assert quality.title_words("Analysis") == {"analysis"}


def test_a_second_hit_of_the_same_section_gains_nothing():
    once = quality.section_metrics([("raft.pdf", 5, "5.2 Leader election")], [LEADER])
    twice = quality.section_metrics([("raft.pdf", 5, "5.2 Leader election")] * 3, [LEADER])
    assert once == twice == {"section_mrr": 1.0, "section_ndcg": 1.0}


@pytest.mark.parametrize("hits", [
    [("raft.pdf", 5, "Leader election"), ("raft.pdf", 5, "5.2 Leader election"),
     ("raft.pdf", 15, "Vector arithmetic"), ("raft.pdf", 15, "Vector arithmetic")],
    [("raft.pdf", 15, "Vector arithmetic"), ("raft.pdf", 5, "leader election")] * 5,
])
def test_ndcg_never_exceeds_one(hits):
    sections = [LEADER, {"doc": "raft.pdf", "title": "Vector arithmetic", "start_page": 15,
                         "grade": 1}]
    got = quality.section_metrics(hits, sections)
    assert 0.0 < got["section_ndcg"] <= 1.0
