"""The search service the TUI and the CLI share (no Textual here).

``SearchService(root, cache_dir=None, model=None)``:

- ``await service.search(query, mode="hybrid", granularity="page", top_k=10, docs=None)``
  returns a :class:`SearchResult`. Blocking work runs on one worker thread that owns its own
  SQLite connection, the in-memory vector matrix and the embedding model (loaded lazily, on
  the first semantic or hybrid search, so keyword-only use never imports fastembed). A newer
  ``search`` call supersedes older ones: an older call raises ``asyncio.CancelledError``
  as soon as its worker reaches the next stage boundary (or at once if it is still queued),
  and never returns stale results.
- ``service.search_sync(...)``: the same, blocking (CLI, bench).
- ``service.close()``.

Ranking (measured with bench/quality.py; the figures behind each choice are in bench/README.md):

1. keyword arm (:mod:`.keyword`): per-document BM25 with document-local statistics (idf in
   the always-positive Lucene form); each document's page ranking never depends on other
   documents. Stage 1 ("doc_rrf") scores a page 1/(60 + its rank in its document) +
   1/(60 + its document's rank), documents ranked by BM25 over documents-as-units with the
   folder's statistics (:func:`.keyword.doc_bm25`; it compares documents, never
   per-document page scores); band ties by the page's rarity-weighted coverage.
   Sections use the same scheme over their own-text BM25 ranks.
2. semantic arm (:mod:`.semantic`): cosine of the query vector with every unit; a page
   scores (1 - A) * its best unit + A * its first unit (the page's head). A adapts to the
   query: A = 0.1 when some page holds all of the query's
   rarity mass (:func:`.keyword.query_coverage` = 1, a query in the documents' words) up to
   0.7 when none holds any (a described, vocabulary-mismatched query, where the topic of a
   page's head beats one matching sentence); semantic-only search uses 0.1. Measured over a
   grid on the graded queries: it lifts the described class to the simple first-256-token
   design without losing trap or needle queries to it. A section = max over the units with
   at least half their characters inside the section's *own* text (its heading block to the
   next heading of any level), so sections sharing a page are told apart and a parent is
   not ranked again by its subsections' text (which showed their excerpt, one passage
   filling the list three times).
3. hybrid: stage-2 weighted RRF (k = 60; Cormack et al. 2009) of the stage-1 keyword list
   (weight 1) and the semantic list (weight 2), each keyword contribution scaled by the
   square of that page's share of the query's idf mass (:func:`.keyword.query_coverage`:
   a page matching only common words of a long described query adds little; a page
   holding its rare terms keeps nearly full weight). A third, document-level arm ranks
   documents by the cosine of their head vector (the mean of their first four units: title
   and abstract for a paper) and adds ``w / (60 + document rank)`` to each of the
   document's pages, w = 0.5 x (1 - the query's keyword coverage): it speaks for described
   queries, whose words no page holds, and falls silent for queries in the documents' own
   words (the reference system adds such an arm at a fixed 0.25). A term lookup (at most
   ``short_terms`` words, one page holding them all: "label smoothing") keeps
   ``short_sem`` of its semantic weight, and the keyword arm's pages holding its words as
   a phrase, adjacent and in order, are one more list (``phrase_list`` / (k + place)):
   the pages that say "label smoothing" before gnuplot's pages of labels and smoothing.
4. sections: the semantic section arm has two lists, sections by their best unit (above,
   weight 2) and by their head unit (the first unit of the section's own text, embedded
   from its heading; weight 1); its shown rank is their weighted RRF. Hybrid SECTION
   search fuses both lists with the keyword section list (weight 1, "doc_rrf" stage 1),
   whose BM25 ranks each section by its title and its *own* text (up to its first
   subsection), so a long parent no longer outranks the subsection that answers. A
   section at least two levels deep whose direct subsections fill three or more of the
   first 30 fused places collects ``subsection_share`` (0.2) x the sum of their three
   best scores, up to just below the best of them (:func:`.run.add_subsections`): a
   parent whose matter lives in its subsections ("14.2 Continuation-Passing Style" over
   14.2.1-14.2.4) is found by what they say and shown next to the one that matched; it
   passes that one only when the query's evidence is spread over its subsections (the
   best leads the next two by at most ``subsection_spread``, 0.55, of the score range of
   the places looked at: the query describes what the parent covers), and never another
   section; one matching subsection alone lifts nothing. The places looked at are at most
   1 % of the sections searched (none inside a few documents), whose subsections would
   otherwise fill the first 30 places whatever the query. A section starting in its
   document's opening (the text of its first ``HEAD_UNITS`` units: title, abstract, the
   introduction's start) scores ``opening_weight`` (0.75) x its fused score when it is
   the opening's first section or titled as a summary (Abstract, Introduction, Overview:
   :func:`pdftui.sections.is_summary_title`): such a section tells of every part of the
   document, so it matches a query about any one part, and the part should come first; a
   section that merely starts early (the second section of a short manual) is a part. A
   document the query names (its head holds at least ``name_share`` (0.2) of the query's
   rarity mass, not every term, and one of those terms is held by at most ``name_df`` of
   the texts: "paxos" in "how does paxos choose a value", "llama" in "what corpora and
   mixture proportions LLaMA was pretrained on") lends its name to each of its sections:
   their keyword coverage counts the naming terms as held, and their units and head units
   score the better of their cosines with the query and with the query without the naming
   words (:mod:`.naming`; one more query embedding), since a section seldom repeats its paper's
   name, and a cosine with the shorter query alone is lower than the other documents'
   cosines with the whole query; and the named
   document's sections, in their fused order, are one more list (``named_weight`` x
   share^2 / (k + place), share the head's part of the query's rarity mass, as the head
   field's). The sections among the first ``title_places`` (30) whose title holds at least
   half of the query terms their document's head does not, and two of them (or the only
   one), are one more list in their fused order (``title_list`` 1.0): "5.2 Leader election"
   for "how does raft elect a leader", a section whose text tells of its matter less
   densely than the general section beside it (bench/section_titled.json). Last, each
   document's sections among the first ``passage_places`` (10) hits
   are placed by their best passage (:mod:`.passages`: the share of the query's rarity
   mass two neighbouring blocks hold; a parent lifted by its subsections is read whole)
   and gain ``passage_weight`` (0.1) x share^2 / (k + place): a reader's description of
   what a section does shares few of its words, and the section that answers holds them
   together where a neighbour holds them scattered.
5. the head field: a document whose head (the first page's title, authors and
   affiliations, before the abstract: :func:`head_text`) holds at least half of the
   query's rarity mass puts its first page in a list of its own, added to the hybrid
   fusion at ``head_weight x share^2 / (60 + rank)``: a name finds the paper that
   person wrote, a title finds its paper, before the pages citing them.
6. reference lists (:mod:`.references`): a page that is mostly bibliography scores
   ``ref_weight`` (0.9) of its hybrid score unless the query asks for
   citations; it matches names and title words of other works without answering. In
   hybrid sections a section titled as a reference list ("References", "Bibliography")
   keeps ``section_ref_weight`` (0.5) of its score (bench/README: the section sets do not
   move from 0.9 to 0.5; the fixture's "Byzantine fault tolerance" listed two reference
   lists 2nd and 3rd). A section titled as a survey of other work ("7 Related Work")
   keeps ``section_related_weight`` (0.75) unless the query asks about other work
   (:func:`.references.related_query`: "prior", "compared", "versus") or is a term
   lookup of at most ``short_terms`` terms ("viewstamped replication"): it names the
   paper's subject beside every other system's without telling how the paper does it
   ("how does mapreduce avoid sending data over the network": "3.4 Locality", not "7
   Related Work").
7. arm confidence: hybrid's semantic weight shrinks (by up to ``sem_conf`` = 0.75) when
   the semantic list is flat (its best cosine barely above the 100th) and some page holds
   every rare word of the query: a name or a code the embedding cannot place.
8. scope: inside one or a few documents (``few_docs``) the cross-document signals are
   dropped (document arm, head field, coverage gate, page-head blend); the arms are fused
   by plain weighted RRF.
9. restriction (:mod:`.restrict`): phrases, fields and exclusions decide what every list
   may hold, never how it ranks. An excluded word or phrase removes the pages (sections)
   holding it from the keyword, semantic and head-field lists; the document-level arm
   leaves out a document whose head vector comes from an excluded page (it is not
   promoted on the strength of excluded text) and only ever adds to pages another arm
   listed; and the fused list is checked once more, so no mode or granularity shows an
   excluded page or section.
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
import math
import os
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..cache import HEAD_UNITS
from ..store import text_index
from ..store.database import Cache
from ..corpus import doc_matches
from ..document import Section, innermost
from ..errors import QueryError
from ..furniture import Furniture, blanked
from ..ocr import pending_note
from ..sections import is_summary_title
from ..library import read_furniture, read_metadata, read_page_blocks
from ..store.reader import (PageText, any_ocr, dominant_weights_hash, read_block_texts,
                            read_bracketed_blocks, read_embedding_states, read_file_states,
                            read_pages, read_section_keys, read_sections, read_vocabulary,
                            section_spans)
from . import (evidence, fusion, keyword, naming, passages, references, restrict,
               section_semantic, suggest)
from .query import FieldName, Query, parse
from .excerpt import MAX_CHARS, block_spans, cap, choose, held_terms
from . import run
from .arms import KeywordArm, Ranked, SemanticArm
from .run import Arm, Contribution, Factor, Key, Run, Weights
from .semantic import DocRanks, VectorMatrix, release_freed

MODES = ("hybrid", "keyword", "semantic")
QUEUED = "queued for indexing"
GRANULARITIES = ("page", "section")
#: A query term held by at most this many of the texts searched may name a document,
#: whatever ``Options.name_df`` allows (a name is held by its own document and by the few
#: citing it; in a small folder every share is large).
NAME_MIN_DOCS = 3


@dataclass
class Options:
    """The ranking constants the product uses, each fixed by measurement (bench/quality.py;
    the figures are in bench/README.md). RRF contributions are ``weight / (k + rank)``,
    ranks 1-based; weights and thresholds are plain numbers."""

    title_weight: float = keyword.TITLE_WEIGHT  # section BM25: weight of a title occurrence
    doc_weight: float = 1.0            # stage 1: weight of the document list (BM25 over
    #                                    documents as units) next to the page ranks
    k: int = fusion.K                  # stage-2 RRF constant
    depth: int = 100                   # arm list depth fed to stage-2 fusion
    kw_weight: float = 1.0             # hybrid pages: keyword list weight
    sem_weight: float = 2.0            # hybrid: semantic list weight (pages; section units)
    section_kw_weight: float = 1.0     # hybrid sections: keyword list weight
    section_head_weight: float = 1.0   # hybrid sections: section head unit list weight
    subsection_share: float = 0.2      # hybrid sections: a section collects this x the
    subsection_min: int = 3            # sum of its 3 best subsections' scores when this
    subsection_depth: int = 30         # many of them are among the first this many hits
    subsection_level: int = 2          # ... and it is at least this deep (not a chapter);
    subsection_spread: float = 0.55    # ... and passes its best one when that leads the
    #                                    next two by at most this share of the score range
    #                                    of the places looked at (evidence spread out)
    subsection_scope: float = 0.01     # the places looked at: at most this share of the
    #                                    sections searched (3,753 in the corpus: 30)
    opening_weight: float = 0.75       # hybrid sections: score factor of a section starting
    #                                    in its document's opening (its first HEAD_UNITS
    #                                    units: title, abstract, introduction's start) that
    #                                    is its first section or titled as a summary
    named_docs: bool = True            # sections of a document the query names: its name
    #                                    counts as held (coverage), and their cosines are
    #                                    read against the query without it
    named_weight: float = 1.0          # ... and they are one more list, in their fused
    #                                    order, at this x share^2 / (k + place)
    name_df: float = 0.1               # a document is named by a query term at most this
    #                                    share of the texts searched hold (or NAME_MIN_DOCS)
    name_share: float = 0.2            # ... whose head holds at least this share of the
    #                                    query's rarity mass (the head-field list: 0.5)
    named_max: bool = True             # named sections' units: the better of the cosines
    #                                    with and without the naming words
    title_list: float = 1.0            # hybrid sections: weight of the list of sections whose
    title_places: int = 30             # title holds the query terms its document's head
    #                                    does not, among the first this many fused places
    title_share: float = 0.5           # ... at least this share of them (and two)
    passage_weight: float = 0.1        # hybrid sections: the first ``passage_places`` hits
    passage_places: int = 10           # of a document reordered by their best passage (two
    #                                    blocks): this x share^2 / (k + place by share)
    gate_power: float = 2.0            # keyword contribution x page coverage ** this
    doc_arm: float = 0.5               # document-level head-vector arm, x (1 - coverage)
    adapt_lo: float = 0.1              # page cosine: first-unit weight A at query coverage 1
    adapt_hi: float = 0.7              # ... and at query coverage 0 (linear between)
    sem_doc_weight: float = 0.25       # hybrid pages of a folder: a page's cosine plus this
    #                                    x its document's best unit cosine
    few_docs: int = 3                  # a scope of at most this many documents is
    #                                    searched as one: no document-level arm, no head
    #                                    field, no coverage gate, no page-head blend
    sem_conf: float = 0.75             # hybrid: semantic weight lost when the semantic
    #                                    list is flat and some page holds every rare word
    sem_gap_lo: float = 0.10           # flatness: cosine gap top-1 .. 100th at which the
    sem_gap_hi: float = 0.25           # semantic list is no evidence .. full evidence
    head_weight: float = 1.0           # weight of the head-field list (documents whose
    #                                    title / byline holds the query's rare words)
    section_related_weight: float = 0.75  # ... of one titled "Related Work" (not for a
    #                                    term lookup of at most ``short_terms`` terms)
    section_ref_weight: float = 0.5    # ... of a section titled as one (hybrid sections)
    ref_weight: float = 0.9            # score factor of a reference-list page for a
    #                                    query that does not ask for citations
    proximity: float = 2.0             # keyword arm: a row holding two consecutive query
    proximity_window: int = 3          # terms within this many tokens gains this x idf
    arms_agree: bool = True            # hybrid pages of a folder: the document both arms
                                       # rank first leads (run.agreed_first)
    doc_proximity: float = 0.5         # documents compared by BM25 with each such pair as
                                       # one more term (its tf: the rows holding it) x this
    doc_order_weight: float = 0.18     # hybrid pages: the documents in order of their best
    doc_order_k: int = 10              # page as one more RRF list, weight / (k + place):
    #                                    the first document's pages gain 1 / 61
    short_terms: int = 3               # hybrid pages of a folder, a term lookup (a query
    short_sem: float = 0.1             # of at most this many terms that some page holds
    #                                    all of: "frame skipping"): semantic weight x this
    phrase_list: float = 0.5           # a term lookup's pages holding it as a phrase are
    #                                    one more list, at this weight / (k + place)
    stand_in: bool = True              # hybrid, documents not embedded yet: their keyword
    #                                    ranks stand in for the semantic arm (run.add_stand_in)
    first_docs: int = 4                # hybrid pages: the first ``first_places`` hits hold
    first_places: int = 10             # the best page of the first this many documents
    weak_keyword: float = evidence.KEYWORD_MIN    # weak answer: keyword evidence under
    weak_semantic: float = evidence.SEMANTIC_MIN  # this and semantic evidence under this
    weak_known: float = evidence.KNOWN_MIN        # ... or fewer query words in the index
    weak_keyword_alone: float = evidence.KEYWORD_ALONE_MIN  # keyword mode's own threshold


@dataclass
class Hit:
    """One ranked hit. Page hits have ``section`` etc. None; section hits fill them.

    ``ocr`` is true when the hit's text (any page of a section hit) was recognised by OCR
    from a scan, so its words may hold recognition errors."""

    rank: int
    doc: str
    page: int
    page_label: str   # the printed label, else the page number as text
    score: float
    keyword_rank: int | None
    semantic_rank: int | None
    excerpt: str
    section_path: str = ""
    section: str | None = None
    start_page: int | None = None
    end_page: int | None = None
    section_id: int | None = None
    ocr: bool = False
    arms: tuple[Contribution, ...] = ()
    factors: tuple[Factor, ...] = ()
    cosine: float | None = None

    def to_json(self) -> dict:
        """The hit as a JSON-ready dict (section keys only for section hits). ``arms``:
        ``[{"arm", "rank", "weight", "score"}]``, what each arm added to ``score``
        (:class:`.run.Contribution`; ``score`` = their sum times each of ``factors``
        ``[{"name", "factor"}]``); ``cosine``: the page's semantic score (None when the
        semantic arm did not rank it)."""
        d = {"rank": self.rank, "doc": self.doc, "page": self.page,
             "page_label": self.page_label, "score": round(self.score, 6),
             "keyword_rank": self.keyword_rank, "semantic_rank": self.semantic_rank,
             "excerpt": self.excerpt, "section_path": self.section_path, "ocr": self.ocr,
             "arms": [c.to_json() for c in self.arms],
             "factors": [f.to_json() for f in self.factors],
             "cosine": None if self.cosine is None else round(self.cosine, 6)}
        if self.section is not None:
            d.update(section=self.section, start_page=self.start_page, end_page=self.end_page,
                     section_id=self.section_id)
        return d


@dataclass
class SearchResult:
    """Hits plus coverage. ``coverage``: searched, total, semantic_searched, embedding
    (docs still being embedded), indexing (docs queued for text extraction: in the total,
    not searched yet), skipped [{doc, reason}], and "note" when the semantic arm could not
    run (e.g. the model is unavailable)."""

    query: str
    mode: str
    granularity: str
    coverage: dict
    elapsed_ms: float
    hits: list[Hit] = field(default_factory=list)
    suggestions: dict[str, list[str]] = field(default_factory=dict)
    weak: bool = False
    weights: Weights | None = None

    def to_json(self) -> dict:
        """``{"query", "mode", "granularity", "coverage", "elapsed_ms", "hits",
        "suggestions", "weak", "fusion"}``; ``suggestions`` maps each query word no document
        holds to its closest indexed words; ``weak`` is True when no arm has real evidence;
        ``fusion`` the weights in force of a hybrid search (:class:`.run.Weights`), else
        None."""
        return {"query": self.query, "mode": self.mode, "granularity": self.granularity,
                "coverage": self.coverage, "elapsed_ms": round(self.elapsed_ms, 1),
                "hits": [h.to_json() for h in self.hits], "suggestions": self.suggestions,
                "weak": self.weak,
                "fusion": self.weights.to_json() if self.weights is not None else None}


#: The coverage note of a search whose folder no longer exists.
FOLDER_GONE = "the folder is gone"


def truncation_note(query: object, text: str, terms: list) -> str:
    """What of the query was not searched, in words ('' when all of it was): text past
    :data:`keyword.MAX_QUERY_CHARS` characters, terms past :data:`keyword.MAX_TERMS`."""
    notes = []
    if isinstance(query, str) and len(query) > keyword.MAX_QUERY_CHARS:
        notes.append(f"the query was cut to its first {keyword.MAX_QUERY_CHARS:,} characters")
    if len(terms) >= keyword.MAX_TERMS:
        words = set(keyword.tokenize(text)) - keyword._stem_stopwords()
        if len(words) > keyword.MAX_TERMS:
            notes.append(f"only its first {keyword.MAX_TERMS} of {len(words)} terms were searched")
    return "; ".join(notes)


#: Positions inside a document are ``page * _PAGE_STRIDE + character offset`` (no page holds
#: this many characters).
_PAGE_STRIDE = 10_000_000


def _units_inside(us: np.ndarray, ue: np.ndarray, a: int, b: int) -> np.ndarray:
    """Indexes of the units (positions ``us[i]`` .. ``ue[i]``) with at least half their
    characters inside ``a`` .. ``b``, else of every unit overlapping it."""
    inside = np.minimum(ue, b) - np.maximum(us, a)
    hit = np.flatnonzero(inside * 2 >= (ue - us))
    if not len(hit):
        hit = np.flatnonzero((us < b) & (ue > a))
    return hit


def _block_ranges(secs: list[Section], sid: int, whole: bool
                  ) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``[((page, block), (page, block))]``, first inclusive, last exclusive: the own
    text of section ``sid`` of ``secs`` (in document order; up to the next heading of any
    level) and, ``whole``, the own text of each of its subsections, one range each (a
    passage does not run across a heading); [] when ``sid`` is not among them."""
    at = next((i for i, s in enumerate(secs) if s.id == sid), None)
    if at is None:
        return []
    out = []
    j = at
    while j == at or (whole and j < len(secs) and secs[j].level > secs[at].level):
        end = secs[j + 1].start if j + 1 < len(secs) else (secs[j].end_page, 1 << 30)
        out.append((secs[j].start, end))
        j += 1
    return out


