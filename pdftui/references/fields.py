"""A reference entry's fields (:func:`parse_entry`): authors' surnames and given names,
"et al.", year, title, venue, arXiv id and DOI.

Fields come from the usual shapes ``Authors. Year. Title. Venue.``,
``Authors (Year). Title. Venue.``, ``Authors. Title. Venue, Year.``,
``Authors, "Title," Venue, Year``, ``Names (Year), Title, Journal, Volume, pp.`` and
``Given Surname, Given Surname, and Given Surname, Title, Journal Volume (Year)`` (a title
ended by a comma runs to the first part that reads as a venue, a publisher, an edition or
a volume); an entry none of them fits keeps its raw text and no field that was not read
(no invented title or author). Each entry is parsed on its first :data:`PARSE_CHARS`
characters and stored up to :data:`MAX_RAW_CHARS`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from ..metadata import fix_accents
from .entries import _DITTO_RE
from .identifiers import _arxiv, _arxiv_of_doi, _doi, _join_broken_doi
from .names import (_VANCOUVER_LIST_RE, _comma_names, _has_et_al, _inverted_prefix, _Name,
                    _names, _title_start)
from .reference import MAX_RAW_CHARS, PARSE_CHARS, Reference
from .years import (_LEAD_YEAR_RE, _PAREN_YEAR_RE, _YEAR_RE, _is_year, _strip_year,
                    _year_after_authors, _year_after_title, _years)


_QUOTED_RE = re.compile(r"[\"“”‘’'`]{1,2}(.{8,300}?)[,.]?[\"“”’']{1,2}")
_URL_RE = re.compile(r"https?://\S+|www\.\S+")
_DIGIT_RE = re.compile(r"\d")
_NOT_LETTER_RE = re.compile(r"[\W\d_]")
#: Words after which a period does not end a sentence of an entry.
_ABBREV = frozenset("""vol no pp proc conf int intl eds ed trans j univ dept inc ltd
jr sr st dr mr ms vs cf fig eq sec ch nat acad sci natl assoc comput mach ieee acm adv
eng soc phys rev lett math stat appl res lab tech rep""".split())


def parse_entry(text: str, page: int, ordinal: int = 0, label: str = "") -> Reference:
    """One entry's fields from its text (see the module doc for the shapes read). Fields
    not found are left empty; the label, when the list printed none, is made from the
    first author and year (``Vaswani et al., 2017``) once both are read."""
    raw = text[:MAX_RAW_CHARS]
    body = _join_broken_doi(_normal_text(raw[:PARSE_CHARS]))
    doi = _doi(body)
    arxiv = _arxiv(body) or _arxiv_of_doi(doi)
    names, year, title, venue = _shape(body)
    authors = tuple(surname for surname, _given in names)
    if not label and authors and year:
        label = _author_year_label(authors, year)
    return Reference(ordinal, page, label, raw, authors, year, title, venue, arxiv, doi,
                     tuple(given for _surname, given in names),
                     bool(names) and _has_et_al(body, title))


#: A combining accent set apart from its letter by a space (``C ́el ́erier``: the mark
#: printed before the letter it sits on); moved after that letter so NFC composes them.
_LOOSE_MARK_RE = re.compile(r"\s([\u0300-\u036f])([^\W\d_])")
#: A combining accent (what the two patterns below look for).
_MARK_RE = re.compile(r"[\u0300-\u036f]")
#: A combining accent set apart by a space after the letter it sits on, before no letter
#: (``L’Abbe ́ KA``): joined to that letter.
_TRAILING_MARK_RE = re.compile(r"(?<=[^\W\d_])\s([\u0300-\u036f])(?![^\W\d_])")
#: ``€`` between letters: how some PDFs set an umlaut (``Sch€onauer``); the diaeresis.
_EURO_UMLAUT_RE = re.compile(r"(?<=[^\W\d_])€([aeiouAEIOU])")


def _normal_text(text: str) -> str:
    """``text`` with its accents joined to their letters (NFC; see :data:`_LOOSE_MARK_RE`,
    :data:`_EURO_UMLAUT_RE`, :func:`fix_accents`); ASCII text without a backquote (the one
    ASCII spacing accent) is returned as it is."""
    if text.isascii():
        return fix_accents(text) if "`" in text else text
    if _MARK_RE.search(text):
        text = _TRAILING_MARK_RE.sub(r"\1", _LOOSE_MARK_RE.sub(r"\2\1", text))
        text = text.replace("ı\u0308", "ï").replace("ı\u0301", "í")
    if "€" in text:
        text = _EURO_UMLAUT_RE.sub(lambda m: m.group(1) + "\u0308", text)
    return fix_accents(unicodedata.normalize("NFC", text))


def _author_year_label(authors: Sequence[str], year: int) -> str:
    if len(authors) == 1:
        return f"{authors[0]}, {year}"
    if len(authors) == 2:
        return f"{authors[0]} and {authors[1]}, {year}"
    return f"{authors[0]} et al., {year}"


#: What an entry's shape gives: ``(names, year, title, venue)``, empty where not read.
_Fields = tuple[list[_Name], int | None, str, str]


def _shape(body: str) -> _Fields:
    """``(surnames, year, title, venue)`` of an entry's text, empty where not read."""
    text = _URL_RE.sub(" ", body) if "http" in body or "www." in body else body
    years = _years(text)
    if ditto := _DITTO_RE.match(text):   # the authors of the entry before, not printed
        return _after_ditto(ditto.group(0), text[ditto.end():], years)
    quoted = _QUOTED_RE.search(text)
    authors = _names(text[:quoted.start()]) if quoted and \
        text[:quoted.start()].rstrip().endswith((",", ".", ":")) else []
    if authors:
        year = int(years[-1].group(1)) if years else None
        return authors, year, _tidy_title(quoted.group(1)), _venue(text[quoted.end():])
    inverted = _inverted_prefix(text)
    if inverted is not None:
        return _after_authors(*inverted, years)
    sentences = _sentences(text)
    if not sentences:
        return [], None, "", ""
    head = sentences[0]
    authors = _names(_strip_year(head))
    rest = sentences[1:]
    if not authors and (listed := _comma_names(text)):
        return _after_comma_names(*listed, years)
    if not authors and ":" in head:   # "Kudsk KA, Fabian TC: Title. Journal 1994"
        names, _colon, title = head.partition(":")
        authors = _names(names)
        head, rest = names, [title.strip(), *rest]
    if not authors and (vancouver := _VANCOUVER_LIST_RE.match(text)):
        return _after_vancouver(_names(vancouver.group(1)), text[vancouver.end():], years)
    if not authors:
        return _names_then_year(text) or (
            [], int(years[-1].group(1)) if years else None, "", "")
    year = _year_after_authors(head, rest)
    if year is not None and rest and _is_year(rest[0]):
        rest = rest[1:]
    title, rest = _first_title(rest)
    if year is None and years:
        year = _year_after_title(text, title, years)
    return authors, year, title, _venue(" ".join(rest)) if title else ""


