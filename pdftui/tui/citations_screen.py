"""The citation lists of one document (keys ``b``, ``B``, ``l``): its references with the
folder's documents first, the folder's papers citing it with the page of the citing entry,
and "more like this" with why.

A thin client of :class:`pdftui.citation_graph.CitationGraph`: the rows are read in a
thread worker through the app's library gate; this screen only shows them. Enter on a
folder document opens it in the reader (a citing paper at the citing entry's page); every
row's fields show below the list, and ``y`` copies the highlighted entry's text.
Untrusted text (entries, titles, file names) is shown through :func:`.render.literal`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ..text import clean_text
from .actions import bindings
from .render import literal


class ListKind(enum.StrEnum):
    """Which list the screen shows."""

    REFERENCES = "references"
    CITED_BY = "cited by"
    SIMILAR = "more like this"


#: What an empty list says, by kind.
EMPTY = {ListKind.REFERENCES: "no reference list found in this document",
         ListKind.CITED_BY: "no document of this folder cites it",
         ListKind.SIMILAR: "no similar document in this folder"}


def plural(n: int, word: str) -> str:
    """"1 paper", "2 papers"."""
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclass(frozen=True, slots=True)
class Row:
    """One line of a list: ``text`` shown, ``detail`` shown below when highlighted, the
    folder ``doc`` it opens (None: not a document of the folder) at ``page``, and the
    ``copy`` text ``y`` puts on the clipboard."""

    text: Text
    detail: Text
    doc: str | None = None
    page: int = 1
    copy: str = ""
    entry: str = ""   # text to find on that page (a citing entry): the reader marks it


def reference_rows(rows: list) -> list[Row]:
    """Rows of :meth:`CitationGraph.references`: the folder's documents first (list
    order), then the other entries."""
    out = []
    for r in sorted(rows, key=lambda r: (r.match is None, r.reference.ordinal)):
        ref = r.reference
        line = Text("● " if r.match else "  ", style="bold")
        if ref.label:
            line.append_text(literal(ref.label + " ", style="dim"))
        line.append_text(literal(ref.title or ref.raw))
        detail = _fields(ref)
        if r.match:
            line.append_text(literal(f" → {r.match}", style="bold"))
            detail.append("\n")
            detail.append_text(literal(f"in this folder: {', '.join(r.matches)}",
                                       style="bold"))
        out.append(Row(line, detail, r.match, 1, ref.raw))
    return out


def _fields(ref) -> Text:
    """An entry's parsed fields (those read), then its page."""
    parts = [(name, value) for name, value in (
        ("authors", ", ".join(ref.authors[:6]) + (" et al." if len(ref.authors) > 6 else "")),
        ("year", str(ref.year or "")), ("title", ref.title), ("venue", ref.venue),
        ("arXiv", ref.arxiv_id), ("DOI", ref.doi)) if value]
    out = Text()
    for name, value in parts:
        out.append(f"{name}: ", style="dim")
        out.append_text(literal(value))
        out.append("  ")
    if not parts:
        out.append("not parsed: ", style="dim")
        out.append_text(literal(ref.raw[:300]))
    out.append(f"  p. {ref.page}", style="dim")
    return out


def cited_by_rows(rows: list, titles: dict[str, str]) -> list[Row]:
    """Rows of :meth:`CitationGraph.cited_by` (citing paper, page of the citing entry)."""
    out = []
    for c in rows:
        line = literal(f"p. {c.page:<4}", style="dim")   # first: a wrapped title never hides it
        line.append_text(literal(titles.get(c.doc) or c.doc))
        detail = literal(c.doc, style="bold")
        detail.append("\n")
        detail.append_text(literal(f"p. {c.page} {c.label}: {c.raw}"[:400]))
        out.append(Row(line, detail, c.doc, c.page, c.raw, c.raw))
    return out


def similar_rows(rows: list, titles: dict[str, str]) -> list[Row]:
    """Rows of :meth:`CitationGraph.similar` (score, paper, why)."""
    out = []
    for s in rows:
        line = Text(f"{s.score:.2f} ", style="dim")
        line.append_text(literal(titles.get(s.doc) or s.doc))
        detail = literal(s.doc, style="bold")
        detail.append("\n")
        detail.append_text(literal("; ".join(s.why)))
        out.append(Row(line, detail, s.doc, 1, s.doc))
    return out


