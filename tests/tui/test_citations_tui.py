"""The citation keys on made papers citing each other (tests/builders.py
:func:`build_citing_folder`): "cited by N" and the ``S`` order in the documents pane, the
references list (``b``: folder documents first, Enter opens one, ``y`` copies), the citing
papers (``B``: Enter opens the citing page) and "more like this" (``l``), at 80x24; and a
snapshot of the references list."""

from __future__ import annotations

import asyncio

import pytest

from pdftui.index import index_folder
from pdftui.tui.app import PdftuiApp
from pdftui.tui.citations_screen import CitationsScreen
from pdftui.tui.corpus_pane import CorpusPane, DocList
from pdftui.tui.reader_pane import ReaderPane

from ..builders import build_citing_folder
from .conftest import settle, wait_for

HARMONIC_V2 = "arxiv-2001.00017v2-harmonic.pdf"


@pytest.fixture(scope="module")
def citing_index(tmp_path_factory):
    base = tmp_path_factory.mktemp("citing-tui")
    folder = build_citing_folder(base / "papers")
    index_folder(folder, base / "cache", embed=False)
    return folder, base / "cache"


@pytest.fixture
def make_citing_app(citing_index, data_dir):
    folder, cache = citing_index

    def make():
        return PdftuiApp(folder, cache_dir=cache, index=False, watch=False,
                         show_timings=False, data_dir=data_dir)
    return make


async def _on_document(pilot, doc: str) -> None:
    """The documents pane focused with ``doc`` highlighted and the cited counts known."""
    app = pilot.app
    await settle(pilot)
    corpus = app.query_one(CorpusPane)
    await wait_for(pilot, lambda: corpus.cited, what="cited counts")
    await pilot.press("escape")
    lst = app.query_one(DocList)
    await wait_for(pilot, lambda: lst.has_focus, what="documents focused")
    lst.highlighted = lst.get_option_index(doc)
    await pilot.pause()


async def _open_list(pilot, key: str) -> CitationsScreen:
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CitationsScreen)
                   and pilot.app.screen.loaded, what="citation list")
    return pilot.app.screen


def test_documents_pane_cited_by_and_sort(make_citing_app):
    async def go():
        app = make_citing_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await _on_document(pilot, "lattice.pdf")
            corpus = app.query_one(CorpusPane)
            assert corpus.cited["lattice.pdf"] == 3
            assert "cited by 3" in str(app.query_one("#doc-detail").render())
            while corpus.sort != "cited":
                await pilot.press("S")
            lst = app.query_one(DocList)
            await wait_for(pilot, lambda: lst.info_at(0).doc == "lattice.pdf", what="sorted")
    asyncio.run(go())


def test_references_list_opens_a_folder_document_and_copies(make_citing_app):
    async def go():
        app = make_citing_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await _on_document(pilot, "dense.pdf")
            screen = await _open_list(pilot, "b")
            assert [r.doc for r in screen.rows] == ["lattice.pdf", HARMONIC_V2, None, None]
            await pilot.press("down", "down")      # the follow-up, not in the folder
            detail = str(screen.query_one("#cite-detail").render())
            assert "Gradient lattices for sparse retrieval II" in detail
            assert "year: 2021" in detail
            await pilot.press("y")
            assert app.clipboard.startswith("Lovelace, A. and Babbage, C. (2021)")
            # fourth trial: "copied" in a tmux that dropped the copy; OSC 52 cannot be
            # confirmed, so the toast says it was sent and where it arrives
            said = [n.message for n in app._notifications]
            assert any("sent to the terminal's clipboard" in m for m in said), said
            assert "copied" not in said
            await pilot.press("up", "up", "enter")
            reader = app.query_one(ReaderPane)
            await wait_for(pilot, lambda: reader.view is not None
                           and reader.view.request.doc == "lattice.pdf", what="opened")
    asyncio.run(go())


def test_cited_by_opens_the_citing_page_and_more_like_this(make_citing_app):
    async def go():
        app = make_citing_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await _on_document(pilot, "lattice.pdf")
            screen = await _open_list(pilot, "B")
            assert [(r.doc, r.page) for r in screen.rows] == [
                (HARMONIC_V2, 2), ("dense.pdf", 2), ("survey.pdf", 2)]
            # the page leads the row: a long title wrapping at 80 columns never hides it
            # (trial: "…via Sequence Modeling  p." with the number gone)
            assert all(r.text.plain.startswith("p. 2") for r in screen.rows)
            await pilot.press("down", "enter")
            reader = app.query_one(ReaderPane)
            await wait_for(pilot, lambda: reader.view is not None
                           and reader.view.request.doc == "dense.pdf"
                           and reader.view.page == 2, what="citing page")
            await _on_document(pilot, "dense.pdf")
            screen = await _open_list(pilot, "l")
            assert screen.rows[0].doc == "survey.pdf"
            assert "2 shared references" in str(screen.query_one("#cite-detail").render())
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, CitationsScreen),
                           what="closed")
    asyncio.run(go())


def test_snapshot_references_80x24(snap_compare, make_citing_app):
    async def run_before(pilot):
        await _on_document(pilot, "survey.pdf")
        await _open_list(pilot, "b")
        await pilot.pause(0.1)

    assert snap_compare(make_citing_app(), terminal_size=(80, 24), run_before=run_before)


def test_cited_by_enter_marks_the_citing_entry_and_names_the_count_in_the_singular(
        make_citing_app):
    """Enter on a citing paper opens its page scrolled to the citing entry, marked as a
    hit is (it opened at the page's top, the entry neither shown nor marked); "1 paper",
    not "1 papers"."""
    from pdftui.tui.reader_widgets import ReaderBody

    async def go():
        app = make_citing_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await _on_document(pilot, "dense.pdf")
            screen = await _open_list(pilot, "B")
            assert len(screen.rows) == 1
            assert screen.query_one("#cite-box").border_title.endswith("· 1 paper")
            entry = screen.rows[0].entry
            assert entry
            await pilot.press("enter")
            reader = app.query_one(ReaderPane)
            await wait_for(pilot, lambda: reader.view is not None
                           and reader.view.request.doc == screen.rows[0].doc, what="citing")
            await pilot.pause(0.2)
            v = reader.view
            assert v.target is not None, v.paragraphs
            assert " ".join(entry.split())[:30] in " ".join(v.paragraphs[v.target].split())
            body = app.query_one(ReaderBody)
            para = list(body.query(".para"))[v.target]
            assert para.has_class("-hit")
            r = para.virtual_region
            assert r.y < body.scroll_y + body.size.height and r.bottom > body.scroll_y
    asyncio.run(go())


def test_an_empty_reference_list_says_so(make_citing_app):
    async def go():
        app = make_citing_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await _on_document(pilot, "lattice.pdf")
            screen = await _open_list(pilot, "b")
            if screen.rows:
                pytest.skip("lattice.pdf has references")
            lst = screen.query_one("#cite-list")
            assert "no reference list found" in lst.get_option_at_index(0).prompt.plain
            assert "0 references" in screen.query_one("#cite-box").border_title
    asyncio.run(go())
