"""The results pane: one ranked list across every document, ranks side by side.

Columns: fused rank, document, page (with its printed label), section path, keyword rank,
semantic rank, fused score. The coverage line sits above the table; the highlighted hit's
excerpt is shown in full below it, with the query's words highlighted. Hits are the
``SearchResult.to_json()`` dicts of :mod:`pdftui.search.service` (a stable contract).
"""

from __future__ import annotations

import re

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from .actions import bindings
from .messages import HitHighlighted, OpenHit, PaneFocused
from .render import coverage_line, highlight, literal, page_ref, terms_pattern, unique_names

#: Fixed column widths: rank, page, kw, sem, score (document and section share the rest).
_FIXED = {"rank": 3, "page": 6, "kw": 4, "sem": 4, "score": 6}


def hit_where(hit: dict) -> str:
    """"5" / "5 (v)" for page hits, "5-7" for section hits."""
    start, end = hit.get("start_page"), hit.get("end_page")
    if hit.get("section") is not None and start and end and end != start:
        return f"{start}-{end}"
    return page_ref(hit.get("page"), hit.get("page_label"))


def hit_section(hit: dict) -> str:
    """The section path shown for a hit (its own title for section hits)."""
    return hit.get("section_path") or hit.get("section") or ""


def short_section(path: str, width: int) -> str:
    """A section path fitted to ``width`` columns, keeping the innermost titles (the most
    specific part): "3 Model Architecture > 3.2 Attention" -> "… > 3.2 Attention"."""
    if len(path) <= width:
        return path
    parts = path.split(" > ")
    out = parts[-1]
    for part in reversed(parts[:-1]):
        longer = f"{part} > {out}"
        if len(longer) + 2 > width:
            break
        out = longer
    out = "… > " + out if out != path else out
    return out if len(out) <= width else out[: max(1, width - 1)] + "…"


WEAK = "no strong match: nearest pages"
_WEAK_RE = re.compile(r"(?m)^no strong match: nearest (?:pages|sections)(?:; )?")


def coverage_text(data: dict, show_timings: bool = True) -> Text:
    """The lines above the hits: "no strong match: nearest pages" (bold) when no arm had
    real evidence, the coverage line and its note, and "did you mean" when a query word
    is in no document (F2 searches the suggestion)."""
    line = coverage_line(data, show_timings)
    weak = bool(data.get("weak") and data.get("hits"))
    if weak:   # the banner says it; the note keeps the rest
        line = _WEAK_RE.sub("", line).rstrip("\n")
    out = Text()
    if weak:
        out.append(WEAK if data.get("granularity", "page") == "page"
                   else WEAK.replace("pages", "sections"), style="bold")
        out.append("\n")
    out.append(literal(line, style="dim", keep_newlines=True))
    sugg = data.get("suggestions") or {}
    if sugg:
        out.append("\n")
        out.append(literal("did you mean: " + ", ".join(f"{w} -> {v[0]}" for w, v in sugg.items())
                           + "  (F2 searches it)", style="bold"))
    return out


def rank_text(value) -> Text:
    """A rank cell: the number, or a dim "-" when that arm did not find the hit."""
    return Text(str(value), justify="right") if value else Text("-", style="dim",
                                                                   justify="right")




def short_doc(doc: str, width: int) -> str:
    """A document path fitted to ``width`` columns: ".pdf" dropped, then the middle elided
    ("arxiv-1706…all-you-need"), since both the source prefix and the title end identify it."""
    name = doc[:-4] if doc.lower().endswith(".pdf") else doc
    if len(name) <= width or width < 6:
        return name
    head = (width - 1) * 2 // 5
    tail = width - 1 - head
    return name[:head] + "…" + name[-tail:]

class HitTable(DataTable):
    """The hits table (row cursor; Enter opens the hit; Home / End: first / last hit)."""

    BINDINGS = bindings("hits")

    def action_first(self) -> None:
        """The cursor to the first hit."""
        if self.row_count:
            self.move_cursor(row=0)

    def action_last(self) -> None:
        """The cursor to the last hit."""
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)


