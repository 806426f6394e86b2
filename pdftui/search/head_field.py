"""The head field: a document's title, authors and affiliations (its first page's opening).

:class:`HeadIndex` keeps the heads of one corpus view as stem sets with an inverted index
over them: the section-title list asks which query terms a document's head holds (those a
section's title need not repeat).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from . import keyword

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
