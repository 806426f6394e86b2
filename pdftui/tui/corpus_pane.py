"""The documents pane: every document of the folder, its status, a filter, and the scope.

Documents are listed in columns sized from the pane's real width: mark, title (or file
name), then as room allows authors, year, pages and status ("ok", "40%" embedding,
"skip", "none" for no text layer). Until a query runs the pane takes the results' place
(the folder first). Enter opens the highlighted document in the reader at page 1 with its
table of contents. Space toggles a document in or out of the search scope, ``O`` scopes to
the highlighted document only, ``x`` clears the scope (search the whole folder again),
``f`` focuses the filter, which narrows the list as you type.
"""

from __future__ import annotations

import os
import re

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from ..hidden_text import FLAG
from ..text import clean_text
from ..triage.works import by_version
from ..versions import VersionGroups, count_works, version_of
from .actions import bindings
from .doc_list import DocList
from .messages import OpenDocument, PaneFocused, ScopeChanged
from .render import literal

#: The mark column: one character per triage state (keys ``+`` ``r`` ``-`` ``u`` set them).
MARK_GLYPHS = {"keep": "+", "to-read": "r", "skip": "-"}
#: Orders of the list (``S`` cycles them).
SORTS = ("folder", "title", "author", "year", "mark", "cited")
#: Mark filters (``M`` cycles them): None shows every document, "none" the unmarked.
MARK_FILTERS = (None, "keep", "to-read", "skip", "none")
_MARK_ORDER = {"keep": 0, "to-read": 1, "none": 2, "skip": 3}


def mark_of(marks: dict, doc: str) -> str:
    """The mark value of ``doc`` ("keep", "to-read", "skip" or "none")."""
    return str(marks.get(doc) or "none")


def first_author(info) -> str:
    """The first author's surname (last word of the first author), '' when unknown."""
    authors = getattr(info, "authors", ()) or ()
    if not authors:
        return ""
    words = clean_text(str(authors[0])).split()
    return words[-1] if words else ""


def authors_text(info) -> str:
    """"Vaswani", "Vaswani, Shazeer", "Vaswani et al." ('' when unknown)."""
    authors = [clean_text(str(a)) for a in (getattr(info, "authors", ()) or ())]
    surnames = [a.split()[-1] for a in authors if a.split()]
    if not surnames:
        return ""
    if len(surnames) == 1:
        return surnames[0]
    if len(surnames) == 2:
        return f"{surnames[0]}, {surnames[1]}"
    return f"{surnames[0]} et al."


def sort_documents(documents: list, how: str, names: dict[str, str], marks: dict,
                   cited: dict[str, int] | None = None) -> list:
    """``documents`` in the order ``how`` names (one of :data:`SORTS`): "folder" keeps the
    folder's order; "title" and "author" (first author's surname) are alphabetical, "year"
    is newest first; "mark" puts keep, then to-read, unmarked, skip; "cited" the most
    cited in this folder first (``cited``: ``{doc: N}``). Documents without the value
    come last; ties keep the folder order."""
    docs = list(documents)
    if how == "title":
        docs.sort(key=lambda d: names.get(d.doc, d.doc).casefold())
    elif how == "author":
        docs.sort(key=lambda d: (not first_author(d), first_author(d).casefold()))
    elif how == "year":
        docs.sort(key=lambda d: (getattr(d, "year", None) is None,
                                 -(getattr(d, "year", None) or 0)))
    elif how == "mark":
        docs.sort(key=lambda d: _MARK_ORDER.get(mark_of(marks, d.doc), 2))
    elif how == "cited":
        counts = cited or {}
        docs.sort(key=lambda d: -counts.get(d.doc, 0))
    return docs


