"""The folder first, the table of contents, and result lists people can read."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from pdftui.tui.corpus_pane import (CorpusPane, DocList, doc_columns, sort_documents,
                                    title_keys)
from pdftui.search.hits import Hit, SearchResult
from pdftui.tui.hit_rows import flat_rows, grouped_rows
from pdftui.versions import version_groups
from pdftui.document import innermost
from pdftui.tui.read_view import ReadRequest, load_view
from pdftui.tui.reader_pane import ReaderPane
from pdftui.tui.reader_widgets import ReaderBody, TocList
from pdftui.tui.results_pane import HitTable, ResultsPane, leaf_first

from .conftest import reader_ready, search, settle, wait_for

ATTENTION = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"


def run(coro):
    return asyncio.run(coro)


def cell(table, row: int, key: str) -> str:
    value = table.get_cell_at((row, list(table.columns).index(key)))
    return getattr(value, "plain", str(value))


def test_the_folder_comes_first_at_every_size(make_app):
    async def go():
        for size in ((80, 24), (120, 36), (160, 48)):
            app = make_app()
            async with app.run_test(size=size) as pilot:
                await settle(pilot)
                corpus, results = app.query_one(CorpusPane), app.query_one(ResultsPane)
                assert corpus.display and corpus.region.width > 60, size
                assert not (results.display and results.region.width), size
                lst = app.query_one(DocList)
                prompts = [lst.get_option_at_index(i).prompt.plain
                           for i in range(lst.option_count)]
                assert any("Attention Is All You Need" in p and "15 p" in p for p in prompts)
                head = app.query_one("#doc-head").render()
                assert "title" in str(head) and "pages" in str(head)
                # a query brings the results in; emptying the box brings the folder back
                await search(pilot, "attention")
                assert results.display and results.region.width
                box = app.query_one("#query")
                box.focus()
                box.value = ""
                await wait_for(pilot, lambda: app.main_screen.folder_first, what="folder again")
                # quitting with the box empty: the next visit (same data dir) starts with
                # the folder again, not with the last query run
                await pilot.press("ctrl+q")
    run(go())


def test_enter_on_a_document_opens_page_1_with_a_browsable_contents(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            reader, toc = await open_from_documents(pilot, ATTENTION)
            assert reader.view.page == 1 and reader.view.request.doc == ATTENTION
            assert toc.option_count == len(reader.view.sections) > 5
            titles = [toc.get_option_at_index(i).prompt.plain for i in range(toc.option_count)]
            assert any("3.2 Attention" in t or "Attention" in t for t in titles)
            # ↓ and Enter read the section picked
            target = next(i for i, s in enumerate(reader.view.sections)
                          if s.start_page > 2)
            for _ in range(target):
                await pilot.press("down")
            await pilot.press("enter")
            sec = reader.view.sections[target]
            await wait_for(pilot, lambda: reader.view.page == sec.start_page
                           and app.query_one(ReaderBody).has_focus, what="section read")
            # ] moves on and the contents follow; t goes back into them
            await pilot.press("right_square_bracket")
            await wait_for(pilot, lambda: reader.view.section_id == reader.view.sections[
                target + 1].id, what="next section")
            await pilot.pause(0.1)
            assert toc.highlighted == target + 1
            await pilot.press("t")   # shown but not focused: t hides them (as the help says)
            await wait_for(pilot, lambda: not toc.has_class("-shown"), what="hidden")
            await pilot.press("t")
            await wait_for(pilot, lambda: toc.has_focus, what="contents focused")
            await pilot.press("t")   # hides them again
            await wait_for(pilot, lambda: not toc.has_class("-shown")
                           and app.query_one(ReaderBody).has_focus)
    run(go())


def test_results_name_documents_by_title_and_sections_leaf_first(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            data = await search(pilot, "multi-head attention")
            table = app.query_one(HitTable)
            row = next(i for i, h in enumerate(data.hits) if h.doc == ATTENTION)
            assert cell(table, row, "doc").startswith("Attention Is All")
            nested = next(i for i, h in enumerate(data.hits)
                          if h.section_path.count(" > ") >= 1)
            leaf = data.hits[nested].section_path.split(" > ")[-1]
            assert cell(table, nested, "section").startswith(leaf[:8])
            # Home / End
            await pilot.press("end")
            assert table.cursor_row == table.row_count - 1
            await pilot.press("home")
            assert table.cursor_row == 0
    run(go())


def test_columns_follow_the_pane_width(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            await search(pilot, "attention")
            results = app.query_one(ResultsPane)
            table = app.query_one(HitTable)
            width = lambda: next(c.width for k, c in table.columns.items()  # noqa: E731
                                 if k.value == "doc")
            narrow = width()
            results.styles.width = 140      # as when the pane is widened (maximized)
            await wait_for(pilot, lambda: results.size.width >= 130, what="wider pane")
            await pilot.pause(0.1)
            assert width() > narrow + 20
    run(go())


def test_group_by_document_and_more_hits(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            main = app.main_screen
            await settle(pilot)
            data = await search(pilot, "the")
            assert len(data.hits) == 20
            results = app.query_one(ResultsPane)
            table = app.query_one(HitTable)
            await pilot.press("d")
            assert results.grouped
            docs = [r for r in results._rows if r.kind == "doc"]
            assert len(docs) == len({h.doc for h in data.hits})
            first = results._rows[0]
            assert first.kind == "doc" and first.hidden == first.count - 3
            await pilot.press("home", "enter")     # all the hits of the first document
            assert results._rows[0].hidden == 0
            assert sum(1 for r in results._rows if r.kind == "hit") > 3
            # n skips over document rows, Enter on a hit row opens it
            await pilot.press("n")
            assert results.current_row().kind == "hit"
            await pilot.press("d")
            assert not results.grouped and table.row_count == 20
            # m: twenty more
            await pilot.press("m")
            await wait_for(pilot, lambda: len(results.hits) > 20
                           and main.shown_key == main.search_key(), what="more hits")
            assert len(results.hits) <= 40 and table.row_count == len(results.hits)
    run(go())


def make_hit(doc: str, page: int, rank: int) -> Hit:
    """A page hit of ``doc`` at ``page`` ranked ``rank`` (no arm evidence, no excerpt)."""
    return Hit(rank, doc, page, str(page), 1.0 / (60 + rank), None, None, "")


def doc(name, title, **kw):
    return SimpleNamespace(doc=name, title=title, pages=10, status="indexed",
                           authors=kw.get("authors", ()), year=kw.get("year"))


def test_versions_of_one_paper_share_a_row():
    docs = [doc("arxiv-1706.03762v5-attention.pdf", "Attention Is All You Need"),
            doc("arxiv-1706.03762v7-attention.pdf", "Attention Is All You Need"),
            doc("other.pdf", "Something else entirely")]
    groups = version_groups(docs)
    assert groups["arxiv-1706.03762v5-attention.pdf"][1] == "v5"
    assert groups["arxiv-1706.03762v7-attention.pdf"][1] == "v7"
    assert "other.pdf" not in groups
    hits = [make_hit("arxiv-1706.03762v7-attention.pdf", 3, 1),
            make_hit("arxiv-1706.03762v5-attention.pdf", 3, 2),
            make_hit("other.pdf", 1, 3),
            make_hit("arxiv-1706.03762v5-attention.pdf", 9, 4)]
    rows = flat_rows(hits, groups)
    assert [r.hit for r in rows] == [0, 2, 3]
    # oldest first everywhere; a row of one version names it too
    assert rows[0].versions == ["v5", "v7"] and rows[1].versions == []
    assert rows[2].versions == ["v5"]
    grouped = grouped_rows(hits, groups, expanded=set())
    assert [(r.kind, r.hit) for r in grouped] == [("doc", 0), ("hit", 0), ("hit", 3),
                                                   ("doc", 2), ("hit", 2)]
    assert grouped[0].versions == ["v5", "v7"]
    # same title, no arXiv id in the names: still one paper
    twins = version_groups([doc("a.pdf", "A Long Enough Title Here"),
                            doc("b.pdf", "A long enough title here")])
    assert set(twins) == {"a.pdf", "b.pdf"}


def test_version_of_reads_new_and_old_arxiv_names():
    """The paper key and version of a file name (a quick look for "NNNNNNNvN" /
    "NNNN.NNNNNvN" comes before the full pattern: the same answers, 20x faster)."""
    from pdftui.versions import version_of

    assert version_of("lib/arxiv-1706.03762v5-attention.pdf") == ("1706.03762", "v5")
    assert version_of("2101.00001V12.pdf") == ("2101.00001", "v12")
    assert version_of("quant-ph-9508027v2.pdf") == ("quant-ph-9508027", "v2")
    assert version_of("x/hep-th/9901001v3.pdf") == ("", "")   # the name is "9901001v3.pdf"
    for name in ("attention.pdf", "1706.03762.pdf", "v5-1706.pdf", "9508027-v2.pdf",
                 "copy000/aiopen-2020-gnn-review-of-methods-and-applications.pdf"):
        assert version_of(name) == ("", ""), name


def test_leaf_first_and_document_columns_and_sorts():
    assert leaf_first("3 Model Architecture > 3.2 Attention", 60) == \
        "3.2 Attention < 3 Model Architecture"
    assert leaf_first("3 Model Architecture > 3.2 Attention", 16) == "3.2 Attention <…"
    names = [c for c, _ in doc_columns(34, False)]
    assert names == ["scope", "mark", "title"]
    wide = dict(doc_columns(120, False))
    assert {"authors", "year", "pages", "status"} <= set(wide)
    assert sum(wide.values()) <= 120 and wide["title"] >= 40
    docs = [doc("b.pdf", "Beta", authors=("Ann Zed",), year=2001),
            doc("a.pdf", "Alpha", authors=("Bob Young",), year=2019),
            doc("c.pdf", "Gamma")]
    names = title_keys(docs)
    marks = {"c.pdf": "keep", "a.pdf": "skip"}
    assert [d.doc for d in sort_documents(docs, "title", names, marks)] == \
        ["a.pdf", "b.pdf", "c.pdf"]
    assert [d.doc for d in sort_documents(docs, "author", names, marks)] == \
        ["a.pdf", "b.pdf", "c.pdf"]   # Young, Zed, then no author
    assert [d.doc for d in sort_documents(docs, "year", names, marks)] == \
        ["a.pdf", "b.pdf", "c.pdf"]   # newest first, unknown last
    assert [d.doc for d in sort_documents(docs, "mark", names, marks)] == \
        ["c.pdf", "b.pdf", "a.pdf"]   # keep, unmarked, skip


def test_the_scope_line_names_titles_and_keeps_its_hint_at_80_columns(make_app):
    """Scoped to documents, the status line names them by title, cut so "(x clears)"
    stays on an 80-column screen (file names pushed it off)."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("escape")
            lst = app.query_one(DocList)
            await wait_for(pilot, lambda: lst.has_focus, what="documents")
            docs = [lst.get_option_at_index(i).id for i in range(lst.option_count)]
            for _ in range(docs.index(ATTENTION)):
                await pilot.press("down")
            await pilot.press("O")
            await wait_for(pilot, lambda: app.main_screen.scope == (ATTENTION,), what="scope")
            line = str(app.query_one("#status").render())
            assert "scope: Attention Is All You Need  (x clears)" in line
            for _ in range(2):
                await pilot.press("up", "space")
            await wait_for(pilot, lambda: len(app.main_screen.scope) == 3, what="three in scope")
            line = str(app.query_one("#status").render()).rstrip()
            assert line.endswith("+1  (x clears)") and len(line) <= 78, line
    run(go())


