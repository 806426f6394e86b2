"""Typo suggestions: the indexed words closest to a query word no document holds.

A query word is *unknown* when its porter stem is in no page of the index. Its candidates
are the folder's surface words (the cache's ``words`` table: each content's distinct
case-folded words) within optimal-string-alignment distance 2, 1 for a word of up to 5
letters (Levenshtein with adjacent
transpositions counting one edit: "dropuot" -> "dropout" is 1), ranked by a noisy-channel
score ``log(df) + d * log(EDIT_COST)`` (df = documents holding the word, d = the distance;
Kernighan, Church & Gale, "A spelling correction program based on a noisy channel model",
COLING 1990, with a constant per-edit probability): a nearer word wins unless a farther one
is about 1/EDIT_COST times as common. The distance is computed for every candidate of a
similar length at once with numpy (one dynamic-programming row per query character).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import keyword

MAX_DISTANCE = 2
EDIT_COST = 0.01
MAX_SUGGESTIONS = 3
MIN_LEN = 3
SHORT_LEN = 5
MAX_LEN = 30


@dataclass
class Vocabulary:
    """Surface words with their document frequency, held as a padded code-point matrix.

    ``Vocabulary.from_counts({"dropout": 12, ...})``.
    """

    words: list[str]
    df: np.ndarray        # int64 (n,)
    codes: np.ndarray     # int32 (n, MAX_LEN): code points, 0-padded
    lengths: np.ndarray   # int32 (n,)

    @classmethod
    def from_counts(cls, counts: dict[str, int]) -> Vocabulary:
        """A vocabulary of the words of 3-30 characters in ``counts`` ``{word: df}``."""
        words = sorted(w for w in counts if MIN_LEN <= len(w) <= MAX_LEN)
        codes = np.zeros((len(words), MAX_LEN), dtype=np.int32)
        for i, w in enumerate(words):
            codes[i, :len(w)] = [ord(c) for c in w]
        return cls(words, np.array([counts[w] for w in words], dtype=np.int64), codes,
                   np.array([len(w) for w in words], dtype=np.int32))


def distances(word: str, codes: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Optimal-string-alignment distance from ``word`` to each row of ``codes`` (padded
    code points, true lengths ``lengths``): int32 (n,). Exact for every candidate."""
    n = len(codes)
    m = len(word)
    width = codes.shape[1] if n else 0
    a = [ord(c) for c in word]
    prev2 = None
    prev = np.tile(np.arange(width + 1, dtype=np.int32), (n, 1))
    for i in range(1, m + 1):
        cur = np.empty_like(prev)
        cur[:, 0] = i
        for j in range(1, width + 1):
            cost = (codes[:, j - 1] != a[i - 1]).astype(np.int32)
            best = np.minimum(np.minimum(prev[:, j] + 1, cur[:, j - 1] + 1),
                              prev[:, j - 1] + cost)
            if prev2 is not None and j > 1:
                swap = (codes[:, j - 1] == a[i - 2]) & (codes[:, j - 2] == a[i - 1])
                best = np.where(swap, np.minimum(best, prev2[:, j - 2] + 1), best)
            cur[:, j] = best
        prev2, prev = prev, cur
    return prev[np.arange(n), lengths] if n else np.zeros(0, dtype=np.int32)


def max_edits(length: int) -> int:
    """How many edits a suggestion may be from a word of ``length`` letters: 1 up to
    ``SHORT_LEN`` letters, else :data:`MAX_DISTANCE`. Two edits turn most short strings
    into some indexed word ("qwzx" -> "gzx", "lorem" -> "more"): nonsense, not a typo."""
    return 1 if length <= SHORT_LEN else MAX_DISTANCE


def suggest(word: str, vocab: Vocabulary, n: int = MAX_SUGGESTIONS,
            max_distance: int | None = None) -> list[str]:
    """Up to ``n`` indexed words within ``max_distance`` edits of ``word`` (case-folded;
    default :func:`max_edits` of its length), best first by the noisy-channel score;
    ``[]`` for a word outside 3-30 letters."""
    w = word.casefold()
    if not (MIN_LEN <= len(w) <= MAX_LEN) or not len(vocab.words):
        return []
    if max_distance is None:
        max_distance = max_edits(len(w))
    near = np.flatnonzero(np.abs(vocab.lengths - len(w)) <= max_distance)
    if not len(near):
        return []
    width = min(MAX_LEN, len(w) + max_distance)   # candidates are no longer than this
    d = distances(w, vocab.codes[near, :width], vocab.lengths[near])
    ok = np.flatnonzero((d <= max_distance) & (d > 0))
    scored = sorted(
        ((math.log(max(1, int(vocab.df[near[i]]))) + int(d[i]) * math.log(EDIT_COST),
          -int(d[i]), vocab.words[near[i]]) for i in ok),
        key=lambda x: (-x[0], -x[1], x[2]))
    return [s[2] for s in scored[:n]]


def query_suggestions(q, kw, vocabulary: Callable[[], Vocabulary]
                      ) -> tuple[dict[str, list[str]], list[str]]:
    """``({word: [closest indexed words]}, [unknown words])``: the words of the parsed
    query ``q`` (3+ letters, not a prefix, not a common function word) whose stem no page
    of the keyword index ``kw`` holds, and the suggestions found for them in
    ``vocabulary()`` (called only when some word is unknown)."""
    out: dict[str, list[str]] = {}
    unknown: list[str] = []
    for w in q.loose + q.phrases:
        if w.endswith("*"):
            continue
        for tok in keyword.tokenize(w, stem=False):
            if tok in unknown or len(tok) < MIN_LEN or not tok.isalpha() \
                    or tok in keyword.STOPWORDS:
                continue
            stems = keyword.tokenize(tok)
            if not stems or kw.has_stem(stems[0]):
                continue
            unknown.append(tok)
            got = suggest(tok, vocabulary())
            if got:
                out[tok] = got
    return out, unknown
