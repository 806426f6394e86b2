"""The synchronous search engine over one folder: scope, arms, recipe, hits.

:meth:`Engine.search` runs one query: the scope's documents (:mod:`.corpus_view`), the
plan (:mod:`.plan`), the keyword and semantic arms (:mod:`.keyword_arm`,
:mod:`.semantic_arm`), the signals (:mod:`.signals`), the recipe (:mod:`.recipe`), the
hits (:mod:`.hits`) and the coverage notes (:mod:`.coverage`). How it ranks:
docs/ranking.md.
"""

from __future__ import annotations

import os
import re
import time

import numpy as np

from ..store.database import Cache
from ..errors import QueryError
from ..library import read_metadata
from ..store.reader import dominant_weights_hash, section_spans
from . import coverage as cov
from .coverage import Coverage
from ..store import text_index
from . import evidence, keyword, recipe, restrict, suggest
from .arms import KeywordArm, Ranked, SemanticArm
from .config import RankingConfig
from .corpus_view import CorpusView, FolderDoc, Lookups, read_view
from .hits import Hit, HitMaker, SearchResult
from .keyword_arm import keyword_arm
from .modes import Granularity, Mode
from .plan import make_plan, query_terms
from .query import FieldName, Query, parse
from . import run
from .run import Arm, Weights
from .semantic import VectorMatrix
from .semantic_arm import semantic_arm
from .signals import gather

MODES = tuple(Mode)
GRANULARITIES = tuple(Granularity)

#: onnxruntime intra-op threads of the query embedder (:meth:`Engine.embed_query`); the
#: vectors equal the default thread pool's, bit for bit (tests/test_embed.py).
QUERY_THREADS = 1


