"""Reference lists: telling a bibliography page from a page that discusses its topic.

A page of a paper's reference list holds the names and title words of many other works, so
a query for a name ("Vaswani") or a topic matches it lexically and, as a bag of titles,
semantically; yet it rarely answers anything but a citation query. Pages are classified
from their blocks (:func:`reference_share`): the share of the page's characters in blocks
that read as bibliography entries (:func:`is_entry`), counting from a "References" heading
when the page holds one. :func:`citation_query` tells the queries that do want them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

PAGE_SHARE = 0.5
"""A page whose reference-entry blocks hold at least this share of its text is a
reference-list page."""

_HEADING_RE = re.compile(r"^\s*([0-9A-Z]{1,3}\.?\s+)?(references|bibliography|works cited|"
                         r"literature cited|literatur|literaturverzeichnis|"
                         r"références)\s*$", re.I)
_YEAR_RE = re.compile(r"\b(19[5-9]\d|20[0-3]\d)[a-z]?\b")
_NUMBERED_RE = re.compile(r"^\s*\[\d{1,3}\]")
_INITIALS_RE = re.compile(r"\b[A-Z]\.(\s?[A-Z]\.)*\s?[A-Z][a-z]+|\b[A-Z][a-z]+,\s?[A-Z]\.")
_VENUE_RE = re.compile(r"\b(In |Proc\.|Proceedings|arXiv|Conference|Journal|Transactions|"
                       r"Symposium|Workshop|Press|pp\.|vol\.|doi|URL|https?://|ACM|IEEE|"
                       r"NeurIPS|NIPS|ICML|ICLR|ACL|EMNLP|CVPR|preprint)", re.I)
_CITATION_WORDS = frozenset("""cite cites cited citing citation citations reference references
bibliography bibliographic bibtex biblatex natbib""".split())


def is_entry(text: str) -> bool:
    """Does a block read as (part of) a bibliography entry? It names a year and holds at
    least two of: a leading ``[n]``, author names with initials, a venue or publisher
    word, three or more commas."""
    t = text.strip()
    if len(t) < 20 or not _YEAR_RE.search(t):
        return False
    marks = (bool(_NUMBERED_RE.match(t)) + (len(_INITIALS_RE.findall(t)) >= 2)
             + bool(_VENUE_RE.search(t)) + (t.count(",") >= 3))
    return marks >= 2


def reference_share(blocks: Sequence[str]) -> float:
    """Share of a page's characters (0..1) in blocks that read as bibliography entries;
    when the page holds a "References" heading, only the text after it counts."""
    start = next((i for i, b in enumerate(blocks) if _HEADING_RE.match(b)), None)
    body = blocks[start + 1:] if start is not None else blocks
    total = sum(len(b.strip()) for b in body)
    if not total:
        return 0.0
    return sum(len(b.strip()) for b in body if is_entry(b)) / total


def is_reference_page(blocks: Sequence[str], in_references: bool, entry_chars: int = 0
                      ) -> bool:
    """True when a page is (mostly) reference list. ``in_references``: the page lies in a
    section titled References / Bibliography (from the outline or the heading detector);
    such a page needs 0.3 of its text (after the heading) in entries: by
    :func:`reference_share` (blocks that each read as an entry) or by ``entry_chars``, the
    characters of the entries the reference parser (:mod:`pdftui.references`) found
    starting on the page (a layout that makes each printed line a block leaves few blocks
    that read as an entry alone); any other page needs numbered entries (``[12] ...``)
    holding :data:`PAGE_SHARE` of its text, so a paragraph dense with author-year
    citations is never taken for a bibliography."""
    if in_references:
        return max(reference_share(blocks), _share(blocks, entry_chars)) >= 0.3
    total = sum(len(b.strip()) for b in blocks)
    numbered = sum(len(b.strip()) for b in blocks if _NUMBERED_RE.match(b) and is_entry(b))
    return total > 0 and numbered / total >= PAGE_SHARE


def _share(blocks: Sequence[str], chars: int) -> float:
    """``chars`` as a share (0..1) of the page's text after its "References" heading."""
    start = next((i for i, b in enumerate(blocks) if _HEADING_RE.match(b)), None)
    body = blocks[start + 1:] if start is not None else blocks
    total = sum(len(b.strip()) for b in body)
    return min(1.0, chars / total) if total else 0.0


def is_references_title(title: str) -> bool:
    """Is a section title the heading of a reference list ("References", "7 Bibliography")?"""
    return bool(_HEADING_RE.match(title or ""))


def citation_query(text: str) -> bool:
    """Does the query ask for citations or references ("papers citing Lamport", "et al.",
    "bibliography of ...", a year)? Such queries keep reference-list pages at full
    weight."""
    return bool(_words(text) & _CITATION_WORDS) or "et al" in text.lower() or bool(
        _YEAR_RE.search(text))


def _words(text: str) -> set[str]:
    """The lower-case letter runs of ``text``."""
    return set(re.findall(r"[a-z]+", text.lower()))
