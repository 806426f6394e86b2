"""Text as FTS5 tokenises it: what the index is fed, and queries tokenised to match it.

The FTS tables index :func:`fts_text` of each page and section with the tokenizer
:data:`pdftui.store.schema.TOKENIZER`. A query must come out as the same tokens, so it is
tokenised by FTS5 itself: :func:`tokens` and :func:`tokens_many` insert the text (through
:func:`fts_text` too) into a per-thread in-memory FTS5 table with that tokenizer and read
the tokens back through an fts5vocab table. No user text is ever parsed as FTS5 syntax.
Callers pass text already bounded and printable (:func:`pdftui.search.keyword.clean_query`).
"""

from __future__ import annotations

import re
import sqlite3
import threading
import unicodedata
from typing import TYPE_CHECKING

from .schema import PLAIN_TOKENIZER, TOKENIZER

if TYPE_CHECKING:
    from ..search.keyword import Term

#: One CJK character (a group): :func:`fts_text` indexes each as a token of its own.
CJK_RE = re.compile(
    "([\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f])"
)
_TOKEN_RE = re.compile(r"\w+")
_WORD_RE = re.compile(r"[^\W\d_]{3,30}")


def fts_text(text: str) -> str:
    """The text as it is fed to FTS5: NFKC, and each CJK character made its own token.

    unicode61 treats a run of CJK characters as one token, so "天气" would never match inside
    "今天天气很好"; spacing CJK characters out indexes them as unigrams (queries get the
    same treatment and become phrases). Deterministic: deleting a row re-derives the same
    tokens from the stored page text.
    """
    text = unicodedata.normalize("NFKC", text)
    return CJK_RE.sub(r" \1 ", text)


def count_tokens(text: str) -> int:
    """Approximate FTS5 unicode61 token count of ``fts_text(text)`` (for BM25 lengths)."""
    return len(_TOKEN_RE.findall(fts_text(text)))


def surface_words(text: str) -> set[str]:
    """The distinct case-folded words of ``text`` kept for typo suggestions: runs of 3-30
    letters (NFKC), no CJK (a CJK run is no word)."""
    return {w for w in _WORD_RE.findall(unicodedata.normalize("NFKC", text).casefold())
            if not CJK_RE.search(w)}


def prefix_upper(prefix: str) -> str:
    """The smallest string greater than every string starting with ``prefix``."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1) if prefix else "\U0010ffff"


_local = threading.local()


def _tok_db() -> sqlite3.Connection:
    """This thread's in-memory FTS5 tables: ``q`` with :data:`TOKENIZER` (stems) and ``p``
    with :data:`PLAIN_TOKENIZER` (words as typed), with their fts5vocab instance tables."""
    db = getattr(_local, "db", None)
    if db is None:
        db = sqlite3.connect(":memory:", isolation_level=None)
        db.execute(f"CREATE VIRTUAL TABLE q USING fts5(t, tokenize='{TOKENIZER}')")
        db.execute("CREATE VIRTUAL TABLE qv USING fts5vocab(q, 'instance')")
        db.execute(f"CREATE VIRTUAL TABLE p USING fts5(t, tokenize='{PLAIN_TOKENIZER}')")
        db.execute("CREATE VIRTUAL TABLE pv USING fts5vocab(p, 'instance')")
        _local.db = db
    return db


def tokens(text: str, stem: bool = True) -> list[str]:
    """FTS5's own tokens of ``fts_text(text)``, in order (porter stems when ``stem``).

    Uses a per-thread in-memory FTS5 table with the index's tokenizer (~0.1 ms). CJK
    characters come back as unigrams, as they are indexed. Raises ``sqlite3.Error`` for
    text SQLite cannot bind (lone surrogates: clean it first).
    """
    db = _tok_db()
    table, vocab = ("q", "qv") if stem else ("p", "pv")
    db.execute("BEGIN")
    try:
        db.execute(f"INSERT INTO {table}(rowid, t) VALUES(1, ?)", (fts_text(text),))
        rows = db.execute(f"SELECT term FROM {vocab} ORDER BY offset").fetchall()
    finally:
        db.execute("ROLLBACK")
    return [r[0] for r in rows]


def tokens_many(texts: list[str], only: list[Term] | None = None) -> list[set[str]]:
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
                       [(i + 1, fts_text(t)) for i, t in enumerate(texts)])
        if only is None:
            rows = db.execute("SELECT DISTINCT term, doc FROM qv")
        else:
            exact = [t.text for t in only if not t.prefix and not t.parts] + \
                [x for t in only if t.prefix for x in t.stems] + \
                [x for t in only for x in t.joined]
            conds, args = [], []
            if exact:
                conds.append(f"term IN ({','.join('?' * len(exact))})")
                args.extend(exact)
            for t in only:
                if t.prefix:
                    conds.append("(term >= ? AND term < ?)")
                    args.extend((t.text, prefix_upper(t.text)))
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
