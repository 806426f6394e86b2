"""The keyword arm's query side and cross-document math: safe query parsing, per-document
BM25 rankings compared across documents, and their fusion into one list.

No user text is ever handed to FTS5's query parser, so no input can raise: the query is
tokenised exactly like the index (``fts_text()`` then FTS5's own ``porter unicode61
remove_diacritics 2`` tokenizer, read back through an in-memory fts5vocab table) into
terms (:class:`Term`). The index that ranks them, :class:`pdftui.store.text_index.KeywordIndex`
(the SQLite backend of :class:`pdftui.store.protocols.TextIndex`), lives in
:mod:`pdftui.store.text_index`: it reads each term's rows and counts from the cache's
``postings`` with bound parameters and returns a :class:`Ranking`. A trailing ``*`` on a
word (``fin*``) is a prefix term: it matches every indexed term in ``['fin', 'fio')``,
counted as one term, as FTS5 does.

Scoring is Okapi BM25 (Robertson & Spärck Jones; Robertson & Zaragoza, "The Probabilistic
Relevance Framework: BM25 and Beyond", 2009) in the form of SQLite FTS5's ``bm25()`` with
Lucene's always-positive idf (:mod:`pdftui.search.bm25`)::

    idf(t)   = ln(1 + (N - df + 0.5) / (df + 0.5))
    score(p) = sum_t idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))

with k1 = 1.2, b = 0.75, and DOCUMENT-LOCAL statistics: N = the document's pages, df = its
pages containing t, avgdl = its mean ``pages.n_tokens``, dl = the page's ``n_tokens``. A
document's internal ranking therefore never depends on which other PDFs share the cache.
Sections use the same formula with FTS5's column weighting: tf = w_title * tf_title + tf_body
and dl = the section's ``n_tokens`` (title + body).

The search service adds term proximity to that score (``KeywordIndex._add_proximity``: a
row holding two consecutive query terms close together gains a share of their idf), so its
pages are BM25 plus a proximity term, still with document-local statistics only.

Across documents nothing above is compared. Documents are compared by :func:`doc_bm25`
(the same BM25 with each document as one unit and the folder's documents as the
collection, query pairs found close together counting as terms of their own) and rows by
:func:`query_rarity_share` (their share of the query's idf mass, the rare-word share); both
use one set of statistics for every document in scope. With ``KeywordIndex.decompound`` a
closed compound in the query (``feedforward``) also matches its open or hyphenated form
(``feed-forward``) as an adjacent pair (``KeywordIndex._split_rows``).
"""

from __future__ import annotations

import functools
import math
import re
import sqlite3
import threading
import unicodedata
from dataclasses import dataclass

import numpy as np

from ..store.tokenizer import CJK_RE as _CJK_RE, tokens, tokens_many
from . import bm25, fusion

K1 = 1.2
B = 0.75
MAX_QUERY_CHARS = 1000
MAX_TERMS = 32

#: Very common English function words and question words, dropped from queries (unless a
#: query has nothing else). Kept lower-case and unstemmed; compared after stemming.
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves get gets got
""".split())

_CTRL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]")
_PREFIX_RE = re.compile(r"(\w+)\*")


@dataclass(frozen=True, slots=True)
class Term:
    """One query term as indexed: a porter stem (``prefix`` False) or an unstemmed,
    case-folded, diacritic-free prefix (``prefix`` True, matches terms starting with it,
    and ``stems``, indexed stems of the word being typed that do not start with it: the
    index holds stems, so ``scaled*`` must match "scale" and ``bus*`` "bu", or a word
    typed in full before its space would find nothing). A CJK bigram has ``parts``, its two
    characters (each indexed as a token of its own), and matches only where they are
    adjacent; ``text`` is the two joined. An identifier (``ident`` True) is matched as
    typed (:mod:`pdftui.identifiers`). ``joined`` are the indexed stems of this word
    written closed up with its neighbour in the query (``big`` of "big bird": ``bigbird``,
    from BigBird or BIGBIRD): their occurrences count as occurrences of this term
    (:func:`join_pairs`)."""

    text: str
    prefix: bool = False
    parts: tuple[str, ...] = ()
    ident: bool = False
    stems: tuple[str, ...] = ()
    joined: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.text + ("*" if self.prefix else "")

    def matches(self, indexed: str) -> bool:
        """Does the indexed term (a porter stem) ``indexed`` match this query term?"""
        if self.prefix:
            return indexed.startswith(self.text) or indexed in self.stems
        return indexed == self.text or indexed in self.joined

    def held_in(self, stems: set[str] | frozenset[str]) -> bool:
        """Does a text whose stem set is ``stems`` hold this term?"""
        if self.prefix:
            return any(self.matches(x) for x in stems)
        return self.text in stems or (bool(self.joined) and not stems.isdisjoint(self.joined))


# -- tokenising like the index ----------------------------------------------------------------
_local = threading.local()


def clean_query(text: object) -> str:
    """Any value -> a bounded, printable string (NFKC, control characters and lone
    surrogates replaced by spaces, at most ``MAX_QUERY_CHARS`` characters)."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = text[: MAX_QUERY_CHARS * 2]
    text = text.encode("utf-8", "replace").decode("utf-8", "replace")
    text = _CTRL_RE.sub(" ", text)
    text = unicodedata.normalize("NFKC", text)
    return text[:MAX_QUERY_CHARS]


