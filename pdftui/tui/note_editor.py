"""The note editor: a document's note in a Textual TextArea, its clipped passages below.

Esc or Ctrl+S closes it and keeps the text (nothing typed is ever thrown away); the app
saves it in a worker. The clips are shown read-only, each with its page and section.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from .render import literal


def clips_text(clips: list) -> Text:
    """The clipped passages as literal text: "p. 7 · 3.2 Attention" then the passage."""
    if not clips:
        return Text("No clipped passages yet: in the reader, y clips the paragraph at the "
                    "top of the screen (or the hit's) into these notes.", style="dim")
    out = Text()
    for i, clip in enumerate(clips):
        if i:
            out.append("\n\n")
        where = clip.page_ref + (f" · {clip.section}" if clip.section else "")
        out.append_text(literal(where, style="bold"))
        out.append("\n")
        out.append_text(literal(clip.text, keep_newlines=True))
    return out


class NoteScreen(ModalScreen[str]):
    """Edit the note of one document; dismisses with the text (Esc / Ctrl+S)."""

    BINDINGS = [
        Binding("escape", "close", "Save and close", id="note.close"),
        Binding("ctrl+s", "close", "Save", show=False, id="note.save"),
    ]

    def __init__(self, title: str, note: str, clips: list) -> None:
        super().__init__()
        self.doc_title = title
        self.note = note
        self.clips = clips

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box") as box:
            box.border_title = "Note"
            box.border_subtitle = "Esc saves and closes"
            yield Static(literal(self.doc_title, style="bold"), id="note-title")
            yield TextArea(self.note, id="note-text", soft_wrap=True, show_line_numbers=False)
            with VerticalScroll(id="note-clips", can_focus=False):
                yield Static(clips_text(self.clips), markup=False)

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def action_close(self) -> None:
        """Close, keeping the text."""
        self.dismiss(self.query_one(TextArea).text)
