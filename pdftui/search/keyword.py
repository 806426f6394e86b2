"""The keyword arm: safe query parsing and per-document BM25 over the cache's FTS5 data.

No user text is ever handed to FTS5's query parser, so no input can raise: the query is
tokenised exactly like the index (``fts_text()`` then FTS5's own ``porter unicode61
remove_diacritics 2`` tokenizer, read back through an in-memory fts5vocab table), and term
statistics are read from the ``pages_fts_instance`` / ``sections_fts_instance`` fts5vocab
tables with bound parameters. A trailing ``*`` on a word (``fin*``) is a prefix term: it
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

Across documents nothing above is compared. Documents are compared by :func:`doc_bm25`
(the same BM25 with each document as one unit and the folder's documents as the
collection) and rows by :func:`query_coverage` (their share of the query's idf mass); both
use one set of statistics for every document in scope. With ``KeywordIndex.decompound`` a
closed compound in the query (``feedforward``) also matches its open or hyphenated form
(``feed-forward``) as an adjacent pair (:meth:`KeywordIndex._split_rows`).
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
import unicodedata
from dataclasses import dataclass, field

import numpy as np

from ..cache import _CJK_RE, fts_text
from . import fusion

K1 = 1.2
B = 0.75
MAX_QUERY_CHARS = 1000
MAX_TERMS = 32
TITLE_WEIGHT = 4.0
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
    row_of: dict[int, int] = field(default_factory=dict)
    n: dict[int, int] = field(default_factory=dict)        # content -> rows
    total: dict[int, float] = field(default_factory=dict)  # content -> sum of n_tokens
    avgdl: dict[int, float] = field(default_factory=dict)  # content -> mean n_tokens


@dataclass
class Ranking:
    """The keyword arm's answer for one query.

    ``per_doc[content_id]`` lists that content's matching rows (ids of pages or sections)
    best first by document-local BM25; ``scores[id]`` is the BM25 score; ``terms[id]`` the
    set of query terms (as strings) the row contains.
    """

    terms: list[Term]
    per_doc: dict[int, list[int]]
    scores: dict[int, float]
    row_terms: dict[int, frozenset[str]]
    doc_terms: dict[int, frozenset[str]]
    doc_tf: dict[int, dict[str, float]] = field(default_factory=dict)
    doc_len: dict[int, float] = field(default_factory=dict)


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
        self.decompound = False

    def refresh(self, version: tuple | None = None) -> None:
        """Drop the in-memory statistics when ``version`` (any token) changed."""
        if version != self._version:
            self._units.clear()
            self._vocab_memo.clear()
            self._version = version

    def _unit(self, kind: str) -> Unit:
        u = self._units.get(kind)
        if u is None:
            table, num = ("pages", "number") if kind == "pages" else ("sections", "start_page")
            rows = self.db.execute(
                f"SELECT id, content_id, n_tokens, {num} FROM {table} ORDER BY id").fetchall()
            arr = np.array(rows, dtype=np.int64).reshape(-1, 4)
            u = Unit(ids=arr[:, 0], content=arr[:, 1], n_tokens=arr[:, 2].astype(np.float64),
                     number=arr[:, 3])
            u.row_of = {int(i): r for r, i in enumerate(u.ids)}
            if len(arr):
                cs, inv, counts = np.unique(u.content, return_inverse=True, return_counts=True)
                sums = np.bincount(inv, weights=u.n_tokens)
                for c, n, s in zip(cs.tolist(), counts.tolist(), sums.tolist()):
                    u.n[c] = n
                    u.total[c] = s
                    u.avgdl[c] = s / n if n and s > 0 else 1.0
            self._units[kind] = u
        return u

    def page_number(self, pid: int) -> int:
        """The 1-based page number of a pages.id (0 when unknown)."""
        u = self._unit("pages")
        r = u.row_of.get(pid)
        return int(u.number[r]) if r is not None else 0

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
            rows_a = self.db.execute(f"SELECT doc, col, offset FROM {vocab} WHERE term = ?",
                                     (a,)).fetchall()
            rows_b = self.db.execute(f"SELECT doc, col, offset FROM {vocab} WHERE term = ?",
                                     (b,)).fetchall()
            if not rows_a or not rows_b:
                continue
            cols = {"title": 1}
            ka = np.array([(d * 2 + cols.get(c, 0)) * (1 << 24) + o + 1
                           for d, c, o in rows_a], dtype=np.int64)
            kb = np.array([(d * 2 + cols.get(c, 0)) * (1 << 24) + o
                           for d, c, o in rows_b], dtype=np.int64)
            hit = ka[np.isin(ka, kb)] >> 24
            if not len(hit):
                continue
            u, n = np.unique(hit, return_counts=True)
            out.extend((int(x) >> 1, "title" if int(x) & 1 else "text", int(c))
                       for x, c in zip(u.tolist(), n.tolist()))
        return out

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
            hit = hit[np.isin(hit, more)]
        if not len(hit):
            return []
        u, n = np.unique(hit >> 24, return_counts=True)
        return [(int(x) >> 1, "title" if int(x) & 1 else "text", int(c))
                for x, c in zip(u.tolist(), n.tolist())]
    def page_keys(self, pids) -> set[tuple[int, int]]:
        """``{(content id, page number)}`` of the given pages.id values."""
        u = self._unit("pages")
        rows = [u.row_of[p] for p in pids if p in u.row_of]
        return set(zip(u.content[rows].tolist(), u.number[rows].tolist()))

    def section_keys(self, sids) -> set[tuple[int, int]]:
        """``{(content id, start page)}`` of the given sections.id values."""
        u = self._unit("sections")
        rows = [u.row_of[s] for s in sids if s in u.row_of]
        return set(zip(u.content[rows].tolist(), u.number[rows].tolist()))

    def page_ids(self, keys) -> set[int]:
        """The pages.id values of ``{(content id, page number)}`` keys (the inverse)."""
        u = self._unit("pages")
        want = set(keys)
        return {int(i) for i, c, n in zip(u.ids.tolist(), u.content.tolist(), u.number.tolist())
                if (c, n) in want}

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
        stem when the index holds it (``scaled*``: "scale"), else the indexed terms it
        starts with that are at most 4 letters shorter (``embeddi*``: "embed", "embedd";
        ``attenti*``: "attent"). The index holds porter stems, so a word typed past its
        stem would otherwise match next to nothing for a keystroke or two and the list
        would empty and refill while typing. Other terms are returned as they are."""
        if not term.prefix or term.parts or term.ident:
            return term
        vocab = "pages_fts_instance"
        if any(self._has_term(vocab, x) for x in term.stems):
            return term
        got = tuple(term.text[:k] for k in range(len(term.text) - 1,
                                                  max(2, len(term.text) - 5), -1)
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
             policy: str = "or", title_weight: float = TITLE_WEIGHT, idf: str = "fts5"
             ) -> Ranking:
        """Rank the rows (``kind`` "pages" or "sections") of each content by BM25.

        ``contents`` limits the search (None = every content). ``policy`` "or" keeps rows
        containing any term; "and" keeps only rows containing every term; "and_or" is "and"
        per document, relaxed to "or" in a document where no row has every term.
        ``idf`` "fts5" is FTS5's ln((N - df + 0.5)/(df + 0.5)) floored at 1e-6; "lucene" is
        the always-positive ln(1 + (N - df + 0.5)/(df + 0.5)) (Lucene's BM25 variant), which
        keeps a weight for terms on most pages of a document.
        """
        unit = self._unit(kind)
        empty = Ranking(terms, {}, {}, {}, {})
        if not terms or not len(unit.ids):
            return empty
        n_rows = len(unit.ids)
        scores = np.zeros(n_rows)
        nmatch = np.zeros(n_rows, dtype=np.int32)
        row_terms: dict[int, set[str]] = {}
        doc_tf: dict[int, dict[str, float]] = {}
        for term in terms:
            rows = self._term_rows(kind, term)
            if not rows:
                continue
            arr = np.array([(rid, cnt, 1 if col == "title" else 0) for rid, col, cnt in rows],
                           dtype=np.int64).reshape(-1, 3)
            pos = np.searchsorted(unit.ids, arr[:, 0])
            pos = np.minimum(pos, len(unit.ids) - 1)
            keep = unit.ids[pos] == arr[:, 0]
            if contents is not None:
                keep &= np.isin(unit.content[pos], np.fromiter(contents, dtype=np.int64,
                                                               count=len(contents)))
            if not keep.any():
                continue
            w = np.where(arr[:, 2] == 1, title_weight if kind == "sections" else 1.0, 1.0)
            w = w * arr[:, 1]
            idx, inv_rows = np.unique(pos[keep], return_inverse=True)
            tf = np.bincount(inv_rows, weights=w[keep]).astype(np.float64)
            cont = unit.content[idx]
            ucont, inv = np.unique(cont, return_inverse=True)
            df = np.bincount(inv).astype(np.float64)
            n_doc = np.array([unit.n[int(c)] for c in ucont], dtype=np.float64)
            if idf == "lucene":
                w_idf = np.log1p((n_doc - df + 0.5) / (df + 0.5))
            else:
                w_idf = np.log((n_doc - df + 0.5) / (df + 0.5))
                w_idf = np.where(w_idf <= 0, 1e-6, w_idf)
            avgdl = np.array([unit.avgdl[int(c)] for c in ucont])[inv]
            dl = unit.n_tokens[idx]
            scores[idx] += w_idf[inv] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))
            nmatch[idx] += 1
            key = str(term)
            for c, t in zip(ucont.tolist(), np.bincount(inv, weights=tf).tolist()):
                doc_tf.setdefault(c, {})[key] = t
            for r in idx.tolist():
                row_terms.setdefault(r, set()).add(key)
        matched = np.nonzero(nmatch)[0]
        if not len(matched):
            return empty
        per_doc: dict[int, list[int]] = {}
        cont = unit.content[matched]
        order = np.lexsort((unit.ids[matched], -scores[matched], cont))
        for r in matched[order].tolist():
            per_doc.setdefault(int(unit.content[r]), []).append(r)
        if policy in ("and", "and_or"):
            want = max(int(nmatch[matched].max()), 1) if policy == "and" else None
            for c in list(per_doc):
                rows = per_doc[c]
                full = [r for r in rows if nmatch[r] == len(terms)]
                if policy == "and":
                    per_doc[c] = [r for r in rows if nmatch[r] >= want]
                elif full:
                    per_doc[c] = full
                if not per_doc[c]:
                    del per_doc[c]
        out_per_doc = {c: [int(unit.ids[r]) for r in rows] for c, rows in per_doc.items()}
        out_scores = {int(unit.ids[r]): float(scores[r])
                      for rows in per_doc.values() for r in rows}
        out_terms = {int(unit.ids[r]): frozenset(row_terms.get(r, ()))
                     for rows in per_doc.values() for r in rows}
        doc_terms = {c: frozenset().union(*(row_terms.get(r, set()) for r in rows))
                     for c, rows in per_doc.items()}
        return Ranking(terms, out_per_doc, out_scores, out_terms, doc_terms,
                       {c: doc_tf[c] for c in per_doc},
                       unit.total)


