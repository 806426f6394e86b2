"""BibTeX: the folder's papers (``pdftui export --format bibtex``) and a paper's reference
list (``pdftui refs --format bibtex``), both written by one writer (:func:`entry`) from one
typed record (:class:`BibRecord`), so that a reference manager takes either file without
hand fixes.

What the writer does with a record:

- **type and venue field** from the venue (:mod:`pdftui.venue`): ``@article`` +
  ``journal``, ``@inproceedings`` + ``booktitle``, ``@phdthesis`` / ``@mastersthesis`` +
  ``school``, ``@techreport`` + ``institution``, ``@book`` + ``publisher``; an arXiv paper
  with no other venue is ``@misc`` with ``eprint``, ``archivePrefix``, ``primaryClass``
  and ``url`` as arXiv's own BibTeX export writes them (a paper with a venue keeps them
  too); anything else ``@misc`` (a reference's unclassified venue as ``howpublished``).
- **year**: the year the venue line prints (the publication year: ICLR 2021 for a 2020
  arXiv paper) before the metadata's (arXiv id, a printed date, the file name, the PDF's
  creation date).
- **authors**: "Surname, Given and Surname, Given" (a particle stays with the surname:
  ``van Merrienboer``, ``Le Lan``; ``Jr.`` is its own part, "Surname, Jr., Given"),
  ``and others`` when the list printed "et al."; a comma or a word "and" inside a name
  is braced so that it cannot split the list.
- **title** in title case with acronyms and proper nouns braced
  (:mod:`pdftui.triage.title_case`); a title that is only the file's name stays as it
  is, in braces.
- **escaping**: every value comes from an untrusted PDF or the user: control characters
  removed, the LaTeX specials escaped and every brace written as a command
  (:func:`bib_escape`), so a value can neither close its entry nor open another and its
  braces always balance; non-ASCII text stays UTF-8 (biber reads it).
- **empty fields are never written**.
- **citekeys**: the first author's surname + year + the first word of the title that is
  not an article or a preposition, ASCII letters and digits only
  (``vaswani2017attention``); one per work; keys that collide get ``a``, ``b``, ... in
  document order, so the same folder always gives the same keys. The year in a key is
  the entry's own (:func:`entry_year`: ``zhang2018mixup`` with ``year = {2018}``), so
  callers read the first pages of the whole folder before keying it.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..text import strip_control
from ..venue import Venue, VenueKind, arxiv_class, find_venue, reference_venue
from .store import Mark
from .title_case import WordForms, caps_title, title_case, word_forms

if TYPE_CHECKING:
    from ..references import Reference
    from .export import ExportItem


@dataclass(frozen=True, slots=True)
class Person:
    """One author: ``surname`` (with its particles: "van Merrienboer"), ``given`` names
    ('' when not known) and ``suffix`` ("Jr."; '' when none)."""

    surname: str
    given: str = ""
    suffix: str = ""


@dataclass(frozen=True, slots=True)
class BibRecord:
    """What is known of one work, as the writer takes it (every string untrusted, ''
    when unknown). ``venue`` decides the entry type; ``howpublished`` is a venue that
    could not be classified; ``forms`` the spellings of the paper's first pages (for the
    title's case, :func:`pdftui.triage.title_case.word_forms`; None: the title's own);
    ``title_verbatim`` keeps a title that is a file name as it is; ``file`` the PDF's
    path; ``note`` a note to print with the entry (a reference's raw text);
    ``annote`` the user's own note, which bibliography styles do not print; ``keywords``
    the mark."""

    title: str
    authors: tuple[Person, ...] = ()
    et_al: bool = False
    year: int | None = None
    venue: Venue | None = None
    howpublished: str = ""
    arxiv_id: str = ""
    arxiv_class: str = ""
    doi: str = ""
    file: str = ""
    note: str = ""
    annote: str = ""
    keywords: str = ""
    forms: WordForms | None = None
    title_verbatim: bool = False


# ---------------------------------------------------------------------------- escaping
def plain(s: str | None) -> str:
    """Untrusted text on one line, without control characters."""
    return " ".join(strip_control(s or "", keep_newlines=False, keep_tabs=False).split())


_BIB_SPECIALS = {"\\": r"\textbackslash{}", "{": r"\textbraceleft{}",
                 "}": r"\textbraceright{}", "@": r"{\char64}",
                 "%": r"\%", "&": r"\&", "#": r"\#", "$": r"\$", "_": r"\_",
                 "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_BIB_RE = re.compile("[" + re.escape("".join(_BIB_SPECIALS)) + "]")


def bib_escape(s: str) -> str:
    r"""Untrusted text as a braced BibTeX value: control characters removed, one line,
    ``@``, backslash and the LaTeX specials escaped, and braces written as
    ``\textbraceleft{}`` / ``\textbraceright{}`` (BibTeX counts every brace, escaped or
    not, so ``\}`` would still close the value); the value can neither close its entry
    nor open another."""
    return _bib_chars(plain(s))


def _bib_chars(s: str) -> str:
    """:func:`bib_escape` without the clean-up (one piece of a value already cleaned)."""
    return _BIB_RE.sub(lambda m: _BIB_SPECIALS[m.group(0)], s)


def balanced(value: str) -> bool:
    """Do the braces of a value balance, never closing more than are open?"""
    depth = 0
    for c in value:
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


def _bib_path(s: str) -> str:
    """A file path as a BibTeX value, as it is (reference managers must find the file)
    unless its braces are unbalanced, which would end the entry: then they are written
    as LaTeX commands like in :func:`bib_escape`."""
    s = plain(s)
    if balanced(s):
        return s
    return s.replace("{", r"\textbraceleft{}").replace("}", r"\textbraceright{}")


# ---------------------------------------------------------------------------- names
#: Words that belong to the surname that follows them ("van Merrienboer", "Le Lan").
_PARTICLES = frozenset("van von der den de del della di da dos das du la le ter ten "
                       "bin ibn".split())
_SUFFIXES = frozenset("jr jr. sr sr. ii iii iv".split())
_AND_RE = re.compile(r"(?i)(?<!\S)and(?!\S)")
#: Between two initials written together ("D.J."): BibTeX reads "D. J." as two names.
_INITIALS_RE = re.compile(r"(?<=\b[A-Z]\.)(?=[A-Z]\b)")


def person(name: str) -> Person:
    """A full name as printed ("Ashish Vaswani", "Gael Le Lan", "Vaswani, Ashish",
    "Martin Luther King Jr.") as a :class:`Person`: the last word and the particles
    before it are the surname (a first word is always a given name)."""
    name = " ".join(plain(name).split())
    if "," in name:
        surname, _, given = name.partition(",")
        return Person(surname.strip(), given.strip())
    words = name.split()
    suffix = words.pop() if len(words) > 2 and words[-1].lower() in _SUFFIXES else ""
    if len(words) <= 1:
        return Person(" ".join(words), "", suffix)
    i = len(words) - 1
    while i > 1 and words[i - 1].lower() in _PARTICLES:
        i -= 1
    return Person(" ".join(words[i:]), " ".join(words[:i]), suffix)


def _name_part(s: str) -> str:
    """One part of a name, escaped; braced when it holds a comma or a word "and" (each
    would split the name or the list)."""
    s = _bib_chars(" ".join(plain(s).split()))
    return "{" + s + "}" if "," in s or _AND_RE.search(s) else s


def author_field(people: Iterable[Person], et_al: bool = False) -> str:
    """The ``author`` value: "Surname, Given and Surname, Given" ("Surname" alone when
    the given names are not known; "Surname, Jr., Given"; initials written together
    spaced, "D.J." -> "D. J."), then ``and others`` when ``et_al``; '' when there is no
    one."""
    names = []
    for p in people:
        surname = _name_part(p.surname)
        if not surname:
            continue
        parts = [surname] + ([_name_part(p.suffix)] if p.suffix else [])
        given = _name_part(_INITIALS_RE.sub(" ", p.given))
        names.append(", ".join(parts + ([given] if given else [])) if given or p.suffix
                     else surname)
    if names and et_al:
        names.append("others")
    return " and ".join(names)


# ---------------------------------------------------------------------------- the writer
#: The field that names each kind of venue.
VENUE_FIELD = {VenueKind.ARTICLE: "journal", VenueKind.INPROCEEDINGS: "booktitle",
               VenueKind.PHDTHESIS: "school", VenueKind.MASTERSTHESIS: "school",
               VenueKind.TECHREPORT: "institution", VenueKind.BOOK: "publisher"}


def title_field(record: BibRecord) -> str:
    """The ``title`` value: title case with the words whose case matters braced
    (:func:`pdftui.triage.title_case.title_case`); a verbatim title in braces; '' for
    none."""
    title = plain(record.title)
    if not title:
        return ""
    if record.title_verbatim:
        return "{" + _bib_chars(title) + "}"
    return title_case(title, record.forms, _bib_chars)


def entry_type(record: BibRecord) -> str:
    """The entry type: the venue's kind (:data:`VENUE_FIELD`), else ``misc``."""
    return record.venue.kind.value if record.venue and plain(record.venue.name) else "misc"


