"""What a heading's text looks like: its numbering ("3.2", "A.1", "IV.", "§ 3."), its
normalised title, and when two titles are the same heading.

Shared by the heading detector (:mod:`pdftui.headings`), the sections builder, the
reader and the bench. Pure string functions; nothing here imports PyMuPDF or Textual.
"""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher

__all__ = [
    "ABSTRACT_WORDS",
    "NUMBER_ONLY",
    "is_arxiv_stamp",
    "is_number_only",
    "join_wrapped",
    "normalise_title",
    "numbering",
    "split_heading",
    "squash_title",
    "strip_number",
    "titles_match",
]

_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def normalise_title(text: str) -> str:
    """Lower-case NFKC text with every run of non-alphanumerics collapsed to one space."""
    text = unicodedata.normalize("NFKC", text).lower()
    return _NON_ALNUM.sub(" ", text).strip()


def join_wrapped(first: str, second: str) -> str:
    """A heading's two lines as one: a word hyphenated at the line end joined again
    ("and reintro-" + "ducing packages" -> "and reintroducing packages")."""
    a, b = first.rstrip(), second.strip()
    if a.endswith("-") and a[-2:-1].isalpha() and b[:1].islower():
        return a[:-1] + b
    return f"{a} {b}"


def squash_title(text: str) -> str:
    """:func:`normalise_title` without its spaces."""
    return normalise_title(text).replace(" ", "")


def titles_match(a: str, b: str, threshold: float = 0.8) -> bool:
    """True when two titles are the same heading: equal ignoring case/punctuation/spaces,
    one a prefix of the other (>= 60% of the longer), or difflib ratio >= ``threshold``."""
    sa, sb = squash_title(a), squash_title(b)
    if not sa or not sb:
        return False
    if sa == sb:
        return True
    short, long_ = (sa, sb) if len(sa) <= len(sb) else (sb, sa)
    if long_.startswith(short) and len(short) >= 0.6 * len(long_) and len(short) >= 3:
        return True
    return SequenceMatcher(None, sa, sb, autojunk=False).ratio() >= threshold


# Numbering patterns. Depth is the number of dotted components ("3.2" -> 2).
#: what separates the numbers of a heading's numbering: a full stop, or a dot set at
#: mid-height as Chinese and Japanese typesetting numbers sections ("1∙1", "2·3",
#: "2・3"; a full-width "２．３" is "2.3" after NFKC). Between two digits at a row's
#: start it separates numbers, it multiplies nothing.
_SEP = "[.\u00b7\u2219\u30fb\uff0e]"
_SEPS = re.compile(_SEP)
_NUMS = rf"\d{{1,2}}(?:{_SEP}\d{{1,2}})"
_NUM_ARABIC = re.compile(rf"^({_NUMS}{{0,4}})\.?(?=\s+\S|$)")
_NUM_LETTER = re.compile(r"^([A-Z](?:\.\d{1,2}){0,4})\.?(?=\s+\S|$)")
#: "§ 3." (a section sign before the number): label "§3"
_NUM_SECTION_SIGN = re.compile(r"^§\s*(\d{1,3}(?:\.\d{1,2}){0,3})\.?(?=\s+\S|$)")
#: a first word holding brackets or operators: a formula after a letter ("Z P(x)logP(x)dx"),
#: not a heading's title after its letter
_FORMULA_WORD = re.compile(r"^[^\s()\[\]{}=+<>^|]*[()\[\]{}=+<>^|]")
_NUM_ROMAN = re.compile(r"^([IVXLC]{1,6})\.(?=\s+\S|$)")
_NUM_WORD = re.compile(
    r"^(?:chapter|section|part|appendix|lecture|lesson|article)\s+([0-9]{1,3}|[IVXLC]{1,6}|[A-Z])\b",
    re.I,
)
_NUMBER_PREFIX = re.compile(
    rf"^\s*(?:§\s*(?=\d))?(?:(?:chapter|section|part|appendix)\s+)?(?:{_NUMS}*|[A-Z](?:\.\d{{1,2}})*|[IVXLC]{{1,6}})\.?\s+",
    re.I,
)
_NUMBER_ONLY = re.compile(
    rf"^\s*(?:§\s*(?=\d))?(?:(?:chapter|section|part|appendix)\s+)?(?:{_NUMS}*|[A-Z](?:\.\d{{1,2}})*|[IVXLC]{{1,6}})\.?\s*$",
    re.I,
)
#: an abstract's label, in English and in the other languages papers print one in
#: (normalised: :func:`normalise_title`; "Zusammenfassung" over a German abstract)
ABSTRACT_WORDS = ("abstract|summary|zusammenfassung|kurzfassung|resumen|riassunto|sommario|"
                  "samenvatting|sammanfattning|streszczenie")
