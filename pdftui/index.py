"""Bringing the cache up to date with a folder: discover, extract, store, embed.

Data flow (see DESIGN.md): discovery and the (size, mtime_ns) check run in the calling thread;
changed files are hashed, and only a new SHA-256 is extracted, in worker *processes*
(PyMuPDF is not thread-safe), several documents at once. Each extracted document is written
whole in one transaction by this process, so keyword search sees it at once. Embedding runs
in a background thread as soon as the first document's text is committed, in batches that
are committed one by one, so an interrupted run resumes where it stopped.

Public entry point: :func:`index_folder`.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import sqlite3
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field

import numpy as np

from .cache import EXTRACTOR_VERSION, HEAD_UNITS, SECTION_HEAD_CHARS, SECTION_HEAD_PAGE
from .corpus import (FileChanging, FoundFile, ReadFile, check_folder, discover, read_file,
                     sha256_file, sniff, still_same)
from . import ocr
from .document import Extraction
from .embed import DEFAULT_PLAN, PLAN_1, UnitPlan
from .errors import CacheError
from .lease import Lease, embed_lease_name, index_lease_name
from .store.database import Cache

#: Units per embedding batch (and per committed transaction).
EMBED_BATCH = 16
#: Seconds between looks at the embedding lease while another process holds it.
FOLLOW_POLL_S = 1.0
#: Skip reasons that may say more about the run than the file (a worker that crashed, maybe
#: for want of memory or because workers cannot start here): kept per file and retried on
#: the next run, never cached against the content.
TRANSIENT_SKIPS = ("damaged (crashed the extractor)", "changed while being read",
                   "file not found")
#: Wall-clock budget for extracting one document, seconds (the 1,370-page manual takes ~7 s),
#: counted from the document's start or from its worker's last OCR heartbeat (a scan OCR'd
#: page by page takes seconds a page; see :mod:`pdftui.ocr`).
DOC_TIMEOUT_S = 300.0


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


def _extract_job(path: str, heartbeat: str | None = None, sha: str = "",
                 ocr_known: dict[int, bytes] | None = None
                 ) -> tuple[Extraction, ReadFile | None]:
    """Worker-process entry: read one PDF, extract it and cut its sections (never raises).
    ``heartbeat`` is a file touched after each OCR'd page; ``ocr_known`` holds the pages
    already recognised in the bytes whose hash is ``sha`` (used only if the bytes read
    still have that hash).

    Returns the extraction and what was read (hash, size, mtime of the very bytes
    extracted; ``data`` dropped), so the content is stored under the hash of what was
    extracted even when the file was replaced after it was queued. The read is None when
    the file could not be read consistently (the skip reason says why).
    """
    from .extract import extract_document

    stem = os.path.basename(path)
    try:
        read = read_file(path)
        for _ in range(3):
            known = ocr_known if read.sha256 == sha else None
            ex = extract_document(path, data=read.data, heartbeat=heartbeat,
                                  ocr_known=known)
            if read.data is not None or still_same(path, read):
                break
            read = read_file(path)   # a large file replaced while extracted by path
        else:
            raise FileChanging(0, "the file kept changing while it was read")
    except FileChanging:
        return Extraction(title=stem, page_count=0, skip_reason="changed while being read"), None
    except FileNotFoundError:
        return Extraction(title=stem, page_count=0, skip_reason="file not found"), None
    except PermissionError:
        return Extraction(title=stem, page_count=0, skip_reason="permission denied"), None
    except OSError as exc:
        return Extraction(title=stem, page_count=0,
                          skip_reason=f"unreadable ({exc.strerror or exc})"), None
    except Exception as exc:  # extract_document should not raise; be safe anyway
        return Extraction(title=stem, page_count=0,
                          skip_reason=f"damaged ({type(exc).__name__})"), None
    read = ReadFile(read.sha256, read.size, read.mtime_ns, None, read.stamp)
    if ex.skip_reason is None and ex.pages:
        try:
            from .sections import sections_for

            ex.sections = sections_for(ex)
        except Exception as exc:  # noqa: BLE001 - a section bug must not lose the document
            ex.notes.append(f"sections failed: {type(exc).__name__}: {exc}")
            ex.sections = []
    for p in ex.pages:
        p.lines = []  # not stored; do not ship them back through the pipe
    return ex, read


def _init_worker(parent: int | None = None) -> None:
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    try:
        os.nice(5)
    except OSError:
        pass
    # A worker holds both ends of the pool's call queue, so it never sees EOF when the
    # indexer dies (kill -9, OOM killer): without this it would wait forever as an orphan.
    # ``parent`` comes from the indexer itself: a worker started just as the indexer died
    # must not take init (pid 1) for its parent.
    parent = parent or os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="pdftui-parent-watch", daemon=True).start()


def index_folder(folder: str | os.PathLike, cache_dir: str | os.PathLike | None = None,
                 model: str | None = None, *, embed: bool = True,
                 progress: ProgressFn | None = None, workers: int = 2,
                 cancel: threading.Event | None = None,
                 pipeline: EmbedPipeline | None = None) -> IndexSummary:
    """Bring the cache up to date with ``folder`` and return what was done.

    ``model`` names the embedding model (None: ``PDFTUI_EMBED_MODEL`` or the offline
    default); ``embed=False`` skips embedding (keyword search still works); ``pipeline``
    how to embed (None: :class:`EmbedPipeline` defaults). ``progress`` is
    called from this thread and from the embedding thread. Setting ``cancel`` stops the run
    after the current document or batch; everything committed so far stays.

    Raises :class:`pdftui.corpus.FolderError` for a missing or unreadable folder and
    :class:`pdftui.cache.CacheError` for an unusable cache location.
    """
    t0 = time.monotonic()
    root = check_folder(folder)
    cache = Cache(cache_dir)
    report = _RunReport(progress)
    cancel = cancel or threading.Event()
    pipeline = pipeline or EmbedPipeline()
    summary = IndexSummary()
    run_lease = _take_run_lease(cache, root, report)
    try:
        report(Progress("scan"))
        found, problems = discover(root)
        summary.documents = len(found)
        report(Progress("check", docs_total=len(found)))
        for p in problems:
            summary.skipped.append({"doc": p.doc, "reason": p.skip_reason})
        known = cache.files(root)
        present = {f.doc for f in found}
        gone = [d for d in known if d not in present]
        jobs, unchanged_docs = _jobs(cache, root, found, known, summary)
        # new documents are visible as queued (coverage totals) until extracted
        cache.add_pending(root, [f.doc for f, _sha in jobs if f.doc not in known])
        # Forget vanished paths only now: a renamed file has been re-keyed to its content
        # above, so that content is still referenced and survives.
        cache.remove_files(root, gone)
        _fill_postings(cache, root, report, cancel)
        summary.removed = len(gone)
        summary.removed_docs = sorted(gone)
        embedder, embed_thread = (
            _start_embedding(cache, root, model, report, cancel, pipeline, jobs, known)
            if embed else (None, None))
        _extract_and_embed(jobs, cache, root, summary, report, cancel, embed_thread, workers)
        if embed_thread is not None:
            _embedding_summary(summary, embedder, embed_thread)
        report(Progress("verify"))
        summary.embedding_pending = _pending_embeddings(cache, root, model, pipeline,
                                                        embedder, embed_thread)
        _content_reasons(cache, root, summary, unchanged_docs)
        summary.skipped.sort(key=lambda s: s["doc"])
        report(Progress("done"))
    finally:
        _release(run_lease, cache)
        summary.elapsed_s = time.monotonic() - t0
        cache.close()
    return summary


class _RunReport:
    """The progress callback of a run: forwards each :class:`Progress` to ``progress``
    and keeps the extraction's counts, which the run's index lease publishes."""

    def __init__(self, progress: ProgressFn | None) -> None:
        self.progress = progress or (lambda p: None)
        self.extracted = (0, 0)

    def __call__(self, p: Progress) -> None:
        if p.phase == "extract":
            self.extracted = (p.docs_done, p.docs_total)
        self.progress(p)


def _take_run_lease(cache: Cache, root: str, report: _RunReport) -> Lease | None:
    """The index lease of ``root`` (:func:`pdftui.lease.index_lease_name`), held by this
    run when no other live run holds it, else None (a second run goes on without it)."""
    lease = Lease(cache.dir, index_lease_name(root), progress=lambda: report.extracted)
    try:
        return lease if lease.take(cache) is None else None
    except (CacheError, sqlite3.Error):   # informational only: never stop an index for it
        return None


def _release(lease: Lease | None, cache: Cache) -> None:
    """Give the run's index lease up (if it holds one); a failure only leaves a row that
    expires (its heartbeat stops)."""
    try:
        if lease is not None:
            lease.release(cache)
    except (CacheError, sqlite3.Error):
        pass


def _fill_postings(cache: Cache, root: str, report: ProgressFn,
                   cancel: threading.Event) -> None:
    """Write the keyword postings of ``root``'s contents indexed before the cache had them
    (schema 8), one content per transaction: an interrupted run keeps what it wrote, and
    until then search reads those contents the slower way."""
    todo = cache.postings_missing(root)
    for i, cid in enumerate(todo):
        if cancel.is_set():
            return
        report(Progress("postings", docs_total=len(todo), docs_done=i))
        cache.fill_postings(cid)
    if todo:
        report(Progress("postings", docs_total=len(todo), docs_done=len(todo)))


def _jobs(cache: Cache, root: str, found: list[FoundFile], known: dict,
          summary: IndexSummary) -> tuple[list[tuple[FoundFile, str]], set[str]]:
    """``(jobs, unchanged docs)``: the ``(file, sha256)`` pairs to extract, and the documents
    whose current content is already in the cache (touched, renamed, moved, or the same
    bytes seen in another folder: re-keyed, not extracted). Files that cannot be indexed are
    recorded with their reason in the cache and in ``summary.skipped``."""
    jobs: list[tuple[FoundFile, str]] = []
    unchanged_docs: set[str] = set()

    def skip(f: FoundFile, reason: str) -> None:
        cache.set_file(root, f.doc, f.size, f.mtime_ns, None, reason)
        summary.skipped.append({"doc": f.doc, "reason": reason})

    def unchanged(f: FoundFile) -> None:
        summary.unchanged += 1
        unchanged_docs.add(f.doc)

    for f in found:
        row = known.get(f.doc)
        if f.skip_reason:
            skip(f, f.skip_reason)
            continue
        if row is not None and row["size"] == f.size and row["mtime_ns"] == f.mtime_ns:
            if (row["content_id"] is None and row["skip_reason"]
                    and row["skip_reason"] not in TRANSIENT_SKIPS):
                summary.skipped.append({"doc": f.doc, "reason": row["skip_reason"]})
                continue
            if row["content_id"] is not None and _current(cache, row["content_id"]):
                unchanged(f)
                continue
        reason = sniff(f.path)
        if reason:
            skip(f, reason)
            continue
        try:
            sha = sha256_file(f.path)
        except OSError as exc:
            skip(f, "permission denied" if isinstance(exc, PermissionError) else "unreadable")
            continue
        have = _stored_content(cache, sha, f, summary)
        if have is not None:
            cache.set_file(root, f.doc, f.size, f.mtime_ns, have)
            unchanged(f)
            continue
        jobs.append((f, sha))
    return jobs, unchanged_docs


def _stored_content(cache: Cache, sha: str, f: FoundFile, summary: IndexSummary) -> int | None:
    """The id of a current content stored under ``sha`` for file ``f``, or None when it
    must be extracted; a content holding other text under this hash (the file was replaced
    while indexed) is forgotten, with a note."""
    have = cache.content_by_sha(sha)
    if have and have[1] == EXTRACTOR_VERSION and not _same_pages(cache, have[0], f):
        cache.forget_content(have[0])   # another file's text under this hash
        summary.notes.append({"doc": f.doc, "note": "the cache held other text under"
                              " this file's hash (replaced while indexed); re-extracted"})
        have = None
    return have[0] if have and _current(cache, have[0]) else None


def _start_embedding(cache: Cache, root: str, model: str | None, report: ProgressFn,
                     cancel: threading.Event, pipeline: EmbedPipeline,
                     jobs: list[tuple[FoundFile, str]], known: dict):
    """``(embedder, embedding thread)``, the thread started with every content of ``root``
    still to embed queued (those about to be re-extracted are queued once extracted)."""
    from .embed import Embedder

    embedder = Embedder(model, cache.dir, int8=pipeline.int8, threads=pipeline.threads,
                        streams=embed_streams(pipeline))
    embed_thread = _EmbedThread(cache.dir, embedder, report, cancel, pipeline)
    replaced = {known[f.doc]["content_id"] for f, _sha in jobs if f.doc in known}
    # the weights' hash without building the int8 model here (the embedding thread
    # does that): an unknown hash queues every content, and planning skips the
    # ones already embedded with the right weights
    known_hash = embedder.known_weights_hash()
    whash = pipeline.plan.identity(known_hash) if known_hash else "unknown"
    for cid in _unembedded(cache, root, embedder.model_id, whash):
        if cid not in replaced:   # re-extracted first, then queued
            embed_thread.put(cid)
    embed_thread.expect(embed_thread.q.qsize() + len(jobs))
    embed_thread.start()
    return embedder, embed_thread


def _extract_and_embed(jobs, cache: Cache, root: str, summary: IndexSummary,
                       report: ProgressFn, cancel: threading.Event, embed_thread,
                       workers: int) -> None:
    """Extract ``jobs``, fill missing metadata, then wait for the embedding thread (when
    there is one) to embed what is queued."""
    try:
        _run_extraction(jobs, cache, root, summary, report, cancel, embed_thread, workers)
        _fill_metadata(cache, root, cancel)
        if embed_thread is not None:
            embed_thread.finish()
            while embed_thread.is_alive():
                embed_thread.join(0.2)
    except BaseException:
        # Ctrl-C or an error: let the embedding thread finish its batch and stop, so
        # onnxruntime is not torn down mid-run at interpreter exit
        cancel.set()
        if embed_thread is not None and embed_thread.is_alive():
            embed_thread.finish()
            embed_thread.join(60)
        raise


def _embedding_summary(summary: IndexSummary, embedder, embed_thread) -> None:
    """What the embedding thread did: units embedded and kept, tokens, and notes when it
    stopped on an error or followed another process's embedder."""
    summary.units = embed_thread.units_done
    summary.units_kept = embed_thread.units_before
    summary.tokens_embedded = embedder.tokens_embedded
    if embed_thread.error is not None:
        summary.notes.append({"doc": "", "note": f"embedding stopped: {embed_thread.error}"})
    if embed_thread.followed:
        summary.notes.append({"doc": "", "note": (
            f"followed the embedder of {embed_thread.followed} for "
            f"{embed_thread.followed_s:.0f} s instead of embedding the same units")})


