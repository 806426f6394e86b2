"""The TUI on hidden text (issue 33 item 2): the reader shows a hidden run dimmed after
its label, never as plain body text; the hit detail shows it apart, labelled; a clip of
it keeps the label; the documents pane flags a document hiding instructions."""

from __future__ import annotations

import asyncio

from pdftui.index import index_folder
from pdftui.library import DocumentInfo
from pdftui.tui.app import PdftuiApp
from pdftui.tui.corpus_pane import status_text
from pdftui.tui.reader_pane import ReaderPane

from .. import builders
from .conftest import reader_ready, search, settle, wait_for

LABEL = "[hidden: same colour as the background]"


def _folder(tmp_path):
    folder = tmp_path / "f"
    builders.build_hidden_text(folder / "white.pdf", "background", instruction=True)
    builders.make_pdf(folder / "plain.pdf", ["nothing hidden on this page"])
    cache = tmp_path / "cache"
    index_folder(folder, cache, embed=False, workers=1)
    return folder, cache


def test_the_reader_and_the_hit_detail_label_hidden_text(tmp_path):
    folder, cache = _folder(tmp_path)

    async def go():
        app = PdftuiApp(folder, cache_dir=cache, watch=False, show_timings=False,
                        debounce=0.05)
        async with app.run_test(size=(160, 40)) as pilot:
            await settle(pilot)
            await search(pilot, "whitewashword")
            box = app.query_one("#excerpt")
            await wait_for(pilot, lambda: LABEL in str(box.render()), what="hit detail")
            detail = str(box.render())
            assert detail.index("hiddencoverword") < detail.index(LABEL + " whitewashword")
            app.query_one(ReaderPane).open_document("white.pdf")
            reader = await reader_ready(pilot, lambda r: r.view.request.doc == "white.pdf")
            [para] = reader.query(".para.-hidden")
            shown = para.render()
            assert shown.plain.startswith(LABEL + " whitewashword")
            body = shown.plain.index("whitewashword")
            assert any("dim" in str(span.style) and span.start <= body < span.end
                       for span in shown.spans)   # the hidden words dimmed
            visible = [p for p in reader.query(".para") if "-hidden" not in p.classes]
            assert visible and all(LABEL not in p.render().plain for p in visible)
            v = reader.view
            v.target = list(v.hidden)[0]   # the clip takes the hidden paragraph: labelled
            got = reader.current_paragraph()
            assert got is not None and got[1].startswith(LABEL)
    asyncio.run(go())


def test_the_documents_pane_flags_hidden_instructions():
    flagged = DocumentInfo("white.pdf", "White", 1, "indexed", hidden_instructions=True)
    assert "hidden instructions" in status_text(flagged).plain
    plain = DocumentInfo("plain.pdf", "Plain", 1, "indexed")
    assert "hidden" not in status_text(plain).plain
