"""A query that names a document: the words naming it, and the query without them.

"how does paxos choose a value" names Paxos Made Simple (its head, the title and byline,
holds "paxos") and asks for one part of it; the sections of that paper rarely repeat its
name, so the part is found by the rest of the query, "how does choose a value". The
search service decides which documents a query names (the head-field list); this module
only cuts the query's text. Nothing here touches SQLite or numpy.
"""

from __future__ import annotations

from . import keyword


def without_names(text: str, stems: frozenset[str]) -> str | None:
    """``text`` without its words whose index stems (:func:`.keyword.tokenize`) include
    one of ``stems`` (prefix terms' ``*`` ignored), words split on whitespace; None when
    no word goes, or when no content word (not a common function word) is left."""
    names = {s.rstrip("*") for s in stems}
    words = text.split()
    rest = [w for w in words if not any(x in names for x in keyword.tokenize(w))]
    if len(rest) == len(words):
        return None
    if not any(x not in keyword.STOPWORDS for w in rest for x in keyword.tokenize(w, stem=False)):
        return None
    return " ".join(rest)
