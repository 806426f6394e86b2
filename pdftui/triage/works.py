"""Works: the versions of one paper in a folder (arXiv v5 / v7, two files of one title)
are one work for the user's triage.

A work's mark, note and clips are those of all its files together: marking a work writes
the mark to the record of every file of it (one transaction,
:meth:`pdftui.triage.store.TriageStore.mark_work`), so a copy of one version taken to
another folder keeps it; reading merges the files' records (:func:`merge`), so a mark
stored on one file only (by an older pdftui, or a version added to the folder later)
holds for the whole work. Which files are versions of one paper is
:func:`pdftui.versions.version_groups` (the rule the results list folds hits by).

Pure functions over ``doc`` names and :class:`~pdftui.triage.store.DocTriage` values: no
SQLite, no Textual.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from ..versions import VersionGroups, version_groups, version_of
from .store import DocTriage, Mark

#: doc -> work key: a document's key is its version group's (:func:`version_groups`),
#: else ``doc:<doc>`` (a work of one file).
Works = dict[str, str]


def works_of(documents: Iterable, groups: VersionGroups | None = None) -> Works:
    """``{doc: work key}`` for the documents (objects with ``doc`` and ``title``, e.g.
    ``DocumentInfo``); ``groups`` is their :func:`version_groups` when already known
    (computed here otherwise)."""
    documents = list(documents)
    if groups is None:
        groups = version_groups(documents)
    return {d.doc: groups[d.doc][0] if d.doc in groups else f"doc:{d.doc}"
            for d in documents}


def members(works: Works) -> dict[str, list[str]]:
    """``{work key: [doc, ...]}`` in the order of ``works`` (the folder's)."""
    out: dict[str, list[str]] = {}
    for doc, work in works.items():
        out.setdefault(work, []).append(doc)
    return out


def siblings(works: Works, doc: str) -> list[str]:
    """The files of ``doc``'s work in folder order (``[doc]`` for a work of one file or a
    document ``works`` does not know)."""
    work = works.get(doc)
    if work is None:
        return [doc]
    return [d for d, w in works.items() if w == work]


def newest(docs: list[str]) -> str:
    """The file that stands for a work: the highest arXiv version ("…v7-…" over
    "…v5-…"), else the last name in sort order (``papermage-2023-11-revised`` over
    ``…-08-draft``)."""
    return by_version(docs)[-1]


def by_version(docs: Iterable[str]) -> list[str]:
    """``docs`` (one work's files) oldest first: by arXiv version ("…v5-…" before
    "…v7-…", v10 after v9), else by name."""
    def order(doc: str) -> tuple[int, str]:
        label = version_of(doc)[1]
        return (int(label[1:]) if label[1:].isdigit() else -1, doc)

    return sorted(docs, key=order)


def merge(triages: list[tuple[str, DocTriage]]) -> DocTriage:
    """One work's triage from its files' ``(doc, DocTriage)``: the mark of the most
    recently changed file that has one (the files agree once the work is marked: every
    file gets the mark), the distinct notes oldest first joined by a blank line (one
    note once edited: the edit is written to every file), every file's clips by time,
    each with its ``doc``; ``updated_at`` the latest."""
    if len(triages) == 1:
        doc, t = triages[0]
        return DocTriage(t.mark, t.note, [_with_doc(c, doc) for c in t.clips], t.updated_at)
    by_time = sorted(triages, key=lambda dt: dt[1].updated_at)
    marked = [t for _d, t in by_time if t.mark is not Mark.NONE]
    notes: list[str] = []
    for _d, t in by_time:
        if t.note.strip() and t.note not in notes:
            notes.append(t.note)
    clips = sorted((_with_doc(c, d) for d, t in triages for c in t.clips),
                   key=lambda c: (c.created_at, c.id or 0))
    return DocTriage(marked[-1].mark if marked else Mark.NONE, "\n\n".join(notes), clips,
                     max((t.updated_at for _d, t in triages), default=0.0))


def _with_doc(clip, doc: str):
    return clip if clip.doc == doc else dataclasses.replace(clip, doc=doc)


def merge_works(triage: dict[str, DocTriage], works: Works) -> dict[str, DocTriage]:
    """``{doc: DocTriage}`` per file (:meth:`~pdftui.triage.store.TriageStore.lookup`)
    -> the same docs, each with its work's merged triage (:func:`merge`); a doc
    ``works`` does not know keeps its own."""
    out: dict[str, DocTriage] = {}
    groups = members({d: w for d, w in works.items() if d in triage})
    for docs in groups.values():
        merged = merge([(d, triage[d]) for d in docs])
        for d in docs:
            out[d] = merged
    for doc, t in triage.items():
        out.setdefault(doc, merge([(doc, t)]))
    return out
