"""The query syntax: what a person types, parsed into a typed :class:`Query`. Never raises.

Syntax (the ``?`` help and the README show the same list):

- plain words rank as always (per-document BM25 and the semantic arm); ``word*`` is a prefix;
- ``"exact phrase"``: only pages / sections holding the words adjacent and in order;
  an unclosed quote runs to the end of the query; a quoted single word is a plain word;
  ``"exact phr*"``: its last word is a prefix (what search as you type runs);
- ``-word``, ``-word*``, ``-"a phrase"``: pages and sections holding it leave every arm;
  a ``-`` before a digit (``-1``) or alone is text;
- fields (case-insensitive names; a value may be quoted: ``title:"made simple"``):
  ``title:WORD``, ``author:NAME``, ``year:2017``, ``year:2015..2019`` (or ``2015-2019``),
  ``year:>2018`` (``>=``, ``<``, ``<=``), ``doc:GLOB`` (file name; no glob character
  means "contains"), ``section:WORD`` (section title); ``-field:VALUE`` excludes.
  A word with a colon that is not a known field stays text (``TODO: fix``, ``38.101``,
  ``column:term``); a year field whose value is no year is searched as words (with a note).
- identifiers (:mod:`pdftui.identifiers`) among the words, such as ``1706.03762`` or
  ``C++``, are matched as typed by the keyword arm;
- a name matches however it is spaced: two adjacent words also match them closed up
  (``big bird``: BigBird, BIGBIRD; :func:`pdftui.search.keyword.join_pairs`), and a
  closed-up word its open or hyphenated form (``FlashAttention``: flash attention,
  Flash-Attention), in the ranking, phrases, exclusions and ``section:``; spaced words
  of ``title:`` match a closed-up title word too.

``AND``, ``OR``, ``NOT`` and ``NEAR`` are ordinary words (FTS5 syntax has no meaning here).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from ..identifiers import query_identifiers
from .keyword import clean_query


class FieldName(str, enum.Enum):
    """The known fields (``name:value``)."""

    TITLE = "title"
    AUTHOR = "author"
    YEAR = "year"
    DOC = "doc"
    SECTION = "section"


@dataclass(frozen=True, slots=True)
class Field:
    """One ``name:value`` restriction. ``years`` is the inclusive ``(first, last)`` range
    of a year field (either end may be None: open)."""

    name: FieldName
    value: str
    negated: bool = False
    years: tuple[int | None, int | None] | None = None

    def __str__(self) -> str:
        v = f'"{self.value}"' if " " in self.value else self.value
        return f"{'-' if self.negated else ''}{self.name.value}:{v}"


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query.

    ``words``: loose words as typed (``fin*`` keeps its star); ``phrases``: required
    phrases (two or more words, quotes removed); ``excluded``: words and phrases whose
    pages leave every arm; ``fields``: restrictions; ``identifiers``: the identifiers
    among ``words``, case-folded; ``notes``: what the parser could not take as meant.
    """

    raw: str
    words: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    fields: tuple[Field, ...] = ()
    identifiers: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())
    identifier_words: tuple[str, ...] = ()
    loose: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The positive free text the keyword arm ranks with: words, then phrases."""
        return " ".join(self.words + self.phrases)

    @property
    def semantic_text(self) -> str:
        """What the semantic arm embeds: the free text without prefix stars; "" when it
        holds no letter or digit (punctuation alone has no meaning to embed)."""
        text = " ".join(w.rstrip("*") for w in self.words + self.phrases).strip()
        return text if any(ch.isalnum() for ch in text) else ""

    @property
    def has_syntax(self) -> bool:
        """True when the query uses phrases, exclusions or fields."""
        return bool(self.phrases or self.excluded or self.fields)

    def field_values(self, name: FieldName, negated: bool = False) -> list[Field]:
        """The fields of one name (positive ones, or the negated ones)."""
        return [f for f in self.fields if f.name == name and f.negated == negated]


_TYPED_WORD = re.compile(r"(?:\w+-)*\w{2,}")
_PREFIX_FIELDS = ("title", "author", "section")


def as_you_type(text: str) -> str:
    """The query to run while the user is still typing ``text`` (no space after its last
    word yet), so the list does not empty and refill between keystrokes:

    - an unfinished plain word of 2+ word characters (``dropo``, ``multi-he``) becomes a
      prefix (``dropo*``; a prefix also matches the typed word's own stem, so a word typed
      in full finds what it finds after its space); a number stays as typed; a single
      letter after other words is left out (``dropout r`` -> ``dropout``);
    - inside an unclosed phrase the phrase's last word is a prefix, from its first
      letter on (``"scaled dot-pro`` -> ``"scaled dot-pro*"``); a ``title:``,
      ``author:`` or ``section:`` value too (``author:v`` -> ``author:v*``);
    - an unfinished exclusion (``-tra``, ``-"multi he``) is left out until it is finished:
      excluding every page holding "tra" would empty the list for one keystroke; so is a
      field without its value yet (``title:``, ``year:201``; alone, the name runs as it
      did before its colon: ``author:`` -> ``author*``).

    Anything else (a finished word, a space at the end, a ``doc:`` or ``year:`` value) is
    returned as it is. Never raises."""
    if not isinstance(text, str):
        return ""
    if not text or text[-1].isspace():
        return text
    if text.count('"') % 2:   # inside an unclosed quote
        q = text.rfind('"')
        if q > 0 and text[q - 1] == "-" and (q == 1 or text[q - 2].isspace()):
            return text[: q - 1].rstrip() or text
        body = text[q + 1:]
        # inside a phrase even one letter narrows ("scaled d" -> "scaled d*")
        if re.search(r"\w{2,}$" if len(body.split()) < 2 else r"\w$", body) \
                and not re.search(r"(?<!\w)\d+$", body):
            return text + '*"'
        return text
    cut = len(text) - len(text.split()[-1])
    last = text[cut:]
    if last.startswith("-") and len(last) > 1 and (last[1].isalpha() or last[1] == '"'):
        return text[:cut].rstrip() or text
    name, colon, value = last.partition(":")
    if colon and name.lower() in _NAMES and (
            not value or (name.lower() == "year" and parse_years(value) is None)):
        # "title:", "year:201": not a field yet; alone, the name as typed before the colon
        return text[:cut].rstrip() or as_you_type(name)
    if colon and name.lower() in _PREFIX_FIELDS:
        return text + "*" if re.fullmatch(r"\w+", value) else text
    if _TYPED_WORD.fullmatch(last) and not last.replace("-", "").isdigit():
        return text + "*"
    if re.fullmatch(r"[^\W\d_]", last) and text[:cut].strip():
        return text[:cut].rstrip()   # "dropout r": one letter says nothing yet
    return text


def phrase_regex(phrase: str) -> str:
    """A regular expression (source, to compile with re.IGNORECASE) matching a phrase's
    words in order, separated by any non-word characters or none and each allowed a
    suffix (``multi-head attention`` matches "Multi-Head Attention" and "multi head
    attentions"; ``chunk server`` "chunkserver", as :meth:`.keyword.KeywordIndex.phrase_rows`
    finds it); the empty string for a phrase without words."""
    words = re.findall(r"\w+", phrase)
    if not words:
        return ""
    return r"(?<!\w)" + r"[\W_]*".join(re.escape(w) + r"\w*" for w in words)


_FIELD_RE = re.compile(r"^([A-Za-z]+):(.*)$", re.S)
_YEAR_RE = re.compile(r"^(\d{4})$")
_RANGE_RE = re.compile(r"^(\d{4})\s*(?:\.\.|-|–|—)\s*(\d{4})$")
_CMP_RE = re.compile(r"^(>=|<=|>|<)\s*(\d{4})$")
_NAMES = {f.value: f for f in FieldName}


def parse_years(value: str) -> tuple[int | None, int | None] | None:
    """``"2017"`` -> (2017, 2017); ``"2015..2019"`` / ``"2015-2019"`` -> (2015, 2019);
    ``">2018"`` -> (2019, None); ``"<=2000"`` -> (None, 2000); anything else -> None."""
    v = value.strip()
    if m := _YEAR_RE.match(v):
        y = int(m.group(1))
        return (y, y)
    if m := _RANGE_RE.match(v):
        a, b = sorted((int(m.group(1)), int(m.group(2))))
        return (a, b)
    if m := _CMP_RE.match(v):
        op, y = m.group(1), int(m.group(2))
        return {">": (y + 1, None), ">=": (y, None), "<": (None, y - 1),
                "<=": (None, y)}[op]
    return None


def _tokens(raw: str) -> list[tuple[str, bool, bool]]:
    """``raw`` cut into ``(text, quoted, negated)`` pieces: quoted phrases (an unclosed
    quote runs to the end), and whitespace-delimited tokens; a field name directly
    before a quote (``title:"a b"``) is kept with its quoted value."""
    out: list[tuple[str, bool, bool]] = []
    i, n = 0, len(raw)
    while i < n:
        if raw[i].isspace():
            i += 1
            continue
        neg = raw[i] == "-" and i + 1 < n and (raw[i + 1] == '"' or raw[i + 1].isalpha())
        start = i + 1 if neg else i
        if raw[start] == '"':
            end = raw.find('"', start + 1)
            end = n if end < 0 else end
            out.append((raw[start + 1:end], True, neg))
            i = end + 1
            continue
        j = start
        while j < n and not raw[j].isspace() and raw[j] != '"':
            j += 1
        tok = raw[start:j]
        if j < n and raw[j] == '"' and tok.endswith(":") and tok[:-1].lower() in _NAMES:
            end = raw.find('"', j + 1)
            end = n if end < 0 else end
            tok += raw[j + 1:end]
            j = end + 1
        out.append((tok, False, neg))
        i = j
    return out


def parse(text: object) -> Query:
    """User text -> :class:`Query`. Never raises: any value (None, bytes, control
    characters, 10,000 characters) gives a Query; at worst its words are the cleaned text."""
    try:
        return _parse(clean_query(text))
    except Exception:  # noqa: BLE001 - the parser must never fail a search
        raw = clean_query(text)
        return Query(raw, words=tuple(raw.split()))


def _parse(raw: str) -> Query:
    words: list[str] = []
    phrases: list[str] = []
    excluded: list[str] = []
    fields: list[Field] = []
    notes: list[str] = []
    for tok, quoted, neg in _tokens(raw):
        if quoted:
            body = " ".join(tok.split())
            if not body:
                continue
            if neg:
                excluded.append(body)
            elif len(body.split()) > 1:
                phrases.append(body)
            else:
                words.append(body)
            continue
        m = _FIELD_RE.match(tok)
        name = _NAMES.get(m.group(1).lower()) if m else None
        value = " ".join(m.group(2).split()) if m else ""
        if name is not None and not value:
            notes.append(f"{name.value}: has no value (write {name.value}:VALUE, no space):"
                         " left out")
            continue
        if name is not None:
            if name == FieldName.YEAR:
                years = parse_years(value)
                if years is None:
                    notes.append(f"year:{value} is not a year (2017, 2015..2019, >2018):"
                                 " searched as words")
                    words.extend(value.split())
                    continue
                fields.append(Field(name, value, neg, years))
            else:
                fields.append(Field(name, value, neg))
            continue
        if neg:
            excluded.append(tok)
        else:
            words.append(tok)
    idents: dict[str, str] = {}
    used: set[int] = set()
    for a, b, ident in query_identifiers(words):
        idents.setdefault(ident, " ".join(words[a:b]))
        used.update(range(a, b))
    loose = tuple(w for i, w in enumerate(words) if i not in used)
    return Query(raw, tuple(words), tuple(phrases), tuple(excluded), tuple(fields),
                 tuple(idents), tuple(notes), tuple(idents.values()), loose)
