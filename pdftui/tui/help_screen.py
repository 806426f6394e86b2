"""The help screen (``?`` or F1): every key, grouped by where it works."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from .actions import bindings

_POWERS = {1.0: "", 2.0: "²", 3.0: "³"}


def intro() -> str:
    """The help's first paragraph, its weights read from the ranking configuration
    (:class:`pdftui.search.config.RankingConfig`, imported here so the UI loads it only
    when the help opens)."""
    from ..search.config import RankingConfig

    c = RankingConfig()
    power = _POWERS.get(c.keyword.coverage_power, f"^{c.keyword.coverage_power:g}")
    return (
        "Each hit shows its fused rank (#), keyword rank (kw) and semantic rank (sem). Hybrid "
        f"is weighted rank fusion, a sum of w/({c.k}+rank): keyword x coverage{power}, "
        f"semantic x{c.semantic.weight:g}, reference lists "
        f"x{c.pages.reference:g} (pages) or x{c.sections.overview:g} (sections); the hit "
        "detail and compare show each share. "
        "Semantic mode scores by cosine."
    )


class HelpScreen(ModalScreen[None]):
    """Keys and what they do; Esc, q, ? or F1 closes it."""

    BINDINGS = bindings("help")

    def __init__(self, groups: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__()
        self.groups = groups

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for title, rows in self.groups:
            table.add_row(Text(title, style="bold underline"), "")
            for keys, what in rows:
                table.add_row(Text(keys), Text(what))
            table.add_row("", "")
        with VerticalScroll(id="help-box") as box:
            box.border_title = "pdftui keys"
            box.border_subtitle = "Esc closes"
            yield Static(Text(intro()), id="help-intro")
            yield Static(table, id="help-keys")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)
