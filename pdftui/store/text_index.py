"""The keyword arm's text index: per-document BM25 over the cache's FTS5 data.

:class:`KeywordIndex` reads each query term's rows and counts from the ``postings`` table
(:mod:`pdftui.store.postings`: one packed array per content holding the term) with bound
parameters; positions, which only compounds and phrases need, come from the
``pages_fts_instance`` / ``sections_fts_instance`` fts5vocab tables, and phrase and
proximity matches from FTS5 phrase and NEAR queries whose text is always quoted. The
scoring (Okapi BM25 with document-local statistics) and the query syntax are described in
:mod:`pdftui.search.keyword`, which holds the query side and the cross-document math; this
is the SQLite backend of :class:`pdftui.store.protocols.TextIndex`.
"""

from __future__ import annotations

import itertools
import sqlite3
from dataclasses import dataclass, field

import numpy as np

from ..search.keyword import (B, K1, MAX_TERMS, _CJK_RUN_RE, Ranking, Term, join_pairs,
                              _count_matrix, _row_sums, distinct, member, parse_query,
                              tokenize)
from ..search import bm25
from . import postings
from .tokenizer import fts_text, prefix_upper

#: A search over at most this many contents reads only their postings.
_FEW_CONTENTS = 500
#: Tokens tokenised again that cost as much as one occurrence read from FTS5's instance
#: table (measured on the corpus: ~0.2 against ~1.8 microseconds), and the most rows a
#: compound split is matched in by tokenising them again.
_STAGE_RATIO = 8
_STAGE_ROWS = 500


def _int_list(text: str | None) -> np.ndarray:
    """int64 array of a comma-separated list of integers (SQLite's ``group_concat``)."""
    return np.fromstring(text, dtype=np.int64, sep=",") if text else \
        np.zeros(0, dtype=np.int64)


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
                rows = postings.fts_rows(self.db, postings.kind_of(gran),
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
        ``word*`` prefixes; adjacent words also written closed up: :func:`.join_pairs`)."""
        rows: set[int] | None = None
        for term in join_pairs(parse_query(value, stopwords=True), value, self.has_stem):
            got = {r for r, col, _n in self.term_rows("sections", term) if col == "title"}
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
            return {r for r, _c, _n in self.term_rows(kind, Term(ident, ident=True))}
        terms = parse_query(text, stopwords=False)
        if len(terms) == 1 and (terms[0].prefix or len(tokenize(text, stem=False)) == 1):
            return {r for r, _c, _n in self.term_rows(kind, terms[0])}
        return self.phrase_rows(kind, text.rstrip("*"))

    def term_rows(self, kind: str, term: Term) -> list[tuple[int, str, int]]:
        """``[(row id, column, tf)]`` for one term from the fts5vocab instance table
        (with the occurrences of its closed-up spellings, ``term.joined``, and its
        open-compound occurrences when ``self.decompound``; a row may come once per
        spelling), or for an
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
            words = (term.text, *term.joined)
            sql = (f"SELECT doc, col, count(*) FROM {vocab} WHERE term IN"
                   f" ({','.join('?' * len(words))}) GROUP BY doc, col")
            return self.db.execute(sql, words).fetchall() + \
                self._split_rows(vocab, term.text)
        if term.prefix:
            alt = "".join(" OR term = ?" for _ in term.stems)
            sql = (f"SELECT doc, col, count(*) FROM {vocab} WHERE (term >= ? AND term < ?)"
                   f"{alt} GROUP BY doc, col")
            args: tuple = (term.text, prefix_upper(term.text), *term.stems)
        else:
            args = (term.text, *term.joined)
            sql = (f"SELECT doc, col, count(*) FROM {vocab} WHERE term IN"
                   f" ({','.join('?' * len(args))}) GROUP BY doc, col")
        return self.db.execute(sql, args).fetchall()

    def rank(self, terms: list[Term], contents: set[int] | None = None, kind: str = "pages",
             policy: str = "or",
             proximity: float = 0.0, window: int = 3, doc_proximity: float = 0.0
             ) -> Ranking:
        """Rank the rows (``kind`` "pages" or "sections") of each content by BM25.

        ``contents`` limits the search (None = every content). ``policy`` "or" keeps rows
        containing any term; "and" keeps only the rows holding the most terms of any row
        matched. The idf is the always-positive Lucene form (:func:`pdftui.search.bm25.idf`),
        which keeps a weight for terms on most pages of a document. ``proximity`` > 0 adds
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
            got = self._add_term(unit, kind, term, allowed, scores, nmatch,
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
        if policy == "and":
            rows = rows[nmatch[rows] >= max(int(nmatch[rows].max()), 1)]
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
                  scores: np.ndarray, nmatch: np.ndarray,
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
        w = arr[:, 1].astype(np.float64)   # a title occurrence counts as one of the text
        idx, tf = _row_sums(pos[keep], w[keep])
        # per content, dense by content id (no hashing of the rows' contents)
        cont = unit.content[idx]
        size = len(unit.n_of)
        dfc = np.bincount(cont, minlength=size)
        ucont = np.flatnonzero(dfc)
        df = dfc[ucont].astype(np.float64)
        n_doc = unit.n_of[ucont]
        w_idf = bm25.idf_array(n_doc, df)
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
        (:meth:`term_rows`, read straight into integers for the common case), from the
        postings (or, with ``self.postings`` False, FTS5's instance table). ``contents``
        may leave out rows of other contents (callers filter by content anyway)."""
        if term.ident or term.parts:
            rows = [(r, n, 1 if col == "title" else 0)
                    for r, col, n in self.term_rows(kind, term)]
            return np.array(rows, dtype=np.int64).reshape(-1, 3)
        vocab = "pages_fts_instance" if kind == "pages" else "sections_fts_instance"
        if term.prefix:   # as term_rows: the prefix's range and the typed word's stems
            where = "(term >= ? AND term < ?)" + "".join(" OR term = ?" for _ in term.stems)
            args: tuple = (term.text, prefix_upper(term.text), *term.stems)
        else:   # the word and its closed-up spellings (Term.joined), one term
            args = (term.text, *term.joined)
            where = "term = ?" if len(args) == 1 else f"term IN ({','.join('?' * len(args))})"
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
