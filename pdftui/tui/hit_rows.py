"""The rows of the results list: hits in rank order or grouped by document, with the
near-duplicate versions of one paper (arXiv v5 / v7, two copies of one title) collapsed.

Which documents are versions of one paper and which hits fold together is
:mod:`pdftui.versions` (shared with ``pdftui search``); this module lays those out as the
results pane's rows. Pure functions over the hits (:class:`pdftui.search.hits.Hit`)
(no Textual), so the results pane only draws what :func:`flat_rows` /
:func:`grouped_rows` return.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..versions import VersionGroups, fold_versions

if TYPE_CHECKING:
    from ..search.hits import Hit

#: Hits shown beneath a document in the grouped view until it is expanded.
BEST_PAGES = 3


@dataclass
class Row:
    """One row of the results list.

    ``kind``: "hit" (one hit, ``hit`` its index in the result's hits), "doc" (a document
    of the grouped view; ``hit`` is its best hit, ``count`` its hits, ``hidden`` how many
    are not shown beneath it), "more" (a hint that more hits can be fetched). ``versions``
    are the version labels ("v5", "v7", oldest first) this row stands for: a hit row's
    whenever its document has versions in the folder, a document row's when more than
    one.
    """

    kind: str
    hit: int | None
    doc: str
    versions: list[str] = field(default_factory=list)
    count: int = 0
    hidden: int = 0


def version_order(label: str) -> tuple:
    """Sort key of a version label, oldest first: "v5" before "v7" before "v10"; other
    labels (file names, which carry dates or "draft" / "revised") alphabetically after."""
    if label[:1] == "v" and label[1:].isdigit():
        return (0, int(label[1:]), "")
    return (1, 0, label)


def flat_rows(hits: list[Hit], groups: VersionGroups) -> list[Row]:
    """The hits in rank order; a hit of another version of a paper at the same place
    (page and section) as a better one is folded into that row, by
    :func:`pdftui.versions.fold_versions`. A row of a document that has versions in the
    folder carries the labels of the versions it stands for (one, or those folded into
    it), oldest first (:func:`version_order`)."""
    out = []
    for f in fold_versions(hits, groups):
        doc = hits[f.hit].doc
        labels = f.versions or ([groups[doc][1]] if doc in groups else [])
        out.append(Row("hit", f.hit, doc, sorted(labels, key=version_order)))
    return out


def grouped_rows(hits: list[Hit], groups: VersionGroups,
                 expanded: set[str], folded: set[str] = frozenset()) -> list[Row]:
    """One "doc" row per document (versions of one paper together), in the order of its
    best hit, each followed by its best :data:`BEST_PAGES` hits (all when its key is in
    ``expanded``, none when in ``folded``). A document's key is its group key, else its
    path."""
    order: list[str] = []
    members: dict[str, list[Row]] = {}
    labels: dict[str, list[str]] = {}
    for row in flat_rows(hits, groups):
        key = groups[row.doc][0] if row.doc in groups else row.doc
        if key not in members:
            order.append(key)
            members[key] = []
            labels[key] = []
        members[key].append(row)
        for v in row.versions:
            if v not in labels[key]:
                labels[key].append(v)
    out = []
    for key in order:
        rows = members[key]
        shown = [] if key in folded else rows if key in expanded else rows[:BEST_PAGES]
        versions = sorted(labels[key], key=version_order) if len(labels[key]) > 1 else []
        out.append(Row("doc", rows[0].hit, rows[0].doc, versions, len(rows),
                       len(rows) - len(shown)))
        out.extend(shown)
    return out


def group_key(row: Row, groups: VersionGroups) -> str:
    """The key :func:`grouped_rows` uses for the document of ``row``."""
    return groups[row.doc][0] if row.doc in groups else row.doc
