"""The author names of a reference entry, as ``(surname, given)`` pairs: an author part
read as names (``Surname, I.``, given names first, or Vancouver ``Surname II``), the author
lists an entry can open with, and whether the list ends in "et al."."""

from __future__ import annotations

import re

from .years import _YEAR_RE


#: One author: ``(surname, given names or initials as printed, '' when none)``.
_Name = tuple[str, str]


#: The particles of surnames (``van Merrienboer``, ``de Bruijn``), as a regex alternation.
_PARTICLES_ALT = "van|von|de|der|den|da|di|del|la|le|du|dos|ter|ten"
#: 1-6 words each opening with a letter (any case: particles, a letter split from its word
#: as in ``Ł ukasz``) and made of word characters, apostrophes, periods and hyphens.
#: After the first word, none is a title's word (``Chow quotients of Grassmannians``).
_TITLE_WORDS = (r"(?-i:of|the|for|in|on|with|to|from|by|at|an|a|is|are|via|using|towards|"
                r"through|into|how|what|why)(?:\s|$)")
_NAME_PIECE_RE = re.compile(rf"[A-ZÀ-ÞĀ-ſ][\w'’.\-]*(?:\s+(?!{_TITLE_WORDS})"
                            r"[A-ZÀ-ÞĀ-ſ][\w'’.\-]*){0,5}", re.I)
#: A surname opening with an elided particle (``d’Ascoli``, ``dell’Orco``).
_ELIDED_RE = re.compile(r"[a-z]{1,4}['’][A-ZÀ-ÞĀ-ſ]")
_INITIALS_RE = re.compile(r"^(?:[A-Z]\.?-?\s?){1,4}$")


#: "et al." (also ``et. al.``, ``et al,``) or "and others" in an author list.
_ET_AL_ONLY_RE = re.compile(r"\bet\.?\s*al\b|\band\s+others\b", re.I)


def _has_et_al(body: str, title: str) -> bool:
    """Does the entry print "et al." / "and others" before its title (its whole text
    when no title was read)?"""
    if " al" not in body and "others" not in body:
        return False
    at = body.find(title[:30]) if title else -1
    head = body[:at] if at > 0 else body[:300]
    return bool(_ET_AL_ONLY_RE.search(head))


#: Particles before a surname, in lower case or capitalised (``Van Durme, B.``).
_PARTICLE = rf"(?:(?i:{_PARTICLES_ALT})\s+)*"
_SURNAME = _PARTICLE + r"[A-ZÀ-ÞĀ-ſ][\w'’\-]+"
_CAP = "A-ZÀ-ÞĀ-ſ"
_INITS = f"(?:[{_CAP}](?![\\w’'])\\.?\\s?-?\\s?)*[{_CAP}](?![\\w’'])\\.?"
_ONE = f"({_SURNAME}),\\s+{_INITS}"
_INVERTED_RE = re.compile(
    f"^{_ONE}((?:[,;]\\s+(?:and\\s+|AND\\s+|&\\s+)?{_SURNAME},\\s+{_INITS})*)"
    f"(?:,?\\s+(?:and|AND|&)\\s+{_SURNAME},\\s+{_INITS})?(?:,?\\s+et\\.?\\s*al\\.?)?")
_NAME_IN_LIST_RE = re.compile(f"({_SURNAME}),\\s+({_INITS})")


def _inverted_prefix(text: str) -> tuple[list[_Name], str] | None:
    """``(names, rest)`` when ``text`` opens with a ``Surname, I.`` author list (``Ba,
    J. L., Kiros, J. R., and Hinton, G. E.``), else None."""
    m = _INVERTED_RE.match(text)
    if not m or "," not in m.group(0):
        return None
    names = [(n.group(1), _given(n.group(2))) for n in _NAME_IN_LIST_RE.finditer(m.group(0))]
    rest = text[m.end():]
    if not rest[:1] in (".", ",", " ", "(", ":") and rest:
        return None
    return names, rest