def tokenize(text: str, stem: bool = True) -> list[str]:
    """FTS5's own tokens of the cleaned query text (:func:`clean_query`), in order, porter
    stems when ``stem``: :func:`pdftui.store.tokenizer.tokens`, the index's tokenizer."""
    return tokens(clean_query(text), stem)


def tokenize_many(texts: list[str], only: list[Term] | None = None) -> list[set[str]]:
    """Distinct porter stems of each cleaned text (:func:`clean_query`); with ``only``,
    just those matching the query terms (:func:`pdftui.store.tokenizer.tokens_many`)."""
    return tokens_many([clean_query(t) for t in texts], only)


#: A run of CJK characters (each indexed as a token: :func:`pdftui.store.tokenizer.fts_text`).
_CJK_RUN_RE = re.compile("(?:" + _CJK_RE.pattern + ")+")


def cjk_terms(run: str) -> list[Term]:
    """Terms of a run of CJK characters: one unigram for a single character, else the
    overlapping bigrams (``天气预报`` -> 天气, 气预, 预报), each matched as an adjacent pair,
    so a word matches where its characters stand together, not wherever they both occur
    (overlapping-bigram indexing of CJK text: Kwok, "Comparing representations in Chinese
    information retrieval", SIGIR 1997)."""
    chars = [c for ch in run for c in tokenize(ch, stem=False)[:1]]
    if len(chars) == 1:
        return [Term(chars[0])]
    return [Term(a + b, parts=(a, b)) for a, b in zip(chars, chars[1:])]


def _word_terms(text: str) -> list[Term]:
    """Index terms of query text without prefix syntax: its stems, and for each run of
    CJK characters its :func:`cjk_terms`."""
    out: list[Term] = []
    pos = 0
    for m in _CJK_RUN_RE.finditer(text):
        out.extend(Term(tok) for tok in tokenize(text[pos:m.start()]))
        out.extend(cjk_terms(m.group()))
        pos = m.end()
    out.extend(Term(tok) for tok in tokenize(text[pos:]))
    return out


def _stem_stopwords() -> frozenset[str]:
    cached = getattr(_local, "stops", None)
    if cached is None:
        cached = frozenset(t for w in STOPWORDS for t in tokenize(w))
        _local.stops = cached
    return cached