#: a heading number and nothing else ("4.1.2", "Chapter IV")
NUMBER_ONLY = _NUMBER_ONLY
#: the arXiv stamp printed sideways in a preprint's margin ("arXiv:2302.13971v1 [cs.CL] 27 Feb
#: 2023"), not a heading
_ARXIV_STAMP = re.compile(r"^arxiv:\s*\S", re.I)


def is_arxiv_stamp(text: str) -> bool:
    """Whether ``text`` is the arXiv stamp printed sideways in a preprint's margin
    ("arXiv:2302.13971v1 [cs.CL] 27 Feb 2023"): set large, but neither a heading nor
    the title."""
    return bool(_ARXIV_STAMP.match(text.strip()))


def numbering(text: str) -> tuple[str, int]:
    """(numbering label, depth) of a heading-like line, ('', 0) when unnumbered.

    "3.2 Attention" -> ("3.2", 2); "A.1 Proofs" -> ("A.1", 2); "IV. Results" -> ("IV", 1);
    "Chapter 4 Sets" -> ("4", 1); "§ 3. Theory" -> ("§3", 1); "2∙3 归纳学习" -> ("2.3", 2)
    (numbers separated by a mid-height dot, :data:`_SEP`). A single capital letter counts
    only when followed by a capitalised word ("A Proofs"), since "A model" is a sentence,
    and not by a formula ("Z P(x)logP(x)dx").
    """
    t = text.strip()
    m = _NUM_SECTION_SIGN.match(t)
    if m:
        return "§" + m.group(1), m.group(1).count(".") + 1
    m = _NUM_WORD.match(t)
    if m:
        return m.group(1), 1
    m = _NUM_ARABIC.match(t)
    if m:
        label = _SEPS.sub(".", unicodedata.normalize("NFKC", m.group(1)))
        return label, label.count(".") + 1
    m = _NUM_ROMAN.match(t)
    if m:
        return m.group(1), 1
    m = _NUM_LETTER.match(t)
    if m:
        label = m.group(1)
        rest = t[m.end():].strip()
        if "." in label or (rest[:1].isupper() and not _FORMULA_WORD.match(rest)
                            and not rest.lower().startswith(("a ", "an ", "the "))):
            return label, label.count(".") + 1
    return "", 0


def split_heading(paragraph: str, title: str) -> tuple[str, str] | None:
    """``(heading, rest)`` when ``paragraph`` opens with the section title ``title``
    followed by its text ("2.5 Chunk Size Chunk size is ..." -> "2.5 Chunk Size",
    "Chunk size is ..."), compared with whitespace collapsed and case folded; else None."""
    text, head = " ".join(paragraph.split()), " ".join(title.split())
    n = len(head)
    if not head or len(text) <= n + 1 or text[n] != " " or \
            text[:n].casefold() != head.casefold():
        return None
    return text[:n], text[n + 1:]


def is_number_only(text: str) -> bool:
    """True when ``text`` is a heading number and nothing else ("4.1.2", "Chapter IV")."""
    return _NUMBER_ONLY.match(text) is not None


def strip_number(text: str) -> str:
    """``text`` without a leading heading number ("3.2 Attention" -> "Attention")."""
    return _NUMBER_PREFIX.sub("", text)