def read_rows(lib, kind: ListKind, doc: str, model_id: str | None = None) -> list[Row]:
    """The rows of list ``kind`` for ``doc`` (blocking: call from a worker thread)."""
    from ..citation_graph import CitationGraph

    graph = CitationGraph.read(lib)
    if kind is ListKind.REFERENCES:
        return reference_rows(graph.references(doc))
    titles = {d.doc: clean_text(d.title or d.doc) for d in graph.documents}
    if kind is ListKind.CITED_BY:
        return cited_by_rows(graph.cited_by(doc), titles)
    return similar_rows(graph.similar(doc, model_id), titles)


#: What ``y`` says: the terminal may or may not take the copy (OSC 52).
CLIPBOARD_SENT = ("sent to the terminal's clipboard (OSC 52): it arrives where the terminal "
                  "allows it (tmux: set -g set-clipboard on)")


class CitationsScreen(ModalScreen[tuple[str, int, str] | None]):
    """One citation list of ``doc``; dismissed with ``(doc, page, entry)`` to open (entry:
    the citing entry's text to mark on that page, or ""), or None."""

    BINDINGS = bindings("citations")

    def __init__(self, kind: ListKind, doc: str, title: str) -> None:
        super().__init__()
        self.kind = kind
        self.doc = doc
        self.doc_title = title
        self.rows: list[Row] = []
        self.loaded = False

    def compose(self) -> ComposeResult:
        with Vertical(id="cite-box") as box:
            box.border_title = f"{self.kind.value.capitalize()}: {clean_text(self.doc_title)}"
            box.border_subtitle = "Enter open · y copy · Esc close"
            yield OptionList(id="cite-list")
            yield Static(Text("reading…", style="dim"), id="cite-detail", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#cite-list").focus()
        self._load()

    @work(thread=True, exclusive=True, group="citations", exit_on_error=False)
    def _load(self) -> None:
        app = self.app
        rows = app.gate.run(lambda lib: read_rows(lib, self.kind, self.doc,
                                                  getattr(app, "model", None)))
        app.call_from_thread(self.show_rows, rows)

    def show_rows(self, rows: list[Row]) -> None:
        """Show ``rows`` (the worker's answer)."""
        self.rows = rows
        self.loaded = True
        lst = self.query_one("#cite-list", OptionList)
        lst.clear_options()
        lst.add_options([Option(r.text) for r in rows])
        here = sum(1 for r in rows if r.doc)
        if self.kind is ListKind.REFERENCES:
            count = f"{plural(len(rows), 'reference')}, {here} in this folder"
        else:
            count = plural(len(rows), "paper")
        box = self.query_one("#cite-box")
        head = f"{self.kind.value.capitalize()}: "
        # the count stays whole: the title is cut first (borders, padding, corners: 8)
        room = min(self.size.width or 80, 120) - 8 - len(head) - len(count) - 3
        title = clean_text(self.doc_title)
        if len(title) > max(12, room):
            title = title[: max(11, room - 1)].rstrip() + "…"
        box.border_title = f"{head}{title} · {count}"
        if rows:
            lst.highlighted = 0
        else:
            lst.add_option(Option(Text(EMPTY[self.kind], style="dim"), disabled=True))
            self.query_one("#cite-detail", Static).update(Text(""))

    @on(OptionList.OptionHighlighted, "#cite-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if 0 <= event.option_index < len(self.rows):
            self.query_one("#cite-detail", Static).update(self.rows[event.option_index].detail)

    @on(OptionList.OptionSelected, "#cite-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        row = self.rows[event.option_index] if 0 <= event.option_index < len(self.rows) \
            else None
        if row is not None and row.doc:
            self.dismiss((row.doc, row.page, row.entry))
        elif row is not None:
            self.notify("not a document of this folder: its fields are below (y copies)",
                        timeout=2)

    def action_copy(self) -> None:
        """Copy the highlighted entry's text (or the paper's file name)."""
        lst = self.query_one("#cite-list", OptionList)
        if lst.highlighted is None or not self.rows:
            return
        text = clean_text(self.rows[lst.highlighted].copy)
        self.app.copy_to_clipboard(text)
        # OSC 52 cannot be confirmed: said as what it is ("copied" in a tmux whose
        # set-clipboard was off: fourth trial)
        self.notify(CLIPBOARD_SENT, timeout=4)

    def action_close(self) -> None:
        """Close the list."""
        self.dismiss(None)
