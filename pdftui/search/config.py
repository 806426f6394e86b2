"""The ranking constants the product uses, each fixed by measurement (bench/quality.py;
the figures are in bench/README.md)."""

from __future__ import annotations

from dataclasses import dataclass

from . import evidence, fusion, keyword

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

