"""Where a paper was published, as its first pages print it: a journal or a conference,
the year that line prints, and the arXiv primary category of its stamp; and the kind of
venue a reference entry prints.

Read from the text of pages 1-2 (the cache's page text, whose lines are joined into
paragraphs) when a folder is exported: the BibTeX entry type and its fields follow
(``@article`` + ``journal``, ``@inproceedings`` + ``booktitle``; :mod:`pdftui.triage.bibtex`),
and the year of the venue line is the entry's year (ICLR 2021 for a 2020 arXiv paper).
Every value is printed in the document or left empty: nothing is guessed. The rules, in
order (the first that matches wins):

- a conference footer (``31st Conference on Neural Information Processing Systems (NIPS
  2017)``), a header (``Published as a conference paper at ICLR 2021``), a proceedings
  line (``Proceedings of the 37th International Conference on Machine Learning``,
  ``Published in the Proceedings of OSDI 2012``, ``To appear in OSDI 2004``), an ACM
  conference line (``SOSP'03, October 19-22, 2003``); a symposium printed by its acronym
  alone gets its proceedings' name (``Proceedings of the ACM Symposium on Operating
  Systems Principles (SOSP '03)``);
- a journal line: a citation line (``Journal of Machine Learning Research 23 (2022)
  1-40``, ``AI Open 1 (2020) 57-81``), a BMC / BMJ footer (``Datta et al. Journal of
  Trauma Management & Outcomes 2010, 4:1``, ``Postgrad Med J 2010;86:272``), ``Published
  in Transactions on Machine Learning Research``, ``Reprinted ... from The Bell System
  Technical Journal``, ``Appeared in Bulletin of the ...``, a PLOS header, an Elsevier
  masthead, a JCAP or PeerJ citation, the VLDB Endowment's notice.

A reference entry's venue text (:func:`reference_venue`) is a thesis, a technical report,
a conference, a journal or a book by its words (see there); an arXiv one is no venue (the
entry's eprint says it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from enum import StrEnum


class VenueKind(StrEnum):
    """What a venue is; the value is the BibTeX entry type."""

    ARTICLE = "article"
    INPROCEEDINGS = "inproceedings"
    PHDTHESIS = "phdthesis"
    MASTERSTHESIS = "mastersthesis"
    TECHREPORT = "techreport"
    BOOK = "book"


@dataclass(frozen=True, slots=True)
class Venue:
    """Where a work was published: a journal (``kind`` ARTICLE, ``name`` its title), a
    conference's proceedings (INPROCEEDINGS, the book title), a thesis (PHDTHESIS /
    MASTERSTHESIS, the school), a report (TECHREPORT, the institution) or a book (BOOK,
    the publisher). ``year``: the year the venue line prints (the publication year),
    None when it prints none."""

    kind: VenueKind
    name: str
    year: int | None = None


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


#: Conferences whose papers print only the acronym (``SOSP '03``, ``OSDI 2004``): the
#: proceedings' name, the printed form kept after it.
_SYMPOSIA = {"SOSP": "ACM Symposium on Operating Systems Principles",
             "OSDI": "USENIX Symposium on Operating Systems Design and Implementation",
             "STOC": "ACM Symposium on Theory of Computing"}
_ACRONYM_NAME_RE = re.compile(r"^(?:Proceedings of (?:the )?)?(?P<abbr>[A-Z]{3,8}) "
                              r"(?P<when>'\d\d|(?:19|20)\d\d)$")


def _full_name(name: str) -> str:
    """``SOSP '03`` -> ``Proceedings of the ACM Symposium on Operating Systems Principles
    (SOSP '03)`` for the conferences of :data:`_SYMPOSIA`; other names as they are."""
    m = _ACRONYM_NAME_RE.match(name)
    if m is None or m.group("abbr") not in _SYMPOSIA:
        return name
    return f"Proceedings of the {_SYMPOSIA[m.group('abbr')]} ({m.group('abbr')} {m.group('when')})"


def _conference(text: str) -> Venue | None:
    for rx in _CONFERENCE_RULES:
        for m in rx.finditer(text):
            if "preliminary version" in text[max(0, m.start() - 60):m.start()].lower():
                continue
            d = m.groupdict()
            abbr = (d.get("abbr") or "").upper()
            name = _PROCEEDINGS.get(abbr) or _full_name(_clean(d.get("name") or abbr))
            if name:
                return Venue(VenueKind.INPROCEEDINGS, name, _printed_year(text, m))
    return None


def _journal(text: str) -> Venue | None:
    for rx in _JOURNAL_RULES:
        m = rx.search(text)
        if not m:
            continue
        d = m.groupdict()
        year = _printed_year(text, m)
        if d.get("vldb"):
            return Venue(VenueKind.ARTICLE, _JOURNALS["PVLDB"], year)
        if d.get("abbr"):
            return Venue(VenueKind.ARTICLE, _JOURNALS[d["abbr"]], year)
        name = _clean(d["name"])
        if re.search(r"\b(?:proceedings|conference|symposium|workshop)\b", name, re.I) \
                and not _JOURNAL_WORDS.search(name):
            return Venue(VenueKind.INPROCEEDINGS, name, year)
        if len(name) >= 4:
            return Venue(VenueKind.ARTICLE, name, year)
    return None


_YEAR_RE = re.compile(r"(?<!\d)(?:1[6-9]|20)\d\d(?!\d)|['’]\s?(?P<yy>\d\d)\b")


def _printed_year(text: str, m: re.Match) -> int | None:
    """The first year in a venue line: the match and the rest of its line (``NIPS 2017``,
    ``SOSP'03`` -> 2003, ``Research 23 (2022) 1-40``); None when it holds none."""
    end = text.find("\n", m.end())
    line = text[m.start():end if end >= 0 else len(text)][:300]
    y = _YEAR_RE.search(line)
    if y is None:
        return None
    if y.group("yy"):
        yy = int(y.group("yy"))
        return (1900 if yy >= 50 else 2000) + yy
    return int(y.group(0))


def find_venue(pages: list[str]) -> Venue | None:
    """The venue printed on the first pages (``pages``: their text, page 1 first; the
    first two are read), None when none is: a conference first (a paper's footer names
    the conference it appeared at, while a journal line may be a citation), then a
    journal. See the module docstring for the rules."""
    return _venue_in("\n".join(pages[:2]))


@lru_cache(maxsize=256)
def _venue_in(text: str) -> Venue | None:
    """:func:`find_venue` of the first pages' text, once per text (an export asks three
    times per work: its citekey's year, its entry's venue and year)."""
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


# ------------------------------------------------------------------ a reference's venue
#: A conference named by its acronym alone in a reference ("CVPR", "LREC, volume 2").
_CONFERENCE_ACRONYMS = frozenset(
    "AAAI ACL AISTATS ASPLOS ATC BMVC CCS CHI CIKM COLING COLT CONLL CORL CRYPTO CVPR EACL "
    "ECCV ECML EMNLP EUROCRYPT EUROSYS FAST FOCS ICALP ICASSP ICCV ICDE ICDM ICLR ICML ICPR "
    "ICRA IJCAI INTERSPEECH IROS ISCA ISWC IUI KDD LREC MICRO MLSYS NAACL NDSS NEURIPS NIPS "
    "IPDPS NSDI OSDI PODC RECSYS SDM SENSYS SIGCOMM SIGIR SIGMOD SODA SOSP STOC UAI UIST VLDB "
    "WACV WSDM WWW".split())
_REF_THESIS_RE = re.compile(r"\b(?:(?P<phd>ph\.?\s?d\.?|doctoral)|(?P<ms>master['’]?s|"
                            r"m\.?\s?sc?\.?))\s+(?:thesis|dissertation)\b[\s,.:;]*", re.I)
_REF_REPORT_RE = re.compile(r"\b(?:technical|tech\.?|research)\s+rep(?:ort|\.)?|"
                            r"\bwhite\s?paper\b[\s,.:;]*", re.I)
_REF_ARXIV_RE = re.compile(r"\barxiv\b|\bcorr\b|^\s*(?:vol\.\s*)?abs/", re.I)
_REF_PROCEEDINGS_RE = re.compile(r"\b(?:proceedings|proc\.|conference|symposium|workshop|"
                                 r"findings of|advances in neural information)", re.I)
_REF_JOURNAL_RE = re.compile(r"\b(?:journal|transactions|letters|review|bulletin|annals|"
                             r"magazine|communications of|nature|science|j\.|trans\.)(?:\W|$)",
                             re.I)
#: Journals called "Proceedings".
_JOURNAL_PROCEEDINGS_RE = re.compile(
    r"(?:the )?proc(?:eedings|\.) of the (?:ieee|national academy of sciences(?: of the "
    r"united states of america)?|royal society(?: [ab])?(?:: [^,;(\d]+)?)\s*"
    r"(?:$|[,;(]|\d+\s*(?:$|[(,;:]))",
    re.I)
#: A venue that is a web page or a date, not a publication.
_REF_NOT_VENUE_RE = re.compile(r"\b(?:accessed|retrieved|url|online at|available at)\b", re.I)
_MONTHS_RE = re.compile(r"\b(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|"
                        r"July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|"
                        r"Dec(?:ember)?)\.?(?:\s+\d{1,2})?$")
#: A journal cited by name and volume: "Neuron ;113(16", "Knowl Inf Syst 14",
#: "Empirical Economics, 13(3".
_REF_VOLUME_RE = re.compile(r"^(?P<name>[A-Z][A-Za-z.&' \-]{2,80}?)\s*[,;]?\s*;?\s*"
                            r"\d{1,4}\s*(?:\(\d{1,4}\)?|[,:]|$)")
_REF_PUBLISHER_RE = re.compile(
    r"\b(?:[\w.&\- ]*\bpress|publishers?|publishing|springer(?:-verlag)?|wiley|elsevier|"
    r"mcgraw-hill|addison-?\s?wesley|prentice[- ]hall|morgan kaufmann|o['’]reilly|apress|"
    r"penguin|pearson)\b", re.I)
#: What ends a venue's name in a reference: volume, pages, a dangling "(".
_REF_TAIL_RE = re.compile(r"(?:[,;]?\s*(?:vol(?:ume)?\.?|pp?\.|pages?|no\.)\s.*|"
                          r"[,;]\s*\d{1,4}(?:\s*\(\d{0,4}\)?)?|\s*\([^)]{20,}$|[\s,;:(]+)$",
                          re.I)


def _ref_name(text: str) -> str:
    """A reference venue's name: without a leading "In", its volume / pages tail, a
    dangling parenthesis (closed when short: ``(CVPR`` -> ``(CVPR)``)."""
    name = re.sub(r"^\s*in:?\s+", "", " ".join(text.split()), flags=re.I)
    name = _MONTHS_RE.sub("", _REF_TAIL_RE.sub("", name)).strip(" ,;:")
    if name.count("(") > name.count(")"):
        name += ")"
    return name.strip("[]")


def reference_venue(venue: str) -> Venue | None:
    """The kind and name of the venue a reference entry prints (its ``venue`` field), or
    None when it is an arXiv preprint (the entry's eprint says it) or its kind is not
    printed. In order: a PhD / master's thesis (the school after it), a technical report
    (the institution), a journal called proceedings (``Proceedings of the IEEE``), a
    conference (proceedings, symposium, workshop words or an acronym such as ``CVPR``),
    a journal (journal words, or a name followed by its
    volume: ``Neuron ;113(16``), a book (a publisher alone: ``MIT Press``). A kind
    without a name (``Technical report`` alone) is None: every value is printed in the
    entry."""
    text = " ".join((venue or "").split())
    if not text or _REF_NOT_VENUE_RE.search(text):
        return None
    m = _REF_THESIS_RE.search(text)
    if m:
        kind = VenueKind.PHDTHESIS if m.group("phd") else VenueKind.MASTERSTHESIS
        school = _ref_name(_REF_THESIS_RE.sub(" ", text))
        return Venue(kind, school) if school else None
    if _REF_ARXIV_RE.search(text):
        return None
    m = _REF_REPORT_RE.search(text)
    if m:
        institution = next((_ref_name(p) for p in _REF_REPORT_RE.sub(",", text).split(",")
                            if re.search(r"[A-Z][a-z]", _ref_name(p))), "")
        return Venue(VenueKind.TECHREPORT, institution) if institution else None
    if _JOURNAL_PROCEEDINGS_RE.match(text):
        return Venue(VenueKind.ARTICLE, _journal_name(text))
    if _REF_PROCEEDINGS_RE.search(text) or _acronym(text):
        return Venue(VenueKind.INPROCEEDINGS, _ref_name(text))
    if _REF_JOURNAL_RE.search(text):
        return Venue(VenueKind.ARTICLE, _journal_name(text))
    m = _REF_VOLUME_RE.match(text)
    if m:
        return Venue(VenueKind.ARTICLE, _ref_name(m.group("name")))
    publisher = text.split(",", 1)[0]
    if _REF_PUBLISHER_RE.search(publisher) and len(publisher.split()) <= 6 \
            and not re.match(r"in\b", publisher, re.I):
        name = _ref_name(publisher)
        return Venue(VenueKind.BOOK, name) if name else None
    return None


def _acronym(text: str) -> bool:
    """Does a venue name a conference by its acronym (``CVPR``, ``in ACL (1)``)?"""
    return any(w.upper() in _CONFERENCE_ACRONYMS
               for w in re.findall(r"[A-Za-z]{3,12}", text[:60]) if w[1:] != w[1:].lower()
               or w.isupper())


def _journal_name(text: str) -> str:
    """A journal's name without its volume (``Communications of the ACM, 58(9`` ->
    ``Communications of the ACM``)."""
    m = _REF_VOLUME_RE.match(text)
    return _ref_name(m.group("name") if m else text)