async def open_from_documents(pilot, doc: str) -> tuple[ReaderPane, TocList]:
    """Enter on ``doc`` in the documents pane; waits for the reader with its contents
    focused."""
    app = pilot.app
    await pilot.press("escape")      # leave the box: the documents list
    lst = app.query_one(DocList)
    await wait_for(pilot, lambda: lst.has_focus, what="documents")
    docs = [lst.get_option_at_index(i).id for i in range(lst.option_count)]
    for _ in range(docs.index(doc)):
        await pilot.press("down")
    await pilot.press("enter")
    reader, toc = app.query_one(ReaderPane), app.query_one(TocList)
    await wait_for(pilot, lambda: reader.view is not None and toc.has_focus,
                   what="reader with its contents")
    return reader, toc


def test_reader_keys_in_the_contents_are_reader_commands(make_app):
    """In the contents list the reader's keys act on the reader (they fell into the search
    box and ran a query: "i"), ``t`` hides the list whether it has the focus or not, and
    Enter reads the whole section (the section view, not only its page)."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            reader, toc = await open_from_documents(pilot, ATTENTION)
            box = app.query_one("#query")
            await pilot.press("right")                     # next page
            await wait_for(pilot, lambda: reader.view.page == 2, what="page 2")
            await pilot.press("i")                         # the page image
            await wait_for(pilot, lambda: reader.has_class("-image"), what="image")
            assert box.value == "" and not box.has_focus and app.main_screen.shown_key is None
            await pilot.press("i")                         # back to the text
            await wait_for(pilot, lambda: not reader.has_class("-image"))
            # t with the list shown but not focused hides it; t again shows and focuses it
            assert toc.has_class("-shown") and not toc.has_focus
            await pilot.press("t")
            await wait_for(pilot, lambda: not toc.has_class("-shown"), what="hidden")
            await pilot.press("t")
            await wait_for(pilot, lambda: toc.has_focus, what="contents again")
            await pilot.press("v")                         # the whole section
            await wait_for(pilot, lambda: reader.view.request.kind == "section",
                           what="section view")
            await pilot.press("right_square_bracket", "g")
            await wait_for(pilot, lambda: len(app.screen_stack) > 1, what="go-to box")
            await pilot.press("escape")
            assert box.value == "" and app.main_screen.shown_key is None
            # Enter on an entry reads that section whole
            if not toc.has_focus:
                await pilot.press("t", "t")
                await wait_for(pilot, lambda: toc.has_focus, what="contents")
            target = next(i for i, s in enumerate(reader.view.sections)
                          if s.start_page > 3)
            toc.highlighted = target
            await pilot.press("enter")
            sec = reader.view.sections[target]
            await wait_for(pilot, lambda: reader.view.section_id == sec.id
                           and reader.view.request.kind == "section"
                           and app.query_one(ReaderBody).has_focus, what="section read")
            assert reader.view.start_page == sec.start_page
            await pilot.press("t")
            await wait_for(pilot, lambda: not toc.has_class("-shown"), what="hidden")
            assert box.value == ""
    run(go())


def test_the_contents_follow_the_reader_and_stay_with_their_document(make_app):
    """At 80x24 the contents list scrolls to the section read and highlights it; opening
    a hit of another document does not keep the list of the first one open."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            reader, toc = await open_from_documents(pilot, ATTENTION)
            last = len(reader.view.sections) - 1
            await pilot.press("escape")                    # to the text; list shown
            for _ in range(last):
                await pilot.press("right_square_bracket")
            await wait_for(pilot, lambda: reader.view.section_id
                           == reader.view.sections[last].id, what="last section")

            def last_in_sight() -> bool:   # the list scrolls after its next refresh
                top = toc.scroll_offset.y
                # the lines of the last entry (a wrapped entry takes more than one)
                rows = [y for y, (i, _) in enumerate(toc._lines) if i == last]
                return 0 < top and bool(rows) and top <= rows[0] \
                    and rows[-1] < top + toc.scrollable_content_region.height

            await wait_for(pilot, last_in_sight, what="the last entry scrolled into sight")
            assert toc.highlighted == last
            # a hit in another document: its text, without the old document's contents
            data = await search(pilot, "ultralight bosonic dark matter")
            hit = next(i for i, h in enumerate(data.hits) if h.doc != ATTENTION)
            table = app.query_one(HitTable)
            table.move_cursor(row=hit)
            await pilot.press("enter")
            await reader_ready(pilot, lambda r: r.view.request.doc != ATTENTION)
            assert not toc.has_class("-shown") and not reader.toc_shown
    run(go())


