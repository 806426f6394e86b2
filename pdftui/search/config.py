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

    #: Stage 1: weight of the document list (BM25 over documents as units) next to the
    #: page ranks.
    doc_weight: float = 1.0
    #: A row holding two consecutive query terms within ``proximity_window`` tokens gains
    #: this x idf.
    proximity: float = 2.0
    #: Tokens within which two consecutive query terms count as near (``proximity``).
    proximity_window: int = 3
    #: Documents are compared by BM25 with each near pair as one more term (its tf: the
    #: rows holding it) x this.
    doc_proximity: float = 0.5
    #: Hybrid: each keyword contribution x the key's coverage (share of the query's rarity
    #: mass) ** this: the keyword coverage gate.
    coverage_power: float = 2.0


@dataclass(frozen=True)
class SemanticConfig:
    """The semantic arm and its place in hybrid fusion."""

    #: Hybrid: semantic list weight (pages; section units).
    weight: float = 2.0
    #: Hybrid page cosine: first-unit weight A = this x (1 - the query's best keyword
    #: coverage) (0 when some page holds every rare word of the query, or in a scope of a
    #: few documents).
    adapt_hi: float = 0.7
    #: Semantic mode's page cosine: first-unit weight A.
    first_unit: float = 0.1
    #: Hybrid pages of a folder: a page's cosine plus this x its document's best unit
    #: cosine.
    doc_context: float = 0.25
    #: Hybrid, documents not embedded yet: their keyword ranks stand in for the semantic
    #: arm (:func:`.run.add_stand_in`).
    stand_in: bool = True


@dataclass(frozen=True)
class PagesConfig:
    """Hybrid page search: the lists fused besides the two arms, and the finish."""

    #: Weight of the head-field list (documents whose title / byline holds the query's
    #: rare words), before its share^2.
    head: float = 1.0
    #: A document enters the head-field list when its head holds at least this share of
    #: the query's rarity mass.
    head_share: float = 0.5
    #: Score factor of a reference-list page for a query that does not ask for citations.
    reference: float = 0.9
    #: A folder's pages: the document both arms rank first leads (:func:`.run.agreed_first`).
    arms_agree: bool = True
    #: A term lookup (see ``RankingConfig.short_terms``): semantic weight x this.
    short_semantic: float = 0.1
    #: A term lookup's pages holding it as a phrase are one more list, at this weight.
    phrase: float = 0.5


@dataclass(frozen=True)
class SectionsConfig:
    """Hybrid section search: the lists fused besides the two arms, and the finish."""

    #: Section head unit list weight.
    head_weight: float = 1.0
    #: Score factor of a section starting in its document's opening (its first
    #: HEAD_UNITS units: title, abstract, introduction's start) that is its first section
    #: or titled as a summary.
    opening_weight: float = 0.75
    #: Sections of a document the query names: its name counts as held (coverage), and
    #: their cosines are read against the query without it.
    named_docs: bool = True
    #: ... and they are one more list, in their fused order, at this x share^2 / (k + place).
    named: float = 1.0
    #: A document is named by a query term at most this share of the texts searched hold
    #: (or ``keyword_arm.NAME_MIN_DOCS``) ...
    name_df: float = 0.1
    #: ... whose head holds at least this share of the query's rarity mass.
    name_share: float = 0.2
    #: Named sections' units: the better of the cosines with and without the naming words.
    named_max: bool = True
    #: Weight of the list of sections whose title holds the query terms its document's
    #: head does not ...
    title: float = 1.0
    #: ... among the first this many fused places ...
    title_places: int = 30
    #: ... at least this share of them (and two).
    title_share: float = 0.5
    #: Score factor of a section titled as a reference list.
    reference: float = 0.5


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
    #: A scope of at most this many documents is searched as one: no head field, no
    #: coverage gate, no page-head blend.
    few_docs: int = 3
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
