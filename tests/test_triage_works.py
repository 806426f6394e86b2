"""Works: versions of one paper share their triage (pdftui.triage.works), merged from
per-file records and written to every file of the work (the store's work methods)."""

from __future__ import annotations

from types import SimpleNamespace

from pdftui.triage.store import Clip, DocKey, DocTriage, Mark, TriageStore
from pdftui.triage.works import merge, merge_works, newest, siblings, works_of

V5 = "arxiv-1706.03762v5-attention-is-all-you-need.pdf"
V7 = "arxiv-1706.03762v7-attention-is-all-you-need.pdf"
OTHER = "arxiv-1512.03385-resnet.pdf"


def _docs():
    return [SimpleNamespace(doc=V5, title="Attention Is All You Need"),
            SimpleNamespace(doc=V7, title="Attention Is All You Need"),
            SimpleNamespace(doc=OTHER, title="Deep Residual Learning for Image Recognition")]


def test_versions_are_one_work_and_the_newest_stands_for_it():
    works = works_of(_docs())
    assert works[V5] == works[V7] != works[OTHER]
    assert siblings(works, V7) == [V5, V7] and siblings(works, OTHER) == [OTHER]
    assert siblings(works, "unknown.pdf") == ["unknown.pdf"]
    assert newest([V7, V5]) == V7 and newest([V5]) == V5
    assert newest(["papermage-2023-11-revised.pdf", "papermage-2023-08-draft.pdf"]) == \
        "papermage-2023-11-revised.pdf"


def test_a_mark_on_one_file_holds_for_the_work_and_the_latest_mark_wins():
    """Records written per file (an older pdftui marked v7 alone): read, v5 shows the
    mark too; two files with different marks show the one changed last; distinct notes
    are kept, joined; every file's clips are the work's, each naming its file."""
    works = works_of(_docs())
    per_file = {V5: DocTriage(), V7: DocTriage(Mark.KEEP, updated_at=5.0),
                OTHER: DocTriage(Mark.SKIP, updated_at=1.0)}
    merged = merge_works(per_file, works)
    assert merged[V5].mark is merged[V7].mark is Mark.KEEP
    assert merged[OTHER].mark is Mark.SKIP
    t = merge([(V5, DocTriage(Mark.SKIP, "first", [Clip("a", 1, id=1, created_at=2.0)], 9.0)),
               (V7, DocTriage(Mark.KEEP, "second", [Clip("b", 2, id=2, created_at=1.0)], 3.0))])
    assert t.mark is Mark.SKIP and t.note == "second\n\nfirst" and t.updated_at == 9.0
    assert [(c.text, c.doc) for c in t.clips] == [("b", V7), ("a", V5)]
    assert merge([(V5, DocTriage(note="same")), (V7, DocTriage(note="same"))]).note == "same"


def test_the_store_marks_notes_and_deletes_clips_of_a_work_at_once(tmp_path):
    keys = [DocKey.of(tmp_path, V5, "5" * 64), DocKey.of(tmp_path, V7, "7" * 64)]
    with TriageStore(tmp_path / "data") as store:
        store.set_mark(keys[1], Mark.KEEP)                       # the old way: one file
        clip = store.add_clip(keys[0], Clip("from v5", 3, "3"))
        store.mark_work(keys, Mark.TO_READ)
        store.note_work(keys, "one note")
        assert [store.get(k).mark for k in keys] == [Mark.TO_READ] * 2
        assert [store.get(k).note for k in keys] == ["one note"] * 2
        assert not store.delete_work_clip(keys, 999)
        assert store.delete_work_clip(keys, clip.id)
        assert not store.get(keys[0]).clips
        # a copy of v5 in another folder (same bytes) keeps the work's mark
        copy = DocKey.of(tmp_path / "elsewhere", V5, "5" * 64)
        assert store.get(copy).mark is Mark.TO_READ