def _pending_embeddings(cache: Cache, root: str, model: str | None, pipeline: EmbedPipeline,
                        embedder, embed_thread) -> int:
    """How many contents of ``root`` are still not (fully) embedded for the model."""
    from .embed import Embedder, resolve_model_name

    model_id = embedder.model_id if embedder else resolve_model_name(model)
    plan = pipeline.plan
    if embedder is not None and embed_thread is not None and embed_thread.error is None:
        whash = plan.identity(embedder.weights_hash)
    else:  # not known without loading the model: count missing or partial only
        known_hash = (embedder or Embedder(model, cache.dir)).known_weights_hash()
        whash = plan.identity(known_hash) if known_hash else None
    return len(_unembedded(cache, root, model_id, whash))


def _content_reasons(cache: Cache, root: str, summary: IndexSummary,
                     unchanged_docs: set[str]) -> None:
    """Skip reasons and notes carried by the contents of ``root`` (not a PDF, password
    protected, no text layer, pages waiting for OCR) into ``summary``; a skipped document
    is counted once, as skipped."""
    for doc, reason, quality, missing in cache.content_states(root):
        if reason:
            summary.skipped.append({"doc": doc, "reason": reason})
            if doc in unchanged_docs:  # each document is counted once: as skipped
                summary.unchanged -= 1
        elif quality != "ok":
            note = ocr.pending_note(missing) if missing and quality == "no text layer" \
                else quality
            summary.notes.append({"doc": doc, "note": note})
        elif missing and ocr.available():
            summary.notes.append({"doc": doc, "note": ocr.pending_note(missing)})


