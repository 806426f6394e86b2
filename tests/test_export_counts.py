"""The count line at the head of a Markdown reading list."""

from __future__ import annotations

from pdftui.triage.export import ExportItem, to_markdown
from pdftui.triage.store import Mark


def _item(name: str, mark: Mark) -> ExportItem:
    return ExportItem(name, f"/papers/{name}", name.removesuffix(".pdf"), (), 2020, mark=mark)


def test_a_list_of_skipped_papers_counts_them_as_its_documents():
    """Fresh-user finding: ``export --marked skip`` headed its one paper "0 documents · 1
    skipped". A list holding only skipped papers counts them; beside others they are
    counted apart."""
    only = to_markdown([_item("a.pdf", Mark.SKIP)]).splitlines()[2]
    assert only.startswith("1 skipped document ·"), only
    both = to_markdown([_item("a.pdf", Mark.SKIP), _item("b.pdf", Mark.KEEP),
                        _item("c.pdf", Mark.KEEP)]).splitlines()[2]
    assert both.startswith("2 documents · 1 skipped ·"), both