def test_a_step_shown_but_not_yet_scrolled_names_its_own_section(make_app):
    """A ``]`` step's page, shown and not yet scrolled to its section, names that section
    (5.2 on page 7), not the one at the top of the page (4, which the body's old scroll
    position pointed at): under load a ``]`` read in that moment counted from 4, and
    twenty-three presses stopped at 6.1."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            reader, _toc = await open_from_documents(pilot, ATTENTION)
            sec = next(s for s in reader.view.sections if s.path.endswith("5.2 Hardware"
                                                                          " and Schedule"))
            top = innermost(reader.view.sections, sec.start_page, 0)
            assert top is not None and top.id != sec.id   # the page starts in another
            req = ReadRequest(ATTENTION, "page", sec.start_page, block=sec.start_block)
            view = await asyncio.to_thread(reader.gate.run,
                                           lambda lib: load_view(lib, req, None))
            await reader._show_view(view)   # what Loaded runs; its scroll is deferred
            reader.follow_scroll()          # what a scroll event in between runs
            assert reader.view.section_id == sec.id
            await wait_for(pilot, lambda: reader._landed is view, what="placed")
            assert reader.view.section_id == sec.id
    run(go())


def test_folded_versions_leave_no_gap_in_the_ranks_and_more_is_not_a_mark(make_app):
    """Two versions of one paper folded into one row: the ranks shown run 1 2 3 (they
    read 1 3 4); the grouped view says "▸N more" for hits not listed, never "+N" (the
    keep mark's glyph)."""
    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            results = app.query_one(ResultsPane)
            docs = [doc("arxiv-1706.03762v5-attention.pdf", "Attention Is All You Need"),
                    doc("arxiv-1706.03762v7-attention.pdf", "Attention Is All You Need"),
                    doc("other.pdf", "Something else entirely")]
            results.set_documents(docs, {d.doc: d.title for d in docs})
            hits = [make_hit(docs[1].doc, 3, 1), make_hit(docs[0].doc, 3, 2),
                    make_hit(docs[2].doc, 1, 3), make_hit(docs[0].doc, 9, 4)]
            hits += [make_hit(docs[2].doc, p, 4 + p) for p in range(2, 7)]
            results.set_result(SearchResult("attention", "hybrid", "page", None, 0.0, hits))
            await pilot.pause()
            table = app.query_one(HitTable)
            ranks = [cell(table, r, "rank") for r in range(table.row_count)]
            assert ranks == [str(n) for n in range(1, len(ranks) + 1)], ranks
            # the count above the list says why it shows one row less than its hits
            cov = str(app.query_one("#coverage").render())
            assert f"{len(hits)} hits" in cov and f"({table.row_count} rows: versions" in cov
            assert table.row_count == len(hits) - 1
            table.move_cursor(row=2)
            await pilot.pause()
            assert str(app.query_one("#excerpt").render()).startswith("#3 ")
            results.action_group()
            await pilot.pause()
            docs_cells = [cell(table, r, "doc") for r in range(table.row_count)
                          if results._rows[r].kind == "doc"]
            other = next(c for c in docs_cells if c.startswith("Something"))
            assert "▸3 more" in other and "+" not in other, other
    run(go())


def test_a_heading_stands_on_its_own_line_above_its_paragraph(tmp_path):
    """The GFS paper's blocks hold a heading and its first sentence as one ("2.5 Chunk
    Size Chunk size is ..."): the reader shows the heading on a line of its own, in the
    page view and in the section view."""
    from pdftui.index import index_folder
    from pdftui.tui.app import PdftuiApp
    from pdftui.tui.read_view import ReadRequest

    from ..conftest import copy_docs

    gfs = "google-2003-file-system.pdf"
    folder = copy_docs(tmp_path / "papers", [gfs])
    index_folder(folder, tmp_path / "cache", None, embed=False)

    def shown(reader) -> list[str]:
        return [str(w.render()) for w in reader.query_one(ReaderBody).query(".para")]

    async def go():
        app = PdftuiApp(folder, cache_dir=tmp_path / "cache", index=False, watch=False,
                        show_timings=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.main_screen.folder.documents, what="documents")
            reader = app.query_one(ReaderPane)
            reader.request(ReadRequest(gfs, "page", 3, scroll="top"))
            await reader_ready(pilot, lambda r: r.view.page == 3)
            paras = shown(reader)
            chunk = next(p for p in paras if p.startswith("2.5 Chunk Size"))
            assert chunk.startswith("2.5 Chunk Size\nChunk size is"), chunk[:60]
            sec = next(s for s in reader.view.sections if s.title == "2.5 Chunk Size")
            reader.request(ReadRequest(gfs, "section", 3, section_id=sec.id, scroll="top"))
            await reader_ready(pilot, lambda r: r.view.request.kind == "section")
            assert shown(reader)[0].startswith("2.5 Chunk Size\nChunk size is")
            # a clip takes the paragraph as shown (fresh-user finding: a clip read
            # "7 Log compaction In a practical system ...")
            _doc, text, _page, _section = reader.current_paragraph()
            assert text.startswith("2.5 Chunk Size\nChunk size is"), text[:60]
    run(go())


def test_the_reader_speaks_page_labels_and_g_takes_one(tmp_path):
    """Fresh-user finding: results show "38 (34)" but the reader's section header, its
    contents and ``g`` spoke physical pages only."""
    from pdftui.index import index_folder
    from pdftui.tui.app import PdftuiApp

    from ..pdfs import make_orchards

    folder, cache = tmp_path / "papers", tmp_path / "cache"
    folder.mkdir()
    make_orchards(folder / "orchards.pdf")   # labels i, 1, 2
    index_folder(folder, cache, embed=False)

    async def go():
        app = PdftuiApp(folder, cache_dir=cache, index=False, watch=False,
                        show_timings=False, debounce=0.05)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            reader, toc = await open_from_documents(pilot, "orchards.pdf")
            prompts = [toc.get_option_at_index(i).prompt.plain for i in range(toc.option_count)]
            assert any(p.endswith("2 (1)") for p in prompts), prompts
            await pilot.press("escape")   # the contents: back to the text
            await wait_for(pilot, lambda: app.query_one(ReaderBody).has_focus, what="text")

            async def goto(text: str) -> None:
                await pilot.press("g")
                await wait_for(pilot, lambda: app.screen is not app.main_screen, what="g")
                await pilot.press(*text, "enter")
                await wait_for(pilot, lambda: app.screen is app.main_screen, what="jump")

            await goto("(2)")
            await wait_for(pilot, lambda: reader.view.page == 3, what="label (2): page 3")
            assert reader.breadcrumb().startswith("p. 3 (2) / 3")
            await goto("i")
            await wait_for(pilot, lambda: reader.view.page == 1, what="label i: page 1")
            await goto("2")
            await wait_for(pilot, lambda: reader.view.page == 2, what="number 2")
            await goto("xii")
            await pilot.pause(0.2)
            assert reader.view.page == 2
            assert any("no page 'xii'" in n.message for n in app._notifications)
            await pilot.press("v")   # the whole section: its header speaks labels too
            await wait_for(pilot, lambda: reader.view.request.kind == "section",
                           what="section view")
            assert reader.breadcrumb().startswith("p. 2 (1)"), reader.breadcrumb()
    run(go())


def test_the_reader_keeps_preformatted_blocks_as_lines(tmp_path):
    """Fresh-user finding: the reader reflowed a syntax summary and a table (gnuplot,
    GFS Table 1) into paragraphs. The page's lines are read again from the PDF for the
    blocks that look preformatted; prose stays one paragraph."""
    from pdftui.index import index_folder
    from pdftui.tui.app import PdftuiApp

    from ..pdfs import make_syntax

    folder, cache = tmp_path / "papers", tmp_path / "cache"
    folder.mkdir()
    make_syntax(folder / "syntax.pdf")
    index_folder(folder, cache, embed=False)

    def shown(app) -> list[str]:
        return [str(w.render()) for w in app.query_one(ReaderBody).query(".para")]

    async def go():
        app = PdftuiApp(folder, cache_dir=cache, index=False, watch=False,
                        show_timings=False, debounce=0.05)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            reader, _toc = await open_from_documents(pilot, "syntax.pdf")
            await wait_for(pilot, lambda: len(shown(app)) >= 3, what="page 1")
            paras = shown(app)
            code = next(p for p in paras if p.startswith("plot {"))
            assert code.splitlines() == [
                'plot {<ranges>} <function> {title "<text>"} {with <style>}',
                "set xrange [<min>:<max>]", "set logscale {x|y|xy}",
                "fit <function> '<datafile>' using <cols> via <params>"]
            prose = next(p for p in paras if p.startswith("The plot command"))
            assert "\n" not in prose
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.query_one(ReaderBody).has_focus, what="text")
            await pilot.press("right")
            await wait_for(pilot, lambda: reader.view.page == 2, what="page 2")
            await pilot.pause(0.2)
            table = next(p for p in shown(app) if p.startswith("Chunk size"))
            rows = table.splitlines()
            assert len(rows) == 4 and rows[3].split() == ["64", "MB", "240", "955"]
            # the columns line up: each row's second column starts where "Files" does
            col = rows[0].index("Files")
            assert all(r[col - 1] == " " and r[col] != " " for r in rows[1:]), rows
    run(go())


