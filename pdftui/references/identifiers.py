"""The identifiers of a reference entry: its arXiv id (printed, or read from an arXiv
DOI) and its DOI (joined again where a line end broke it)."""

from __future__ import annotations

import re

from ..metadata import clean_doi


_ARXIV_RE = re.compile(r"(?:arXiv[:\s]*|arxiv\.org/(?:abs|pdf)/|abs/|CoRR[,\s]+abs/)"
                       r"(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7}|\d{8,9}(?!\d))(?:v\d+)?",
                       re.I)
_DOI_RE = re.compile(r"(?:doi[:\s]*|doi\.org/)?\b(10\.\d{4,9}/[^\s\"<>]+)", re.I)


def _arxiv(text: str) -> str:
    low = text.lower()
    if "arxiv" not in low and "abs/" not in low:   # all that _ARXIV_RE can match
        return ""
    m = _ARXIV_RE.search(text)
    if not m:
        return ""
    got = m.group(1)   # an id printed without its dot (arXiv:14091259) gets it back
    return f"{got[:4]}.{got[4:]}" if got.isdigit() else got


#: A DOI that ends the entry, broken after one of its dots at a line end
#: (``10.48550/arXiv. 1912.01703.``): the part after the break is not a bare year.
_BROKEN_DOI_RE = re.compile(
    r"(10\.\d{4,9}/\S*?\.)\s+(?!(?:1[89]|20)\d\d\.?\s*$)([\w./\-]+)\s*$")


#: A DOI broken at a line end right after its slash (``10.1016/ S0140-6736(99)04149-5``):
#: no DOI ends with its slash.
_SLASH_DOI_RE = re.compile(r"(10\.\d{4,9}/)\s+(?=[\w(])")


def _join_broken_doi(text: str) -> str:
    """``text`` with a DOI broken at a line end after a dot joined again, when what
    follows the break runs to the end of the entry (see :data:`_BROKEN_DOI_RE`), and one
    broken after its slash (:data:`_SLASH_DOI_RE`)."""
    if "10." not in text:
        return text
    return _SLASH_DOI_RE.sub(r"\1", _BROKEN_DOI_RE.sub(r"\1\2", text))


def _arxiv_of_doi(doi: str) -> str:
    """The arXiv id of an arXiv DOI (``10.48550/arXiv.2211.02701``), else ''."""
    if not doi.lower().startswith("10.48550/arxiv."):
        return ""
    m = _NEW_ARXIV_ID_RE.fullmatch(doi[15:])
    return m.group(1) if m else ""


_NEW_ARXIV_ID_RE = re.compile(r"(\d{4}\.\d{4,5})(?:v\d+)?")


def _doi(text: str) -> str:
    if "10." not in text:
        return ""
    for m in _DOI_RE.finditer(text):
        if doi := clean_doi(m.group(1)):
            return doi
    return ""