def parse_query(text: object, stopwords: bool = True) -> list[Term]:
    """User text -> distinct index terms, in query order. Never raises.

    FTS5 syntax has no meaning here: quotes, brackets, colons, ``AND``/``OR``/``NOT``/
    ``NEAR``, ``^`` and ``-`` are all just separators or words; hyphenated compounds
    (``multi-head``) become their component terms (``multi``, ``head``). ``word*`` is a prefix
    term. With ``stopwords``, common function words are dropped unless nothing else is left.
    At most ``MAX_TERMS`` terms are kept.
    """
    try:
        clean = clean_query(text)
        terms: list[Term] = []
        seen: set[Term] = set()

        def add(t: Term) -> None:
            if t.text and t not in seen:
                seen.add(t)
                terms.append(t)

        pos = 0
        for m in _PREFIX_RE.finditer(clean):
            for t in _word_terms(clean[pos:m.start()]):
                add(t)
            if _CJK_RUN_RE.search(m.group(1)[-1]):  # "信用评级*": no prefix in CJK
                for t in _word_terms(m.group(1)):
                    add(t)
                pos = m.end()
                continue
            plain = tokenize(m.group(1), stem=False)
            for tok in plain[:-1]:
                add(Term(tokenize(tok)[0] if tokenize(tok) else tok))
            if plain:
                own = tokenize(plain[-1])
                stems = (own[0],) if own and not own[0].startswith(plain[-1]) else ()
                add(Term(plain[-1], prefix=True, stems=stems))
            pos = m.end()
        for t in _word_terms(clean[pos:]):
            add(t)
        if stopwords:
            stops = _stem_stopwords()
            kept = [t for t in terms if t.prefix or t.text not in stops]
            if kept:
                terms = kept
        return terms[:MAX_TERMS]
    except (sqlite3.Error, ValueError, UnicodeError):
        return []


def joined_pairs(text: str) -> list[tuple[str, str, str]]:
    """``[(stem of a, stem of b, stem of a + b)]`` for each pair of adjacent words ``a b`` of
    the query text that are letters only, typed in full (no ``*``) and no common function
    word: the closed-up spelling each open one may also be written in ("big bird",
    "Big-Bird": ``bigbird``)."""
    pairs: list[tuple[str, str]] = []
    for chunk in re.split(r"\w+\*", clean_query(text)):
        words = tokenize(chunk, stem=False)
        pairs.extend((a, b) for a, b in zip(words, words[1:])
                     if a.isalpha() and b.isalpha() and a not in STOPWORDS
                     and b not in STOPWORDS and not _CJK_RE.search(a + b))
    if not pairs:
        return []
    words = sorted({w for a, b in pairs for w in (a, b, a + b)})
    stems = dict(zip(words, tokenize_many(words)))   # one round trip for them all
    out: list[tuple[str, str, str]] = []
    for a, b in pairs:
        sa, sb, sj = stems[a], stems[b], stems[a + b]
        if len(sa) == len(sb) == len(sj) == 1:
            out.append((next(iter(sa)), next(iter(sb)), next(iter(sj))))
    return out


def join_pairs(terms: list[Term], text: str, known) -> list[Term]:
    """``terms`` (of ``text``, :func:`parse_query`) with each word of an adjacent pair
    (:func:`joined_pairs`) given the pair's closed-up stem as ``joined`` when
    ``known(stem)`` (the index holds it): "flash attention" then also matches pages
    writing FlashAttention, and such a page holds both of the query's words, as the index
    keeps a camel-case or all-caps word whole. The other way round (a closed-up query word
    matching the open form) is :meth:`pdftui.store.text_index.KeywordIndex.term_rows`'
    decompounding. Query expansion by compound variants, counted as the same term (the
    way a synonym query counts its forms: one df, summed tf)."""
    extra: dict[str, list[str]] = {}
    for a, b, j in joined_pairs(text):
        if j not in (a, b) and known(j):
            for x in (a, b):
                if j not in extra.setdefault(x, []):
                    extra[x].append(j)
    if not extra:
        return terms
    return [Term(t.text, t.prefix, t.parts, t.ident, t.stems, t.joined + tuple(
        j for j in extra[t.text] if j not in t.joined))
        if not (t.prefix or t.parts or t.ident) and t.text in extra else t for t in terms]


def only_stopwords(terms: list[Term]) -> bool:
    """True when every term of a parsed query is a common function word ("the of and"):
    :func:`parse_query` keeps them only because nothing else was left."""
    stops = _stem_stopwords()
    return bool(terms) and all(not t.prefix and t.text in stops for t in terms)