def _same_pages(cache: Cache, content_id: int, f: FoundFile) -> bool:
    """False when the cached content of this hash has another page count than the file
    (a cache poisoned by a file replaced during an older pdftui's index). Opens the PDF
    in this process (PyMuPDF, no page parsed) only for an indexed content."""
    pages, reason = cache.content_pages(content_id)
    if reason or not pages:
        return True
    from .extract import count_pages

    n = count_pages(f.path)
    return n is None or n == pages


def _fill_metadata(cache: Cache, root: str, cancel: threading.Event) -> int:
    """Read the title and metadata of the documents of ``root`` cached without metadata
    (or with an older :data:`pdftui.metadata.METADATA_VERSION`) from their first pages,
    in this process: tens of milliseconds per document, no re-extraction, no
    re-embedding. Returns how many were read. Documents already extracted succeeded once
    in a worker, so reading two pages of them here is safe."""
    from .extract import head_of_file
    from .metadata import METADATA_VERSION

    todo = cache.missing_metadata(root, METADATA_VERSION)
    for content_id, doc, title in todo:
        if cancel.is_set():
            break
        title, md = head_of_file(os.path.join(root, doc), title)
        cache.set_metadata(content_id, md, title=title)
    return len(todo)


def _current(cache: Cache, content_id: int) -> bool:
    """Is this content extracted by this extractor, with nothing left for OCR that this
    machine could now do (scanned pages met before Tesseract was installed)?"""
    if cache.extractor_version(content_id) != EXTRACTOR_VERSION:
        return False
    return not (cache.ocr_missing(content_id) and ocr.available())