class Engine:
    """Synchronous search over one root folder; one SQLite connection, one thread.

    What a query reads that grows with the folder but not with the query is held by a
    :class:`.corpus_view.CorpusView`, made once per cache version (``PRAGMA
    data_version``: any commit by another connection, e.g. an index run) and replaced
    whole when it changes."""

    def __init__(self, root: str | os.PathLike, cache_dir: str | os.PathLike | None = None,
                 model: str | None = None, config: RankingConfig | None = None):
        from ..embed import resolve_model_name

        self.root = os.path.realpath(os.fspath(root))
        self.cache = Cache(cache_dir, read_only_ok=True)
        self.db = self.cache.db
        self.model_name = model
        self.model_id = resolve_model_name(model)
        self.config = config or RankingConfig()
        self.kw = text_index.KeywordIndex(self.db)
        self._matrix: VectorMatrix | None = None
        self._matrix_version: int | None = None
        self._embedder = None
        self.view: CorpusView | None = None

    def close(self) -> None:
        """Close the cache connection."""
        self.cache.close()

    # -- the corpus view ------------------------------------------------------------------
    def refresh(self) -> CorpusView:
        """The current corpus view, read anew when another connection committed."""
        v = self.cache.data_version()
        if self.view is None or self.view.version != v or v is None:
            self.view = read_view(self.db, self.root, v, self.model_id)
            self.kw.refresh(v)
        return self.view

    @property
    def _docs(self) -> list[FolderDoc]:
        """The folder's documents (the current view's)."""
        return self.view.docs if self.view is not None else []

    def reference_pages(self, cid: int) -> frozenset[int]:
        """Page numbers of content ``cid`` that are reference lists."""
        return self.view.reference_pages(cid)

    def query_terms(self, q: Query) -> list[keyword.Term]:
        """The keyword terms of a parsed query (:func:`.plan.query_terms`)."""
        return query_terms(q, self.kw)

    # -- the model ------------------------------------------------------------------------
    def matrix(self) -> VectorMatrix:
        """The unit matrix, refreshed when the cache changed since the last query."""
        if self._matrix is None:
            self._matrix = VectorMatrix(self.model_id, self.cache.dir)
        version = self.view.version if self.view is not None else None
        if self._matrix_version != version:
            self._matrix.refresh(self.db)
            self._matrix_version = version
        return self._matrix

    def embed_query(self, text: str) -> np.ndarray:
        """The query vector (dim,), loading the model on first use.

        The query model runs on one onnxruntime thread (:data:`QUERY_THREADS`): a query
        is a few tokens, and a thread pool's workers busy-wait after each run (20-35 ms
        of a core per query on this 2-core box, next to the query's own work)."""
        if self._embedder is None:
            from ..embed import Embedder

            self._embedder = Embedder(self.model_name, self.cache.dir,
                                      int8=self._vectors_int8(), threads=QUERY_THREADS)
        return self._embedder.embed_query(text)

    def _vectors_int8(self) -> bool | None:
        """Whether the query runs through the int8 copy of the default model: as most of
        the cache's vectors were made (fp32 for a cache embedded before the int8 copy or
        with it turned off), so query and pages share weights. None: the default choice."""
        from ..embed import DEFAULT_MODEL, DEFAULT_WEIGHTS_SHA256, known_int8_hash

        if self.model_id != DEFAULT_MODEL:
            return None
        stored = dominant_weights_hash(self.db, self.model_id)
        base = stored.split("+")[0] if stored is not None else None
        if base == DEFAULT_WEIGHTS_SHA256:
            return False
        if base is not None and base == known_int8_hash(self.cache.dir):
            return True
        return None

    # -- coverage -------------------------------------------------------------------------
    def coverage(self, scope: list[FolderDoc], semantic: bool) -> Coverage:
        """What a query over ``scope`` covers (:func:`.coverage.summary`), computed once
        per view and scope (frozen: queries make their own copies with their notes)."""
        view = self.view
        got = view.cached(("coverage", id(scope), semantic), lambda: (scope, cov.summary(
            scope, view.searchable(scope), view.embedding_states(), semantic)))
        return got[1]

    # -- search ---------------------------------------------------------------------------
    def search(self, query: object, mode: str = "hybrid", granularity: str = "page",
               top_k: int = 10, docs: str | list[str] | None = None,
               check=lambda: None) -> SearchResult:
        """Run one search; ``check()`` is called between stages and may raise to abort.

        Raises QueryError for an unknown mode or granularity. Never raises on query text.
        """
        t0 = time.perf_counter()
        if mode not in MODES:
            raise QueryError(f"mode must be one of {', '.join(MODES)}")
        if granularity not in GRANULARITIES:
            raise QueryError(f"granularity must be one of {', '.join(GRANULARITIES)}")
        mode, granularity = Mode(mode), Granularity(granularity)
        text = keyword.clean_query(query)
        top_k = max(1, int(top_k))
        view = self.refresh()
        scope = view.scope(docs)
        if not os.path.isdir(self.root):   # deleted or unmounted: its rows are not its files
            coverage = self.coverage(scope, False).with_(searched=0, semantic_searched=0)
            coverage = coverage.add_note(cov.Note(cov.NoteKind.FOLDER_GONE,
                                                  f"{cov.FOLDER_GONE}: nothing was searched"))
            return SearchResult(text, mode, granularity, coverage,
                                (time.perf_counter() - t0) * 1000, [])
        coverage = self.coverage(scope, mode is not Mode.KEYWORD)
        q = parse(text)
        searchable, coverage = self._admit(q, view.searchable(scope), coverage)
        if granularity is Granularity.SECTION:
            coverage = _pages_as_sections(view, searchable, coverage)
        lists = self.rank(text, mode, granularity, searchable, coverage, check, top_k, q)
        coverage = lists.coverage
        check()
        hits = self.hits(lists, granularity, top_k)
        sugg, unknown = self.suggestions(q, searchable) if mode is not Mode.SEMANTIC else ({}, [])
        if unknown and not lists.keyword.keys and set(unknown) == set(sugg) and \
                self._typo_fixes(text, sugg, granularity, searchable):
            words = ", ".join(f"{w!r} (did you mean {v[0]!r}?)" for w, v in sugg.items())
            coverage = coverage.only_note(cov.Note(
                cov.NoteKind.TYPO, "the keyword arm found nothing only because of a typo:"
                                   f" no document holds {words}"))
        ev = self._evidence(mode, lists, q, hits)
        if unknown and hits and not ev.weak and not any(
                n.kind is cov.NoteKind.TYPO for n in coverage.notes):
            # the other words carried the answer: say which of the question went unread
            coverage = coverage.add_note(cov.Note(
                cov.NoteKind.UNKNOWN_WORDS,
                "no document holds " + ", ".join(repr(w) for w in unknown)))
        coverage = cov.query_notes(coverage.with_(evidence=ev), q, query, text, lists.terms, ev.weak, bool(hits),
                        granularity)
        return SearchResult(text, mode, granularity, coverage,
                            (time.perf_counter() - t0) * 1000, hits, sugg,
                            ev.weak or not hits, lists.weights if mode is Mode.HYBRID else None)

    def _evidence(self, mode: Mode, lists: Ranked, q: Query, hits: list[Hit]
                  ) -> evidence.Evidence:
        """The verdict on the arms' evidence (:func:`.evidence.judge`)."""
        ev = evidence.judge(lists.keyword.strength if mode is not Mode.SEMANTIC else None,
                            lists.semantic.best if mode is not Mode.KEYWORD else None,
                            evidence.known_share(q, self.kw),
                            evidence.KEYWORD_ALONE_MIN if mode is Mode.KEYWORD
                            else evidence.KEYWORD_MIN,
                            evidence.SEMANTIC_MIN, evidence.KNOWN_MIN)
        if not q.text.strip() and q.fields:   # only fields: the documents they matched
            ev = evidence.Evidence(ev.keyword, ev.semantic, not hits, ev.known)
        return ev

    def _typo_fixes(self, text: str, sugg: dict[str, list[str]], granularity: Granularity,
                    searchable: list[FolderDoc]) -> bool:
        """Would the query find a strong keyword answer (evidence >= ``weak_keyword``)
        with each unknown word replaced by its first suggestion? Only then is "a typo"
        the reason it found nothing ("dropuot" -> "dropout"); nonsense whose words each
        lie one edit from some rare word ("lorem ipsum" -> "loren lipsum") is not."""
        fixed = text
        for word, alts in sugg.items():
            fixed = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", alts[0], fixed,
                           flags=re.IGNORECASE)
        got = self.rank(fixed, Mode.KEYWORD, granularity, searchable)
        return got.keyword.strength >= evidence.KEYWORD_MIN

    def suggestions(self, q: Query, searchable: list[FolderDoc]
                    ) -> tuple[dict[str, list[str]], list[str]]:
        """``({word: [closest indexed words]}, [unknown words])``
        (:func:`.suggest.query_suggestions`); the vocabulary of ``searchable`` is read
        once per view and scope."""
        contents = frozenset(d.content_id for d in searchable)
        return suggest.query_suggestions(q, self.kw, lambda: self.view.vocabulary(contents))

    def _admit(self, q: Query, searchable: list[FolderDoc], coverage: Coverage
               ) -> tuple[list[FolderDoc], Coverage]:
        """The searchable documents the query's document fields admit, best field match
        first, and ``coverage`` saying how many (``fields``) when it has such fields."""
        if not any(f.name != FieldName.SECTION for f in q.fields):
            return searchable, coverage
        lookups = Lookups.of(searchable)
        meta = read_metadata(self.db, set(lookups.by_doc.values()), lookups.docs_of)
        order = restrict.admit_docs(q, lookups.by_doc, meta)
        pos = {d: i for i, d in enumerate(order)}
        kept = sorted((d for d in searchable if d.doc in pos), key=lambda d: pos[d.doc])
        names = " ".join(str(f) for f in q.fields if f.name != FieldName.SECTION)
        # what was searched is what the fields admitted ("searched 2 of 105"), in the JSON
        # as on screen; the semantic arm covers those of them fully embedded
        pending = set(coverage.embedding)
        coverage = coverage.with_(
            fields=cov.FieldsCoverage(names, len(kept), len(searchable)), searched=len(kept),
            semantic_searched=sum(d.doc not in pending for d in kept)
            if coverage.semantic_searched else coverage.semantic_searched)
        coverage = coverage.default_note(cov.Note(
            cov.NoteKind.FIELDS, f"{names}: {len(kept)} of {len(searchable)} documents"))
        return kept, coverage

    def rank(self, text: str, mode: Mode | str, granularity: Granularity | str,
             searchable: list[FolderDoc],
             coverage: Coverage | None = None, check=lambda: None, top_k: int = 0,
             q: Query | None = None) -> Ranked:
        """One query ranked (:class:`.arms.Ranked`): the keyword arm, the semantic arm,
        their signals and the recipe of the mode and granularity (:mod:`.recipe`). Hybrid
        fuses the first ``RankingConfig.depth`` keys of each arm; a longer ``top_k``
        continues that list with the keys of a fusion of the first ``top_k``, so it gets as
        many hits as the other modes and starts with the shorter list, whatever ``top_k``.
        ``Ranked.coverage``: ``coverage`` (None: an empty one) with the notes for the
        user."""
        o = self.config
        view = self.view if self.view is not None else self.refresh()
        mode, granularity = Mode(mode), Granularity(granularity)
        q = q if q is not None else parse(text)
        coverage = coverage if coverage is not None else Coverage(0, 0, 0)
        res = restrict.build(q, self.kw, granularity.rows,
                             lambda ids: section_spans(self.db, ids),
                             lambda ids: self._ancestors(view, ids)) \
            if q.has_syntax else restrict.Restriction()
        c = make_plan(q, query_terms(q, self.kw), res, granularity, mode, searchable,
                      view.lookups(searchable), o.few_docs, o.depth, top_k)
        if mode is Mode.HYBRID and o.lists.stand_in:
            c.pending = frozenset(coverage.embedding) & c.by_doc.keys()
        kw = keyword_arm(c, self.kw, view, o) if mode is not Mode.SEMANTIC and c.terms \
            else KeywordArm()
        check()
        sem, coverage = self._semantic(c, kw, coverage, check) \
            if mode is not Mode.KEYWORD and c.q.semantic_text else (SemanticArm(), coverage)
        coverage = cov.arm_notes(c, kw, sem, coverage)
        sig = gather(c, kw, text, self.kw, view, o)
        weights = Weights(o.k)
        if mode is Mode.KEYWORD:
            got = recipe.single_arm(Arm.KEYWORD, kw, sem, sig, o)
        elif mode is Mode.SEMANTIC:
            got = recipe.single_arm(Arm.SEMANTIC, kw, sem, sig, o)
        else:
            hybrid = recipe.hybrid_pages if granularity is Granularity.PAGE \
                else recipe.hybrid_sections
            got, weights = hybrid(kw, sem, sig, o, o.depth)
            if c.depth > o.depth:
                got = run.extended(got, hybrid(kw, sem, sig, o, c.depth)[0])
        if not q.text.strip() and not q.fields and q.excluded:
            coverage = coverage.only_note(cov.Note(
                cov.NoteKind.ONLY_EXCLUDES, "the query only excludes: add words to search for"))
        return Ranked(got, kw, sem, c.terms, c.q, c.res, c.few, weights, coverage)

    def _ancestors(self, view: CorpusView, ids: set[int]) -> set[int]:
        """Ids of the sections enclosing any of the sections ``ids``, at every level."""
        out: set[int] = set()
        for sid, cid, _sp, _lp in section_spans(self.db, ids):
            parents = view.parents(cid)
            while sid in parents:
                sid = parents[sid][0]
                out.add(sid)
        return out

    def _semantic(self, c, kw: KeywordArm, coverage: Coverage, check
                  ) -> tuple[SemanticArm, Coverage]:
        """The semantic arm (:func:`.semantic_arm.semantic_arm`) and ``coverage``, which
        says when the model cannot run."""
        try:
            m = self.matrix()
            check()
            qv = self.embed_query(c.q.semantic_text)
        except Exception as exc:  # noqa: BLE001 - EmbedderUnavailable and friends
            return SemanticArm(), coverage.with_(semantic_searched=0).only_note(cov.Note(
                cov.NoteKind.SEMANTIC_UNAVAILABLE, f"semantic search unavailable: {exc}"))
        check()
        return semantic_arm(c, kw, m, qv, self.embed_query, self.view, self.config), coverage

    def hits(self, ranked: Ranked, granularity: Granularity, top_k: int) -> list[Hit]:
        """The first ``top_k`` keys of the ranked run as hits (:class:`.hits.HitMaker`)."""
        return HitMaker(self.view, self.kw, self._matrix).hits(ranked, granularity, top_k)


#: The documents a "without headings" note names; beyond them it says how many more.
NAMED_PAGED = 2


def _pages_as_sections(view, searchable, coverage: cov.Coverage) -> cov.Coverage:
    """``coverage`` with a note saying which ``searchable`` documents have no headings
    and were searched with their pages as sections (:func:`pdftui.sections.page_sections`):
    "1 document without headings, searched page by page: cebaf.pdf" (the first
    :data:`NAMED_PAGED` by name, then "and N more")."""
    paged = view.page_sectioned()
    docs = sorted(d.doc for d in searchable if d.content_id in paged) if paged else []
    if not docs:
        return coverage
    n = len(docs)
    named = ", ".join(docs[:NAMED_PAGED]) + (
        f" and {n - NAMED_PAGED} more" if n > NAMED_PAGED else "")
    return coverage.add_note(cov.Note(
        cov.NoteKind.PAGES_AS_SECTIONS,
        f"{n} document{'s' if n != 1 else ''} without headings, searched page by page: "
        f"{named}"))
