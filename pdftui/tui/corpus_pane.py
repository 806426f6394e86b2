"""The corpus pane: every document of the folder, its status, a filter, and the scope.

Documents are shown with their title (or file name), page count and status ("indexed",
"embedding 40%", "skipped: reason", "no text layer"). Space toggles a document in or out of
the search scope, ``o`` scopes to the highlighted document only, ``x`` clears the scope
(search the whole folder again), ``f`` focuses the filter, which narrows the list as you type.
"""

from __future__ import annotations

import re

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ..text import clean_text
from .actions import bindings
from .messages import PaneFocused, ScopeChanged
from .render import literal


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
    return out


class DocList(OptionList):
    """The document list (option ids are document paths); Space toggles the highlighted
    document in the scope, shown by a "●" (no check boxes: they cost three columns and
    read as ticked on a monochrome terminal)."""

    BINDINGS = bindings("doclist")

    class Toggled(Message):
        """Space on a document: ``doc`` goes in or out of the scope."""

        def __init__(self, doc: str) -> None:
            super().__init__()
            self.doc = doc

    def action_toggle(self) -> None:
        """Put the highlighted document in the scope, or take it out."""
        if self.highlighted is not None and self.option_count:
            self.post_message(self.Toggled(self.get_option_at_index(self.highlighted).id))


def title_keys(documents: list) -> dict[str, str]:
    """The name shown for each document: its title, plus its file name when another
    document has the same title (two versions of one paper)."""
    count: dict[str, int] = {}
    for d in documents:
        t = clean_text(d.title or d.doc)
        count[t] = count.get(t, 0) + 1
    out = {}
    for d in documents:
        t = clean_text(d.title or d.doc)
        out[d.doc] = f"{t} ({clean_text(d.doc.rsplit('/', 1)[-1])})" if count[t] > 1 else t
    return out


def filter_documents(documents: list, needle: str) -> list:
    """The documents matching the filter ``needle`` (case-insensitive, in title or path),
    best first: a title or file name that starts with it, then a match at the start of a
    word ("raft" in "Raft consensus"), then one inside a word ("draft"); otherwise in
    folder order."""
    needle = needle.strip().lower()
    if not needle:
        return list(documents)
    word = re.compile(r"(?:^|[^0-9a-z])" + re.escape(needle))
    scored = []
    for i, d in enumerate(documents):
        title, name = clean_text(d.title).lower(), clean_text(d.doc).lower()
        hay = f"{title}\n{name}"
        if needle in hay:
            starts = title.startswith(needle) or name.rsplit("/", 1)[-1].startswith(needle)
            scored.append((0 if starts else 1 if word.search(hay) else 2, i, d))
    scored.sort(key=lambda x: x[:2])
    return [d for _q, _i, d in scored]


