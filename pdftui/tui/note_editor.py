"""The note editor: a document's note in a Textual TextArea, its clipped passages below.

Esc or Ctrl+S closes it and keeps the text (nothing typed is ever thrown away); the app
saves it in a worker. The clips are listed below the note (Tab goes there): Delete (or
``d``) on a clip marks it to be deleted, struck through, and pressed again keeps it; the
clips so marked are deleted when the editor closes, and not before.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from .render import literal

NO_CLIPS = ("No clipped passages yet: in the reader, y clips the paragraph at the top of "
            "the screen (or the hit's) into these notes.")
HINT = "Esc saves and closes · Tab: the clips, Delete deletes one"


@dataclass(frozen=True)
class NoteEdit:
    """What the note editor closes with: the note's ``text`` and the ids of the clips
    marked to be deleted (``deleted``)."""

    text: str
    deleted: tuple[int, ...] = ()


def clip_text(clip, deleted: bool = False) -> Text:
    """One clipped passage as literal text: "p. 7 · 3.2 Attention" then the passage;
    struck through, with how to keep it, when marked ``deleted``."""
    where = clip.page_ref + (f" · {clip.section}" if clip.section else "")
    out = literal(where, style="bold")
    if deleted:
        out.append("  deleted when the note closes · Delete again keeps it", style="bold")
    out.append("\n")
    out.append_text(literal(clip.text, keep_newlines=True))
    if deleted:
        out.stylize("strike dim", len(where))
    return out


class ClipList(OptionList):
    """The document's clips, one option each; Delete / ``d`` marks the highlighted clip
    to be deleted when the note closes, or keeps it again."""

    BINDINGS = [Binding("delete,d", "toggle_delete", "Delete clip", id="note.clip_delete")]

    def __init__(self, clips: list, **kwargs) -> None:
        super().__init__(*(Option(clip_text(c), id=str(c.id)) for c in clips), **kwargs)
        self.clips = list(clips)
        self.deleted: set[int] = set()

    def action_toggle_delete(self) -> None:
        """Mark the highlighted clip to be deleted, or keep it again."""
        i = self.highlighted
        if i is None or not 0 <= i < len(self.clips):
            return
        clip = self.clips[i]
        self.deleted ^= {clip.id}
        self.replace_option_prompt_at_index(i, clip_text(clip, clip.id in self.deleted))


class NoteScreen(ModalScreen[NoteEdit]):
    """Edit the note of one document and delete its clips; dismisses with a
    :class:`NoteEdit` (Esc / Ctrl+S)."""

    BINDINGS = [
        Binding("escape", "close", "Save and close", id="note.close"),
        Binding("ctrl+s", "close", "Save", show=False, id="note.save"),
    ]

    def __init__(self, title: str, note: str, clips: list) -> None:
        super().__init__()
        self.doc_title = title
        self.note = note
        self.clips = [c for c in clips if c.id is not None]

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box") as box:
            box.border_title = "Note"
            box.border_subtitle = HINT if self.clips else "Esc saves and closes"
            yield Static(literal(self.doc_title, style="bold"), id="note-title")
            yield TextArea(self.note, id="note-text", soft_wrap=True, show_line_numbers=False)
            with Vertical(id="note-clips"):
                if self.clips:
                    yield ClipList(self.clips, id="note-clip-list")
                else:
                    yield Static(Text(NO_CLIPS, style="dim"), markup=False)
            yield Static(Text(box.border_subtitle, style="dim"), id="note-hint")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        """The cursor on a line of its own after the note (typing at once glued the new
        words onto the note's last one: third trial)."""
        area = self.query_one(TextArea)
        area.focus()
        if area.text and not area.text.endswith("\n"):
            area.insert("\n", area.document.end)
        area.move_cursor(area.document.end)

    def action_close(self) -> None:
        """Close, keeping the text (the line :meth:`on_mount` opened dropped when left
        empty); the clips marked are to be deleted."""
        lists = self.query(ClipList)
        deleted = tuple(sorted(lists.first().deleted)) if lists else ()
        text = self.query_one(TextArea).text
        if not self.note.endswith("\n"):
            text = text.rstrip("\n")
        self.dismiss(NoteEdit(text, deleted))
