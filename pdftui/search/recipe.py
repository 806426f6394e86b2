"""The hybrid recipes: from the two arms and the signals to one fused, finished run.

Pure functions over typed values (:class:`.arms.KeywordArm`, :class:`.arms.SemanticArm`,
:class:`.signals.Signals`, the configuration): fuse (weighted RRF of the arms, the keyword
coverage gate, the stand-in, the phrase list, the head field, a named document's
sections), order, then finish (reference lists demoted, the arms' agreed first
document, the identifier pin, the restriction). :func:`hybrid_pages` and
:func:`hybrid_sections` return the run with the :class:`.run.Weights` in force;
:func:`single_arm` is keyword or semantic mode. Nothing here touches SQLite, numpy or a
model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from . import run
from .arms import KeywordArm, SemanticArm
from .config import RankingConfig
from .fusion import PLAIN
from .run import Arm, Key, Run, Weights
from .signals import Signals


def embedded(pending: Collection[str], keys: Sequence[Key]) -> Sequence[Key]:
    """``keys`` without those of documents not embedded yet (``pending``: a document's
    stored units count once all of them are; until then its keyword ranks stand in)."""
    return [k for k in keys if k[0] not in pending] if pending else keys


@dataclasses.dataclass(frozen=True)
class _Fused:
    """The arms fused, before the granularity's own steps: the run, the keyword and semantic
    lists fed to it, the semantic weight's multiplier (0 for a term lookup, else 1), the
    stand-in's weight and whether the coverage gate ran."""

    got: Run
    kwl: Sequence[Key]
    sml: Sequence[Key]
    conf: float
    w_stand: float
    gated: bool


#: The keyword list's RRF weight: plain RRF (the semantic lists carry their own weights).
KEYWORD_WEIGHT = PLAIN


def _fuse(kw: KeywordArm, sem: SemanticArm, sig: Signals, o: RankingConfig, depth: int
          ) -> _Fused:
    """Weighted RRF of the arms' first ``depth`` keys (the section head list too when the
    arm has one), the keyword coverage gate, the stand-in and the phrase list."""
    kwl, sml = kw.keys[:depth], embedded(sig.pending, sem.keys[:depth])
    # two or three words some page holds are a weak reading for the embedding: a term
    # lookup is the keyword arm's (its semantic ranks are shown, at weight 0)
    conf = 0.0 if sig.term_lookup else 1.0
    if sem.heads is not None:
        got = run.rrf([(Arm.KEYWORD, kwl, KEYWORD_WEIGHT),
                       (Arm.SECTION_BODY, embedded(sig.pending, sem.units[:depth]),
                        o.semantic.weight * conf),
                       (Arm.SECTION_HEAD, embedded(sig.pending, sem.heads[:depth]),
                        PLAIN * conf)], k=o.k)
        w_stand = (o.semantic.weight + PLAIN) * conf
    else:
        got = run.rrf([(Arm.KEYWORD, kwl, KEYWORD_WEIGHT),
                       (Arm.SEMANTIC, sml, o.semantic.weight * conf)], k=o.k)
        w_stand = o.semantic.weight * conf
    gated = bool(kw.rarity_share) and not sig.few
    if gated:
        got = run.gate_keyword(got, kwl, kw.rarity_share[:depth], KEYWORD_WEIGHT,
                               o.keyword.coverage_power, o.k)
    if sig.pending:
        got = run.add_stand_in(got, kwl, sig.pending, w_stand, o.k)
    # "label smoothing": the pages saying it, not gnuplot's labels and smoothing
    got = run.add_phrase(got, sig.phrase, PLAIN, o.k)
    return _Fused(got, kwl, sml, conf, w_stand, gated)


def _weights(f: _Fused, kw: KeywordArm, sem: SemanticArm, sig: Signals, o: RankingConfig,
             pages: bool, named: bool) -> Weights:
    """The weights in force after the arms' fusion (:class:`.run.Weights`) of a page
    (``pages``) or section search; ``named``: the named documents' list ran."""
    ran = sem.first_unit_weight is not None   # the semantic arm ran
    return Weights(
        o.k, KEYWORD_WEIGHT, o.keyword.coverage_power if f.gated else None,
        o.semantic.weight * f.conf,
        semantic_confidence=f.conf if sem.heads is None and ran else None,
        first_unit_weight=sem.first_unit_weight,
        head=PLAIN if kw.head else None,
        section_head=PLAIN if sem.heads is not None else None,
        reference=o.pages.reference if pages else o.sections.overview, few=sig.few,
        named=PLAIN if named else None,
        stand_in=f.w_stand if sig.pending else None,
        phrase=PLAIN if sig.phrase else None)