def test_an_excerpt_that_runs_into_the_next_paragraph_targets_the_one_it_starts_in():
    """Fresh-user finding (gnuplot manual p. 167, "gnuplot set logscale"): the hit's
    excerpt ends the Logscale section and runs on into "Macros"; no paragraph held its
    opening, so the reader marked the paragraph with the most query words (Loadpath,
    at the top of the page) and the answer was a screen further down."""
    from pdftui.tui.read_view import find_target
    from pdftui.tui.render import terms_pattern

    paragraphs = ["Loadpath",
                  "If the environment variable GNUPLOT LIB is set, its contents are appended "
                  "to the loadpath. gnuplot set loadpath: set gnuplot set path",
                  "Logscale", "Syntax: set logscale <axes> {<base>}",
                  "To enable z and color axis log scaling for a pm3d plot: set logscale zcb "
                  "To disable z axis log scaling: unset logscale z",
                  "Macros", "In this version of gnuplot macro substitution is always enabled."]
    excerpt = ("set logscale zcb To disable z axis log scaling: unset logscale z Macros In "
               "this version of gnuplot macro substitution is always enabled.")
    assert find_target(paragraphs, excerpt, terms_pattern("gnuplot set logscale")) == 4
    assert find_target(paragraphs, "Syntax: set logscale <axes>") == 3    # a start
    assert find_target(paragraphs, "nothing of the kind") is None


