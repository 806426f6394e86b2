"""The keyword arm: safe query parsing and per-document BM25 over the cache's FTS5 data.

No user text is ever handed to FTS5's query parser, so no input can raise: the query is
tokenised exactly like the index (``fts_text()`` then FTS5's own ``porter unicode61
remove_diacritics 2`` tokenizer, read back through an in-memory fts5vocab table), and each
term's rows and counts are read from the cache's ``postings`` (:mod:`pdftui.postings`: one
packed array per content holding the term) with bound parameters; positions, which only
compounds and phrases need, come from the ``pages_fts_instance`` /
``sections_fts_instance`` fts5vocab tables. A trailing ``*`` on a word (``fin*``) is a prefix term: it
matches every indexed term in ``['fin', 'fio')``, counted as one term, as FTS5 does.

Scoring is Okapi BM25 (Robertson & Spärck Jones; Robertson & Zaragoza, "The Probabilistic
Relevance Framework: BM25 and Beyond", 2009) in the exact form of SQLite FTS5's ``bm25()``::

    idf(t)   = ln((N - df + 0.5) / (df + 0.5)), replaced by 1e-6 when <= 0
    score(p) = sum_t idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))

with k1 = 1.2, b = 0.75, and DOCUMENT-LOCAL statistics: N = the document's pages, df = its
pages containing t, avgdl = its mean ``pages.n_tokens``, dl = the page's ``n_tokens``. A
document's internal ranking therefore never depends on which other PDFs share the cache.
Sections use the same formula with FTS5's column weighting: tf = w_title * tf_title + tf_body
and dl = the section's ``n_tokens`` (title + body).

The search service adds term proximity to that score (:meth:`KeywordIndex._add_proximity`:
a row holding two consecutive query terms close together gains a share of their idf), so
its pages are BM25 plus a proximity term, still with document-local statistics only.

Across documents nothing above is compared. Documents are compared by :func:`doc_bm25`
(the same BM25 with each document as one unit and the folder's documents as the
collection, query pairs found close together counting as terms of their own) and rows by :func:`query_coverage` (their share of the query's idf mass); both
use one set of statistics for every document in scope. With ``KeywordIndex.decompound`` a
closed compound in the query (``feedforward``) also matches its open or hyphenated form
(``feed-forward``) as an adjacent pair (:meth:`KeywordIndex._split_rows`).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import sqlite3
import threading
import unicodedata
from dataclasses import dataclass, field

import numpy as np

from .. import postings
from ..cache import _CJK_RE, fts_rows, fts_text
from . import fusion

K1 = 1.2
B = 0.75
MAX_QUERY_CHARS = 1000
MAX_TERMS = 32
TITLE_WEIGHT = 4.0
#: A search over at most this many contents reads only their postings.
_FEW_CONTENTS = 500
#: Tokens tokenised again that cost as much as one occurrence read from FTS5's instance
#: table (measured on the corpus: ~0.2 against ~1.8 microseconds), and the most rows a
#: compound split is matched in by tokenising them again.
_STAGE_RATIO = 8
_STAGE_ROWS = 500
"""Section-title column weight relative to the body (measured by bench/quality.py)."""

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
_TOKENIZER = "porter unicode61 remove_diacritics 2"
_PLAIN_TOKENIZER = "unicode61 remove_diacritics 2"


@dataclass(frozen=True, slots=True)
class Term:
    """One query term as indexed: a porter stem (``prefix`` False) or an unstemmed,
    case-folded, diacritic-free prefix (``prefix`` True, matches terms starting with it,
    and ``stems``, indexed stems of the word being typed that do not start with it: the
    index holds stems, so ``scaled*`` must match "scale" and ``bus*`` "bu", or a word
    typed in full before its space would find nothing). A CJK bigram has ``parts``, its two
    characters (each indexed as a token of its own), and matches only where they are
    adjacent; ``text`` is the two joined. An identifier (``ident`` True) is matched as
    typed (:mod:`pdftui.identifiers`)."""

    text: str
    prefix: bool = False
    parts: tuple[str, ...] = ()
    ident: bool = False
    stems: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.text + ("*" if self.prefix else "")

    def matches(self, indexed: str) -> bool:
        """Does the indexed term (a porter stem) ``indexed`` match this query term?"""
        if self.prefix:
            return indexed.startswith(self.text) or indexed in self.stems
        return indexed == self.text


# -- tokenising like the index ----------------------------------------------------------------
_local = threading.local()


def _tok_db() -> sqlite3.Connection:
    db = getattr(_local, "db", None)
    if db is None:
        db = sqlite3.connect(":memory:", isolation_level=None)
        db.execute(f"CREATE VIRTUAL TABLE q USING fts5(t, tokenize='{_TOKENIZER}')")
        db.execute("CREATE VIRTUAL TABLE qv USING fts5vocab(q, 'instance')")
        db.execute(f"CREATE VIRTUAL TABLE p USING fts5(t, tokenize='{_PLAIN_TOKENIZER}')")
        db.execute("CREATE VIRTUAL TABLE pv USING fts5vocab(p, 'instance')")
        _local.db = db
    return db


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
    """FTS5's own tokens of ``fts_text(text)``, in order (porter stems when ``stem``).

    Uses a per-thread in-memory FTS5 table with the index's tokenizer (~0.1 ms). CJK
    characters come back as unigrams, as they are indexed.
    """
    db = _tok_db()
    table, vocab = ("q", "qv") if stem else ("p", "pv")
    db.execute("BEGIN")
    try:
        db.execute(f"INSERT INTO {table}(rowid, t) VALUES(1, ?)", (fts_text(clean_query(text)),))
        rows = db.execute(f"SELECT term FROM {vocab} ORDER BY offset").fetchall()
    finally:
        db.execute("ROLLBACK")
    return [r[0] for r in rows]


def tokenize_many(texts: list[str], only: list[Term] | None = None) -> list[set[str]]:
    """Distinct porter stems of each text (one in-memory FTS5 pass for all of them).

    With ``only``, just the stems matching those query terms are returned (exact terms,
    or stems starting with a prefix term), which is much faster for long texts; a CJK
    bigram term (``parts``) is returned where its two characters stand together.
    """
    if not texts:
        return []
    db = _tok_db()
    out: list[set[str]] = [set() for _ in texts]
    db.execute("BEGIN")
    try:
        db.executemany("INSERT INTO q(rowid, t) VALUES(?, ?)",
                       [(i + 1, fts_text(clean_query(t))) for i, t in enumerate(texts)])
        if only is None:
            rows = db.execute("SELECT DISTINCT term, doc FROM qv")
        else:
            exact = [t.text for t in only if not t.prefix and not t.parts] + \
                [x for t in only if t.prefix for x in t.stems]
            conds, args = [], []
            if exact:
                conds.append(f"term IN ({','.join('?' * len(exact))})")
                args.extend(exact)
            for t in only:
                if t.prefix:
                    conds.append("(term >= ? AND term < ?)")
                    args.extend((t.text, _prefix_upper(t.text)))
            rows = db.execute(f"SELECT DISTINCT term, doc FROM qv WHERE {' OR '.join(conds)}",
                              args) if conds else []
        for term, doc in rows:
            out[doc - 1].add(term)
        bigrams = [t for t in only or () if t.parts]
        if bigrams:
            _add_bigrams(db, bigrams, out)
    finally:
        db.execute("ROLLBACK")
    return out


def _add_bigrams(db: sqlite3.Connection, bigrams: list[Term], out: list[set[str]]) -> None:
    """Add each CJK bigram term to the stem sets (``out``, by text) of the texts of the
    in-memory table where its two characters are adjacent tokens."""
    chars = sorted({c for t in bigrams for c in t.parts})
    at: dict[str, set[tuple[int, int]]] = {c: set() for c in chars}
    for term, doc, offset in db.execute(
            f"SELECT term, doc, offset FROM qv WHERE term IN ({','.join('?' * len(chars))})",
            chars):
        at[term].add((doc, offset))
    for t in bigrams:
        a, b = t.parts
        for doc, offset in at[a]:
            if (doc, offset + 1) in at[b]:
                out[doc - 1].add(t.text)


#: A run of CJK characters (the characters :func:`pdftui.cache.fts_text` indexes one by one).
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


def _int_list(text: str | None) -> np.ndarray:
    """int64 array of a comma-separated list of integers (SQLite's ``group_concat``)."""
    return np.fromstring(text, dtype=np.int64, sep=",") if text else \
        np.zeros(0, dtype=np.int64)


def _row_sums(pos: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct positions ascending, float64 sum of w at each)``; positions already
    strictly increasing (one term's postings, content by content) are taken as they are."""
    if len(pos) < 2 or bool((pos[1:] > pos[:-1]).all()):
        return pos, w.astype(np.float64)
    idx, inv = np.unique(pos, return_inverse=True)
    return idx, np.bincount(inv.reshape(-1), weights=w).astype(np.float64)


def _prefix_upper(prefix: str) -> str:
    """The smallest string greater than every string starting with ``prefix``."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1) if prefix else "\U0010ffff"


# -- per-document BM25 ------------------------------------------------------------------------
@dataclass
class Unit:
    """The rows of one ranked granularity (pages or sections), as numpy arrays by row."""

    ids: np.ndarray          # int64 pages.id / sections.id
    content: np.ndarray      # int64 content_id
    n_tokens: np.ndarray     # float64
    number: np.ndarray       # int64 page number (pages) or start page (sections)
    n: dict[int, int] = field(default_factory=dict)        # content -> rows
    total: dict[int, float] = field(default_factory=dict)  # content -> sum of n_tokens
    avgdl: dict[int, float] = field(default_factory=dict)  # content -> mean n_tokens
    # the same, dense by content id (0 / 1.0 for an id without rows)
    n_of: np.ndarray = field(default_factory=lambda: np.zeros(0))
    total_of: np.ndarray = field(default_factory=lambda: np.zeros(0))
    avgdl_of: np.ndarray = field(default_factory=lambda: np.ones(0))

    def rows(self, ids) -> np.ndarray:
        """Positions (into these arrays) of the row ids ``ids`` that are here, in order
        (``ids`` ascending from the cache: one binary search each, no dict of every row)."""
        want = np.fromiter(ids, dtype=np.int64)
        if not len(self.ids) or not len(want):
            return np.zeros(0, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.ids, want), len(self.ids) - 1)
        return pos[self.ids[pos] == want]


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


class KeywordIndex:
    """Per-document BM25 over one cache connection (pages and sections).

    ``KeywordIndex(db)`` keeps the per-row statistics (content, length) in memory and
    reloads them when :meth:`refresh` sees that the cache changed. Use from one thread.
    """

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self._units: dict[str, Unit] = {}
        self._version: tuple | None = None
        self._vocab_memo: dict[tuple[str, str], bool] = {}
        self.decompound = True
        self.postings = True
        self._legacy: np.ndarray | None = None

    def refresh(self, version: tuple | None = None) -> None:
        """Drop the in-memory statistics when ``version`` (any token) changed."""
        if version != self._version:
            self._units.clear()
            self._vocab_memo.clear()
            self._legacy = None
            self._version = version

    def _unit(self, kind: str) -> Unit:
        u = self._units.get(kind)
        if u is None:
            table, num = ("pages", "number") if kind == "pages" else ("sections", "start_page")
            # streamed into the array (no list of a tuple per row: ~60 MB at 10,000
            # documents' sections, all alive at once, for a few MB of int64)
            arr = np.fromiter(itertools.chain.from_iterable(self.db.execute(
                f"SELECT id, content_id, n_tokens, {num} FROM {table} ORDER BY id")),
                dtype=np.int64).reshape(-1, 4)
            u = Unit(ids=arr[:, 0], content=arr[:, 1], n_tokens=arr[:, 2].astype(np.float64),
                     number=arr[:, 3])
            if len(arr):
                cs, inv, counts = np.unique(u.content, return_inverse=True, return_counts=True)
                sums = np.bincount(inv, weights=u.n_tokens)
                for c, n, s in zip(cs.tolist(), counts.tolist(), sums.tolist()):
                    u.n[c] = n
                    u.total[c] = s
                    u.avgdl[c] = s / n if n and s > 0 else 1.0
                size = int(cs.max()) + 1
                u.n_of, u.total_of = np.zeros(size), np.zeros(size)
                u.avgdl_of = np.ones(size)
                u.n_of[cs] = counts
                u.total_of[cs] = sums
                u.avgdl_of[cs] = [u.avgdl[c] for c in cs.tolist()]
            self._units[kind] = u
        return u

    def numbers(self, kind: str, pos: np.ndarray) -> np.ndarray:
        """Page numbers (pages) or start pages (sections) of rows at positions ``pos``."""
        return self._unit(kind).number[pos]

    def page_number(self, pid: int) -> int:
        """The 1-based page number of a pages.id (0 when unknown)."""
        u = self._unit("pages")
        r = u.rows([pid])
        return int(u.number[r[0]]) if len(r) else 0

    def _has_term(self, vocab: str, text: str) -> bool:
        key = (vocab, text)
        got = self._vocab_memo.get(key)
        if got is None:
            got = self.db.execute(f"SELECT 1 FROM {vocab} WHERE term = ? LIMIT 1",
                                  (text,)).fetchone() is not None
            self._vocab_memo[key] = got
        return got

    def _split_rows(self, vocab: str, text: str) -> list[tuple[int, str, int]]:
        """Occurrences of a closed compound written open or hyphenated: for a query term
        like ``feedforward``, every place the index holds ``feed`` immediately followed by
        ``forward`` (from "feed-forward" or "feed forward"), as ``[(row, column, count)]``.

        Splits are tried at every point leaving two parts of >= 3 characters that are
        both indexed terms (the second part stemmed like the index); only exact adjacent
        pairs count, so a false split ("under" + "stand") adds nothing unless that phrase
        really occurs. Decompounding by known-word splitting (Koehn & Knight, "Empirical
        Methods for Compound Splitting", EACL 2003), matched as a phrase.
        """
        out: list[tuple[int, str, int]] = []
        if len(text) < 6 or not text.isalpha():
            return out
        for i in range(3, len(text) - 2):
            a = text[:i]
            stems = tokenize(text[i:])
            if len(stems) != 1:
                continue
            b = stems[0]
            if not (self._has_term(vocab, a) and self._has_term(vocab, b)):
                continue
            ka, kb = self._split_keys(vocab, a, b)
            if not len(ka) or not len(kb):
                continue
            ka = ka + 1
            hit = ka[member(ka, kb)] >> 24
            if not len(hit):
                continue
            u, n = np.unique(hit, return_counts=True)
            out.extend((int(x) >> 1, "title" if int(x) & 1 else "text", int(c))
                       for x, c in zip(u.tolist(), n.tolist()))
        return out

    def _split_keys(self, vocab: str, a: str, b: str) -> tuple[np.ndarray, np.ndarray]:
        """Offset keys (:meth:`_offset_keys`) of the indexed terms ``a`` and ``b`` where
        they could stand together. With postings, the rows holding ``a`` then ``b``
        (an FTS5 phrase query when both are their own porter stems, else the rows and
        columns the postings say hold both) are found first: none, nothing to read; up
        to ``_STAGE_ROWS`` of them, their text tokenised again as FTS5 indexed it, when
        that reads fewer tokens than every occurrence of both terms would (decoding one
        in FTS5's instance table costs about ``_STAGE_RATIO`` tokens tokenised); else
        every occurrence of both terms from FTS5."""
        z = np.zeros(0, dtype=np.int64)
        if self.postings and not len(self._legacy_contents()):
            gran = "pages" if vocab.startswith("pages") else "sections"
            ids, occurrences = self._pair_rows(gran, a, b)
            if not len(ids):
                return z, z
            unit = self._unit(gran)
            tokens = unit.n_tokens[unit.rows(ids)].sum()
            if len(ids) <= _STAGE_ROWS and tokens < _STAGE_RATIO * occurrences:
                rows = fts_rows(self.db, postings.kind_of(gran),
                                f"id IN ({','.join('?' * len(ids))})", tuple(ids.tolist()))
                ka, kb = postings.offsets(rows, [a, b])
                return ka, kb
        ka = self._offset_keys(vocab, a)
        return ka, (self._offset_keys(vocab, b) if len(ka) else ka)

    def _pair_rows(self, gran: str, a: str, b: str) -> tuple[np.ndarray, float]:
        """``(row ids that may hold a then b, sorted; an upper bound of their occurrences
        in FTS5)``: by an FTS5 phrase query (C-level position lists; ``a`` and ``b`` are
        letters only) when the tokenizer leaves both as they are, else the rows and
        columns whose postings hold both (``inf`` as the bound for a phrase query)."""
        if tokenize(a) == [a] and tokenize(b) == [b]:
            table = "pages_fts" if gran == "pages" else "sections_fts"
            ids = np.array([r for (r,) in self.db.execute(
                f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (f'"{a} {b}"',))],
                dtype=np.int64)
            return np.sort(ids), float("inf")
        kind = postings.kind_of(gran)
        (ca, ta), (cb, tb) = self._codes(kind, a), self._codes(kind, b)
        return np.unique(np.intersect1d(ca, cb) >> 1), float(ta.sum() + tb.sum())

    def _codes(self, kind: int, term: str) -> tuple[np.ndarray, np.ndarray]:
        """``(row id * 2 + title, tf)`` of every row and column holding the indexed
        ``term``."""
        arr = postings.unpack([d for (d,) in self.db.execute(
            "SELECT data FROM postings WHERE kind = ? AND term = ?", (kind, term))])
        return arr[:, 0] * 2 + arr[:, 2], arr[:, 1]

    def _offset_keys(self, vocab: str, text: str) -> np.ndarray:
        """int64 ``(row * 2 + 1 if title else 0) * 2**24 + token offset`` of every
        occurrence of the indexed term ``text`` (computed by SQLite, read as integers)."""
        return _int_list(self.db.execute(
            f"SELECT group_concat((doc * 2 + (col = 'title')) * 16777216 + offset)"
            f" FROM {vocab} WHERE term = ?", (text,)).fetchone()[0])

    def _adjacent_rows(self, vocab: str, parts: tuple[str, ...]) -> list[tuple[int, str, int]]:
        """``[(row id, column, count)]`` of the places where the tokens ``parts`` stand
        next to each other in this order (a phrase, read from token offsets)."""
        pairs = [self.db.execute(f"SELECT doc, col, offset FROM {vocab} WHERE term = ?",
                                 (p,)).fetchall() for p in parts]
        if not all(pairs):
            return []
        cols = {"title": 1}
        keys = [np.array([(d * 2 + cols.get(c, 0)) * (1 << 24) + o - k for d, c, o in rows],
                         dtype=np.int64) for k, rows in enumerate(pairs)]
        hit = keys[0]
        for more in keys[1:]:
            hit = hit[member(hit, more)]
        if not len(hit):
            return []
        u, n = np.unique(hit >> 24, return_counts=True)
        return [(int(x) >> 1, "title" if int(x) & 1 else "text", int(c))
                for x, c in zip(u.tolist(), n.tolist())]
    def page_keys(self, pids) -> set[tuple[int, int]]:
        """``{(content id, page number)}`` of the given pages.id values."""
        u = self._unit("pages")
        rows = u.rows(pids)
        return set(zip(u.content[rows].tolist(), u.number[rows].tolist()))

    def section_keys(self, sids) -> set[tuple[int, int]]:
        """``{(content id, start page)}`` of the given sections.id values."""
        u = self._unit("sections")
        rows = u.rows(sids)
        return set(zip(u.content[rows].tolist(), u.number[rows].tolist()))

    def page_ids(self, keys) -> set[int]:
        """The pages.id values of ``{(content id, page number)}`` keys (the inverse)."""
        u = self._unit("pages")
        want = np.array(sorted(set(keys)), dtype=np.int64).reshape(-1, 2)
        if not len(want) or not len(u.ids):
            return set()
        # (content, number) as one int64 key: page numbers are far below 2**24
        have = u.content * (1 << 24) + u.number
        hit = member(have, want[:, 0] * (1 << 24) + want[:, 1])
        return set(u.ids[hit].tolist())

    def title_rows(self, value: str) -> set[int]:
        """Ids of the sections whose title holds every term of ``value`` (stems;
        ``word*`` prefixes)."""
        rows: set[int] | None = None
        for term in parse_query(value, stopwords=True):
            got = {r for r, col, _n in self._term_rows("sections", term) if col == "title"}
            rows = got if rows is None else rows & got
        return rows or set()

    def has_ident(self, ident: str) -> bool:
        """True when some page holds the identifier ``ident`` (case-folded)."""
        return self.db.execute("SELECT 1 FROM page_idents WHERE ident = ? LIMIT 1",
                               (ident,)).fetchone() is not None

    def complete_prefix(self, term: Term) -> Term:
        """A prefix term that also matches the stems of the word being typed: its own
        stem when the index holds it (``scaled*``: "scale"), else the indexed terms of 3+
        letters it starts with that are at most 3 letters shorter (``embeddi*``: "embed",
        "embedd"; ``attenti*``: "attent", not "att"). The index holds porter stems, so a
        word typed past its stem would otherwise match next to nothing for a keystroke or
        two and the list would empty and refill while typing. Other terms are returned as
        they are."""
        if not term.prefix or term.parts or term.ident:
            return term
        vocab = "pages_fts_instance"
        if any(self._has_term(vocab, x) for x in term.stems):
            return term
        got = tuple(term.text[:k] for k in range(len(term.text) - 1,
                                                  max(2, len(term.text) - 4), -1)
                    if self._has_term(vocab, term.text[:k]))
        return Term(term.text, prefix=True, stems=got) if got else term

    def has_stem(self, stem: str) -> bool:
        """True when some page holds the indexed term (porter stem) ``stem``."""
        return self._has_term("pages_fts_instance", stem)

    def phrase_rows(self, kind: str, phrase: str) -> set[int]:
        """Ids of the pages (``kind`` "pages") or sections holding ``phrase``'s words
        adjacent and in order (an FTS5 phrase query; the text is bound, quoted, never
        parsed as FTS5 syntax), or written with two adjacent words closed up (``"chunk
        server"`` holds "chunkserver", as the keyword arm's decompounding matches the
        other way round); a trailing ``*`` makes its last word a prefix. Empty for a
        phrase with no indexed token."""
        prefix = phrase.rstrip().endswith("*")
        phrase = phrase.rstrip().rstrip("*") if prefix else phrase
        toks = tokenize(phrase, stem=False)
        if not toks:
            return set()
        table = "pages_fts" if kind == "pages" else "sections_fts"
        variants = [toks] + [toks[:i] + [a + b] + toks[i + 2:]
                             for i, (a, b) in enumerate(zip(toks, toks[1:]))
                             if a.isalpha() and b.isalpha() and not _CJK_RUN_RE.search(a + b)]
        parts = []
        for v in variants[:MAX_TERMS]:
            if prefix:   # the last word as a prefix the index can match (complete_prefix)
                last = self.complete_prefix(Term(v[-1], prefix=True))
                v = v[:-1] + [min(last.stems + (last.text,), key=len)]
            parts.append('"' + fts_text(" ".join(v)).replace('"', '""') + '"'
                         + (" *" if prefix else ""))
        try:
            return {r for (r,) in self.db.execute(
                f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (" OR ".join(parts),))}
        except sqlite3.Error:
            return set()

    def rows_holding(self, kind: str, text: str) -> set[int]:
        """Ids of the rows holding ``text``: an identifier as typed, one word (a
        ``word*`` prefix too), or a phrase of several words (adjacent, in order)."""
        from ..identifiers import normalize

        ident = normalize(text) if not text.endswith("*") else None
        if ident is not None and self.has_ident(ident):
            return {r for r, _c, _n in self._term_rows(kind, Term(ident, ident=True))}
        terms = parse_query(text, stopwords=False)
        if len(terms) == 1 and (terms[0].prefix or len(tokenize(text, stem=False)) == 1):
            return {r for r, _c, _n in self._term_rows(kind, terms[0])}
        return self.phrase_rows(kind, text.rstrip("*"))

    def _term_rows(self, kind: str, term: Term) -> list[tuple[int, str, int]]:
        """``[(row id, column, tf)]`` for one term from the fts5vocab instance table
        (with the term's open-compound occurrences when ``self.decompound``), or for an
        identifier from the ``page_idents`` / ``section_idents`` table."""
        if term.ident:
            if kind == "pages":
                sql = "SELECT page_id, 'text', n FROM page_idents WHERE ident = ?"
            else:
                sql = "SELECT section_id, col, n FROM section_idents WHERE ident = ?"
            return self.db.execute(sql, (term.text,)).fetchall()
        vocab = "pages_fts_instance" if kind == "pages" else "sections_fts_instance"
        if term.parts:
            return self._adjacent_rows(vocab, term.parts)
        if self.decompound and not term.prefix:
            sql = f"SELECT doc, col, count(*) FROM {vocab} WHERE term = ? GROUP BY doc, col"
            return self.db.execute(sql, (term.text,)).fetchall() + \
                self._split_rows(vocab, term.text)
        if term.prefix:
            alt = "".join(" OR term = ?" for _ in term.stems)
            sql = (f"SELECT doc, col, count(*) FROM {vocab} WHERE (term >= ? AND term < ?)"
                   f"{alt} GROUP BY doc, col")
            args: tuple = (term.text, _prefix_upper(term.text), *term.stems)
        else:
            sql = f"SELECT doc, col, count(*) FROM {vocab} WHERE term = ? GROUP BY doc, col"
            args = (term.text,)
        return self.db.execute(sql, args).fetchall()

    def rank(self, terms: list[Term], contents: set[int] | None = None, kind: str = "pages",
             policy: str = "or", title_weight: float = TITLE_WEIGHT, idf: str = "lucene",
             proximity: float = 0.0, window: int = 3, doc_proximity: float = 0.0
             ) -> Ranking:
        """Rank the rows (``kind`` "pages" or "sections") of each content by BM25.

        ``contents`` limits the search (None = every content). ``policy`` "or" keeps rows
        containing any term; "and" keeps only rows containing every term; "and_or" is "and"
        per document, relaxed to "or" in a document where no row has every term.
        ``idf`` "fts5" is FTS5's ln((N - df + 0.5)/(df + 0.5)) floored at 1e-6; "lucene" is
        the always-positive ln(1 + (N - df + 0.5)/(df + 0.5)) (Lucene's BM25 variant), which
        keeps a weight for terms on most pages of a document. ``proximity`` > 0 adds
        :meth:`_add_proximity` (consecutive query terms within ``window`` tokens) to the
        rows; ``doc_proximity`` > 0 counts those pairs per document for :func:`doc_bm25`
        (the pair as one more term of the document, weighed by ``doc_proximity``).
        """
        unit = self._unit(kind)
        keys = list(dict.fromkeys(str(t) for t in terms))
        if not terms or not len(unit.ids):
            return Ranking.empty(terms, keys, unit.total_of, unit.total)
        n_rows = len(unit.ids)
        scores = np.zeros(n_rows)
        nmatch = np.zeros(n_rows, dtype=np.int32)
        bits = np.zeros(n_rows, dtype=np.uint64)
        allowed = self._allowed(unit, contents)
        tfs: list[tuple[int, np.ndarray, np.ndarray]] = []
        idf_of: dict[str, np.ndarray] = {}
        for term in terms:
            k = keys.index(str(term))
            got = self._add_term(unit, kind, term, allowed, title_weight, idf, scores, nmatch,
                                 contents, idf_of)
            if got is None:
                continue
            idx, ucont, tf_sums = got
            bits[idx] |= np.uint64(1 << k)
            tfs.append((k, ucont, tf_sums))
        matched = np.nonzero(nmatch)[0]
        if not len(matched):
            return Ranking.empty(terms, keys, unit.total_of, unit.total)
        pair_tf = None
        if proximity > 0 or doc_proximity > 0:
            pair_tf = self._add_proximity(unit, kind, terms, idf_of, allowed, scores,
                                          proximity, window)
        cont = unit.content[matched]
        # by content, best first, equal scores by row id: ``matched`` ascends by row id
        # and lexsort is stable, so the ids need no key of their own
        rows = matched[np.lexsort((-scores[matched], cont))]
        rows = rows[self._policy_keep(rows, unit.content[rows], nmatch[rows], policy,
                                      len(terms))]
        tf_content, tfm = self._tf_matrix(tfs, len(keys))
        return Ranking(terms, keys, unit.ids[rows], rows, unit.content[rows], scores[rows],
                       bits[rows], tf_content, tfm, unit.total_of, unit.total, pair_tf,
                       doc_proximity)

    def _add_proximity(self, unit, kind: str, terms: list[Term], idf_of: dict,
                       allowed, scores: np.ndarray, weight: float, window: int
                       ) -> tuple[np.ndarray, np.ndarray]:
        """Term proximity: each row holding two consecutive query terms within ``window``
        tokens of each other (either order) gains ``weight`` x the smaller of their
        document-local idfs (the pair as one more, rarer, term; after Metzler & Croft's
        sequential dependence model, SIGIR 2005). Terms that are prefixes, identifiers,
        CJK bigrams or not their own stem are skipped. Only rows of the ``allowed``
        contents change; document-local, like the rest of the score. Returns ``(contents,
        counts)``: the contents holding any pair, ascending, and per pair (column) how many
        of each one's rows hold it."""
        plain = [t for t in terms if not (t.prefix or t.ident or t.parts)
                 and t.text in idf_of and t.text.isalnum() and tokenize(t.text) == [t.text]]
        table = "pages_fts" if kind == "pages" else "sections_fts"
        found: list[tuple[int, np.ndarray]] = []
        pairs = list(zip(plain, plain[1:]))
        for k, (a, b) in enumerate(pairs):
            try:   # both are indexed tokens (letters and digits): nothing FTS5 could parse
                ids = np.array([r for (r,) in self.db.execute(
                    f"SELECT rowid FROM {table} WHERE {table} MATCH ?",
                    (f'NEAR("{a.text}" "{b.text}", {int(window)})',))], dtype=np.int64)
            except sqlite3.Error:
                continue
            if not len(ids):
                continue
            pos = np.minimum(np.searchsorted(unit.ids, ids), len(unit.ids) - 1)
            pos = pos[unit.ids[pos] == ids]
            if allowed is not None:
                pos = pos[allowed[unit.content[pos]]]
            cont = unit.content[pos]
            scores[pos] += weight * np.minimum(idf_of[a.text][cont], idf_of[b.text][cont])
            found.append((k, cont))
        return _count_matrix(found, len(pairs))

    @staticmethod
    def _allowed(unit, contents: set[int] | None) -> np.ndarray | None:
        """A mask over content ids: True for the contents searched (None: all of them)."""
        if contents is None:
            return None
        want = np.fromiter(contents, dtype=np.int64, count=len(contents))
        allowed = np.zeros(len(unit.n_of), dtype=bool)
        allowed[want[(want >= 0) & (want < len(allowed))]] = True
        return allowed

    def _add_term(self, unit, kind: str, term: Term, allowed: np.ndarray | None,
                  title_weight: float, idf: str, scores: np.ndarray, nmatch: np.ndarray,
                  contents: set[int] | None = None, idf_of: dict | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """Add ``term``'s BM25 weight to ``scores`` of the rows holding it (and count it in
        ``nmatch``), idf and average length per document (Robertson & Zaragoza 2009);
        returns ``(rows, contents, their summed term frequency)``, None when no row of the
        contents searched holds it."""
        arr = self._term_array(kind, term, contents)
        if not len(arr):
            return None
        pos = np.searchsorted(unit.ids, arr[:, 0])
        pos = np.minimum(pos, len(unit.ids) - 1)
        keep = unit.ids[pos] == arr[:, 0]
        if allowed is not None:
            keep &= allowed[unit.content[pos]]
        if not keep.any():
            return None
        w = np.where(arr[:, 2] == 1, title_weight if kind == "sections" else 1.0, 1.0)
        w = w * arr[:, 1]
        idx, tf = _row_sums(pos[keep], w[keep])
        # per content, dense by content id (no hashing of the rows' contents)
        cont = unit.content[idx]
        size = len(unit.n_of)
        dfc = np.bincount(cont, minlength=size)
        ucont = np.flatnonzero(dfc)
        df = dfc[ucont].astype(np.float64)
        n_doc = unit.n_of[ucont]
        if idf == "lucene":
            w_idf = np.log1p((n_doc - df + 0.5) / (df + 0.5))
        else:
            w_idf = np.log((n_doc - df + 0.5) / (df + 0.5))
            w_idf = np.where(w_idf <= 0, 1e-6, w_idf)
        w_of = np.zeros(size)
        w_of[ucont] = w_idf
        if idf_of is not None:
            idf_of[term.text] = w_of
        avgdl = unit.avgdl_of[cont]
        dl = unit.n_tokens[idx]
        scores[idx] += w_of[cont] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))
        nmatch[idx] += 1
        return idx, ucont, np.bincount(cont, weights=tf, minlength=size)[ucont]

    @staticmethod
    def _tf_matrix(tfs: list[tuple[int, np.ndarray, np.ndarray]], n_keys: int
                   ) -> tuple[np.ndarray, np.ndarray]:
        """``(contents, matrix)``: the term frequency of each term key (column) summed over
        each content's matching rows, from ``[(key index, contents, sums)]``."""
        tf_content = distinct(np.concatenate([c for _k, c, _t in tfs]))
        tfm = np.zeros((len(tf_content), n_keys))
        for k, c, t in tfs:   # a later term with the same text replaces, as before
            tfm[np.searchsorted(tf_content, c), k] = t
        return tf_content, tfm

    @staticmethod
    def _policy_keep(rows: np.ndarray, content: np.ndarray, nmatch: np.ndarray, policy: str,
                     n_terms: int) -> np.ndarray:
        """Boolean over ``rows`` (grouped by content): the rows ``policy`` keeps."""
        if policy == "and":
            return nmatch >= max(int(nmatch.max()), 1)
        if policy != "and_or" or not len(rows):
            return np.ones(len(rows), dtype=bool)
        full = nmatch == n_terms
        start = np.concatenate([[0], np.flatnonzero(np.diff(content)) + 1])
        has_full = np.maximum.reduceat(full.astype(np.int8), start).astype(bool)
        return full | ~np.repeat(has_full, np.diff(np.append(start, len(rows))))

    def _posting_array(self, kind: str, where: str, args: tuple,
                       contents: set[int] | None) -> np.ndarray:
        """``(n, 3)`` ``[row id, tf, title]`` of the terms ``where`` selects, from the
        ``postings`` table (one packed array per content holding a term; only the contents
        ``contents`` when that is a short list)."""
        sql = (f"SELECT data FROM postings WHERE kind = {postings.kind_of(kind)}"
               f" AND ({where})")
        if contents is not None and len(contents) <= _FEW_CONTENTS:
            sql += f" AND content_id IN ({','.join('?' * len(contents))})"
            args = (*args, *sorted(contents))
        return postings.unpack([d for (d,) in self.db.execute(sql, args)])

    def _legacy_contents(self) -> np.ndarray:
        """Sorted ids of the indexed contents whose postings are not written yet (a cache
        made before schema 8, until the next index fills them): read from FTS5."""
        if self._legacy is None:
            self._legacy = np.array([c for (c,) in self.db.execute(
                "SELECT id FROM contents WHERE postings = 0 AND skip_reason IS NULL"
                " AND text_quality = 'ok' ORDER BY id")], dtype=np.int64)
        return self._legacy

    def _legacy_in(self, contents: set[int] | None) -> bool:
        """Does the search over ``contents`` (None: all) reach a content without
        postings?"""
        legacy = self._legacy_contents()
        if not len(legacy) or contents is None:
            return bool(len(legacy))
        return bool(member(np.fromiter(contents, dtype=np.int64), legacy).any())

    def _legacy_rows(self, kind: str, arr: np.ndarray, have: np.ndarray) -> np.ndarray:
        """The rows of ``arr`` (instance-table rows) of contents without postings, but
        none of a content whose postings ``have`` already holds (written meanwhile)."""
        unit = self._unit(kind)
        if not len(arr) or not len(unit.ids):
            return arr[:0]
        content = unit.content[np.minimum(np.searchsorted(unit.ids, arr[:, 0]),
                                          len(unit.ids) - 1)]
        done = unit.content[np.minimum(np.searchsorted(unit.ids, have[:, 0]),
                                       len(unit.ids) - 1)] if len(have) else have[:, 0]
        keep = member(content, self._legacy_contents()) & ~member(content, done)
        return arr[keep]

    def _instance_array(self, vocab: str, where: str, args: tuple) -> np.ndarray:
        """:meth:`_posting_array` read from FTS5's fts5vocab instance table instead
        (every occurrence; the way before postings, kept to prove them identical)."""
        # one string of every occurrence's (row * 2 + title) code, parsed and counted in
        # numpy: several times faster than GROUP BY and a Python tuple per row
        codes = _int_list(self.db.execute(
            f"SELECT group_concat(doc * 2 + (col = 'title')) FROM {vocab} WHERE {where}",
            args).fetchone()[0])
        u, n = np.unique(codes, return_counts=True)
        return np.stack([u >> 1, n, u & 1], axis=1).astype(np.int64).reshape(-1, 3)

    def _term_array(self, kind: str, term: Term, contents: set[int] | None = None
                    ) -> np.ndarray:
        """``(n, 3)`` int64 ``[row id, tf, 1 when the column is the title]`` of one term
        (:meth:`_term_rows`, read straight into integers for the common case), from the
        postings (or, with ``self.postings`` False, FTS5's instance table). ``contents``
        may leave out rows of other contents (callers filter by content anyway)."""
        if term.ident or term.parts:
            rows = [(r, n, 1 if col == "title" else 0)
                    for r, col, n in self._term_rows(kind, term)]
            return np.array(rows, dtype=np.int64).reshape(-1, 3)
        vocab = "pages_fts_instance" if kind == "pages" else "sections_fts_instance"
        if term.prefix:   # as _term_rows: the prefix's range and the typed word's stems
            where = "(term >= ? AND term < ?)" + "".join(" OR term = ?" for _ in term.stems)
            args: tuple = (term.text, _prefix_upper(term.text), *term.stems)
        else:
            where, args = "term = ?", (term.text,)
        if self.postings:
            arr = self._posting_array(kind, where, args, contents)
            if self._legacy_in(contents):
                arr = np.concatenate([arr, self._legacy_rows(
                    kind, self._instance_array(vocab, where, args), arr)])
        else:
            arr = self._instance_array(vocab, where, args)
        if self.decompound and not term.prefix:
            split = [(r, n, 1 if col == "title" else 0)
                     for r, col, n in self._split_rows(vocab, term.text)]
            if split:
                arr = np.concatenate([arr, np.array(split, dtype=np.int64).reshape(-1, 3)])
        return arr


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


def _lucene_idf(n: int, df: np.ndarray) -> list[float]:
    return [math.log1p((n - d + 0.5) / (d + 0.5)) for d in df.tolist()]


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
    idf = np.array(_lucene_idf(n, _key_df(ranking, sc)))
    hit = np.flatnonzero(sc.row >= 0)
    if not len(hit):
        return out
    tf = ranking.doc_tfm[sc.row[hit]]
    norm = k1 * (1 - b + b * lens[hit] / avgdl)
    if ranking.pair_weight > 0 and ranking.doc_pair_tf.shape[1]:
        pair_tf = ranking.doc_pair_tf[sc.row[hit]]
        held = ranking.doc_pair_tf[sc.row[sc.row >= 0]] > 0
        pair_idf = ranking.pair_weight * np.array(_lucene_idf(n, held.sum(axis=0)))
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


def row_coverage(ranking: Ranking, docs, extra: np.ndarray | None = None) -> np.ndarray:
    """:func:`query_coverage` (``doc_share`` 0) as a float64 array over the ranking's rows;
    ``extra`` (uint64 per row, bits as ``Ranking.mask``) adds terms a row counts as
    holding besides its own."""
    sc = _scope(ranking, docs)
    n = len(sc.names)
    if not n or not ranking.terms:
        return np.zeros(len(ranking.ids))
    idf = _lucene_idf(n, _key_df(ranking, sc))
    keys = ranking.keys
    total = math.fsum(idf[keys.index(str(t))] for t in ranking.terms) or 1.0
    mask = ranking.mask if extra is None else ranking.mask | extra
    return mask_sums(mask, idf) / total


def term_weights(ranking: Ranking, docs) -> dict[str, float]:
    """``{str(term): idf}`` of the ranking's query terms: the rarity weights of
    :func:`row_coverage` (idf over the documents in scope), {} without documents."""
    sc = _scope(ranking, docs)
    if not len(sc.names) or not ranking.keys:
        return {}
    return dict(zip(ranking.keys, _lucene_idf(len(sc.names), _key_df(ranking, sc))))


def query_coverage(ranking: Ranking, docs: dict[str, int], doc_share: float = 0.0
                   ) -> dict[int, float]:
    """Each matched row's share of the query's rarity mass: ``sum of idf(t) over the query
    terms the row contains / sum of idf(t) over all query terms``, in [0, 1].

    idf(t) = ln(1 + (N - df + 0.5)/(df + 0.5)) over the documents in scope (N documents, df
    of them containing t; a term found nowhere has df = 0, the largest idf). A page holding
    the rare words of the query scores near 1; a page matching only common ones near 0.
    This is a post-retrieval query-performance signal (how much of the query the keyword
    arm could match at all), used to weight the keyword arm's contribution in hybrid
    fusion; it compares rows by which query words they hold, never by BM25 scores.
    ``{row id: share}``; the search service reads :func:`row_coverage` (the same, as an
    array over the rows).
    """
    if not len(docs) or not ranking.terms:
        return {}
    out = dict(zip(ranking.ids.tolist(), row_coverage(ranking, docs).tolist()))
    if doc_share > 0:
        sc = _scope(ranking, docs)
        idf = _lucene_idf(len(docs), _key_df(ranking, sc))
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


def doc_order_array(ranking: Ranking, docs, signal: str = "bm25") -> np.ndarray:
    """Indexes (into the scope's names) of the documents that matched, best first by
    ``signal`` (see :func:`doc_order`)."""
    sc = _scope(ranking, docs)
    hit = np.flatnonzero(sc.row >= 0)
    if not len(hit):
        return hit
    cov, _w = _rarity(ranking.doc_mask[sc.row[hit]], len(ranking.keys))
    sig = cov if signal == "coverage" else doc_bm25_array(ranking, sc)[hit]
    return hit[np.lexsort((hit, sc.content[hit], -cov, -sig))]


def doc_order(ranking: Ranking, docs: dict[str, int], signal: str = "bm25") -> list[str]:
    """Documents that matched, best first by ``signal``: "bm25" (:func:`doc_bm25`) or
    "coverage" (:func:`fusion.rarity_coverage`); ties by coverage, then content id."""
    names = list(docs)
    return [names[i] for i in doc_order_array(ranking, docs, signal).tolist()]


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
                scheme: str = "doc_rrf", doc_signal: str = "bm25", doc_weight: float = 1.0,
                doc_k: int = fusion.K) -> Fused:
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
    if scheme == "doc_rrf":
        drank = np.zeros(len(sc.names), dtype=np.int64)
        drank[doc_order_array(ranking, sc, doc_signal)] = np.arange(1, len(hit) + 1)
        score = 1.0 / (fusion.K + rank) + doc_weight / (doc_k + drank[doc])
        keys = (seq,) + tuple(-t for t in reversed(tb)) + (-score,)
    else:
        score = 1.0 / (fusion.K + rank)
        keys = (seq,) + tuple(-t for t in reversed(tb)) + (rank,)
    o = np.lexsort(keys)
    return Fused(sc.names, doc[o], row[o], score[o])


def fuse(ranking: Ranking, docs: dict[str, int], tiebreak: str = "page_coverage",
         scheme: str = "doc_rrf", doc_signal: str = "bm25", doc_weight: float = 1.0,
         doc_k: int = fusion.K) -> list[tuple[tuple[str, int], float]]:
    """Stage 1: one cross-corpus list of ``((doc, row id), rrf score)`` best first.

    ``docs`` maps each document in scope to its content id (two documents with the same
    bytes both appear). Each row scores ``1/(60 + its rank inside its own document)``; ties
    in a rank band are broken by ``tiebreak``:

    - "doc_coverage": the document's rarity-weighted coverage (:func:`fusion.rarity_coverage`
      over documents matched), then the row's own BM25-free coverage;
    - "page_coverage": the row's own rarity-weighted coverage, then the document's;
    - "none": content order only (for measurement).
    Remaining ties go by content id (insertion order in the cache), never by path.

    ``scheme`` "doc_rrf" (the default, the product's) adds a document-level list:
    documents ordered by ``doc_signal`` ("bm25": :func:`doc_bm25`, the default; or
    "coverage"), each row scoring ``1/(60 + rank in its document) + doc_weight/(doc_k + its
    document's rank)`` (two-list RRF), which lets a strong document's second page outrank a
    weak document's best one; "band" keeps the rank bands alone. The defaults are what
    the search service uses. The search service reads :func:`fuse_arrays` (the same list as
    arrays).
    """
    f = fuse_arrays(ranking, docs, tiebreak, scheme, doc_signal, doc_weight, doc_k)
    ids = ranking.ids[f.row].tolist()
    return [((f.names[d], r), s) for d, r, s in zip(f.doc.tolist(), ids, f.score.tolist())]
