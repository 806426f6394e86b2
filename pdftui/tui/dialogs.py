"""Small modal dialogs: the quit confirmation."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

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