def test_document_rows_fit_the_list_at_80_columns(make_app):
    """Fresh-user finding: at 80x24 the pages column read ``25…``, ``311…``: the columns
    were sized from the pane's width, not the list's (borders, padding, scrollbar; the
    105-document list has a scrollbar at 24 rows, the test folder's at 14)."""
    import re

    async def go():
        app = make_app()
        async with app.run_test(size=(80, 14)) as pilot:   # more rows than fit: a scrollbar
            await settle(pilot)
            await pilot.pause(0.2)
            lst = app.query_one(DocList)
            assert lst.show_vertical_scrollbar
            width = lst.scrollable_content_region.width
            rows = [lst.get_option_at_index(i).prompt.plain for i in range(lst.option_count)]
            assert rows and all(len(r.rstrip()) <= width for r in rows), (width, rows[:3])
            screen = re.sub(r"<[^>]+>", "", app.export_screenshot()).replace("&#160;", " ")
            assert re.search(r"\b\d+ p\b", screen) and not re.search(r"\b\d+…", screen)
    asyncio.run(go())


def test_a_long_document_list_is_virtual_and_keeps_every_key(make_app, monkeypatch):
    """Thousands of documents: the list holds them all at once but makes only the rows on
    screen (a virtual list: 10,000 documents paint as fast as 40); ↑ ↓ wrap, PgDn / PgUp
    move a screen, End scrolls to the last document and Enter opens it, Home returns;
    the filter narrows the list (best match first), Space and O scope, a click opens the
    row; a newer list replaces an older one whole."""
    from pdftui.library import DocumentInfo
    from pdftui.tui import corpus_pane

    made: list[str] = []
    doc_row = corpus_pane.doc_row

    def counting_row(info, *args):
        made.append(info.doc)
        return doc_row(info, *args)

    monkeypatch.setattr(corpus_pane, "doc_row", counting_row)

    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            pane = app.query_one(CorpusPane)
            lst = pane.query_one(DocList)
            real = next(d for d in app.main_screen.folder.documents if d.doc == ATTENTION)
            many = [DocumentInfo(f"lib/paper-{i:05d}.pdf", f"Paper number {i}", 10, "indexed")
                    for i in range(2500)] + [real]
            made.clear()
            pane.set_documents(many)
            await pilot.press("escape")           # the box -> the documents list
            await wait_for(pilot, lambda: lst.has_focus, what="documents")
            await pilot.pause(0.1)
            assert lst.option_count == len(many) and lst.highlighted == 0
            assert lst.get_option_at_index(1999).id == many[1999].doc
            height = lst.scrollable_content_region.height
            assert 0 < len(set(made)) <= 2 * height + 2, len(set(made))   # no row per doc
            # keys: down, up wraps to the last, PgDn / PgUp, Home, End
            await pilot.press("down", "down")
            assert lst.highlighted == 2
            await pilot.press("home", "up")
            assert lst.highlighted == len(many) - 1 and lst.scroll_offset.y > 2000
            await pilot.press("down")
            assert lst.highlighted == 0 and lst.scroll_offset.y == 0
            await pilot.press("pagedown")
            assert lst.highlighted == height
            await pilot.press("pagedown", "pageup")
            assert lst.highlighted == height
            await pilot.press("end")
            await pilot.pause(0.1)
            assert lst.highlighted == len(many) - 1 and pane.current_doc() == ATTENTION
            assert lst.scroll_offset.y == len(many) - height
            screen = app.export_screenshot().replace("&#160;", " ")
            assert "Attention Is All You Need" in screen and "Paper number 2499" in screen
            assert "Paper number 0 " not in screen
            assert "Attention Is All You Need" in str(app.query_one("#doc-detail").render())
            await pilot.press("enter")
            reader = await reader_ready(pilot, lambda r: r.view.request.doc == ATTENTION)
            assert reader.view.page == 1
            # back to the documents: the cursor stayed; the filter narrows the list
            app.main_screen.show_pane("corpus")
            await wait_for(pilot, lambda: lst.has_focus, what="documents again")
            assert lst.highlighted == len(many) - 1
            await pilot.press("f", *"paper-0012")   # paper-00120 .. 00129
            await wait_for(pilot, lambda: lst.option_count == 10, what="the filter")
            assert lst.highlighted == 0 and lst.scroll_offset.y == 0
            assert [lst.get_option_at_index(i).id for i in range(10)] == \
                [f"lib/paper-{i:05d}.pdf" for i in range(120, 130)]
            assert "10 of 2501 shown" in str(pane.border_title)
            await pilot.press("down")                 # the box -> the list
            await pilot.press("down", "space")
            await wait_for(pilot, lambda: app.main_screen.scope == ("lib/paper-00121.pdf",),
                           what="the scope")
            assert lst.get_option_at_index(1).prompt.plain.startswith("●")
            await pilot.press("down", "O")
            await wait_for(pilot, lambda: app.main_screen.scope == ("lib/paper-00122.pdf",),
                           what="only this one")
            await pilot.press("x")
            await wait_for(pilot, lambda: app.main_screen.scope == (), what="scope cleared")
            # a click on a row opens it
            filt = pane.query_one("#corpus-filter")
            filt.value = "attention"
            await wait_for(pilot, lambda: lst.option_count == 1, what="one match")
            opened: list[str] = []
            monkeypatch.setattr(reader, "open_document", opened.append)
            await pilot.pause(0.1)
            await pilot.click(DocList, offset=(8, 0))
            await wait_for(pilot, lambda: opened == [ATTENTION], what="the click")
            # a newer list replaces an older one whole
            filt.value = ""
            pane.set_documents(many)
            pane.set_documents(many[:300])
            await pilot.pause(0.1)
            assert lst.option_count == 300 and lst.highlighted is not None
            assert lst.highlighted < 300
    run(go())


