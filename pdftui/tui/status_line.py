"""What the main screen's two status widgets say: the mode badge beside the search box
(the three modes, the one in use reversed, and the granularity) and the status line below
it (documents ready, queued, skipped, embedding; the indexing state; the search scope).
Pure functions over the screen's state, returning Rich text.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from ..text import clean_text
from ..versions import VersionGroups, count_works

if TYPE_CHECKING:
    from ..library import DocumentInfo

#: The ranking modes, in the badge's order.
MODES = ("keyword", "semantic", "hybrid")


def mode_badge(mode: str, granularity: str) -> Text:
    """" keyword  semantic  hybrid  pages": ``mode`` reversed, the others dim."""
    badge = Text()
    for m in MODES:
        style = "bold reverse" if m == mode else "dim"
        badge.append(f" {m} ", style=style)
    badge.append(f" {granularity}s", style="dim")
    return badge


def scope_names(scope: Sequence[str], titles: dict[str, str], room: int) -> str:
    """The scoped documents ``scope`` by title (``titles``: doc -> name shown; the file
    name where there is none), the first two and "+N", cut to ``room`` columns so the
    status line's hint stays on screen."""
    names = ", ".join(clean_text(titles.get(d) or Path(d).name) for d in scope[:2])
    more = f" +{len(scope) - 2}" if len(scope) > 2 else ""
    room = max(8, room - len(more))
    return (names if len(names) <= room else names[: room - 1] + "…") + more


def scope_label(scope: Sequence[str], scope_mark: str | None, titles: dict[str, str],
                versions: VersionGroups | None = None) -> str:
    """The coverage line's name of the search scope ``scope``: "scope: marked keep",
    "scope: <the document's title>" (one work, whatever its versions), "scope: 3
    works (4 files)", "scope: 3 documents", or "" for the whole folder (the status line
    names the documents). Versions of one paper in ``versions`` count once."""
    if not scope:
        return ""
    if scope_mark:
        return f"scope: marked {scope_mark}"
    works = count_works(scope, versions or {})
    if works == 1:
        return "scope: " + scope_names(scope[:1], titles, 30)
    return f"scope: {works} works ({len(scope)} files)" if works != len(scope) \
        else f"scope: {len(scope)} documents"


def status_text(docs: Sequence[DocumentInfo], loaded: bool, index_status: str,
                scope: Sequence[str], scope_mark: str | None, titles: dict[str, str],
                width: int, versions: VersionGroups | None = None) -> Text:
    """The status line: the documents ``docs`` by state (``loaded``: the first document
    list has arrived), the indexing state ``index_status`` and the search scope (named
    within ``width`` columns; a marked scope counts works: versions of one paper in
    ``versions`` count once)."""
    ready = sum(1 for d in docs if d.status in ("indexed", "embedding"))
    skipped = sum(1 for d in docs if d.status not in ("indexed", "embedding", "queued"))
    queued = sum(1 for d in docs if d.status == "queued")
    out = Text()
    if not docs and not loaded:
        out.append("loading the documents…", style="bold")
    else:
        out.append(f"{ready} documents", style="bold")
    if queued:
        out.append(f" · {queued} queued")
    if skipped:
        out.append(f" · {skipped} skipped")
    embedding = [d for d in docs if d.status == "embedding"]
    if embedding:
        out.append(f" · {len(embedding)} embedding")
    if index_status:
        out.append(" · ")
        out.append(Text(index_status, style="italic"))
    if scope_mark:
        out.append(" · scope: ", style="bold")
        works = count_works(scope, versions or {})
        out.append(f"marked {scope_mark} ({works}" + (
            f" work{'s' if works != 1 else ''}, {len(scope)} files)"
            if works != len(scope) else ")"))
        out.append("  (* next · x clears)", style="dim")
    elif scope:
        out.append(" · scope: ", style="bold")
        out.append(scope_names(scope, titles, width - out.cell_len - 14))
        out.append("  (x clears)", style="dim")
    return out