def restrict(ranking: Ranking, keep: set[int] | None = None,
             drop: set[int] | frozenset[int] = frozenset()) -> Ranking:
    """The ranking with only the rows in ``keep`` (None: all) and none in ``drop``
    (row ids: pages.id or sections.id). Each document's order is kept; documents left
    without rows are gone; document term sets are recomputed from the rows left."""
    if keep is None and not drop:
        return ranking
    per_doc = {}
    for c, rows in ranking.per_doc.items():
        left = [r for r in rows if (keep is None or r in keep) and r not in drop]
        if left:
            per_doc[c] = left
    rows = {r for left in per_doc.values() for r in left}
    return Ranking(ranking.terms, per_doc,
                   {r: s for r, s in ranking.scores.items() if r in rows},
                   {r: t for r, t in ranking.row_terms.items() if r in rows},
                   {c: frozenset().union(*(ranking.row_terms[r] for r in left))
                    for c, left in per_doc.items()},
                   {c: t for c, t in ranking.doc_tf.items() if c in per_doc},
                   ranking.doc_len)


def doc_bm25(ranking: Ranking, docs: dict[str, int], k1: float = K1, b: float = B
             ) -> dict[str, float]:
    """BM25 of each document as one unit, with statistics over the documents in ``docs``.

    tf = the term's occurrences in the whole document, dl = the document's tokens,
    N = documents in scope, df = those containing the term, idf in the Lucene form
    ln(1 + (N - df + 0.5)/(df + 0.5)). Compares documents with one set of statistics,
    never per-document page scores. Documents matching nothing are absent.
    """
    n = len(docs)
    if not n:
        return {}
    lens = [ranking.doc_len.get(c, 0.0) for c in docs.values()]
    avgdl = (sum(lens) / n) or 1.0
    df: dict[str, int] = {}
    for c in docs.values():
        for t in ranking.doc_tf.get(c, ()):
            df[t] = df.get(t, 0) + 1
    idf = {t: math.log1p((n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    out = {}
    for d, c in docs.items():
        tfs = ranking.doc_tf.get(c)
        if not tfs:
            continue
        norm = k1 * (1 - b + b * ranking.doc_len.get(c, avgdl) / avgdl)
        out[d] = math.fsum(idf[t] * tf * (k1 + 1) / (tf + norm) for t, tf in tfs.items())
    return out


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
    """
    n = len(docs)
    keys = [str(t) for t in ranking.terms]
    if not n or not keys:
        return {}
    df = dict.fromkeys(keys, 0)
    for c in docs.values():
        for t in ranking.doc_tf.get(c, ()):
            df[t] = df.get(t, 0) + 1
    idf = {t: math.log1p((n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    total = math.fsum(idf[t] for t in keys) or 1.0
    memo: dict[frozenset, float] = {}   # rows share few distinct term sets
    out = {}
    for r, ts in ranking.row_terms.items():
        v = memo.get(ts)
        if v is None:
            v = memo[ts] = math.fsum(idf[t] for t in sorted(ts)) / total
        out[r] = v
    if doc_share > 0:
        for c, rows in ranking.per_doc.items():
            held = ranking.doc_terms.get(c, frozenset())
            for r in rows:
                rest = held - ranking.row_terms.get(r, frozenset())
                if rest:
                    out[r] = min(1.0, out.get(r, 0.0)
                                 + doc_share * math.fsum(idf[t] for t in sorted(rest)) / total)
    return out


def doc_order(ranking: Ranking, docs: dict[str, int], signal: str = "bm25") -> list[str]:
    """Documents that matched, best first by ``signal``: "bm25" (:func:`doc_bm25`) or
    "coverage" (:func:`fusion.rarity_coverage`); ties by coverage, then content id."""
    doc_terms = {d: ranking.doc_terms[c] for d, c in docs.items() if c in ranking.doc_terms}
    cov = fusion.rarity_coverage(doc_terms)
    sig = cov if signal == "coverage" else doc_bm25(ranking, docs)
    return sorted(doc_terms, key=lambda d: (-sig.get(d, 0.0), -cov[d], docs[d]))


def fuse(ranking: Ranking, docs: dict[str, int], tiebreak: str = "doc_coverage",
         scheme: str = "band", doc_signal: str = "coverage", doc_weight: float = 1.0,
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

    ``scheme`` "doc_rrf" instead adds a document-level list: documents ordered by rarity
    coverage, each row scoring ``1/(60 + rank in its document) + 1/(60 + its document's
    rank)`` (two-list RRF), which lets a strong document's second page outrank a weak
    document's best one.
    """
    doc_terms = {d: ranking.doc_terms[c] for d, c in docs.items() if c in ranking.doc_terms}
    doc_cov = fusion.rarity_coverage(doc_terms)
    # df over documents for page-level coverage uses the same N and df.
    n = len(doc_terms)
    df: dict[str, int] = {}
    for ts in doc_terms.values():
        for t in ts:
            df[t] = df.get(t, 0) + 1
    w = {t: math.log(1.0 + n / d) for t, d in df.items()}
    per_doc: dict[str, list[tuple[str, int]]] = {}
    item_tb: dict[tuple[str, int], tuple[float, ...]] = {}
    doc_tb: dict[str, tuple[float, ...]] = {}
    pc_memo: dict[frozenset, float] = {}
    for d in sorted(doc_terms, key=lambda d: docs[d]):
        c = docs[d]
        rows = ranking.per_doc[c]
        per_doc[d] = [(d, r) for r in rows]
        for r in rows:
            ts = ranking.row_terms[r]
            pc = pc_memo.get(ts)
            if pc is None:
                pc = pc_memo[ts] = math.fsum(w[t] for t in sorted(ts))
            if tiebreak == "doc_coverage":
                item_tb[(d, r)] = (doc_cov[d], pc)
            elif tiebreak == "page_coverage":
                item_tb[(d, r)] = (pc, doc_cov[d])
            elif tiebreak == "doc_then_bm25":
                item_tb[(d, r)] = (doc_cov[d], ranking.scores[r])
            else:
                item_tb[(d, r)] = (0.0,)
        doc_tb[d] = (0.0,)
    if scheme == "doc_rrf":
        drank = {d: i for i, d in enumerate(doc_order(ranking, docs, doc_signal), start=1)}
        scored = []
        for d, items in per_doc.items():
            for i, it in enumerate(items, start=1):
                scored.append((1.0 / (fusion.K + i) + doc_weight / (doc_k + drank[d]),
                               item_tb[it], it))
        scored.sort(key=lambda x: (-x[0], tuple(-v for v in x[1])))
        return [(it, s) for s, _tb, it in scored]
    return fusion.fuse_per_document(per_doc, None, item_tb)