def test_page_turns_pressed_faster_than_pages_load_add_up(make_app):
    """→ → → in one burst reads three pages on, not one: a turn counts from the page asked
    for last, not from the page still on screen."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            reader, _toc = await open_from_documents(pilot, ATTENTION)
            assert reader.view.page == 1
            for _ in range(3):   # a burst: no page loads between the three turns
                reader.action_next_page()
            await wait_for(pilot, lambda: reader.view.page == 4, what="page 4")
            await settle(pilot)
            assert reader.view.page == 4
            reader.action_prev_page()
            reader.action_prev_page()
            await wait_for(pilot, lambda: reader.view.page == 2, what="page 2")
            await pilot.press("right")   # a single turn after the burst
            await wait_for(pilot, lambda: reader.view.page == 3, what="page 3")

    asyncio.run(go())


def test_back_on_the_hits_page_the_hit_is_in_view_again(make_app):
    """Fresh-user finding: open a page hit, → then ←: the page came back at its top,
    with the hit's block neither in view nor marked (and `v` then read the section at the
    top). Turning back onto the opened hit's page targets it again; turning forward
    still reads on from a page's top."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await search(pilot, "multi-head attention")
            hit = app.query_one(ResultsPane).current_hit()
            await pilot.press("enter")
            reader = app.query_one(ReaderPane)
            await wait_for(pilot, lambda: reader.view is not None
                           and reader.view.page == hit.page, what="the hit's page")
            await settle(pilot)
            first = reader.view.target
            assert first is not None
            reader.action_next_page()
            await wait_for(pilot, lambda: reader.view.page == hit.page + 1, what="next page")
            reader.action_prev_page()
            await wait_for(pilot, lambda: reader.view.page == hit.page, what="back")
            await settle(pilot)
            assert reader.view.target == first
            assert reader.view.request.excerpt == hit.excerpt

    asyncio.run(go())


