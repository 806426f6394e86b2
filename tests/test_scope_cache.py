"""The per-version lookups of the search engine (scope, searchable list, coverage) are built
once per cache version and rebuilt when an index run changes the cache."""

from __future__ import annotations

import shutil

from pdftui.index import index_folder
from pdftui.search.coverage import Note, NoteKind
from pdftui.search.engine import Engine

from .conftest import SMALL_DOCS, copy_docs, corpus_pdf


def test_coverage_and_scope_are_reused_until_a_re_index_changes_them(tmp_path):
    folder = copy_docs(tmp_path / "papers", SMALL_DOCS[:1])
    cache = tmp_path / "cache"
    index_folder(folder, cache, embed=False)
    engine = Engine(folder, cache)
    try:
        first = engine.search("dark matter", "keyword")
        assert first.coverage.total == first.coverage.searched == 1
        scope = engine.view.scope(None)
        searchable = engine.view.searchable(scope)
        view = engine.view.lookups(searchable)
        engine.search("cosmic microwave background", "keyword")
        # the same cache version: the same objects, no per-document rebuild
        assert engine.view.scope(None) is scope and engine.view.searchable(scope) is searchable
        assert engine.view.lookups(searchable) is view
        assert engine.view.scope(["*dark*"]) is engine.view.scope(["*dark*"])
        # each result gets its own coverage: a query's note is not the next one's
        a = engine.coverage(scope, True).add_note(Note(NoteKind.PARSER, "mine"))
        b = engine.coverage(scope, True)
        assert b.note is None and a.embedding == b.embedding
        # a second document indexed by another connection: every lookup is rebuilt
        shutil.copy(corpus_pdf(SMALL_DOCS[1]), folder / SMALL_DOCS[1])
        index_folder(folder, cache, embed=False)
        again = engine.search("dark matter", "keyword")
        assert again.coverage.total == again.coverage.searched == 2
        assert engine.view.scope(None) is not scope
        assert set(engine.view.lookups(engine.view.searchable(engine.view.scope(None))).by_doc) == \
            set(SMALL_DOCS[:2])
        assert sorted(again.coverage.embedding) == sorted(SMALL_DOCS[:2])
        # the document removed: gone from the coverage at once
        (folder / SMALL_DOCS[1]).unlink()
        index_folder(folder, cache, embed=False)
        gone = engine.search("dark matter", "keyword")
        assert gone.coverage.total == 1
        assert engine.search("dark matter", "hybrid").coverage.embedding == (SMALL_DOCS[0],)
    finally:
        engine.close()
