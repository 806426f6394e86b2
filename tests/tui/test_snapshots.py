"""Snapshot tests (pytest-textual-snapshot) of the main screens at 80x24 and 160x48.

Deterministic by construction: a fixed small index, timings hidden (``show_timings=False``),
and every ``run_before`` waits until the search result (not the provisional keyword one)
is on screen. Update with ``pytest tests/tui --snapshot-update`` after a deliberate change.
"""

from __future__ import annotations

import pytest

from pdftui.triage.store import DocKey, Mark, TriageStore
from pdftui.tui.compare_view import CompareScreen
from pdftui.tui.corpus_pane import DocList
from pdftui.tui.help_screen import HelpScreen
from pdftui.tui.reader_pane import ReaderPane

from .conftest import TUI_DOCS, search, settle, wait_for

QUERY = "multi-head attention"


async def _results(pilot):
    await settle(pilot)
    await search(pilot, QUERY)


async def _reader(pilot):
    await _results(pilot)
    await pilot.press("enter")
    reader = pilot.app.query_one(ReaderPane)
    await wait_for(pilot, lambda: reader.view is not None)
    await pilot.pause(0.1)


async def _section(pilot):
    await _reader(pilot)
    reader = pilot.app.query_one(ReaderPane)
    await pilot.press("v")
    await wait_for(pilot, lambda: reader.view.request.kind == "section")
    await pilot.pause(0.1)


async def _compare(pilot):
    await _results(pilot)
    await pilot.press("c")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CompareScreen)
                   and len(pilot.app.screen.results) == 3)
    await pilot.pause(0.1)


async def _corpus(pilot):
    await _results(pilot)
    await pilot.press("shift+tab")
    await pilot.pause(0.1)


async def _help(pilot):
    await settle(pilot)
    await pilot.press("escape", "question_mark")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))
    await pilot.pause(0.1)


async def _documents(pilot):
    """The first screen: the folder, with the marks :func:`seed_marks` set."""
    await settle(pilot)
    await pilot.press("escape")          # leave the box: the documents list
    lst = pilot.app.query_one(DocList)
    triage = pilot.app.main_screen.triage
    await wait_for(pilot, lambda: lst.has_focus and triage.marks(), what="marks")
    await pilot.pause(0.1)


def seed_marks(data_dir, folder) -> None:
    """Keep (with a note), to read and skip on the three corpus papers."""
    with TriageStore(data_dir) as store:
        for doc, mark in zip(TUI_DOCS, (Mark.KEEP, Mark.TO_READ, Mark.SKIP)):
            store.set_mark(DocKey.of(folder, doc), mark)
        store.set_note(DocKey.of(folder, TUI_DOCS[0]), "the transformer paper")


SHOTS = [
    ("results", _results, (80, 24)), ("reader", _reader, (80, 24)),
    ("section", _section, (80, 24)), ("compare", _compare, (80, 24)),
    ("corpus", _corpus, (80, 24)), ("help", _help, (80, 24)),
    ("results", _results, (160, 48)), ("reader", _reader, (160, 48)),
    ("compare", _compare, (160, 48)),
    ("documents", _documents, (80, 24)), ("documents", _documents, (160, 48)),
]


@pytest.mark.parametrize("name,run_before,size", SHOTS,
                         ids=[f"{n}-{w}x{h}" for n, _, (w, h) in SHOTS])
def test_snapshot(snap_compare, make_app, tui_index, data_dir, name, run_before, size):
    if name == "documents":
        seed_marks(data_dir, tui_index[0])
    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)
