"""Identifiers as typed: arXiv ids, DOIs, version strings, section numbers, ``C++``, ``RFC 7231``.

The keyword index's word tokenizer (unicode61) splits ``1706.03762`` into ``1706`` and
``03762``, ``x86_64`` into ``x86`` and ``64``, and drops the ``++`` of ``C++``, so such tokens
can never be matched as one term. This module finds them in text, the same way for the
index (:func:`identifiers_in`, over page and section text) and for the query
(:func:`normalize`), so that a query identifier is matched by exact string equality in the
cache's ``page_idents`` / ``section_idents`` tables.

An identifier is a whitespace-delimited token, stripped of surrounding punctuation and of a
scheme prefix (``arXiv:``, ``doi:``, ``https://doi.org/``, ``https://arxiv.org/abs/``), that

- holds a digit and a connector (``.``, ``/``, ``-``, ``_``, ``+``, ``#``) between word
  characters: ``1706.03762``, ``quant-ph/9508027``, ``10.7717/peerj-cs.118``, ``v1.2.3``,
  ``x86_64``, ``3.2.1``, ``20.04``;
- or is a word followed by ``++`` or ``#``: ``C++``, ``C#``, ``F#``;
- or is an upper-case acronym and a number, written together, with a hyphen or with one
  space: ``RFC 7231``, ``ISO-8601``, ``PEP484`` (normalised to ``rfc7231``).

Identifiers are case-folded (NFKC), with every dash read as ``-`` (a PDF prints the range
``2–4`` with an en dash); commas and semicolons end a token (``[2–4,8]``). A versioned arXiv id (``1706.03762v7``,
``quant-ph/9508027v2``) is also indexed without its version, so ``1706.03762`` finds every
version. Pure functions; no SQLite.
"""

from __future__ import annotations

import re
import unicodedata

MAX_LEN = 80
"""Longest identifier kept (characters); longer tokens are URLs or garbage."""

#: Dashes a PDF prints where a person types "-" (hyphen, non-breaking hyphen, figure dash,
#: en and em dash, minus sign).
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2212", "-"))
_SPLIT_RE = re.compile(r"[\s,;]+")
_STRIP = "\"'`()[]{}<>.,;:!?*«»“”‘’"
_SCHEME_RE = re.compile(
    r"^(?:https?://(?:dx\.)?doi\.org/|https?://arxiv\.org/(?:abs|pdf)/|arxiv:|doi:)", re.I)
_IDENT_RE = re.compile(r"^(?=[^\s]*\d)\w+(?:[./\-_]\w+)+$|^\w+(?:\+\+|#)$")
_ACRONYM_RE = re.compile(r"(?<![\w.\-/])([A-Z]{2,6})[ \-]?(\d{2,6})(?![\w.\-/])")
_ARXIV_VERSION_RE = re.compile(r"^((?:\d{4}\.\d{4,5})|(?:[a-z\-]+(?:\.[a-z]{2})?/\d{7}))v\d+$")


def _strip(token: str) -> str:
    """A token without surrounding punctuation (a trailing ``+`` / ``#`` is kept)."""
    token = token.strip(_STRIP)
    token = _SCHEME_RE.sub("", token)
    return token.strip(_STRIP)


def normalize(token: str) -> str | None:
    """The identifier a single token stands for (case-folded), or None when it is a plain
    word or number. Never raises. ``normalize("arXiv:1706.03762v7") == "1706.03762v7"``,
    ``normalize("C++") == "c++"``, ``normalize("attention") is None``."""
    if not isinstance(token, str) or not token or len(token) > MAX_LEN * 2:
        return None
    token = unicodedata.normalize("NFKC", token).translate(_DASHES)
    m = _ACRONYM_RE.fullmatch(token.strip(_STRIP))
    if m:
        return (m.group(1) + m.group(2)).casefold()
    t = _strip(token)
    if not t or len(t) > MAX_LEN or not _IDENT_RE.match(t):
        return None
    return t.casefold()


def variants(ident: str) -> list[str]:
    """The forms under which an identifier is indexed: itself, plus an arXiv id without
    its version suffix (``1706.03762v7`` -> ``1706.03762``)."""
    out = [ident]
    m = _ARXIV_VERSION_RE.match(ident)
    if m:
        out.append(m.group(1))
    return out


def identifiers_in(text: str) -> dict[str, int]:
    """Every identifier of ``text`` with its count, ``{identifier: occurrences}`` (with the
    :func:`variants` of each). Linear in the text; never raises on any string."""
    if not isinstance(text, str) or not text:
        return {}
    text = unicodedata.normalize("NFKC", text).translate(_DASHES)
    out: dict[str, int] = {}

    def add(ident: str) -> None:
        for v in variants(ident):
            out[v] = out.get(v, 0) + 1

    for m in _ACRONYM_RE.finditer(text):
        add((m.group(1) + m.group(2)).casefold())
    for token in _SPLIT_RE.split(text):
        if not any(c.isdigit() or c in "+#" for c in token):
            continue
        ident = normalize(token)
        if ident is not None:
            add(ident)
    return out


def query_identifiers(words: list[str]) -> list[tuple[int, int, str]]:
    """Identifiers in a query's loose words, ``[(first word, last word + 1, identifier)]``:
    single tokens (:func:`normalize`) and acronym + number pairs over two words
    (``["RFC", "7231"]`` -> ``(0, 2, "rfc7231")``). Words are taken as typed."""
    out: list[tuple[int, int, str]] = []
    i = 0
    while i < len(words):
        w = words[i]
        if i + 1 < len(words) and re.fullmatch(r"[A-Z]{2,6}", w) and \
                re.fullmatch(r"\d{2,6}", words[i + 1]):
            out.append((i, i + 2, (w + words[i + 1]).casefold()))
            i += 2
            continue
        ident = normalize(w.rstrip("*")) if not w.endswith("*") else None
        if ident is not None:
            out.append((i, i + 1, ident))
        i += 1
    return out
