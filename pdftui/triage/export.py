"""Exporting a folder's triage: a Markdown reading list, BibTeX, CSV or JSON.

Every title, author, note and clipped passage comes from an untrusted PDF or from the user,
so each format escapes it: Markdown specials and link syntax are backslash-escaped (a
title such as ``[x](http://evil)`` stays text), BibTeX braces, ``@`` and the LaTeX specials
are escaped so an entry cannot be closed or another one opened, CSV is written by the
``csv`` module with every cell that a spreadsheet would run as a formula (starting with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return) given a leading ``'`` (OWASP's
CSV injection guidance), JSON by ``json``. Control characters are removed everywhere
(:func:`pdftui.text.strip_control`).

One item is exported per work (:mod:`pdftui.triage.works`): the versions of one paper
are one entry, under its newest file, with the files of the others listed.

A citekey is the first author's surname + year + the first word of the title that is not
an article or a preposition, ASCII letters and digits only (``vaswani2017attention``);
keys of different works that collide get ``a``, ``b``, ... in document order, so the same
folder always gives the same keys.

BibTeX entries take their type from what the first pages print (:mod:`pdftui.venue`):
``@article`` with ``journal``, ``@inproceedings`` with ``booktitle``, else ``@misc``; an
arXiv paper carries ``eprint``, ``archivePrefix``, ``primaryClass`` and ``url`` as arXiv's
own BibTeX export writes them. Titles are in title case with the words whose case matters
protected in braces (:mod:`pdftui.triage.title_case`).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import time
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from ..text import strip_control
from .store import Clip, DocTriage, Mark
from .works import Works, members, merge, newest, works_of


class ExportFormat(StrEnum):
    """An export format (the value is the CLI's ``--format``)."""

    MARKDOWN = "markdown"
    BIBTEX = "bibtex"
    CSV = "csv"
    JSON = "json"

    @property
    def suffix(self) -> str:
        """The usual file name suffix: ``.md``, ``.bib``, ``.csv``, ``.json``."""
        return {"markdown": ".md", "bibtex": ".bib", "csv": ".csv", "json": ".json"}[self.value]


#: ``--marked`` choices: one mark, ``any`` (every marked document) or ``all``.
MARKED_CHOICES = ("keep", "to-read", "skip", "any", "all")


@dataclass(frozen=True, slots=True)
class ExportItem:
    """One work as exported: ``doc`` (path relative to the folder of the file standing
    for it, its newest version), ``path`` (that file's absolute path), metadata (empty
    when unknown), ``pages`` (count), mark, note and clips; ``versions`` every file of
    the work ('' when it is ``doc`` alone); ``first_pages`` the text of its first pages
    (read for the BibTeX venue, arXiv category and title case; () when not read)."""

    doc: str
    path: str
    title: str
    authors: tuple[str, ...] = ()
    year: int | None = None
    arxiv_id: str = ""
    doi: str = ""
    pages: int = 0
    mark: Mark = Mark.NONE
    note: str = ""
    clips: tuple[Clip, ...] = field(default_factory=tuple)
    versions: tuple[str, ...] = ()
    first_pages: tuple[str, ...] = ()
    #: The other exported works this one cites (their ``doc``), from the folder's
    #: citation links (:mod:`pdftui.citation_graph`); () when none or not read.
    cites: tuple[str, ...] = ()


def items_for(root: str, docs: Iterable, triage: dict[str, DocTriage],
              works: Works | None = None) -> list[ExportItem]:
    """One export item per work (:mod:`pdftui.triage.works`; ``works`` None: computed
    from ``docs``), in folder order, from the folder's
    :class:`pdftui.library.DocumentInfo` list and the per-file ``{doc: DocTriage}`` of
    :meth:`pdftui.triage.store.TriageStore.lookup` (the files' triage merged). A work's
    metadata is its newest file's, a field it lacks taken from another version."""
    docs = list(docs)
    works = works if works is not None else works_of(docs)
    info = {d.doc: d for d in docs}
    out = []
    for files in members({d.doc: works.get(d.doc, f"doc:{d.doc}") for d in docs}).values():
        lead = info[newest(files)]
        others = [info[f] for f in files if f != lead.doc]
        t = merge([(f, triage.get(f) or DocTriage()) for f in files])

        def pick(name: str, lead=lead, others=others):
            return getattr(lead, name) or next((getattr(o, name) for o in others
                                                if getattr(o, name)), getattr(lead, name))

        out.append(ExportItem(lead.doc, os.path.join(root, lead.doc), lead.title,
                              tuple(pick("authors")), pick("year"), pick("arxiv_id"),
                              pick("doi"), lead.pages, t.mark, t.note, tuple(t.clips),
                              tuple(files) if len(files) > 1 else ()))
    return out


def with_cites(items: list[ExportItem], cites) -> list[ExportItem]:
    """``items`` each with the other items' docs it cites (``cites(doc)`` -> the set of
    folder docs that doc's work cites, every version of each), in export order."""
    import dataclasses

    lead = {}
    for item in items:
        for d in item.versions or (item.doc,):
            lead[d] = item.doc
    out = []
    for item in items:
        cited = {lead[d] for d in cites(item.doc) if d in lead} - {item.doc}
        out.append(dataclasses.replace(item, cites=tuple(sorted(cited))))
    return out


def with_first_pages(items: list[ExportItem], read_page) -> list[ExportItem]:
    """``items`` with the text of their first two pages (``read_page(doc, n)`` -> str;
    a page it cannot read, raising, is left out)."""
    import dataclasses

    out = []
    for item in items:
        pages = []
        for n in (1, 2):
            try:
                pages.append(read_page(item.doc, n))
            except Exception:  # noqa: BLE001 - a page not there: the fields it gives stay empty
                break
        out.append(dataclasses.replace(item, first_pages=tuple(pages)))
    return out


def select(items: list[ExportItem], marked: str = "any") -> list[ExportItem]:
    """The items with mark ``marked`` ("keep", "to-read", "skip"), any triage ("any": a
    mark, a note or a clip, the skipped works left out) or all of them ("all", the
    skipped ones included); raises ``ValueError`` for another choice."""
    if marked == "all":
        return list(items)
    if marked == "any":
        return [i for i in items if i.mark is not Mark.SKIP
                and (i.mark is not Mark.NONE or i.note.strip() or i.clips)]
    want = Mark.parse(marked)
    return [i for i in items if i.mark is want]


#: The export's order and Markdown sections: the reading list (to read, then keep), the
#: documents with only a note or clips, then the skipped ones, kept apart.
SECTIONS = ((Mark.TO_READ, "To read"), (Mark.KEEP, "Keep"),
            (Mark.NONE, "Notes and clips (not marked)"),
            (Mark.SKIP, "Skipped (not in the reading list)"))
_SECTION_RANK = {mark: n for n, (mark, _title) in enumerate(SECTIONS)}


def export_order(items: list[ExportItem]) -> list[ExportItem]:
    """``items`` in :data:`SECTIONS` order (to read, keep, unmarked, skipped), each group
    in the order given (the folder's). Every format writes this order, so a skipped paper
    never comes among the reading list."""
    return sorted(items, key=lambda i: _SECTION_RANK[i.mark])


def _plain(s: str | None, keep_newlines: bool = False) -> str:
    """Untrusted text without control characters; one line unless ``keep_newlines``."""
    s = strip_control((s or "").replace("\r\n", "\n").replace("\r", "\n"),
                      keep_newlines=keep_newlines, keep_tabs=False)
    return s if keep_newlines else " ".join(s.split())


# ---------------------------------------------------------------------------- citekeys
_STOPWORDS = frozenset("a an the on of in for to and with from by at is are as via".split())


def _ascii_word(s: str) -> str:
    folded = unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def _base_key(item: ExportItem) -> str:
    surname = _ascii_word(item.authors[0].split()[-1]) if item.authors else ""
    words = [_ascii_word(w) for w in re.split(r"[\s\-:/]+", item.title)]
    first = next((w for w in words if w and w not in _STOPWORDS), "")
    return f"{surname or 'anon'}{item.year or 'nd'}{first}"


def citekeys(items: list[ExportItem]) -> dict[str, str]:
    """``{doc: citekey}``: unique, stable for the same documents (collisions get a
    letter suffix in ``doc`` order). Pass the whole folder's items, not an exported
    selection, so that a document keeps its key whichever documents are exported."""
    by_key: dict[str, list[str]] = {}
    for item in sorted(items, key=lambda i: i.doc):
        by_key.setdefault(_base_key(item), []).append(item.doc)
    out: dict[str, str] = {}
    for key, docs in by_key.items():
        if len(docs) == 1:
            out[docs[0]] = key
            continue
        for n, doc in enumerate(docs):
            out[doc] = key + _suffix(n)
    return out


def _suffix(n: int) -> str:
    """a, b, ..., z, aa, ab, ... for the n-th (0-based) colliding key."""
    s = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(97 + r) + s
    return s


# ---------------------------------------------------------------------------- Markdown
#: What makes Markdown anywhere in a line: escapes, code, emphasis, link and image
#: brackets, an HTML tag's ``<``, table pipes, strikethrough; ``&`` only where it starts an
#: entity (``&amp;``, ``&#38;``). Parentheses, braces, ``!``, ``+``, ``#``, ``>`` and a
#: quote are plain text there (a link needs the brackets, a heading or a block quote the
#: line start), so titles and section paths ("3 Design > 3.3 Appends") read as written.
_MD_SPECIAL_RE = re.compile(r"([\\`*_\[\]<|~]|&(?=#?\w+;))")
#: A block marker at a line start: list bullet, setext underline, block quote, ATX
#: heading, or an ordered-list number ("12." / "12)") followed by a space or the line's end.
_MD_LINE_START_RE = re.compile(r"^(\s*)(?:([-=+>#])|(\d{1,9})([.)])(?=\s|$))", re.MULTILINE)
_MD_AUTOLINK_RE = re.compile(r"(?i)\b(https?|ftp|mailto|www)([:.])")


def _md_line_start(m: re.Match) -> str:
    """``\\-`` for a bullet; ``1\\.`` for a number (a backslash before a digit is no
    escape: it would show)."""
    if m.group(2):
        return f"{m.group(1)}\\{m.group(2)}"
    return f"{m.group(1)}{m.group(3)}\\{m.group(4)}"


def md_escape(s: str, line_start: bool = False) -> str:
    """Untrusted text as literal Markdown (CommonMark / GitHub): specials, link and image
    syntax, HTML and autolinks (``http:`` / ``www.``) are backslash-escaped; block markers
    (``-`` ``+`` ``=`` ``>``, ``1.``) are escaped where the text starts a line: after each
    newline, and at its start when ``line_start`` (a block quote's line; not a value
    after "- arXiv: ", so ``1706.03762`` stays as it is). Escapes only ASCII punctuation,
    so every backslash added disappears when the Markdown is rendered."""
    s = _MD_SPECIAL_RE.sub(r"\\\1", s)
    s = _MD_AUTOLINK_RE.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", s)
    if line_start:
        return _MD_LINE_START_RE.sub(_md_line_start, s)
    head, nl, rest = s.partition("\n")
    return head + nl + _MD_LINE_START_RE.sub(_md_line_start, rest) if nl else head


def _md_quote(text: str) -> list[str]:
    """A block quote of escaped multi-line text."""
    return ["> " + md_escape(line, line_start=True) if line.strip() else ">"
            for line in _plain(text, keep_newlines=True).split("\n")]


def to_markdown(items: list[ExportItem], heading: str = "Reading list") -> str:
    """A Markdown reading list in sections (:data:`SECTIONS`: "To read", "Keep", notes
    and clips of unmarked papers, then "Skipped" apart): per document its title, authors,
    year, file, mark, ids, note and clipped passages (each with its page label, "p. 7",
    and section)."""
    items = export_order(items)
    skipped = sum(i.mark is Mark.SKIP for i in items)
    listed = len(items) - skipped
    count = f"{listed} document{'s' if listed != 1 else ''}"
    if skipped and not listed:   # --marked skip: the list is the skipped papers
        count = f"{skipped} skipped document{'s' if skipped != 1 else ''}"
    elif skipped:   # the skipped papers are not counted in, nor numbered with, the list
        count += f" · {skipped} skipped"
    out = [f"# {md_escape(_plain(heading))}", "",
           f"{count} · exported {time.strftime('%Y-%m-%d')}", ""]
    n = 0
    for mark, title in SECTIONS:
        group = [i for i in items if i.mark is mark]
        if group:
            out += [f"## {title}", ""]
        if mark is Mark.SKIP:
            n = 0
        for item in group:
            n += 1
            out += _md_item(n, item)
    return "\n".join(out).rstrip() + "\n"


def _md_item(n: int, item: ExportItem) -> list[str]:
    """The Markdown lines of the ``n``-th document (1-based)."""
    out = [f"### {n}. {md_escape(_plain(item.title) or _plain(item.doc))}", ""]
    if item.authors:
        out.append(f"- Authors: {md_escape(', '.join(_plain(a) for a in item.authors))}")
    if item.year:
        out.append(f"- Year: {item.year}")
    out.append(f"- File: {md_escape(_plain(item.doc))}")
    for other in item.versions:
        if other != item.doc:
            out.append(f"- Other version: {md_escape(_plain(other))}")
    out.append(f"- Mark: {item.mark.value}")
    if item.arxiv_id:
        out.append(f"- arXiv: {md_escape(_plain(item.arxiv_id))}")
    if item.doi:
        out.append(f"- DOI: {md_escape(_plain(item.doi))}")
    if item.cites:
        out.append("- Cites: " + ", ".join(md_escape(_plain(c)) for c in item.cites))
    out.append("")
    if item.note.strip():
        out += ["Note:", ""] + _md_quote(item.note) + [""]
    if item.clips:
        out += ["Clipped passages:", ""]
        for clip in item.clips:
            where = clip.page_ref + (f", {_plain(clip.section)}" if clip.section else "")
            if item.versions and clip.doc:
                where += f", {_plain(clip.doc)}"
            out += _md_quote(clip.text) + [">", f"> — {md_escape(where)}", ""]
    return out


# ---------------------------------------------------------------------------- BibTeX
_BIB_SPECIALS = {"\\": r"\textbackslash{}", "{": r"\textbraceleft{}",
                 "}": r"\textbraceright{}", "@": r"{\char64}",
                 "%": r"\%", "&": r"\&", "#": r"\#", "$": r"\$", "_": r"\_",
                 "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_BIB_RE = re.compile("[" + re.escape("".join(_BIB_SPECIALS)) + "]")


def bib_escape(s: str) -> str:
    r"""Untrusted text as a braced BibTeX value: ``@``, backslash and the LaTeX specials
    escaped, and braces written as ``\textbraceleft{}`` / ``\textbraceright{}`` (BibTeX
    counts every brace, escaped or not, so ``\}`` would still close the value); the
    value can neither close its entry nor open another."""
    return _bib_chars(_plain(s))


def _bib_chars(s: str) -> str:
    """:func:`bib_escape` without the clean-up (one piece of a value already cleaned)."""
    return _BIB_RE.sub(lambda m: _BIB_SPECIALS[m.group(0)], s)


def bib_title(item: ExportItem) -> str:
    """The ``title`` value of an item: title case with acronyms and names in braces
    (:func:`pdftui.triage.title_case.title_case`, the words' spellings read from its
    first pages); a title that is only the file's name stays as it is, in braces."""
    from .title_case import title_case, word_forms

    title = _plain(item.title)
    stem = os.path.splitext(os.path.basename(item.doc))[0]
    if not title or title in (stem, os.path.basename(item.doc)):
        return "{" + bib_escape(title or item.doc) + "}"
    return title_case(title, word_forms(" ".join(item.first_pages)), _bib_chars)


def _bib_type(item: ExportItem) -> tuple[str, list[tuple[str, str]]]:
    """The entry type and its venue fields: ``article`` + ``journal``,
    ``inproceedings`` + ``booktitle`` (:func:`pdftui.venue.find_venue`), else
    ``misc``."""
    from ..venue import find_venue

    venue = find_venue(list(item.first_pages))
    if venue is None:
        return "misc", []
    field_name = "journal" if venue.kind.value == "article" else "booktitle"
    return venue.kind.value, [(field_name, bib_escape(venue.name))]


def _arxiv_fields(item: ExportItem) -> list[tuple[str, str]]:
    """``eprint``, ``archivePrefix``, ``primaryClass`` and ``url``, as arXiv's BibTeX
    export writes them (the class from the stamp, or an old-style id's archive)."""
    from ..venue import arxiv_class

    if not item.arxiv_id:
        return []
    cls = arxiv_class(list(item.first_pages)) or (
        item.arxiv_id.split("/")[0] if "/" in item.arxiv_id else "")
    out = [("eprint", bib_escape(item.arxiv_id)), ("archivePrefix", "arXiv")]
    if cls:
        out.append(("primaryClass", bib_escape(cls)))
    return out + [("url", "https://arxiv.org/abs/" + bib_escape(item.arxiv_id))]


def _bib_path(s: str) -> str:
    """A file path as a BibTeX value, as it is (reference managers must find the file)
    unless its braces are unbalanced, which would end the entry: then they are written
    as LaTeX commands like in :func:`bib_escape`."""
    s = _plain(s)
    depth = 0
    for c in s:
        depth += {"{": 1, "}": -1}.get(c, 0)
        if depth < 0:
            break
    if depth == 0:
        return s
    return s.replace("{", r"\textbraceleft{}").replace("}", r"\textbraceright{}")


def to_bibtex(items: list[ExportItem], keys: dict[str, str] | None = None) -> str:
    """One BibTeX entry per work, its type from the venue its first pages print
    (``@article`` + ``journal``, ``@inproceedings`` + ``booktitle``, else ``@misc``),
    with fields title (title case, :func:`bib_title`), author ("A and B"), year, the
    venue, eprint + archivePrefix + primaryClass + url for arXiv papers, doi, file, the
    user's note as ``note`` and the mark as ``keywords`` (``pdftui-to-read``); in
    :func:`export_order`, skipped works (exported only when asked: ``--marked all`` or
    ``skip``) last after an ``@comment`` saying so."""
    keys = keys if keys is not None else citekeys(items)
    entries = []
    for item in export_order(items):
        if item.mark is Mark.SKIP and not any("@comment" in e for e in entries):
            entries.append("@comment{Skipped: the entries below were marked skip in "
                           "pdftui; they are not in the reading list}\n")
        kind, venue = _bib_type(item)
        fields = [("title", bib_title(item))]
        if item.authors:
            fields.append(("author", " and ".join(bib_escape(a) for a in item.authors)))
        if item.year:
            fields.append(("year", str(item.year)))
        fields += venue + _arxiv_fields(item)
        if item.doi:
            fields.append(("doi", bib_escape(item.doi)))
        fields.append(("file", _bib_path(item.path)))
        if item.note.strip():
            fields.append(("note", bib_escape(item.note)))
        if item.mark is not Mark.NONE:
            fields.append(("keywords", f"pdftui-{item.mark.value}"))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{kind}{{{keys[item.doc]},\n{body}\n}}\n")
    return "\n".join(entries)


def references_bibtex(refs: list) -> str:
    """A paper's reference list (:class:`pdftui.references.Reference` values) as BibTeX,
    one ``@misc`` entry per entry in list order: citekeys as :func:`citekeys` makes them
    (surname, year, first title word; unique), fields escaped (:func:`bib_escape`), title,
    author (surnames, "A and B"), year, ``howpublished`` (the venue), eprint +
    archivePrefix, doi, and the entry's raw text as ``note`` when its title was not read
    (no field is invented)."""
    items = [ExportItem(f"{r.ordinal:06d}", "", r.title, tuple(r.authors), r.year,
                        r.arxiv_id, r.doi) for r in refs]
    keys = citekeys(items)
    entries = []
    for r, item in zip(refs, items):
        fields = []
        if r.title:
            fields.append(("title", "{" + bib_escape(r.title) + "}"))
        if r.authors:
            fields.append(("author", " and ".join(bib_escape(a) for a in r.authors)))
        if r.year:
            fields.append(("year", str(r.year)))
        if r.venue:
            fields.append(("howpublished", bib_escape(r.venue)))
        if r.arxiv_id:
            fields += [("eprint", bib_escape(r.arxiv_id)), ("archivePrefix", "arXiv")]
        if r.doi:
            fields.append(("doi", bib_escape(r.doi)))
        if not r.title:
            fields.append(("note", bib_escape(r.raw)))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@misc{{{keys[item.doc]},\n{body}\n}}\n")
    return "\n".join(entries)


# ---------------------------------------------------------------------------- CSV, JSON
CSV_COLUMNS = ("citekey", "doc", "title", "authors", "year", "arxiv_id", "doi", "pages",
               "mark", "note", "clips")


#: What starts a cell a spreadsheet reads as a formula (OWASP, CSV injection).
CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A CSV cell a spreadsheet shows as text: a string starting with a formula
    character (:data:`CSV_FORMULA_START`) gets a leading ``'``; other values as they
    are."""
    if isinstance(value, str) and value.startswith(CSV_FORMULA_START):
        return "'" + value
    return value


def to_csv(items: list[ExportItem], keys: dict[str, str] | None = None) -> str:
    """CSV with a header (:data:`CSV_COLUMNS`), rows in :func:`export_order` (the
    ``mark`` column says which are skipped); authors joined by "; ", clips as
    "p. 7 (section): text" joined by newlines inside their cell; every cell through
    :func:`csv_cell` (no formula runs when the file is opened in a spreadsheet)."""
    keys = keys if keys is not None else citekeys(items)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for i in export_order(items):
        clips = "\n".join(f"{c.page_ref}{f' ({_plain(c.section)})' if c.section else ''}: "
                          f"{_plain(c.text)}" for c in i.clips)
        w.writerow([csv_cell(v) for v in (
            keys[i.doc], _plain(i.doc), _plain(i.title),
            "; ".join(_plain(a) for a in i.authors), i.year or "", i.arxiv_id, i.doi,
            i.pages, i.mark.value, _plain(i.note, keep_newlines=True), clips)])
    return buf.getvalue()


def item_json(item: ExportItem, citekey: str) -> dict:
    """One item as a JSON-ready dict (clips with ``text``, ``page``, ``page_label``,
    ``section``)."""
    return {"citekey": citekey, "doc": item.doc, "versions": list(item.versions or
                                                                    (item.doc,)),
            "path": item.path, "title": item.title,
            "authors": list(item.authors), "year": item.year, "arxiv_id": item.arxiv_id,
            "doi": item.doi, "pages": item.pages, "mark": item.mark.value, "note": item.note,
            "cites": list(item.cites),
            "clips": [{"text": c.text, "page": c.page, "page_label": c.page_label,
                       "section": c.section, "doc": c.doc or item.doc}
                      for c in item.clips]}


def to_json(items: list[ExportItem], keys: dict[str, str] | None = None) -> str:
    """``{"documents": [...]}`` (see :func:`item_json`) in :func:`export_order` (each
    says its ``mark``), one line."""
    keys = keys if keys is not None else citekeys(items)
    return json.dumps({"documents": [item_json(i, keys[i.doc]) for i in export_order(items)]},
                      ensure_ascii=False) + "\n"


def render(items: list[ExportItem], fmt: ExportFormat | str,
           heading: str = "Reading list", keys: dict[str, str] | None = None) -> str:
    """The items in format ``fmt``, with citekeys ``keys`` (``{doc: citekey}``, from
    :func:`citekeys` over the whole folder; None: over ``items``); raises ``ValueError``
    for an unknown format."""
    fmt = ExportFormat(fmt)
    if fmt is ExportFormat.MARKDOWN:
        return to_markdown(items, heading)
    if fmt is ExportFormat.BIBTEX:
        return to_bibtex(items, keys)
    if fmt is ExportFormat.CSV:
        return to_csv(items, keys)
    return to_json(items, keys)


def export_folder(folder: str | os.PathLike, fmt: ExportFormat | str = ExportFormat.MARKDOWN,
                  marked: str = "any", cache_dir=None, data_dir=None) -> tuple[str, int]:
    """Export a folder already indexed in the cache: ``(text, number of documents)``.

    Blocking (SQLite): call from a worker. Raises
    :class:`pdftui.triage.store.TriageStoreError` when the user data cannot be read and
    ``ValueError`` for an unknown format or ``marked`` choice.
    """
    from ..library import Library
    from .store import TriageStore

    lib = Library(folder, cache_dir)
    try:
        docs, root = lib.documents(), lib.root
        with TriageStore(data_dir) as store:
            triage = store.lookup(root, [(d.doc, d.sha256) for d in docs])
        every = items_for(root, docs, triage)
        items = select(every, marked)
        from ..citation_graph import CitationGraph

        items = with_cites(items, CitationGraph.read(lib).cites)
        if ExportFormat(fmt) is ExportFormat.BIBTEX:
            items = with_first_pages(items, lambda doc, n: lib.page(doc, n).text)
    finally:
        lib.close()
    heading = f"Reading list: {os.path.basename(root) or root}"
    return render(items, fmt, heading, citekeys(every)), len(items)
