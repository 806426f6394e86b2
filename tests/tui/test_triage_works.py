"""Versions of one paper are one work in the TUI: ``+`` on a row folded as "v7 v5"
marks both files, every row of either shows the mark, and the "marked keep" scope holds
both (trial: only v7 was marked, rows led by v5 showed nothing, the scope held v7)."""

from __future__ import annotations

import asyncio

from pdftui.triage.store import DocKey, Mark, TriageStore
from pdftui.tui.corpus_pane import CorpusPane, DocList
from pdftui.tui.results_pane import HitTable, ResultsPane

from ..conftest import copy_docs
from .conftest import search, settle, wait_for

V5 = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"
V7 = "arxiv-1706.03762v7-attention-is-all-you-need.pdf"
EULER = "texlive-euler.pdf"


def _versions_folder(tmp_path):
    """``(folder, cache)``: the Transformer's v5 and v7 and the euler package, copied and
    indexed (text only)."""
    from pdftui.index import index_folder

    folder, cache = copy_docs(tmp_path / "papers", [V5, V7, EULER]), tmp_path / "cache"
    index_folder(folder, cache, embed=False)
    return folder, cache


def _app(folder, cache):
    """The app on ``folder``: no indexing, no watcher, no timings, quick debounce."""
    from pdftui.tui.app import PdftuiApp

    return PdftuiApp(folder, cache_dir=cache, index=False, watch=False,
                     show_timings=False, debounce=0.05)


def test_a_folded_row_marks_the_work_and_the_scope_holds_every_version(tmp_path, data_dir):
    from pdftui.library import Library

    folder, cache = _versions_folder(tmp_path)
    lib = Library(folder, cache)
    sha = {d.doc: d.sha256 for d in lib.documents()}
    lib.close()
    with TriageStore(data_dir) as old:     # a mark stored on v7 alone, the old way
        old.set_mark(DocKey.of(folder, V7, sha[V7]), Mark.TO_READ)

    async def go():
        app = _app(folder, cache)
        async with app.run_test(size=(160, 48)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await wait_for(pilot, lambda: main.triage.marks().get(V5) == "to-read",
                           what="v7's old mark shown on v5 too")
            main.mode = "keyword"
            await search(pilot, "scaled dot-product attention")
            results = app.query_one(ResultsPane)
            rows = results._rows
            folded = next(i for i, r in enumerate(rows) if r.versions)
            table = app.query_one(HitTable)
            table.focus()
            table.move_cursor(row=folded, animate=False)
            await pilot.pause()
            assert sorted(results.current_row().versions) == ["v5", "v7"]
            await pilot.press("plus")
            await wait_for(pilot, lambda: main.triage.marks().get(V5) == "keep"
                           and main.triage.marks().get(V7) == "keep", what="the work marked")
            with TriageStore(data_dir) as store:
                assert store.get(DocKey.of(folder, V5, sha[V5])).mark is Mark.KEEP
                assert store.get(DocKey.of(folder, V7, sha[V7])).mark is Mark.KEEP
            # every row of either version shows the mark, whichever leads it
            col = list(table.columns).index("mark")
            for i, r in enumerate(results._rows):
                if r.kind == "hit" and r.doc in (V5, V7):
                    assert table.get_cell_at((i, col)).plain == "+", (i, r)
            # the documents list: one row for the work, marked, led by its newest file
            corpus = app.query_one(CorpusPane)
            assert {d: m for d, m in corpus.marks.items()} == {V5: "keep", V7: "keep"}
            lst = app.query_one(DocList)
            prompts = {lst.get_option_at_index(i).id: lst.get_option_at_index(i).prompt.plain
                       for i in range(lst.option_count)}
            assert V5 not in prompts and prompts[V7][2] == "+" and prompts[EULER][2] != "+"
            assert "(v5 v7)" in prompts[V7], prompts[V7]
            assert lst.option_count == 2 and "Documents 2 (3 files)" in \
                str(corpus.border_title), corpus.border_title
            # the files stay listed under the work: its detail names both
            lst.highlighted = lst.get_option_index(V7)
            await pilot.pause()
            detail = str(corpus.query_one("#doc-detail").render())
            assert "1706.03762v5" in detail and "1706.03762v7" in detail, detail
            # "*": the scope of the works marked keep holds both files
            main.show_pane("results")
            await pilot.press("asterisk")
            await wait_for(pilot, lambda: main.scope_mark == "keep", what="mark scope")
            assert main.scope == (V5, V7)
            # the status line counts the work once, and its files: "marked keep (1 work,
            # 2 files)", not (2) (the documents list shows the 2 files)
            from textual.widgets import Static
            status = str(main.query_one("#status", Static).render())
            assert "marked keep (1 work, 2 files)" in status, status
    asyncio.run(go())


def test_the_compare_view_folds_versions_as_the_results_do(tmp_path):
    """Third trial: the compare view listed "Vaswani v7" and "Vaswani v5" as two rows of
    one place while the results list folds them. Each list has one row for the work at
    that place, naming both versions, and the lists' cursors meet on it."""
    from pdftui.tui.compare_view import CompareScreen

    folder, cache = _versions_folder(tmp_path)

    async def go():
        app = _app(folder, cache)
        async with app.run_test(size=(160, 48)) as pilot:
            main = app.main_screen
            await settle(pilot)
            main.mode = "keyword"
            await search(pilot, "scaled dot-product attention")
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen)
                           and "keyword" in app.screen.results, what="the keyword list")
            screen = app.screen
            await pilot.pause()
            every = screen.results["keyword"].hits
            shown = screen._hits("keyword")
            places = [(h.page, h.section) for h in shown if h.doc in (V5, V7)]
            assert len(places) == len(set(places)), places   # one row a place
            assert len(shown) < len(every)
            from textual.widgets import DataTable
            table = screen.query_one("#list-keyword", DataTable)
            names = [str(table.get_row_at(r)[1]).split("\n")[0]
                     for r in range(table.row_count)]
            assert any("v5" in n and "v7" in n for n in names), names
            # fourth trial: rows numbered 1, 2, 4, 5 (a folded version had been #3), and
            # a row of one version of the paper named no version. Rows count 1..n in
            # every list; every row of the paper names its version(s)
            for mode in ("keyword", "semantic", "hybrid"):
                t = screen.query_one(f"#list-{mode}", DataTable)
                numbers = [str(t.get_row_at(r)[0]) for r in range(t.row_count)]
                assert numbers == [str(k) for k in range(1, t.row_count + 1)], (mode, numbers)
            for r, h in enumerate(shown):
                if h.doc in (V5, V7):
                    assert "v5" in names[r] or "v7" in names[r], names[r]
    asyncio.run(go())