def test_section_steps_pressed_faster_than_sections_load_add_up(make_app):
    """] ] ] in one burst reads three sections on, not one: a step counts from the
    section asked for last, not the one still on screen (as page turns do); under load the
    contents test's twenty ] presses never reached the last section."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            reader, _toc = await open_from_documents(pilot, ATTENTION)
            await pilot.press("escape")
            ids = [s.id for s in reader.view.sections]
            start = ids.index(reader.view.section_id) if reader.view.section_id in ids \
                else -1
            for _ in range(3):   # a burst: no section loads between the three steps
                reader.action_next_section()
            want = ids[start + 3]
            await wait_for(pilot, lambda: reader.view.section_id == want, what="3 on")
            await settle(pilot)
            assert reader.view.section_id == want

    asyncio.run(go())


def test_a_rerun_keeps_a_moved_cursor_on_its_hit_and_an_unmoved_one_on_top(make_app):
    """Fresh-user trial: a re-run of the query (after indexing, with the semantic arm
    now loaded) moved the first hit, GFS p. 4, to #9 and the cursor followed it down,
    scrolling the new first hits off an 80x24 screen. A cursor left on #1 now stays on
    the first row; a cursor the user moved still follows its hit."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            results = app.query_one(ResultsPane)
            docs = [doc(f"paper{i}.pdf", f"Paper {i}") for i in range(10)]
            results.set_documents(docs, {d.doc: d.title for d in docs})
            first = [make_hit(d.doc, 1, i + 1) for i, d in enumerate(docs)]
            rerun = first[1:9] + [first[0]] + first[9:]
            rerun = [make_hit(h.doc, 1, i + 1) for i, h in enumerate(rerun)]
            table = app.query_one(HitTable)
            results.set_result(SearchResult("gfs", "hybrid", "page", None, 0.0, first))
            await pilot.pause()
            results.set_result(SearchResult("gfs", "hybrid", "page", None, 0.0, rerun),
                               keep_cursor=True)
            await pilot.pause()
            assert table.cursor_row == 0 and results.current_hit().doc == "paper1.pdf"
            table.move_cursor(row=2)   # the user moves to paper3
            await pilot.pause()
            results.set_result(SearchResult("gfs", "hybrid", "page", None, 0.0, first),
                               keep_cursor=True)
            await pilot.pause()
            assert results.current_hit().doc == "paper3.pdf" and table.cursor_row == 3
    run(go())


