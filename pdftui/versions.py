"""Versions of one paper in a folder (arXiv v5 / v7, two copies of one title), and the
hits of such versions found at one place folded into one.

Pure functions over file names, titles and hits (no Textual, no rich): the TUI's results
list (:mod:`pdftui.tui.hit_rows`) and ``pdftui search`` (its table and ``--json``) fold by
the same rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .headings import strip_number
from .text import clean_text

if TYPE_CHECKING:
    from .search.hits import Hit

#: "arxiv-1706.03762v5-…" -> ("1706.03762", "5"); old style "quant-ph-9508027v2" too.
_ARXIV_RE = re.compile(r"(\d{4}\.\d{4,5}|[a-z-]+[-/]\d{7})v(\d+)", re.IGNORECASE)
_VERSION_HINT_RE = re.compile(r"(?:\d{4}\.\d{4,5}|\d{7})v\d", re.IGNORECASE)
_NOT_ALNUM_RE = re.compile(r"[^0-9a-z]+")

#: doc -> ``(group key, version label)`` for each document that has another version in
#: the folder (:func:`version_groups`); a document alone is not in it.
VersionGroups = dict[str, tuple[str, str]]


def version_of(doc: str) -> tuple[str, str]:
    """``(paper key, version label)`` from a file name: ("1706.03762", "v5") for
    "arxiv-1706.03762v5-attention.pdf"; ("", "") when the name carries no version."""
    name = doc.rsplit("/", 1)[-1]
    if not _VERSION_HINT_RE.search(name):   # what every match holds, found 20x faster
        return ("", "")
    m = _ARXIV_RE.search(name)
    return (m.group(1).lower(), f"v{m.group(2)}") if m else ("", "")


def _title_key(title: str) -> str:
    return _NOT_ALNUM_RE.sub("", clean_text(title).casefold())


def version_groups(documents: list) -> VersionGroups:
    """For each document (objects with ``doc`` and ``title``, e.g. ``DocumentInfo``) that
    has another version in the folder: doc -> ``(group key, label)``. Two documents are
    versions of one paper when their file names carry one arXiv id with different
    versions, or when they have the same title (12 letters or more); the label is the
    "vN" of the name, else the file name. One pass of Python per document (0.5 s at
    10,000 documents on a busy 2-core box)."""
    keys: dict[str, str] = {}
    names = {d.doc: version_of(d.doc) for d in documents}
    # documents with one title but different arXiv keys are still one paper
    by_title: dict[str, set[str]] = {}
    for d in documents:
        paper, _ = names[d.doc]
        title = _title_key(getattr(d, "title", "") or "")
        if len(title) < 12:
            title = ""
        key = f"arxiv:{paper}" if paper else (f"title:{title}" if title else "")
        keys[d.doc] = key
        if title:
            by_title.setdefault(title, set()).add(key)
    merged = {k: min(v) for v in by_title.values() if len(v) > 1 for k in v}
    keys = {doc: merged.get(k, k) for doc, k in keys.items()}
    count: dict[str, int] = {}
    for k in keys.values():
        if k:
            count[k] = count.get(k, 0) + 1
    out = {}
    for doc, k in keys.items():
        if k and count[k] > 1:
            label = names[doc][1] or clean_text(doc.rsplit("/", 1)[-1])
            out[doc] = (k, label)
    return out


def count_works(docs: Iterable[str], groups: VersionGroups) -> int:
    """How many works ``docs`` (folder-relative paths) hold: versions of one paper in
    ``groups`` (:func:`version_groups`) count once, every other document once."""
    return len({groups[d][0] if d in groups else f"doc:{d}" for d in docs})


def same_place(hit: Hit) -> tuple:
    """Where a hit was found, as versions are compared (:func:`place`)."""
    return place(hit.page, hit.section)


def place(page: int | None, section: str | None) -> tuple:
    """Where a hit on ``page`` (1-based) in ``section`` was found, as versions are
    compared: a page hit (``section`` None) by its page; a section hit by its title
    without its number, case folded, whatever its pages ("3.2.1 Scaled Dot-Product
    Attention" on p. 4 of v5 is "Scaled Dot-Product Attention" on p. 4-5 of v7, whose
    outline drops the numbers and whose pages shift: section mode listed the paper in 3
    of its first 4 rows); an untitled section by its page."""
    title = strip_number(section or "").strip().casefold()
    return (None, title) if title else (page, "")


@dataclass
class Fold:
    """One hit shown for the hits of versions of one paper found at one place.

    ``hit``: its index in the hits (the best ranked of them); ``folded``: the indices of
    the others, in rank order; ``versions``: the version labels ("v7", "v5") of all of
    them in rank order when more than one, else []."""

    hit: int
    folded: list[int] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)


def fold_versions(hits: list[Hit], groups: VersionGroups) -> list[Fold]:
    """The hits in rank order, a hit of another version of a paper at the same place
    (:func:`same_place`) as a better one folded into that one's :class:`Fold`."""
    folds: list[Fold] = []
    seen: dict[tuple, Fold] = {}
    for i, h in enumerate(hits):
        group = groups.get(h.doc)
        if group is None:
            folds.append(Fold(i))
            continue
        key = (group[0], *same_place(h))
        if key in seen and all(hits[j].doc != h.doc for j in (seen[key].hit,
                                                             *seen[key].folded)):
            fold = seen[key]   # another version at that place (one hit a version)
            fold.folded.append(i)
            if group[1] not in fold.versions:
                fold.versions.append(group[1])
            continue
        fold = Fold(i, [], [group[1]])
        seen.setdefault(key, fold)
        folds.append(fold)
    for fold in folds:
        if len(fold.versions) < 2:
            fold.versions = []
    return folds


def other_versions(hits: list[Hit], groups: VersionGroups) -> list[list[dict]]:
    """For each hit (by index), the hits of other versions found at its place, as
    ``[{"rank", "doc", "version"}]`` (rank order; [] for a hit with none): what
    ``pdftui search --json`` adds to each hit as ``"other_versions"``."""
    out: list[list[dict]] = [[] for _ in hits]
    for fold in fold_versions(hits, groups):
        members = [fold.hit, *fold.folded]
        if len(members) < 2:
            continue
        for i in members:
            out[i] = [{"rank": hits[j].rank, "doc": hits[j].doc,
                       "version": groups[hits[j].doc][1]}
                      for j in members if hits[j].doc != hits[i].doc]
    return out
