"""Fixtures for the TUI tests: one small real index per test session, shared by xdist
workers (built once under a file lock), and one search service per worker process."""

from __future__ import annotations


import asyncio
import fcntl
import os
from pathlib import Path

import pytest

from ..conftest import CORPUS, corpus_pdf


# The TUI tests (snapshots above all) need the same vectors on every run. The int8 model
# quantizes activations per batch at run time, and which units share a batch depends on the
# order the extraction workers finish in, so near-equal semantic ranks can swap between two
# fresh indexes; the fp32 model's vectors do not depend on the batch. The int8 path itself
# is tested in tests/test_quantize.py and tests/test_index.py.
os.environ["PDFTUI_EMBED_INT8"] = "0"

#: Three small corpus PDFs (31 pages) plus a made one whose text holds markup and an ESC.
TUI_DOCS = [
    "arxiv-1706.03762v5-attention-is-all-you-need.pdf",
    "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf",
    "texlive-euler.pdf",
]
MARKUP_DOC = "markup-[bold]literal.pdf"
MARKUP_LINES = [
    "Markup literal test page {n}: zorblax appears here.",
    "Rich markup must be shown as typed: [bold]x[/] and [link=http://x]y and [/] alone.",
    "An escape sequence follows: \x1b[31mred text\x1b[0m then plain text again.",
    "More words so the page has a healthy text layer for the quality check to pass.",
    "The quick brown fox jumps over the lazy dog, again and again, zorblax twice.",
]


def make_markup_pdf(path: Path) -> None:
    """A 2-page PDF whose text holds Rich markup and a terminal escape sequence."""
    import pymupdf

    doc = pymupdf.open()
    for n in (1, 2):
        page = doc.new_page()
        y = 72
        for _ in range(3):
            for line in MARKUP_LINES:
                page.insert_text((50, y), line.format(n=n), fontsize=10)
                y += 16
    doc.save(path)
    doc.close()


def build_index(base: Path) -> tuple[Path, Path]:
    """The folder and cache of the shared index (built on first call, under a lock)."""
    folder, cache = base / "papers", base / "cache"
    base.mkdir(parents=True, exist_ok=True)
    with open(base / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (base / "done").exists():
            from pdftui.index import index_folder

            folder.mkdir(exist_ok=True)
            for name in TUI_DOCS:
                link = folder / name
                if not link.exists():
                    link.symlink_to(CORPUS / name)
            make_markup_pdf(folder / MARKUP_DOC)
            summary = index_folder(folder, cache, None, embed=True)
            assert summary.indexed == len(TUI_DOCS) + 1, summary.to_json()
            assert not summary.skipped, summary.to_json()
            assert summary.embedding_pending == 0, summary.to_json()
            (base / "done").write_text("ok")
    return folder, cache


@pytest.fixture(scope="session")
def tui_index(tmp_path_factory) -> tuple[Path, Path]:
    """(folder, cache_dir) of a small real index, semantic search included
    (``PDFTUI_TEST_INDEX_DIR=DIR`` keeps it in DIR and reuses it across runs)."""
    for name in TUI_DOCS:
        corpus_pdf(name)  # skips every TUI test when the shared corpus is not here
    if os.environ.get("PDFTUI_TEST_INDEX_DIR"):
        return build_index(Path(os.environ["PDFTUI_TEST_INDEX_DIR"]))
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # shared by the workers of this session
    return build_index(root / "tui-index")


@pytest.fixture(scope="session")
def service(tui_index):
    """One SearchService per worker process (the model loads once)."""
    from pdftui.search.service import SearchService

    folder, cache = tui_index
    svc = SearchService(folder, cache_dir=cache)
    yield svc
    svc.close()


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch) -> Path:
    """Each test's own user data dir (marks, notes, sessions): never the user's."""
    path = tmp_path / "user-data"
    monkeypatch.setenv("PDFTUI_DATA_DIR", str(path))
    return path


@pytest.fixture
def no_display(monkeypatch) -> None:
    """No graphical display (as over SSH): ``o`` cannot start a viewer."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


@pytest.fixture
def make_app(tui_index, service):
    """Build a PdftuiApp on the shared index (no watcher, no timings, quick debounce)."""
    from pdftui.tui.app import PdftuiApp

    folder, cache = tui_index

    def make(**kw):
        kw.setdefault("watch", False)
        kw.setdefault("show_timings", False)
        kw.setdefault("service", service)
        kw.setdefault("debounce", 0.05)
        return PdftuiApp(folder, cache_dir=cache, **kw)

    return make


async def wait_for(pilot, cond, timeout: float = 30.0, what: str = "condition") -> None:
    """Pause the pilot until ``cond()`` is true (fails after ``timeout`` seconds: a wait,
    not a timing; a section search at load 5 on two cores took over 15 s)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def settle(pilot) -> None:
    """Wait until the app is idle: documents loaded, background indexing finished."""
    folder = pilot.app.main_screen.folder
    await wait_for(pilot, lambda: folder.documents and not folder.indexing, what="startup")
    await pilot.pause()


async def search(pilot, text: str, submit: bool = True) -> dict:
    """Type ``text`` into the search box (and press Enter); returns the result shown."""
    from pdftui.tui.results_pane import ResultsPane

    app = pilot.app
    box = app.query_one("#query")
    box.focus()
    box.value = ""
    await pilot.pause()
    await pilot.press(*list(text))
    if submit:
        await pilot.press("enter")
    results = app.query_one(ResultsPane)
    main = app.main_screen
    await wait_for(pilot, lambda: main.shown_key is not None
                   and main.shown_key == main.search_key(), what=f"results for {text!r}")
    await pilot.pause()
    return results.result


async def reader_ready(pilot, check=lambda r: True):
    """Wait until the reader pane shows a view for which ``check(reader)`` holds; returns
    the :class:`~pdftui.tui.reader_pane.ReaderPane`."""
    from pdftui.tui.reader_pane import ReaderPane

    reader = pilot.app.query_one(ReaderPane)
    await wait_for(pilot, lambda: reader.view is not None and check(reader), what="reader")
    await pilot.pause()
    return reader


async def open_first_hit(pilot, text: str, check=lambda r: True):
    """The common start of a reader test: wait for the app to settle, search ``text``,
    open the first hit (Enter) and wait until the reader shows a view for which
    ``check(reader)`` holds; returns the :class:`~pdftui.tui.reader_pane.ReaderPane`."""
    await settle(pilot)
    await search(pilot, text)
    await pilot.press("enter")
    return await reader_ready(pilot, check)