def _unembedded(cache: Cache, root: str, model_id: str, weights_hash: str | None) -> list[int]:
    """Content ids of ``root`` with searchable text whose embeddings are missing, partial,
    made with other weights (``weights_hash`` None: that check is skipped) or without
    section head units (a cache embedded before they existed)."""
    return cache.unembedded(root, model_id, weights_hash)


def _run_extraction(jobs, cache: Cache, root: str, summary: IndexSummary, report: ProgressFn,
                    cancel: threading.Event, embed_thread, workers: int) -> None:
    """Extract ``jobs`` in worker processes and store each result as it arrives.

    If a PDF crashes a worker (MuPDF segfault), the remaining documents are retried one at a
    time, and the one that crashes alone is skipped as "damaged (crashed the extractor)". A
    document whose extraction runs longer than :data:`DOC_TIMEOUT_S` (since it started, or
    since its last OCR heartbeat) is skipped as "damaged (extraction timed out)" and its
    worker is killed.
    """
    if not jobs:
        return
    jobs = sorted(jobs, key=lambda j: j[0].size)
    ctx = multiprocessing.get_context("spawn")
    _ensure_resource_tracker()
    beats = tempfile.TemporaryDirectory(prefix="pdftui-beat-")
    run = _ExtractionRun(jobs, cache, root, summary, report, embed_thread, beats.name)
    solo = False
    while run.pending and not cancel.is_set():
        n = 1 if solo else max(1, min(workers, len(run.pending)))
        pool = ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_worker,
                                   initargs=(os.getpid(),))
        outcome = "done"
        try:
            outcome = run.round(pool, n, solo, cancel)
        finally:
            pool.shutdown(wait=outcome == "done", cancel_futures=True)
        if outcome == "crashed":
            solo = True
    beats.cleanup()