class Superseded(Exception):
    """Raised inside the worker when a newer search has started."""


@dataclass
class _Doc:
    doc: str
    content_id: int | None
    reason: str | None   # None when searchable


@dataclass
class _Plan:
    """What every step of one query reads (:meth:`Engine._plan`): the parsed query, its
    keyword terms, its restriction, ``kind`` "pages" or "sections", the mode, the
    documents searched (``by_doc`` {doc: content}, ``contents``), whether they are a few
    searched as one (``few``), the arm list depth fed to fusion and the hits shown."""

    q: Query
    terms: list
    res: restrict.Restriction
    kind: str
    mode: str
    searchable: list[_Doc]
    by_doc: dict[str, int]
    contents: set[int]
    few: bool
    depth: int
    top_k: int
    docs_of: dict[int, list[str]]
    pending: frozenset[str] = frozenset()   # searched documents not embedded yet


@dataclass
class _View:
    """The lookups every query over one list of searchable documents reads, built once
    per cache version (:meth:`Engine._view`): ``{doc: content}``, the content ids, and
    ``{content: [doc, ...]}`` in list order."""

    docs: list[_Doc]
    by_doc: dict[str, int]
    contents: set[int]
    docs_of: dict[int, list[str]]

    @classmethod
    def of(cls, docs: list[_Doc]) -> "_View":
        docs_of: dict[int, list[str]] = {}
        for d in docs:
            docs_of.setdefault(d.content_id, []).append(d.doc)
        return cls(docs, {d.doc: d.content_id for d in docs},
                   {d.content_id for d in docs}, docs_of)


#: onnxruntime intra-op threads of the query embedder (:meth:`Engine.embed_query`); the
#: vectors equal the default thread pool's, bit for bit (tests/test_embed.py).
QUERY_THREADS = 1


