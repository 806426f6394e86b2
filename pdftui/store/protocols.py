"""What the search engine needs from a text index and from a vector store.

The search service ranks with a :class:`TextIndex` (per-document BM25 and the row lookups
that query fields, phrases and exclusions need) and reads embeddings through a
:class:`VectorIndex`. The SQLite cache provides both
(:class:`pdftui.store.text_index.KeywordIndex`, :class:`pdftui.store.reader.SqliteVectorIndex`);
another backend would implement these two protocols. Row ids are the cache's ``pages.id``
/ ``sections.id``; pages are 1-based; ``kind`` is "pages" or "sections".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from ..search.keyword import Ranking, Term
    from .reader import EmbeddingState, UnitColumns


@runtime_checkable
class TextIndex(Protocol):
    """A keyword index over the pages and sections of the cached contents."""

    def refresh(self, version: tuple | None = None) -> None:
        """Drop what is held in memory when ``version`` (any token of the cache's state)
        changed."""

    def rank(self, terms: list[Term], contents: set[int] | None = None, kind: str = "pages",
             policy: str = "or",
             proximity: float = 0.0, window: int = 3, doc_proximity: float = 0.0
             ) -> Ranking:
        """The rows of each content (of ``contents``; None: all) holding the query terms,
        ranked by document-local BM25 (:class:`pdftui.search.keyword.Ranking`)."""

    def numbers(self, kind: str, pos: np.ndarray) -> np.ndarray:
        """Page numbers (pages) or start pages (sections) of the rows at positions
        ``pos`` (``Ranking.pos``)."""

    def page_number(self, pid: int) -> int:
        """The 1-based page number of a page row id (0 when unknown)."""

    def page_keys(self, pids: Iterable[int]) -> set[tuple[int, int]]:
        """``{(content id, page number)}`` of page row ids."""

    def section_keys(self, sids: Iterable[int]) -> set[tuple[int, int]]:
        """``{(content id, start page)}`` of section row ids."""

    def page_ids(self, keys: Iterable[tuple[int, int]]) -> set[int]:
        """The page row ids of ``{(content id, page number)}`` keys."""

    def term_rows(self, kind: str, term: Term) -> list[tuple[int, str, int]]:
        """``[(row id, column "title"/"text", term frequency)]`` of one query term."""

    def title_rows(self, value: str) -> set[int]:
        """Section row ids whose title holds every term of ``value``."""

    def phrase_rows(self, kind: str, phrase: str) -> set[int]:
        """Row ids holding ``phrase``'s words adjacent and in order."""

    def rows_holding(self, kind: str, text: str) -> set[int]:
        """Row ids holding ``text`` (an identifier, a word, a prefix or a phrase)."""

    def has_ident(self, ident: str) -> bool:
        """True when some page holds the identifier ``ident``."""

    def has_stem(self, stem: str) -> bool:
        """True when some page holds the indexed term ``stem``."""

    def complete_prefix(self, term: Term) -> Term:
        """A prefix term that also matches the indexed stems of the word being typed."""


@runtime_checkable
class VectorIndex(Protocol):
    """The embedding units of the cached contents, per model."""

    def embedding_states(self, model_id: str) -> dict[int, EmbeddingState]:
        """``{content id: units embedded of its total}`` for every content with embedding
        progress for ``model_id``."""

    def units(self, content_id: int, model_id: str) -> UnitColumns:
        """Every embedding unit of one content for ``model_id``, as columns."""

    def dominant_weights_hash(self, model_id: str) -> str | None:
        """The weights hash that made most of the units for ``model_id`` (None: none)."""