def _after_authors(authors: list[_Name], rest: str, years: list[re.Match]
                   ) -> _Fields:
    """The fields of an entry whose authors are read, from the text after them: an
    optional year, then title sentence, then venue."""
    rest = rest.lstrip(" .,:")
    y = _LEAD_YEAR_RE.match(" " + rest)
    year = int(y.group(1)) if y else (int(years[-1].group(1)) if years else None)
    if y:
        rest = (" " + rest)[y.end():]
    sentences = _sentences(rest)
    if sentences and _is_year(sentences[0]):   # PeerJ: ``Whelan S. 2013. Title.``
        sentences.pop(0)
    title, sentences = _first_title(sentences)
    return authors, year, title, _venue(" ".join(sentences)) if title else ""


_NAMES_YEAR_RE = re.compile(r"^(?P<names>[^()\d]{2,300}?),?\s\(?(?P<year>(?:1[89]\d|20[0-3])\d)"
                            r"[a-z]?\)?[,.]?\s*(?P<rest>.*)$", re.S)
_IN_VENUE_RE = re.compile(r",\s+[Ii]n\s|\.\s+In\s")


def _names_then_year(text: str) -> _Fields | None:
    """The fields of ``Names (Year), Title, in Venue``, ``Names. Year. Title. Journal``
    and ``Names, Year Journal Volume Page`` (physics, no title): the names and the year;
    the title when an ``in`` marks where it ends, else as :func:`_comma_title` reads it.
    None when the text does not open that way."""
    m = _NAMES_YEAR_RE.match(text)
    if not m:
        return None
    authors = _names(m.group("names"))
    if not authors:
        return None
    rest = m.group("rest")
    cut = _IN_VENUE_RE.search(rest)
    if cut:
        title, venue = _tidy_title(rest[:cut.start()]), _venue(rest[cut.end():])
    else:   # "Title, Journal, 17, pp. 1-9" or "Title. Journal 30(3):642-653"
        title, venue = _comma_title(rest)
    if not title or not _title_like(title):
        title, venue = "", ""
    return authors, int(m.group("year")), title, venue