class Engine:
    """Synchronous search over one root folder; one SQLite connection, one thread.

    What a query reads that grows with the folder but not with the query (the scope's
    document list, its searchable documents, their coverage summary and lookups) is
    built once per cache version (``PRAGMA data_version``: any commit by another
    connection, e.g. an index run) and reused by every query until it changes."""

    def __init__(self, root: str | os.PathLike, cache_dir: str | os.PathLike | None = None,
                 model: str | None = None, options: Options | None = None):
        from ..embed import resolve_model_name

        self.root = os.path.realpath(os.fspath(root))
        self.cache = Cache(cache_dir, read_only_ok=True)
        self.db = self.cache.db
        self.model_name = model
        self.model_id = resolve_model_name(model)
        self.options = options or Options()
        self.kw = text_index.KeywordIndex(self.db)
        self._matrix: VectorMatrix | None = None
        self._matrix_version: int | None = None
        self._embedder = None
        self._version: int | None = None
        self._docs: list[_Doc] = []
        self._by_doc: dict[str, int | None] | None = None
        self._sections_cache: dict[int, list[tuple]] = {}
        self._sec_units: dict[int, tuple] = {}
        self._sec_opening: dict[int, frozenset] = {}
        self._sec_head_ids: tuple | None = None   # (section matrix, sections.id per row)
        self._sec_parents: dict[int, dict[int, int]] = {}
        self._sec_index: tuple | None = None
        self._emb_state: tuple | None = None
        self._ref_pages: dict[int, frozenset[int]] = {}
        self._sec_titles: dict[int, dict[int, str]] = {}   # content -> {section id: title}
        # (content, title kind) -> ids of its sections so titled (reference lists, related work)
        self._kind_sections: dict[tuple, frozenset[int]] = {}
        self._furniture: dict[int, Furniture] = {}
        self._heads: dict[int, frozenset[str]] = {}
        self._head_texts: dict[int, str] = {}
        self._head_docs: dict[str, list[int]] = {}   # stem -> contents whose head holds it
        self._head_stems: list[str] | None = None
        self._vocab: tuple | None = None
        self._per_version: dict = {}   # scope lists, coverage, views: cleared by refresh()

    def close(self) -> None:
        self.cache.close()

    # -- cache state ----------------------------------------------------------------------
    def refresh(self) -> None:
        """Reload the document list and statistics when another connection committed."""
        v = self.cache.data_version()
        if v == self._version and self._docs is not None and self._version is not None:
            return
        self._version = v
        docs = []
        for f in read_file_states(self.db, self.root):
            reason = f.file_reason or f.content_reason
            quality, missing = f.text_quality, f.ocr_missing
            if f.content_id is None and not reason:
                reason = QUEUED   # being indexed: counted in the total, not searched
            elif not reason and quality and quality != "ok":
                reason = (pending_note(missing) if missing and quality == "no text layer"
                          else quality)
            docs.append(_Doc(f.doc, f.content_id, reason))
        self._docs = docs
        self._by_doc = None
        self.kw.refresh(v)
        self._sections_cache = {}
        self._sec_units = {}
        self._sec_opening = {}
        self._sec_head_ids = None
        self._sec_parents = {}
        self._sec_index = None
        self._ref_pages = {}
        self._sec_titles = {}
        self._kind_sections = {}
        self._furniture = {}
        self._heads = {}
        self._head_texts = {}
        self._head_docs = {}
        self._head_stems = None
        self._per_version = {}

    def _scope(self, docs: str | list[str] | None) -> list[_Doc]:
        """The documents ``docs`` names (patterns; None or empty: all), the same list
        object for the same patterns until the cache changes."""
        if docs is None or docs == "" or docs == []:
            return self._docs
        pats = (docs,) if isinstance(docs, str) else tuple(docs)

        def pick() -> list[_Doc]:
            # a pattern that is a document's own name names it alone: "paper[1].pdf"
            # (a scope of marked documents, say) does not also admit "paper1.pdf"
            names = {d.doc for d in self._docs}
            exact = {p for p in pats if p in names}
            rest = [p for p in pats if p not in exact]
            return [d for d in self._docs
                    if d.doc in exact or any(doc_matches(d.doc, p) for p in rest)]
        return self._memo(("scope", pats), pick)

    def _memo(self, key, make):
        """``make()`` once per cache version and ``key`` (keys holding a list's ``id``
        keep the list in the value, so the id is never reused while cached)."""
        got = self._per_version.get(key)
        if got is None:
            if len(self._per_version) > 64:   # many scopes: start over, never grow
                self._per_version = {}
            got = self._per_version[key] = make()
        return got

    def _searchable(self, scope: list[_Doc]) -> list[_Doc]:
        """The documents of ``scope`` that can be searched (no skip reason), cached."""
        return self._memo(("searchable", id(scope)), lambda: (
            scope, [d for d in scope if d.reason is None]))[1]

    def _view(self, searchable: list[_Doc]) -> _View:
        """:class:`_View` of a searchable list, cached while the list object is."""
        got = self._memo(("view", id(searchable)), lambda: _View.of(searchable))
        return got if got.docs is searchable else _View.of(searchable)

    def _sections(self, cid: int) -> list[Section]:
        """The sections of content ``cid`` in document order (no text), cached."""
        got = self._sections_cache.get(cid)
        if got is None:
            got = read_sections(self.db, cid)
            self._sections_cache[cid] = got
        return got

    def section_path_at(self, cid: int, page: int, block: int) -> str:
        """Path of the innermost section of content ``cid`` enclosing (page, block)."""
        sec = innermost(self._sections(cid), page, max(block, 0))
        return sec.path if sec is not None else ""

    def section_starts(self, cid: int, page: int) -> set[int]:
        """Indexes (block ordinals) of the blocks of page ``page`` (1-based) of content
        ``cid`` where a section starts."""
        return {s.start_block for s in self._sections(cid) if s.start_page == page}

    def section_titles(self, cid: int, page: int) -> dict[int, str]:
        """Titles of the sections of content ``cid`` whose heading is on page ``page``
        (1-based), by the index of the block where each starts (the innermost when two
        start at one block); key -1: the section the page opens inside, its heading on an
        earlier page ("" when none)."""
        secs = self._sections(cid)
        out = {s.start_block: s.title for s in secs if s.start_page == page}
        before = innermost(secs, page, 0)   # one starting on the page starts at block 0
        out[-1] = before.title if before is not None and before.start_page < page else ""
        return out

    # -- the model ------------------------------------------------------------------------
    def matrix(self) -> VectorMatrix:
        """The unit matrix, refreshed when the cache changed since the last query."""
        if self._matrix is None:
            self._matrix = VectorMatrix(self.model_id)
        if self._matrix_version != self._version:
            self._matrix.refresh(self.db)
            self._matrix_version = self._version
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
    def coverage(self, scope: list[_Doc], semantic: bool) -> dict:
        """What a query over ``scope`` covers: ``searched`` / ``total`` documents,
        ``semantic_searched`` (fully embedded; 0 when ``semantic`` is False), the
        documents still ``embedding`` or ``indexing``, the ``skipped`` ones with their
        reason. A new dict each call (queries add their notes to it); its summary is
        computed once per cache version and scope."""
        got = self._memo(("coverage", id(scope), semantic),
                         lambda: (scope, self._coverage(scope, semantic)))
        return dict(got[1])

    def _coverage(self, scope: list[_Doc], semantic: bool) -> dict:
        searchable = self._searchable(scope)
        if self._emb_state is None or self._emb_state[0] != self._version:
            self._emb_state = (self._version, read_embedding_states(self.db, self.model_id))
        state = self._emb_state[1]   # read once per cache version
        complete = [d for d in searchable if d.content_id in state
                    and state[d.content_id].complete]
        done = {d.doc for d in complete}
        pending = [d.doc for d in searchable if d.doc not in done]
        return {"searched": len(searchable), "total": len(scope),
                "semantic_searched": len(complete) if semantic else 0, "embedding": pending,
                "indexing": [d.doc for d in scope if d.reason == QUEUED],
                "skipped": [{"doc": d.doc, "reason": d.reason} for d in scope
                            if d.reason is not None and d.reason != QUEUED]}

    # -- search ---------------------------------------------------------------------------
    def search(self, query: object, mode: str = "hybrid", granularity: str = "page",
               top_k: int = 10, docs: str | list[str] | None = None,
               check=lambda: None) -> SearchResult:
        """Run one search; ``check()`` is called between stages and may raise to abort.

        Raises ValueError for an unknown mode or granularity. Never raises on query text.
        """
        t0 = time.perf_counter()
        if mode not in MODES:
            raise QueryError(f"mode must be one of {', '.join(MODES)}")
        if granularity not in GRANULARITIES:
            raise QueryError(f"granularity must be one of {', '.join(GRANULARITIES)}")
        text = keyword.clean_query(query)
        top_k = max(1, int(top_k))
        self.refresh()
        scope = self._scope(docs)
        if not os.path.isdir(self.root):   # deleted or unmounted: its rows are not its files
            coverage = self.coverage(scope, False)
            coverage.update(searched=0, semantic_searched=0,
                            note=f"{FOLDER_GONE}: nothing was searched")
            return SearchResult(text, mode, granularity, coverage,
                                (time.perf_counter() - t0) * 1000, [])
        searchable = self._searchable(scope)
        coverage = self.coverage(scope, mode != "keyword")
        q = parse(text)
        searchable = self._admit(q, searchable, coverage)
        lists = self.rank(text, mode, granularity, searchable, coverage, check, top_k, q)
        check()
        hits = self.hits(lists, granularity, top_k)
        sugg, unknown = self.suggestions(q, searchable) if mode != "semantic" else ({}, [])
        if unknown and not lists.keyword.keys and set(unknown) == set(sugg) and \
                self._typo_fixes(text, sugg, granularity, searchable):
            words = ", ".join(f"{w!r} (did you mean {v[0]!r}?)" for w, v in sugg.items())
            coverage["note"] = ("the keyword arm found nothing only because of a typo:"
                                f" no document holds {words}")
        o = self.options
        ev = evidence.judge(lists.keyword.strength if mode != "semantic" else None,
                            lists.semantic.best if mode != "keyword" else None,
                            self.known_share(q),
                            o.weak_keyword_alone if mode == "keyword" else o.weak_keyword,
                            o.weak_semantic, o.weak_known)
        if not q.text.strip() and q.fields:   # only fields: the documents they matched
            ev = evidence.Evidence(ev.keyword, ev.semantic, not hits, ev.known)
        coverage["evidence"] = ev.to_json()
        if ev.weak and hits:
            coverage["note"] = "no strong match: nearest " + (
                "pages" if granularity == "page" else "sections") + (
                "; " + coverage["note"] if coverage.get("note") else "")
        said = list(q.notes) + [truncation_note(query, text, lists.terms)]
        if text.strip() and not any(ch.isalnum() for ch in text) and not q.fields:
            said.append("the query has no letter or digit: nothing to search for")
        for note in filter(None, said):
            coverage["note"] = f"{coverage['note']}; {note}" if coverage.get("note") else note
        return SearchResult(text, mode, granularity, coverage,
                            (time.perf_counter() - t0) * 1000, hits, sugg,
                            ev.weak or not hits, lists.weights if mode == "hybrid" else None)

    def _typo_fixes(self, text: str, sugg: dict[str, list[str]], granularity: str,
                    searchable: list[_Doc]) -> bool:
        """Would the query find a strong keyword answer (evidence >= ``weak_keyword``)
        with each unknown word replaced by its first suggestion? Only then is "a typo"
        the reason it found nothing ("dropuot" -> "dropout"); nonsense whose words each
        lie one edit from some rare word ("lorem ipsum" -> "loren lipsum") is not."""
        fixed = text
        for word, alts in sugg.items():
            fixed = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", alts[0], fixed,
                           flags=re.IGNORECASE)
        got = self.rank(fixed, "keyword", granularity, searchable, {})
        return got.keyword.strength >= self.options.weak_keyword

    def known_share(self, q: Query) -> float:
        """The share of the query's content words (letters, not common function words)
        whose stem some page holds; identifiers count when some page holds them; 1.0 for
        a query without such words."""
        toks = [t for w in q.loose + q.phrases for t in keyword.tokenize(w, stem=False)
                if t.isalpha() and t not in keyword.STOPWORDS]
        n = len(toks) + len(q.identifiers)
        if not n:
            return 1.0
        known = sum(1 for t in toks if (s := keyword.tokenize(t)) and self.kw.has_stem(s[0]))
        known += sum(1 for i in q.identifiers if self.kw.has_ident(i))
        return known / n

    def suggestions(self, q: Query, searchable: list[_Doc]
                    ) -> tuple[dict[str, list[str]], list[str]]:
        """``({word: [closest indexed words]}, [unknown words])``: the query words (3+
        letters, not a prefix, not a common function word) whose stem no page holds, and
        the suggestions found for them (:mod:`.suggest`); the folder's vocabulary is read
        once per cache version and scope."""
        out: dict[str, list[str]] = {}
        unknown: list[str] = []
        for w in q.loose + q.phrases:
            if w.endswith("*"):
                continue
            for tok in keyword.tokenize(w, stem=False):
                if tok in unknown or len(tok) < suggest.MIN_LEN or not tok.isalpha() \
                        or tok in keyword.STOPWORDS:
                    continue
                stems = keyword.tokenize(tok)
                if not stems or self.kw.has_stem(stems[0]):
                    continue
                unknown.append(tok)
                key = (self._version, frozenset(d.content_id for d in searchable))
                if self._vocab is None or self._vocab[0] != key:
                    self._vocab = (key, suggest.Vocabulary.from_counts(
                        read_vocabulary(self.db, set(key[1]))))
                got = suggest.suggest(tok, self._vocab[1])
                if got:
                    out[tok] = got
        return out, unknown

    def _admit(self, q: Query, searchable: list[_Doc], coverage: dict) -> list[_Doc]:
        """The searchable documents the query's document fields admit, best field match
        first; says in ``coverage`` how many (``"fields"``) when it has such fields."""
        if not any(f.name != FieldName.SECTION for f in q.fields):
            return searchable
        by_doc = {d.doc: d.content_id for d in searchable}
        docs_of: dict[int, list[str]] = {}
        for d in searchable:
            docs_of.setdefault(d.content_id, []).append(d.doc)
        meta = read_metadata(self.db, set(by_doc.values()), docs_of)
        order = restrict.admit_docs(q, by_doc, meta)
        pos = {d: i for i, d in enumerate(order)}
        kept = sorted((d for d in searchable if d.doc in pos), key=lambda d: pos[d.doc])
        names = " ".join(str(f) for f in q.fields if f.name != FieldName.SECTION)
        coverage["fields"] = {"query": names, "documents": len(kept),
                              "of": len(searchable)}
        # what was searched is what the fields admitted ("searched 2 of 105"), in the JSON
        # as on screen; the semantic arm covers those of them fully embedded
        pending = set(coverage.get("embedding", ()))
        coverage["searched"] = len(kept)
        if coverage.get("semantic_searched"):
            coverage["semantic_searched"] = sum(d.doc not in pending for d in kept)
        coverage.setdefault("note", f"{names}: {len(kept)} of {len(searchable)} documents")
        return kept

    def rank(self, text: str, mode: str, granularity: str, searchable: list[_Doc],
             coverage: dict, check=lambda: None, top_k: int = 0,
             q: Query | None = None) -> Ranked:
        """One query ranked (:class:`.arms.Ranked`): the keyword arm, the semantic arm,
        their fusion (hybrid) as a :class:`.run.Run` best first, then the reference-page
        demotion, the documents' own order and shared first places (hybrid pages of a
        folder), the identifier pin and the restriction. Hybrid fuses the first
        ``max(Options.depth, top_k)`` keys of each arm, so a long ``top_k`` gets as many
        hits as the other modes. Notes for the user go into ``coverage``."""
        o = self.options
        c = self._plan(text, mode, granularity, searchable, top_k, q)
        if mode == "hybrid" and o.stand_in:
            c.pending = frozenset(coverage.get("embedding", ())) & c.by_doc.keys()
        kw = self.keyword_arm(c) if mode != "semantic" and c.terms else KeywordArm()
        check()
        sem = self.semantic_arm(c, kw, coverage, check) \
            if mode != "keyword" and c.q.semantic_text else SemanticArm()
        self._notes(c, kw, sem, coverage)
        weights = Weights(o.k)
        if mode == "keyword":
            got = run.single(Arm.KEYWORD, kw.keys, kw.scores)
        elif mode == "semantic":
            got = run.single(Arm.SEMANTIC, sem.keys, k=fusion.K)
        else:
            got, weights = self.fuse(c, kw, sem)
        got = self._finish(c, got, text, coverage)
        return Ranked(got, kw, sem, c.terms, c.q, c.res, c.few, weights)

    def _plan(self, text: str, mode: str, granularity: str, searchable: list[_Doc],
              top_k: int, q: Query | None) -> "_Plan":
        """What every step of one query reads: parsed query, terms, restriction, scope."""
        kind = "pages" if granularity == "page" else "sections"
        q = q if q is not None else parse(text)
        res = restrict.build(q, self.kw, kind, lambda ids: section_spans(self.db, ids)) \
            if q.has_syntax else restrict.Restriction()
        v = self._view(searchable)
        # inside one or a few documents the cross-document signals (document arm, head
        # field, document-frequency coverage, page heads) say nothing
        return _Plan(q, self.query_terms(q), res, kind, mode, searchable, v.by_doc,
                     v.contents, len(v.by_doc) <= self.options.few_docs,
                     max(self.options.depth, top_k), top_k, v.docs_of)

    def keyword_arm(self, c: "_Plan") -> KeywordArm:
        """Stage 1: per-document BM25 ranks fused across documents (:func:`.keyword.
        fuse_arrays`), the first ``depth`` keys (all of them for an identifier query in
        keyword mode, which re-sorts the whole list), each key's coverage of the query's
        rarity mass, the keyword evidence and the head-field list."""
        o = self.options
        ranking = self.kw.rank(c.terms, c.contents, c.kind, title_weight=o.title_weight,
                               proximity=o.proximity, window=o.proximity_window,
                               doc_proximity=o.doc_proximity)
        ranking = keyword.restrict(ranking, c.res.keep_rows, c.res.drop_rows)
        scope = keyword.Scope.of(ranking, c.by_doc)
        # a scope the user narrowed to a few documents (--doc, doc:), not a small folder
        narrowed = len(c.by_doc) < sum(d.reason is None for d in self._docs)
        strength = 1.0 if evidence.rare_identifier(ranking, scope) else \
            evidence.keyword_strength(ranking, scope, o.few_docs if narrowed else 0)
        fl = keyword.fuse_arrays(ranking, scope, doc_weight=o.doc_weight)
        n = len(fl) if c.mode == "keyword" and self._identifier_query(c.q) else c.depth
        rows = fl.row[:n]
        names = [fl.names[i] for i in fl.doc[:n].tolist()]
        second = self.kw.numbers(c.kind, ranking.pos[rows]) if c.kind == "pages" else \
            ranking.ids[rows]
        # computed for sections too: the adaptive semantic page score reads it
        named, shares = self._named(ranking, c) \
            if c.kind == "sections" and o.named_docs and not c.few else ({}, {})
        extra = self._head_masks(ranking, named) if named else None
        cov = keyword.row_coverage(ranking, scope, extra)
        head = [x for x in self._head_list(ranking, c.by_doc, c.terms)
                if c.res.page_ok(c.by_doc[x[0][0]], x[0][1])] \
            if c.kind == "pages" and o.head_weight > 0 and not c.few else []
        return KeywordArm(list(zip(names, second.tolist())), fl.score[:n].tolist(),
                          cov[rows].tolist(), float(cov.max()) if len(fl) else 0.0,
                          strength, fl, ranking, head, named, shares)

    def _named(self, ranking, c: "_Plan"
               ) -> tuple[dict[int, frozenset[str]], dict[str, float]]:
        """``({content: the query terms its head holds}, {doc: its head's share of the
        query's rarity mass})`` of the documents the query names: their head (title,
        byline) holds at least ``name_share`` of the query's rarity mass, but
        not every query term (a head holding them all summarises the document; it does not
        name it), and one of the terms it holds is a name: at most ``name_df`` of the texts
        searched hold it (or ``NAME_MIN_DOCS``). "paxos" in "how does paxos choose a
        value" names Paxos Made Simple; its sections' text need not repeat it. "llama"
        names LLaMA in "what corpora and mixture proportions LLaMA was pretrained on"
        though its four other words are rarer: 9 of 105 texts say "llama". "put" and
        "slide" in seminar's opening do not name it for "put two columns side by side on
        one slide": most texts say "put", 14 of 105 "slide"."""
        listed = self._head_list(ranking, c.by_doc, c.terms, self.options.name_share)
        if not listed:
            return {}, {}
        heads = self.head_terms({c.by_doc[d] for (d, _p), _s in listed}, c.terms)
        every = {str(t) for t in c.terms}
        named = {cid: held for cid, held in heads.items() if held and not every <= held}
        if self.options.name_df < 1:
            # a name is a word few of the texts searched hold ("mapreduce", "paxos"; not
            # "put" or "slide" of seminar's byline, nor "data" of MapReduce's title)
            most = max(NAME_MIN_DOCS, self.options.name_df * len(c.by_doc))
            rare = {k for k, d in _held_df(ranking).items() if d <= most}
            names = {t for held in named.values() for t in held if t in rare}
            named = {cid: held for cid, held in named.items() if held & names}
        return named, {d: share for (d, _p), share in listed if c.by_doc[d] in named}

    def semantic_arm(self, c: "_Plan", kw: KeywordArm, coverage: dict,
                     check=lambda: None) -> SemanticArm:
        """Pages by cosine (``(1 - A) x best unit + A x first unit``, A from the keyword
        arm's best coverage; hybrid pages of a folder plus ``sem_doc_weight`` x the best
        unit of the page's document), or sections by their units and head units; the
        document-level arm's ranks. Says in ``coverage`` when the model cannot run."""
        o = self.options
        try:
            m = self.matrix()
            check()
            qv = self.embed_query(c.q.semantic_text)
        except Exception as exc:  # noqa: BLE001 - EmbedderUnavailable and friends
            coverage["semantic_searched"] = 0
            coverage["note"] = f"semantic search unavailable: {exc}"
            return SemanticArm()
        check()
        docs_of = c.docs_of
        # the less of the query's rarity mass any page holds (a described,
        # vocabulary-mismatched query), the more the page's head counts;
        # inside one document a page head is no better than its body
        qc = kw.best_coverage if c.mode == "hybrid" and not c.few else 1.0
        a = o.adapt_lo + (o.adapt_hi - o.adapt_lo) * (1.0 - qc)
        # hybrid pages of a folder: a page's document context (its best unit) counts too
        dw = o.sem_doc_weight if c.mode == "hybrid" and c.kind == "pages" and not c.few \
            else 0.0
        ranked = m.rank_pages(qv, c.contents, round(a, 4), dw)   # A to 4 places, as measured
        if c.res.active and len(ranked):
            ranked = ranked.restrict(c.res.page_mask(m.page_content, m.page_number))
        # the best cosine of any unit on a page searched (and admitted)
        arm = SemanticArm(first_unit_weight=a, gap=semantic_gap(ranked),
                          best=ranked.best_cosine(), docs_of=docs_of)
        if c.kind == "pages":
            # hybrid fuses the first ``depth`` pages only; ranks and best units of shown
            # hits beyond them are looked up in hits()
            arm.pages, arm.cut = ranked, c.depth < len(ranked)
            arm.keys = [(d, page) for cid, page in ranked.keys(c.depth)
                        for d in docs_of.get(cid, ())]
        else:
            alt = self._unnamed_queries(c, kw.named) if kw.named else []
            self._section_lists(m, qv, docs_of, c.res, c.depth, arm, alt)
        if o.doc_arm > 0 and c.kind == "pages" and not c.few:
            # contents whose head vector comes from an excluded page are left out
            bad = {cid for cid, p in c.res.drop_pages if p in m.head_pages(cid)}
            arm.doc_rank = DocRanks(m.doc_ranks(qv, c.contents, bad), c.by_doc)
        return arm

    @staticmethod
    def _notes(c: "_Plan", kw: KeywordArm, sem: SemanticArm, coverage: dict) -> None:
        """What the user should know about the arms' lists, into ``coverage["note"]``."""
        q, res, kind = c.q, c.res, c.kind
        if res.keep_rows is not None and not res.keep_rows:
            what = " and ".join(f'"{p}"' for p in q.phrases) or \
                " ".join(str(f) for f in q.fields if f.name == FieldName.SECTION)
            coverage.setdefault("note", f"no {kind[:-1]} holds {what}")
        if res.excluded or q.excluded:
            coverage["excluded"] = {"terms": list(q.excluded), "rows": res.excluded}
            said = f"excluded {res.excluded} {kind} holding " + ", ".join(q.excluded)
            # said even when another note came first (fields, a phrase no page holds)
            coverage["note"] = f"{coverage['note']}; {said}" if coverage.get("note") else said
        if c.mode == "hybrid" and q.semantic_text and not kw.keys and sem.keys:
            coverage.setdefault("note", "no document holds a query word: semantic hits only")
        if c.terms and keyword.only_stopwords(c.terms):
            words = ", ".join(t.text for t in c.terms[:3])
            coverage.setdefault("note", f"the query has only common words ({words}): "
                                        "add the words that matter")

    def fuse(self, c: "_Plan", kw: KeywordArm, sem: SemanticArm) -> tuple[Run, Weights]:
        """Stage 2 (hybrid): weighted RRF of the arms' first ``depth`` keys, the keyword
        coverage gate, the head field, a named document's sections, the document-level
        arm, the order; for sections the opening's demotion, the subsections' lift and the
        best passages; with the weights in force."""
        o = self.options
        kwl, sml = kw.keys[: c.depth], self._embedded(c, sem.keys[: c.depth])
        kw_w = o.kw_weight if c.kind == "pages" else o.section_kw_weight
        conf = semantic_confidence(sem.gap, kw.best_coverage, o)
        if self._term_lookup(c, kw):
            conf *= o.short_sem
        if sem.heads is not None:
            got = run.rrf([(Arm.KEYWORD, kwl, kw_w),
                           (Arm.SEMANTIC, self._embedded(c, sem.units), o.sem_weight),
                           (Arm.SECTION_HEAD, self._embedded(c, sem.heads),
                            o.section_head_weight)], k=o.k)
            w_stand = o.sem_weight + o.section_head_weight
        else:
            got = run.rrf([(Arm.KEYWORD, kwl, kw_w), (Arm.SEMANTIC, sml, o.sem_weight * conf)],
                          k=o.k)
            w_stand = o.sem_weight * conf
        gated = bool(kw.coverage) and not c.few
        if gated:
            got = run.gate_keyword(got, kwl, kw.coverage[: c.depth], kw_w, o.gate_power, o.k)
        if c.pending:
            got = run.add_stand_in(got, kwl, c.pending, w_stand, o.k)
        # "label smoothing": the pages saying it, not gnuplot's labels and smoothing
        phrased = self._phrase_keys(c, kw) if o.phrase_list > 0 and len(c.terms) > 1 \
            and self._term_lookup(c, kw) else []
        got = run.add_phrase(got, phrased, o.phrase_list, o.k)
        if kw.head:
            got = run.add_head(got, kw.head, o.head_weight * kw_w, fusion.K)
        named = kw.named_share if c.kind == "sections" and o.named_weight > 0 else {}
        if named:
            # the name says which document, the rest of the query which of its sections
            got = run.add_named(run.order(got, kwl, sml), named, o.named_weight, o.k)
        w_doc = None
        if sem.doc_rank:
            # like the adaptive page score: the document's head counts the more,
            # the less of the query's rarity mass any page holds
            w_doc = o.doc_arm * (1.0 - kw.best_coverage)
            got = run.add_document_arm(got, self._doc_ranks(c, kwl, sem.doc_rank), w_doc,
                                       fusion.K)
        weights = Weights(
            o.k, kw_w, o.gate_power if gated else None,
            o.sem_weight if sem.heads is not None else o.sem_weight * conf,
            conf if sem.heads is None and sem.gap is not None else None,
            sem.first_unit_weight, w_doc, o.head_weight * kw_w if kw.head else None,
            o.section_head_weight if sem.heads is not None else None,
            o.ref_weight if c.kind == "pages" else o.section_ref_weight, c.few,
            named=o.named_weight if named else None,
            stand_in=w_stand if c.pending else None,
            phrase=o.phrase_list if phrased else None)
        if c.kind == "pages" and not c.few:
            weights = dataclasses.replace(
                weights, document_order=o.doc_order_weight or None,
                document_order_k=o.doc_order_k if o.doc_order_weight else None,
                first_documents=o.first_docs or None,
                first_places=o.first_places if o.first_docs else None)
        got = run.order(got, kwl, sml)
        if c.kind == "sections" and o.opening_weight != 1.0 and not c.few:
            # a document's opening (abstract, introduction) tells of every part of it, so
            # it matches a query about any one part: the part itself should come first
            got = run.demote(got, self._opening_keys(c, got), o.opening_weight, "opening")
        # among a few documents' sections a parent's subsections fill any list's first
        # places: the places looked at are a share of the sections searched
        n_sec = len(sem.sections) if sem.sections is not None else 0
        depth = min(o.subsection_depth, int(n_sec * o.subsection_scope))
        if c.kind == "sections" and o.subsection_share > 0 and not c.few and \
                depth >= o.subsection_min:
            got = run.order(run.add_subsections(got, self._parent_key(c), o.subsection_share,
                                                o.subsection_min, depth,
                                                spread=o.subsection_spread), kwl, sml)
            weights = dataclasses.replace(weights, subsections=o.subsection_share)
        if c.kind == "sections" and o.title_list > 0:
            titled = self._titled_keys(c, got)
            if titled:
                got = run.add_titled(got, titled, o.title_list, o.k)
                weights = dataclasses.replace(weights, title=o.title_list)
        if c.kind == "sections" and o.passage_weight > 0 and not c.few and kw.ranking:
            # a document's sections among themselves: the one holding the query's rare
            # words together, in a paragraph or two, before those holding them scattered
            shares = self._passage_shares(c, kw, got, o.passage_places)
            got = run.add_passages(got, shares, o.passage_weight, o.k)
            weights = dataclasses.replace(weights, passages=o.passage_weight)
        return got, weights

    def _phrase_keys(self, c: "_Plan", kw: KeywordArm) -> list[Key]:
        """The keyword arm's pages (in its order) holding the query's words adjacent and in
        order (:meth:`.keyword.KeywordIndex.phrase_rows`)."""
        text = " ".join(c.q.loose) if c.q.loose else c.q.text
        rows = self.kw.phrase_rows("pages", text)
        if not rows:
            return []
        held = self.kw.page_keys(rows)
        return [(d, p) for d, p in kw.keys if (c.by_doc.get(d), p) in held]

    def _titled_keys(self, c: "_Plan", got: Run) -> list[Key]:
        """The section keys among ``got``'s first ``title_places`` (best first) whose title
        holds at least ``title_share`` of the query terms its document's head (title,
        authors) does not hold, and two of them (or the only one): "5.2
        Leader election" for "how does raft elect a leader", "2.2 Choosing a Value" for
        "how does paxos choose a value". The section's text and its embedding may tell of
        the matter less densely than a general section beside it; its title states it."""
        o = self.options
        if not c.terms:
            return []
        keys = list(got.scores)[:o.title_places]
        titles = [self._section_titles_by_id(c.by_doc[doc]).get(sid, "")
                  if doc in c.by_doc else "" for doc, sid in keys]
        stems = keyword.tokenize_many(titles, list(c.terms))
        cids = {c.by_doc[d] for d, _s in keys if d in c.by_doc}
        heads = self.head_terms(cids, list(c.terms))
        out = []
        for key, title, st in zip(keys, titles, stems):
            naming = heads.get(c.by_doc.get(key[0]), frozenset())
            need = {k for k, t in enumerate(c.terms) if str(t) not in naming}
            least = max(min(len(need), 2), math.ceil(o.title_share * len(need)))
            if need and len(need & held_terms(st, c.terms, title)) >= least:
                out.append(key)
        return out

    def _term_lookup(self, c: "_Plan", kw: KeywordArm) -> bool:
        """Is this hybrid page query of a folder a term lookup: at most ``short_terms``
        terms ("frame skipping", "vector clocks"), every one of them on one page? The
        embedding of two or three words is a weak reading of them (MiniLM puts "frame
        skipping" near beamer's slide frames, "vector clocks" near Einstein's clocks),
        while the page holding the term is the answer (bench/short.py). Inside a few
        documents the semantic neighbours are the document's own pages: not one."""
        o = self.options
        return c.kind == "pages" and not c.few and 0 < len(c.terms) <= o.short_terms \
            and kw.best_coverage >= 0.999

    @staticmethod
    def _embedded(c: "_Plan", keys: Sequence[Key]) -> Sequence[Key]:
        """``keys`` without those of documents not embedded yet (a document's stored units
        count once all of them are: until then its keyword ranks stand in)."""
        return [k for k in keys if k[0] not in c.pending] if c.pending else keys

    @staticmethod
    def _doc_ranks(c: "_Plan", kwl: Sequence[Key], ranks: DocRanks
                   ) -> Callable[[str], int | None]:
        """The document arm's rank of a document; for one not embedded yet (no head vector
        to rank), its place among the documents of the keyword list ``kwl`` instead."""
        if not c.pending:
            return ranks.get
        place: dict[str, int] = {}
        for doc, _ in kwl:
            place.setdefault(doc, len(place) + 1)
        return lambda doc: place.get(doc) if doc in c.pending else ranks.get(doc)

    def _passage_shares(self, c: "_Plan", kw: KeywordArm, got: Run, n: int
                        ) -> dict[Key, float]:
        """``{key: share of the query's rarity mass its best passage holds}``
        (:func:`.passages.best_share`) of the first ``n`` section keys of ``got`` whose
        document has two or more of them, in its order: over a section's own text and, when its subsections lifted it (its matter
        is in them), the best of theirs too, each read apart (a lifted parent holds no
        better passage than its best subsection: the subsections' cap stands). One read
        of the blocks per content, one tokenizer pass in all."""
        weights = keyword.term_weights(kw.ranking, c.by_doc)
        first = got.keys[:n]
        count: dict[str, int] = {}
        for doc, _sid in first:
            count[doc] = count.get(doc, 0) + 1
        # a document's only listed section is placed first whatever it holds: not read
        keys = [key for key in first if count[key[0]] > 1]
        if not weights or not keys:
            return {}
        ranges: dict[tuple[int, int], list] = {}
        for key in keys:
            cid = c.by_doc.get(key[0])
            if cid is None or (cid, key[1]) in ranges:
                continue
            whole = any(x.arm is Arm.SUBSECTIONS for x in got.evidence.get(key, ()))
            got_r = _block_ranges(self._sections(cid), key[1], whole)
            if got_r:
                ranges[(cid, key[1])] = got_r
        texts: list[str] = []
        spans: list[tuple[tuple[int, int], int, int]] = []   # (key, first, end) in texts
        for cid in {cid for cid, _sid in ranges}:
            mine = [(key, r) for key, rs in ranges.items() if key[0] == cid for r in rs]
            rows = read_block_texts(self.db, cid, min(a[0] for _k, (a, _b) in mine),
                                    max(b[0] for _k, (_a, b) in mine))
            at = [(x.page, x.ordinal) for x in rows]   # in reading order
            base = len(texts)
            texts.extend(x.text for x in rows)
            spans.extend((key, base + bisect.bisect_left(at, a),
                          base + bisect.bisect_left(at, b)) for key, (a, b) in mine)
        # every block once (a subsection and its lifted parent share blocks), only those
        # some section asks for
        want = sorted({i for _k, lo, hi in spans for i in range(lo, hi)})
        stems = dict(zip(want, keyword.tokenize_many([texts[i] for i in want], only=c.terms)))
        terms_of = passages.holder(c.terms)
        held: dict[tuple[int, int], float] = {}
        for key, lo, hi in spans:
            share = passages.best_share([terms_of(stems[i]) for i in range(lo, hi)], c.terms,
                                        weights, given=kw.named.get(key[0], frozenset()))
            held[key] = max(held.get(key, 0.0), share)
        return {(doc, sid): held.get((c.by_doc.get(doc), sid), 0.0) for doc, sid in keys}

    def _opening_keys(self, c: "_Plan", got: Run) -> list[Key]:
        """The section keys of ``got`` starting in their document's opening (the text of
        its first ``HEAD_UNITS`` units, as :meth:`_section_unit_map` found them) that are
        its first section or titled as a summary (:func:`.sections.is_summary_title`)."""
        return [key for key in got.scores
                if key[1] in self._sec_opening.get(c.by_doc.get(key[0]), ())]

    def _parent_key(self, c: "_Plan"):
        """``key -> key`` of the section directly enclosing a section key when that
        section is at least ``subsection_level`` deep, else None."""
        def parent(key: Key) -> Key | None:
            cid = c.by_doc.get(key[0])
            got = self._section_parents(cid).get(key[1]) if cid is not None else None
            return (key[0], got) if got is not None else None
        return parent

    def _section_parents(self, cid: int) -> dict[int, int]:
        """``{section id: id of the section directly enclosing it}`` of one content,
        for enclosing sections at least ``subsection_level`` deep (cached per content)."""
        got = self._sec_parents.get(cid)
        if got is None:
            got, stack = {}, []
            for s in self._sections(cid):
                while stack and stack[-1].level >= s.level:
                    stack.pop()
                if stack and stack[-1].level >= self.options.subsection_level:
                    got[s.id] = stack[-1].id
                stack.append(s)
            self._sec_parents[cid] = got
        return got

    def _finish(self, c: "_Plan", got: Run, text: str, coverage: dict) -> Run:
        """After fusion: reference pages demoted (hybrid pages), then in a folder the
        documents' own order and the first places shared among documents
        (:meth:`_documents_first`); in hybrid sections reference lists and (but for a term
        lookup) related work demoted; rare identifiers first, a fields-only query's
        listing, and nothing the restriction excludes."""
        q, res, o = c.q, c.res, self.options
        if c.kind == "pages" and c.mode == "hybrid":
            # the arms' own lists (their rank columns and single-arm modes) stay as ranked;
            # only the first top_k are shown: when nothing re-sorts or filters the list
            # after this, pages that cannot reach them are not looked at
            reorder = not c.few and (o.doc_order_weight > 0 or o.first_docs > 0)
            last = not res.active and not self._identifier_query(q) and q.text.strip() \
                and not reorder
            down = self._reference_keys(got, text, c.top_k if c.top_k > 0 and last else None)
            if down:
                got = run.demote(got, down, o.ref_weight, "reference list")
            if not c.few:
                got = self._documents_first(got)
                if o.arms_agree:
                    got = run.agreed_first(got, "both arms' first document")
        if c.kind == "sections" and c.mode == "hybrid" and o.section_ref_weight < 1.0 \
                and not references.citation_query(text):
            down = self._sections_titled(c, got, references.is_references_title)
            if down:
                got = run.demote(got, down, o.section_ref_weight, "reference list")
        if c.kind == "sections" and c.mode == "hybrid" and o.section_related_weight < 1.0 \
                and len(c.terms) > o.short_terms and not references.related_query(text):
            # a description of a method or a question about a paper's own way, not a term
            # lookup ("viewstamped replication": the related work tells of it)
            down = self._sections_titled(c, got, references.is_related_title)
            if down:
                got = run.demote(got, down, o.section_related_weight, "related work")
        if c.mode != "semantic" and self._identifier_query(q):
            tier = self._identifier_tiers(got, c.terms, c.kind, c.by_doc)
            if tier:
                got = run.pin(got, tier, "identifier")
        if not q.text.strip() and q.fields:
            got = run.listing(self._field_listing(q, c.kind, c.searchable, res))
        elif not q.text.strip() and q.excluded:
            coverage["note"] = "the query only excludes: add words to search for"
        if res.active:   # the last check: whatever an arm listed, nothing excluded is shown
            got = run.keep(got, lambda k: k[0] in c.by_doc and
                           res.key_ok(c.by_doc[k[0]], c.kind, k[1]))
        return got

    def _documents_first(self, got: Run) -> Run:
        """Hybrid pages of a folder, after the reference-page demotion: the documents'
        own order (by their best page) added as an RRF list, then the first
        ``first_places`` hits made to hold the best page of each of the first
        ``first_docs`` documents (:func:`.run.add_document_order`,
        :func:`.run.share_places`)."""
        o = self.options
        if o.doc_order_weight > 0:
            got = run.add_document_order(got, o.doc_order_weight, o.doc_order_k)
        if o.first_docs > 0:
            got = run.share_places(got, o.first_docs, o.first_places,
                                   f"first {o.first_places} hold {o.first_docs} documents")
        return got

    def query_terms(self, q: Query) -> list[keyword.Term]:
        """The keyword terms of a parsed query: the stems of its loose words and phrases
        (a prefix made one the index can match: :meth:`.keyword.KeywordIndex.complete_prefix`),
        and for each identifier its term as typed (when some page holds it) and its
        word stems."""
        if not q.identifiers:
            return [self.kw.complete_prefix(t)
                    for t in keyword.parse_query(q.text)]
        terms = keyword.parse_query(" ".join(q.loose + q.phrases)) \
            if (q.loose or q.phrases) else []
        terms = [self.kw.complete_prefix(t) for t in terms]
        for ident, typed in zip(q.identifiers, q.identifier_words):
            # the identifier as typed, and its words as before (they find the pages that
            # print it another way: "ResNet 50", "arXiv: 1706.03762")
            got = ([keyword.Term(ident, ident=True)] if self.kw.has_ident(ident) else []) + \
                keyword.parse_query(typed)
            terms.extend(t for t in got if t not in terms)
        return terms[: keyword.MAX_TERMS]

    @staticmethod
    def _identifier_query(q: Query) -> bool:
        """True when identifiers carry the query: it has one, and at most one other word
        that is not a common function word ("1706.03762", "arXiv 1706.03762"). In a
        longer question ("top-1 error of a ResNet-50 baseline") an identifier is one
        word among others and ranks as one (bench/README.md)."""
        if not q.identifiers:
            return False
        others = [w for w in q.loose + q.phrases
                  if w.casefold() not in keyword.STOPWORDS and any(c.isalnum() for c in w)]
        return len(others) <= 1

    def _identifier_tiers(self, fused: Run, terms: list[keyword.Term], kind: str,
                          by_doc: dict[str, int]) -> dict[str, int] | None:
        """Hits of a rare identifier first: when an identifier term of the query is held
        by at most ``max(5, 10%)`` of the documents searched, the documents holding it
        lead the list (the ones whose own name or first page holds it first, tier 0: the
        paper itself before the papers citing it, tier 1), each in its fused order; a
        semantic look-alike (``1706.03791`` for ``1706.03762``) never outranks an exact
        match. ``{doc: tier}``, None when no such identifier."""
        idents = [t for t in terms if t.ident]
        if not idents or not len(fused):
            return None
        limit = max(5, len(by_doc) // 10)
        own: set[str] = set()
        holding: set[str] = set()
        for t in idents:
            rows = self.kw.term_rows(kind, t)
            keys = self.kw.page_keys(r for r, _c, _n in rows) if kind == "pages" else \
                self.kw.section_keys(r for r, _c, _n in rows)
            cids = {c for c, _p in keys}
            docs = {d for d, c in by_doc.items() if c in cids}
            if not docs or len(docs) > limit:
                continue
            holding |= docs
            first = {c for c, p in keys if p == 1}
            own |= {d for d in docs if by_doc[d] in first or t.text in d.casefold()}
        if not holding:
            return None
        return {d: 0 if d in own else 1 for d in holding}

    def _field_listing(self, q: Query, kind: str, searchable: list[_Doc],
                       res: restrict.Restriction) -> list:
        """Hits of a query made only of fields: each admitted document's first page (or
        the pages opening its matching sections), in field-match order; for section
        search its matching sections, else its first section."""
        out = []
        for rank, d in enumerate(searchable, start=1):
            secs = self._sections(d.content_id)
            if kind == "sections":
                keys = [(d.doc, s.id) for s in secs if res.row_ok(s.id)]
                if res.keep_rows is None:
                    keys = keys[:1]
            elif res.keep_pages is not None:
                keys = sorted((d.doc, p) for c, p in res.keep_pages if c == d.content_id)
            else:
                keys = [(d.doc, 1)]
            if kind == "pages":
                keys = [k for k in keys if res.page_ok(d.content_id, k[1])]
            out.extend((k, 1.0 / (fusion.K + rank)) for k in keys)
        return out

    def head_terms(self, contents: set[int], terms: list) -> dict[int, frozenset[str]]:
        """``{content: the query terms its head holds}``: the head is the first page's
        opening (title, authors, affiliations: the blocks before the abstract or the
        introduction, at most ``HEAD_CHARS`` characters). Heads are tokenised once per
        cache version and kept as stem sets."""
        missing = [c for c in contents if c not in self._heads]
        if missing:
            texts = [head_text(self._blocks(c, 1)) for c in missing]
            for c, stems in zip(missing, keyword.tokenize_many(texts)):
                self._heads[c] = frozenset(stems)
                for st in stems:
                    self._head_docs.setdefault(st, []).append(c)
            self._head_stems = None
        cands: set[int] = set()
        for t in terms:   # the contents whose head holds some term (an inverted index)
            if t.prefix:
                if self._head_stems is None:
                    self._head_stems = sorted(self._head_docs)
                i = bisect.bisect_left(self._head_stems, t.text)
                while i < len(self._head_stems) and self._head_stems[i].startswith(t.text):
                    cands.update(self._head_docs[self._head_stems[i]])
                    i += 1
                for st in t.stems:   # the typed word's own stems (Term.matches)
                    cands.update(self._head_docs.get(st, ()))
            else:
                cands.update(self._head_docs.get(t.text, ()))
        out = {}
        for c in cands & contents:
            held = frozenset(str(t) for t in terms if (
                any(t.matches(x) for x in self._heads[c]) if t.prefix
                else t.text in self._heads[c]))
            if held:
                out[c] = held
        return out

    @staticmethod
    def _head_masks(ranking, heads: dict[int, frozenset[str]]) -> np.ndarray | None:
        """uint64 per row of ``ranking``: the query terms (bits as ``ranking.mask``) its
        document's head holds (``heads``: ``{content: terms}``); None when no row has one."""
        if not heads or not len(ranking.ids):
            return None
        bit = {k: np.uint64(1) << np.uint64(i) for i, k in enumerate(ranking.keys)}
        per = {cid: np.bitwise_or.reduce([bit[t] for t in held if t in bit] or [np.uint64(0)])
               for cid, held in heads.items()}
        return np.array([per.get(cid, np.uint64(0)) for cid in ranking.content.tolist()],
                        dtype=np.uint64)

    def _head_list(self, ranking, by_doc: dict[str, int], terms: list,
                   least: float = 0.5) -> list:
        """The head-field list: page 1 of each document whose head holds at least
        ``least`` (a share, 0 to 1) of the query's rarity mass, best first by that share
        (idf over the documents in scope, as :func:`.keyword.query_coverage`), as
        ``[((doc, 1), share)]``."""
        heads = self.head_terms(set(by_doc.values()), terms)
        if not heads:
            return []
        n = len(by_doc)
        keys = [str(t) for t in terms]
        df = dict.fromkeys(keys, 0)
        for k, d in _held_df(ranking).items():
            if d:
                df[k] = d
        idf = {t: math.log1p((n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        total = math.fsum(idf[t] for t in keys) or 1.0
        scored = []
        for d, c in by_doc.items():
            held = heads.get(c)
            if held:
                share = math.fsum(idf[t] for t in sorted(held)) / total
                if share >= least:
                    scored.append((-share, c, d))
        scored.sort()
        return [((d, 1), -ns) for ns, _c, d in scored]

    def reference_pages(self, cid: int) -> frozenset[int]:
        """Page numbers of content ``cid`` that are reference lists
        (:func:`.references.is_reference_page`), cached until the cache changes."""
        got = self._ref_pages.get(cid)
        if got is None:
            spans = [(s.start_page, s.end_page) for s in self._sections(cid)
                     if references.is_references_title(s.title)]
            pages: dict[int, list[str]] = {}
            if spans:
                lo, hi = min(a for a, _ in spans), max(b for _, b in spans)
                rows = read_block_texts(self.db, cid, lo, hi)
            else:
                rows = read_bracketed_blocks(self.db, cid)
            for b in rows:
                pages.setdefault(b.page, []).append(b.text)
            if not spans:   # numbered entries only: the pages holding some, in full
                pages = {p: self._blocks(cid, p) for p in pages}
            got = frozenset(p for p, blocks in pages.items() if references.is_reference_page(
                blocks, any(a <= p <= b for a, b in spans)))
            self._ref_pages[cid] = got
        return got

    def _reference_keys(self, fused: Run, text: str, shown: int | None = None
                        ) -> set[Key] | None:
        """The reference-list pages of ``fused`` (best first) whose score is to be
        multiplied by ``Options.ref_weight``; None when the query asks for citations (or
        the factor is 1). With ``shown``, only the pages that could be among the first
        ``shown`` afterwards are looked at: a page scoring under ``ref_weight`` x the
        shown-th score stays below every one of the first ``shown``, whichever pages are
        demoted."""
        w = self.options.ref_weight
        if w >= 1.0 or not len(fused) or references.citation_query(text):
            return None
        pairs = fused.pairs()
        limit = len(pairs)
        if shown is not None and shown < len(pairs):
            floor = pairs[shown - 1][1] * w
            limit = next((i for i, (_k, s) in enumerate(pairs) if s < floor), len(pairs))
        return {(doc, page) for (doc, page), _s in pairs[:limit]
                if page in self.reference_pages(self._cid_of(doc))}

    def _sections_titled(self, c: "_Plan", fused: Run,
                         is_kind: Callable[[str], bool]) -> set[Key]:
        """The section keys of ``fused`` whose title is of a kind (``is_kind``:
        :func:`.references.is_references_title` for "References" and "Bibliography",
        :func:`.references.is_related_title` for "Related Work")."""
        return {(doc, sid) for doc, sid in fused.scores
                if doc in c.by_doc and sid in self._titled_ids(c.by_doc[doc], is_kind)}

    def _section_titles_by_id(self, cid: int) -> dict[int, str]:
        """``{section id: title}`` of content ``cid``, cached until the cache changes."""
        got = self._sec_titles.get(cid)
        if got is None:
            got = self._sec_titles[cid] = {s.id: s.title for s in self._sections(cid)}
        return got

    def _titled_ids(self, cid: int, is_kind: Callable[[str], bool]) -> frozenset[int]:
        """Ids of content ``cid``'s sections whose title ``is_kind`` accepts, cached per
        kind until the cache changes."""
        got = self._kind_sections.get((cid, is_kind))
        if got is None:
            got = self._kind_sections[(cid, is_kind)] = frozenset(
                sid for sid, title in self._section_titles_by_id(cid).items()
                if is_kind(title))
        return got

    def _section_unit_map(self, m: VectorMatrix, cid: int):
        """``(section ids, levels, start pages, segment starts, unit indexes)`` of one
        content: for each section, the content's embedding units whose character range
        overlaps the section's text (from its heading's block to the next section's), as
        one flat array cut into segments. Cached until the cache changes; notes on the
        way which summarising sections start in the document's opening (``_sec_opening``)."""
        c = m._contents.get(cid)
        n_units = len(c.pages) if c is not None else 0
        got = self._sec_units.get(cid)
        if got is not None and got[0] == n_units:
            return got[1]
        # read, not cached: the section index visits every content, and holding every
        # content's Section objects (~100 MB at 10,000 documents) for the few hits'
        # paths would be the search process's largest Python structure
        secs = self._sections_cache.get(cid) or read_sections(self.db, cid)
        if not n_units or not secs:
            self._sec_units[cid] = (n_units, None)
            return None
        pos = self._block_positions(cid)
        big = _PAGE_STRIDE
        us = c.pages.astype(np.int64) * big + c.spans[:, 0]
        ue = c.pages.astype(np.int64) * big + c.spans[:, 1]
        sids, levels, sps, seg, idx = [], [], [], [], []
        # the document's opening: its first HEAD_UNITS units (its head vector's text)
        head_end = int(ue[min(HEAD_UNITS, n_units) - 1])
        opening = set()
        for k, sec in enumerate(secs):
            a = pos(*sec.start)
            b = pos(*sec.end)
            if a < head_end and (k == 0 or is_summary_title(sec.title)):
                opening.add(sec.id)
            if b <= a:   # no text of its own: the rest of its start page (Section.contains)
                b = (sec.start_page + 1) * big
            if k + 1 < len(secs):
                # up to the next heading of any level: a parent is ranked by its own text,
                # not again by its subsections' (they are hits of their own)
                nxt = pos(*secs[k + 1].start)
                if a < nxt < b:
                    b = nxt
            hit = _units_inside(us, ue, a, b)
            if not len(hit):
                continue
            sids.append(sec.id)
            levels.append(sec.level)
            sps.append(sec.start_page)
            seg.append(len(idx))
            idx.extend(hit.tolist())
        out = (np.array(sids, dtype=np.int64), np.array(levels), np.array(sps),
               np.array(seg, dtype=np.int64),
               np.array(idx, dtype=np.int64)) if sids else None
        self._sec_units[cid] = (n_units, out)
        self._sec_opening[cid] = frozenset(opening)
        return out

    def _block_positions(self, cid: int):
        """``pos(page, block) -> int``: where block ``block`` (0-based) of ``page`` starts
        in content ``cid``, as ``page * _PAGE_STRIDE + character offset`` in its page text
        (a block past the page's last: the page's end). Pages are read once, when asked."""
        texts = {n: p.text for n, p in read_pages(self.db, cid).items()}
        blocks: dict[int, list[str]] = {}
        for b in read_block_texts(self.db, cid):
            blocks.setdefault(b.page, []).append(b.text)
        starts_of: dict[int, list[int]] = {}

        def pos(page: int, block: int) -> int:
            st = starts_of.get(page)
            if st is None:
                st = [a for a, _b in block_spans(texts.get(page, ""), blocks.get(page, []))]
                starts_of[page] = st
            off = st[block] if 0 <= block < len(st) else len(texts.get(page, ""))
            return page * _PAGE_STRIDE + min(off, _PAGE_STRIDE - 1)

        return pos

    def _unnamed_queries(self, c: "_Plan", named: dict[int, frozenset[str]]
                         ) -> list[tuple[np.ndarray, np.ndarray]]:
        """``[(content ids, query vector)]``: for the documents the query names, the query
        without the words naming them (:func:`.naming.without_names`), embedded (one
        query embedding per distinct set of naming words); none when nothing is left."""
        groups: dict[frozenset[str], list[int]] = {}
        for cid, held in named.items():
            groups.setdefault(held, []).append(cid)
        out = []
        for held, cids in groups.items():
            rest = naming.without_names(c.q.semantic_text, held)
            if rest is not None:
                out.append((np.array(sorted(cids), dtype=np.int64), self.embed_query(rest)))
        return out

    def _section_lists(self, m: VectorMatrix, qv: np.ndarray, docs_of: dict, res,
                       depth: int, arm: SemanticArm, alt=()) -> None:
        """Fill ``arm`` with the semantic section arm: it has two lists, units inside the
        section and the section's head unit; hybrid fuses both (``arm.units``,
        ``arm.heads``, their first ``depth`` keys) with the keyword list; the arm's own
        order (``arm.keys``: its rank column and semantic mode) is their weighted RRF,
        kept whole as arrays in ``arm.sections`` for the ranks of shown hits. ``alt``
        (:meth:`_unnamed_queries`): the units and head units of those contents are read
        against that query vector instead of ``qv`` (one product over their rows)."""
        o = self.options
        scope = section_semantic.DocScope.of(docs_of)
        if not len(m.unit_content) or m.matrix.shape[1] != qv.shape[0]:
            z = np.zeros(0, dtype=np.int64)
            units = section_semantic.Keys(z, z)
        else:
            su = self._section_index(m, docs_of)
            sims = m.similarities(qv)
            if alt:
                sims = sims.copy()
                for cids, q2 in alt:
                    rows = np.flatnonzero(np.isin(m.unit_content, cids))
                    got = m.similarities_of(q2, rows)
                    sims[rows] = np.maximum(sims[rows], got) if o.named_max else got
            units = section_semantic.unit_list(su, sims, scope, _rows_ok(res, su.sid))
        final = units
        if o.section_head_weight > 0:
            cont, ordinal, sid, sims = self._section_head_scores(m, qv, scope)
            for cids, q2 in alt:
                sims = self._rescore_heads(m, q2, cids, sims, scope)
            ok = _rows_ok(res, sid)
            if ok is not None:
                cont, ordinal, sid, sims = cont[ok], ordinal[ok], sid[ok], sims[ok]
            heads = section_semantic.head_list(cont, ordinal, sid, sims, scope)
            arm.units = units.keys(scope.names, depth)
            arm.heads = heads.keys(scope.names, depth)
            final = section_semantic.rrf(units, heads, o.sem_weight, o.section_head_weight,
                                         o.k)
        arm.sections, arm.scope = final, scope
        arm.keys = final.keys(scope.names, depth)

    def _section_index(self, m: VectorMatrix, docs_of: dict) -> "section_semantic.SectionUnits":
        """Every section's units over the contents searched so far (this cache version),
        as one :class:`.section_semantic.SectionUnits`; rebuilt when a new content is
        searched."""
        got = self._sec_index
        want = set(docs_of)
        if got is not None and got[0] is m.matrix and want <= got[1]:
            return got[2]
        cover = want | (got[1] if got is not None and got[0] is m.matrix else set())
        parts = []
        for i, cid in enumerate(sorted(cover)):
            one = self._section_unit_map(m, cid)
            if one is not None:
                parts.append((cid, int(np.searchsorted(m.unit_content, cid)), one))
            if i % 256 == 255:   # each content's pages and blocks were read and dropped
                release_freed()
        su = section_semantic.SectionUnits.build(parts)
        release_freed()
        self._sec_index = (m.matrix, cover, su)
        return su

    def _section_head_scores(self, m: VectorMatrix, q: np.ndarray, scope):
        """``(content, ordinal, section id, cosine)`` arrays of the section head units of
        the contents in ``scope`` (a :class:`.section_semantic.DocScope`): one product over
        every head unit, no work per content."""
        sims = m.section_head_sims(q)
        if not len(sims):
            z = np.zeros(0, dtype=np.int64)
            return z, z, z, np.zeros(0, dtype=np.float32)
        sids = self._section_head_ids(m)
        keep = np.flatnonzero((sids >= 0) & scope.holds(m.section_content))
        return m.section_content[keep], m.section_ordinal[keep], sids[keep], sims[keep]

    def _rescore_heads(self, m: VectorMatrix, q: np.ndarray, cids: np.ndarray,
                       sims: np.ndarray, scope) -> np.ndarray:
        """``sims`` (as :meth:`_section_head_scores` returns them) with the head units of
        contents ``cids`` scored against ``q`` instead."""
        sids = self._section_head_ids(m)
        keep = np.flatnonzero((sids >= 0) & scope.holds(m.section_content))
        sel = np.flatnonzero(np.isin(m.section_content[keep], cids))
        if not len(sel):
            return sims
        rows = keep[sel]
        out = np.array(sims, dtype=np.float32, copy=True)
        got = m.similarities_of(q, rows, heads=True)
        out[sel] = np.maximum(out[sel], got) if self.options.named_max else got
        return out

    def _section_head_ids(self, m: VectorMatrix) -> np.ndarray:
        """sections.id of each row of ``m.section_matrix`` (-1 when none), from one read of
        the sections table, kept until the cache or the matrix changes."""
        got = self._sec_head_ids
        if got is not None and got[0] is m.section_matrix:
            return got[1]
        rows = read_section_keys(self.db)
        code = rows[:, 0] * (1 << 32) + rows[:, 1]
        want = m.section_content * (1 << 32) + m.section_ordinal
        at = np.minimum(np.searchsorted(code, want), max(len(code) - 1, 0))
        sids = np.full(len(want), -1, dtype=np.int64)
        if len(code):
            hit = code[at] == want
            sids[hit] = rows[at[hit], 2]
        self._sec_head_ids = (m.section_matrix, sids)
        return sids

    def _head_text(self, cid: int) -> str:
        """Content ``cid``'s head field (:func:`head_text`: title, authors), read once."""
        if cid not in self._head_texts:
            self._head_texts[cid] = head_text(self._blocks(cid, 1))
        return self._head_texts[cid]

    def _blocks(self, cid: int, page: int) -> list[str]:
        """The block texts of one page in reading order (empty past the last page)."""
        return read_page_blocks(self.db, cid, page)

    def furniture(self, cid: int) -> Furniture:
        """The running headers, footers and page numbers of content ``cid``
        (:func:`pdftui.furniture.detect`), cached until the cache changes."""
        got = self._furniture.get(cid)
        if got is None:
            got = self._furniture[cid] = read_furniture(self.db, cid)
        return got

    def _prose_blocks(self, cid: int, page: int) -> list[str]:
        """The block texts of one page with its furniture blanked (indices kept): what an
        excerpt is chosen from."""
        return blanked(self._blocks(cid, page), page, self.furniture(cid))

    def _keyword_ranks(self, kw: KeywordArm, kind: str, top: list) -> dict[Key, int]:
        """``{key: keyword rank}`` (1-based, in the whole stage-1 list) of the keys fed to
        fusion and of each shown key beyond them."""
        kr = {k: i for i, k in enumerate(kw.keys, start=1)}
        fl, ranking = kw.fused, kw.ranking
        if fl is None or len(kw.keys) >= len(fl):
            return kr
        for (doc, key), _s in top:
            if (doc, key) in kr or doc not in fl.names:
                continue
            at = np.flatnonzero(fl.doc == fl.names.index(doc))
            rows = fl.row[at]
            second = self.kw.numbers(kind, ranking.pos[rows]) if kind == "pages" else \
                ranking.ids[rows]
            hit = at[second == key]
            if len(hit):
                kr[(doc, key)] = int(hit[0]) + 1
        return kr

    def _semantic_ranks(self, sem: SemanticArm, top: list) -> dict[Key, int]:
        """``{key: semantic rank}`` (1-based, over every ranked page or section) of the
        keys fed to fusion and of each shown key the list fed to fusion was too short to
        hold."""
        sr = {k: i for i, k in enumerate(sem.keys, start=1)}
        if sem.sections is not None and len(sem.keys) < len(sem.sections):
            for key, _s in top:
                if key not in sr:
                    r = sem.sections.rank_of(sem.scope, *key)
                    if r is not None:
                        sr[key] = r
        ranked, docs_of, m = sem.pages, sem.docs_of, self._matrix
        want = {k for k, _s in top} - set(sr)
        if not sem.cut or not want or m is None or ranked is None or not len(ranked):
            return sr
        n_docs = np.zeros(int(m.page_content.max()) + 1, dtype=np.int64)
        cids = np.fromiter(docs_of, dtype=np.int64, count=len(docs_of))
        lens = np.fromiter(map(len, docs_of.values()), dtype=np.int64, count=len(docs_of))
        inside = cids < len(n_docs)
        n_docs[cids[inside]] = lens[inside]
        keys_per_page = n_docs[m.page_content]
        for d, page in want:   # a shown key's document: its content, if searched
            cid = self._content_of(d)
            cid = cid if cid in docs_of and d in docs_of[cid] else None
            p = m.page_index(cid, page) if cid is not None else -1
            if p < 0 or not np.isfinite(ranked.score[p]):
                continue
            before = int(keys_per_page[ranked.before(p)].sum())
            sr[(d, page)] = before + docs_of[cid].index(d) + 1
        return sr

    def hits(self, ranked: Ranked, granularity: str, top_k: int) -> list[Hit]:
        """The first ``top_k`` keys of the fused run as hits: each arm's rank (beyond
        the part fed to fusion too), the arms' contributions, excerpts and paths."""
        top = ranked.run.pairs(top_k)
        kind = "pages" if granularity == "page" else "sections"
        kr = self._keyword_ranks(ranked.keyword, kind, top)
        sr = self._semantic_ranks(ranked.semantic, top)
        make = self._page_hit if granularity == "page" else self._section_hit
        hits: list[Hit] = []
        for rank, (key, score) in enumerate(top, start=1):
            h = make(ranked, key, rank, score, kr.get(key), sr.get(key))
            if h is not None:
                h.arms = ranked.run.evidence.get(key, ())
                h.factors = ranked.run.factors.get(key, ())
                hits.append(h)
        return hits

    def _page_hit(self, ranked: Ranked, key: Key, rank: int, score: float,
                  kw_rank: int | None, sem_rank: int | None) -> Hit:
        """One page hit: its label, excerpt (under the best unit when only the semantic
        arm found it), section path, OCR flag and page cosine."""
        doc, page = key
        cid = self._cid_of(doc)
        info = read_pages(self.db, cid, [page]).get(page) or PageText(page, "", "")
        blocks = self._prose_blocks(cid, page)
        unit_span = cosine = None
        pages, m = ranked.semantic.pages, self._matrix
        if pages is not None and m is not None:
            p = m.page_index(cid, page)
            if p >= 0 and np.isfinite(pages.score[p]):
                cosine = float(pages.score[p])
                if kw_rank is None and sem_rank is not None:
                    unit_span = m.span(cid, pages.best_unit(p))
        bi, excerpt = choose(blocks, ranked.terms, unit_span, info.text,
                             next_blocks=[b for b in self._prose_blocks(cid, page + 1)
                                          if b][:3],
                             phrases=ranked.query.phrases,
                             section_starts=self.section_starts(cid, page),
                             section_titles=self.section_titles(cid, page),
                             head=self._head_text(cid))
        if bi < 0:
            excerpt = cap(info.text, MAX_CHARS)
        return Hit(rank, doc, page, info.label or str(page), score, kw_rank, sem_rank, excerpt,
                   self.section_path_at(cid, page, max(bi, 0)),
                   ocr=any_ocr(self.db, cid, page, page), cosine=cosine)

    def _section_blocks(self, cid: int, span) -> list[str]:
        """The texts of content ``cid``'s blocks inside ``span`` (a :class:`Section` or
        its own span), running headers and footers left out, at most 400 read."""
        furniture = self.furniture(cid)
        return [b.text for b in read_block_texts(self.db, cid, span.start_page,
                                                 span.end_page, limit=400)
                if span.contains(b.page, b.ordinal) and (b.page, b.ordinal) not in furniture]

    def _section_hit(self, ranked: Ranked, key: Key, rank: int, score: float,
                     kw_rank: int | None, sem_rank: int | None) -> Hit | None:
        """One section hit, its excerpt from the section's own text (up to its first
        subsection), which is what ranked it, or from its subsections' when its own text
        is its heading alone ("4.2 Insights and Overview: ZeRO-R" over 4.2.1-4.2.3); None
        when the section is gone."""
        doc, sid = key
        cid = self._cid_of(doc)
        secs = self._sections(cid)
        k = next((i for i, s in enumerate(secs) if s.id == sid), None)
        if k is None:
            return None
        sec = secs[k]
        sp = sec.start_page
        own = sec.own_span(secs[k + 1] if k + 1 < len(secs) else None)
        blocks = self._section_blocks(cid, own)
        if len(blocks) <= 1 and own is not sec:
            blocks = self._section_blocks(cid, sec)
        _bi, excerpt = choose(blocks, ranked.terms, phrases=ranked.query.phrases,
                              head=self._head_text(cid))
        got = read_pages(self.db, cid, [sp]).get(sp)
        label = (got.label if got is not None else "") or str(sp)
        return Hit(rank, doc, sp, label, score, kw_rank, sem_rank, excerpt, sec.path,
                   sec.title, sp, max(sec.last_page, sp), sid,
                   ocr=any_ocr(self.db, cid, sp, sec.end_page))

    def _cid_of(self, doc: str) -> int:
        """The content id of a document of the folder (KeyError when unknown)."""
        if self._by_doc is None:
            self._by_doc = {d.doc: d.content_id for d in self._docs}
        return self._by_doc[doc]

    def _content_of(self, doc: str) -> int | None:
        """The content id of a document of the folder (None when unknown or not indexed)."""
        try:
            return self._cid_of(doc)
        except KeyError:
            return None


def _held_df(ranking) -> dict[str, int]:
    """``{term key: the contents of the scope holding it}`` (each content once: the ranking
    holds only the contents searched)."""
    if not len(ranking.doc_content):
        return dict.fromkeys(ranking.keys, 0)
    return dict(zip(ranking.keys, (ranking.doc_tfm > 0).sum(axis=0).tolist()))


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


def _rows_ok(res: restrict.Restriction, ids: np.ndarray) -> np.ndarray | None:
    """Vectorised :meth:`.restrict.Restriction.row_ok` over row ids (None: all)."""
    if res.keep_rows is None and not res.drop_rows:
        return None

    def arr(rows) -> np.ndarray:
        return np.fromiter(rows, dtype=np.int64, count=len(rows))

    ok = np.ones(len(ids), dtype=bool)
    if res.keep_rows is not None:
        ok &= np.isin(ids, arr(res.keep_rows))
    if res.drop_rows:
        ok &= ~np.isin(ids, arr(res.drop_rows))
    return ok


def semantic_confidence(gap: float | None, keyword_coverage: float, o: Options) -> float:
    """Multiplier of the semantic weight in hybrid fusion: 1 - sem_conf x (keyword
    evidence) x (1 - semantic evidence). Keyword evidence = the best page's share of
    the query's rarity mass (1: some page holds every rare word); semantic evidence =
    how far the best cosine stands above the 100th (:func:`semantic_gap`), 0 at
    ``sem_gap_lo`` .. 1 at ``sem_gap_hi``. A name or a code that the keyword arm finds
    and the embedding cannot tell from noise ("Ghemawat": a flat list of unrelated
    pages) leaves the keyword arm in charge; a described query keeps the semantic
    arm whatever its spread. A query-performance predictor in the spirit of the
    score-distribution ones (Cronen-Townsend et al., "Predicting query performance",
    SIGIR 2002; Shtok et al., "Predicting query performance by query-drift
    estimation", TOIS 2012)."""
    if gap is None or o.sem_conf <= 0:
        return 1.0
    span = max(o.sem_gap_hi - o.sem_gap_lo, 1e-9)
    sem_ev = min(1.0, max(0.0, (gap - o.sem_gap_lo) / span))
    return 1.0 - o.sem_conf * keyword_coverage * (1.0 - sem_ev)


def semantic_gap(ranked: list[tuple], depth: int = 100) -> float:
    """Score of the best page minus that of the ``depth``-th (or the last) page of a
    semantic ranking ``[(cid, page, score, unit)]`` (the page's cosine as
    :meth:`.semantic.VectorMatrix.rank_pages` blends it: head share, document context);
    0 for an empty one. A flat list (a small gap) means the query vector is close to
    nothing in particular."""
    if not ranked:
        return 0.0
    return float(ranked[0][2] - ranked[min(depth, len(ranked)) - 1][2])


class SearchService:
    """Async search over one folder's cached index; see the module docstring."""

    def __init__(self, root: str | os.PathLike, cache_dir: str | os.PathLike | None = None,
                 model: str | None = None, options: Options | None = None):
        self.root = os.path.realpath(os.fspath(root))
        self.cache_dir = cache_dir
        self.model = model
        self.options = options
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pdftui-search")
        self._engine: Engine | None = None
        self._gens: dict[str, int] = {}   # caller -> its newest call's number
        self._lock = threading.Lock()

    def _get_engine(self) -> Engine:
        if self._engine is None:
            self._engine = Engine(self.root, self.cache_dir, self.model, self.options)
        return self._engine

    def _current(self, caller: str, gen: int) -> bool:
        return self._gens.get(caller) == gen

    def _run(self, call: tuple[str, int] | None, query, mode, granularity, top_k,
             docs) -> SearchResult:
        def check() -> None:
            if call is not None and not self._current(*call):
                raise Superseded()

        check()
        return self._get_engine().search(query, mode, granularity, top_k, docs, check)

    async def search(self, query: str, mode: str = "hybrid", granularity: str = "page",
                     top_k: int = 10, docs: str | list[str] | None = None,
                     caller: str = "results") -> SearchResult:
        """Search without blocking the event loop. A newer call of the same ``caller``
        (the results list, the compare view, ...) cancels this one
        (``asyncio.CancelledError``); other callers' calls do not. Raises ValueError for a
        bad mode/granularity and :class:`pdftui.cache.CacheError` for an unusable cache."""
        with self._lock:
            gen = self._gens.get(caller, 0) + 1
            self._gens[caller] = gen
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(self._executor, self._run, (caller, gen), query, mode,
                                   granularity, top_k, docs)
        try:
            result = await fut
        except Superseded:
            raise asyncio.CancelledError() from None
        except asyncio.CancelledError:
            with self._lock:
                if self._current(caller, gen):
                    self._gens[caller] = gen + 1  # stop the worker at its next stage boundary
            raise
        if not self._current(caller, gen):
            raise asyncio.CancelledError()
        return result

    def search_sync(self, query: str, mode: str = "hybrid", granularity: str = "page",
                    top_k: int = 10, docs: str | list[str] | None = None) -> SearchResult:
        """Blocking search (on the service's worker thread)."""
        return self._executor.submit(self._run, None, query, mode, granularity, top_k,
                                     docs).result()

    def warm(self) -> None:
        """Load the vector matrix and the model now (optional; the first search does it)."""
        def go() -> None:
            e = self._get_engine()
            e.refresh()
            e.matrix()
            e.embed_query("warm up")
        self._executor.submit(go).result()

    def close(self) -> None:
        """Close the connection and stop the worker thread (idempotent)."""
        def go() -> None:
            if self._engine is not None:
                self._engine.close()
                self._engine = None
        try:
            self._executor.submit(go).result()
        except RuntimeError:
            pass
        self._executor.shutdown(wait=False)
