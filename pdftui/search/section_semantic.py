"""The semantic section arm over every section of the folder at once, as numpy arrays.

Two lists rank sections (the search service's module docstring, point 4): by the best
cosine of an embedding unit inside the section's own text (:func:`unit_list`) and by the
cosine of the section's head unit (:func:`head_list`); the arm's own order is their
weighted RRF (:func:`rrf`, Cormack et al. 2009). Each list is a :class:`Keys`: the
``(document, section id)`` keys best first as two arrays, so a query over 10,000 documents
makes no Python object per section; only the first ``depth`` keys become tuples
(:meth:`Keys.keys`). Orders and tie-breaks are those of the per-section tuples they
replace: units by (cosine desc, level desc, start page, the scope's content order), heads
by (cosine desc, content id, ordinal), the documents of one content in scope order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .keyword import distinct


@dataclass
class DocScope:
    """The documents searched, grouped by content (``{content id: [doc, ...]}`` in scope
    order): ``names`` flattened in that order; dense by content id, ``first`` (index of
    the content's first name), ``count`` (its names) and ``pos`` (its place in the order)."""

    names: list[str]
    first: np.ndarray
    count: np.ndarray
    pos: np.ndarray

    @classmethod
    def of(cls, docs_of: dict[int, list[str]]) -> "DocScope":
        size = max(docs_of, default=-1) + 1
        first = np.zeros(size, dtype=np.int64)
        count = np.zeros(size, dtype=np.int64)
        pos = np.zeros(size, dtype=np.int64)
        names: list[str] = []
        for i, (cid, ds) in enumerate(docs_of.items()):
            first[cid], count[cid], pos[cid] = len(names), len(ds), i
            names.extend(ds)
        return cls(names, first, count, pos)

    def holds(self, content: np.ndarray) -> np.ndarray:
        """Boolean: which of these content ids have a document in scope."""
        ok = content < len(self.count)
        ok[ok] = self.count[content[ok]] > 0
        return ok


@dataclass
class Keys:
    """A ranked list of ``(names[doc[i]], sid[i])`` keys, best first."""

    doc: np.ndarray
    sid: np.ndarray

    def __len__(self) -> int:
        return len(self.sid)

    def codes(self) -> np.ndarray:
        """One int64 per key: ``doc << 32 | sid``."""
        return (self.doc << 32) | self.sid

    def keys(self, names: list[str], n: int) -> list[tuple[str, int]]:
        """The first ``n`` keys as ``(doc, section id)`` tuples."""
        return [(names[d], s) for d, s in zip(self.doc[:n].tolist(), self.sid[:n].tolist())]

    def rank_of(self, scope: DocScope, doc: str, sid: int) -> int | None:
        """1-based position of ``(doc, sid)``, None when it is not listed."""
        if doc not in scope.names:
            return None
        hit = np.flatnonzero((self.sid == sid) & (self.doc == scope.names.index(doc)))
        return int(hit[0]) + 1 if len(hit) else None


def _expand(content: np.ndarray, sid: np.ndarray, scope: DocScope) -> Keys:
    """Keys of ranked sections, each repeated for every document of its content."""
    reps = scope.count[content]
    start = np.repeat(np.cumsum(reps) - reps, reps)
    doc = np.repeat(scope.first[content], reps) + np.arange(int(reps.sum())) - start
    return Keys(doc.astype(np.int64), np.repeat(sid, reps).astype(np.int64))


@dataclass
class SectionUnits:
    """Every section with embedding units, over the matrix's contents (ascending): its
    ``content``, ``sid``, ``level`` and ``start`` page, and its units' global indexes in
    the unit matrix, ``idx[seg[i]:seg[i + 1]]``."""

    content: np.ndarray
    sid: np.ndarray
    level: np.ndarray
    start: np.ndarray
    seg: np.ndarray
    idx: np.ndarray

    @classmethod
    def build(cls, parts: list[tuple[int, int, tuple]]) -> "SectionUnits":
        """From ``[(content id, its first unit's row in the matrix, (sids, levels, start
        pages, segment starts, unit indexes inside the content))]``."""
        cont, sid, lvl, sp, seg, idx = [], [], [], [], [], []
        n = 0
        for cid, off, (sids, levels, sps, segs, ids) in parts:
            cont.append(np.full(len(sids), cid, dtype=np.int64))
            sid.append(np.asarray(sids, dtype=np.int64))
            lvl.append(np.asarray(levels, dtype=np.int64))
            sp.append(np.asarray(sps, dtype=np.int64))
            seg.append(segs + n)
            idx.append(ids + off)
            n += len(ids)
        if not cont:
            z = np.zeros(0, dtype=np.int64)
            return cls(z, z, z, z, z, z)
        return cls(*(np.concatenate(x).astype(np.int64) for x in (cont, sid, lvl, sp, seg, idx)))


def unit_list(su: SectionUnits, sims: np.ndarray, scope: DocScope,
              ok: np.ndarray | None) -> Keys:
    """Sections of the scope by the best cosine (``sims``: every unit's) of a unit inside
    them, ties to the deeper, then earlier, section, then the scope's content order;
    ``ok`` (boolean by section, or None) leaves sections out."""
    if not len(su.sid):
        z = np.zeros(0, dtype=np.int64)
        return Keys(z, z)
    best = np.maximum.reduceat(sims[su.idx], su.seg)
    keep = scope.holds(su.content)
    if ok is not None:
        keep &= ok
    sel = np.flatnonzero(keep)
    order = sel[np.lexsort((sel, scope.pos[su.content[sel]], su.start[sel], -su.level[sel],
                            -best[sel]))]
    return _expand(su.content[order], su.sid[order], scope)


def head_list(content: np.ndarray, ordinal: np.ndarray, sid: np.ndarray, sims: np.ndarray,
              scope: DocScope) -> Keys:
    """Sections by the cosine of their head unit, ties by content id, then ordinal."""
    order = np.lexsort((ordinal, content, -sims))
    return _expand(content[order], sid[order], scope)


def rrf(a: Keys, b: Keys, wa: float, wb: float, k: int) -> Keys:
    """Weighted RRF of two key lists: ``wa / (k + rank in a) + wb / (k + rank in b)``,
    best first; equal scores in first-seen order (a's keys in a's order, then b's).

    Both lists come from :func:`_expand` over one scope, so a section id listed in both
    carries the same documents in the same order in each: b's rank of a's key is read
    through the section id's first place in b (arrays by section id, no sort of the keys);
    lists without that shape take :func:`_rrf_sorted`."""
    if not len(a) or not len(b):
        return _rrf_sorted(a, b, wa, wb, k)
    size = int(max(a.sid.max(), b.sid.max())) + 1
    first_a, first_b = _block_starts(a.sid, size), _block_starts(b.sid, size)
    if first_a is None or first_b is None:
        return _rrf_sorted(a, b, wa, wb, k)
    # place of a's key in b: the sid's first place in b plus the doc's offset in its block
    fb = first_b[a.sid]
    jb = fb + (a.doc - b.doc[np.maximum(fb, 0)])
    in_b = fb >= 0
    only_b = first_a[b.sid] < 0
    jb_ok = np.clip(jb, 0, len(b) - 1)
    if not (np.all((b.sid[jb_ok] == a.sid)[in_b]) and np.all((b.doc[jb_ok] == a.doc)[in_b])
            and int(in_b.sum()) + int(only_b.sum()) == len(b)):
        return _rrf_sorted(a, b, wa, wb, k)
    ra = np.arange(1, len(a) + 1, dtype=np.int64)
    rb = np.where(in_b, jb + 1, -1)
    rb_only = np.flatnonzero(only_b) + 1
    score = wa / (k + ra)
    score = np.where(in_b, score + wb / (k + np.maximum(rb, 1)), score)
    score = np.concatenate([score, wb / (k + rb_only)])
    seq = np.concatenate([ra, len(a) + rb_only])
    doc = np.concatenate([a.doc, b.doc[only_b]])
    sid = np.concatenate([a.sid, b.sid[only_b]])
    order = np.lexsort((seq, -score))
    return Keys(doc[order], sid[order])


def _block_starts(sid: np.ndarray, size: int) -> np.ndarray | None:
    """Dense by section id: the first place of each id in ``sid`` (-1: absent); None
    when some id's places are not one contiguous block."""
    starts = np.flatnonzero(np.concatenate([[True], sid[1:] != sid[:-1]]))
    if len(starts) != np.count_nonzero(np.bincount(sid, minlength=size)):
        return None
    out = np.full(size, -1, dtype=np.int64)
    out[sid[starts]] = starts
    return out


def _rrf_sorted(a: Keys, b: Keys, wa: float, wb: float, k: int) -> Keys:
    """:func:`rrf` over any two key lists, by sorting their codes."""
    ca, cb = a.codes(), b.codes()
    allc = np.concatenate([ca, cb])
    uniq = distinct(allc)
    ra = np.full(len(uniq), -1, dtype=np.int64)
    rb = np.full(len(uniq), -1, dtype=np.int64)
    ra[np.searchsorted(uniq, ca)] = np.arange(1, len(ca) + 1)
    rb[np.searchsorted(uniq, cb)] = np.arange(1, len(cb) + 1)
    with np.errstate(divide="ignore"):
        score = np.where(ra > 0, wa / (k + ra), 0.0)
        score = np.where(rb > 0, score + wb / (k + rb), score)
    seq = np.where(ra > 0, ra, len(ca) + rb)
    order = np.lexsort((seq, -score))
    c = uniq[order]
    return Keys(c >> 32, c & 0xFFFFFFFF)
