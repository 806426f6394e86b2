"""The search's two choices as enums: which arms rank (:class:`Mode`) and what a hit is
(:class:`Granularity`). Their values are the words the CLI, the TUI and the JSON use."""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    """Which arms rank: both fused, or one alone."""

    HYBRID = "hybrid"
    KEYWORD = "keyword"
    SEMANTIC = "semantic"


class Granularity(StrEnum):
    """What a hit is: a page, or a section (its heading to the next heading)."""

    PAGE = "page"
    SECTION = "section"

    @property
    def rows(self) -> str:
        """The plural the keyword index and the restriction name their rows by
        ("pages", "sections"), also said in the coverage notes."""
        return "pages" if self is Granularity.PAGE else "sections"
