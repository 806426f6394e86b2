"""Bringing the cache up to date with a folder: discover, extract, store, embed.

Data flow (see DESIGN.md): discovery and the (size, mtime_ns) check run in the calling thread;
changed files are hashed, and only a new SHA-256 is extracted, in worker *processes*
(PyMuPDF is not thread-safe), several documents at once. Each extracted document is written
whole in one transaction by this process, so keyword search sees it at once. Embedding runs
in a background thread as soon as the first document's text is committed, in batches that
are committed one by one, so an interrupted run resumes where it stopped.

Public entry point: :func:`index_folder`. The extraction in worker processes is
:mod:`.extraction`, the embedding thread :mod:`.embedding`, the progress reports and the
run's summary :mod:`.report`.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time

from ..cache import EXTRACTOR_VERSION
from .. import hidden_text
from ..store.database import Cache
from ..corpus import FoundFile, check_folder, discover, sha256_file, sniff
from .. import ocr
from ..errors import CacheError
from ..lease import Lease, index_lease_name
from .embedding import EmbedPipeline, EmbedThread, embed_streams
from .extraction import TRANSIENT_SKIPS, run_extraction
from .report import IndexSummary, Progress, ProgressFn


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
    from ..embed import Embedder

    embedder = Embedder(model, cache.dir, int8=pipeline.int8, threads=pipeline.threads,
                        streams=embed_streams(pipeline))
    embed_thread = EmbedThread(cache.dir, embedder, report, cancel, pipeline)
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
        run_extraction(jobs, cache, root, summary, report, cancel, embed_thread, workers)
        _fill_metadata(cache, root, cancel)
        _cite(cache, root, cancel)
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


def _cite(cache: Cache, root: str, cancel: threading.Event) -> None:
    """The citation step (:mod:`.citations`): reference lists read from the stored blocks,
    then the folder's links brought up to date; no PDF is opened."""
    from .citations import fill_references, update_links

    read: dict = {}
    fill_references(cache, root, cancel, read)
    if not cancel.is_set():
        update_links(cache, root, read)


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
    from ..embed import Embedder, resolve_model_name

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
    from ..extract import count_pages

    n = count_pages(f.path)
    return n is None or n == pages


def _fill_metadata(cache: Cache, root: str, cancel: threading.Event) -> int:
    """Read the title and metadata of the documents of ``root`` cached without metadata
    (or with an older :data:`pdftui.metadata.METADATA_VERSION`) from their first pages,
    in this process: tens of milliseconds per document, no re-extraction, no
    re-embedding. Returns how many were read. Documents already extracted succeeded once
    in a worker, so reading two pages of them here is safe."""
    from ..metadata import METADATA_VERSION

    todo = cache.missing_metadata(root, METADATA_VERSION)
    for content_id, doc, title in todo:
        if cancel.is_set():
            break
        from ..extract import head_of_file   # PyMuPDF: only when a document needs it

        title, md = head_of_file(os.path.join(root, doc), title)
        cache.set_metadata(content_id, md, title=title)
    return len(todo)


def _current(cache: Cache, content_id: int) -> bool:
    """Is this content extracted by this extractor, with nothing left for OCR that this
    machine could now do (scanned pages met before Tesseract was installed)?"""
    if cache.extractor_version(content_id) != EXTRACTOR_VERSION:
        return False
    if cache.hidden_skipped(content_id) == hidden_text.indexed():
        return False   # the hidden-text setting changed since it was extracted
    return not (cache.ocr_missing(content_id) and ocr.available())


def _unembedded(cache: Cache, root: str, model_id: str, weights_hash: str | None) -> list[int]:
    """Content ids of ``root`` with searchable text whose embeddings are missing, partial,
    made with other weights (``weights_hash`` None: that check is skipped) or without
    section head units (a cache embedded before they existed)."""
    return cache.unembedded(root, model_id, weights_hash)
