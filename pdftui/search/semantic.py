"""The semantic arm: exhaustive cosine over every cached embedding unit, in numpy.

The cache holds, per content and model, embedding *units* (character ranges of a page's text)
with L2-normalised float32 vectors, and one head unit per section (the first unit of its own
text, kept apart from the page matrix: :meth:`VectorMatrix.section_head_sims`).
:class:`VectorMatrix` keeps them in memory as one ``(n_units, dim)`` matrix of int8 codes
with a scale per unit (:mod:`pdftui.search.quantized`: a quarter of float32's bytes), and
the section head units as another; a query is one matrix product ``M @ q`` (cosine, since
both sides are unit length) and a page scores the maximum over its units, so a term on the
last line of a long page is not diluted by the rest of it. No vector database, no
approximation: a folder's units fit in one matrix product (bench/speed.py and bench/scale.py
measure it; figures in bench/README.md).

The matrix is refreshed incrementally: :meth:`VectorMatrix.refresh` reads the ``embeddings``
progress table and reloads only the contents whose unit count changed (or that appeared or
vanished), so a search during indexing sees newly embedded documents and never reloads the
whole cache.

Given the cache folder, a process's first refresh takes the contents it can from the
vector snapshot there (:mod:`pdftui.store.vector_snapshot`: what an earlier process built,
memory-mapped) and reads only the others from SQLite; a refresh that changed the matrix
writes the snapshot anew, in a background thread.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from dataclasses import dataclass

import numpy as np

from ..cache import HEAD_UNITS, SECTION_HEAD_PAGE
from ..store import vector_snapshot as vs
from ..store.reader import (read_cache_id, read_embedding_fingerprints,
                            read_embedding_states, read_units)
from .quantized import Int8Matrix, offset, quantize

PAGE_CODE = 1_000_000
"""``content * PAGE_CODE + page``: one int64 per (content, page), in sort order."""


@dataclass
class _Content:
    """The units of one content: vectors ``(n, dim)`` int8 codes with float32 scales
    ``(n,)`` (:func:`pdftui.search.quantized.quantize`; once in the matrix, uint8 views
    into it, offset by 128), page numbers, char ranges."""

    units_done: int
    units_total: int
    vectors: np.ndarray
    scales: np.ndarray
    pages: np.ndarray        # int32, 1-based page of each unit
    spans: np.ndarray        # int64 (n, 2): char_start, char_end into pages.text
    # (dim,) float32 unit-length mean of the first HEAD_UNITS units: kept in the vector
    # snapshot's format; no ranking reads it since the document-level arm went
    head: np.ndarray | None
    section_vectors: np.ndarray | None = None  # (n_sections, dim) int8: section head units
    section_scales: np.ndarray | None = None   # (n_sections,) float32
    section_ordinals: np.ndarray | None = None  # int64 sections.ordinal of each row
    fingerprint: str = ""   # reader.read_embedding_fingerprints' ('' when not read)



def release_freed() -> None:
    """Give freed heap memory back to the OS (glibc ``malloc_trim``; nothing elsewhere):
    the contents' own vector buffers, freed one by one while they are copied into the
    matrix, would otherwise stay in the process's resident set next to it (and so would
    the pages and blocks the section index reads content by content)."""
    global _TRIM
    if _TRIM is None:
        try:
            import ctypes

            _TRIM = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM = None


def _tiles(whole: np.ndarray, arrays: list[np.ndarray]) -> bool:
    """Are ``arrays`` contiguous views that follow one another and cover ``whole``
    exactly, in order (so ``whole`` is their concatenation, without a copy)?"""
    if not arrays or not whole.flags.c_contiguous or any(
            a.dtype != whole.dtype or a.shape[1:] != whole.shape[1:]
            or not a.flags.c_contiguous for a in arrays):
        return False
    at = whole.__array_interface__["data"][0]
    end = at + whole.nbytes
    for a in arrays:
        if a.__array_interface__["data"][0] != at:
            return False
        at += a.nbytes
    return at == end


def _stack(blobs: list[bytes]) -> np.ndarray:
    """``(n, dim)`` float32 from n float32 vector blobs of one length (one join, one
    buffer; ``np.vstack`` of n small arrays when the lengths differ, which then raises)."""
    if len({len(b) for b in blobs}) == 1:
        return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
    return np.vstack([np.frombuffer(b, dtype=np.float32) for b in blobs])


class VectorMatrix:
    """All unit vectors of one model, kept in memory between queries.

    ``VectorMatrix(model_id, cache_dir)``; call :meth:`refresh` with a connection before
    searching. With ``cache_dir`` (the cache's folder) the matrix is kept in a snapshot
    there between processes (:mod:`pdftui.store.vector_snapshot`). Not thread-safe: use
    from one thread (the search service's worker).
    """

    #: seconds a snapshot is kept before one that differs replaces it (a folder being
    #: embedded changes the matrix at every refresh: at most one rewrite a minute)
    snapshot_interval = 60.0

    def __init__(self, model_id: str, cache_dir: str | os.PathLike | None = None):
        self.model_id = model_id
        self.snapshot_path = vs.snapshot_path(cache_dir, model_id) if cache_dir else None
        self._snapshot: vs.Snapshot | None = None   # the one this process mapped
        self._writer: threading.Thread | None = None
        self._unusable = False   # the snapshot this process found could not be used
        #: contents (and their units) read from SQLite, and contents taken from the snapshot
        self.contents_read = 0
        self.units_read = 0
        self.contents_mapped = 0
        self._contents: dict[int, _Content] = {}
        self._state: dict[int, tuple[int, int]] = {}
        self._dirty = True
        self.matrix = Int8Matrix.empty()
        self.unit_content = np.zeros(0, dtype=np.int64)
        self.unit_page = np.zeros(0, dtype=np.int32)
        self.unit_index = np.zeros(0, dtype=np.int64)   # position inside its content
        self.page_starts = np.zeros(0, dtype=np.int64)  # first unit of each (content, page)
        self.page_content = np.zeros(0, dtype=np.int64)  # content of each page
        self.page_number = np.zeros(0, dtype=np.int64)   # 1-based number of each page
        self.page_code = np.zeros(0, dtype=np.int64)     # content * PAGE_CODE + page, sorted
        self._sims: tuple | None = None
        self._mask: tuple | None = None   # (contents, page_content, mask) of the last scope
        self.section_matrix = Int8Matrix.empty()  # section head units
        self.section_content = np.zeros(0, dtype=np.int64)   # content of each row
        self.section_ordinal = np.zeros(0, dtype=np.int64)   # sections.ordinal of each row

    # -- loading --------------------------------------------------------------------------
    def refresh(self, db: sqlite3.Connection) -> None:
        """Bring the matrix up to date with the cache: reload changed contents only."""
        state = {c: (e.units_done, e.units_total)
                 for c, e in read_embedding_states(db, self.model_id).items()}
        for cid in list(self._contents):
            if cid not in state:
                del self._contents[cid]
                self._dirty = True
        prints = read_embedding_fingerprints(db, self.model_id) if self.snapshot_path else {}
        cold = not self._contents and self.snapshot_path is not None
        if cold:
            self._map_snapshot(db, state, prints)
        loaded = 0
        for cid, (done, total) in state.items():
            cur = self._contents.get(cid)
            if cur is not None and (cur.units_done, cur.units_total) == (done, total) \
                    and cur.fingerprint == prints.get(cid, ""):
                continue
            self._contents[cid] = self._load(db, cid, done, total)
            self._contents[cid].fingerprint = prints.get(cid, "")
            self._dirty = True
            loaded += 1
            if loaded % 256 == 0:   # the float32 rows read and quantized: dropped
                release_freed()
        self._state = state
        changed = self._dirty
        if self._dirty:
            self._rebuild()
        snap = self._snapshot
        same = cold and snap is not None and not loaded and \
            len(self._contents) == len(snap.contents)   # all of it, and only it: as it is
        if self.snapshot_path is not None and (changed or cold) and not same:
            self._save_snapshot(db)

    # -- the snapshot ---------------------------------------------------------------------
    def _map_snapshot(self, db: sqlite3.Connection, state: dict[int, tuple[int, int]],
                      prints: dict[int, str]) -> None:
        """Take every content whose state and fingerprint equal the snapshot's from it
        (views into the mapped file); no snapshot, or one of another cache or model:
        nothing."""
        snap = vs.read_snapshot(self.snapshot_path)
        if snap is None or snap.model_id != self.model_id or \
                snap.cache_id != read_cache_id(db):
            self._unusable = True   # missing, damaged or another cache's: write it anew
            return
        for cid, c in snap.contents.items():
            if state.get(cid) == (c.done, c.total) and prints.get(cid) == c.fingerprint:
                self._contents[cid] = _Content(
                    c.done, c.total, c.vectors, c.scales, c.pages, c.spans, c.head,
                    c.section_vectors, c.section_scales, c.section_ordinals, c.fingerprint)
                self.contents_mapped += 1
        self._snapshot = snap
        self._dirty = True

    def _save_snapshot(self, db: sqlite3.Connection) -> None:
        """Write the matrix as the snapshot (in a background thread) unless the one there
        holds the same contents, or holds others of this cache but is younger than
        :attr:`snapshot_interval`, or a write is still running. Never raises: without a
        snapshot the next process is only slower."""
        if self._writer is not None and self._writer.is_alive():
            return
        cache_id = read_cache_id(db)
        if cache_id is None:
            return
        parts = self._snapshot_parts()
        header = None if self._unusable else vs.read_header(self.snapshot_path)
        if header is not None and header.get("cache_id") == cache_id \
                and header.get("model_id") == self.model_id:
            if header.get("digest") == vs.state_digest(parts):
                return
            try:
                age = time.time() - os.stat(self.snapshot_path).st_mtime
            except OSError:
                age = 0.0
            if age < self.snapshot_interval:
                return
        dim = self.matrix.shape[1] if len(self.matrix) else 0
        sdim = self.section_matrix.shape[1]
        self._writer = threading.Thread(
            target=vs.write_snapshot, name="vector-snapshot",
            args=(self.snapshot_path, cache_id, self.model_id, parts, dim, sdim))
        self._writer.start()
        self._unusable = False

    def wait_snapshot(self) -> None:
        """Wait for a snapshot write that is running (tests; a process about to exit)."""
        if self._writer is not None:
            self._writer.join()

    def _snapshot_parts(self) -> list[vs.SnapshotContent]:
        """The contents the snapshot can hold, ascending: those in the matrix (or without
        units), with section heads of the section matrix's width (or none)."""
        dim = self.matrix.shape[1] if len(self.matrix) else None
        sdim = self.section_matrix.shape[1]
        out = []
        for cid, c in sorted(self._contents.items()):
            fp = c.fingerprint
            units_ok = not len(c.pages) or (c.vectors.dtype == np.uint8
                                            and c.vectors.shape[1] == dim)
            secs = c.section_vectors
            secs_ok = secs is None or not len(secs) or (secs.dtype == np.uint8
                                                        and secs.shape[1] == sdim)
            if not fp or not units_ok or not secs_ok:
                continue
            if secs is not None and not len(secs):
                secs = None
            out.append(vs.SnapshotContent(
                cid, c.units_done, c.units_total, fp, c.vectors, c.scales, c.pages, c.spans,
                c.head, secs, None if secs is None else c.section_scales,
                None if secs is None else c.section_ordinals))
        return out

    def _load(self, db: sqlite3.Connection, cid: int, done: int, total: int) -> _Content:
        self.contents_read += 1
        u = read_units(db, cid, self.model_id)
        self.units_read += len(u.pages)
        rows = list(zip(u.pages, u.starts, u.ends, u.vectors, u.ordinals))
        heads = [r for r in rows if r[0] == SECTION_HEAD_PAGE]
        rows = [r for r in rows if r[0] != SECTION_HEAD_PAGE]
        sec_vecs = sec_scales = sec_ords = None
        if heads:
            sec_vecs, sec_scales = quantize(_stack([r[3] for r in heads]))
            sec_ords = np.array([r[4] for r in heads], dtype=np.int64)
        if rows:
            vecs = _stack([r[3] for r in rows])
            pages = np.array([r[0] for r in rows], dtype=np.int32)
            spans = np.array([(r[1], r[2]) for r in rows], dtype=np.int64)
            head = vecs[:HEAD_UNITS].mean(axis=0)
            norm = float(np.linalg.norm(head))
            head = (head / norm).astype(np.float32) if norm > 0 else None
            vecs, scales = quantize(vecs)
        else:
            vecs = np.zeros((0, 0), dtype=np.int8)
            scales = np.zeros(0, dtype=np.float32)
            pages = np.zeros(0, dtype=np.int32)
            spans = np.zeros((0, 2), dtype=np.int64)
            head = None
        return _Content(done, total, vecs, scales, pages, spans, head, sec_vecs, sec_scales,
                        sec_ords)

    def _rebuild(self) -> None:
        parts = [(cid, c) for cid, c in sorted(self._contents.items()) if len(c.pages)]
        if parts:
            dims = {c.vectors.shape[1] for _, c in parts}
            dim = max(dims)
            parts = [(cid, c) for cid, c in parts if c.vectors.shape[1] == dim]
            self._sims = None
            snap = self._snapshot
            self.matrix = self._gather([(c, "vectors", "scales") for _, c in parts], dim,
                                       (snap.codes, snap.scales) if snap else None)
            self.unit_content = np.concatenate(
                [np.full(len(c.pages), cid, dtype=np.int64) for cid, c in parts])
            self.unit_page = np.concatenate([c.pages for _, c in parts])
            self.unit_index = np.concatenate(
                [np.arange(len(c.pages), dtype=np.int64) for _, c in parts])
            key = self.unit_content * PAGE_CODE + self.unit_page
            change = np.nonzero(np.diff(key))[0] + 1
            self.page_starts = np.concatenate([[0], change]).astype(np.int64)
            self._page_arrays()
        else:
            self.matrix = Int8Matrix.empty()
            self.unit_content = np.zeros(0, dtype=np.int64)
            self.unit_page = np.zeros(0, dtype=np.int32)
            self.unit_index = np.zeros(0, dtype=np.int64)
            self.page_starts = np.zeros(0, dtype=np.int64)
            self._page_arrays()
        self._stack_section_heads(self.matrix.shape[1] if len(self.matrix) else None)
        self._dirty = False
        self._sims = None

    def _stack_section_heads(self, dim: int | None) -> None:
        """Every content's section head units as one ``(n, dim)`` matrix with their
        content and ordinal (contents ascending; the page matrix's ``dim``, else the most
        common one): one product per query instead of one per content. Each content's
        array becomes a view into it, so the vectors are held once."""
        parts = [(cid, c) for cid, c in sorted(self._contents.items())
                 if c.section_vectors is not None and len(c.section_vectors)]
        if dim is None and parts:
            dims = [c.section_vectors.shape[1] for _, c in parts]
            dim = max(set(dims), key=dims.count)
        parts = [(cid, c) for cid, c in parts if c.section_vectors.shape[1] == dim]
        if not parts:
            self.section_matrix = Int8Matrix.empty(dim or 0)
            self.section_content = np.zeros(0, dtype=np.int64)
            self.section_ordinal = np.zeros(0, dtype=np.int64)
            return
        snap = self._snapshot
        self.section_matrix = self._gather(
            [(c, "section_vectors", "section_scales") for _, c in parts], dim,
            (snap.section_codes, snap.section_scales) if snap else None)
        self.section_content = np.concatenate(
            [np.full(len(c.section_ordinals), cid, dtype=np.int64) for cid, c in parts])
        self.section_ordinal = np.concatenate([c.section_ordinals for _, c in parts])

    @staticmethod
    def _gather(parts: list[tuple[_Content, str, str]], dim: int,
                whole: tuple[np.ndarray, np.ndarray] | None = None) -> Int8Matrix:
        """One :class:`Int8Matrix` of the contents' int8 codes and scales (attributes
        named by each part), in order. Each content's arrays are copied in and become
        views into it (its codes then offset by 128, as the matrix holds them), so their
        own buffers are freed at once: one copy in memory, also while loading. When
        they are, in order, exactly the ``whole`` (codes, scales) of the mapped snapshot,
        the matrix is one sequential copy of it into memory (queries on the mapping itself
        took 2-3 % longer: bench/query_cost.py, corpus, hybrid 1.025, copied 0.993)."""
        if whole is not None and _tiles(whole[0], [getattr(c, v) for c, v, _ in parts]) \
                and _tiles(whole[1], [getattr(c, s) for c, _, s in parts]):
            return Int8Matrix(np.array(whole[0]), np.array(whole[1]))
        n_all = sum(len(getattr(c, v)) for c, v, _ in parts)
        codes = np.empty((n_all, dim), dtype=np.uint8)
        scales = np.empty(n_all, dtype=np.float32)
        at = 0
        for i, (c, v, s) in enumerate(parts):
            n = len(getattr(c, v))
            held = getattr(c, v)
            codes[at:at + n] = offset(held) if held.dtype == np.int8 else held
            scales[at:at + n] = getattr(c, s)
            setattr(c, v, codes[at:at + n])
            setattr(c, s, scales[at:at + n])
            at += n
            if i % 256 == 255:
                release_freed()
        release_freed()
        return Int8Matrix(codes, scales)

    def _page_arrays(self) -> None:
        self.page_content = self.unit_content[self.page_starts]
        self.page_number = self.unit_page[self.page_starts].astype(np.int64)
        self.page_code = self.page_content * PAGE_CODE + self.page_number
        # contents are stacked one after another: where each starts among the pages,
        # and each page's content by that position (for per-content reductions)
        pc = self.page_content
        self.content_starts = np.flatnonzero(np.r_[True, pc[1:] != pc[:-1]]) \
            if len(pc) else np.zeros(0, dtype=np.int64)
        self.page_slot = np.repeat(np.arange(len(self.content_starts)),
                                   np.diff(np.r_[self.content_starts, len(pc)]))

    # -- state ----------------------------------------------------------------------------
    def complete(self, cid: int) -> bool:
        """True when every unit of the content is embedded with this model."""
        s = self._state.get(cid)
        return bool(s) and s[0] >= s[1]

    def has_units(self, cid: int) -> bool:
        """True when at least one unit of the content is in the matrix."""
        c = self._contents.get(cid)
        return c is not None and len(c.pages) > 0

    def span(self, cid: int, unit: int) -> tuple[int, int]:
        """``(char_start, char_end)`` of a content's unit (index inside the content)."""
        s = self._contents[cid].spans[unit]
        return int(s[0]), int(s[1])

    # -- searching ------------------------------------------------------------------------
    def similarities(self, q: np.ndarray) -> np.ndarray:
        """Cosine of the query vector ``q`` (dim,) with every unit: ``(n_units,)`` float32,
        one ``(n_units, dim) @ (dim,)`` product of the int8 codes (within ~1e-3 of the
        float32 cosine: :mod:`pdftui.search.quantized`), kept for the last query vector so the arms
        of one query (pages, best cosine, sections) share it."""
        q32 = q.astype(np.float32, copy=False)
        key = q32.tobytes()
        if self._sims is None or self._sims[0] != key or self._sims[1] is not self.matrix:
            self._sims = (key, self.matrix, self.matrix.dot(q32))
        return self._sims[2]

    def similarities_of(self, q: np.ndarray, rows: np.ndarray, heads: bool = False
                        ) -> np.ndarray:
        """Cosine of ``q`` (dim,) with the units at ``rows`` (int64 indexes into the unit
        matrix, or with ``heads`` into the section head matrix): ``(len(rows),)`` float32,
        one product over those rows only (a second query vector for a few contents)."""
        mat = self.section_matrix if heads else self.matrix
        return Int8Matrix(mat.codes[rows], mat.scales[rows]).dot(q.astype(np.float32,
                                                                          copy=False))

    def page_index(self, cid: int, page: int) -> int:
        """Position of ``(content, page)`` in the page arrays (``page_starts``), or -1."""
        code = cid * PAGE_CODE + page
        i = int(np.searchsorted(self.page_code, code))
        return i if i < len(self.page_code) and self.page_code[i] == code else -1

    def content_mask(self, contents: set[int] | None) -> np.ndarray | None:
        """Boolean ``(n_pages,)``: the pages of ``contents`` (None: no restriction); the
        last one is kept for the same ``contents`` object (callers must not mutate it)."""
        if contents is None:
            return None
        got = self._mask
        if got is not None and got[0] is contents and got[1] is self.page_content:
            return got[2]   # the same scope object as the last query's (see Engine._view)
        want = np.fromiter(contents, dtype=np.int64, count=len(contents))
        mask = np.isin(self.page_content, want)
        self._mask = (contents, self.page_content, mask)
        return mask

    def rank_pages(self, q: np.ndarray, contents: set[int] | None = None,
                   first_unit_weight: float = 0.0,
                   document_weight: float = 0.0) -> "PageRanking":
        """Pages by descending cosine with the query vector ``q`` (dim,).

        A page scores ``(1 - A) * its best unit's cosine + A * its first unit's`` (its
        head: ~256 tokens), A = ``first_unit_weight`` in [0, 1]: 0 = the best unit, 1 = the
        first unit only; plus ``document_weight`` x the best unit cosine of its whole
        document (document context: a passage's score interpolated with its document's,
        Callan, "Passage-level evidence in document retrieval", SIGIR 1994), so a page of
        a document that holds a close passage somewhere passes a page of the same cosine
        in a document that does not.

        Returns a :class:`PageRanking`: a sequence of ``(content_id, page, score, best unit
        index inside the content)`` for every page with units (of ``contents`` when given),
        best first; equal scores by content id then page. Cost: one ``(n_units, dim) @
        (dim,)`` product plus a segmented max; the order is sorted only as far as read.
        """
        if not len(self.page_starts) or self.matrix.shape[1] != q.shape[0]:
            return PageRanking.empty()
        sims = self.similarities(q)
        best_sims = np.maximum.reduceat(sims, self.page_starts)
        page_max = best_sims
        a = first_unit_weight
        if a == 1.0:
            page_max = sims[self.page_starts]
        elif a:
            page_max = (1 - a) * page_max + a * sims[self.page_starts]
        page_max = page_max.astype(np.float64)
        if document_weight:
            doc_best = np.maximum.reduceat(best_sims, self.content_starts)
            page_max = page_max + document_weight * doc_best[self.page_slot].astype(np.float64)
        mask = self.content_mask(contents)
        if mask is not None:
            page_max = np.where(mask, page_max, -np.inf)
        return PageRanking(self, sims, page_max, best_sims)

    def section_head_sims(self, q: np.ndarray) -> np.ndarray:
        """Cosine of the query vector ``q`` (dim,) with every section head unit:
        ``(n,)`` float32 aligned with ``section_content`` / ``section_ordinal``, one
        product (empty when no content has section heads of that dimension)."""
        if self._dirty:
            self._rebuild()
        if not len(self.section_matrix) or self.section_matrix.shape[1] != q.shape[0]:
            return np.zeros(0, dtype=np.float32)
        return self.section_matrix.dot(q.astype(np.float32, copy=False))


class PageRanking:
    """The semantic arm's pages best first, kept as arrays (:meth:`VectorMatrix.rank_pages`).

    A sequence of ``(content_id, page, score, best unit index inside the content)``
    tuples: ``len()``, indexing and slicing, iteration. The order (score descending, equal
    scores by content id then page: a stable sort over the page arrays) is computed only
    as far as it is read (:meth:`top`), so a query reading its first 100 pages sorts 100,
    not every page of the folder. ``score`` is -inf for a page left out."""

    def __init__(self, m: VectorMatrix | None, sims: np.ndarray, score: np.ndarray,
                 best_sims: np.ndarray):
        self.m = m
        self.sims = sims            # (n_units,) float32 cosine of every unit
        self.score = score          # (n_pages,) float64 page score, -inf when left out
        self.best_sims = best_sims  # (n_pages,) float32 best unit cosine of each page
        self._n = int(np.isfinite(score).sum())
        self._order = np.zeros(0, dtype=np.int64)

    @classmethod
    def empty(cls) -> "PageRanking":
        z = np.zeros(0)
        return cls(None, z.astype(np.float32), z, z.astype(np.float32))

    def __len__(self) -> int:
        return self._n

    def top(self, n: int) -> np.ndarray:
        """Page positions (into the matrix's page arrays) of the first ``n`` pages."""
        n = min(max(n, 0), self._n)
        if len(self._order) >= n:
            return self._order[:n]
        s = self.score
        if n >= self._n or n * 4 >= len(s):
            order = np.argsort(-s, kind="stable")[: self._n]
        else:
            # the n-th best score, then every page scoring at least that, stably sorted:
            # the same prefix as the full stable sort
            v = -np.partition(-s, n - 1)[n - 1]
            cand = np.flatnonzero(s >= v)
            order = cand[np.argsort(-s[cand], kind="stable")][:n]
        self._order = order
        return order

    def best_unit(self, p: int) -> int:
        """Index inside its content of the first unit of page position ``p`` whose cosine
        equals the page's best."""
        starts = self.m.page_starts
        a = int(starts[p])
        b = int(starts[p + 1]) if p + 1 < len(starts) else len(self.sims)
        return int(self.m.unit_index[a + int(np.argmax(self.sims[a:b]))])

    def _tuples(self, pos: np.ndarray) -> list[tuple[int, int, float, int]]:
        m = self.m
        return [(c, p, s, self.best_unit(i)) for i, c, p, s in zip(
            pos.tolist(), m.page_content[pos].tolist(), m.page_number[pos].tolist(),
            self.score[pos].tolist())]

    def __getitem__(self, i):
        if isinstance(i, slice):
            start, stop, step = i.indices(self._n)
            return self._tuples(self.top(stop)[start:stop:step]) if stop > start else []
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        return self._tuples(self.top(i + 1)[i:i + 1])[0]

    def __iter__(self):
        pos = self.top(self._n)
        for k in range(0, len(pos), 1024):
            yield from self._tuples(pos[k:k + 1024])

    def keys(self, n: int) -> list[tuple[int, int]]:
        """``[(content_id, page)]`` of the first ``n`` pages."""
        pos = self.top(n)
        return list(zip(self.m.page_content[pos].tolist(), self.m.page_number[pos].tolist())) \
            if self.m is not None else []

    def restrict(self, keep: np.ndarray) -> "PageRanking":
        """The ranking without the pages where the boolean ``(n_pages,)`` ``keep`` is False."""
        return PageRanking(self.m, self.sims, np.where(keep, self.score, -np.inf),
                           self.best_sims)

    def best_cosine(self) -> float | None:
        """The best cosine of any unit on a page still ranked (None when none is)."""
        live = np.isfinite(self.score)
        return float(self.best_sims[live].max()) if live.any() else None

    def rank_of(self, p: int) -> int:
        """0-based position of page position ``p`` in the order (it must be ranked)."""
        s = self.score
        return int(np.count_nonzero(s > s[p]) + np.count_nonzero(s[:p] == s[p]))

    def before(self, p: int) -> np.ndarray:
        """Boolean ``(n_pages,)``: the ranked pages ordered before page position ``p``."""
        s = self.score
        out = s > s[p]
        out[:p] |= s[:p] == s[p]
        return out
