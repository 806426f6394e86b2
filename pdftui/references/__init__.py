"""Reference entries: a document's reference list split into entries, each parsed into
fields (authors' surnames and given names, "et al.", year, title, venue, arXiv id, DOI)
with its page and printed label.

Input is the stored blocks of the sections titled "References" / "Bibliography"
(:func:`is_reference_heading`), in reading order, so no PDF is read again. Splitting is
:mod:`.entries` (:func:`split_entries`); the fields are :mod:`.fields`
(:func:`parse_entry`), with the author names in :mod:`.names`, the years in
:mod:`.years` and the arXiv id and DOI in :mod:`.identifiers`; :mod:`.reference` holds the
types and limits. Work is bounded on hostile text: at most :data:`MAX_ENTRIES` entries
per document, each parsed on its first :data:`PARSE_CHARS` characters and stored up to
:data:`MAX_RAW_CHARS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .entries import _DITTO_RE, is_reference_heading, split_entries
from .fields import _author_year_label, parse_entry
from .reference import (MAX_ENTRIES, MAX_LIST_CHARS, MAX_RAW_CHARS, PARSE_CHARS,
                        REFERENCES_VERSION, RefBlock, Reference)

__all__ = ["MAX_ENTRIES", "MAX_LIST_CHARS", "MAX_RAW_CHARS", "PARSE_CHARS",
           "REFERENCES_VERSION", "RefBlock", "Reference", "is_reference_heading",
           "parse_entry", "read_references", "split_entries"]


def read_references(blocks: Sequence[RefBlock]) -> list[Reference]:
    """A document's reference entries, parsed, from the blocks of its reference sections in
    reading order (see :func:`split_entries`, :func:`parse_entry`). An entry that repeats
    the authors of the one before it without printing them (``(1982a), Title``) takes
    theirs."""
    out: list[Reference] = []
    for i, (page, label, text) in enumerate(split_entries(blocks)):
        ref = parse_entry(text, page, i, label)
        if out and not ref.authors and out[-1].authors and _DITTO_RE.match(text):
            ref = _same_authors(ref, out[-1])
        out.append(ref)
    return out


def _same_authors(ref: Reference, before: Reference) -> Reference:
    """``ref`` with the authors of ``before`` (and a label made of them and its year when
    the list prints none)."""
    label = ref.label or (_author_year_label(before.authors, ref.year) if ref.year else "")
    return replace(ref, authors=before.authors, given=before.given, et_al=before.et_al,
                   label=label)
