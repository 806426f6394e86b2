"""Search: keyword (per-document BM25), semantic (unit cosine) and hybrid (RRF) arms.

Public API: :class:`SearchService` (async ``search`` and blocking ``search_sync``),
:class:`SearchResult`, :class:`Hit`. Importing this package never imports Textual or
fastembed.
"""

from .hits import Hit, SearchResult
from .service import SearchService

__all__ = ["Hit", "SearchResult", "SearchService"]
