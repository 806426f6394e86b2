"""Messages that carry work results from workers and panes to the main screen.

They are dataclasses (Textual's :class:`~textual.message.Message` calls ``__post_init__``),
so a message is built like a record. Thread workers never touch widgets: they post one of
these and the main screen routes it. :class:`IndexProgress` can replace an older, not yet handled
:class:`IndexProgress`, so a burst of progress reports costs one repaint (toolong's habit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:   # the service, the indexer (and numpy) load when used, not with the UI
    from ..index.report import IndexSummary, Progress
    from ..library import DocumentInfo
    from ..search.hits import Hit, SearchResult
    from ..triage.store import DocTriage, Session
    from ..versions import VersionGroups


@dataclass
class IndexProgress(Message):
    """Background indexing progress, carrying :class:`pdftui.index.Progress` (one of them
    replaces a queued older one of the same phase)."""

    progress: Progress

    def can_replace(self, message: Message) -> bool:
        # Only the same phase coalesces: "extract" reports bring new documents (the corpus
        # pane refreshes on them), so an "embed" report must not swallow the last of them.
        return (isinstance(message, IndexProgress)
                and message.progress.phase == self.progress.phase)


@dataclass
class IndexFinished(Message):
    """A background indexing run ended with ``summary`` (None when it failed)."""

    summary: IndexSummary | None = None
    error: str = ""
    read_only: bool = False   # the cache cannot be written (read-only, full): reading works


@dataclass
class DocumentsLoaded(Message):
    """The documents of the folder as the cache knows them (``DocumentInfo`` list), with
    the name shown for each (``title_keys``) and their version groups
    (``pdftui.versions.version_groups``) when the loader computed them off the UI thread."""

    documents: list[DocumentInfo] = field(default_factory=list)
    names: dict[str, str] | None = None
    versions: VersionGroups | None = None


@dataclass
class DocumentVersions(Message):
    """The version groups (``pdftui.versions.version_groups``) of a document list just loaded."""

    documents: list[DocumentInfo] = field(default_factory=list)
    versions: VersionGroups = field(default_factory=dict)


@dataclass
class CitedCounts(Message):
    """How many of the folder's papers cite each document of a list just loaded
    (``{doc: N}``, :meth:`pdftui.citation_graph.CitationGraph.cited_counts`)."""

    documents: list[DocumentInfo] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


@dataclass
class FolderChanged(Message):
    """watchfiles saw PDFs added, edited, renamed or deleted in the folder."""

    paths: list[str] = field(default_factory=list)


@dataclass
class FolderPresence(Message):
    """The folder vanished (``present`` False: deleted, unmounted) or came back."""

    present: bool = False


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """What one search asks: the box's text (stripped), the mode ("hybrid", "keyword",
    "semantic"), the granularity ("page", "section") and the scope (documents searched;
    empty: the whole folder). Equal requests ask the same search."""

    query: str
    mode: str
    granularity: str
    scope: tuple[str, ...] = ()


@dataclass
class SearchDone(Message):
    """A search finished with ``result``; ``request`` is what it answers.

    ``provisional``: keyword hits shown while the embedding model loads for the first
    semantic or hybrid search (the real result follows). ``keep_cursor``: the list keeps
    its cursor; ``typing``: a search as you type (its last word a prefix)."""

    request: SearchRequest
    result: SearchResult
    provisional: bool = False
    keep_cursor: bool = False
    typing: bool = False


@dataclass
class ScopeChanged(Message):
    """The corpus pane's selection of documents changed (empty: the whole folder)."""

    docs: tuple[str, ...] = ()


@dataclass
class HitHighlighted(Message):
    """The cursor of the results table moved onto ``hit`` (None: no hit under it)."""

    hit: Hit | None


@dataclass
class OpenHit(Message):
    """Open ``hit`` in the reader."""

    hit: Hit


@dataclass
class PaneFocused(Message):
    """Focus moved into the pane called ``name`` ("corpus", "results" or "reader")."""

    name: str


@dataclass
class OpenDocument(Message):
    """Open document ``doc`` in the reader at page 1 with its table of contents, or at
    ``page`` (1-based) without it, scrolled to ``entry`` and marked when given."""

    doc: str
    page: int = 1
    entry: str = ""   # text on that page to scroll to and mark (a citing entry)


@dataclass
class TriageChanged(Message):
    """The mark, note or clips of ``doc`` changed (``triage`` is its ``DocTriage`` now);
    ``message`` is said in a notification."""

    doc: str
    triage: DocTriage
    message: str = ""


@dataclass
class SessionLoaded(Message):
    """The folder's last session (``Session`` or None) and its query history (newest first)."""

    session: Session | None
    history: list[str] = field(default_factory=list)
