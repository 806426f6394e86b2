"""The years of a reference entry: the years printed in its text (not those inside an
arXiv id, a DOI or a page range), and the entry's year read after its names or after its
title."""

from __future__ import annotations

import re


#: A year: four digits 1800-2039 that are no part of a longer number, a decimal or an
#: identifier (``1810.12885``, ``abs/1810``).
_YEAR_RE = re.compile(r"(?<![\d./:])((?:1[89]\d|20[0-3])\d)([a-z]?)(?![\d/]|\.\d)")
_LEAD_YEAR_RE = re.compile(r"^[\s,.]*\(?((?:1[89]\d|20[0-3])\d)[a-z]?\)?[.,:]?\s+")


_PAREN_YEAR_RE = re.compile(r"\(((?:1[89]\d|20[0-3])\d)[a-z]?\)")
_BARE_YEAR_RE = re.compile(r"^\(?((?:1[89]\d|20[0-3])\d)[a-z]?\)?$")


def _years(text: str) -> list[re.Match]:
    """The years printed in ``text``, not those inside an arXiv id or DOI."""
    found = list(_YEAR_RE.finditer(text))
    if not found or ("/" not in text and "xiv" not in text.lower()):
        return found
    return [m for m in found if not _in_id(text, m.start())]


def _in_id(text: str, at: int) -> bool:
    """Is position ``at`` inside an arXiv id or DOI (whose digits look like years)?"""
    before = text[max(0, at - 12):at].lower()
    return "10." in before[-8:] or "arxiv" in before or "abs/" in before or "/" in before[-2:]


def _strip_year(head: str) -> str:
    """The author part of a first sentence with a trailing ``(2014a)`` removed."""
    return _PAREN_YEAR_RE.sub("", head).strip().rstrip(",")


def _is_year(sentence: str) -> bool:
    return bool(_BARE_YEAR_RE.match(sentence.strip().rstrip(".")))


def _year_after_authors(head: str, rest: list[str]) -> int | None:
    """The year printed right after the authors: ``Name (2014a).`` or ``Name. 2017.``."""
    m = _PAREN_YEAR_RE.search(head)
    if m:
        return int(m.group(1))
    if rest and _is_year(rest[0]):
        return int(_BARE_YEAR_RE.match(rest[0].strip().rstrip("."))[1])
    return None


def _year_after_title(text: str, title: str, years: list[re.Match]) -> int:
    """The first year printed after ``title`` in ``text`` (a year in a title, ``2016
    update``, or in matter after the entry, ``Cite this article as: ... 2010``, is not
    the entry's); the last year when there is no title."""
    at = text.find(title[-20:]) + len(title[-20:]) if title else -1
    after = [m for m in years if m.start() >= at and not _in_page_range(text, m)] \
        if at > 0 else []
    return int((after[0] if after else years[-1]).group(1))


def _in_page_range(text: str, m: re.Match) -> bool:
    """Is the year-like number ``m`` a page of a range (``15(1):1929–1958``)?"""
    before, after = text[max(0, m.start() - 2):m.start()], text[m.end():m.end() + 2]
    return (before[-1:] in ("-", "–") and before[:1].isdigit()) or \
        (after[:1] in ("-", "–") and after[1:2].isdigit())
