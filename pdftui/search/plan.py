"""What every step of one query reads: the parsed query, its terms, its restriction, scope.

:func:`make_plan` builds a :class:`Plan` once per query; the arms, the signals and the
recipe read it and never change it (``pending``, the documents not embedded yet, is set
once, before the arms run).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import keyword, restrict
from .corpus_view import FolderDoc, Lookups
from .modes import Granularity, Mode
from .query import Query


@dataclass
class Plan:
    """One query's plan: the parsed query ``q``, its keyword ``terms``, its restriction
    ``res``, the ``granularity``, the ``mode``, the documents searched
    (``searchable``, ``by_doc`` {doc: content}, ``contents``, ``docs_of`` {content:
    [doc]}), whether they are a few searched as one (``few``), the arm list ``depth`` fed
    to fusion, the hits shown (``top_k``) and the searched documents not embedded yet
    (``pending``)."""

    q: Query
    terms: list
    res: restrict.Restriction
    granularity: Granularity
    mode: Mode
    searchable: list[FolderDoc]
    by_doc: dict[str, int]
    contents: set[int]
    few: bool
    depth: int
    top_k: int
    docs_of: dict[int, list[str]]
    pending: frozenset[str] = frozenset()


def make_plan(q: Query, terms: list, res: restrict.Restriction, granularity: Granularity,
              mode: Mode,
              searchable: list[FolderDoc], lookups: Lookups, few_docs: int, depth: int,
              top_k: int) -> Plan:
    """The plan of one query over ``searchable`` (its ``lookups``); a scope of at most
    ``few_docs`` documents is searched as one (inside one or a few documents the
    cross-document signals, head field, document-frequency coverage and page heads, say
    nothing); arms feed fusion their first ``max(depth, top_k)`` keys."""
    return Plan(q, terms, res, granularity, mode, searchable, lookups.by_doc, lookups.contents,
                len(lookups.by_doc) <= few_docs, max(depth, top_k), top_k, lookups.docs_of)


def query_terms(q: Query, kw: keyword.KeywordIndex) -> list[keyword.Term]:
    """The keyword terms of a parsed query: the stems of its loose words and phrases
    (a prefix made one the index can match: :meth:`.keyword.KeywordIndex.complete_prefix`),
    and for each identifier its term as typed (when some page holds it) and its
    word stems; each word of an adjacent pair also matching the pair written closed up
    (:func:`_joined`); at most :data:`.keyword.MAX_TERMS`."""
    if not q.identifiers:
        return _joined([kw.complete_prefix(t) for t in keyword.parse_query(q.text)], q, kw)
    terms = keyword.parse_query(" ".join(q.loose + q.phrases)) \
        if (q.loose or q.phrases) else []
    terms = _joined([kw.complete_prefix(t) for t in terms], q, kw)
    for ident, typed in zip(q.identifiers, q.identifier_words):
        # the identifier as typed, and its words as before (they find the pages that
        # print it another way: "ResNet 50", "arXiv: 1706.03762")
        got = ([keyword.Term(ident, ident=True)] if kw.has_ident(ident) else []) + \
            keyword.parse_query(typed)
        terms.extend(t for t in got if t not in terms)
    return terms[: keyword.MAX_TERMS]


def _joined(terms: list[keyword.Term], q: Query, kw: keyword.KeywordIndex
            ) -> list[keyword.Term]:
    """``terms`` with the closed-up spellings of adjacent words that the index holds
    (:func:`.keyword.join_pairs`), pairs taken inside the loose words and inside each
    phrase (not across them)."""
    for text in (" ".join(q.loose or q.words), *q.phrases):
        terms = keyword.join_pairs(terms, text, kw.has_stem)
    return terms


def identifier_query(q: Query) -> bool:
    """True when identifiers carry the query: it has one, and at most one other word
    that is not a common function word ("1706.03762", "arXiv 1706.03762"). In a
    longer question ("top-1 error of a ResNet-50 baseline") an identifier is one
    word among others and ranks as one (bench/README.md)."""
    if not q.identifiers:
        return False
    others = [w for w in q.loose + q.phrases
              if w.casefold() not in keyword.STOPWORDS and any(c.isalnum() for c in w)]
    return len(others) <= 1
