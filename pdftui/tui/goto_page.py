"""Go to page: the dialog asking for a page (its number or its printed label) and how its
answer names a page."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label

from .actions import bindings
from .render import page_ref


def label_of(labels: list[str], page: int) -> str:
    """The printed label of ``page`` (1-based) in ``labels`` ('' when unknown)."""
    return labels[page - 1] if 0 < page <= len(labels) else ""


def page_for(text: str, pages: int, labels: list[str]) -> int | None:
    """The page (1-based) that ``text`` typed into "go to page" names: digits are the
    page number (the first number of "38 (34)"), a value in parentheses ("(34)") or any
    other value ("xii", "A-3") a printed label (case ignored); None when no page has it
    or the number is out of 1..``pages``."""
    text = text.strip()
    if text.isdigit():
        return int(text) if 1 <= int(text) <= pages else None
    if len(text) > 2 and text[0] == "(" and text[-1] == ")":
        text = text[1:-1].strip()
    key = text.casefold()
    return next((n for n, lab in enumerate(labels, 1) if key and lab.casefold() == key), None)


class GoToPageScreen(ModalScreen[str | None]):
    """Ask for a page: its number or its printed label (Enter jumps, Esc cancels)."""

    BINDINGS = bindings("goto")

    def __init__(self, pages: int, current: int, label: str = "",
                 labelled: bool = False) -> None:
        super().__init__()
        self.pages = pages
        self.current = current
        self.label = label
        self.labelled = labelled

    def compose(self) -> ComposeResult:
        with Vertical(id="goto-box"):
            for line in self.prompt_lines():
                yield Label(line, classes="goto-line")
            yield Input(placeholder=str(self.current), id="goto-input")
            yield Label("Enter jumps · Esc cancels", classes="goto-hint")
        yield Footer(compact=True)

    def prompt_lines(self) -> list[str]:
        """The prompt, in lines that fit the box at 80 columns (50 columns or less)."""
        lines = [f"Go to page 1-{self.pages} (now {page_ref(self.current, self.label)}):"]
        if self.labelled:
            lines.append("a number, or a printed label as (34) or xii")
        return lines

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        """Close without jumping."""
        self.dismiss(None)
