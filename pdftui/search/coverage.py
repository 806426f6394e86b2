"""A search's coverage: what was searched of the folder, and the notes telling the user
what of the query or the folder could not be searched as asked."""

from __future__ import annotations

from . import keyword
from .arms import KeywordArm, SemanticArm
from .corpus_view import QUEUED, FolderDoc
from .plan import Plan
from .modes import Granularity, Mode
from .query import FieldName

#: The coverage note of a search whose folder no longer exists.
FOLDER_GONE = "the folder is gone"


def summary(scope: list[FolderDoc], searchable: list[FolderDoc], states: dict,
            semantic: bool) -> dict:
    """What a query over ``scope`` covers: ``searched`` / ``total`` documents,
    ``semantic_searched`` (fully embedded, by the embedding ``states``; 0 when
    ``semantic`` is False), the documents still ``embedding`` or ``indexing``, the
    ``skipped`` ones with their reason."""
    complete = [d for d in searchable if d.content_id in states
                and states[d.content_id].complete]
    done = {d.doc for d in complete}
    pending = [d.doc for d in searchable if d.doc not in done]
    return {"searched": len(searchable), "total": len(scope),
            "semantic_searched": len(complete) if semantic else 0, "embedding": pending,
            "indexing": [d.doc for d in scope if d.reason == QUEUED],
            "skipped": [{"doc": d.doc, "reason": d.reason} for d in scope
                        if d.reason is not None and d.reason != QUEUED]}


def add_note(coverage: dict, note: str) -> None:
    """``note`` after the coverage's note ("; " between), or as its note."""
    coverage["note"] = f"{coverage['note']}; {note}" if coverage.get("note") else note


def truncation_note(query: object, text: str, terms: list) -> str:
    """What of the query was not searched, in words ('' when all of it was): text past
    :data:`keyword.MAX_QUERY_CHARS` characters, terms past :data:`keyword.MAX_TERMS`."""
    notes = []
    if isinstance(query, str) and len(query) > keyword.MAX_QUERY_CHARS:
        notes.append(f"the query was cut to its first {keyword.MAX_QUERY_CHARS:,} characters")
    if len(terms) >= keyword.MAX_TERMS:
        words = set(keyword.tokenize(text)) - keyword._stem_stopwords()
        if len(words) > keyword.MAX_TERMS:
            notes.append(f"only its first {keyword.MAX_TERMS} of {len(words)} terms were searched")
    return "; ".join(notes)


def arm_notes(c: Plan, kw: KeywordArm, sem: SemanticArm, coverage: dict) -> None:
    """What the user should know about the arms' lists, into ``coverage["note"]``."""
    q, res, kind = c.q, c.res, c.granularity
    if res.keep_rows is not None and not res.keep_rows:
        what = " and ".join(f'"{p}"' for p in q.phrases) or \
            " ".join(str(f) for f in q.fields if f.name == FieldName.SECTION)
        coverage.setdefault("note", f"no {kind} holds {what}")
    if res.excluded or q.excluded:
        coverage["excluded"] = {"terms": list(q.excluded), "rows": res.excluded}
        # said even when another note came first (fields, a phrase no page holds)
        add_note(coverage, f"excluded {res.excluded} {kind.rows} holding " + ", ".join(q.excluded))
    if c.mode is Mode.HYBRID and q.semantic_text and not kw.keys and sem.keys:
        coverage.setdefault("note", "no document holds a query word: semantic hits only")
    if c.terms and keyword.only_stopwords(c.terms):
        words = ", ".join(t.text for t in c.terms[:3])
        coverage.setdefault("note", f"the query has only common words ({words}): "
                                    "add the words that matter")


def query_notes(coverage: dict, q, query: object, text: str, terms: list,
                weak: bool, has_hits: bool, granularity: Granularity) -> None:
    """The notes of the whole search, after the hits: a weak answer's ("no strong match:
    nearest pages", before any other note), the query parser's, the truncation's, and
    one for a query with no letter or digit."""
    if weak and has_hits:
        coverage["note"] = "no strong match: nearest " + granularity.rows + (
            "; " + coverage["note"] if coverage.get("note") else "")
    said = list(q.notes) + [truncation_note(query, text, terms)]
    if text.strip() and not any(ch.isalnum() for ch in text) and not q.fields:
        said.append("the query has no letter or digit: nothing to search for")
    for note in filter(None, said):
        add_note(coverage, note)
