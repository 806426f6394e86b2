"""The head field: a document's title, authors and affiliations (its first page's opening).

A document whose head holds the query's rare words is named by the query (a name finds the
paper that person wrote, a title its paper): :func:`head_list` ranks such documents by the
share of the query's rarity mass their head holds. :class:`HeadIndex` keeps the heads of
one corpus view as stem sets with an inverted index over them.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable

import numpy as np

from . import bm25, keyword

HEAD_CHARS = 1200
_HEAD_END = re.compile(r"^\s*(\d+\.?\s*)?(abstract|introduction|summary|contents)\b", re.I)


def head_text(blocks: list[str]) -> str:
    """A document's head field from its first page's blocks: the title, author and
    affiliation blocks before the abstract or introduction heading, at most
    ``HEAD_CHARS`` characters."""
    out, size = [], 0
    for b in blocks:
        if _HEAD_END.match(b) or size >= HEAD_CHARS:
            break
        out.append(b)
        size += len(b)
    return " ".join(out)[:HEAD_CHARS]


class HeadIndex:
    """The heads of one corpus view's contents as stem sets, tokenised once when first
    asked, with an inverted index ``stem -> contents``. ``first_page(cid)`` reads a
    content's first page blocks."""

    def __init__(self, first_page: Callable[[int], list[str]]):
        self._first_page = first_page
        self._heads: dict[int, frozenset[str]] = {}
        self._docs: dict[str, list[int]] = {}   # stem -> contents whose head holds it
        self._stems: list[str] | None = None

    def _load(self, contents: set[int]) -> None:
        missing = [c for c in contents if c not in self._heads]
        if missing:
            texts = [head_text(self._first_page(c)) for c in missing]
            for c, stems in zip(missing, keyword.tokenize_many(texts)):
                self._heads[c] = frozenset(stems)
                for st in stems:
                    self._docs.setdefault(st, []).append(c)
            self._stems = None

    def _candidates(self, terms: list) -> set[int]:
        """The contents whose head holds some term (read from the inverted index)."""
        cands: set[int] = set()
        for t in terms:
            if t.prefix:
                if self._stems is None:
                    self._stems = sorted(self._docs)
                i = bisect.bisect_left(self._stems, t.text)
                while i < len(self._stems) and self._stems[i].startswith(t.text):
                    cands.update(self._docs[self._stems[i]])
                    i += 1
                for st in t.stems:   # the typed word's own stems (Term.matches)
                    cands.update(self._docs.get(st, ()))
            else:   # the word, and its closed-up spellings (Term.joined)
                for st in (t.text, *t.joined):
                    cands.update(self._docs.get(st, ()))
        return cands

    def terms(self, contents: set[int], terms: list) -> dict[int, frozenset[str]]:
        """``{content: the query terms its head holds}`` over ``contents`` (those holding
        none are left out): the head is the first page's opening (title, authors,
        affiliations: the blocks before the abstract or the introduction, at most
        ``HEAD_CHARS`` characters)."""
        self._load(contents)
        out = {}
        for c in self._candidates(terms) & contents:
            held = frozenset(str(t) for t in terms if t.held_in(self._heads[c]))
            if held:
                out[c] = held
        return out


def held_df(ranking) -> dict[str, int]:
    """``{term key: the contents of the scope holding it}`` (each content once: the ranking
    holds only the contents searched)."""
    if not len(ranking.doc_content):
        return dict.fromkeys(ranking.keys, 0)
    return dict(zip(ranking.keys, (ranking.doc_tfm > 0).sum(axis=0).tolist()))


def head_masks(ranking, heads: dict[int, frozenset[str]]) -> np.ndarray | None:
    """uint64 per row of ``ranking``: the query terms (bits as ``ranking.mask``) its
    document's head holds (``heads``: ``{content: terms}``); None when no row has one."""
    if not heads or not len(ranking.ids):
        return None
    bit = {k: np.uint64(1) << np.uint64(i) for i, k in enumerate(ranking.keys)}
    per = {cid: np.bitwise_or.reduce([bit[t] for t in held if t in bit] or [np.uint64(0)])
           for cid, held in heads.items()}
    return np.array([per.get(cid, np.uint64(0)) for cid in ranking.content.tolist()],
                    dtype=np.uint64)


def head_list(ranking, by_doc: dict[str, int], terms: list, heads: HeadIndex,
              least: float) -> list:
    """The head-field list: page 1 of each document whose head holds at least
    ``least`` (a share, 0 to 1) of the query's rarity mass, best first by that share
    (idf over the documents in scope, as :func:`.keyword.query_rarity_share`), as
    ``[((doc, 1), share)]``."""
    held_by = heads.terms(set(by_doc.values()), terms)
    if not held_by:
        return []
    n = len(by_doc)
    keys = [str(t) for t in terms]
    df = dict.fromkeys(keys, 0)
    for k, d in held_df(ranking).items():
        if d:
            df[k] = d
    idf = {t: bm25.idf(n, d) for t, d in df.items()}
    total = math.fsum(idf[t] for t in keys) or 1.0
    scored = []
    for d, c in by_doc.items():
        held = held_by.get(c)
        if held:
            share = math.fsum(idf[t] for t in sorted(held)) / total
            if share >= least:
                scored.append((-share, c, d))
    scored.sort()
    return [((d, 1), -ns) for ns, _c, d in scored]
