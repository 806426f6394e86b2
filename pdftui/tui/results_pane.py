"""The results pane: one ranked list across every document, ranks side by side.

Columns: fused rank, document, page (with its printed label), section path, keyword rank,
semantic rank, score (the fused score; in semantic mode the page's cosine). The detail
of a hybrid hit says what each arm added to its score (:mod:`.explain`). The coverage line sits above the table; the highlighted hit's
excerpt is shown in full below it, with the query's words highlighted. It shows a typed
:class:`~pdftui.search.hits.SearchResult` and posts its :class:`~pdftui.search.hits.Hit`
objects.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from ..text import clean_text
from .actions import bindings
from .explain import arms_line
from ..versions import version_groups
from .hit_rows import Row, flat_rows, group_key, grouped_rows
from .messages import HitHighlighted, OpenHit, PaneFocused
from .render import (coverage_line, hidden_line, highlight, literal, page_ref,
                     terms_pattern)

if TYPE_CHECKING:
    from ..search.hits import Hit, SearchResult

#: Fixed column widths: rank, mark, page, kw, sem, score (document and section share the
#: rest); the score column goes below :data:`SCORE_MIN_WIDTH` columns.
_FIXED = {"rank": 3, "mark": 1, "page": 6, "kw": 4, "sem": 4, "score": 6}
SCORE_MIN_WIDTH = 90
#: Below this many columns for the document and section together, the section column goes.
MIN_DOC_AND_SECTION = 20
#: The mark column's glyphs (as in the documents pane).
MARK_GLYPHS = {"keep": "+", "to-read": "r", "skip": "-"}


#: Hidden runs of a hit shown under its excerpt.
MAX_HIDDEN_SHOWN = 5


def hit_where(hit: Hit) -> str:
    """"5" / "5 (v)" for page hits, "5-7" for section hits."""
    start, end = hit.start_page, hit.end_page
    if hit.section is not None and start and end and end != start:
        return f"{start}-{end}"
    return page_ref(hit.page, hit.page_label)


def hit_section(hit: Hit) -> str:
    """The section path shown for a hit (its own title for section hits)."""
    return hit.section_path or hit.section or ""


def leaf_first(path: str, width: int) -> str:
    """A section path for a list column, innermost title first, then its parents:
    "3 Model Architecture > 3.2 Attention" -> "3.2 Attention < 3 Model Architecture",
    cut to ``width`` columns with an ellipsis."""
    parts = [p for p in path.split(" > ") if p]
    out = " < ".join(reversed(parts))
    return out if len(out) <= width else out[: max(1, width - 1)] + "…"


def short_section(path: str, width: int) -> str:
    """A section path fitted to ``width`` columns, keeping the innermost titles (the most
    specific part): "3 Model Architecture > 3.2 Attention" -> "… > 3.2 Attention"."""
    if len(path) <= width:
        return path
    parts = path.split(" > ")
    out = parts[-1]
    for part in reversed(parts[:-1]):
        longer = f"{part} > {out}"
        if len(longer) + 4 > width:   # room for the "… > " put before it
            break
        out = longer
    out = "… > " + out if out != path else out
    return out if len(out) <= width else out[: max(1, width - 1)] + "…"


WEAK = "no strong match: nearest pages"
_WEAK_RE = re.compile(r"(?m)^no strong match: nearest (?:pages|sections)(?:; )?")


def coverage_text(result: SearchResult, show_timings: bool = True, scope: str = "") -> Text:
    """The lines above the hits: "no strong match: nearest pages" (bold) when no arm had
    real evidence, the coverage line (naming ``scope``, the scope the search ran in, and
    a query field) and its note, and "did you mean" when a query word is in no document
    (F2 searches the suggestion)."""
    line = coverage_line(result, show_timings, scope)
    weak = bool(result.weak and result.hits)
    if weak:   # the banner says it; the note keeps the rest
        line = _WEAK_RE.sub("", line).rstrip("\n")
    out = Text()
    if weak:
        out.append(WEAK if result.granularity == "page"
                   else WEAK.replace("pages", "sections"), style="bold")
        out.append("\n")
    out.append(literal(line, style="dim", keep_newlines=True))
    sugg = result.suggestions
    if sugg:
        out.append("\n")
        out.append(literal("did you mean: " + ", ".join(f"{w} -> {v[0]}" for w, v in sugg.items())
                           + "  (F2 searches it)", style="bold"))
    return out


def rank_text(value, counted: bool = True) -> Text:
    """A rank cell: the number (dim when that arm's rank added nothing to the fused score:
    beyond the lists fused, or a term lookup's semantic rank), or a dim "-" when that
    arm did not find the hit."""
    if not value:
        return Text("-", style="dim", justify="right")
    return Text(str(value), justify="right", style="" if counted else "dim")




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

    def cursor_into_view(self) -> None:
        """Scroll so the cursor's row is on screen, once the table is laid out (a list
        rebuilt while hidden behind the reader came back scrolled to its top, the
        selected hit off screen)."""
        if self.row_count:
            self.call_after_refresh(self._scroll_to_cursor)

    def _scroll_to_cursor(self) -> None:
        """Scroll to the cursor's row as it is now: the row read when the scroll was
        asked for had undone the keys read since ("Tab Down Down Enter" opened hit #1,
        the Downs reset by the deferred scroll of the pane Tab showed: fifth trial)."""
        if self.row_count:
            self.move_cursor(row=self.cursor_row, animate=False)

    def _on_show(self, event) -> None:
        super()._on_show(event)
        self.cursor_into_view()


class ResultsPane(Vertical):
    """The ranked hits, the coverage of the search and the excerpt of the highlighted hit.

    Documents are named by title (file name where titles collide), with the first author
    and year when known; near-duplicate versions of one paper (arXiv v5 / v7) found at the
    same place share one row ("v5 v7"). ``d`` groups the hits by document (each document's
    best pages beneath it; Enter on a document row shows all its hits or folds them), ``m``
    fetches more hits.
    """

    #: Shown in the footer while the results are focused (the app binds them everywhere;
    #: the same ids, so a keymap remaps both).
    BINDINGS = bindings("results")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.result: SearchResult | None = None
        self.pattern: re.Pattern[str] | None = None
        self.message = "Type a question and press Enter  (/ search · ? help)"
        self.show_timings = True
        self.scope_label = ""   # "scope: marked keep": the scope the shown search ran in
        self.border_title = "Results"
        self.grouped = False
        self.names: dict[str, str] = {}       # doc -> title shown (from the documents)
        self.infos: dict[str, object] = {}    # doc -> DocumentInfo
        self.marks: dict[str, str] = {}       # doc -> mark value
        self.versions: dict[str, tuple[str, str]] = {}
        self._tags: dict[str, str] = {}       # version label -> short tag shown
        self.more_available = False
        self._rows: list[Row] = []
        #: hit index -> the rank shown: its row's place in the list by rank, so versions
        #: of one paper folded into one row leave no gap in the numbers (1 2 3, not 1 3 4)
        self._shown_rank: dict[int, int] = {}
        self._expanded: set[str] = set()
        self._folded: set[str] = set()
        self._width = 0

    def compose(self) -> ComposeResult:
        yield Static(self.message, id="coverage", markup=False)
        yield HitTable(id="hits", cursor_type="row", zebra_stripes=False)
        with VerticalScroll(id="excerpt-box", can_focus=False):
            yield Static("", id="excerpt", markup=False)

    def on_mount(self) -> None:
        self._build_table()

    # -- data -----------------------------------------------------------------------------
    @property
    def hits(self) -> list[Hit]:
        """The current hits (a copy of the list)."""
        return list(self.result.hits) if self.result is not None else []

    @property
    def mode(self) -> str:
        """The mode of the result shown ('' when none is)."""
        return self.result.mode if self.result is not None else ""

    def set_documents(self, documents: list, names: dict[str, str],
                      versions: dict | None = None) -> None:
        """Name documents by ``names`` (doc -> title shown) and know their metadata and
        versions (``DocumentInfo`` list; ``versions`` is :func:`pdftui.versions.version_groups`
        of them when the caller has it, computed here otherwise)."""
        self.infos = {d.doc: d for d in documents}
        self.versions = versions if versions is not None else version_groups(documents)
        self._tags = self._version_tags()
        if names != self.names:
            self.names = dict(names)
            if self.result is not None:
                self._rebuild_keep_cursor()

    def set_versions(self, versions: dict) -> None:
        """Fold hits by ``versions`` (:func:`pdftui.versions.version_groups` of the documents)."""
        if versions != self.versions:
            self.versions = versions
            self._tags = self._version_tags()
            if self.result is not None:
                self._rebuild_keep_cursor()

    def set_marks(self, marks: dict[str, str]) -> None:
        """Show ``marks`` (doc -> mark value) in the mark column."""
        if marks != self.marks:
            self.marks = dict(marks)
            if self.result is not None:
                self._rebuild_keep_cursor()

    def show_message(self, text: str) -> None:
        """Show ``text`` in the coverage line (e.g. "searching…" or an error)."""
        self.message = text
        self.query_one("#coverage", Static).update(literal(text, style="dim"))

    def set_result(self, result: SearchResult, keep_cursor: bool = False) -> None:
        """Show ``result``; ``keep_cursor`` keeps the same hit highlighted when it is
        still listed (a re-run after indexing) and the cursor was moved off the first
        row: a cursor left on #1 stays on #1, the top of the new list (a re-ranked #1
        followed down to #19 scrolled the answers off the screen)."""
        old = self.current_hit() if keep_cursor and not self._at_first_hit() else None
        if not keep_cursor:
            self._expanded, self._folded = set(), set()
        self.result = result
        self.pattern = terms_pattern(result.query)
        self.border_title = f"Results · {result.mode} · {result.granularity}"
        # a new list starts at its first hit (Enter must open #1, not the row the cursor
        # was on in the list before)
        self._build_table(row=None if keep_cursor else 0)
        text = coverage_text(result, self.show_timings, self.scope_label)
        rows = sum(1 for r in self._rows if r.kind == "hit")
        if not self.grouped and rows < len(self.hits):
            # "20 hits" above 19 rows: say why one is missing
            text.append(f"  ({rows} rows: versions of one paper share a row)", style="dim")
        if self.more_available:
            text.append("  (m: more hits)", style="dim")
        self.query_one("#coverage", Static).update(text)
        if old is not None:
            self._select_hit(old)
        self._show_excerpt()

    def _at_first_hit(self) -> bool:
        """Is the cursor on the list's first hit row (or no row at all)?"""
        first = next((r for r, x in enumerate(self._rows) if x.kind == "hit"), 0)
        return self.query_one(HitTable).cursor_row <= first

    def _select_hit(self, old: Hit) -> None:
        for i, h in enumerate(self.hits):
            if (h.doc, h.page, h.section) == (old.doc, old.page, old.section):
                row = next((r for r, x in enumerate(self._rows)
                            if x.kind == "hit" and x.hit == i), None)
                if row is not None:
                    self.query_one(HitTable).move_cursor(row=row, animate=False)
                break

    def _rebuild_keep_cursor(self) -> None:
        table = self.query_one(HitTable)
        row = table.cursor_row
        self._build_table()
        if self._rows:
            table.move_cursor(row=min(row, len(self._rows) - 1), animate=False)
        self._show_excerpt()

    def clear(self) -> None:
        """Forget the current result (the box was emptied)."""
        self.result = None
        self.pattern = None
        self._build_table()
        self.show_message("Type a question and press Enter  (/ search · ? help)")
        self._show_excerpt()

    # -- the table ------------------------------------------------------------------------
    def _page_width(self) -> int:
        """The page column fits the longest "19 (75)" of the hits (5 to 9 columns; in
        the grouped view "15 hits" too)."""
        longest = max((len(hit_where(h)) for h in self.hits), default=0)
        return max(7 if self.grouped else 5, min(9, longest))

    def _columns(self) -> tuple[list[str], int, int]:
        """The columns shown, and the document and section widths, from the pane's width
        less its border and the table's scrollbar (always kept free: a column under it
        lost its values, as `sem` did at 100 columns). The rank, kw and sem columns are
        always whole; the section column goes first when the rest is too narrow for a
        readable document and section (the excerpt names the section), then the score."""
        table = self.query_one(HitTable)
        bar = table.styles.scrollbar_size_vertical
        width = max(40, (self._width or self.size.width or 80) - 2 - bar)
        cols = ["rank", "mark", "doc", "page", "section", "kw", "sem"]
        if self.grouped:   # a hit's section goes beneath its document, in that column
            cols.remove("section")
        if width + bar >= SCORE_MIN_WIDTH:
            cols.append("score")
        rest = self._rest(cols, width)
        if "section" in cols and rest < MIN_DOC_AND_SECTION:
            cols.remove("section")
            rest = self._rest(cols, width)
        if self.grouped or "section" not in cols:
            return cols, max(8, rest), 0
        doc = max(8, rest * 13 // 20)   # the document first: the excerpt names the section
        return cols, doc, max(6, rest - doc)

    def _rest(self, cols: list[str], width: int) -> int:
        """Columns left for the document and section in ``width`` once the fixed columns
        and the cells' padding (one column each side) are taken."""
        fixed = sum(_FIXED[c] for c in cols if c in _FIXED and c != "page")
        return width - fixed - self._page_width() - 2 * len(cols)

    def _doc_cell(self, doc: str, width: int, versions: list[str]) -> Text:
        """The document's title (file name when titles collide), then "· Vaswani 2017"
        when room allows, then the versions this row stands for ("v5 v7", oldest first).
        The version tags stay whole and the title is cut first, down to
        :data:`~.corpus_pane.MIN_TITLE` characters; only then are the tags cut."""
        from .corpus_pane import MIN_TITLE, first_author

        info = self.infos.get(doc)
        tail = " ".join(self.tag(v) for v in versions)
        name = self.names.get(doc) or short_doc(doc, width)
        if tail and info is not None and clean_text(getattr(info, "title", "") or ""):
            name = clean_text(info.title)   # the tags tell the versions apart
        meta = ""
        if info is not None:
            year = getattr(info, "year", None)
            meta = " ".join(x for x in (first_author(info), str(year) if year else "") if x)
        if tail and width - len(tail) - 1 < min(MIN_TITLE, len(name)):
            keep = max(1, width - min(MIN_TITLE, len(name)) - 2)
            tail = tail if len(tail) <= keep else tail[: max(1, keep - 1)] + "…"
        room = width - (len(tail) + 1 if tail else 0)
        out = Text(no_wrap=True, overflow="ellipsis")
        if meta and len(name) + len(meta) + 3 <= room:
            out.append_text(literal(name))
            out.append(f" · {meta}", style="dim")
        else:
            out.append_text(literal(name if len(name) <= room else name[: max(1, room - 1)]
                                    + "…"))
        if tail:
            out.append(" " + tail, style="bold")
        return out

    def tag(self, label: str) -> str:
        """The short tag shown for version label ``label`` ("v5"; the part of a file
        name that tells it from the other versions' names: "08-draft")."""
        return self._tags.get(label, label)

    def _version_tags(self) -> dict[str, str]:
        """Version label -> its short tag (:func:`~.corpus_pane.version_tags`)."""
        from .corpus_pane import version_tags

        members: dict[str, list[str]] = {}
        for doc, (key, _label) in self.versions.items():
            members.setdefault(key, []).append(doc)
        out = {}
        for docs in members.values():
            for doc, tag in zip(docs, version_tags([clean_text(d) for d in docs])):
                out[self.versions[doc][1]] = tag
        return out

    def _build_table(self, row: int | None = None) -> None:
        """(Re)build the table from the hits; the cursor goes to ``row`` (None: the row it
        is on, as after a resize or a fold)."""
        table = self.query_one(HitTable)
        if row is None:
            row = table.cursor_row if table.row_count else 0
        table.clear(columns=True)
        cols, doc_w, sec_w = self._columns()
        heads = {"rank": (Text("#", justify="right"), _FIXED["rank"]),
                 "mark": (Text("m"), _FIXED["mark"]),
                 "doc": ("document / section" if self.grouped else "document", doc_w),
                 "page": ("page", self._page_width()), "section": ("section", sec_w),
                 "kw": (Text("kw", justify="right"), _FIXED["kw"]),
                 "sem": (Text("sem", justify="right"), _FIXED["sem"]),
                 "score": (Text("score", justify="right"), _FIXED["score"])}
        for c in cols:
            table.add_column(heads[c][0], width=heads[c][1], key=c)
        flat = flat_rows(self.hits, self.versions)
        self._shown_rank = {r.hit: k for k, r in enumerate(flat, 1)}
        if self.grouped:
            self._rows = grouped_rows(self.hits, self.versions, self._expanded, self._folded)
        else:
            self._rows = flat
        hits = self.hits
        for n, r in enumerate(self._rows):
            cells = self._row_cells(r, hits[r.hit], cols, doc_w, sec_w)
            table.add_row(*cells, key=str(n))
        if self._rows:
            table.move_cursor(row=min(row, len(self._rows) - 1), animate=False)

    def shown_rank(self, hit: int) -> int | str:
        """The rank shown for hit index ``hit`` (see ``_shown_rank``)."""
        return self._shown_rank.get(hit, self.hits[hit].rank if hit < len(self.hits) else "")

    def _row_cells(self, r: Row, h: Hit, cols: list[str], doc_w: int, sec_w: int) -> list:
        mark = self.marks.get(r.doc, "none")
        glyph = Text(MARK_GLYPHS.get(mark, " "), style="bold")
        if r.kind == "doc":
            pages = f"{r.count} hit{'s' if r.count != 1 else ''}"
            # "▸3 more": hits not listed beneath (Enter shows them); never "+3", which
            # reads as the keep mark
            more = f" ▸{r.hidden} more" if r.hidden else ""
            doc = self._doc_cell(r.doc, doc_w - len(more), r.versions)
            doc.stylize("bold")
            if more:
                doc.append(more, style="dim")
            cells = {"rank": Text(str(self.shown_rank(r.hit)), justify="right", style="bold"),
                     "mark": glyph, "doc": doc, "page": Text(pages, style="dim"),
                     "section": Text(""), "kw": Text(""), "sem": Text(""), "score": Text("")}
            return [cells[c] for c in cols]
        score = round(h.score, 6)   # to 6 places, as the JSON answer says it
        if self.mode == "semantic" and h.cosine is not None:
            score = round(h.cosine, 6)   # the similarity, not 1 / (60 + rank)
        if self.grouped:
            doc = Text("  └ ", style="dim", no_wrap=True, overflow="ellipsis")
            doc.append_text(literal(leaf_first(hit_section(h), max(4, doc_w - 4)),
                                    style="dim"))
            if r.versions:
                doc.append(" " + " ".join(self.tag(v) for v in r.versions), style="dim")
        else:
            doc = self._doc_cell(r.doc, doc_w, r.versions)
        cells = {"rank": Text(str(self.shown_rank(r.hit)), justify="right",
                              style="dim" if self.grouped else "bold"),
                 "mark": Text(" ") if self.grouped else glyph,
                 "doc": doc,
                 "page": literal(hit_where(h)),
                 "section": literal(leaf_first(hit_section(h), sec_w), style="dim"),
                 "kw": rank_text(h.keyword_rank,
                                 self.mode != "hybrid" or h.counted("keyword")),
                 "sem": rank_text(h.semantic_rank,
                                  self.mode != "hybrid" or h.counted("semantic")),
                 "score": Text(f"{score:.4f}"[1:] if isinstance(score, float) and 0 <= score < 1
                               else str(score), justify="right")}
        return [cells[c] for c in cols]

    def on_resize(self, event) -> None:
        # the pane's own new width: the table's is not updated yet when this runs
        self._width = event.size.width
        if self.result is not None:
            self._rebuild_keep_cursor()
        else:
            self._build_table()

    def current_row(self) -> Row | None:
        """The row under the cursor, or None."""
        if not self._rows:
            return None
        row = self.query_one(HitTable).cursor_row
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def current_hit(self) -> Hit | None:
        """The hit under the cursor (a document row: its best hit), or None."""
        r = self.current_row()
        hits = self.hits
        if r is None or r.hit is None or not 0 <= r.hit < len(hits):
            return None
        return hits[r.hit]

    def _show_excerpt(self) -> None:
        hit = self.current_hit()
        box = self.query_one("#excerpt", Static)
        if hit is None:
            box.update(Text("No hits." if self.result is not None else "", style="dim"))
            return
        head = Text()
        r = self.current_row()
        head.append(f"#{self.shown_rank(r.hit) if r else hit.rank} ", style="bold")
        doc = hit.doc
        head.append(literal(self.names.get(doc) or doc, style="bold"))
        info = self.infos.get(doc)
        authors = ", ".join(clean_text(str(a)) for a in (getattr(info, "authors", ()) or ())[:3])
        year = getattr(info, "year", None)
        meta = " · ".join(x for x in (authors, str(year) if year else "") if x)
        if meta:
            head.append("  ")
            head.append(literal(meta, style="dim"))
        head.append(f"  p. {hit_where(hit)}")
        mark = self.marks.get(doc, "none")
        if mark != "none":
            head.append(f"  [{mark}]", style="bold")
        if hit_section(hit):
            head.append("  · ")
            head.append(literal(hit_section(hit), style="italic"))
        r = self.current_row()
        if r is not None and r.versions:
            word = "versions" if len(r.versions) > 1 else "version"
            head.append(f"  · {word} {' '.join(self.tag(v) for v in r.versions)}", style="dim")
        why = arms_line(hit) if self.mode == "hybrid" else ""
        if why:
            head.append("\n")
            head.append_text(literal(why, style="dim"))
        if (hit.excerpt or "").strip():
            body = literal(hit.excerpt)
            highlight(body, self.pattern)
        else:  # a page without a text layer, or only a figure
            body = Text("(no text on this page: Enter opens it in the reader)", style="dim")
        parts = [head, body]
        for h in hit.hidden_text[:MAX_HIDDEN_SHOWN]:   # apart, dimmed, labelled
            parts.append(hidden_line(h, self.pattern))
        box.update(Text("\n").join(parts))
        self.query_one("#excerpt-box").scroll_home(animate=False)

    # -- navigation -----------------------------------------------------------------------
    def move(self, delta: int) -> None:
        """Move the cursor ``delta`` hits (n / N); document rows are passed over."""
        if not self._rows:
            return
        table = self.query_one(HitTable)
        row = table.cursor_row
        step = 1 if delta > 0 else -1
        for _ in range(abs(delta)):
            nxt = row + step
            while 0 <= nxt < len(self._rows) and self._rows[nxt].kind != "hit":
                nxt += step
            if not 0 <= nxt < len(self._rows):
                break
            row = nxt
        table.move_cursor(row=row)

    def select(self, doc: str, page: int) -> bool:
        """Put the cursor on the first hit of ``doc`` on ``page`` (a section hit: one
        whose pages hold it); False when no hit is there."""
        hits = self.hits
        for n, r in enumerate(self._rows):
            if r.kind != "hit":
                continue
            h = hits[r.hit]
            start = h.start_page or h.page or 0
            end = h.end_page or start
            if h.doc == doc and start <= page <= end:
                self.query_one(HitTable).move_cursor(row=n)
                return True
        return False

    def action_group(self) -> None:
        """``d``: group the hits by document (best pages beneath) or list them by rank."""
        hit = self.current_hit()
        self.grouped = not self.grouped
        self._build_table()
        if hit is not None:
            self._select_hit(hit)
        self._show_excerpt()
        self.notify("hits grouped by document" if self.grouped else "hits in rank order",
                    timeout=1.5)

    def _toggle_group(self, r: Row) -> None:
        """Enter on a document row: show all its hits, or fold them."""
        key = group_key(r, self.versions)
        if r.hidden and r.count - r.hidden == 0:
            self._folded.discard(key)
        elif r.hidden:
            self._expanded.add(key)
        else:
            self._expanded.discard(key)
            self._folded.add(key)
        row = self.query_one(HitTable).cursor_row
        self._build_table()
        self.query_one(HitTable).move_cursor(row=row, animate=False)

    def focus_main(self) -> None:
        """Focus the table (used when the pane becomes current)."""
        table = self.query_one(HitTable)
        self.screen.set_focus(table)   # now, not after the keys queued
        table.cursor_into_view()

    @on(DataTable.RowHighlighted, "#hits")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_excerpt()
        self.post_message(HitHighlighted(self.current_hit()))

    @on(DataTable.RowSelected, "#hits")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        r = self.current_row()
        if r is not None and r.kind == "doc":
            self._toggle_group(r)
            return
        hit = self.current_hit()
        if hit is not None:
            self.post_message(OpenHit(hit))

    def on_descendant_focus(self, event) -> None:
        self.post_message(PaneFocused("results"))