def distinct(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` by one sort (numpy's hash-based unique is slow on wide int64 keys:
    2.7 s against 35 ms for 700,000 keys here)."""
    s = np.sort(a, kind="stable")
    return s[np.concatenate([[True], s[1:] != s[:-1]])] if len(s) else s


def member(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.isin(a, b)`` for wide int64 keys, by sorting ``b`` and binary search."""
    if not len(b):
        return np.zeros(len(a), dtype=bool)
    bs = np.sort(b)
    i = np.minimum(np.searchsorted(bs, a), len(bs) - 1)
    return bs[i] == a


def _row_sums(pos: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct positions ascending, float64 sum of w at each)``; positions already
    strictly increasing (one term's postings, content by content) are taken as they are."""
    if len(pos) < 2 or bool((pos[1:] > pos[:-1]).all()):
        return pos, w.astype(np.float64)
    idx, inv = np.unique(pos, return_inverse=True)
    return idx, np.bincount(inv.reshape(-1), weights=w).astype(np.float64)


# -- per-document BM25 ------------------------------------------------------------------------
def _bits(mask: int, n: int) -> list[int]:
    return [k for k in range(n) if mask >> k & 1]


def mask_sums(masks: np.ndarray, weights: list[float]) -> np.ndarray:
    """``math.fsum(weights[k] for each bit k set in the mask)`` of every uint64 mask of
    ``masks``, as float64: one exact sum per distinct mask (rows share few term sets)."""
    if not len(masks):
        return np.zeros(0)
    u, inv = np.unique(masks, return_inverse=True)
    vals = np.array([math.fsum(weights[k] for k in _bits(m, len(weights)))
                     for m in u.tolist()])
    return vals[inv.reshape(-1)]


def _count_matrix(found: list[tuple[int, np.ndarray]], n_cols: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``(contents, counts)`` from ``[(column, content of each row)]``: the distinct
    contents ascending and, per column, how many rows each one has."""
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros((0, n_cols))
    content = distinct(np.concatenate([c for _k, c in found]))
    counts = np.zeros((len(content), n_cols))
    for k, c in found:
        u, n = np.unique(c, return_counts=True)
        counts[np.searchsorted(content, u), k] += n
    return content, counts


def _rows_for(doc_content: np.ndarray, table: tuple[np.ndarray, np.ndarray] | None
              ) -> np.ndarray:
    """The rows of ``table`` (``(contents ascending, matrix)``) for ``doc_content``, zeros
    for a content it lacks."""
    if table is None or not len(table[0]):
        n_cols = 0 if table is None else table[1].shape[1]
        return np.zeros((len(doc_content), n_cols))
    content, matrix = table
    j = np.minimum(np.searchsorted(content, doc_content), len(content) - 1)
    return np.where((content[j] == doc_content)[:, None], matrix[j], 0.0)


class Ranking:
    """The keyword arm's answer for one query, as numpy arrays over the matching rows.

    Rows (pages or sections) are grouped by content (ascending) and best first inside it
    by document-local BM25 (equal scores by row id): ``ids`` (pages.id / sections.id),
    ``pos`` (their positions in the :class:`Unit` arrays), ``content``, ``score`` (BM25)
    and ``mask`` (uint64: bit k set when the row holds ``keys[k]``, the distinct query
    terms as strings). Content ``doc_content[j]``'s rows are ``doc_start[j]`` up to the
    next start; ``doc_tfm[j, k]`` is term k's weighted tf over all its rows (0: absent);
    ``length`` the tokens of every content, dense by content id. ``doc_pair_tf[j, k]``
    counts content ``doc_content[j]``'s rows holding the query's k-th proximity pair
    (:meth:`KeywordIndex._add_proximity`), which :func:`doc_bm25` weighs by
    ``pair_weight``.

    The dictionaries of earlier versions (``per_doc``, ``scores``, ``row_terms``,
    ``doc_terms``, ``doc_tf``, ``doc_len``) are built on first read, for callers that
    want them; the search service never reads them.
    """

    def __init__(self, terms: list[Term], keys: list[str], ids: np.ndarray, pos: np.ndarray,
                 content: np.ndarray, score: np.ndarray, mask: np.ndarray,
                 tf_content: np.ndarray, tfm: np.ndarray, length: np.ndarray,
                 totals: dict[int, float], pairs: tuple[np.ndarray, np.ndarray] | None = None,
                 pair_weight: float = 0.0):
        self.terms, self.keys = terms, keys
        self.ids, self.pos, self.content, self.score, self.mask = ids, pos, content, score, mask
        change = np.flatnonzero(np.diff(content)) + 1 if len(content) else content
        self.doc_start = np.concatenate([[0], change]).astype(np.int64) if len(content) \
            else np.zeros(0, dtype=np.int64)
        self.doc_content = content[self.doc_start]
        self.doc_end = np.append(self.doc_start[1:], len(content)).astype(np.int64)
        self.doc_mask = np.bitwise_or.reduceat(mask, self.doc_start) if len(content) \
            else np.zeros(0, dtype=np.uint64)
        j = np.searchsorted(tf_content, self.doc_content)
        self.doc_tfm = tfm[j] if len(j) else np.zeros((0, len(keys)))
        self.doc_pair_tf = _rows_for(self.doc_content, pairs)
        self.pair_weight = pair_weight
        self.length = length
        self._totals = totals

    @classmethod
    def empty(cls, terms: list[Term], keys: list[str], length: np.ndarray | None = None,
              totals: dict[int, float] | None = None) -> "Ranking":
        z = np.zeros(0, dtype=np.int64)
        return cls(terms, keys, z, z, z, np.zeros(0), np.zeros(0, dtype=np.uint64), z,
                   np.zeros((0, len(keys))), np.zeros(0) if length is None else length,
                   totals or {})

    def subset(self, keep: np.ndarray) -> "Ranking":
        """The ranking with only the rows where boolean ``keep`` is True (document term
        frequencies are kept as they were: they count every matching row)."""
        return Ranking(self.terms, self.keys, self.ids[keep], self.pos[keep],
                       self.content[keep], self.score[keep], self.mask[keep],
                       self.doc_content, self.doc_tfm, self.length, self._totals,
                       (self.doc_content, self.doc_pair_tf), self.pair_weight)

    def _key_sets(self, masks: np.ndarray) -> list[frozenset[str]]:
        memo: dict[int, frozenset[str]] = {}
        out = []
        for m in masks.tolist():
            got = memo.get(m)
            if got is None:
                got = memo[m] = frozenset(self.keys[k] for k in _bits(m, len(self.keys)))
            out.append(got)
        return out

    @functools.cached_property
    def per_doc(self) -> dict[int, list[int]]:
        """``{content: [row ids best first]}``."""
        return {c: self.ids[a:b].tolist() for c, a, b in zip(
            self.doc_content.tolist(), self.doc_start.tolist(), self.doc_end.tolist())}

    @functools.cached_property
    def scores(self) -> dict[int, float]:
        """``{row id: BM25}``."""
        return dict(zip(self.ids.tolist(), self.score.tolist()))

    @functools.cached_property
    def row_terms(self) -> dict[int, frozenset[str]]:
        """``{row id: the query terms it holds}``."""
        return dict(zip(self.ids.tolist(), self._key_sets(self.mask)))

    @functools.cached_property
    def doc_terms(self) -> dict[int, frozenset[str]]:
        """``{content: the query terms its rows hold}``."""
        return dict(zip(self.doc_content.tolist(), self._key_sets(self.doc_mask)))

    @functools.cached_property
    def doc_tf(self) -> dict[int, dict[str, float]]:
        """``{content: {term: weighted tf over its matching rows}}``."""
        return {c: {self.keys[k]: float(row[k]) for k in range(len(self.keys)) if row[k] > 0}
                for c, row in zip(self.doc_content.tolist(), self.doc_tfm)}

    @property
    def doc_len(self) -> dict[int, float]:
        """``{content: tokens}`` of every content of the granularity."""
        return self._totals


def restrict(ranking: Ranking, keep: set[int] | None = None,
             drop: set[int] | frozenset[int] = frozenset()) -> Ranking:
    """The ranking with only the rows in ``keep`` (None: all) and none in ``drop``
    (row ids: pages.id or sections.id). Each document's order is kept; documents left
    without rows are gone; document term sets are recomputed from the rows left."""
    if keep is None and not drop:
        return ranking

    def arr(ids) -> np.ndarray:
        return np.fromiter(ids, dtype=np.int64, count=len(ids))

    ok = np.ones(len(ranking.ids), dtype=bool)
    if keep is not None:
        ok &= np.isin(ranking.ids, arr(keep))
    if drop:
        ok &= ~np.isin(ranking.ids, arr(drop))
    return ranking.subset(ok)


@dataclass
class Scope:
    """The documents in scope (``{doc: content id}``, in the caller's order) against one
    ranking: ``names``, their ``content`` ids, and ``row`` = each one's index into
    ``ranking.doc_content`` (-1 for a document that matched nothing)."""

    names: list[str]
    content: np.ndarray
    row: np.ndarray

    @classmethod
    def of(cls, ranking: Ranking, docs: dict[str, int]) -> "Scope":
        names = list(docs)
        cids = np.fromiter(docs.values(), dtype=np.int64, count=len(names))
        dc = ranking.doc_content
        if not len(dc):
            return cls(names, cids, np.full(len(names), -1, dtype=np.int64))
        j = np.minimum(np.searchsorted(dc, cids), len(dc) - 1)
        return cls(names, cids, np.where(dc[j] == cids, j, -1))


def _scope(ranking: Ranking, docs) -> Scope:
    return docs if isinstance(docs, Scope) else Scope.of(ranking, docs)


def _key_df(ranking: Ranking, sc: Scope) -> np.ndarray:
    """Per distinct query term: the documents in scope (by name) whose content holds it."""
    found = sc.row[sc.row >= 0]
    return (ranking.doc_tfm[found] > 0).sum(axis=0) if len(found) else \
        np.zeros(len(ranking.keys), dtype=np.int64)


def _exact_row_sums(x: np.ndarray) -> np.ndarray:
    """Row sums of a 2-d float64 array with a compensated sum over the columns (Ogita,
    Rump & Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 2005, Sum2): the
    correctly rounded sum, as :func:`math.fsum` gives, for all but pathological inputs."""
    if not x.shape[1]:
        return np.zeros(len(x))
    s = x[:, 0].copy()
    c = np.zeros(len(x))
    for j in range(1, x.shape[1]):
        v = x[:, j]
        t = s + v
        z = t - s
        c += (s - (t - z)) + (v - z)
        s = t
    return s + c


def doc_bm25_array(ranking: Ranking, docs, k1: float = K1, b: float = B) -> np.ndarray:
    """:func:`doc_bm25` as a float64 array over the documents of ``docs`` (a dict or a
    :class:`Scope`), NaN for a document that matched nothing."""
    sc = _scope(ranking, docs)
    n = len(sc.names)
    out = np.full(n, np.nan)
    if not n:
        return out
    lens = ranking.length[np.minimum(sc.content, len(ranking.length) - 1)] \
        if len(ranking.length) else np.zeros(n)
    lens = np.where((sc.content >= 0) & (sc.content < len(ranking.length)), lens, 0.0)
    avgdl = (float(np.cumsum(lens)[-1]) / n) or 1.0   # cumsum: the order sum() adds in
    idf = np.array(bm25.idfs(n, _key_df(ranking, sc).tolist()))
    hit = np.flatnonzero(sc.row >= 0)
    if not len(hit):
        return out
    tf = ranking.doc_tfm[sc.row[hit]]
    norm = k1 * (1 - b + b * lens[hit] / avgdl)
    if ranking.pair_weight > 0 and ranking.doc_pair_tf.shape[1]:
        pair_tf = ranking.doc_pair_tf[sc.row[hit]]
        held = ranking.doc_pair_tf[sc.row[sc.row >= 0]] > 0
        pair_idf = ranking.pair_weight * np.array(bm25.idfs(n, held.sum(axis=0).tolist()))
        tf = np.concatenate([tf, pair_tf], axis=1)
        idf = np.concatenate([idf, pair_idf])
    with np.errstate(invalid="ignore", divide="ignore"):
        part = np.where(tf > 0, idf[None, :] * tf * (k1 + 1) / (tf + norm[:, None]), 0.0)
    out[hit] = _exact_row_sums(part)
    return out


def doc_bm25(ranking: Ranking, docs: dict[str, int], k1: float = K1, b: float = B
             ) -> dict[str, float]:
    """BM25 of each document as one unit, with statistics over the documents in ``docs``.

    tf = the term's occurrences in the whole document, dl = the document's tokens,
    N = documents in scope, df = those containing the term, idf in the Lucene form
    ln(1 + (N - df + 0.5)/(df + 0.5)). With a ranking made with ``doc_proximity`` > 0,
    each pair of consecutive query terms found close together counts as one more term
    (tf = the document's rows holding it, df = the documents holding it, its weight x
    ``doc_proximity``; after Metzler & Croft's sequential dependence model, SIGIR 2005).
    Compares documents with one set of statistics, never per-document page scores.
    Documents matching nothing are absent.
    """
    got = doc_bm25_array(ranking, docs, k1, b)
    return {d: float(v) for d, v in zip(docs, got.tolist()) if not math.isnan(v)}


def row_rarity_share(ranking: Ranking, docs, extra: np.ndarray | None = None) -> np.ndarray:
    """:func:`query_rarity_share` (``doc_share`` 0) as a float64 array over the ranking's rows;
    ``extra`` (uint64 per row, bits as ``Ranking.mask``) adds terms a row counts as
    holding besides its own."""
    sc = _scope(ranking, docs)
    n = len(sc.names)
    if not n or not ranking.terms:
        return np.zeros(len(ranking.ids))
    idf = bm25.idfs(n, _key_df(ranking, sc).tolist())
    keys = ranking.keys
    total = math.fsum(idf[keys.index(str(t))] for t in ranking.terms) or 1.0
    mask = ranking.mask if extra is None else ranking.mask | extra
    return mask_sums(mask, idf) / total


def term_weights(ranking: Ranking, docs) -> dict[str, float]:
    """``{str(term): idf}`` of the ranking's query terms: the rarity weights of
    :func:`row_rarity_share` (idf over the documents in scope), {} without documents."""
    sc = _scope(ranking, docs)
    if not len(sc.names) or not ranking.keys:
        return {}
    return dict(zip(ranking.keys, bm25.idfs(len(sc.names), _key_df(ranking, sc).tolist())))


def query_rarity_share(ranking: Ranking, docs: dict[str, int], doc_share: float = 0.0
                   ) -> dict[int, float]:
    """Each matched row's share of the query's rarity mass: ``sum of idf(t) over the query
    terms the row contains / sum of idf(t) over all query terms``, in [0, 1].

    idf(t) = ln(1 + (N - df + 0.5)/(df + 0.5)) over the documents in scope (N documents, df
    of them containing t; a term found nowhere has df = 0, the largest idf). A page holding
    the rare words of the query scores near 1; a page matching only common ones near 0.
    This is a post-retrieval query-performance signal (how much of the query the keyword
    arm could match at all), used to weight the keyword arm's contribution in hybrid
    fusion; it compares rows by which query words they hold, never by BM25 scores.
    ``{row id: share}``; the search service reads :func:`row_rarity_share` (the same, as an
    array over the rows).
    """
    if not len(docs) or not ranking.terms:
        return {}
    out = dict(zip(ranking.ids.tolist(), row_rarity_share(ranking, docs).tolist()))
    if doc_share > 0:
        sc = _scope(ranking, docs)
        idf = bm25.idfs(len(docs), _key_df(ranking, sc).tolist())
        total = math.fsum(idf[ranking.keys.index(str(t))] for t in ranking.terms) or 1.0
        for j, (a, b) in enumerate(zip(ranking.doc_start.tolist(), ranking.doc_end.tolist())):
            held = int(ranking.doc_mask[j])
            for r, m in zip(ranking.ids[a:b].tolist(), ranking.mask[a:b].tolist()):
                rest = held & ~m
                if rest:
                    out[r] = min(1.0, out.get(r, 0.0) + doc_share * math.fsum(
                        idf[k] for k in _bits(rest, len(idf))) / total)
    return out


def _rarity(masks: np.ndarray, n_keys: int) -> tuple[np.ndarray, list[float]]:
    """:func:`fusion.rarity_coverage` of documents given by their term masks (every one
    matched something): sum over held terms of log(1 + N / df); and those weights."""
    n = len(masks)
    df = [int(np.count_nonzero(masks & np.uint64(1 << k))) for k in range(n_keys)]
    w = [math.log(1.0 + n / d) if d else 0.0 for d in df]
    return mask_sums(masks, w), w


def doc_order_array(ranking: Ranking, docs) -> np.ndarray:
    """Indexes (into the scope's names) of the documents that matched, best first (see
    :func:`doc_order`)."""
    sc = _scope(ranking, docs)
    hit = np.flatnonzero(sc.row >= 0)
    if not len(hit):
        return hit
    cov, _w = _rarity(ranking.doc_mask[sc.row[hit]], len(ranking.keys))
    sig = doc_bm25_array(ranking, sc)[hit]
    return hit[np.lexsort((hit, sc.content[hit], -cov, -sig))]


def doc_order(ranking: Ranking, docs: dict[str, int]) -> list[str]:
    """Documents that matched, best first by :func:`doc_bm25`; ties by
    :func:`fusion.rarity_coverage`, then content id."""
    names = list(docs)
    return [names[i] for i in doc_order_array(ranking, docs).tolist()]


@dataclass
class Fused:
    """Stage 1 as arrays, best first: item i is row ``row[i]`` of the ranking (an index
    into its arrays) for document ``names[doc[i]]``, with RRF score ``score[i]``."""

    names: list[str]
    doc: np.ndarray
    row: np.ndarray
    score: np.ndarray

    def __len__(self) -> int:
        return len(self.row)


def fuse_arrays(ranking: Ranking, docs, tiebreak: str = "page_coverage",
                doc_weight: float = 1.0, doc_k: int = fusion.K) -> Fused:
    """:func:`fuse` as a :class:`Fused` (no Python object per row)."""
    sc = _scope(ranking, docs)
    hit = np.flatnonzero(sc.row >= 0)
    if not len(hit):
        z = np.zeros(0, dtype=np.int64)
        return Fused(sc.names, z, z, np.zeros(0))
    doc_cov, w = _rarity(ranking.doc_mask[sc.row[hit]], len(ranking.keys))
    cov_of = np.zeros(len(sc.names))
    cov_of[hit] = doc_cov
    # documents by content id (stable: the caller's order), each with its rows in order
    dorder = hit[np.argsort(sc.content[hit], kind="stable")]
    j = sc.row[dorder]
    counts = ranking.doc_end[j] - ranking.doc_start[j]
    doc = np.repeat(dorder, counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    rank = np.arange(len(doc)) - first + 1
    row = np.repeat(ranking.doc_start[j], counts) + rank - 1
    pc = mask_sums(ranking.mask, w)[row]
    dcov = cov_of[doc]
    tb = {"doc_coverage": (dcov, pc), "page_coverage": (pc, dcov),
          "doc_then_bm25": (dcov, ranking.score[row])}.get(tiebreak, (np.zeros(len(row)),))
    seq = np.arange(len(row))
    drank = np.zeros(len(sc.names), dtype=np.int64)
    drank[doc_order_array(ranking, sc)] = np.arange(1, len(hit) + 1)
    score = 1.0 / (fusion.K + rank) + doc_weight / (doc_k + drank[doc])
    keys = (seq,) + tuple(-t for t in reversed(tb)) + (-score,)
    o = np.lexsort(keys)
    return Fused(sc.names, doc[o], row[o], score[o])


def fuse(ranking: Ranking, docs: dict[str, int], tiebreak: str = "page_coverage",
         doc_weight: float = 1.0, doc_k: int = fusion.K
         ) -> list[tuple[tuple[str, int], float]]:
    """Stage 1: one cross-corpus list of ``((doc, row id), rrf score)`` best first.

    ``docs`` maps each document in scope to its content id (two documents with the same
    bytes both appear). Two lists are fused (two-list RRF): each row scores ``1/(60 + its
    rank inside its own document) + doc_weight/(doc_k + its document's rank)``, documents
    ranked by :func:`doc_bm25` (:func:`doc_order`), which lets a strong document's second
    page outrank a weak document's best one. Equal scores are ordered by ``tiebreak``:

    - "doc_coverage": the document's rarity-weighted coverage (:func:`fusion.rarity_coverage`
      over documents matched), then the row's own BM25-free coverage;
    - "page_coverage": the row's own rarity-weighted coverage, then the document's;
    - "doc_then_bm25": the document's coverage, then the row's BM25 score;
    - "none": content order only (for measurement).
    Remaining ties go by content id (insertion order in the cache), never by path. The
    defaults are what the search service uses, which reads :func:`fuse_arrays` (the same
    list as arrays).
    """
    f = fuse_arrays(ranking, docs, tiebreak, doc_weight, doc_k)
    ids = ranking.ids[f.row].tolist()
    return [((f.names[d], r), s) for d, r, s in zip(f.doc.tolist(), ids, f.score.tolist())]
