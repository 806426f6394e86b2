"""Findings of a first user's literature-review triage at 80x24 and 160x48 (trial report,
issue 34): the list keeps its selected hit in view, the results columns fit every width,
version tags stay visible, and the reader shows where the user is."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from pdftui.tui.reader_pane import ReaderPane
from pdftui.tui.results_pane import HitTable, ResultsPane

from .conftest import open_first_hit, reader_ready, search, settle, wait_for


def run(coro):
    return asyncio.run(coro)


def row_visible(table: HitTable, row: int) -> bool:
    """Is ``row`` of the table on screen (below the header, above the bottom edge)?"""
    top = round(table.scroll_y)
    height = table.scrollable_content_region.height - table.header_height
    return top <= row < top + height


@pytest.mark.parametrize("granularity", ["page", "section"])
def test_esc_from_the_reader_keeps_the_selected_hit_in_view(make_app, granularity):
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.main_screen.granularity = granularity
            await search(pilot, "attention")
            table = app.query_one(HitTable)
            assert table.row_count >= 14
            for _ in range(12):
                await pilot.press("down")
            await pilot.pause()
            assert table.cursor_row == 12 and row_visible(table, 12)
            await pilot.press("enter")
            await reader_ready(pilot)
            # a mark set in the reader redraws the hidden list (its marks column)
            results = app.query_one(ResultsPane)
            await pilot.press("plus")
            await wait_for(pilot, lambda: results.marks, what="mark shown")
            await pilot.pause(0.2)
            # the folder changed meanwhile: the search runs again, keeping the cursor
            main = app.main_screen
            main.run_search(keep_cursor=True)
            await wait_for(pilot, lambda: main.shown_key == main.search_key(), what="rerun")
            await pilot.pause(0.2)
            await pilot.press("escape")
            await wait_for(pilot, lambda: table.region.height > 0, what="results shown")
            await pilot.pause(0.2)
            assert table.cursor_row == 12
            assert row_visible(table, 12), (table.scroll_y, table.region)
            await pilot.press("down")
            await pilot.pause()
            assert table.cursor_row == 13 and row_visible(table, 13)
    run(go())


def test_the_rank_columns_fit_whole_at_every_width(make_app):
    """80 to 200 columns: the fused rank, kw and sem columns are whole, and no column
    runs under the scrollbar (at 100 columns `sem` was cut to `se`, under it)."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await search(pilot, "attention")
            table = app.query_one(HitTable)
            for width in (80, 90, 99, 100, 104, 110, 120, 130, 149, 150, 160, 180, 200):
                await pilot.resize_terminal(width, 24)
                await pilot.pause(0.1)
                await pilot.press("tab") if not table.region.width else None
                await wait_for(pilot, lambda: table.region.width > 0, what="table shown")
                await pilot.pause(0.1)
                assert table.show_vertical_scrollbar, width
                # no horizontal scrollbar: its thumb was a stray `▏` on the last row
                assert not table.show_horizontal_scrollbar, width
                keys = [str(k.value) for k in table.columns]
                for key in ("rank", "kw", "sem"):
                    assert key in keys, (width, keys)
                cols = list(table.columns.values())
                for col in cols:
                    assert col.content_width >= len(col.label.plain), (width, col.label)
                used = sum(c.get_render_width(table) for c in cols)
                room = table.scrollable_content_region.width
                assert used <= room, (width, used, room, keys)
    run(go())


def _doc(name, title, year=None):
    return SimpleNamespace(doc=name, title=title, pages=10, status="indexed",
                           authors=("Zejiang Shen",), year=year)


