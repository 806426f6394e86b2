"""The ranking configuration: every constant the search uses, each fixed by measurement
(bench/quality.py; what each is worth: docs/ranking.md), in one frozen
:class:`RankingConfig` nested per stage. RRF contributions are ``weight / (k + rank)``,
ranks 1-based; weights, shares and thresholds are plain numbers.

:meth:`RankingConfig.updated` returns a copy with fields changed by dotted path
(``{"sections.opening_weight": 0.7}``), as ``bench/quality.py --set`` passes them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import evidence, fusion


@dataclass(frozen=True)
class KeywordConfig:
    """The keyword arm (stage 1: per-document BM25 ranks fused across documents)."""

    #: Section BM25: weight of a title occurrence (the body's: 1).
    title_weight: float = 4.0
    #: Two consecutive query terms within this many tokens are a near pair: a row holding
    #: one gains the smaller idf of the two, and documents are compared by BM25 with each
    #: pair as one more term (its tf: the rows holding it). 0: no pairs.
    proximity_window: int = 3
    #: Hybrid: each keyword contribution x the key's coverage (share of the query's rarity
    #: mass) ** this: the keyword coverage gate.
    coverage_power: float = 2.0


@dataclass(frozen=True)
class SemanticConfig:
    """The semantic arm and its place in hybrid fusion."""

    #: Hybrid: semantic list weight (pages; section units).
    weight: float = 2.0
    #: Page cosine: first-unit weight A at query coverage 1 ...
    adapt_lo: float = 0.1
    #: ... and at query coverage 0 (linear between).
    adapt_hi: float = 0.7
    #: Hybrid pages of a folder: a page's cosine plus this x its document's best unit
    #: cosine.
    doc_context: float = 0.25


@dataclass(frozen=True)
class PagesConfig:
    """Hybrid page search: the lists fused besides the two arms, and the finish."""

    #: The documents in order of their best page as one more RRF list, at this weight ...
    document_order: float = 0.18
    #: ... over this RRF constant: the first document's pages gain weight / (k + 1).
    document_order_k: int = 10
    #: The first ``first_places`` hits hold the best page of the first this many documents.
    first_documents: int = 4
    #: See ``first_documents``.
    first_places: int = 10


@dataclass(frozen=True)
class SectionsConfig:
    """Hybrid section search: the lists fused besides the two arms, and the finish."""

    #: The first this many fused places are what the subsection lift and the title list
    #: look at.
    places: int = 30
    #: A section collects this x the sum of its ``subsections`` best subsections' scores
    #: (up to just below its best one's) ...
    subsection_share: float = 0.2
    #: ... when at least this many of them are among the first ``places``.
    subsections: int = 3
    #: Score factor of a section starting in its document's opening (its first
    #: HEAD_UNITS units: title, abstract, introduction's start) that is its first section
    #: or titled as a summary.
    opening_weight: float = 0.75
    #: The list of sections (among the first ``places``) whose title holds the query
    #: terms its document's head does not, at least this share of them (and two), is
    #: one more RRF list at weight 1. Above 1: no title qualifies, the list is off.
    title_share: float = 0.5


@dataclass(frozen=True)
class EvidenceConfig:
    """The weak-answer verdict (:func:`.evidence.judge`)."""

    #: Weak answer: keyword evidence under this ...
    keyword: float = evidence.KEYWORD_MIN
    #: ... and semantic evidence under this ...
    semantic: float = evidence.SEMANTIC_MIN
    #: ... or fewer query words in the index than this share.
    known: float = evidence.KNOWN_MIN
    #: Keyword mode's own keyword threshold.
    keyword_alone: float = evidence.KEYWORD_ALONE_MIN


@dataclass(frozen=True)
class RankingConfig:
    """Every ranking constant, per stage."""

    #: Stage-2 RRF constant (every list fused after stage 1).
    k: int = fusion.K
    #: Arm list depth fed to stage-2 fusion.
    depth: int = 100
    #: A scope of at most this many documents is searched as one: no coverage gate, no
    #: page-head blend, no document context, no cross-document finish.
    few_docs: int = 3
    #: Score factor of a reference list (a page that is one, a section titled as one) for
    #: a query that does not ask for citations.
    reference: float = 0.9
    #: A term lookup is a query of at most this many terms some page holds all of
    #: ("frame skipping").
    short_terms: int = 3
    #: The keyword arm.
    keyword: KeywordConfig = field(default_factory=KeywordConfig)
    #: The semantic arm.
    semantic: SemanticConfig = field(default_factory=SemanticConfig)
    #: Hybrid page search.
    pages: PagesConfig = field(default_factory=PagesConfig)
    #: Hybrid section search.
    sections: SectionsConfig = field(default_factory=SectionsConfig)
    #: The weak-answer verdict.
    evidence: EvidenceConfig = field(default_factory=EvidenceConfig)

    def updated(self, changes: Mapping[str, Any]) -> "RankingConfig":
        """A copy with each ``{dotted path: value}`` of ``changes`` set ("k",
        "sections.opening_weight"); AttributeError names a path that does not exist."""
        out = self
        for path, value in changes.items():
            out = _replace(out, path.split("."), value)
        return out

    def get(self, path: str) -> Any:
        """The value at a dotted path (AttributeError when it does not exist)."""
        got: Any = self
        for part in path.split("."):
            if not dataclasses.is_dataclass(got) or part not in _names(got):
                raise AttributeError(f"no ranking setting {path!r}")
            got = getattr(got, part)
        return got

    def flat(self) -> dict[str, Any]:
        """``{dotted path: value}`` of every setting, in declaration order."""
        return dict(_walk(self, ""))


def _names(obj) -> set[str]:
    return {f.name for f in dataclasses.fields(obj)}


def _replace(obj, parts: list[str], value):
    if not dataclasses.is_dataclass(obj) or parts[0] not in _names(obj):
        raise AttributeError(f"no ranking setting {'.'.join(parts)!r}")
    if len(parts) == 1:
        return dataclasses.replace(obj, **{parts[0]: value})
    return dataclasses.replace(obj, **{parts[0]: _replace(getattr(obj, parts[0]),
                                                          parts[1:], value)})


def _walk(obj, prefix: str) -> Iterator[tuple[str, Any]]:
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        if dataclasses.is_dataclass(v):
            yield from _walk(v, f"{prefix}{f.name}.")
        else:
            yield f"{prefix}{f.name}", v
