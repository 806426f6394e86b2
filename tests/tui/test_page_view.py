"""The reader's image view (``i``): the page rendered, the hit framed, pages stepped."""

from __future__ import annotations

import asyncio

from pdftui.tui.page_view import PageView
from pdftui.tui.reader_widgets import ReaderBody
from pdftui.tui.results_pane import ResultsPane

from .conftest import open_first_hit, reader_ready, search, settle, wait_for


def test_i_shows_the_page_image_with_the_hit_framed_and_steps_pages(make_app):
    asyncio.run(_image_steps(make_app()))


async def _image_steps(app) -> None:
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await search(pilot, "multi-head attention jointly attend")
        hit = app.query_one(ResultsPane).current_hit()
        await pilot.press("enter")
        reader = await reader_ready(pilot)
        page = reader.view.page
        assert reader.view.target_box is not None and reader.view.target_box[0] == page
        image = reader.query_one(PageView)
        assert not image.display
        await pilot.press("i")
        await wait_for(pilot, lambda: image.shown is not None, what="page image")
        assert image.display and not reader.query_one(ReaderBody).display
        assert image.has_focus
        shot = image.shown
        assert shot.path.endswith(hit.doc) and shot.page == page
        assert shot.outline == reader.view.target_box[1]  # the hit block is framed
        caption = str(image.query_one("#page-image-head").render())
        assert f"page {page}" in caption and "hit outlined" in caption
        # the reader's keys work on the image: the next page is rendered
        await pilot.press("right")
        await wait_for(pilot, lambda: image.shown is not None and image.shown.page == page + 1,
                       what="next page image")
        assert reader.view.page == page + 1
        box = reader.view.target_box  # the paragraph the text view marks there, if any
        assert image.shown.outline == (box[1] if box else None)
        # back to the text, on the page now read
        await pilot.press("i")
        await pilot.pause()
        assert reader.query_one(ReaderBody).display and not image.display
        assert isinstance(app.focused, ReaderBody) and reader.view.page == page + 1


def test_i_on_a_page_that_cannot_be_rendered_says_why(make_app, tmp_path):
    asyncio.run(_image_error(make_app(), tmp_path))


async def _image_error(app, tmp_path) -> None:
    async with app.run_test(size=(100, 30)) as pilot:
        reader = await open_first_hit(pilot, "multi-head attention jointly attend")
        image = reader.query_one(PageView)
        app.root = str(tmp_path)  # the folder went away under the reader
        await pilot.press("i")
        head = image.query_one("#page-image-head")
        await wait_for(pilot, lambda: "cannot read" in str(head.render()), what="error line")
        assert image.shown is None


def test_z_zooms_the_page_image_onto_the_hit_and_the_keys_pan_it(make_app):
    asyncio.run(_image_zoom(make_app()))


async def _image_zoom(app) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        reader = await open_first_hit(pilot, "multi-head attention jointly attend")
        page = reader.view.page
        image = reader.query_one(PageView)
        await pilot.press("i")
        await wait_for(pilot, lambda: image.shown is not None, what="page image")
        assert image.part == (0.0, 0.0, 1.0, 1.0)   # the whole page first
        await pilot.press("z")                      # page width: a part of the page
        await wait_for(pilot, lambda: image.part[3] - image.part[1] < 0.9, what="zoomed")
        x0, top, x1, bottom = image.part
        assert (x0, x1) == (0.0, 1.0)
        block_top = reader.view.target_box[1][1]
        import pymupdf
        page_h = pymupdf.open(image.shown.path)[page - 1].rect.height
        assert top <= block_top / page_h < bottom   # the box starts at the hit's block
        assert "page width" in str(image.query_one("#page-image-head").render())
        await pilot.press("down")
        await wait_for(pilot, lambda: image.part[1] > top or image.part[3] >= 0.999,
                       what="panned down")
        await pilot.press("home")
        await wait_for(pilot, lambda: image.part[1] == 0.0, what="the top")
        for _ in range(12):   # PgDn: a box lower each time, then the next page, at its top
            await pilot.press("pagedown")
            await pilot.pause(0.05)
            if reader.view.page == page + 1:
                break
        await wait_for(pilot, lambda: image.shown is not None and image.shown.page == page + 1
                       and image.part[1] == 0.0, what="the next page's top")
        assert image.zoom.scale == 1.0                # the zoom is kept
        await pilot.press("pageup")                   # back: the previous page's bottom
        await wait_for(pilot, lambda: image.shown.page == page and image.part[3] > 0.999,
                       what="the previous page's bottom")
        await pilot.press("z", "z")                   # 2x width, then the whole page again
        await wait_for(pilot, lambda: image.part == (0.0, 0.0, 1.0, 1.0), what="whole page")
