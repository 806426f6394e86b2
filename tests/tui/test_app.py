"""Pilot tests of the TUI on a small real index (see conftest.py)."""

from __future__ import annotations

import dataclasses
import asyncio
import re
import shutil
import subprocess
import sys

import pytest

from pdftui.tui.app import PdftuiApp
from pdftui.tui.compare_view import CompareScreen
from pdftui.tui.corpus_pane import CorpusPane, DocList
from pdftui.tui.help_screen import HelpScreen
from pdftui.tui.goto_page import GoToPageScreen
from pdftui.tui.read_view import ReadRequest
from pdftui.tui.reader_pane import ReaderPane
from pdftui.tui.reader_widgets import ReaderBody
from pdftui.tui.results_pane import HitTable, ResultsPane, short_doc

from ..conftest import TRICKY, shared_file
from .conftest import (MARKUP_DOC, make_markup_pdf, open_first_hit, reader_ready, search,
                       settle, wait_for)

ATTENTION = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"


def run(coro):
    return asyncio.run(coro)


def cell_text(table, row: int, key: str) -> str:
    value = table.get_cell_at((row, list(table.columns).index(key)))
    return getattr(value, "plain", str(value))


async def attention_reader(pilot):
    """Settle, open the Attention paper's first section in the reader and make the reader
    the current pane; returns the ReaderPane (its view lists the sections)."""
    await settle(pilot)
    reader = pilot.app.query_one(ReaderPane)
    reader.request(ReadRequest(ATTENTION, "section", 1))
    reader = await reader_ready(pilot)
    pilot.app.main_screen.show_pane("reader")
    return reader