class _ExtractionRun:
    """The state of one :func:`_run_extraction`: the jobs not stored yet (``pending``,
    ``(FoundFile, sha256)`` pairs), the progress reported, and where each job's OCR
    heartbeat file lives (``beats``, a folder)."""

    def __init__(self, jobs, cache: Cache, root: str, summary: IndexSummary,
                 report: ProgressFn, embed_thread, beats: str):
        self.pending = list(jobs)
        self.cache, self.root, self.summary = cache, root, summary
        self.report, self.embed_thread, self.beats = report, embed_thread, beats
        self.prog = Progress("extract", docs_total=len(jobs))

    def finish(self, job, ex: Extraction, read: ReadFile | None = None) -> None:
        """Store one job's extraction and report the progress."""
        f, sha = job
        _store(self.cache, self.root, f, sha, ex, self.summary, self.embed_thread, read)
        self.pending.remove(job)
        self.prog.docs_done += 1
        self.prog.pages_done += len(ex.pages)
        self.prog.current = f.doc
        self.report(self.prog)

    def round(self, pool: ProcessPoolExecutor, n: int, solo: bool,
              cancel: threading.Event) -> str:
        """Run the pending jobs on ``pool`` (``n`` workers, at most 2 jobs per worker in
        flight, so cancel is prompt) until they are done ("done"), a worker crashed
        ("crashed": the caller retries one at a time) or a job ran too long ("restart":
        its workers were killed)."""
        futures: dict[Future, tuple[FoundFile, str]] = {}
        started: dict[Future, float] = {}
        queue_ = list(self.pending)
        while (queue_ or futures) and not cancel.is_set():
            while queue_ and len(futures) < 2 * n:
                job = queue_.pop(0)
                beat = os.path.join(self.beats, job[1])
                known = self.cache.ocr_results(job[1], ocr.SETTINGS)
                futures[pool.submit(_extract_job, job[0].path, beat, job[1], known)] = job
            done, _ = wait(list(futures), timeout=0.5, return_when=FIRST_COMPLETED)
            if self._collect(done, futures, solo):
                return "crashed"
            if self._time_out_late(futures, started):
                _kill_workers(pool)
                return "restart"
        return "done"

    def _collect(self, done, futures: dict, solo: bool) -> bool:
        """Store the finished jobs; True when a worker crashed (outside ``solo`` mode, the
        crashed jobs stay pending; in it, the one crashing alone is skipped as damaged)."""
        crashed = False
        for fut in done:
            job = futures.pop(fut)
            read = None
            try:
                ex, read = fut.result()
            except BrokenProcessPool:
                if not solo:
                    crashed = True
                    continue
                ex = Extraction(title=os.path.basename(job[0].path), page_count=0,
                                skip_reason="damaged (crashed the extractor)")
            self.finish(job, ex, read)
        return crashed

    def _time_out_late(self, futures: dict, started: dict) -> bool:
        """Skip as damaged every job idle for more than :data:`DOC_TIMEOUT_S` seconds
        (since it started running, or since its last OCR heartbeat); True when any was."""
        now = time.monotonic()
        for fut in futures:
            if fut not in started and fut.running():
                started[fut] = now
        late = [fut for fut in futures
                if _idle_s(now - started.get(fut, now),
                           os.path.join(self.beats, futures[fut][1])) > DOC_TIMEOUT_S]
        for fut in late:
            job = futures.pop(fut)
            self.finish(job, Extraction(title=os.path.basename(job[0].path), page_count=0,
                                        skip_reason="damaged (extraction timed out)"))
        return bool(late)


def _idle_s(running_s: float, beat: str) -> float:
    """Seconds a job has run without progress: since it started (``running_s`` ago) or
    since its heartbeat file was last touched, whichever is more recent."""
    try:
        return min(running_s, time.time() - os.stat(beat).st_mtime)
    except OSError:
        return running_s


def _ensure_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with a real stderr.

    Inside a TUI ``sys.stderr`` is a capture object whose ``fileno()`` is -1, and starting
    the tracker then fails with "bad value(s) in fds_to_keep"; give it /dev/null instead.
    """
    from multiprocessing import resource_tracker

    try:
        ok = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        ok = False
    if ok:
        resource_tracker.ensure_running()
        return
    saved = sys.stderr
    with open(os.devnull, "w") as devnull:
        sys.stderr = devnull
        try:
            resource_tracker.ensure_running()
        finally:
            sys.stderr = saved


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """Kill a pool's worker processes (a stuck MuPDF call cannot be interrupted otherwise)."""
    for proc in list(getattr(pool, "_processes", {}).values()):
        try:
            proc.kill()
        except Exception:  # noqa: BLE001 - already gone
            pass