def doc_columns(width: int, statuses: bool) -> list[tuple[str, int]]:
    """The columns of the list for ``width`` columns: ``[(name, width)]`` with "title"
    taking what the others leave (at least 12). Names: scope, mark, title, authors, year,
    pages, status; ``statuses`` forces the status column (some document is not simply
    indexed), which otherwise shows from 90 columns."""
    cols = [("scope", 2), ("mark", 2)]
    rest = [("authors", min(22, max(10, width // 5))) if width >= 70 else None,
            ("year", 5) if width >= 48 else None,
            ("pages", 6) if width >= 60 else None,
            ("status", 5) if statuses or width >= 90 else None]
    rest = [c for c in rest if c]
    used = sum(w for _, w in cols + rest)
    return cols + [("title", max(12, width - used - 1))] + rest


def _cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` terminal cells, cut with "…" (a CJK character takes
    two cells: measured by characters, a Chinese title pushed the year and pages off its
    row at 80 columns)."""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, max(1, width - 1)).rstrip() + "…"


def _cell(text: str, width: int, style: str = "", right: bool = False) -> Text:
    text = _cut(clean_text(text), width - 1)
    pad = " " * max(0, width - 1 - cell_len(text))
    return Text((pad + text if right else text + pad) + " ", style=style)


def doc_row(info, cols: list[tuple[str, int]], name: str, in_scope: bool, mark: str) -> Text:
    """One line of the list: the document in ``cols`` (see :func:`doc_columns`)."""
    out = Text(no_wrap=True, overflow="ellipsis")
    for col, width in cols:
        if col == "scope":
            out.append("● " if in_scope else "  ", style="bold")
        elif col == "mark":
            glyph = MARK_GLYPHS.get(mark, " ")
            out.append(f"{glyph} ", style="bold" if mark in ("keep", "to-read") else "dim")
        elif col == "title":
            out.append_text(_cell(fit_name(clean_text(name), width - 1), width))
        elif col == "authors":
            out.append_text(_cell(authors_text(info), width, "dim"))
        elif col == "year":
            year = getattr(info, "year", None)
            out.append_text(_cell(str(year) if year else "", width, "dim"))
        elif col == "pages":
            out.append_text(_cell(f"{info.pages} p" if info.pages else "", width, "dim",
                                  right=True))
        elif col == "status":
            tag = status_tag(info)
            out.append_text(tag)
            out.append(" " * max(0, width - len(tag.plain)))
    out.rstrip()
    return out


def doc_header(cols: list[tuple[str, int]]) -> Text:
    """The column names above the list."""
    heads = {"scope": "", "mark": "m", "title": "title", "authors": "authors",
             "year": "year", "pages": "pages", "status": "stat"}
    out = Text(no_wrap=True, overflow="ellipsis", style="dim bold")
    for col, width in cols:
        out.append_text(_cell(heads[col], width, right=col == "pages"))
    return out


def status_tag(info) -> Text:
    """A short fixed-width status tag for the list: "ok", "42%", "skip", "none", "!"."""
    status = info.status
    if status == "indexed":
        return Text(" ok ", style="dim")
    if status == "embedding":
        return Text(f"{int(info.embedded * 100):>3}%", style="italic")
    if status == "queued":
        return Text(" ...", style="dim")
    if status == "skipped":
        return Text("skip", style="bold")
    if status == "no text layer":
        return Text("none", style="bold")
    return Text("  ! ", style="bold")


def status_text(info) -> Text:
    """The dim second line of a document entry: pages and status."""
    pages = f"{info.pages} p" if info.pages else "- p"
    status = info.status
    if status == "indexed":
        out = Text(f"{pages} · indexed", style="dim")
    elif status == "embedding":
        out = Text(f"{pages} · embedding {int(info.embedded * 100)}%", style="dim italic")
    elif status == "queued":
        out = Text(f"{pages} · queued for indexing", style="dim italic")
    elif status == "skipped":
        out = Text(f"{pages} · skipped: ", style="dim")
        out.append(literal(info.reason or "unknown reason"))
    else:
        out = Text(f"{pages} · ", style="dim")
        out.append(literal(info.reason or status))
    ocr_pages = getattr(info, "ocr_pages", 0)
    if ocr_pages:
        share = "" if ocr_pages >= info.pages else f" {ocr_pages} p"
        out.append(f" · OCR{share} (text recognised from scans)", style="dim italic")
    pending = getattr(info, "ocr_pending", 0)
    if pending and info.status in ("indexed", "embedding"):
        out.append(f" · {pending} p waiting for OCR (next index)", style="dim italic")
    if getattr(info, "hidden_instructions", False):
        out.append(f" · ! {FLAG}", style="bold")
    return out


_SEP = "-_ /"


def distinct_parts(names: list[str]) -> list[str]:
    """What tells each of ``names`` (file names) from the others: each name without its
    ``.pdf`` and without the prefix and suffix they all share, cut at separators
    (``-_ /``), so that ``["arxiv-1706.03762v5-attention.pdf",
    "arxiv-1706.03762v7-attention.pdf"]`` gives ``["1706.03762v5", "1706.03762v7"]``; a
    name left empty by the cut is given whole."""
    names = [n[:-4] if n.lower().endswith(".pdf") else n for n in names]
    if len(names) < 2:
        return names
    head = os.path.commonprefix(names)
    tail = os.path.commonprefix([n[::-1] for n in names])[::-1]
    cut = max((head.rfind(c) + 1 for c in _SEP), default=0)
    out = []
    for n in names:
        end = len(n) - len(tail)
        stop = min((i for i in (n.find(c, max(cut, end)) for c in _SEP) if i >= 0),
                   default=len(n))
        part = n[cut:stop].strip(_SEP) if cut < stop else ""
        out.append(part or n)
    return out


def title_keys(documents: list) -> dict[str, str]:
    """The name shown for each document: its title, plus what tells its file name from
    the others' (:func:`distinct_parts`) when other documents have the same title (two
    versions of one paper: "Attention Is All You Need (1706.03762v5)")."""
    shown = [clean_text(d.title or d.doc) for d in documents]
    groups: dict[str, list[int]] = {}
    for i, t in enumerate(shown):
        groups.setdefault(t, []).append(i)
    out = {d.doc: t for d, t in zip(documents, shown)}
    for t, members in groups.items():
        if len(members) > 1:
            parts = version_tags([clean_text(documents[i].doc) for i in members])
            for i, part in zip(members, parts):
                out[documents[i].doc] = f"{t} ({part})"
    return out


def fold_works(documents: list, versions: VersionGroups) -> tuple[list, dict[str, list[str]]]:
    """One row per work: ``documents`` (``DocumentInfo``, in the order shown) with a
    paper's versions folded into one row at its first's place, led by its newest file
    shown; and ``{lead: the work's files shown, oldest first}`` for each row of more than
    one file (``versions`` is :func:`pdftui.versions.version_groups`)."""
    works: dict[str, list] = {}
    for d in documents:
        group = versions.get(d.doc)
        works.setdefault(group[0] if group else f"doc:{d.doc}", []).append(d)
    rows, files = [], {}
    for members in works.values():
        if len(members) == 1:
            rows.append(members[0])
            continue
        by_doc = {m.doc: m for m in members}
        order = by_version(by_doc)
        rows.append(by_doc[order[-1]])
        files[order[-1]] = order
    return rows, files


def version_tags(docs: list[str]) -> list[str]:
    """Short tags telling ``docs`` (file names of one paper's versions) apart: "v5" / "v7"
    when each name carries the arXiv version of one paper, else :func:`distinct_parts`."""
    found = [version_of(d) for d in docs]
    if all(v for _, v in found) and len({p for p, _ in found}) == 1 \
            and len({v for _, v in found}) == len(found):
        return [v for _, v in found]
    return distinct_parts(docs)


#: A title cut to fit keeps at least this many characters before its version tag.
MIN_TITLE = 8
_TAG_RE = re.compile(r"^(.+?) (\([^()]+\))$")


def fit_name(name: str, width: int) -> str:
    """``name`` in at most ``width`` columns. A name from :func:`title_keys` ending in a
    version tag ("Attention Is All You Need (v5)") keeps its tag whole and shortens the
    title ("Attention Is… (v5)"), unless that leaves the title under :data:`MIN_TITLE`
    characters; then (and for other names) the end is cut with an ellipsis."""
    if cell_len(name) <= width:
        return name
    m = _TAG_RE.match(name)
    if m is not None:
        title, tag = m.groups()
        room = width - cell_len(tag) - 1   # the space before the tag
        if room - 1 >= min(MIN_TITLE, cell_len(title)):
            return f"{_cut(title, room)} {tag}"
    return _cut(name, width)


def filter_key(info) -> tuple[str, str]:
    """What the filter matches in a document: its title and its path, cleaned and in
    lower case."""
    return clean_text(info.title).lower(), clean_text(info.doc).lower()


def filter_documents(documents: list, needle: str,
                     keys: dict[str, tuple[str, str]] | None = None) -> list:
    """The documents matching the filter ``needle`` (case-insensitive, in title or path),
    best first: a title or file name that starts with it, then a match at the start of a
    word ("raft" in "Raft consensus"), then one inside a word ("draft"); otherwise in
    folder order. ``keys`` (doc -> :func:`filter_key`) spares computing them again."""
    needle = needle.strip().lower()
    if not needle:
        return list(documents)
    word = re.compile(r"(?:^|[^0-9a-z])" + re.escape(needle))
    scored = []
    for i, d in enumerate(documents):
        title, name = keys[d.doc] if keys is not None else filter_key(d)
        if needle in title or needle in name:
            hay = f"{title}\n{name}"
            starts = title.startswith(needle) or name.rsplit("/", 1)[-1].startswith(needle)
            scored.append((0 if starts else 1 if word.search(hay) else 2, i, d))
    scored.sort(key=lambda x: x[:2])
    return [d for _q, _i, d in scored]


class DocFilter(Input):
    """The documents pane's filter box: Esc or Down goes back to the list below it (the
    app's Esc, "back", moved on to the results pane)."""

    BINDINGS = [Binding("escape", "to_list", "List", id="filter.escape"),
                Binding("down", "to_list", "List", key_display="↓", id="filter.down"),
                Binding("enter", "submit", "Done", id="filter.submit")]

    def action_to_list(self) -> None:
        """Focus the documents list under the box, filtered by what the box holds now
        (not when its queued changes arrive: under load the keys after Down moved through
        a list filtered by the first letters, and a mark hit another paper)."""
        pane = next((a for a in self.ancestors if isinstance(a, CorpusPane)), None)
        if pane is not None:
            pane.refilter()
            pane.focus_main()


class CorpusPane(Vertical):
    """Documents of the folder with status, a type-to-filter box and a multi-select scope."""

    BINDINGS = bindings("documents")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.documents: list = []
        self.scope: set[str] = set()
        #: doc -> mark value ("keep", "to-read", "skip"; absent: none)
        self.marks: dict[str, str] = {}
        #: doc -> how many of the folder's papers cite it (:class:`CitedCounts`)
        self.cited: dict[str, int] = {}
        self.sort = "folder"
        self.mark_filter: str | None = None
        self._width = 0
        self._shown = 0
        self._refiltered = False
        self._filtered_by = ""   # the filter text the list was last built for
        self.versions: VersionGroups = {}   # versions of one paper (set_versions)
        #: the row's document -> its work's files shown, oldest first (works of 2 or more)
        self._files: dict[str, list[str]] = {}
        self._names: dict[str, str] = {}   # title_keys(self.documents), once per list
        self._filter_keys: dict[str, tuple[str, str]] | None = None   # once per list
        self.loaded = False                 # the first documents load has arrived
        self.border_title = "Documents"

    def compose(self) -> ComposeResult:
        yield DocFilter(placeholder="filter documents", id="corpus-filter", compact=True)
        yield Static("", id="doc-head", markup=False)
        yield DocList(id="doc-list")
        yield Static("", id="doc-detail", markup=False)

    # -- data -----------------------------------------------------------------------------
    def set_documents(self, documents: list, names: dict[str, str] | None = None) -> None:
        """Show ``documents`` (``DocumentInfo`` list), keeping the scope and the cursor;
        ``names`` is :func:`title_keys` of them when the caller has it (computed here
        otherwise)."""
        self.documents = list(documents)
        self.loaded = True
        self._names = names if names is not None else title_keys(self.documents)
        self._filter_keys = None   # made at the first filter typed
        known = {d.doc for d in self.documents}
        if self.scope - known:
            self.scope &= known
            self.post_message(ScopeChanged(tuple(sorted(self.scope))))
        self._rebuild()

    def set_marks(self, marks: dict[str, str]) -> None:
        """Show ``marks`` (doc -> mark value) in the mark column."""
        if marks != self.marks:
            self.marks = dict(marks)
            self._rebuild()

    def set_cited(self, cited: dict[str, int]) -> None:
        """Know how many of the folder's papers cite each document ("cited by N" in the
        detail, the "cited" order)."""
        if cited != self.cited:
            self.cited = dict(cited)
            self._rebuild()

    def _visible(self) -> list:
        needle = self.query_one("#corpus-filter", Input).value
        docs = self.documents
        if self.mark_filter is not None:
            docs = [d for d in docs if mark_of(self.marks, d.doc) == self.mark_filter]
        if not needle.strip():
            return sort_documents(docs, self.sort, self._names, self.marks, self.cited)
        if self._filter_keys is None:
            self._filter_keys = {d.doc: filter_key(d) for d in self.documents}
        return filter_documents(docs, needle, self._filter_keys)

    def on_resize(self, event) -> None:
        if event.size.width != self._width:
            self._width = event.size.width
            self._rebuild()
            self.call_after_refresh(self._rebuild)   # once the list has its new width

    def _list_width(self, lst: DocList) -> int:
        """The columns a row of the list gets: the list's content width less its
        scrollbar and padding (the pane's width cut the ends of the rows: ``25…``)."""
        inner = lst.scrollable_content_region.width
        if inner > 0:
            return inner - 1
        return (self._width or self.size.width or 34) - 5   # not laid out yet: borders,
        #                                                     padding and the scrollbar

    def _rebuild(self) -> None:
        """Show the documents again (filter, mark filter, sort, scope, marks or width
        changed): the list is handed the shown documents and makes only the rows on
        screen. The cursor stays on its document (on its row when the document left the
        list); a new filter puts it on the best match, the list scrolled to the top."""
        lst = self.query_one(DocList)
        old, old_doc = lst.highlighted, lst.highlighted_doc
        visible, self._files = fold_works(self._visible(), self.versions)
        self._shown = len(visible)
        if old_doc is not None:   # the row of its work when another file leads it now
            old_doc = next((lead for lead, files in self._files.items()
                            if old_doc in files), old_doc)
        # the status column always from 90 columns, else while some document is not
        # simply indexed
        tags = any(d.status != "indexed" for d in self.documents)
        cols = doc_columns(max(20, self._list_width(lst)), tags)
        self.query_one("#doc-head", Static).update(doc_header(cols))
        index = 0
        if old_doc is not None and not self._refiltered:
            index = next((i for i, d in enumerate(visible) if d.doc == old_doc),
                         min(old or 0, max(0, len(visible) - 1)))
        lst.set_rows(visible, lambda info: self._row(info, cols), index,
                     top=self._refiltered)
        self._refiltered = False
        self._update_title()
        self._show_detail()

    def _row(self, info, cols: list[tuple[str, int]]) -> Text:
        """The list row of ``info`` (a ``DocumentInfo``) in ``cols``, with its name,
        scope dot and mark as they are now."""
        files = self._files.get(info.doc)
        if files:   # a work of several files: its title, then every file's tag
            name = f"{clean_text(info.title or info.doc)} ({' '.join(version_tags(files))})"
        else:
            name = self._names.get(info.doc) or clean_text(info.title or info.doc)
        return doc_row(info, cols, name, info.doc in self.scope,
                       mark_of(self.marks, info.doc))

    def _show_detail(self) -> None:
        """Title, file name, pages and status of the highlighted document."""
        lst = self.query_one(DocList)
        box = self.query_one("#doc-detail", Static)
        if lst.highlighted is None or not lst.option_count:
            empty = "no documents yet" if self.loaded else "loading the documents…"
            box.update(Text(empty if not self.documents else "no match", style="dim"))
            return
        info = lst.info_at(lst.highlighted)
        doc = info.doc
        out = literal(info.title or info.doc, style="bold")
        meta = " · ".join(x for x in (", ".join(clean_text(str(a)) for a in
                                                (getattr(info, "authors", ()) or ())[:4]),
                                       str(getattr(info, "year", None) or ""),
                                       f"arXiv:{info.arxiv_id}" if getattr(info, "arxiv_id", "")
                                       else "") if x)
        if meta:
            out.append("\n")
            out.append(literal(meta))
        out.append("\n")
        # the file name on one line, cut with an ellipsis (it was cut at the border)
        width = box.content_region.width or max(20, (self._width or 34) - 4)
        for name in reversed(self._files.get(doc) or [doc]):   # a work's files, newest first
            out.append(literal(fit_name(clean_text(name), width), style="dim"))
            out.append("\n")
        out.append(status_text(info))
        if doc in self.scope:
            out.append("  · in scope", style="bold")
        mark = mark_of(self.marks, doc)
        if mark != "none":
            out.append(f"  · {mark}", style="bold")
        if self.cited.get(doc):
            out.append(f"  · cited by {self.cited[doc]}", style="bold")
        box.update(out)

    @on(DocList.Highlighted)
    def _doc_highlighted(self, event: DocList.Highlighted) -> None:
        event.stop()
        self._show_detail()

    @on(DocList.Selected)
    def _doc_selected(self, event: DocList.Selected) -> None:
        """Enter on a document: open it in the reader at page 1, table of contents shown."""
        event.stop()
        if event.doc:
            self.post_message(OpenDocument(event.doc))

    def current_doc(self) -> str | None:
        """The highlighted document, or None."""
        return self.query_one(DocList).highlighted_doc

    def _update_title(self) -> None:
        n = len(self.documents)
        works = count_works((d.doc for d in self.documents), self.versions)
        ready = sum(1 for d in self.documents if d.status in ("indexed", "embedding"))
        title = f"Documents {ready}/{n}" if ready != n else f"Documents {works}"
        if self._shown != works:
            title = f"Documents {self._shown} of {works} shown"
        if works != n:   # versions of one paper are one row
            title += f" ({n} files)"
        if self.mark_filter is not None:
            title += f" · {'unmarked' if self.mark_filter == 'none' else self.mark_filter}"
        if self.sort != "folder":
            title += f" · by {self.sort}"
        if self.scope:
            works = len({self.versions[d][0] if d in self.versions else d
                         for d in self.scope})
            title += f" · scope {works}" if works == len(self.scope) else \
                f" · scope {works} work{'s' if works != 1 else ''} ({len(self.scope)} files)"
        self.border_title = title

    # -- events ---------------------------------------------------------------------------
    @on(Input.Changed, "#corpus-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refilter()

    def refilter(self) -> None:
        """Show the documents the filter box admits now, the cursor on the best match;
        nothing when the list already shows them (a change queued before it was built
        must not put the cursor back on the best match after the user moved it)."""
        value = self.query_one("#corpus-filter", Input).value
        if value == self._filtered_by:
            return
        self._filtered_by = value
        self._refiltered = True   # the cursor goes to the best match
        self._rebuild()

    @on(Input.Submitted, "#corpus-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_main()

    def set_versions(self, versions: VersionGroups) -> None:
        """The version groups of the documents (:func:`pdftui.versions.version_groups`):
        Space puts a work's every file in the scope or takes them all out."""
        self.versions = versions
        self._rebuild()   # a paper's versions are one row

    def work_files(self, doc: str) -> set[str]:
        """The files of ``doc``'s work (``{doc}`` for a paper with one version)."""
        group = self.versions.get(doc)
        if group is None:
            return {doc}
        return {d for d, g in self.versions.items() if g[0] == group[0]}

    @on(DocList.Toggled)
    def _toggled(self, event: DocList.Toggled) -> None:
        event.stop()
        files = self.work_files(event.doc)   # one work: v5 and v7 in or out together
        if event.doc in self.scope:
            self.scope -= files
        else:
            self.scope |= files
        self._rebuild()
        self._scope_changed()

    def on_descendant_focus(self, event) -> None:
        self.post_message(PaneFocused("corpus"))

    def _scope_changed(self) -> None:
        self._update_title()
        self._show_detail()
        self.post_message(ScopeChanged(tuple(sorted(self.scope))))

    # -- actions --------------------------------------------------------------------------
    def action_only(self) -> None:
        """Scope the search to the highlighted document's work only (its every version)."""
        doc = self.current_doc()
        if doc is None:
            return
        self.scope = self.work_files(doc)
        self._rebuild()
        self._scope_changed()

    def action_clear_scope(self) -> None:
        """Search the whole folder again."""
        if not self.scope:
            return
        self.scope = set()
        self._rebuild()
        self._scope_changed()

    def action_sort(self) -> None:
        """Next order of the list: folder, title, author, year (newest first), mark;
        the list shows the new order from its top, the first row selected."""
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self._refiltered = True   # the new order from its top, its first row selected
        self._rebuild()
        self.notify(f"documents sorted by {self.sort}", timeout=1.5)

    def action_mark_filter(self) -> None:
        """Next mark filter: every document, keep, to-read, skip, unmarked."""
        i = MARK_FILTERS.index(self.mark_filter)
        self.mark_filter = MARK_FILTERS[(i + 1) % len(MARK_FILTERS)]
        self._refiltered = True
        self._rebuild()
        shown = {None: "every document", "none": "unmarked documents"}.get(
            self.mark_filter, f"documents marked {self.mark_filter}")
        self.notify(f"showing {shown}", timeout=1.5)

    def action_focus_filter(self) -> None:
        """Focus the filter box."""
        self.query_one("#corpus-filter", Input).focus()

    def focus_main(self) -> None:
        """Focus the document list (used when the pane becomes current)."""
        self.screen.set_focus(self.query_one(DocList))   # now, not after the keys queued