def fields(record: BibRecord) -> list[tuple[str, str]]:
    """The record's fields in writing order, values escaped, empty ones left out."""
    out = [("title", title_field(record)),
           ("author", author_field(record.authors, record.et_al)),
           ("year", str(record.year) if record.year else "")]
    if entry_type(record) != "misc":
        out.append((VENUE_FIELD[record.venue.kind], bib_escape(record.venue.name)))
    out.append(("howpublished", bib_escape(record.howpublished)))
    arxiv = bib_escape(record.arxiv_id)
    if arxiv:
        out += [("eprint", arxiv), ("archivePrefix", "arXiv"),
                ("primaryClass", bib_escape(record.arxiv_class)),
                ("url", "https://arxiv.org/abs/" + arxiv)]
    out += [("doi", bib_escape(record.doi)), ("file", _bib_path(record.file)),
            ("note", bib_escape(record.note)), ("annote", bib_escape(record.annote)),
            ("keywords", bib_escape(record.keywords))]
    return [(name, value) for name, value in out if value.strip()]


def entry(record: BibRecord, key: str) -> str:
    """One BibTeX entry (``@type{key,\\n  field = {value},\\n...}\\n``). A value whose
    braces do not balance (none should) is escaped whole rather than written."""
    body = ",\n".join(f"  {name} = {{{value if balanced(value) else bib_escape(value)}}}"
                      for name, value in fields(record))
    return f"@{entry_type(record)}{{{key},\n{body}\n}}\n"


