"""A folder as a citation network, read from the cache: a document's reference entries with
the folder's documents they cite, the folder's papers citing a document (with the page of
the citing entry), "cited by N" counts, and the closest papers ("more like this").

Links are stored per content (:mod:`pdftui.index.citations`); here they become documents
(folder-relative ``doc`` names) and works (:mod:`pdftui.triage.works`: all versions of a
paper are one work: an entry citing one version cites them all, and counts count citing
works, not files). No PDF is read; the TUI calls this from workers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .library import DocumentInfo, Library
from .references import Reference
from .store import citations as store
from .triage.works import Works, members, newest, works_of

#: Most papers :meth:`CitationGraph.similar` returns.
SIMILAR_LIMIT = 10


@dataclass(frozen=True, slots=True)
class ReferenceRow:
    """One reference entry of a document with the folder documents it cites: ``matches``
    every file of the cited work (folder order), ``match`` the one standing for it (the
    newest version), None when the entry is not a document of the folder."""

    reference: Reference
    match: str | None = None
    matches: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """The ``refs --json`` shape of one entry."""
        return {**self.reference.to_json(), "match": self.match, "matches": list(self.matches)}


@dataclass(frozen=True, slots=True)
class Citing:
    """A folder paper citing a document: its ``doc``, the 1-based ``page`` of its citing
    entry, and that entry's label and text."""

    doc: str
    page: int
    label: str
    raw: str

    def to_json(self) -> dict:
        """The ``cited-by --json`` shape of one citing paper."""
        return {"doc": self.doc, "page": self.page, "label": self.label, "raw": self.raw}


@dataclass(frozen=True, slots=True)
class Similar:
    """A paper close to another: ``doc``, ``score`` (0..1, higher is closer), and ``why``
    (the reasons in words: "document vectors 0.82", "3 shared references")."""

    doc: str
    score: float
    why: tuple[str, ...]
    cosine: float | None = None
    shared: int = 0

    def to_json(self) -> dict:
        """The ``similar --json`` shape of one paper."""
        return {"doc": self.doc, "score": round(self.score, 4), "why": list(self.why),
                "cosine": None if self.cosine is None else round(self.cosine, 4),
                "shared_references": self.shared}