def _store(cache: Cache, root: str, f: FoundFile, sha: str, ex: Extraction,
           summary: IndexSummary, embed_thread, read: ReadFile | None = None) -> None:
    """Store one extraction: under the hash, size and mtime of what the worker read
    (``read``), which differ from the queued ``sha`` and ``f`` when the file was replaced
    or rewritten after it was queued; without a read (a crash, a timeout), under the
    queued ones. A file that could not be read is recorded against the file only."""
    if ex.skip_reason in TRANSIENT_SKIPS or (read is None and ex.skip_reason
                                             and not ex.skip_reason.startswith("damaged")):
        # recorded against the file, not the content, so the next run tries again
        # (size -1: never taken for unchanged)
        transient = ex.skip_reason in ("changed while being read", "file not found")
        cache.set_file(root, f.doc, -1 if transient else f.size,
                       -1 if transient else f.mtime_ns, None, ex.skip_reason)
        summary.skipped.append({"doc": f.doc, "reason": ex.skip_reason})
        return
    if read is not None:
        sha, size, mtime_ns = read.sha256, read.size, read.mtime_ns
    else:
        size, mtime_ns = f.size, f.mtime_ns
    cid = cache.insert_content(sha, size, ex)
    cache.set_file(root, f.doc, size, mtime_ns, cid)
    if ex.skip_reason is None:  # a skipped document is counted in summary.skipped only
        summary.indexed += 1
        summary.indexed_docs.append(f.doc)
    summary.pages += len(ex.pages)
    if ex.skip_reason is None and ex.text_quality == "ok" and embed_thread is not None:
        embed_thread.put(cid)


def section_head_text(embedder, title: str, text: str, own_chars: int,
                      plan: UnitPlan = PLAN_1) -> str:
    """The text of a section's head unit: the first embedding unit (up to
    ``plan.head_tokens`` tokens) of the section's own text, from its heading; the title
    when that is empty. ``own_chars`` as in ``sections.own_chars`` (-1 = the whole text)."""
    own = text if own_chars < 0 else text[:own_chars]
    first = embedder.units(own[:SECTION_HEAD_CHARS], plan, max_tokens=plan.head_tokens)
    return next(iter(first), "") or title


@dataclass(frozen=True, slots=True)
class EmbedPipeline:
    """How the embedding thread works. The default is the product's way; :data:`EARLIER`
    (fp32, texts in their order, small batches, no openings first) is kept so
    bench/index.py compares the two in one run (and the default with other unit plans).

    ``int8``: run the default model as its int8 copy (None: env ``PDFTUI_EMBED_INT8``,
    else on); ``sort``: onnxruntime runs of similar token length; ``single``: each unit its
    own onnxruntime run, so its vector depends on its text alone (the int8 copy quantizes
    activations per run, and which units share a batch depends on the order the
    extraction workers finish in: two fresh indexes differed); ``batch_units``: units
    per embed call and committed transaction; ``heads_first``: every document's first
    ``HEAD_UNITS`` page units (its opening: the document-level arm's head vector) before any
    document's other units, so documents become semantically searchable early; ``plan``:
    the unit plan (:class:`pdftui.embed.units.UnitPlan`, part of the embeddings' identity);
    ``threads``: onnxruntime's intra-op threads (None: its default, one per core);
    ``streams``: single-unit runs at once, each on one thread (None: one per core the
    process may use, :func:`embed_streams`); ``nice``: how much the embedding thread (and
    the stream threads it starts, which inherit it) lowers its own scheduling priority
    (Linux: a nice value per thread), so that extraction, whose text keyword search needs
    first, and the TUI or a searching process win the cores when they compete; alone on
    the machine the embedding runs as fast (0: unchanged).
    """

    int8: bool | None = None
    sort: bool = True
    single: bool = True
    batch_units: int = 64
    heads_first: bool = True
    plan: UnitPlan = DEFAULT_PLAN
    threads: int | None = 1
    streams: int | None = None
    nice: int = 10


EARLIER = EmbedPipeline(int8=False, sort=False, single=False, batch_units=EMBED_BATCH,
                        heads_first=False, plan=PLAN_1, threads=None, streams=1, nice=0)


def lower_thread_priority(amount: int) -> bool:
    """Add ``amount`` to the calling thread's nice value (Linux, where it is per thread;
    threads it starts afterwards inherit it). Returns False where that is not possible
    (other systems, where it would apply to the whole process, or when refused)."""
    if amount <= 0 or not sys.platform.startswith("linux"):
        return False
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid)
                                                  + amount))
    except (AttributeError, OSError):
        return False
    return True


def embed_streams(pipeline: EmbedPipeline) -> int:
    """How many runs ``pipeline`` embeds at once: its ``streams``, else the cores this
    process may run on (``os.sched_getaffinity``, else ``os.cpu_count()``), at most 8."""
    if pipeline.streams is not None:
        return max(1, pipeline.streams)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(8, cores))