class ResultsPane(Vertical):
    """The ranked hits, the coverage of the search and the excerpt of the highlighted hit."""

    #: Shown in the footer while the results are focused (the app binds them everywhere;
    #: the same ids, so a keymap remaps both).
    BINDINGS = bindings("results")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.data: dict | None = None
        self.pattern: re.Pattern[str] | None = None
        self.message = "Type a question and press Enter  (/ search · ? help)"
        self.show_timings = True
        self.border_title = "Results"

    def compose(self) -> ComposeResult:
        yield Static(self.message, id="coverage", markup=False)
        yield HitTable(id="hits", cursor_type="row", zebra_stripes=False)
        with VerticalScroll(id="excerpt-box", can_focus=False):
            yield Static("", id="excerpt", markup=False)

    def on_mount(self) -> None:
        self._build_table()

    # -- data -----------------------------------------------------------------------------
    @property
    def hits(self) -> list[dict]:
        """The current hits (``to_json()`` dicts)."""
        return list((self.data or {}).get("hits") or [])

    def show_message(self, text: str) -> None:
        """Show ``text`` in the coverage line (e.g. "searching…" or an error)."""
        self.message = text
        self.query_one("#coverage", Static).update(literal(text, style="dim"))

    def set_result(self, data: dict, keep_cursor: bool = False) -> None:
        """Show a ``SearchResult.to_json()`` dict; ``keep_cursor`` keeps the same hit
        highlighted when it is still listed (a re-run after indexing)."""
        old = self.current_hit() if keep_cursor else None
        self.data = data
        self.pattern = terms_pattern(data.get("query", ""))
        self.border_title = f"Results · {data.get('mode', '')} · {data.get('granularity', 'page')}"
        self.query_one("#coverage", Static).update(coverage_text(data, self.show_timings))
        self._build_table()
        table = self.query_one(HitTable)
        if old is not None:
            for i, h in enumerate(self.hits):
                if (h.get("doc"), h.get("page"), h.get("section")) == \
                        (old.get("doc"), old.get("page"), old.get("section")):
                    table.move_cursor(row=i, animate=False)
                    break
        self._show_excerpt()

    def clear(self) -> None:
        """Forget the current result (the box was emptied)."""
        self.data = None
        self.pattern = None
        self._build_table()
        self.show_message("Type a question and press Enter  (/ search · ? help)")
        self._show_excerpt()

    def _page_width(self) -> int:
        """The page column fits the longest "19 (75)" of the hits (5 to 9 columns)."""
        longest = max((len(hit_where(h)) for h in self.hits), default=0)
        return max(5, min(9, longest))

    def _widths(self) -> tuple[int, int]:  # noqa: D401
        width = max(40, (self.query_one(HitTable).size.width or self.size.width or 80) - 2)
        # DataTable pads every cell by one column on each side
        fixed = sum(_FIXED.values()) - _FIXED["page"] + self._page_width()
        rest = width - fixed - 2 * 7 - 1
        doc = max(8, rest * 11 // 20)
        return doc, max(6, rest - doc)

    def _build_table(self) -> None:
        table = self.query_one(HitTable)
        row = table.cursor_row if table.row_count else 0
        table.clear(columns=True)
        doc_w, sec_w = self._widths()
        table.add_column(Text("#", justify="right"), width=_FIXED["rank"], key="rank")
        table.add_column("document", width=doc_w, key="doc")
        table.add_column("page", width=self._page_width(), key="page")
        table.add_column("section", width=sec_w, key="section")
        table.add_column(Text("kw", justify="right"), width=_FIXED["kw"], key="kw")
        table.add_column(Text("sem", justify="right"), width=_FIXED["sem"], key="sem")
        table.add_column(Text("score", justify="right"), width=_FIXED["score"], key="score")
        names = unique_names([h.get("doc", "") for h in self.hits], doc_w, short_doc)
        for i, h in enumerate(self.hits):
            score = h.get("score")
            table.add_row(
                Text(str(h.get("rank", i + 1)), justify="right", style="bold"),
                literal(names[h.get("doc", "")]),
                literal(hit_where(h)),
                literal(short_section(hit_section(h), sec_w), style="dim"),
                rank_text(h.get("keyword_rank")),
                rank_text(h.get("semantic_rank")),
                Text(f"{score:.4f}"[1:] if isinstance(score, float) and 0 <= score < 1
                     else str(score), justify="right"),
                key=str(i),
            )
        if self.hits:
            table.move_cursor(row=min(row, len(self.hits) - 1), animate=False)

    def on_resize(self, event) -> None:
        if self.data is not None:
            table = self.query_one(HitTable)
            row = table.cursor_row
            self._build_table()
            table.move_cursor(row=row, animate=False)
        else:
            self._build_table()

    def current_hit(self) -> dict | None:
        """The hit under the cursor, or None."""
        hits = self.hits
        if not hits:
            return None
        row = self.query_one(HitTable).cursor_row
        return hits[row] if 0 <= row < len(hits) else None

    def _show_excerpt(self) -> None:
        hit = self.current_hit()
        box = self.query_one("#excerpt", Static)
        if hit is None:
            box.update(Text("No hits." if self.data is not None else "", style="dim"))
            return
        head = Text()
        head.append(f"#{hit.get('rank')} ", style="bold")
        head.append(literal(hit.get("doc", ""), style="bold"))
        head.append(f"  p. {hit_where(hit)}")
        if hit_section(hit):
            head.append("  · ")
            head.append(literal(hit_section(hit), style="italic"))
        if (hit.get("excerpt") or "").strip():
            body = literal(hit["excerpt"])
            highlight(body, self.pattern)
        else:  # a page without a text layer, or only a figure
            body = Text("(no text on this page: Enter opens it in the reader)", style="dim")
        box.update(Text("\n").join([head, body]))
        self.query_one("#excerpt-box").scroll_home(animate=False)

    # -- navigation -----------------------------------------------------------------------
    def move(self, delta: int) -> None:
        """Move the cursor ``delta`` hits (n / N)."""
        if not self.hits:
            return
        table = self.query_one(HitTable)
        table.move_cursor(row=max(0, min(len(self.hits) - 1, table.cursor_row + delta)))

    def select(self, doc: str, page: int) -> bool:
        """Put the cursor on the first hit of ``doc`` on ``page`` (a section hit: one
        whose pages hold it); False when no hit is there."""
        for i, h in enumerate(self.hits):
            start = h.get("start_page") or h.get("page") or 0
            end = h.get("end_page") or start
            if h.get("doc") == doc and start <= page <= end:
                self.query_one(HitTable).move_cursor(row=i)
                return True
        return False

    def focus_main(self) -> None:
        """Focus the table (used when the pane becomes current)."""
        self.query_one(HitTable).focus()

    @on(DataTable.RowHighlighted, "#hits")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_excerpt()
        self.post_message(HitHighlighted(self.current_hit()))

    @on(DataTable.RowSelected, "#hits")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        hit = self.current_hit()
        if hit is not None:
            self.post_message(OpenHit(hit))

    def on_descendant_focus(self, event) -> None:
        self.post_message(PaneFocused("results"))
