"""Turning untrusted strings into literal, highlighted ``rich.text.Text``.

Everything the TUI shows from a PDF (text, titles, outline entries, file names) goes through
:func:`literal`: :func:`pdftui.text.clean_text` strips escape sequences and control
characters, and ``Text`` never parses markup, so ``[bold]`` in a PDF stays ``[bold]``;
:func:`cell_safe` leaves only characters whose width in cells the terminal and rich agree
on, so that no glyph shifts a pane's right border.
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import TYPE_CHECKING

from rich.text import Text

from ..text import clean_text

if TYPE_CHECKING:
    from ..search.hits import SearchResult

#: Style of a query term inside shown text (reverse works without colour too).
TERM_STYLE = "bold reverse"
_OPERATORS = {"AND", "OR", "NOT", "NEAR"}
_WORD_RE = re.compile(r"\w+", re.UNICODE)


#: Shown for a private-use or unassigned character (a neutral-width box: one cell in every
#: terminal, unlike U+FFFD or U+25A1, which East Asian terminals draw two cells wide).
UNKNOWN_GLYPH = "\u25af"
#: Combining marks of the diacritic blocks (Latin accents, math accents such as the hat
#: of x̂): a terminal draws one that found no base, or that it does not combine, in a cell
#: of its own, where rich counts none. Combining marks of other scripts are kept.
_DIACRITIC_MARK = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff"
                             "\ufe20-\ufe2f]")


#: Diacritic marks set before a letter or digit, where no letter or digit carries them.
_MARK_BEFORE = re.compile("(?<![^\\W_])(?<!" + _DIACRITIC_MARK.pattern + ")("
                          + _DIACRITIC_MARK.pattern + "+)([^\\W_])")
#: Diacritic marks on nothing: after a space, a sign or the start of the text.
_LOOSE_MARK = re.compile("(?<![^\\W_])(?<!" + _DIACRITIC_MARK.pattern + ")"
                         + _DIACRITIC_MARK.pattern + "+")


def cell_safe(s: str) -> str:
    """``s`` with every character drawn at one agreed width (rich's ``cell_len`` = what a
    terminal draws): composed to NFC (e + U+0301 -> é), then private-use characters
    (U+E000-U+F8FF, planes 15-16: the math fonts' U+F8EE... bracket pieces, which rich counts
    one cell and fonts draw one or two) and unassigned ones replaced by
    :data:`UNKNOWN_GLYPH`; a combining diacritic set before its letter moved after it,
    one on no letter or digit dropped, format characters (soft hyphen, zero-width space
    and joiner) dropped. ASCII is returned as it is."""
    if s.isascii():
        return s
    # a PDF often sets the accent before its letter ("dp(g, \u0304g)" for dp(g, ḡ)): put
    # it after the letter, compose, and keep a mark on a letter or digit (x̄, P̃); one
    # with nothing to sit on is dropped
    s = _MARK_BEFORE.sub(r"\2\1", s)
    s = _LOOSE_MARK.sub("", unicodedata.normalize("NFC", s))
    out = []
    for ch in s:
        cat = unicodedata.category(ch)
        if cat in ("Co", "Cn"):
            out.append(UNKNOWN_GLYPH)
        elif cat != "Cf":
            out.append(ch)
    return "".join(out)


def literal(s: object, style: str = "", keep_newlines: bool = False) -> Text:
    """``s`` cleaned (:func:`pdftui.text.clean_text`, :func:`cell_safe`) and wrapped as a
    literal :class:`Text` (never markup)."""
    return Text(cell_safe(clean_text("" if s is None else str(s),
                                     keep_newlines=keep_newlines)), style=style)


def terms_pattern(query: str) -> re.Pattern[str] | None:
    """A case-insensitive regex matching the query's words (and words they begin) and its
    quoted phrases whole, or None (:mod:`pdftui.search.query` syntax).

    FTS operators in capitals and one-letter words are left out, and so are the keyword
    arm's stopwords (:data:`pdftui.search.keyword.STOPWORDS`: "the", "of"), unless the
    query holds nothing else, as :func:`pdftui.search.keyword.parse_query` does; ``*`` and
    quotes are dropped (the words between them count, stopwords too); excluded words and
    field values are not highlighted.
    """
    from ..search.keyword import STOPWORDS
    from ..search.query import parse, phrase_regex

    q = parse(clean_text(query or ""))
    words = []
    for w in _WORD_RE.findall(" ".join(q.words)):
        if w in _OPERATORS or (len(w) < 2 and not w.isdigit() and ord(w[0]) < 0x2E80):
            continue
        if w.lower() not in (x.lower() for x in words):
            words.append(w)
    content = [w for w in words if w.casefold() not in STOPWORDS]
    if content:
        words = content
    phrases = [p for p in map(phrase_regex, q.phrases) if p]
    if not words and not phrases:
        return None
    words.sort(key=len, reverse=True)
    alt = "|".join(phrases + [rf"(?<!\w)(?:{re.escape(w)})\w*" for w in words])
    return re.compile(alt, re.IGNORECASE)


def highlight(text: Text, pattern: re.Pattern[str] | None, style: str = TERM_STYLE) -> int:
    """Style every match of ``pattern`` in ``text`` (in place); returns the match count."""
    if pattern is None:
        return 0
    return text.highlight_regex(pattern, style=style)


def count_matches(s: str, pattern: re.Pattern[str] | None) -> int:
    """How many matches of ``pattern`` the plain string ``s`` holds."""
    return 0 if pattern is None else sum(1 for _ in pattern.finditer(s))


def page_ref(page: int | None, label: str | None) -> str:
    """"7" or "7 (vii)" when the printed label differs from the number."""
    if page is None:
        return ""
    label = clean_text(label or "")
    return f"{page} ({label})" if label and label != str(page) else str(page)


def searched_parts(coverage: dict, mode: str, scope: str = "") -> list[str]:
    """["searched 4 of 105", "doc:attention", "semantic 4 of 4"] (then "scope: marked keep"
    after the field when ``scope`` is given): the documents a search
    covered, from its ``coverage`` (:meth:`pdftui.search.engine.Engine.coverage`, tolerant
    of keys missing). A query field (``doc:``, ``year:``...) narrows "searched" to the
    documents it admitted and is named; ``scope`` ("scope: marked keep") names a scope
    the caller chose, whose size is already the total. Semantic coverage inside a field
    is exact when every document is embedded, else an upper bound ("up to 3 of 4")."""
    total = coverage.get("total", "?")
    searched = coverage.get("searched", "?")
    semantic = f"semantic {coverage.get('semantic_searched', '?')} of {total}"
    fields = coverage.get("fields")
    named = []
    if isinstance(fields, dict) and isinstance(fields.get("documents"), int):
        searched = fields["documents"]
        named.append(clean_text(str(fields.get("query", ""))))
        sem = coverage.get("semantic_searched")
        if not coverage.get("embedding"):
            semantic = f"semantic {searched} of {searched}"
        elif isinstance(sem, int):
            semantic = f"semantic up to {min(sem, searched)} of {searched}"
    parts = [f"searched {searched} of {total}", *filter(None, [*named, scope])]
    if mode != "keyword":
        parts.append(semantic)
    return parts


def searched_text(coverage: dict, mode: str, scope: str = "") -> str:
    """:func:`searched_parts` joined with " · "."""
    return " · ".join(searched_parts(coverage, mode, scope))


def fit_parts(parts: list[str], width: int, sep: str = " · ") -> list[str]:
    """``parts`` joined by ``sep`` into lines of at most ``width`` terminal columns (wide
    characters count two), a line broken
    only between two parts (the separator ends none: "…semantic 4 of 4 ·" / "hybrid"
    never happens); a part wider than ``width`` has a line of its own."""
    from rich.cells import cell_len

    lines: list[str] = []
    for part in filter(None, parts):
        if lines and cell_len(lines[-1]) + cell_len(sep) + cell_len(part) <= width:
            lines[-1] += sep + part
        else:
            lines.append(part)
    return lines


def field_note_removed(note: str, coverage: dict) -> str:
    """``note`` without the "doc:x: 4 of 105 documents" part that :func:`searched_text`
    now says (the rest of the note, e.g. a weak answer's, is kept)."""
    fields = coverage.get("fields")
    if not isinstance(fields, dict):
        return note
    said = f"{fields.get('query')}: {fields.get('documents')} of {fields.get('of')} documents"
    return "; ".join(p for p in note.split("; ") if p != said)


def coverage_line(result: SearchResult, show_timings: bool = True, scope: str = "") -> str:
    """"searched 98 of 105 · semantic 60 of 105 · 2 skipped · hybrid · 12 ms" from a
    :class:`~pdftui.search.hits.SearchResult` (tolerant of coverage keys missing); the
    first part is :func:`searched_text` (a query field or ``scope`` named); a note ("no
    document holds a query word: semantic hits only") follows on a second line."""
    cov = result.coverage.to_json() if result.coverage is not None else {}
    parts = [searched_text(cov, result.mode, scope)]
    skipped = cov.get("skipped")
    n_skipped = len(skipped) if isinstance(skipped, (list, tuple)) else (skipped or 0)
    if n_skipped:
        parts.append(f"{n_skipped} skipped")
    indexing = cov.get("indexing")
    if indexing:
        parts.append(f"{len(indexing)} indexing")
    embedding = cov.get("embedding")
    n_emb = len(embedding) if isinstance(embedding, (list, tuple)) else (embedding or 0)
    if n_emb and result.mode != "keyword":
        parts.append(f"{n_emb} embedding")
    parts.append(f"{len(result.hits)} hits")
    if show_timings and result.elapsed_ms is not None:
        # to a tenth first, as the JSON answer says it, then whole milliseconds
        parts.append(f"{round(float(result.elapsed_ms), 1):.0f} ms")
    line = " · ".join(parts)
    note = field_note_removed(str(cov.get("note") or ""), cov)
    if note:  # on a line of its own, so a narrow screen never cuts it off
        line += "\n" + clean_text(note)
    return line


def _fit(name: str, width: int) -> str:
    return name if len(name) <= width else name[: max(1, width - 1)] + "…"


def unique_names(docs: list[str], width: int, shorten) -> dict[str, str]:
    """A name per document fitted to ``width`` columns that tells apart documents whose
    short names collide ("attention-is-all-…" twice for v5 and v7): a colliding name is
    shown from a little before the first character where its full names differ
    ("…762v5-attention…"). ``shorten(doc, width)`` gives the first try."""
    names = {d: shorten(d, width) for d in dict.fromkeys(docs)}
    groups: dict[str, list[str]] = {}
    for d, n in names.items():
        groups.setdefault(n, []).append(d)
    for same in groups.values():
        if len(same) < 2:
            continue
        stems = {d: d.rsplit("/", 1)[-1].removesuffix(".pdf") for d in same}
        for d in same:
            others = [stems[o] for o in same if o != d]
            common = min(len(os.path.commonprefix([stems[d], o])) for o in others)
            start = max(0, common - 4)
            names[d] = _fit(("…" if start else "") + stems[d][start:], width)
    return names


def hidden_line(h, pattern=None, limit: int = 300) -> Text:
    """One run of hidden text (anything with ``kind`` and ``text``: a
    :class:`pdftui.hidden_text.HiddenSpan`, a stored row): its label
    (``[hidden: invisible text]``) in bold, its text dimmed, at most ``limit``
    characters, the query's words highlighted."""
    from ..hidden_text import label
    from ..text import clip

    out = Text()
    out.append(label(h.kind) + " ", style="bold dim")
    body = literal(clip(h.text, limit), style="dim")
    highlight(body, pattern)
    out.append_text(body)
    return out