def test_version_tags_stay_visible_and_titles_are_cut_first():
    """Documents pane rows keep "(v5)" / "(v7)" whole (both read "Attention Is All You
    Nee…" at 160x48); a results row keeps a readable title before its tags (it read
    "P… papermage-2023-11-revised…" at 80x24), tags oldest first."""
    from pdftui.tui.corpus_pane import doc_columns, doc_row, title_keys
    from pdftui.versions import version_groups

    twins = [_doc(f"arxiv-1706.03762v{v}-attention-is-all-you-need.pdf",
                  "Attention Is All You Need") for v in (5, 7)]
    names = title_keys(twins)
    cols = doc_columns(33, False)   # the 160x48 documents pane
    rows = [doc_row(d, cols, names[d.doc], False, "none").plain for d in twins]
    assert "(v5)" in rows[0] and "(v7)" in rows[1], rows
    assert all("Attention Is" in r for r in rows), rows

    title = ("PaperMage: A Unified Toolkit for Processing, Representing, and "
             "Manipulating Visually-Rich Scientific Documents")
    docs = [_doc("papermage-2023-11-revised.pdf", title, 2023),
            _doc("papermage-2023-08-draft.pdf", title, 2023)]
    pane = ResultsPane()
    pane.set_documents(docs, title_keys(docs), version_groups(docs))
    for width, versions in ((29, ["papermage-2023-11-revised.pdf"]),
                            (29, ["papermage-2023-08-draft.pdf",
                                  "papermage-2023-11-revised.pdf"]), (60, ["papermage-2023-08-draft.pdf"])):
        cell = pane._doc_cell(docs[0].doc, width, versions).plain
        assert len(cell) <= width, cell
        assert cell.startswith("PaperMag"), cell      # never a title of one letter
        if len(versions) == 1 and width >= 29:
            assert cell.endswith(pane.tag(versions[0])), cell
    assert pane.tag("papermage-2023-08-draft.pdf") == "08-draft"


def test_n_in_the_reader_wraps_to_the_first_hit_and_says_so(make_app):
    """At the last hit of the document, n goes to its first hit ("wrapped"); it said "no
    more hits in this document" while the header counted five."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            data = await search(pilot, "attention")
            doc = data.hits[0].doc
            pages = sorted({h.page for h in data.hits if h.doc == doc})
            assert len(pages) >= 3
            last = max((h for h in data.hits if h.doc == doc), key=lambda h: h.page)
            app.main_screen.open_hit(last)
            reader = await reader_ready(pilot, lambda r: r.view.page == last.page)
            await pilot.press("n")
            await reader_ready(pilot, lambda r: r.view.page == pages[0])
            assert any("wrapped to the first hit" in n.message for n in app._notifications)
            await pilot.press("N")
            await reader_ready(pilot, lambda r: r.view.page == pages[-1])
            assert reader.view.request.doc == doc
            # fourth trial: the head said "(5 hits)", never which one is shown
            n = len(reader.hits)
            head = str(reader.query_one("#reader-head").render())
            assert f"hit {n} of {n}" in head, head
            await pilot.press("n")
            await reader_ready(pilot, lambda r: r.view.page == pages[0])
            head = str(reader.query_one("#reader-head").render())
            assert f"hit 1 of {n}" in head, head
    run(go())


def test_tab_to_the_reader_follows_the_selected_hit_of_a_new_search(make_app):
    """A document read before a new search, in none of its hits: Tab to the reader shows
    the selected hit (it showed the stale page, and n said "No hits in this document")."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            reader = await open_first_hit(pilot, "attention")
            old = reader.view.request.doc
            data = await search(pilot, "zorblax")
            assert data.hits[0].doc != old
            await pilot.press("tab")
            await reader_ready(pilot, lambda r: r.view.request.doc == data.hits[0].doc)
            assert reader.hits and app.main_screen.current_pane() == "reader"
            # the same search again (the folder changed): the page read stays
            await pilot.press("down")
            await pilot.pause(0.2)
            page = reader.view.page
            main = app.main_screen
            await pilot.press("shift+tab")   # to the results
            assert main.current_pane() == "results"
            main.run_search(keep_cursor=True)
            await wait_for(pilot, lambda: main.shown_key == main.search_key(), what="rerun")
            await pilot.press("tab")
            await pilot.pause(0.2)
            assert reader.view.page == page and reader.hits
    run(go())


def test_sorting_the_documents_shows_the_new_order_from_its_top(make_app):
    """S: the first row of the new order is selected and on screen (the cursor stayed on
    its document and the list kept its scroll, so the new top was not shown)."""
    from pdftui.tui.corpus_pane import CorpusPane, DocList

    async def go():
        app = make_app()
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            corpus = app.query_one(CorpusPane)
            lst = app.query_one(DocList)
            app.main_screen.show_pane("corpus")
            await pilot.press("end")
            await pilot.pause()
            assert lst.highlighted == lst.option_count - 1
            for _ in range(3):
                await pilot.press("S")
                await pilot.pause()
                assert lst.highlighted == 0, corpus.sort
                assert lst.scroll_y == 0
    run(go())


