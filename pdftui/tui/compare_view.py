"""The compare view: keyword, semantic and hybrid top-k lists side by side.

The hit under the cursor is highlighted in all three lists (or marked absent), each row
shows where the hit lands in the fused list ("→3"; in the hybrid list the two arm ranks),
and the lines below the lists spell out the movement ("keyword #3 → hybrid #1 ▲2"; a rank
beyond the rows shown is still named: "keyword #14"), what each arm added to the hit's
hybrid score and the weights in force (:mod:`.explain`). The lists hold as many hits as
the screen has rows.
Enter opens the hit in the reader (the screen is dismissed with ``(hit, mode of the list)``);
Esc goes back.

The three searches run one after another as the service's ``compare`` caller: a newer
compare search cancels an older one, a search of the results list does not.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ..versions import Fold, VersionGroups, fold_versions, place
from .actions import bindings
from .explain import arms_line, weights_line
from .render import coverage_line, highlight, literal, terms_pattern, unique_names
from .results_pane import hit_section, hit_where, leaf_first, short_doc

if TYPE_CHECKING:
    from ..search.hits import Hit, SearchResult

MODES = ("keyword", "semantic", "hybrid")


def hit_key(hit: Hit) -> tuple:
    """Identity of a hit across lists: (doc, page, section)."""
    return (hit.doc, hit.page, hit.section)


def distinctive_name(doc: str) -> str:
    """The telling part of a document's file name for narrow columns: leading id-like
    segments are dropped ("arxiv-1706.03762v5-attention-is-all-you-need.pdf" ->
    "attention-is-all-you-need", "google-2003-file-system.pdf" -> "file-system"); the
    full name is on the line below the lists."""
    name = doc.rsplit("/", 1)[-1]
    name = name[:-4] if name.lower().endswith(".pdf") else name
    parts = name.split("-")
    digit = [any(c.isdigit() for c in p) for p in parts]
    i = 0
    while (i < len(parts) - 1 and (digit[i] or digit[i + 1])
           and not all(digit[i + 1:])):
        i += 1
    return "-".join(parts[i:]) or name


def author_year(info) -> str:
    """"Ongaro 2013": a document's first author's surname and year (either alone when the
    other is unknown; '' when both are): what tells papers apart in a 10-column list, where
    titles sharing an opening ("In Search of…", "Attention…") cannot."""
    from .corpus_pane import first_author

    year = getattr(info, "year", None)
    return " ".join(x for x in (first_author(info), str(year) if year else "") if x)


def narrow_names(docs: list[str], labels: dict[str, str], width: int) -> dict[str, str]:
    """Names of ``docs`` for a narrow list ``width`` columns wide: each one's label
    (:func:`author_year`); where another document shown has the same label, its surname
    and the arXiv version its file name carries ("Vaswani v5", "Vaswani v7"), else the
    telling part of its file name (:func:`distinctive_name`)."""
    seen: dict[str, set[str]] = {}
    for d in docs:
        if labels.get(d):
            seen.setdefault(labels[d], set()).add(d)
    out, rest = {}, []
    for d in docs:
        label = labels.get(d, "")
        version = _VERSION_RE.search(d.rsplit("/", 1)[-1])
        if label and len(seen[label]) == 1:
            out[d] = fit_label(label, width)
        elif label and version and " " in label:
            out[d] = fit(f"{label.rpartition(' ')[0]} {version.group(1)}", width)
        else:
            rest.append(d)
    out.update(unique_names(rest, width, lambda d, w: fit(distinctive_name(d), w)))
    return out


_VERSION_RE = re.compile(r"\d(v\d{1,2})(?![\w])")


def fit_label(label: str, width: int) -> str:
    """An :func:`author_year` label in ``width`` columns: the year as "'13" when the whole
    does not fit, then the surname cut ("Ongaro 2013" -> "Ongaro '13" -> "Onga… '13")."""
    if len(label) <= width:
        return label
    name, _, year = label.rpartition(" ")
    if not (name and len(year) == 4 and year.isdigit()):
        return fit(label, width)
    tail = f" '{year[2:]}"
    return fit(name, max(2, width - len(tail))) + tail


def fit(name: str, width: int) -> str:
    """``name`` cut to ``width`` columns at its end, with an ellipsis."""
    return name if len(name) <= width else name[: max(1, width - 1)] + "…"


def movement(from_rank: int | None, to_rank: int | None) -> str:
    """"▲2", "▼3", "=" or "" (absent from the fused list)."""
    if not from_rank or not to_rank:
        return ""
    d = from_rank - to_rank
    return f"▲{d}" if d > 0 else (f"▼{-d}" if d < 0 else "=")


def rank_parts(ranks: dict[str, int | None], hybrid_hit: Hit | None, shown: int,
               granularity: str = "page") -> list[str]:
    """The movement line's parts: ``["keyword #14 → hybrid #2 ▲12", "semantic #1 → hybrid
    #2 ▼1"]``. ``ranks`` {mode: rank in that list} of the hits shown (``shown`` rows);
    an arm rank beyond them comes from the hybrid hit (its arms' ranks are looked up in
    the whole lists), and None there means that arm did not find it at all."""
    what = "page" if granularity == "page" else "section"
    parts = []
    for mode in ("keyword", "semantic"):
        arm_rank = None if hybrid_hit is None else \
            hybrid_hit.keyword_rank if mode == "keyword" else hybrid_hit.semantic_rank
        r = ranks.get(mode) or arm_rank
        if r:
            part = f"{mode} #{r}"
            if hybrid_hit is not None and not hybrid_hit.counted(mode):
                part += " (not counted)"
            if ranks.get("hybrid"):
                part += f" → hybrid #{ranks['hybrid']} {movement(r, ranks['hybrid'])}"
        elif hybrid_hit is not None:
            part = f"{mode}: does not rank this {what}"
        else:
            part = f"{mode}: below #{shown}"
        parts.append(part)
    if not ranks.get("hybrid"):
        parts.append(f"hybrid: below #{shown}")
    return parts


class CompareScreen(Screen):
    """Three ranked lists of one query, one per mode, with rank movement."""

    BINDINGS = bindings("compare")

    def __init__(self, service_factory, query: str, scope, granularity: str = "page",
                 top_k: int = 10, focus_mode: str = "hybrid", show_timings: bool = True,
                 start_key: tuple | None = None, names: dict[str, str] | None = None,
                 labels: dict[str, str] | None = None,
                 versions: VersionGroups | None = None) -> None:
        super().__init__()
        #: versions of one paper (:func:`pdftui.versions.version_groups`): their hits at
        #: one place are one row, as in the results list
        self.versions = versions or {}
        self.names = names or {}   # doc -> title (file name where titles collide)
        self.labels = labels or {}   # doc -> "Ongaro 2013" (:func:`author_year`)
        self.service_factory = service_factory
        self.query_text = query
        self.scope = scope
        self.granularity = granularity
        self.top_k = top_k
        self.focus_mode = focus_mode
        self.show_timings = show_timings
        self.start_key = None if start_key is None else self._place(*start_key)
        self.pattern = terms_pattern(query)
        self.results: dict[str, SearchResult] = {}

    def compose(self) -> ComposeResult:
        head = Text("Compare  ", style="bold")
        head.append(literal(self.query_text))
        yield Static(head, id="compare-head", markup=False)
        with Horizontal(id="compare-lists"):
            for mode in MODES:
                with Vertical(classes="compare-col", id=f"col-{mode}") as col:
                    col.border_title = mode
                    yield DataTable(id=f"list-{mode}", cursor_type="row")
        with VerticalScroll(id="compare-detail-box", can_focus=False):
            yield Static("searching…", id="compare-detail", markup=False)
        yield Footer()

    def action_next_list(self, delta: int) -> None:
        """Focus the list ``delta`` places to the right (wrapping)."""
        ids = [f"list-{m}" for m in MODES]
        cur = self.focused.id if self.focused is not None and self.focused.id in ids else ids[-1]
        self.set_focus(self.query_one(f"#{ids[(ids.index(cur) + delta) % len(ids)]}",
                                      DataTable))   # now: the next key goes to that list

    def on_mount(self) -> None:
        self.query_one(f"#list-{self.focus_mode}", DataTable).focus()
        self._run()

    def rows_fit(self) -> int:
        """How many hits a list shows at the screen's height (at least 5): the screen's
        rows less the head and footer, the list's border and header, and the detail box
        (35% of the screen, pdftui.tcss), over the lines a hit takes (:meth:`row_height`)."""
        screen_h = self.app.size.height
        return max(5, (screen_h - 2 - 3 - int(screen_h * 0.35)) // self.row_height())

    def narrow(self) -> bool:
        """Lists under 40 columns (80-column screens): no movement column."""
        return self.app.size.width // len(MODES) < 40

    def stacked(self) -> bool:
        """Lists under 80 columns (up to 239-column screens): a hit's section goes on a
        second line beneath its document, in the whole width the two share (a section
        column beside the document was 13 columns at 160: "3.2.2 Multi-Head A…")."""
        return self.app.size.width // len(MODES) < 80

    def row_height(self) -> int:
        """Lines per hit: 2 in :meth:`stacked` lists (document, then section), else 1."""
        return 2 if self.stacked() else 1

    @work(exclusive=True, group="compare", exit_on_error=False)
    async def _run(self) -> None:
        service = await self.service_factory()
        self.top_k = self.rows_fit()
        for mode in MODES:   # its own caller: the results list's searches never cancel it
            self.results[mode] = await service.search(
                self.query_text, mode=mode, granularity=self.granularity, top_k=self.top_k,
                docs=self.scope or None, caller="compare")
        self._fill()

    # -- rendering ------------------------------------------------------------------------
    def _all_hits(self, mode: str) -> list[Hit]:
        """Every hit of the ``mode`` list ([] before it is searched)."""
        res = self.results.get(mode)
        return res.hits if res is not None else []

    def _folds(self, mode: str) -> list[Fold]:
        """The ``mode`` list's rows: hits of versions of one paper at one place folded
        into the best ranked (:func:`pdftui.versions.fold_versions`)."""
        return fold_versions(self._all_hits(mode), self.versions)

    def _hits(self, mode: str) -> list[Hit]:
        """The hits the ``mode`` list shows, one a row (versions folded)."""
        hits = self._all_hits(mode)
        return [hits[f.hit] for f in self._folds(mode)]

    def _place(self, doc: str, page: int | None, section: str | None) -> tuple:
        """A row's identity across the lists: the work (versions of one paper are one)
        and the place in it (:func:`pdftui.versions.same_place`)."""
        if doc not in self.versions:
            return (doc, page, section)
        return (self.versions[doc][0], *place(page, section))

    def _key(self, hit: Hit) -> tuple:
        return self._place(hit.doc, hit.page, hit.section)

    def _ranks(self, mode: str) -> dict[tuple, int]:
        """{row identity: the rank shown}: a row's place in the ``mode`` list, versions
        folded (numbered 1, 2, 4, 5 where a folded version had been #3, the compare view
        used three numberings; the results list numbers its rows the same way)."""
        out: dict[tuple, int] = {}
        for k, h in enumerate(self._hits(mode), 1):
            out.setdefault(self._key(h), k)
        return out

    def _arm_cell(self, hit: Hit, rows: dict[str, dict[tuple, int]]) -> Text:
        """The hybrid list's "kw/sm" cell: each arm's rank as that arm's list shows it
        (its row number), or, for a place below that list, the arm's own rank."""
        key = self._key(hit)
        kw = rows["keyword"].get(key) or hit.keyword_rank
        sm = rows["semantic"].get(key) or hit.semantic_rank
        return Text(f"{kw or '-'}/{sm or '-'}", style="dim")

    def _doc_cell(self, hit: Hit, fold: Fold, name: str, width: int) -> Text:
        """The document cell: its name, and the versions the row stands for ("v5 v7"),
        or the one version a row of a paper with versions holds (the keyword list had
        shown "Vaswani 2017" for v5 alone beside "Vaswani v7 v5")."""
        labels = fold.versions or ([self.versions[hit.doc][1]] if hit.doc in self.versions
                                   else [])
        others = " ".join(v for v in labels if v not in name)
        return literal(fit(f"{name} {others}".strip(), width))

    def _layout(self, hits: list[Hit], width: int) -> tuple[int, int, int, dict[str, str]]:
        """``(page column, document column, section width, {doc: name})`` of a list
        ``width`` columns wide. Narrow (80 columns): no movement column (the line below
        spells it out); stacked (up to 239 columns): the section on a second line under
        the document, and the page at the end of the document's line, so the section has
        the width of both (it stopped at 29 columns beside 15 empty ones at 160)."""
        narrow, stacked = self.narrow(), self.stacked()
        page_w = max(5, min(9, max((len(hit_where(h)) for h in hits), default=0)))
        docs = [h.doc for h in hits]
        if stacked:
            doc_w = max(6, width - 2 - (0 if narrow else 6) - 2 * (2 if narrow else 3) - 1)
            names = narrow_names(docs, self.labels, doc_w - page_w - 1) if narrow else \
                self._wide_names(docs, doc_w - page_w + 5)
            return 0, doc_w, doc_w, names
        rest = max(6, width - 2 - page_w - (0 if narrow else 6) - 2 * 5 - 1)
        share = max(6, rest * 11 // 20)   # the section keeps the rest
        names = self._wide_names(docs, share + 6)
        doc_w = max(6, min(share, max(map(len, names.values()), default=6)))
        return page_w, doc_w, rest - doc_w, names

    def _fill_list(self, mode: str, rows: dict[str, dict[tuple, int]]) -> None:
        """Put the ``mode`` list's rows in its table."""
        table = self.query_one(f"#list-{mode}", DataTable)
        table.clear(columns=True)
        width = max(20, table.size.width or self.app.size.width // 3)
        narrow, stacked = self.narrow(), self.stacked()
        folds = self._folds(mode)
        every = self._all_hits(mode)
        hits = [every[f.hit] for f in folds]
        page_w, doc_w, sec_w, names = self._layout(hits, width)
        table.add_column(Text("#", justify="right"), width=2, key="rank")
        table.add_column("document · page" if stacked else "document",
                         width=doc_w, key="doc")
        if not stacked:
            table.add_column("page", width=page_w, key="page")
            table.add_column("section", width=sec_w, key="section")
        if not narrow:
            table.add_column("→hy" if mode != "hybrid" else "kw/sm", width=6, key="move")
        twice: dict[tuple, int] = {}   # a title twice in one paper: two rows
        for row_no, (h, fold) in enumerate(zip(hits, folds), 1):
            if mode == "hybrid":
                move = self._arm_cell(h, rows)
            else:
                hr = rows["hybrid"].get(self._key(h))
                move = Text(f"{hr}" if hr else "-", style="" if hr else "dim")
            where = hit_where(h)
            section = literal(leaf_first(hit_section(h), sec_w), style="dim")
            if stacked:   # document and page on one line, the section beneath
                doc = self._doc_cell(h, fold, names[h.doc], doc_w - len(where) - 1)
                doc.pad_right(max(0, doc_w - len(where) - doc.cell_len))
                doc.append_text(literal(where))
                doc.append("\n")
                doc.append_text(section)
                cells = [doc]
            else:
                cells = [self._doc_cell(h, fold, names[h.doc], doc_w), literal(where),
                         section]
            cells = [Text(str(row_no), justify="right", style="bold"), *cells] + \
                ([] if narrow else [move])
            key = self._key(h)
            n = twice[key] = twice.get(key, -1) + 1
            table.add_row(*cells, key=repr(key) if not n else repr((key, n)),
                          height=self.row_height())

    def _fill(self) -> None:
        rows = {mode: self._ranks(mode) for mode in MODES}
        for mode in MODES:
            self._fill_list(mode, rows)
        focus = self.query_one(f"#list-{self.focus_mode}", DataTable)
        if self.start_key is not None and repr(self.start_key) in focus.rows:
            focus.move_cursor(row=focus.get_row_index(repr(self.start_key)), animate=False)
        head = Text("Compare  ", style="bold")
        head.append(literal(self.query_text))
        if "hybrid" in self.results:
            head.append("   ")
            head.append(literal(coverage_line(self.results["hybrid"], self.show_timings)
                                .split("\n")[0], style="dim"))
        self.query_one("#compare-head", Static).update(head)
        self._sync(focus)

    def _wide_names(self, docs: list[str], rest: int) -> dict[str, str]:
        """Names of ``docs`` in a list with ``rest`` columns for document and section: the
        titles when every one fits beside a section of 6 columns, else every document by
        its label ("Vaswani 2017", :func:`narrow_names`): a column of titles cut after
        14 characters (160 columns) told few papers apart."""
        room = max(6, rest - 6)
        titles = unique_names(docs, room, short_doc)
        titles.update({d: self.names[d] for d in titles if self.names.get(d)})
        if all(len(t) <= room for t in titles.values()):
            return titles
        return narrow_names(docs, self.labels, room)

    def _current(self, table: DataTable) -> Hit | None:
        mode = (table.id or "list-hybrid").removeprefix("list-")
        hits = self._hits(mode)
        row = table.cursor_row
        return hits[row] if hits and 0 <= row < len(hits) else None

    def _sync(self, source: DataTable) -> None:
        hit = self._current(source)
        detail = self.query_one("#compare-detail", Static)
        if hit is None:
            detail.update(Text("No hits." if self.results else "searching…", style="dim"))
            return
        key = self._key(hit)
        ranks = {m: self._ranks(m).get(key) for m in MODES}
        hybrid_hit = next((h for h in self._hits("hybrid") if self._key(h) == key), None)
        for mode in MODES:
            table = self.query_one(f"#list-{mode}", DataTable)
            if table is source:
                continue
            if repr(key) in table.rows:
                table.show_cursor = True
                table.move_cursor(row=table.get_row_index(repr(key)), animate=False)
            else:
                table.show_cursor = False
        doc = hit.doc
        out = literal(self.names.get(doc) or doc, style="bold")
        out.append(f"  p. {hit_where(hit)}")
        if hit_section(hit):
            out.append_text(literal(f"  {hit_section(hit)}", style="italic"))
        if self.names.get(doc):
            out.append_text(literal(f"  {doc}", style="dim"))
        out.append("\n")
        out.append(" · ".join(rank_parts(ranks, hybrid_hit, self.top_k,
                                         self.granularity)) + "\n")
        why = arms_line(hybrid_hit)
        if why:
            out.append_text(literal("hybrid: " + why, style="dim"))
            out.append("\n")
        hybrid = self.results.get("hybrid")
        weights = weights_line(hybrid.weights if hybrid is not None else None)
        if weights:
            out.append_text(literal(weights, style="dim"))
            out.append("\n")
        body = literal(hit.excerpt)
        highlight(body, self.pattern)
        out.append_text(body)
        detail.update(out)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.data_table.has_focus and self.results:
            self._sync(event.data_table)

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        hit = self._current(event.data_table)
        if hit is not None:
            # the list it came from, so a return from the reader lands on the same row
            self.dismiss((hit, (event.data_table.id or "list-hybrid")[len("list-"):]))

    def on_descendant_focus(self, event) -> None:
        if isinstance(event.widget, DataTable):
            for t in self.query(DataTable):
                t.show_cursor = True
            if self.results:
                self._sync(event.widget)

    def action_move(self, delta: int) -> None:
        """Move the cursor of the focused list."""
        table = self.focused
        if isinstance(table, DataTable) and table.row_count:
            table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + delta)))

    def action_close(self) -> None:
        """Back to the results."""
        self.dismiss(None)

    def on_resize(self, event) -> None:
        if self.results:
            self.call_after_refresh(self._fill)
