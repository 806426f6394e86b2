"""The error family (pdftui/errors.py) and the TUI's one worker-failure path."""

from __future__ import annotations

import pytest

from pdftui import errors
from pdftui.cache import CacheError
from pdftui.library import NotFound
from pdftui.triage.store import TriageStoreError
from pdftui.triage.viewer import ViewerError


def test_every_kind_is_a_pdftui_error_and_keeps_its_builtin_base():
    assert CacheError is errors.CacheError and NotFound is errors.NotFound
    assert issubclass(CacheError, RuntimeError) and issubclass(NotFound, LookupError)
    assert issubclass(ViewerError, ValueError) and issubclass(errors.QueryError, ValueError)
    for kind in (CacheError, NotFound, TriageStoreError, ViewerError, errors.QueryError,
                 errors.EmbedderUnavailable, errors.PageImageError, errors.FolderError):
        assert issubclass(kind, errors.PdftuiError)


def test_user_message_names_only_unforeseen_errors():
    assert errors.user_message(NotFound("a.pdf has no page 9 (it has 3)")) == \
        "a.pdf has no page 9 (it has 3)"
    assert errors.user_message(RuntimeError("disk on fire")) == "RuntimeError: disk on fire"


def test_a_bad_mode_is_a_query_error(tmp_path):
    from pdftui.search.engine import Engine

    engine = Engine(tmp_path, cache_dir=tmp_path / "cache")
    try:
        with pytest.raises(errors.QueryError, match="mode must be one of"):
            engine.search("x", mode="fuzzy")
    finally:
        engine.close()


def test_failure_title_uses_the_workers_words_else_its_group():
    from pdftui.tui.failures import failure_title

    class W:   # the two attributes failure_title reads off a textual Worker
        def __init__(self, name, group):
            self.name, self.group = name, group

    assert failure_title(W("Saving the note", "triage")) == "Saving the note failed"
    assert failure_title(W("watch_folder", "watch")) == "watch failed"
    assert failure_title(W("", "")) == "worker failed"