def _comma_names(text: str) -> tuple[list[_Name], str] | None:
    """``(names, rest)`` of an entry opening with given-name-first names parted by commas
    and ended by a comma (``Louis J. Billera, Susan P. Holmes, and Karen Vogtmann,
    Geometry of ...``; ``S. Pinker, The Language Instinct: ...``): the list ends at its
    ``and`` name, followed by a capitalised part without a year (the title, maybe of one
    word: ``Triangulations``), or before the first part that is no name, which must then
    read as a title's start (:func:`_title_start`). None otherwise."""
    parts = text.split(", ", 60)
    names: list[_Name] = []
    for i, part in enumerate(parts[:-1]):
        last = part.startswith(("and ", "& "))
        pieces = [p for p in _AND_RE.split(part.split(" ", 1)[1] if last else part) if p]
        if not all(_given_first(p) for p in pieces):
            if last or not names or not _title_start(part):
                return None
            return names, ", ".join(parts[i:])
        names += [_surname(p) for p in pieces]
        if last or len(pieces) > 1:   # after "and Name" the title, though of one word
            after = parts[i + 1]
            return (names, ", ".join(parts[i + 1:])) if after[:1].isupper() and \
                not _YEAR_RE.search(after) else None
    return None


_AND_RE = re.compile(r"\s+(?:and|&)\s+")
#: A word of a name printed given names first: an initial (``J.``, ``J.-P.``, ``Yu.``), a
#: capitalised word with a lower-case letter, a particle or a suffix.
_GIVEN_WORD_RE = re.compile(r"(?:[A-ZÀ-ÞĀ-ſ][a-z]?\.(?:-?[A-ZÀ-ÞĀ-ſ]\.)*"
                            r"|[A-ZÀ-ÞĀ-ſ][\w'’\-]*[a-zà-ÿ][\w'’\-]*"
                            r"|van|von|de|der|den|da|di|del|la|le|du|dos|ter|ten|Jr\.|II|III)")


def _given_first(piece: str) -> bool:
    """Is ``piece`` one name printed given names first (``Louis J. Billera``, ``P. van
    Emde Boas``): 2-5 name words, the last a surname with a lower-case letter?"""
    words = piece.split()
    if not 2 <= len(words) <= 5 or not all(_GIVEN_WORD_RE.fullmatch(w) for w in words):
        return False
    last = next((w for w in reversed(words) if w not in ("Jr.", "II", "III")), "")
    return not last.endswith(".") and any(c.islower() for c in last) and last[:1].isupper()


def _title_start(part: str) -> bool:
    """Does a comma-separated part read as a title's start (two words or more, a word of
    three lower-case letters or more among them, no year)?"""
    words = part.split()
    return len(words) >= 2 and any(w.isalpha() and w.islower() and len(w) >= 3
                                   for w in words) and not _YEAR_RE.search(part)


#: A Vancouver author list ending in a period (``Harris JJ, Jolivet R, Attwell D.``,
#: ``Fraiman D, Chialvo DR, et al.``): its last initials' period ends the sentence.
_VANCOUVER_NAME = (rf"(?:(?:{_PARTICLES_ALT})\s)*[A-ZÀ-ÞĀ-ſ][\w'’\-]*"
                   r"(?:\s[A-Za-zÀ-ÿ][\w'’\-]+){0,3}\s[A-Z](?:\s?[A-Z]){0,2}")
_VANCOUVER_LIST_RE = re.compile(
    rf"^({_VANCOUVER_NAME}(?:,\s{_VANCOUVER_NAME}){{0,30}}(?:,?\set\sal)?)\.\s+(?=\S)")


_ET_AL_RE = re.compile(r"\bet\.?\s*al\b\.?|\band others\b|\(eds?\.?\)|\beds?\.$|"
                       r",?\s*\beditors?$", re.I)
_NAME_SPLIT_RE = re.compile(r",|;|\band\b|&")


def _names(part: str) -> list[_Name]:
    """``(surname, given)`` of each name of an author part (``Ba, J. L., Kiros, J. R., and
    Hinton, G. E`` or ``Jimmy Lei Ba, Jamie Ryan Kiros, and Geoffrey E Hinton``; given ''
    where none is printed); [] when it does not read as names."""
    part = part.strip().rstrip(",.;:")
    if not part or len(part) > 1200 or _THREE_DIGITS_RE.search(part):
        return []
    low = part.lower()
    if "et" in low or "other" in low or "ed" in low:   # all that _ET_AL_RE can match
        part = _ET_AL_RE.sub("", part)
    pieces = [p for p in map(str.strip, _NAME_SPLIT_RE.split(part))
              if p and p.rstrip(".").lower() not in _SUFFIXES]
    if not pieces or not all(_name_piece(p) for p in pieces):
        return []
    if _inverted(pieces):
        return [(_clean_surname(p), _given(pieces[i + 1]) if i + 1 < len(pieces) and
                 _INITIALS_RE.match(pieces[i + 1]) else "")
                for i, p in enumerate(pieces) if not _INITIALS_RE.match(p)]
    if all(_VANCOUVER_RE.match(p) for p in pieces):
        return [(_clean_surname(m.group(1)), _spread_initials(m.group(2)))
                for m in map(_VANCOUVER_RE.match, pieces)]
    return [_surname(p) for p in pieces]