class _EmbedQueue:
    """Units waiting to be embedded, as ``(content_id, stamp, unit)`` items: with
    ``heads_first``, every content's opening units before any content's other units."""

    def __init__(self, heads_first: bool):
        self.heads_first = heads_first
        self.heads: deque = deque()
        self.rest: deque = deque()
        self.dead: set[tuple[int, float]] = set()   # contents changed since planned

    def __len__(self) -> int:
        return len(self.heads) + len(self.rest)

    def add(self, cid: int, stamp: float, todo: list) -> None:
        items = [(cid, stamp, t) for t in todo]
        if self.heads_first:
            opening = [it for it in items if it[2][0] != SECTION_HEAD_PAGE][:HEAD_UNITS]
            self.heads.extend(opening)
            keep = set(map(id, opening))
            items = [it for it in items if id(it) not in keep]
        self.rest.extend(items)

    def take(self, n: int) -> list:
        out: list = []
        for q in (self.heads, self.rest):
            while q and len(out) < n:
                it = q.popleft()
                if (it[0], it[1]) not in self.dead:
                    out.append(it)
        return out


class _Rate:
    """Embedding speed and time left. The ETA divides the units left, plus the units the
    contents not planned yet will bring (at the mean units per planned content), by the
    units per second since the first batch; it converges as both estimates firm up."""

    def __init__(self) -> None:
        self.t0: float | None = None
        self.done = 0

    def update(self, units: int) -> None:
        if self.t0 is None:
            self.t0 = time.monotonic()
            return   # the first batch includes the model load: not counted
        self.done += units

    def eta(self, left: int, planned: int, expected: int, units_planned: int) -> float | None:
        if self.t0 is None or self.done <= 0:
            return None
        rate = self.done / max(time.monotonic() - self.t0, 1e-6)
        unplanned = max(0, expected - planned)
        if planned:
            left += unplanned * units_planned / planned
        return left / rate


