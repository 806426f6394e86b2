"""The hybrid recipes: from the two arms and the signals to one fused, finished run.

Pure functions over typed values (:class:`.arms.KeywordArm`, :class:`.arms.SemanticArm`,
:class:`.signals.Signals`, the configuration): fuse (weighted RRF of the arms, the keyword
coverage gate, the stand-in), order, then finish (reference lists demoted, the documents' own order and the first places shared among documents, the
identifier pin, the restriction). :func:`hybrid_pages` and :func:`hybrid_sections` return
the run with the :class:`.run.Weights` in force; :func:`single_arm` is keyword or semantic
mode. Nothing here touches SQLite, numpy or a model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from . import run
from .arms import KeywordArm, SemanticArm
from .config import RankingConfig
from .run import Arm, Key, Run, Weights
from .signals import Signals


def embedded(pending: Collection[str], keys: Sequence[Key]) -> Sequence[Key]:
    """``keys`` without those of documents not embedded yet (``pending``: a document's
    stored units count once all of them are; until then its keyword ranks stand in)."""
    return [k for k in keys if k[0] not in pending] if pending else keys


@dataclasses.dataclass(frozen=True)
class _Fused:
    """The arms fused, before the granularity's own steps: the run, the keyword and semantic
    lists fed to it, the semantic weight's multiplier (0 for a term lookup, else 1), the stand-in's weight, whether the coverage
    gate ran, and the keyword weight."""

    got: Run
    kwl: Sequence[Key]
    sml: Sequence[Key]
    conf: float
    w_stand: float
    gated: bool
    kw_w: float


def _fuse(kw: KeywordArm, sem: SemanticArm, sig: Signals, o: RankingConfig, depth: int
          ) -> _Fused:
    """Weighted RRF of the arms' first ``depth`` keys (the keyword list at weight 1, the
    semantic list at ``semantic.weight``, the section head list too when the arm has one,
    at weight 1; a term lookup's semantic list not at all), the keyword coverage gate and
    the stand-in."""
    kw_w = 1.0
    kwl, sml = kw.keys[:depth], embedded(sig.pending, sem.keys[:depth])
    # a term lookup: two or three words are a weak reading for the embedding
    conf = 0.0 if sig.term_lookup else 1.0
    if sem.heads is not None:
        got = run.rrf([(Arm.KEYWORD, kwl, kw_w),
                       (Arm.SEMANTIC, embedded(sig.pending, sem.units), o.semantic.weight),
                       (Arm.SECTION_HEAD, embedded(sig.pending, sem.heads),
                        1.0)], k=o.k)
        w_stand = o.semantic.weight + 1.0
    else:
        # a term lookup's semantic list is not fused (weight 0)
        got = run.rrf([(Arm.KEYWORD, kwl, kw_w)]
                      + ([(Arm.SEMANTIC, sml, o.semantic.weight)] if conf else []), k=o.k)
        w_stand = o.semantic.weight * conf
    gated = bool(kw.rarity_share) and not sig.few
    if gated:
        got = run.gate_keyword(got, kwl, kw.rarity_share[:depth], kw_w,
                               o.keyword.coverage_power, o.k)
    if sig.pending:
        got = run.add_stand_in(got, kwl, sig.pending, w_stand, o.k)
    return _Fused(got, kwl, sml, conf, w_stand, gated, kw_w)


def _weights(f: _Fused, sem: SemanticArm, sig: Signals, o: RankingConfig,
             pages: bool) -> Weights:
    """The weights in force after the arms' fusion (:class:`.run.Weights`)."""
    return Weights(
        o.k, f.kw_w, o.keyword.coverage_power if f.gated else None,
        o.semantic.weight if sem.heads is not None else o.semantic.weight * f.conf,
        f.conf if sem.heads is None else None,
        sem.first_unit_weight, 1.0 if sem.heads is not None else None,
        o.reference, sig.few,
        stand_in=f.w_stand if sig.pending else None)


def hybrid_pages(kw: KeywordArm, sem: SemanticArm, sig: Signals, o: RankingConfig,
                 depth: int) -> tuple[Run, Weights]:
    """Hybrid page search: the arms' first ``depth`` keys fused (:func:`_fuse`), the
    order; then reference-list pages demoted and, in a
    folder, the documents' own order and the first places shared among documents; the
    common finish (:func:`finish`)."""
    f = _fuse(kw, sem, sig, o, depth)
    got = f.got
    weights = _weights(f, sem, sig, o, True)
    if not sig.few:
        weights = dataclasses.replace(
            weights, document_order=o.pages.document_order or None,
            document_order_k=o.pages.document_order_k if o.pages.document_order else None,
            first_documents=o.pages.first_documents or None,
            first_places=o.pages.first_places if o.pages.first_documents else None)
    got = run.order(got, f.kwl, f.sml)
    # the arms' own lists (their rank columns and single-arm modes) stay as ranked;
    # only the first top_k are shown: when nothing re-sorts or filters the list
    # after this, pages that cannot reach them are not looked at
    reorder = not sig.few and (o.pages.document_order > 0 or o.pages.first_documents > 0)
    last = not sig.restricted and not sig.identifier and sig.has_text and not reorder
    down = reference_keys(got, sig, o, sig.top_k if sig.top_k > 0 and last else None)
    if down:
        got = run.demote(got, down, o.reference, "reference list")
    if not sig.few:
        got = documents_first(got, o)
    return finish(got, sig), weights