def hybrid_pages(kw: KeywordArm, sem: SemanticArm, sig: Signals, o: RankingConfig,
                 depth: int) -> tuple[Run, Weights]:
    """Hybrid page search: the arms' first ``depth`` keys fused (:func:`_fuse`), the head
    field, the order; then reference-list pages demoted and, in a folder, the arms'
    agreed first document; the common finish (:func:`finish`)."""
    f = _fuse(kw, sem, sig, o, depth)
    got = f.got
    if kw.head:
        got = run.add_head(got, kw.head, PLAIN, o.k)
    weights = _weights(f, kw, sem, sig, o, True, False)
    got = run.order(got, f.kwl, f.sml)
    # the arms' own lists (their rank columns and single-arm modes) stay as ranked;
    # only the first top_k are shown: when nothing re-sorts or filters the list
    # after this, pages that cannot reach them are not looked at
    last = not sig.restricted and not sig.identifier and sig.has_text
    down = reference_keys(got, sig, o, sig.top_k if sig.top_k > 0 and last else None)
    if down:
        got = run.demote(got, down, o.pages.reference, "reference list")
    if not sig.few and o.lists.arms_agree:
        got = run.agreed_first(got, "both arms' first document")
    return finish(got, sig), weights


def hybrid_sections(kw: KeywordArm, sem: SemanticArm, sig: Signals, o: RankingConfig,
                    depth: int) -> tuple[Run, Weights]:
    """Hybrid section search: the arms' first ``depth`` keys fused (:func:`_fuse`), a
    named document's sections, the order; the opening's demotion and the titled list
    (:func:`_section_steps`); then reference lists demoted (left out of a term lookup);
    the common finish (:func:`finish`)."""
    f = _fuse(kw, sem, sig, o, depth)
    got = f.got
    if kw.head:
        got = run.add_head(got, kw.head, PLAIN, o.k)
    named = kw.named_share if o.lists.named else {}
    if named:
        # the name says which document, the rest of the query which of its sections
        got = run.add_named(run.order(got, f.kwl, f.sml), named, PLAIN, o.k)
    weights = _weights(f, kw, sem, sig, o, False, bool(named))
    got = run.order(got, f.kwl, f.sml)
    got, weights = _section_steps(got, f, kw, sem, sig, o, weights)
    if sig.term_lookup and not sig.citation_query:
        # a reference list names works; it does not explain a term
        got = run.keep(got, lambda key: not sig.reference_section(key))
    elif o.sections.overview < 1.0 and not sig.citation_query:
        down = {key for key in got.scores if sig.reference_section(key)}
        if down:
            got = run.demote(got, down, o.sections.overview, "reference list")
    return finish(got, sig), weights


def _section_steps(got: Run, f: _Fused, kw: KeywordArm, sem: SemanticArm, sig: Signals,
                   o: RankingConfig, weights: Weights) -> tuple[Run, Weights]:
    """Hybrid sections after fusion: the demotion of the opening and the conclusions, and
    the list of sections whose title states the query."""
    if o.sections.overview != 1.0 and not sig.few:
        # a document's opening (abstract, introduction) and its conclusions tell of every
        # part of it, so they match a query about any one part: the part should come first
        got = run.demote(got, [key for key in got.scores if sig.opening(key)],
                         o.sections.overview, "opening")
        got = run.demote(got, [key for key in got.scores
                               if sig.closing(key) and not sig.opening(key)],
                         o.sections.overview, "conclusions")
    if o.lists.title:
        titled = sig.titled(list(got.scores)[:o.depth])
        if titled:
            got = run.add_titled(got, titled, PLAIN, o.k)
            weights = dataclasses.replace(weights, title=PLAIN)
    return got, weights


def reference_keys(fused: Run, sig: Signals, o: RankingConfig, shown: int | None = None
                   ) -> set[Key] | None:
    """The reference-list pages of ``fused`` (best first) whose score is to be
    multiplied by ``pages.reference``; None when the query asks for citations (or the factor
    is 1). With ``shown``, only the pages that could be among the first ``shown``
    afterwards are looked at: a page scoring under ``pages.reference`` x the shown-th score
    stays below every one of the first ``shown``, whichever pages are demoted."""
    w = o.pages.reference
    if w >= 1.0 or not len(fused) or sig.citation_query:
        return None
    pairs = fused.pairs()
    limit = len(pairs)
    if shown is not None and shown < len(pairs):
        floor = pairs[shown - 1][1] * w
        limit = next((i for i, (_k, s) in enumerate(pairs) if s < floor), len(pairs))
    return {key for key, _s in pairs[:limit] if sig.reference_page(key)}


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
