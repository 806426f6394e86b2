"""What each arm of one search found, as typed values (the search service fills them).

:class:`KeywordArm` is the stage-1 keyword list (per-document BM25 ranks fused across
documents, :func:`.keyword.fuse_arrays`) with each key's share of the query's rarity
mass (``rarity_share``) and the head-field list; :class:`SemanticArm` the semantic list
(pages by cosine, or sections by their units and head units); :class:`Ranked` one query's
arms, the fused :class:`.run.Run` and the weights in force.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .run import Key, Run, Weights

if TYPE_CHECKING:   # types only: nothing here runs numpy or SQLite
    from . import keyword, restrict, section_semantic
    from .coverage import Coverage
    from .query import Query
    from .semantic import PageRanking


@dataclass
class KeywordArm:
    """``keys`` best first (the first ``depth``, or all for an identifier query in
    keyword mode) with their stage-1 ``scores`` and ``rarity_share`` (share of the query's
    rarity mass, in [0, 1]); ``best_rarity_share`` over every row; ``strength`` the keyword
    evidence (:func:`.evidence.keyword_strength`); ``fused`` / ``ranking`` the whole
    stage-1 list (ranks of shown hits beyond ``keys``); ``head`` the head-field list
    ``[((doc, 1), share)]``; ``named`` (section search) ``{content: query terms}`` of the
    documents the query names and the terms naming each, ``named_share`` ``{doc: share of
    the query's rarity mass its head holds}`` of those documents."""

    keys: list[Key] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    rarity_share: list[float] = field(default_factory=list)
    best_rarity_share: float = 0.0
    strength: float = 0.0
    fused: "keyword.Fused | None" = None
    ranking: "keyword.Ranking | None" = None
    head: list[tuple[Key, float]] = field(default_factory=list)
    named: dict[int, frozenset[str]] = field(default_factory=dict)
    named_share: dict[str, float] = field(default_factory=dict)


@dataclass
class SemanticArm:
    """``keys`` best first (the first ``depth``); ``first_unit_weight`` the page-head share
    A used; ``best`` the best unit cosine of a page searched; page search: ``pages`` the
    whole ranking, ``docs_of`` ``{content: [doc]}``, ``cut`` True when ``keys`` stops
    before it; section search: ``units`` / ``heads`` the two lists hybrid fuses,
    ``sections`` their RRF (the arm's own order) and ``scope``."""

    keys: list[Key] = field(default_factory=list)
    first_unit_weight: float | None = None
    best: float | None = None
    pages: "PageRanking | None" = None
    docs_of: dict[int, list[str]] = field(default_factory=dict)
    cut: bool = False
    units: list[Key] | None = None
    heads: list[Key] | None = None
    sections: "section_semantic.Keys | None" = None
    scope: "section_semantic.DocScope | None" = None


@dataclass
class Ranked:
    """One query ranked: the fused ``run`` (best first), the arms, the query's terms,
    the parsed query and its restriction, whether the scope was searched as a few
    documents (``few``), the fusion ``weights`` in force (hybrid; else only ``k``), and
    the search's ``coverage`` with the ranking's notes."""

    run: Run
    keyword: KeywordArm
    semantic: SemanticArm
    terms: list
    query: "Query"
    restriction: "restrict.Restriction"
    few: bool
    weights: Weights
    coverage: "Coverage | None" = None
