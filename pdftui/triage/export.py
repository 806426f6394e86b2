"""Exporting a folder's triage: a Markdown reading list, BibTeX (written by
:mod:`pdftui.triage.bibtex`), CSV or JSON.

Every title, author, note and clipped passage comes from an untrusted PDF or from the user,
so each format escapes it: Markdown specials and link syntax are backslash-escaped (a
title such as ``[x](http://evil)`` stays text), BibTeX as :mod:`pdftui.triage.bibtex`
says (an entry cannot be closed or another one opened), CSV is written by the
``csv`` module with every cell that a spreadsheet would run as a formula (starting with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return) given a leading ``'`` (OWASP's
CSV injection guidance), JSON by ``json``. Control characters are removed everywhere
(:func:`pdftui.text.strip_control`).

One item is exported per work (:mod:`pdftui.triage.works`): the versions of one paper
are one entry, under its newest file, with the files of the others listed. CSV and JSON
carry each work's citekey (:func:`pdftui.triage.bibtex.citekeys`); every format gives the
year the BibTeX entry gives (:func:`pdftui.triage.bibtex.entry_year`).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from ..text import strip_control
from .bibtex import citekeys, entry_year, readable_title, to_bibtex
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
    titles = {i.doc: _plain(readable_title(i)) or _plain(i.doc) for i in items}
    for mark, title in SECTIONS:
        group = [i for i in items if i.mark is mark]
        if group:
            out += [f"## {title}", ""]
        if mark is Mark.SKIP:
            n = 0
        for item in group:
            n += 1
            out += _md_item(n, item, titles)
    return "\n".join(out).rstrip() + "\n"


def _md_item(n: int, item: ExportItem, titles: dict[str, str] | None = None) -> list[str]:
    """The Markdown lines of the ``n``-th document (1-based); ``titles`` names the works
    it cites (doc -> title: a reader of the list knows them by title, not by file)."""
    titles = titles or {}
    out = [f"### {n}. {md_escape(_plain(readable_title(item)) or _plain(item.doc))}", ""]
    if item.authors:
        out.append(f"- Authors: {md_escape(', '.join(_plain(a) for a in item.authors))}")
    if entry_year(item):
        out.append(f"- Year: {entry_year(item)}")
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
        out.append("- Cites: " + "; ".join(md_escape(titles.get(c) or _plain(c))
                                           for c in item.cites))
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
            keys[i.doc], _plain(i.doc), _plain(readable_title(i)),
            "; ".join(_plain(a) for a in i.authors), entry_year(i) or "", i.arxiv_id, i.doi,
            i.pages, i.mark.value, _plain(i.note, keep_newlines=True), clips)])
    return buf.getvalue()


def item_json(item: ExportItem, citekey: str) -> dict:
    """One item as a JSON-ready dict (clips with ``text``, ``page``, ``page_label``,
    ``section``)."""
    return {"citekey": citekey, "doc": item.doc, "versions": list(item.versions or
                                                                    (item.doc,)),
            "path": item.path, "title": item.title,
            "authors": list(item.authors), "year": entry_year(item), "arxiv_id": item.arxiv_id,
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
        # first pages of every work: BibTeX's venues, every format's citekey years
        every = with_first_pages(items_for(root, docs, triage),
                                 lambda doc, n: lib.page(doc, n).text)
        items = select(every, marked)
        from ..citation_graph import CitationGraph

        items = with_cites(items, CitationGraph.read(lib).cites)
    finally:
        lib.close()
    heading = f"Reading list: {os.path.basename(root) or root}"
    return render(items, fmt, heading, citekeys(every)), len(items)