def test_space_scopes_the_work_and_the_title_counts_works(tmp_path):
    """Seventh trial: Space on the (v5) row scoped that file alone, and the documents
    pane said "scope 4" for 3 papers (the work is one row now, led by v7). Space (and O) take a work's every version in or out
    of the scope; the title counts works, then files."""
    folder, cache = _versions_folder(tmp_path)

    async def go():
        app = _app(folder, cache)
        async with app.run_test(size=(160, 48)) as pilot:
            main = app.main_screen
            await settle(pilot)
            corpus = app.query_one(CorpusPane)
            await wait_for(pilot, lambda: corpus.versions, what="the version groups")
            await search(pilot, "attention")
            main.show_pane("corpus")
            lst = app.query_one(DocList)
            await wait_for(pilot, lambda: lst.has_focus, what="documents")
            docs = [lst.get_option_at_index(i).id for i in range(lst.option_count)]
            assert V5 not in docs   # one row for the work, led by v7
            for _ in range(docs.index(V7)):
                await pilot.press("down")
            await pilot.press("space")
            await wait_for(pilot, lambda: set(main.scope) == {V5, V7}, what="the work")
            assert "scope 1 work (2 files)" in str(corpus.border_title)
            # eighth trial: the coverage line said "scope: 2 documents" for one paper
            from pdftui.tui.results_pane import ResultsPane
            results = app.query_one(ResultsPane)
            await wait_for(pilot, lambda: main.shown_key is not None
                           and set(main.shown_key.scope) == {V5, V7}, what="scoped search")
            assert results.scope_label.startswith("scope: Attention Is All"), \
                results.scope_label
            await pilot.press("space")
            await wait_for(pilot, lambda: main.scope == (), what="out again")
    asyncio.run(go())