@dataclass(slots=True)
class CitationGraph:
    """The citation links of one folder, read once (:meth:`read`)."""

    lib: Library
    documents: list[DocumentInfo]
    works: Works
    #: content id -> the folder's docs holding it
    docs_of: dict[int, list[str]] = field(default_factory=dict)
    #: (citing content, ordinal, cited content) for every link of the folder
    links: list[tuple[int, int, int]] = field(default_factory=list)

    @classmethod
    def read(cls, lib: Library, documents: list[DocumentInfo] | None = None
             ) -> CitationGraph:
        """The folder of ``lib``'s documents (``documents`` when the caller has just read
        them), works and links."""
        documents = lib.documents() if documents is None else documents
        docs_of: dict[int, list[str]] = {}
        for d in documents:
            if d.content_id is not None:
                docs_of.setdefault(d.content_id, []).append(d.doc)
        return cls(lib, documents, works_of(documents), docs_of,
                   store.read_all_links(lib.db, lib.root))

    def _work_docs(self, cid: int) -> list[str]:
        """Every file of the work that content ``cid`` is (folder order)."""
        docs = self.docs_of.get(cid, [])
        if not docs:
            return []
        return members(self.works).get(self.works.get(docs[0], f"doc:{docs[0]}"), docs)

    def _content_ids(self, doc: str) -> set[int]:
        """Content ids of every file of ``doc``'s work."""
        work = self.works.get(doc)
        docs = members(self.works).get(work, [doc]) if work else [doc]
        return {d.content_id for d in self.documents if d.doc in docs and d.content_id}

    def references(self, doc: str) -> list[ReferenceRow]:
        """``doc``'s reference entries in list order, each with the folder documents it
        cites; raises :class:`pdftui.errors.NotFound` for an unknown document."""
        cid = self.lib.content_id(doc)
        by_ordinal = store.read_links_from(self.lib.db, self.lib.root, cid)
        out = []
        for ref in store.read_references(self.lib.db, cid):
            docs: list[str] = []
            for cited in by_ordinal.get(ref.ordinal, ()):
                docs += [d for d in self._work_docs(cited) if d not in docs]
            out.append(ReferenceRow(ref, newest(docs) if docs else None, tuple(docs)))
        return out

    def cited_by(self, doc: str) -> list[Citing]:
        """The folder's papers citing ``doc``'s work (any version), one row per citing
        file and entry, by file name then page; raises :class:`pdftui.errors.NotFound`."""
        self.lib.content_id(doc)
        own = self._content_ids(doc)
        out = []
        for citing, _ordinal, page, label, raw in store.read_links_to(
                self.lib.db, self.lib.root, own):
            if citing not in own:
                out += [Citing(d, page, label, raw) for d in self.docs_of.get(citing, ())]
        return sorted(set(out), key=lambda c: (c.doc, c.page, c.label))

    def cited_counts(self) -> dict[str, int]:
        """``{doc: how many of the folder's works cite its work}`` (every file of a work
        gets the work's count; a work citing itself does not count)."""
        citing_works: dict[str, set[str]] = {}
        for citing, _ordinal, cited in self.links:
            for d in self.docs_of.get(cited, ()):
                cited_work = self.works.get(d, d)
                for c in self.docs_of.get(citing, ()):
                    if self.works.get(c, c) != cited_work:
                        citing_works.setdefault(cited_work, set()).add(self.works.get(c, c))
        return {d.doc: len(citing_works.get(self.works.get(d.doc, d.doc), ()))
                for d in self.documents}

    def most_cited(self, n: int = 5) -> list[tuple[str, int]]:
        """The ``n`` most cited works as ``(doc standing for the work, count)``."""
        counts = self.cited_counts()
        best: dict[str, tuple[str, int]] = {}
        for work, docs in members(self.works).items():
            best[work] = (newest(docs), counts.get(docs[0], 0))
        ranked = sorted(best.values(), key=lambda dc: (-dc[1], dc[0]))
        return [dc for dc in ranked if dc[1] > 0][:n]

    def cites(self, doc: str) -> set[str]:
        """Every folder document ``doc``'s work cites (all versions of each)."""
        own = self._content_ids(doc)
        out: set[str] = set()
        for citing, _ordinal, cited in self.links:
            if citing in own and cited not in own:
                out.update(self._work_docs(cited))
        return out

    def similar(self, doc: str, model_id: str | None = None,
                limit: int = SIMILAR_LIMIT) -> list[Similar]:
        """The folder's papers closest to ``doc`` (other works only, one file each): by the
        cosine of document vectors (the mean of a document's section-head and page-1
        embedding units) and by bibliographic coupling (references to the same folder
        document or to the same arXiv id / DOI / title; Kessler 1963), scored as
        ``max(cosine, 0) * 0.5 + coupling * 0.5`` with coupling the shared references over
        the geometric mean of both lists' sizes. Raises :class:`pdftui.errors.NotFound`."""
        self.lib.content_id(doc)
        cosines = self._cosines(doc, model_id)
        keys = self._reference_keys()
        mine = keys.get(doc, set())
        own_work = self.works.get(doc, doc)
        out: list[Similar] = []
        for work, docs in members(self.works).items():
            if work == own_work:
                continue
            other = newest(docs)
            theirs = keys.get(other, set())
            shared = len(mine & theirs)
            coupling = shared / math.sqrt(len(mine) * len(theirs)) if shared else 0.0
            cos = cosines.get(other)
            why = []
            if cos is not None:
                why.append(f"document vectors {cos:.2f}")
            if shared:
                why.append(f"{shared} shared reference{'s' if shared != 1 else ''}")
            score = 0.5 * max(cos or 0.0, 0.0) + 0.5 * coupling
            if why and score > 0:
                out.append(Similar(other, score, tuple(why), cos, shared))
        out.sort(key=lambda s: (-s.score, s.doc))
        return out[:limit]

    def _cosines(self, doc: str, model_id: str | None) -> dict[str, float]:
        """``{doc: cosine of its document vector with doc's}`` (empty without vectors)."""
        from .embed.model import resolve_model_name

        cids, matrix = _document_vectors(self.lib, resolve_model_name(model_id))
        row = cids.get(self.lib.content_id(doc))
        if row is None:
            return {}
        sims = matrix @ matrix[row]
        return {d.doc: float(sims[cids[d.content_id]]) for d in self.documents
                if d.content_id in cids}

    def _reference_keys(self) -> dict[str, set[str]]:
        """``{doc: the works its references name}`` as keys: the folder work a linked
        entry is, else ``arxiv:``/``doi:`` of the entry, else its normalised title (>= 4
        words)."""
        from .citations import norm

        linked = {(c, o): cited for c, o, cited in self.links}
        by_cid: dict[int, set[str]] = {}
        for cid, ordinal, arxiv_id, doi, title in store.reference_keys(
                self.lib.db, self.docs_of):
            cited = linked.get((cid, ordinal))
            if cited is not None and self.docs_of.get(cited):
                first = self.docs_of[cited][0]
                key = "work:" + self.works.get(first, first)
            elif arxiv_id:
                key = "arxiv:" + arxiv_id.lower()
            elif doi:
                key = "doi:" + doi.lower()
            elif len(norm(title).split()) >= 4:
                key = "title:" + norm(title)
            else:
                continue
            by_cid.setdefault(cid, set()).add(key)
        return {d.doc: by_cid.get(d.content_id, set()) for d in self.documents
                if d.content_id}


#: (database, model, data version) -> the document vectors read last (one entry): the
#: lists of one session reuse them until the cache changes.
_VECTORS: dict[tuple[int, str, int], tuple[dict[int, int], object]] = {}


def _document_vectors(lib: Library, model_id: str):
    """``({content id: row}, matrix)``: each content's unit-length document vector (the
    mean of its section-head and page-1 units), read once per cache state."""
    import numpy as np

    key = (id(lib.db), model_id, lib.cache.data_version())
    got = _VECTORS.get(key)
    if got is not None:
        return got
    rows: dict[int, int] = {}
    means = []
    for cid, blobs in store.head_vectors(lib.db, model_id).items():
        v = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1)
        m = v.mean(axis=0)
        norm = float(np.linalg.norm(m))
        if norm > 0:
            rows[cid] = len(means)
            means.append(m / norm)
    matrix = np.vstack(means) if means else np.zeros((0, 1), dtype=np.float32)
    _VECTORS.clear()
    _VECTORS[key] = (rows, matrix)
    return rows, matrix


def count_line(n: int) -> str:
    """``cited by N`` as the documents list shows it ('' for 0)."""
    return f"cited by {n}" if n else ""