def hybrid_sections(kw: KeywordArm, sem: SemanticArm, sig: Signals, o: RankingConfig,
                    depth: int) -> tuple[Run, Weights]:
    """Hybrid section search: the arms' first ``depth`` keys fused (:func:`_fuse`), the
    order; the opening's demotion, the subsections' lift,
    the titled list (:func:`_section_steps`); then reference lists
    demoted; the common finish (:func:`finish`)."""
    f = _fuse(kw, sem, sig, o, depth)
    got = f.got
    weights = _weights(f, sem, sig, o, False)
    got = run.order(got, f.kwl, f.sml)
    got, weights = _section_steps(got, f, kw, sem, sig, o, weights)
    if o.reference < 1.0 and not sig.citation_query:
        down = {key for key in got.scores if sig.reference_section(key)}
        if down:
            got = run.demote(got, down, o.reference, "reference list")
    return finish(got, sig), weights


def _section_steps(got: Run, f: _Fused, kw: KeywordArm, sem: SemanticArm, sig: Signals,
                   o: RankingConfig, weights: Weights) -> tuple[Run, Weights]:
    """Hybrid sections after fusion: the opening's demotion, the subsections' lift, the
    list of sections whose title states the query."""
    if o.sections.opening_weight != 1.0 and not sig.few:
        # a document's opening (abstract, introduction) tells of every part of it, so
        # it matches a query about any one part: the part itself should come first
        got = run.demote(got, [key for key in got.scores if sig.opening(key)],
                         o.sections.opening_weight, "opening")
    if o.sections.subsection_share > 0 and not sig.few:
        got = run.order(run.add_subsections(got, sig.parent_of, o.sections.subsection_share,
                                            o.sections.subsections, o.sections.places),
                        f.kwl, f.sml)
        weights = dataclasses.replace(weights, subsections=o.sections.subsection_share)
    titled = sig.titled(list(got.scores)[:o.sections.places])
    if titled:
        # one more RRF list at weight 1
        got = run.add_titled(got, titled, 1.0, o.k)
        weights = dataclasses.replace(weights, title=1.0)
    return got, weights


def reference_keys(fused: Run, sig: Signals, o: RankingConfig, shown: int | None = None
                   ) -> set[Key] | None:
    """The reference-list pages of ``fused`` (best first) whose score is to be
    multiplied by ``reference``; None when the query asks for citations (or the factor
    is 1). With ``shown``, only the pages that could be among the first ``shown``
    afterwards are looked at: a page scoring under ``reference`` x the shown-th score
    stays below every one of the first ``shown``, whichever pages are demoted."""
    w = o.reference
    if w >= 1.0 or not len(fused) or sig.citation_query:
        return None
    pairs = fused.pairs()
    limit = len(pairs)
    if shown is not None and shown < len(pairs):
        floor = pairs[shown - 1][1] * w
        limit = next((i for i, (_k, s) in enumerate(pairs) if s < floor), len(pairs))
    return {key for key, _s in pairs[:limit] if sig.reference_page(key)}


def documents_first(got: Run, o: RankingConfig) -> Run:
    """Hybrid pages of a folder, after the reference-page demotion: the documents'
    own order (by their best page) added as an RRF list, then the first
    ``first_places`` hits made to hold the best page of each of the first
    ``pages.first_documents`` documents (:func:`.run.add_document_order`,
    :func:`.run.share_places`)."""
    if o.pages.document_order > 0:
        got = run.add_document_order(got, o.pages.document_order, o.pages.document_order_k)
    if o.pages.first_documents > 0:
        got = run.share_places(got, o.pages.first_documents, o.pages.first_places,
                               f"first {o.pages.first_places} hold "
                               f"{o.pages.first_documents} documents")
    return got


def single_arm(arm: Arm, kw: KeywordArm, sem: SemanticArm, sig: Signals,
               o: RankingConfig) -> Run:
    """Keyword or semantic mode: the arm's own list (keyword scores; semantic ranks as
    ``1 / (k + rank)``), then the common finish (:func:`finish`)."""
    got = run.single(Arm.KEYWORD, kw.keys, kw.scores, k=o.k) if arm is Arm.KEYWORD else \
        run.single(Arm.SEMANTIC, sem.keys, k=o.k)
    return finish(got, sig)


def finish(got: Run, sig: Signals) -> Run:
    """Every mode's last steps: a rare identifier's documents first, a fields-only
    query's listing, and nothing the restriction excludes."""
    if sig.tiers:
        got = run.pin(got, sig.tiers, "identifier")
    if sig.listing is not None:
        got = run.listing(sig.listing)
    if sig.keep is not None:   # the last check: whatever an arm listed, nothing excluded
        got = run.keep(got, sig.keep)
    return got
