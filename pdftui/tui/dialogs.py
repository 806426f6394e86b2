"""Small modal dialogs: the quit confirmation and the export dialog."""

from __future__ import annotations

import os
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Select, Static

from ..text import clean_text
from .actions import bindings


class ConfirmQuitScreen(ModalScreen[bool]):
    """"Quit? indexing is running…": ``y`` / Enter quits (dismisses True), ``n`` / Esc
    stays (False). ``reasons`` are what quitting would lose, one phrase each."""

    BINDINGS = bindings("confirm_quit")

    def __init__(self, reasons: list[str]) -> None:
        super().__init__()
        self.reasons = reasons

    def compose(self) -> ComposeResult:
        text = Text("Quit pdftui?\n", style="bold")
        for reason in self.reasons:
            text.append(f"· {reason}\n")
        text.append("\ny / Enter quits · n / Esc stays · Ctrl+Q always quits", style="dim")
        with Vertical(id="quit-box"):
            yield Static(text, markup=False)
        yield Footer(compact=True)

    def action_answer(self, yes: bool) -> None:
        """Close the dialog with the answer."""
        self.dismiss(yes)


class CopyPathScreen(ModalScreen[None]):
    """The page to open, where no viewer can show it (no display: over SSH): why
    (``reason``), and ``path#page=N`` (``shown``, as the folder was given, not resolved)
    on lines of its own to select with the terminal's own selection, since the copy sent
    through the terminal (OSC 52) cannot be confirmed (tmux drops it by default). Esc or
    Enter closes it."""

    BINDINGS = bindings("copy_path")

    def __init__(self, reason: str, shown: str) -> None:
        super().__init__()
        self.reason = reason
        self.shown = shown

    def compose(self) -> ComposeResult:
        text = Text("Open this page yourself\n", style="bold")
        text.append(clean_text(self.reason) + "\n\n")
        text.append("It was also sent to your terminal's clipboard (OSC 52), which works "
                    "only where the terminal lets it (tmux: set -g set-clipboard on). "
                    "To copy it by hand, select it here:\n\n", style="dim")
        with Vertical(id="copy-path-box"):
            yield Static(text, markup=False)
            yield Static(Text(clean_text(self.shown)), id="copy-path", markup=False)
            yield Static(Text("\nEsc / Enter closes", style="dim"), markup=False)
        yield Footer(compact=True)

    def action_close(self) -> None:
        """Close the dialog."""
        self.dismiss(None)


#: Export formats offered: (value, label, file extension).
EXPORT_FORMATS = (("markdown", "Markdown reading list", "md"), ("bibtex", "BibTeX", "bib"),
                  ("csv", "CSV", "csv"), ("json", "JSON", "json"))
#: Which documents an export holds.
EXPORT_MARKED = (("keep", "marked keep"), ("to-read", "to read"), ("skip", "skipped"),
                 ("any", "marked or noted (not skipped)"), ("all", "all documents"))


#: The export dialog's keys, on its last line (the border's subtitle says it again).
EXPORT_HINT = "Enter in File exports · Enter on a list opens it · Tab next · Esc cancels"


@dataclass(frozen=True)
class ExportRequest:
    """What the export dialog asks for: format value, marked filter, output path."""

    fmt: str
    marked: str
    path: str


def export_path(folder_name: str, fmt: str, where: str | None = None) -> str:
    """The default file for an export: ``<folder>-reading-list.<ext>`` in ``where``
    (default: the current directory), as an absolute path."""
    ext = next(e for v, _l, e in EXPORT_FORMATS if v == fmt)
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in folder_name) or "pdftui"
    return os.path.abspath(os.path.join(where or os.getcwd(), f"{stem}-reading-list.{ext}"))


def export_dir(start_dir: str, last_export: str = "", documents: str = "") -> str:
    """The folder an export goes to by default: the folder of the last export from these
    documents (``last_export``, remembered in the user data) while it can be written,
    else ``start_dir`` (the folder pdftui was started from) unless it is the documents
    folder ``documents`` or inside it (a shared, maybe read-only place: pdftui started
    there offered ``<corpus>/corpus-reading-list.md``), else the home folder. The working
    directory only when none of them can be written."""
    inside = _inside(start_dir, documents) if documents else False
    for where in (os.path.dirname(last_export) if last_export else "",
                  "" if inside else start_dir, os.path.expanduser("~")):
        if where and os.path.isdir(where) and os.access(where, os.W_OK):
            return os.path.abspath(where)
    return os.getcwd()