def test_a_reference_entry_split_by_a_hyphen_is_found_on_its_page():
    """The citing entry on Caduceus p. 11 breaks "Al-" / "berti": its first 40
    characters still find it (its first 80 did not, so the page opened unmarked)."""
    from pdftui.tui.read_view import find_target

    paras = ["References", "Yang, L. Some other paper. 2019.",
             "Zaheer, M., Guruganesh, G., Dubey, K. A., Ainslie, J., Al-",
             "berti, C., Ontanon, S., Pham, P. Big bird. NeurIPS 2020."]
    raw = ("Zaheer, M., Guruganesh, G., Dubey, K. A., Ainslie, J., Alberti, C., Ontanon, "
           "S., Pham, P. Big bird. NeurIPS 2020.")
    assert find_target(paras, raw) == 2
    assert find_target(paras, "nothing like it on this page at all, not a word") is None


def test_notes_come_one_at_a_time_above_the_panes_bottom_border(make_app):
    """At 80x24 a note is one line above the reader's bottom border; a second replaces
    the first (two stacked notes covered the border and six lines of text)."""
    from textual.widgets._toast import Toast

    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await open_first_hit(pilot, "attention")
            app.notify("marked keep: Attention Is All You Need", timeout=5)
            app.notify("copied", timeout=5)
            await wait_for(pilot, lambda: list(app.screen.query(Toast)), what="toast")
            await pilot.pause(0.2)
            toasts = list(app.screen.query(Toast))
            assert len(toasts) == 1 and "copied" in str(toasts[0].render())
            reader = app.query_one(ReaderPane)
            border = reader.region.bottom - 1   # the row of the pane's bottom border
            assert toasts[0].region.height == 1
            assert toasts[0].region.bottom <= border, (toasts[0].region, reader.region)
            app.notify("disk on fire", severity="error", timeout=60)
            app.notify("copied again", timeout=5)
            await pilot.pause(0.2)
            assert len(list(app.screen.query(Toast))) == 2   # the error stays
    run(go())


def test_a_long_section_names_the_page_at_the_top_and_marks_page_breaks(make_app):
    """A section over several pages: the header says which page is at the top ("p. 3 of
    2-6 / 15") as PgDn reads on, and a dim "── p. 3 ──" marks where each page begins (the
    header stayed "p. 2-6 / 15" through every page, nothing marked the breaks)."""
    from pdftui.tui.read_view import ReadRequest
    from pdftui.tui.reader_widgets import ReaderBody

    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            doc = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"
            reader = app.query_one(ReaderPane)
            reader.open_document(doc)
            await reader_ready(pilot)
            sec = next(s for s in reader.view.sections if s.end_page > s.start_page)
            app.main_screen.show_pane("reader")
            reader.request(ReadRequest(doc, "section", sec.start_page, section_id=sec.id,
                                       scroll="top"))
            await reader_ready(pilot, lambda r: r.view.request.kind == "section")
            await pilot.pause(0.2)
            rules = [str(w.render()) for w in app.query(".page-rule")]
            assert f"── p. {sec.start_page + 1} ──" in rules, rules
            head = lambda: str(app.query_one("#reader-head").render())  # noqa: E731
            assert f"p. {sec.start_page} of {sec.start_page}-{sec.end_page}" in head()
            app.query_one(ReaderBody).focus()
            for _ in range(40):
                if f"p. {sec.start_page + 1} of" in head():
                    break
                await pilot.press("pagedown")
                await pilot.pause(0.05)
            assert f"p. {sec.start_page + 1} of {sec.start_page}-{sec.end_page}" in head()
    run(go())


