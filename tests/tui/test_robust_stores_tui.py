"""The TUI on damaged stores: an unreadable cache named at once, and the notice that marks
cannot be read staying until it is acted on."""

from __future__ import annotations

import asyncio
import os

from pdftui.index import index_folder
from pdftui.tui.app import PdftuiApp

from .. import builders
from .conftest import wait_for


def _status(app) -> str:
    return str(app.query_one("#status").render())


def _small_index(tmp_path):
    folder = tmp_path / "f"
    folder.mkdir()
    builders.make_pdf(folder / "one.pdf", ["alpha words on a page"])
    builders.make_pdf(folder / "two.pdf", ["beta words on a page"])
    cache = tmp_path / "cache"
    index_folder(folder, cache, embed=False)
    return folder, cache


def test_an_unreadable_cache_is_named_at_once(tmp_path):
    """A truncated cache: the status line names the damage and what to run, within 2 s of
    the screen appearing (it said "loading the documents…" for 40 s+)."""
    folder, cache = _small_index(tmp_path)
    db = cache / "index.sqlite3"
    os.truncate(db, db.stat().st_size // 3)

    async def go():
        app = PdftuiApp(folder, cache_dir=cache, watch=False, show_timings=False,
                        debounce=0.05)
        async with app.run_test(size=(140, 30)) as pilot:
            await wait_for(pilot, lambda: "damaged" in _status(app), timeout=2,
                           what="the status line naming the damaged cache")
            status = _status(app)
            assert "loading the documents" not in status
            assert "pdftui index" in status
    asyncio.run(go())


def test_the_notice_that_marks_cannot_be_read_stays(tmp_path, data_dir):
    """A damaged user-data file: the notice names the user data file (not the cache) and
    stays until dismissed (it was a toast gone after 8 s)."""
    folder, cache = _small_index(tmp_path)
    builders.user_data_with_marks(data_dir, folder, ["one.pdf"])
    builders.damage_file(data_dir / "triage.sqlite3", "pages")
    before = (data_dir / "triage.sqlite3").read_bytes()

    def notices(app):
        return [n for n in app._notifications if "user data file" in n.message]

    async def go():
        app = PdftuiApp(folder, cache_dir=cache, watch=False, show_timings=False,
                        debounce=0.05, data_dir=data_dir)
        async with app.run_test(size=(140, 30)) as pilot:
            await wait_for(pilot, lambda: notices(app), timeout=30,
                           what="the notice that marks cannot be read")
            (n,) = notices(app)
            assert "cache" not in n.message, n.message
            assert n.timeout is None or n.timeout >= 3600
    asyncio.run(go())
    assert (data_dir / "triage.sqlite3").read_bytes() == before   # left as it is