def _inside(path: str, folder: str) -> bool:
    """Is ``path`` the folder ``folder`` or under it (links resolved)?"""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def format_of(path: str) -> str | None:
    """The export format whose extension ``path`` has (``.bib`` -> "bibtex"), or None."""
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    return next((v for v, _l, e in EXPORT_FORMATS if e == ext), None)


def _full_path(value: str) -> str:
    return os.path.abspath(os.path.expanduser(value.strip())) if value.strip() else ""


class ExportScreen(ModalScreen[ExportRequest | None]):
    """Pick a format, which marks, and the file: Enter on a list opens it, Enter in the
    file box exports, Esc cancels. The file starts as the last export of these documents
    (``last_export``; its format too), else ``<folder>-reading-list.<ext>`` in ``where``
    (:func:`export_dir`); the line under the box shows the full path it writes."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel")]

    def __init__(self, folder_name: str, fmt: str = "markdown", marked: str = "any",
                 where: str | None = None, last_export: str = "") -> None:
        super().__init__()
        self.folder_name = folder_name
        self.last_export = last_export
        self.fmt = format_of(last_export) or fmt   # the last export's format first
        self.where = where
        self.marked = marked
        self._replace: str | None = None   # the existing file a second Enter replaces

    def default_path(self, fmt: str) -> str:
        """The file offered for format ``fmt``: the last export when it was one, else
        :func:`export_path` in ``where``."""
        if self.last_export and format_of(self.last_export) == fmt:
            return self.last_export
        return export_path(self.folder_name, fmt, self.where)

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box") as box:
            box.border_title = "Export"
            # Enter on a list opens it (Textual's Select); Enter in the file box exports
            box.border_subtitle = "Tab next · Enter in File exports · Esc cancels"
            yield Label("Format", id="label-export-format")
            yield Select([(label, v) for v, label, _e in EXPORT_FORMATS], value=self.fmt,
                         allow_blank=False, id="export-format", compact=True)
            yield Label("Documents", id="label-export-marked")
            yield Select([(label, v) for v, label in EXPORT_MARKED], value=self.marked,
                         allow_blank=False, id="export-marked", compact=True)
            yield Label("File", id="label-export-path")
            path = self.default_path(self.fmt)
            yield Input(path, id="export-path", compact=True)
            yield Label(self._full_text(path), id="export-full")
            yield Label(EXPORT_HINT, id="export-hint")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#export-format", Select).focus()

    def on_descendant_focus(self, event) -> None:
        """"▸ Format": the field with the focus is named by a mark before its label
        (its shading alone did not show in a plain terminal capture)."""
        for field in ("export-format", "export-marked", "export-path"):
            label = self.query_one(f"#label-{field}", Label)
            name = str(label.render()).lstrip("▸ ")
            here = any(n.id == field for n in event.widget.ancestors_with_self)
            label.update(Text(f"▸ {name}", style="bold") if here else Text(f"  {name}"))

    @staticmethod
    def _full_text(value: str) -> Text:
        full = _full_path(value)
        return Text(f"writes {clean_text(full)}" if full else "writes (no file named)",
                    style="dim")

    @on(Input.Changed, "#export-path")
    def _path_changed(self, event: Input.Changed) -> None:
        self.query_one("#export-full", Label).update(self._full_text(event.value))
        named = format_of(event.value)
        if named is not None and named != self.fmt:
            # the format a name's extension says is the one written: the list shows it
            # before Enter (BibTeX chosen, "x.md" typed: it still read BibTeX)
            self.query_one("#export-format", Select).value = named

    @on(Select.Changed, "#export-format")
    def _format_changed(self, event: Select.Changed) -> None:
        box = self.query_one("#export-path", Input)
        old = self.default_path(self.fmt)
        self.fmt = str(event.value)
        if box.value == old or not box.value.strip():
            box.value = self.default_path(self.fmt)

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_export()

    def action_export(self) -> None:
        """Close with the request (a relative path is made absolute). A file that exists
        is replaced only on a second Enter for the same path: the first one says so."""
        path = _full_path(self.query_one("#export-path", Input).value) or \
            self.default_path(self.fmt)
        if os.path.exists(path) and self._replace != path:
            self._replace = path
            self.query_one("#export-hint", Label).update(Text(
                f"{clean_text(os.path.basename(path))} exists: Enter again replaces it · "
                "Esc cancels", style="bold"))
            return
        marked = str(self.query_one("#export-marked", Select).value)
        # a file named for another format is written in that format ("mylist.md" with
        # BibTeX chosen got BibTeX in it): the name is what the user typed last
        self.dismiss(ExportRequest(format_of(path) or self.fmt, marked, path))

    def action_cancel(self) -> None:
        """Close without exporting."""
        self.dismiss(None)
