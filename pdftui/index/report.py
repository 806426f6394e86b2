"""What an index run reports: :class:`Progress` while it runs (to a progress callback,
:data:`ProgressFn`, called from the run's thread and its embedding thread) and
:class:`IndexSummary` when it is done.

Counts are documents, pages and embedding units; times are seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field


@dataclass(slots=True)
class Progress:
    """A progress report. ``phase`` is, in order: "scan" (listing the folder), "check"
    (comparing the ``docs_total`` PDFs found with the cache), "postings" (writing the
    keyword postings of documents indexed by a pdftui before them), "extract", "embed",
    "verify" (counting the units still without an embedding) or "done".

    Counts: documents to extract / extracted, pages extracted, embedding units to embed /
    embedded (in this run). ``current`` is the doc being worked on ('' when none). In the
    "embed" phase ``docs_total`` / ``docs_done`` count the documents to embed / fully
    embedded, and ``eta_s`` is the estimated embedding time left (seconds; None until the
    speed is known).
    """

    phase: str
    docs_total: int = 0
    docs_done: int = 0
    pages_done: int = 0
    units_total: int = 0
    units_done: int = 0
    current: str = ""
    eta_s: float | None = None
    #: Set while another process holds the embedding lease and this one follows it
    #: ("pid 1234 on host"); the unit counts are then the holder's.
    following: str = ""
    #: "embed": the documents whose units are counted in ``units_total`` so far (a
    #: document's units are counted when its turn to embed comes).
    docs_planned: int = 0
    #: "embed": model tokens (special tokens included) of the units counted in
    #: ``units_total`` / embedded so far by this run; the ETA is reckoned in them.
    tokens_total: int = 0
    tokens_done: int = 0

    def units_text(self) -> str:
        """``"128/367"``; ``"0/30+"`` while documents still to embed have not had their
        units counted, so the total is still growing."""
        more = self.phase == "embed" and self.docs_planned < self.docs_total
        return f"{self.units_done}/{self.units_total}" + ("+" if more else "")

    def embed_status(self) -> str:
        """The embedding phase in a few words for a status line at 80 columns:
        ``"embedding 2/6 documents, ETA 41 s"``; while following another process (whose
        document counts are not published) its units: ``"embedding: another pdftui runs
        it, 192/1429 units"``."""
        if self.following:
            return f"embedding: another pdftui runs it, {self.units_text()} units"
        if not self.docs_total:
            return f"embedding {self.units_text()} units"
        eta = f", {format_eta(self.eta_s)}" if self.eta_s is not None else ""
        return f"embedding {self.docs_done}/{self.docs_total} documents{eta}"

    def embed_note(self) -> str:
        """``", 12/105 documents done, ETA 3 min"`` for an "embed" report ('' parts left
        out when unknown)."""
        parts = []
        if self.phase == "embed" and self.docs_total:
            parts.append(f"{self.docs_done}/{self.docs_total} documents done")
        if self.phase == "embed" and self.eta_s is not None:
            parts.append(format_eta(self.eta_s))
        if self.phase == "embed" and self.following:
            parts.append(f"following the embedder of {self.following}")
        return "".join(", " + x for x in parts)


def format_eta(seconds: float) -> str:
    """``"ETA 40 s"`` / ``"ETA 3 min"`` / ``"ETA 1 h 05 min"``."""
    s = max(0, round(seconds))
    if s < 90:
        return f"ETA {s} s"
    m = round(s / 60)
    return f"ETA {m} min" if m < 60 else f"ETA {m // 60} h {m % 60:02d} min"


@dataclass
class IndexSummary:
    """What one :func:`index_folder` run found and did (``to_json`` is the CLI's --json).

    ``units``: embedding units embedded by this run (``tokens_embedded``: their tokens,
    special tokens included, as the model saw them); ``units_kept``: units of the
    documents it embedded that were already in the cache (an interrupted run resumed, or
    unchanged pages after an extractor upgrade); ``indexed_docs`` / ``removed_docs``: the
    documents (paths relative to the folder) extracted or forgotten by this run.
    """

    documents: int = 0
    indexed: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: list[dict] = field(default_factory=list)
    pages: int = 0
    units: int = 0
    units_kept: int = 0
    tokens_embedded: int = 0
    indexed_docs: list[str] = field(default_factory=list)   # (re-)extracted this run
    removed_docs: list[str] = field(default_factory=list)   # gone from the folder
    elapsed_s: float = 0.0
    embedding_pending: int = 0
    notes: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        """The summary as a JSON-ready dict."""
        d = asdict(self)
        d["elapsed_s"] = round(self.elapsed_s, 3)
        d["indexed_docs"] = sorted(self.indexed_docs)
        return d


ProgressFn = Callable[[Progress], None]
