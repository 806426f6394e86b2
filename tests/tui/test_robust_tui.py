"""The TUI when its folder vanishes and comes back, and on a 96,000-character paragraph."""

from __future__ import annotations

import asyncio

import shutil

from pdftui.tui.app import PdftuiApp

from .conftest import make_markup_pdf, search, wait_for


def _status(app) -> str:
    return str(app.query_one("#status").render())


def test_folder_deleted_then_recreated(tmp_path):
    folder = tmp_path / "watched"
    folder.mkdir()
    make_markup_pdf(folder / "first.pdf")

    async def go():
        app = PdftuiApp(folder, cache_dir=tmp_path / "cache", watch=True, show_timings=False,
                        debounce=0.05)
        async with app.run_test(size=(100, 30)) as pilot:
            main = app.main_screen
            await wait_for(pilot, lambda: len(main.folder.documents) == 1
                           and not main.folder.indexing, timeout=60, what="first index")
            await pilot.pause(0.5)   # the watcher starts
            data = await search(pilot, "zorblax")
            assert data.hits
            shutil.rmtree(folder)
            await wait_for(pilot, lambda: "folder gone" in _status(app), timeout=30,
                           what="folder gone in the status line")
            await wait_for(pilot, lambda: app.query_one("#results").result is not None and
                           not app.query_one("#results").result.hits, timeout=30,
                           what="results emptied")
            data = app.query_one("#results").result
            assert data.coverage.searched == 0
            assert "nothing was searched" in data.coverage.note
            folder.mkdir()
            make_markup_pdf(folder / "again.pdf")
            await wait_for(pilot, lambda: [d.doc for d in main.folder.documents] == ["again.pdf"]
                           and not main.folder.indexing, timeout=60, what="the folder re-indexed")
            assert "folder gone" not in _status(app)
            data = await search(pilot, "zorblax again")
            assert {h.doc for h in data.hits} == {"again.pdf"}
    asyncio.run(go())


def test_reader_centres_the_match_inside_a_very_long_paragraph(tmp_path):
    from pdftui.index import index_folder
    from pdftui.tui.reader_pane import ReaderPane
    from pdftui.tui.reader_widgets import ReaderBody
    from pdftui.tui.results_pane import ResultsPane

    from ..builders import LONG_BLOCK_WORD, build_long_block

    folder = tmp_path / "long"
    build_long_block(folder / "long.pdf")
    index_folder(folder, tmp_path / "cache", embed=False)

    async def go():
        app = PdftuiApp(folder, cache_dir=tmp_path / "cache", watch=False, index=False,
                        show_timings=False, debounce=0.05)
        async with app.run_test(size=(100, 30)) as pilot:
            main = app.main_screen
            await wait_for(pilot, lambda: main.folder.documents, timeout=30, what="documents")
            app.action_mode("keyword")
            data = await search(pilot, LONG_BLOCK_WORD)
            assert LONG_BLOCK_WORD in data.hits[0].excerpt
            main.open_hit(app.query_one(ResultsPane).hits[0])
            reader = app.query_one(ReaderPane)
            body = reader.query_one(ReaderBody)
            await wait_for(pilot, lambda: reader.view is not None and body.scroll_y > 0,
                           timeout=30, what="the reader scrolled to the match")
            await pilot.pause(0.3)
            para = list(body.query(".para"))[reader.view.target]

            def on_screen() -> tuple[int, float, int]:
                line = reader._match_line(para, reader.view.paragraphs[reader.view.target])
                return line, body.scroll_y - para.virtual_region.y, body.size.height

            line, top, height = on_screen()
            assert line > 500   # the match is deep inside the paragraph
            assert top <= line < top + height   # and it is on screen
            # a wider terminal re-wraps the paragraph (the match moves hundreds of lines):
            # the reader, not scrolled since, places it again
            await pilot.resize_terminal(240, 30)
            await pilot.pause(0.5)
            line2, top, height = on_screen()
            assert line2 < line - 100 and top <= line2 < top + height
    asyncio.run(go())


def test_a_failed_index_run_says_why_in_the_status_line(tmp_path):
    """The toast fades after 10 s: the status line keeps the first line of the reason (a
    fresh user saw a bare 'indexing failed' with nothing anywhere saying why)."""
    from pdftui.tui.messages import IndexFinished

    folder = tmp_path / "f"
    folder.mkdir()
    make_markup_pdf(folder / "first.pdf")

    async def go():
        app = PdftuiApp(folder, cache_dir=tmp_path / "cache", watch=False, show_timings=False,
                        debounce=0.05)
        async with app.run_test(size=(120, 30)) as pilot:
            main = app.main_screen
            await wait_for(pilot, lambda: main.folder.documents and not main.folder.indexing,
                           timeout=60, what="first index")
            main.post_message(IndexFinished(error="the int8 embedding model needs 'onnx'\n"
                                            "Traceback (most recent call last)"))
            await pilot.pause(0.3)
            status = _status(app)
            assert "indexing failed: the int8 embedding model needs 'onnx'" in status
            assert "Traceback" not in status
    asyncio.run(go())


def test_the_documents_pane_says_loading_until_the_first_load_arrives():
    """Before the first documents load the pane says it is loading, not that the folder is
    empty (a fresh user read 'no documents yet' for 14 s on a busy machine)."""
    from textual.app import App
    from textual.widgets import Static

    from pdftui.tui.corpus_pane import CorpusPane

    class One(App):
        def compose(self):
            yield CorpusPane(id="corpus")

    async def go():
        app = One()
        async with app.run_test(size=(80, 24)) as pilot:
            pane = app.query_one(CorpusPane)
            pane._show_detail()
            detail = lambda: str(app.query_one("#doc-detail", Static).render())  # noqa: E731
            assert "loading the documents" in detail()
            pane.set_documents([])
            await pilot.pause()
            pane._show_detail()
            assert "no documents yet" in detail()
    asyncio.run(go())