# ---------------------------------------------------------------------------- citekeys
_STOPWORDS = frozenset("a an the on of in for to and with from by at is are as via".split())


def _ascii_word(s: str) -> str:
    folded = unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def base_key(first_author: str, year: int | None, title: str) -> str:
    """A citekey before clashes are settled: the last word of ``first_author`` (a name
    or a surname), the year ("nd" when None), the first title word that is not a
    stopword; ASCII letters and digits only ("anon" for no author)."""
    words = first_author.split()
    surname = _ascii_word(words[-1]) if words else ""
    first = next((w for w in (_ascii_word(t) for t in re.split(r"[\s\-:/]+", title))
                  if w and w not in _STOPWORDS), "")
    return f"{surname or 'anon'}{year or 'nd'}{first}"


def unique_keys(bases: Iterable[tuple[str, str]]) -> dict[str, str]:
    """``{id: citekey}`` from ``(id, base key)`` pairs: a base key held by one id is its
    key; ids sharing one get ``a``, ``b``, ... in id order (whatever the input order)."""
    by_key: dict[str, list[str]] = {}
    for ident, key in sorted(bases):
        by_key.setdefault(key, []).append(ident)
    out: dict[str, str] = {}
    for key, ids in by_key.items():
        for n, ident in enumerate(ids):
            out[ident] = key if len(ids) == 1 else key + _suffix(n)
    return out


def _suffix(n: int) -> str:
    """a, b, ..., z, aa, ab, ... for the n-th (0-based) colliding key."""
    s = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(97 + r) + s
    return s


def citekeys(items: list[ExportItem]) -> dict[str, str]:
    """``{doc: citekey}`` of export items: unique, stable for the same documents
    (collisions get a letter suffix in ``doc`` order). Pass the whole folder's items,
    not an exported selection, so that a document keeps its key whichever documents are
    exported."""
    return unique_keys((i.doc, base_key(i.authors[0] if i.authors else "", entry_year(i),
                                        i.title)) for i in items)


def entry_year(item: ExportItem) -> int | None:
    """The year an export item's entry gives: the one its venue line prints on the first
    pages (ICLR 2018 for mixup, whose arXiv id says 2017), else the metadata's."""
    venue = find_venue(list(item.first_pages)) if item.first_pages else None
    return (venue.year if venue and venue.year else None) or item.year