def _after_ditto(mark: str, rest: str, years: list[re.Match]) -> _Fields:
    """The fields of an entry that repeats the authors of the one before it: after
    ``(1982a),`` the title as :func:`_comma_title` reads it; after ``———.`` and a year as
    :func:`_after_authors` does, else as :func:`_after_comma_names` does (no names: the
    list gives them)."""
    if mark.startswith("("):
        title, venue = _comma_title(rest)
        return [], int(_YEAR_RE.search(mark).group(1)), \
            title if _title_like(title) else "", venue
    if _LEAD_YEAR_RE.match(" " + rest):
        return _after_authors([], rest, years)
    return _after_comma_names([], rest, years)


def _after_comma_names(authors: list[_Name], rest: str, years: list[re.Match]) -> _Fields:
    """The fields of an entry after its comma-ended names (see :func:`_comma_names`):
    the title and venue as :func:`_comma_title` reads them, the year the first one in
    parentheses (``Math. Z. 264 (2010)``), else the last one printed."""
    title, venue = _comma_title(rest)
    paren = _PAREN_YEAR_RE.search(rest)
    year = int(paren.group(1)) if paren else (int(years[-1].group(1)) if years else None)
    return authors, year, title if _title_like(title) else "", venue


def _comma_title(rest: str) -> tuple[str, str]:
    """``(title, venue)`` of the text after an entry's names and year where commas part
    the title from the venue (``Logical reversibility of computation, IBM J. Res.
    Develop., 17, pp. 525–532``): the title runs to the first comma-separated part that
    reads as a venue (:func:`_venue_part`), cut before a sentence that reads as one;
    without such a part, a first sentence of 3+ words followed by another (``Title.
    Journal 30(3):642-653``). ``("", "")`` when neither is found, or the title would
    read as a venue."""
    parts = rest.split(", ")
    k = next((i for i in range(1, min(len(parts), 12)) if _venue_part(parts, i)), 0)
    if k:
        title, venue = _title_sentence(", ".join(parts[:k])), ", ".join(parts[k:])
    else:
        sentences = _sentences(rest)
        if len(sentences) < 2 or len(sentences[0].split()) < 3:
            return "", ""
        title, venue = sentences[0], " ".join(sentences[1:])
    if _abbreviations(title) >= 2 or _NOT_TITLE_RE.match(title):
        return "", ""
    return _tidy_title(title), _venue(venue)


#: Words of a venue, a publisher or a kind of publication (a comma-separated part holding
#: one is no part of a title).
_VENUE_PART_RE = re.compile(
    r"^(?:in\s|pp?\.|pages?\b|vol\b|vol\.|volume\b|no\.|chapter\b|ch\.|\d)|\b(?:press|publishers?|"
    r"springer|verlag|wiley|elsevier|addison|kluwer|birkh|academic|university|univ\.|"
    r"proceedings|journal|conference|symposium|workshop|transactions|letters|lecture|"
    r"notes in|series|monographs|texts|studies in|handbook|advances in|preprint|to appear|"
    r"submitted|in press|technical|report|thesis|arxiv|eds?\.|edition|personal)\b", re.I)