def test_import_does_not_load_fastembed():
    code = ("import sys, pdftui.tui.app; "
            "sys.exit(1 if any(m.startswith(('fastembed', 'onnxruntime')) for m in sys.modules)"
            " else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


RANK_COLUMNS = ["#", "m", "document", "page", "section", "kw", "sem"]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_query_shows_three_rank_columns(make_app, size):
    """The fused rank (#), the keyword rank and the semantic rank side by side at every
    width; the fused score only where the results pane has room (see the next test)."""
    async def go():
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            data = await search(pilot, "multi-head attention")
            assert data.mode == "hybrid" and data.hits
            table = app.query_one(HitTable)
            labels = [c.label.plain for c in table.columns.values()]
            assert labels == RANK_COLUMNS
            assert table.row_count == len(data.hits)
            first = data.hits[0]
            assert cell_text(table, 0, "rank") == "1"
            assert cell_text(table, 0, "kw") == str(first.keyword_rank or "-")
            assert cell_text(table, 0, "sem") == str(first.semantic_rank or "-")
            # both arms ranked something
            assert any(h.keyword_rank for h in data.hits)
            assert any(h.semantic_rank for h in data.hits)
            cov = str(app.query_one("#coverage").render())
            assert cov.startswith("searched 4 of 4 · semantic 4 of 4")
            # the excerpt of the highlighted hit is shown with the terms highlighted
            excerpt = app.query_one("#excerpt").render()
            assert first.excerpt[:40] in str(excerpt)
            assert "ms" not in cov  # timings hidden
            # Enter in the box moved focus to the results
            assert isinstance(app.focused, HitTable)
    run(go())


def test_wide_results_pane_adds_the_fused_score(make_app):
    """With 90 columns or more for the results pane the fused score follows the ranks."""
    async def go():
        app = make_app()
        async with app.run_test(size=(240, 40)) as pilot:
            await settle(pilot)
            data = await search(pilot, "multi-head attention")
            table = app.query_one(HitTable)
            assert app.query_one(ResultsPane).size.width >= 90
            labels = [c.label.plain for c in table.columns.values()]
            assert labels == RANK_COLUMNS + ["score"]
            first = data.hits[0]
            assert cell_text(table, 0, "score") == f"{round(first.score, 6):.4f}"[1:]
    run(go())


def test_mode_keys_switch_modes(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await search(pilot, "euler fonts")
            results = app.query_one(ResultsPane)
            for key, mode in (("k", "keyword"), ("s", "semantic"), ("h", "hybrid"),
                              ("1", "keyword"), ("2", "semantic"), ("3", "hybrid")):
                await pilot.press(key)
                await wait_for(pilot, lambda: main.shown_key == main.search_key()
                               and results.result.mode == mode, what=mode)
                assert main.mode == mode
                if mode == "keyword":
                    assert all(h.semantic_rank is None for h in results.result.hits)
                    assert "semantic" not in str(app.query_one("#coverage").render())
            # Esc in the results never moves into the search box (the next key would
            # edit the query): keys still act
            query = main.search_key().query
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.focused, HitTable)
            # granularity: whole sections
            await pilot.press("p")
            await wait_for(pilot, lambda: results.result.granularity == "section")
            # section hits fill their section (page hits leave it None), pages inside it
            assert results.result.hits and all(
                h.section is not None and h.section_id is not None
                and h.start_page <= h.page <= h.end_page for h in results.result.hits)
            # a section hit opens that section (by id), wherever its excerpt lies
            await pilot.press("down", "down")
            hit = results.current_hit()
            await pilot.press("enter")
            reader = await reader_ready(pilot, lambda r: r.view.request.kind == "section")
            assert reader.view.section_id == hit.section_id
            await pilot.press("escape")
            assert main.search_key().query == query
    run(go())


def test_reader_pages_sections_and_back(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await search(pilot, "multi-head attention jointly attend")
            table = app.query_one(HitTable)
            await pilot.press("down")
            await pilot.press("up")
            hit = app.query_one(ResultsPane).current_hit()
            await pilot.press("enter")
            reader = await reader_ready(pilot)
            assert app.main_screen.view == "reader" and isinstance(app.focused, ReaderBody)
            v = reader.view
            assert (v.request.doc, v.page) == (hit.doc, hit.page)
            assert v.target is not None  # the hit block is marked and scrolled to
            assert reader.query(".para.-hit")
            assert reader.breadcrumb().startswith(f"p. {hit.page} / {v.pages}")
            page = v.page
            await pilot.press("right")
            await reader_ready(pilot, lambda r: r.view.page == page + 1)
            await pilot.press("left")
            await reader_ready(pilot, lambda r: r.view.page == page)
            # whole section
            await pilot.press("v")
            await reader_ready(pilot, lambda r: r.view.request.kind == "section")
            crumb = reader.breadcrumb()
            assert crumb.startswith("p. ") and " / 15 · " in crumb
            assert "3.2" in crumb and "Attention" in reader.view.section_path
            assert len(crumb) <= reader.size.width   # fitted, innermost title kept
            sid = reader.view.section_id
            await pilot.press("right_square_bracket")
            await reader_ready(pilot, lambda r: r.view.section_id != sid)
            await pilot.press("left_square_bracket")
            await reader_ready(pilot, lambda r: r.view.section_id == sid)
            # PgDn past the end of a section shows the next section, still whole
            for _ in range(60):
                await pilot.press("pagedown")
                await pilot.pause()
                if reader.view.section_id != sid:
                    break
            await reader_ready(pilot, lambda r: r.view.section_id != sid)
            assert reader.view.request.kind == "section"
            await pilot.press("pageup")
            await reader_ready(pilot, lambda r: r.view.section_id == sid)
            assert reader.view.request.kind == "section"
            # ... landing at its end, not somewhere in its middle
            body = reader.query_one(ReaderBody)
            await wait_for(pilot, lambda: body.max_scroll_y > 0
                           and body.scroll_y == body.max_scroll_y, what="end of section")
            await pilot.press("v")
            await reader_ready(pilot, lambda r: r.view.request.kind == "page")
            # go to page
            await pilot.press("g")
            await wait_for(pilot, lambda: isinstance(app.screen, GoToPageScreen))
            await pilot.press("1", "2", "enter")
            await reader_ready(pilot, lambda r: r.view.page == 12)
            # back to the results, where we left them
            row = table.cursor_row
            await pilot.press("escape")
            await pilot.pause()
            assert app.main_screen.view == "results" and isinstance(app.focused, HitTable)
            assert table.cursor_row == row
    run(go())


def test_next_previous_hit(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            data = await search(pilot, "attention")
            table = app.query_one(HitTable)
            await pilot.press("n", "n")
            assert table.cursor_row == 2
            await pilot.press("N")
            assert table.cursor_row == 1
            await pilot.press("enter")
            reader = await reader_ready(pilot)
            in_doc = sorted(h.page for h in data.hits if h.doc == reader.view.request.doc)
            start = reader.view.page
            later = [p for p in in_doc if p > start]
            if later:
                await pilot.press("n")
                await reader_ready(pilot, lambda r: r.view.page == later[0])
                await pilot.press("N")
                await reader_ready(pilot, lambda r: r.view.page == start)
    run(go())


def test_scope_to_one_document_and_clear(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(160, 48)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await search(pilot, "the")
            assert len({h.doc for h in app.query_one(ResultsPane).hits}) > 1
            await pilot.press("shift+tab")  # results -> documents
            lst = app.query_one(DocList)
            await wait_for(pilot, lambda: lst.has_focus, what="document list focus")
            docs = [lst.get_option_at_index(i).id for i in range(lst.option_count)]
            for _ in range(docs.index("texlive-euler.pdf")):
                await pilot.press("down")
            await pilot.press("O")
            await wait_for(pilot, lambda: main.scope == ("texlive-euler.pdf",)
                           and main.shown_key == main.search_key(), what="scoped result")
            data = app.query_one(ResultsPane).result
            assert {h.doc for h in data.hits} == {"texlive-euler.pdf"}
            assert data.coverage.total == 1
            assert "scope" in str(app.query_one("#status").render())
            # space adds a second document
            await pilot.press("up", "space")
            await wait_for(pilot, lambda: len(main.scope) == 2 and
                           main.shown_key == main.search_key())
            await pilot.press("x")
            await wait_for(pilot, lambda: main.scope == () and main.shown_key == main.search_key())
            assert app.query_one(ResultsPane).result.coverage.total == 4
            # x clears the scope from the results pane too
            await pilot.press("O")
            await wait_for(pilot, lambda: len(main.scope) == 1)
            await pilot.press("tab")  # documents -> results
            await wait_for(pilot, lambda: app.query_one(HitTable).has_focus, what="results")
            await pilot.press("x")
            await wait_for(pilot, lambda: main.scope == ())
            await pilot.press("shift+tab")
            await wait_for(pilot, lambda: lst.has_focus, what="document list focus")
            # the filter narrows the list
            await pilot.press("f", *"euler")
            assert lst.option_count == 1
    run(go())


def test_compare_view(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            await search(pilot, "attention heads")
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
            screen = app.screen
            await wait_for(pilot, lambda: len(screen.results) == 3, what="three lists")
            await pilot.pause()
            for mode in ("keyword", "semantic", "hybrid"):
                assert screen.query_one(f"#list-{mode}").row_count > 0
            detail = str(screen.query_one("#compare-detail").render())
            assert "keyword" in detail and "semantic" in detail
            first = screen.focused.id
            await pilot.press("right")  # ← → move between the lists as Tab does
            await pilot.pause()
            assert screen.focused.id != first
            await pilot.press("left")
            await pilot.pause()
            assert screen.focused.id == first
            await pilot.press("tab")  # to another list; the cursor follows in the others
            await pilot.press("down")
            await pilot.pause()
            source = screen.focused.id
            # Enter opens the hit in the reader
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is app.main_screen)
            reader = await reader_ready(pilot)
            opened = (reader.view.request.doc, reader.view.page)
            # Esc from a reader opened in compare goes back to compare, on that hit
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
            back = app.screen
            await wait_for(pilot, lambda: len(back.results) == 3, what="three lists")
            await pilot.pause()
            hit = back._current(back.focused)
            assert back.focused.id == source   # the list it was opened from
            assert hit is not None and (hit.doc, hit.page) == opened
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.main_screen)
            assert app.main_screen.view == "results"
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.main_screen)
    run(go())


def test_markup_in_pdf_is_shown_literally(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            names = [d.doc for d in app.main_screen.folder.documents]
            assert MARKUP_DOC in names
            data = await search(pilot, "zorblax")
            assert data.hits and data.hits[0].doc == MARKUP_DOC
            table = app.query_one(HitTable)
            # the document is named by its title (here the file's stem), brackets as typed
            assert cell_text(table, 0, "doc").startswith("markup-[bold]")
            await pilot.press("k")
            data = await search(pilot, "markup typed shown")
            row = next(i for i, h in enumerate(data.hits) if h.doc == MARKUP_DOC)
            table.move_cursor(row=row)
            await pilot.pause()
            excerpt = str(app.query_one("#excerpt").render())
            assert "[bold]x[/]" in excerpt and "[link=http://x]y" in excerpt
            assert "\x1b" not in excerpt
            await pilot.press("enter")
            reader = await reader_ready(pilot)
            shown = "\n".join(str(p.render()) for p in reader.query(".para"))
            assert "[bold]x[/]" in shown and "[link=http://x]y" in shown and "[/] alone" in shown
            assert "\x1b" not in shown and "red text" in shown
            # the SVG of the screen holds the brackets as typed (nothing was parsed)
            svg = app.export_screenshot()
            assert "[bold]x[/]" in svg.replace("&#160;", " ")
            # the corpus list shows the file name literally
            lst = app.query_one(DocList)
            prompts = [str(lst.get_option_at_index(i).prompt) for i in range(lst.option_count)]
            assert any("[bold]" in p for p in prompts)
    run(go())


def hostile_queries() -> list[str]:
    out = []
    for line in shared_file(TRICKY / "queries" / "hostile_queries.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            out.append(line.split("\t", 1)[0])
    return out


def test_hostile_queries_never_crash(make_app):
    import json

    known = set(hostile_queries())
    hostile = shared_file(TRICKY / "queries" / "hostile_queries.json")
    extra = [q["query"] for q in json.loads(hostile.read_text()) if q["query"] not in known]

    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("k")
            box = app.query_one("#query")
            typed = {"[/]", '"don\'t" AND (', "'; DROP TABLE pages; --", "*", "\\", "-dead",
                     "body:term", "a OR"}
            for q in hostile_queries():
                if q in typed:
                    await search(pilot, q)  # typed key by key
                else:  # not typeable through the pilot: set the box's value
                    box.focus()
                    box.value = q
                    await pilot.press("enter")
                    await pilot.pause(0.05)
                assert app.is_running
            for q in extra:  # the JSON file adds unprintable cases
                box.focus()
                box.value = q
                await pilot.press("enter")
                await pilot.pause(0.02)
            assert extra and app.is_running
            await pilot.press("h")
            await search(pilot, "[/]")
            assert "search failed" not in str(app.query_one("#coverage").render())
            assert app.is_running
    run(go())


def test_narrow_shows_one_pane_wide_shows_three(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            main = app.main_screen
            await settle(pilot)
            panes = {n: app.query_one(f"#{n}") for n in ("corpus", "results", "reader")}
            shown = lambda: {n for n, p in panes.items() if p.display and p.region.width}  # noqa: E731
            assert shown() == {"corpus"}   # the folder first, until a query runs
            await search(pilot, "euler")
            assert shown() == {"results"}
            await pilot.press("tab")  # results -> reader
            await pilot.pause()
            assert shown() == {"reader"}
            await pilot.press("tab", "tab")  # -> the search box -> documents
            await pilot.pause()
            assert shown() == {"corpus"} and app.query_one(DocList).has_focus
            query = main.search_key().query
            # documents -> results -> reader -> box -> documents
            await pilot.press("tab", "tab", "tab", "tab")
            await pilot.pause()
            assert shown() == {"corpus"} and main.search_key().query == query
            await pilot.press("escape")
            await pilot.pause()
            assert shown() == {"results"}
            await pilot.resize_terminal(200, 60)
            await pilot.pause(0.1)
            assert shown() == {"corpus", "results", "reader"}
    run(go())


def test_a_burst_of_tabs_moves_one_pane_per_tab(make_app):
    """Three Tabs read before any refresh (a fast typist, a loaded machine) move three
    panes: each starts from the pane the one before asked for, not from the widget that
    still holds the focus (a fresh CI run landed on the reader instead of the documents)."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await search(pilot, "euler")
            app.main_screen.show_pane("corpus")
            await pilot.pause()
            assert app.query_one(DocList).has_focus
            for _ in range(4):   # no refresh between them (results, reader, box, documents)
                app.action_pane(1)
            assert app.main_screen.current_pane() == "corpus"
            await pilot.pause()
            assert app.query_one(DocList).has_focus and app.main_screen.view == "corpus"
            for _ in range(2):
                app.action_pane(1)
            await pilot.pause()
            assert app.main_screen.current_pane() == "reader" and app.main_screen.view == "reader"
            app.action_pane(1)       # queued, then "/" before the refresh: the box keeps it
            app.action_focus_search()
            await pilot.pause()
            assert app.focused is app.query_one("#query")
    run(go())


def test_help_screen_and_palette(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("escape")  # leave the box, so ? is a key, not a character
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.main_screen)
            await pilot.press("f1")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
            await pilot.press("escape")
            await pilot.press("ctrl+p")
            from textual.command import CommandPalette

            await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
            commands = [c.title for c in app.get_system_commands(app.main_screen)]
            assert "Compare" in commands and "Reader: go to page" in commands
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.main_screen)
            # every binding has an id (a keymap can remap it)
            for cls in (PdftuiApp, CorpusPane, ReaderBody, ResultsPane):
                assert all(b.id for b in cls.BINDINGS)
    run(go())


def test_keymap_remaps_a_binding(make_app):
    async def go():
        app = make_app(keymap={"mode.keyword": "K", "compare": "C"})
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("escape", "k")
            # "k" is no command any more: it does nothing (a hint says so)
            assert app.main_screen.mode == "hybrid" and app.query_one("#query").value == ""
            await pilot.press("escape", "K")
            assert app.main_screen.mode == "keyword"
            # a key the results pane repeats for its footer is remapped there too
            await search(pilot, "euler")
            await wait_for(pilot, lambda: app.query_one(HitTable).has_focus, what="results")
            await pilot.press("c")
            await pilot.pause()
            # no command any more: nothing happens, the query stays
            assert not isinstance(app.screen, CompareScreen)
            assert app.query_one("#query").value == "euler"
            assert app.query_one(HitTable).has_focus
            await pilot.press("C")
            await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
    run(go())


def test_home_and_end_move_to_the_first_and_last_hit(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            data = await search(pilot, "attention")
            table = app.query_one(HitTable)
            await wait_for(pilot, lambda: table.has_focus, what="results")
            assert len(data.hits) > 2 and table.cursor_row == 0
            await pilot.press("end")
            assert table.cursor_row == len(data.hits) - 1
            await pilot.press("home")
            assert table.cursor_row == 0
    run(go())


def test_palette_lists_the_documents_actions_and_quit_once(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            commands = {}
            for c in app.get_system_commands(app.main_screen):
                commands.setdefault(c.title, []).append(c)
            assert len(commands["Quit"]) == 1
            # one "clear scope", not two (the trial's palette listed "Clear scope" and
            # "Documents: clear scope")
            assert [t for t in commands if "clear scope" in t.lower()] == ["Clear scope"]
            assert {"Documents: add / remove from the scope", "Documents: filter the list",
                    "Documents: search only this document"} <= set(commands)
            commands["Documents: filter the list"][0].callback()
            await wait_for(pilot, lambda: app.focused is not None
                           and app.focused.id == "corpus-filter", what="filter box")
            assert app.main_screen.view == "corpus"
    run(go())


def test_keymap_remap_shows_in_help_and_palette(make_app):
    """The help and the palette are made from the action table after the keymap: a remapped
    key is listed as the key that works, the old one is gone."""
    async def go():
        app = make_app(keymap={"mode.keyword": "K", "compare": "C", "reader.goto": "G"})
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("escape", "question_mark")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
            rows = {what: keys for _group, items in app.screen.groups for keys, what in items}
            assert rows["keyword / semantic / hybrid mode"] == "K s h  (1 2 3)"
            assert rows["compare view: keyword, semantic and hybrid lists side by side"] == "C"
            goto = [k for w, k in rows.items() if w.startswith("go to page")]
            assert goto == ["G"]
            assert rows["this help"] == "? / F1"
            await pilot.pause()
            screen = re.sub(r"<[^>]+>", "", app.export_screenshot()).replace("&#160;", " ")
            assert "K s h  (1 2 3)" in screen and "k s h" not in screen
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.main_screen)
            commands = {c.title: c.help for c in app.get_system_commands(app.main_screen)}
            assert commands["Compare"] == "key C" and commands["Reader: go to page"] == "key G"
            assert commands["Semantic"] == "key s"
    run(go())


def test_stale_result_is_never_shown(make_app):
    from pdftui.search.hits import SearchResult
    from pdftui.tui.messages import SearchDone, SearchRequest

    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            data = await search(pilot, "euler")
            app.main_screen.post_message(SearchDone(SearchRequest("zorblax", "hybrid", "page"),
                                                    SearchResult("zorblax", "hybrid", "page",
                                                                 None, 0.0)))
            await pilot.pause(0.1)
            assert app.query_one(ResultsPane).result is data
            # typing fast: only the last query's result lands
            box = app.query_one("#query")
            box.focus()
            box.value = ""
            await pilot.press(*"boson", "backspace", "backspace", "backspace", "backspace",
                              "backspace", *"euler fonts")
            await wait_for(pilot, lambda: app.main_screen.shown_key == app.main_screen.search_key())
            # typing: the unfinished last word is a prefix
            assert app.query_one(ResultsPane).result.query == "euler fonts*"
    run(go())


class _FailingService:
    async def search(self, *a, **kw):
        raise RuntimeError("disk on fire [bold]")


def test_worker_error_becomes_notification(make_app):
    async def go():
        app = make_app(service=_FailingService())
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await search(pilot, "anything")
            assert app.is_running
            assert "search failed" in str(app.query_one("#coverage").render())
            assert any("disk on fire [bold]" in n.message for n in app._notifications)
    run(go())


def test_no_color(make_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")

    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            assert app.no_color
            await settle(pilot)
            await search(pilot, "euler")
            assert app.query_one(ResultsPane).hits
    run(go())


def test_watch_picks_up_new_and_deleted_pdfs(tmp_path, service):
    folder = tmp_path / "watched"
    folder.mkdir()
    make_markup_pdf(folder / "first.pdf")

    async def go():
        app = PdftuiApp(folder, cache_dir=tmp_path / "cache", watch=True, show_timings=False)
        async with app.run_test(size=(80, 24)) as pilot:
            main = app.main_screen
            await wait_for(pilot, lambda: len(main.folder.documents) == 1
                           and not main.folder.indexing, timeout=60, what="first index")
            await pilot.pause(0.3)  # let the watcher start
            shutil.copy(folder / "first.pdf", folder / "second.pdf")
            await wait_for(pilot, lambda: len(main.folder.documents) == 2, timeout=30,
                           what="new PDF picked up")
            (folder / "first.pdf").unlink()
            await wait_for(pilot, lambda: [d.doc for d in main.folder.documents] == ["second.pdf"],
                           timeout=30, what="deleted PDF dropped")
    run(go())


def test_short_doc_keeps_both_ends():
    assert short_doc("arxiv-1706.03762v5-attention-is-all-you-need.pdf", 20) == \
        "arxiv-1…all-you-need"
    assert short_doc("a.pdf", 9) == "a"
    assert len(short_doc("x" * 300 + ".pdf", 12)) == 12


def test_short_section_keeps_the_innermost_titles():
    from pdftui.tui.results_pane import short_section

    assert short_section("3 Model Architecture > 3.2 Attention", 22) == "… > 3.2 Attention"
    assert short_section("3 Model Architecture > 3.2 Attention", 40) == \
        "3 Model Architecture > 3.2 Attention"
    assert len(short_section("A > " + "b" * 50, 12)) == 12
    # the "… > " before the kept titles counts: the innermost title stays whole (it was
    # cut: "… > 3.2 Attention > 3.2.2 Multi-Head Attent…" in 44 columns)
    path = "3 Model Architecture > 3.2 Attention > 3.2.2 Multi-Head Attention"
    for width in range(30, len(path)):
        out = short_section(path, width)
        assert len(out) <= width and out.endswith("3.2.2 Multi-Head Attention"), (width, out)


def test_distinctive_name_drops_leading_ids_only():
    from pdftui.tui.compare_view import distinctive_name as d

    assert d("arxiv-1706.03762v5-attention-is-all-you-need.pdf") == "attention-is-all-you-need"
    assert d("google-2003-file-system.pdf") == "file-system"
    assert d("debian-r-intro.pdf") == "debian-r-intro"
    assert d("sub/raft-2014.pdf") == "raft-2014"
    assert d("2024.pdf") == "2024"


def test_reader_head_names_the_section_at_the_top_of_the_screen(make_app):
    """A page view that holds several sections: scrolling moves the breadcrumb from the
    section the page starts in to the one at the top of the screen."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            reader = await open_first_hit(pilot, "scaled dot-product attention")
            reader.request(ReadRequest(ATTENTION, "page", 3, block=0, scroll="top"))
            await reader_ready(pilot, lambda r: (r.view.request.doc, r.view.page) == (ATTENTION, 3))
            body = app.query_one(ReaderBody)
            await pilot.pause()
            first = reader.view.section_path
            body.scroll_end(animate=False)
            await wait_for(pilot, lambda: reader.view.section_path != first, what="new path")
            assert "3.2" in reader.view.section_path or "3.1" in reader.view.section_path
            assert len(reader.breadcrumb()) <= 80
            # v opens the section the breadcrumb names, not the hit's
            named = reader.view.section_id
            await pilot.press("v")
            await reader_ready(pilot, lambda r: r.view.request.kind == "section")
            assert reader.view.section_id == named
    run(go())


def test_pgdn_pgup_read_on_through_nested_sections(make_app):
    """PgDn at the end of a parent section (which holds its subsections) goes to the next
    section after it, not to its first subsection; PgUp from a first subsection shows the
    parent ending where the subsection begins (the parent's own text on screen)."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            reader = await attention_reader(pilot)
            secs = {s.title: s for s in reader.view.sections}
            model, stacks = secs["3 Model Architecture"], secs["3.1 Encoder and Decoder Stacks"]
            reader.request(ReadRequest(ATTENTION, "section", model.start_page,
                                       section_id=model.id, scroll="bottom"))
            await reader_ready(pilot, lambda r: r.view.section_id == model.id)
            body = reader.query_one(ReaderBody)
            await wait_for(pilot, lambda: body.scroll_y == body.max_scroll_y, what="end")
            await pilot.press("pagedown")
            await reader_ready(pilot, lambda r: r.view.section_id != model.id)
            assert reader.view.section_path.startswith("4 Why Self-Attention")
            reader.request(ReadRequest(ATTENTION, "section", stacks.start_page,
                                       section_id=stacks.id, scroll="top"))
            await reader_ready(pilot, lambda r: r.view.section_id == stacks.id)
            await pilot.pause()
            await pilot.press("pageup")
            await reader_ready(pilot, lambda r: r.view.section_id == model.id)
            await pilot.pause()
            v = reader.view
            assert v.stop is not None and v.paragraphs[v.stop].startswith("3.1")
            paras = list(body.query(".para"))
            # the parent's own text is on screen and the subsection starts just below it
            bottom = body.scroll_y + body.scrollable_content_region.height
            assert paras[v.stop].virtual_region.y >= bottom - 1
            assert paras[v.stop - 1].virtual_region.bottom > body.scroll_y
            assert body.scroll_y < body.max_scroll_y
    run(go())


def test_a_deferred_scroll_of_a_view_no_longer_shown_does_not_move_the_reader(make_app):
    """The cause of the flaky PgDn/PgUp test: each shown view defers its scroll until after
    a refresh, and a deferred scroll of a view replaced in the meantime (on a loaded machine
    the next view is shown first) moved the new view to the old one's place."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            reader = await attention_reader(pilot)
            first = reader.view
            model = {s.title: s for s in first.sections}["3 Model Architecture"]
            reader.request(ReadRequest(ATTENTION, "section", model.start_page,
                                       section_id=model.id, scroll="bottom"))
            await reader_ready(pilot, lambda r: r.view.section_id == model.id)
            body = reader.query_one(ReaderBody)
            await wait_for(pilot, lambda: body.scroll_y == body.max_scroll_y > 0, what="end")
            reader._scroll(first)   # the stale call, as a late refresh would run it
            await pilot.pause()
            await pilot.pause()
            assert body.scroll_y == body.max_scroll_y > 0
    run(go())


def test_long_status_line_ends_in_an_ellipsis_at_80_columns(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            main = app.main_screen
            await settle(pilot)
            main.scope = (ATTENTION, "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf")
            main.update_status()
            await pilot.pause()
            line = app.query_one("#status").render_line(0).text.rstrip()
            # the names are cut, the hint stays on screen
            assert line.endswith("…  (x clears)") and len(line) <= 80, line
    run(go())


def test_document_filter_prefers_word_starts_and_names_twin_titles():
    from types import SimpleNamespace as D

    from pdftui.tui.corpus_pane import filter_documents, title_keys

    docs = [D(doc="papermage-2023-08-draft.pdf", title="PaperMage (draft)"),
            D(doc="usenix-2014-raft.pdf", title="In Search of an Understandable Consensus"),
            D(doc="a/attention-v5.pdf", title="Attention Is All You Need"),
            D(doc="b/attention-v7.pdf", title="Attention Is All You Need")]
    assert [d.doc for d in filter_documents(docs, "RAFT")] == [
        "usenix-2014-raft.pdf", "papermage-2023-08-draft.pdf"]
    assert filter_documents(docs, "") == docs
    docs.insert(0, D(doc="asap.pdf", title="ASAP: Prioritizing Attention via Smoothing"))
    assert filter_documents(docs, "attention")[-1].doc == "asap.pdf"
    names = title_keys(docs)
    assert names["a/attention-v5.pdf"] == "Attention Is All You Need (a/attention-v5)"
    # what tells two versions apart, not their whole file names (cut at 80 columns)
    twins = [D(doc=f"arxiv-1706.03762v{v}-attention-is-all-you-need.pdf",
               title="Attention Is All You Need") for v in (5, 7)]
    assert sorted(title_keys(twins).values()) == [
        "Attention Is All You Need (v5)", "Attention Is All You Need (v7)"]
    assert names["usenix-2014-raft.pdf"] == "In Search of an Understandable Consensus"


def test_coverage_note_has_its_own_line_at_80_columns(make_app):
    """The note "no document holds a query word: semantic hits only" was cut off the end
    of the coverage line at 80 columns, exactly when it matters."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await search(pilot, "zzqxv wqqzz")
            cov = app.query_one("#coverage")
            lines = [cov.render_line(y).text.strip() for y in range(cov.size.height)]
            assert any("semantic hits only" in ln for ln in lines), lines
            # nonsense: the weak banner comes first, then the coverage line
            assert lines[0] == "no strong match: nearest pages", lines
            assert lines[1].startswith("searched ")
    run(go())


def test_v_keeps_the_reading_position_both_ways(make_app):
    """Section view scrolled to a later page, `v` shows that page (with the paragraph
    read on top marked), not the section's first page with a guessed paragraph; `v`
    again returns to the section at that paragraph."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            reader = await attention_reader(pilot)
            sec = next(s for s in reader.view.sections if s.title == "3 Model Architecture")
            reader.request(ReadRequest(ATTENTION, "section", sec.start_page,
                                       section_id=sec.id, scroll="top"))
            await reader_ready(pilot, lambda r: r.view.section_id == sec.id)
            v = reader.view
            assert v.para_pos and len(v.para_pos) == len(v.paragraphs)
            body = reader.query_one(ReaderBody)
            later = next(i for i, (p, _b) in enumerate(v.para_pos) if p > sec.start_page)
            paras = list(body.query(".para"))
            # the section's paragraphs are laid out before the scroll can reach one
            await wait_for(pilot, lambda: paras[later].virtual_region.y > 0
                           and body.max_scroll_y >= paras[later].virtual_region.y,
                           what="paragraphs laid out")
            body.scroll_to(y=paras[later].virtual_region.y, animate=False)
            await wait_for(pilot, lambda: body.top_paragraph() >= later, what="scrolled")
            top = body.top_paragraph()
            page, block = v.para_pos[top]
            assert page > sec.start_page
            await pilot.press("v")
            await reader_ready(pilot, lambda r: r.view.request.kind == "page")
            assert (reader.view.page, reader.view.target) == (page, block)
            await pilot.pause()
            await pilot.press("v")
            await reader_ready(pilot, lambda r: r.view.request.kind == "section")
            assert reader.view.paragraphs[reader.view.target] == v.paragraphs[top]
    run(go())


def test_names_of_two_versions_of_one_paper_stay_apart_in_narrow_columns():
    from pdftui.tui.compare_view import distinctive_name, fit
    from pdftui.tui.render import unique_names

    docs = ["arxiv-1706.03762v5-attention-is-all-you-need.pdf",
            "arxiv-1706.03762v7-attention-is-all-you-need.pdf", "google-2003-file-system.pdf"]
    for width, shorten in ((16, lambda d, w: fit(distinctive_name(d), w)), (12, short_doc)):
        names = unique_names(docs, width, shorten)
        assert len(set(names.values())) == 3 and all(len(n) <= width for n in names.values())
        assert "v5" in names[docs[0]] and "v7" in names[docs[1]]


def test_narrow_compare_lists_name_papers_by_first_author_and_year():
    """In the compare view's 10-column lists a title cut to its first words ("In Search…"
    for every Raft row) told nothing: a paper is named by its first author and year, the
    year shortened before the name is; two versions of one paper by their arXiv version;
    a document without metadata by the telling part of its file name."""
    from types import SimpleNamespace

    from pdftui.tui.compare_view import author_year, fit_label, narrow_names

    raft = SimpleNamespace(authors=("Diego Ongaro", "John Ousterhout"), year=2013)
    assert author_year(raft) == "Ongaro 2013"
    assert author_year(SimpleNamespace(authors=(), year=None)) == ""
    assert author_year(SimpleNamespace(authors=("Leslie Lamport",), year=None)) == "Lamport"
    assert [fit_label("Ongaro 2013", w) for w in (11, 10, 9)] == \
        ["Ongaro 2013", "Ongaro '13", "Onga… '13"]
    raft_pdf = "raft-2014-understandable-consensus-algorithm.pdf"
    v5, v7 = ("arxiv-1706.03762v5-attention-is-all-you-need.pdf",
              "arxiv-1706.03762v7-attention-is-all-you-need.pdf")
    docs = [raft_pdf, v5, v7, "google-2003-file-system.pdf"]
    names = narrow_names(docs, {raft_pdf: "Ongaro 2013", v5: "Vaswani 2017",
                                v7: "Vaswani 2017"}, 10)
    assert names == {raft_pdf: "Ongaro '13", v5: "Vaswani v5", v7: "Vaswani v7",
                     "google-2003-file-system.pdf": "file-syst…"}


def test_bracket_keys_in_page_view_walk_the_sections_in_order(make_app):
    """In a page view `]` jumped to the next section's block, but the header named the
    section at the top of the page (computed before the scroll reached the target) and
    the next `]` started from there: it stalled or went back. Each `]` now moves one
    section on and the header names it; `[` moves one back."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            reader = await attention_reader(pilot)
            secs = reader.view.sections
            i = next(k for k, s in enumerate(secs) if s.title.startswith("3.1 "))
            s = secs[i]
            reader.request(ReadRequest(ATTENTION, "page", s.start_page,
                                       block=s.start_block))
            await reader_ready(pilot, lambda r: r.view.request.kind == "page"
                               and r.view.section_id == s.id)
            for step in range(1, 6):
                await pilot.press("right_square_bracket")
                want = secs[i + step]
                await reader_ready(pilot, lambda r: r.view.section_id == want.id)
                await pilot.pause(0.2)
                assert reader.view.section_id == want.id, (step, reader.breadcrumb())
                assert want.title[:12] in reader.breadcrumb()
            await pilot.press("left_square_bracket")
            await reader_ready(pilot, lambda r: r.view.section_id == secs[i + 4].id)
            await pilot.pause(0.2)
            assert reader.view.section_id == secs[i + 4].id
    run(go())


def test_back_from_the_reader_lands_on_the_hit_reached_with_n(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await search(pilot, "attention")
            results = app.query_one(ResultsPane)
            table = app.query_one(HitTable)
            await wait_for(pilot, lambda: table.has_focus, what="results")
            first = results.current_hit()
            await pilot.press("enter")
            reader = await reader_ready(pilot)
            await pilot.press("n")
            await reader_ready(pilot, lambda r: r.view.page != first.page)
            page = reader.view.page
            await pilot.press("escape")
            await pilot.pause()
            hit = results.current_hit()
            assert (hit.doc, hit.page) == (first.doc, page)
    run(go())


def test_page_steps_and_go_to_show_the_page_top_and_name_its_section(make_app):
    """→ and g land at the top of the page and the header names the section of the
    paragraph on top, not the section of the paragraph that best matches the query."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            reader = await open_first_hit(pilot, "attention")
            body = reader.query_one(ReaderBody)
            sections = reader.view.sections
            for keys in (("right",), ("g", "6", "enter"), ("right",)):
                page = reader.view.page
                await pilot.press(*keys)
                want = 6 if "g" in keys else page + 1
                await reader_ready(pilot, lambda r: r.view.page == want)
                await pilot.pause(0.3)
                assert body.scroll_y == 0
                top = (want, body.top_paragraph())
                # the deepest section holding the top paragraph
                owner = max((s_ for s_ in sections if s_.contains(*top)),
                            key=lambda s_: s_.level, default=None)
                assert owner is not None and reader.view.section_id == owner.id, keys
    run(go())


def test_the_mode_asked_for_shows_while_semantic_loads(make_app):
    """The keyword hits shown while the embedding model loads are titled with the mode
    asked for ("hybrid (semantic loading)"), not "keyword": a restored hybrid looked lost.
    Before any query the reader says what is true (no hit yet to open)."""
    from pdftui.tui.messages import SearchDone
    from pdftui.tui.reader_pane import NOTHING_OPEN

    async def go():
        app = make_app()
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            head = str(app.query_one("#reader-head").render())
            assert "document" in head and "/ searches" in head and "Open a hit" not in head
            data = await search(pilot, "euler")
            assert NOTHING_OPEN.startswith("Nothing open")
            quick = dataclasses.replace(data, mode="keyword")
            app.main_screen.post_message(SearchDone(app.main_screen.search_key(), quick, True))
            results = app.query_one(ResultsPane)
            await wait_for(pilot, lambda: results.result is quick, what="provisional hits")
            assert results.border_title == "Results · hybrid (semantic loading) · page"
    run(go())


def test_highlight_only_the_content_words_of_the_query():
    """The reader and the excerpts highlight the query's content words, not its stopwords
    ("the", "of": the keyword arm's own list), unless the query has nothing else; a quoted
    phrase stays whole."""
    from pdftui.tui.render import terms_pattern

    text = "The architecture of the Transformer follows this overall architecture."
    found = [m.group() for m in terms_pattern("the architecture of transformer")
             .finditer(text)]
    assert found == ["architecture", "Transformer", "architecture"], found
    assert [m.group() for m in terms_pattern("the of").finditer(text)] == \
        ["The", "of", "the"]
    assert [m.group() for m in terms_pattern('"of the Transformer"').finditer(text)] == \
        ["of the Transformer"]


def test_compare_view_explains_the_fusion_and_fills_the_screen(make_app):
    """Issue 15 item 5: at 80x24 and 160x48 the lists hold as many hits as rows fit (not
    10 with empty rows below), the detail shows each arm's rank and share of the hybrid
    score and the weights in force; the results pane's hit detail says the same."""
    async def go(size):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await search(pilot, "attention heads")
            hit = app.query_one(ResultsPane).current_hit()
            excerpt = str(app.query_one("#excerpt").render())
            if hit.arms:
                assert f"#{hit.arms[0].rank} w" in excerpt
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
            screen = app.screen
            await wait_for(pilot, lambda: len(screen.results) == 3, what="three lists")
            await pilot.pause()
            table = screen.query_one("#list-hybrid")
            info = (size, screen.top_k, screen.rows_fit(), table.size.height,
                    table.row_count, len(screen.results["hybrid"].hits))
            assert screen.top_k > 10 if size[1] >= 48 else screen.top_k >= 5, info
            # every row the list has room for holds a hit (when the arms found that many)
            assert table.row_count == min(screen.top_k, len(screen.results["hybrid"].hits))
            lines = screen.row_height()   # 2 at 80 columns: document, then section
            assert table.row_count * lines >= table.size.height - 1 - lines or \
                table.row_count == len(screen.results["hybrid"].hits)
            detail = str(screen.query_one("#compare-detail").render())
            assert "hybrid = Σ w/(60+rank)" in detail
            assert "hybrid: keyword #" in detail or "hybrid: semantic #" in detail
            assert "not in top" not in detail
            await pilot.press("escape")
    run(go((80, 24)))
    run(go((160, 48)))


def test_rank_parts_name_ranks_beyond_the_rows_shown():
    from pdftui.search.hits import Hit
    from pdftui.tui.compare_view import rank_parts

    from pdftui.search.run import Arm, Contribution

    hy = Hit(2, "a.pdf", 1, "1", 0.03, 14, None, "",
             arms=(Contribution(Arm.KEYWORD, 14, 1.0, 1 / 74),))
    assert rank_parts({"keyword": None, "semantic": None, "hybrid": 2}, hy, 10) == [
        "keyword #14 → hybrid #2 ▲12", "semantic: does not rank this page"]
    # a rank that added nothing to the fused score (beyond the lists fused) says so
    beyond = Hit(2, "a.pdf", 1, "1", 0.03, 148, 1, "",
                 arms=(Contribution(Arm.SEMANTIC, 1, 2.0, 2 / 61),))
    assert rank_parts({"keyword": None, "semantic": 1, "hybrid": 2}, beyond, 10) == [
        "keyword #148 (not counted) → hybrid #2 ▲146", "semantic #1 → hybrid #2 ▼1"]
    assert rank_parts({"keyword": 3, "semantic": None, "hybrid": None}, None, 10) == [
        "keyword #3", "semantic: below #10", "hybrid: below #10"]


def test_explain_lines_from_real_search_json():
    from pdftui.search.run import Arm, Contribution, Factor, Weights
    from pdftui.search.hits import Hit
    from pdftui.tui.explain import arms_line, weights_line

    arms = (Contribution(Arm.KEYWORD, 3, 0.25, 0.25 / 63),
            Contribution(Arm.SEMANTIC, 1, 1.5, 1.5 / 61))
    hit = Hit(1, "a.pdf", 1, "1", 0.9 * (0.25 / 63 + 1.5 / 61), 3, 1, "", arms=arms,
              factors=(Factor("reference list", 0.9),))
    assert arms_line(hit) == ("keyword #3 w.25 +.004 · semantic #1 w1.5 +.0246 = .0286"
                              " ×.9 reference list")
    moved = Hit(1, "b.pdf", 2, "2", 1.5 / 61 + 0.5 / 63, None, 1, "",
                arms=(arms[1], Contribution(Arm.HEAD, 3, 0.5, 0.5 / 63)),
                factors=(Factor("both arms' first document", 1.0),))
    assert arms_line(moved) == ("semantic #1 w1.5 +.0246 · byline #3 w.5 +.0079"
                                " = .0325 · both arms' first document")
    assert arms_line(Hit(1, "a.pdf", 1, "1", 0.0, None, None, "")) == ""
    assert arms_line(None) == ""
    line = weights_line(Weights(k=60, keyword=1.0, coverage_power=2.0, semantic=0.2,
                                semantic_confidence=0.1, head=1.0, reference=0.9,
                                few=False))
    assert line == ("hybrid = Σ w/(60+rank): keyword 1 × coverage^2 · semantic .2"
                    " (×.1 confidence) · byline 1 × share² · reference lists ×.9")
    pending = Hit(2, "c.pdf", 4, "4", 1 / 62 + 2 / 62, 2, None, "",
                  arms=(Contribution(Arm.KEYWORD, 2, 1.0, 1 / 62),
                        Contribution(Arm.STAND_IN, 2, 2.0, 2 / 62)))
    assert arms_line(pending) == "keyword #2 w1 +.0161 · keyword for semantic #2 w2 +.0323" \
        " = .0484"
    assert weights_line(Weights(k=60, keyword=1.0, semantic=2.0, stand_in=2.0)) == (
        "hybrid = Σ w/(60+rank): keyword 1 · semantic 2 · keyword for semantic 2 where not"
        " embedded yet")
    assert weights_line(None) == ""


def test_a_new_query_starts_at_its_first_hit(make_app):
    """Fresh-user finding: Down Down, then a new query and Enter opened the third hit of
    the new list (the cursor kept the old row)."""
    from pdftui.tui.results_pane import HitTable, ResultsPane

    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await search(pilot, "attention")
            table = app.query_one(HitTable)
            table.focus()
            await pilot.press("down", "down")
            await pilot.pause()
            assert table.cursor_row == 2
            await pilot.press("slash", *"byzantine generals", "enter")   # "/" selects the old
            await wait_for(pilot, lambda: app.query_one("#query").value == "byzantine generals"
                           and main.shown_key is not None and main.shown_key == main.search_key()
                           and not main.last_typing, what="new results")
            await pilot.pause()
            results = app.query_one(ResultsPane)
            assert table.cursor_row == 0 and results.current_hit() == results.hits[0]
    run(go())


def test_compare_rows_show_each_hits_section(make_app):
    """Fresh-user finding: the compare lists named no sections (the results list does).
    At 80x24 and 160x48 each row holds the section under its document, cut to the column;
    at 240 columns and wider a section column does."""
    from pdftui.tui.results_pane import hit_section, leaf_first

    async def go(size):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await search(pilot, "attention heads")
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
            screen = app.screen
            await wait_for(pilot, lambda: len(screen.results) == 3, what="three lists")
            await pilot.pause()
            table = screen.query_one("#list-hybrid")
            hits = screen.results["hybrid"].hits
            with_section = [h for h in hits if hit_section(h)]
            assert with_section, hits
            cols = [c.key.value for c in table.columns.values()]
            seen = 0
            for i, h in enumerate(hits):
                row = table.get_row_at(i)
                if size[0] < 240:   # stacked: under the document (160: second trial)
                    assert "section" not in cols
                    width = table.columns["doc"].width
                    lines = str(row[1]).split("\n")
                    expect = leaf_first(hit_section(h), width)
                    assert len(lines) == 2 and lines[1] == expect, (lines, expect)
                    assert all(len(line) <= width for line in lines)
                else:
                    width = table.columns["section"].width
                    assert str(row[cols.index("section")]) == leaf_first(hit_section(h),
                                                                        width)
                seen += bool(hit_section(h))
            assert seen == len(with_section)
            await pilot.press("escape")
    run(go((80, 24)))
    run(go((160, 48)))
    run(go((240, 48)))


def test_the_status_says_what_indexing_does_and_clears_when_done(make_app, tui_index):
    """Fresh-user finding: "scanning folder…" stayed ~30 s after the scan (a few ms):
    the run was comparing the PDFs with the cache and checking embeddings, and said
    nothing of it. Each step says what it does; "done" clears the status at once."""
    from pdftui.index import index_folder
    from pdftui.index.report import Progress
    from pdftui.tui.messages import IndexProgress

    folder, cache = tui_index
    phases = []
    index_folder(folder, cache, None, embed=True, progress=lambda p: phases.append(p))
    names = [p.phase for p in phases]
    assert names[:2] == ["scan", "check"] and names[-2:] == ["verify", "done"], names
    assert phases[1].docs_total == 4

    def status(app) -> str:
        return str(app.query_one("#status").render())

    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert "scanning" not in status(app) and "checking" not in status(app)
            app.main_screen.folder.indexing = True
            for p, said in ((Progress("scan"), "scanning folder"),
                            (Progress("check", docs_total=4), "checking 4 PDFs"),
                            (Progress("verify"), "checking embeddings")):
                app.main_screen.post_message(IndexProgress(p))
                await wait_for(pilot, lambda: said in status(app), what=said)
            app.main_screen.post_message(IndexProgress(Progress("done")))
            await wait_for(pilot, lambda: "checking" not in status(app), what="cleared")
            assert "scanning" not in status(app)
            app.main_screen.folder.indexing = False
    run(go())


def test_the_go_to_page_prompt_fits_80_columns(make_app):
    """Fresh-user finding: at 80 columns the ``g`` prompt was cut (one 80-character line
    in a 40-column box). Its lines fit the box, the box the screen, and it says Enter
    jumps, Esc cancels."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            screen = GoToPageScreen(311, 205, "199", labelled=True)
            await app.push_screen(screen)
            await pilot.pause(0.1)
            box = screen.query_one("#goto-box")
            assert box.region.right <= 80 and box.region.x >= 0
            lines = [str(w.render()) for w in screen.query("Label")]
            assert lines[0] == "Go to page 1-311 (now 205 (199)):", lines
            assert "printed label as (34) or xii" in lines[1]
            assert "Enter jumps · Esc cancels" in lines[-1]
            for w in screen.query("Label"):
                text = str(w.render())
                assert "\n" not in text and len(text) <= w.content_region.width, \
                    (text, w.content_region)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.main_screen, what="closed")
    run(go())
