"""Keys typed while pdftui starts reach the search box: the image library's terminal
queries at import read the terminal's input, and "rotary position" typed as the app
opened showed "ry position" (fifth trial)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from pdftui.tui.typeahead import clean

CHILD = textwrap.dedent("""
    import sys, time
    sys.stdout.write("ready\\n"); sys.stdout.flush()
    time.sleep(1.0)   # the keys are typed meanwhile, as while the app starts
    from pdftui.tui import page_view, typeahead
    print("TYPED", repr(typeahead.take()), repr(typeahead.take()))
""")


def _typed_in_a_pty(child: str, cue: bytes, keys: bytes, done: bytes) -> str:
    """Run Python ``child`` on a real terminal (a pty), type ``keys`` once its output
    holds ``cue``, and return what it wrote until its output ends with ``done``."""
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-c", child], stdin=slave, stdout=slave,
                                stderr=subprocess.PIPE, start_new_session=True)
        os.close(slave)
        out = b""
        while cue not in out:
            out += os.read(master, 1024)
        os.write(master, keys)
        while b"TYPED" not in out or not out.rstrip().endswith(done):
            chunk = os.read(master, 4096)
            if not chunk:
                break
            out += chunk
        proc.wait(timeout=60)
    finally:
        os.close(master)
    return out.decode()


def test_keys_typed_before_the_image_library_loads_are_kept():
    """A real terminal (a pty): what is typed before ``pdftui.tui.page_view`` is imported
    comes back whole from :func:`typeahead.take`, once: the text up to Enter, then the
    keys from Enter on."""
    out = _typed_in_a_pty(CHILD, b"ready", "rotary position é\r\x1b[Bx\r".encode(), b"'')")
    # the terminal echoes the keys and shows the library's queries before the line
    # the text before Enter, then the Enter and the keys after it as sent
    # (the terminal reads each Enter as LF: both are Enters again, the last one too)
    assert "TYPED ('rotary position é', '\\r\\x1b[Bx\\r') ('', '')" in out, out


CHILD_ASKED = textwrap.dedent("""
    import sys
    sys.stdout.write("ready\\n"); sys.stdout.flush()
    from pdftui.tui import page_view, typeahead
    print("SHARP", page_view.sharp_images(), "TYPED", repr(typeahead.take()))
""")


def test_keys_typed_while_the_terminal_is_asked_are_kept():
    """Keys typed while the image library waits for the terminal's answers (before, inside
    and after the answer) are kept, and the answer is still read: "spa" typed as the app
    opened was read as a wrong answer and lost, "rse attention" searched (tenth check)."""
    # typed once the library asks for the terminal's attributes: keys, the answer
    # (sixel: attribute 4), keys; the size query is never answered
    out = _typed_in_a_pty(CHILD_ASKED, b"\x1b[c", b"sp\x1b[?62;4;22cars\r\x1b[Be", b")")
    assert "SHARP True TYPED ('spars', '\\r\\x1b[Be')" in out, out


def test_only_text_is_kept_of_what_was_typed():
    assert clean(b"ab\x1b[Acd\x1bOPef\x03\tg\r") == "abcdefg"
    assert clean("日本 x".encode()) == "日本 x"


def test_the_text_typed_at_start_is_the_query_and_the_session_does_not_replace_it(
        make_app, data_dir):
    """What was typed while the app started is in the search box when it is up, and the
    last session's query, restored after, does not replace it."""
    import asyncio

    from pdftui.tui import typeahead
    from pdftui.tui.reader_pane import ReaderPane
    from pdftui.tui.results_pane import ResultsPane

    from .conftest import search, settle, wait_for

    async def first():
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await search(pilot, "euler fonts")
            await pilot.press("q")

    async def second():
        # eighth trial: "query Enter Down Down Enter" typed at start-up lost the keys
        # after Enter: they are replayed, and act on the query's answer
        typeahead._pending, typeahead._tail = "attention", "\r\x1b[B\x1b[B\r"
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            main = app.main_screen
            await wait_for(pilot, lambda: main.triage.session_restored, what="session")
            assert app.query_one("#query").value == "attention"
            # seventh trial: the Enter typed after it was lost; it searches, as in the box
            await wait_for(pilot, lambda: main.shown_key is not None
                           and main.shown_key.query == "attention", what="the search")
            assert "attention" in main.triage.history
            results = app.query_one(ResultsPane)
            reader = app.query_one(ReaderPane)
            want = results.hits[results._rows[2].hit]
            await wait_for(pilot, lambda: reader.view is not None and (
                reader.view.request.doc, reader.view.page) == (want.doc, want.page),
                what="the answer's #3 opened")
    asyncio.run(first())
    asyncio.run(second())
