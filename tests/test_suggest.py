"""Typo suggestions (pdftui.search.suggest) and the weak-answer verdict (evidence.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pdftui.search.evidence import judge
from pdftui.search.suggest import Vocabulary, distances, suggest


def osa(a: str, b: str) -> int:
    """Reference optimal-string-alignment distance (textbook dynamic programme)."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


@settings(max_examples=200, deadline=None)
@given(st.text("abcde", min_size=3, max_size=8), st.lists(st.text("abcde", min_size=3,
                                                                 max_size=10), min_size=1))
def test_vectorised_distance_equals_the_reference(word, cands):
    v = Vocabulary.from_counts({c: 1 for c in cands})
    got = distances(word, v.codes, v.lengths)
    assert got.tolist() == [osa(word, c) for c in v.words]


def test_suggestions_by_distance_and_document_frequency():
    counts = {"dropout": 40, "dropouts": 3, "drought": 1, "rate": 90, "attention": 50,
              "retention": 2, "sup": 5}
    v = Vocabulary.from_counts(counts)
    assert suggest("dropuot", v)[0] == "dropout"        # a transposition is one edit
    assert suggest("Dropuot", v)[0] == "dropout"
    assert suggest("atention", v) == ["attention", "retention"]  # 1 edit, then 2 edits
    assert suggest("qwzxv", v) == [] and suggest("ab", v) == []
    # a short word gets suggestions one edit away only: two turn nonsense into words
    v3 = Vocabulary.from_counts({"gzx": 3, "more": 80, "loren": 1, "the": 99})
    assert suggest("qwzx", v3) == [] and suggest("lorem", v3) == ["loren"]
    assert suggest("teh", v3) == ["the"] and "more" in suggest("lorem", v3, max_distance=2)
    assert suggest("dropout", v) == ["dropouts"]         # the word itself is never offered
    assert len(suggest("dropoutt", v)) <= 3
    # a farther word wins only when it is about 100 times as common
    v2 = Vocabulary.from_counts({"cart": 1, "chart": 1000})
    assert suggest("cqrt", v2)[0] in ("cart", "chart")
    assert Vocabulary.from_counts({}).words == [] and suggest("x" * 40, v) == []
    assert v.words == sorted(counts) and dict(zip(v.words, v.df.tolist())) == counts


def test_weak_verdict():
    assert judge(0.0, 0.1).weak and judge(None, None).weak
    assert not judge(0.9, None).weak and not judge(None, 0.9).weak
    assert judge(0.2, 0.2, keyword_min=0.3, semantic_min=0.3).weak
    assert judge(0.9, 0.9, known=0.5).weak and not judge(0.9, 0.9, known=0.9).weak
    assert judge(0.2, 0.2).to_json() == {"keyword": 0.2, "semantic": 0.2, "known": 1.0}
