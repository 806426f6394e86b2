"""Triage from the keyboard: marks, notes, clips, export, open in the viewer, resume and
the query history; and the issue's "Done when" scenario end to end."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pdftui.triage.store import DocKey, Mark, TriageStore
from pdftui.tui.app import PdftuiApp
from pdftui.tui.corpus_pane import CorpusPane, DocList
from pdftui.tui.dialogs import ExportScreen
from pdftui.tui.note_editor import NoteScreen
from pdftui.tui.reader_pane import ReaderPane
from pdftui.tui.reader_widgets import ReaderBody
from pdftui.tui.results_pane import HitTable, ResultsPane

from ..conftest import CORPUS, shared_file
from .conftest import search, settle, wait_for

ATTENTION = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"

#: Six arXiv papers for the scenario (five get marked keep).
PAPERS = [
    "arxiv-1706.03762v5-attention-is-all-you-need.pdf",
    "arxiv-0908.0054-ultralight-bosonic-dark-matter-cmb.pdf",
    "arxiv-2005.07143-ecapa-tdnn-speaker-verification.pdf",
    "arxiv-1512.03385-resnet.pdf",
    "arxiv-2402.05672-multilingual-e5-embeddings.pdf",
    "texlive-euler.pdf",
]


def run(coro):
    return asyncio.run(coro)


def stored(data_dir: Path, root: Path, doc: str):
    with TriageStore(data_dir) as store:
        return store.get(DocKey.of(root, doc))


def test_mark_keys_from_results_documents_and_reader(make_app, tui_index, data_dir):
    folder, _cache = tui_index

    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await search(pilot, "multi-head attention")
            table = app.query_one(HitTable)
            hit = app.query_one(ResultsPane).current_hit()
            await pilot.press("plus")
            await wait_for(pilot, lambda: main.triage.marks().get(hit.doc) == "keep", what="keep")
            # the mark column of the results shows it
            col = list(table.columns).index("mark")
            assert table.get_cell_at((table.cursor_row, col)).plain == "+"
            assert stored(data_dir, folder, hit.doc).mark is Mark.KEEP
            # from the reader: to-read; from the documents: skip, then none
            await pilot.press("enter")
            reader = app.query_one(ReaderPane)
            await wait_for(pilot, lambda: reader.view is not None
                           and app.query_one(ReaderBody).has_focus, what="reader")
            await pilot.press("r")
            await wait_for(pilot, lambda: main.triage.marks().get(hit.doc) == "to-read")
            main.show_pane("corpus")
            lst = app.query_one(DocList)
            await wait_for(pilot, lambda: lst.has_focus, what="documents")
            doc = app.query_one(CorpusPane).current_doc()
            await pilot.press("minus")
            await wait_for(pilot, lambda: main.triage.marks().get(doc) == "skip")
            prompt = lst.get_option_at_index(lst.highlighted).prompt.plain
            assert prompt[2] == "-"
            await pilot.press("u")
            await wait_for(pilot, lambda: doc not in main.triage.marks())
            # filter by mark and sort by mark in the documents pane
            await pilot.press("M")   # keep only
            corpus = app.query_one(CorpusPane)
            await wait_for(pilot, lambda: corpus.mark_filter == "keep")
            shown = {lst.get_option_at_index(i).id for i in range(lst.option_count)}
            assert shown == {d for d, m in main.triage.marks().items() if m == "keep"}
    run(go())


def test_note_clip_and_the_keymap(make_app, tui_index, data_dir):
    folder, _cache = tui_index

    async def go():
        app = make_app(keymap={"note": "ctrl+n"})
        async with app.run_test(size=(100, 30)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await search(pilot, "scaled dot-product attention")
            await pilot.press("enter")
            reader = app.query_one(ReaderPane)
            await wait_for(pilot, lambda: reader.view is not None
                           and app.query_one(ReaderBody).has_focus, what="reader")
            await pilot.pause(0.2)
            doc, text, page, section = reader.current_paragraph()
            await pilot.press("y")
            await wait_for(pilot, lambda: main.triage.by_doc.get(doc)
                           and main.triage.by_doc[doc].clips, what="clip stored")
            clip = main.triage.by_doc[doc].clips[0]
            assert clip.page == page and clip.text == text and clip.section == section
            # third trial: a second y on the same paragraph clipped it twice
            await pilot.press("y")
            await wait_for(pilot, lambda: any("already clipped" in n.message
                                              for n in app._notifications), what="said")
            assert len(main.triage.by_doc[doc].clips) == 1
            # "a" is remapped: it types into the box; Ctrl+N opens the note
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: isinstance(app.screen, NoteScreen))
            clips = app.screen.query_one("#note-clip-list")
            assert text[:30] in str(clips.get_option_at_index(0).prompt)
            await pilot.press(*"worth a re-read")
            await pilot.press("escape")
            await wait_for(pilot, lambda: main.triage.by_doc[doc].note == "worth a re-read",
                           what="note saved")
            saved = stored(data_dir, folder, doc)
            assert saved.note == "worth a re-read" and len(saved.clips) == 1
            # third trial: words typed at once into an existing note were glued onto its
            # last word; they start a line of their own, and a note left as it was stays
            for typed, note in (("more", "worth a re-read\nmore"), ("", "worth a re-read\nmore")):
                await pilot.press("ctrl+n")
                await wait_for(pilot, lambda: isinstance(app.screen, NoteScreen))
                await pilot.pause()
                if typed:
                    await pilot.press(*typed)
                await pilot.press("escape")
                await wait_for(pilot, lambda: main.triage.by_doc[doc].note == note
                               and app.screen is main, what=f"note {note!r}")
    run(go())


def test_a_clip_is_deleted_from_the_note_editor_and_can_be_kept_again(make_app, tui_index,
                                                                       data_dir):
    """Fresh-user finding: a clip could not be deleted. In the note editor Tab goes to
    the clips; Delete (or d) marks the highlighted one, struck through, and pressed again
    keeps it (the undo); the clips marked are deleted when the editor closes, the note
    is kept, and the others stay."""
    from pdftui.triage.store import Clip
    from pdftui.tui.note_editor import ClipList

    folder, _cache = tui_index
    key = DocKey.of(folder, ATTENTION)
    with TriageStore(data_dir) as store:
        store.set_note(key, "my note")
        first = store.add_clip(key, Clip("The first passage clipped.", 2, "2", "1 Intro"))
        second = store.add_clip(key, Clip("The second passage clipped.", 3, "3", "2 Model"))

    async def go():
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await search(pilot, "scaled dot-product attention")
            assert main.triage.current_document()[0] == ATTENTION
            await pilot.press("a")
            await wait_for(pilot, lambda: isinstance(app.screen, NoteScreen), what="editor")
            await pilot.press("tab")
            clips = app.screen.query_one(ClipList)
            await wait_for(pilot, lambda: clips.has_focus, what="the clips")
            assert clips.option_count == 2
            await pilot.press("delete")          # the first: marked
            assert clips.deleted == {first.id}
            assert "deleted when the note closes" in str(clips.get_option_at_index(0).prompt)
            await pilot.press("down", "d", "d")  # the second: marked, then kept again
            assert clips.deleted == {first.id}
            assert "deleted" not in str(clips.get_option_at_index(1).prompt)
            assert len(stored(data_dir, folder, ATTENTION).clips) == 2   # not before closing
            await pilot.press("escape")
            await wait_for(pilot, lambda: [c.id for c in main.triage.by_doc[ATTENTION].clips]
                           == [second.id], what="the clip deleted")
            assert any("1 clip deleted" in n.message for n in app._notifications)
    run(go())
    saved = stored(data_dir, folder, ATTENTION)
    assert saved.note == "my note" and [c.text for c in saved.clips] == [
        "The second passage clipped."]


def test_open_without_a_display_shows_the_path_as_given_to_copy(tui_index, service, tmp_path,
                                                                 no_display):
    """Fresh-user finding: over SSH in tmux (clipboard off by default) "o" reported a copy
    that never arrived, and named the resolved symbolic link. The copy through the
    terminal (OSC 52) cannot be confirmed: a dialog shows ``path#page=N``, the folder as
    it was given (a link to the papers, not where it points), to select by hand."""
    from pdftui.tui.app import PdftuiApp
    from pdftui.tui.dialogs import CopyPathScreen

    folder, cache = tui_index
    link = tmp_path / "papers-link"
    link.symlink_to(folder)

    async def go():
        app = PdftuiApp(link, cache_dir=cache, watch=False, show_timings=False,
                        service=service, debounce=0.05)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await search(pilot, "multi-head attention")
            hit = app.query_one(ResultsPane).current_hit()
            await pilot.press("o")
            await wait_for(pilot, lambda: isinstance(app.screen, CopyPathScreen),
                           what="the path dialog")
            want = f"{link}/{hit.doc}#page={hit.page}"
            assert app.screen.shown == want == app.main_screen.triage.last_clipboard
            assert app.clipboard == want
            assert str(app.screen.query_one("#copy-path").render()) == want
            # fourth trial: at 80 columns the path broke mid-word inside a box 90 % wide;
            # it has the screen's width but the box's two borders
            path = app.screen.query_one("#copy-path")
            assert path.region.width == 100 - 2
            # sixth trial: a negative margin hid its first character ("work/shared/...")
            from .test_keys import screen_lines
            line = screen_lines(app)[path.region.y]
            w = min(len(want), path.region.width)
            assert line[path.region.x:path.region.x + w] == want[:w], line
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.main_screen, what="closed")
            assert app.is_running   # nothing blocked or crashed
    run(go())


def test_query_history_and_resume(make_app, data_dir):
    async def go():
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await search(pilot, "euler fonts")
            await search(pilot, "attention heads")
            await pilot.press("s", "p")      # semantic, sections
            await wait_for(pilot, lambda: app.main_screen.shown_key == app.main_screen.search_key())
            await pilot.press("enter")
            reader = app.query_one(ReaderPane)
            await wait_for(pilot, lambda: reader.view is not None)
            doc, page = reader.view.request.doc, reader.view.page
            await pilot.press("q")
        assert not app.is_running
        again = make_app()
        async with again.run_test(size=(100, 30)) as pilot:
            again_main = again.main_screen
            await settle(pilot)
            reader = again.query_one(ReaderPane)
            await wait_for(pilot, lambda: again_main.search_key().query == "attention heads"
                           and reader.view is not None, what="session restored")
            assert (again_main.mode, again_main.granularity) == ("semantic", "section")
            assert (reader.view.request.doc, reader.view.page) == (doc, page)
            await wait_for(pilot, lambda: again_main.shown_key == again_main.search_key())
            # Up / Down in the box walk the history
            box = again.query_one("#query")
            again.action_focus_search()
            await pilot.pause()
            # (eleventh trial: Up first showed the query the box held)
            await pilot.press("up")
            assert box.value == "euler fonts"
            await pilot.press("up")
            assert box.value == "euler fonts"   # the oldest
            await pilot.press("down")
            assert box.value == "attention heads"
            # text typed over a recalled query: the next Up walks from the newest again
            await pilot.press("up", "x")
            assert box.value == "euler fontsx"
            await pilot.press("up")
            assert box.value == "attention heads"
            await pilot.press("down")
            assert box.value == "euler fontsx"
    run(go())



@pytest.mark.parametrize("how", ["flag", "env"])
def test_data_dir_reaches_the_tui(tui_index, tmp_path, monkeypatch, how):
    """``pdftui --data-dir D FOLDER`` (or ``PDFTUI_DATA_DIR=D``) keeps the marks the TUI
    sets in D (here the autouse fixture's PDFTUI_DATA_DIR is another folder: the flag
    wins)."""
    from click.testing import CliRunner

    from pdftui import cli

    folder, cache = tui_index
    mine = tmp_path / "my-data"
    built: list[PdftuiApp] = []
    monkeypatch.setattr(PdftuiApp, "run", lambda self, *a, **kw: built.append(self))
    monkeypatch.setattr(cli, "has_terminal", lambda: True)   # CliRunner has no terminal
    args = ["--cache-dir", str(cache), str(folder)]
    if how == "flag":
        args = ["--data-dir", str(mine), *args]
    else:
        monkeypatch.setenv("PDFTUI_DATA_DIR", str(mine))
    r = CliRunner().invoke(cli.main, args, env={"TERM": "xterm", "LC_ALL": "C.UTF-8"})
    assert r.exit_code == 0, r.output
    (app,) = built

    async def go():
        async with app.run_test(size=(100, 30)) as pilot:
            main = app.main_screen
            await settle(pilot)
            main.show_pane("corpus")
            await wait_for(pilot, lambda: app.query_one(DocList).has_focus, what="documents")
            doc = app.query_one(CorpusPane).current_doc()
            await pilot.press("plus")
            await wait_for(pilot, lambda: main.triage.marks().get(doc) == "keep", what="keep")
            await pilot.press("ctrl+q")
        return doc

    app.do_index, app.do_watch = False, False
    doc = run(go())
    assert stored(mine, folder, doc).mark is Mark.KEEP
    if how == "flag":
        assert stored(Path(os.environ["PDFTUI_DATA_DIR"]), folder, doc).mark is Mark.NONE


# -- the "Done when", keyboard only -------------------------------------------------

@pytest.fixture(scope="module")
def papers(tmp_path_factory):
    """Six corpus papers indexed for keyword search (no embedding: fast)."""
    from pdftui.index import index_folder

    base = tmp_path_factory.mktemp("papers")
    folder, cache = base / "papers", base / "cache"
    folder.mkdir()
    for name in PAPERS:
        (folder / name).symlink_to(shared_file(CORPUS / name))
    index_folder(folder, cache, None, embed=False)
    return folder, cache


def test_done_when_scenario_keyboard_only(papers, data_dir, tmp_path, monkeypatch):
    """Search, read, mark five papers keep with a note and a clipped passage, quit,
    reopen: everything as left; export Markdown and BibTeX (parsed by a BibTeX parser)."""
    pytest.importorskip("pdftui.triage.export")
    pytest.importorskip("bibtexparser")
    folder, cache = papers
    monkeypatch.chdir(tmp_path)

    def make():
        return PdftuiApp(folder, cache_dir=cache, index=False, watch=False,
                         show_timings=False, debounce=0.05)

    async def first_visit() -> list[str]:
        app = make()
        kept = []
        async with app.run_test(size=(100, 30)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await pilot.press("escape", "k")        # keyword mode (nothing is embedded)
            await pilot.press("slash", *"the", "enter")
            await wait_for(pilot, lambda: main.shown_key == main.search_key(), what="hits")
            await pilot.press("d")                  # one row per document
            results = app.query_one(ResultsPane)
            for n in range(5):
                while results.current_row().kind != "doc":
                    await pilot.press("down")
                row = results.current_row()
                kept.append(row.doc)
                await pilot.press("plus")            # keep
                await pilot.press("a", *f"note on {row.doc[:14]}", "escape")   # a note
                await wait_for(pilot, lambda: app.screen is main)
                await pilot.press("down")
                while results.current_row().kind != "hit":
                    await pilot.press("down")
                await pilot.press("enter")           # read it
                reader = app.query_one(ReaderPane)
                await wait_for(pilot, lambda: reader.view is not None
                               and reader.view.request.doc == row.doc
                               and app.query_one(ReaderBody).has_focus, what="reader")
                await pilot.press("y")               # clip a passage
                await wait_for(pilot, lambda: main.triage.by_doc.get(row.doc) is not None
                               and main.triage.by_doc[row.doc].clips, what="clip")
                await pilot.press("escape")          # back to the results
                await wait_for(pilot, lambda: app.query_one(HitTable).has_focus)
                if n == 4:
                    break
                # on to the next document row ("down" stops at the last row: no endless
                # loop when fewer than five documents match)
                table = app.query_one(HitTable)
                await pilot.press("down")
                while results.current_row().kind != "doc":
                    assert table.cursor_row < table.row_count - 1, "fewer than 5 documents"
                    await pilot.press("down")
            await wait_for(pilot, lambda: all(main.triage.by_doc[d].note for d in kept),
                           what="notes saved")
            await pilot.press("q")
        assert not app.is_running
        return kept

    async def second_visit(kept: list[str]) -> None:
        app = make()
        async with app.run_test(size=(100, 30)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await wait_for(pilot, lambda: main.search_key().query == "the"
                           and main.shown_key == main.search_key(), what="query restored")
            assert main.mode == "keyword"
            await wait_for(pilot, lambda: sorted(d for d, m in main.triage.marks().items()
                                                 if m == "keep") == sorted(kept))
            for doc in kept:
                t = main.triage.by_doc[doc]
                assert t.note.startswith("note on ") and t.clips and t.clips[0].page >= 1
            reader = app.query_one(ReaderPane)
            await wait_for(pilot, lambda: reader.view is not None
                           and reader.view.request.doc == kept[-1], what="reader restored")
            # export: Markdown, then BibTeX
            for fmt_keys, ext in (((), "md"), (("down",), "bib")):
                await pilot.press("escape", "e")
                await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
                if fmt_keys:
                    await pilot.press("enter", *fmt_keys, "enter")   # open the list, pick
                await pilot.press("tab", "tab", "enter")            # to the file box, go
                await wait_for(pilot, lambda: app.main_screen.triage.last_export.endswith(ext),
                               timeout=30, what=f"{ext} export")
            await pilot.press("ctrl+q")
        # in the folder pdftui was started from, never beside the documents
        assert not (folder / "papers-reading-list.md").exists()
        md = (tmp_path / "papers-reading-list.md").read_text()
        for doc in kept:
            assert doc in md
            assert f"> note on {doc[:14]}" in md   # the note, as typed
        assert md.count("Clipped passages:") == 5 and md.count("> — p. ") >= 5
        assert md.count("- Mark: keep") == 5
        import bibtexparser

        bib = bibtexparser.loads((tmp_path / "papers-reading-list.bib").read_text())
        assert len(bib.entries) == 5
        assert all(e.get("title") for e in bib.entries)
        assert any(e.get("eprint") for e in bib.entries)

    kept = run(first_visit())
    assert len(set(kept)) == 5
    run(second_visit(kept))


def _seed(data_dir: Path, folder: Path, marks: dict[str, Mark]) -> None:
    with TriageStore(data_dir) as store:
        for doc, mark in marks.items():
            store.set_mark(DocKey.of(folder, doc), mark)


def test_star_scopes_the_search_to_marked_documents(make_app, tui_index, data_dir):
    """``*``: marked keep, then to read, then the whole folder again."""
    folder, _cache = tui_index
    _seed(data_dir, folder, {ATTENTION: Mark.KEEP, "texlive-euler.pdf": Mark.TO_READ})

    async def go():
        app = make_app()
        async with app.run_test(size=(120, 36)) as pilot:
            main = app.main_screen
            await settle(pilot)
            data = await search(pilot, "the")
            assert len({h.doc for h in data.hits}) > 2
            results = app.query_one(ResultsPane)
            for want in ({ATTENTION}, {"texlive-euler.pdf"}):
                await pilot.press("asterisk")
                await wait_for(pilot, lambda: set(main.scope) == want
                               and main.shown_key == main.search_key()
                               and results.result is not None
                               and results.result.coverage.total == 1,
                               what=f"scope {want}")
                assert {h.doc for h in results.hits} == want
            await pilot.press("asterisk")
            await wait_for(pilot, lambda: main.scope == () and main.shown_key == main.search_key()
                           and results.result.coverage.total == 4, what="whole folder")
    run(go())


def test_sort_key_orders_the_documents(make_app, tui_index, data_dir):
    """``S`` in the documents pane: folder order, title, author, year (newest first),
    mark; the list shows that order."""
    folder, _cache = tui_index
    _seed(data_dir, folder, {"texlive-euler.pdf": Mark.KEEP})

    async def go():
        app = make_app()
        async with app.run_test(size=(120, 36)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await pilot.press("escape")
            lst = app.query_one(DocList)
            await wait_for(pilot, lambda: lst.has_focus and main.triage.marks(), what="documents")
            corpus = app.query_one(CorpusPane)

            def shown() -> list[str]:
                return [lst.get_option_at_index(i).id for i in range(lst.option_count)]

            await pilot.press("S")
            assert corpus.sort == "title"
            titles = [lst.get_option_at_index(i).prompt.plain[4:].casefold()
                      for i in range(lst.option_count)]
            assert titles == sorted(titles)
            await pilot.press("S", "S")
            assert corpus.sort == "year"
            years = {d.doc: d.year for d in main.folder.documents}
            dated = [years[d] for d in shown() if years.get(d)]
            assert dated == sorted(dated, reverse=True) and len(dated) >= 3
            await pilot.press("S")
            assert corpus.sort == "mark" and shown()[0] == "texlive-euler.pdf"
    run(go())


def _viewer_script(tmp_path: Path, body: str) -> str:
    script = tmp_path / "viewer.sh"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o755)
    return f"{script} {{path}} {{page}}"


def test_open_in_viewer_never_blocks_and_shows_a_failing_viewer(make_app, tmp_path,
                                                               monkeypatch):
    """With a display: ``o`` starts $PDFTUI_VIEWER with the path and page as arguments;
    the UI answers keys while it runs; a viewer that fails says why."""
    monkeypatch.setenv("DISPLAY", ":99")
    pidfile, args = tmp_path / "viewer.pid", tmp_path / "viewer.args"
    monkeypatch.setenv("PDFTUI_VIEWER", _viewer_script(
        tmp_path, f'echo $$ > {pidfile}; echo "$1|$2" > {args}; exec sleep 30'))

    async def go():
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await search(pilot, "multi-head attention")
            hit = app.query_one(ResultsPane).current_hit()
            await pilot.press("o")
            await wait_for(pilot, lambda: args.exists() and args.read_text().strip(),
                           what="viewer started")
            pid = int(pidfile.read_text())
            try:
                # the viewer still runs, and keys are handled
                await pilot.press("s")
                await wait_for(pilot, lambda: app.main_screen.mode == "semantic", what="mode key")
                os.kill(pid, 0)   # still running: nothing waited for it
                assert args.read_text().strip() == \
                    f"{app.root}/{hit.doc}|{hit.page}"
            finally:
                os.kill(pid, 15)
            # a viewer that fails at once: its message is shown
            monkeypatch.setenv("PDFTUI_VIEWER", _viewer_script(
                tmp_path, 'echo "cannot open $1" >&2; exit 3'))
            await pilot.press("o")
            await wait_for(pilot, lambda: any("failed" in n.message and "cannot open" in
                                              n.message for n in app._notifications),
                           what="viewer error")
            assert app.is_running
    run(go())


def test_export_dialog_defaults_to_every_marked_document_as_the_cli(make_app):
    """``e``: the dialog starts on "any mark", as ``pdftui export`` does, and says how to
    export."""
    from textual.widgets import Select

    async def go():
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await pilot.press("escape", "e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
            assert app.screen.query_one("#export-marked", Select).value == "any"
            assert "Enter in File exports" in app.screen.query_one("#export-box").border_subtitle
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.main_screen)
    run(go())


def test_export_dialog_offers_the_start_folder_then_the_last_export(make_app, tui_index,
                                                                     tmp_path, monkeypatch):
    """Trials: the export dialog offered a file cut to the box's width, then one in the
    documents folder (``<corpus>/corpus-reading-list.md``: a shared, maybe read-only
    folder). It now offers the folder pdftui was started from, never the documents
    folder unless chosen, shows the full path it writes on its own line, and next time
    (after a restart too: the path is kept with the folder's session in the user data)
    offers the file last exported to, in its format."""
    from textual.widgets import Select

    folder, _cache = tui_index
    start = tmp_path / "work"
    start.mkdir()
    monkeypatch.chdir(start)   # where pdftui is started from
    out = tmp_path / "lists" / "mine.bib"
    out.parent.mkdir()

    async def first() -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await pilot.press("escape", "e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
            screen = app.screen
            path = screen.query_one("#export-path")
            assert path.value == str(start / "papers-reading-list.md")
            assert not path.value.startswith(str(folder))
            full = screen.query_one("#export-full")
            shown = "".join(full.render_line(y).text for y in range(full.size.height))
            assert "".join(shown.split()) == "writes" + str(start / "papers-reading-list.md")
            path.value = str(out)
            path.focus()
            await pilot.pause()
            assert str(out) in str(full.render())
            screen.query_one("#export-format", Select).value = "bibtex"
            screen.query_one("#export-marked", Select).value = "all"   # nothing is marked
            await pilot.pause()
            assert path.value == str(out)   # a file typed is kept when the format changes
            await pilot.press("enter")
            await wait_for(pilot, lambda: out.exists() and main.triage.last_export == str(out),
                           what="the export written")
            await pilot.press("ctrl+q")

    async def second() -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await wait_for(pilot, lambda: main.triage.last_export == str(out), what="session")
            await pilot.press("escape", "e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
            assert app.screen.query_one("#export-path").value == str(out)
            assert app.screen.query_one("#export-format", Select).value == "bibtex"
            app.screen.query_one("#export-format", Select).value = "markdown"
            await pilot.pause()
            assert app.screen.query_one("#export-path").value == str(
                out.parent / "papers-reading-list.md")   # the last export's folder
    run(first())
    run(second())


def test_a_note_needs_something_to_attach_to(make_app, data_dir):
    """Fresh-user finding: ``a`` opened the note editor with nothing selected (an empty
    reader, while the results held hits it could not see). Now it says what it needs and
    opens no editor; with a hit under the cursor it still opens on that hit's document."""
    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await search(pilot, "attention")
            app.main_screen.show_pane("reader")            # nothing open in the reader
            await pilot.pause(0.1)
            assert app.query_one(ReaderPane).view is None
            assert app.main_screen.current_pane() == "reader"
            await pilot.press("a")
            await pilot.pause(0.2)
            assert not isinstance(app.screen, NoteScreen)
            said = [n.message for n in app._notifications]
            assert any("select a hit or a document, or open a page" in m for m in said), said
            await pilot.press("plus")          # nor is a mark set on an unseen hit
            await pilot.pause(0.2)
            assert not app.main_screen.triage.marks()
            app.main_screen.show_pane("results")
            await wait_for(pilot, lambda: isinstance(app.focused, HitTable), what="results")
            await pilot.press("a")
            await wait_for(pilot, lambda: isinstance(app.screen, NoteScreen), what="editor")
    run(go())


def test_export_dialog_offers_all_documents_and_says_enter_and_esc(make_app, tmp_path):
    """Fresh-user finding: the export dialog offered only marked documents and showed no
    Enter / Esc hint in its body. "all documents" exports every document of the folder
    (as ``pdftui export --marked all``); the hint line fits 80 columns."""
    from textual.widgets import Select

    out = tmp_path / "all.csv"

    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("escape", "e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
            screen = app.screen
            hint = screen.query_one("#export-hint")
            text = str(hint.render())
            assert "Enter in File exports" in text and "Esc cancels" in text
            assert len(text) <= hint.content_region.width, (text, hint.content_region)
            marked = screen.query_one("#export-marked", Select)
            assert ("all documents", "all") in [(str(a), b) for a, b in marked._options]
            marked.value = "all"
            screen.query_one("#export-format", Select).value = "csv"
            await pilot.pause()
            path = screen.query_one("#export-path")
            path.value = str(out)
            path.focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: out.exists(), what="the export written")
            assert len(app.main_screen.folder.documents) == 4
            rows = out.read_text(encoding="utf-8").strip().splitlines()
            assert len(rows) == 1 + len(app.main_screen.folder.documents), rows
    run(go())


def test_export_dialog_asks_before_replacing_a_file(make_app, tmp_path):
    """Fresh-user finding: an export over an existing file replaced it without a word.
    The first Enter says the file exists; a second Enter replaces it."""
    out = tmp_path / "list.md"
    out.write_text("my own notes\n", encoding="utf-8")

    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("escape", "e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
            screen = app.screen
            from textual.widgets import Select

            screen.query_one("#export-marked", Select).value = "all"   # nothing is marked
            path = screen.query_one("#export-path")
            path.value = str(out)
            path.focus()
            await pilot.press("enter")
            await pilot.pause(0.3)
            assert isinstance(app.screen, ExportScreen)
            assert "exists: Enter again replaces it" in str(
                screen.query_one("#export-hint").render())
            assert out.read_text(encoding="utf-8") == "my own notes\n"
            await pilot.press("enter")
            await wait_for(pilot, lambda: "Reading list" in out.read_text(encoding="utf-8"),
                           what="the export written")
    run(go())


def test_marks_and_notes_made_by_another_process_show_up(make_app, tui_index, data_dir):
    """Fresh-user finding: two TUIs on one data dir; a mark made in one was not seen by
    the other until it restarted. Another connection's writes (another TUI, ``pdftui
    mark``) are picked up within a few seconds, by the store's data version read off the
    UI thread; the app's own writes keep working."""
    folder, _cache = tui_index

    async def go():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await wait_for(pilot, lambda: main.triage.triage_version is not None, what="first poll")
            assert not main.triage.marks()
            with TriageStore(data_dir) as other:         # the second TUI
                other.set_mark(DocKey.of(folder, ATTENTION), Mark.KEEP)
                other.set_note(DocKey.of(folder, ATTENTION), "seen elsewhere")
            await wait_for(pilot, lambda: main.triage.marks().get(ATTENTION) == "keep",
                           timeout=10, what="the other process's mark")
            assert main.triage.by_doc[ATTENTION].note == "seen elsewhere"
            lst = app.query_one(DocList)
            await wait_for(pilot, lambda: "+" in str(lst.get_option_at_index(
                next(i for i in range(lst.option_count)
                     if lst.get_option_at_index(i).id == ATTENTION)).prompt),
                what="the mark in the documents list")
            with TriageStore(data_dir) as other:
                other.set_mark(DocKey.of(folder, ATTENTION), Mark.NONE)
            await wait_for(pilot, lambda: ATTENTION not in main.triage.marks(), timeout=10,
                           what="the mark cleared elsewhere")
    run(go())


def test_a_clip_takes_the_paragraph_not_the_heading_or_labels_above_it(make_app, tui_index):
    """A section opened from a sections hit starts with its heading; a page can start with
    a figure's labels. `y` took that first block ("2.2 Choosing a Value", "60": a trial
    user's clips); it takes the first paragraph of at least 8 words from there."""
    from pdftui.tui.read_view import prose_from

    blocks = ["2.2 Choosing a Value", "60", "GFS master",
              "The simplest way to choose a value is to have a single acceptor agent."]
    assert prose_from(blocks, 0) == 3
    assert prose_from(blocks, 3) == 3
    assert prose_from(["Legend", "x", "y"], 0) == 0   # nothing longer: as it was

    async def go():
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await pilot.press("p")   # sections
            await search(pilot, "multi-head attention")
            await pilot.press("enter")
            reader = app.query_one(ReaderPane)
            await wait_for(pilot, lambda: reader.view is not None
                           and app.query_one(ReaderBody).has_focus, what="reader")
            await pilot.pause(0.2)
            _doc, text, _page, _section = reader.current_paragraph()
            assert len(text.split()) >= 8, text

    run(go())


def test_x_then_star_at_once_searches_the_marked_scope(make_app, tui_index, data_dir):
    """Seventh trial: after a scope picked with Space, "x *" in one burst made the
    documents pane show the marked scope while searches covered the whole folder: the
    cleared scope, sent as a message, arrived after "*" had set the marked one. A scope
    message overtaken by a newer scope is ignored."""
    folder, _cache = tui_index
    _seed(data_dir, folder, {ATTENTION: Mark.KEEP})

    async def go():
        app = make_app()
        async with app.run_test(size=(160, 48)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await search(pilot, "the")
            main.show_pane("corpus")
            lst = app.query_one(DocList)
            await wait_for(pilot, lambda: lst.has_focus, what="documents")
            await pilot.press("space")
            await wait_for(pilot, lambda: len(main.scope) == 1, what="a scope by hand")
            from .test_input import send_keys
            send_keys(app, ["x", "asterisk"])
            await wait_for(pilot, lambda: main.scope_mark == "keep", what="marked scope")
            await pilot.pause(0.3)
            await wait_for(pilot, lambda: main.shown_key == main.search_key(), what="search")
            assert main.scope == (ATTENTION,) and main.scope_mark == "keep"
            assert app.query_one(CorpusPane).scope == {ATTENTION}
    run(go())


def test_o_in_a_section_view_opens_the_page_on_screen(tui_index, service, no_display):
    """Seventh trial: ``o`` in a section read whole offered ``#page=30`` with p. 32 on
    screen (the section's first page). It opens the page at the top of the screen."""
    from pdftui.tui.app import PdftuiApp
    from pdftui.tui.dialogs import CopyPathScreen

    folder, cache = tui_index

    async def go():
        app = PdftuiApp(folder, cache_dir=cache, watch=False, show_timings=False,
                        service=service, debounce=0.05)
        async with app.run_test(size=(80, 24)) as pilot:
            main = app.main_screen
            await settle(pilot)
            main.granularity = "section"
            data = await search(pilot, "attention")
            hit = next(h for h in data.hits if h.end_page - h.start_page >= 2)
            main.open_hit(hit)
            reader = app.query_one(ReaderPane)
            await wait_for(pilot, lambda: reader.view is not None
                           and reader.view.request.section_id == hit.section_id, what="read")
            main.show_pane("reader")
            for _ in range(40):
                if (reader.top_page or 0) > reader.view.start_page:
                    break
                await pilot.press("pagedown")
                await pilot.pause(0.05)
            top = reader.top_page
            assert top and top > reader.view.start_page
            await pilot.press("o")
            await wait_for(pilot, lambda: isinstance(app.screen, CopyPathScreen),
                           what="the path dialog")
            assert app.screen.shown.endswith(f"#page={top}"), (app.screen.shown, top)
    run(go())


def test_an_export_started_in_the_documents_folder_goes_home(tmp_path, monkeypatch):
    """Eleventh trial: pdftui started inside the PDF folder offered
    ``<corpus>/corpus-reading-list.md``: the documents folder is never the default, the
    home folder is (the last export's folder still comes first)."""
    from pdftui.tui.dialogs import export_dir

    docs, home, lists = tmp_path / "papers", tmp_path / "home", tmp_path / "lists"
    for d in (docs / "sub", home, lists):
        d.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert export_dir(str(docs), "", str(docs)) == str(home)
    assert export_dir(str(docs / "sub"), "", str(docs)) == str(home)
    assert export_dir(str(lists), "", str(docs)) == str(lists)
    assert export_dir(str(docs), str(lists / "a.bib"), str(docs)) == str(lists)


def test_an_export_named_for_another_format_is_written_in_it(make_app, tmp_path,
                                                              monkeypatch):
    """Eleventh trial: BibTeX chosen, the file renamed "mylist.md", BibTeX was written
    into mylist.md without a word. The name's extension decides the format, and the
    notification says which."""
    from textual.widgets import Select

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "mylist.md"

    async def go() -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            main = app.main_screen
            await settle(pilot)
            await pilot.press("escape", "e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
            app.screen.query_one("#export-format", Select).value = "bibtex"
            await pilot.pause()
            app.screen.query_one("#export-marked", Select).value = "all"
            path = app.screen.query_one("#export-path")
            path.value = str(out)
            path.focus()
            await pilot.pause()
            # twelfth trial: the list still read BibTeX until Enter
            assert app.screen.query_one("#export-format", Select).value == "markdown"
            assert path.value == str(out)
            await pilot.press("enter")
            await wait_for(pilot, lambda: main.triage.last_export == str(out), what="export")
            text = out.read_text(encoding="utf-8")
            assert text.startswith("# Reading list") and "@" not in text.split("\n")[0]
            said = [n.message for n in app._notifications]
            assert any("as Markdown reading list" in m for m in said), said
    run(go())


def test_keys_after_o_wait_for_its_dialog(make_app, no_display):
    """Eleventh trial: "o" then "l" in one burst (Tab "google") opened the path's dialog
    over "More like this": the viewer is tried in a worker, and "l" ran on the results
    meanwhile. The keys read after "o" wait for its outcome and act on its dialog."""
    from pdftui.tui.citations_screen import CitationsScreen
    from pdftui.tui.dialogs import CopyPathScreen

    from .test_input import send_keys


    async def go():
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await search(pilot, "multi-head attention")
            send_keys(app, ["o", "l", "e"])
            await wait_for(pilot, lambda: isinstance(app.screen, CopyPathScreen),
                           what="the path dialog")
            await pilot.pause(0.3)
            assert not any(isinstance(s, (CitationsScreen, ExportScreen))
                           for s in app.screen_stack), app.screen_stack
    run(go())


def test_an_export_of_nothing_writes_no_file_and_says_so(make_app, tmp_path, monkeypatch):
    """Thirteenth trial: with nothing marked, the export dialog's default ("marked or
    noted") silently wrote an empty list. Nothing is written, and the notification says
    why and how to export every document."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "empty.md"

    async def go() -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("escape", "e")
            await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
            path = app.screen.query_one("#export-path")
            path.value = str(out)
            path.focus()
            await pilot.pause()
            await pilot.press("enter")
            await wait_for(pilot, lambda: any("No documents to export" in n.message
                                              for n in app._notifications), what="said")
            assert not out.exists()
            assert app.main_screen.triage.last_export != str(out)
    run(go())