def test_small_dialog_and_detail_glitches(make_app):
    """The export dialog is framed and titled; the documents detail cuts a long file
    name with an ellipsis (trial #15)."""
    from pdftui.tui.corpus_pane import CorpusPane, DocList
    from pdftui.tui.dialogs import ExportScreen

    async def go():
        app = make_app()
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            await search(pilot, "attention")
            app.main_screen.show_pane("corpus")
            corpus = app.query_one(CorpusPane)
            lst = app.query_one(DocList)
            long_one = max(range(lst.option_count), key=lambda i: len(lst.info_at(i).doc))
            lst.highlighted = long_one
            await pilot.pause(0.1)
            detail = app.query_one("#doc-detail")
            lines = str(detail.render()).splitlines()
            name = lst.info_at(long_one).doc
            width = detail.content_region.width
            assert len(name) > width, (name, width)
            assert any(line.startswith(name[:10]) and line.endswith("…") for line in lines), \
                lines
            await pilot.press("escape", "e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen), what="export")
            await pilot.pause(0.1)
            box = app.screen.query_one("#export-box")
            assert box.styles.border_top[0] == "round" and box.border_title == "Export"
            assert box.region.width < app.size.width
            label = lambda f: str(app.screen.query_one(f"#label-export-{f}").render())  # noqa
            await wait_for(pilot, lambda: label("format").startswith("▸"), what="mark")
            assert not label("path").startswith("▸")
            app.screen.query_one("#export-path").focus()
            await wait_for(pilot, lambda: label("path").startswith("▸ File"), what="moved")
            assert label("format") == "  Format"
    run(go())


def test_a_wrapped_contents_entry_keeps_a_hanging_indent(make_app):
    """A contents title longer than the list goes on under its first line, indented (its
    continuation began at the margin, read as a new entry: "about Sparse Attention")."""
    from pdftui.tui.reader_widgets import TocList

    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            reader = app.query_one(ReaderPane)
            reader.open_document("arxiv-1706.03762v5-attention-is-all-you-need.pdf")
            app.main_screen.show_pane("reader")
            await reader_ready(pilot)
            toc = app.query_one(TocList)
            await wait_for(pilot, lambda: toc.region.width > 0, what="contents shown")
            await pilot.pause(0.1)
            lines = [toc.render_line(y).text.rstrip() for y in range(toc.size.height)]
            starts = {reader.view.sections[i].title.split()[0]
                      for i in range(toc.option_count)}
            wrapped = [ln for ln in lines if ln.strip() and ln.split()[0] not in starts]
            assert wrapped, lines                      # some title wraps at this width
            for ln in wrapped:                         # its continuation is indented
                assert ln.startswith("  "), lines
    run(go())


def test_n_in_a_section_view_visits_each_section_hit_once_in_order(make_app):
    """Fifth trial: in section mode n went 4-6, 11, 2 (wrapped), 3-4, 3-4 again, 11,
    never back to the first: it stepped by the page scrolled to and opened pages, not the
    hits' sections. From the hit opened, n visits every section hit of the document
    once, in order, and comes back round to it."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.main_screen.granularity = "section"
            data = await search(pilot, "attention")
            doc = data.hits[0].doc
            mine = [h for h in data.hits if h.doc == doc]
            assert len(mine) >= 3 and all(h.section_id for h in mine)
            app.main_screen.open_hit(data.hits[0])
            reader = await reader_ready(pilot, lambda r: r.view.request.kind == "section")
            seen = [reader.view.request.section_id]
            for _ in range(len(mine)):
                before = reader.view
                await pilot.press("n")
                await reader_ready(pilot, lambda r: r.view is not before)
                seen.append(reader.view.request.section_id)
            order = [h.section_id for h in reader.hits]
            start = order.index(seen[0])
            assert seen == (order[start:] + order[:start] + [seen[0]]), (seen, order)
    run(go())


def test_n_after_p_steps_through_the_section_answer(make_app):
    """Seventh trial: after "p" (sections) with a page open, n / N still stepped through
    the page hits until a section hit was opened again. The same words in another
    granularity hand the reader that answer's hits."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            main = app.main_screen
            data = await search(pilot, "attention")
            app.main_screen.open_hit(data.hits[0])
            reader = await reader_ready(pilot, lambda r: r.view is not None)
            assert reader.hits and all(h.section is None for h in reader.hits)
            main.granularity = "section"
            await wait_for(pilot, lambda: main.shown_key is not None
                           and main.shown_key.granularity == "section", what="sections")
            await wait_for(pilot, lambda: reader.hits and all(
                h.section is not None for h in reader.hits), what="the section hits")
    run(go())
