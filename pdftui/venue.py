"""Where a paper was published, as its first pages print it: a journal or a conference,
and the arXiv primary category of its stamp.

Read from the text of pages 1-2 (the cache's page text, whose lines are joined into
paragraphs) when a folder is exported: the BibTeX entry type and its fields follow
(``@article`` + ``journal``, ``@inproceedings`` + ``booktitle``; :mod:`pdftui.triage.export`).
Every value is printed in the document or left empty: nothing is guessed. The rules, in
order (the first that matches wins):

- a conference footer (``31st Conference on Neural Information Processing Systems (NIPS
  2017)``), a header (``Published as a conference paper at ICLR 2021``), a proceedings
  line (``Proceedings of the 37th International Conference on Machine Learning``,
  ``Published in the Proceedings of OSDI 2012``, ``To appear in OSDI 2004``), an ACM
  conference line (``SOSP'03, October 19-22, 2003``);
- a journal line: a citation line (``Journal of Machine Learning Research 23 (2022)
  1-40``, ``AI Open 1 (2020) 57-81``), a BMC / BMJ footer (``Datta et al. Journal of
  Trauma Management & Outcomes 2010, 4:1``, ``Postgrad Med J 2010;86:272``), ``Published
  in Transactions on Machine Learning Research``, ``Reprinted ... from The Bell System
  Technical Journal``, ``Appeared in Bulletin of the ...``, a PLOS header, an Elsevier
  masthead, a JCAP or PeerJ citation, the VLDB Endowment's notice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class VenueKind(StrEnum):
    """What a venue is; the value is the BibTeX entry type."""

    ARTICLE = "article"
    INPROCEEDINGS = "inproceedings"


@dataclass(frozen=True, slots=True)
class Venue:
    """A journal (``kind`` ARTICLE, ``name`` its title) or a conference's proceedings
    (INPROCEEDINGS, ``name`` the book title)."""

    kind: VenueKind
    name: str


#: Conferences whose proceedings have a name of their own.
_PROCEEDINGS = {"NIPS": "Advances in Neural Information Processing Systems",
                "NEURIPS": "Advances in Neural Information Processing Systems",
                "ICLR": "International Conference on Learning Representations"}
#: Journals printed by an abbreviation.
_JOURNALS = {"JCAP": "Journal of Cosmology and Astroparticle Physics",
             "PeerJ Comput. Sci.": "PeerJ Computer Science",
             "PVLDB": "Proceedings of the VLDB Endowment"}
_JOURNAL_WORDS = re.compile(r"\b(?:journal|bulletin|transactions|letters|review|annals|"
                            r"magazine|communications of)\b", re.I)
_MONTH = (r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?")

_CONFERENCE_RULES: tuple[re.Pattern, ...] = (
    re.compile(r"\b\d{1,2}\s?(?:st|nd|rd|th) Conference on (?P<name>[A-Z][\w ]{5,80}?) "
               r"\((?P<abbr>[A-Za-z]{2,10}) (?:19|20)\d\d\)"),
    re.compile(r"Published as a conference paper at (?P<abbr>[A-Z][A-Za-z]{2,10}) "
               r"(?:19|20)\d\d"),
    re.compile(r"(?:^|(?<=[.\n])\s*|\b(?:Published in|Appears? in|Appearing in|In)\s+)"
               r"(?:the\s+)?(?P<name>Proceedings of (?:the )?[^,.;\n]{4,120}"
               r"(?:\n[A-Z][A-Za-z ]{0,40}(?=,))?)", re.M),   # a name wrapped before its comma
    re.compile(r"\bTo appear in (?:the )?(?P<name>[A-Z][A-Za-z]{2,10} (?:19|20)\d\d)\b"),
    re.compile(r"\b(?P<name>[A-Z]{3,8}\s?['’]\s?\d{2}|[A-Z]{3,8} (?:19|20)\d\d),\s+"
               rf"{_MONTH}"),
)
_JOURNAL_RULES: tuple[re.Pattern, ...] = (
    re.compile(r"(?:^|\n)(?P<name>[A-Z][A-Za-z&:\- ]{2,80}?)\s+\d{1,4}\s+\((?:19|20)\d\d\)"
               r"\s+e?\d+\s*[–-]\s*\d+\b"),
    re.compile(r"\bet al\.\s+(?P<name>[A-Z][A-Za-z&.\- ]{3,80}?)\s+(?:19|20)\d\d,\s*\d+:\d+"),
    re.compile(r"(?:^|\n|\.\s)(?P<name>[A-Z][A-Za-z ]{2,60}?)\s+(?:19|20)\d\d;\s?\d+:\d+"),
    re.compile(r"\bPublished in (?P<name>(?:the )?(?:[A-Z][\w&\-]*\s?(?:of |on |and |& )?)"
               r"{1,10}?)\s*\("),
    re.compile(r"\b(?:Reprinted (?:with corrections )?from|APPEARED IN|Appeared in)\s+"
               r"(?P<name>[A-Z][A-Za-z&\-\s]{5,80}?)(?:,|\s+Volume|\s+Vol\.|\n\n)", re.I),
    re.compile(r"(?:^|\n)(?P<name>PLOS [A-Z][a-z]+(?: [A-Z][a-z]+)*)\s*\|"),
    re.compile(r"Contents lists available at ScienceDirect\s+(?P<name>[A-Z][^\n]{2,80}?)\s+"
               r"journal homepage"),
    re.compile(r"(?:^|\s)(?P<abbr>JCAP)\d{2}\((?:19|20)\d\d\)\d{3}"),
    re.compile(r"\b(?P<abbr>PeerJ Comput\. Sci\.)"),
    re.compile(r"\bCopyright (?:19|20)\d\d (?P<vldb>VLDB Endowment)"),
)


def _clean(name: str) -> str:
    name = " ".join(name.split()).strip(" .,;:")
    name = re.sub(r"(\d)\s(st|nd|rd|th)\b", r"\1\2", name)   # "37 th" -> "37th"
    name = re.sub(r"\s?[’']\s?(\d\d)\b", r" '\1", name)   # "SOSP’03" -> "SOSP '03"
    letters = [c for c in name if c.isalpha()]
    # a journal's name set in capitals ("BULLETIN OF THE AMERICAN ..."), not an acronym
    if len(name.split()) >= 3 and sum(c.isupper() for c in letters) / len(letters) > 0.9:
        small = {"of", "the", "and", "on", "in", "for"}
        name = " ".join(w.lower() if i and w.lower() in small else w.capitalize()
                        for i, w in enumerate(name.split()))
    return name


def _conference(text: str) -> Venue | None:
    for rx in _CONFERENCE_RULES:
        for m in rx.finditer(text):
            if "preliminary version" in text[max(0, m.start() - 60):m.start()].lower():
                continue
            d = m.groupdict()
            abbr = (d.get("abbr") or "").upper()
            name = _PROCEEDINGS.get(abbr) or _clean(d.get("name") or abbr)
            if name:
                return Venue(VenueKind.INPROCEEDINGS, name)
    return None


def _journal(text: str) -> Venue | None:
    for rx in _JOURNAL_RULES:
        m = rx.search(text)
        if not m:
            continue
        d = m.groupdict()
        if d.get("vldb"):
            return Venue(VenueKind.ARTICLE, _JOURNALS["PVLDB"])
        if d.get("abbr"):
            return Venue(VenueKind.ARTICLE, _JOURNALS[d["abbr"]])
        name = _clean(d["name"])
        if re.search(r"\b(?:proceedings|conference|symposium|workshop)\b", name, re.I) \
                and not _JOURNAL_WORDS.search(name):
            return Venue(VenueKind.INPROCEEDINGS, name)
        if len(name) >= 4:
            return Venue(VenueKind.ARTICLE, name)
    return None


def find_venue(pages: list[str]) -> Venue | None:
    """The venue printed on the first pages (``pages``: their text, page 1 first; the
    first two are read), None when none is: a conference first (a paper's footer names
    the conference it appeared at, while a journal line may be a citation), then a
    journal. See the module docstring for the rules."""
    text = "\n".join(pages[:2])
    return _conference(text) or _journal(text)


_STAMP_CLASS_RE = re.compile(r"arXiv:\s*(?:[a-z\-]+(?:\.[A-Z]{2})?/)?\d{4}\.?\d{3,5}v\d+\s*"
                             r"\[(?P<cls>[a-z\-]+(?:\.[A-Za-z\-]+)?)\]")


def arxiv_class(pages: list[str]) -> str:
    """The primary arXiv category of the stamp on pages 1-2 (``cs.CL`` from
    ``arXiv:1706.03762v5 [cs.CL] 6 Dec 2017``), '' when there is none."""
    for text in pages[:2]:
        m = _STAMP_CLASS_RE.search(text)
        if m:
            return m.group("cls")
    return ""