#: Three digits anywhere (an author part holds at most two: ``(2014)`` is cut before).
_THREE_DIGITS_RE = re.compile(r"\d\D*\d\D*\d")


def _given(text: str) -> str:
    """The initials after a ``Surname,`` as printed, spaces normalised, a trailing comma
    dropped, and the last initial's period given back where the end of the author list
    took it (``Hinton, G. E`` -> ``G. E.``)."""
    given = " ".join(text.split()).strip(" ,;")
    return given + "." if given[-1:].isupper() else given


def _spread_initials(initials: str) -> str:
    """Vancouver initials printed run together (``ME``, ``R K``) as ``M. E.``, ``R. K.``."""
    return " ".join(f"{c}." for c in initials if not c.isspace())


#: A Vancouver name: surname words, then the initials in capitals without periods
#: (``Raichle ME``, ``Ponce-Alvarez A``, ``O’Malley KF``, ``Sachs R K``).
_VANCOUVER_RE = re.compile(rf"^((?:(?:{_PARTICLES_ALT})\s)*"
                           r"[A-ZÀ-ÞĀ-ſ][\w'’\-]*(?:\s[A-Za-zÀ-ÿ][\w'’\-]+)*)"
                           r"\s([A-ZÀ-ÞĀ-ſ](?:\s?[A-ZÀ-ÞĀ-ſ]){0,2})$")


def _name_piece(piece: str) -> bool:
    """Does a piece read as one name: 1-6 name-like words (letters, broken accents and
    particles in lower case allowed), the last one capitalised (the surname, or
    initials), none a title's word (``of``, ``for``; a group's leading ``the`` aside)?"""
    last = piece[piece.rfind(" ") + 1:]
    return bool(_NAME_PIECE_RE.fullmatch(piece)) and \
        (not last[:1].islower() or bool(_ELIDED_RE.match(last)))


def _inverted(pieces: list[str]) -> bool:
    """``Surname, I.`` order: the second piece (and every other one) is initials only."""
    return len(pieces) >= 2 and bool(_INITIALS_RE.match(pieces[1])) and \
        not _INITIALS_RE.match(pieces[0])


def _surname(name: str) -> _Name:
    """``(surname, given)`` of a name in given-name-first order: the surname its last word
    that is not initials or a suffix (``Jr.``), with its particles (``van Merrienboer``);
    the given names the words before it."""
    words = name.split()
    while words and words[-1].rstrip(".").lower() in _SUFFIXES:
        words.pop()
    if not words:
        return "", ""
    i = len(words) - 1
    for j in range(1, i):   # a lower-case particle before several words: P. van Emde Boas
        if words[j] in _PARTICLES:
            i = j
            break
    else:
        while i > 0 and words[i - 1].lower() in _PARTICLES:
            i -= 1
    given = " ".join(words[:i]).strip(",;")
    if " " in given:   # a letter split from its word: Ł ukasz
        given = _SPLIT_LETTER_RE.sub(r"\1", given)
    return _clean_surname(" ".join(words[i:])), given


#: A capital letter set apart from the rest of its word (``Ł ukasz``, ``Ond rej``).
_SPLIT_LETTER_RE = re.compile(r"\b([A-ZÀ-ÞĀ-ſ]) (?=[a-zß-ÿ]{2,}\b)")


_SUFFIXES = frozenset(("jr", "sr", "ii", "iii"))
_PARTICLES = frozenset(("van", "von", "de", "der", "den", "da", "di", "del", "la", "le",
                        "du", "dos", "ter", "ten"))


def _clean_surname(s: str) -> str:
    return s.strip().strip(".,")