class _EmbedThread(threading.Thread):
    """Embeds contents' units in length-sorted batches, each batch its own transaction."""

    def __init__(self, cache_dir, embedder, report: ProgressFn, cancel: threading.Event,
                 pipeline: EmbedPipeline = EmbedPipeline()):
        super().__init__(name="pdftui-embed", daemon=True)
        self.cache_dir = cache_dir
        self.embedder = embedder
        self.report = report
        self.cancel = cancel
        self.pipeline = pipeline
        self.q: queue.Queue[int | None] = queue.Queue()
        self.units_done = 0      # embedded by this run
        self.units_total = 0     # to embed in this run
        self.units_before = 0    # already embedded (by an earlier run or another process)
        self.error: str | None = None
        self.expected = 0        # contents this run may embed (queued or being extracted)
        self.planned = 0         # contents planned so far
        self.all_planned = False  # the end-of-queue mark was seen: the unit total is final
        self.docs_ready = 0      # planned contents whose units are all embedded
        self._queued: set[int] = set()
        self._left: dict[int, int] = {}   # units still to embed per planned content
        self._rate = _Rate()
        self.followed_s = 0.0    # seconds spent following another process's lease
        self.followed: str = ""  # whom ("pid 1234 on host")
        self.lease = Lease(cache_dir, embed_lease_name(embedder.model_id),
                           progress=lambda: (self.units_before + self.units_done,
                                             self.units_before + self.units_total))

    def put(self, content_id: int) -> None:
        if content_id not in self._queued:
            self._queued.add(content_id)
            self.q.put(content_id)

    def expect(self, n: int) -> None:
        """``n`` more contents may come (documents still to extract), for the ETA."""
        self.expected += n

    def finish(self) -> None:
        self.q.put(None)

    def run(self) -> None:
        lower_thread_priority(self.pipeline.nice)
        cache = Cache(self.cache_dir)
        work = _EmbedQueue(self.pipeline.heads_first)
        finished = False
        try:
            while not self.cancel.is_set():
                finished = self._plan_queued(cache, work, block=not work and not finished) \
                    or finished
                if not work:
                    if finished:
                        break
                    continue
                if not self._hold_lease(cache):
                    break
                batch = self._still_missing(cache, work.take(self.pipeline.batch_units))
                if batch:
                    self._embed_batch(cache, work, batch)
        except Exception as exc:  # noqa: BLE001 - reported in the summary, never a crash
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            try:
                self.lease.release(cache)
            except Exception:  # noqa: BLE001 - an expired lease is taken over anyway
                pass
            cache.close()

    def _plan_queued(self, cache: Cache, work: _EmbedQueue, block: bool) -> bool:
        """Plan every content queued so far (tokenising is cheap), so the unit total is
        known early; block for one only when there is nothing to embed. True once the
        end-of-queue mark was seen."""
        finished = False
        while True:
            try:
                cid = self.q.get() if block and not finished else self.q.get_nowait()
            except queue.Empty:
                break
            block = False
            if cid is None:
                finished = self.all_planned = True
                continue
            self._queued.discard(cid)   # a replaced content may reuse the id
            stamp = cache.content_stamp(cid)
            todo = self._plan(cache, cid) if stamp is not None else []
            self.planned += 1
            if todo:
                work.add(cid, stamp, todo)
                self._left[cid] = len(todo)
            else:
                self.docs_ready += 1
            self._report()
        return finished

    def _hold_lease(self, cache: Cache) -> bool:
        """Hold the cache's embedding lease; while another live process holds it, report
        its progress (``Progress.following``) and wait. False when cancelled meanwhile."""
        if self.lease.held and self.lease.still_held(cache):
            return True
        t0 = time.monotonic()
        waited = False
        try:
            while not self.cancel.is_set():
                other = self.lease.take(cache)
                if other is None:
                    return True
                waited = True
                self.followed = f"pid {other.pid} on {other.host}"
                self.report(Progress("embed", units_total=other.units_total,
                                     units_done=other.units_done, following=self.followed))
                self.cancel.wait(FOLLOW_POLL_S)
            return False
        finally:
            if waited:
                self.followed_s += time.monotonic() - t0

    def _still_missing(self, cache: Cache, batch: list) -> list:
        """``batch`` ((content id, stamp, unit) items) without the units stored meanwhile
        (by the process we followed); the counts move them to "already embedded"."""
        if not batch or not self.followed:
            return batch
        have = set()
        for cid in {it[0] for it in batch}:
            have |= {(cid, p, o) for p, o in cache.unit_keys(cid, self.embedder.model_id)}
        left = [it for it in batch if (it[0], it[2][0], it[2][1]) not in have]
        gone = len(batch) - len(left)
        self.units_total -= gone
        self.units_before += gone
        return left

    def _report(self) -> None:
        left = self.units_total - self.units_done
        eta = self._rate.eta(left, self.planned, self.expected,
                             self.units_total + self.units_before)
        self.report(Progress("embed", units_total=self.units_before + self.units_total,
                             units_done=self.units_before + self.units_done,
                             docs_total=max(self.expected, self.planned),
                             docs_done=self.docs_ready, eta_s=eta,
                             docs_planned=max(self.expected, self.planned)
                             if self.all_planned else self.planned))

    def _embed_batch(self, cache: Cache, work: _EmbedQueue, batch: list) -> None:
        """Embed one batch of ``(content_id, stamp, unit)`` items and commit it in one
        transaction; the units of a content that changed or went away since it was planned
        (``stamp`` = its ``indexed_at``: a re-extracted content may get the same id) are
        dropped, and so are its remaining items."""
        emb = self.embedder
        model_id = emb.model_id
        vecs = emb.embed([it[2][4] for it in batch], sort=self.pipeline.sort,
                         single=self.pipeline.single)
        vecs = vecs.astype(np.float32, copy=False)
        dead = cache.store_units(
            model_id, [(it[0], it[1], it[2], v.tobytes()) for it, v in zip(batch, vecs)],
            keep=lambda: self.lease.still_held(cache))
        if dead is None:
            return  # taken over (we were suspended or too slow to beat): it embeds them
        work.dead |= dead
        for it in batch:
            left = self._left.get(it[0])
            if left is not None:
                self._left[it[0]] = left - 1
                if left == 1:
                    self.docs_ready += 1
        self.units_done += len(batch)
        self._rate.update(len(batch))
        self._report()

    def _plan(self, cache: Cache, cid: int) -> list[tuple[int, int, int, int, str]]:
        """The units of one content still to embed: ``(page, ordinal, start, end, text)``."""
        emb = self.embedder
        plan = self.pipeline.plan
        model_id, whash = emb.model_id, plan.identity(emb.weights_hash)
        state = cache.embedding_state(cid, model_id)
        if state and state[0] != whash:
            cache.drop_embeddings(cid, model_id)
            state = None
        if state and state[2] >= state[1] and not cache.heads_missing(cid, model_id):
            return []
        todo: list[tuple[int, int, int, int, str]] = []
        for number, text in cache.page_texts(cid):
            for i, (start, end) in enumerate(emb.unit_spans(text, plan)):
                todo.append((number, i, start, end, text[start:end]))
        # one head unit per section: the first unit of its own text, from its heading
        # (page 0 marks them; the semantic section arm ranks sections by it)
        for ordinal, title, text, own in cache.section_texts(cid):
            first = section_head_text(emb, title, text, own, plan)
            if first.strip():
                todo.append((SECTION_HEAD_PAGE, ordinal, 0, len(first), first))
        have = cache.unit_keys(cid, model_id)
        if not cache.plan_embeddings(cid, model_id, whash, len(todo), len(have)):
            return []
        todo = [t for t in todo if (t[0], t[1]) not in have]
        self.units_before += len(have)
        self.units_total += len(todo)
        return todo
