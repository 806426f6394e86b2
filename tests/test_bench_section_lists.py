"""bench/section_lists.py: the sets it reads and how a rank scores."""

from __future__ import annotations

import sys

from .conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import section_lists  # noqa: E402  (bench/section_lists.py)


def test_a_rank_scores_its_reciprocal_within_ten_and_nothing_beyond():
    assert section_lists.rr(1) == 1.0
    assert section_lists.rr(4) == 0.25
    assert section_lists.rr(11) == 0.0
    assert section_lists.rr(None) == 0.0


def test_every_section_set_is_read_with_its_labelled_sections():
    sets = section_lists.section_sets()
    assert {"dev_sections", "heldout", "heldout_2", "heldout_3"} <= set(sets)
    assert len(sets["dev_sections"]) == 12 and len(sets["heldout_3"]) == 30
    labels = [s for qs in sets.values() for q in qs for s in q["sections"]]
    assert min(len(q["sections"]) for qs in sets.values() for q in qs) == 1
    assert all(s["doc"].endswith(".pdf") and s["title"].strip() and int(s["start_page"]) >= 1
               for s in labels)
