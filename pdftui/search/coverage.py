"""A search's coverage: what was searched of the folder, and the notes telling the user
what of the query or the folder could not be searched as asked.

:class:`Coverage` is frozen: each stage of a search makes a new one (its ``with_*`` and
note methods); :meth:`Coverage.to_json` gives the JSON answer's ``coverage`` dict, its
keys in the order the search said them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import Enum

from . import keyword
from .arms import KeywordArm, SemanticArm
from .corpus_view import QUEUED, FolderDoc
from .evidence import Evidence
from .plan import Plan
from .modes import Granularity, Mode
from .query import FieldName

#: The coverage note of a search whose folder no longer exists.
FOLDER_GONE = "the folder is gone"


class NoteKind(Enum):
    """What a coverage note is about."""

    FOLDER_GONE = "folder gone"
    FIELDS = "fields"                      # "author:x: 2 of 4 documents"
    SEMANTIC_UNAVAILABLE = "semantic unavailable"
    NO_ROW_HOLDS = "no row holds"          # a phrase or section no page/section holds
    EXCLUDED = "excluded"
    SEMANTIC_ONLY = "semantic only"        # hybrid: no document holds a query word
    COMMON_WORDS = "common words"
    ONLY_EXCLUDES = "only excludes"
    TYPO = "typo"
    UNKNOWN_WORDS = "unknown words"        # an answer found though a query word is nowhere
    WEAK = "weak"                          # "no strong match: nearest pages"
    PARSER = "parser"                      # the query parser's own notes
    TRUNCATED = "truncated"                # query text or terms cut
    NO_LETTER = "no letter"
    PAGES_AS_SECTIONS = "pages as sections"   # documents without headings, by page


@dataclass(frozen=True)
class Note:
    """One thing the user should know about a search: its ``kind`` and its ``text``."""

    kind: NoteKind
    text: str


class NoteAt(Enum):
    """Where the JSON's ``note`` key sits: said before ``excluded`` was, between it and
    ``evidence``, or after ``evidence`` (the stage that said the first note)."""

    BEFORE_EXCLUDED = 1
    BEFORE_EVIDENCE = 2
    LAST = 3


@dataclass(frozen=True)
class Skipped:
    """A document of the scope not searched, and why (its ``reason``)."""

    doc: str
    reason: str

    def to_json(self) -> dict:
        """``{"doc", "reason"}``."""
        return {"doc": self.doc, "reason": self.reason}


@dataclass(frozen=True)
class FieldsCoverage:
    """What the query's document fields admitted: ``documents`` of the ``of`` searchable
    ones, for the fields ``query`` ("author:vaswani year:2017")."""

    query: str
    documents: int
    of: int

    def to_json(self) -> dict:
        """``{"query", "documents", "of"}``."""
        return {"query": self.query, "documents": self.documents, "of": self.of}


@dataclass(frozen=True)
class Excluded:
    """The query's excluded ``terms`` and how many ``rows`` (pages or sections) they
    took out."""

    terms: tuple[str, ...]
    rows: int

    def to_json(self) -> dict:
        """``{"terms", "rows"}``."""
        return {"terms": list(self.terms), "rows": self.rows}


@dataclass(frozen=True)
class Coverage:
    """What a search covered: ``searched`` of ``total`` documents, ``semantic_searched``
    (fully embedded ones the semantic arm searched), those still ``embedding`` or
    ``indexing`` (queued for text extraction: in the total, not searched yet), the
    ``skipped`` ones; what the query's ``fields`` admitted, what it ``excluded``, the arms'
    ``evidence`` (None when not said) and the ``notes`` for the user."""

    searched: int
    total: int
    semantic_searched: int
    embedding: tuple[str, ...] = ()
    indexing: tuple[str, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    fields: FieldsCoverage | None = None
    excluded: Excluded | None = None
    evidence: Evidence | None = None
    notes: tuple[Note, ...] = ()
    note_at: NoteAt | None = field(default=None, compare=False)

    @property
    def note(self) -> str | None:
        """The notes joined with "; ", None when there is none."""
        return "; ".join(n.text for n in self.notes) if self.notes else None

    def with_(self, **changes) -> Coverage:
        """A copy with ``changes`` (field names to values)."""
        return replace(self, **changes)

    def _noted(self, notes: tuple[Note, ...]) -> Coverage:
        """A copy holding ``notes``; the first note said fixes where ``note`` sits."""
        at = self.note_at
        if at is None:
            at = NoteAt.LAST if self.evidence is not None else \
                NoteAt.BEFORE_EVIDENCE if self.excluded is not None else NoteAt.BEFORE_EXCLUDED
        return replace(self, notes=notes, note_at=at)

    def add_note(self, note: Note) -> Coverage:
        """A copy with ``note`` after the notes."""
        return self._noted(self.notes + (note,))

    def default_note(self, note: Note) -> Coverage:
        """A copy with ``note`` as its only note when it has none, else unchanged."""
        return self if self.notes else self._noted((note,))

    def only_note(self, note: Note) -> Coverage:
        """A copy with ``note`` in place of every note."""
        return self._noted((note,))

    def lead_note(self, note: Note) -> Coverage:
        """A copy with ``note`` before the notes."""
        return self._noted((note,) + self.notes)

    def to_json(self) -> dict:
        """The JSON answer's ``coverage``: ``{"searched", "total", "semantic_searched",
        "embedding", "indexing", "skipped"}`` then, when said, ``"fields"``,
        ``"excluded"``, ``"evidence"`` and ``"note"`` (at :attr:`note_at`)."""
        d = {"searched": self.searched, "total": self.total,
             "semantic_searched": self.semantic_searched, "embedding": list(self.embedding),
             "indexing": list(self.indexing), "skipped": [s.to_json() for s in self.skipped]}
        if self.fields is not None:
            d["fields"] = self.fields.to_json()
        note = self.note
        for at, key, value in ((NoteAt.BEFORE_EXCLUDED, "excluded", self.excluded),
                               (NoteAt.BEFORE_EVIDENCE, "evidence", self.evidence)):
            if note is not None and self.note_at is at:
                d["note"] = note
            if value is not None:
                d[key] = value.to_json()
        if note is not None and self.note_at is NoteAt.LAST:
            d["note"] = note
        return d


def summary(scope: list[FolderDoc], searchable: list[FolderDoc], states: dict,
            semantic: bool) -> Coverage:
    """What a query over ``scope`` covers: ``searched`` / ``total`` documents,
    ``semantic_searched`` (fully embedded, by the embedding ``states``; 0 when
    ``semantic`` is False), the documents still ``embedding`` or ``indexing``, the
    ``skipped`` ones with their reason."""
    complete = [d for d in searchable if d.content_id in states
                and states[d.content_id].complete]
    done = {d.doc for d in complete}
    pending = tuple(d.doc for d in searchable if d.doc not in done)
    return Coverage(len(searchable), len(scope), len(complete) if semantic else 0, pending,
                    tuple(d.doc for d in scope if d.reason == QUEUED),
                    tuple(Skipped(d.doc, d.reason) for d in scope
                          if d.reason is not None and d.reason != QUEUED))


def truncation_notes(query: object, text: str, terms: list) -> list[Note]:
    """What of the query was not searched (none when all of it was): text past
    :data:`keyword.MAX_QUERY_CHARS` characters, terms past :data:`keyword.MAX_TERMS`."""
    notes = []
    if isinstance(query, str) and len(query) > keyword.MAX_QUERY_CHARS:
        notes.append(Note(NoteKind.TRUNCATED, "the query was cut to its first "
                                              f"{keyword.MAX_QUERY_CHARS:,} characters"))
    if len(terms) >= keyword.MAX_TERMS:
        words = set(keyword.tokenize(text)) - keyword._stem_stopwords()
        if len(words) > keyword.MAX_TERMS:
            notes.append(Note(NoteKind.TRUNCATED, f"only its first {keyword.MAX_TERMS} of "
                                                  f"{len(words)} terms were searched"))
    return notes


def excluded_note(count: int, rows: str, excluded: Sequence[str]) -> str:
    """'excluded 45 pages holding "big bird"; whole documents: -title:"big bird"': what an
    exclusion left out, quoted as typed, and how to leave out a whole document (its other
    pages, which do not say the words, stay: second trial)."""
    said = ", ".join(f'"{e}"' if " " in e else e for e in excluded)
    first = excluded[0] if excluded else ""
    hint = f'-title:"{first}"' if " " in first else f"-title:{first}"
    return f"excluded {count} {rows} holding {said}" + (
        f"; whole documents: {hint}" if first else "")


def arm_notes(c: Plan, kw: KeywordArm, sem: SemanticArm, coverage: Coverage) -> Coverage:
    """``coverage`` with what the user should know about the arms' lists."""
    q, res, kind = c.q, c.res, c.granularity
    if res.keep_rows is not None and not res.keep_rows:
        what = " and ".join(f'"{p}"' for p in q.phrases) or \
            " ".join(str(f) for f in q.fields if f.name == FieldName.SECTION)
        coverage = coverage.default_note(Note(NoteKind.NO_ROW_HOLDS, f"no {kind} holds {what}"))
    if res.excluded or q.excluded:
        coverage = coverage.with_(excluded=Excluded(tuple(q.excluded), res.excluded))
        # said even when another note came first (fields, a phrase no page holds)
        coverage = coverage.add_note(Note(NoteKind.EXCLUDED, excluded_note(
            res.excluded, kind.rows, q.excluded)))
    if c.mode is Mode.HYBRID and q.semantic_text and not kw.keys and sem.keys:
        coverage = coverage.default_note(Note(
            NoteKind.SEMANTIC_ONLY, "no document holds a query word: semantic hits only"))
    if c.terms and keyword.only_stopwords(c.terms):
        words = ", ".join(t.text for t in c.terms[:3])
        coverage = coverage.default_note(Note(
            NoteKind.COMMON_WORDS,
            f"the query has only common words ({words}): add the words that matter"))
    return coverage


def query_notes(coverage: Coverage, q, query: object, text: str, terms: list,
                weak: bool, has_hits: bool, granularity: Granularity) -> Coverage:
    """``coverage`` with the notes of the whole search, after the hits: a weak answer's
    ("no strong match: nearest pages", before any other note), the query parser's, the
    truncation's, and one for a query with no letter or digit."""
    if weak and has_hits:
        coverage = coverage.lead_note(Note(NoteKind.WEAK,
                                           "no strong match: nearest " + granularity.rows))
    said = [Note(NoteKind.PARSER, n) for n in q.notes if n]
    said += truncation_notes(query, text, terms)
    if text.strip() and not any(ch.isalnum() for ch in text) and not q.fields:
        said.append(Note(NoteKind.NO_LETTER,
                         "the query has no letter or digit: nothing to search for"))
    for note in said:
        coverage = coverage.add_note(note)
    return coverage