def test_section_steps_pressed_while_the_library_is_busy_load_only_the_last(make_app,
                                                                             monkeypatch):
    """``]`` pressed many times while the library is held by other work adds up to the
    last section, and the steps overtaken while waiting are never loaded (they were
    loaded one after another, so under load the reader fell tens of seconds behind)."""
    import pdftui.tui.reader_pane as reader_pane

    loaded = []
    real = reader_pane.load_view

    def counting(lib, req, pattern):
        loaded.append(req)
        return real(lib, req, pattern)

    monkeypatch.setattr(reader_pane, "load_view", counting)

    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            reader, _toc = await open_from_documents(pilot, ATTENTION)
            last = len(reader.view.sections) - 1
            await pilot.press("escape")
            loaded.clear()
            with reader.gate._lock:                  # the library busy with other work
                for _ in range(last):
                    await pilot.press("right_square_bracket")
            await wait_for(pilot, lambda: reader.view.section_id
                           == reader.view.sections[last].id, what="last section")
            assert len(loaded) == 1 and loaded[0].page == reader.view.sections[last].start_page
    run(go())


def test_the_contents_beside_a_narrow_reader_keep_a_heading_s_words_whole(make_app):
    """Second trial: at 160x48 the reader is ~48 columns and its contents list got 35 % of
    it (14 columns of text): "Transformer" / "s for", "Introductio" / "n". The list is at
    least 24 columns wide."""
    async def go():
        app = make_app()
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            reader, toc = await open_from_documents(pilot, ATTENTION)
            await wait_for(pilot, lambda: toc.size.width > 0, what="the contents drawn")
            assert reader.size.width < 70          # the three-pane layout
            assert toc.size.width >= 22, toc.size   # 24 with its border
    asyncio.run(go())


def test_contents_entries_keep_their_page_on_their_first_line_at_160_columns(make_app):
    """Fourth trial: at 160x48 the contents list beside a 48-column reader wrapped long
    titles and left their page alone on a line of its own ("Parameter Sharing" / "8").
    Each entry's page is right-aligned at the end of its first line, so no screen line
    of the list is a bare page number."""
    import re

    from .test_keys import screen_lines

    async def go():
        app = make_app()
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            reader, toc = await open_from_documents(pilot, ATTENTION)
            await pilot.pause()
            for i, sec in enumerate(reader.view.sections):
                plain = toc.get_option_at_index(i).prompt.plain
                assert plain.split()[-1] == str(sec.start_page), plain
            x0, width = toc.region.x, toc.region.width
            rows = [line[x0:x0 + width].strip(" │┃")
                    for line in screen_lines(app)[toc.region.y:toc.region.bottom]]
            assert rows and not any(re.fullmatch(r"\d+", r) for r in rows), rows
    run(go())


def test_the_contents_footer_names_its_own_keys(make_app):
    """Fourth trial: with the contents list focused the footer offered the reader's keys
    but not how to move in the list or read an entry. It names ↑↓ and Enter too."""
    from textual.widgets._footer import FooterKey

    async def go():
        app = make_app()
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            reader, toc = await open_from_documents(pilot, ATTENTION)
            await pilot.pause()
            keys = {(k.key_display or k.key): k.description
                    for k in app.main_screen.query(FooterKey)}
            assert keys.get("↑↓") == "Move" and "Read section" in keys.values(), keys
            first = reader.view.page
            await pilot.press("down", "down", "enter")
            await wait_for(pilot, lambda: app.query_one(ReaderBody).has_focus,
                           what="the section read")
            assert reader.view.section_id == reader.view.sections[2].id or \
                reader.view.page != first
    run(go())
