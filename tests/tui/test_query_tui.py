"""Pilot tests of the query syntax in the TUI: phrases highlighted whole, the weak banner,
"did you mean" with F2, and the unfinished last word matched as a prefix while typing."""

from __future__ import annotations

import asyncio

from pdftui.tui.results_pane import ResultsPane

from .conftest import MARKUP_DOC as MARKUP, search, settle, wait_for


def run(coro):
    return asyncio.run(coro)


def coverage_lines(app) -> list[str]:
    cov = app.query_one("#coverage")
    return [cov.render_line(y).text.strip() for y in range(cov.size.height)]


def test_phrase_hits_hold_the_phrase_and_it_is_highlighted_whole(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            data = await search(pilot, '"scaled dot-product attention"')
            assert data.hits
            for h in data.hits:
                assert "scaled dot-product attention" in " ".join(h.excerpt.lower().split())
            pane = app.query_one(ResultsPane)
            m = pane.pattern.search("We call it Scaled Dot-Product Attention here")
            assert m and m.group(0) == "Scaled Dot-Product Attention"
            assert not pane.pattern.search("scaled the attention")
    run(go())


def test_exclusion_and_weak_banner(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            data = await search(pilot, "lorem ipsum dolor sit amet")
            assert data.weak is True
            assert coverage_lines(app)[0] == "no strong match: nearest pages"
            data = await search(pilot, "what dropout rate did the base model use")
            assert data.weak is False and data.hits
            assert coverage_lines(app)[0].startswith("searched ")
            data = await search(pilot, "attention -transformer")
            assert data.coverage.excluded.terms == ("transformer",)
            assert any("excluded" in ln for ln in coverage_lines(app))
    run(go())


def test_f2_searches_the_suggested_spelling(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            main = app.main_screen
            await settle(pilot)
            data = await search(pilot, "dropuot rate")
            assert data.suggestions["dropuot"][0] == "dropout"
            assert any("did you mean: dropuot -> dropout" in ln for ln in coverage_lines(app))
            await pilot.press("f2")
            await wait_for(pilot, lambda: main.shown_key is not None
                           and main.shown_key.query == "dropout rate", what="the suggestion")
            assert app.query_one("#query").value == "dropout rate"
            assert app.query_one(ResultsPane).result.suggestions == {}
    run(go())


def test_typing_matches_the_last_word_as_a_prefix_and_keeps_the_list(make_app):
    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            data = await search(pilot, "dropo", submit=False)
            assert data.query == "dropo*" and data.hits
            assert any("dropout" in h.excerpt.lower() for h in data.hits)
            # Enter searches the words as typed
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.query_one(ResultsPane).result.query == "dropo",
                           what="the exact search")
            # while a new search runs the old list stays on screen (no flicker)
            pane = app.query_one(ResultsPane)
            before = pane.result
            app.main_screen.run_search(typing=True)
            assert pane.result is before and pane.hits == before.hits
    run(go())


def test_typing_past_a_words_stem_keeps_the_hits(make_app):
    """The index holds porter stems ("attent"): typing "attenti" or "attentio" (a
    prefix longer than the stem) still lists the pages "attention" finds, so the list
    does not empty for two keystrokes and refill when the word is complete."""
    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.action_mode("keyword")
            full = await search(pilot, "attention")
            want = {(h.doc, h.page) for h in full.hits}
            assert want
            for typed in ("attenti", "attentio", '"scaled dot-product attenti'):
                data = await search(pilot, typed, submit=False)
                assert data.query.rstrip('"').endswith("*"), data.query
                assert data.hits, typed
                missing = [h.excerpt[:120] for h in data.hits
                           if "attent" not in h.excerpt.lower()]
                assert not missing, (typed, missing)
                if not typed.startswith('"'):
                    assert {(h.doc, h.page) for h in data.hits} == want, typed
    run(go())


def test_the_coverage_line_says_what_a_field_or_a_scope_searched(make_app):
    """Fresh-user finding: with ``doc:`` the coverage line said "searched 4 of 4" (the
    whole folder) while one document was searched. It now counts the documents the field
    admitted and names the field, and names a scope picked in the documents pane."""
    from pdftui.tui.messages import ScopeChanged

    async def go():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            main = app.main_screen
            await settle(pilot)
            data = await search(pilot, "attention doc:attention")
            assert {h.doc for h in data.hits} == {
                "arxiv-1706.03762v5-attention-is-all-you-need.pdf"}
            lines = coverage_lines(app)
            assert lines[0].startswith("searched 1 of 4 · doc:attention · semantic 1 of 1"), \
                lines
            assert not any("doc:attention: 1 of 4 documents" in ln for ln in lines), lines
            main.post_message(ScopeChanged(("texlive-euler.pdf", MARKUP)))
            await wait_for(pilot, lambda: len(main.scope) == 2 and main.shown_key is not None
                           and main.shown_key == main.search_key(), what="scoped result")
            await search(pilot, "the")
            line = next(ln for ln in coverage_lines(app) if ln.startswith("searched"))
            assert line.startswith("searched 2 of 2 · scope: 2 documents"), line
            await search(pilot, "the doc:euler")
            line = next(ln for ln in coverage_lines(app) if ln.startswith("searched"))
            assert line.startswith("searched 1 of 2 · doc:euler · scope: 2 documents"), line
    run(go())