class CorpusPane(Vertical):
    """Documents of the folder with status, a type-to-filter box and a multi-select scope."""

    BINDINGS = bindings("documents")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.documents: list = []
        self.scope: set[str] = set()
        self._shown = 0
        self._refiltered = False
        self.border_title = "Documents"

    def compose(self) -> ComposeResult:
        yield Input(placeholder="filter documents", id="corpus-filter", compact=True)
        yield DocList(id="doc-list")
        yield Static("", id="doc-detail", markup=False)

    # -- data -----------------------------------------------------------------------------
    def set_documents(self, documents: list) -> None:
        """Show ``documents`` (``DocumentInfo`` list), keeping the scope and the cursor."""
        self.documents = list(documents)
        known = {d.doc for d in self.documents}
        if self.scope - known:
            self.scope &= known
            self.post_message(ScopeChanged(tuple(sorted(self.scope))))
        self._rebuild()

    def _visible(self) -> list:
        return filter_documents(self.documents, self.query_one("#corpus-filter", Input).value)

    def _rebuild(self) -> None:
        lst = self.query_one(DocList)
        old = lst.highlighted
        old_value = None
        if old is not None and 0 <= old < lst.option_count:
            old_value = lst.get_option_at_index(old).id
        names = title_keys(self.documents)
        visible = self._visible()
        self._shown = len(visible)
        items = []
        # the status column only while some document is not simply indexed
        tags = any(d.status != "indexed" for d in self.documents)
        for d in visible:
            prompt = Text("● " if d.doc in self.scope else "  ", style="bold")
            if tags:
                prompt.append_text(status_tag(d))
                prompt.append(" ")
            prompt.append(literal(names[d.doc]))
            prompt.no_wrap = True
            prompt.overflow = "ellipsis"
            items.append(Option(prompt, id=d.doc))
        with lst.prevent(OptionList.OptionHighlighted):
            lst.clear_options()
            lst.add_options(items)
        if lst.option_count:
            index = 0
            if old_value is not None and not self._refiltered:
                try:
                    index = lst.get_option_index(old_value)
                except Exception:  # noqa: BLE001 - the document left the list
                    index = min(old or 0, lst.option_count - 1)
            lst.highlighted = index
        self._refiltered = False
        self._update_title()
        self._show_detail()

    def _show_detail(self) -> None:
        """Title, file name, pages and status of the highlighted document."""
        lst = self.query_one(DocList)
        box = self.query_one("#doc-detail", Static)
        if lst.highlighted is None or not lst.option_count:
            box.update(Text("no documents yet" if not self.documents else "no match",
                            style="dim"))
            return
        doc = lst.get_option_at_index(lst.highlighted).id
        info = next((d for d in self.documents if d.doc == doc), None)
        if info is None:
            box.update("")
            return
        out = literal(info.title or info.doc, style="bold")
        out.append("\n")
        out.append(literal(info.doc, style="dim"))
        out.append("\n")
        out.append(status_text(info))
        if doc in self.scope:
            out.append("  · in scope", style="bold")
        box.update(out)

    @on(OptionList.OptionHighlighted)
    def _doc_highlighted(self, event) -> None:
        event.stop()
        self._show_detail()

    def _update_title(self) -> None:
        n = len(self.documents)
        ready = sum(1 for d in self.documents if d.status in ("indexed", "embedding"))
        title = f"Documents {ready}/{n}" if ready != n else f"Documents {n}"
        if self._shown != n:
            title = f"Documents {self._shown} of {n} shown"
        if self.scope:
            title += f" · scope {len(self.scope)}"
        self.border_title = title

    # -- events ---------------------------------------------------------------------------
    @on(Input.Changed, "#corpus-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._refiltered = True   # the cursor goes to the best match
        self._rebuild()

    @on(Input.Submitted, "#corpus-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(DocList).focus()

    def on_key(self, event) -> None:
        filt = self.query_one("#corpus-filter", Input)
        if filt.has_focus and event.key in ("down", "escape"):
            event.stop()
            self.query_one(DocList).focus()

    @on(DocList.Toggled)
    def _toggled(self, event: DocList.Toggled) -> None:
        event.stop()
        doc = event.doc
        if doc in self.scope:
            self.scope.discard(doc)
        else:
            self.scope.add(doc)
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
        """Scope the search to the highlighted document only."""
        lst = self.query_one(DocList)
        if lst.highlighted is None or not lst.option_count:
            return
        doc = lst.get_option_at_index(lst.highlighted).id
        self.scope = {doc}
        self._rebuild()
        self._scope_changed()

    def action_clear_scope(self) -> None:
        """Search the whole folder again."""
        if not self.scope:
            return
        self.scope = set()
        self._rebuild()
        self._scope_changed()

    def action_focus_filter(self) -> None:
        """Focus the filter box."""
        self.query_one("#corpus-filter", Input).focus()

    def focus_main(self) -> None:
        """Focus the document list (used when the pane becomes current)."""
        self.query_one(DocList).focus()