#: A title that is no title (what some entries print where one would be).
_NOT_TITLE_RE = re.compile(r"(?:personal communication|preprint|to appear|in preparation|"
                           r"unpublished|submitted)\b", re.I)
#: An abbreviated word of a venue (``J.``, ``Phys.``, ``Comput.``).
_ABBREVIATION_RE = re.compile(r"\b[A-Z][a-z]{0,7}\.(?=[\s,]|$)")


def _abbreviations(text: str) -> int:
    """How many abbreviated words (``J.``, ``Rev.``) ``text`` holds."""
    return len(_ABBREVIATION_RE.findall(text))


def _venue_part(parts: list[str], i: int) -> bool:
    """Does comma-separated part ``i`` of an entry's tail read as its venue: venue or
    publisher words, two abbreviated words (or one and a number), a year alone, or a
    name followed by a volume number (``Science, 261``)?"""
    part = parts[i].strip()
    n = _abbreviations(part)
    return bool(_VENUE_PART_RE.search(part)) or n >= 2 or (n and _DIGIT_RE.search(part)) \
        or _is_year(part) or (i + 1 < len(parts) and len(part.split()) <= 6 and
                              bool(_VOLUME_RE.match(parts[i + 1].strip())))


#: A volume after a journal's or a series' name (``Science, 261``, ``..., vol. 25``).
_VOLUME_RE = re.compile(r"\d|(?:vol\b|vol\.|volume\b|no\.)", re.I)


#: A journal's volume and pages (``273:31–53``, ``5(2):86``).
_VOLUME_PAGES_RE = re.compile(r"\d+\s?(?:\(\w+\))?:\s?\w*\d")


def _title_sentence(title: str) -> str:
    """``title`` cut before a sentence of it that reads as a venue (``Is quantum
    mechanics useful? Philos. Trans. Roy. Soc. London Ser. A``) or as a publisher's name
    (up to four capitalised words: ``... Creates Language. Viking``)."""
    for m in _AFTER_MARK_RE.finditer(title):
        tail = title[m.end():]
        words = tail.split()
        if _abbreviations(tail) >= 2 or _VENUE_PART_RE.search(tail) or \
                _VOLUME_PAGES_RE.search(tail) or \
                len(words) <= 4 and all(w[:1].isupper() for w in words):
            return title[:m.start()]
    return title


def _after_vancouver(authors: list[_Name], rest: str, years: list[re.Match]
                     ) -> _Fields:
    """``(surnames, year, title, venue)`` of a Vancouver entry after its author list:
    title, then journal, then ``2012;75(5):762-77`` (the year the first after the title)."""
    sentences = _sentences(rest)
    lead = None
    if sentences and _is_year(sentences[0]):   # PeerJ: ``Whelan S. 2013. Title.``
        lead = _YEAR_RE.search(sentences.pop(0))
    title, sentences = _first_title(sentences)
    after = " ".join(sentences)
    later = _years(after)
    if lead is not None:
        later = [lead]
    year = int(later[0].group(1)) if later else (int(years[-1].group(1)) if years else None)
    return authors, year, title, _venue(after) if title else ""


def _sentences(text: str) -> list[str]:
    """``text`` cut at each period, question or exclamation mark that ends a sentence: not
    after an initial (``Yann N.``), an abbreviation (``Proc.``) or inside a number."""
    out: list[str] = []
    held: list[str] = []   # pieces of a sentence whose period did not end it
    for piece in _AFTER_MARK_RE.split(text.strip()):
        held.append(piece)
        if piece.endswith("."):
            bare = piece[piece.rfind(" ") + 1:-1].lstrip("([{,")
            if _is_initial(bare) or bare.lower() in _ABBREV:
                continue
        sentence = " ".join(held)
        held = []
        if sentence.endswith((".", "?", "!")):
            sentence = sentence.rstrip(".").strip()
        if sentence:
            out.append(sentence)
    if held:
        out.append(" ".join(held))
    return out


