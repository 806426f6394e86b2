"""The ranking configuration: every constant the search uses, each fixed by measurement
(bench/quality.py; what each is worth: docs/ranking.md), in one frozen
:class:`RankingConfig` nested per stage, and :class:`Lists`, which lists and steps run.
RRF contributions are ``weight / (k + rank)``, ranks 1-based; every list but the
semantic arm's fuses at weight 1 (plain RRF); weights, shares and thresholds are plain
numbers. The weak-answer verdict's thresholds rank nothing and live in
:mod:`.evidence`.

:meth:`RankingConfig.updated` returns a copy with fields changed by dotted path
(``{"sections.overview": 0.7}``), as ``bench/quality.py --set`` passes them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import fusion


@dataclass(frozen=True)
class KeywordConfig:
    """The keyword arm (stage 1: per-document BM25 ranks fused across documents)."""

    #: A row holding two consecutive query terms within ``proximity_window`` tokens gains
    #: this x idf (documents compared by BM25 count each such pair as one more term).
    proximity: float = 2.0
    #: Tokens within which two consecutive query terms count as near (``proximity``).
    proximity_window: int = 3
    #: Hybrid: each keyword contribution x the key's coverage (share of the query's rarity
    #: mass) ** this: the keyword coverage gate.
    coverage_power: float = 2.0


@dataclass(frozen=True)
class SemanticConfig:
    """The semantic arm and its place in hybrid fusion."""

    #: Hybrid: semantic list weight (pages; section units).
    weight: float = 2.0
    #: Semantic mode's page cosine: first-unit weight A (hybrid: A = 1 - the query's best
    #: keyword coverage).
    first_unit: float = 0.1
    #: Hybrid pages of a folder: a page's cosine plus this x its document's best unit
    #: cosine.
    doc_context: float = 0.25


@dataclass(frozen=True)
class PagesConfig:
    """Hybrid page search: the finish."""

    #: Score factor of a reference-list page for a query that does not ask for citations.
    reference: float = 0.9


@dataclass(frozen=True)
class SectionsConfig:
    """Hybrid section search: the named document and the finish."""

    #: Score factor of a section that tells of every other part: one starting in its
    #: document's opening (its first HEAD_UNITS units) that is its first section or titled
    #: as a summary, one titled as a closing summary ("Conclusions"), and a reference list
    #: (for a query that does not ask for citations).
    overview: float = 0.75
    #: A document is named by a query term at most this share of the texts searched hold
    #: (or ``keyword_arm.NAME_MIN_DOCS``) ...
    name_df: float = 0.1
    #: ... whose head holds at least this share of the query's rarity mass.
    name_share: float = 0.2


@dataclass(frozen=True)
class Lists:
    """Which lists and steps run (all on): each joins the fusion at plain RRF weight 1
    (``1 / (k + rank)``) or is a rule without a number; turned off one at a time by
    ``bench/ablation.py`` and the behaviour tests, never tuned."""

    #: Stage 1: the document list (BM25 over documents as units) beside each document's
    #: own page ranks.
    document_order: bool = True
    #: Hybrid pages: page 1 of documents whose title / byline holds ``field_share`` of the
    #: query's rarity mass, at share^2.
    head_field: bool = True
    #: Pages: a page's first unit (its head) counts in its cosine, at A = 1 - the query's
    #: best keyword coverage in hybrid mode (0 in a scope of a few documents), at
    #: ``semantic.first_unit`` in semantic mode.
    page_head: bool = True
    #: Hybrid sections: each section's head unit as a semantic list.
    section_heads: bool = True
    #: Hybrid, documents not embedded yet: their keyword ranks stand in for the semantic
    #: arm (:func:`.run.add_stand_in`).
    stand_in: bool = True
    #: A folder's pages: the document both arms rank first leads (:func:`.run.agreed_first`).
    arms_agree: bool = True
    #: A term lookup's pages holding it as a phrase are one more list.
    phrase: bool = True
    #: Documents compared by BM25 count each near pair (``keyword.proximity``) as one
    #: more term.
    doc_proximity: bool = True
    #: Sections of a document the query names: its name counts as held (coverage), and
    #: their cosines are read against the query without it.
    named_docs: bool = True
    #: ... and they are one more list, in their fused order, at share^2.
    named: bool = True
    #: Named sections' units: the better of the cosines with and without the naming words.
    named_max: bool = True
    #: Sections whose title holds ``field_share`` of the query terms its document's head
    #: does not (and two), among the first ``depth`` fused places, are one more list.
    title: bool = True


@dataclass(frozen=True)
class RankingConfig:
    """Every ranking constant, per stage, and which lists run."""

    #: Stage-2 RRF constant (every list fused after stage 1).
    k: int = fusion.K
    #: Arm list depth fed to stage-2 fusion.
    depth: int = 100
    #: A scope of at most this many documents is searched as one: no head field, no
    #: coverage gate, no page-head blend.
    few_docs: int = 3
    #: A term lookup is a query of at most this many terms some page (section) holds all
    #: of ("frame skipping"): the keyword arm's alone (pages: with the phrase list;
    #: sections: no reference list).
    short_terms: int = 3
    #: A field states the query when it holds at least this share of it: a document's head
    #: (title, byline) of the query's rarity mass (the head field), a section's title of
    #: the query terms its document's head does not hold (the title list).
    field_share: float = 0.5
    #: The keyword arm.
    keyword: KeywordConfig = field(default_factory=KeywordConfig)
    #: The semantic arm.
    semantic: SemanticConfig = field(default_factory=SemanticConfig)
    #: Hybrid page search.
    pages: PagesConfig = field(default_factory=PagesConfig)
    #: Hybrid section search.
    sections: SectionsConfig = field(default_factory=SectionsConfig)
    #: Which lists and steps run.
    lists: Lists = field(default_factory=Lists)

    def updated(self, changes: Mapping[str, Any]) -> "RankingConfig":
        """A copy with each ``{dotted path: value}`` of ``changes`` set ("k",
        "sections.overview"); AttributeError names a path that does not exist."""
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

    def constants(self) -> dict[str, Any]:
        """``{dotted path: value}`` of the ranking constants: every number (the lists'
        on / off switches are not constants)."""
        return {p: v for p, v in self.flat().items() if not isinstance(v, bool)}


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
