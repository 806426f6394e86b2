"""The semantic arm: exhaustive cosine over every cached embedding unit, in numpy.

The cache holds, per content and model, embedding *units* (character ranges of a page's text)
with L2-normalised float32 vectors, and one head unit per section (the first unit of its own
text, kept apart from the page matrix: :meth:`VectorMatrix.section_heads`). :class:`VectorMatrix` keeps them in memory as one
``(n_units, dim)`` float32 matrix; a query is one matrix product ``M @ q`` (cosine, since
both sides are unit length) and a page scores the maximum over its units, so a term on the
last line of a long page is not diluted by the rest of it. No vector database, no
approximation: 2,857 pages are ~10k units, a few milliseconds.

The matrix is refreshed incrementally: :meth:`VectorMatrix.refresh` reads the ``embeddings``
progress table and reloads only the contents whose unit count changed (or that appeared or
vanished), so a search during indexing sees newly embedded documents and never reloads the
whole cache.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import numpy as np

from ..cache import HEAD_UNITS, SECTION_HEAD_PAGE


@dataclass
class _Content:
    """The units of one content: vectors ``(n, dim)`` float32, page numbers, char ranges."""

    units_done: int
    units_total: int
    vectors: np.ndarray
    pages: np.ndarray        # int32, 1-based page of each unit
    spans: np.ndarray        # int64 (n, 2): char_start, char_end into pages.text
    head: np.ndarray | None  # (dim,) unit-length mean of the first HEAD_UNITS units
    section_vectors: np.ndarray | None = None  # (n_sections, dim): section head units
    section_ordinals: np.ndarray | None = None  # int64 sections.ordinal of each row



class VectorMatrix:
    """All unit vectors of one model, kept in memory between queries.

    ``VectorMatrix(model_id)``; call :meth:`refresh` with a connection before searching.
    Not thread-safe: use from one thread (the search service's worker).
    """

    def __init__(self, model_id: str):
        self.model_id = model_id
        self._contents: dict[int, _Content] = {}
        self._state: dict[int, tuple[int, int]] = {}
        self._dirty = True
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.unit_content = np.zeros(0, dtype=np.int64)
        self.unit_page = np.zeros(0, dtype=np.int32)
        self.unit_index = np.zeros(0, dtype=np.int64)   # position inside its content
        self.page_starts = np.zeros(0, dtype=np.int64)  # first unit of each (content, page)
        self.page_keys: list[tuple[int, int]] = []
        self.head_matrix = np.zeros((0, 0), dtype=np.float32)  # (n_contents, dim) heads
        self.head_content = np.zeros(0, dtype=np.int64)

    # -- loading --------------------------------------------------------------------------
    def refresh(self, db: sqlite3.Connection) -> None:
        """Bring the matrix up to date with the cache: reload changed contents only."""
        rows = db.execute(
            "SELECT content_id, units_done, units_total FROM embeddings WHERE model_id = ?",
            (self.model_id,)).fetchall()
        state = {int(c): (int(d), int(t)) for c, d, t in rows}
        for cid in list(self._contents):
            if cid not in state:
                del self._contents[cid]
                self._dirty = True
        for cid, (done, total) in state.items():
            cur = self._contents.get(cid)
            if cur is not None and (cur.units_done, cur.units_total) == (done, total):
                continue
            self._contents[cid] = self._load(db, cid, done, total)
            self._dirty = True
        self._state = state
        if self._dirty:
            self._rebuild()

    def _load(self, db: sqlite3.Connection, cid: int, done: int, total: int) -> _Content:
        rows = db.execute(
            "SELECT page, char_start, char_end, vector, ordinal FROM units"
            " WHERE content_id = ? AND model_id = ? ORDER BY page, ordinal",
            (cid, self.model_id)).fetchall()
        heads = [r for r in rows if r[0] == SECTION_HEAD_PAGE]
        rows = [r for r in rows if r[0] != SECTION_HEAD_PAGE]
        sec_vecs = sec_ords = None
        if heads:
            sec_vecs = np.vstack([np.frombuffer(r[3], dtype=np.float32) for r in heads])
            sec_ords = np.array([r[4] for r in heads], dtype=np.int64)
        if rows:
            vecs = np.vstack([np.frombuffer(r[3], dtype=np.float32) for r in rows])
            pages = np.array([r[0] for r in rows], dtype=np.int32)
            spans = np.array([(r[1], r[2]) for r in rows], dtype=np.int64)
            head = vecs[:HEAD_UNITS].mean(axis=0)
            norm = float(np.linalg.norm(head))
            head = (head / norm).astype(np.float32) if norm > 0 else None
        else:
            vecs = np.zeros((0, 0), dtype=np.float32)
            pages = np.zeros(0, dtype=np.int32)
            spans = np.zeros((0, 2), dtype=np.int64)
            head = None
        return _Content(done, total, vecs, pages, spans, head, sec_vecs, sec_ords)

    def _rebuild(self) -> None:
        parts = [(cid, c) for cid, c in sorted(self._contents.items()) if len(c.pages)]
        if parts:
            dims = {c.vectors.shape[1] for _, c in parts}
            dim = max(dims)
            parts = [(cid, c) for cid, c in parts if c.vectors.shape[1] == dim]
            self.matrix = np.ascontiguousarray(np.vstack([c.vectors for _, c in parts]))
            self.unit_content = np.concatenate(
                [np.full(len(c.pages), cid, dtype=np.int64) for cid, c in parts])
            self.unit_page = np.concatenate([c.pages for _, c in parts])
            self.unit_index = np.concatenate(
                [np.arange(len(c.pages), dtype=np.int64) for _, c in parts])
            key = self.unit_content * 1_000_000 + self.unit_page
            change = np.nonzero(np.diff(key))[0] + 1
            self.page_starts = np.concatenate([[0], change]).astype(np.int64)
            self.page_keys = list(zip(self.unit_content[self.page_starts].tolist(),
                                      self.unit_page[self.page_starts].tolist()))
            heads = [(cid, c.head) for cid, c in parts if c.head is not None]
            self.head_matrix = np.vstack([h for _, h in heads]) if heads else \
                np.zeros((0, dim), dtype=np.float32)
            self.head_content = np.array([cid for cid, _ in heads], dtype=np.int64)
        else:
            self.head_matrix = np.zeros((0, 0), dtype=np.float32)
            self.head_content = np.zeros(0, dtype=np.int64)
            self.matrix = np.zeros((0, 0), dtype=np.float32)
            self.unit_content = np.zeros(0, dtype=np.int64)
            self.unit_page = np.zeros(0, dtype=np.int32)
            self.unit_index = np.zeros(0, dtype=np.int64)
            self.page_starts = np.zeros(0, dtype=np.int64)
            self.page_keys = []
        self._dirty = False

    # -- state ----------------------------------------------------------------------------
    def complete(self, cid: int) -> bool:
        """True when every unit of the content is embedded with this model."""
        s = self._state.get(cid)
        return bool(s) and s[0] >= s[1]

    def has_units(self, cid: int) -> bool:
        """True when at least one unit of the content is in the matrix."""
        c = self._contents.get(cid)
        return c is not None and len(c.pages) > 0

    def head_pages(self, cid: int) -> frozenset[int]:
        """The pages (1-based) of the units a content's head vector is the mean of (its
        first ``HEAD_UNITS`` units); empty when it has none."""
        c = self._contents.get(cid)
        if c is None or c.head is None:
            return frozenset()
        return frozenset(c.pages[:HEAD_UNITS].tolist())

    def span(self, cid: int, unit: int) -> tuple[int, int]:
        """``(char_start, char_end)`` of a content's unit (index inside the content)."""
        s = self._contents[cid].spans[unit]
        return int(s[0]), int(s[1])

    # -- searching ------------------------------------------------------------------------
    def rank_pages(self, q: np.ndarray, contents: set[int] | None = None,
                   page_score: str = "max") -> list[tuple[int, int, float, int]]:
        """Pages by descending cosine with the query vector ``q`` (dim,).

        ``page_score``: "max" = the best unit's cosine; "first" = the page's first unit
        (its head: ~256 tokens); "blend:A" = (1 - A) * max + A * first ("blend" = 0.5).

        Returns ``[(content_id, page, score, best unit index inside the content)]`` for every
        page with units (of ``contents`` when given), best first; equal scores by content id
        then page. Cost: one ``(n_units, dim) @ (dim,)`` product plus a segmented max.
        """
        if not len(self.page_starts) or self.matrix.shape[1] != q.shape[0]:
            return []
        sims = self.matrix @ q.astype(np.float32, copy=False)
        page_max = np.maximum.reduceat(sims, self.page_starts)
        best_sims = page_max
        if page_score == "first":
            page_max = sims[self.page_starts]
        elif page_score.startswith("blend"):
            a = float(page_score[6:] or 0.5)  # "blend" or "blend:A", A = weight of first unit
            page_max = (1 - a) * page_max + a * sims[self.page_starts]
        keys_c = self.unit_content[self.page_starts]
        if contents is not None:
            mask = np.isin(keys_c, np.fromiter(contents, dtype=np.int64, count=len(contents)))
            page_max = np.where(mask, page_max, -np.inf)
        order = np.argsort(-page_max, kind="stable")
        order = order[np.isfinite(page_max[order])]
        # best unit of each page: the first unit whose similarity equals the page maximum
        seg = np.repeat(np.arange(len(self.page_starts)),
                        np.diff(np.append(self.page_starts, len(sims))))
        hit = np.flatnonzero(sims >= best_sims[seg])
        _, first = np.unique(seg[hit], return_index=True)
        best = np.full(len(self.page_starts), -1, dtype=np.int64)
        best[np.unique(seg[hit])] = self.unit_index[hit[first]]
        keys = self.page_keys
        return [(keys[p][0], keys[p][1], s, b) for p, s, b in
                zip(order.tolist(), page_max[order].tolist(), best[order].tolist())]

    def section_heads(self, cid: int, q: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """``(section ordinals, cosines)`` of one content's section head units with the
        query vector ``q`` (dim,), or None when it has none (not embedded yet)."""
        c = self._contents.get(cid)
        if c is None or c.section_vectors is None or c.section_vectors.shape[1] != q.shape[0]:
            return None
        return c.section_ordinals, c.section_vectors @ q.astype(np.float32, copy=False)

    def rank_docs(self, q: np.ndarray, contents: set[int] | None = None
                  ) -> list[tuple[int, float]]:
        """Contents by descending cosine of their head vector (mean of the first
        ``HEAD_UNITS`` units, re-normalised: the document's opening, title and abstract for
        a paper) with ``q``: ``[(content_id, score)]``, equal scores by content id. One
        ``(n_contents, dim) @ (dim,)`` product."""
        if self._dirty:
            self._rebuild()
        if not len(self.head_content) or self.head_matrix.shape[1] != q.shape[0]:
            return []
        sims = self.head_matrix @ q.astype(np.float32, copy=False)
        cids = self.head_content
        if contents is not None:
            keep = np.isin(cids, np.fromiter(contents, dtype=np.int64, count=len(contents)))
            sims, cids = sims[keep], cids[keep]
        order = np.lexsort((cids, -sims))
        return [(int(cids[i]), float(sims[i])) for i in order]