# ---------------------------------------------------------------------------- the folder
def record_of_item(item: ExportItem) -> BibRecord:
    """The record of an export item: venue, publication year, arXiv class and title
    spellings read from its first pages (:mod:`pdftui.venue`), names split into
    surname and given names (:func:`person`), the mark as ``pdftui-<mark>``."""
    pages = list(item.first_pages)
    venue = find_venue(pages)
    cls = arxiv_class(pages) or (item.arxiv_id.split("/")[0] if "/" in item.arxiv_id else "")
    title = plain(item.title)
    stem = os.path.splitext(os.path.basename(item.doc))[0]
    verbatim = not title or title in (stem, os.path.basename(item.doc))
    return BibRecord(
        title=title or item.doc, authors=tuple(person(a) for a in item.authors),
        year=entry_year(item), venue=venue,
        arxiv_id=item.arxiv_id, arxiv_class=cls if item.arxiv_id else "", doi=item.doi,
        file=item.path, annote=item.note,   # the user's note: not printed by styles
        keywords=f"pdftui-{item.mark.value}" if item.mark is not Mark.NONE else "",
        forms=word_forms(" ".join(pages), title), title_verbatim=verbatim)


def readable_title(item: ExportItem) -> str:
    """The title a reading list shows: a title printed in capitals ("DEBERTA: DECODING-
    ENHANCED BERT ...") in title case with each word as the paper writes it ("DeBERTa:
    Decoding-Enhanced BERT ..."), as the BibTeX entry has it without its braces; any
    other title as it is."""
    title = plain(item.title)
    if not title or not caps_title(title):
        return title
    cased = title_case(title, word_forms(" ".join(item.first_pages), title),
                       lambda s: s.replace("{", "\x00").replace("}", "\x01"))
    return cased.replace("{", "").replace("}", "").replace("\x00", "{").replace("\x01", "}")


def to_bibtex(items: list[ExportItem], keys: dict[str, str] | None = None) -> str:
    """One entry per work (:func:`record_of_item`, :func:`entry`) with citekeys
    ``keys`` (``{doc: citekey}``, :func:`citekeys` of the whole folder; None: of
    ``items``), in :func:`pdftui.triage.export.export_order`; skipped works (exported
    only when asked: ``--marked all`` or ``skip``) last, after an ``@comment`` saying
    so."""
    from .export import export_order

    keys = keys if keys is not None else citekeys(items)
    out = []
    for item in export_order(items):
        if item.mark is Mark.SKIP and not any(e.startswith("@comment") for e in out):
            out.append("@comment{Skipped: the entries below were marked skip in "
                       "pdftui; they are not in the reading list}\n")
        out.append(entry(record_of_item(item), keys[item.doc]))
    return "\n".join(out)


# ---------------------------------------------------------------------------- references
_ARXIV_ONLY_RE = re.compile(r"(?i)^\W*(?:arxiv|corr)\b[\w\s.:/,\-]*$")
_REF_CLASS_RE = re.compile(r"\[(?P<cls>[a-z\-]+\.[A-Za-z\-]{2,})\]")


def record_of_reference(ref: Reference) -> BibRecord:
    """The record of a reference entry: given names from ``ref.given`` and "et al."
    from ``ref.et_al`` where the parser gives them, the venue's kind from its text
    (:func:`pdftui.venue.reference_venue`; an arXiv venue is the eprint alone, any other
    unclassified one ``howpublished``), the raw text as ``note`` when no title was
    read (no field is invented)."""
    given = ref.given
    people = tuple(Person(s, given[i] if i < len(given) else "")
                   for i, s in enumerate(ref.authors) if s.strip())
    venue = reference_venue(ref.venue)
    arxiv_only = bool(ref.arxiv_id) and bool(_ARXIV_ONLY_RE.match(ref.venue or ""))
    cls = _REF_CLASS_RE.search(ref.raw or "") if ref.arxiv_id else None
    return BibRecord(
        title=ref.title, authors=people, et_al=ref.et_al,
        year=ref.year, venue=venue,
        howpublished="" if venue or arxiv_only else ref.venue,
        arxiv_id=ref.arxiv_id, arxiv_class=cls.group("cls") if cls else "", doi=ref.doi,
        note="" if ref.title else ref.raw)


def references_bibtex(refs: list[Reference]) -> str:
    """A paper's reference list (:class:`pdftui.references.Reference` values) as BibTeX,
    one entry per reference in list order (:func:`record_of_reference`,
    :func:`entry`); citekeys from the first surname, year and first title word, unique
    within the list (clashes get ``a``, ``b``, ... in list order)."""
    keys = unique_keys((f"{r.ordinal:06d}", base_key(r.first_author, r.year, r.title))
                       for r in refs)
    return "\n".join(entry(record_of_reference(r), keys[f"{r.ordinal:06d}"]) for r in refs)
