"""A section's best passage (pdftui/search/passages.py): pure functions, real stems."""

import pytest

from pdftui.search import keyword, passages


def _terms(text: str) -> list[keyword.Term]:
    return keyword.parse_query(text)


def test_the_best_two_neighbouring_blocks_hold_the_share():
    """Weights are the terms' rarity; the best run of two blocks counts, not the whole
    section: words scattered over far-apart blocks count only as far as two neighbours
    hold them."""
    terms = _terms("leader election timeout")
    w = {"leader": 1.0, "elect": 2.0, "timeout": 3.0}
    blocks = [{"leader"}, {"log"}, {"elect"}, {"timeout", "term"}, {"leader"}]
    assert passages.best_share(blocks, terms, w) == pytest.approx(5 / 6)   # blocks 3-4
    assert passages.best_share(blocks, terms, w, window=1) == pytest.approx(3 / 6)
    scattered = [{"leader"}, {"log"}, {"elect"}, {"log"}, {"timeout"}]
    assert passages.best_share(scattered, terms, w) == pytest.approx(3 / 6)
    assert passages.best_share([], terms, w) == 0.0
    assert passages.best_share([{"leader"}], terms, {}) == 0.0           # no weight
    # a name the query gives the document counts in every block
    assert passages.best_share(scattered, terms, w, given=frozenset({"leader"})) == \
        pytest.approx(4 / 6)


def test_the_holder_finds_the_same_terms_as_held():
    terms = _terms("choose value paxos")
    many = keyword.tokenize_many(["Choosing a value", "the proposers choose", "none"],
                                 only=terms)
    of = passages.holder(terms)
    assert [of(x) for x in many] == [frozenset(passages.held(x, terms)) for x in many] == [
        {"choos", "valu"}, {"choos"}, set()]


def test_held_terms_follow_the_index_stems():
    """A block holds a query term when it holds its porter stem: "Choosing" and "choose"
    are "choos", "value" is "valu"; "paxos" is not there."""
    terms = _terms("choose value paxos")
    stems = keyword.tokenize_many(["Choosing a value: the proposers choose"], only=terms)[0]
    assert passages.held(stems, terms) == {"choos", "valu"}