#: The spaces after a sentence mark (a candidate sentence end).
_AFTER_MARK_RE = re.compile(r"(?<=[.?!])\s+")


def _is_initial(word: str) -> bool:
    """``N``, ``J.-P``, ``A.-r`` style initials (the period after them does not end a
    sentence)."""
    return len(word) <= 6 and bool(_INITIAL_RE.fullmatch(word))


_INITIAL_RE = re.compile(r"[A-ZÀ-ÞĀ-ſ](?:\.-?[A-ZÀ-ÞĀ-ſa-z]){0,2}")


def _first_title(sentences: list[str]) -> tuple[str, list[str]]:
    """``(title, the sentences after it)`` from an entry's sentences after its names and
    year: the first sentence ('' when it does not read as a title), with the next one as
    its subtitle when it ends in a question mark and the next reads as no venue, with
    more to follow (``What is important ...? An international comparison of user views.
    BMC Health Serv Res 2005``)."""
    if not sentences:
        return "", []
    title, rest = sentences[0], sentences[1:]
    if title.endswith("?") and len(rest) >= 2 and _title_start(rest[0]) \
            and len(rest[0].split()) >= 3 and not _VENUE_PART_RE.search(rest[0]) \
            and not _abbreviations(rest[0]) and not _DIGIT_RE.search(rest[0]):
        title, rest = f"{title} {rest[0]}", rest[1:]
    title = _tidy_title(_title_sentence(_TITLE_TAIL_RE.sub("", title)))
    return (title if _title_like(title) else ""), rest


#: What follows a book's title after a comma (``Semigroups for Delay Equations, volume 10
#: of Research Notes in Mathematics``): volume, pages, chapter, edition.
_TITLE_TAIL_RE = re.compile(r",\s(?:volume|vol\.|pp\.|pages|chapter|ch\.|no\.)\s?\d+"
                            r"(?:[-–]\d+)?(?:[.,;]|\s+(?:of|in)\b).*$|,\s(?:volume|vol\.|pp\.|"
                            r"pages|chapter|ch\.|no\.)\s?\d+(?:[-–]\d+)?$"
                            r"|,\s(?:\w+\s)?(?:ed|edn|edition)\.?$", re.I)


def _tidy_title(title: str) -> str:
    """A title without quotes and end punctuation, nor a book's volume, pages or edition
    after a comma (:data:`_TITLE_TAIL_RE`), at most 300 characters."""
    if "," in title:
        title = _TITLE_TAIL_RE.sub("", title)
    return title.strip().strip("\"“”'’,.").strip()[:300]


def _title_like(title: str) -> bool:
    """Does a sentence read as a title (3 to 300 characters, some letters, not a venue
    or a page range alone)?"""
    letters = len(title) - len(_NOT_LETTER_RE.findall(title))
    if len(title) < 3 or letters < 3 or letters < 0.5 * len(title):
        return False
    return not _VENUE_WORD_RE.match(title)


_VENUE_WORD_RE = re.compile(r"(in|proceedings|proc|arxiv|preprint|journal)\b", re.I)
_IN_RE = re.compile(r"^\s*(In:?\s+)")
_PAGES_RE = re.compile(r"\d+\s*[–-]\s*\d")
_BEFORE_PAGES_RE = re.compile(r"[,.\s]*(pp\.?|pages?)?\s*$")


def _venue(rest: str) -> str:
    """The venue of the text after the title: leading ``In``, trailing pages, year and
    punctuation removed; '' when nothing is left."""
    v = rest.strip()
    if v.startswith("In"):
        v = _IN_RE.sub("", v)
    if pages := _PAGES_RE.search(v):   # the first page range and all after it
        v = _BEFORE_PAGES_RE.sub("", v[:pages.start()])
    v = " ".join(_YEAR_RE.sub("", v).split()).strip(" ,.;:()")
    return v[:200] if len(v) - len(_NOT_LETTER_RE.findall(v)) >= 2 else ""
