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
from textual.widgets import Input, Label, Select, Static

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

    def action_answer(self, yes: bool) -> None:
        """Close the dialog with the answer."""
        self.dismiss(yes)


#: Export formats offered: (value, label, file extension).
EXPORT_FORMATS = (("markdown", "Markdown reading list", "md"), ("bibtex", "BibTeX", "bib"),
                  ("csv", "CSV", "csv"), ("json", "JSON", "json"))
#: Which documents an export holds.
EXPORT_MARKED = (("keep", "marked keep"), ("to-read", "to read"), ("skip", "skipped"),
                 ("any", "every marked or noted document"), ("all", "all documents"))


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


class ExportScreen(ModalScreen[ExportRequest | None]):
    """Pick a format, which marks, and the file: Enter on a list opens it, Enter in the
    file box exports, Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel")]

    def __init__(self, folder_name: str, fmt: str = "markdown", marked: str = "any") -> None:
        super().__init__()
        self.folder_name = folder_name
        self.fmt = fmt
        self.marked = marked
        self._replace: str | None = None   # the existing file a second Enter replaces

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box") as box:
            box.border_title = "Export"
            # Enter on a list opens it (Textual's Select); Enter in the file box exports
            box.border_subtitle = "Tab next · Enter in File exports · Esc cancels"
            yield Label("Format")
            yield Select([(label, v) for v, label, _e in EXPORT_FORMATS], value=self.fmt,
                         allow_blank=False, id="export-format", compact=True)
            yield Label("Documents")
            yield Select([(label, v) for v, label in EXPORT_MARKED], value=self.marked,
                         allow_blank=False, id="export-marked", compact=True)
            yield Label("File")
            yield Input(export_path(self.folder_name, self.fmt), id="export-path",
                        compact=True)
            yield Label(EXPORT_HINT, id="export-hint")

    def on_mount(self) -> None:
        self.query_one("#export-format", Select).focus()

    @on(Select.Changed, "#export-format")
    def _format_changed(self, event: Select.Changed) -> None:
        box = self.query_one("#export-path", Input)
        old = export_path(self.folder_name, self.fmt)
        self.fmt = str(event.value)
        if box.value == old or not box.value.strip():
            box.value = export_path(self.folder_name, self.fmt)

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_export()

    def action_export(self) -> None:
        """Close with the request (a relative path is made absolute). A file that exists
        is replaced only on a second Enter for the same path: the first one says so."""
        path = self.query_one("#export-path", Input).value.strip() or \
            export_path(self.folder_name, self.fmt)
        path = os.path.abspath(os.path.expanduser(path))
        if os.path.exists(path) and self._replace != path:
            self._replace = path
            self.query_one("#export-hint", Label).update(Text(
                f"{clean_text(os.path.basename(path))} exists: Enter again replaces it · "
                "Esc cancels", style="bold"))
            return
        marked = str(self.query_one("#export-marked", Select).value)
        self.dismiss(ExportRequest(self.fmt, marked, path))

    def action_cancel(self) -> None:
        """Close without exporting."""
        self.dismiss(None)
